// Writes the fuzzers' seed corpus with the real encoders: a few valid frames and tensor
// containers, and range-average blobs, for the fuzzers to mutate. Usage: MakeFuzzSeeds <corpus folder>.
#include "FrameCodec.h"
#include "FuzzChunks.h"
#include "Quantization.h"
#include "RangeAverageBlob.h"
#include "RecordSealer.h"
#include "TensorContainer.h"
#include "TokenShard.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace swarmtrain;

namespace {

void writeSeed(const std::filesystem::path &file, const void *data, std::size_t size)
{
    std::ofstream(file, std::ios::binary | std::ios::trunc).write(static_cast<const char *>(data), std::streamsize(size));
}

QByteArray frameSeed(const std::vector<QByteArray> &frames, std::uint64_t chunkSeed)
{
    QByteArray seed(fuzz::kChunkSeedBytes, Qt::Uninitialized);
    std::memcpy(seed.data(), &chunkSeed, sizeof(chunkSeed));
    for (const QByteArray &frame : frames)
        seed += frame;
    return seed;
}

QByteArray tensorFrame(const char *dtype, std::vector<std::int64_t> shape, std::size_t elementBytes)
{
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_TENSOR);
    header.set_round(7);
    header.set_tag(2);
    header.set_range_begin(64);
    std::size_t bytes = elementBytes;
    for (std::int64_t dim : shape) {
        header.add_shape(dim);
        bytes *= std::size_t(dim);
    }
    header.set_range_end(64 + bytes / elementBytes);
    header.set_dtype(dtype);
    header.set_tokens(1024);
    QByteArray payload(qsizetype(bytes), Qt::Uninitialized);
    for (qsizetype i = 0; i < payload.size(); ++i)
        payload[i] = char(i * 37);
    return *encodeFrame(header, payload);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: MakeFuzzSeeds <corpus folder>\n";
        return 2;
    }
    const std::filesystem::path frames = std::filesystem::path(argv[1]) / "frame";
    const std::filesystem::path tensors = std::filesystem::path(argv[1]) / "tensor";
    const std::filesystem::path sealed = std::filesystem::path(argv[1]) / "sealed";
    std::filesystem::create_directories(frames);
    std::filesystem::create_directories(sealed);
    std::filesystem::create_directories(tensors);

    FrameHeader hello;
    hello.set_type(wire::FRAME_TYPE_HELLO);
    hello.mutable_hello()->set_key_id(std::string(32, 'a'));
    hello.mutable_hello()->set_public_key(std::string(32, '\x11'));
    hello.mutable_hello()->set_nonce(std::string(32, '\x22'));
    hello.mutable_hello()->set_protocol_version(2);
    hello.mutable_hello()->set_ephemeral_key(std::string(32, '\x44'));
    FrameHeader proof;
    proof.set_type(wire::FRAME_TYPE_HELLO_PROOF);
    proof.mutable_proof()->set_signature(std::string(64, '\x33'));
    FrameHeader error;
    error.set_type(wire::FRAME_TYPE_ERROR);
    error.set_error_message("handshake refused");

    const std::vector<std::vector<QByteArray>> frameSeeds = {
        {*encodeFrame(hello, {}), *encodeFrame(proof, {})},
        {tensorFrame("F32", {3, 4}, 4)},
        {tensorFrame("I8", {16}, 1), tensorFrame("BF16", {2, 2, 2}, 2)},
        {tensorFrame("U8", {0, 9}, 1), *encodeFrame(error, {})},
    };
    for (std::size_t i = 0; i < frameSeeds.size(); ++i) {
        const QByteArray seed = frameSeed(frameSeeds[i], 0x9e3779b97f4a7c15ull * (i + 1));
        writeSeed(frames / ("seed" + std::to_string(i)), seed.constData(), std::size_t(seed.size()));
    }

    // The frame seeds after the handshake: sealed into records, one per frame and one for all.
    for (std::size_t i = 1; i < frameSeeds.size(); ++i) {
        RecordSealer sealer = RecordSealer::create(QByteArray(32, fuzz::kSealedStreamKeyByte)).value();
        QByteArray perFrame, clear;
        for (const QByteArray &frame : frameSeeds[i]) {
            perFrame += sealer.seal(frame).value();
            clear += frame;
        }
        RecordSealer whole = RecordSealer::create(QByteArray(32, fuzz::kSealedStreamKeyByte)).value();
        for (const QByteArray &stream : {perFrame, whole.seal(clear).value()}) {
            const QByteArray seed = frameSeed({stream}, 0x51ed270b27ull * (i + 1) + quint64(stream.size()));
            writeSeed(sealed / ("seed" + std::to_string(i) + "-" + std::to_string(stream.size())), seed.constData(),
                      std::size_t(seed.size()));
        }
    }

    const std::vector<float> values = {1.0f, -2.5f, 3.25f, 0.0f, 8.0f, -0.125f};
    const auto *valueBytes = reinterpret_cast<const std::byte *>(values.data());
    for (int i = 0; i < 3; ++i) {
        TensorContainerWriter writer;
        writer.setMetadata("round", std::to_string(i));
        writer.addTensor("weight", DType::F32, {2, 3}, {valueBytes, values.size() * sizeof(float)});
        if (i > 0)
            writer.addTensor("scale", DType::U8, {4}, {valueBytes, 4});
        if (i > 1)
            writer.addTensor("empty", DType::I64, {0}, {});
        const std::vector<std::byte> file = writer.finish();
        writeSeed(tensors / ("seed" + std::to_string(i)), file.data(), file.size());
    }

    const std::filesystem::path averages = std::filesystem::path(argv[1]) / "averages";
    std::filesystem::create_directories(averages);
    std::vector<RangeAverage> ranges;
    for (std::int64_t begin : {0, 100, 1000}) {
        const std::vector<float> range(std::size_t(begin / 10 + 6), 0.5f + float(begin));
        ranges.push_back({begin, begin + std::int64_t(range.size()), encodeQuantized(quantize(range).value())});
        const std::vector<std::byte> blob = encodeRangeAverages(ranges);
        writeSeed(averages / ("seed" + std::to_string(ranges.size())), blob.data(), blob.size());
    }

    // Token shards of a byte and of a large vocabulary, and llm.c .bin files of both versions.
    const std::filesystem::path shards = std::filesystem::path(argv[1]) / "shard";
    std::filesystem::create_directories(shards);
    const std::vector<std::int32_t> tokens = {2, 104, 101, 108, 108, 111, 2, 33};
    for (const std::uint32_t vocab : {256u, 70000u}) {
        TokenShardHeader header;
        header.vocabSize = vocab;
        header.documents = 2;
        const std::vector<std::byte> shard = encodeTokenShard(header, tokens);
        writeSeed(shards / ("shard-" + std::to_string(vocab)), shard.data(), shard.size());
    }
    for (const int version : {1, 2}) {
        std::vector<std::int32_t> bin(256, 0);
        bin[0] = 20240520;
        bin[1] = version;
        bin[2] = std::int32_t(tokens.size());
        std::string file(reinterpret_cast<const char *>(bin.data()), bin.size() * 4);
        for (const std::int32_t token : tokens)
            file.append(reinterpret_cast<const char *>(&token), version == 1 ? 2 : 4); // little-endian
        writeSeed(shards / ("llmc-v" + std::to_string(version)), file.data(), file.size());
    }
    return 0;
}
