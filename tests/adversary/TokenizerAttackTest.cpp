// A coordinator that hands peers another tokenizer than the one it advertises, or token shards
// whose headers lie (issue 42). A real coordinator serves its SentencePiece model and shards to a
// peer that checks them; a hostile server (TestHttpServer) answers the join with one tokenizer's
// SHA-256 and serves another's model, or serves shards whose bytes match the SHA-256 it lists
// but whose headers name another tokenizer or vocabulary, or more tokens than they hold. Each is
// refused with an error that says what is wrong, and nothing of it is trained on.
#include "ChildProcess.h"
#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "CoordinatorSession.h"
#include "DataShards.h"
#include "Identity.h"
#include "PeerTokenizer.h"
#include "Sha256.h"
#include "SwarmHarness.h"
#include "TempDir.h"
#include "TestApplication.h"
#include "TestHttpServer.h"
#include "TokenShard.h"
#include "WorkGate.h"

#include <QJsonDocument>

#include <gtest/gtest.h>

#include <iostream>

using namespace swarmtrain;
using swarmtrain::test::TempDir;
using swarmtrain::test::TestHttpRequest;
using swarmtrain::test::TestHttpResponse;
using swarmtrain::test::TestHttpServer;

namespace {

std::string trainedModel(int vocabSize, unsigned seed)
{
    const std::string text = test::generatedText(60'000, seed);
    std::size_t at = 0;
    SentencePieceTraining training;
    training.vocabSize = vocabSize;
    return trainSentencePiece(training, [&](std::string &line) {
               if (at >= text.size())
                   return false;
               const std::size_t end = std::min(text.find('\n', at), text.size());
               line = text.substr(at, end - at);
               at = end + 1;
               return true;
           })
        .value();
}

QByteArray bytesOf(const std::vector<std::byte> &bytes)
{
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size()));
}

std::string shaOf(const QByteArray &bytes)
{
    return Sha256::hexOf(std::as_bytes(std::span(bytes.constData(), std::size_t(bytes.size()))));
}

// A peer of whatever answers at `url`: its key, its client and its session.
struct Peer {
    explicit Peer(const QString &url)
        : client(identity, CoordinatorClientOptions{url, {}, 2, 50, 200})
        , session(client, gate, [](std::optional<int>) {})
    {
    }
    Result<JoinAnswer> join()
    {
        return session.join(JoinRequest{identity.publicKey(), {}, QString(), QStringLiteral("0.1.0"), {}});
    }

    Identity identity = Identity::generate().value();
    WorkGate gate;
    CoordinatorClient client;
    CoordinatorSession session;
};

// The join answer a hostile server gives: a full-model swarm of `tokenizer` with these shards.
JoinAnswer hostileAnswer(const TokenizerInfo &tokenizer, const std::vector<ShardInfo> &shards)
{
    JoinAnswer answer;
    answer.peerId = QString(32, QLatin1Char('a'));
    answer.model.vocabSize = int(tokenizer.vocabSize);
    answer.tokenizer = tokenizer;
    answer.shards = shards;
    for (const ShardInfo &shard : shards)
        answer.assignedShards.append(QString::fromStdString(shard.id));
    answer.checkpoint = {0, QString(64, QLatin1Char('c')), 10};
    return answer;
}

// A hostile coordinator: the join answer, and fixed bytes for every other path it knows.
std::unique_ptr<TestHttpServer> hostileServer(const JoinAnswer &answer, std::map<QByteArray, QByteArray> files)
{
    const QByteArray join = QJsonDocument(answer.toJson()).toJson(QJsonDocument::Compact);
    return std::make_unique<TestHttpServer>([join, files](const TestHttpRequest &request) {
        if (request.target == "/v1/join")
            return TestHttpResponse::json(200, join);
        const auto file = files.find(request.target);
        if (file == files.end())
            return TestHttpResponse::json(404, "{\"error\": \"no\"}");
        TestHttpResponse response;
        response.body = file->second;
        return response;
    });
}

void printAttack(const std::string &attack, const std::string &error)
{
    std::cout << "ATTACK " << attack << " detected=" << (error.empty() ? "no" : "yes") << " error=\"" << error << "\""
              << std::endl;
}

class TokenizerAttackTest : public ::testing::Test {
protected:
    void SetUp() override { test::application(); }

    TempDir dir;
};

} // namespace

TEST_F(TokenizerAttackTest, ARealCoordinatorsModelAndShardsCheckOut)
{
    const std::string model = trainedModel(320, 5);
    const std::filesystem::path modelFile = dir.write("tokenizer.model", model);
    dir.write("data.txt", test::generatedText(60'000));
    std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt");
    args.insert(args.end(), {"--tokenizer", "sentencepiece", "--tokenizer-model", modelFile.string(), "--shard-tokens", "1024"});
    test::ChildProcess coordinator;
    const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
    ASSERT_NE(port, 0) << coordinator.errors();

    Peer peer(QStringLiteral("http://127.0.0.1:%1").arg(port));
    const Result<JoinAnswer> joined = peer.join();
    ASSERT_TRUE(joined.ok()) << joined.error().message;
    EXPECT_EQ(joined->tokenizer.kind, QStringLiteral("sentencepiece"));
    const Result<Tokenizer> tokenizer = fetchSwarmTokenizer(*joined, peer.session, dir.path() / "peer");
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.error().message;
    EXPECT_EQ(tokenizer->modelBytes(), model);
    const Result<std::vector<std::int32_t>> tokens =
        loadAssignedShards(*joined, dir.path() / "peer", peer.session, [](int, int) {});
    ASSERT_TRUE(tokens.ok()) << tokens.error().message;
    EXPECT_GT(tokens->size(), 1000u);
    EXPECT_EQ(std::count(tokens->begin(), tokens->end(), tokenizer->endOfText()) > 0, true)
        << "documents end with the model's end of text";
}

TEST_F(TokenizerAttackTest, AModelWhoseHashIsNotTheAdvertisedOneIsRefused)
{
    const Tokenizer advertised = Tokenizer::fromSentencePiece(trainedModel(320, 5)).value();
    const QByteArray served = QByteArray::fromStdString(trainedModel(330, 6));
    const TokenizerInfo info{QStringLiteral("sentencepiece"), QString(), QString::fromStdString(advertised.sha256()), 320};
    auto server = hostileServer(hostileAnswer(info, {}), {{"/v1/tokenizer", served}});
    Peer peer(server->baseUrl());
    ASSERT_TRUE(peer.join().ok());
    const Result<Tokenizer> fetched = fetchSwarmTokenizer(peer.session.joined(), peer.session, dir.path());
    ASSERT_FALSE(fetched.ok());
    EXPECT_NE(fetched.error().message.find("the swarm's tokenizer is refused"), std::string::npos) << fetched.error().message;
    EXPECT_NE(fetched.error().message.find("SHA-256 mismatch"), std::string::npos) << fetched.error().message;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "tokenizer.model")) << "the other model is not kept";
    printAttack("tokenizer-of-another-hash", fetched.error().message);

    // Advertised with the hash of the model it serves, but as another vocabulary.
    const TokenizerInfo lyingSize{QStringLiteral("sentencepiece"), QString(), QString::fromStdString(shaOf(served)), 500};
    auto liar = hostileServer(hostileAnswer(lyingSize, {}), {{"/v1/tokenizer", served}});
    Peer second(liar->baseUrl());
    ASSERT_TRUE(second.join().ok());
    const Result<Tokenizer> sized = fetchSwarmTokenizer(second.session.joined(), second.session, dir.path() / "second");
    ASSERT_FALSE(sized.ok());
    EXPECT_NE(sized.error().message.find("it has 330 tokens, the swarm's 500"), std::string::npos) << sized.error().message;
    printAttack("tokenizer-of-another-vocabulary", sized.error().message);
}

TEST_F(TokenizerAttackTest, AShardWhoseHeaderLiesIsRefused)
{
    const Tokenizer bytes = Tokenizer::byteLevel();
    const TokenizerInfo info{QStringLiteral("byte"), QString(), QString::fromStdString(bytes.sha256()), 256};
    const std::vector<std::int32_t> tokens(100, 'x');
    TokenShardHeader honest;
    honest.vocabSize = 256;
    honest.documents = 1;
    parseSha256Hex(bytes.sha256(), honest.tokenizerSha256);

    struct Lie {
        std::string attack;
        QByteArray shard;
        std::uint64_t listedTokens;
        std::string expected;
    };
    std::vector<Lie> lies;
    TokenShardHeader otherTokenizer = honest;
    parseSha256Hex(Tokenizer::buildCharacter("abc")->sha256(), otherTokenizer.tokenizerSha256);
    lies.push_back({"shard-of-another-tokenizer", bytesOf(encodeTokenShard(otherTokenizer, tokens)), 100,
                    "tokenizer SHA-256 is "});
    TokenShardHeader otherVocabulary = honest;
    otherVocabulary.vocabSize = 512;
    lies.push_back({"shard-of-another-vocabulary", bytesOf(encodeTokenShard(otherVocabulary, tokens)), 100,
                    "vocabulary size is 512, not the swarm's 256"});
    QByteArray inflated = bytesOf(encodeTokenShard(honest, tokens));
    inflated[24] = char(0xff); // the token count's low byte: 255 tokens in a file of 100
    lies.push_back({"shard-claiming-more-tokens", inflated, 100, "token count (255) does not match"});
    QByteArray huge = bytesOf(encodeTokenShard(honest, tokens));
    huge[31] = char(0x7f); // a count near 2^63: nothing is allocated from it
    lies.push_back({"shard-claiming-2^63-tokens", huge, 100, "token count"});
    lies.push_back({"shard-of-other-length-than-listed", bytesOf(encodeTokenShard(honest, tokens)), 90,
                    "above the bound of 90"});

    for (const Lie &lie : lies) {
        const ShardInfo listed{"000000", std::uint64_t(lie.shard.size()), shaOf(lie.shard), lie.listedTokens};
        auto server = hostileServer(hostileAnswer(info, {listed}), {{"/v1/shards/000000", lie.shard}});
        Peer peer(server->baseUrl());
        ASSERT_TRUE(peer.join().ok());
        const std::filesystem::path shards = dir.path() / lie.attack;
        const Result<std::vector<std::int32_t>> loaded =
            loadAssignedShards(peer.session.joined(), shards, peer.session, [](int, int) {});
        ASSERT_FALSE(loaded.ok()) << lie.attack;
        EXPECT_NE(loaded.error().message.find("data shard 000000 is refused"), std::string::npos) << loaded.error().message;
        EXPECT_NE(loaded.error().message.find(lie.expected), std::string::npos) << lie.attack << ": " << loaded.error().message;
        printAttack(lie.attack, loaded.error().message);
    }
}
