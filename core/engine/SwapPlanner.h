#pragma once

#include "Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace swarmtrain {

// What one stage costs, measured on the device with the training batch's shape.
struct StageCost {
    std::int64_t bytes = 0;   // device bytes while in flight: weights and their gradients
    double forwardMs = 0.0;
    double backwardMs = 0.0;
    double uploadMs = 0.0;    // host -> device copy of the weights
    double downloadMs = 0.0;  // device -> host copy of the gradients
    // The AdamW step of the parameters this stage owns (first reads), on the host and on the
    // device; the device's includes copying weights, gradients and moments there and back.
    double hostStepMs = 0.0;
    double deviceStepMs = 0.0;
    // Device bytes the stage leaves behind from its forward until its backward: under autocast
    // to bfloat16 or float16, the half-precision copy of each weight a matmul reads, which the
    // autograd graph keeps for the backward pass. At the forward/backward turn every stage's are
    // held at once, so a plan sets their sum aside from the budget.
    std::int64_t retainedBytes = 0;
};

// Where a group's optimizer step runs. Auto is a request only: a plan's groups hold Host or Device.
enum class OptimizerPlacement { Auto, Host, Device };

// A contiguous range of stages that moves to the device and back as one.
struct SwapGroup {
    int firstStage = 0;
    int lastStage = 0;
    std::int64_t bytes = 0;
    OptimizerPlacement optimizer = OptimizerPlacement::Host;
};

struct SwapPlan {
    std::vector<SwapGroup> groups;
    // The next group is copied while this one computes (the budget holds two groups).
    bool prefetch = false;
    double estimatedMs = 0.0;       // one forward and backward, copies included
    double computeOnlyMs = 0.0;     // the same with every copy free
    std::string why;                // the reasoning, for the log

    // One group per stage, without prefetching: what the measuring pass runs.
    static SwapPlan stageByStage(const std::vector<std::int64_t> &stageBytes);
};

// Picks group boundaries for a device that holds `budgetBytes` of stages at once. Every
// candidate cap on a group's size is simulated with the measured times (a compute queue and
// a copy queue; the last group stays resident across the forward/backward turn) and the
// fastest wins. Each group's optimizer step goes where its stages' measured step is cheaper
// (the host on a tie), unless `optimizer` asks for Host or Device everywhere. The stages'
// retained bytes come off the budget first; what is left below the largest stage is an error.
Result<SwapPlan> planSwapping(const std::vector<StageCost> &stages, std::int64_t budgetBytes,
                              OptimizerPlacement optimizer = OptimizerPlacement::Auto);

// The simulated time of one forward and backward under `groups`.
double simulateSwappedStep(const std::vector<StageCost> &stages, const std::vector<SwapGroup> &groups, bool prefetch);

// "12.5 MiB" and the like, for messages.
std::string formatBytes(std::int64_t bytes);

} // namespace swarmtrain
