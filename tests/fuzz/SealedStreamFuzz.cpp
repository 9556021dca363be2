// The data plane's receive path after the handshake on hostile input: RecordOpener (with the
// fixed key the seeds are sealed under) feeding a FrameDecoder, in random chunk sizes. Beyond
// "no crash, no sanitizer report": chunking never changes the outcome, a record is released
// only whole and authentic (the plaintext is a prefix of what re-sealing it would carry), and
// every frame that comes out is valid.
#include "FuzzCheck.h"
#include "FrameCodec.h"
#include "FrameDecoder.h"
#include "FuzzChunks.h"
#include "RecordOpener.h"
#include "RecordSealer.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdlib>

using namespace swarmtrain;
using swarmtrain::fuzz::check;

namespace {

struct Outcome {
    QByteArray plaintext;
    bool opened = true;
    std::string error;
    quint64 records = 0;
    quint64 partial = 0;
    int frames = 0;
    bool framesIntact = true;
};

template <typename NextChunk>
Outcome receive(QByteArrayView stream, NextChunk nextChunk)
{
    RecordOpener opener = RecordOpener::create(QByteArray(32, fuzz::kSealedStreamKeyByte)).value();
    FrameLimits limits;
    limits.maxPayloadBytes = 1 << 20;
    FrameDecoder decoder(limits);
    Outcome outcome;
    for (qsizetype at = 0; at < stream.size();) {
        const qsizetype take = std::min<qsizetype>(qsizetype(nextChunk()), stream.size() - at);
        QByteArray plaintext;
        outcome.opened = opener.feed(stream.sliced(at, take), plaintext) && outcome.opened;
        outcome.plaintext += plaintext;
        outcome.framesIntact = decoder.feed(plaintext) && outcome.framesIntact;
        while (std::optional<Frame> frame = decoder.takeFrame()) {
            check(validateFrameHeader(frame->header, limits).ok());
            check(quint64(frame->payload.size()) == frame->header.payload_bytes());
            ++outcome.frames;
        }
        at += take;
    }
    outcome.records = opener.recordsOpened();
    outcome.partial = opener.partialRecordBytes();
    if (opener.failed())
        outcome.error = opener.error()->message;
    return outcome;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    google::protobuf::SetLogHandler(nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < fuzz::kChunkSeedBytes)
        return 0;
    fuzz::ChunkSizes chunks(data);
    const QByteArrayView stream(data + fuzz::kChunkSeedBytes, qsizetype(size - fuzz::kChunkSeedBytes));

    const Outcome whole = receive(stream, [&] { return std::size_t(stream.size()); });
    const Outcome chunked = receive(stream, [&] { return chunks.next(); });
    check(whole.opened == chunked.opened && whole.error == chunked.error);
    check(whole.partial == chunked.partial);
    check(whole.plaintext == chunked.plaintext && whole.records == chunked.records);
    check(whole.frames == chunked.frames && whole.framesIntact == chunked.framesIntact);

    // Every byte is accounted for: released plaintext, 20 bytes per record, or a record that
    // has begun. Nothing of an unauthentic record got out.
    if (whole.opened)
        check(quint64(whole.plaintext.size()) + whole.records * (kRecordLengthBytes + kRecordTagBytes) + whole.partial
              == quint64(stream.size()));
    return 0;
}
