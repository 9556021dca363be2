// FrameDecoder on hostile input, fed in random chunk sizes. Checks, beyond "no crash, no
// sanitizer report": chunking never changes the outcome (same frames, same error), and every
// frame the decoder accepts is valid and survives an encode/decode round trip.
#include "FuzzCheck.h"
#include "FrameCodec.h"
#include "FrameDecoder.h"
#include "FuzzChunks.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdlib>
#include <vector>

using namespace swarmtrain;
using swarmtrain::fuzz::check;

namespace {

FrameLimits fuzzLimits()
{
    FrameLimits limits;
    limits.maxPayloadBytes = 1 << 20; // within libFuzzer's memory limit, still far above the inputs
    return limits;
}

std::vector<Frame> drain(FrameDecoder &decoder)
{
    std::vector<Frame> frames;
    while (std::optional<Frame> frame = decoder.takeFrame())
        frames.push_back(std::move(*frame));
    return frames;
}

bool sameFrame(const Frame &a, const Frame &b)
{
    return a.header.SerializeAsString() == b.header.SerializeAsString() && a.payload == b.payload;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    // Invalid UTF-8 in a string field is a parse failure the decoder reports; protobuf also
    // logs it, which would drown the fuzzer's own output.
    google::protobuf::SetLogHandler(nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < fuzz::kChunkSeedBytes)
        return 0;
    fuzz::ChunkSizes chunks(data);
    const QByteArrayView stream(data + fuzz::kChunkSeedBytes, qsizetype(size - fuzz::kChunkSeedBytes));
    const FrameLimits limits = fuzzLimits();

    FrameDecoder whole(limits);
    whole.feed(stream);
    const std::vector<Frame> wholeFrames = drain(whole);

    FrameDecoder chunked(limits);
    std::vector<Frame> chunkedFrames;
    for (qsizetype at = 0; at < stream.size();) {
        const qsizetype take = std::min<qsizetype>(qsizetype(chunks.next()), stream.size() - at);
        const bool intact = chunked.feed(stream.sliced(at, take));
        for (Frame &frame : drain(chunked))
            chunkedFrames.push_back(std::move(frame));
        check(intact == !chunked.failed());
        at += take;
    }

    check(whole.failed() == chunked.failed());
    if (whole.failed())
        check(whole.error()->message == chunked.error()->message);
    else
        check(whole.partialFrameBytes() == chunked.partialFrameBytes());
    check(wholeFrames.size() == chunkedFrames.size());
    for (std::size_t i = 0; i < wholeFrames.size(); ++i) {
        const Frame &frame = wholeFrames[i];
        check(sameFrame(frame, chunkedFrames[i]));
        check(validateFrameHeader(frame.header, limits).ok());
        check(quint64(frame.payload.size()) == frame.header.payload_bytes());

        Result<QByteArray> encoded = encodeFrame(frame.header, frame.payload, limits);
        check(encoded.ok());
        FrameDecoder again(limits);
        check(again.feed(*encoded));
        std::optional<Frame> decoded = again.takeFrame();
        check(decoded.has_value() && sameFrame(frame, *decoded) && !again.hasFrame());
    }
    return 0;
}
