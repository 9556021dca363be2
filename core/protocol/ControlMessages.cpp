#include "ControlMessages.h"

#include "BitsPerByte.h"
#include "JsonReader.h"

#include <QJsonArray>

namespace swarmtrain {

namespace {

using namespace protocol;
using L = QLatin1StringView;

constexpr qint64 kMaxCount = JsonReader::kMaxExactInteger;
constexpr double kMaxFigure = 1e30; // FLOPs, seconds, losses: finite and far beyond any real run
constexpr qint64 kMaxMemoryBytes = qint64(1) << 44;  // 16 TiB
constexpr double kMaxFlopsPerSecond = 1e16;           // ten times an H200's dense bf16
constexpr double kMaxBytesPerSecond = 1e12;           // a terabyte a second, beyond any link or bus
constexpr double kMaxRttMs = 600'000;
constexpr qint64 kMaxBudgetMs = 86'400'000; // a day

// An optional display name ("" when absent), by the rule the client's Settings page applies too.
QString readDisplayName(JsonReader &reader, const QJsonObject &json)
{
    const QJsonValue value = json.value(L("display_name"));
    if (value.isUndefined() || value.isNull())
        return {};
    if (!value.isString()) {
        reader.fail(L("display_name"), QStringLiteral("must be a string of at most %1 characters").arg(kMaxDisplayNameChars));
        return {};
    }
    const DisplayNameCheck check = validateDisplayName(value.toString());
    if (check.fault)
        reader.fail(L("display_name"), displayNameFaultText(*check.fault));
    return check.name;
}

QJsonValue optionalBool(const std::optional<bool> &value) { return value ? QJsonValue(*value) : QJsonValue(); }

QJsonObject modelToJson(const ModelConfig &model)
{
    if (model.isLlama()) {
        return QJsonObject{{L("family"), QStringLiteral("llama")},
                           {L("vocab_size"), model.vocabSize},
                           {L("hidden_size"), model.nEmbd},
                           {L("intermediate_size"), model.intermediateSize},
                           {L("num_hidden_layers"), model.nLayer},
                           {L("num_attention_heads"), model.nHead},
                           {L("num_key_value_heads"), model.nKvHead},
                           {L("max_position_embeddings"), model.blockSize},
                           {L("rms_norm_eps"), model.rmsNormEps},
                           {L("rope_theta"), model.ropeTheta},
                           {L("tie_word_embeddings"), model.tieEmbeddings}};
    }
    return QJsonObject{{L("vocab_size"), model.vocabSize}, {L("n_layer"), model.nLayer}, {L("n_head"), model.nHead},
                       {L("n_embd"), model.nEmbd},         {L("block_size"), model.blockSize},
                       {L("dropout"), model.dropout},      {L("bias"), model.bias}};
}

// The architecture is bounded here, before anything could be built from it.
ModelConfig readModel(JsonReader model)
{
    ModelConfig c;
    const QString family = model.has(L("family")) ? model.string(L("family"), 16) : QStringLiteral("gpt");
    if (family == QLatin1StringView("llama")) {
        c.family = ModelFamily::Llama;
        c.vocabSize = int(model.integer(L("vocab_size"), 1, 1 << 20));
        c.nEmbd = int(model.integer(L("hidden_size"), 1, 65536));
        c.intermediateSize = int(model.integer(L("intermediate_size"), 1, 1 << 20));
        c.nLayer = int(model.integer(L("num_hidden_layers"), 1, 1024));
        c.nHead = int(model.integer(L("num_attention_heads"), 1, 1024));
        c.nKvHead = int(model.integer(L("num_key_value_heads"), 1, 1024));
        c.blockSize = int(model.integer(L("max_position_embeddings"), 1, 1 << 20));
        c.rmsNormEps = model.number(L("rms_norm_eps"), 1e-12, 0.1);
        c.ropeTheta = model.number(L("rope_theta"), 1.0, 1e12);
        c.tieEmbeddings = model.boolean(L("tie_word_embeddings"));
    } else if (family == QLatin1StringView("gpt")) {
        c.vocabSize = int(model.integer(L("vocab_size"), 1, 1 << 20));
        c.nLayer = int(model.integer(L("n_layer"), 1, 1024));
        c.nHead = int(model.integer(L("n_head"), 1, 1024));
        c.nEmbd = int(model.integer(L("n_embd"), 1, 65536));
        c.blockSize = int(model.integer(L("block_size"), 1, 1 << 20));
        c.dropout = model.number(L("dropout"), 0.0, 0.999);
        c.bias = model.boolean(L("bias"));
        c.nKvHead = c.nHead;
        c.intermediateSize = 4 * c.nEmbd;
    } else {
        model.fail(L("family"), QStringLiteral("must be gpt or llama"));
    }
    if (model.ok()) {
        if (const std::string why = c.validate(); !why.empty())
            model.fail(c.isLlama() ? L("hidden_size") : L("n_embd"), QString::fromStdString(why));
    }
    return c;
}

QJsonObject trainingToJson(const TrainingSettings &t)
{
    QJsonObject json{{L("inner_steps"), t.innerSteps},   {L("batch_size"), t.batchSize},
                     {L("lr"), t.lr},                    {L("min_lr"), t.minLr},
                     {L("warmup_iters"), t.warmupIters}, {L("lr_decay_iters"), double(t.lrDecayIters)},
                     {L("weight_decay"), t.weightDecay}, {L("grad_clip"), t.gradClip},
                     {L("outer_lr"), t.outerLr},         {L("outer_momentum"), t.outerMomentum},
                     {L("seed"), double(t.seed)}};
    if (t.timeBudgeted) {
        json.insert(L("rounds"), t.asyncRounds ? QStringLiteral("async") : QStringLiteral("budget"));
        json.insert(L("min_inner_steps"), t.minInnerSteps);
        json.insert(L("max_inner_steps"), t.maxInnerSteps);
        if (t.asyncRounds)
            json.insert(L("max_staleness"), t.maxStaleness);
    }
    if (t.innerStateKept)
        json.insert(L("inner_state"), QStringLiteral("kept"));
    if (t.adamEps != TrainingSettings{}.adamEps)
        json.insert(L("adam_eps"), t.adamEps);
    return json;
}

TrainingSettings readTraining(JsonReader training)
{
    TrainingSettings t;
    t.innerSteps = int(training.integer(L("inner_steps"), 1, 1'000'000'000));
    t.batchSize = int(training.integer(L("batch_size"), 1, 1 << 20));
    t.lr = training.number(L("lr"), 0.0, 10.0);
    t.minLr = training.number(L("min_lr"), 0.0, 10.0);
    t.warmupIters = int(training.integer(L("warmup_iters"), 0, 1'000'000'000));
    t.lrDecayIters = training.integer(L("lr_decay_iters"), 0, kMaxCount);
    t.weightDecay = training.number(L("weight_decay"), 0.0, 10.0);
    t.adamEps = training.number(L("adam_eps"), 1e-12, 1.0, TrainingSettings{}.adamEps); // absent: as before it existed
    t.gradClip = training.number(L("grad_clip"), 0.0, 1e6);
    t.outerLr = training.number(L("outer_lr"), 0.0, 100.0);
    t.outerMomentum = training.number(L("outer_momentum"), 0.0, 0.999);
    t.seed = std::uint64_t(training.integer(L("seed"), 0, kMaxCount));
    // Absent: fixed H. A cap past 1,000 H is no real swarm's.
    const QString rounds =
        training.has(L("rounds")) ? training.oneOf(L("rounds"), {L("fixed"), L("budget"), L("async")}) : QString(L("fixed"));
    t.timeBudgeted = rounds != L("fixed");
    t.asyncRounds = rounds == L("async");
    t.maxStaleness = int(training.integer(L("max_staleness"), 0, protocol::kMaxStaleness, 4));
    // Absent: fresh each round, as before the setting existed.
    t.innerStateKept = training.has(L("inner_state")) && training.oneOf(L("inner_state"), {L("fresh"), L("kept")}) == L("kept");
    t.minInnerSteps = int(training.integer(L("min_inner_steps"), 1, std::max(t.innerSteps, 1), 1));
    t.maxInnerSteps = int(training.integer(L("max_inner_steps"), 0, 1000 * qint64(std::max(t.innerSteps, 1)), 0));
    if (training.ok() && t.maxInnerSteps > 0 && t.maxInnerSteps < t.minInnerSteps)
        training.fail(L("max_inner_steps"), QStringLiteral("must be at least min_inner_steps"));
    return t;
}

TokenizerInfo readTokenizer(JsonReader r)
{
    TokenizerInfo t;
    t.kind = r.oneOf(L("kind"), {L("char"), L("byte"), L("sentencepiece")});
    t.vocabulary = r.string(L("vocabulary"), kMaxVocabulary);
    t.sha256 = r.sha256Hex(L("sha256"));
    t.vocabSize = r.integer(L("vocab_size"), 1, kMaxVocabulary);
    if (!r.ok())
        return t;
    // The kinds' own rules: a character vocabulary lists its tokens, bytes are 256, a model's
    // pieces travel in the model.
    if (t.kind == L("char") && t.vocabulary.toUcs4().size() != t.vocabSize)
        r.fail(L("vocabulary"), QStringLiteral("must hold vocab_size characters"));
    else if (t.kind == L("byte") && t.vocabSize != 256)
        r.fail(L("vocab_size"), QStringLiteral("must be 256 for bytes"));
    else if (t.kind != L("char") && !t.vocabulary.isEmpty())
        r.fail(L("vocabulary"), QStringLiteral("must be empty but for a character tokenizer"));
    return t;
}

CheckpointInfo readCheckpoint(JsonReader r)
{
    CheckpointInfo c;
    c.round = r.integer(L("round"), 0, kMaxCount);
    c.sha256 = r.sha256Hex(L("sha256"));
    c.bytes = r.integer(L("bytes"), 0, kMaxCount);
    return c;
}

// A machine's claims, each within what any real machine could have.
DeviceReport readDevice(JsonReader device)
{
    DeviceReport d;
    d.kind = device.text(L("kind"), 64);
    d.cpuThreads = int(device.integer(L("cpu_threads"), 0, 1 << 16, 0));
    if (device.has(L("gpus"))) {
        const QJsonArray gpus = device.array(L("gpus"), kMaxGpus);
        for (qsizetype i = 0; i < gpus.size() && device.ok(); ++i) {
            JsonReader gpu = device.element(gpus, L("gpus"), i);
            d.gpus.push_back({gpu.text(L("name"), 128), gpu.text(L("vendor"), 32),
                              gpu.integer(L("memory_bytes"), 0, kMaxMemoryBytes, 0)});
        }
    }
    d.trainingMemoryBytes = device.integer(L("training_memory_bytes"), 0, kMaxMemoryBytes, 0);
    d.flopsPerSecond = device.number(L("flops_per_s"), 0.0, kMaxFlopsPerSecond, 0.0);
    d.hostToDeviceBytesPerSecond = device.number(L("host_to_device_bytes_per_s"), 0.0, kMaxBytesPerSecond, 0.0);
    d.deviceToHostBytesPerSecond = device.number(L("device_to_host_bytes_per_s"), 0.0, kMaxBytesPerSecond, 0.0);
    return d;
}

QByteArray readPublicKey(JsonReader &r) { return r.base64(L("public_key"), kPublicKeyBytes); }

} // namespace

QJsonObject CheckpointInfo::toJson() const
{
    return QJsonObject{{L("round"), double(round)}, {L("sha256"), sha256}, {L("bytes"), double(bytes)}};
}

Result<CheckpointInfo> CheckpointInfo::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("checkpoint"));
    CheckpointInfo c = readCheckpoint(r);
    return r.finish(std::move(c));
}

QJsonObject DeviceReport::toJson() const
{
    QJsonArray gpuList;
    for (const DeviceGpu &gpu : gpus)
        gpuList.append(QJsonObject{{L("name"), gpu.name}, {L("vendor"), gpu.vendor}, {L("memory_bytes"), double(gpu.memoryBytes)}});
    return QJsonObject{{L("kind"), kind},
                       {L("cpu_threads"), cpuThreads},
                       {L("gpus"), gpuList},
                       {L("training_memory_bytes"), double(trainingMemoryBytes)},
                       {L("flops_per_s"), flopsPerSecond},
                       {L("host_to_device_bytes_per_s"), hostToDeviceBytesPerSecond},
                       {L("device_to_host_bytes_per_s"), deviceToHostBytesPerSecond}};
}

Result<DeviceReport> DeviceReport::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("device"));
    DeviceReport device = readDevice(r);
    return r.finish(std::move(device));
}

QJsonObject JoinRequest::toJson() const
{
    return QJsonObject{
        {L("public_key"), QString::fromLatin1(publicKey.toBase64())},
        {L("device"), device.toJson()},
        {L("endpoint"), endpoint},
        {L("client_version"), clientVersion},
        {L("invite"), invite},
        {L("display_name"), displayName}};
}

Result<QByteArray> JoinRequest::publicKeyOf(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("join"));
    QByteArray key = readPublicKey(r);
    return r.finish(std::move(key));
}

Result<JoinRequest> JoinRequest::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("join"));
    JoinRequest m;
    m.publicKey = readPublicKey(r);
    m.device = readDevice(r.object(L("device")));
    m.endpoint = r.string(L("endpoint"), kMaxEndpointChars);
    m.clientVersion = r.text(L("client_version"), kMaxClientVersionChars);
    if (!r.has(L("client_version")))
        r.fail(L("client_version"), QStringLiteral("is missing"));
    m.invite = r.text(L("invite"), kMaxInviteChars);
    m.displayName = readDisplayName(r, json);
    return r.finish(std::move(m));
}

QJsonObject JoinAnswer::toJson() const
{
    QJsonArray shardList;
    for (const ShardInfo &shard : shards) {
        shardList.append(QJsonObject{{L("id"), QString::fromStdString(shard.id)},
                                     {L("bytes"), double(shard.bytes)},
                                     {L("sha256"), QString::fromStdString(shard.sha256)},
                                     {L("tokens"), double(shard.tokens)}});
    }
    QJsonObject json{
        {L("peer_id"), peerId},
        {L("model"), modelToJson(model)},
        {L("tokenizer"), QJsonObject{{L("kind"), tokenizer.kind},
                                     {L("vocabulary"), tokenizer.vocabulary},
                                     {L("sha256"), tokenizer.sha256},
                                     {L("vocab_size"), double(tokenizer.vocabSize)}}},
        {L("training"), trainingToJson(training)},
        {L("shards"), shardList},
        {L("assigned_shards"), QJsonArray::fromStringList(assignedShards)},
        {L("round"), double(round)},
        {L("heartbeat_interval_ms"), double(heartbeatIntervalMs)},
        {L("reachable"), reachable},
    };
    if (!pipeline || !checkpoint.sha256.isEmpty())
        json.insert(L("checkpoint"), checkpoint.toJson());
    if (pipeline)
        json.insert(L("pipeline"), pipeline->toJson());
    return json;
}

Result<JoinAnswer> JoinAnswer::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("join answer"));
    JoinAnswer m;
    m.peerId = r.string(L("peer_id"), kMaxKeyIdChars);
    m.model = readModel(r.object(L("model")));
    m.tokenizer = readTokenizer(r.object(L("tokenizer")));
    m.training = readTraining(r.object(L("training")));
    const QJsonArray shards = r.array(L("shards"), kMaxShards);
    for (qsizetype i = 0; i < shards.size() && r.ok(); ++i) {
        JsonReader shard = r.element(shards, L("shards"), i);
        m.shards.push_back({shard.string(L("id"), 64).toStdString(), std::uint64_t(shard.integer(L("bytes"), 0, kMaxCount)),
                            shard.sha256Hex(L("sha256")).toStdString(), std::uint64_t(shard.integer(L("tokens"), 1, kMaxCount))});
    }
    const QJsonArray assigned = r.array(L("assigned_shards"), kMaxShards);
    for (qsizetype i = 0; i < assigned.size() && r.ok(); ++i)
        m.assignedShards.append(r.stringAt(assigned, L("assigned_shards"), i, 64));
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.heartbeatIntervalMs = r.integer(L("heartbeat_interval_ms"), 100, 600'000);
    m.reachable = r.boolean(L("reachable"));
    // A pipeline swarm may have no whole-model state; a full-model swarm always has one.
    if (!r.has(L("pipeline")) || r.has(L("checkpoint")))
        m.checkpoint = readCheckpoint(r.object(L("checkpoint")));
    if (r.ok() && r.has(L("pipeline"))) {
        Result<PipelineSettings> settings = PipelineSettings::fromJson(json.value(L("pipeline")).toObject());
        if (!json.value(L("pipeline")).isObject() || !settings)
            r.fail(L("pipeline"), settings ? QStringLiteral("must be an object") : QString::fromStdString(settings.error().message));
        else
            m.pipeline = *settings;
    }
    return r.finish(std::move(m));
}

QJsonObject HeartbeatRequest::toJson() const
{
    QJsonObject json{{L("state"), state}, {L("base_round"), double(baseRound)}, {L("tokens_per_s"), tokensPerSecond}};
    if (steps > 0)
        json.insert(L("steps"), double(steps));
    if (!reason.isEmpty())
        json.insert(L("reason"), reason);
    if (!links.empty()) {
        QJsonArray list;
        for (const LinkReport &link : links)
            list.append(QJsonObject{{L("peer_id"), link.peerId}, {L("rtt_ms"), link.rttMs},
                                    {L("bytes_per_s"), link.bytesPerSecond}});
        json.insert(L("links"), list);
    }
    return json;
}

Result<HeartbeatRequest> HeartbeatRequest::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("heartbeat"));
    HeartbeatRequest m;
    // "left": the peer says goodbye, so no round waits for it.
    m.state = r.oneOf(L("state"), {L("training"), L("paused"), L("ready"), L("idle"), L("verifying"), L("left")});
    m.baseRound = r.integer(L("base_round"), -1, kMaxCount);
    m.tokensPerSecond = r.number(L("tokens_per_s"), 0.0, kMaxFigure, 0.0);
    m.steps = r.integer(L("steps"), 0, kMaxCount, 0);
    m.reason = r.text(L("reason"), kMaxReasonChars);
    if (r.has(L("links"))) {
        const QJsonArray links = r.array(L("links"), kMaxLinkReports);
        for (qsizetype i = 0; i < links.size() && r.ok(); ++i) {
            JsonReader link = r.element(links, L("links"), i);
            m.links.push_back({link.string(L("peer_id"), kMaxKeyIdChars), link.number(L("rtt_ms"), 0.0, kMaxRttMs),
                               link.number(L("bytes_per_s"), 0.0, kMaxBytesPerSecond)});
        }
    }
    return r.finish(std::move(m));
}

QJsonObject HeartbeatAnswer::toJson() const
{
    QJsonObject json{{L("round"), double(round)},
                     {L("round_state"), roundState},
                     {L("deadline_ms"), double(deadlineMs)},
                     {L("member"), member},
                     {L("checkpoint_round"), double(checkpointRound)}};
    if (budgetMs > 0)
        json.insert(L("budget_ms"), double(budgetMs));
    if (straggler)
        json.insert(L("straggler"), true);
    if (lastContribution) {
        json.insert(L("last_contribution"), QJsonObject{{L("round"), double(lastContribution->round)},
                                                        {L("accepted"), optionalBool(lastContribution->accepted)},
                                                        {L("credit"), lastContribution->credit},
                                                        {L("upload_checkpoint"), lastContribution->uploadCheckpoint}});
    }
    if (!probe.empty()) {
        QJsonArray list;
        for (const ProbePeerInfo &peer : probe)
            list.append(QJsonObject{{L("peer_id"), peer.peerId},
                                    {L("public_key"), QString::fromLatin1(peer.publicKey.toBase64())},
                                    {L("endpoint"), peer.endpoint}});
        json.insert(L("probe"), list);
    }
    if (uploadUpdateRound)
        json.insert(L("upload_update_round"), double(*uploadUpdateRound));
    if (spotCheck)
        json.insert(L("spot_check"), spotCheck->toJson());
    return json;
}

Result<HeartbeatAnswer> HeartbeatAnswer::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("heartbeat answer"));
    HeartbeatAnswer m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.roundState = r.oneOf(L("round_state"), {L("gathering"), L("running"), L("done")});
    m.deadlineMs = r.integer(L("deadline_ms"), 0, kMaxCount);
    m.member = r.boolean(L("member"));
    m.checkpointRound = r.integer(L("checkpoint_round"), 0, kMaxCount);
    m.budgetMs = r.integer(L("budget_ms"), 0, kMaxBudgetMs, 0);
    if (r.has(L("straggler")))
        m.straggler = r.boolean(L("straggler"));
    if (r.has(L("last_contribution"))) {
        JsonReader last = r.object(L("last_contribution"));
        ContributionVerdictInfo verdict;
        verdict.round = last.integer(L("round"), 0, kMaxCount);
        verdict.accepted = last.optionalBoolean(L("accepted"));
        verdict.credit = last.number(L("credit"), 0.0, kMaxFigure);
        verdict.uploadCheckpoint = last.boolean(L("upload_checkpoint"));
        m.lastContribution = verdict;
    }
    if (r.has(L("probe"))) {
        const QJsonArray peers = r.array(L("probe"), kMaxProbePeers);
        for (qsizetype i = 0; i < peers.size() && r.ok(); ++i) {
            JsonReader peer = r.element(peers, L("probe"), i);
            ProbePeerInfo info;
            info.peerId = peer.string(L("peer_id"), kMaxKeyIdChars);
            info.publicKey = peer.base64(L("public_key"), kPublicKeyBytes);
            info.endpoint = peer.string(L("endpoint"), kMaxEndpointChars);
            m.probe.push_back(std::move(info));
        }
    }
    if (r.has(L("upload_update_round")))
        m.uploadUpdateRound = r.integer(L("upload_update_round"), 0, kMaxCount);
    if (r.has(L("spot_check")) && r.ok()) {
        Result<SpotCheckTask> task = SpotCheckTask::fromJson(json.value(L("spot_check")).toObject());
        if (!task)
            r.fail(L("spot_check"), QString::fromStdString(task.error().message));
        else
            m.spotCheck = std::move(task).value();
    }
    return r.finish(std::move(m));
}

QJsonObject RoundAnswer::toJson() const
{
    QJsonArray list;
    for (const RoundMemberInfo &member : members) {
        QJsonObject object{{L("peer_id"), member.peerId},
                           {L("public_key"), QString::fromLatin1(member.publicKey.toBase64())},
                           {L("endpoint"), member.endpoint},
                           {L("reachable"), member.reachable},
                           {L("range"), QJsonArray{double(member.begin), double(member.end)}}};
        if (member.probation)
            object.insert(L("probation"), true);
        if (member.steps > 0)
            object.insert(L("steps"), double(member.steps));
        if (member.staleness > 0)
            object.insert(L("staleness"), double(member.staleness));
        list.append(object);
    }
    QJsonObject json{{L("round"), double(round)},          {L("attempt"), attempt},
                     {L("state"), state},                  {L("deadline_ms"), double(deadlineMs)},
                     {L("parameter_count"), double(parameterCount)}, {L("members"), list}};
    if (share != 1.0)
        json.insert(L("share"), share);
    if (scheduleAdvance > 0)
        json.insert(L("schedule_advance"), double(scheduleAdvance));
    return json;
}

Result<RoundAnswer> RoundAnswer::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("round"));
    RoundAnswer m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.attempt = int(r.integer(L("attempt"), 0, 1 << 30));
    m.state = r.oneOf(L("state"), {L("gathering"), L("running"), L("done")});
    m.deadlineMs = r.integer(L("deadline_ms"), 0, kMaxCount);
    m.parameterCount = r.integer(L("parameter_count"), 0, kMaxCount);
    m.share = r.number(L("share"), 1e-6, 1.0, 1.0);
    m.scheduleAdvance = r.integer(L("schedule_advance"), 0, kMaxCount, 0);
    const QJsonArray members = r.array(L("members"), kMaxMembers);
    for (qsizetype i = 0; i < members.size() && r.ok(); ++i) {
        JsonReader member = r.element(members, L("members"), i);
        RoundMemberInfo info;
        info.peerId = member.string(L("peer_id"), kMaxKeyIdChars);
        // A member the coordinator no longer knows is listed with an empty key.
        const bool keyless = member.has(L("public_key")) && member.text(L("public_key"), 1).isEmpty();
        if (!keyless)
            info.publicKey = member.base64(L("public_key"), kPublicKeyBytes);
        info.endpoint = member.string(L("endpoint"), kMaxEndpointChars);
        info.reachable = member.boolean(L("reachable"));
        if (member.has(L("probation")))
            info.probation = member.boolean(L("probation"));
        info.steps = member.integer(L("steps"), 0, kMaxCount, 0);
        info.staleness = member.integer(L("staleness"), 0, std::min<qint64>(m.round, kMaxStaleness), 0);
        const QJsonArray range = member.array(L("range"), 2);
        if (member.ok() && range.size() != 2)
            member.fail(L("range"), QStringLiteral("must be [begin, end]"));
        if (member.ok()) {
            info.begin = member.integerAt(range, L("range"), 0, 0, m.parameterCount);
            info.end = member.integerAt(range, L("range"), 1, info.begin, m.parameterCount);
        }
        m.members.push_back(std::move(info));
    }
    return r.finish(std::move(m));
}

namespace {

QJsonArray averagesJson(const std::vector<AppliedAverage> &averages)
{
    QJsonArray list;
    for (const AppliedAverage &average : averages)
        list.append(QJsonObject{{L("begin"), double(average.begin)}, {L("sha256"), average.sha256}});
    return list;
}

// Strictly in range order: each begin after the one before.
std::vector<AppliedAverage> readAverages(JsonReader &r)
{
    std::vector<AppliedAverage> averages;
    if (!r.has(L("averages")))
        return averages;
    const QJsonArray list = r.array(L("averages"), kMaxAppliedAverages);
    for (qsizetype i = 0; i < list.size() && r.ok(); ++i) {
        JsonReader item = r.element(list, L("averages"), i);
        AppliedAverage average{item.integer(L("begin"), 0, kMaxCount), item.sha256Hex(L("sha256"))};
        if (item.ok() && !averages.empty() && average.begin <= averages.back().begin)
            r.fail(L("averages"), QStringLiteral("must be in range order (entry %1 begins at or before the one before)").arg(i));
        averages.push_back(std::move(average));
    }
    return averages;
}

} // namespace

QJsonObject ContributionRequest::toJson() const
{
    return QJsonObject{{L("averages"), averagesJson(averages)},{L("round"), double(round)},      {L("tokens"), double(tokens)},
                       {L("flops"), flops},              {L("seconds"), seconds},
                       {L("loss"), loss},                {L("params_hash"), paramsHash},
                       {L("bytes_up"), double(bytesUp)}, {L("bytes_down"), double(bytesDown)},
                       {L("refused"), QJsonArray::fromStringList(refused)},
                       {L("left_out"), QJsonArray::fromStringList(leftOut)},
                       {L("disputed"), QJsonArray::fromStringList(disputed)}};
}

Result<ContributionRequest> ContributionRequest::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("contribution"));
    ContributionRequest m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.tokens = r.integer(L("tokens"), 0, kMaxCount);
    m.flops = r.number(L("flops"), 0.0, kMaxFigure);
    m.seconds = r.number(L("seconds"), 0.0, kMaxFigure);
    m.loss = r.number(L("loss"), 0.0, kMaxFigure);
    m.paramsHash = r.sha256Hex(L("params_hash"));
    m.bytesUp = r.integer(L("bytes_up"), 0, kMaxCount, 0);
    m.bytesDown = r.integer(L("bytes_down"), 0, kMaxCount, 0);
    m.refused = r.optionalStrings(L("refused"), kMaxReportedPeers, kMaxKeyIdChars);
    m.leftOut = r.optionalStrings(L("left_out"), kMaxReportedPeers, kMaxKeyIdChars);
    m.disputed = r.optionalStrings(L("disputed"), kMaxReportedPeers, kMaxKeyIdChars);
    m.averages = readAverages(r);
    return r.finish(std::move(m));
}

QJsonObject ContributionAnswer::toJson() const
{
    return QJsonObject{{L("accepted"), optionalBool(accepted)},
                       {L("credit"), credit},
                       {L("upload_checkpoint"), uploadCheckpoint},
                       {L("upload_round"), double(uploadRound)}};
}

Result<ContributionAnswer> ContributionAnswer::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("contribution answer"));
    ContributionAnswer m;
    m.accepted = r.optionalBoolean(L("accepted"));
    m.credit = r.number(L("credit"), 0.0, kMaxFigure);
    m.uploadCheckpoint = r.boolean(L("upload_checkpoint"));
    m.uploadRound = r.integer(L("upload_round"), 0, kMaxCount);
    return r.finish(std::move(m));
}

double StatusAnswer::bitsPerByte(double validationLoss) const
{
    return swarmtrain::bitsPerByte(validationLoss, validationTokensPerByte, 1.0);
}

QJsonObject StatusAnswer::toJson() const
{
    QJsonArray history;
    for (const LossPoint &point : validationLossHistory)
        history.append(QJsonObject{{L("round"), double(point.round)}, {L("val_loss"), point.validationLoss}});
    QJsonArray leaders;
    for (const Leader &leader : leaderboard) {
        leaders.append(QJsonObject{{L("peer_id"), leader.peerId},
                                   {L("display_name"), leader.displayName},
                                   {L("credit"), leader.credit},
                                   {L("tokens"), double(leader.tokens)}});
    }
    QJsonObject json{{L("round"), double(round)},
                     {L("round_state"), roundState},
                     {L("peers"), double(peers)},
                     {L("peers_total"), double(peersTotal)},
                     {L("checkpoint_round"), double(checkpointRound)},
                     {L("model"), modelToJson(model)},
                     {L("parameter_count"), double(parameterCount)},
                     {L("tokens_per_second"), tokensPerSecond},
                     {L("val_loss_history"), history},
                     {L("val_tokens_per_byte"), validationTokensPerByte},
                     {L("leaderboard"), leaders}};
    if (pipeline)
        json.insert(L("pipeline"), pipeline->toJson());
    return json;
}

Result<StatusAnswer> StatusAnswer::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("status"));
    StatusAnswer m;
    m.round = r.integer(L("round"), 0, kMaxCount);
    m.roundState = r.oneOf(L("round_state"), {L("gathering"), L("running"), L("done")});
    m.peers = r.integer(L("peers"), 0, kMaxCount);
    m.peersTotal = r.integer(L("peers_total"), 0, kMaxCount);
    m.checkpointRound = r.integer(L("checkpoint_round"), 0, kMaxCount);
    m.model = readModel(r.object(L("model")));
    m.parameterCount = r.integer(L("parameter_count"), 0, kMaxCount, 0);
    m.tokensPerSecond = r.number(L("tokens_per_second"), 0.0, kMaxFigure, 0.0);
    const QJsonArray history = r.array(L("val_loss_history"), kMaxListedRounds);
    for (qsizetype i = 0; i < history.size() && r.ok(); ++i) {
        JsonReader point = r.element(history, L("val_loss_history"), i);
        m.validationLossHistory.push_back({point.integer(L("round"), 0, kMaxCount), point.number(L("val_loss"), 0.0, kMaxFigure)});
    }
    // Tokenizers here give at most one token a byte, plus a document's end marker: bounded at 4.
    m.validationTokensPerByte = r.number(L("val_tokens_per_byte"), 0.0, 4.0, 0.0);
    const QJsonArray leaders = r.array(L("leaderboard"), kMaxLeaderboard);
    for (qsizetype i = 0; i < leaders.size() && r.ok(); ++i) {
        JsonReader leader = r.element(leaders, L("leaderboard"), i);
        m.leaderboard.push_back({leader.string(L("peer_id"), kMaxKeyIdChars), leader.number(L("credit"), -kMaxFigure, kMaxFigure),
                                 leader.integer(L("tokens"), 0, kMaxCount), readDisplayName(leader, leaders.at(i).toObject())});
    }
    if (r.ok() && r.has(L("pipeline"))) {
        Result<PipelineStatus> pipeline = PipelineStatus::fromJson(json.value(L("pipeline")).toObject());
        if (!json.value(L("pipeline")).isObject() || !pipeline)
            r.fail(L("pipeline"), pipeline ? QStringLiteral("must be an object") : QString::fromStdString(pipeline.error().message));
        else
            m.pipeline = *pipeline;
    }
    return r.finish(std::move(m));
}

} // namespace swarmtrain
