// Real corpora end to end (issue 42): a folder with a .jsonl.zst holding a malformed line, a
// truncated .jsonl.gz, a .txt and a .bin made with the swarm's SentencePiece tokenizer.
// swarmtrain-cli tokenizer train learns that tokenizer from the folder; the coordinator's
// tokenizing pass names the bad line and the truncated file, is stopped after three shards and
// resumed without losing or duplicating any (the shards are those of one uninterrupted pass,
// byte for byte); then two headless clients train on the shards and the validation loss falls.
#include "ChildProcess.h"
#include "CoordinatorClient.h"
#include "CorpusFiles.h"
#include "CorpusTokenizer.h"
#include "Identity.h"
#include "RawHttpClient.h"
#include "Sha256.h"
#include "SwarmHarness.h"
#include "TempDir.h"
#include "TestApplication.h"
#include "Tokenizer.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <tuple>

using namespace swarmtrain;
using namespace std::chrono_literals;
using swarmtrain::test::ChildProcess;
using swarmtrain::test::waitUntil;

namespace {

constexpr std::uint64_t kShardTokens = 2048;

// A document of generated words, one line, as JSON Lines hold it.
std::string documentText(int i)
{
    std::string text = test::generatedText(240 + std::size_t(i % 7) * 40, unsigned(1000 + i));
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

std::string jsonLines(int first, int count)
{
    std::string lines;
    for (int i = first; i < first + count; ++i)
        lines += "{\"id\": " + std::to_string(i) + ", \"text\": \"" + documentText(i) + "\"}\n";
    return lines;
}

std::map<std::string, std::string> shardFiles(const std::filesystem::path &dir)
{
    std::map<std::string, std::string> files;
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() == ".tokens")
            files[entry.path().filename().string()] = Sha256::hexOfFile(entry.path()).value();
    }
    return files;
}

class CorpusSwarmTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        // a.jsonl.zst: its 7th line is not JSON. b.jsonl.gz: cut short.
        std::string a = jsonLines(0, 6) + "{\"text\": \"a record cut off\n" + jsonLines(6, 140);
        dir.write("corpus/a.jsonl.zst", test::zstdBytes(a));
        const std::string b = test::gzipBytes(jsonLines(200, 140));
        dir.write("corpus/b.jsonl.gz", b.substr(0, b.size() - 300));
        dir.write("corpus/c.txt", test::generatedText(40'000, 99));
    }

    // The .bin: documents tokenized with the swarm's tokenizer, each after its end of text, as llm.c writes them.
    void writeTokenFile(const Tokenizer &tokenizer)
    {
        std::vector<std::int32_t> tokens;
        for (int i = 400; i < 480; ++i) {
            tokens.push_back(tokenizer.endOfText());
            const std::vector<std::int32_t> document = tokenizer.encode(documentText(i)).value();
            tokens.insert(tokens.end(), document.begin(), document.end());
        }
        dir.write("corpus/d.bin", test::llmcBin(tokens));
    }

    std::vector<std::string> coordinatorFlags(const std::vector<std::string> &extra) const
    {
        std::vector<std::string> args = test::smallSwarmFlags(state(), dir.path() / "corpus");
        // A Llama-family model over the SentencePiece vocabulary, as a real swarm trains.
        args.insert(args.end(), {"--tokenizer", "sentencepiece", "--tokenizer-model", model().string(), "--shard-tokens",
                                 std::to_string(kShardTokens), "--min-peers", "2", "--inner-steps", "10", "--family",
                                 "llama", "--n-kv-head", "1", "--export-every", "2", "--export-keep", "2"});
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }

    std::filesystem::path state() const { return dir.path() / "state"; }
    std::filesystem::path model() const { return dir.path() / "tokenizer.model"; }

    QJsonObject swarmStatus() const
    {
        Result<QJsonObject> answer = status->getJson(QStringLiteral("/v1/status"));
        return answer ? *answer : QJsonObject();
    }

    std::string logs() const { return test::swarmLogs(coordinator, clients); }

    test::TempDir dir;
    ChildProcess coordinator;
    std::vector<std::unique_ptr<ChildProcess>> clients;
    Identity watcher = Identity::generate().value();
    std::unique_ptr<CoordinatorClient> status;
};

} // namespace

TEST_F(CorpusSwarmTest, AMixedCorpusIsTokenizedOnceResumedAfterAKillAndTrainedOn)
{
    QElapsedTimer clock;
    clock.start();

    // The host learns a tokenizer from the folder (the .bin is made with it, so it comes after).
    ChildProcess cli;
    ASSERT_TRUE(cli.start(SWARMTRAIN_CLI,
                          {"tokenizer", "train", "--input", (dir.path() / "corpus").string(), "--vocab-size", "400",
                           "--out", model().string()},
                          dir.path() / "cli.out", dir.path() / "cli.err"));
    ASSERT_EQ(cli.waitForExit(120s), 0) << cli.errors();
    EXPECT_NE(cli.output().find("\"bad_records\":2"), std::string::npos) << cli.output();
    const Tokenizer tokenizer = Tokenizer::loadSentencePiece(model().string()).value();
    writeTokenFile(tokenizer);

    // The pass, stopped after its third shard as if killed there.
    ASSERT_TRUE(coordinator.start(SWARMTRAIN_COORDINATOR, coordinatorFlags({"--test-stop-after-shards", "3"}),
                                  dir.path() / "stopped.out", dir.path() / "stopped.err"));
    EXPECT_NE(coordinator.waitForExit(120s), 0);
    const std::string stopped = coordinator.errors();
    EXPECT_NE(stopped.find("stopped after 3 shards"), std::string::npos) << stopped;
    EXPECT_NE(stopped.find("a.jsonl.zst:7: not JSON"), std::string::npos) << stopped;
    const std::map<std::string, std::string> early = shardFiles(state() / "shards");
    ASSERT_EQ(early.size(), 3u);
    EXPECT_FALSE(std::filesystem::exists(state() / "shards" / "manifest.json"));

    // Started again, it resumes after those three and serves.
    const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, coordinatorFlags({}), dir.path());
    ASSERT_NE(port, 0) << coordinator.errors();
    const std::string resumed = coordinator.errors();
    EXPECT_NE(resumed.find("resuming the interrupted tokenizing pass: 3 shards are done"), std::string::npos) << resumed;
    EXPECT_NE(resumed.find("b.jsonl.gz:"), std::string::npos) << resumed;
    EXPECT_NE(resumed.find("truncated"), std::string::npos) << resumed;
    const std::map<std::string, std::string> all = shardFiles(state() / "shards");
    for (const auto &[name, sha] : early)
        EXPECT_EQ(all.at(name), sha) << name << " was written again differently";

    // The same shards as one uninterrupted pass over the same folder, byte for byte.
    const CorpusInputs inputs = listCorpusInputs({dir.path() / "corpus"}).value();
    ShardingOptions sharding;
    sharding.shardTokens = kShardTokens;
    const Result<CorpusManifest> reference =
        CorpusTokenizer(inputs, tokenizer, {}, sharding, dir.path() / "reference", {}).run();
    ASSERT_TRUE(reference.ok()) << reference.error().message;
    EXPECT_EQ(all, shardFiles(dir.path() / "reference"));
    EXPECT_GE(reference->badRecords, 2u);
    EXPECT_GT(reference->train.size(), 10u);
    std::cout << "corpus: " << reference->train.size() << " training shards, " << reference->trainTokens()
              << " tokens; validation " << reference->validationTokens << " tokens, " << reference->validationBytes
              << " bytes; " << reference->badRecords << " bad records; pass and restart took " << clock.elapsed()
              << " ms" << std::endl;

    // Two clients train on the shards.
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(port);
    status = std::make_unique<CoordinatorClient>(watcher, CoordinatorClientOptions{url, {}, 20, 100, 1000});
    for (int i = 0; i < 2; ++i) {
        clients.push_back(std::make_unique<ChildProcess>());
        ASSERT_TRUE(test::startHeadlessPeer(*clients.back(), SWARMTRAIN_CLIENT, url, dir.path(),
                                            "client" + std::to_string(i), {"--listen", "127.0.0.1:0"}));
    }
    ASSERT_TRUE(waitUntil(
        [&] { return swarmStatus().value(QLatin1StringView("val_loss_history")).toArray().size() >= 5; }, 180s))
        << logs();
    const QJsonArray history = swarmStatus().value(QLatin1StringView("val_loss_history")).toArray();
    const double first = history.first().toObject().value(QLatin1StringView("val_loss")).toDouble();
    const double last = history.last().toObject().value(QLatin1StringView("val_loss")).toDouble();
    std::cout << "validation loss " << first << " -> " << last << " over " << history.size() << " states; "
              << clock.elapsed() << " ms in all" << std::endl;
    EXPECT_LT(last, first - 0.3) << logs();
    // Bits per byte: the validation split's tokens per UTF-8 byte, which a 400-piece vocabulary
    // keeps well below one token a byte (and above one token in eight).
    const double tokensPerByte = swarmStatus().value(QLatin1StringView("val_tokens_per_byte")).toDouble();
    EXPECT_GT(tokensPerByte, 0.125);
    EXPECT_LT(tokensPerByte, 0.9);
    EXPECT_EQ(swarmStatus().value(QLatin1StringView("model")).toObject().value(QLatin1StringView("family")).toString(),
              QStringLiteral("llama"));
    for (auto &client : clients)
        EXPECT_EQ(client->kill(SIGINT), 0) << logs();

    // What the swarm trained, published by the coordinator (--export-every 2, --export-keep 2).
    QJsonArray exports;
    ASSERT_TRUE(waitUntil(
        [&] {
            const Result<QJsonObject> model = status->getJson(QStringLiteral("/v1/model"));
            exports = model ? model->value(QLatin1StringView("exports")).toArray() : QJsonArray();
            return !exports.isEmpty();
        },
        120s))
        << logs();
    const QJsonObject published = exports.first().toObject();
    const qint64 publishedRound = published.value(QLatin1StringView("round")).toInteger();
    EXPECT_EQ(publishedRound % 2, 0);
    EXPECT_GT(published.value(QLatin1StringView("validation_bits_per_byte")).toDouble(), 0.0) << logs();
    // The swarm's tokens by then: its schedule step (inner steps of one peer) times a step's
    // tokens, 8 sequences of 32 (smallSwarmFlags); 10 inner steps a round from two peers.
    const qint64 tokensTrained = published.value(QLatin1StringView("tokens_trained")).toInteger(-1);
    EXPECT_GT(tokensTrained, 0);
    EXPECT_EQ(tokensTrained % (8 * 32), 0) << tokensTrained;
    std::map<QString, QJsonObject> publishedFiles;
    for (const QJsonValue file : published.value(QLatin1StringView("files")).toArray())
        publishedFiles[file.toObject().value(QLatin1StringView("name")).toString()] = file.toObject();
    for (const char *name : {"hf/config.json", "hf/model.safetensors", "hf/tokenizer.model", "hf/README.md", "model.gguf"})
        EXPECT_TRUE(publishedFiles.contains(QString::fromLatin1(name))) << name << " is not published";
    // A download checks out against the listed SHA-256 (the client compares the whole file's).
    const QJsonObject gguf = publishedFiles[QStringLiteral("model.gguf")];
    ASSERT_TRUE(status->download(gguf.value(QLatin1StringView("url")).toString(), dir.path() / "published.gguf",
                                 gguf.value(QLatin1StringView("sha256")).toString())
                    .ok());
    EXPECT_EQ(qint64(std::filesystem::file_size(dir.path() / "published.gguf")),
              gguf.value(QLatin1StringView("bytes")).toInteger());
    // ATTACK: paths outside the manifest (the database beside the exports, a folder, a round
    // that was never published, an absurd tail) are not served.
    for (const std::string &path :
         {"/v1/model/files/" + std::to_string(publishedRound) + "/../../coordinator.db",
          "/v1/model/files/" + std::to_string(publishedRound) + "/hf", "/v1/model/files/" + std::to_string(publishedRound)
              + "/hf/../model.gguf",
          std::string("/v1/model/files/999999/model.gguf"), "/v1/model/files/" + std::string(400, '1') + "/model.gguf"}) {
        test::RawHttpClient raw;
        ASSERT_TRUE(raw.connect(port));
        ASSERT_TRUE(raw.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
        const test::RawHttpClient::Response answer = raw.read();
        EXPECT_EQ(answer.status, 404) << path << ": " << answer.body.substr(0, 200);
    }
    // A resumed download: the second half by Range.
    {
        test::RawHttpClient raw;
        ASSERT_TRUE(raw.connect(port));
        const qint64 half = gguf.value(QLatin1StringView("bytes")).toInteger() / 2;
        ASSERT_TRUE(raw.send("GET " + gguf.value(QLatin1StringView("url")).toString().toStdString()
                             + " HTTP/1.1\r\nHost: x\r\nRange: bytes=" + std::to_string(half)
                             + "-\r\nConnection: close\r\n\r\n"));
        const test::RawHttpClient::Response answer = raw.read();
        EXPECT_EQ(answer.status, 206);
        EXPECT_EQ(qint64(answer.body.size()), gguf.value(QLatin1StringView("bytes")).toInteger() - half);
    }

    // What the swarm trained, continuing a prompt: its current state, fetched from the coordinator.
    ASSERT_TRUE(cli.start(SWARMTRAIN_CLI,
                          {"generate", "--swarm", url.toStdString(), "--prompt", documentText(7).substr(0, 40),
                           "--max-tokens", "24", "--temperature", "0", "--json"},
                          dir.path() / "generate.out", dir.path() / "generate.err"));
    ASSERT_EQ(cli.waitForExit(120s), 0) << cli.errors();
    std::cout << "generated from the swarm's state: " << cli.output();
    EXPECT_NE(cli.output().find("\"stopped\":"), std::string::npos) << cli.output();

    // What the swarm trained, exported for transformers: its latest state, as the coordinator keeps it.
    std::filesystem::path latest;
    int latestRound = -1;
    for (const auto &entry : std::filesystem::directory_iterator(state() / "checkpoints")) {
        int round = -1;
        if (std::sscanf(entry.path().filename().c_str(), "round-%d.safetensors", &round) == 1 && round > latestRound)
            std::tie(latest, latestRound) = std::tuple(entry.path(), round);
    }
    ASSERT_GT(latestRound, 0);
    const std::vector<std::string> exportArgs{"export", "--state", latest.string(), "--format", "hf", "--out",
                                              (dir.path() / "hf").string(), "--license", "apache-2.0"};
    ASSERT_TRUE(cli.start(SWARMTRAIN_CLI, exportArgs, dir.path() / "export.out", dir.path() / "export.err"));
    ASSERT_EQ(cli.waitForExit(120s), 0) << cli.errors();
    EXPECT_NE(cli.output().find("\"architecture\":\"LlamaForCausalLM\""), std::string::npos) << cli.output();
    for (const char *file : {"config.json", "model.safetensors", "tokenizer.model", "tokenizer_config.json", "README.md"})
        EXPECT_TRUE(std::filesystem::exists(dir.path() / "hf" / file)) << file;
    std::ifstream card(dir.path() / "hf" / "README.md");
    const std::string cardText((std::istreambuf_iterator<char>(card)), std::istreambuf_iterator<char>());
    EXPECT_NE(cardText.find("after round " + std::to_string(latestRound)), std::string::npos) << cardText;
    // A second export into the same folder is refused, and the first is left as it was.
    ASSERT_TRUE(cli.start(SWARMTRAIN_CLI, exportArgs, dir.path() / "again.out", dir.path() / "again.err"));
    EXPECT_EQ(cli.waitForExit(120s), 1);
    EXPECT_NE(cli.errors().find("already exists"), std::string::npos) << cli.errors();
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "hf" / "model.safetensors"));
}
