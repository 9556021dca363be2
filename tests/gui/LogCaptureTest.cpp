#include "LogCapture.h"

#include <QCoreApplication>
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

class LogCaptureTest : public ::testing::Test {
protected:
    void SetUp() override { LogCapture::instance().install(); }

    static QList<LogEntry> withMarker(const QString &marker)
    {
        QList<LogEntry> found;
        for (const LogEntry &entry : LogCapture::instance().entries())
            if (entry.text.contains(marker))
                found.append(entry);
        return found;
    }
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
    const QList<LogEntry> all = LogCapture::instance().entries();
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
    QObject::connect(&LogCapture::instance(), &LogCapture::messageLogged, &receiver, [&](const LogEntry &entry) {
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

} // namespace
} // namespace swarmtrain
