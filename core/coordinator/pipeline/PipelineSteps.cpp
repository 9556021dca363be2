#include "PipelineSteps.h"

#include "CoordinatorLog.h"
#include "StageRebalancer.h"

#include <algorithm>

namespace swarmtrain {

namespace {

using L = QLatin1StringView;

constexpr double kRateEma = 0.5;
constexpr double kMinBusySeconds = 0.005; // shorter busy spells say too little about a rate
constexpr int kFreshReports = 2;         // rate reports each peer needs since the last move before another
constexpr qint64 kPeersRefreshMs = 1000; // how old the peers read from the store may be
// A closing that keeps making progress still ends after this many close timeouts: a peer that
// serves work forever cannot hold the step.
constexpr qint64 kMaxClosingTimeouts = 5;

// The members of a step group that own a range of its all-reduce, in range order: those that
// accept connections (StageOptimizer's equal ranges).
QStringList rangeOwners(const QStringList &group, const std::vector<PeerRecord> &peers)
{
    QStringList owners;
    for (const QString &id : group) {
        const auto peer = std::find_if(peers.begin(), peers.end(), [&](const PeerRecord &p) { return p.keyId == id; });
        if (peer != peers.end() && !peer->endpoint.isEmpty())
            owners.append(id);
    }
    return owners;
}

} // namespace

PipelineSteps::PipelineSteps(CoordinatorStore &store, Online online, Clock clock)
    : m_store(store)
    , m_online(std::move(online))
    , m_clock(std::move(clock))
    , m_disputes(store)
{
}

Result<void> PipelineSteps::start(PipelineStepsOptions options)
{
    if (options.settings.stages < 2 || int(options.stageCosts.size()) != options.settings.stages)
        return makeError("pipeline mode needs two stages or more, each with its cost");
    m_options = std::move(options);
    m_agreed.assign(std::size_t(m_options.settings.stages), QString());
    m_enabled = true;
    if (Result<void> loaded = load(); !loaded)
        return loaded;
    m_step.phaseSinceMs = m_startedMs = m_clock(); // a restarted coordinator gives every phase its full time again
    m_lastRebalanceMs = std::max(m_lastRebalanceMs, m_startedMs); // the first move a period after the start
    return {};
}

Result<const std::vector<PeerRecord> *> PipelineSteps::peers(const PeerRecord *fresh)
{
    // Every peer asks about five times a second: reading every peer for each request would make
    // the swarm's cost grow with the square of its size. The requester's own record is fresh.
    if (m_peersReadMs < 0 || m_clock() - m_peersReadMs >= kPeersRefreshMs) {
        Result<std::vector<PeerRecord>> read = m_store.peers();
        if (!read)
            return read.error();
        m_peers = std::move(*read);
        m_peersReadMs = m_clock();
    }
    if (fresh) {
        const auto known = std::find_if(m_peers.begin(), m_peers.end(), [&](const PeerRecord &p) { return p.keyId == fresh->keyId; });
        if (known != m_peers.end())
            *known = *fresh;
        else
            m_peers.push_back(*fresh);
    }
    return &m_peers;
}

Result<PipelineAnswer> PipelineSteps::handle(const PeerRecord &peer, const PipelineRequest &request)
{
    Result<const std::vector<PeerRecord> *> all = peers(&peer);
    if (!all)
        return all.error();
    record(peer, request);
    if (!m_placement.contains(peer.keyId)) {
        const auto hint = m_options.placeHints.find(peer.keyId);
        m_placement[peer.keyId] = hint != m_options.placeHints.end() && hint->second < m_options.settings.stages
                                      ? hint->second
                                      : placeNewcomer(**all);
        m_dirty = true;
        qCInfo(lcCoordinator) << "pipeline: placed peer" << peer.keyId << "on stage" << m_placement[peer.keyId];
    }
    const bool inGroup = std::any_of(m_step.groups.begin(), m_step.groups.end(),
                                     [&](const QStringList &group) { return group.contains(peer.keyId); });
    if (request.step == m_step.number && (m_step.members.contains(peer.keyId) || inGroup) && take(peer.keyId, request))
        m_dirty = true;
    if (Result<void> advanced = advanceWith(**all); !advanced)
        return advanced.error();
    PipelineAnswer answer = answerFor(peer, **all);
    answer.uploadState = askForStageState(peer.keyId);
    return answer;
}

void PipelineSteps::record(const PeerRecord &peer, const PipelineRequest &request)
{
    m_views[peer.keyId] = {request.stage, request.stateSteps, request.hash};
    if (const auto member = m_step.members.find(peer.keyId); member != m_step.members.end() && member->second > 0
        && m_step.phase == QLatin1StringView("closing") && m_step.inAttempt(member->second) && request.served > 0)
        m_step.progressMs = m_clock();
    // Microbatches per second of busy time: what the peer's stage can serve, whatever the load.
    if (request.served > 0 && request.busySeconds >= kMinBusySeconds && request.stage >= 0) {
        const double rate = double(request.served) / request.busySeconds;
        // The first report since the last move replaces what was measured before it: the load
        // each peer sees changed with the move.
        int &reports = m_rateReports[peer.keyId];
        double &known = m_rates[peer.keyId];
        known = reports++ == 0 ? rate : kRateEma * rate + (1 - kRateEma) * known;
    }
}

// A member's report on the open step; true when it changed something.
bool PipelineSteps::take(const QString &peerId, const PipelineRequest &request)
{
    const int stage = stageOf(peerId);
    const QString &phase = m_step.phase;
    // Counts that cannot be true (more than the trainer's share, or than the step's microbatches)
    // are not taken: the step goes on without them.
    const int share = m_step.shares.contains(peerId) ? m_step.shares.at(peerId) : 0;
    if (request.report == L("closed") && phase == L("training") && stage == 0 && !m_step.closed.contains(peerId)
        && request.microbatches + request.dropped == share) {
        m_step.closed[peerId] = {request.microbatches, request.dropped, request.lossSum, request.evalLoss, {}};
        takeServedBy(peerId, request.servedBy);
        for (const QString &accused : request.wrongAnswers) {
            const auto member = m_step.members.find(accused);
            if (member == m_step.members.end() || member->second == 0)
                continue; // only the step's stage peers answered this trainer
            if (!m_disputes.accuse(m_step.number, peerId, accused, m_step.shares.size()))
                continue;
            m_step.named.insert(accused);
            if (m_onWrongAnswers)
                m_onWrongAnswers(accused, QStringLiteral("step %1: trainers' cross-checks caught its answers wrong").arg(m_step.number));
        }
        return true;
    }
    // A closed trainer says again who served its microbatches while a replay of a vanished peer's
    // work moves them elsewhere, with or without a report.
    const bool attributed = stage == 0 && takeServedBy(peerId, request.servedBy);
    if (request.attempt != m_step.attempt)
        return attributed; // a report on an attempt given up
    int closedMicrobatches = 0;
    for (const auto &[id, closed] : m_step.closed)
        closedMicrobatches += closed.microbatches;
    if ((request.report == L("ready") || request.report == L("unready")) && phase == L("closing") && stage > 0
        && m_step.inAttempt(stage) && !m_step.unready.contains(peerId) && request.microbatches <= closedMicrobatches) {
        if (request.report == L("unready")) {
            if (m_step.ready.contains(peerId))
                return false;
            m_step.unready.insert(peerId);
            qCWarning(lcCoordinator).noquote() << "pipeline: peer" << peerId << "sits step" << m_step.number << "out:" << request.why;
            return true;
        }
        // A ready peer says so again when a replay changes what it holds.
        const auto [held, fresh] = m_step.ready.try_emplace(peerId, request.microbatches);
        if (!fresh && held->second == request.microbatches)
            return false;
        held->second = request.microbatches;
        return true;
    }
    const auto group = std::find_if(m_step.groups.begin(), m_step.groups.end(),
                                    [&](const QStringList &g) { return g.contains(peerId); });
    const bool inGroup = group != m_step.groups.end();
    const bool stepReport = request.report == L("stepped") || request.report == L("failed") || request.report == L("incomplete");
    if (!stepReport || phase != L("stepping") || !inGroup || m_step.stepped.contains(peerId)
        || request.microbatches > closedMicrobatches)
        return attributed;
    const bool ok = request.report == L("stepped") && request.stage == stage && !request.hash.isEmpty();
    m_step.stepped[peerId] = {ok, request.hash, request.microbatches, request.report == L("incomplete")};
    if (!request.disputed.isEmpty()) {
        if (Result<void> kept = m_disputes.record(m_step.number, rangeOwners(*group, m_peers), peerId, request.disputed); !kept)
            qCWarning(lcCoordinator).noquote() << "pipeline: cannot keep the disputes of" << peerId << ":"
                                               << QString::fromStdString(kept.error().message);
    }
    if (!ok)
        qCWarning(lcCoordinator).noquote() << "pipeline: peer" << peerId << "could not step" << m_step.number << ":" << request.why;
    return true;
}

Result<void> PipelineSteps::advance()
{
    if (!m_enabled)
        return {};
    Result<const std::vector<PeerRecord> *> all = peers(nullptr);
    if (!all)
        return all.error();
    return advanceWith(**all);
}

Result<void> PipelineSteps::advanceWith(const std::vector<PeerRecord> &peers)
{
    // Just after a restart every peer looks offline (none could reach us): none is left out of
    // the open step until it had the time to say it is there.
    const bool grace = m_clock() - m_startedMs < m_options.restartGraceMs;
    std::map<QString, const PeerRecord *> online;
    for (const PeerRecord &peer : peers) {
        if ((grace || m_online(peer)) && !peer.banned())
            online[peer.keyId] = &peer;
    }
    const qint64 inPhase = m_clock() - m_step.phaseSinceMs;
    const QString phase = m_step.phase;
    if (phase == L("waiting")) {
        tryOpen(m_step.number, peers);
    } else if (phase == L("training")) {
        const bool allClosed = std::all_of(m_step.shares.begin(), m_step.shares.end(), [&](const auto &share) {
            return m_step.closed.contains(share.first) || !online.contains(share.first);
        });
        if (allClosed || inPhase > m_options.trainTimeoutMs)
            finishTraining();
    } else if (phase == L("closing")) {
        // Timed from the last progress, but never more than a few timeouts in all.
        const qint64 quiet = m_clock() - std::max(m_step.phaseSinceMs, m_step.progressMs);
        if (closingDone(online) || inPhase > kMaxClosingTimeouts * m_options.closeTimeoutMs
            || (quiet > m_options.closeTimeoutMs && !leaveOutSilentMembers(online)))
            finishClosing(online);
    } else if (phase == L("stepping")) {
        const bool allStepped = std::all_of(m_step.groups.begin(), m_step.groups.end(), [&](const QStringList &group) {
            return std::all_of(group.begin(), group.end(),
                               [&](const QString &id) { return m_step.stepped.contains(id) || !online.contains(id); });
        });
        if (allStepped || inPhase > m_options.stepTimeoutMs) {
            if (!redoIncompleteGroups(online))
                finishStep(peers);
        }
    }
    if (m_step.phase != phase && m_step.phase == L("waiting"))
        tryOpen(m_step.number, peers);
    return m_dirty ? save() : Result<void>();
}

void PipelineSteps::finishTraining()
{
    if (m_step.closed.empty()) {
        // No trainer finished: the step counts for nothing, and the next one starts afresh
        // (stage peers drop work of any other step before they step).
        qCWarning(lcCoordinator) << "pipeline: step" << m_step.number << "ended with no trainer's microbatches";
        m_step.groups.clear();
        m_step.stepped.clear();
        return finishStep({});
    }
    setPhase(QStringLiteral("closing"));
}

int PipelineSteps::stageOf(const QString &peerId) const
{
    if (const auto member = m_step.members.find(peerId); member != m_step.members.end())
        return member->second;
    const auto placed = m_placement.find(peerId);
    return placed != m_placement.end() ? placed->second : 0;
}

void PipelineSteps::setPhase(const QString &phase)
{
    m_step.phase = phase;
    m_step.phaseSinceMs = m_clock();
    m_dirty = true;
}

bool PipelineSteps::synced(const QString &peerId, int stage) const
{
    const auto view = m_views.find(peerId);
    if (view == m_views.end() || view->second.stage != stage || view->second.hash.isEmpty())
        return false;
    const QString &agreed = m_agreed[std::size_t(stage)];
    // Before a stage's first step every replica starts from the swarm's seed.
    return agreed.isEmpty() ? view->second.stateSteps == 0 : view->second.hash == agreed;
}

void PipelineSteps::tryOpen(qint64 number, const std::vector<PeerRecord> &peers)
{
    std::vector<const PeerRecord *> placedOnline;
    for (const PeerRecord &peer : peers) {
        if (m_placement.contains(peer.keyId) && m_online(peer) && !peer.banned())
            placedOnline.push_back(&peer);
    }
    std::vector<int> perStage(std::size_t(m_options.settings.stages), 0);
    for (const PeerRecord *peer : placedOnline)
        ++perStage[std::size_t(m_placement.at(peer->keyId))];
    const bool emptyStage = std::find(perStage.begin(), perStage.end(), 0) != perStage.end();
    // While the swarm gathers for its first step, peers still coming fill the empty stages.
    const bool gathering = m_history.empty() && int(placedOnline.size()) < m_options.minPeers;
    if (!gathering && (emptyStage || m_clock() - m_lastRebalanceMs >= m_options.rebalanceEveryMs))
        rebalance(placedOnline, emptyStage);
    adoptLostStates(placedOnline);

    std::map<QString, int> members;
    std::vector<bool> covered(std::size_t(m_options.settings.stages), false);
    for (const PeerRecord *peer : placedOnline) {
        const int stage = m_placement.at(peer->keyId);
        if (synced(peer->keyId, stage)) {
            members[peer->keyId] = stage;
            covered[std::size_t(stage)] = true;
        }
    }
    if (std::find(covered.begin(), covered.end(), false) != covered.end())
        return; // waiting: some stage has no peer holding its state yet
    // The swarm's first step waits for --min-peers peers holding their stages.
    if (m_history.empty() && int(members.size()) < m_options.minPeers)
        return;
    m_step = Step{};
    m_step.number = number;
    m_step.members = std::move(members);
    QStringList trainers;
    for (const auto &[id, stage] : m_step.members) {
        if (stage == 0)
            trainers.append(id);
    }
    const int total = m_options.settings.microbatchesPerStep;
    for (qsizetype i = 0; i < trainers.size(); ++i)
        m_step.shares[trainers[i]] = total / int(trainers.size()) + (i < total % trainers.size() ? 1 : 0);
    setPhase(QStringLiteral("training"));
}

void PipelineSteps::rebalance(const std::vector<const PeerRecord *> &placedOnline, bool emptyStage)
{
    std::vector<scheduler::StagePeer> stagePeers;
    double known = 0.0;
    int knownCount = 0;
    for (const PeerRecord *peer : placedOnline) {
        const auto rate = m_rates.find(peer->keyId);
        const auto reports = m_rateReports.find(peer->keyId);
        if (rate != m_rates.end() && reports != m_rateReports.end() && reports->second >= kFreshReports) {
            known += rate->second;
            ++knownCount;
        }
    }
    // Without every peer's measured rate, only an empty stage is worth a move.
    if (knownCount < int(placedOnline.size()) && !emptyStage)
        return;
    for (const PeerRecord *peer : placedOnline) {
        const auto rate = m_rates.find(peer->keyId);
        stagePeers.push_back({peer->keyId.toStdString(), m_placement.at(peer->keyId),
                              rate != m_rates.end() ? rate->second : (knownCount > 0 ? known / knownCount : 1.0)});
    }
    m_lastRebalanceMs = m_clock();
    const std::optional<scheduler::StageMove> move = scheduler::chooseStageMove(stagePeers, m_options.stageCosts);
    if (!move)
        return;
    const QString id = QString::fromStdString(move->peer);
    m_placement[id] = move->to;
    m_rates.erase(id); // measured at another stage
    m_rateReports.clear(); // the next move waits for every peer's rate under the new placement
    m_dirty = true;
    qCInfo(lcCoordinator).noquote() << QStringLiteral("pipeline: moved peer %1 from stage %2 to %3 (throughput %4 -> %5 microbatches/s)")
                                           .arg(id).arg(move->from).arg(move->to)
                                           .arg(move->throughputBefore, 0, 'f', 2).arg(move->throughputAfter, 0, 'f', 2);
}

// A stage whose agreed state no online peer holds any more (every holder gone) starts again from
// the most trained state one of its placed peers holds: a loss, logged, but the swarm goes on.
void PipelineSteps::adoptLostStates(const std::vector<const PeerRecord *> &placedOnline)
{
    for (int s = 0; s < m_options.settings.stages; ++s) {
        QString &agreed = m_agreed[std::size_t(s)];
        const View *best = nullptr;
        bool held = false;
        for (const PeerRecord *peer : placedOnline) {
            const auto view = m_views.find(peer->keyId);
            if (view == m_views.end() || view->second.stage != s || view->second.hash.isEmpty())
                continue;
            held = held || agreed.isEmpty() || view->second.hash == agreed;
            if (m_placement.at(peer->keyId) == s && (!best || view->second.stateSteps > best->stateSteps))
                best = &view->second;
        }
        if (held || !best)
            continue;
        qCWarning(lcCoordinator).noquote() << "pipeline: no online peer holds stage" << s
                                           << "'s agreed state any more; it goes on from a state of" << best->stateSteps << "steps";
        agreed = best->hash;
        m_dirty = true;
    }
}

int PipelineSteps::placeNewcomer(const std::vector<PeerRecord> &peers) const
{
    // The stage with the least capacity for its cost: by measured rates where every placed
    // online peer has one, else by head count.
    const int stages = m_options.settings.stages;
    std::vector<double> capacity(std::size_t(stages), 0.0);
    for (const PeerRecord &peer : peers) {
        const auto placed = m_placement.find(peer.keyId);
        if (placed == m_placement.end() || !m_online(peer) || peer.banned())
            continue;
        capacity[std::size_t(placed->second)] += 1.0 / m_options.stageCosts[std::size_t(placed->second)];
    }
    return int(std::min_element(capacity.begin(), capacity.end()) - capacity.begin());
}

QString PipelineSteps::resyncSource(const QString &peerId, const std::vector<PeerRecord> &peers) const
{
    const auto placed = m_placement.find(peerId);
    if (placed == m_placement.end() || synced(peerId, placed->second))
        return {};
    const int stage = placed->second;
    if (m_agreed[std::size_t(stage)].isEmpty())
        return {}; // a fresh state from the seed is the agreed one
    for (const PeerRecord &peer : peers) {
        if (peer.keyId != peerId && !peer.endpoint.isEmpty() && m_online(peer) && !peer.banned() && synced(peer.keyId, stage))
            return peer.keyId;
    }
    return {};
}

std::vector<double> PipelineSteps::stageRates(const std::vector<PeerRecord> &peers) const
{
    std::vector<double> rates(std::size_t(m_options.settings.stages), 0.0);
    for (const PeerRecord &peer : peers) {
        const auto placed = m_placement.find(peer.keyId);
        const auto rate = m_rates.find(peer.keyId);
        if (placed != m_placement.end() && rate != m_rates.end() && m_online(peer) && !peer.banned())
            rates[std::size_t(placed->second)] += rate->second;
    }
    return rates;
}

PipelineAnswer PipelineSteps::answerFor(const PeerRecord &self, const std::vector<PeerRecord> &peers) const
{
    PipelineAnswer answer;
    answer.step = m_step.number;
    answer.phase = m_step.phase;
    answer.attempt = m_step.attempt;
    answer.stage = m_placement.contains(self.keyId) ? m_placement.at(self.keyId) : -1;
    answer.member = m_step.members.contains(self.keyId);
    answer.share = m_step.shares.contains(self.keyId) ? m_step.shares.at(self.keyId) : 0;
    if (answer.stage == 0)
        answer.suspects = m_disputes.suspects(m_step.number);
    if (const auto credited = m_credited.find(self.keyId); credited != m_credited.end())
        answer.credited = credited->second;
    if (m_step.phase == L("closing") || m_step.phase == L("stepping")) {
        for (const auto &[id, closed] : m_step.closed) {
            answer.closedTrainers.append(id);
            answer.microbatches += closed.microbatches;
        }
    }
    if (m_step.phase == L("closing")) {
        for (const QString &id : m_step.unready) {
            if (m_step.inAttempt(stageOf(id)) && answer.leftOut.size() < protocol::kMaxPipelinePeers)
                answer.leftOut.append(id);
        }
    }
    for (const QStringList &group : m_step.groups) {
        if (group.contains(self.keyId))
            answer.group = group;
    }
    if (!answer.member)
        answer.resyncFrom = resyncSource(self.keyId, peers);
    for (const PeerRecord &peer : peers) {
        const auto placed = m_placement.find(peer.keyId);
        if (placed == m_placement.end() || peer.banned() || (!m_online(peer) && !m_step.members.contains(peer.keyId)))
            continue;
        if (qsizetype(answer.peers.size()) == protocol::kMaxPipelinePeers)
            break;
        answer.peers.push_back({peer.keyId, peer.publicKey, peer.endpoint, placed->second, m_step.members.contains(peer.keyId)});
    }
    answer.stageRates = stageRates(peers);
    return answer;
}

PipelineStatus PipelineSteps::status() const
{
    PipelineStatus status;
    status.step = m_step.number;
    status.phase = m_step.phase;
    Result<std::vector<PeerRecord>> peers = m_store.peers();
    const std::vector<PeerRecord> all = peers ? std::move(*peers) : std::vector<PeerRecord>{};
    const std::vector<double> rates = stageRates(all);
    status.stages.resize(std::size_t(m_options.settings.stages));
    for (const PeerRecord &peer : all) {
        const auto placed = m_placement.find(peer.keyId);
        if (placed != m_placement.end() && m_online(peer) && !peer.banned())
            status.stages[std::size_t(placed->second)].peers.append(peer.keyId);
    }
    bool allKnown = true;
    for (std::size_t s = 0; s < rates.size(); ++s) {
        status.stages[s].microbatchesPerSecond = rates[s];
        allKnown = allKnown && rates[s] > 0;
    }
    if (allKnown && !rates.empty())
        status.bottleneck = int(std::min_element(rates.begin(), rates.end()) - rates.begin());
    status.history.assign(m_history.begin(), m_history.end());
    return status;
}

} // namespace swarmtrain
