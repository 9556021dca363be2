// SwarmWorker's inner steps: a round's training (H steps, or what fits its time budget), and
// what a pause, a release and a resume do to it (SwarmWorker.cpp has the rest of the loop).
#include "SwarmWorker.h"

#include "CoordinatorSession.h"
#include "DataPlane.h"
#include "DeviceMemory.h"
#include "QtText.h"
#include "ReplicaTrainer.h"
#include "StatsStore.h"
#include "SwarmLog.h"
#include "WorkGate.h"

namespace swarmtrain {

bool SwarmWorker::roundWorkDone() const
{
    const TrainingSettings &training = m_session->joined().training;
    const qint64 steps = m_trainer->innerStepsDone();
    if (steps >= training.stepCap())
        return true;
    // A budgeted swarm whose budget is not known yet (no speeds measured) runs H.
    if (!training.timeBudgeted || m_budgetMs <= 0 || !m_work.startedAt.isValid())
        return steps >= training.innerSteps;
    return steps >= training.minInnerSteps
           && std::chrono::steady_clock::now() - m_work.startedSteady >= std::chrono::milliseconds(m_budgetMs);
}

Result<SwarmWorker::Outcome> SwarmWorker::trainRound()
{
    if (!m_work.startedAt.isValid()) {
        // An asynchronous peer starts each budget on the newest state the swarm serves.
        if (m_session->joined().training.asyncRounds && m_trainer->innerStepsDone() == 0 && m_swarmRounds
            && m_swarmRounds->first > m_trainer->round())
            return Outcome::CatchUp;
        m_work.startedAt = QDateTime::currentDateTimeUtc();
        m_work.startedSteady = std::chrono::steady_clock::now();
    }
    if (roundWorkDone())
        return Outcome::Done;
    // After rounds sat out, the others' frames of this round are held, not refused.
    m_dataPlane->expectRound(quint64(m_trainer->round()));
    for (;;) {
        setStatus(WorkState::Training, tr("Training round %1").arg(m_trainer->round()));
        const auto started = std::chrono::steady_clock::now();
        const qint64 stepsBefore = m_trainer->innerStepsDone();
        const double restBefore = m_work.restSeconds;
        std::optional<std::chrono::steady_clock::time_point> stepStarted;
        const auto shouldStop = [&] {
            // The duty cycle: after a step that took t, rest t * (1 - duty) / duty.
            const double duty = m_gate->duty();
            if (stepStarted && duty < 1.0) {
                const auto restFrom = std::chrono::steady_clock::now();
                const double busy = std::chrono::duration<double>(restFrom - *stepStarted).count();
                m_gate->sleepFor(int(busy * (1.0 - duty) / duty * 1000.0));
                m_work.restSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - restFrom).count();
            }
            stepStarted = std::chrono::steady_clock::now();
            if (m_gate->stopRequested() || m_gate->paused() || m_catchUpNeeded || m_spotCheck || m_straggler
                || roundWorkDone())
                return true;
            heartbeatIfDue(QStringLiteral("training"));
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            const double tokens = double((m_trainer->innerStepsDone() - stepsBefore) * m_tokensPerStep);
            emitProgress(seconds > 0 ? tokens / seconds : 0.0);
            return m_catchUpNeeded || m_spotCheck.has_value();
        };
        Result<InnerReport> report = m_trainer->trainInner(shouldStop, [this] { return m_gate->interrupted(); });
        if (!report)
            return report.error();
        // A round shorter than the one-second progress cadence still shows its speed: the rate
        // at which this PC delivers steps, its duty cycle's rests counted (what sets the budget).
        if (const double spent = report->seconds + (m_work.restSeconds - restBefore); spent > 0)
            m_status.tokensPerSecond = double(report->tokens) / spent;
        m_work.tokens += report->tokens;
        m_work.flops += report->flops;
        m_work.seconds += report->seconds;
        m_work.lossSum += report->meanLoss * double(report->steps);
        m_work.steps += report->steps;
        if (!report->interrupted || roundWorkDone())
            return Outcome::Done;
        if (m_gate->stopRequested())
            return Outcome::Stopped;
        if (m_catchUpNeeded)
            return Outcome::CatchUp;
        if (m_spotCheck)
            return Outcome::Verify; // the coordinator asked for it: this round is sat out
        if (m_straggler)
            return Outcome::SitOut;
        if (m_gate->releaseRequested()) {
            if (Result<void> released = releaseReplica(); !released)
                return released.error();
        }
        if (!holdWhilePaused())
            return Outcome::Stopped; // leave() copes with a released replica
        if (!m_trainer) {
            if (Result<void> reloaded = reloadReplica(); !reloaded)
                return reloaded.error();
        }
        if (m_catchUpNeeded)
            return Outcome::CatchUp;
    }
}

Result<void> SwarmWorker::releaseReplica()
{
    // What the swarm agreed on is saved; the steps of this round trained so far are dropped
    // (they live in device memory, which is what the person wants back).
    if (Result<void> saved = m_trainer->saveGlobalState(replicaFile()); !saved)
        return saved.error();
    m_releasedRound = m_trainer->round();
    m_trainer.reset();
    m_work = {};
    releaseCachedDeviceMemory();
    qCInfo(lcWorker) << "released the device's memory; round" << m_releasedRound << "starts again on resume";
    return {};
}

Result<void> SwarmWorker::reloadReplica()
{
    if (Result<void> shards = prepareShards(); !shards)
        return shards;
    return prepareReplica();
}

bool SwarmWorker::holdWhilePaused()
{
    if (!m_gate->paused())
        return !m_gate->stopRequested();
    const QString reason = m_gate->pauseReason();
    setStatus(WorkState::Paused, reason);
    (void)m_stats->recordEvent(QStringLiteral("paused"), reason, QDateTime::currentDateTime());
    while (m_gate->paused() && !m_gate->stopRequested()) {
        heartbeatIfDue(QStringLiteral("paused"));
        m_gate->sleepFor(int(m_session->joined().heartbeatIntervalMs));
    }
    if (m_gate->stopRequested())
        return false;
    (void)m_stats->recordEvent(QStringLiteral("resumed"), tr("Resumed"), QDateTime::currentDateTime());
    return true;
}

Result<void> SwarmWorker::sitOutRounds()
{
    // This round's steps are dropped: they would be too few to count.
    m_work = {};
    setStatus(WorkState::Waiting, tr("Too slow for this swarm's rounds: checking other peers' work instead"));
    qCInfo(lcWorker) << "this PC cannot fit the round's minimum steps into its budget; it sits rounds out";
    (void)m_stats->recordEvent(QStringLiteral("straggler"),
                               tr("Too slow for this swarm's rounds: checking other peers' work instead"),
                               QDateTime::currentDateTime());
    // The PC may be faster later (the person closed a program, it cooled down): every 30
    // heartbeats (5 minutes at the default 10 s) it trains again, reporting a fresh speed.
    const auto retryAt = std::chrono::steady_clock::now() + 30 * std::chrono::milliseconds(m_session->joined().heartbeatIntervalMs);
    while (m_straggler && !m_gate->stopRequested()) {
        if (std::chrono::steady_clock::now() >= retryAt) {
            m_status.tokensPerSecond = 0.0; // not measured: not judged until it has trained a while
            m_straggler = false;
            break;
        }
        if (m_spotCheck)
            return runSpotCheck();
        if (m_gate->paused() && !holdWhilePaused())
            return {};
        Result<HeartbeatAnswer> answer = heartbeat(QStringLiteral("idle"), {}, /*persist=*/true);
        if (!answer)
            return m_gate->stopRequested() ? Result<void>() : Result<void>(answer.error());
        if (needsCatchUp(*answer))
            m_catchUpNeeded = true;
        m_gate->sleepFor(int(m_session->joined().heartbeatIntervalMs));
    }
    // The budget fits it again (the swarm's speeds changed): back to rounds, from the swarm's state.
    return m_catchUpNeeded ? catchUp() : Result<void>();
}

} // namespace swarmtrain
