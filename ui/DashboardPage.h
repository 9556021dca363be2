#pragma once

#include "ClientSession.h"

#include <QElapsedTimer>
#include <QList>
#include <QPointF>
#include <QWidget>

class QBarCategoryAxis;
class QBarSet;
class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QProgressBar;
class QPushButton;
class QTimer;
class QValueAxis;

namespace swarmtrain {

// The first page: what this PC does now and why (the state with its reason, the round and the
// inner steps, a Pause/Resume button), the live tokens/s of the last five minutes, the GPU-hours
// it gave each of the last 30 days with the totals since it started, and the swarm's
// validation-loss curve. Everything comes from ClientSession's signals.
class DashboardPage : public QWidget {
    Q_OBJECT

public:
    explicit DashboardPage(ClientSession &session, QWidget *parent = nullptr);
    ~DashboardPage() override;

    // For tests: the charts' data as shown.
    QLineSeries *tokensPerSecondSeries() const { return m_speedSeries; }
    QBarSet *gpuHoursPerDay() const { return m_dailySet; }
    QLineSeries *validationLossSeries() const { return m_lossSeries; }

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    QWidget *buildStatusCard();
    QWidget *buildWorkCard();
    QWidget *buildTotalsCard();
    QChartView *buildSpeedChart();
    QChartView *buildDailyChart();
    QChartView *buildLossChart();
    void retranslate();
    void showState(const SessionState &state);
    void showContributions(const ContributionSummary &summary);
    void showSwarm(const SwarmSnapshot &snapshot);
    // The loss chart's titles: bits per byte when the swarm says its tokens per byte.
    void titleLossChart();
    void sampleSpeed();
    void applyChartTheme();

    ClientSession &m_session;
    ContributionSummary m_summary;
    SwarmSnapshot m_snapshot;

    QLabel *m_stateDot = nullptr;
    QLabel *m_headline = nullptr;
    QLabel *m_detail = nullptr;
    QPushButton *m_pauseButton = nullptr;

    QLabel *m_workTitle = nullptr;
    QLabel *m_modeCaption = nullptr;
    QLabel *m_mode = nullptr;
    QLabel *m_roundCaption = nullptr;
    QLabel *m_round = nullptr;
    QLabel *m_speedCaption = nullptr;
    QLabel *m_speed = nullptr;
    QLabel *m_stepsCaption = nullptr;
    QProgressBar *m_steps = nullptr;

    QLabel *m_totalsTitle = nullptr;
    QLabel *m_tokensCaption = nullptr;
    QLabel *m_tokens = nullptr;
    QLabel *m_hoursCaption = nullptr;
    QLabel *m_hours = nullptr;
    QLabel *m_roundsCaption = nullptr;
    QLabel *m_rounds = nullptr;
    QLabel *m_creditCaption = nullptr;
    QLabel *m_credit = nullptr;
    QLabel *m_sentCaption = nullptr;
    QLabel *m_sent = nullptr;
    QLabel *m_receivedCaption = nullptr;
    QLabel *m_received = nullptr;

    QChartView *m_speedView = nullptr;
    QLineSeries *m_speedSeries = nullptr;
    QValueAxis *m_speedX = nullptr;
    QValueAxis *m_speedY = nullptr;
    QList<QPointF> m_speedSamples; // (seconds since the page was made, tokens/s)
    QElapsedTimer m_clock;
    QTimer *m_sampleTimer = nullptr;

    QChartView *m_dailyView = nullptr;
    QBarSet *m_dailySet = nullptr;
    QBarCategoryAxis *m_dailyX = nullptr;
    QValueAxis *m_dailyY = nullptr;

    QChartView *m_lossView = nullptr;
    QLineSeries *m_lossSeries = nullptr;
    QValueAxis *m_lossX = nullptr;
    QValueAxis *m_lossY = nullptr;
};

} // namespace swarmtrain
