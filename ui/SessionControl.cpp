#include "SessionControl.h"

#include "ClientSession.h"

namespace swarmtrain {

namespace {

QString reasonKey(PauseReason reason)
{
    switch (reason) {
    case PauseReason::None: return {};
    case PauseReason::Manual: return QStringLiteral("manual");
    case PauseReason::Generating: return QStringLiteral("generating");
    case PauseReason::UserActive: return QStringLiteral("user_active");
    case PauseReason::OnBattery: return QStringLiteral("on_battery");
    case PauseReason::ExclusiveApp: return QStringLiteral("exclusive_app");
    case PauseReason::GpuBusy: return QStringLiteral("gpu_busy");
    case PauseReason::GpuHot: return QStringLiteral("gpu_hot");
    case PauseReason::Schedule: return QStringLiteral("schedule");
    case PauseReason::DiskFull: return QStringLiteral("disk_full");
    }
    return QStringLiteral("unknown");
}

} // namespace

ControlStatus SessionControl::status() const
{
    const SessionState &state = m_session.state();
    ControlStatus s;
    s.headline = state.headline;
    s.detail = state.detail;
    s.state = state.joined ? QString::fromLatin1(workStateKey(state.work.state)) : QStringLiteral("idle");
    s.round = state.work.round;
    s.stepsDone = state.work.innerStepsDone;
    s.steps = state.work.innerSteps;
    s.tokensPerSecond = state.work.tokensPerSecond;
    s.swarm = state.joined ? m_session.swarm().swarmUrl : QString();
    s.mode = state.mode;
    s.paused = !state.decision.running();
    s.pauseReason = reasonKey(state.decision.reason);
    if (state.decision.reason == PauseReason::Manual)
        s.pausedUntil = m_session.throttle().manualPauseUntil();
    s.released = state.decision.action == ThrottleAction::Release ||
                 (state.decision.reason == PauseReason::Manual && m_session.released());
    return s;
}

Result<void> SessionControl::pause(std::optional<std::chrono::seconds> duration)
{
    m_session.pause(duration);
    return {};
}

Result<void> SessionControl::resume()
{
    m_session.resume();
    return {};
}

Result<void> SessionControl::release()
{
    m_session.release();
    return {};
}

Result<void> SessionControl::join(const QString &urlOrInvite) { return m_session.join(urlOrInvite); }

Result<void> SessionControl::leave()
{
    m_session.leave();
    return {};
}

} // namespace swarmtrain
