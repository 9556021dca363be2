// SwarmWorker's round: the all-reduce, the outer step, the report and the state upload
// (SwarmWorker.cpp has the rest of the loop).
#include "SwarmWorker.h"

#include "CoordinatorClient.h"
#include "CoordinatorSession.h"
#include "DataPlane.h"
#include "FileIo.h"
#include "QtText.h"
#include "Quantization.h"
#include "RangeAverageBlob.h"
#include "RangeRulings.h"
#include "ReplicaTrainer.h"
#include "Sha256.h"
#include "StatsStore.h"
#include "SwarmLog.h"
#include "WorkGate.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <span>

namespace swarmtrain {

namespace {
constexpr int kAllReduceTickMs = 250; // how often heartbeats are considered while averaging
constexpr int kCommitPollMs = 250;    // how often an owner asks for the others' commitments
constexpr std::uint64_t kMaxStateBytes = 16ull << 30;

QString averageSha256(const RangeEvidence &evidence)
{
    return QString::fromStdString(Sha256::hexOf(
        std::span(reinterpret_cast<const std::byte *>(evidence.average.constData()), std::size_t(evidence.average.size()))));
}
} // namespace

Result<void> SwarmWorker::runRound()
{
    Result<RoundAnswer> info = m_session->round();
    if (!info)
        return info.error();
    if (!joinable(info->round) || info->state != QLatin1StringView("running"))
        return {}; // it moved on meanwhile; the next heartbeat says where to
    // An asynchronous round may be newer than the state this peer trained on.
    const qint64 round = info->round;
    setStatus(WorkState::Averaging, tr("Averaging round %1 with the swarm").arg(round));
    const qint64 sentBefore = m_dataPlane->bytesSent(), receivedBefore = m_dataPlane->bytesReceived();
    const CoordinatorClient::Counters httpBefore = m_client->counters();
    const auto averagingStarted = std::chrono::steady_clock::now();
    const std::optional<AllReduceOutcome> outcome = averageRound(round, *info);
    const double averagingSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - averagingStarted).count();
    if (!outcome)
        return {};

    RoundReport report;
    report.round = round;
    report.members = int(info->members.size());
    report.tokens = m_work.tokens;
    report.flops = m_work.flops;
    report.computeSeconds = m_work.seconds;
    report.averagingSeconds = averagingSeconds;
    report.steps = m_work.steps;
    report.budgetSeconds = double(m_budgetMs) / 1000.0;
    const double wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_work.startedSteady).count();
    // The share of the round it trained: computing, or resting between steps as its duty cycle
    // asks (a PC held to a quarter of the time that never waits is fully used, by its owner's
    // measure); what is left is waiting for the round and averaging.
    report.utilisation = wallSeconds > 0.0 ? std::min(1.0, (m_work.seconds + m_work.restSeconds) / wallSeconds) : 0.0;
    m_status.lastRoundSteps = report.steps;
    m_status.lastRoundUtilisation = report.utilisation;
    report.loss = m_work.steps > 0 ? m_work.lossSum / double(m_work.steps) : 0.0;
    report.paramsHash = QString::fromStdString(m_trainer->globalHash());
    report.skippedRanges = int(outcome->skippedRanges.size());
    report.rejectedPieces = int(outcome->rejectedSenders.size());
    // Kept for a spot check until two rounds later.
    m_sentUpdates[round] = outcome->sentUpdate;
    while (m_sentUpdates.size() > 2)
        m_sentUpdates.erase(m_sentUpdates.begin());
    // Kept until two rounds later too: the coordinator recomputes the next state from them.
    m_appliedAverages[round] = outcome->appliedAverages;
    while (m_appliedAverages.size() > 2)
        m_appliedAverages.erase(m_appliedAverages.begin());
    if (!reportRound(report, *outcome, sentBefore, receivedBefore) && m_gate->stopRequested())
        return {};

    const CoordinatorClient::Counters httpAfter = m_client->counters();
    report.bytesUp = m_dataPlane->bytesSent() - sentBefore + httpAfter.bytesUp - httpBefore.bytesUp;
    report.bytesDown = m_dataPlane->bytesReceived() - receivedBefore + httpAfter.bytesDown - httpBefore.bytesDown;
    Contribution record;
    record.round = round;
    record.swarm = m_options.swarmUrl;
    record.startedAt = m_work.startedAt.isValid() ? m_work.startedAt : QDateTime::currentDateTimeUtc();
    record.finishedAt = QDateTime::currentDateTimeUtc();
    record.tokens = report.tokens;
    record.flops = report.flops;
    record.computeSeconds = report.computeSeconds;
    record.bytesUp = report.bytesUp;
    record.bytesDown = report.bytesDown;
    if (Result<void> recorded = m_stats->recordContribution(record); !recorded)
        qCWarning(lcWorker).noquote() << toQString(recorded.error());
    else if (report.verdictKnown)
        (void)m_stats->markAccepted(record.swarm, round, report.accepted, report.credit);

    m_work = {};
    if (Result<void> saved = m_trainer->saveGlobalState(replicaFile()); !saved)
        return saved.error();
    Q_EMIT roundFinished(report);
    return {};
}

std::optional<AllReduceOutcome> SwarmWorker::averageRound(qint64 round, const RoundAnswer &info)
{
    QList<AllReduceMember> members;
    QHash<QString, QByteArray> keys;
    for (const RoundMemberInfo &m : info.members) {
        // A budgeted round weighs each member by the steps the coordinator admitted for it.
        members.append({m.peerId, m.reachable ? m.endpoint : QString(), m.begin, m.end, m.probation,
                         m.steps > 0 ? double(m.steps) : 1.0, m.staleness});
        keys.insert(m.peerId, m.publicKey);
    }
    m_dataPlane->setKnownPeers(keys);

    AllReduceOptions options;
    options.timeoutMs = int(std::clamp<qint64>(info.deadlineMs - QDateTime::currentMSecsSinceEpoch(), 2'000, 30 * 60'000));
    options.misbehaviour = m_options.misbehaviour;
    options.share = info.share;
    // What the frames say this peer trained (owners weigh by the coordinator's word, not this).
    const double tokens = double(std::max<qint64>(m_tokensPerStep * m_trainer->innerStepsDone(), 1));
    const qint64 heartbeatMs = m_session->joined().heartbeatIntervalMs;
    if (m_options.misbehaviour.stall) {
        // Hostile (tests only): holds its round as long as the coordinator lets it.
        for (Result<RoundAnswer> now = m_session->round(); now && now->round == round && now->state == QLatin1StringView("running")
                                                         && !m_gate->stopRequested();
             now = m_session->round()) {
            heartbeatIfDue(QStringLiteral("training"));
            m_gate->sleepFor(kCommitPollMs);
        }
        return std::nullopt;
    }
    // The pieces first, committed to before anyone sees another's.
    Result<QHash<QString, QByteArray>> hashes =
        m_dataPlane->preparePieces(quint64(round), members, m_trainer->pseudoGradient(), m_options.misbehaviour);
    Result<void> committed = hashes ? commitPieces(round, *hashes, info, options) : Result<void>(hashes.error());
    if (!committed) {
        if (!m_gate->stopRequested())
            qCWarning(lcWorker).noquote() << "round" << round << ":" << toQString(committed.error());
        return std::nullopt;
    }
    Result<AllReduceOutcome> outcome = m_dataPlane->allReduce(
        quint64(round), members, {}, tokens, options,
        [this] {
            heartbeatIfDue(QStringLiteral("training"));
            return !m_gate->stopRequested();
        },
        int(std::min<qint64>(kAllReduceTickMs, heartbeatMs)));
    if (!outcome) {
        // Not fatal: the round goes on without us and we catch up from the swarm's state.
        if (!m_gate->stopRequested())
            qCWarning(lcWorker).noquote() << "round" << round << ":" << toQString(outcome.error());
        return std::nullopt;
    }
    for (const QString &sender : outcome->rejectedSenders)
        qCWarning(lcWorker).noquote() << "round" << round << ": refused the update of" << sender;
    settleRanges(round, info, *outcome);
    // An asynchronous member that trained on an older state applies the round's step to the
    // round's own state, which it fetches now (its pieces went out from the state it trained on).
    if (round != m_trainer->round()) {
        Result<std::filesystem::path> file = downloadState(round);
        Result<void> loaded = file ? m_trainer->loadGlobalState(*file) : Result<void>(file.error());
        if (file)
            removeDownloadedState(*file);
        if (!loaded || m_trainer->round() != round) {
            qCWarning(lcWorker).noquote() << "round" << round << ": cannot fetch the round's state:"
                                          << (loaded ? QStringLiteral("it is of another round") : toQString(loaded.error()));
            m_catchUpNeeded = true;
            return std::nullopt;
        }
    }
    // The inner schedule moves as far as the coordinator says the round's tokens take it.
    const std::int64_t advance = info.scheduleAdvance > 0 ? info.scheduleAdvance : -1;
    if (Result<void> applied = m_trainer->applyOuterStep(outcome->average, advance); !applied) {
        // Every member got the same average; ours is refused, so the swarm's state is needed.
        qCWarning(lcWorker).noquote() << "round" << round << ":" << toQString(applied.error());
        m_resyncAtRound = round + 1;
        m_work = {};
        return std::nullopt;
    }
    return std::move(outcome).value();
}

std::optional<EvidenceRuling> SwarmWorker::sendEvidence(qint64 round, int attempt, RangeEvidence &evidence, bool disputed)
{
    // Its checker did not agree with this peer's average, or its range is audited: the
    // coordinator rules on the pieces.
    evidence.round = round;
    evidence.attempt = attempt;
    Result<EvidenceRuling> ruling = m_session->sendEvidence(evidence);
    if (!ruling) {
        qCWarning(lcWorker).noquote() << "round" << round << ": the evidence of this peer's range was not taken:"
                                      << toQString(ruling.error());
        return std::nullopt;
    }
    if (!ruling->upheld)
        qCWarning(lcWorker).noquote() << "round" << round << ": the coordinator found this peer's average wrong:" << ruling->why;
    else if (disputed)
        qCInfo(lcWorker).noquote() << "round" << round << ": the coordinator upheld this peer's average against its checker";
    else
        qCInfo(lcWorker).noquote() << "round" << round << ": the coordinator audited this peer's average and upheld it";
    return std::move(ruling).value();
}

void SwarmWorker::settleRanges(qint64 round, const RoundAnswer &info, AllReduceOutcome &outcome)
{
    const std::optional<QStringList> audited = m_rangeAudits ? drawnAudit(round, info, outcome) : QStringList();
    skipUnauditedRanges(outcome, audited.value_or(QStringList()));
    const bool ownDisputed = std::any_of(outcome.disputedRanges.begin(), outcome.disputedRanges.end(),
                                         [&](const DisputedRange &range) { return range.owner == m_identity->keyId(); });
    // With no draw in sight this owner sends its evidence anyway: if its range was drawn after
    // all, the coordinator has it.
    std::optional<EvidenceRuling> own;
    if (outcome.evidence && (ownDisputed || !audited || audited->contains(m_identity->keyId())))
        own = sendEvidence(round, info.attempt, *outcome.evidence, ownDisputed);
    // ...and so does a checker that averaged the range of an owner that committed to nothing.
    if (outcome.standIn && (!audited || audited->contains(outcome.standIn->owner))) {
        qCInfo(lcWorker).noquote() << "round" << round << ": sends the evidence of the range of" << outcome.standIn->owner
                                   << ", which this peer averaged in its place";
        sendEvidence(round, info.attempt, outcome.standIn->evidence, false);
    }
    settleDisputes(round, info, outcome, audited.value_or(QStringList()), own);
}

std::optional<QStringList> SwarmWorker::drawnAudit(qint64 round, const RoundAnswer &info, const AllReduceOutcome &outcome)
{
    // This owner names its average, and this checker (and referee) its verdict, before anyone can
    // know which ranges are audited (refused once the audit is drawn: then the range is audited).
    if (outcome.evidence) {
        AverageClaim claim{round, info.attempt, averageSha256(*outcome.evidence), {}};
        for (const auto &[sender, piece] : outcome.evidence->pieces)
            claim.contributors.append(sender);
        if (Result<void> named = m_session->claimAverage(claim); !named)
            qCInfo(lcWorker).noquote() << "round" << round << ": this peer's average was not named for the audit:"
                                       << toQString(named.error());
    }
    for (const std::optional<CheckVerdict> &checked : {outcome.checkVerdict, outcome.refereeVerdict}) {
        if (!checked || checked->averageSha256.size() != 64)
            continue;
        const AverageClaim verdict{round, info.attempt, checked->averageSha256, checked->contributors, checked->owner, checked->agrees};
        if (Result<void> named = m_session->claimAverage(verdict); !named)
            qCInfo(lcWorker).noquote() << "round" << round << ": this peer's verdict on the range of" << checked->owner
                                       << "was not named for the audit:" << toQString(named.error());
    }
    const auto until = std::chrono::steady_clock::now()
                       + std::chrono::milliseconds(std::clamp<qint64>(
                           (info.deadlineMs - QDateTime::currentMSecsSinceEpoch()) / 2, 2'000, 60'000));
    for (;;) {
        Result<RangeAudit> audit = m_session->rangeAudit(round);
        if (audit && audit->drawn) {
            if (!audit->owners.isEmpty())
                qCInfo(lcWorker).noquote() << "round" << round << ": the coordinator audits the ranges of"
                                           << audit->owners.join(QStringLiteral(", "));
            return audit->owners;
        }
        const int status = audit ? 200 : CoordinatorClient::httpStatus(audit.error());
        if (status == 403 || status == 404 || status == 409 || std::chrono::steady_clock::now() >= until
            || m_gate->stopRequested()) {
            if (!m_gate->stopRequested())
                qCWarning(lcWorker).noquote() << "round" << round << ": the coordinator drew no audit"
                                              << (audit ? QStringLiteral("in time") : toQString(audit.error()));
            return std::nullopt;
        }
        heartbeatIfDue(QStringLiteral("training"));
        m_gate->sleepFor(kCommitPollMs);
    }
}

void SwarmWorker::settleDisputes(qint64 round, const RoundAnswer &info, AllReduceOutcome &outcome, const QStringList &audited,
                                 const std::optional<EvidenceRuling> &own)
{
    if (!m_rangeRulings || m_options.misbehaviour.ignoreRulings)
        return; // the referee's word stands
    // The ranges to settle: those disputed, and those audited that were applied or disputed here.
    std::vector<DisputedRange> auditedRanges;
    std::set<QString> owners;
    for (const DisputedRange &range : outcome.disputedRanges)
        owners.insert(range.owner);
    for (const RoundMemberInfo &m : info.members) {
        const bool applied = std::any_of(outcome.appliedAverages.begin(), outcome.appliedAverages.end(),
                                         [&](const RangeAverage &a) { return a.begin == m.begin; });
        if (audited.contains(m.peerId) && m.end > m.begin && (applied || owners.contains(m.peerId))) {
            auditedRanges.push_back({m.peerId, m.begin, m.end, {}});
            owners.insert(m.peerId);
        }
    }
    // The owner sends its evidence once its all-reduce is over, as this peer's is: wait for it a
    // while, never past half the time the round has left.
    const auto until = std::chrono::steady_clock::now()
                       + std::chrono::milliseconds(std::clamp<qint64>(
                           (info.deadlineMs - QDateTime::currentMSecsSinceEpoch()) / 2, 2'000, 30'000));
    std::map<QString, RangeRuling> rulings;
    for (const QString &owner : owners) {
        if (owner == m_identity->keyId()) {
            if (own && outcome.evidence)
                rulings[owner] = {round, owner, own->upheld ? RangeRuling::State::Upheld : RangeRuling::State::Refuted,
                                  averageSha256(*outcome.evidence)};
            continue;
        }
        Result<RangeRuling> ruling = m_session->rangeRuling(round, owner);
        while ((!ruling || ruling->state == RangeRuling::State::Pending) && std::chrono::steady_clock::now() < until
               && !m_gate->stopRequested()) {
            heartbeatIfDue(QStringLiteral("training"));
            m_gate->sleepFor(kCommitPollMs);
            ruling = m_session->rangeRuling(round, owner);
        }
        if (ruling && ruling->state != RangeRuling::State::Pending)
            rulings[owner] = *ruling;
        const char *state = !ruling || ruling->state == RangeRuling::State::Pending ? "gave no ruling on"
                            : ruling->state == RangeRuling::State::Upheld        ? "upheld"
                                                                                 : "refuted";
        qCInfo(lcWorker).noquote() << "round" << round << ": the coordinator" << state << "the average of" << owner;
    }
    if (Result<void> settled = settleDisputedRanges(outcome, rulings); !settled)
        qCWarning(lcWorker).noquote() << "round" << round << ":" << toQString(settled.error());
    settleAuditedRanges(outcome, auditedRanges, rulings, redoneRanges(round, auditedRanges, rulings));
}

std::map<QString, QByteArray> SwarmWorker::redoneRanges(qint64 round, const std::vector<DisputedRange> &audited,
                                                        const std::map<QString, RangeRuling> &rulings)
{
    std::map<QString, QByteArray> redone;
    for (const DisputedRange &range : audited) {
        const auto ruling = rulings.find(range.owner);
        if (ruling == rulings.end() || ruling->second.state != RangeRuling::State::Refuted || ruling->second.redoneSha256.isEmpty())
            continue;
        // One range at a time, never resumed from another's part.
        const std::filesystem::path file = m_options.stateDir / "redone-range";
        std::error_code ec;
        std::filesystem::remove(m_options.stateDir / "redone-range.part", ec);
        Result<void> got = m_session->download(QStringLiteral("/v1/round/redone?round=%1&owner=%2").arg(round).arg(range.owner),
                                               file, ruling->second.redoneSha256);
        Result<std::vector<std::byte>> bytes =
            got ? readFileBytes(file, encodedQuantizedSize(std::size_t(range.end - range.begin))) : Result<std::vector<std::byte>>(got.error());
        std::filesystem::remove(file, ec);
        if (!bytes) {
            qCWarning(lcWorker).noquote() << "round" << round << ": cannot fetch the range of" << range.owner
                                          << "as the coordinator recomputed it:" << toQString(bytes.error());
            continue;
        }
        qCInfo(lcWorker).noquote() << "round" << round << ": applies the range of" << range.owner
                                   << "as the coordinator recomputed it from its pieces";
        redone[range.owner] = QByteArray(reinterpret_cast<const char *>(bytes->data()), qsizetype(bytes->size()));
    }
    return redone;
}

Result<void> SwarmWorker::commitPieces(qint64 round, const QHash<QString, QByteArray> &hashes, const RoundAnswer &info,
                                       AllReduceOptions &options)
{
    m_rangeRulings = m_rangeAudits = false; // until this round's commitments say otherwise
    CommitRequest request{round, {}};
    for (auto it = hashes.cbegin(); it != hashes.cend(); ++it)
        request.pieces.push_back({it.key(), QString::fromLatin1(it.value())});
    if (Result<void> sent = m_session->commit(request); !sent) {
        if (CoordinatorClient::httpStatus(sent.error()) != 404)
            return makeError("the commitment was not taken: " + sent.error().message);
        options.rangeChecks = false; // a coordinator from before commitments
        return {};
    }
    // Until every member committed, or the commitments close, or a quarter of the time left: a
    // member that has not by then is left out of this peer's range, and one the coordinator
    // names as uncommitted (a stalling stranger) is waited for by no one.
    const auto until = std::chrono::steady_clock::now()
                       + std::chrono::milliseconds(std::clamp<qint64>(
                           (info.deadlineMs - QDateTime::currentMSecsSinceEpoch()) / 4, 2'000, 60'000));
    for (;;) {
        Result<CommitmentsAnswer> answer = m_session->commitments(round);
        if (!answer)
            return answer.error();
        if (answer->complete || std::chrono::steady_clock::now() >= until || m_gate->stopRequested()) {
            const auto bySender = [](const std::vector<PieceHash> &pieces) {
                QHash<QString, QByteArray> hashesBySender;
                for (const PieceHash &piece : pieces)
                    hashesBySender.insert(piece.peerId, piece.sha256.toLatin1());
                return hashesBySender;
            };
            options.commitments = bySender(answer->pieces);
            options.checkedCommitments = bySender(answer->checked);
            options.refereedCommitments = bySender(answer->refereed);
            options.uncommitted = answer->uncommitted;
            options.checkSeed = answer->checkSeed;
            m_rangeRulings = answer->rangeRulings;
            m_rangeAudits = options.keepEvidence = answer->rangeRulings && answer->rangeAudits;
            options.refereeChecks = answer->rangeRulings && answer->refereeChecks;
            return {};
        }
        heartbeatIfDue(QStringLiteral("training"));
        m_gate->sleepFor(kCommitPollMs);
    }
}

bool SwarmWorker::reportRound(RoundReport &report, const AllReduceOutcome &outcome, qint64 sentBefore,
                              qint64 receivedBefore)
{
    ContributionRequest contribution;
    contribution.round = report.round;
    contribution.tokens = report.tokens;
    contribution.flops = report.flops;
    contribution.seconds = report.computeSeconds;
    contribution.loss = report.loss;
    contribution.paramsHash =
        m_options.misbehaviour.reportedHash.isEmpty() ? report.paramsHash : m_options.misbehaviour.reportedHash;
    contribution.bytesUp = m_dataPlane->bytesSent() - sentBefore;
    contribution.bytesDown = m_dataPlane->bytesReceived() - receivedBefore;
    contribution.refused = outcome.rejectedSenders;
    contribution.leftOut = outcome.leftOutSenders;
    contribution.disputed = outcome.disputed;
    for (const RangeAverage &average : outcome.appliedAverages)
        contribution.averages.push_back({average.begin, QString::fromStdString(Sha256::hexOf(average.payload))});
    Result<ContributionAnswer> verdict = m_session->contribute(contribution);
    if (!verdict) {
        // The round closed without us (its deadline passed); the state may still agree.
        if (!m_gate->stopRequested()) {
            qCWarning(lcWorker).noquote() << "round" << report.round << ": the contribution was not taken:"
                                          << toQString(verdict.error());
        }
        return false;
    }
    m_contributedRound = report.round;
    report.verdictKnown = verdict->accepted.has_value();
    report.accepted = verdict->accepted.value_or(false);
    if (report.verdictKnown && !report.accepted)
        replicaRejected(report.round); // our contribution closed the round
    report.credit = verdict->credit;
    if (verdict->uploadCheckpoint)
        report.uploadedState = uploadState(report.round + 1);
    return true;
}

bool SwarmWorker::uploadState(qint64 stateRound)
{
    m_uploadRound.reset();
    if (!m_trainer || m_trainer->round() != stateRound)
        return false; // we no longer hold that state
    // The coordinator recomputes the state from the one before and the round's averages: they go
    // first. Without them (a restart lost them) it would refuse the state; it asks the round's
    // other members in turn, then runs the round again.
    const auto averages = m_appliedAverages.find(stateRound - 1);
    if (averages == m_appliedAverages.end()) {
        if (m_unsendableRound != stateRound)
            qCWarning(lcWorker) << "cannot send state" << stateRound << ": the averages of round" << stateRound - 1
                                << "are no longer here";
        m_unsendableRound = stateRound;
        return false;
    }
    const std::vector<std::byte> blob = encodeRangeAverages(averages->second);
    const QByteArray averagesBody(reinterpret_cast<const char *>(blob.data()), qsizetype(blob.size()));
    if (Result<void> posted = m_session->postAverages(stateRound - 1, averagesBody); !posted)
        qCWarning(lcWorker).noquote() << "the averages of round" << stateRound - 1
                                      << "were not taken:" << toQString(posted.error());
    const std::filesystem::path upload = m_options.stateDir / "upload.safetensors";
    Result<void> saved = m_trainer->saveGlobalState(upload);
    Result<std::vector<std::byte>> bytes = saved ? readFileBytes(upload, kMaxStateBytes)
                                                 : Result<std::vector<std::byte>>(saved.error());
    std::error_code ec;
    std::filesystem::remove(upload, ec);
    if (!bytes) {
        qCWarning(lcWorker).noquote() << "cannot upload state" << stateRound << ":" << toQString(bytes.error());
        return false;
    }
    const QByteArray body(reinterpret_cast<const char *>(bytes->data()), qsizetype(bytes->size()));
    if (Result<CheckpointInfo> uploaded = m_session->uploadState(stateRound, body); !uploaded) {
        qCWarning(lcWorker).noquote() << "state upload failed:" << toQString(uploaded.error());
        return false;
    }
    qCInfo(lcWorker) << "uploaded the swarm's state of round" << stateRound;
    return true;
}

} // namespace swarmtrain
