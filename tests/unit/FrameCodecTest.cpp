#include "FrameCodec.h"
#include "FrameDecoder.h"

#include <gtest/gtest.h>

#include <QtEndian>

#include <cmath>
#include <limits>

using namespace swarmtrain;

namespace {

FrameHeader tensorHeader(std::initializer_list<std::int64_t> shape, const char *dtype = "F32")
{
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_TENSOR);
    header.set_round(42);
    header.set_tag(7);
    header.set_range_begin(100);
    header.set_range_end(100 + 12);
    header.set_dtype(dtype);
    for (std::int64_t dim : shape)
        header.add_shape(dim);
    header.set_tokens(4096.5);
    return header;
}

QByteArray patternBytes(qsizetype size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        bytes[i] = char((i * 131 + 17) & 0xff);
    return bytes;
}

// A frame with a hand-made header, bypassing encodeFrame's own validation: what a hostile or
// buggy peer could send.
QByteArray rawFrame(const FrameHeader &header, const QByteArray &payload = {})
{
    const std::string serialized = header.SerializeAsString();
    QByteArray bytes(4, Qt::Uninitialized);
    qToBigEndian(quint32(serialized.size()), bytes.data());
    bytes.append(QByteArray::fromStdString(serialized));
    bytes.append(payload);
    return bytes;
}

std::string decodeError(const QByteArray &bytes, const FrameLimits &limits = {})
{
    FrameDecoder decoder(limits);
    EXPECT_FALSE(decoder.feed(bytes));
    EXPECT_FALSE(decoder.hasFrame());
    return decoder.error() ? decoder.error()->message : std::string();
}

} // namespace

TEST(FrameCodecTest, RoundTripsATensorFrame)
{
    const QByteArray payload = patternBytes(3 * 4 * 4);
    Result<QByteArray> bytes = encodeFrame(tensorHeader({3, 4}), payload);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;

    FrameDecoder decoder;
    ASSERT_TRUE(decoder.feed(*bytes));
    std::optional<Frame> frame = decoder.takeFrame();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(frame->header.type(), wire::FRAME_TYPE_TENSOR);
    EXPECT_EQ(frame->header.round(), 42u);
    EXPECT_EQ(frame->header.tag(), 7u);
    EXPECT_EQ(frame->header.range_begin(), 100u);
    EXPECT_EQ(frame->header.range_end(), 112u);
    EXPECT_EQ(frame->header.dtype(), "F32");
    ASSERT_EQ(frame->header.shape_size(), 2);
    EXPECT_EQ(frame->header.shape(1), 4);
    EXPECT_EQ(frame->header.payload_bytes(), quint64(payload.size()));
    EXPECT_DOUBLE_EQ(frame->header.tokens(), 4096.5);
    EXPECT_EQ(frame->payload, payload);
    EXPECT_FALSE(decoder.hasFrame());
    EXPECT_EQ(decoder.partialFrameBytes(), 0u);
}

TEST(FrameCodecTest, DecodesBackToBackFramesFromOneChunk)
{
    FrameHeader hello;
    hello.set_type(wire::FRAME_TYPE_HELLO);
    hello.mutable_hello()->set_key_id("abc");
    QByteArray stream = *encodeFrame(hello, {});
    stream += *encodeFrame(tensorHeader({2}, "I8"), QByteArray("\x01\x02", 2));
    stream += *encodeFrame(tensorHeader({0, 5}), {});

    FrameDecoder decoder;
    ASSERT_TRUE(decoder.feed(stream));
    EXPECT_EQ(decoder.takeFrame()->header.hello().key_id(), "abc");
    EXPECT_EQ(decoder.takeFrame()->payload, QByteArray("\x01\x02", 2));
    std::optional<Frame> empty = decoder.takeFrame();
    ASSERT_TRUE(empty.has_value());
    EXPECT_TRUE(empty->payload.isEmpty());
    EXPECT_FALSE(decoder.takeFrame().has_value());
}

TEST(FrameCodecTest, DecodesTheSameFramesAtEverySplitPoint)
{
    const QByteArray payload = patternBytes(5 * 2);
    QByteArray stream = *encodeFrame(tensorHeader({5}, "BF16"), payload);
    stream += *encodeFrame(tensorHeader({1, 1}, "U8"), QByteArray("z"));

    for (qsizetype split = 0; split <= stream.size(); ++split) {
        FrameDecoder decoder;
        ASSERT_TRUE(decoder.feed(QByteArrayView(stream).first(split)));
        ASSERT_TRUE(decoder.feed(QByteArrayView(stream).sliced(split)));
        std::optional<Frame> first = decoder.takeFrame();
        std::optional<Frame> second = decoder.takeFrame();
        ASSERT_TRUE(first && second) << "split at " << split;
        EXPECT_EQ(first->payload, payload) << "split at " << split;
        EXPECT_EQ(first->header.dtype(), "BF16");
        EXPECT_EQ(second->payload, QByteArray("z")) << "split at " << split;
    }
}

TEST(FrameCodecTest, DecodesOneByteAtATimeAndReportsThePartialFrame)
{
    const QByteArray payload = patternBytes(6 * 4);
    const QByteArray stream = *encodeFrame(tensorHeader({2, 3}), payload);
    FrameDecoder decoder;
    for (qsizetype i = 0; i + 1 < stream.size(); ++i) {
        ASSERT_TRUE(decoder.feed(QByteArrayView(stream).sliced(i, 1)));
        EXPECT_FALSE(decoder.hasFrame());
        EXPECT_EQ(decoder.partialFrameBytes(), quint64(i + 1));
    }
    ASSERT_TRUE(decoder.feed(QByteArrayView(stream).last(1)));
    EXPECT_EQ(decoder.takeFrame()->payload, payload);
    EXPECT_EQ(decoder.partialFrameBytes(), 0u);
}

TEST(FrameCodecTest, RejectsAHeaderLengthOverTheLimit)
{
    QByteArray bytes(4, Qt::Uninitialized);
    qToBigEndian(quint32(64 * 1024 + 1), bytes.data());
    EXPECT_NE(decodeError(bytes).find("header of 65537 bytes exceeds"), std::string::npos);

    qToBigEndian(quint32(0xffffffffu), bytes.data());
    EXPECT_NE(decodeError(bytes).find("exceeds the limit"), std::string::npos);
}

TEST(FrameCodecTest, RejectsAnEmptyOrUnparsableHeader)
{
    EXPECT_NE(decodeError(QByteArray(4, '\0')).find("empty header"), std::string::npos);

    QByteArray garbage(4, Qt::Uninitialized);
    qToBigEndian(quint32(6), garbage.data());
    garbage.append("\xff\xff\xff\xff\xff\xff", 6);
    EXPECT_NE(decodeError(garbage).find("unparsable"), std::string::npos);
}

TEST(FrameCodecTest, RejectsAPayloadThatDoesNotMatchDtypeAndShape)
{
    FrameHeader header = tensorHeader({3, 4});
    header.set_payload_bytes(47);
    EXPECT_NE(decodeError(rawFrame(header, patternBytes(47))).find("does not match"), std::string::npos);
    EXPECT_FALSE(encodeFrame(tensorHeader({3, 4}), patternBytes(47)).ok());
}

TEST(FrameCodecTest, RejectsShapesWhoseProductOverflows)
{
    // 2^32 x 2^32 x 4 bytes wraps to 0 in 64 bits; a naive check would accept an empty payload.
    FrameHeader header = tensorHeader({std::int64_t(1) << 32, std::int64_t(1) << 32});
    header.set_payload_bytes(0);
    EXPECT_NE(decodeError(rawFrame(header)).find("exceeds the payload limit"), std::string::npos);

    header = tensorHeader({std::numeric_limits<std::int64_t>::max(), 3});
    header.set_payload_bytes(4);
    EXPECT_NE(decodeError(rawFrame(header, patternBytes(4))).find("exceeds the payload limit"), std::string::npos);
}

TEST(FrameCodecTest, RejectsAPayloadOverTheLimitBeforeReadingIt)
{
    FrameLimits limits;
    limits.maxPayloadBytes = 1000;
    FrameHeader header = tensorHeader({1000});
    header.set_payload_bytes(4000);
    // Only the header is sent: the decoder must refuse on the claim alone.
    EXPECT_NE(decodeError(rawFrame(header), limits).find("payload of 4000 bytes exceeds the limit of 1000"),
              std::string::npos);
    EXPECT_FALSE(encodeFrame(tensorHeader({1000}), patternBytes(4000), limits).ok());
}

TEST(FrameCodecTest, RejectsAnUnknownDtype)
{
    FrameHeader header = tensorHeader({2}, "F33");
    header.set_payload_bytes(8);
    EXPECT_NE(decodeError(rawFrame(header, patternBytes(8))).find("unknown dtype 'F33'"), std::string::npos);

    header = tensorHeader({2}, "");
    header.set_payload_bytes(8);
    EXPECT_NE(decodeError(rawFrame(header, patternBytes(8))).find("unknown dtype"), std::string::npos);
}

TEST(FrameCodecTest, RejectsNegativeDimensions)
{
    FrameHeader header = tensorHeader({-2, -3});
    header.set_payload_bytes(24);
    EXPECT_NE(decodeError(rawFrame(header, patternBytes(24))).find("negative dimension"), std::string::npos);
}

TEST(FrameCodecTest, RejectsARangeThatEndsBeforeItBegins)
{
    FrameHeader header = tensorHeader({1});
    header.set_range_begin(10);
    header.set_range_end(9);
    header.set_payload_bytes(4);
    EXPECT_NE(decodeError(rawFrame(header, patternBytes(4))).find("range end 9 is before range begin 10"),
              std::string::npos);
}

TEST(FrameCodecTest, RejectsNonFiniteOrNegativeTokens)
{
    for (double tokens : {std::nan(""), std::numeric_limits<double>::infinity(), -1.0}) {
        FrameHeader header = tensorHeader({1});
        header.set_tokens(tokens);
        header.set_payload_bytes(4);
        EXPECT_NE(decodeError(rawFrame(header, patternBytes(4))).find("tokens"), std::string::npos) << tokens;
    }
}

TEST(FrameCodecTest, RejectsUnknownTypesAndBodiesThatDoNotMatchTheType)
{
    FrameHeader header;
    header.set_type(wire::FrameType(99));
    EXPECT_NE(decodeError(rawFrame(header)).find("unknown frame type 99"), std::string::npos);

    header = FrameHeader();
    header.set_type(wire::FRAME_TYPE_HELLO);
    header.set_round(1);
    EXPECT_NE(decodeError(rawFrame(header)).find("without hello"), std::string::npos);

    header = tensorHeader({1});
    header.set_payload_bytes(4);
    header.mutable_proof()->set_signature("x");
    EXPECT_NE(decodeError(rawFrame(header, patternBytes(4))).find("TENSOR frame with a handshake"), std::string::npos);
}

TEST(FrameCodecTest, RejectsAPayloadOnAControlFrame)
{
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_ERROR);
    header.set_error_message("bye");
    header.set_payload_bytes(3);
    EXPECT_NE(decodeError(rawFrame(header, "abc")).find("ERROR frame with a payload"), std::string::npos);
}

TEST(FrameCodecTest, StaysBrokenAfterAnError)
{
    const QByteArray good = *encodeFrame(tensorHeader({1}), patternBytes(4));
    FrameDecoder decoder;
    EXPECT_FALSE(decoder.feed(QByteArray(4, '\0')));
    EXPECT_FALSE(decoder.feed(good));
    EXPECT_TRUE(decoder.failed());
    EXPECT_FALSE(decoder.hasFrame());
}

TEST(FrameCodecTest, KeepsFramesDecodedBeforeABadOne)
{
    QByteArray stream = *encodeFrame(tensorHeader({1}), patternBytes(4));
    stream += QByteArray(4, '\0');
    FrameDecoder decoder;
    EXPECT_FALSE(decoder.feed(stream));
    EXPECT_TRUE(decoder.takeFrame().has_value());
}

TEST(FrameCodecTest, EncodeRefusesAHeaderOverTheLimit)
{
    FrameLimits limits;
    limits.maxHeaderBytes = 16;
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_ERROR);
    header.set_error_message(std::string(100, 'x'));
    Result<QByteArray> bytes = encodeFrame(header, {}, limits);
    ASSERT_FALSE(bytes.ok());
    EXPECT_NE(bytes.error().message.find("exceeds the limit of 16"), std::string::npos);
}

TEST(FrameCodecTest, ProbesCarryBoundedFillerAndRepliesNone)
{
    FrameHeader probe;
    probe.set_type(wire::FRAME_TYPE_PROBE);
    probe.set_tag(3);
    probe.set_dtype("U8");
    probe.add_shape(4096);
    Result<QByteArray> bytes = encodeFrame(probe, QByteArray(4096, '\0'));
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    FrameDecoder decoder;
    ASSERT_TRUE(decoder.feed(*bytes));
    const std::optional<Frame> frame = decoder.takeFrame();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(frame->header.type(), wire::FRAME_TYPE_PROBE);
    EXPECT_EQ(frame->payload.size(), 4096);

    // A probe over the limit is refused from its header, before its filler is buffered.
    FrameLimits limits;
    limits.maxProbeBytes = 1024;
    FrameHeader big = probe;
    big.set_payload_bytes(4096);
    EXPECT_NE(decodeError(rawFrame(big), limits).find("PROBE of 4096 bytes exceeds the limit of 1024"),
              std::string::npos);

    FrameHeader reply;
    reply.set_type(wire::FRAME_TYPE_PROBE_REPLY);
    reply.set_dtype("U8");
    reply.add_shape(3);
    reply.set_payload_bytes(3);
    EXPECT_NE(decodeError(rawFrame(reply, "abc")).find("PROBE_REPLY frame with a payload"), std::string::npos);
}

// Pipeline-stage frames (issue 17) carry a StageWork body, and only they do; requests and
// replies carry bytes, verdicts and refusals none; a refusal's text is bounded.
TEST(FrameCodecTest, StageFramesCarryAStageBodyAndOnlyTheirBytes)
{
    FrameHeader request;
    request.set_type(wire::FRAME_TYPE_STAGE_REQUEST);
    request.mutable_stage()->set_microbatch(5);
    request.set_dtype("U8");
    request.add_shape(64);
    Result<QByteArray> bytes = encodeFrame(request, patternBytes(64));
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    FrameDecoder decoder;
    ASSERT_TRUE(decoder.feed(*bytes));
    const std::optional<Frame> frame = decoder.takeFrame();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(frame->header.stage().microbatch(), 5u);

    FrameHeader bare = request;
    bare.clear_stage();
    bare.set_payload_bytes(64);
    EXPECT_NE(decodeError(rawFrame(bare, patternBytes(64))).find("STAGE_REQUEST frame without a stage body"),
              std::string::npos);

    FrameHeader tensor = tensorHeader({1});
    tensor.set_payload_bytes(4);
    tensor.mutable_stage()->set_microbatch(1);
    EXPECT_NE(decodeError(rawFrame(tensor, patternBytes(4))).find("TENSOR frame with a handshake, error or stage body"),
              std::string::npos);

    FrameHeader verdict;
    verdict.set_type(wire::FRAME_TYPE_STAGE_VERDICT);
    verdict.mutable_stage()->set_count(true);
    verdict.set_dtype("U8");
    verdict.add_shape(3);
    verdict.set_payload_bytes(3);
    EXPECT_NE(decodeError(rawFrame(verdict, "abc")).find("STAGE_VERDICT frame with a payload"), std::string::npos);

    FrameHeader refused;
    refused.set_type(wire::FRAME_TYPE_STAGE_REFUSED);
    refused.mutable_stage()->set_refusal(std::string(513, 'x'));
    EXPECT_NE(decodeError(rawFrame(refused)).find("refusal over 512 bytes"), std::string::npos);
    refused.mutable_stage()->set_refusal("busy");
    EXPECT_TRUE(encodeFrame(refused, {}).ok());
}
