#include "DashboardPage.h"

#include "PageStyle.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace swarmtrain {

namespace {

constexpr double kSpeedWindowSeconds = 300.0; // the live chart's five minutes
const QColor kBrand(0x4c, 0x6e, 0xf5);
const QColor kActive(0x2b, 0x9a, 0x66);
const QColor kPaused(0xe8, 0x89, 0x0c);
const QColor kError(0xe0, 0x31, 0x31);
const QColor kIdle(0x86, 0x8e, 0x96);

QString dash() { return QStringLiteral("—"); }

// Millions and billions in words: a total grows past what a glance can count in digits. The
// caption says they are tokens.
QString formatTokens(qint64 tokens)
{
    if (tokens >= 1'000'000'000)
        return DashboardPage::tr("%1 billion").arg(QLocale().toString(double(tokens) / 1e9, 'f', 2));
    if (tokens >= 1'000'000)
        return DashboardPage::tr("%1 million").arg(QLocale().toString(double(tokens) / 1e6, 'f', 1));
    return QLocale().toString(tokens);
}

QString formatHours(double hours)
{
    return DashboardPage::tr("%1 GPU-hours").arg(QLocale().toString(hours, 'f', hours < 10.0 ? 2 : 1));
}

QString formatBytes(qint64 bytes) { return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeSIFormat); }

QString formatSpeed(double tokensPerSecond)
{
    return DashboardPage::tr("%1 tokens/s").arg(QLocale().toString(tokensPerSecond, 'f', 0));
}

// Training, waiting for the round and averaging are all part of contributing; the worker's
// figure is the rate of its last inner steps.
bool contributing(WorkState state)
{
    return state == WorkState::Training || state == WorkState::Waiting || state == WorkState::Averaging;
}

// A caption above its value, as in the totals and the current work.
QWidget *captioned(QLabel *caption, QWidget *value, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(caption);
    layout->addWidget(value);
    return box;
}

QChartView *makeChartView(QChart *chart, const char *name, QWidget *parent)
{
    chart->legend()->hide();
    chart->setBackgroundVisible(false);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setLocalizeNumbers(true); // "400,000" in English, "400.000" in German
    auto *view = new QChartView(chart, parent);
    view->setObjectName(QString::fromLatin1(name));
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(175);
    view->setProperty("card", true);
    return view;
}

} // namespace

DashboardPage::DashboardPage(ClientSession &session, QWidget *parent) : QWidget(parent), m_session(session)
{
    setObjectName(QStringLiteral("dashboardPage"));
    setStyleSheet(pageStyleSheet() + QStringLiteral("QLabel[role=\"figure\"] { font-size: 12pt; font-weight: 600; }"));

    // The page scrolls rather than squeezing its charts in a small window.
    QVBoxLayout *layout = makeScrollingColumn(this);
    layout->addWidget(buildStatusCard());

    auto *middle = new QHBoxLayout;
    middle->setSpacing(12);
    middle->addWidget(buildWorkCard(), 1);
    middle->addWidget(buildTotalsCard(), 2);
    layout->addLayout(middle);

    auto *charts = new QHBoxLayout;
    charts->setSpacing(12);
    charts->addWidget(buildSpeedChart(), 3);
    charts->addWidget(buildLossChart(), 2);
    layout->addLayout(charts, 1);
    layout->addWidget(buildDailyChart(), 1);

    connect(&m_session, &ClientSession::stateChanged, this, &DashboardPage::showState);
    connect(&m_session, &ClientSession::contributionsUpdated, this, &DashboardPage::showContributions);
    connect(&m_session, &ClientSession::swarmUpdated, this, &DashboardPage::showSwarm);
    connect(&m_session, &ClientSession::roundFinished, this, [this] { m_session.refreshContributions(); });
    connect(m_pauseButton, &QPushButton::clicked, this, [this] {
        if (m_session.throttle().manuallyPaused())
            m_session.resume();
        else
            m_session.pause();
    });

    m_clock.start();
    m_sampleTimer = new QTimer(this);
    m_sampleTimer->setInterval(1000);
    connect(m_sampleTimer, &QTimer::timeout, this, &DashboardPage::sampleSpeed);
    m_sampleTimer->start();

    applyChartTheme();
    retranslate();
}

DashboardPage::~DashboardPage() = default;

QWidget *DashboardPage::buildStatusCard()
{
    QFrame *card = makeCard(this);
    auto *layout = new QHBoxLayout(card);
    layout->setContentsMargins(20, 14, 20, 14);
    layout->setSpacing(14);

    m_stateDot = new QLabel(card);
    m_stateDot->setObjectName(QStringLiteral("stateDot"));
    m_stateDot->setFixedSize(16, 16);
    layout->addWidget(m_stateDot, 0, Qt::AlignVCenter);

    auto *text = new QVBoxLayout;
    text->setSpacing(2);
    m_headline = makeLabel("headline", card);
    m_headline->setObjectName(QStringLiteral("headlineLabel"));
    m_headline->setWordWrap(true);
    m_detail = makeLabel("caption", card);
    m_detail->setObjectName(QStringLiteral("detailLabel"));
    m_detail->setWordWrap(true);
    text->addWidget(m_headline);
    text->addWidget(m_detail);
    layout->addLayout(text, 1);

    m_speedCaption = makeLabel("caption", card);
    m_speed = makeLabel("value", card);
    m_speed->setObjectName(QStringLiteral("speedValue"));
    m_speedCaption->setAlignment(Qt::AlignRight);
    m_speed->setAlignment(Qt::AlignRight);
    layout->addWidget(captioned(m_speedCaption, m_speed, card), 0, Qt::AlignVCenter);
    layout->addSpacing(8);

    m_pauseButton = new QPushButton(card);
    m_pauseButton->setObjectName(QStringLiteral("pauseButton"));
    m_pauseButton->setMinimumWidth(120);
    m_pauseButton->setMinimumHeight(34);
    layout->addWidget(m_pauseButton, 0, Qt::AlignVCenter);
    return card;
}

QWidget *DashboardPage::buildWorkCard()
{
    QFrame *card = makeCard(this);
    auto *layout = new QGridLayout(card);
    layout->setContentsMargins(18, 14, 18, 14);
    layout->setHorizontalSpacing(18);
    layout->setVerticalSpacing(10);

    m_workTitle = makeLabel("title", card);
    m_modeCaption = makeLabel("caption", card);
    m_mode = makeLabel("value", card);
    m_mode->setObjectName(QStringLiteral("modeValue"));
    m_roundCaption = makeLabel("caption", card);
    m_round = makeLabel("value", card);
    m_round->setObjectName(QStringLiteral("roundValue"));
    m_stepsCaption = makeLabel("caption", card);
    m_steps = new QProgressBar(card);
    m_steps->setObjectName(QStringLiteral("stepProgress"));
    m_steps->setTextVisible(true);

    m_mode->setWordWrap(true);
    layout->addWidget(m_workTitle, 0, 0, 1, 2);
    layout->addWidget(captioned(m_modeCaption, m_mode, card), 1, 0, 1, 2);
    layout->addWidget(captioned(m_roundCaption, m_round, card), 2, 0);
    layout->addWidget(captioned(m_stepsCaption, m_steps, card), 2, 1, Qt::AlignBottom);
    layout->setColumnStretch(1, 1);
    layout->setRowStretch(3, 1);
    return card;
}

QWidget *DashboardPage::buildTotalsCard()
{
    QFrame *card = makeCard(this);
    auto *layout = new QGridLayout(card);
    layout->setContentsMargins(18, 14, 18, 14);
    layout->setHorizontalSpacing(18);
    layout->setVerticalSpacing(10);

    m_totalsTitle = makeLabel("title", card);
    layout->addWidget(m_totalsTitle, 0, 0, 1, 3);
    const struct {
        QLabel **caption;
        QLabel **value;
        const char *name;
    } metrics[] = {
        {&m_tokensCaption, &m_tokens, "tokensTotal"},   {&m_hoursCaption, &m_hours, "gpuHoursTotal"},
        {&m_roundsCaption, &m_rounds, "roundsTotal"},   {&m_creditCaption, &m_credit, "creditTotal"},
        {&m_sentCaption, &m_sent, "dataSentTotal"},     {&m_receivedCaption, &m_received, "dataReceivedTotal"},
    };
    int index = 0;
    for (const auto &m : metrics) {
        *m.caption = makeLabel("caption", card);
        *m.value = makeLabel("figure", card);
        (*m.value)->setObjectName(QString::fromLatin1(m.name));
        (*m.value)->setWordWrap(true); // a long figure in a long language wraps, never widens the window
        layout->addWidget(captioned(*m.caption, *m.value, card), 1 + index / 3, index % 3);
        ++index;
    }
    layout->setRowStretch(3, 1);
    for (int column = 0; column < 3; ++column)
        layout->setColumnStretch(column, 1);
    return card;
}

QChartView *DashboardPage::buildSpeedChart()
{
    auto *chart = new QChart;
    m_speedSeries = new QLineSeries(chart);
    m_speedSeries->setObjectName(QStringLiteral("tokensPerSecondSeries"));
    auto *area = new QAreaSeries(m_speedSeries); // filled down to zero
    QColor fill = kBrand;
    fill.setAlpha(60);
    area->setBrush(fill);
    area->setPen(QPen(kBrand, 2));
    chart->addSeries(area);

    m_speedX = new QValueAxis(chart);
    m_speedX->setRange(-kSpeedWindowSeconds / 60.0, 0.0);
    m_speedX->setTickCount(6);
    m_speedX->setLabelFormat(QStringLiteral("%.0f"));
    m_speedY = new QValueAxis(chart);
    m_speedY->setRange(0.0, 100.0);
    m_speedY->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(m_speedX, Qt::AlignBottom);
    chart->addAxis(m_speedY, Qt::AlignLeft);
    area->attachAxis(m_speedX);
    area->attachAxis(m_speedY);
    m_speedView = makeChartView(chart, "tokensChart", this);
    return m_speedView;
}

QChartView *DashboardPage::buildDailyChart()
{
    auto *chart = new QChart;
    m_dailySet = new QBarSet(QString(), chart);
    m_dailySet->setColor(kBrand);
    m_dailySet->setBorderColor(kBrand);
    auto *series = new QBarSeries(chart);
    series->setBarWidth(0.7);
    series->append(m_dailySet);
    chart->addSeries(series);

    m_dailyX = new QBarCategoryAxis(chart);
    QFont small = m_dailyX->labelsFont();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    m_dailyX->setLabelsFont(small);
    m_dailyX->setTruncateLabels(false); // "24" fits under its bar; QtCharts would show "..."
    m_dailyY = new QValueAxis(chart);
    m_dailyY->setRange(0.0, 1.0);
    m_dailyY->setLabelFormat(QStringLiteral("%.1f"));
    chart->addAxis(m_dailyX, Qt::AlignBottom);
    chart->addAxis(m_dailyY, Qt::AlignLeft);
    series->attachAxis(m_dailyX);
    series->attachAxis(m_dailyY);
    m_dailyView = makeChartView(chart, "dailyChart", this);
    return m_dailyView;
}

QChartView *DashboardPage::buildLossChart()
{
    auto *chart = new QChart;
    m_lossSeries = new QLineSeries(chart);
    m_lossSeries->setObjectName(QStringLiteral("validationLossSeries"));
    m_lossSeries->setPen(QPen(kActive, 2));
    m_lossSeries->setPointsVisible(true);
    chart->addSeries(m_lossSeries);

    m_lossX = new QValueAxis(chart);
    m_lossX->setRange(0.0, 10.0);
    m_lossX->setLabelFormat(QStringLiteral("%.0f"));
    m_lossY = new QValueAxis(chart);
    m_lossY->setRange(0.0, 5.0);
    m_lossY->setLabelFormat(QStringLiteral("%.2f"));
    chart->addAxis(m_lossX, Qt::AlignBottom);
    chart->addAxis(m_lossY, Qt::AlignLeft);
    m_lossSeries->attachAxis(m_lossX);
    m_lossSeries->attachAxis(m_lossY);
    m_lossView = makeChartView(chart, "lossChart", this);
    return m_lossView;
}

void DashboardPage::applyChartTheme()
{
    // The charts follow a dark desktop palette; the series keep their own colours.
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    for (QChartView *view : {m_speedView, m_dailyView, m_lossView}) {
        QChart *chart = view->chart();
        const QColor text = palette().color(QPalette::WindowText);
        QColor grid = text;
        grid.setAlpha(dark ? 50 : 35);
        chart->setTitleBrush(text);
        for (QAbstractAxis *axis : chart->axes()) {
            axis->setLabelsColor(text);
            axis->setTitleBrush(text);
            axis->setGridLineColor(grid);
            axis->setLinePenColor(grid);
        }
    }
}

void DashboardPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    else if (event->type() == QEvent::PaletteChange)
        applyChartTheme();
    QWidget::changeEvent(event);
}

void DashboardPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_session.refreshContributions(); // answered off the GUI thread
}

void DashboardPage::retranslate()
{
    m_workTitle->setText(tr("Current work"));
    m_modeCaption->setText(tr("Mode"));
    m_roundCaption->setText(tr("Round"));
    m_stepsCaption->setText(tr("Inner steps"));
    m_speedCaption->setText(tr("Speed"));

    m_totalsTitle->setText(tr("Contributed by this PC"));
    m_tokensCaption->setText(tr("Tokens trained"));
    m_hoursCaption->setText(tr("Compute time"));
    m_roundsCaption->setText(tr("Rounds accepted"));
    m_creditCaption->setText(tr("Credit"));
    m_sentCaption->setText(tr("Data sent"));
    m_receivedCaption->setText(tr("Data received"));

    m_speedView->chart()->setTitle(tr("Tokens per second, last 5 minutes"));
    m_speedX->setTitleText(tr("minutes ago"));
    titleLossChart();
    m_lossX->setTitleText(tr("round"));
    m_dailySet->setLabel(tr("GPU-hours"));

    // Numbers follow the language's locale.
    showState(m_session.state());
    showContributions(m_summary);
    showSwarm(m_snapshot);
}

void DashboardPage::showState(const SessionState &state)
{
    const QColor dot = !state.joined                          ? kIdle
                       : state.icon == SessionIcon::Active ? kActive
                       : state.icon == SessionIcon::Error  ? kError
                                                           : kPaused;
    m_stateDot->setStyleSheet(QStringLiteral("background-color: %1; border-radius: 8px;").arg(dot.name()));
    m_headline->setText(state.headline.isEmpty() ? tr("Starting") : state.headline);
    m_detail->setText(state.detail);
    m_detail->setVisible(!state.detail.isEmpty());

    const bool manual = m_session.throttle().manuallyPaused();
    m_pauseButton->setText(manual ? tr("Resume") : tr("Pause"));
    m_pauseButton->setIcon(style()->standardIcon(manual ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));

    const WorkStatus &work = state.work;
    m_mode->setText(state.joined && !state.mode.isEmpty() ? state.mode : dash());
    m_round->setText(state.joined ? QLocale().toString(work.round) : dash());
    m_speed->setText(state.joined && contributing(work.state) ? formatSpeed(work.tokensPerSecond) : dash());
    if (state.joined && work.pipelineStages > 0) {
        // A pipeline stage: what this PC serves, and its stage's throughput next to the slowest.
        m_speed->setText(tr("%1 microbatches/s").arg(QLocale().toString(work.microbatchesPerSecond, 'f', 1)));
        const double slowest = work.bottleneckThroughput;
        m_steps->setRange(0, 100);
        m_steps->setValue(slowest > 0 && work.stageThroughput > 0 ? int(std::clamp(100.0 * slowest / work.stageThroughput, 0.0, 100.0)) : 0);
        m_steps->setFormat(work.stageThroughput > 0
                               ? tr("This stage %1/s, the slowest %2/s")
                                     .arg(QLocale().toString(work.stageThroughput, 'f', 1), QLocale().toString(slowest, 'f', 1))
                               : tr("Stage throughput not measured yet"));
    } else if (state.joined && work.budgetSeconds > 0) {
        // A time-budgeted round: as many steps as fit the budget; the bar fills at the swarm's H.
        m_steps->setRange(0, int(std::max<qint64>(work.innerSteps, 1)));
        m_steps->setValue(int(std::clamp(work.innerStepsDone, qint64(0), work.innerSteps)));
        const QString budget = QLocale().toString(work.budgetSeconds, 'f', 0);
        m_steps->setFormat(work.lastRoundSteps > 0
                               ? tr("Step %1 in a %2 s budget; last round %3 steps, %4% utilised")
                                     .arg(work.innerStepsDone)
                                     .arg(budget)
                                     .arg(work.lastRoundSteps)
                                     .arg(QLocale().toString(100.0 * work.lastRoundUtilisation, 'f', 0))
                               : tr("Step %1 in a %2 s budget").arg(work.innerStepsDone).arg(budget));
    } else if (state.joined && work.innerSteps > 0) {
        m_steps->setRange(0, int(work.innerSteps));
        m_steps->setValue(int(std::clamp(work.innerStepsDone, qint64(0), work.innerSteps)));
        m_steps->setFormat(tr("Step %1 of %2").arg(work.innerStepsDone).arg(work.innerSteps));
    } else {
        m_steps->setRange(0, 1);
        m_steps->setValue(0);
        m_steps->setFormat(tr("No round in progress"));
    }
}

void DashboardPage::showContributions(const ContributionSummary &summary)
{
    m_summary = summary;
    const StatsTotals &totals = summary.totals;
    m_tokens->setText(formatTokens(totals.tokens));
    m_hours->setText(formatHours(totals.computeHours));
    m_rounds->setText(totals.rejectedRounds > 0
                          ? tr("%1 (%2 rejected)")
                                .arg(QLocale().toString(totals.acceptedRounds), QLocale().toString(totals.rejectedRounds))
                          : QLocale().toString(totals.acceptedRounds));
    m_credit->setText(QLocale().toString(totals.credit, 'f', 1));
    m_sent->setText(formatBytes(totals.bytesUp));
    m_received->setText(formatBytes(totals.bytesDown));

    // Day numbers under the bars, the dates in the title. A category must be unique, and a
    // 30-day window can hold a day number twice (February), so a repeat gets an invisible mark.
    std::vector<DailyStats> window = summary.days;
    if (window.empty()) { // no stats.db yet: 30 empty days ending today
        for (int back = 29; back >= 0; --back)
            window.push_back(DailyStats{QDate::currentDate().addDays(-back), 0.0, 0, 0.0});
    }
    QStringList days;
    QSet<QString> used;
    QList<qreal> hours;
    double most = 0.0;
    for (const DailyStats &entry : window) {
        QString label = QString::number(entry.day.day());
        while (used.contains(label))
            label += QChar(0x200B);
        used.insert(label);
        days.append(label);
        const double value = entry.computeSeconds / 3600.0;
        hours.append(value);
        most = std::max(most, value);
    }
    m_dailySet->remove(0, m_dailySet->count());
    m_dailySet->append(hours);
    m_dailyX->setCategories(days);
    m_dailyY->setRange(0.0, std::max(most * 1.15, 0.01));
    m_dailyY->applyNiceNumbers();
    // Enough decimals that the ticks differ: a new PC's first day is a few hundredths of an hour.
    const double top = m_dailyY->max();
    m_dailyY->setLabelFormat(top < 0.1 ? QStringLiteral("%.3f") : top < 1.0 ? QStringLiteral("%.2f") : QStringLiteral("%.1f"));
    m_dailyY->setTitleText(tr("GPU-hours"));
    const QString from = QLocale().toString(window.front().day, QLocale::ShortFormat);
    const QString to = QLocale().toString(window.back().day, QLocale::ShortFormat);
    m_dailyView->chart()->setTitle(tr("GPU-hours per day, %1 – %2").arg(from, to));
}

void DashboardPage::titleLossChart()
{
    m_lossView->chart()->setTitle(m_snapshot.bitsPerByte ? tr("Swarm validation loss, bits per byte") : tr("Swarm validation loss"));
    m_lossY->setTitleText(m_snapshot.bitsPerByte ? tr("bits per byte") : tr("loss"));
}

void DashboardPage::showSwarm(const SwarmSnapshot &snapshot)
{
    m_snapshot = snapshot;
    const QVector<QPointF> &points = snapshot.validationLoss;
    m_lossSeries->replace(QList<QPointF>(points.begin(), points.end()));
    titleLossChart();
    if (points.isEmpty())
        return;
    double minRound = points.front().x(), maxRound = minRound, minLoss = points.front().y(), maxLoss = minLoss;
    for (const QPointF &p : points) {
        minRound = std::min(minRound, p.x());
        maxRound = std::max(maxRound, p.x());
        minLoss = std::min(minLoss, p.y());
        maxLoss = std::max(maxLoss, p.y());
    }
    m_lossX->setRange(minRound, std::max(maxRound, minRound + 1.0));
    const double margin = std::max((maxLoss - minLoss) * 0.1, 0.05);
    m_lossY->setRange(std::max(0.0, minLoss - margin), maxLoss + margin);
    m_lossY->applyNiceNumbers();
    m_lossX->setTickCount(int(std::min(6.0, std::max(2.0, maxRound - minRound + 1.0))));
}

void DashboardPage::sampleSpeed()
{
    const SessionState &state = m_session.state();
    const double now = double(m_clock.elapsed()) / 1000.0;
    const double value = state.joined && contributing(state.work.state) ? state.work.tokensPerSecond : 0.0;
    m_speedSamples.append(QPointF(now, value));
    while (!m_speedSamples.isEmpty() && m_speedSamples.front().x() < now - kSpeedWindowSeconds)
        m_speedSamples.removeFirst();

    QList<QPointF> points;
    points.reserve(m_speedSamples.size());
    double most = 0.0;
    for (const QPointF &sample : std::as_const(m_speedSamples)) {
        points.append(QPointF((sample.x() - now) / 60.0, sample.y()));
        most = std::max(most, sample.y());
    }
    m_speedSeries->replace(points);
    m_speedY->setRange(0.0, std::max(most * 1.2, 10.0));
    m_speedY->applyNiceNumbers();
}

} // namespace swarmtrain
