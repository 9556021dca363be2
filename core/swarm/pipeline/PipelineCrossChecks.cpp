// PipelineDriver's cross-checks (issue 43): a stage peer's answers are a stranger's claims about
// what its stage computes. A share of hops goes to two peers of the stage, whose answers to the
// same request must agree (a stage's replicas hold the same parameters through a step, and a
// backward recomputes its forward, so honest answers differ only by rounding); where they do
// not, a third peer decides, and the one it outvotes was lying. A liar cannot tell a checked
// request from any other, so it is caught within about 1 / crossCheckShare of its wrong
// answers; then every microbatch that used an answer of its is taken back and run again, and
// each of its later answers is checked until it is dropped.
#include "PipelineDriver.h"

#include "PipelineDriverFlight.h"
#include "PeerTransport.h"
#include "RangeAgreement.h"
#include "StageFrames.h"
#include "StageWorker.h"

#include <QLoggingCategory>

#include <algorithm>
#include <cmath>

Q_LOGGING_CATEGORY(lcCrossChecks, "swarmtrain.pipeline.crosscheck")

namespace swarmtrain {

namespace {

// Retries of retryWait for a peer to decide a mismatch, before the microbatch fails.
constexpr int kDecideWaits = 25;

bool close(double a, double b, double tolerance)
{
    return std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

} // namespace

std::uint64_t PipelineDriver::wireIdOf(std::uint64_t id) const
{
    const auto it = m_flights.find(id);
    return it == m_flights.end() ? 0 : it->second.wireId();
}

void PipelineDriver::decideCheck(Hop &hop)
{
    hop.answers.clear();
    hop.waits = 0;
    hop.checked = !hop.replay && m_settings.crossCheckShare > 0.0
                  && std::uniform_real_distribution<double>(0.0, 1.0)(m_random) < m_settings.crossCheckShare;
}

std::optional<PipelineDriver::Answer> PipelineDriver::settleCheck(Hop &hop, std::vector<std::pair<QString, QString>> &wrong)
{
    if (hop.answers.size() == 2)
        ++m_crossChecks;
    const double tolerance = m_settings.crossCheckTolerance;
    const auto agree = [&](const Answer &a, const Answer &b) {
        return std::max(rangeRelativeDifference(a.values, b.values),
                        rangeRelativeDifference(b.values, a.values))
                   <= tolerance
               && close(a.loss, b.loss, tolerance);
    };
    // The first answer another one agrees with stands; every answer that differs from it was wrong.
    std::optional<std::size_t> standing;
    for (std::size_t i = 0; i < hop.answers.size() && !standing; ++i) {
        for (std::size_t j = 0; j < hop.answers.size() && !standing; ++j) {
            if (i != j && agree(hop.answers[i], hop.answers[j]))
                standing = i;
        }
    }
    if (!standing)
        return std::nullopt;
    Answer used = hop.answers[*standing];
    const Flight &f = *flight(hop.id);
    for (const Answer &other : hop.answers) {
        const bool right = agree(other, used);
        if (right)
            ++m_vouched[other.peer];
        if (other.peer == used.peer)
            continue;
        if (hop.backward) // its gradient counts nowhere
            sendVerdict(other.peer, f.batch.step, f.wireId(), false);
        if (!right) {
            const double off = rangeRelativeDifference(used.values, other.values);
            const QString why = QStringLiteral("its %1 of microbatch %2 differs by %3 (relative L2) from what %4 of %5 peers answered")
                                    .arg(hop.backward ? QStringLiteral("backward") : QStringLiteral("forward"))
                                    .arg(hop.id)
                                    .arg(off, 0, 'g', 3)
                                    .arg(hop.answers.size() - 1)
                                    .arg(hop.answers.size());
            wrong.emplace_back(other.peer, why);
        }
    }
    hop.answers.clear();
    hop.checked = false;
    return used;
}

void PipelineDriver::settleWithoutPeer(Hop &hop)
{
    if (hop.answers.size() == 1) {
        // No other peer of the stage can answer now: the one answer stands unchecked.
        const Answer only = std::move(hop.answers.front());
        hop.answers.clear();
        hop.checked = false;
        return useAnswer(hop, only.peer, only.payload, only.loss);
    }
    if (++hop.waits > kDecideWaits)
        return abandon(hop.id, QStringLiteral("%1 peers of stage %2 gave different answers, and no other peer decided")
                                   .arg(hop.answers.size())
                                   .arg(hop.stage));
    hop.tried.clear();
    hop.peer.clear();
    hop.timer->start(m_settings.retryWait);
}

void PipelineDriver::catchPeer(const QString &peerKeyId, int stage, const QString &why)
{
    ++m_caught[peerKeyId];
    qCWarning(lcCrossChecks).noquote() << "stage" << stage << "peer" << peerKeyId << "answered wrong:" << why;
    Q_EMIT peerCaught(peerKeyId, stage, why);
    for (auto &[id, f] : m_flights) {
        if (f.servedBy.contains(peerKeyId))
            restart(f);
    }
    countOffence(peerKeyId);
}

void PipelineDriver::takeBackGradients(Flight &f)
{
    const std::uint64_t step = f.batch.step, run = f.wireId();
    for (int s = 1; s < m_settings.stageCount; ++s) {
        const QString peer = std::exchange(f.confirmedAt[std::size_t(s)], QString());
        if (peer.isEmpty())
            continue;
        if (m_transport.isConnected(peer))
            sendVerdict(peer, step, run, false);
        else
            m_revoke[peer].insert({step, run});
    }
    m_firstStage.post(this, [key = microbatchKey(m_selfKeyId, step, run)](PipelineStage &stage) { return stage.cancel(key); },
                      [](bool) {});
}

void PipelineDriver::restart(Flight &f)
{
    const std::uint64_t id = f.hop.id;
    // Every stage's gradient of it is taken back: each was computed from what the liar passed on.
    takeBackGradients(f);
    for (Hop &replay : m_replays) {
        if (replay.id != id)
            continue;
        if (!replay.peer.isEmpty())
            m_choosers[std::size_t(replay.stage)].released(replay.peer.toStdString());
        endReplay(replay);
    }
    Hop &hop = f.hop;
    if (!hop.peer.isEmpty()) // its answer, when it comes, matches no hop (and a backward's is cancelled)
        m_choosers[std::size_t(hop.stage)].released(std::exchange(hop.peer, QString()).toStdString());
    hop.tried.clear();
    hop.stage = 1;
    hop.backward = m_settings.stageCount == 2;
    f.servedBy.clear();
    f.done = false;
    ++f.generation;
    ++m_restarts;
    decideCheck(hop);
    hop.timer->start(0); // sends it when no peer is asked (a microbatch that used a peer's answer has sent a hop)
}

void PipelineDriver::abandon(std::uint64_t id, const QString &reason)
{
    // Not from inside this hop's own frame or timer handler, which erasing it would end.
    QTimer::singleShot(0, this, [this, id, reason] {
        Flight *f = flight(id);
        if (!f)
            return;
        takeBackGradients(*f);
        m_replays.remove_if([id](const Hop &hop) { return hop.id == id; });
        m_flights.erase(id);
        Q_EMIT microbatchFailed(id, reason);
    });
}

} // namespace swarmtrain
