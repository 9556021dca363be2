#pragma once

#include "IdleSource.h"
#include "PowerSource.h"
#include "ProcessList.h"
#include "ThrottleMonitor.h"

#include <memory>
#include <mutex>

namespace swarmtrain::test {

// A PC whose idle time, battery, processes, GPU and clock a test sets, behind the same
// interfaces as the platform's sources. Defaults: idle for an hour, on mains, nothing running.
struct FakePc {
    mutable std::mutex mutex;
    std::optional<double> idleSeconds = 3600.0;
    std::optional<bool> onBattery = false;
    std::vector<std::string> processes;
    GpuSample gpu;
    QDateTime now = QDateTime(QDate(2026, 11, 22), QTime(14, 0));

    template <typename F>
    void change(F &&f)
    {
        std::lock_guard lock(mutex);
        f(*this);
    }
};

class FakeIdleSource : public IdleSource {
public:
    explicit FakeIdleSource(std::shared_ptr<FakePc> pc) : m_pc(std::move(pc)) {}
    std::optional<double> idleSeconds() const override
    {
        std::lock_guard lock(m_pc->mutex);
        return m_pc->idleSeconds;
    }

private:
    std::shared_ptr<FakePc> m_pc;
};

class FakePowerSource : public PowerSource {
public:
    explicit FakePowerSource(std::shared_ptr<FakePc> pc) : m_pc(std::move(pc)) {}
    std::optional<bool> onBattery() const override
    {
        std::lock_guard lock(m_pc->mutex);
        return m_pc->onBattery;
    }

private:
    std::shared_ptr<FakePc> m_pc;
};

class FakeProcessList : public ProcessList {
public:
    explicit FakeProcessList(std::shared_ptr<FakePc> pc) : m_pc(std::move(pc)) {}
    std::vector<std::string> runningNames() const override
    {
        std::lock_guard lock(m_pc->mutex);
        return m_pc->processes;
    }

private:
    std::shared_ptr<FakePc> m_pc;
};

inline ThrottleSources fakeSources(const std::shared_ptr<FakePc> &pc)
{
    ThrottleSources sources;
    sources.idle = std::make_unique<FakeIdleSource>(pc);
    sources.power = std::make_unique<FakePowerSource>(pc);
    sources.processes = std::make_unique<FakeProcessList>(pc);
    sources.gpu = [pc] {
        std::lock_guard lock(pc->mutex);
        return pc->gpu;
    };
    sources.now = [pc] {
        std::lock_guard lock(pc->mutex);
        return pc->now;
    };
    return sources;
}

} // namespace swarmtrain::test
