#include "DevicePage.h"

#include "ClientSession.h"
#include "PageStyle.h"

#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace swarmtrain {

namespace {

QString vendorName(const std::string &vendor)
{
    if (vendor == "nvidia")
        return QStringLiteral("NVIDIA");
    if (vendor == "amd")
        return QStringLiteral("AMD");
    if (vendor == "intel")
        return QStringLiteral("Intel");
    if (vendor == "apple")
        return QStringLiteral("Apple");
    return QString::fromStdString(vendor);
}

QString gibibytes(std::uint64_t bytes)
{
    return DevicePage::tr("%1 GiB").arg(QLocale().toString(double(bytes) / double(1ull << 30), 'f', 1));
}

QLabel *makeHint(QWidget *parent)
{
    QLabel *hint = makeLabel("caption", parent);
    hint->setWordWrap(true);
    return hint;
}

QLabel *makeRoleLabel(const char *role, const QString &text, QWidget *parent)
{
    QLabel *label = makeLabel(role, parent);
    label->setText(text);
    return label;
}

} // namespace

DevicePage::DevicePage(ClientSession &session, QWidget *parent) : QWidget(parent), m_session(session)
{
    setObjectName(QStringLiteral("devicePage"));
    setStyleSheet(pageStyleSheet() + QStringLiteral(
        "QLabel[role=\"usable\"] { color: #1b5e20; background-color: #e3f1e4; border-radius: 10px; padding: 3px 12px; }"
        "QLabel[role=\"unusable\"] { color: #5d4037; background-color: #efebe9; border-radius: 10px; padding: 3px 12px; }"
        "QLabel[role=\"warning\"] { color: #b26a00; }"
        "QLabel[role=\"error\"] { color: #c62828; }"));

    QVBoxLayout *column = makeScrollingColumn(this);
    QWidget *content = column->parentWidget();

    // The GPUs: a heading with Refresh, then one card each
    auto *gpuHeader = new QHBoxLayout;
    gpuHeader->setSpacing(12);
    auto *gpuHeading = new QVBoxLayout;
    gpuHeading->setSpacing(2);
    m_gpuTitle = makeLabel("title", content);
    m_gpuSummary = makeHint(content);
    m_gpuSummary->setObjectName(QStringLiteral("gpuSummary"));
    gpuHeading->addWidget(m_gpuTitle);
    gpuHeading->addWidget(m_gpuSummary);
    m_refresh = new QPushButton(content);
    m_refresh->setObjectName(QStringLiteral("refreshButton"));
    m_refresh->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    gpuHeader->addLayout(gpuHeading, 1);
    gpuHeader->addWidget(m_refresh, 0, Qt::AlignBottom);
    column->addLayout(gpuHeader);
    m_gpuList = new QWidget(content);
    m_gpuList->setObjectName(QStringLiteral("gpuList"));
    m_gpuListLayout = new QVBoxLayout(m_gpuList);
    m_gpuListLayout->setContentsMargins(0, 0, 0, 0);
    m_gpuListLayout->setSpacing(12);
    column->addWidget(m_gpuList);
    m_warnings = makeRoleLabel("warning", QString(), content);
    m_warnings->setObjectName(QStringLiteral("gpuWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->hide();
    column->addWidget(m_warnings);
    column->addSpacing(4);

    // The benchmark
    QFrame *benchCard = makeCard(content);
    auto *bench = new QVBoxLayout(benchCard);
    bench->setContentsMargins(18, 14, 18, 16);
    bench->setSpacing(10);
    m_benchTitle = makeLabel("title", benchCard);
    bench->addWidget(m_benchTitle);
    m_benchHint = makeHint(benchCard);
    bench->addWidget(m_benchHint);
    auto *benchRow = new QHBoxLayout;
    benchRow->setSpacing(12);
    m_benchButton = new QPushButton(benchCard);
    m_benchButton->setObjectName(QStringLiteral("benchmarkButton"));
    m_benchButton->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_benchButton->setMinimumHeight(30);
    m_benchProgress = new QProgressBar(benchCard);
    m_benchProgress->setObjectName(QStringLiteral("benchmarkProgress"));
    m_benchProgress->setRange(0, 100);
    m_benchProgress->setTextVisible(true);
    m_benchProgress->hide();
    m_benchStep = new QLabel(benchCard);
    m_benchStep->setObjectName(QStringLiteral("benchmarkStep"));
    m_benchStep->setMinimumWidth(160);
    m_benchStep->hide();
    benchRow->addWidget(m_benchButton);
    benchRow->addWidget(m_benchProgress, 1);
    benchRow->addWidget(m_benchStep);
    benchRow->addStretch(0);
    bench->addLayout(benchRow);
    m_benchError = makeRoleLabel("error", QString(), benchCard);
    m_benchError->setObjectName(QStringLiteral("benchmarkError"));
    m_benchError->setWordWrap(true);
    m_benchError->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_benchError->hide();
    bench->addWidget(m_benchError);
    m_benchResults = new QTableWidget(0, 2, benchCard);
    m_benchResults->setObjectName(QStringLiteral("benchmarkResults"));
    m_benchResults->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_benchResults->setSelectionMode(QAbstractItemView::NoSelection);
    m_benchResults->setFocusPolicy(Qt::NoFocus);
    m_benchResults->setAlternatingRowColors(true);
    m_benchResults->setShowGrid(false);
    m_benchResults->setWordWrap(false);
    m_benchResults->verticalHeader()->hide();
    m_benchResults->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_benchResults->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_benchResults->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_benchResults->horizontalHeader()->setHighlightSections(false);
    m_benchResults->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_benchResults->hide();
    bench->addWidget(m_benchResults);
    column->addWidget(benchCard);
    column->addStretch(1);

    connect(m_refresh, &QPushButton::clicked, this, &DevicePage::refresh);
    connect(m_benchButton, &QPushButton::clicked, this, &DevicePage::startBenchmark);
    connect(&m_session, &ClientSession::gpusProbed, this, &DevicePage::showGpus);
    connect(&m_session, &ClientSession::benchmarkProgress, this, &DevicePage::showBenchmarkProgress);
    connect(&m_session, &ClientSession::benchmarkFinished, this, &DevicePage::showBenchmarkResults);

    retranslate();
    updateBenchmarkState();
}

void DevicePage::refresh()
{
    if (m_probing)
        return;
    m_probing = true;
    m_session.probeGpus();
    rebuildGpuList();
}

void DevicePage::showEvent(QShowEvent *event)
{
    if (!m_report && !m_probing)
        refresh(); // the first time the page is seen; later only on Refresh
    QWidget::showEvent(event);
}

void DevicePage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void DevicePage::retranslate()
{
    m_gpuTitle->setText(tr("Graphics processors"));
    m_refresh->setText(tr("&Refresh"));
    m_benchTitle->setText(tr("Benchmark"));
    m_benchHint->setText(tr("Measures how fast this PC multiplies matrices, copies data to and from the GPU and "
                            "trains a small model. The swarm uses the figures to give this PC a fitting share of "
                            "the work. It takes about a minute."));
    m_benchButton->setText(tr("Run &benchmark"));
    m_benchResults->setHorizontalHeaderLabels({tr("Measurement"), tr("Result")});
    rebuildGpuList();
}

void DevicePage::showGpus(const GpuReport &report)
{
    m_probing = false;
    m_report = report;
    rebuildGpuList();
}

void DevicePage::rebuildGpuList()
{
    while (QLayoutItem *item = m_gpuListLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_refresh->setEnabled(!m_probing);

    if (m_probing || !m_report) {
        m_gpuSummary->setText(tr("Looking for GPUs…"));
        m_warnings->hide();
        return;
    }
    const GpuReport &report = *m_report;
    if (report.gpus.empty()) {
        m_gpuSummary->clear();
        QFrame *empty = makeCard(m_gpuList);
        auto *emptyLayout = new QVBoxLayout(empty);
        emptyLayout->setContentsMargins(18, 14, 18, 16);
        emptyLayout->setSpacing(6);
        auto *title = makeRoleLabel("value", tr("No GPU found — SwarmTrain trains on the CPU"), empty);
        title->setObjectName(QStringLiteral("noGpuLabel"));
        auto *hint = makeHint(empty);
        hint->setText(tr("Training on the processor is slower, but every contribution counts. If this PC has a "
                         "graphics card, installing its current driver lets SwarmTrain find it."));
        emptyLayout->addWidget(title);
        emptyLayout->addWidget(hint);
        m_gpuListLayout->addWidget(empty);
    } else {
        const int usable = int(std::count_if(report.gpus.begin(), report.gpus.end(),
                                             [](const GpuInfo &gpu) { return gpu.usable; }));
        m_gpuSummary->setText(usable > 0 ? tr("SwarmTrain trains on the GPUs marked ready.")
                                         : tr("SwarmTrain found these GPUs."));
        for (const GpuInfo &gpu : report.gpus)
            m_gpuListLayout->addWidget(makeGpuCard(gpu));
    }

    QStringList warnings;
    for (const std::string &warning : report.warnings)
        warnings.append(QString::fromStdString(warning));
    m_warnings->setText(warnings.join(QLatin1Char('\n')));
    m_warnings->setVisible(!warnings.isEmpty());
}

QWidget *DevicePage::makeGpuCard(const GpuInfo &gpu)
{
    QFrame *card = makeCard(m_gpuList);
    card->setObjectName(QStringLiteral("gpuCard"));
    auto *layout = new QVBoxLayout(card);
    layout->setContentsMargins(18, 14, 18, 16);
    layout->setSpacing(10);

    auto *header = new QHBoxLayout;
    auto *name = makeRoleLabel("value", QString::fromStdString(gpu.name), card);
    name->setObjectName(QStringLiteral("gpuName"));
    name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header->addWidget(name, 1);
    // The session fills in `usable` where it knows what its LibTorch can drive; a GPU with
    // neither the flag nor a reason was not judged, so it gets no badge.
    if (gpu.usable || !gpu.unusableReason.empty()) {
        auto *badge = makeRoleLabel(gpu.usable ? "usable" : "unusable",
                                    gpu.usable ? tr("Ready for training") : tr("Not used for training"), card);
        badge->setObjectName(QStringLiteral("gpuStatus"));
        header->addWidget(badge, 0, Qt::AlignVCenter);
    }
    layout->addLayout(header);

    auto *grid = new QGridLayout;
    grid->setHorizontalSpacing(16);
    grid->setVerticalSpacing(6);
    const QLocale locale;
    const QString unknown = tr("Unknown");
    QList<QPair<QString, QString>> facts;
    facts.append({tr("Vendor"), vendorName(gpu.vendor)});
    facts.append({tr("Memory"), gpu.memoryTotalBytes == 0
                                    ? unknown
                                    : tr("%1 free of %2").arg(gibibytes(gpu.memoryFreeBytes), gibibytes(gpu.memoryTotalBytes))});
    facts.append({tr("Driver"), gpu.driverVersion.empty() ? unknown : QString::fromStdString(gpu.driverVersion)});
    facts.append({tr("Temperature"), gpu.temperatureC < 0 ? unknown : tr("%1 °C").arg(locale.toString(gpu.temperatureC))});
    if (gpu.computeCapabilityMajor >= 0)
        facts.append({tr("Compute capability"),
                      QStringLiteral("%1.%2").arg(gpu.computeCapabilityMajor).arg(std::max(gpu.computeCapabilityMinor, 0))});
    facts.append({tr("Utilization"),
                  gpu.utilizationPercent < 0 ? unknown : tr("%1 %").arg(locale.toString(gpu.utilizationPercent))});
    if (!gpu.processes.empty()) {
        std::uint64_t used = 0;
        for (const GpuProcess &process : gpu.processes)
            used += process.usedMemoryBytes;
        facts.append({tr("Other programs"), tr("%1 in use").arg(gibibytes(used))});
    }
    // Two columns of caption and value, filled row by row.
    for (int i = 0; i < facts.size(); ++i) {
        const int row = i / 2;
        const int col = (i % 2) * 2;
        grid->addWidget(makeRoleLabel("caption", facts[i].first, card), row, col);
        auto *value = new QLabel(facts[i].second, card);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        grid->addWidget(value, row, col + 1);
    }
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
    grid->setColumnMinimumWidth(2, 24);
    layout->addLayout(grid);

    if (!gpu.usable && !gpu.unusableReason.empty()) {
        auto *reason = makeHint(card);
        reason->setObjectName(QStringLiteral("gpuReason"));
        reason->setText(QString::fromStdString(gpu.unusableReason));
        layout->addWidget(reason);
    }
    return card;
}

void DevicePage::startBenchmark()
{
    if (m_session.benchmarkRunning())
        return;
    m_benchError->hide();
    m_benchProgress->setValue(0);
    m_benchStep->setText(tr("Starting…"));
    m_session.runBenchmark();
    updateBenchmarkState();
}

void DevicePage::showBenchmarkProgress(int percent, const QString &step)
{
    m_benchProgress->setValue(std::clamp(percent, 0, 100));
    m_benchStep->setText(step);
    updateBenchmarkState();
}

void DevicePage::showBenchmarkResults(bool ok, const QList<QPair<QString, QString>> &results, const QString &error)
{
    if (ok) {
        m_benchResults->setRowCount(int(results.size()));
        for (int row = 0; row < results.size(); ++row) {
            m_benchResults->setItem(row, 0, new QTableWidgetItem(results[row].first));
            auto *figure = new QTableWidgetItem(results[row].second);
            figure->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_benchResults->setItem(row, 1, figure);
        }
        m_benchResults->resizeRowsToContents();
        // Tall enough for every row: the page scrolls, not the table.
        int height = m_benchResults->horizontalHeader()->height() + 2 * m_benchResults->frameWidth();
        for (int row = 0; row < m_benchResults->rowCount(); ++row)
            height += m_benchResults->rowHeight(row);
        m_benchResults->setFixedHeight(height);
        m_benchResults->show();
        m_benchError->hide();
    } else {
        m_benchError->setText(tr("The benchmark failed: %1").arg(error));
        m_benchError->show();
    }
    updateBenchmarkState();
}

void DevicePage::updateBenchmarkState()
{
    const bool running = m_session.benchmarkRunning();
    m_benchButton->setEnabled(!running);
    m_benchProgress->setVisible(running);
    m_benchStep->setVisible(running);
}

} // namespace swarmtrain
