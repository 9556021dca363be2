#pragma once

#include "ActivationWire.h"
#include "Frame.h"
#include "Misbehaviour.h"
#include "PipelineStage.h"

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>

#include <cstddef>
#include <cstdint>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QTimer;

namespace swarmtrain {

class PeerTransport;
class StageWorker;

struct StageServerSettings {
    int stage = 1;           // the pipeline stage this peer serves (never 0: trainers run their own)
    int stageCount = 2;      // S: the last stage computes the loss
    WirePrecision precision = WirePrecision::Int8; // the swarm's; a request in another is refused
    int maxBatch = 64;       // sequences a microbatch may have
    int maxQueued = 8;       // requests waiting for the stage; more are refused as busy
    int offencesBeforeBan = 3;
    // A peer is sent the stage's state (parameters and moments, 12 bytes a parameter) at most
    // once in this many milliseconds: asking again sooner is refused as busy.
    int stateIntervalMs = 10'000;
    // The state goes in pieces of this size, as the connection's write buffer drains; to at most
    // maxStateSends peers at once (each holds a copy of the state here until it is sent).
    qsizetype statePieceBytes = 16 << 20;
    int maxStateSends = 2;
    // A resync that has not taken the whole state this long after it asked ends as failed (a
    // neighbour that stalls halfway): resyncBaseMs, plus the state's size at resyncMinBytesPerSecond.
    int resyncBaseMs = 60'000;
    double resyncMinBytesPerSecond = 4 << 20;
    Misbehaviour misbehaviour; // the adversary tests' hostile client only (stageAnswer)
};

// Serves one pipeline stage to the swarm's trainers over PeerTransport (issue 17): runs their
// STAGE_REQUESTs on the stage's own thread and answers each with a STAGE_REPLY, and applies their
// STAGE_VERDICTs. Every request is checked before anything is computed or allocated beyond the
// frame: the stage asked, the microbatch's shape (batch <= maxBatch, tokens <= the block), the
// precision, the payload's exact length and every value finite. A request that fails the checks
// is refused and counted against its sender, who is disconnected and refused from then on at
// offencesBeforeBan. A request for another stage, or one over maxQueued, is refused with no
// offence (a stale placement, a busy peer). A microbatch is filed under its trainer's key id,
// so no peer can confirm or cancel another's.
class StageServer : public QObject {
    Q_OBJECT

public:
    StageServer(PeerTransport &transport, std::unique_ptr<PipelineStage> stage, StageServerSettings settings,
                QObject *parent = nullptr);
    ~StageServer() override;

    const StageServerSettings &settings() const { return m_settings; }
    int offences(const QString &peerKeyId) const { return m_offences.value(peerKeyId); }
    bool isBanned(const QString &peerKeyId) const { return m_banned.contains(peerKeyId); }
    // Requests answered, and backward gradients confirmed, since the start.
    qint64 served() const { return m_served; }
    qint64 confirmed() const { return m_confirmed; }
    // Backward gradients taken back (cancelled, or revoked once confirmed) since the start.
    qint64 takenBack() const { return m_takenBack; }
    // Every one of `trainers` closed `step` here, and the count each said it confirmed here is
    // the count this stage holds of it: the stage may join the step's all-reduce. Then the
    // step's microbatches held (the counts' sum); nothing otherwise.
    std::optional<int> readyForStep(quint64 step, const QStringList &trainers) const;
    StageWorker &worker() { return *m_worker; }

    // Asks `neighbourKeyId`, a connected peer of the same stage, for its training state and
    // takes it (a replica whose hash disagreed, or a peer moved to this stage); resynced says
    // how it ended. Nothing changes when the answer is refused or fails the checks.
    void resyncFrom(const QString &neighbourKeyId);

Q_SIGNALS:
    // A request was answered (the pass: forward or backward).
    void requestServed(const QString &trainerKeyId, bool backward);
    void offence(const QString &peerKeyId, const QString &reason);
    // A trainer closed `step`; `agrees`: this stage holds the count of its microbatches it said.
    void trainerClosed(quint64 step, const QString &trainerKeyId, bool agrees);
    void peerBanned(const QString &peerKeyId);
    // `hash` of the parameters taken, or `why` not.
    void resynced(bool ok, const QString &hashOrWhy);

private:
    void onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload);
    void onRequest(const QString &peerKeyId, const wire::StageWork &work, const QByteArray &payload);
    void onVerdict(const QString &peerKeyId, const wire::StageWork &work);
    void onClose(const QString &peerKeyId, const wire::StageWork &work);
    void onStateRequest(const QString &peerKeyId, const wire::StageWork &work);
    void onStateAnswer(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload);
    // Sends what the write buffer takes of the state going to `peerKeyId`; the rest when it drains.
    void sendStatePieces(const QString &peerKeyId);
    void endResync(bool ok, const QString &hashOrWhy);
    void refuse(const QString &peerKeyId, const wire::StageWork &work, const QString &reason, bool busy = false);
    void countOffence(const QString &peerKeyId, const wire::StageWork &work, const QString &reason);
    void reply(const QString &peerKeyId, wire::StageWork work, const std::vector<float> &values, double loss);
    bool lastStage() const { return m_settings.stage == m_settings.stageCount - 1; }

    PeerTransport &m_transport;
    StageServerSettings m_settings;
    ModelConfig m_config;
    std::unique_ptr<StageWorker> m_worker;
    QHash<QString, int> m_offences;
    QSet<QString> m_banned;
    // Each trainer's latest close: the step, and its count here if it agreed (-1 if not). One
    // entry a trainer, so no sender can push another's close out.
    QHash<QString, std::pair<quint64, qint64>> m_lastClose;
    QHash<QString, qint64> m_lastStateSent; // peer -> when it was last sent the state (ms, monotonic)
    struct StateSend {
        wire::StageWork work;
        std::shared_ptr<const std::vector<std::byte>> state;
        qsizetype sent = 0;
    };
    QHash<QString, StateSend> m_stateSends; // peer -> the state on its way there
    QString m_resyncFrom;                   // the neighbour asked for its state; empty when none is
    QByteArray m_resyncState;               // its pieces so far
    QTimer *m_resyncDeadline = nullptr;
    std::uint32_t m_resyncAttempt = 0;
    qint64 m_served = 0;
    qint64 m_confirmed = 0;
    qint64 m_takenBack = 0;
};

} // namespace swarmtrain
