#pragma once

#include "CoordinatorConfig.h"
#include "CoordinatorRounds.h"
#include "CoordinatorSetup.h"
#include "HttpLimits.h"
#include "LinkBook.h"
#include "PipelineSteps.h"
#include "Reputation.h"
#include "RateLimiter.h"
#include "ScheduleService.h"
#include "StateValidation.h"
#include "Verification.h"

#include <QObject>

#include <functional>

namespace swarmtrain {

struct CoordinatorServerOptions {
    TrainingSettings training;
    RoundSettings rounds;
    qint64 maxJsonBytes = 1 << 20;
    qint64 maxClockSkewMs = 60'000;
    int probeTimeoutMs = 2000;
    int evalIters = 10;
    ModelExportSettings exports;
    int tickMs = 1000; // how often deadlines and gather timeouts are checked; 0: never (tests)
    LinkBookOptions links;
    ScheduleOptions schedule;
    bool bandwidthRanges = true; // the all-reduce's ranges in proportion to each owner's bandwidth
    TrustSettings trust;
    HttpLimits http;
    // Full-model, pipeline-stage or chosen at start (issue 17); pipeline.stages comes from
    // schedule.stages (--stages, 0: chosen from the model and the peers' memory).
    CoordinatorConfig::Mode mode = CoordinatorConfig::Mode::Full;
    std::int64_t typicalPeerMemoryBytes = std::int64_t(8) << 30;
    PipelineSettings pipeline;
    qint64 rebalanceEveryMs = 30'000;
    std::map<QString, int> placeHints;
    // Generous: a peer heartbeating every second, with its round and upload calls, is far below.
    RateLimit ratePerAddress{50, 200};
    RateLimit ratePerKey{20, 80};
    // Several instances on one database (--store postgresql://...): signed requests are checked
    // for replays against the requests every instance saw, and counted against the rate limit
    // per key in the database, not only this one's.
    bool sharedStore = false;

    static CoordinatorServerOptions from(const CoordinatorConfig &config, qint64 parameterCount);
};

// What the endpoint groups share: the swarm's state dir, its store and rounds, the options, the
// clock, the validation of new states, the links peers measured and the schedule made of them,
// the verification of contributions, and the server (whose thread runs probes and timers).
struct CoordinatorContext {
    QObject *server;
    CoordinatorSetup &setup;
    CoordinatorStore &store;
    CoordinatorRounds &rounds;
    const CoordinatorServerOptions &options;
    std::function<qint64()> clock;
    StateValidation &validation;
    LinkBook &links;
    ScheduleService &schedule;
    Reputation &reputation;
    Verification &verification;
    PipelineSteps &pipeline; // enabled in a pipeline-stage swarm
};

} // namespace swarmtrain
