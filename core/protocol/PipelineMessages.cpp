#include "PipelineMessages.h"

#include "ControlMessages.h"
#include "JsonReader.h"

#include <QJsonArray>

#include <algorithm>

namespace swarmtrain {

namespace {

using namespace protocol;
using L = QLatin1StringView;

constexpr qint64 kMaxCount = JsonReader::kMaxExactInteger;
constexpr double kMaxFigure = 1e30;

void insertIds(QJsonObject &json, QLatin1StringView name, const QStringList &ids)
{
    if (!ids.isEmpty())
        json.insert(name, QJsonArray::fromStringList(ids));
}

// A parameters hash: 64 lowercase hex digits, or empty.
QString hashField(JsonReader &r, QLatin1StringView name)
{
    const QString hash = r.string(name, 64);
    const bool hex = hash.size() == 64 && std::all_of(hash.begin(), hash.end(), [](QChar c) {
                         return (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || (c >= QLatin1Char('a') && c <= QLatin1Char('f'));
                     });
    if (r.ok() && !hash.isEmpty() && !hex)
        r.fail(name, QStringLiteral("must be 64 lowercase hex digits or empty"));
    return hash;
}

} // namespace

QJsonObject PipelineSettings::toJson() const
{
    return QJsonObject{{L("stages"), stages},
                       {L("microbatches_per_step"), microbatchesPerStep},
                       {L("microbatch_size"), microbatchSize},
                       {L("precision"), precision},
                       {L("eval_every"), evalEvery},
                       {L("cross_check_share"), crossCheckShare}};
}

Result<PipelineSettings> PipelineSettings::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("pipeline"));
    PipelineSettings m;
    m.stages = int(r.integer(L("stages"), 2, kMaxPipelineStages));
    m.microbatchesPerStep = int(r.integer(L("microbatches_per_step"), 1, kMaxMicrobatchesPerStep));
    m.microbatchSize = int(r.integer(L("microbatch_size"), 1, kMaxMicrobatchSize));
    m.precision = r.oneOf(L("precision"), {L("int8"), L("fp16"), L("fp32")});
    m.evalEvery = int(r.integer(L("eval_every"), 0, kMaxMicrobatchesPerStep));
    m.crossCheckShare = r.number(L("cross_check_share"), 0.0, 1.0, m.crossCheckShare);
    return r.finish(std::move(m));
}

QJsonObject ValidationSample::toJson() const
{
    QJsonArray list;
    for (const std::int32_t token : tokens)
        list.append(token);
    return QJsonObject{{L("tokens"), list}, {L("bytes"), double(bytes)}};
}

Result<ValidationSample> ValidationSample::fromJson(const QJsonObject &json, qint64 vocabSize)
{
    JsonReader r(json, QStringLiteral("validation sample"));
    ValidationSample m;
    const QJsonArray list = r.array(L("tokens"), kMaxValidationSampleTokens);
    m.tokens.reserve(std::size_t(list.size()));
    for (qsizetype i = 0; i < list.size() && r.ok(); ++i)
        m.tokens.push_back(std::int32_t(r.integerAt(list, L("tokens"), i, 0, std::max<qint64>(vocabSize - 1, 0))));
    m.bytes = r.integer(L("bytes"), 0, JsonReader::kMaxExactInteger);
    return r.finish(std::move(m));
}

QJsonObject PipelineRequest::toJson() const
{
    QJsonObject json{{L("stage"), stage}, {L("state_steps"), double(stateSteps)}, {L("hash"), hash},
                     {L("step"), double(step)}, {L("served"), double(served)}, {L("busy_s"), busySeconds}};
    if (!report.isEmpty()) {
        json.insert(L("report"), report);
        json.insert(L("attempt"), attempt);
        json.insert(L("microbatches"), microbatches);
        json.insert(L("dropped"), dropped);
        json.insert(L("loss_sum"), lossSum);
        json.insert(L("eval_loss"), evalLoss);
        if (!why.isEmpty())
            json.insert(L("why"), why);
        if (!disputed.isEmpty())
            json.insert(L("disputed"), QJsonArray::fromStringList(disputed));
        if (!wrongAnswers.isEmpty())
            json.insert(L("wrong_answers"), QJsonArray::fromStringList(wrongAnswers));
    }
    if (!servedBy.empty()) {
        QJsonArray served;
        for (const auto &[peer, count] : servedBy)
            served.append(QJsonObject{{L("peer_id"), peer}, {L("microbatches"), count}});
        json.insert(L("served_by"), served);
    }
    return json;
}

Result<PipelineRequest> PipelineRequest::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("pipeline request"));
    PipelineRequest m;
    m.stage = int(r.integer(L("stage"), -1, kMaxPipelineStages - 1));
    m.stateSteps = r.integer(L("state_steps"), 0, kMaxCount);
    m.hash = hashField(r, L("hash"));
    if (r.ok() && m.stage < 0 && !m.hash.isEmpty())
        r.fail(L("hash"), QStringLiteral("must be empty when no stage is held"));
    m.step = r.integer(L("step"), -1, kMaxCount);
    m.served = r.integer(L("served"), 0, kMaxCount);
    m.busySeconds = r.number(L("busy_s"), 0.0, kMaxFigure);
    if (r.has(L("report"))) {
        m.report = r.oneOf(L("report"), {L("closed"), L("ready"), L("unready"), L("stepped"), L("failed"), L("incomplete")});
        if (r.has(L("attempt")))
            m.attempt = int(r.integer(L("attempt"), 0, kMaxStepAttempts - 1));
        m.microbatches = int(r.integer(L("microbatches"), 0, kMaxMicrobatchesPerStep));
        m.dropped = int(r.integer(L("dropped"), 0, kMaxMicrobatchesPerStep));
        m.lossSum = r.number(L("loss_sum"), 0.0, kMaxFigure);
        m.evalLoss = r.number(L("eval_loss"), -1.0, kMaxFigure);
        m.why = r.text(L("why"), kMaxReasonChars);
        if (r.has(L("disputed"))) {
            const QJsonArray disputed = r.array(L("disputed"), 2);
            for (qsizetype i = 0; i < disputed.size() && r.ok(); ++i)
                m.disputed.append(r.stringAt(disputed, L("disputed"), i, kMaxKeyIdChars));
        }
        if (r.has(L("wrong_answers"))) {
            const QJsonArray wrong = r.array(L("wrong_answers"), kMaxWrongAnswerers);
            for (qsizetype i = 0; i < wrong.size() && r.ok(); ++i)
                m.wrongAnswers.append(r.stringAt(wrong, L("wrong_answers"), i, kMaxKeyIdChars));
        }
        if (r.ok() && m.step < 0)
            r.fail(L("step"), QStringLiteral("a report needs the step it is about"));
    }
    if (r.has(L("served_by"))) {
        const QJsonArray served = r.array(L("served_by"), kMaxPipelinePeers);
        for (qsizetype i = 0; i < served.size() && r.ok(); ++i) {
            JsonReader entry = r.element(served, L("served_by"), i);
            const QString peer = entry.string(L("peer_id"), kMaxKeyIdChars);
            const int count = int(entry.integer(L("microbatches"), 0, kMaxMicrobatchesPerStep));
            if (entry.ok() && !m.servedBy.emplace(peer, count).second)
                r.fail(L("served_by"), QStringLiteral("names %1 twice").arg(peer));
        }
        if (r.ok() && m.step < 0)
            r.fail(L("step"), QStringLiteral("who served a step needs the step"));
    }
    return r.finish(std::move(m));
}

QJsonObject PipelineAnswer::toJson() const
{
    QJsonArray peerList;
    for (const PipelinePeerInfo &peer : peers)
        peerList.append(QJsonObject{{L("peer_id"), peer.peerId},
                                    {L("public_key"), QString::fromLatin1(peer.publicKey.toBase64())},
                                    {L("endpoint"), peer.endpoint},
                                    {L("stage"), peer.stage},
                                    {L("member"), peer.member}});
    QJsonArray rates;
    for (const double rate : stageRates)
        rates.append(rate);
    QJsonObject json{{L("step"), double(step)}, {L("phase"), phase},     {L("attempt"), attempt},
                     {L("stage"), stage},       {L("member"), member},   {L("share"), share},
                     {L("microbatches"), microbatches}, {L("peers"), peerList}, {L("stage_rates"), rates}};
    insertIds(json, L("closed_trainers"), closedTrainers);
    insertIds(json, L("left_out"), leftOut);
    insertIds(json, L("group"), group);
    insertIds(json, L("suspects"), suspects);
    if (!resyncFrom.isEmpty())
        json.insert(L("resync_from"), resyncFrom);
    if (!uploadState.isEmpty())
        json.insert(L("upload_state"), uploadState);
    if (credited)
        json.insert(L("credited"), QJsonObject{{L("step"), double(credited->step)},
                                               {L("microbatches"), credited->microbatches},
                                               {L("credit"), credited->credit}});
    return json;
}

Result<PipelineAnswer> PipelineAnswer::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("pipeline answer"));
    PipelineAnswer m;
    m.step = r.integer(L("step"), 0, kMaxCount);
    m.phase = r.oneOf(L("phase"), {L("waiting"), L("training"), L("closing"), L("stepping")});
    if (r.has(L("attempt")))
        m.attempt = int(r.integer(L("attempt"), 0, kMaxStepAttempts - 1));
    m.stage = int(r.integer(L("stage"), -1, kMaxPipelineStages - 1));
    m.member = r.boolean(L("member"));
    m.share = int(r.integer(L("share"), 0, kMaxMicrobatchesPerStep));
    m.microbatches = int(r.integer(L("microbatches"), 0, kMaxMicrobatchesPerStep));
    m.closedTrainers = r.optionalStrings(L("closed_trainers"), kMaxPipelinePeers, kMaxKeyIdChars);
    m.leftOut = r.optionalStrings(L("left_out"), kMaxPipelinePeers, kMaxKeyIdChars);
    m.group = r.optionalStrings(L("group"), kMaxPipelinePeers, kMaxKeyIdChars);
    m.suspects = r.optionalStrings(L("suspects"), kMaxPipelinePeers, kMaxKeyIdChars);
    if (r.has(L("resync_from")))
        m.resyncFrom = r.string(L("resync_from"), kMaxKeyIdChars);
    if (r.has(L("upload_state")))
        m.uploadState = hashField(r, L("upload_state"));
    if (r.has(L("credited"))) {
        JsonReader credited = r.object(L("credited"));
        Credited c;
        c.step = credited.integer(L("step"), 0, kMaxCount);
        c.microbatches = int(credited.integer(L("microbatches"), 0, kMaxMicrobatchesPerStep));
        c.credit = credited.number(L("credit"), 0.0, kMaxFigure);
        if (credited.ok())
            m.credited = c;
    }
    const QJsonArray peers = r.array(L("peers"), kMaxPipelinePeers);
    for (qsizetype i = 0; i < peers.size() && r.ok(); ++i) {
        JsonReader peer = r.element(peers, L("peers"), i);
        PipelinePeerInfo info;
        info.peerId = peer.string(L("peer_id"), kMaxKeyIdChars);
        info.publicKey = peer.base64(L("public_key"), kPublicKeyBytes);
        info.endpoint = peer.string(L("endpoint"), kMaxEndpointChars);
        info.stage = int(peer.integer(L("stage"), 0, kMaxPipelineStages - 1));
        info.member = peer.boolean(L("member"));
        m.peers.push_back(std::move(info));
    }
    const QJsonArray rates = r.array(L("stage_rates"), kMaxPipelineStages);
    for (qsizetype i = 0; i < rates.size() && r.ok(); ++i) {
        const double rate = rates.at(i).toDouble(-1.0);
        if (!rates.at(i).isDouble() || !(rate >= 0.0 && rate <= kMaxFigure))
            r.fail(L("stage_rates"), QStringLiteral("must hold non-negative numbers"));
        m.stageRates.push_back(rate);
    }
    return r.finish(std::move(m));
}

QJsonObject PipelineStatus::toJson() const
{
    QJsonArray stageList;
    for (const Stage &stage : stages)
        stageList.append(QJsonObject{{L("peers"), QJsonArray::fromStringList(stage.peers)},
                                     {L("microbatches_per_s"), stage.microbatchesPerSecond}});
    QJsonArray steps;
    for (const Step &s : history) {
        QJsonArray applied;
        for (const int count : s.applied)
            applied.append(count);
        steps.append(QJsonObject{{L("step"), double(s.step)}, {L("issued"), s.issued}, {L("applied"), applied},
                                 {L("loss"), s.loss},         {L("eval_loss"), s.evalLoss}, {L("agreed"), s.agreed},
                                 {L("credit"), s.credit}});
    }
    return QJsonObject{{L("step"), double(step)}, {L("phase"), phase}, {L("stages"), stageList},
                       {L("bottleneck"), bottleneck}, {L("history"), steps}};
}

Result<PipelineStatus> PipelineStatus::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("pipeline status"));
    PipelineStatus m;
    m.step = r.integer(L("step"), 0, kMaxCount);
    m.phase = r.oneOf(L("phase"), {L("waiting"), L("training"), L("closing"), L("stepping")});
    const QJsonArray stages = r.array(L("stages"), kMaxPipelineStages);
    for (qsizetype i = 0; i < stages.size() && r.ok(); ++i) {
        JsonReader stage = r.element(stages, L("stages"), i);
        Stage s;
        s.peers = stage.optionalStrings(L("peers"), kMaxPipelinePeers, kMaxKeyIdChars);
        s.microbatchesPerSecond = stage.number(L("microbatches_per_s"), 0.0, kMaxFigure);
        m.stages.push_back(std::move(s));
    }
    m.bottleneck = int(r.integer(L("bottleneck"), -1, kMaxPipelineStages - 1));
    const QJsonArray steps = r.array(L("history"), kMaxListedRounds);
    for (qsizetype i = 0; i < steps.size() && r.ok(); ++i) {
        JsonReader step = r.element(steps, L("history"), i);
        Step s;
        s.step = step.integer(L("step"), 0, kMaxCount);
        s.issued = int(step.integer(L("issued"), 0, kMaxMicrobatchesPerStep));
        const QJsonArray applied = step.array(L("applied"), kMaxPipelineStages);
        for (qsizetype k = 0; k < applied.size() && step.ok(); ++k)
            s.applied.push_back(int(step.integerAt(applied, L("applied"), k, 0, kMaxMicrobatchesPerStep)));
        s.loss = step.number(L("loss"), 0.0, kMaxFigure);
        s.evalLoss = step.number(L("eval_loss"), -1.0, kMaxFigure);
        s.agreed = step.boolean(L("agreed"));
        s.credit = step.number(L("credit"), 0.0, kMaxFigure, 0.0);
        m.history.push_back(std::move(s));
    }
    return r.finish(std::move(m));
}

} // namespace swarmtrain
