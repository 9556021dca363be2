// What building one pipeline stage costs in memory, against building the whole model first (how
// a peer took its stage's initial values before DecoderImpl::initializeAsWhole). Prints JSON lines;
// figures only, never pass/fail:
//   swarmtrain_pipeline_stage_memory [--layers 24 --width 1024 --heads 16 --vocab 50304 --block 1024] [--stages 4]
// Each measurement runs in a child process of its own, so its peak resident set (VmHWM) is its
// own; a child that builds nothing gives the baseline (LibTorch loaded), which the figures
// subtract. Stage k of S is the FLOP-balanced span StagePartition gives.
#include "AdamW.h"
#include "CliFlags.h"
#include "FlatParameters.h"
#include "Decoder.h"
#include "PipelineStage.h"
#include "StagePartition.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace swarmtrain;

namespace {

// Peak resident set of this process in bytes (VmHWM in /proc/self/status); 0 when unreadable.
std::int64_t peakResidentBytes()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stoll(line.substr(6)) * 1024; // kB
    }
    return 0;
}

// Runs `work` in a child process; its peak resident set in bytes, or -1 when it failed.
std::int64_t peakOf(const std::function<void()> &work)
{
    int pipeFds[2];
    if (pipe(pipeFds) != 0)
        return -1;
    const pid_t child = fork();
    if (child == 0) {
        close(pipeFds[0]);
        work();
        const std::int64_t peak = peakResidentBytes();
        const bool written = write(pipeFds[1], &peak, sizeof peak) == ssize_t(sizeof peak);
        _exit(written ? 0 : 1);
    }
    close(pipeFds[1]);
    std::int64_t peak = -1;
    if (child < 0 || read(pipeFds[0], &peak, sizeof peak) != ssize_t(sizeof peak))
        peak = -1;
    close(pipeFds[0]);
    int status = 0;
    if (child > 0)
        waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? peak : -1;
}

// The stage as a peer takes it now: only its span is built.
void buildStage(const ModelConfig &config, const StageSpan &span)
{
    PipelineStageOptions options;
    options.device = "cpu";
    if (Result<std::unique_ptr<PipelineStage>> stage = PipelineStage::create(config, span, options); !stage)
        std::cerr << "swarmtrain_pipeline_stage_memory: " << stage.error().message << "\n";
}

// The stage as a peer took it before: the whole model built, its span's values copied out, and
// then the stage's flat parameters and AdamW state.
void buildWholeThenStage(const ModelConfig &config, const StageSpan &span)
{
    torch::manual_seed(1);
    Decoder stage(config, span.first, span.last);
    {
        Decoder whole(config);
        std::map<std::string, torch::Tensor> initial;
        for (auto &[name, p] : whole->namedParameters())
            initial.emplace(name, p);
        torch::NoGradGuard noGrad;
        for (auto &[name, p] : stage->namedParameters())
            p.copy_(initial.at(name));
    }
    FlatParameters flat(stage->namedParameters());
    AdamW optimizer(flat, AdamWOptions{});
}

} // namespace

int main(int argc, char **argv)
{
    ModelConfig config;
    config.nLayer = 24;
    config.nEmbd = 1024;
    config.nHead = 16;
    config.vocabSize = 50304;
    config.blockSize = 1024;
    int stages = 4;
    CLI::App app("Peak memory of building one pipeline stage, against building the whole model first. Prints JSON lines.",
                 "swarmtrain_pipeline_stage_memory");
    flags::configure(app);
    app.add_option("--layers", config.nLayer, "transformer blocks")->transform(flags::wholeNumberIn(1, 512));
    app.add_option("--width", config.nEmbd, "embedding width")->transform(flags::wholeNumberIn(8, 65536));
    app.add_option("--heads", config.nHead, "attention heads")->transform(flags::wholeNumberIn(1, 512));
    app.add_option("--vocab", config.vocabSize, "vocabulary size")->transform(flags::wholeNumberIn(2, 1 << 20));
    app.add_option("--block", config.blockSize, "block size")->transform(flags::wholeNumberIn(1, 1 << 16));
    app.add_option("--stages", stages, "pipeline stages")->transform(flags::wholeNumberIn(1, 1024));
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (flags::helpAsked(args)) {
        std::cout << app.help();
        return 0;
    }
    if (Result<void> parsed = flags::parse(app, args); !parsed) {
        std::cerr << "swarmtrain_pipeline_stage_memory: error: " << parsed.error().message << "\n";
        return 1;
    }
    config.dropout = 0.0;
    Result<std::vector<StageSpan>> spans = partitionStages(config, stages);
    if (!spans) {
        std::cerr << "swarmtrain_pipeline_stage_memory: error: " << spans.error().message << "\n";
        return 1;
    }
    const std::int64_t baseline = peakOf([] {});
    const auto mib = [&](std::int64_t peak) { return peak < 0 ? -1.0 : double(peak - baseline) / double(1 << 20); };
    std::cout << nlohmann::json{{"what", "baseline"}, {"peak_rss_mib", double(baseline) / double(1 << 20)}}.dump() << "\n";
    std::cout << nlohmann::json{{"what", "whole model"}, {"parameters", config.parameterCount()},
                                {"float32_mib", double(4 * config.parameterCount()) / double(1 << 20)}}
                     .dump()
              << "\n";
    for (std::size_t k = 0; k < spans->size(); ++k) {
        const StageSpan span = (*spans)[k];
        const double stageOnly = mib(peakOf([&] { buildStage(config, span); }));
        const double wholeFirst = mib(peakOf([&] { buildWholeThenStage(config, span); }));
        std::cout << nlohmann::json{{"stage", k}, {"stages", stages}, {"engine_stages", {span.first, span.last}},
                                    {"parameters", spanParameterCount(config, span)},
                                    {"state_mib", double(16 * spanParameterCount(config, span)) / double(1 << 20)},
                                    {"peak_mib_stage_only", stageOnly}, {"peak_mib_whole_model_first", wholeFirst},
                                    {"ratio", wholeFirst / stageOnly}}
                         .dump()
                  << std::endl;
    }
    return 0;
}
