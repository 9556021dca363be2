#include "CoordinatorConfig.h"
#include "HelpText.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

std::string errorOf(const std::vector<std::string> &args)
{
    Result<CoordinatorConfig> config = parseCoordinatorArguments(args);
    return config ? std::string() : config.error().message;
}

} // namespace

TEST(CoordinatorConfigTest, PlainHttpOnlyWhenAskedAndACertificateNeedsNoSelfSignedOne)
{
    Result<CoordinatorConfig> plain = parseCoordinatorArguments({"--state-dir", "s", "--data", "d", "--plain-http"});
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_FALSE(plain->tls());
    Result<CoordinatorConfig> own =
        parseCoordinatorArguments({"--state-dir", "s", "--data", "d", "--tls-cert", "c.pem", "--tls-key", "k.pem"});
    ASSERT_TRUE(own.ok()) << own.error().message;
    EXPECT_TRUE(own->tls());
    EXPECT_FALSE(own->tlsSelfSigned);
}

TEST(CoordinatorConfigTest, Defaults)
{
    Result<CoordinatorConfig> config = parseCoordinatorArguments({"--state-dir", "s", "--data", "d.txt"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_DOUBLE_EQ(config->training.outerLr, 1.2);
    EXPECT_DOUBLE_EQ(config->training.outerMomentum, 0.5);
    EXPECT_EQ(config->sharding.shardTokens, 1u << 20);
    EXPECT_EQ(config->data, std::vector<std::filesystem::path>{"d.txt"});
    EXPECT_EQ(config->corpus.textField, "text");
    EXPECT_EQ(config->corpus.onBadRecord, BadRecordPolicy::Skip);
    EXPECT_EQ(config->sharding.stopAfterShards, 0u);
    EXPECT_EQ(config->tokenizer, TokenizerKind::Char);
    EXPECT_TRUE(config->tls()) << "HTTPS unless asked otherwise";
    EXPECT_TRUE(config->tlsSelfSigned);
    EXPECT_EQ(config->training.lrDecayIters, 0) << "an open-ended swarm keeps its learning rate";
    EXPECT_EQ(config->training.adamEps, 1e-8);
}

TEST(CoordinatorConfigTest, FlagsAreRead)
{
    Result<CoordinatorConfig> config = parseCoordinatorArguments(
        {"--state-dir", "s", "--data", "d.txt", "--listen", "127.0.0.1:0", "--tokenizer", "byte", "--n-layer", "2",
         "--round-deadline", "30", "--min-peers", "3", "--shard-tokens", "1000", "--tls-self-signed",
         "--lr-decay-iters", "20000", "--adam-eps", "1e-4"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->listenHost, "127.0.0.1");
    EXPECT_EQ(config->listenPort, 0);
    EXPECT_EQ(config->tokenizer, TokenizerKind::Byte);
    EXPECT_EQ(config->model.nLayer, 2);
    EXPECT_DOUBLE_EQ(config->roundDeadlineSeconds, 30);
    EXPECT_EQ(config->minPeers, 3);
    EXPECT_EQ(config->sharding.shardTokens, 1000u);
    EXPECT_TRUE(config->tls());
    EXPECT_EQ(config->training.lrDecayIters, 20000);
    EXPECT_EQ(config->training.adamEps, 1e-4);
}

TEST(CoordinatorConfigTest, TheCorpusAndItsTokenizerFlagsAreRead)
{
    Result<CoordinatorConfig> config = parseCoordinatorArguments(
        {"--state-dir", "s", "--data", "a.jsonl.zst", "folder", "--data", "c.bin", "--text-field", "content",
         "--on-bad-record", "refuse", "--tokenizer", "sentencepiece", "--vocab-size", "4096"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->data, (std::vector<std::filesystem::path>{"a.jsonl.zst", "folder", "c.bin"}));
    EXPECT_EQ(config->corpus.textField, "content");
    EXPECT_EQ(config->corpus.onBadRecord, BadRecordPolicy::Refuse);
    EXPECT_EQ(config->tokenizer, TokenizerKind::SentencePiece);
    EXPECT_EQ(config->tokenizerVocabSize, 4096);
    EXPECT_TRUE(config->tokenizerModel.empty());
    Result<CoordinatorConfig> brought = parseCoordinatorArguments(
        {"--state-dir", "s", "--data", "d", "--tokenizer", "sentencepiece", "--tokenizer-model", "t.model"});
    ASSERT_TRUE(brought.ok()) << brought.error().message;
    EXPECT_EQ(brought->tokenizerModel, "t.model");

    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--tokenizer", "sentencepiece"}).find("--tokenizer-model FILE, or "
                                                                                                   "--vocab-size N"),
              std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--tokenizer", "sentencepiece", "--vocab-size", "400",
                       "--tokenizer-model", "t.model"})
                  .find("--tokenizer-model FILE, or"),
              std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--vocab-size", "400"}).find("go with --tokenizer sentencepiece"),
              std::string::npos);
    EXPECT_EQ(errorOf({"--state-dir", "s", "--data", "d", "--tokenizer", "sentencepiece", "--vocab-size", "10"}).rfind(
                  "--vocab-size", 0),
              0u);
    EXPECT_EQ(errorOf({"--state-dir", "s", "--data", "d", "--on-bad-record", "ignore"}).rfind("--on-bad-record", 0), 0u);

    TempDir dir;
    const auto file = dir.write("swarm.json", R"({"state-dir": "s", "data": ["a.txt", "b.jsonl"], "shard-tokens": 4096})");
    Result<CoordinatorConfig> fromFile = parseCoordinatorArguments({"--config", file.string()});
    ASSERT_TRUE(fromFile.ok()) << fromFile.error().message;
    EXPECT_EQ(fromFile->data, (std::vector<std::filesystem::path>{"a.txt", "b.jsonl"}));
    EXPECT_EQ(fromFile->sharding.shardTokens, 4096u);
}

TEST(CoordinatorConfigTest, TheTestStopFlagIsHiddenFromHelp)
{
    Result<CoordinatorConfig> config =
        parseCoordinatorArguments({"--state-dir", "s", "--data", "d", "--test-stop-after-shards", "3"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->sharding.stopAfterShards, 3u);
    EXPECT_EQ(coordinatorUsage().find("--test-stop-after-shards"), std::string::npos);
}

TEST(CoordinatorConfigTest, ConfigFileIsReadAndFlagsWin)
{
    TempDir dir;
    const auto file = dir.write("swarm.json", R"({"state-dir": "from-file", "data": "d.txt", "n-embd": 64,
                                                  "n-head": 4, "outer-lr": 0.5, "tls-self-signed": true})");
    Result<CoordinatorConfig> config = parseCoordinatorArguments({"--config", file.string(), "--outer-lr", "0.6"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->stateDir, "from-file");
    EXPECT_EQ(config->model.nEmbd, 64);
    EXPECT_DOUBLE_EQ(config->training.outerLr, 0.6);
    EXPECT_TRUE(config->tlsSelfSigned);
}

TEST(CoordinatorConfigTest, KeyListsAreReadAndAnythingButKeyIdsIsRefused)
{
    TempDir dir;
    const std::string keys = dir.write("keys.txt", "# the host's PCs\n\n  aaaa  \nbbbb\n").string();
    Result<CoordinatorConfig> config = parseCoordinatorArguments(
        {"--state-dir", "s", "--data", "d", "--admission", "allowlist", "--allowlist", keys, "--trusted-keys", keys});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->trust.allowedKeys, (QSet<QString>{QStringLiteral("aaaa"), QStringLiteral("bbbb")}));
    EXPECT_EQ(config->trust.trustedKeys, config->trust.allowedKeys);
    EXPECT_TRUE(parseCoordinatorArguments({"--state-dir", "s", "--data", "d"})->trust.trustedKeys.isEmpty());
    const std::string notKeys = dir.write("essay.txt", std::string(200, 'x')).string();
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--trusted-keys", notKeys}).find("--trusted-keys: \"xxx"),
              std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--trusted-keys", (dir.path() / "none").string()})
                  .find("--trusted-keys: cannot read"),
              std::string::npos);
}

TEST(CoordinatorConfigTest, BadInputIsAClearError)
{
    EXPECT_NE(errorOf({"--data", "d.txt"}).find("--state-dir"), std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--listen", "nowhere"}).find("HOST:PORT"), std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--listen", "h:99999"}).find("port"), std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--tokenizer", "bpe"}).find("sentencepiece"),
              std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--n-embd", "30", "--n-head", "4"}).find("divisible"),
              std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--tls-cert", "c.pem"}).find("together"), std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--plain-http", "--tls-self-signed"}).find("cannot be combined"),
              std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--plain-http", "--tls-cert", "c", "--tls-key", "k"})
                  .find("cannot be combined"),
              std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--bogus"}).find("unknown option"), std::string::npos);
    TempDir dir;
    EXPECT_NE(errorOf({"--config", dir.write("bad.json", "{\"nope\": 1}").string()}).find("unknown key"),
              std::string::npos);
    EXPECT_NE(errorOf({"--config", dir.write("broken.json", "{").string()}).find("not a JSON object"),
              std::string::npos);
}

// A member's round is replayable only from a fresh inner optimizer: a swarm that keeps it checks
// no one.
TEST(CoordinatorConfigTest, AKeptInnerStateGoesOnlyWithoutSpotChecks)
{
    const std::vector<std::string> base = {"--state-dir", "s", "--data", "d"};
    Result<CoordinatorConfig> fresh = parseCoordinatorArguments(base);
    ASSERT_TRUE(fresh.ok()) << fresh.error().message;
    EXPECT_FALSE(fresh->training.innerStateKept);
    std::vector<std::string> kept = base;
    kept.insert(kept.end(), {"--inner-state", "kept"});
    EXPECT_NE(errorOf(kept).find("--spot-check-rate 0 and --spot-check-rate-new 0"), std::string::npos);
    kept.insert(kept.end(), {"--spot-check-rate", "0"});
    EXPECT_NE(errorOf(kept).find("--spot-check-rate-new 0"), std::string::npos);
    kept.insert(kept.end(), {"--spot-check-rate-new", "0"});
    Result<CoordinatorConfig> config = parseCoordinatorArguments(kept);
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_TRUE(config->training.innerStateKept);
    std::vector<std::string> bogus = base;
    bogus.insert(bogus.end(), {"--inner-state", "warm"});
    EXPECT_NE(errorOf(bogus).find("--inner-state"), std::string::npos);
}

TEST(CoordinatorConfigTest, HelpListsEveryFlagWithItsDefault)
{
    const std::string help = coordinatorUsage();
    const std::vector<std::pair<std::string, std::string>> defaults = {
        {"--listen", "0.0.0.0:8470"}, {"--tokenizer", "char"}, {"--n-layer", "4"}, {"--n-head", "4"},
        {"--n-embd", "128"}, {"--block-size", "64"}, {"--dropout", "0"}, {"--inner-steps", "500"},
        {"--batch-size", "12"}, {"--lr", "0.001"}, {"--min-lr", "0.0001"}, {"--warmup-iters", "100"},
        {"--lr-decay-iters", "0"}, {"--weight-decay", "0.1"}, {"--grad-clip", "1"}, {"--outer-lr", "1.2"},
        {"--outer-momentum", "0.5"}, {"--seed", "1"}, {"--round-deadline", "600"}, {"--gather-timeout", "60"},
        {"--heartbeat-interval", "10"}, {"--min-peers", "1"}, {"--shard-tokens", "1048576"}, {"--eval-iters", "10"},
        {"--text-field", "text"}, {"--on-bad-record", "skip"}};
    for (const auto &[flag, value] : defaults) {
        const std::string entry = test::helpEntry(help, flag);
        EXPECT_NE(entry.find("(default: " + value + ")"), std::string::npos) << flag << " in\n" << help;
    }
    for (const char *flag : {"--config", "--state-dir", "--data", "--bias", "--tls-cert", "--tls-key",
                             "--tls-self-signed", "--plain-http"}) {
        const std::string entry = test::helpEntry(help, flag);
        EXPECT_GT(entry.size(), std::string(flag).size() + 10) << flag << " in\n" << help;
        EXPECT_EQ(entry.find("(default:"), std::string::npos) << entry;
    }
    EXPECT_NE(test::helpEntry(help, "--state-dir").find("(required)"), std::string::npos) << help;
    EXPECT_NE(test::helpEntry(help, "--outer-momentum").find("X in [0, 0.999]"), std::string::npos) << help;
}

TEST(CoordinatorConfigTest, EveryBadValueNamesItsFlagFromTheCommandLineOrTheFile)
{
    for (const char *flag : {"--listen", "--tokenizer", "--n-layer", "--n-head", "--n-embd", "--block-size",
                             "--dropout", "--inner-steps", "--batch-size", "--lr", "--min-lr", "--warmup-iters",
                             "--lr-decay-iters", "--weight-decay", "--grad-clip", "--outer-lr", "--outer-momentum",
                             "--seed", "--round-deadline", "--gather-timeout", "--heartbeat-interval", "--min-peers",
                             "--shard-tokens", "--eval-iters", "--store", "--trusted-proxy", "--on-bad-record",
                             "--vocab-size"}) {
        const std::string error = errorOf({"--state-dir", "s", "--data", "d", flag, "nonsense!"});
        EXPECT_EQ(error.rfind(flag, 0), 0u) << flag << ": " << error;
    }
    for (const char *flag : {"--state-dir", "--data", "--tls-cert", "--tls-key", "--text-field", "--tokenizer-model"})
        EXPECT_EQ(errorOf({"--state-dir", "s", "--data", "d", flag, ""}), std::string(flag) + " must not be empty");
    EXPECT_EQ(errorOf({"--state-dir", "s", "--data", "d", "--bias=yes"}), "--bias takes no value");
    EXPECT_EQ(errorOf({"--state-dir", "s", "--data", "d", "--min-peers"}), "--min-peers needs a value");

    TempDir dir;
    const auto file = dir.write("swarm.json", R"({"state-dir": "s", "data": "d", "outer-momentum": 2})");
    EXPECT_EQ(errorOf({"--config", file.string()}), "--outer-momentum must be between 0 and 0.999, got 2");
    EXPECT_TRUE(parseCoordinatorArguments({"--config", file.string(), "--outer-momentum", "0.9"}).ok())
        << "the command line wins, so the file's value is never read";
    EXPECT_NE(errorOf({"--config", dir.write("b.json", R"({"state-dir": "s", "data": "d", "bias": 1})").string()})
                  .find("\"bias\" must be true or false"),
              std::string::npos);
    EXPECT_NE(errorOf({"--config", dir.write("c.json", R"({"config": "other.json"})").string()})
                  .find("cannot name another config file"),
              std::string::npos);
    EXPECT_NE(errorOf({"--config", (dir.path() / "missing.json").string()}).find("--config: "), std::string::npos);
}

// Several instances on PostgreSQL behind load balancers (issue 20), from flags or the file.
TEST(CoordinatorConfigTest, TheStoreAndTrustedProxiesAreRead)
{
    Result<CoordinatorConfig> plain = parseCoordinatorArguments({"--state-dir", "s", "--data", "d"});
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain->store, "sqlite");
    EXPECT_TRUE(plain->trustedProxies.empty());
    Result<CoordinatorConfig> config = parseCoordinatorArguments(
        {"--state-dir", "s", "--data", "d", "--store", "postgresql://swarm@db.example/swarm", "--trusted-proxy",
         "10.0.0.2", "--trusted-proxy", "fd00::2"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->store, "postgresql://swarm@db.example/swarm");
    EXPECT_EQ(config->trustedProxies, (std::vector<std::string>{"10.0.0.2", "fd00::2"}));
    TempDir dir;
    const auto file = dir.write("swarm.json", R"({"state-dir": "s", "data": "d", "store": "postgres://u@h/db"})");
    Result<CoordinatorConfig> fromFile = parseCoordinatorArguments({"--config", file.string()});
    ASSERT_TRUE(fromFile.ok()) << fromFile.error().message;
    EXPECT_EQ(fromFile->store, "postgres://u@h/db");
    // --migrate-only needs no data, on either store.
    EXPECT_TRUE(parseCoordinatorArguments({"--state-dir", "s", "--store", "postgresql://u@h/db", "--migrate-only"}).ok());
}

TEST(CoordinatorConfigTest, PipelineModeFlagsAreReadAndBadOnesRefused)
{
    Result<CoordinatorConfig> config = parseCoordinatorArguments(
        {"--state-dir", "s", "--data", "d", "--mode", "pipeline", "--stages", "3", "--microbatches-per-step", "12",
         "--microbatch-size", "2", "--wire", "fp16", "--eval-every", "4", "--rebalance-seconds", "7", "--place", "abc=2",
         "--place", "def=0"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->mode, CoordinatorConfig::Mode::Pipeline);
    EXPECT_EQ(config->stages, 3);
    EXPECT_EQ(config->pipeline.microbatchesPerStep, 12);
    EXPECT_EQ(config->pipeline.microbatchSize, 2);
    EXPECT_EQ(config->pipeline.precision, QStringLiteral("fp16"));
    EXPECT_EQ(config->pipeline.evalEvery, 4);
    EXPECT_DOUBLE_EQ(config->rebalanceSeconds, 7.0);
    EXPECT_EQ(config->placeHints, (std::map<QString, int>{{QStringLiteral("abc"), 2}, {QStringLiteral("def"), 0}}));
    EXPECT_EQ(parseCoordinatorArguments({"--state-dir", "s", "--data", "d"})->mode, CoordinatorConfig::Mode::Full);

    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--mode", "both"}), "");
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--mode", "pipeline", "--stages", "1"}).find("--stages"), std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--wire", "int4"}), "");
    for (const char *bad : {"abc", "=1", "abc=x", "abc=-1", "abc=1x"})
        EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--place", bad}).find("--place"), std::string::npos) << bad;
}
