// PipelineSteps' collection of the stages' agreed states for the model's export (issue 44): no
// peer holds a pipeline swarm's whole model, so when a finished step is due for export one
// member of each stage whose state is the step's agreed one is asked to upload it
// (PipelineAnswer::uploadState, POST /v1/pipeline/state). A collection that is not whole when
// the next step finishes starts again from that step's states.

#include "PipelineSteps.h"

#include "CoordinatorLog.h"

#include <algorithm>

namespace swarmtrain {

namespace {

// An asked member that has not uploaded by then is asked no longer; another is.
constexpr qint64 kUploadTimeoutMs = 120'000;

} // namespace

void PipelineSteps::collectStageStates(qint64 finishedStep)
{
    // Named by the steps done, as a full-model swarm's state R is the one after R rounds.
    const qint64 done = finishedStep + 1;
    const bool due = m_options.exportEvery > 0 && done % m_options.exportEvery == 0;
    const bool unfinished = m_collection.step >= 0 && int(m_collection.held.size()) < m_options.settings.stages;
    if (!due && !unfinished)
        return;
    if (std::any_of(m_agreed.begin(), m_agreed.end(), [](const QString &hash) { return hash.isEmpty(); }))
        return; // a stage that never stepped: nothing trained to publish yet
    if (unfinished)
        qCInfo(lcCoordinator) << "pipeline: the stages' states after" << m_collection.step
                              << "steps did not all arrive; collecting those after" << done;
    m_collection = StateCollection{};
    m_collection.step = done;
    m_collection.hashes = m_agreed;
}

QString PipelineSteps::askForStageState(const QString &peerId)
{
    const int stage = stageOf(peerId);
    if (m_collection.step < 0 || stage < 0 || m_collection.held.contains(stage) || m_collection.refused.contains(peerId))
        return {};
    const auto view = m_views.find(peerId);
    const QString &wanted = m_collection.hashes[std::size_t(stage)];
    if (view == m_views.end() || view->second.stage != stage || view->second.hash != wanted)
        return {};
    const qint64 now = m_clock();
    auto [asked, fresh] = m_collection.asked.try_emplace(stage, peerId, now);
    if (!fresh && asked->second.first != peerId) {
        if (now - asked->second.second < kUploadTimeoutMs)
            return {}; // one member a stage uploads: the others keep their bandwidth
        asked->second = {peerId, now};
    }
    return wanted;
}

std::optional<PipelineSteps::StageStateWanted> PipelineSteps::stageStateWanted(const QString &peerId, int stage) const
{
    const auto asked = m_collection.asked.find(stage);
    if (m_collection.step < 0 || asked == m_collection.asked.end() || asked->second.first != peerId
        || m_collection.held.contains(stage))
        return std::nullopt;
    return StageStateWanted{m_collection.step, m_collection.hashes[std::size_t(stage)]};
}

bool PipelineSteps::stageStateTaken(qint64 step, int stage)
{
    if (step != m_collection.step || stage < 0 || stage >= m_options.settings.stages)
        return false;
    m_collection.held.insert(stage);
    return int(m_collection.held.size()) == m_options.settings.stages;
}

void PipelineSteps::stageStateRefused(const QString &peerId, int stage)
{
    m_collection.refused.insert(peerId);
    if (const auto asked = m_collection.asked.find(stage); asked != m_collection.asked.end() && asked->second.first == peerId)
        m_collection.asked.erase(asked);
}

} // namespace swarmtrain
