#include "LogCapture.h"

#include <QCoreApplication>
#include <QMutex>
#include <QMutexLocker>
#include <QLoggingCategory>
#include <QTest>
#include <QThread>
#include <QUuid>

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace swarmtrain {
namespace {

Q_LOGGING_CATEGORY(lcCapture, "swarmtrain.test.capture")

QList<LogEntry> withMarker(const LogCapture &capture, const QString &marker)
{
    QList<LogEntry> found;
    for (const LogEntry &entry : capture.entries())
        if (entry.text.contains(marker))
            found.append(entry);
    return found;
}

class LogCaptureTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(capture.install()); }

    QList<LogEntry> withMarker(const QString &marker) const { return swarmtrain::withMarker(capture, marker); }

    LogCapture capture;
};

TEST_F(LogCaptureTest, KeepsTypeCategoryTextAndTime)
{
    const QString marker = QUuid::createUuid().toString();
    const QDateTime before = QDateTime::currentDateTime();
    qCWarning(lcCapture).noquote() << "disk almost full" << marker;
    const QList<LogEntry> found = withMarker(marker);
    ASSERT_EQ(found.size(), 1);
    EXPECT_EQ(found[0].type, QtWarningMsg);
    EXPECT_EQ(found[0].category, QStringLiteral("swarmtrain.test.capture"));
    EXPECT_EQ(found[0].text, QStringLiteral("disk almost full ") + marker);
    EXPECT_GE(found[0].at, before);
    EXPECT_LE(found[0].at, QDateTime::currentDateTime());
}

TEST_F(LogCaptureTest, KeepsOnlyTheLastMessages)
{
    const QString marker = QUuid::createUuid().toString();
    for (int i = 0; i < LogCapture::kCapacity + 150; ++i)
        qCInfo(lcCapture).noquote() << marker << i;
    const QList<LogEntry> all = capture.entries();
    ASSERT_EQ(all.size(), LogCapture::kCapacity);
    for (int i = 1; i < all.size(); ++i)
        ASSERT_EQ(all[i].sequence, all[i - 1].sequence + 1);
    // The oldest went first (another thread's message may have slipped in between).
    const QList<LogEntry> ours = withMarker(marker);
    ASSERT_FALSE(ours.isEmpty());
    const int oldest = ours.first().text.section(QLatin1Char(' '), -1).toInt();
    EXPECT_GE(oldest, 150);
    EXPECT_EQ(ours.size(), LogCapture::kCapacity + 150 - oldest);
    EXPECT_EQ(ours.last().text, marker + QLatin1Char(' ') + QString::number(LogCapture::kCapacity + 149));
}

TEST_F(LogCaptureTest, TakesMessagesFromAnyThreadAndSignalsOnItsOwn)
{
    const QString marker = QUuid::createUuid().toString();
    int signalled = 0;
    bool allOnGuiThread = true;
    QObject receiver;
    QObject::connect(&capture, &LogCapture::messageLogged, &receiver, [&](const LogEntry &entry) {
        if (!entry.text.contains(marker))
            return;
        ++signalled;
        allOnGuiThread = allOnGuiThread && QThread::currentThread() == QCoreApplication::instance()->thread();
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 100; ++i)
                qCInfo(lcCapture).noquote() << marker << t << i;
        });
    for (std::thread &thread : threads)
        thread.join();
    EXPECT_EQ(withMarker(marker).size(), 400);
    EXPECT_EQ(signalled, 0) << "the signal must come queued, not from the logging thread";
    ASSERT_TRUE(QTest::qWaitFor([&] { return signalled == 400; }, 5000)) << signalled;
    EXPECT_TRUE(allOnGuiThread);
}

// The messages that reached a handler installed before the capture, from any thread.
QMutex g_seenMutex;
QStringList g_seen;

void rememberingHandler(QtMsgType, const QMessageLogContext &, const QString &message)
{
    QMutexLocker lock(&g_seenMutex);
    g_seen.append(message);
}

bool seen(const QString &message)
{
    QMutexLocker lock(&g_seenMutex);
    return g_seen.contains(message);
}

TEST(LogCaptureInstallTest, PassesMessagesOnAndPutsBackTheHandlerItReplacedWhenDestroyed)
{
    const QtMessageHandler original = qInstallMessageHandler(&rememberingHandler);
    const QString marker = QUuid::createUuid().toString();
    {
        LogCapture capture;
        ASSERT_TRUE(capture.install());
        qCInfo(lcCapture).noquote() << "captured" << marker;
        EXPECT_EQ(withMarker(capture, marker).size(), 1);
        EXPECT_TRUE(seen(QStringLiteral("captured ") + marker)) << "the replaced handler still gets every message";
    }
    qCInfo(lcCapture).noquote() << "after the capture" << marker;
    EXPECT_TRUE(seen(QStringLiteral("after the capture ") + marker));
    EXPECT_EQ(qInstallMessageHandler(original), &rememberingHandler);
}

TEST(LogCaptureInstallTest, OneCaptureAtATime)
{
    const QString marker = QUuid::createUuid().toString();
    {
        LogCapture first;
        ASSERT_TRUE(first.install());
        EXPECT_TRUE(first.install()) << "installing twice is fine";
        {
            LogCapture second;
            EXPECT_FALSE(second.install());
            qCInfo(lcCapture).noquote() << "one" << marker;
            EXPECT_EQ(withMarker(first, marker).size(), 1);
            EXPECT_TRUE(withMarker(second, marker).isEmpty());
        }
        // The second one, never installed, leaves the first in place.
        qCInfo(lcCapture).noquote() << "two" << marker;
        EXPECT_EQ(withMarker(first, marker).size(), 2);
    }
    LogCapture third;
    EXPECT_TRUE(third.install()) << "the first one's destruction made room";
    qCInfo(lcCapture).noquote() << "three" << marker;
    EXPECT_EQ(withMarker(third, marker).size(), 1);
}

} // namespace
} // namespace swarmtrain
