// Runs the real swarmtrain-cli binary the way a user does and checks what it says.
#include "HelpText.h"
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

// The CPU acceptance of swapped execution in small: the same run, resident and swapped
// through a budget of about a quarter of the model, ends at the same validation loss.
TEST_F(CliTest, SwappedTrainingEndsWhereResidentTrainingEnds)
{
    const std::filesystem::path data = dir.write("corpus.txt", swarmtrain::test::generatedText(40000));
    std::vector<std::string> args = tinyModel(data);
    args.insert(args.end(), {"--n-layer", "4", "--max-iters", "30"});
    const Outcome resident = run(args);
    ASSERT_EQ(resident.exitCode, 0) << resident.err;
    const nlohmann::json residentReport = lastJsonLine(resident.out);
    EXPECT_EQ(residentReport["swapped"], false);
    EXPECT_EQ(residentReport["swapped_bytes_per_iter"], 0);
    EXPECT_EQ(residentReport["device"], "cpu");
    EXPECT_EQ(residentReport["dtype"], "float32");
    EXPECT_GT(residentReport["mfu"].get<double>(), 0.0);

    // A block of this model: 12 * 16^2 + 2 * 16 = 3104 parameters, 8 bytes each in flight (24832).
    args.insert(args.end(), {"--swap", "on", "--device-memory-budget", "27000"});
    const Outcome swapped = run(args);
    ASSERT_EQ(swapped.exitCode, 0) << swapped.err;
    const nlohmann::json swappedReport = lastJsonLine(swapped.out);
    EXPECT_EQ(swappedReport["swapped"], true);
    EXPECT_GT(swappedReport["swapped_bytes_per_iter"].get<std::int64_t>(), 0);
    EXPECT_NE(swappedReport["swap_plan"].get<std::string>().find("groups"), std::string::npos);
    EXPECT_NEAR(swappedReport["val_loss"].get<double>(), residentReport["val_loss"].get<double>(), 1e-4);

    // The optimizer stepped on the "device" (the CPU's tensor operations) ends there too.
    std::vector<std::string> onDevice = args;
    onDevice.insert(onDevice.end(), {"--swap-optimizer", "device"});
    const Outcome deviceStepped = run(onDevice);
    ASSERT_EQ(deviceStepped.exitCode, 0) << deviceStepped.err;
    const nlohmann::json deviceReport = lastJsonLine(deviceStepped.out);
    EXPECT_NE(deviceReport["swap_plan"].get<std::string>().find("optimizer on device for every group, as asked"),
              std::string::npos)
        << deviceReport["swap_plan"];
    EXPECT_NEAR(deviceReport["val_loss"].get<double>(), residentReport["val_loss"].get<double>(), 1e-4);
    expectCleanFailure({"train", "--data", data.string(), "--swap-optimizer", "gpu"}, "--swap-optimizer");

    args.back() = "20000";
    expectCleanFailure(args, "smaller than the largest stage");
}

TEST_F(CliTest, DeviceAndDtypeThisBuildCannotUseAreOneLineErrors)
{
    const std::filesystem::path data = dir.write("corpus.txt", swarmtrain::test::generatedText(4000));
    std::vector<std::string> args = tinyModel(data);
    args.insert(args.end(), {"--device", "tpu"});
    expectCleanFailure(args, "--device must be");
    args = tinyModel(data);
    args.insert(args.end(), {"--device", "cpu", "--dtype", "bfloat16"});
    expectCleanFailure(args, "needs a GPU");
    const Outcome gpus = run({"gpus", "--json"});
    ASSERT_EQ(gpus.exitCode, 0) << gpus.err;
    bool usableGpu = false;
    for (const nlohmann::json &gpu : nlohmann::json::parse(gpus.out)["gpus"])
        usableGpu = usableGpu || gpu.value("usable", false);
    if (!usableGpu) {
        args = tinyModel(data);
        args.insert(args.end(), {"--device", "cuda:0"});
        expectCleanFailure(args, "no CUDA");
    }
}

TEST_F(CliTest, BenchReportsEveryFigureAsJson)
{
    const Outcome outcome = run({"bench", "--json", "--device", "cpu", "--n-layer", "2", "--n-head", "2", "--n-embd",
                                 "32", "--block-size", "16", "--vocab-size", "40", "--batch-size", "4", "--iters", "3"});
    ASSERT_EQ(outcome.exitCode, 0) << outcome.err;
    const nlohmann::json r = nlohmann::json::parse(outcome.out);
    EXPECT_EQ(r["device"], "cpu");
    EXPECT_GT(r["matmul_flops_per_s"]["float32"].get<double>(), 0.0);
    for (const char *key : {"host_to_device", "device_to_host", "both_host_to_device", "both_device_to_host"})
        EXPECT_GT(r["bandwidth_bytes_per_s"][key].get<double>(), 0.0) << key;
    const nlohmann::json &t = r["training"];
    EXPECT_GT(t["resident"]["tokens_per_s"].get<double>(), 0.0);
    EXPECT_GT(t["swapped"]["tokens_per_s"].get<double>(), 0.0);
    EXPECT_GT(t["swapped"]["swapped_bytes_per_iter"].get<std::int64_t>(), 0);
    EXPECT_GT(t["swapped_over_resident"].get<double>(), 0.0);
    EXPECT_NEAR(t["swapped_over_resident"].get<double>(),
                t["swapped"]["tokens_per_s"].get<double>() / t["resident"]["tokens_per_s"].get<double>(), 1e-9);
}

TEST_F(CliTest, HelpIsGeneratedForEveryCommand)
{
    const Outcome top = run({"--help"});
    EXPECT_EQ(top.exitCode, 0) << top.err;
    for (const std::string command : {"train", "sample", "bench", "gpus"})
        EXPECT_NE(top.out.find("\n  " + command + " "), std::string::npos) << command << " in\n" << top.out;

    const Outcome train = run({"train", "--help"});
    EXPECT_EQ(train.exitCode, 0) << train.err;
    EXPECT_NE(swarmtrain::test::helpEntry(train.out, "--n-layer").find("INT in [1, 1024]"), std::string::npos)
        << train.out;
    EXPECT_NE(swarmtrain::test::helpEntry(train.out, "--n-layer").find("(default: 4)"), std::string::npos) << train.out;
    for (const char *command : {"sample", "bench", "gpus"}) {
        const Outcome help = run({command, "--help"});
        EXPECT_EQ(help.exitCode, 0) << help.err;
        EXPECT_NE(help.out.find(std::string("Usage: swarmtrain-cli ") + command + " [OPTIONS]"), std::string::npos)
            << help.out;
    }

    const Outcome nothing = run({});
    EXPECT_EQ(nothing.exitCode, 2);
    EXPECT_NE(nothing.err.find("Usage: swarmtrain-cli"), std::string::npos) << nothing.err;
    expectCleanFailure({"gpus", "--bogus"}, "unknown option --bogus");
    expectCleanFailure({"train", "--data", "d.txt", "--n-layer", "four"},
                       "--n-layer expects a whole number, got 'four'");
    expectCleanFailure({"bench", "--iters", "0"}, "--iters must be between 1 and 100000, got 0");
}

TEST_F(CliTest, ScheduleKeepsEachPipelineInsideItsSite)
{
    // Two sites of two devices: fast inside a site, slow between them. Two stages of two: each
    // pipeline (stage 0 feeding stage 1) must stay in one site. The budget is far beyond what
    // the search's offspring limit lets it run, so a busy machine cannot cut it short.
    std::ofstream(dir.path() / "scenario.json") << R"({
        "devices": [{"id": "a1", "site": "A"}, {"id": "b1", "site": "B"}, {"id": "a2", "site": "A"}, {"id": "b2", "site": "B"}],
        "delay_ms": [[0, 60, 1, 60], [60, 0, 60, 1], [1, 60, 0, 60], [60, 1, 60, 0]],
        "bandwidth_gbps": [[0, 0.1, 10, 0.1], [0.1, 0, 0.1, 10], [10, 0.1, 0, 0.1], [0.1, 10, 0.1, 0]],
        "model": {"layers": 4, "parameter_bytes_per_layer": 1e5, "activation_bytes_per_microbatch": 1e7},
        "grid": {"pipeline_stages": 2, "data_parallel": 2},
        "terms": {"compute": false, "memory": false}})";
    const Outcome outcome = run({"schedule", "--input", (dir.path() / "scenario.json").string(), "--seconds", "60",
                                 "--seed", "3", "--json"});
    ASSERT_EQ(outcome.exitCode, 0) << outcome.err;
    const nlohmann::json result = lastJsonLine(outcome.out);
    ASSERT_EQ(result["links"].size(), 1u);
    for (const nlohmann::json &feed : result["links"][0]["feeds"]) {
        const std::string from = feed[0], to = feed[1];
        EXPECT_EQ(from[0], to[0]) << from << " feeds " << to << " across the sites";
    }
    EXPECT_GT(result["cost"]["total"].get<double>(), 0.0);
    const Outcome again = run({"schedule", "--input", (dir.path() / "scenario.json").string(), "--seconds", "60",
                               "--seed", "3", "--json"});
    EXPECT_EQ(lastJsonLine(again.out)["links"], result["links"]) << "the same seed, the same placement";

    std::ofstream(dir.path() / "bad.json") << R"({"devices": [{"id": "a"}, {"id": "b"}], "delay_ms": [[0, 1]],
        "bandwidth_gbps": [[0, 1], [1, 0]], "model": {"layers": 2}})";
    expectCleanFailure({"schedule", "--input", (dir.path() / "bad.json").string()}, "delay_ms");
    expectCleanFailure({"schedule", "--input", (dir.path() / "missing.json").string()}, "missing.json");
}

TEST_F(CliTest, GeneratedBytesThatAreNotUtf8StillMakeOneJsonObject)
{
    // An untrained byte-level model samples any of the 256 bytes: its text is not UTF-8.
    const std::filesystem::path data = dir.write("corpus.txt", swarmtrain::test::generatedText(20000));
    const std::string out = (dir.path() / "run").string();
    std::vector<std::string> args = tinyModel(data);
    args.insert(args.end(), {"--tokenizer", "byte", "--max-iters", "1", "--out", out});
    const Outcome trained = run(args);
    ASSERT_EQ(trained.exitCode, 0) << trained.err;
    const Outcome generated = run({"generate", "--state", out + "/checkpoint.safetensors", "--prompt", "the ",
                                   "--max-tokens", "12", "--temperature", "1", "--seed", "3", "--json"});
    ASSERT_EQ(generated.exitCode, 0) << generated.err;
    const nlohmann::json report = lastJsonLine(generated.out);
    EXPECT_EQ(report["tokens"], 12);
    // Each byte that is not part of a UTF-8 character arrives as U+FFFD.
    EXPECT_NE(report["text"].get<std::string>().find("\xEF\xBF\xBD"), std::string::npos) << generated.out;
}
