#include "TensorContainer.h"

#include "FileIo.h"
#include "TempDir.h"

#include <cstring>
#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

std::vector<std::byte> sampleFile()
{
    const std::vector<float> weights = {1.f, -2.f, 3.5f, 0.25f, 8.f, -0.5f};
    const std::vector<std::int32_t> ids = {7, 11, 13};
    TensorContainerWriter writer;
    writer.setMetadata("step", "42");
    writer.addTensor("w", DType::F32, {2, 3}, std::as_bytes(std::span(weights)));
    writer.addTensor("ids", DType::I32, {3}, std::as_bytes(std::span(ids)));
    return writer.finish();
}

void writeHeader(std::vector<std::byte> &file, const std::string &header)
{
    std::string padded = header;
    file.assign(8, std::byte{0});
    for (int i = 0; i < 8; ++i)
        file[i] = std::byte((padded.size() >> (8 * i)) & 0xff);
    for (char c : padded)
        file.push_back(std::byte(c));
}

} // namespace

TEST(TensorContainerTest, RoundTripsTensorsAndMetadata)
{
    const Result<TensorContainer> decoded = decodeTensorContainer(sampleFile());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(decoded->meta("step"), "42");
    const TensorEntry *w = decoded->find("w");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->dtype, DType::F32);
    EXPECT_EQ(w->shape, (std::vector<std::int64_t>{2, 3}));
    float values[6];
    std::memcpy(values, w->bytes.data(), sizeof values);
    EXPECT_EQ(values[2], 3.5f);
    EXPECT_EQ(decoded->find("ids")->numel(), 3);
}

TEST(TensorContainerTest, HeaderIsSafetensorsCompatible)
{
    const std::vector<std::byte> file = sampleFile();
    std::uint64_t headerLength = 0;
    std::memcpy(&headerLength, file.data(), 8);
    EXPECT_EQ(headerLength % 8, 0u);
    const std::string header(reinterpret_cast<const char *>(file.data() + 8), headerLength);
    EXPECT_EQ(header.front(), '{');
    EXPECT_NE(header.find("\"__metadata__\""), std::string::npos);
    EXPECT_NE(header.find("\"data_offsets\":[0,24]"), std::string::npos);
}

TEST(TensorContainerTest, EveryFlippedByteIsDetected)
{
    const std::vector<std::byte> file = sampleFile();
    for (std::size_t i = 0; i < file.size(); ++i) {
        std::vector<std::byte> damaged = file;
        damaged[i] ^= std::byte{0x01};
        EXPECT_FALSE(decodeTensorContainer(std::move(damaged)).ok()) << "flipped byte " << i << " went unnoticed";
    }
}

TEST(TensorContainerTest, EveryTruncationIsDetected)
{
    const std::vector<std::byte> file = sampleFile();
    for (std::size_t length = 0; length < file.size(); ++length) {
        std::vector<std::byte> cut(file.begin(), file.begin() + std::ptrdiff_t(length));
        EXPECT_FALSE(decodeTensorContainer(std::move(cut)).ok()) << "truncated to " << length;
    }
}

TEST(TensorContainerTest, RejectsInconsistentHeadersWithoutReadingOutOfBounds)
{
    const DecodeLimits unchecked{.requireChecksum = false};
    std::vector<std::byte> file;
    writeHeader(file, R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})");
    EXPECT_FALSE(decodeTensorContainer(file, unchecked).ok()); // the 16 bytes are missing
    file.resize(file.size() + 16);
    EXPECT_TRUE(decodeTensorContainer(file, unchecked).ok());
    EXPECT_FALSE(decodeTensorContainer(file).ok()); // checksum required by default

    const char *bad[] = {
        R"([1,2])",
        R"({"a":{"dtype":"F99","shape":[4],"data_offsets":[0,16]}})",
        R"({"a":{"dtype":"F32","shape":[5],"data_offsets":[0,16]}})",
        R"({"a":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})",
        R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[16,0]}})",
        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
        R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"__metadata__":{"x":1}})",
        R"({"a":{"dtype":"F32","shape":[4]}})",
        R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16])",
    };
    for (const char *header : bad) {
        writeHeader(file, header);
        file.resize(file.size() + 16);
        EXPECT_FALSE(decodeTensorContainer(file, unchecked).ok()) << header;
    }

    std::vector<std::byte> hugeLength(16, std::byte{0xff});
    EXPECT_FALSE(decodeTensorContainer(hugeLength, unchecked).ok());
}

TEST(TensorContainerTest, FilesAreReplacedAtomically)
{
    test::TempDir dir;
    const auto path = dir.path() / "t.safetensors";
    const std::vector<std::byte> file = sampleFile();
    ASSERT_TRUE(writeFileAtomically(path, file).ok());
    ASSERT_TRUE(writeFileAtomically(path, file).ok());
    EXPECT_TRUE(readTensorContainer(path).ok());
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto &entry : std::filesystem::directory_iterator(dir.path()))
        ++entries;
    EXPECT_EQ(entries, 1u); // no temp files left behind
    const auto missing = readTensorContainer(dir.path() / "nope.safetensors");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
    EXPECT_FALSE(writeFileAtomically(dir.path() / "no" / "such" / "dir" / "f", file).ok());
}
