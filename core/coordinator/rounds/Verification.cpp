#include "Verification.h"

#include "CoordinatorLog.h"
#include "OwnerDisputes.h"
#include "OwnerEvidence.h"

#include <algorithm>
#include <map>
#include <set>

namespace swarmtrain {

namespace {

bool isMember(const RoundRecord &round, const QString &keyId)
{
    return std::any_of(round.members.begin(), round.members.end(), [&](const RoundMember &m) { return m.keyId == keyId; });
}

} // namespace

Verification::Verification(CoordinatorStore &store, CoordinatorRounds &rounds, Reputation &reputation,
                           const TrustSettings &settings, std::filesystem::path updatesDir, Clock clock)
    : m_store(store)
    , m_rounds(rounds)
    , m_reputation(reputation)
    , m_settings(settings)
    , m_updatesDir(std::move(updatesDir))
    , m_clock(std::move(clock))
    , m_random(std::random_device{}())
{
}

Result<void> Verification::commit(const PeerRecord &peer, const CommitRequest &request, int &status)
{
    status = 500;
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return round.error();
    status = 409;
    if (round->state != RoundState::Running || round->number != request.round)
        return makeError("round " + std::to_string(request.round) + " is not running");
    status = 403;
    if (!isMember(*round, peer.keyId))
        return makeError("not a member of round " + std::to_string(round->number));
    // The owners went on with what was committed in time: a piece committed later would be
    // refused by some and taken by others.
    status = 409;
    if (m_clock() >= m_rounds.commitDeadlineMs(*round))
        return makeError("round " + std::to_string(round->number) + "'s commitments are closed");
    // One piece for each owner of the round, none for anyone else.
    status = 400;
    std::map<QString, QString> pieces;
    for (const PieceHash &piece : request.pieces)
        pieces[piece.peerId] = piece.sha256;
    const std::vector<RoundMember> owners = ownersByRange(*round);
    const bool everyOwner = std::all_of(owners.begin(), owners.end(), [&](const RoundMember &o) { return pieces.count(o.keyId); });
    if (pieces.size() != request.pieces.size() || pieces.size() != owners.size() || !everyOwner)
        return makeError("a commitment names each owner of the round's ranges once, and no one else");
    // The very pieces of an earlier round again: a replayed update, not this round's work.
    Result<std::vector<CommitmentRecord>> before = m_store.lastCommitments(peer.keyId, round->number);
    if (!before)
        return before.error();
    const bool replayed = !before->empty() && std::all_of(pieces.begin(), pieces.end(), [&](const auto &piece) {
        return std::any_of(before->begin(), before->end(), [&](const CommitmentRecord &c) { return c.sha256 == piece.second; });
    });
    if (replayed) {
        const QString detail = QStringLiteral("round %1: the update of round %2 again").arg(round->number).arg(before->front().round);
        if (Result<bool> offended = m_reputation.offend(peer.keyId, QStringLiteral("replayed update"), detail, true); !offended)
            return offended.error();
        return makeError(detail.toStdString());
    }
    std::vector<CommitmentRecord> records;
    for (const auto &[owner, sha256] : pieces)
        records.push_back({round->number, round->attempt, peer.keyId, owner, sha256});
    status = 409;
    if (Result<void> added = m_store.addCommitments(records); !added)
        return makeError("already committed for round " + std::to_string(round->number));
    return {};
}

Result<CommitmentsAnswer> Verification::commitmentsTo(const PeerRecord &owner, qint64 roundNumber, int &status)
{
    status = 500;
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return round.error();
    status = 409;
    if (round->state != RoundState::Running || round->number != roundNumber)
        return makeError("round " + std::to_string(roundNumber) + " is not running");
    status = 500;
    Result<std::vector<CommitmentRecord>> all = m_store.commitments(round->number, round->attempt);
    Result<std::vector<PeerRecord>> peers = m_store.peersSeenSince(m_rounds.onlineSinceMs()); // the online ones
    if (!all || !peers)
        return makeError("cannot read the commitments");
    CommitmentsAnswer answer;
    answer.round = round->number;
    // The owners whose ranges the asker checks, as their second owner, and referees (none: empty).
    QString checked, refereed;
    for (const auto &[rangeOwner, checker] : rangeCheckersOf(*round)) {
        if (checker == owner.keyId)
            checked = rangeOwner;
    }
    for (const auto &[rangeOwner, referee] : rangeRefereesOf(*round)) {
        if (referee == owner.keyId)
            refereed = rangeOwner;
    }
    std::set<QString> committed;
    for (const CommitmentRecord &c : *all) {
        committed.insert(c.keyId);
        if (c.ownerKeyId == owner.keyId)
            answer.pieces.push_back({c.keyId, c.sha256});
        else if (!checked.isEmpty() && c.ownerKeyId == checked)
            answer.checked.push_back({c.keyId, c.sha256});
        else if (!refereed.isEmpty() && c.ownerKeyId == refereed)
            answer.refereed.push_back({c.keyId, c.sha256});
    }
    std::set<QString> online;
    for (const PeerRecord &peer : *peers) {
        if (!peer.banned())
            online.insert(peer.keyId);
    }
    // Closed, or everyone who can commit did: the owners need wait no longer.
    const bool closed = m_clock() >= m_rounds.commitDeadlineMs(*round);
    answer.complete = closed || std::all_of(round->members.begin(), round->members.end(), [&](const RoundMember &m) {
                          return committed.count(m.keyId) > 0 || online.count(m.keyId) == 0;
                      });
    for (const RoundMember &m : round->members) {
        if (closed && !committed.contains(m.keyId))
            answer.uncommitted.append(m.keyId);
    }
    answer.rangeRulings = m_settings.rangeRulings;
    answer.checkSeed = round->checkSeed;
    answer.rangeAudits = rangeAudits();
    answer.refereeChecks = refereeChecks();
    return answer;
}

Result<void> Verification::recordReports(const PeerRecord &reporter, qint64 roundNumber, const QStringList &refused,
                                         const QStringList &leftOut, const QStringList &disputed)
{
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return round.error();
    // Only an owner of the running round sees pieces; anyone else's report means nothing.
    const bool owner = std::any_of(round->members.begin(), round->members.end(), [&](const RoundMember &m) {
        return m.keyId == reporter.keyId && m.end > m.begin;
    });
    if (round->state != RoundState::Running || round->number != roundNumber || !owner)
        return {};
    std::vector<UpdateReportRecord> reports;
    const auto add = [&](const QStringList &senders, const QString &kind) {
        for (const QString &sender : senders) {
            if (sender != reporter.keyId && isMember(*round, sender))
                reports.push_back({round->number, round->attempt, reporter.keyId, sender, kind});
        }
    };
    add(refused, QStringLiteral("refused"));
    add(leftOut, QStringLiteral("left_out"));
    // A dispute counts only against the reporter's range partner of this round.
    for (UpdateReportRecord &dispute : admissibleDisputes(*round, reporter.keyId, disputed))
        reports.push_back(std::move(dispute));
    return reports.empty() ? Result<void>() : m_store.addUpdateReports(reports);
}

Result<void> Verification::roundClosed(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts)
{
    std::set<QString> revoked;
    if (Result<void> counted = countReports(round, verdicts, revoked); !counted)
        return counted;
    if (Result<void> judged = judgeDisputes(round, verdicts, revoked); !judged)
        return judged;
    if (Result<void> judged = judgeAudits(round, verdicts, revoked); !judged)
        return judged;
    if (Result<void> judged = judgeVouches(round, verdicts, revoked); !judged)
        return judged;
    if (Result<void> withheld = withholdQuarantined(round, verdicts); !withheld)
        return withheld;
    return drawChecks(round, verdicts, revoked);
}

Result<void> Verification::withholdQuarantined(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts)
{
    // Only the round's reporters can have work to withhold: one lookup each, not a read of every peer.
    for (const ContributionRecord &verdict : verdicts) {
        Result<std::optional<PeerRecord>> peer = m_store.peer(verdict.keyId);
        if (!peer)
            return peer.error();
        if (!*peer || !(*peer)->quarantined)
            continue;
        if (Result<void> taken = revokeAccepted(round, verdicts, verdict.keyId); !taken)
            return taken;
    }
    return {};
}

Result<void> Verification::countReports(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                        std::set<QString> &revoked)
{
    Result<std::vector<UpdateReportRecord>> reports = m_store.updateReports(round.number, round.attempt);
    if (!reports)
        return reports.error();
    std::set<QString> owners;
    for (const RoundMember &owner : ownersByRange(round))
        owners.insert(owner.keyId);
    std::map<QString, std::pair<std::set<QString>, std::set<QString>>> bySender; // refused by, left out by
    for (const UpdateReportRecord &report : *reports) {
        // Disputes and rulings on evidence are judgeDisputes()'.
        const bool refused = report.kind == QLatin1StringView("refused");
        if (!refused && report.kind != QLatin1StringView("left_out"))
            continue;
        auto &[refusedBy, leftOutBy] = bySender[report.senderKeyId];
        (refused ? refusedBy : leftOutBy).insert(report.reporterKeyId);
    }
    for (const auto &[sender, by] : bySender) {
        // Two owners must agree (one, when only one other owner saw the piece): no single owner
        // can get anyone banned.
        const std::size_t needed = std::min<std::size_t>(2, owners.size() - owners.count(sender));
        if (needed == 0)
            continue;
        if (by.first.size() >= needed) {
            const QString detail = QStringLiteral("round %1: %2 range owners refused its pieces").arg(round.number).arg(by.first.size());
            if (Result<bool> offended = m_reputation.offend(sender, QStringLiteral("refused update"), detail); !offended)
                return offended.error();
        } else if (by.second.size() >= needed) {
            // Left out of the averages: its work did not reach the model, so it earns nothing,
            // and it is quarantined: on probation, its pieces out of the average without anyone's
            // clipping and its rounds uncredited, until a spot check (at the newcomers' rate)
            // agrees with its work. Not an offence: CenteredClip judges by distance, which proves
            // nothing. And not a certain check every round, each of which would cost a verifier a
            // round of its own training.
            qCInfo(lcCoordinator).noquote() << "round" << round.number << ":" << by.second.size() << "range owners left out"
                                            << sender << "; quarantined until a spot check agrees with its work";
            if (Result<void> quarantined = m_store.quarantinePeer(sender); !quarantined)
                return quarantined;
        } else {
            continue;
        }
        if (Result<void> taken = revokeAccepted(round, verdicts, sender); !taken)
            return taken;
        revoked.insert(sender);
    }
    return {};
}

Result<void> Verification::revokeAccepted(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                          const QString &keyId)
{
    const bool accepted = std::any_of(verdicts.begin(), verdicts.end(), [&](const ContributionRecord &c) {
        return c.keyId == keyId && c.accepted.value_or(false);
    });
    if (!accepted)
        return {};
    if (Result<void> taken = m_store.revokeContribution(round.number, round.attempt, keyId); !taken)
        return taken;
    return askAnotherForTheState(round.number, keyId);
}

Result<void> Verification::askAnotherForTheState(qint64 roundNumber, const QString &revoked)
{
    Result<std::optional<RoundRecord>> stored = m_store.round(roundNumber);
    if (!stored)
        return stored.error();
    if (!*stored || (*stored)->uploaderKeyId != revoked)
        return {};
    RoundRecord round = **stored;
    // Read after the revocation: `revoked` is no longer accepted.
    Result<std::vector<ContributionRecord>> reports = m_store.contributions(round.number, round.attempt);
    if (!reports)
        return reports.error();
    const QString next = CoordinatorRounds::uploaderAmong(round, *reports);
    qCInfo(lcCoordinator).noquote() << "state" << round.number + 1 << "is asked of"
                                    << (next.isEmpty() ? QStringLiteral("no one yet") : next) << "instead of" << revoked
                                    << ", whose work was taken back";
    round.uploaderKeyId = next;
    return m_store.saveRound(round);
}

Result<void> Verification::drawChecks(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                      const std::set<QString> &revoked)
{
    if (m_settings.spotCheckRate <= 0.0 && m_settings.spotCheckRateNew <= 0.0)
        return {};
    // Verifiers come from the peers online; the members are looked up one by one.
    Result<std::vector<PeerRecord>> peers = m_store.peersSeenSince(m_rounds.onlineSinceMs());
    Result<std::vector<SpotCheckRecord>> open = m_store.openSpotChecks();
    Result<std::vector<CommitmentRecord>> commitments = m_store.commitments(round.number, round.attempt);
    if (!peers || !open || !commitments)
        return makeError("cannot read the peers, checks and commitments");
    std::map<QString, PeerRecord> byKey;
    for (const ContributionRecord &verdict : verdicts) {
        Result<std::optional<PeerRecord>> member = m_store.peer(verdict.keyId);
        if (!member)
            return member.error();
        if (*member)
            byKey[verdict.keyId] = std::move(**member);
    }
    std::set<QString> busy = busyVerifiers(*open), checked, committed;
    for (const SpotCheckRecord &check : *open)
        checked.insert(check.memberKeyId);
    for (const CommitmentRecord &c : *commitments)
        committed.insert(c.keyId);
    std::uniform_real_distribution<double> draw(0.0, 1.0);
    for (const ContributionRecord &verdict : verdicts) {
        // Work already taken back earns nothing a check could confirm.
        const auto member = byKey.find(verdict.keyId);
        if (!verdict.accepted.value_or(false) || revoked.count(verdict.keyId) || member == byKey.end()
            || !committed.count(verdict.keyId))
            continue;
        // One open check of a member at a time: each costs a verifier its round, or the swarm a wait.
        const double rate = established(member->second) ? m_settings.spotCheckRate : m_settings.spotCheckRateNew;
        if (checked.count(verdict.keyId) || !(draw(m_random) < rate))
            continue;
        SpotCheckRecord check;
        check.round = round.number;
        check.attempt = round.attempt;
        check.memberKeyId = verdict.keyId;
        check.assignedMs = m_clock();
        if (Result<void> assigned = assignVerifier(check, *peers, busy, true); !assigned)
            return assigned;
    }
    return {};
}

Result<void> Verification::tasksFor(const QString &keyId, std::optional<qint64> &updateRound,
                                    std::optional<SpotCheckTask> &spotCheck)
{
    // Every heartbeat asks: one read of the open checks, usually none.
    Result<std::vector<SpotCheckRecord>> open = m_store.openSpotChecks();
    if (!open)
        return open.error();
    for (const SpotCheckRecord &check : *open) {
        if (check.memberKeyId == keyId && check.state == SpotCheckState::AwaitingUpdate && !updateRound)
            updateRound = check.round;
    }
    // The check whose update is in first: one still waiting for its member's is only announced.
    auto check = std::find_if(open->begin(), open->end(), [&](const SpotCheckRecord &c) {
        return c.verifierKeyId == keyId && c.state == SpotCheckState::Checking;
    });
    if (check == open->end())
        check = std::find_if(open->begin(), open->end(), [&](const SpotCheckRecord &c) { return c.verifierKeyId == keyId; });
    if (check == open->end())
        return {};
    Result<std::optional<RoundRecord>> round = m_store.round(check->round);
    Result<std::optional<PeerRecord>> member = m_store.peer(check->memberKeyId);
    if (!round || !member)
        return makeError("cannot read the checked round");
    if (!*round || (*round)->attempt != check->attempt || !*member)
        return finish(*check, SpotCheckState::Expired, QStringLiteral("the round was run again"), {});
    SpotCheckTask task;
    task.round = check->round;
    task.peerId = check->memberKeyId;
    task.shards = (*member)->assignedShards;
    for (const RoundMember &owner : ownersByRange(**round))
        task.ranges.emplace_back(owner.begin, owner.end);
    // A budgeted round: the steps admitted for the member, which the verifier runs again.
    for (const RoundMember &m : (*round)->members) {
        if (m.keyId == check->memberKeyId) {
            task.steps = m.steps;
            task.staleness = m.staleness; // an asynchronous round's member trained on an older state
        }
    }
    task.updateReady = check->state == SpotCheckState::Checking;
    spotCheck = std::move(task);
    return {};
}

Result<void> Verification::report(const PeerRecord &verifier, const SpotCheckReport &report, int &status)
{
    status = 500;
    Result<std::optional<SpotCheckRecord>> found = m_store.spotCheck(report.round, report.peerId);
    if (!found)
        return found.error();
    status = 409;
    if (!*found || (*found)->verifierKeyId != verifier.keyId || (*found)->state != SpotCheckState::Checking)
        return makeError("no such check is waiting for this peer's report");
    SpotCheckRecord check = **found;
    status = 500;
    if (!report.failed.isEmpty())
        return finish(check, SpotCheckState::Expired, QStringLiteral("the verifier could not check: %1").arg(report.failed), {});
    check.cosine = report.cosine;
    check.relativeNorm = report.relativeNorm;
    const bool agrees = report.cosine >= m_settings.minCosine && report.relativeNorm >= m_settings.minRelativeNorm
                        && report.relativeNorm <= m_settings.maxRelativeNorm;
    const QString figures = QStringLiteral("round %1: cosine %2, relative norm %3")
                                .arg(check.round).arg(report.cosine, 0, 'f', 4).arg(report.relativeNorm, 0, 'f', 4);
    if (!agrees) {
        // Each check takes an honest verifier out of a round, and a new key costs nothing: a
        // stranger gets one. Refuted by an established member, it is banned at once.
        Result<std::optional<PeerRecord>> member = m_store.peer(check.memberKeyId);
        if (!member)
            return member.error();
        const bool stranger = *member && m_reputation.stranger(**member) && established(verifier);
        if (Result<void> refuted = finish(check, SpotCheckState::Refuted, figures, QStringLiteral("refuted")); !refuted)
            return refuted;
        if (!stranger)
            return {};
        Result<std::optional<PeerRecord>> after = m_store.peer(check.memberKeyId);
        if (!after)
            return after.error();
        if (!*after || (*after)->banned()) // its offences banned it already
            return {};
        return m_reputation.ban(check.memberKeyId, QStringLiteral("its first checked round was refuted (%1)").arg(figures));
    }
    if (Result<void> counted = m_store.countVerifiedRound(check.memberKeyId); !counted)
        return counted;
    return finish(check, SpotCheckState::Agreed, figures, {});
}

Result<void> Verification::expire()
{
    Result<std::vector<SpotCheckRecord>> open = m_store.openSpotChecks();
    if (!open || open->empty())
        return open ? Result<void>() : Result<void>(open.error());
    Result<std::vector<PeerRecord>> peers = m_store.peersSeenSince(m_rounds.onlineSinceMs()); // the online ones
    if (!peers)
        return peers.error();
    const auto online = [&](const QString &keyId) {
        return std::any_of(peers->begin(), peers->end(), [&](const PeerRecord &p) { return p.keyId == keyId && !p.banned(); });
    };
    const auto banned = [&](const QString &keyId) {
        Result<std::optional<PeerRecord>> peer = m_store.peer(keyId);
        return peer && *peer && (*peer)->banned();
    };
    std::set<QString> busy = busyVerifiers(*open);
    const qint64 nowMs = m_clock();
    for (const SpotCheckRecord &check : *open) {
        // The time runs from a verifier's assignment: a check waiting for one never lapses (drawn
        // work is never credited unchecked), and one handed over gets the whole time again.
        const bool assigned = !check.verifierKeyId.isEmpty();
        const bool late = assigned && nowMs - check.assignedMs > m_settings.spotCheckTimeoutMs;
        Result<void> ended;
        if (banned(check.memberKeyId))
            // A banned member sends nothing more: what it was credited with unchecked goes.
            ended = finish(check, SpotCheckState::Refuted, QStringLiteral("it was banned"), {});
        else if (!assigned || (!late && !online(check.verifierKeyId)))
            // Drawn, or its verifier left: another takes it on when one may.
            ended = assignVerifier(check, *peers, busy, false);
        else if (late && check.state == SpotCheckState::AwaitingUpdate)
            // Work that cannot be checked earns nothing; only a member that stayed owes it.
            ended = finish(check, SpotCheckState::Refuted, QStringLiteral("it sent no update"),
                           online(check.memberKeyId) ? QStringLiteral("no update") : QString());
        else if (late)
            ended = finish(check, SpotCheckState::Expired, QStringLiteral("not reported in time"), {});
        if (!ended)
            return ended;
    }
    return {};
}

std::set<QString> Verification::busyVerifiers(const std::vector<SpotCheckRecord> &open)
{
    std::set<QString> busy;
    for (const SpotCheckRecord &check : open) {
        if (check.state == SpotCheckState::Checking && !check.verifierKeyId.isEmpty())
            busy.insert(check.verifierKeyId);
    }
    return busy;
}

const PeerRecord *Verification::pickVerifier(const QString &memberKeyId, const std::vector<PeerRecord> &peers,
                                             const std::set<QString> &busy)
{
    std::vector<const PeerRecord *> free, freeEstablished;
    std::size_t establishedOnline = 0, establishedBusy = 0;
    const std::set<QString> owing = stateOwers();
    for (const PeerRecord &peer : peers) {
        if (!m_rounds.isOnline(peer) || peer.banned())
            continue;
        const bool trusted = established(peer);
        establishedOnline += trusted ? 1 : 0;
        establishedBusy += trusted && busy.count(peer.keyId) ? 1 : 0;
        if (peer.keyId != memberKeyId && !busy.count(peer.keyId) && peer.state != QLatin1StringView("paused"))
            (trusted ? freeEstablished : free).push_back(&peer);
    }
    // A newcomer's word on another's work is worth no more than its own: while established
    // members are online, only they check, and no more than a third of them at once (at least
    // one), so that the rest keep training. A swarm still without any lets anyone check.
    if (establishedOnline > 0 && establishedBusy >= std::max<std::size_t>(1, establishedOnline / 3))
        return nullptr;
    std::vector<const PeerRecord *> pool = establishedOnline > 0 ? freeEstablished : free;
    // A check goes to a peer that replays it in a reasonable time where one is free (issue 43).
    const auto member = std::find_if(peers.begin(), peers.end(), [&](const PeerRecord &p) { return p.keyId == memberKeyId; });
    std::vector<const PeerRecord *> fast = pool;
    std::erase_if(fast, [&](const PeerRecord *peer) { return member != peers.end() && !replayFits(*member, *peer); });
    if (!fast.empty())
        pool = std::move(fast);
    // Stragglers of a budgeted swarm sit rounds out: checking is the role they were offered.
    std::vector<const PeerRecord *> stragglers = pool;
    std::erase_if(stragglers, [&](const PeerRecord *peer) { return !m_rounds.isStraggler(peer->tokensPerSecond); });
    if (!stragglers.empty())
        pool = std::move(stragglers);
    // One that owes the swarm a state checks only when no one else may.
    std::vector<const PeerRecord *> notOwing = pool;
    std::erase_if(notOwing, [&](const PeerRecord *peer) { return owing.count(peer->keyId) > 0; });
    if (!notOwing.empty())
        pool = std::move(notOwing);
    return pool.empty() ? nullptr : pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(m_random)];
}

std::set<QString> Verification::stateOwers()
{
    std::set<QString> owers;
    Result<std::optional<RoundRecord>> current = m_store.currentRound();
    if (!current || !*current)
        return owers;
    for (qint64 n = (*current)->number; n >= std::max<qint64>(0, (*current)->number - 1); --n) {
        Result<std::optional<RoundRecord>> round = m_store.round(n);
        Result<std::optional<CheckpointRecord>> held = m_store.checkpoint(n + 1);
        if (round && *round && (*round)->state == RoundState::Done && held && !*held)
            owers.insert((*round)->uploaderKeyId);
    }
    return owers;
}

Result<void> Verification::assignVerifier(SpotCheckRecord check, const std::vector<PeerRecord> &peers,
                                          std::set<QString> &busy, bool drawn)
{
    const PeerRecord *verifier = pickVerifier(check.memberKeyId, peers, busy);
    if (!check.verifierKeyId.isEmpty())
        m_rounds.releaseHold(check.verifierKeyId); // it left: the round waits for it no more
    if (!verifier && !check.verifierKeyId.isEmpty()) {
        // Its verifier left and no one may take it over yet: the check waits for one.
        check.verifierKeyId.clear();
        return m_store.saveSpotCheck(check);
    }
    if (!verifier && !drawn)
        return {}; // still no one free: the next tick asks again
    // Drawn work is never credited unchecked: with no one free now, the check waits for one.
    check.verifierKeyId = verifier ? verifier->keyId : QString();
    if (verifier) {
        busy.insert(verifier->keyId);
        check.assignedMs = m_clock();
        const auto member = std::find_if(peers.begin(), peers.end(),
                                         [&](const PeerRecord &p) { return p.keyId == check.memberKeyId; });
        if (member != peers.end())
            holdForNewcomer(check, *member);
    }
    qCInfo(lcCoordinator) << "round" << check.round << ":" << (verifier ? verifier->keyId : QStringLiteral("(no one free yet)"))
                          << "will check the work of" << check.memberKeyId;
    return m_store.saveSpotCheck(check);
}

Result<void> Verification::finish(SpotCheckRecord check, SpotCheckState state, const QString &detail,
                                  const QString &offence)
{
    if (!check.updateFile.isEmpty()) {
        std::error_code ec;
        std::filesystem::remove(updatePath(check), ec);
    }
    check.state = state;
    check.detail = detail;
    check.finishedMs = m_clock();
    if (Result<void> saved = m_store.saveSpotCheck(check); !saved)
        return saved;
    m_rounds.releaseHold(check.verifierKeyId);
    qCInfo(lcCoordinator).noquote() << "spot check of" << check.memberKeyId << "by" << check.verifierKeyId << ":"
                                    << spotCheckStateName(state) << "(" << detail << ")";
    if (state != SpotCheckState::Refuted)
        return {};
    if (Result<void> revoked = m_store.revokeContribution(check.round, check.attempt, check.memberKeyId); !revoked)
        return revoked;
    if (offence.isEmpty())
        return {};
    Result<bool> offended = m_reputation.offend(check.memberKeyId, offence, detail);
    return offended ? Result<void>() : Result<void>(offended.error());
}

} // namespace swarmtrain
