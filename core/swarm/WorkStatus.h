#pragma once

#include <QMetaType>
#include <QString>

namespace swarmtrain {

// What the swarm worker is doing, for the tray, the dashboard and --headless.
enum class WorkState {
    Starting,
    Joining,     // reaching the coordinator (and retrying while it cannot be reached)
    Downloading, // the global state or data shards
    Training,    // inner steps
    Waiting,     // trained; waiting for the round to start
    Averaging,   // the all-reduce
    Paused,
    Stopping,
    Stopped,
    Failed,
};

// The state in one lowercase word, for scripts (swarmtrain-cli status --json).
inline const char *workStateKey(WorkState state)
{
    switch (state) {
    case WorkState::Starting: return "starting";
    case WorkState::Joining: return "joining";
    case WorkState::Downloading: return "downloading";
    case WorkState::Training: return "training";
    case WorkState::Waiting: return "waiting";
    case WorkState::Averaging: return "averaging";
    case WorkState::Paused: return "paused";
    case WorkState::Stopping: return "stopping";
    case WorkState::Stopped: return "stopped";
    case WorkState::Failed: return "failed";
    }
    return "unknown";
}

struct WorkStatus {
    WorkState state = WorkState::Starting;
    QString detail;            // why, in words for the person (translated)
    qint64 round = 0;          // the round the replica is in
    qint64 innerStepsDone = 0; // of this round
    qint64 innerSteps = 0;
    double tokensPerSecond = 0.0; // of every device training (WorkerGroup)
    int workers = 1;              // devices training, each a peer with a copy of its own (WorkerGroup)
    // A time-budgeted round (issue 18): its compute budget (0: H steps), and the last round's
    // steps this PC fitted in and its utilisation (RoundReport::utilisation).
    double budgetSeconds = 0.0;
    qint64 lastRoundSteps = 0;
    double lastRoundUtilisation = 0.0;
    // Pipeline-stage mode (issue 17): the stage served (0-based; -1: a whole copy) of how many,
    // microbatches computed there, and its throughput next to the slowest stage's (a second).
    int pipelineStage = -1;
    int pipelineStages = 0;
    qint64 microbatchesServed = 0;
    double microbatchesPerSecond = 0.0; // computed here lately
    double stageThroughput = 0.0;
    double bottleneckThroughput = 0.0;
};

// What this PC trains, in words for the person (translated): "Full model", "Pipeline stage 2 of
// 4", or not placed yet. The window's dashboard and swarmtrain-cli status say the same.
QString describeMode(const WorkStatus &status);

// One finished round, as this peer saw it.
struct RoundReport {
    qint64 round = 0;
    int members = 0;
    double loss = 0.0;   // mean inner-step loss
    qint64 tokens = 0;
    double flops = 0.0;
    double computeSeconds = 0.0;
    double averagingSeconds = 0.0; // the all-reduce, from its start to the average in hand
    qint64 steps = 0;              // inner steps this PC fitted into the round
    double budgetSeconds = 0.0;    // the round's compute budget (0: fixed H steps)
    // Training time over wall time, from the round's first step to its average in hand: compute
    // and the duty cycle's rests between steps, so waiting and averaging are what it lacks.
    double utilisation = 0.0;
    qint64 bytesUp = 0;  // this round: data plane and coordinator
    qint64 bytesDown = 0;
    int skippedRanges = 0;
    int rejectedPieces = 0;
    QString paramsHash;
    bool accepted = false; // the coordinator's verdict, if it came with the contribution
    bool verdictKnown = false;
    double credit = 0.0;
    bool uploadedState = false;
    // Pipeline-stage mode: `round` is the optimizer step; the stage stepped and the microbatches
    // its step counted here.
    int pipelineStage = -1;
    int pipelineStages = 0;
    int microbatches = 0;
};

} // namespace swarmtrain

Q_DECLARE_METATYPE(swarmtrain::WorkStatus)
Q_DECLARE_METATYPE(swarmtrain::RoundReport)
