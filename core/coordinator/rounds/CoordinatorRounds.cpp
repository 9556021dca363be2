#include "CoordinatorRounds.h"

#include "ControlMessages.h"
#include "CoordinatorLog.h"
#include "PeerAddress.h"

#include <QJsonDocument>
#include <QRandomGenerator>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace swarmtrain {

CoordinatorRounds::CoordinatorRounds(CoordinatorStore &store, RoundSettings settings, Clock clock)
    : m_store(store), m_settings(settings), m_clock(std::move(clock))
{
}

std::vector<RoundMember> CoordinatorRounds::assignRanges(std::vector<RoundMember> members, qint64 parameterCount,
                                                         const std::vector<double> &weights)
{
    std::vector<std::size_t> owners;
    for (std::size_t i = 0; i < members.size(); ++i) {
        members[i].begin = members[i].end = 0;
        if (members[i].reachable)
            owners.push_back(i);
    }
    if (owners.empty()) {
        if (members.size() == 1)
            members.front().end = parameterCount;
        return members;
    }
    // Each owner's share; a weight that is missing or not positive counts as the mean of the others.
    std::vector<double> share(owners.size(), 1.0);
    double known = 0.0;
    int knownCount = 0;
    for (std::size_t k = 0; k < owners.size(); ++k) {
        if (owners[k] < weights.size() && weights[owners[k]] > 0.0 && std::isfinite(weights[owners[k]])) {
            known += weights[owners[k]];
            ++knownCount;
        }
    }
    if (knownCount == 0) {
        // Equal shares: the first (parameterCount % owners) owners take one extra element.
        const auto n = qint64(owners.size());
        for (qint64 k = 0; k < n; ++k) {
            RoundMember &owner = members[owners[std::size_t(k)]];
            owner.begin = k * (parameterCount / n) + std::min(k, parameterCount % n);
            owner.end = owner.begin + parameterCount / n + (k < parameterCount % n ? 1 : 0);
        }
        return members;
    }
    for (std::size_t k = 0; k < owners.size(); ++k) {
        const bool has = owners[k] < weights.size() && weights[owners[k]] > 0.0 && std::isfinite(weights[owners[k]]);
        share[k] = has ? weights[owners[k]] : known / knownCount;
    }
    const double total = std::accumulate(share.begin(), share.end(), 0.0);
    // Boundaries at the rounded cumulative shares: contiguous, covering everything exactly.
    double cumulative = 0.0;
    qint64 begin = 0;
    for (std::size_t k = 0; k < owners.size(); ++k) {
        cumulative += share[k];
        const qint64 end = k + 1 == owners.size() ? parameterCount
                                                   : std::clamp<qint64>(qint64(std::llround(double(parameterCount) * cumulative / total)),
                                                                        begin, parameterCount);
        members[owners[k]].begin = begin;
        members[owners[k]].end = end;
        begin = end;
    }
    return members;
}

std::optional<QString> CoordinatorRounds::majorityHash(const std::vector<QString> &hashes)
{
    std::map<QString, std::size_t> votes;
    for (const QString &hash : hashes)
        ++votes[hash];
    for (const auto &[hash, count] : votes) {
        if (2 * count > hashes.size())
            return hash;
    }
    return std::nullopt;
}

std::optional<QString> CoordinatorRounds::weightedMajority(const std::vector<std::pair<QString, double>> &votes)
{
    std::map<QString, double> weights;
    double total = 0.0;
    for (const auto &[hash, weight] : votes) {
        weights[hash] += weight;
        total += weight;
    }
    for (const auto &[hash, weight] : weights) {
        if (total > 0.0 && 2.0 * weight > total)
            return hash;
    }
    return std::nullopt;
}

std::optional<QString> CoordinatorRounds::agreedHash(const std::vector<ContributionRecord> &reports,
                                                     const std::vector<PeerRecord> &peers) const
{
    std::map<QString, const PeerRecord *> byKey;
    for (const PeerRecord &peer : peers)
        byKey[peer.keyId] = &peer;
    std::vector<std::pair<QString, double>> established;
    std::vector<QString> everyone;
    std::vector<std::pair<QString, QString>> fresh; // (subnet, hash)
    for (const ContributionRecord &report : reports) {
        everyone.push_back(report.paramsHash);
        const auto peer = byKey.find(report.keyId);
        const QString subnet = peer != byKey.end() ? subnetOf(QHostAddress(peer->second->address)) : QString();
        fresh.emplace_back(subnet, report.paramsHash);
        if (peer != byKey.end() && m_established && m_established(*peer->second))
            established.emplace_back(report.paramsHash, double(std::max<qint64>(peer->second->tokens, 1)));
    }
    if (!established.empty())
        return weightedMajority(established);
    return m_established && m_settings.votePerSubnet ? weightedMajority(subnetVotes(fresh)) : majorityHash(everyone);
}

std::vector<std::pair<QString, double>> CoordinatorRounds::subnetVotes(const std::vector<std::pair<QString, QString>> &reports)
{
    std::map<QString, double> reporters;
    for (const auto &[subnet, hash] : reports)
        ++reporters[subnet];
    std::vector<std::pair<QString, double>> votes;
    for (const auto &[subnet, hash] : reports)
        votes.emplace_back(hash, 1.0 / reporters[subnet]);
    return votes;
}

bool CoordinatorRounds::isOnline(const PeerRecord &peer) const { return peer.lastSeenMs >= onlineSinceMs(); }

qint64 CoordinatorRounds::onlineSinceMs() const
{
    return m_clock() - qint64(m_settings.missedHeartbeats) * m_settings.heartbeatIntervalMs;
}

Result<RoundRecord> CoordinatorRounds::initialize(qint64 firstRound)
{
    Result<std::optional<RoundRecord>> existing = m_store.currentRound();
    if (!existing)
        return existing.error();
    if (*existing)
        return **existing;
    RoundRecord round;
    round.number = firstRound;
    round.gatheringSinceMs = m_clock();
    if (Result<void> saved = m_store.saveRound(round); !saved && !lostRace(saved.error()))
        return saved.error();
    return current(); // the one saved, or the one another instance on the same database made first
}

Result<RoundRecord> CoordinatorRounds::current()
{
    Result<std::optional<RoundRecord>> round = m_store.knownCurrentRound();
    if (!round)
        return round.error();
    if (!*round)
        return makeError("the coordinator has no round yet");
    return **round;
}

Result<void> CoordinatorRounds::advance()
{
    if (!m_leader)
        return {};
    if (!m_stallSuspects.empty()) {
        if (Result<void> judged = judgeStallers(m_clock()); !judged)
            return judged;
    }
    // A round can finish and the next one start at the same moment.
    for (int step = 0; step < 3; ++step) {
        Result<RoundRecord> round = current();
        if (!round)
            return round.error();
        const RoundState before = round->state;
        const qint64 number = round->number;
        const qint64 nowMs = m_clock();
        Result<void> done = before == RoundState::Gathering ? maybeStart(*round, nowMs)
                            : before == RoundState::Running ? maybeFinish(*round, nowMs)
                                                            : Result<void>();
        // A write that lost to another instance moving the round first is no failure: the round
        // went on, and this instance carries on from where it is now.
        if (!done && !lostRace(done.error()))
            return done;
        Result<RoundRecord> after = current();
        if (!after)
            return after.error();
        if (after->state == before && after->number == number && done)
            return {};
    }
    return {};
}

Result<CoordinatorRounds::Candidates> CoordinatorRounds::candidates(const RoundRecord &round,
                                                                   const std::vector<PeerRecord> &peers, qint64 nowMs)
{
    const RoundBudget &budget = m_settings.budget;
    // An asynchronous round also takes peers that trained on an older state, once its own state
    // is served: they fetch it to apply the round's step.
    Result<std::optional<CheckpointRecord>> served =
        budget.async ? m_store.checkpoint(round.number) : Result<std::optional<CheckpointRecord>>(std::nullopt);
    if (!served)
        return served.error();
    const auto baseAdmitted = [&](qint64 staleness) {
        return staleness == 0 || (budget.async && staleness > 0 && staleness <= budget.maxStaleness && *served);
    };
    // When a peer began training on its state: as the round of that state began gathering.
    const auto trainingSince = [&](qint64 base) {
        if (base == round.number)
            return round.gatheringSinceMs;
        Result<std::optional<RoundRecord>> before = m_store.round(base);
        return before && *before ? (*before)->gatheringSinceMs : round.gatheringSinceMs;
    };
    Candidates c;
    for (const PeerRecord &peer : peers) {
        if (heldBy(peer, round, nowMs)) {
            c.held = true;
            continue;
        }
        // A peer checking an established member's work (Verification) sits this round out, and
        // one whose owner paused it (a game, the battery) is not waited for until it trains again.
        if (!isOnline(peer) || peer.banned() || peer.state == QLatin1StringView("verifying")
            || peer.state == QLatin1StringView("paused"))
            continue;
        // A budgeted round waits for no one idle: a straggler sitting rounds out, a newcomer
        // that has not trained yet (it joins the next round).
        if (m_settings.budget.enabled && peer.state == QLatin1StringView("idle"))
            continue;
        // A member that stalled the round before sits this one out.
        if (m_benched.contains(peer.keyId))
            continue;
        const qint64 staleness = round.number - peer.baseRound;
        const bool readyHere = peer.state == QLatin1StringView("ready") && baseAdmitted(staleness);
        if (readyHere && !stepsAdmitted(peer, nowMs - trainingSince(peer.baseRound)))
            continue;
        if (readyHere) {
            m_leftBehind.erase(peer.keyId);
        } else if (const auto behind = m_leftBehind.find(peer.keyId);
                   behind != m_leftBehind.end() && behind->second >= m_settings.leftBehindRounds) {
            continue; // "training" round after round, never ready: waited for no more
        }
        ++c.online;
        if (!readyHere) {
            c.training.push_back(peer.keyId);
            m_readySince.erase(peer.keyId);
            c.stepsToCome += double(budget.expectedSteps(peer.tokensPerSecond, budgetMs()));
            continue;
        }
        c.readySteps += double(peer.innerSteps);
        c.ready.push_back({peer.keyId, peer.reachable, 0, 0, false, budget.enabled ? peer.innerSteps : 0, staleness});
        c.readyEstablished.push_back(established(peer));
        auto since = m_readySince.try_emplace(peer.keyId, peer.baseRound, nowMs).first;
        if (since->second.first != peer.baseRound)
            since->second = {peer.baseRound, nowMs};
        c.firstReadyMs = std::min(c.firstReadyMs.value_or(since->second.second), since->second.second);
    }
    return c;
}

Result<void> CoordinatorRounds::maybeStart(RoundRecord round, qint64 nowMs)
{
    // Only online peers can hold the state, be waited for or start a round.
    Result<std::vector<PeerRecord>> peers = m_store.peersSeenSince(onlineSinceMs());
    if (!peers)
        return peers.error();
    // A round starts from a state the coordinator holds, recomputed from the one before: the
    // state it makes is then checked the same way, and nothing is taken on an agreed hash alone.
    // Until it holds it, the round waits for its upload or goes back (recoverLostState).
    Result<std::optional<CheckpointRecord>> start = m_store.checkpoint(round.number);
    if (!start)
        return start.error();
    if (!*start) {
        Result<bool> wentBack = recoverLostState(round, *peers, nowMs);
        return wentBack ? Result<void>() : Result<void>(wentBack.error());
    }
    Result<Candidates> gathered = candidates(round, *peers, nowMs);
    if (!gathered)
        return gathered.error();
    auto &[ready, readyEstablished, online, training, held, firstReadyMs, readySteps, stepsToCome] = *gathered;
    const RoundBudget &budget = m_settings.budget;
    // Newcomers on probation own no range while established members are there to own them: they
    // take part as if they accepted no connections, and their pieces stay out of the average.
    if (std::find(readyEstablished.begin(), readyEstablished.end(), true) != readyEstablished.end()) {
        for (std::size_t i = 0; i < ready.size(); ++i) {
            ready[i].reachable = ready[i].reachable && readyEstablished[i];
            ready[i].probation = !readyEstablished[i];
        }
    }
    const bool enoughReady = !ready.empty() && ready.size() >= std::size_t(std::max(m_settings.minPeers, 1));
    const bool everyoneReady = enoughReady && ready.size() == online;
    // A budgeted round waits for its budget and a step's grace, not the gather timeout: nobody
    // sits idle for a member that is slow, paused or gone. An asynchronous one waits for no one
    // still training: only a short window for peers finishing with the first one.
    const qint64 budgetNow = budgetMs();
    const qint64 waitMs = budgetNow > 0 ? budgetNow + std::max<qint64>(2'000, budgetNow / 5) : m_settings.gatherTimeoutMs;
    const bool gatheredLongEnough =
        enoughReady && (budget.async ? nowMs - *firstReadyMs >= budget.asyncWindowMs(budgetNow)
                                     : nowMs - round.gatheringSinceMs >= waitMs);
    if (held || (!everyoneReady && !gatheredLongEnough))
        return {};
    const bool anyOwner = std::any_of(ready.begin(), ready.end(), [](const RoundMember &m) { return m.reachable; });
    if (!anyOwner && ready.size() > 1) {
        qCWarning(lcCoordinator) << "round" << round.number << "waits: none of the" << ready.size()
                                 << "ready peers accepts connections, so no one can own a range";
        return {};
    }
    round.state = RoundState::Running;
    round.startedMs = nowMs;
    // Who checks whom: drawn now that the members are fixed, so that none of them can steer it.
    do
        round.checkSeed = QRandomGenerator::system()->generate64();
    while (round.checkSeed == 0);
    round.share = budget.async && readySteps > 0.0 ? std::max(readySteps / (readySteps + stepsToCome), 1e-6) : 1.0;
    // The inner schedule counts the swarm's tokens, in steps of one of its peers.
    round.scheduleAdvance = budget.enabled ? std::max<qint64>(1, std::llround(readySteps / double(std::max<std::size_t>(online, 1))))
                                           : budget.nominalSteps;
    round.deadlineMs = nowMs + m_settings.roundDeadlineMs;
    const std::vector<double> weights = m_ownerWeights ? m_ownerWeights(ready) : std::vector<double>();
    round.members = assignRanges(std::move(ready), m_settings.parameterCount, weights);
    std::erase_if(m_holds, [&](const auto &hold) {
        return hold.second.released || nowMs >= hold.second.untilMs;
    });
    for (const RoundMember &member : round.members)
        m_readySince.erase(member.keyId);
    // Those it waited for and starts without: a peer left behind round after round is not
    // waited for again (candidates) until it is ready. An asynchronous round waits for no one
    // training, by design: its peers still training count in its share as ever.
    if (!budget.async) {
        for (const QString &keyId : training)
            ++m_leftBehind[keyId];
    }
    m_benched.clear(); // they sat this one out
    updateBudget(*peers);
    qCInfo(lcCoordinator).noquote().nospace() << "round " << round.number << " attempt " << round.attempt << " runs with "
                                    << round.members.size() << " members"
                                    << (budget.async ? QStringLiteral(", %1% of the swarm's work").arg(qRound(100.0 * round.share))
                                                     : QString());
    return m_store.saveRound(round);
}

void CoordinatorRounds::releaseHold(const QString &keyId)
{
    if (const auto hold = m_holds.find(keyId); hold != m_holds.end())
        hold->second.released = true;
}

bool CoordinatorRounds::heldBy(const PeerRecord &peer, const RoundRecord &round, qint64 nowMs) const
{
    // An asynchronous round waits for no one: a verifier back from its check joins a later one.
    const auto hold = m_holds.find(peer.keyId);
    if (m_settings.budget.async || hold == m_holds.end() || nowMs >= hold->second.untilMs || !isOnline(peer)
        || peer.banned())
        return false;
    // A straggler of a budgeted swarm, back from its check, sits the rounds out again.
    if (hold->second.released && m_settings.budget.enabled && peer.state == QLatin1StringView("idle"))
        return false;
    // Back from the check, it trains its inner steps like everyone and says it is ready.
    return !hold->second.released || peer.state != QLatin1StringView("ready") || peer.baseRound != round.number;
}

QString CoordinatorRounds::uploaderAmong(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts)
{
    const auto owns = [&](const QString &keyId) {
        return std::any_of(round.members.begin(), round.members.end(),
                           [&](const RoundMember &m) { return m.keyId == keyId && m.end > m.begin; });
    };
    QString uploader;
    for (const ContributionRecord &verdict : verdicts) {
        if (verdict.accepted.value_or(false) && (uploader.isEmpty() || (owns(verdict.keyId) && !owns(uploader))))
            uploader = verdict.keyId;
    }
    return uploader;
}

Result<void> CoordinatorRounds::maybeFinish(RoundRecord round, qint64 nowMs)
{
    Result<std::vector<ContributionRecord>> reports = m_store.contributions(round.number, round.attempt);
    if (!reports)
        return reports.error();
    std::set<QString> reported;
    for (const ContributionRecord &report : *reports)
        reported.insert(report.keyId);
    // A member that stopped sending heartbeats (killed, unplugged) is not waited for.
    Result<std::vector<PeerRecord>> peers = m_store.peersSeenSince(onlineSinceMs());
    if (!peers)
        return peers.error();
    std::set<QString> online;
    for (const PeerRecord &peer : *peers) {
        if (!peer.banned())
            online.insert(peer.keyId);
    }
    // Nor is one that stalls it: no commitment, no report, long after the round started.
    Result<std::set<QString>> stalled = stalledMembers(round, reported, nowMs);
    if (!stalled)
        return stalled.error();
    const bool everyoneReported = std::all_of(round.members.begin(), round.members.end(), [&](const RoundMember &m) {
        return reported.count(m.keyId) > 0 || online.count(m.keyId) == 0 || stalled->count(m.keyId) > 0;
    });
    if (!everyoneReported && nowMs < round.deadlineMs)
        return {};
    benchStalled(round, *stalled, *peers);

    // The reporters, online or not: their standing weighs their votes.
    std::vector<PeerRecord> reporters;
    for (const ContributionRecord &report : *reports) {
        Result<std::optional<PeerRecord>> reporter = m_store.peer(report.keyId);
        if (!reporter)
            return reporter.error();
        if (*reporter)
            reporters.push_back(std::move(**reporter));
    }
    Result<std::set<QString>> overruled = std::set<QString>();
    if (m_overruled)
        overruled = m_overruled(round);
    if (!overruled)
        return overruled.error();
    std::vector<ContributionRecord> voting = *reports;
    std::erase_if(voting, [&](const ContributionRecord &r) { return overruled->contains(r.keyId); });
    const std::optional<QString> agreed = agreedHash(voting, reporters);
    std::vector<ContributionRecord> verdicts = *reports;
    for (ContributionRecord &verdict : verdicts) {
        const bool accepted = agreed && verdict.paramsHash == *agreed && !overruled->contains(verdict.keyId);
        verdict.accepted = accepted;
        verdict.credit = accepted ? double(verdict.tokens) * m_settings.creditPerToken : 0.0;
    }
    // recoverLostState asks others if the new state does not come.
    const QString uploader = uploaderAmong(round, verdicts);
    if (!agreed) {
        qCWarning(lcCoordinator) << "round" << round.number << "attempt" << round.attempt << "ended without a majority"
                                 << "of" << reports->size() << "reports; gathering it again";
        RoundRecord again;
        again.number = round.number;
        again.attempt = round.attempt + 1;
        again.gatheringSinceMs = nowMs;
        again.revision = round.revision;
        return m_store.closeRound(again, verdicts, std::nullopt);
    }
    Result<std::optional<CheckpointRecord>> held = m_store.checkpoint(round.number + 1);
    if (!held)
        return held.error();
    round.state = RoundState::Done;
    round.finishedMs = nowMs;
    round.agreedHash = *agreed;
    round.uploaderKeyId = *held ? QString() : uploader;
    RoundRecord next;
    next.number = round.number + 1;
    next.gatheringSinceMs = nowMs;
    qCInfo(lcCoordinator) << "round" << round.number << "done:" << reports->size() << "reports, agreed hash"
                          << agreed->left(16);
    if (Result<void> closed = m_store.closeRound(round, verdicts, next); !closed)
        return closed;
    if (Result<void> spent = spendReadiness(round); !spent)
        return spent;
    return m_onClosed ? m_onClosed(round, verdicts) : Result<void>();
}

Result<void> CoordinatorRounds::spendReadiness(const RoundRecord &done)
{
    // The "ready" that made each member is spent (a round run again takes it once more): they
    // train on the next state now. Left until a member's next heartbeat, an asynchronous round
    // could take it again as a stale member, with this round's steps and base, for work it never
    // did, and a spot check of that round would replay those steps and refute an honest peer.
    for (const RoundMember &member : done.members) {
        if (Result<void> spent = m_store.spendReadiness(member.keyId, done.number + 1); !spent)
            return spent;
    }
    return {};
}

Result<ContributionVerdict> CoordinatorRounds::contribute(ContributionRecord contribution)
{
    if (Result<void> advanced = advance(); !advanced)
        return advanced.error();
    Result<RoundRecord> round = current();
    if (!round)
        return round.error();
    if (contribution.round != round->number || round->state != RoundState::Running) {
        return makeError("round " + std::to_string(contribution.round) + " is not running (the current round is "
                         + std::to_string(round->number) + ", " + roundStateName(round->state).toStdString() + ")");
    }
    const bool member = std::any_of(round->members.begin(), round->members.end(), [&](const RoundMember &m) {
        return m.keyId == contribution.keyId;
    });
    if (!member)
        return makeError("not a member of round " + std::to_string(round->number));
    contribution.attempt = round->attempt;
    contribution.receivedMs = m_clock();
    // What it is credited with, if accepted: the round's work (a budgeted round: the steps
    // admitted for it when the round started), never what it claims.
    const auto self = std::find_if(round->members.begin(), round->members.end(),
                                   [&](const RoundMember &m) { return m.keyId == contribution.keyId; });
    if (self->steps > 0 && m_settings.budget.tokensPerStep > 0)
        contribution.tokens = self->steps * m_settings.budget.tokensPerStep;
    else if (m_settings.work.tokensPerMember > 0)
        contribution.tokens = m_settings.work.tokensPerMember;
    contribution.accepted.reset();
    contribution.credit = 0;
    if (Result<void> added = m_store.addContribution(contribution); !added)
        return makeError("already reported for round " + std::to_string(round->number));
    if (Result<void> advanced = advance(); !advanced)
        return advanced.error();
    return verdictFor(contribution);
}

Result<ContributionVerdict> CoordinatorRounds::verdictFor(const ContributionRecord &contribution)
{
    Result<std::vector<ContributionRecord>> reports = m_store.contributions(contribution.round, contribution.attempt);
    if (!reports)
        return reports.error();
    const auto stored = std::find_if(reports->begin(), reports->end(), [&](const ContributionRecord &c) {
        return c.keyId == contribution.keyId;
    });
    if (stored == reports->end())
        return makeError("no such contribution");
    ContributionVerdict verdict{stored->accepted, stored->credit, false};
    if (verdict.accepted.value_or(false)) {
        Result<std::optional<RoundRecord>> round = m_store.round(contribution.round);
        Result<std::optional<CheckpointRecord>> held = m_store.checkpoint(contribution.round + 1);
        if (!round || !held)
            return makeError("cannot read the round");
        verdict.uploadCheckpoint = *round && (*round)->uploaderKeyId == contribution.keyId && !*held;
    }
    return verdict;
}

Result<std::optional<std::pair<ContributionRecord, ContributionVerdict>>>
CoordinatorRounds::lastVerdict(const QString &keyId)
{
    using Answer = std::optional<std::pair<ContributionRecord, ContributionVerdict>>;
    Result<std::optional<ContributionRecord>> last = m_store.lastContribution(keyId);
    if (!last)
        return last.error();
    if (!*last)
        return Answer();
    Result<ContributionVerdict> verdict = verdictFor(**last);
    if (!verdict)
        return verdict.error();
    return Answer(std::make_pair(**last, *verdict));
}

qint64 CoordinatorRounds::budgetMs()
{
    if (!m_settings.budget.enabled)
        return 0;
    if (!m_budgetMs) {
        Result<std::vector<PeerRecord>> peers = m_store.peersSeenSince(onlineSinceMs());
        if (!peers)
            return 0; // asked again next time
        updateBudget(*peers);
    }
    return *m_budgetMs;
}

void CoordinatorRounds::updateBudget(const std::vector<PeerRecord> &peers)
{
    if (!m_settings.budget.enabled)
        return;
    std::vector<double> speeds;
    for (const PeerRecord &peer : peers) {
        if (isOnline(peer) && !peer.banned())
            speeds.push_back(peer.tokensPerSecond);
    }
    const qint64 budget = m_settings.budget.budgetMs(speeds);
    if (budget != m_budgetMs.value_or(0) && budget > 0)
        qCInfo(lcCoordinator) << "rounds now last" << double(budget) / 1000.0 << "s of training";
    m_budgetMs = budget;
}

bool CoordinatorRounds::stepsAdmitted(const PeerRecord &peer, qint64 trainedForMs) const
{
    if (!m_settings.budget.enabled)
        return true;
    const Result<DeviceReport> device = DeviceReport::fromJson(QJsonDocument::fromJson(peer.deviceJson).object());
    const Result<void> admitted =
        m_settings.budget.checkSteps(peer.innerSteps, device ? device->flopsPerSecond : 0.0, trainedForMs);
    return admitted.ok();
}

} // namespace swarmtrain
