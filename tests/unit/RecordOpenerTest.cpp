#include "RecordOpener.h"
#include "RecordSealer.h"

#include <gtest/gtest.h>

#include <QtEndian>

using namespace swarmtrain;

namespace {

const QByteArray kKey(32, 'k');

QByteArray pattern(qsizetype size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        bytes[i] = char((i * 7 + 3) & 0xff);
    return bytes;
}

RecordSealer sealer(const QByteArray &key = kKey) { return RecordSealer::create(key).value(); }
RecordOpener opener(const QByteArray &key = kKey) { return RecordOpener::create(key).value(); }

TEST(RecordOpenerTest, OpensWhatWasSealedWhateverTheChunking)
{
    RecordSealer seal = sealer();
    const QByteArray head = pattern(100);
    const QByteArray body = pattern(3 * kMaxRecordPlaintextBytes + 17);
    const QByteArray sealed = *seal.seal(head, body);
    EXPECT_EQ(sealed.size(), RecordSealer::sealedSize(head.size() + body.size()));
    EXPECT_EQ(seal.recordsSealed(), 4u);
    const QByteArray small = *seal.seal(QByteArray("tail"));

    // Whole records in one chunk are opened where they lie, split ones buffered: both, and mixed.
    for (const qsizetype chunk : {qsizetype(1), qsizetype(5), qsizetype(4096), kMaxRecordPlaintextBytes + 100,
                                  sealed.size() + small.size()}) {
        RecordOpener open = opener();
        const QByteArray stream = sealed + small;
        QByteArray plaintext;
        for (qsizetype at = 0; at < stream.size(); at += chunk)
            ASSERT_TRUE(open.feed(QByteArrayView(stream).sliced(at, std::min(chunk, stream.size() - at)), plaintext));
        EXPECT_TRUE(plaintext == head + body + "tail") << "chunk " << chunk;
        EXPECT_EQ(open.recordsOpened(), 5u);
        EXPECT_EQ(open.partialRecordBytes(), 0u);
    }
}

TEST(RecordOpenerTest, RefusesAFlippedBitAnywhereInARecord)
{
    RecordSealer seal = sealer();
    const QByteArray sealed = *seal.seal(pattern(64));
    for (qsizetype at = 0; at < sealed.size(); ++at) {
        QByteArray altered = sealed;
        altered[at] = char(altered[at] ^ 0x01);
        RecordOpener open = opener();
        QByteArray plaintext;
        EXPECT_FALSE(open.feed(altered, plaintext) && open.partialRecordBytes() == 0) << "byte " << at;
        EXPECT_TRUE(plaintext.isEmpty()) << "byte " << at;
    }
}

TEST(RecordOpenerTest, RefusesAReplayedOrReorderedRecordAndStaysBroken)
{
    RecordSealer seal = sealer();
    const QByteArray first = *seal.seal(QByteArray("first"));
    const QByteArray second = *seal.seal(QByteArray("second"));

    RecordOpener replayed = opener();
    QByteArray plaintext;
    ASSERT_TRUE(replayed.feed(first, plaintext));
    EXPECT_FALSE(replayed.feed(first, plaintext));
    ASSERT_TRUE(replayed.error().has_value());
    EXPECT_NE(replayed.error()->message.find("fails authentication"), std::string::npos);
    EXPECT_FALSE(replayed.feed(second, plaintext)); // broken for good
    EXPECT_EQ(plaintext, QByteArray("first"));

    RecordOpener reordered = opener();
    QByteArray none;
    EXPECT_FALSE(reordered.feed(second, none));
    EXPECT_TRUE(none.isEmpty());
}

TEST(RecordOpenerTest, RefusesAnotherKeyOrTheOtherDirection)
{
    RecordSealer seal = sealer(QByteArray(32, 'a'));
    const QByteArray sealed = *seal.seal(QByteArray("hello"));
    RecordOpener open = opener(QByteArray(32, 'b'));
    QByteArray plaintext;
    EXPECT_FALSE(open.feed(sealed, plaintext));
    EXPECT_FALSE(RecordSealer::create(QByteArray(16, 'a')).ok());
    EXPECT_FALSE(RecordOpener::create(QByteArray(33, 'a')).ok());
}

TEST(RecordOpenerTest, RefusesARecordLengthOutsideTheLimitBeforeBufferingIt)
{
    for (const quint32 claimed : {quint32(0), quint32(kRecordTagBytes), quint32(kMaxRecordPlaintextBytes + kRecordTagBytes + 1),
                                  quint32(0xffffffff)}) {
        QByteArray prefix(4, Qt::Uninitialized);
        qToBigEndian(claimed, prefix.data());
        RecordOpener open = opener();
        QByteArray plaintext;
        EXPECT_FALSE(open.feed(prefix, plaintext)) << claimed;
        EXPECT_NE(open.error()->message.find("outside"), std::string::npos) << open.error()->message;
        EXPECT_EQ(open.partialRecordBytes(), 0u);
    }
}

TEST(RecordOpenerTest, NoncesAreTheCounterBigEndian)
{
    EXPECT_EQ(recordNonce(0), QByteArray(12, '\0'));
    EXPECT_EQ(recordNonce(0x0102).toHex(), QByteArray("000000000000000000000102"));
}

} // namespace
