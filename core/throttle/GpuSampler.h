#pragma once

#include "GpuProbe.h"
#include "ThrottleMonitor.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace swarmtrain {

// NVML's temperature and, while we train on the CPU, the GPU's utilization (all of it is then
// other programs'), read on a thread of its own every few seconds: ThrottleMonitor asks on the
// GUI thread and gets the latest sample at once. NVML is read in this process only when the
// probe child found an NVIDIA GPU there safely.
class GpuSampler {
public:
    struct Options {
        std::vector<std::string> probeCommand; // the GPU probe's child (GpuProbe.h)
        GpuProbeOptions probe;
        bool trainsOnGpu = false; // then the GPU's utilization is partly ours and is left unknown
        std::chrono::milliseconds interval{3000};
    };

    explicit GpuSampler(Options options);
    GpuSampler(const GpuSampler &) = delete;
    GpuSampler &operator=(const GpuSampler &) = delete;

    // Unknown figures until the first sample, and for good without an NVIDIA GPU.
    GpuSample latest() const;
    // Waits until the probe child has answered and, where it found an NVIDIA GPU, the first
    // sample is in; false when `timeout` passed first.
    bool waitForFirstSample(std::chrono::milliseconds timeout) const;

private:
    void run(std::stop_token stop);
    GpuSample read() const;

    const Options m_options;
    mutable std::mutex m_mutex;
    mutable std::condition_variable_any m_changed; // a sample came in, the probe found nothing, or stop
    GpuSample m_sample;                            // guarded by m_mutex
    bool m_firstSampleDone = false;                // guarded by m_mutex
    // Last: started once the rest exists, stopped and joined first, without waiting out the interval.
    std::jthread m_thread;
};

} // namespace swarmtrain
