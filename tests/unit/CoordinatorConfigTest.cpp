#include "CoordinatorConfig.h"
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

TEST(CoordinatorConfigTest, Defaults)
{
    Result<CoordinatorConfig> config = parseCoordinatorArguments({"--state-dir", "s", "--data", "d.txt"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_DOUBLE_EQ(config->training.outerLr, 1.2);
    EXPECT_DOUBLE_EQ(config->training.outerMomentum, 0.5);
    EXPECT_EQ(config->shardBytes, 64u * 1024u);
    EXPECT_EQ(config->tokenizer, TokenizerKind::Char);
    EXPECT_FALSE(config->tls());
    EXPECT_EQ(config->training.lrDecayIters, 0) << "an open-ended swarm keeps its learning rate";
}

TEST(CoordinatorConfigTest, FlagsAreRead)
{
    Result<CoordinatorConfig> config = parseCoordinatorArguments(
        {"--state-dir", "s", "--data", "d.txt", "--listen", "127.0.0.1:0", "--tokenizer", "byte", "--n-layer", "2",
         "--round-deadline", "30", "--min-peers", "3", "--shard-bytes", "1000", "--tls-self-signed",
         "--lr-decay-iters", "20000"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->listenHost, "127.0.0.1");
    EXPECT_EQ(config->listenPort, 0);
    EXPECT_EQ(config->tokenizer, TokenizerKind::Byte);
    EXPECT_EQ(config->model.nLayer, 2);
    EXPECT_DOUBLE_EQ(config->roundDeadlineSeconds, 30);
    EXPECT_EQ(config->minPeers, 3);
    EXPECT_EQ(config->shardBytes, 1000u);
    EXPECT_TRUE(config->tls());
    EXPECT_EQ(config->training.lrDecayIters, 20000);
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

TEST(CoordinatorConfigTest, BadInputIsAClearError)
{
    EXPECT_NE(errorOf({"--data", "d.txt"}).find("--state-dir"), std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--listen", "nowhere"}).find("HOST:PORT"), std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--listen", "h:99999"}).find("port"), std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--tokenizer", "bpe"}).find("char or byte"),
              std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--n-embd", "30", "--n-head", "4"}).find("divisible"),
              std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--tls-cert", "c.pem"}).find("together"), std::string::npos);
    EXPECT_NE(errorOf({"--state-dir", "s", "--data", "d", "--bogus"}).find("unknown option"), std::string::npos);
    TempDir dir;
    EXPECT_NE(errorOf({"--config", dir.write("bad.json", "{\"nope\": 1}").string()}).find("unknown key"),
              std::string::npos);
    EXPECT_NE(errorOf({"--config", dir.write("broken.json", "{").string()}).find("not a JSON object"),
              std::string::npos);
}
