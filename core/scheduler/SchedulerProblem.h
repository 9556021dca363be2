#pragma once

#include "Result.h"

#include <cstddef>
#include <string>
#include <vector>

namespace swarmtrain::scheduler {

// Bounds checked before anything is allocated from an input.
inline constexpr int kMaxDevices = 4096;
inline constexpr int kMaxLayers = 1 << 20;

// One peer as the scheduler sees it: its benchmark and its memory budget.
struct Device {
    std::string id;   // unique; empty means "its index", e.g. "7"
    std::string site; // optional label (region, instance) for messages only
    double flopsPerSecond = 0.0;
    double memoryBytes = 0.0; // 0: unknown, not checked by the memory term
};

// What the model costs to split: the paper's c_dp and c_pp come from these (SI units).
struct ModelSpec {
    int layers = 1;
    // Bytes of one layer's gradients that a data-parallel group all-reduces each step; a stage of
    // k layers all-reduces k times this (the paper's c_dp).
    double parameterBytesPerLayer = 0.0;
    // Bytes crossing one stage boundary for one tasklet (the paper's c_pp); gradients come back
    // the same size, hence the 2 x PipelinePCost.
    double activationBytesPerMicrobatch = 0.0;
    // Forward and backward FLOPs of one layer on one microbatch (the compute term only).
    double flopsPerLayerPerMicrobatch = 0.0;
    int microbatches = 1;                     // per step: the compute term's pipeline fill and drain
    double memoryBytesPerParameterByte = 4.0; // weights, gradients and two Adam moments
};

// D_pp stages of D_dp devices each; 0 lets the scheduler choose (see schedule()).
struct Grid {
    int pipelineStages = 0;
    int dataParallel = 0;
};

// The terms beyond the paper; both off is the paper's cost model exactly (parity mode).
struct CostTerms {
    bool compute = true; // the slowest device of a group paces its stage
    bool memory = true;  // every device of a group must hold its stage's state

    static CostTerms parity() { return {false, false}; }
};

// Everything one scheduling run needs. Matrices are row-major N x N; bandwidth 0 (or a
// non-finite delay) marks a missing link, which the cost model charges kMissingLinkSeconds.
struct Problem {
    std::vector<Device> devices;
    std::vector<double> delaySeconds;
    std::vector<double> bandwidthBytesPerSecond;
    ModelSpec model;
    Grid grid;
    CostTerms terms;

    int deviceCount() const { return int(devices.size()); }
    double delay(int from, int to) const { return delaySeconds[index(from, to)]; }
    double bandwidth(int from, int to) const { return bandwidthBytesPerSecond[index(from, to)]; }
    bool linked(int from, int to) const;
    // The id a message or a previous assignment uses: the device's id, else its index.
    std::string deviceId(int device) const;

private:
    std::size_t index(int from, int to) const { return std::size_t(from) * devices.size() + std::size_t(to); }
};

// Checks sizes, finiteness and signs; the message names the field, e.g. "bandwidth[3][7] is negative".
Result<void> validateProblem(const Problem &problem);

// Layers of the largest stage when `layers` are split into `stages` contiguous ranges.
int layersPerStage(int layers, int stages);

} // namespace swarmtrain::scheduler
