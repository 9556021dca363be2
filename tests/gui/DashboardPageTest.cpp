// The dashboard: the totals and the live tokens/s after a real round, the same totals from
// stats.db after a restart, and Pause/Resume.
#include "DashboardPage.h"
#include "GuiTest.h"

#include <QBarSet>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

class DashboardPageTest : public test::GuiTest {
protected:
    static QString text(const QWidget &page, const char *name)
    {
        const auto *label = page.findChild<QLabel *>(QString::fromLatin1(name));
        return label ? label->text() : QStringLiteral("<no %1>").arg(QString::fromLatin1(name));
    }
    // The digits of a label, as a number ("1,234 tokens" -> 1234).
    static qint64 number(const QString &text)
    {
        QString digits;
        for (QChar c : text)
            if (c.isDigit())
                digits += c;
        return digits.toLongLong();
    }
    // Everything the totals card shows.
    static QStringList totals(const QWidget &page)
    {
        QStringList all;
        for (const char *name : {"tokensTotal", "gpuHoursTotal", "roundsTotal", "creditTotal", "dataSentTotal",
                                 "dataReceivedTotal"})
            all << text(page, name);
        return all;
    }
};

} // namespace

TEST_F(DashboardPageTest, AfterARoundTheTotalsAndTheSpeedChartShowTheWork)
{
    test::TestSwarm swarm(dir().path());
    ASSERT_TRUE(swarm.start(3000)) << swarm.errors();
    DashboardPage page(session());
    page.resize(1000, 700);
    page.show();
    EXPECT_EQ(number(text(page, "tokensTotal")), 0);

    QSignalSpy rounds(&session(), &ClientSession::roundFinished);
    ASSERT_TRUE(session().join(swarm.url()).ok());
    ASSERT_TRUE(rounds.wait(50'000)) << "no round finished; " << session().state().headline.toStdString() << ": "
                                     << session().state().detail.toStdString() << "\n" << swarm.errors();
    const RoundReport report = rounds.first().first().value<RoundReport>();
    ASSERT_GT(report.tokens, 0);

    // The totals come from stats.db, read again after the round.
    ASSERT_TRUE(QTest::qWaitFor([&] { return number(text(page, "tokensTotal")) > 0; }, 10'000))
        << text(page, "tokensTotal").toStdString();
    EXPECT_TRUE(text(page, "gpuHoursTotal").contains(QStringLiteral("GPU-hours")));
    EXPECT_GT(number(text(page, "dataSentTotal")), 0) << text(page, "dataSentTotal").toStdString();
    EXPECT_GT(page.gpuHoursPerDay()->sum(), 0.0) << "today's bar";
    EXPECT_EQ(page.gpuHoursPerDay()->count(), 30);

    // The speed is sampled every second; the worker reported its rate while it trained.
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const QList<QPointF> points = page.tokensPerSecondSeries()->points();
            return std::any_of(points.begin(), points.end(), [](const QPointF &p) { return p.y() > 0.0; });
        },
        20'000))
        << page.tokensPerSecondSeries()->count() << " points, none above zero";
    for (const QPointF &point : page.tokensPerSecondSeries()->points()) {
        EXPECT_LE(point.x(), 0.0) << "minutes ago";
        EXPECT_GE(point.x(), -5.0);
    }
    EXPECT_NE(text(page, "headlineLabel"), QString());
    EXPECT_NE(text(page, "roundValue"), QStringLiteral("—"));
}

// A time-budgeted round (issue 18): the bar names the budget, and after a round the steps this
// PC fitted into it and its utilisation.
TEST_F(DashboardPageTest, ABudgetedRoundShowsItsBudgetTheStepsFittedAndTheUtilisation)
{
    test::TestSwarm swarm(dir().path());
    ASSERT_TRUE(swarm.start(20, {"--rounds", "budget", "--round-seconds", "2", "--max-inner-steps", "20000"}))
        << swarm.errors();
    DashboardPage page(session());
    page.show();
    QSignalSpy rounds(&session(), &ClientSession::roundFinished);
    ASSERT_TRUE(session().join(swarm.url()).ok());
    ASSERT_TRUE(rounds.wait(60'000)) << swarm.errors();
    const RoundReport report = rounds.first().first().value<RoundReport>();
    EXPECT_EQ(report.budgetSeconds, 2.0);
    EXPECT_GT(report.steps, 0);
    EXPECT_GT(report.utilisation, 0.0);
    EXPECT_LE(report.utilisation, 1.0);
    const auto *bar = page.findChild<QProgressBar *>(QStringLiteral("stepProgress"));
    ASSERT_NE(bar, nullptr);
    ASSERT_TRUE(QTest::qWaitFor([&] { return bar->format().contains(QStringLiteral("utilised")); }, 30'000))
        << bar->format().toStdString();
    EXPECT_TRUE(bar->format().contains(QStringLiteral("2 s budget"))) << bar->format().toStdString();
}

TEST_F(DashboardPageTest, AfterARestartItShowsTheSameTotals)
{
    const StatsTotals recorded = test::recordContributions(stateDir(), 12);
    ASSERT_EQ(recorded.contributions, 12);

    QStringList before;
    {
        DashboardPage page(session());
        QSignalSpy updated(&session(), &ClientSession::contributionsUpdated);
        page.show(); // asks for the totals
        ASSERT_TRUE(updated.wait(10'000));
        QCoreApplication::processEvents();
        before = totals(page);
        ASSERT_GT(recorded.tokens, 10'000'000);
        EXPECT_EQ(text(page, "tokensTotal"),
                  QLocale().toString(double(recorded.tokens) / 1e6, 'f', 1) + QStringLiteral(" million"));
        const int decimals = recorded.computeHours < 10.0 ? 2 : 1;
        EXPECT_TRUE(text(page, "gpuHoursTotal").contains(QLocale().toString(recorded.computeHours, 'f', decimals)))
            << text(page, "gpuHoursTotal").toStdString() << " vs " << recorded.computeHours;
        EXPECT_EQ(text(page, "roundsTotal"), QLocale().toString(qint64(12)));
        EXPECT_EQ(text(page, "creditTotal"), QLocale().toString(recorded.credit, 'f', 1));
        EXPECT_EQ(text(page, "dataSentTotal"), QLocale().formattedDataSize(recorded.bytesUp, 1, QLocale::DataSizeSIFormat));
        EXPECT_TRUE(text(page, "dataSentTotal").contains(QStringLiteral("MB"))) << text(page, "dataSentTotal").toStdString();
        EXPECT_NEAR(page.gpuHoursPerDay()->sum(), recorded.computeHours, 1e-6);
    }

    destroySession(); // the app quits; the next one reads the same stats.db
    DashboardPage page(session());
    QSignalSpy updated(&session(), &ClientSession::contributionsUpdated);
    page.show();
    ASSERT_TRUE(updated.wait(10'000));
    QCoreApplication::processEvents();
    EXPECT_EQ(totals(page), before);
}

// Paused while it trains: the headline says why, once; the line under it does not repeat it, and
// neither does the status bar's text (headline and detail).
TEST_F(DashboardPageTest, APauseSaysItsReasonOnce)
{
    test::TestSwarm swarm(dir().path());
    ASSERT_TRUE(swarm.start(3000)) << swarm.errors();
    DashboardPage page(session());
    page.show();
    ASSERT_TRUE(session().join(swarm.url()).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return session().state().work.state == WorkState::Training; }, 60'000))
        << session().state().headline.toStdString() << "\n" << swarm.errors();
    session().pause();
    ASSERT_TRUE(QTest::qWaitFor([&] { return session().state().work.state == WorkState::Paused; }, 60'000))
        << session().state().headline.toStdString();
    QCoreApplication::processEvents();
    const QString reason = QStringLiteral("Paused by you");
    EXPECT_EQ(text(page, "headlineLabel"), reason);
    EXPECT_FALSE(text(page, "detailLabel").contains(QStringLiteral("Paused"))) << text(page, "detailLabel").toStdString();
    const SessionState &state = session().state();
    EXPECT_EQ((state.headline + QLatin1Char(' ') + state.detail).count(QStringLiteral("Paused")), 1)
        << state.headline.toStdString() << " / " << state.detail.toStdString();
}

TEST_F(DashboardPageTest, PauseButtonPausesAndResumes)
{
    DashboardPage page(session());
    page.show();
    auto *button = page.findChild<QPushButton *>(QStringLiteral("pauseButton"));
    ASSERT_NE(button, nullptr);
    const QString pauseText = button->text();
    button->click();
    EXPECT_TRUE(session().throttle().manuallyPaused());
    EXPECT_EQ(session().state().decision.reason, PauseReason::Manual);
    EXPECT_NE(button->text(), pauseText) << "it offers Resume now";
    EXPECT_EQ(text(page, "headlineLabel"), session().state().headline);
    button->click();
    EXPECT_FALSE(session().throttle().manuallyPaused());
    EXPECT_EQ(button->text(), pauseText);
}
