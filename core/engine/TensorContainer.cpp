#include "TensorContainer.h"

#include "FileIo.h"
#include "Sha256.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <nlohmann/json.hpp>

namespace swarmtrain {

namespace {

constexpr const char *kChecksumKey = "sha256";
constexpr std::size_t kDigestHexLength = 64;
constexpr std::uint64_t kMaxFileBytes = 64ull << 30;

struct DTypeInfo {
    DType dtype;
    const char *name;
    std::size_t size;
};

constexpr std::array<DTypeInfo, 10> kDTypes = {{
    {DType::F64, "F64", 8},
    {DType::F32, "F32", 4},
    {DType::F16, "F16", 2},
    {DType::BF16, "BF16", 2},
    {DType::I64, "I64", 8},
    {DType::I32, "I32", 4},
    {DType::I16, "I16", 2},
    {DType::I8, "I8", 1},
    {DType::U8, "U8", 1},
    {DType::Bool, "BOOL", 1},
}};

const DTypeInfo &infoOf(DType dtype)
{
    return *std::find_if(kDTypes.begin(), kDTypes.end(), [&](const DTypeInfo &info) { return info.dtype == dtype; });
}

std::string checksumNeedle(const std::string &hex)
{
    return std::string("\"") + kChecksumKey + "\":\"" + hex + "\"";
}

// Hash of the file with the checksum's hex digits replaced by zeros.
std::string checksumOf(std::vector<std::byte> &file, std::size_t digitsAt)
{
    std::array<std::byte, kDigestHexLength> saved;
    std::memcpy(saved.data(), file.data() + digitsAt, kDigestHexLength);
    std::memset(file.data() + digitsAt, '0', kDigestHexLength);
    const std::string hex = Sha256::hexOf(file);
    std::memcpy(file.data() + digitsAt, saved.data(), kDigestHexLength);
    return hex;
}

std::uint64_t readLittleEndian64(const std::byte *p)
{
    std::uint64_t value = 0;
    for (int i = 7; i >= 0; --i)
        value = (value << 8) | std::uint64_t(p[i]);
    return value;
}

} // namespace

std::size_t dtypeSize(DType dtype) { return infoOf(dtype).size; }
const char *dtypeName(DType dtype) { return infoOf(dtype).name; }

std::optional<DType> dtypeFromName(const std::string &name)
{
    for (const DTypeInfo &info : kDTypes) {
        if (name == info.name)
            return info.dtype;
    }
    return std::nullopt;
}

std::int64_t TensorEntry::numel() const
{
    std::int64_t n = 1;
    for (std::int64_t d : shape)
        n *= d;
    return n;
}

const TensorEntry *TensorContainer::find(const std::string &name) const
{
    const auto it = tensors.find(name);
    return it == tensors.end() ? nullptr : &it->second;
}

std::optional<std::string> TensorContainer::meta(const std::string &key) const
{
    const auto it = metadata.find(key);
    if (it == metadata.end())
        return std::nullopt;
    return it->second;
}

void TensorContainerWriter::setMetadata(const std::string &key, const std::string &value)
{
    m_metadata[key] = value;
}

void TensorContainerWriter::addTensor(const std::string &name, DType dtype, std::vector<std::int64_t> shape,
                                      std::span<const std::byte> bytes)
{
    m_tensors.push_back({name, dtype, std::move(shape), std::vector<std::byte>(bytes.begin(), bytes.end())});
}

std::vector<std::byte> TensorContainerWriter::finish() const
{
    nlohmann::json header = nlohmann::json::object();
    nlohmann::json metadata = nlohmann::json::object();
    for (const auto &[key, value] : m_metadata)
        metadata[key] = value;
    const std::string placeholder(kDigestHexLength, '0');
    metadata[kChecksumKey] = placeholder;
    header["__metadata__"] = metadata;

    std::uint64_t offset = 0;
    for (const Pending &tensor : m_tensors) {
        header[tensor.name] = {
            {"dtype", dtypeName(tensor.dtype)},
            {"shape", tensor.shape},
            {"data_offsets", {offset, offset + tensor.bytes.size()}},
        };
        offset += tensor.bytes.size();
    }

    std::string headerText = header.dump();
    headerText.append((8 - headerText.size() % 8) % 8, ' ');

    std::vector<std::byte> file;
    file.reserve(8 + headerText.size() + offset);
    for (int i = 0; i < 8; ++i)
        file.push_back(std::byte((headerText.size() >> (8 * i)) & 0xff));
    const auto *headerBytes = reinterpret_cast<const std::byte *>(headerText.data());
    file.insert(file.end(), headerBytes, headerBytes + headerText.size());
    for (const Pending &tensor : m_tensors)
        file.insert(file.end(), tensor.bytes.begin(), tensor.bytes.end());

    const std::string needle = checksumNeedle(placeholder);
    const std::size_t at = 8 + headerText.find(needle) + needle.size() - 1 - kDigestHexLength;
    const std::string digest = checksumOf(file, at);
    std::memcpy(file.data() + at, digest.data(), kDigestHexLength);
    return file;
}

Result<TensorContainer> decodeTensorContainer(std::vector<std::byte> bytes, const DecodeLimits &limits)
{
    if (bytes.size() < 8)
        return makeError("truncated tensor file: " + std::to_string(bytes.size()) + " bytes");
    const std::uint64_t headerLength = readLittleEndian64(bytes.data());
    if (headerLength == 0 || headerLength > limits.maxHeaderBytes || headerLength > bytes.size() - 8)
        return makeError("corrupt tensor file: header length " + std::to_string(headerLength) + " does not fit");

    const char *headerBegin = reinterpret_cast<const char *>(bytes.data() + 8);
    const std::string_view headerText(headerBegin, headerLength);
    nlohmann::json header = nlohmann::json::parse(headerText, nullptr, /*allow_exceptions=*/false);
    if (header.is_discarded() || !header.is_object())
        return makeError("corrupt tensor file: header is not a JSON object");

    TensorContainer container;
    if (const auto metaIt = header.find("__metadata__"); metaIt != header.end()) {
        if (!metaIt->is_object())
            return makeError("corrupt tensor file: __metadata__ is not an object");
        for (const auto &[key, value] : metaIt->items()) {
            if (!value.is_string())
                return makeError("corrupt tensor file: metadata '" + key + "' is not a string");
            container.metadata[key] = value.get<std::string>();
        }
    }

    const std::uint64_t dataBegin = 8 + headerLength;
    const std::uint64_t dataSize = bytes.size() - dataBegin;
    if (header.size() > limits.maxTensors + 1)
        return makeError("corrupt tensor file: too many tensors");

    struct Range {
        std::uint64_t begin, end;
        std::string name;
    };
    std::vector<Range> ranges;
    for (const auto &[name, entry] : header.items()) {
        if (name == "__metadata__")
            continue;
        const std::string where = "corrupt tensor file: tensor '" + name + "' ";
        if (!entry.is_object())
            return makeError(where + "is not an object");
        const auto dtypeIt = entry.find("dtype");
        const auto shapeIt = entry.find("shape");
        const auto offsetsIt = entry.find("data_offsets");
        if (dtypeIt == entry.end() || shapeIt == entry.end() || offsetsIt == entry.end())
            return makeError(where + "lacks dtype, shape or data_offsets");
        if (!dtypeIt->is_string())
            return makeError(where + "has a non-string dtype");
        const std::optional<DType> dtype = dtypeFromName(dtypeIt->get<std::string>());
        if (!dtype)
            return makeError(where + "has unknown dtype " + dtypeIt->get<std::string>());
        if (!shapeIt->is_array() || shapeIt->size() > limits.maxRank)
            return makeError(where + "has an invalid shape");

        TensorEntry tensor;
        tensor.dtype = *dtype;
        std::uint64_t numel = 1;
        for (const auto &dim : *shapeIt) {
            if (!dim.is_number_unsigned() || dim.get<std::uint64_t>() > (1ull << 40))
                return makeError(where + "has an invalid dimension");
            const std::uint64_t d = dim.get<std::uint64_t>();
            if (d != 0 && numel > (1ull << 50) / d)
                return makeError(where + "is too large");
            numel *= d;
            tensor.shape.push_back(std::int64_t(d));
        }
        if (!offsetsIt->is_array() || offsetsIt->size() != 2 || !(*offsetsIt)[0].is_number_unsigned()
            || !(*offsetsIt)[1].is_number_unsigned()) {
            return makeError(where + "has invalid data_offsets");
        }
        const std::uint64_t begin = (*offsetsIt)[0].get<std::uint64_t>();
        const std::uint64_t end = (*offsetsIt)[1].get<std::uint64_t>();
        if (begin > end || end > dataSize)
            return makeError(where + "points outside the file (truncated?)");
        if (end - begin != numel * dtypeSize(*dtype))
            return makeError(where + "has a byte size that does not match its shape");
        tensor.bytes = std::span<const std::byte>(bytes.data() + dataBegin + begin, end - begin);
        container.tensors.emplace(name, std::move(tensor));
        ranges.push_back({begin, end, name});
    }

    // As safetensors requires: tensors tile the data section exactly, no gaps, no overlaps.
    std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return a.begin < b.begin; });
    std::uint64_t expected = 0;
    for (const Range &range : ranges) {
        if (range.begin != expected)
            return makeError("corrupt tensor file: tensor '" + range.name + "' overlaps or leaves a gap");
        expected = range.end;
    }
    if (expected != dataSize)
        return makeError("corrupt tensor file: " + std::to_string(dataSize - expected) + " stray bytes after the tensors");

    const std::optional<std::string> checksum = container.meta(kChecksumKey);
    if (checksum) {
        const std::string needle = checksumNeedle(*checksum);
        const std::size_t first = headerText.find(needle);
        if (checksum->size() != kDigestHexLength || first == std::string_view::npos
            || headerText.find(needle, first + 1) != std::string_view::npos) {
            return makeError("corrupt tensor file: malformed checksum field");
        }
        const std::size_t digitsAt = 8 + first + needle.size() - 1 - kDigestHexLength;
        if (checksumOf(bytes, digitsAt) != *checksum)
            return makeError("corrupt tensor file: SHA-256 mismatch (the file was altered or damaged)");
    } else if (limits.requireChecksum) {
        return makeError("corrupt tensor file: no SHA-256 checksum");
    }

    // Moving the vector keeps its buffer, so the spans above stay valid.
    container.storage = std::move(bytes);
    return container;
}

Result<TensorContainer> readTensorContainer(const std::filesystem::path &path, const DecodeLimits &limits)
{
    Result<std::vector<std::byte>> bytes = readFileBytes(path, kMaxFileBytes);
    if (!bytes)
        return bytes.error();
    Result<TensorContainer> container = decodeTensorContainer(std::move(bytes).value(), limits);
    if (!container)
        return makeError(path.string() + ": " + container.error().message);
    return container;
}

} // namespace swarmtrain
