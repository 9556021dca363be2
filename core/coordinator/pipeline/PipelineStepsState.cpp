// PipelineSteps' saved state: the placement, the agreed hashes, the rates, the open step with
// every report it holds, and the latest steps, as one JSON value in the store's meta table,
// written whenever one of them changes (a few times a step).

#include "PipelineSteps.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace swarmtrain {

namespace {

using L = QLatin1StringView;

const QString kStateKey = QStringLiteral("pipeline_state");
const QString kHistoryKey = QStringLiteral("pipeline_history");

QJsonObject intMap(const std::map<QString, int> &map)
{
    QJsonObject json;
    for (const auto &[key, value] : map)
        json.insert(key, value);
    return json;
}

std::map<QString, int> readIntMap(const QJsonObject &json, int min, int max)
{
    std::map<QString, int> map;
    for (auto it = json.begin(); it != json.end(); ++it) {
        const int value = it->toInt(min - 1);
        if (value >= min && value <= max)
            map[it.key()] = value;
    }
    return map;
}

QJsonArray idList(const std::set<QString> &ids)
{
    QJsonArray list;
    for (const QString &id : ids)
        list.append(id);
    return list;
}

std::set<QString> readIdSet(const QJsonArray &list)
{
    std::set<QString> ids;
    for (const QJsonValue &id : list)
        ids.insert(id.toString());
    return ids;
}

} // namespace

Result<void> PipelineSteps::save()
{
    QJsonObject step{{L("number"), double(m_step.number)},
                     {L("phase"), m_step.phase},
                     {L("members"), intMap(m_step.members)},
                     {L("shares"), intMap(m_step.shares)},
                     {L("ready"), intMap(m_step.ready)},
                     {L("unready"), idList(m_step.unready)},
                     {L("named"), idList(m_step.named)},
                     {L("attempt"), m_step.attempt}};
    QJsonArray redo;
    for (const int stage : m_step.redo)
        redo.append(stage);
    step.insert(L("redo"), redo);
    QJsonObject closed;
    for (const auto &[id, c] : m_step.closed)
        closed.insert(id, QJsonObject{{L("microbatches"), c.microbatches}, {L("dropped"), c.dropped},
                                      {L("loss_sum"), c.lossSum}, {L("eval_loss"), c.evalLoss},
                                      {L("served_by"), intMap(c.servedBy)}});
    step.insert(L("closed"), closed);
    QJsonArray groups;
    for (const QStringList &group : m_step.groups)
        groups.append(QJsonArray::fromStringList(group));
    step.insert(L("groups"), groups);
    QJsonObject stepped;
    for (const auto &[id, s] : m_step.stepped)
        stepped.insert(id, QJsonObject{{L("ok"), s.ok}, {L("hash"), s.hash}, {L("microbatches"), s.microbatches},
                                       {L("incomplete"), s.incomplete}, {L("in_average"), s.inAverage}});
    step.insert(L("stepped"), stepped);

    QJsonObject rates;
    for (const auto &[id, rate] : m_rates)
        rates.insert(id, rate);
    QJsonArray agreed;
    for (const QString &hash : m_agreed)
        agreed.append(hash);
    const QJsonObject state{{L("stages"), m_options.settings.stages},
                            {L("placement"), intMap(m_placement)},
                            {L("agreed"), agreed},
                            {L("rates"), rates},
                            {L("last_rebalance_ms"), double(m_lastRebalanceMs)},
                            {L("step"), step}};
    if (Result<void> saved = m_store.setMeta(kStateKey, QString::fromUtf8(QJsonDocument(state).toJson(QJsonDocument::Compact)));
        !saved)
        return saved;
    m_dirty = false;
    // The history, which only grows when a step finishes, is not written with every report.
    if (m_historyDirty) {
        PipelineStatus history;
        history.phase = QStringLiteral("waiting");
        history.history.assign(m_history.begin(), m_history.end());
        if (Result<void> saved = m_store.setMeta(kHistoryKey, QString::fromUtf8(QJsonDocument(history.toJson()).toJson(QJsonDocument::Compact)));
            !saved)
            return saved;
        m_historyDirty = false;
    }
    return {};
}

Result<void> PipelineSteps::load()
{
    Result<std::optional<QString>> stored = m_store.meta(kStateKey);
    if (!stored)
        return stored.error();
    if (!*stored)
        return {};
    const QJsonObject state = QJsonDocument::fromJson((*stored)->toUtf8()).object();
    const int stages = m_options.settings.stages;
    if (state.value(L("stages")).toInt() != stages)
        return makeError("the swarm's database holds a pipeline of " + std::to_string(state.value(L("stages")).toInt())
                         + " stages, not " + std::to_string(stages) + ": start with the same --stages");
    m_placement = readIntMap(state.value(L("placement")).toObject(), 0, stages - 1);
    const QJsonArray agreed = state.value(L("agreed")).toArray();
    for (int s = 0; s < stages && s < agreed.size(); ++s)
        m_agreed[std::size_t(s)] = agreed.at(s).toString();
    const QJsonObject rates = state.value(L("rates")).toObject();
    for (auto it = rates.begin(); it != rates.end(); ++it)
        m_rates[it.key()] = it->toDouble();
    m_lastRebalanceMs = qint64(state.value(L("last_rebalance_ms")).toDouble());

    const QJsonObject step = state.value(L("step")).toObject();
    m_step.number = qint64(step.value(L("number")).toDouble());
    m_step.phase = step.value(L("phase")).toString(QStringLiteral("waiting"));
    m_step.members = readIntMap(step.value(L("members")).toObject(), 0, stages - 1);
    m_step.shares = readIntMap(step.value(L("shares")).toObject(), 0, protocol::kMaxMicrobatchesPerStep);
    const QJsonValue ready = step.value(L("ready"));
    if (ready.isArray()) { // saved before ready peers said what they hold
        for (const QString &id : readIdSet(ready.toArray()))
            m_step.ready[id] = 0;
    } else {
        m_step.ready = readIntMap(ready.toObject(), 0, protocol::kMaxMicrobatchesPerStep);
    }
    m_step.unready = readIdSet(step.value(L("unready")).toArray());
    m_step.named = readIdSet(step.value(L("named")).toArray());
    m_step.attempt = std::clamp(step.value(L("attempt")).toInt(), 0, protocol::kMaxStepAttempts - 1);
    for (const QJsonValue &stage : step.value(L("redo")).toArray()) {
        if (const int s = stage.toInt(-1); s >= 0 && s < stages)
            m_step.redo.insert(s);
    }
    const QJsonObject closed = step.value(L("closed")).toObject();
    for (auto it = closed.begin(); it != closed.end(); ++it) {
        const QJsonObject c = it->toObject();
        m_step.closed[it.key()] = {c.value(L("microbatches")).toInt(), c.value(L("dropped")).toInt(),
                                   c.value(L("loss_sum")).toDouble(), c.value(L("eval_loss")).toDouble(-1.0),
                                   readIntMap(c.value(L("served_by")).toObject(), 0, protocol::kMaxMicrobatchesPerStep)};
    }
    for (const QJsonValue &group : step.value(L("groups")).toArray()) {
        QStringList ids;
        for (const QJsonValue &id : group.toArray())
            ids.append(id.toString());
        m_step.groups.push_back(ids);
    }
    const QJsonObject stepped = step.value(L("stepped")).toObject();
    for (auto it = stepped.begin(); it != stepped.end(); ++it) {
        const QJsonObject s = it->toObject();
        m_step.stepped[it.key()] = {s.value(L("ok")).toBool(), s.value(L("hash")).toString(), s.value(L("microbatches")).toInt(),
                                    s.value(L("incomplete")).toBool(), s.value(L("in_average")).toBool()};
    }
    Result<std::optional<QString>> storedHistory = m_store.meta(kHistoryKey);
    if (!storedHistory)
        return storedHistory.error();
    if (*storedHistory) {
        Result<PipelineStatus> history = PipelineStatus::fromJson(QJsonDocument::fromJson((*storedHistory)->toUtf8()).object());
        if (!history)
            return makeError("the saved pipeline history cannot be read: " + history.error().message);
        m_history.assign(history->history.begin(), history->history.end());
    }
    // Members of a step whose stage no longer exists, or that were placed nowhere: not trusted.
    for (const auto &[id, stage] : m_step.members) {
        if (!m_placement.contains(id))
            return makeError("the saved pipeline step names a peer placed nowhere");
    }
    return {};
}

} // namespace swarmtrain
