#pragma once

#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace swarmtrain {

// The safetensors layout: an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the raw bytes. SwarmTrain adds a SHA-256 of the
// whole file to the header's "__metadata__" (computed with that field zeroed), so one file
// carries its own check and Python's `safetensors` still opens it.
enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

std::size_t dtypeSize(DType dtype);
const char *dtypeName(DType dtype);
std::optional<DType> dtypeFromName(const std::string &name);

struct TensorEntry {
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    std::span<const std::byte> bytes;

    std::int64_t numel() const;
};

// A decoded container. Tensor entries point into `storage`, which the container owns.
struct TensorContainer {
    std::vector<std::byte> storage;
    std::map<std::string, std::string> metadata;
    std::map<std::string, TensorEntry> tensors;

    const TensorEntry *find(const std::string &name) const;
    std::optional<std::string> meta(const std::string &key) const;
};

struct DecodeLimits {
    std::uint64_t maxHeaderBytes = 16u << 20;
    std::size_t maxTensors = 100000;
    std::size_t maxRank = 8;
    bool requireChecksum = true;
};

class TensorContainerWriter {
public:
    void setMetadata(const std::string &key, const std::string &value);
    // Copies the bytes; their size must equal numel * dtypeSize.
    void addTensor(const std::string &name, DType dtype, std::vector<std::int64_t> shape,
                   std::span<const std::byte> bytes);
    std::vector<std::byte> finish() const;

private:
    struct Pending {
        std::string name;
        DType dtype;
        std::vector<std::int64_t> shape;
        std::vector<std::byte> bytes;
    };
    std::map<std::string, std::string> m_metadata;
    std::vector<Pending> m_tensors;
};

// Strictly bounds-checked: every length, offset and shape is validated before use; any
// inconsistency (or a checksum mismatch) is an error, never an out-of-range read.
Result<TensorContainer> decodeTensorContainer(std::vector<std::byte> bytes, const DecodeLimits &limits = {});
Result<TensorContainer> readTensorContainer(const std::filesystem::path &path, const DecodeLimits &limits = {});

} // namespace swarmtrain
