// SwarmWorker's spot checks (Verification.h has the coordinator's side): the coordinator asks
// this peer to recompute another member's round from the state it started on, that member's
// shards and seed, and to say how close the update that member sent comes to it. The next round
// waits for this peer when the member is a newcomer; otherwise this peer sits it out and catches
// up afterwards.
#include "SwarmWorker.h"

#include "CoordinatorClient.h"
#include "CoordinatorSession.h"
#include "DataPlane.h"
#include "DataShards.h"
#include "PeerTokenizer.h"
#include "FileIo.h"
#include "Quantization.h"
#include "QtText.h"
#include "ReplicaTrainer.h"
#include "SwarmLog.h"
#include "UpdateAgreement.h"
#include "WorkGate.h"

#include <chrono>

namespace swarmtrain {

namespace {

constexpr int kUpdatePollMs = 1000;
constexpr std::uint64_t kMaxUpdateBytes = 16ull << 30;

// The member's update as one float vector: its pieces, in range order, decoded.
Result<std::vector<float>> decodeUpdate(const std::vector<std::byte> &bytes, const SpotCheckTask &task)
{
    std::vector<float> values;
    std::size_t offset = 0;
    for (const auto &[begin, end] : task.ranges) {
        const std::size_t count = std::size_t(end - begin), size = encodedQuantizedSize(count);
        if (offset + size > bytes.size())
            return makeError("the update is shorter than the round's pieces");
        Result<Quantized> piece = decodeQuantized(std::span(bytes).subspan(offset, size), count);
        if (!piece)
            return makeError("a piece of the update does not decode: " + piece.error().message);
        const std::vector<float> decoded = dequantize(*piece);
        values.insert(values.end(), decoded.begin(), decoded.end());
        offset += size;
    }
    if (offset != bytes.size())
        return makeError("the update is longer than the round's pieces");
    return values;
}

} // namespace

void SwarmWorker::uploadUpdate(qint64 round)
{
    const auto kept = m_sentUpdates.find(round);
    if (kept == m_sentUpdates.end())
        return; // not ours to send any more (restarted, or long ago): the check counts it as missing
    m_updateUploaded = round;
    if (Result<void> sent = m_session->uploadUpdate(round, kept->second); !sent)
        qCWarning(lcWorker).noquote() << "cannot send the update of round" << round << "for its check:"
                                      << toQString(sent.error());
    else
        qCInfo(lcWorker) << "sent the update of round" << round << "for a spot check";
}

Result<void> SwarmWorker::runSpotCheck()
{
    const SpotCheckTask task = *std::exchange(m_spotCheck, std::nullopt);
    m_checkDone = std::make_pair(task.round, task.peerId);
    setStatus(WorkState::Training, tr("Checking the work of another peer in round %1").arg(task.round));
    qCInfo(lcWorker).noquote() << "checking the work of" << task.peerId << "in round" << task.round;
    // This PC's replica is put aside: the check needs the device (and the swarm may move on meanwhile).
    const RoundWork interrupted = m_work;
    if (m_trainer) {
        if (Result<void> released = releaseReplica(); !released)
            return released;
    }
    const SpotCheckReport report = checkWork(task);
    if (m_gate->stopRequested())
        return {};
    if (report.failed.isEmpty())
        qCInfo(lcWorker).noquote() << "checked" << task.peerId << ": cosine" << report.cosine << ", relative norm"
                                   << report.relativeNorm;
    else
        qCWarning(lcWorker).noquote() << "could not check" << task.peerId << ":" << report.failed;
    if (Result<void> sent = m_session->reportCheck(report); !sent)
        qCWarning(lcWorker).noquote() << "the check's report was not taken:" << toQString(sent.error());
    // The replica comes back as saved, or as the swarm serves it now; the next heartbeat says
    // whether the swarm moved on meanwhile. The error feedback of the pieces sent last is kept
    // when the round put aside comes back: a round that waited for this check (a newcomer's) then
    // goes on exactly as if there had been none.
    const qint64 putAside = m_releasedRound;
    if (Result<void> reloaded = reloadReplica(); !reloaded)
        return reloaded;
    if (m_trainer->round() != putAside)
        m_dataPlane->resetErrorFeedback();
    // A time budget runs on from when this round began here: the check's time comes off this
    // peer's steps, and it is still ready when the round gathers (issue 43). Starting the budget
    // afresh made it late, and the round it trained went without it.
    if (m_trainer->round() == putAside && m_session->joined().training.timeBudgeted && interrupted.startedAt.isValid()) {
        m_work.startedAt = interrupted.startedAt;
        m_work.startedSteady = interrupted.startedSteady;
    }
    return {};
}

bool SwarmWorker::waitForUpdate(const SpotCheckTask &task)
{
    for (;;) {
        if (m_gate->stopRequested())
            return false;
        Result<HeartbeatAnswer> answer = heartbeat(QStringLiteral("verifying"), {}, /*persist=*/true);
        if (!answer)
            return false;
        const std::optional<SpotCheckTask> &now = answer->spotCheck;
        if (!now || now->round != task.round || now->peerId != task.peerId)
            return false; // ended without us (the member sent nothing, or the round was run again)
        if (now->updateReady)
            return true;
        m_gate->sleepFor(kUpdatePollMs);
    }
}

SpotCheckReport SwarmWorker::checkWork(const SpotCheckTask &task)
{
    SpotCheckReport report;
    report.round = task.round;
    report.peerId = task.peerId;
    const auto fail = [&](const Error &error) {
        report.failed = toQString(error).left(protocol::kMaxFailureChars);
        return report;
    };
    if (!waitForUpdate(task))
        return fail(makeError("the check ended before the member's update came"));
    const std::filesystem::path stateFile = m_options.stateDir / "check-state.safetensors";
    const std::filesystem::path updateFile = m_options.stateDir / "check-update.bin";
    struct Cleanup {
        std::filesystem::path a, b;
        ~Cleanup()
        {
            std::error_code ec;
            std::filesystem::remove(a, ec);
            std::filesystem::remove(b, ec);
        }
    } cleanup{stateFile, updateFile};
    // What the member started from (an asynchronous member: an older state), trained on, and sent.
    const qint64 base = task.baseRound();
    if (Result<void> got = m_session->download(QStringLiteral("/v1/checkpoint?round=%1").arg(base), stateFile, {}); !got)
        return fail(got.error());
    if (Result<void> got = m_session->download(
            QStringLiteral("/v1/round/update?round=%1&peer=%2").arg(task.round).arg(task.peerId), updateFile, {});
        !got)
        return fail(got.error());
    JoinAnswer asMember = m_session->joined();
    asMember.assignedShards = task.shards;
    Result<std::vector<std::int32_t>> tokens =
        loadAssignedShards(asMember, m_options.stateDir / "shards", *m_session, [](int, int) {});
    if (!tokens)
        return fail(tokens.error());

    // The member's inner steps, again.
    ReplicaOptions asTrained = replicaOptionsOf(task.peerId);
    const int cap = m_session->joined().training.stepCap();
    if (task.steps > cap)
        return fail(makeError("the coordinator asks for " + std::to_string(task.steps) + " steps, past the round's cap"));
    // A budgeted round: the steps the member fitted in (the schedule is the swarm's either way).
    asTrained.innerSteps = task.steps > 0 ? task.steps : m_session->joined().training.innerSteps;
    Result<std::unique_ptr<ReplicaTrainer>> replay = ReplicaTrainer::create(stateFile, asTrained);
    if (!replay)
        return fail(replay.error());
    if ((*replay)->round() != base)
        return fail(makeError("the coordinator's state is not of round " + std::to_string(base)));
    if (const std::string why = tokenizerMismatch((*replay)->tokenizer(), m_session->joined().tokenizer); !why.empty())
        return fail(makeError("the coordinator's state holds another tokenizer: " + why));
    if (Result<void> set = (*replay)->setTrainingTokens(std::move(tokens).value()); !set)
        return fail(set.error());
    // Checking is work on this PC like any other: a pause (the person is back) gives it up.
    const auto shouldStop = [this] {
        heartbeatIfDue(QStringLiteral("verifying"));
        return m_gate->interrupted();
    };
    Result<InnerReport> ran = (*replay)->trainInner(shouldStop, [this] { return m_gate->interrupted(); });
    if (!ran)
        return fail(ran.error());
    if (ran->interrupted)
        return fail(makeError("paused or stopped on the verifier's PC"));
    const std::vector<float> recomputed = (*replay)->pseudoGradient();
    replay->reset();

    Result<std::vector<std::byte>> bytes = readFileBytes(updateFile, kMaxUpdateBytes);
    if (!bytes)
        return fail(bytes.error());
    Result<std::vector<float>> claimed = decodeUpdate(*bytes, task);
    // An update that does not decode is nothing like the work: it compares as zeros.
    const std::vector<float> sent = claimed ? std::move(claimed).value() : std::vector<float>(recomputed.size(), 0.0f);
    Result<UpdateComparison> compared = compareUpdates(sent, recomputed);
    if (!compared)
        return fail(compared.error());
    report.cosine = compared->cosine;
    report.relativeNorm = compared->relativeNorm;
    return report;
}

} // namespace swarmtrain
