#pragma once

#include "ActivationWire.h"
#include "Frame.h"
#include "HopChooser.h"
#include "PipelineStage.h"
#include "Result.h"

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <vector>

class QTimer;

namespace swarmtrain {

class PeerTransport;
class StageWorker;

struct PipelineDriverSettings {
    int stageCount = 2; // S: the driver runs stage 0 itself
    WirePrecision precision = WirePrecision::Int8;
    HopChooserSettings hops;
    // How long to wait before trying a stage again when none of its peers can take a microbatch
    // (all backing off, or all tried for it already).
    std::chrono::milliseconds retryWait{200};
    // Bad answers (wrong size, not finite, outvoted in a cross-check) before the driver stops
    // using a peer.
    int offencesBeforeBan = 3;
    // Cross-checks (PipelineCrossChecks.cpp): this share of hops goes to a second peer of the
    // stage too, and the two answers are compared; where they differ by more than
    // crossCheckTolerance (relative L2), a third peer decides. 0: no hop is checked.
    double crossCheckShare = 0.1;
    double crossCheckTolerance = 0.05;
    // With cross-checks on, each peer's answers are all checked until this many of them agreed
    // with another peer's: a peer that lies from the start is caught at its first wrong answer.
    int probationAnswers = 16;
    std::uint64_t seed = std::random_device{}();
};

// One microbatch a trainer drives through the pipeline.
struct Microbatch {
    std::uint64_t id = 0; // below 2^48 (the bits above are the run's on the wire)
    std::uint64_t step = 0; // the optimizer step it counts toward
    MicrobatchShape shape;
    std::vector<std::int32_t> tokens;
    std::vector<std::int32_t> targets;
};

// The trainer's side of pipeline-stage mode (SWARM, issue 17): a peer of stage 0 runs its own
// stage and drives each microbatch forward through stages 1..S-1 and backward again, choosing
// every hop among the stage's connected peers with a HopChooser. It keeps each stage's input and
// output gradient as they went over the wire until the step closes, so
//  - a hop that fails (refused, timed out, a peer gone, an answer that fails the checks) is
//    replayed on another peer of the same stage;
//  - a backward's gradient is confirmed to the one peer whose answer was used and cancelled at
//    any other that ran it;
//  - when a peer that confirmed backwards of a step goes away, they are replayed on another peer
//    of its stage, and taken back from it if it comes back;
//  - a share of hops is cross-checked: run on two peers of the stage and compared, a third
//    deciding a mismatch. A peer outvoted so is caught: every microbatch of a step not forgotten
//    that used an answer of its is taken back at every stage and run again, its later hops are
//    all checked, and it is dropped at offencesBeforeBan;
// so each stage counts each microbatch once. closeStep() then tells every stage peer how many of
// its microbatches the trainer counted there, after all its other verdicts (StageServer compares).
// A closed step's microbatches are kept until forgetSteps(): a stage peer that dies after the
// close, while its stage waits to step, has its work replayed too, and the peer that took it over
// is sent its new count. Lives on the network thread.
class PipelineDriver : public QObject {
    Q_OBJECT

public:
    // `firstStage` runs stage 0 and must outlive the driver.
    PipelineDriver(PeerTransport &transport, const QString &selfKeyId, StageWorker &firstStage,
                   PipelineDriverSettings settings, QObject *parent = nullptr);
    ~PipelineDriver() override;

    // The peers the coordinator placed on `stage` (1..S-1), by key id and endpoint; the driver
    // dials those it is not connected to, and uses the connected ones.
    void setStagePeers(int stage, const QHash<QString, QString> &endpointsByKeyId);
    // Peers another trainer caught answering wrong (the coordinator's word): each of their answers
    // is cross-checked, as a peer this driver caught is, until the list no longer names them.
    void setSuspects(QSet<QString> peerKeyIds) { m_suspects = std::move(peerKeyIds); }
    // Drives `batch` forward and back; microbatchDone or microbatchFailed tells how it ended.
    void start(Microbatch batch);
    // Microbatches not done yet, and replays of confirmed backwards still running.
    int inFlight() const;
    int replaysRunning() const { return int(m_replays.size()); }
    // Closes `step`: sends every connected stage peer placed now the count of the step's
    // microbatches confirmed there. Fails while any of them or a replay of theirs is still running.
    Result<void> closeStep(std::uint64_t step);
    // The coordinator left `peerKeyId` out of closed `step` (it said it could not count the step's
    // work, or said nothing in time): its confirmed backwards are taken back from it and replayed
    // on the stage's other peers, and no hop of the step goes to it again.
    void leaveOut(std::uint64_t step, const QString &peerKeyId);
    // Forgets the microbatches of every step up to `step`: their stages step now (or stepped), so
    // work of theirs replayed from here on would count for nothing.
    void forgetSteps(std::uint64_t step);

    // Per stage peer, the step's microbatches whose backward counts there ("": none yet at some
    // stage): what it served for this trainer, which the close tells it and the coordinator.
    QHash<QString, int> confirmedCounts(std::uint64_t step) const;
    // Hops a peer answered (forward and backward), and hops retried on another peer, since the start.
    int hopsServed(const QString &peerKeyId) const { return m_served.value(peerKeyId); }
    int retries() const { return m_retries; }
    // Hops a peer at capacity refused (tried elsewhere at once, no backoff).
    int busyRefusals() const { return m_busyRefusals; }
    int replays() const { return m_replayCount; }
    // Hops cross-checked, and answers caught wrong by one, since the start.
    int crossChecks() const { return m_crossChecks; }
    int caught(const QString &peerKeyId) const { return m_caught.value(peerKeyId); }
    // Microbatches run again from stage 1 because a peer they used was caught.
    int restarts() const { return m_restarts; }
    // The id microbatch `id`'s latest run goes by on the wire and in the stages' keys (its id,
    // and the run above bit 48); 0 for a microbatch the driver does not hold.
    std::uint64_t wireIdOf(std::uint64_t id) const;
    bool isBanned(const QString &peerKeyId) const { return m_banned.contains(peerKeyId); }
    const HopChooser &chooser(int stage) const { return m_choosers.at(std::size_t(stage)); }

Q_SIGNALS:
    // Every stage has run the microbatch's backward and confirmed its gradient.
    void microbatchDone(quint64 id, double loss);
    void microbatchFailed(quint64 id, const QString &reason);
    void hopRetried(quint64 id, int stage, const QString &failedPeerKeyId, const QString &reason);
    // A cross-check outvoted `peerKeyId`'s answer at `stage`: it returned wrong results.
    void peerCaught(const QString &peerKeyId, int stage, const QString &why);

private:
    struct Hop;
    struct Flight;
    struct Answer;

    void sendHop(Hop &hop);
    void onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload);
    void onReply(Hop &hop, const QString &peerKeyId, const wire::StageWork &work, const QByteArray &payload);
    void failHop(Hop &hop, const QString &reason, bool offence);
    void countOffence(const QString &peerKeyId);
    // A peer gone or dropped: its hops go elsewhere, its confirmed backwards are replayed.
    void dropPeer(const QString &peerKeyId, const QString &reason);
    // Uses the answer `payload` of `peerKeyId` for `hop`: the next stage, pass or the end.
    void useAnswer(Hop &hop, const QString &peerKeyId, const QByteArray &payload, double loss);
    // PipelineCrossChecks.cpp: whether this hop is checked (drawn anew for each stage and pass);
    // the answer a checked hop settles on once two of its answers agree (none yet: the hop goes
    // to another peer), and in `wrong` the peers whose answers differ from it, with why.
    void decideCheck(Hop &hop);
    std::optional<Answer> settleCheck(Hop &hop, std::vector<std::pair<QString, QString>> &wrong);
    static constexpr std::size_t kMostAnswers = 4; // a checked hop gives up when no two of these agree
    // A checked hop no further peer can answer: the one answer it has stands, or, where two
    // disagree and nobody can decide, the microbatch fails.
    void settleWithoutPeer(Hop &hop);
    void catchPeer(const QString &peerKeyId, int stage, const QString &why);
    // Takes every counted gradient of the microbatch back (at a peer gone, when it returns).
    void takeBackGradients(Flight &f);
    // ...and runs it again from stage 1.
    void restart(Flight &f);
    void abandon(std::uint64_t id, const QString &reason);
    void retryElsewhere(Hop &hop);
    void sendVerdict(const QString &peerKeyId, std::uint64_t step, std::uint64_t id, bool count);
    void sendClose(const QString &peerKeyId, std::uint64_t step, int confirmed);
    void sendCloses(std::uint64_t step); // to every connected stage peer placed now
    void finishLocally(std::uint64_t id);
    // Stage 0 refused the microbatch (its own checks): it is forgotten and reported failed.
    void dropMicrobatch(std::uint64_t id, const Error &stageZero);
    void replayConfirmedAt(const QString &peerKeyId);
    void endReplay(Hop &hop);
    // Sends `peerKeyId`, connected, the verdicts that take back its backwards replayed elsewhere.
    void takeBack(const QString &peerKeyId);
    void refreshPeers(int stage);
    void redial();
    Flight *flight(std::uint64_t id);
    Hop *findHop(const QString &peerKeyId, const wire::StageWork &work);

    PeerTransport &m_transport;
    QString m_selfKeyId;
    StageWorker &m_firstStage;
    PipelineDriverSettings m_settings;
    ModelConfig m_config;
    std::vector<HopChooser> m_choosers;                // by stage; [0] unused
    std::vector<QHash<QString, QString>> m_placed;     // by stage: key id -> endpoint
    std::map<std::uint64_t, Flight> m_flights;
    std::list<Hop> m_replays;                          // confirmed backwards replayed elsewhere
    std::set<std::uint64_t> m_closed;                  // steps closed and not forgotten yet
    std::map<std::uint64_t, QSet<QString>> m_leftOut;  // step -> peers its hops no longer go to
    QHash<QString, std::set<std::pair<std::uint64_t, std::uint64_t>>> m_revoke; // (step, id) to take back from a peer when it returns
    QHash<QString, int> m_served;
    QHash<QString, int> m_offences;
    QHash<QString, int> m_caught;
    QSet<QString> m_suspects;
    QHash<QString, int> m_vouched; // answers of each peer a cross-check found right
    std::mt19937_64 m_random;
    int m_crossChecks = 0;
    int m_restarts = 0;
    QSet<QString> m_banned;
    QSet<QString> m_dialing;
    QTimer *m_redial = nullptr;
    int m_retries = 0;
    int m_replayCount = 0;
    int m_busyRefusals = 0;
};

} // namespace swarmtrain
