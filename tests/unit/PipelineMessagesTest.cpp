// The pipeline-stage mode's control messages (issue 17): each survives its own codec, and every
// field a stranger sends is bounded and checked before the coordinator or a client trusts it.
#include "ControlMessages.h"
#include "PipelineMessages.h"

#include <QJsonArray>

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

template <typename Message>
std::string errorOf(const QJsonObject &json)
{
    Result<Message> decoded = Message::fromJson(json);
    return decoded ? std::string() : decoded.error().message;
}

PipelineRequest sampleRequest()
{
    PipelineRequest r;
    r.stage = 2;
    r.stateSteps = 17;
    r.hash = QString(64, QLatin1Char('e'));
    r.step = 17;
    r.report = QStringLiteral("incomplete");
    r.attempt = 1;
    r.microbatches = 3;
    r.dropped = 1;
    r.lossSum = 9.5;
    r.evalLoss = 2.5;
    r.served = 12;
    r.busySeconds = 0.75;
    return r;
}

PipelineAnswer sampleAnswer()
{
    PipelineAnswer a;
    a.step = 17;
    a.phase = QStringLiteral("stepping");
    a.attempt = 1;
    a.stage = 1;
    a.member = true;
    a.share = 2;
    a.closedTrainers = {QStringLiteral("t1"), QStringLiteral("t2")};
    a.microbatches = 8;
    a.leftOut = {QStringLiteral("p3")};
    a.group = {QStringLiteral("p1"), QStringLiteral("p2")};
    a.resyncFrom = QStringLiteral("p2");
    a.uploadState = QString(64, QLatin1Char('b'));
    a.peers = {{QStringLiteral("p1"), QByteArray(32, 'k'), QStringLiteral("127.0.0.1:5000"), 1, true}};
    a.stageRates = {3.0, 0.0, 2.5};
    return a;
}

} // namespace

TEST(PipelineMessagesTest, EveryMessageSurvivesItsOwnCodec)
{
    const PipelineRequest request = sampleRequest();
    Result<PipelineRequest> r = PipelineRequest::fromJson(request.toJson());
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->toJson(), request.toJson());

    const PipelineAnswer answer = sampleAnswer();
    Result<PipelineAnswer> a = PipelineAnswer::fromJson(answer.toJson());
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_EQ(a->toJson(), answer.toJson());

    PipelineStatus status;
    status.step = 4;
    status.phase = QStringLiteral("training");
    status.stages = {{{QStringLiteral("p1")}, 2.0}, {{QStringLiteral("p2"), QStringLiteral("p3")}, 3.0}};
    status.bottleneck = 0;
    status.history = {{3, 8, {8, 8}, 2.5, -1.0, true, 1.5}};
    Result<PipelineStatus> s = PipelineStatus::fromJson(status.toJson());
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->toJson(), status.toJson());

    // In the join answer and the status, and absent from a full-model swarm's.
    JoinAnswer join;
    join.model.vocabSize = 65;
    join.tokenizer = {QStringLiteral("char"), QStringLiteral("abc"), QString(64, QLatin1Char('e')), 3};
    join.checkpoint.sha256 = QString(64, QLatin1Char('c'));
    Result<JoinAnswer> full = JoinAnswer::fromJson(join.toJson());
    ASSERT_TRUE(full.ok()) << full.error().message;
    EXPECT_FALSE(full->pipeline.has_value());
    join.pipeline = PipelineSettings{3, 12, 4, QStringLiteral("fp16"), 5};
    Result<JoinAnswer> piped = JoinAnswer::fromJson(join.toJson());
    ASSERT_TRUE(piped.ok()) << piped.error().message;
    ASSERT_TRUE(piped->pipeline.has_value());
    EXPECT_EQ(piped->pipeline->toJson(), join.pipeline->toJson());

    // A pipeline swarm need have no whole-model state; a full-model swarm's answer must name one.
    join.checkpoint = {};
    EXPECT_FALSE(join.toJson().contains(QLatin1StringView("checkpoint")));
    Result<JoinAnswer> stateless = JoinAnswer::fromJson(join.toJson());
    ASSERT_TRUE(stateless.ok()) << stateless.error().message;
    EXPECT_TRUE(stateless->checkpoint.sha256.isEmpty());
    QJsonObject fullWithout = join.toJson();
    fullWithout.remove(QLatin1StringView("pipeline"));
    const Result<JoinAnswer> refused = JoinAnswer::fromJson(fullWithout);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("checkpoint"), std::string::npos) << refused.error().message;
}

TEST(PipelineMessagesTest, AHostileRequestIsRefusedFieldByField)
{
    const QJsonObject good = sampleRequest().toJson();
    const auto with = [&](const char *field, const QJsonValue &value) {
        QJsonObject json = good;
        json.insert(QLatin1StringView(field), value);
        return errorOf<PipelineRequest>(json);
    };
    EXPECT_EQ(with("stage", 64), "pipeline request.stage must be an integer from -1 to 63");
    EXPECT_NE(with("hash", QString(64, QLatin1Char('G'))).find("hex"), std::string::npos);
    EXPECT_NE(with("hash", QStringLiteral("ab")).find("hex"), std::string::npos);
    EXPECT_NE(with("report", QStringLiteral("credit me")).find("report"), std::string::npos);
    EXPECT_NE(with("microbatches", 1 << 20).find("microbatches"), std::string::npos);
    EXPECT_NE(with("loss_sum", -1.0).find("loss_sum"), std::string::npos);
    EXPECT_NE(with("busy_s", QStringLiteral("lots")).find("busy_s"), std::string::npos);
    EXPECT_NE(with("served", -5).find("served"), std::string::npos);
    // A step has protocol::kMaxStepAttempts attempts, counted from 0.
    EXPECT_NE(with("attempt", protocol::kMaxStepAttempts).find("attempt"), std::string::npos);
    EXPECT_NE(with("attempt", -1).find("attempt"), std::string::npos);
    EXPECT_NE(with("attempt", QStringLiteral("again")).find("attempt"), std::string::npos);
    // A step's disputes name at most its two range partners, by key id.
    EXPECT_NE(with("disputed", QJsonArray{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}).find("disputed"),
              std::string::npos);
    EXPECT_NE(with("disputed", QJsonArray{QString(65, QLatin1Char('a'))}).find("disputed"), std::string::npos);
    EXPECT_NE(with("disputed", QJsonArray{7}).find("disputed"), std::string::npos);
    EXPECT_NE(with("disputed", QStringLiteral("everyone")).find("disputed"), std::string::npos);
    PipelineRequest disputing = sampleRequest();
    disputing.disputed = {QStringLiteral("p1"), QStringLiteral("p2")};
    Result<PipelineRequest> back = PipelineRequest::fromJson(disputing.toJson());
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->disputed, disputing.disputed);
    // A close names at most kMaxWrongAnswerers stage peers caught answering wrong, by key id.
    QJsonArray nine;
    for (int i = 0; i < protocol::kMaxWrongAnswerers + 1; ++i)
        nine.append(QStringLiteral("p%1").arg(i));
    EXPECT_NE(with("wrong_answers", nine).find("wrong_answers"), std::string::npos);
    EXPECT_NE(with("wrong_answers", QJsonArray{QString(65, QLatin1Char('a'))}).find("wrong_answers"), std::string::npos);
    EXPECT_NE(with("wrong_answers", QJsonArray{QJsonObject{}}).find("wrong_answers"), std::string::npos);
    PipelineRequest naming = sampleRequest();
    naming.wrongAnswers = {QStringLiteral("p3")};
    back = PipelineRequest::fromJson(naming.toJson());
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->wrongAnswers, naming.wrongAnswers);
    // A trainer's word on who served it: at most kMaxPipelinePeers peers, each once, by key id,
    // with a count a step can have.
    const auto served = [](const QJsonValue &peer, const QJsonValue &count) {
        return QJsonObject{{QStringLiteral("peer_id"), peer}, {QStringLiteral("microbatches"), count}};
    };
    QJsonArray tooMany;
    for (int i = 0; i <= protocol::kMaxPipelinePeers; ++i)
        tooMany.append(served(QStringLiteral("p%1").arg(i), 1));
    EXPECT_NE(with("served_by", tooMany).find("served_by"), std::string::npos);
    EXPECT_NE(with("served_by", QJsonArray{served(QStringLiteral("p1"), 1), served(QStringLiteral("p1"), 2)}).find("twice"),
              std::string::npos);
    EXPECT_NE(with("served_by", QJsonArray{served(QStringLiteral("p1"), -1)}).find("microbatches"), std::string::npos);
    EXPECT_NE(with("served_by", QJsonArray{served(QStringLiteral("p1"), 1 << 20)}).find("microbatches"), std::string::npos);
    EXPECT_NE(with("served_by", QJsonArray{served(QString(65, QLatin1Char('p')), 1)}).find("peer_id"), std::string::npos);
    EXPECT_NE(with("served_by", QJsonArray{QStringLiteral("p1")}).find("served_by"), std::string::npos);
    EXPECT_NE(with("served_by", QJsonObject{{QStringLiteral("p1"), 3}}).find("served_by"), std::string::npos);
    PipelineRequest attributing = sampleRequest();
    attributing.servedBy = {{QStringLiteral("p1"), 3}, {QStringLiteral("p2"), 0}};
    back = PipelineRequest::fromJson(attributing.toJson());
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->servedBy, attributing.servedBy);
    // A report needs its step; a hash needs a stage.
    EXPECT_NE(with("step", -1).find("step"), std::string::npos);
    QJsonObject noStage = good;
    noStage.insert(QStringLiteral("stage"), -1);
    EXPECT_NE(errorOf<PipelineRequest>(noStage).find("hash"), std::string::npos);
    QJsonObject longWhy = good;
    longWhy.insert(QStringLiteral("why"), QString(10'000, QLatin1Char('x')));
    Result<PipelineRequest> cut = PipelineRequest::fromJson(longWhy);
    ASSERT_TRUE(cut.ok());
    EXPECT_LE(cut->why.size(), 200);
}

TEST(PipelineMessagesTest, AHostileAnswerIsRefusedBeforeTheClientUsesIt)
{
    const QJsonObject good = sampleAnswer().toJson();
    const auto with = [&](const char *field, const QJsonValue &value) {
        QJsonObject json = good;
        json.insert(QLatin1StringView(field), value);
        return errorOf<PipelineAnswer>(json);
    };
    EXPECT_NE(with("phase", QStringLiteral("exploding")).find("phase"), std::string::npos);
    EXPECT_NE(with("share", 1 << 20).find("share"), std::string::npos);
    EXPECT_NE(with("attempt", protocol::kMaxStepAttempts).find("attempt"), std::string::npos);
    EXPECT_NE(with("attempt", 1.5).find("attempt"), std::string::npos);
    EXPECT_NE(with("stage_rates", QJsonArray{1.0, -2.0}).find("stage_rates"), std::string::npos);
    EXPECT_NE(with("stage_rates", QJsonArray{QStringLiteral("fast")}).find("stage_rates"), std::string::npos);
    QJsonArray many;
    for (int i = 0; i < 2000; ++i)
        many.append(QStringLiteral("p"));
    EXPECT_NE(with("group", many).find("group"), std::string::npos);
    EXPECT_NE(with("left_out", many).find("left_out"), std::string::npos);
    EXPECT_NE(with("left_out", QJsonArray{QString(1000, QLatin1Char('p'))}).find("left_out"), std::string::npos);
    EXPECT_NE(with("suspects", many).find("suspects"), std::string::npos);
    EXPECT_NE(with("suspects", QJsonArray{QString(65, QLatin1Char('p'))}).find("suspects"), std::string::npos);
    // The credit of a step: a count a step can have, and credit that is a finite, non-negative number.
    const auto credited = [](const QJsonValue &microbatches, const QJsonValue &credit) {
        return QJsonObject{{QStringLiteral("step"), 3}, {QStringLiteral("microbatches"), microbatches}, {QStringLiteral("credit"), credit}};
    };
    EXPECT_NE(with("credited", credited(2, -1.0)).find("credit"), std::string::npos);
    EXPECT_NE(with("credited", credited(2, QStringLiteral("lots"))).find("credit"), std::string::npos);
    EXPECT_NE(with("credited", credited(-2, 1.0)).find("microbatches"), std::string::npos);
    EXPECT_NE(with("credited", 5).find("credited"), std::string::npos);
    PipelineAnswer crediting = sampleAnswer();
    crediting.credited = PipelineAnswer::Credited{7, 2, 0.25};
    const PipelineAnswer creditedBack = PipelineAnswer::fromJson(crediting.toJson()).value();
    ASSERT_TRUE(creditedBack.credited.has_value());
    EXPECT_EQ(creditedBack.credited->step, 7);
    EXPECT_EQ(creditedBack.credited->microbatches, 2);
    EXPECT_EQ(creditedBack.credited->credit, 0.25);
    EXPECT_FALSE(PipelineAnswer::fromJson(good).value().credited.has_value());
    PipelineAnswer suspecting = sampleAnswer();
    suspecting.suspects = {QStringLiteral("p9")};
    EXPECT_EQ(PipelineAnswer::fromJson(suspecting.toJson()).value().suspects, suspecting.suspects);
    // The hash of the state to upload: 64 lowercase hex digits, nothing else.
    EXPECT_NE(with("upload_state", QString(64, QLatin1Char('z'))).find("upload_state"), std::string::npos);
    EXPECT_NE(with("upload_state", QString(65, QLatin1Char('a'))).find("upload_state"), std::string::npos);
    EXPECT_NE(with("upload_state", 7).find("upload_state"), std::string::npos);
    EXPECT_EQ(with("upload_state", QString(64, QLatin1Char('a'))), std::string());
    QJsonObject peer = sampleAnswer().toJson().value(QStringLiteral("peers")).toArray().at(0).toObject();
    peer.insert(QStringLiteral("public_key"), QStringLiteral("AAAA"));
    EXPECT_NE(with("peers", QJsonArray{peer}).find("public_key"), std::string::npos);
    peer = sampleAnswer().toJson().value(QStringLiteral("peers")).toArray().at(0).toObject();
    peer.insert(QStringLiteral("stage"), 99);
    EXPECT_NE(with("peers", QJsonArray{peer}).find("stage"), std::string::npos);
    // A pipeline of one stage, or a precision the wire does not have, in a join answer.
    EXPECT_NE(errorOf<PipelineSettings>(QJsonObject{{QStringLiteral("stages"), 1}, {QStringLiteral("microbatches_per_step"), 4},
                                                    {QStringLiteral("microbatch_size"), 4}, {QStringLiteral("precision"), QStringLiteral("int8")},
                                                    {QStringLiteral("eval_every"), 0}})
                  .find("stages"),
              std::string::npos);
    EXPECT_NE(errorOf<PipelineSettings>(QJsonObject{{QStringLiteral("stages"), 2}, {QStringLiteral("microbatches_per_step"), 4},
                                                    {QStringLiteral("microbatch_size"), 4}, {QStringLiteral("precision"), QStringLiteral("int4")},
                                                    {QStringLiteral("eval_every"), 0}})
                  .find("precision"),
              std::string::npos);
    // The share of cross-checked hops is a fraction; an older coordinator that names none means 0.1.
    QJsonObject settings = PipelineSettings{}.toJson();
    for (const double share : {-0.1, 1.5}) {
        settings.insert(QStringLiteral("cross_check_share"), share);
        EXPECT_NE(errorOf<PipelineSettings>(settings).find("cross_check_share"), std::string::npos) << share;
    }
    settings.insert(QStringLiteral("cross_check_share"), 0.0);
    EXPECT_EQ(PipelineSettings::fromJson(settings).value().crossCheckShare, 0.0);
    settings.remove(QStringLiteral("cross_check_share"));
    EXPECT_EQ(PipelineSettings::fromJson(settings).value().crossCheckShare, 0.1);
}

TEST(PipelineMessagesTest, AValidationSampleIsBoundedByCountAndVocabulary)
{
    const ValidationSample sample{{0, 5, 31999, 2}, 17};
    const Result<ValidationSample> back = ValidationSample::fromJson(sample.toJson(), 32000);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->tokens, sample.tokens);
    EXPECT_EQ(back->bytes, 17);
    const Result<ValidationSample> outside = ValidationSample::fromJson(sample.toJson(), 1000);
    ASSERT_FALSE(outside.ok());
    EXPECT_EQ(outside.error().message, "validation sample.tokens[2] must be an integer from 0 to 999");
    QJsonObject tooMany = sample.toJson();
    tooMany.insert(QStringLiteral("tokens"), QJsonArray::fromVariantList(QVariantList(protocol::kMaxValidationSampleTokens + 1, 1)));
    const Result<ValidationSample> long_ = ValidationSample::fromJson(tooMany, 32000);
    ASSERT_FALSE(long_.ok());
    EXPECT_NE(long_.error().message.find("validation sample.tokens"), std::string::npos) << long_.error().message;
}
