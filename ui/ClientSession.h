#pragma once

#include "ControlMessages.h"
#include "GpuProbe.h"
#include "Invite.h"
#include "Preferences.h"
#include "Result.h"
#include "StatsRecords.h"
#include "ThrottleMonitor.h"
#include "WorkerGroup.h"
#include "WorkStatus.h"

#include <QList>
#include <QObject>
#include <QPair>
#include <QPointF>
#include <QString>
#include <QThreadPool>
#include <QVector>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

class QSettings;
class QTimer;

namespace swarmtrain {

class Autostart;
struct CoordinatorClientOptions;
class Identity;
class EmbeddedCoordinator;
struct CoordinatorConfig;

// What the tray icon shows.
enum class SessionIcon { Active, Paused, Error };

// The client's state as the window and the tray show it.
struct SessionState {
    SessionIcon icon = SessionIcon::Paused;
    QString headline;        // "Contributing", "Paused: on battery", "Waiting for the next round", "Not in a swarm", an error
    QString detail;          // what the worker does ("Training round 12"), translated
    WorkStatus work;
    ThrottleDecision decision;
    bool joined = false;
    QString mode;            // "Full model" (ATOM + DiLoCo); the pipeline-stage mode will add "Stage N of M"
};

// The swarm as the coordinator's GET /v1/status describes it, polled while joined.
struct SwarmSnapshot {
    bool reachable = false;
    QString error;           // why it was not reachable
    qint64 round = 0;
    int peers = 0;
    QString model;           // "GPT, 4 layers x 128, 0.8 M parameters"
    QVector<QPointF> validationLoss; // (round, loss); a pipeline swarm's: (step, loss)
    // The losses above are bits per byte of the validation text (the coordinator says how many
    // tokens a byte is), not nats per token: comparable across tokenizers.
    bool bitsPerByte = false;
    // A pipeline-stage swarm's stages (empty in a full-model swarm): the peers online on each and
    // the microbatches a second it can serve; the slowest, -1 while unknown.
    struct Stage {
        int peers = 0;
        double microbatchesPerSecond = 0.0;
    };
    QVector<Stage> stages;
    int bottleneck = -1;
    // The newest model the coordinator published (GET /v1/model; empty when it publishes none):
    // its round and files, each with its address on the coordinator.
    struct Download {
        QString name; // "model.gguf", "hf/config.json", ...
        QString url;
        qint64 bytes = 0;
    };
    qint64 publishedRound = -1;
    qint64 publishedTokens = -1; // the tokens the swarm had trained by then (-1: not said)
    QVector<Download> downloads;
    // The peers with most credit, highest first, as the coordinator ranks them (rank = index + 1).
    std::vector<StatusAnswer::Leader> leaderboard;
    QString ownPeerId; // this PC's key id, to find its row; "" before its identity exists
};

// What this PC has contributed (StatsStore), for the dashboard.
struct ContributionSummary {
    StatsTotals totals;
    std::vector<DailyStats> days; // the last 30 days, oldest first
};

// The desktop client below its widgets: the swarm worker, throttling, preferences, the record
// of contributions, GPU probing and the benchmark, and hosting a swarm. The window, its pages
// and the tray only call this and follow its signals, so they never block on training, disk
// or network: slow work runs on other threads and comes back as queued signals.
class ClientSession : public QObject {
    Q_OBJECT

public:
    struct Options {
        std::filesystem::path stateDir;              // identity, replica, shards, stats.db, hosted swarm
        QSettings *settings = nullptr;               // not owned; preferences live here
        ThrottleSources sources;                     // makePlatformThrottleSources(), or a test's fakes
        std::vector<std::string> gpuProbeCommand;    // a child that runs runGpuProbeChild (swarmtrain --gpu-probe-child)
        WorkerOptions worker;                        // device, listen address, threads; swarm and state dir are set here
        std::vector<std::string> devices;            // the GPU choice "Automatic": --device's list; empty: worker.device
        std::chrono::milliseconds swarmPollInterval{10000};
        std::shared_ptr<Autostart> autostart;        // makeAutostart(); null: "start at login" is only remembered (tests)
        // Stand-ins for a PC with CUDA GPUs (tests): how many GPUs CUDA sees (-1: ask LibTorch), and
        // the device a worker on CUDA's N-th GPU trains on (%1: N; tests give "cpu").
        int cudaDevices = -1;
        QString cudaDeviceSpec = QStringLiteral("cuda:%1");
    };

    explicit ClientSession(Options options, QObject *parent = nullptr);
    ~ClientSession() override; // leaves the swarm and waits for the worker

    // Starts polling and, when the preferences name a swarm, joins it.
    void start();

    // The Swarm page: a coordinator URL or an invite link (its pin is then required).
    Result<void> join(const QString &urlOrInvite);
    void leave();
    bool joined() const;
    Invite swarm() const;
    // Plain http:// to another computer: --allow-plain-http, or the Swarm page's setting.
    bool plainHttpAllowed() const;

    // "Host a swarm on this PC": an embedded coordinator (self-signed TLS) training `config`;
    // hostingChanged() brings the invite link, then this client joins it.
    void hostSwarm(const CoordinatorConfig &config);
    void stopHosting();
    bool hosting() const;
    QString inviteLink() const;

    // The tray and the dashboard. nullopt: until resume().
    void pause(std::optional<std::chrono::seconds> duration = std::nullopt);
    void resume();
    // Pauses and gives the GPU's memory back, until resume() (swarmtrain-cli release).
    void release();
    bool released() const { return m_manualRelease; }
    // Leaves the swarm (saving the replica), then emits readyToQuit(). A coordinator that does not
    // answer is given kQuitGrace to hear the goodbye, then given up with a log line.
    void quit();
    static constexpr std::chrono::milliseconds kQuitGrace{600};

    const SessionState &state() const { return m_state; }
    Preferences preferences() const { return m_preferences; }
    void setPreferences(const Preferences &preferences); // saved and applied at once
    ThrottleMonitor &throttle() { return *m_throttle; }
    const std::filesystem::path &stateDir() const { return m_options.stateDir; }

    // The Device page; answers come as gpusProbed() and benchmark*().
    void probeGpus();
    void runBenchmark();
    bool benchmarkRunning() const { return m_benchmarkRunning; }

    // Re-reads stats.db (off the GUI thread); answers with contributionsUpdated().
    void refreshContributions();

    // The Model page: fetches the swarm's current state, pauses training while the model
    // continues `prompt` on the processor (a few seconds), and resumes it. The text comes as
    // generatedText() pieces, then generationFinished().
    void generate(const QString &prompt, int maxTokens = 120);
    bool generating() const { return m_generating; }

Q_SIGNALS:
    void stateChanged(const swarmtrain::SessionState &state);
    void roundFinished(const swarmtrain::RoundReport &report);
    void contributionsUpdated(const swarmtrain::ContributionSummary &summary);
    void swarmUpdated(const swarmtrain::SwarmSnapshot &snapshot);
    void gpusProbed(const swarmtrain::GpuReport &report);
    void benchmarkProgress(int percent, const QString &step);
    // `results`: (what, figure) pairs in words, e.g. ("Matrix product, fp32", "1.2 TFLOP/s").
    void benchmarkFinished(bool ok, const QList<QPair<QString, QString>> &results, const QString &error);
    void hostingChanged(bool hosting, const QString &invite, const QString &error);
    void readyToQuit();
    void generatedText(const QString &text);
    void generationFinished(bool ok, const QString &summary);
    // After setPreferences(): the app switches the language from here.
    void preferencesChanged(const swarmtrain::Preferences &preferences);

private:
    // Starts a worker per device the GPU choice names (GpuChoice.h), after a probe if it needs one.
    void startWorker();
    // Tells the worker to leave and lets it finish on its own thread (never waited for here);
    // a worker for the next swarm starts once it has gone.
    void retireWorker();
    void workerGone(WorkerGroup *worker, bool ok, const QString &message);
    void applyDecision(const ThrottleDecision &decision);
    void updateState();
    void pollSwarm();
    // Measures the state folder against the person's disk limit (off the GUI thread).
    void checkDiskUse();

    Options m_options;
    Preferences m_preferences;
    std::unique_ptr<ThrottleMonitor> m_throttle;
    std::unique_ptr<WorkerGroup> m_worker;
    std::unique_ptr<WorkerGroup> m_retiring; // leaving the previous swarm, or training on other GPUs
    bool m_startAfterRetiring = false;
    bool m_movingDevices = false; // retiring the workers to start them on other devices
    bool m_manualRelease = false;
    std::unique_ptr<EmbeddedCoordinator> m_hosted;
    QString m_inviteLink;
    SessionState m_state;
    QTimer *m_swarmTimer = nullptr;
    bool m_benchmarkRunning = false;
    std::optional<GpuReport> m_gpuReport; // the last probe's
    bool m_startAfterProbe = false;       // the GPU choice needs a probe before the worker starts
    bool m_quitting = false;
    QString m_lastError;
    QThreadPool m_pool; // probing, the benchmark, stats and swarm status; waited for on destruction
    bool m_swarmPollRunning = false;
    QString m_ownPeerId; // read from the worker's identity file once it exists
    std::shared_ptr<const Identity> m_statusIdentity; // signs nothing; CoordinatorClient wants one
    bool m_generating = false;

    // m_statusIdentity, made on first use; null (with a log line) when no key can be made.
    std::shared_ptr<const Identity> statusIdentity();
    CoordinatorClientOptions swarmClientOptions(int attempts, int timeoutMs) const;
    void finishGeneration(bool ok, const QString &summary);
};

} // namespace swarmtrain

Q_DECLARE_METATYPE(swarmtrain::SessionState)
Q_DECLARE_METATYPE(swarmtrain::SwarmSnapshot)
Q_DECLARE_METATYPE(swarmtrain::ContributionSummary)
Q_DECLARE_METATYPE(swarmtrain::Preferences)
