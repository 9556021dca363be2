#include "ControlMessages.h"
#include "JsonReader.h"
#include "VerificationMessages.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <gtest/gtest.h>

#include <functional>
#include <limits>

using namespace swarmtrain;

namespace {

QString hash(char digit) { return QString(64, QLatin1Char(digit)); }

JoinAnswer sampleJoinAnswer()
{
    JoinAnswer a;
    a.peerId = QStringLiteral("0123456789abcdef0123456789abcdef");
    a.model.vocabSize = 65;
    a.tokenizer = {QStringLiteral("char"), QStringLiteral("abc"), hash('e'), 3};
    a.training.innerSteps = 50;
    a.training.lrDecayIters = 20000;
    a.shards = {{"000000", 100, std::string(64, 'a'), 36}, {"000001", 200, std::string(64, 'b'), 86}};
    a.assignedShards = {QStringLiteral("000001")};
    a.round = 7;
    a.heartbeatIntervalMs = 2000;
    a.reachable = true;
    a.checkpoint = {7, hash('c'), 1234};
    return a;
}

// The error of decoding `json` as a `Message`, "" when it decodes.
template <typename Message>
std::string errorOf(const QJsonObject &json)
{
    Result<Message> decoded = Message::fromJson(json);
    return decoded ? std::string() : decoded.error().message;
}

} // namespace

TEST(ControlMessagesTest, EveryMessageSurvivesItsOwnCodec)
{
    const JoinAnswer join = JoinAnswer::fromJson(sampleJoinAnswer().toJson()).value();
    EXPECT_EQ(join.model.vocabSize, 65);
    EXPECT_EQ(join.training.innerSteps, 50);
    EXPECT_EQ(join.training.lrDecayIters, 20000);
    ASSERT_EQ(join.shards.size(), 2u);
    EXPECT_EQ(join.shards[1].id, "000001");
    EXPECT_EQ(join.shards[1].bytes, 200u);
    EXPECT_EQ(join.shards[1].tokens, 86u);
    EXPECT_EQ(join.tokenizer.kind, QStringLiteral("char"));
    EXPECT_EQ(join.tokenizer.sha256, hash('e'));
    EXPECT_EQ(join.tokenizer.vocabSize, 3);
    EXPECT_EQ(join.assignedShards, QStringList{QStringLiteral("000001")});
    EXPECT_EQ(join.checkpoint.sha256, hash('c'));
    EXPECT_TRUE(join.reachable);

    const JoinRequest request{QByteArray(32, '\x07'), {QStringLiteral("cuda:1"), 16}, QStringLiteral("*:4000"),
                              QStringLiteral("swarmtrain 0.1.0")};
    const JoinRequest back = JoinRequest::fromJson(request.toJson()).value();
    EXPECT_EQ(back.publicKey, request.publicKey);
    EXPECT_EQ(back.device.kind, QStringLiteral("cuda:1"));
    EXPECT_EQ(back.device.cpuThreads, 16);
    EXPECT_EQ(back.endpoint, QStringLiteral("*:4000"));

    HeartbeatAnswer beat{9, QStringLiteral("running"), 1000, true, 8, ContributionVerdictInfo{8, std::nullopt, 0.5, true}};
    const HeartbeatAnswer beatBack = HeartbeatAnswer::fromJson(beat.toJson()).value();
    ASSERT_TRUE(beatBack.lastContribution.has_value());
    EXPECT_FALSE(beatBack.lastContribution->accepted.has_value()) << "null stays unknown";
    EXPECT_TRUE(beatBack.lastContribution->uploadCheckpoint);

    RoundAnswer round{3, 1, QStringLiteral("running"), 99, 1000,
                      {{QStringLiteral("a"), QByteArray(32, '\x01'), QStringLiteral("127.0.0.1:9"), true, 0, 600},
                       {QStringLiteral("b"), QByteArray(), QString(), false, 600, 600}}};
    const RoundAnswer roundBack = RoundAnswer::fromJson(round.toJson()).value();
    ASSERT_EQ(roundBack.members.size(), 2u);
    EXPECT_EQ(roundBack.members[0].end, 600);
    EXPECT_TRUE(roundBack.members[1].publicKey.isEmpty()) << "a member the coordinator forgot has no key";

    const ContributionRequest contribution{4, 768, 1e9, 0.5, 2.25, hash('d'), 10, 20};
    EXPECT_EQ(ContributionRequest::fromJson(contribution.toJson())->bytesDown, 20);
    const ContributionAnswer verdict{true, 0.768, false, 5};
    EXPECT_EQ(ContributionAnswer::fromJson(verdict.toJson())->accepted, std::optional<bool>(true));

    StatusAnswer status;
    status.roundState = QStringLiteral("gathering");
    status.model.vocabSize = 65;
    status.validationLossHistory = {{1, 2.5}, {2, 2.25}};
    status.leaderboard = {{QStringLiteral("a"), -1.5, 100}};
    const StatusAnswer statusBack = StatusAnswer::fromJson(status.toJson()).value();
    ASSERT_EQ(statusBack.validationLossHistory.size(), 2u);
    EXPECT_DOUBLE_EQ(statusBack.validationLossHistory[1].validationLoss, 2.25);
    EXPECT_DOUBLE_EQ(statusBack.leaderboard[0].credit, -1.5) << "refuted work may leave credit below zero";
}

TEST(ControlMessagesTest, ADecodeErrorNamesTheFieldAndItsBound)
{
    QJsonObject beat = HeartbeatRequest{QStringLiteral("ready"), 3, 10.0, {}}.toJson();
    beat.insert(QStringLiteral("base_round"), 2.5);
    EXPECT_EQ(errorOf<HeartbeatRequest>(beat), "heartbeat.base_round must be an integer from -1 to 9007199254740992");
    beat.insert(QStringLiteral("base_round"), 3);
    beat.insert(QStringLiteral("state"), QStringLiteral("dancing"));
    EXPECT_EQ(errorOf<HeartbeatRequest>(beat), "heartbeat.state must be one of training, paused, ready, idle, verifying, left");
    beat.remove(QStringLiteral("state"));
    EXPECT_EQ(errorOf<HeartbeatRequest>(beat), "heartbeat.state is missing");

    QJsonObject contribution = ContributionRequest{4, 768, 1e9, 0.5, 2.25, hash('d'), 0, 0}.toJson();
    contribution.insert(QStringLiteral("tokens"), -1);
    EXPECT_NE(errorOf<ContributionRequest>(contribution).find("contribution.tokens must be an integer from 0"),
              std::string::npos);
    contribution.insert(QStringLiteral("tokens"), 768);
    contribution.insert(QStringLiteral("params_hash"), hash('D'));
    EXPECT_EQ(errorOf<ContributionRequest>(contribution), "contribution.params_hash must be 64 lowercase hex digits (a SHA-256)");
    contribution.insert(QStringLiteral("params_hash"), hash('d'));
    contribution.insert(QStringLiteral("loss"), std::numeric_limits<double>::infinity());
    EXPECT_NE(errorOf<ContributionRequest>(contribution).find("contribution.loss must be a number"), std::string::npos);
}

TEST(ControlMessagesTest, NestedFieldsAreNamedByTheirPath)
{
    QJsonObject join = sampleJoinAnswer().toJson();
    QJsonObject training = join.value(QStringLiteral("training")).toObject();
    training.insert(QStringLiteral("batch_size"), 1e12);
    join.insert(QStringLiteral("training"), training);
    EXPECT_EQ(errorOf<JoinAnswer>(join), "join answer.training.batch_size must be an integer from 1 to 1048576");

    join = sampleJoinAnswer().toJson();
    QJsonArray shards = join.value(QStringLiteral("shards")).toArray();
    QJsonObject shard = shards.at(1).toObject();
    shard.insert(QStringLiteral("sha256"), QStringLiteral("abc"));
    shards.replace(1, shard);
    join.insert(QStringLiteral("shards"), shards);
    EXPECT_EQ(errorOf<JoinAnswer>(join), "join answer.shards[1].sha256 must be 64 lowercase hex digits (a SHA-256)");

    join = sampleJoinAnswer().toJson();
    join.insert(QStringLiteral("assigned_shards"), QJsonArray{QStringLiteral("000001"), 5});
    EXPECT_EQ(errorOf<JoinAnswer>(join), "join answer.assigned_shards[1] must be a string of at most 64 characters");
}

TEST(ControlMessagesTest, TheTokenizerInfoIsBoundedAndConsistent)
{
    const auto withTokenizer = [](const QJsonObject &changes) {
        QJsonObject join = sampleJoinAnswer().toJson();
        QJsonObject tokenizer = join.value(QStringLiteral("tokenizer")).toObject();
        for (auto it = changes.begin(); it != changes.end(); ++it)
            tokenizer.insert(it.key(), it.value());
        join.insert(QStringLiteral("tokenizer"), tokenizer);
        return join;
    };
    const QString pieceModelHash = hash('f');
    const Result<JoinAnswer> pieces = JoinAnswer::fromJson(withTokenizer(
        {{QStringLiteral("kind"), QStringLiteral("sentencepiece")}, {QStringLiteral("vocabulary"), QString()},
         {QStringLiteral("sha256"), pieceModelHash}, {QStringLiteral("vocab_size"), 32000}}));
    ASSERT_TRUE(pieces.ok()) << pieces.error().message;
    EXPECT_EQ(pieces->tokenizer.kind, QStringLiteral("sentencepiece"));
    EXPECT_EQ(pieces->tokenizer.vocabSize, 32000);

    EXPECT_EQ(errorOf<JoinAnswer>(withTokenizer({{QStringLiteral("kind"), QStringLiteral("bpe")}})),
              "join answer.tokenizer.kind must be one of char, byte, sentencepiece");
    EXPECT_EQ(errorOf<JoinAnswer>(withTokenizer({{QStringLiteral("sha256"), QStringLiteral("abc")}})),
              "join answer.tokenizer.sha256 must be 64 lowercase hex digits (a SHA-256)");
    EXPECT_EQ(errorOf<JoinAnswer>(withTokenizer({{QStringLiteral("vocab_size"), 1e9}})),
              "join answer.tokenizer.vocab_size must be an integer from 1 to 2097152");
    EXPECT_EQ(errorOf<JoinAnswer>(withTokenizer({{QStringLiteral("vocab_size"), 4}})),
              "join answer.tokenizer.vocabulary must hold vocab_size characters");
    EXPECT_EQ(errorOf<JoinAnswer>(withTokenizer({{QStringLiteral("kind"), QStringLiteral("byte")}})),
              "join answer.tokenizer.vocab_size must be 256 for bytes");
    EXPECT_EQ(errorOf<JoinAnswer>(withTokenizer({{QStringLiteral("kind"), QStringLiteral("sentencepiece")}})),
              "join answer.tokenizer.vocabulary must be empty but for a character tokenizer");
    QJsonObject join = sampleJoinAnswer().toJson();
    QJsonArray shards = join.value(QStringLiteral("shards")).toArray();
    QJsonObject shard = shards.at(0).toObject();
    shard.insert(QStringLiteral("tokens"), 0);
    shards.replace(0, shard);
    join.insert(QStringLiteral("shards"), shards);
    EXPECT_EQ(errorOf<JoinAnswer>(join), "join answer.shards[0].tokens must be an integer from 1 to 9007199254740992");
}

TEST(ControlMessagesTest, AHostileModelConfigIsBoundedBeforeAnythingIsBuilt)
{
    QJsonObject join = sampleJoinAnswer().toJson();
    QJsonObject model = join.value(QStringLiteral("model")).toObject();
    model.insert(QStringLiteral("vocab_size"), 1e9);
    join.insert(QStringLiteral("model"), model);
    EXPECT_EQ(errorOf<JoinAnswer>(join), "join answer.model.vocab_size must be an integer from 1 to 1048576");
    model.insert(QStringLiteral("vocab_size"), 65);
    model.insert(QStringLiteral("n_head"), 3); // 128 is not divisible by 3
    join.insert(QStringLiteral("model"), model);
    EXPECT_NE(errorOf<JoinAnswer>(join).find("divisible"), std::string::npos);
}

TEST(ControlMessagesTest, ListsAreBoundedAndRangesStayInsideTheVector)
{
    RoundAnswer round{3, 0, QStringLiteral("running"), 99, 1000,
                      {{QStringLiteral("a"), QByteArray(32, '\x01'), QStringLiteral("h:1"), true, 0, 1000}}};
    QJsonObject json = round.toJson();
    QJsonArray members = json.value(QStringLiteral("members")).toArray();
    QJsonObject member = members.at(0).toObject();
    member.insert(QStringLiteral("range"), QJsonArray{0, 1001});
    members.replace(0, member);
    json.insert(QStringLiteral("members"), members);
    EXPECT_EQ(errorOf<RoundAnswer>(json), "round.members[0].range[1] must be an integer from 0 to 1000");
    member.insert(QStringLiteral("range"), QJsonArray{500, 400});
    members.replace(0, member);
    json.insert(QStringLiteral("members"), members);
    EXPECT_EQ(errorOf<RoundAnswer>(json), "round.members[0].range[1] must be an integer from 500 to 1000");

    StatusAnswer valid;
    valid.model.vocabSize = 65;
    valid.roundState = QStringLiteral("done");
    QJsonObject status = valid.toJson();
    QJsonArray leaders;
    for (int i = 0; i <= protocol::kMaxLeaderboard; ++i)
        leaders.append(QJsonObject{});
    status.insert(QStringLiteral("leaderboard"), leaders);
    EXPECT_NE(errorOf<StatusAnswer>(status).find("status.leaderboard must be an array of at most 1000 items"),
              std::string::npos);

    // The status page's figures: bounded, and absent from an older coordinator's answer.
    valid.tokensPerSecond = 7.5e4;
    valid.parameterCount = 14'112;
    status = valid.toJson();
    const StatusAnswer back = StatusAnswer::fromJson(status).value();
    EXPECT_DOUBLE_EQ(back.tokensPerSecond, 7.5e4);
    EXPECT_EQ(back.parameterCount, 14'112);
    status.insert(QStringLiteral("tokens_per_second"), -1.0);
    EXPECT_NE(errorOf<StatusAnswer>(status).find("status.tokens_per_second must be"), std::string::npos);
    status.insert(QStringLiteral("tokens_per_second"), 1.0);
    status.insert(QStringLiteral("parameter_count"), 0.5);
    EXPECT_NE(errorOf<StatusAnswer>(status).find("status.parameter_count must be an integer"), std::string::npos);
    status.remove(QStringLiteral("tokens_per_second"));
    status.remove(QStringLiteral("parameter_count"));
    const StatusAnswer older = StatusAnswer::fromJson(status).value();
    EXPECT_EQ(older.tokensPerSecond, 0.0);
    EXPECT_EQ(older.parameterCount, 0);
}

TEST(ControlMessagesTest, AJoinNeedsAnEd25519KeyAndCutsFreeText)
{
    JoinRequest request{QByteArray(32, '\x07'), {QStringLiteral("cpu"), 4}, QString(), QString(500, QLatin1Char('v'))};
    QJsonObject json = request.toJson();
    EXPECT_EQ(JoinRequest::fromJson(json)->clientVersion.size(), protocol::kMaxClientVersionChars);
    json.insert(QStringLiteral("public_key"), QString::fromLatin1(QByteArray(31, 'k').toBase64()));
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.public_key must be 32 bytes in base64");
    json.insert(QStringLiteral("public_key"), QStringLiteral("not base64!"));
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.public_key must be 32 bytes in base64");
    json = request.toJson();
    json.insert(QStringLiteral("device"), QStringLiteral("a GPU"));
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.device must be a JSON object");
}

TEST(JsonReaderTest, TheFirstErrorWinsAndLaterReadsReturnFallbacks)
{
    JsonReader reader(QJsonObject{{QStringLiteral("a"), QStringLiteral("x")}, {QStringLiteral("b"), 5}},
                      QStringLiteral("m"));
    EXPECT_EQ(reader.integer(QLatin1StringView("a"), 0, 10), 0);
    EXPECT_EQ(reader.integer(QLatin1StringView("b"), 0, 10), 0) << "after an error, reads change nothing";
    EXPECT_EQ(reader.error().message, "m.a must be an integer from 0 to 10");
    JsonReader fine(QJsonObject{{QStringLiteral("b"), 5}}, QStringLiteral("m"));
    EXPECT_EQ(fine.integer(QLatin1StringView("b"), 0, 10), 5);
    EXPECT_EQ(fine.integer(QLatin1StringView("c"), 0, 10, 7), 7) << "an optional field takes its default";
    EXPECT_TRUE(fine.ok());
}

TEST(ControlMessagesTest, DeviceClaimsAreBoundedBeforeTheCoordinatorKeepsThem)
{
    JoinRequest request{QByteArray(32, '\x07'), {}, QString(), QStringLiteral("v")};
    request.device.kind = QStringLiteral("cuda:0");
    request.device.gpus = {{QStringLiteral("NVIDIA GeForce RTX 4090"), QStringLiteral("nvidia"), 24ll << 30}};
    request.device.trainingMemoryBytes = 20ll << 30;
    request.device.flopsPerSecond = 1.6e14;
    request.device.hostToDeviceBytesPerSecond = 2.4e10;
    const JoinRequest back = JoinRequest::fromJson(request.toJson()).value();
    ASSERT_EQ(back.device.gpus.size(), 1u);
    EXPECT_EQ(back.device.gpus[0].memoryBytes, 24ll << 30);
    EXPECT_DOUBLE_EQ(back.device.flopsPerSecond, 1.6e14);

    QJsonObject json = request.toJson();
    QJsonObject device = json.value(QStringLiteral("device")).toObject();
    device.insert(QStringLiteral("flops_per_s"), 1e20);
    json.insert(QStringLiteral("device"), device);
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.device.flops_per_s must be a number from 0 to 1e+16");
    device.insert(QStringLiteral("flops_per_s"), 1e14);
    QJsonArray gpus;
    for (int i = 0; i <= protocol::kMaxGpus; ++i)
        gpus.append(QJsonObject{});
    device.insert(QStringLiteral("gpus"), gpus);
    json.insert(QStringLiteral("device"), device);
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.device.gpus must be an array of at most 16 items");
}

TEST(ControlMessagesTest, HeartbeatsCarryLinkReportsAndProbePeers)
{
    HeartbeatRequest beat{QStringLiteral("training"), 2, 100.0, {}, {{QStringLiteral("b"), 12.5, 3e6}}};
    const HeartbeatRequest back = HeartbeatRequest::fromJson(beat.toJson()).value();
    ASSERT_EQ(back.links.size(), 1u);
    EXPECT_DOUBLE_EQ(back.links[0].bytesPerSecond, 3e6);

    QJsonObject json = beat.toJson();
    json.insert(QStringLiteral("links"), QJsonArray{QJsonObject{{QStringLiteral("peer_id"), QStringLiteral("b")},
                                                                {QStringLiteral("rtt_ms"), -1},
                                                                {QStringLiteral("bytes_per_s"), 1}}});
    EXPECT_EQ(errorOf<HeartbeatRequest>(json), "heartbeat.links[0].rtt_ms must be a number from 0 to 600000");
    QJsonArray many;
    for (int i = 0; i <= protocol::kMaxLinkReports; ++i)
        many.append(beat.toJson().value(QStringLiteral("links")).toArray().at(0));
    json.insert(QStringLiteral("links"), many);
    EXPECT_EQ(errorOf<HeartbeatRequest>(json), "heartbeat.links must be an array of at most 64 items");

    HeartbeatAnswer answer{1, QStringLiteral("gathering"), 0, false, 1, std::nullopt,
                           {{QStringLiteral("c"), QByteArray(32, '\x02'), QStringLiteral("127.0.1.3:7000")}}};
    const HeartbeatAnswer answerBack = HeartbeatAnswer::fromJson(answer.toJson()).value();
    ASSERT_EQ(answerBack.probe.size(), 1u);
    EXPECT_EQ(answerBack.probe[0].publicKey, QByteArray(32, '\x02'));
    EXPECT_EQ(answerBack.probe[0].endpoint, QStringLiteral("127.0.1.3:7000"));
}

// Two owners per range (issue 16): an owner names the range partners it disagrees with, bounded
// like the peers it refused; an old client's contribution without the field disputes no one.
TEST(ControlMessagesTest, AContributionsDisputesAreBoundedLikeItsOtherReports)
{
    ContributionRequest contribution{4, 768, 1e9, 0.5, 2.25, hash('d'), 0, 0};
    contribution.disputed = {QStringLiteral("checker"), QStringLiteral("owner")};
    EXPECT_EQ(ContributionRequest::fromJson(contribution.toJson())->disputed, contribution.disputed);

    QJsonObject json = contribution.toJson();
    json.remove(QStringLiteral("disputed"));
    const Result<ContributionRequest> old = ContributionRequest::fromJson(json);
    ASSERT_TRUE(old.ok()) << old.error().message;
    EXPECT_TRUE(old->disputed.isEmpty());

    json.insert(QStringLiteral("disputed"), QJsonArray{QStringLiteral("a"), QString(protocol::kMaxKeyIdChars + 1, QLatin1Char('k'))});
    EXPECT_EQ(errorOf<ContributionRequest>(json), "contribution.disputed[1] must be a string of at most 64 characters");
    json.insert(QStringLiteral("disputed"), QJsonArray{QStringLiteral("a"), 7});
    EXPECT_EQ(errorOf<ContributionRequest>(json), "contribution.disputed[1] must be a string of at most 64 characters");
    QJsonArray many;
    for (qsizetype i = 0; i <= protocol::kMaxReportedPeers; ++i)
        many.append(QStringLiteral("k%1").arg(i));
    json.insert(QStringLiteral("disputed"), many);
    EXPECT_EQ(errorOf<ContributionRequest>(json), "contribution.disputed must be an array of at most 4096 items");
    json.insert(QStringLiteral("disputed"), QStringLiteral("checker"));
    EXPECT_EQ(errorOf<ContributionRequest>(json), "contribution.disputed must be an array of at most 4096 items");
}

// The checker of a range fetches the commitments to the range it checks with those to its own,
// and the referee of a range those to the range it referees.
TEST(ControlMessagesTest, CommitmentsCarryThoseToTheCheckedAndRefereedRangesBounded)
{
    CommitmentsAnswer answer{9, true, {{QStringLiteral("m1"), hash('1')}}};
    answer.checked = {{QStringLiteral("m1"), hash('2')}, {QStringLiteral("m2"), hash('3')}};
    answer.refereed = {{QStringLiteral("m3"), hash('5')}};
    answer.uncommitted = {QStringLiteral("m4")};
    const CommitmentsAnswer back = CommitmentsAnswer::fromJson(answer.toJson()).value();
    EXPECT_EQ(back.uncommitted, QStringList{QStringLiteral("m4")});
    ASSERT_EQ(back.checked.size(), 2u);
    EXPECT_EQ(back.checked[1].peerId, QStringLiteral("m2"));
    EXPECT_EQ(back.checked[1].sha256, hash('3'));
    ASSERT_EQ(back.pieces.size(), 1u);
    EXPECT_EQ(back.pieces[0].sha256, hash('1'));
    ASSERT_EQ(back.refereed.size(), 1u);
    EXPECT_EQ(back.refereed[0].peerId, QStringLiteral("m3"));
    EXPECT_EQ(back.refereed[0].sha256, hash('5'));

    QJsonObject json = answer.toJson();
    json.remove(QStringLiteral("checked"));
    json.remove(QStringLiteral("refereed"));
    const Result<CommitmentsAnswer> old = CommitmentsAnswer::fromJson(json);
    ASSERT_TRUE(old.ok()) << old.error().message;
    EXPECT_TRUE(old->checked.empty()) << "absent: the asker checks no range";
    EXPECT_TRUE(old->refereed.empty()) << "absent: the asker referees no range";

    json.insert(QStringLiteral("checked"), QJsonArray{QJsonObject{{QStringLiteral("peer_id"), QStringLiteral("m1")},
                                                                  {QStringLiteral("sha256"), hash('X')}}});
    EXPECT_EQ(errorOf<CommitmentsAnswer>(json), "commitments.checked[0].sha256 must be 64 lowercase hex digits (a SHA-256)");
    QJsonArray many;
    for (qsizetype i = 0; i <= protocol::kMaxCommittedPieces; ++i)
        many.append(QJsonObject{{QStringLiteral("peer_id"), QStringLiteral("m")}, {QStringLiteral("sha256"), hash('4')}});
    json.insert(QStringLiteral("checked"), many);
    EXPECT_EQ(errorOf<CommitmentsAnswer>(json), "commitments.checked must be an array of at most 4096 items");
    json.remove(QStringLiteral("checked"));
    json.insert(QStringLiteral("refereed"), many);
    EXPECT_EQ(errorOf<CommitmentsAnswer>(json), "commitments.refereed must be an array of at most 4096 items");
    json.insert(QStringLiteral("refereed"), QStringLiteral("m1"));
    EXPECT_EQ(errorOf<CommitmentsAnswer>(json), "commitments.refereed must be an array of at most 4096 items");
    json.remove(QStringLiteral("refereed"));
    QJsonArray ids;
    for (qsizetype i = 0; i <= protocol::kMaxCommittedPieces; ++i)
        ids.append(QStringLiteral("m"));
    json.insert(QStringLiteral("uncommitted"), ids);
    EXPECT_NE(errorOf<CommitmentsAnswer>(json).find("commitments.uncommitted"), std::string::npos);
    json.insert(QStringLiteral("uncommitted"), QJsonArray{QString(65, QLatin1Char('k'))});
    EXPECT_NE(errorOf<CommitmentsAnswer>(json).find("commitments.uncommitted"), std::string::npos);
}

// The seed the round's range checkers are drawn from: 16 hex digits, never all zero (0 is a
// coordinator's from before, whose pairs rotate), and absent from such a coordinator's answers.
TEST(ControlMessagesTest, CommitmentsCarryTheSeedOfTheRangeCheckersStrictly)
{
    CommitmentsAnswer answer{9, true, {{QStringLiteral("m1"), hash('1')}}};
    EXPECT_FALSE(answer.toJson().contains(QStringLiteral("check_seed")));
    EXPECT_EQ(CommitmentsAnswer::fromJson(answer.toJson()).value().checkSeed, 0u);
    for (const quint64 seed : {quint64(1), quint64(0xfedc'ba98'7654'3210ULL), ~quint64(0)}) {
        answer.checkSeed = seed;
        EXPECT_EQ(answer.toJson().value(QStringLiteral("check_seed")).toString().size(), 16);
        EXPECT_EQ(CommitmentsAnswer::fromJson(answer.toJson()).value().checkSeed, seed);
    }
    QJsonObject json = answer.toJson();
    for (const QJsonValue bad :
         {QJsonValue(QStringLiteral("0000000000000000")), QJsonValue(QStringLiteral("123")),
          QJsonValue(QStringLiteral("fedcba987654321g")), QJsonValue(QStringLiteral("-edcba9876543210")),
          QJsonValue(QStringLiteral(" edcba9876543210")), QJsonValue(QStringLiteral("FEDCBA9876543210")),
          QJsonValue(QStringLiteral("fedcba98765432100")), QJsonValue(12345)}) {
        json.insert(QStringLiteral("check_seed"), bad);
        EXPECT_NE(errorOf<CommitmentsAnswer>(json).find("commitments.check_seed"), std::string::npos)
            << bad.toVariant().toString().toStdString();
    }
}

// Range audits (issue 43): the commitments say whether the coordinator audits (and whether
// referees check every average), an owner names its average by a strict hash, and the audit's
// owners are bounded key ids, given only once drawn.
TEST(ControlMessagesTest, AveragesNamedForTheAuditAndTheAuditAreStrict)
{
    CommitmentsAnswer answer{9, true, {{QStringLiteral("m1"), hash('1')}}};
    EXPECT_FALSE(answer.toJson().contains(QStringLiteral("range_audits")));
    EXPECT_FALSE(CommitmentsAnswer::fromJson(answer.toJson()).value().rangeAudits) << "an older coordinator audits nothing";
    answer.rangeAudits = true;
    EXPECT_TRUE(CommitmentsAnswer::fromJson(answer.toJson()).value().rangeAudits);
    QJsonObject commitments = answer.toJson();
    commitments.insert(QStringLiteral("range_audits"), QStringLiteral("yes"));
    EXPECT_NE(errorOf<CommitmentsAnswer>(commitments).find("range_audits"), std::string::npos);
    // ...and whether referees check every average (an older coordinator's do not).
    EXPECT_FALSE(CommitmentsAnswer::fromJson(answer.toJson()).value().refereeChecks);
    answer.refereeChecks = true;
    EXPECT_TRUE(CommitmentsAnswer::fromJson(answer.toJson()).value().refereeChecks);
    commitments = answer.toJson();
    commitments.insert(QStringLiteral("referee_checks"), 1);
    EXPECT_NE(errorOf<CommitmentsAnswer>(commitments).find("referee_checks"), std::string::npos);

    const AverageClaim claim{4, 2, hash('c'), {QStringLiteral("m1"), QStringLiteral("m2")}};
    const AverageClaim decoded = AverageClaim::fromJson(claim.toJson()).value();
    EXPECT_EQ(decoded.round, 4);
    EXPECT_EQ(decoded.attempt, 2);
    EXPECT_EQ(decoded.sha256, hash('c'));
    EXPECT_EQ(decoded.contributors, claim.contributors);
    EXPECT_TRUE(decoded.owner.isEmpty());
    EXPECT_FALSE(claim.toJson().contains(QStringLiteral("agrees"))) << "an owner's own claim";
    // A checker's verdict names the owner, and may disagree (then with no pieces, if the owner
    // named none).
    const AverageClaim verdict{4, 2, hash('c'), {}, QStringLiteral("o1"), false};
    const AverageClaim decodedVerdict = AverageClaim::fromJson(verdict.toJson()).value();
    EXPECT_EQ(decodedVerdict.owner, QStringLiteral("o1"));
    EXPECT_FALSE(decodedVerdict.agrees);
    QJsonArray tooMany;
    for (qsizetype i = 0; i <= protocol::kMaxCommittedPieces; ++i)
        tooMany.append(QStringLiteral("m%1").arg(i));
    for (const auto &[field, bad] : std::vector<std::pair<QString, QJsonValue>>{
             {QStringLiteral("sha256"), hash('C')},
             {QStringLiteral("sha256"), QString(63, QLatin1Char('c'))},
             {QStringLiteral("sha256"), 12},
             {QStringLiteral("round"), -1},
             {QStringLiteral("attempt"), 1 << 21},
             {QStringLiteral("attempt"), 1.5},
             {QStringLiteral("contributors"), QJsonArray{}},
             {QStringLiteral("contributors"), QJsonArray{QStringLiteral("m1"), QStringLiteral("m1")}},
             {QStringLiteral("contributors"), QJsonArray{QString()}},
             {QStringLiteral("contributors"), QJsonArray{QString(65, QLatin1Char('k'))}},
             {QStringLiteral("contributors"), QJsonArray{7}},
             {QStringLiteral("contributors"), tooMany},
             {QStringLiteral("contributors"), QStringLiteral("m1")},
             {QStringLiteral("owner"), QString()},
             {QStringLiteral("owner"), QString(65, QLatin1Char('k'))},
             {QStringLiteral("agrees"), true}}) {
        QJsonObject json = claim.toJson();
        json.insert(field, bad);
        EXPECT_NE(errorOf<AverageClaim>(json).find(field.toStdString()), std::string::npos) << field.toStdString();
    }
    QJsonObject nothing = claim.toJson();
    nothing.remove(QStringLiteral("contributors"));
    EXPECT_NE(errorOf<AverageClaim>(nothing).find("contributors"), std::string::npos) << "an owner names its pieces";

    // A refuted ruling may name the range as the coordinator recomputed it; no other ruling does.
    RangeRuling refuted{7, QStringLiteral("o1"), RangeRuling::State::Refuted, hash('a'), hash('b')};
    EXPECT_EQ(RangeRuling::fromJson(refuted.toJson()).value().redoneSha256, hash('b'));
    refuted.redoneSha256.clear();
    EXPECT_FALSE(refuted.toJson().contains(QStringLiteral("redone_sha256")));
    QJsonObject upheld = RangeRuling{7, QStringLiteral("o1"), RangeRuling::State::Upheld, hash('a')}.toJson();
    upheld.insert(QStringLiteral("redone_sha256"), hash('b'));
    EXPECT_NE(errorOf<RangeRuling>(upheld).find("redone_sha256"), std::string::npos);
    QJsonObject malformed = RangeRuling{7, QStringLiteral("o1"), RangeRuling::State::Refuted, hash('a')}.toJson();
    malformed.insert(QStringLiteral("redone_sha256"), QStringLiteral("nothex"));
    EXPECT_NE(errorOf<RangeRuling>(malformed).find("redone_sha256"), std::string::npos);

    RangeAudit pending{7, false, {}};
    EXPECT_FALSE(pending.toJson().contains(QStringLiteral("owners")));
    EXPECT_FALSE(RangeAudit::fromJson(pending.toJson()).value().drawn);
    const RangeAudit drawn{7, true, {QStringLiteral("o1"), QStringLiteral("o2")}};
    EXPECT_EQ(RangeAudit::fromJson(drawn.toJson()).value().owners, drawn.owners);
    QJsonObject json = drawn.toJson();
    json.insert(QStringLiteral("owners"), QJsonArray{QString(65, QLatin1Char('k'))});
    EXPECT_NE(errorOf<RangeAudit>(json).find("owners"), std::string::npos);
    QJsonArray many;
    for (int i = 0; i < 4097; ++i)
        many.append(QStringLiteral("o"));
    json.insert(QStringLiteral("owners"), many);
    EXPECT_NE(errorOf<RangeAudit>(json).find("owners"), std::string::npos);
    json.insert(QStringLiteral("owners"), QJsonArray{1});
    EXPECT_NE(errorOf<RangeAudit>(json).find("owners"), std::string::npos);
}

TEST(ControlMessagesTest, AContributionsAppliedAveragesAreStrictAndBounded)
{
    ContributionRequest contribution{4, 768, 1e9, 0.5, 2.25, hash('d'), 0, 0};
    contribution.averages = {{0, hash('a')}, {300, hash('b')}};
    const Result<ContributionRequest> decoded = ContributionRequest::fromJson(contribution.toJson());
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(decoded->averages, contribution.averages);

    // An older client says nothing of them: none applied, as far as the coordinator knows.
    QJsonObject json = contribution.toJson();
    json.remove(QStringLiteral("averages"));
    const Result<ContributionRequest> old = ContributionRequest::fromJson(json);
    ASSERT_TRUE(old.ok()) << old.error().message;
    EXPECT_TRUE(old->averages.empty());

    const auto entry = [](QJsonValue begin, QJsonValue sha256) {
        return QJsonObject{{QStringLiteral("begin"), begin}, {QStringLiteral("sha256"), sha256}};
    };
    json.insert(QStringLiteral("averages"), QJsonArray{entry(0, hash('a')), entry(10, hash('A'))});
    EXPECT_EQ(errorOf<ContributionRequest>(json),
              "contribution.averages[1].sha256 must be 64 lowercase hex digits (a SHA-256)");
    json.insert(QStringLiteral("averages"), QJsonArray{entry(0, QString(63, QLatin1Char('a')))});
    EXPECT_EQ(errorOf<ContributionRequest>(json),
              "contribution.averages[0].sha256 must be 64 lowercase hex digits (a SHA-256)");
    json.insert(QStringLiteral("averages"), QJsonArray{entry(-1, hash('a'))});
    EXPECT_NE(errorOf<ContributionRequest>(json).find("contribution.averages[0].begin must be an integer from 0"),
              std::string::npos);
    json.insert(QStringLiteral("averages"), QJsonArray{entry(1.5, hash('a'))});
    EXPECT_NE(errorOf<ContributionRequest>(json).find("contribution.averages[0].begin must be an integer"),
              std::string::npos);
    json.insert(QStringLiteral("averages"), QJsonArray{entry(0, hash('a')), QStringLiteral("x")});
    EXPECT_NE(errorOf<ContributionRequest>(json).find("contribution.averages[1]"), std::string::npos);
    // In range order, each range once.
    json.insert(QStringLiteral("averages"), QJsonArray{entry(300, hash('a')), entry(0, hash('b'))});
    EXPECT_NE(errorOf<ContributionRequest>(json).find("contribution.averages must be in range order"),
              std::string::npos);
    json.insert(QStringLiteral("averages"), QJsonArray{entry(0, hash('a')), entry(0, hash('a'))});
    EXPECT_NE(errorOf<ContributionRequest>(json).find("contribution.averages must be in range order"),
              std::string::npos);
    QJsonArray many;
    for (qsizetype i = 0; i <= protocol::kMaxAppliedAverages; ++i)
        many.append(entry(double(i), hash('a')));
    json.insert(QStringLiteral("averages"), many);
    EXPECT_EQ(errorOf<ContributionRequest>(json), "contribution.averages must be an array of at most 4096 items");
    json.insert(QStringLiteral("averages"), QJsonObject{});
    EXPECT_EQ(errorOf<ContributionRequest>(json), "contribution.averages must be an array of at most 4096 items");
}

// Time-budgeted rounds (issue 18): the settings, the budget, the steps a peer says it trained
// and the steps admitted for each member travel bounded, and are absent in a fixed-H swarm.
TEST(ControlMessagesTest, TimeBudgetFieldsTravelBounded)
{
    JoinAnswer join = sampleJoinAnswer();
    EXPECT_FALSE(JoinAnswer::fromJson(join.toJson())->training.timeBudgeted) << "absent: fixed H";
    join.training.timeBudgeted = true;
    join.training.minInnerSteps = 5;
    join.training.maxInnerSteps = 200;
    const TrainingSettings back = JoinAnswer::fromJson(join.toJson()).value().training;
    EXPECT_TRUE(back.timeBudgeted);
    EXPECT_EQ(back.minInnerSteps, 5);
    EXPECT_EQ(back.stepCap(), 200);
    const auto withTraining = [&](const char *name, const QJsonValue &value) {
        QJsonObject json = join.toJson();
        QJsonObject training = json.value(QStringLiteral("training")).toObject();
        training.insert(QLatin1StringView(name), value);
        json.insert(QStringLiteral("training"), training);
        return errorOf<JoinAnswer>(json);
    };
    EXPECT_EQ(withTraining("rounds", QStringLiteral("whenever")),
              "join answer.training.rounds must be one of fixed, budget, async");
    EXPECT_EQ(withTraining("min_inner_steps", 51), "join answer.training.min_inner_steps must be an integer from 1 to 50");
    EXPECT_EQ(withTraining("max_inner_steps", 50'001),
              "join answer.training.max_inner_steps must be an integer from 0 to 50000");
    EXPECT_EQ(withTraining("max_inner_steps", 4), "join answer.training.max_inner_steps must be at least min_inner_steps");

    HeartbeatRequest beat{QStringLiteral("ready"), 3, 10.0, {}, {}, 120};
    EXPECT_EQ(HeartbeatRequest::fromJson(beat.toJson())->steps, 120);
    QJsonObject json = beat.toJson();
    json.insert(QStringLiteral("steps"), -1);
    EXPECT_EQ(errorOf<HeartbeatRequest>(json), "heartbeat.steps must be an integer from 0 to 9007199254740992");

    HeartbeatAnswer answer{1, QStringLiteral("gathering"), 0, false, 1};
    EXPECT_FALSE(answer.toJson().contains(QStringLiteral("straggler")));
    answer.budgetMs = 45'000;
    answer.straggler = true;
    EXPECT_EQ(HeartbeatAnswer::fromJson(answer.toJson())->budgetMs, 45'000);
    EXPECT_TRUE(HeartbeatAnswer::fromJson(answer.toJson())->straggler);
    json = answer.toJson();
    json.insert(QStringLiteral("budget_ms"), 1e12);
    EXPECT_EQ(errorOf<HeartbeatAnswer>(json), "heartbeat answer.budget_ms must be an integer from 0 to 86400000");

    RoundAnswer round{4, 0, QStringLiteral("running"), 0, 10, {}};
    round.members.push_back({QStringLiteral("a"), QByteArray(32, '\x01'), {}, true, 0, 10, false, 77});
    EXPECT_EQ(RoundAnswer::fromJson(round.toJson())->members.at(0).steps, 77);
    json = round.toJson();
    QJsonArray members = json.value(QStringLiteral("members")).toArray();
    QJsonObject member = members.at(0).toObject();
    member.insert(QStringLiteral("steps"), 2.5);
    members.replace(0, member);
    json.insert(QStringLiteral("members"), members);
    EXPECT_EQ(errorOf<RoundAnswer>(json), "round.members[0].steps must be an integer from 0 to 9007199254740992");
}

// Asynchronous rounds (issue 18): the mode and its staleness bound, each member's staleness and
// a spot check's state travel bounded: no member's state is older than the round's first, nor
// more than protocol::kMaxStaleness rounds old.
TEST(ControlMessagesTest, AsyncFieldsTravelBounded)
{
    JoinAnswer join = sampleJoinAnswer();
    join.training.timeBudgeted = join.training.asyncRounds = true;
    join.training.maxStaleness = 7;
    const TrainingSettings back = JoinAnswer::fromJson(join.toJson()).value().training;
    EXPECT_TRUE(back.timeBudgeted && back.asyncRounds);
    EXPECT_EQ(back.maxStaleness, 7);
    join.training.asyncRounds = false;
    EXPECT_FALSE(JoinAnswer::fromJson(join.toJson())->training.asyncRounds) << "budget is not async";
    QJsonObject json = join.toJson();
    QJsonObject training = json.value(QStringLiteral("training")).toObject();
    training.insert(QStringLiteral("rounds"), QStringLiteral("async"));
    training.insert(QStringLiteral("max_staleness"), 65);
    json.insert(QStringLiteral("training"), training);
    EXPECT_EQ(errorOf<JoinAnswer>(json), "join answer.training.max_staleness must be an integer from 0 to 64");

    RoundAnswer round{5, 0, QStringLiteral("running"), 0, 10, {}};
    round.members.push_back({QStringLiteral("a"), QByteArray(32, '\x01'), {}, true, 0, 10, false, 77, 3});
    EXPECT_EQ(RoundAnswer::fromJson(round.toJson())->members.at(0).staleness, 3);
    round.share = 0.25;
    round.scheduleAdvance = 140;
    EXPECT_EQ(RoundAnswer::fromJson(round.toJson())->share, 0.25);
    EXPECT_EQ(RoundAnswer::fromJson(round.toJson())->scheduleAdvance, 140);
    QJsonObject bad = round.toJson();
    bad.insert(QStringLiteral("share"), 1.5);
    EXPECT_EQ(errorOf<RoundAnswer>(bad), "round.share must be a number from 1e-06 to 1");
    bad = round.toJson();
    bad.insert(QStringLiteral("schedule_advance"), -3);
    EXPECT_EQ(errorOf<RoundAnswer>(bad), "round.schedule_advance must be an integer from 0 to 9007199254740992");
    const auto withStaleness = [&](qint64 roundNumber, double staleness) {
        RoundAnswer r = round;
        r.round = roundNumber;
        QJsonObject j = r.toJson();
        QJsonArray members = j.value(QStringLiteral("members")).toArray();
        QJsonObject member = members.at(0).toObject();
        member.insert(QStringLiteral("staleness"), staleness);
        members.replace(0, member);
        j.insert(QStringLiteral("members"), members);
        return errorOf<RoundAnswer>(j);
    };
    EXPECT_EQ(withStaleness(5, 6), "round.members[0].staleness must be an integer from 0 to 5") << "before round 0";
    EXPECT_EQ(withStaleness(1000, 65), "round.members[0].staleness must be an integer from 0 to 64");
    EXPECT_EQ(withStaleness(1000, -1), "round.members[0].staleness must be an integer from 0 to 64");

    SpotCheckTask task;
    task.round = 9;
    task.peerId = QStringLiteral("a");
    task.ranges = {{0, 10}};
    task.staleness = 2;
    EXPECT_EQ(SpotCheckTask::fromJson(task.toJson())->baseRound(), 7);
    task.staleness = 0;
    EXPECT_FALSE(task.toJson().contains(QStringLiteral("staleness"))) << "absent: the round's own state";
    json = task.toJson();
    json.insert(QStringLiteral("staleness"), 10);
    EXPECT_EQ(errorOf<SpotCheckTask>(json), "spot check.staleness must be an integer from 0 to 9");
}

// Whether members keep their inner optimizer from round to round: absent (an older coordinator)
// is fresh, and nothing but the two names is taken.
TEST(ControlMessagesTest, TheInnerStateSettingTravelsStrictly)
{
    JoinAnswer join = sampleJoinAnswer();
    EXPECT_FALSE(join.toJson().value(QStringLiteral("training")).toObject().contains(QStringLiteral("inner_state")));
    EXPECT_FALSE(JoinAnswer::fromJson(join.toJson())->training.innerStateKept);
    join.training.innerStateKept = true;
    EXPECT_TRUE(JoinAnswer::fromJson(join.toJson())->training.innerStateKept);
    const auto withInnerState = [&](const QJsonValue &value) {
        QJsonObject json = join.toJson();
        QJsonObject training = json.value(QStringLiteral("training")).toObject();
        training.insert(QStringLiteral("inner_state"), value);
        json.insert(QStringLiteral("training"), training);
        return json;
    };
    EXPECT_FALSE(JoinAnswer::fromJson(withInnerState(QStringLiteral("fresh")))->training.innerStateKept);
    EXPECT_NE(errorOf<JoinAnswer>(withInnerState(QStringLiteral("kept-ish"))).find("join answer.training.inner_state"),
              std::string::npos);
    EXPECT_NE(errorOf<JoinAnswer>(withInnerState(true)).find("join answer.training.inner_state"), std::string::npos);
}

// The inner AdamW's epsilon: absent (an older coordinator) is 1e-8, and it is bounded.
TEST(ControlMessagesTest, TheInnerEpsilonTravelsBounded)
{
    JoinAnswer join = sampleJoinAnswer();
    EXPECT_FALSE(join.toJson().value(QStringLiteral("training")).toObject().contains(QStringLiteral("adam_eps")));
    EXPECT_EQ(JoinAnswer::fromJson(join.toJson())->training.adamEps, 1e-8);
    join.training.adamEps = 1e-4;
    EXPECT_EQ(JoinAnswer::fromJson(join.toJson())->training.adamEps, 1e-4);
    for (const double bad : {0.0, -1e-4, 2.0}) {
        QJsonObject json = join.toJson();
        QJsonObject training = json.value(QStringLiteral("training")).toObject();
        training.insert(QStringLiteral("adam_eps"), bad);
        json.insert(QStringLiteral("training"), training);
        EXPECT_NE(errorOf<JoinAnswer>(json).find("join answer.training.adam_eps"), std::string::npos) << bad;
    }
}

TEST(ControlMessagesTest, AJoinsDisplayNameIsOptionalNormalisedAndRefusedByNameAndBound)
{
    JoinRequest request{QByteArray(32, '\x07'), {QStringLiteral("cpu"), 4}, QString(), QStringLiteral("swarmtrain 0.1.0")};
    request.displayName = QStringLiteral("Ada's PC");
    EXPECT_EQ(JoinRequest::fromJson(request.toJson())->displayName, QStringLiteral("Ada's PC"));

    QJsonObject json = request.toJson();
    json.remove(QStringLiteral("display_name"));
    EXPECT_EQ(JoinRequest::fromJson(json)->displayName, QString()) << "an older client names nobody";
    json.insert(QStringLiteral("display_name"), QStringLiteral("  Zoe\u0308  "));
    EXPECT_EQ(JoinRequest::fromJson(json)->displayName, QStringLiteral("Zo\u00EB"));

    json.insert(QStringLiteral("display_name"), QString(33, QLatin1Char('x')));
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.display_name must be at most 32 characters after trimming");
    json.insert(QStringLiteral("display_name"), QStringLiteral("a\nb"));
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.display_name must not contain control characters or line breaks");
    json.insert(QStringLiteral("display_name"), QStringLiteral("evil\u202Egnp.exe"));
    EXPECT_NE(errorOf<JoinRequest>(json).find("join.display_name must not contain bidirectional overrides"),
              std::string::npos);
    json.insert(QStringLiteral("display_name"), QStringLiteral("ad\u200Bmin"));
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.display_name must not contain zero-width characters");
    json.insert(QStringLiteral("display_name"), QStringLiteral("   "));
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.display_name must not be only whitespace");
    json.insert(QStringLiteral("display_name"), 42);
    EXPECT_EQ(errorOf<JoinRequest>(json), "join.display_name must be a string of at most 32 characters");
}

TEST(ControlMessagesTest, TheLeaderboardCarriesDisplayNamesBesidePeerIds)
{
    StatusAnswer status;
    status.roundState = QStringLiteral("done");
    status.model.vocabSize = 65;
    status.leaderboard = {{QStringLiteral("a"), 2.0, 10, QStringLiteral("<b>x</b>")}, {QStringLiteral("b"), 1.0, 5}};
    QJsonObject json = status.toJson();
    const StatusAnswer back = StatusAnswer::fromJson(json).value();
    ASSERT_EQ(back.leaderboard.size(), 2u);
    EXPECT_EQ(back.leaderboard[0].peerId, QStringLiteral("a"));
    EXPECT_EQ(back.leaderboard[0].displayName, QStringLiteral("<b>x</b>"));
    EXPECT_EQ(back.leaderboard[1].displayName, QString());

    QJsonArray leaders = json.value(QStringLiteral("leaderboard")).toArray();
    QJsonObject second = leaders.at(1).toObject();
    second.remove(QStringLiteral("display_name"));
    leaders.replace(1, second);
    json.insert(QStringLiteral("leaderboard"), leaders);
    EXPECT_EQ(StatusAnswer::fromJson(json)->leaderboard[1].displayName, QString()) << "an older coordinator's board";
    second.insert(QStringLiteral("display_name"), QStringLiteral("x\u2066y"));
    leaders.replace(1, second);
    json.insert(QStringLiteral("leaderboard"), leaders);
    EXPECT_NE(errorOf<StatusAnswer>(json).find("status.leaderboard[1].display_name must not contain bidirectional"),
              std::string::npos);
}

// An owner's evidence (issue 43): payloads in strict base64 of 1 to maxPayloadBytes bytes, a range
// that is not empty, pieces that name members once each, and at least one piece.
TEST(ControlMessagesTest, RangeEvidenceIsBoundedBeforeTheCoordinatorDecodesAPiece)
{
    RangeEvidence evidence{4, 1, 100, 164, QByteArray(40, 'a'), {{QStringLiteral("p1"), QByteArray(40, 'b')},
                                                                  {QStringLiteral("p2"), QByteArray(40, 'c')}}};
    Result<RangeEvidence> back = RangeEvidence::fromJson(evidence.toJson(), 64);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->toJson(), evidence.toJson());
    const auto refused = [&](const std::function<void(QJsonObject &)> &change, qsizetype maxBytes = 64) {
        QJsonObject json = evidence.toJson();
        change(json);
        Result<RangeEvidence> decoded = RangeEvidence::fromJson(json, maxBytes);
        return decoded ? std::string() : decoded.error().message;
    };
    EXPECT_NE(refused([](QJsonObject &) {}, 39).find("average"), std::string::npos) << "larger than any range";
    EXPECT_NE(refused([](QJsonObject &j) { j.insert(QStringLiteral("average"), QStringLiteral("not*base64")); }).find("average"),
              std::string::npos);
    EXPECT_NE(refused([](QJsonObject &j) { j.insert(QStringLiteral("average"), QString()); }).find("average"), std::string::npos);
    EXPECT_NE(refused([](QJsonObject &j) { j.insert(QStringLiteral("end"), 100); }).find("end"), std::string::npos);
    EXPECT_NE(refused([](QJsonObject &j) { j.insert(QStringLiteral("pieces"), QJsonArray{}); }).find("pieces"), std::string::npos);
    EXPECT_NE(refused([](QJsonObject &j) {
                  QJsonArray pieces = j.value(QStringLiteral("pieces")).toArray();
                  pieces.append(pieces.at(0));
                  j.insert(QStringLiteral("pieces"), pieces);
              }).find("two pieces of p1"),
              std::string::npos);
    EXPECT_NE(refused([](QJsonObject &j) {
                  j.insert(QStringLiteral("pieces"), QJsonArray{QJsonObject{{QStringLiteral("peer_id"), QString(65, QLatin1Char('p'))},
                                                                            {QStringLiteral("payload"), QStringLiteral("YQ==")}}});
              }).find("peer_id"),
              std::string::npos);
    EXPECT_EQ(EvidenceRuling::fromJson(EvidenceRuling{false, QStringLiteral("x")}.toJson())->why, QStringLiteral("x"));
}
