// PipelineSteps' end of a step: closing (who holds the closed trainers' counts), the groups that
// step, a second attempt for a group whose all-reduce lost a member's work, and the step's record
// (the counts each stage applied, its agreed hashes, the disputes judged).

#include "PipelineSteps.h"

#include "CoordinatorLog.h"

#include <algorithm>

namespace swarmtrain {

namespace {

// The most common hash; among equals, the earliest peer's (by join order) wins.
QString majorityHash(const std::vector<std::pair<qint64, QString>> &ordinalsAndHashes)
{
    std::map<QString, std::pair<int, qint64>> counts; // hash -> (votes, earliest ordinal)
    for (const auto &[ordinal, hash] : ordinalsAndHashes) {
        auto [it, fresh] = counts.try_emplace(hash, 0, ordinal);
        ++it->second.first;
        it->second.second = std::min(it->second.second, ordinal);
    }
    QString best;
    std::pair<int, qint64> bestKey{0, 0};
    for (const auto &[hash, key] : counts) {
        if (best.isEmpty() || key.first > bestKey.first || (key.first == bestKey.first && key.second < bestKey.second)) {
            best = hash;
            bestKey = key;
        }
    }
    return best;
}

} // namespace

PipelineSteps::Closing PipelineSteps::closing(const std::map<QString, const PeerRecord *> &online) const
{
    Closing c;
    for (const auto &[id, closed] : m_step.closed)
        c.issued += closed.microbatches;
    const std::size_t stages = std::size_t(m_options.settings.stages);
    c.held.assign(stages, 0);
    c.readyCount.assign(stages, 0);
    c.lostMember.assign(stages, m_step.attempt > 0);
    for (const auto &[id, stage] : m_step.members) {
        if (stage == 0 || !m_step.inAttempt(stage))
            continue;
        if (const auto ready = m_step.ready.find(id); ready != m_step.ready.end()) {
            c.held[std::size_t(stage)] += ready->second;
            ++c.readyCount[std::size_t(stage)];
        } else if (!online.contains(id) || m_step.unready.contains(id)) {
            c.lostMember[std::size_t(stage)] = true;
        } else {
            c.silent.push_back(id);
        }
    }
    return c;
}

bool PipelineSteps::Closing::awaitsReplay(std::size_t stage) const
{
    return readyCount[stage] > 0 && held[stage] < issued;
}

// Every member that closes has said whether it holds the closed trainers' counts, or is gone.
// A stage that lost a member (gone, or sitting the step out) waits, up to the close timeout, for
// its ready members' counts to add up to the step's microbatches: the trainers replay the lost
// member's work on them first.
bool PipelineSteps::closingDone(const std::map<QString, const PeerRecord *> &online) const
{
    const Closing c = closing(online);
    if (!c.silent.empty())
        return false; // yet to say
    for (std::size_t s = 1; s < c.held.size(); ++s) {
        if (m_step.inAttempt(int(s)) && c.lostMember[s] && c.awaitsReplay(s))
            return false;
    }
    return true;
}

// The close timeout passed with members online that never said whether they hold the step's
// work (a machine too busy to answer, a peer that missed a trainer's close). Where their stage
// has ready members short of the step's microbatches, they sit the step out like a member that
// said "unready", and the trainers replay what they had confirmed on those ready members: left
// in, their work would be neither applied nor replayed. True when someone was left out.
bool PipelineSteps::leaveOutSilentMembers(const std::map<QString, const PeerRecord *> &online)
{
    const Closing c = closing(online);
    bool leftOut = false;
    for (const QString &id : c.silent) {
        if (!c.awaitsReplay(std::size_t(m_step.members.at(id))))
            continue;
        m_step.unready.insert(id);
        leftOut = true;
        qCWarning(lcCoordinator).noquote() << "pipeline: peer" << id << "sits step" << m_step.number
                                           << "out: it said nothing within the close timeout; its work is replayed on its stage";
    }
    if (leftOut) {
        m_step.progressMs = m_clock();
        m_dirty = true;
    }
    return leftOut;
}

void PipelineSteps::finishClosing(const std::map<QString, const PeerRecord *> &online)
{
    const int last = m_options.settings.stages - 1;
    std::vector<QStringList> byStage(std::size_t(m_options.settings.stages));
    for (const auto &[id, closed] : m_step.closed) {
        if (m_step.attempt == 0 || online.contains(id)) // a trainer gone since is left out of a redo
            byStage[0].append(id);
    }
    for (const auto &[id, held] : m_step.ready) {
        if (m_step.inAttempt(m_step.members.at(id)))
            byStage[std::size_t(m_step.members.at(id))].append(id);
    }
    // A replica that took its stage's state after the step opened, and holds that state still,
    // steps with its group: it adds no gradient (the group's mean is over the step's
    // microbatches, whoever served them), and ends in the same state as the others.
    for (const auto &[id, stage] : m_placement) {
        const auto view = m_views.find(id);
        if (!m_step.members.contains(id) && m_step.inAttempt(stage) && !m_step.stepped.contains(id) && online.contains(id)
            && view != m_views.end() && view->second.stage == stage
            && !m_agreed[std::size_t(stage)].isEmpty() && view->second.hash == m_agreed[std::size_t(stage)])
            byStage[std::size_t(stage)].append(id);
    }
    m_step.groups.clear();
    // The tied embedding: stage 0 steps with the last stage, or neither steps.
    if (m_step.inAttempt(0) && !byStage[0].isEmpty() && !byStage[std::size_t(last)].isEmpty())
        m_step.groups.push_back(byStage[0] + byStage[std::size_t(last)]);
    for (int s = 1; s < last; ++s) {
        if (m_step.inAttempt(s) && !byStage[std::size_t(s)].isEmpty())
            m_step.groups.push_back(byStage[std::size_t(s)]);
    }
    setPhase(QStringLiteral("stepping"));
}

// A member gone before it reported, from a group whose other members applied the step on an
// attempt that must be complete: its work is in what they applied, so it counts.
void PipelineSteps::creditSilentMembers()
{
    if (m_step.attempt + 1 >= protocol::kMaxStepAttempts)
        return; // the last attempt applies whatever came: a silent member's work may be missing
    for (const QStringList &group : m_step.groups) {
        const bool applied = std::any_of(group.begin(), group.end(), [&](const QString &id) {
            const auto report = m_step.stepped.find(id);
            return report != m_step.stepped.end() && report->second.ok;
        });
        if (!applied)
            continue;
        for (const QString &id : group) {
            if (m_step.stepped.contains(id))
                continue;
            const auto closed = m_step.closed.find(id);
            const auto ready = m_step.ready.find(id);
            const int held = closed != m_step.closed.end() ? closed->second.microbatches : ready != m_step.ready.end() ? ready->second : 0;
            m_step.stepped[id] = {false, {}, held, false, true};
        }
    }
}

bool PipelineSteps::takeServedBy(const QString &trainer, const std::map<QString, int> &servedBy)
{
    // Only the step's stage peers served, and no stage more microbatches than the trainer closed
    // with; a word that cannot be true counts for nothing, and the last one that can stands.
    const auto closed = m_step.closed.find(trainer);
    if (closed == m_step.closed.end() || servedBy.empty() || closed->second.servedBy == servedBy)
        return false;
    std::map<int, int> byStage;
    for (const auto &[peer, count] : servedBy) {
        const auto member = m_step.members.find(peer);
        if (member == m_step.members.end() || member->second == 0
            || (byStage[member->second] += count) > closed->second.microbatches)
            return false;
    }
    closed->second.servedBy = servedBy;
    return true;
}

double PipelineSteps::creditStep(qint64 step)
{
    // A peer earns for the microbatches its stage's step applied from it: a trainer its own, a
    // stage peer what it says it held where its stage's counts add up to the step's microbatches
    // (each microbatch counts at one peer of each stage, so none of them claims more unless
    // another claims less), else the least of that and what the trainers say it served for
    // them: neither side alone makes work up, and one trainer that leaves an honest peer out of
    // its word costs it nothing while the counts add up. Only a peer that ended in its stage's
    // agreed state earns; one named for wrong answers earns nothing for the step.
    m_credited.clear();
    double costs = 0.0;
    for (const double cost : m_options.stageCosts)
        costs += cost;
    int issued = 0;
    for (const auto &[id, closed] : m_step.closed)
        issued += closed.microbatches;
    std::map<int, int> held; // by stage: the step's microbatches its members say they counted
    for (const auto &[id, stepped] : m_step.stepped)
        held[stageOf(id)] += stepped.microbatches;
    std::vector<StepCredit> credits;
    double total = 0.0;
    for (const auto &[id, stepped] : m_step.stepped) {
        const int stage = stageOf(id);
        int served = 0;
        if (stage > 0 && held[stage] == issued) {
            served = stepped.microbatches;
        } else if (stage == 0) {
            const auto closed = m_step.closed.find(id);
            served = closed != m_step.closed.end() ? closed->second.microbatches : 0;
        } else {
            for (const auto &[trainer, closed] : m_step.closed) {
                const auto count = closed.servedBy.find(id);
                served += count != closed.servedBy.end() ? count->second : 0;
            }
        }
        const bool agreed = stepped.inAverage || (stepped.ok && stepped.hash == m_agreed[std::size_t(stage)]);
        const int microbatches = agreed && !m_step.named.contains(id) ? std::min(stepped.microbatches, served) : 0;
        const qint64 tokens = qint64(microbatches) * m_options.tokensPerMicrobatch;
        const double share = costs > 0 && std::size_t(stage) < m_options.stageCosts.size()
                                 ? m_options.stageCosts[std::size_t(stage)] / costs : 0.0;
        const double credit = double(tokens) * m_options.creditPerToken * share;
        m_credited[id] = {step, microbatches, credit};
        if (credit > 0) {
            credits.push_back({id, credit, tokens});
            total += credit;
        }
    }
    if (credits.empty())
        return 0.0;
    if (Result<void> kept = m_store.creditPipelineStep(step, credits); !kept) {
        qCWarning(lcCoordinator).noquote() << "pipeline: cannot credit step" << step << ":" << QString::fromStdString(kept.error().message);
        m_credited.clear();
        return 0.0;
    }
    return total;
}

bool PipelineSteps::redoIncompleteGroups(const std::map<QString, const PeerRecord *> &online)
{
    // First, whichever way the step goes on: a redo forgets this attempt's groups.
    creditSilentMembers();
    if (m_step.attempt + 1 >= protocol::kMaxStepAttempts)
        return false;
    std::set<int> redo;
    for (const QStringList &group : m_step.groups) {
        // Only a group none of whose members applied its step: the members apply or give up alike,
        // from the same averages, unless a member vanished while it sent them.
        bool incomplete = false, applied = false;
        for (const QString &id : group) {
            const auto report = m_step.stepped.find(id);
            incomplete = incomplete || (report != m_step.stepped.end() && report->second.incomplete);
            applied = applied || (report != m_step.stepped.end() && report->second.ok);
        }
        if (!incomplete || applied)
            continue;
        for (const QString &id : group) {
            redo.insert(stageOf(id));
            m_step.stepped.erase(id);
        }
    }
    if (redo.empty())
        return false;
    const int last = m_options.settings.stages - 1;
    if (redo.contains(0) || redo.contains(last))
        redo.insert({0, last}); // the tied group steps as one
    std::erase_if(m_step.members, [&](const auto &member) { return redo.contains(member.second) && !online.contains(member.first); });
    std::erase_if(m_step.ready, [&](const auto &ready) { return !m_step.members.contains(ready.first) || redo.contains(m_step.members.at(ready.first)); });
    std::erase_if(m_step.unready, [&](const QString &id) { return !m_step.members.contains(id) || redo.contains(m_step.members.at(id)); });
    m_step.groups.clear();
    m_step.redo = redo;
    ++m_step.attempt;
    QStringList stages;
    for (const int s : redo)
        stages.append(QString::number(s));
    qCWarning(lcCoordinator).noquote() << "pipeline: step" << m_step.number << ": the all-reduce of stage(s)" << stages.join(QStringLiteral(", "))
                                       << "lacked a vanished member's work; they close and step again once it is replayed";
    setPhase(QStringLiteral("closing"));
    return true;
}

void PipelineSteps::finishStep(const std::vector<PeerRecord> &peers)
{
    std::map<QString, qint64> ordinals;
    for (const PeerRecord &peer : peers)
        ordinals[peer.keyId] = peer.ordinal;
    const int stages = m_options.settings.stages;
    PipelineStatus::Step summary;
    summary.step = m_step.number;
    summary.applied.assign(std::size_t(stages), 0);
    double lossSum = 0.0, evalSum = 0.0;
    int evals = 0;
    for (const auto &[id, closed] : m_step.closed) {
        summary.issued += closed.microbatches;
        lossSum += closed.lossSum;
        if (closed.evalLoss >= 0) {
            evalSum += closed.evalLoss;
            ++evals;
        }
    }
    summary.loss = summary.issued > 0 ? lossSum / summary.issued : 0.0;
    summary.evalLoss = evals > 0 ? evalSum / evals : -1.0;
    std::vector<std::vector<std::pair<qint64, QString>>> hashes(static_cast<std::size_t>(stages));
    for (const auto &[id, stepped] : m_step.stepped) {
        const int stage = stageOf(id);
        if (stepped.ok || stepped.inAverage)
            summary.applied[std::size_t(stage)] += stepped.microbatches;
        if (stepped.ok)
            hashes[std::size_t(stage)].emplace_back(ordinals.contains(id) ? ordinals.at(id) : 0, stepped.hash);
    }
    for (int s = 0; s < stages; ++s) {
        const auto &reported = hashes[std::size_t(s)];
        if (reported.empty())
            continue; // the stage did not step: its agreed state stays
        m_agreed[std::size_t(s)] = majorityHash(reported);
        summary.agreed = summary.agreed && std::all_of(reported.begin(), reported.end(), [&](const auto &h) {
                             return h.second == m_agreed[std::size_t(s)];
                         });
    }
    qCInfo(lcCoordinator).noquote() << QStringLiteral("pipeline: step %1 done: %2 microbatches, loss %3%4")
                                           .arg(summary.step)
                                           .arg(summary.issued)
                                           .arg(summary.loss, 0, 'f', 4)
                                           .arg(summary.evalLoss >= 0 ? QStringLiteral(", validation loss %1").arg(summary.evalLoss, 0, 'f', 4)
                                                                      : QString());
    summary.credit = creditStep(summary.step);
    m_history.push_back(summary);
    m_historyDirty = true;
    collectStageStates(summary.step);
    while (int(m_history.size()) > m_options.historySteps)
        m_history.pop_front();
    Result<std::map<QString, std::size_t>> liars = m_disputes.judge(summary.step);
    if (!liars)
        qCWarning(lcCoordinator).noquote() << "pipeline: cannot judge the disputes of step" << summary.step << ":"
                                           << QString::fromStdString(liars.error().message);
    for (const auto &[liar, partners] : liars ? *liars : std::map<QString, std::size_t>{}) {
        qCWarning(lcCoordinator).noquote() << "pipeline: step" << summary.step << ":" << liar << "disputed by" << partners
                                           << "range partners: a lying range owner";
        if (m_onLyingOwner)
            m_onLyingOwner(liar, QStringLiteral("step %1: disputed by %2 range partners").arg(summary.step).arg(partners));
    }
    m_step = Step{};
    m_step.number = summary.step + 1;
    setPhase(QStringLiteral("waiting"));
}

} // namespace swarmtrain
