// Runs the real swarmtrain-cli binary the way a user does and checks what it says.
#include "TempDir.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>

using swarmtrain::test::TempDir;

namespace {

struct Outcome {
    int exitCode;
    std::string out;
    std::string err;
};

std::string slurp(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

std::string quote(const std::string &arg)
{
    std::string quoted = "'";
    for (char c : arg)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

class CliTest : public ::testing::Test {
protected:
    Outcome run(const std::vector<std::string> &args) const
    {
        std::string command = quote(SWARMTRAIN_CLI);
        for (const std::string &arg : args)
            command += " " + quote(arg);
        command += " >" + quote((dir.path() / "out").string()) + " 2>" + quote((dir.path() / "err").string());
        const int status = std::system(command.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir.path() / "out"), slurp(dir.path() / "err")};
    }

    // Fails unless the run exits non-zero with one "error:" line that mentions `expected`.
    void expectCleanFailure(const std::vector<std::string> &args, const std::string &expected) const
    {
        const Outcome outcome = run(args);
        EXPECT_EQ(outcome.exitCode, 1) << outcome.err;
        const std::string lastLine = outcome.err.substr(outcome.err.rfind("swarmtrain-cli: error:"));
        EXPECT_EQ(std::count(lastLine.begin(), lastLine.end(), '\n'), 1) << outcome.err;
        EXPECT_NE(lastLine.find(expected), std::string::npos) << outcome.err;
    }

    std::vector<std::string> tinyModel(const std::filesystem::path &data) const
    {
        return {"train", "--data", data.string(), "--n-layer", "1", "--n-head", "2", "--n-embd", "16",
                "--block-size", "16", "--batch-size", "8", "--eval-interval", "10", "--eval-iters", "2",
                "--warmup-iters", "5", "--lr", "3e-3", "--quiet"};
    }

    TempDir dir;
};

nlohmann::json lastJsonLine(const std::string &out)
{
    const std::string trimmed = out.substr(0, out.find_last_not_of('\n') + 1);
    return nlohmann::json::parse(trimmed.substr(trimmed.rfind('\n') + 1));
}

} // namespace

TEST_F(CliTest, BadDataIsAOneLineError)
{
    expectCleanFailure({"train", "--data", (dir.path() / "missing.txt").string()}, "not found");
    expectCleanFailure({"train", "--data", dir.write("empty.txt", "").string()}, "is empty");
    expectCleanFailure({"train", "--data", dir.write("blob.bin", std::string("\x7f" "ELF\0\0\1", 7)).string()},
                       "binary");
    expectCleanFailure({"train", "--data", dir.write("short.txt", "too short to hold a block").string()},
                       "corpus too short");
}

TEST_F(CliTest, NonsenseFlagsAreOneLineErrors)
{
    const std::string data = dir.write("d.txt", swarmtrain::test::generatedText(5000)).string();
    expectCleanFailure({"train", "--data", data, "--n-layer", "-1"}, "--n-layer must be between");
    expectCleanFailure({"train", "--data", data, "--n-embd", "130", "--n-head", "4"}, "divisible by --n-head");
    expectCleanFailure({"train", "--data", data, "--batch-size", "0"}, "--batch-size");
    expectCleanFailure({"train", "--data", data, "--lr", "quick"}, "expects a number");
    expectCleanFailure({"frobnicate"}, "unknown command");
}

TEST_F(CliTest, TrainsResumesAndSamples)
{
    const std::filesystem::path data = dir.write("corpus.txt", swarmtrain::test::generatedText(40000));
    const std::string out = (dir.path() / "run").string();
    std::vector<std::string> args = tinyModel(data);
    args.insert(args.end(), {"--max-iters", "60", "--out", out});
    const Outcome first = run(args);
    ASSERT_EQ(first.exitCode, 0) << first.err;
    const nlohmann::json report = lastJsonLine(first.out);
    for (const char *key : {"iters", "train_loss", "val_loss", "ms_per_iter", "tokens_per_s", "params", "peak_rss_mb"})
        EXPECT_TRUE(report.contains(key)) << key;
    EXPECT_EQ(report["iters"], 60);
    const double uniform = std::log(24.0); // about the vocabulary of the generated text
    EXPECT_LT(report["val_loss"].get<double>(), uniform - 0.5) << "the model did not learn";
    EXPECT_GT(report["ms_per_iter"].get<double>(), 0.0);
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(out) / "checkpoint.safetensors"));

    args = tinyModel(data);
    args.insert(args.end(), {"--max-iters", "80", "--out", out, "--resume"});
    const Outcome resumed = run(args);
    ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
    EXPECT_EQ(lastJsonLine(resumed.out)["iters"], 80);
    EXPECT_LE(lastJsonLine(resumed.out)["val_loss"].get<double>(), report["val_loss"].get<double>() + 0.05);

    const Outcome sampled = run({"sample", "--checkpoint", out, "--tokens", "40", "--prompt", "the "});
    ASSERT_EQ(sampled.exitCode, 0) << sampled.err;
    EXPECT_GE(sampled.out.size(), 40u);
}

TEST_F(CliTest, DamagedCheckpointsAreRefused)
{
    const std::filesystem::path data = dir.write("corpus.txt", swarmtrain::test::generatedText(20000));
    const std::filesystem::path out = dir.path() / "run";
    std::vector<std::string> args = tinyModel(data);
    args.insert(args.end(), {"--max-iters", "5", "--out", out.string()});
    ASSERT_EQ(run(args).exitCode, 0);

    const std::filesystem::path file = out / "checkpoint.safetensors";
    std::string bytes = slurp(file);
    std::string flipped = bytes;
    flipped[flipped.size() / 2] ^= 0x04;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << flipped;
    expectCleanFailure({"sample", "--checkpoint", out.string()}, "SHA-256 mismatch");
    args = tinyModel(data);
    args.insert(args.end(), {"--max-iters", "10", "--out", out.string(), "--resume"});
    expectCleanFailure(args, "cannot resume");

    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 3000);
    expectCleanFailure({"sample", "--checkpoint", out.string()}, "truncated");
    expectCleanFailure({"sample", "--checkpoint", (dir.path() / "nothing").string()}, "cannot open");
}
