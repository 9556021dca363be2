#pragma once

#include "CoordinatorStore.h"
#include "PipelineDisputes.h"
#include "PipelineMessages.h"
#include "Result.h"

#include <QString>

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace swarmtrain {

struct PipelineStepsOptions {
    PipelineSettings settings;      // settings.stages >= 2
    std::vector<double> stageCosts; // each stage's training FLOPs a token (their ratio is what counts)
    int minPeers = 1;               // the first step waits for this many peers holding their stages
    qint64 trainTimeoutMs = 600'000; // training: a trainer that has not closed by then sits the step out
    qint64 closeTimeoutMs = 30'000;  // closing: stage peers' ready reports
    qint64 stepTimeoutMs = 120'000;  // stepping: the groups' all-reduces and steps
    qint64 rebalanceEveryMs = 30'000;
    qint64 restartGraceMs = 30'000;  // after a start, peers of the open step count as present this long
    int historySteps = 200;          // steps kept for GET /v1/status
    std::map<QString, int> placeHints; // where a peer starts, by key id (--place)
    int exportEvery = 0;             // the stages' states of every N-th step are collected for export; 0: never
    // Credit: a microbatch's tokens, and what a token of the whole model's work earns (as in
    // full-model rounds); a stage's peer earns its stage's share of stageCosts. 0: no credit.
    qint64 tokensPerMicrobatch = 0;
    double creditPerToken = 0.0;
};

// The coordinator's side of pipeline-stage mode (issue 17; DESIGN.md, "Pipeline-stage mode").
// It places each peer on a stage, and runs the swarm's optimizer steps through four phases:
//   waiting   until every stage has a peer whose state is the stage's agreed one;
//   training  the step's trainers (its stage 0 members) drive their share of the step's
//             microbatches through the stages, peer to peer, and report "closed";
//   closing   every other member says whether it holds each closed trainer's count ("ready");
//             the trainers replay the work of a member that sits the step out on its stage's
//             ready members;
//   stepping  each group (stage 0 with the last stage, for the tied embedding; each middle stage
//             alone) of ready members averages its gradients and steps; each member reports its
//             parameters' hash, and the hash most of a stage's replicas report becomes that stage's
//             agreed state.
// A peer whose state is not its stage's agreed one (new, restarted, moved, or disagreeing) is told
// which member to take the state from, and joins the next step once it holds it. Members that go
// offline are left out of the phase they hold up. Every few steps the rebalancer
// (scheduler::chooseStageMove, SWARM's rule with Petals' 0.75 hysteresis) may move one peer to the
// bottleneck stage, from the stages' throughputs the peers report; a stage with no peer gets one
// at once. The placement, the agreed hashes and the open step live in the store, and each peer
// repeats its report until the step moves on, so a restarted coordinator loses no step.
class PipelineSteps {
public:
    using Clock = std::function<qint64()>;
    using Online = std::function<bool(const PeerRecord &)>;

    PipelineSteps(CoordinatorStore &store, Online online, Clock clock);

    // Turns pipeline mode on, and picks up the state a previous run of the coordinator saved.
    Result<void> start(PipelineStepsOptions options);
    bool enabled() const { return m_enabled; }
    const PipelineSettings &settings() const { return m_options.settings; }

    // POST /v1/pipeline from `peer` (known, not banned).
    Result<PipelineAnswer> handle(const PeerRecord &peer, const PipelineRequest &request);
    // Takes the transitions that are due (the coordinator's ticker, and every request).
    Result<void> advance();
    PipelineStatus status() const;
    // Called when a step's disputes name a lying range owner (PipelineDisputes.h).
    using LyingOwner = std::function<void(const QString &keyId, const QString &detail)>;
    void setOnLyingOwner(LyingOwner found) { m_onLyingOwner = std::move(found); }
    // ...and when trainers' closes name a stage peer as caught answering wrong (PipelineDisputes::accuse).
    void setOnWrongAnswers(LyingOwner found) { m_onWrongAnswers = std::move(found); }

    // The export's collection of the stages' agreed states (PipelineStepsExport.cpp). What an
    // upload of `stage` by `peerId` must be: the step's agreed state, when that peer was asked.
    struct StageStateWanted {
        qint64 step = 0; // steps done: the published round
        QString hash;
    };
    std::optional<StageStateWanted> stageStateWanted(const QString &peerId, int stage) const;
    // A checked upload of `step`'s `stage` was kept; true when every stage's now is.
    bool stageStateTaken(qint64 step, int stage);
    // `peerId`'s upload did not check out: it is asked no more in this collection.
    void stageStateRefused(const QString &peerId, int stage);

private:
    struct Closed {
        int microbatches = 0;
        int dropped = 0;
        double lossSum = 0.0;
        double evalLoss = -1.0;
        std::map<QString, int> servedBy; // the trainer's word: stage peer -> its microbatches it served
    };
    struct Stepped {
        bool ok = false;
        QString hash;
        int microbatches = 0;
        bool incomplete = false; // its group's all-reduce lacked a vanished member's work
        bool inAverage = false;  // gone before it reported, its work in what its group applied
    };
    // What a peer said in its latest request (not saved: every peer says it again within a second).
    struct View {
        int stage = -1;
        qint64 stateSteps = 0;
        QString hash;
    };
    struct Step {
        qint64 number = 0;
        QString phase = QStringLiteral("waiting");
        qint64 phaseSinceMs = 0;
        // Closing: when a member of a stage still closing last served microbatches (a replay of a
        // vanished peer's work running on it). The close timeout counts from the later of this
        // and the phase's start: on a busy machine a replay may take longer than the timeout,
        // and a stage given up while its work still arrives would apply none of the step.
        qint64 progressMs = 0;
        std::map<QString, int> members; // peer -> stage
        std::map<QString, int> shares;  // trainer -> microbatches to drive
        std::map<QString, Closed> closed;
        std::map<QString, int> ready; // peer -> the step's microbatches it holds
        std::set<QString> unready; // sitting the step out: they said so, or said nothing in time
        std::set<QString> named;   // stage peers named for wrong answers in this step: no credit for it
        std::vector<QStringList> groups; // of the attempt
        std::map<QString, Stepped> stepped;
        // A group whose all-reduce lost a member's work steps again (protocol::kMaxStepAttempts):
        // the attempt, and the stages that close and step again in it (empty: all).
        int attempt = 0;
        std::set<int> redo;
        bool inAttempt(int stage) const { return redo.empty() || redo.contains(stage); }
    };

    // The swarm's peers, read from the store at most once a second, with `fresh` (the requester's
    // record as it is now) in place of its stored one.
    Result<const std::vector<PeerRecord> *> peers(const PeerRecord *fresh);
    void record(const PeerRecord &peer, const PipelineRequest &request);
    bool take(const QString &peerId, const PipelineRequest &request);
    Result<void> advanceWith(const std::vector<PeerRecord> &peers);
    void finishTraining();
    // Closing, stage by stage: the counts its ready members hold, and who has not said.
    struct Closing {
        int issued = 0; // the closed trainers' microbatches
        std::vector<int> held, readyCount;
        std::vector<bool> lostMember; // gone, sitting the step out, or lost on an earlier attempt
        std::vector<QString> silent;  // online members yet to say
        bool awaitsReplay(std::size_t stage) const; // ready members, short of the step's work
    };
    Closing closing(const std::map<QString, const PeerRecord *> &online) const;
    bool closingDone(const std::map<QString, const PeerRecord *> &online) const;
    bool leaveOutSilentMembers(const std::map<QString, const PeerRecord *> &online);
    void finishClosing(const std::map<QString, const PeerRecord *> &online);
    // Steps the groups that lost a member's work again, if the step has an attempt left.
    bool redoIncompleteGroups(const std::map<QString, const PeerRecord *> &online);
    void creditSilentMembers();
    // A closed trainer's word on which stage peers served its microbatches (Closed::servedBy),
    // when it can be true; whether it changed.
    bool takeServedBy(const QString &trainer, const std::map<QString, int> &servedBy);
    // Credits the members of the finished step whose stage applied it with the microbatches they
    // served (PipelineStepsClose.cpp); what they earned, all together.
    double creditStep(qint64 step);
    int stageOf(const QString &peerId) const; // in the open step, or where it is placed
    void finishStep(const std::vector<PeerRecord> &peers);
    void tryOpen(qint64 number, const std::vector<PeerRecord> &peers);
    void rebalance(const std::vector<const PeerRecord *> &placedOnline, bool emptyStage);
    int placeNewcomer(const std::vector<PeerRecord> &peers) const;
    bool synced(const QString &peerId, int stage) const;
    void adoptLostStates(const std::vector<const PeerRecord *> &placedOnline);
    QString resyncSource(const QString &peerId, const std::vector<PeerRecord> &peers) const;
    std::vector<double> stageRates(const std::vector<PeerRecord> &peers) const;
    PipelineAnswer answerFor(const PeerRecord &peer, const std::vector<PeerRecord> &peers) const;
    void setPhase(const QString &phase);
    // Starts collecting the stages' states of a finished step due for export, or of this one
    // when the last collection is not whole.
    void collectStageStates(qint64 finishedStep);
    // The agreed hash `peerId` is to upload its stage's state at (PipelineAnswer::uploadState), or "".
    QString askForStageState(const QString &peerId);
    Result<void> save();
    Result<void> load();

    CoordinatorStore &m_store;
    Online m_online;
    Clock m_clock;
    PipelineStepsOptions m_options;
    bool m_enabled = false;
    bool m_dirty = false;
    bool m_historyDirty = false; // a step finished since the history was saved
    std::vector<PeerRecord> m_peers;
    qint64 m_peersReadMs = -1;

    std::map<QString, int> m_placement;  // peer -> stage
    std::vector<QString> m_agreed;       // by stage: the hash of its agreed state; "" before the first step
    std::map<QString, double> m_rates;   // peer -> microbatches a second its stage computes (EMA)
    std::map<QString, int> m_rateReports; // peer -> rate reports since the last move (not saved)
    qint64 m_lastRebalanceMs = 0;
    qint64 m_startedMs = 0;
    Step m_step;
    std::deque<PipelineStatus::Step> m_history;
    std::map<QString, View> m_views;
    PipelineDisputes m_disputes;
    std::map<QString, PipelineAnswer::Credited> m_credited; // the last finished step's members (not saved)
    LyingOwner m_onLyingOwner;
    LyingOwner m_onWrongAnswers;
    struct StateCollection {
        qint64 step = -1;                // steps done at the states collected; -1: none
        std::vector<QString> hashes;     // by stage: the step's agreed ones
        std::set<int> held;              // stages whose upload was checked and kept
        std::map<int, std::pair<QString, qint64>> asked; // stage -> the member asked, and when
        std::set<QString> refused;       // members whose upload did not check out
    };
    StateCollection m_collection; // not saved: a restarted coordinator collects at the next due step
};

} // namespace swarmtrain
