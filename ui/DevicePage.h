#pragma once

#include "GpuProbe.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QWidget>

#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QVBoxLayout;

namespace swarmtrain {

class ClientSession;

// The Device page: the GPUs the probe found (memory, temperature, utilization, driver, and
// whether this build can train on each, or why not), and the device benchmark with its
// progress and results. Probing and the benchmark run in the session, off the GUI thread.
class DevicePage : public QWidget {
    Q_OBJECT

public:
    explicit DevicePage(ClientSession &session, QWidget *parent = nullptr);

    void refresh(); // probes the GPUs again

protected:
    void showEvent(QShowEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void showGpus(const GpuReport &report);
    QWidget *makeGpuCard(const GpuInfo &gpu);
    void rebuildGpuList();
    void startBenchmark();
    void showBenchmarkProgress(int percent, const QString &step);
    void showBenchmarkResults(bool ok, const QList<QPair<QString, QString>> &results, const QString &error);
    void updateBenchmarkState();

    ClientSession &m_session;
    std::optional<GpuReport> m_report; // nullopt: not probed yet
    bool m_probing = false;

    QLabel *m_gpuTitle = nullptr;
    QLabel *m_gpuSummary = nullptr;
    QPushButton *m_refresh = nullptr;
    QWidget *m_gpuList = nullptr;
    QVBoxLayout *m_gpuListLayout = nullptr;
    QLabel *m_warnings = nullptr;

    QLabel *m_benchTitle = nullptr;
    QLabel *m_benchHint = nullptr;
    QPushButton *m_benchButton = nullptr;
    QProgressBar *m_benchProgress = nullptr;
    QLabel *m_benchStep = nullptr;
    QLabel *m_benchError = nullptr;
    QTableWidget *m_benchResults = nullptr;
};

} // namespace swarmtrain
