#pragma once

// PipelineDriver's own records of a microbatch's way through the pipeline, shared by its source
// files (PipelineDriver.cpp, PipelineCrossChecks.cpp); nothing else includes this.
#include "PipelineDriver.h"

#include <QTimer>

namespace swarmtrain {

using Clock = HopChooser::Clock;

// A stage peer's answer to a cross-checked hop, decoded: what the next answer is compared with.
struct PipelineDriver::Answer {
    QString peer;
    QByteArray payload;
    double loss = 0.0; // the last stage's backward
    std::vector<float> values;
};

// One request for a microbatch at one stage, and its tries: the microbatch's way through the
// pipeline, or the replay of a backward that a vanished peer had confirmed.
struct PipelineDriver::Hop {
    std::uint64_t id = 0;
    int stage = 1;
    bool backward = false;
    bool replay = false;
    QString peer; // the peer asked now; empty while none is
    std::uint32_t attempt = 0;
    Clock::time_point sentAt;
    QStringList tried; // peers this hop failed on
    std::unique_ptr<QTimer> timer;
    bool checked = false;        // cross-checked: answers of two peers compared before one is used
    std::vector<Answer> answers; // of a checked hop, so far
    int waits = 0;               // for a peer to decide a mismatch
};

struct PipelineDriver::Flight {
    Microbatch batch;
    std::vector<QByteArray> inputs;   // [s]: stage s's input as it went over the wire (s >= 1)
    std::vector<QByteArray> gradOuts; // [s]: the gradient of stage s's output as sent (s < S - 1)
    std::vector<QString> confirmedAt; // [s]: the peer whose backward at stage s counts
    double loss = 0.0;
    bool done = false;
    QSet<QString> servedBy;           // peers whose answers it used (all taken back should one be caught)
    std::uint64_t generation = 0;     // runs from stage 1 (restart())
    Hop hop;                          // the way through; idle once done

    // The microbatch's id on the wire and in the stages' keys: its id, and above it the run, so
    // a late answer of an earlier run (and its cancellation) never touches this run's gradient.
    static constexpr int kRunShift = 48;
    std::uint64_t wireId() const { return hop.id | (generation << kRunShift); }
};

} // namespace swarmtrain
