#include "GpuSampler.h"

#include <algorithm>

namespace swarmtrain {

GpuSampler::GpuSampler(Options options)
    : m_options(std::move(options)), m_thread([this](std::stop_token stop) { run(stop); })
{
}

GpuSample GpuSampler::latest() const
{
    std::lock_guard lock(m_mutex);
    return m_sample;
}

bool GpuSampler::waitForFirstSample(std::chrono::milliseconds timeout) const
{
    std::unique_lock lock(m_mutex);
    return m_changed.wait_for(lock, timeout, [this] { return m_firstSampleDone; });
}

void GpuSampler::run(std::stop_token stop)
{
    const Result<GpuReport> probed = probeGpus(m_options.probeCommand, m_options.probe);
    const bool nvidia = probed && std::any_of(probed->gpus.begin(), probed->gpus.end(),
                                              [](const GpuInfo &gpu) { return gpu.vendor == "nvidia"; });
    std::unique_lock lock(m_mutex);
    if (!nvidia) {
        m_firstSampleDone = true;
        m_changed.notify_all();
        return;
    }
    while (!stop.stop_requested()) {
        lock.unlock();
        const GpuSample sample = read(); // NVML may take a while: latest() answers meanwhile
        lock.lock();
        m_sample = sample;
        m_firstSampleDone = true;
        m_changed.notify_all();
        m_changed.wait_for(lock, stop, m_options.interval, [] { return false; });
    }
}

GpuSample GpuSampler::read() const
{
    GpuSample sample;
    for (const GpuInfo &gpu : probeGpusInProcess(m_options.probe).gpus) {
        if (gpu.vendor != "nvidia")
            continue;
        if (gpu.temperatureC >= 0)
            sample.temperature = std::max(sample.temperature.value_or(0.0), double(gpu.temperatureC));
        if (!m_options.trainsOnGpu && gpu.utilizationPercent >= 0)
            sample.otherUtilization = std::max(sample.otherUtilization.value_or(0.0), double(gpu.utilizationPercent));
    }
    return sample;
}

} // namespace swarmtrain
