// The release pause on a GPU, done as the client does it (SwarmWorker::releaseReplica): a replica
// trains on CUDA, a release is asked in the middle of a step (the stage gate abandons it), the
// replica is dropped and LibTorch's cached device memory given back. Prints one JSON object: the
// device memory held while training and after the release, by LibTorch's caching allocator and by
// nvidia-smi for this process, and how long after the release was asked it fell below the
// threshold. Figures only; bench/gpu-acceptance.sh judges them.
//   swarmtrain_gpu_release [--steps-before N] [--threshold-mib N] [--swap off|on|auto]
//                          [--dtype auto|float32|bfloat16|float16] [--n-layer N] [--n-head N]
//                          [--n-embd N] [--block-size N] [--batch-size N] [--dir DIR]
#include "DeviceMemory.h"
#include "ReplicaTrainer.h"
#include "SwarmState.h"
#include "Trainer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace swarmtrain;

namespace {

using Clock = std::chrono::steady_clock;

struct Setup {
    ModelConfig model{ModelFamily::Gpt, 256, 12, 12, 768, 1024, 0.0, false}; // GPT-2 124M on bytes
    int batchSize = 8;
    int stepsBefore = 5; // whole steps trained before the one the release interrupts
    double thresholdMib = 300.0;
    std::string swap = "off";
    std::string dtype = "auto";
    std::filesystem::path dir;
};

int usage(const std::string &message)
{
    std::cerr << "swarmtrain_gpu_release: " << message << "\n"
              << "usage: swarmtrain_gpu_release [--steps-before N] [--threshold-mib N] [--swap off|on|auto]\n"
                 "       [--dtype auto|float32|bfloat16|float16] [--n-layer N] [--n-head N] [--n-embd N]\n"
                 "       [--block-size N] [--batch-size N] [--dir DIR]\n";
    return 2;
}

std::optional<Setup> parse(int argc, char **argv, std::string &error)
{
    Setup s;
    for (int i = 1; i < argc; ++i) {
        const std::string key = argv[i];
        if (i + 1 >= argc) {
            error = "option " + key + " needs a value";
            return std::nullopt;
        }
        const std::string value = argv[++i];
        try {
            if (key == "--steps-before")
                s.stepsBefore = std::stoi(value);
            else if (key == "--threshold-mib")
                s.thresholdMib = std::stod(value);
            else if (key == "--swap")
                s.swap = value;
            else if (key == "--dtype")
                s.dtype = value;
            else if (key == "--n-layer")
                s.model.nLayer = std::stoi(value);
            else if (key == "--n-head")
                s.model.nHead = std::stoi(value);
            else if (key == "--n-embd")
                s.model.nEmbd = std::stoi(value);
            else if (key == "--block-size")
                s.model.blockSize = std::stoi(value);
            else if (key == "--batch-size")
                s.batchSize = std::stoi(value);
            else if (key == "--dir")
                s.dir = value;
            else {
                error = "unknown option '" + key + "'";
                return std::nullopt;
            }
        } catch (const std::exception &) {
            error = "option " + key + " takes a number, got '" + value + "'";
            return std::nullopt;
        }
    }
    if (s.swap != "off" && s.swap != "on" && s.swap != "auto") {
        error = "--swap must be off, on or auto";
        return std::nullopt;
    }
    if (s.stepsBefore < 1 || s.batchSize < 1 || !(s.thresholdMib > 0)) {
        error = "--steps-before, --batch-size and --threshold-mib must be positive";
        return std::nullopt;
    }
    if (const std::string why = s.model.validate(); !why.empty()) {
        error = why;
        return std::nullopt;
    }
    return s;
}

// This process's device memory as nvidia-smi lists it (MiB, the CUDA context included), or
// nothing when nvidia-smi is missing or does not list this process.
struct SmiReading {
    bool ran = false;
    std::optional<double> processMib;
};

SmiReading readNvidiaSmi()
{
    SmiReading reading;
    FILE *pipe = popen("nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null", "r");
    if (!pipe)
        return reading;
    char line[256];
    const long self = long(getpid());
    while (std::fgets(line, sizeof line, pipe)) {
        long pid = 0;
        double mib = 0.0;
        if (std::sscanf(line, "%ld , %lf", &pid, &mib) == 2 && pid == self)
            reading.processMib = reading.processMib.value_or(0.0) + mib;
    }
    reading.ran = pclose(pipe) == 0;
    return reading;
}

struct Sample {
    double seconds = 0.0; // since the release was asked (negative: before)
    DeviceMemoryUse allocator;
    SmiReading smi;

    nlohmann::json toJson() const
    {
        nlohmann::json json = {{"t_s", seconds},
                               {"allocated_mib", double(allocator.allocatedBytes) / double(1 << 20)},
                               {"reserved_mib", double(allocator.reservedBytes) / double(1 << 20)},
                               {"process_mib", nullptr}};
        if (smi.processMib)
            json["process_mib"] = *smi.processMib;
        return json;
    }
};

double secondsBetween(Clock::time_point from, Clock::time_point to)
{
    return std::chrono::duration<double>(to - from).count();
}

} // namespace

int main(int argc, char **argv)
{
    std::string error;
    const std::optional<Setup> parsed = parse(argc, argv, error);
    if (!parsed)
        return usage(error);
    Setup setup = *parsed;
    if (torchCudaDeviceCount() == 0) {
        const char *why = "needs CUDA: this build's LibTorch has no CUDA, or no CUDA device is usable";
        std::cout << nlohmann::json{{"error", why}}.dump() << std::endl;
        std::cerr << "swarmtrain_gpu_release: " << why << "\n";
        return 3;
    }
    configureThreads(0);

    if (setup.dir.empty())
        setup.dir = std::filesystem::temp_directory_path() / ("swarmtrain-gpu-release-" + std::to_string(getpid()));
    // On every way out, what the run wrote goes: the state file, and the folder when the run
    // made it (a --dir folder may hold other files, so it is never emptied wholesale).
    struct Cleanup {
        std::filesystem::path file, madeFolder;
        ~Cleanup()
        {
            std::error_code ignored;
            std::filesystem::remove(file, ignored);
            if (!madeFolder.empty())
                std::filesystem::remove(madeFolder, ignored);
        }
    } cleanup;
    if (std::filesystem::create_directories(setup.dir))
        cleanup.madeFolder = setup.dir;
    const std::filesystem::path stateFile = setup.dir / "state.safetensors";
    cleanup.file = stateFile;
    if (Result<void> written = writeInitialSwarmState(stateFile, setup.model, Tokenizer::byteLevel(), 1); !written)
        return usage(written.error().message);

    ReplicaOptions options;
    options.device = "cuda";
    Result<ComputeDtype> dtype = parseComputeDtype(setup.dtype);
    if (!dtype)
        return usage(dtype.error().message);
    options.dtype = *dtype;
    options.swap = setup.swap == "on" ? SwapMode::On : setup.swap == "off" ? SwapMode::Off : SwapMode::Auto;
    options.batchSize = setup.batchSize;
    options.innerSteps = 1 << 20;

    Sample baseline{0.0, deviceMemoryUse(0), readNvidiaSmi()};
    const Clock::time_point baselineAt = Clock::now();
    Result<std::unique_ptr<ReplicaTrainer>> created = ReplicaTrainer::create(stateFile, options);
    if (!created) {
        std::cerr << "swarmtrain_gpu_release: " << created.error().message << "\n";
        return 1;
    }
    std::unique_ptr<ReplicaTrainer> replica = std::move(created).value();
    const std::string device = replica->deviceName();
    {
        std::mt19937 rng(7);
        std::uniform_int_distribution<std::int32_t> byte(0, 255);
        std::vector<std::int32_t> tokens(std::size_t(1) << 21);
        for (std::int32_t &t : tokens)
            t = byte(rng);
        if (Result<void> set = replica->setTrainingTokens(std::move(tokens)); !set) {
            std::cerr << "swarmtrain_gpu_release: " << set.error().message << "\n";
            return 1;
        }
    }

    // Steps are timed from one shouldStop() call to the next. Once stepsBefore steps are done,
    // the memory they hold is read, and the interrupt fires half a step into the next one, on
    // whichever engine thread checks the gate first (the autograd engine's, during backward).
    std::vector<double> stepSeconds;
    Clock::time_point lastCall{};
    int calls = 0;
    std::optional<Sample> training;
    Clock::time_point trainingAt{};
    std::atomic<std::int64_t> armedAtNs{-1};
    std::atomic<std::int64_t> halfStepNs{0};
    std::atomic<std::int64_t> requestedAtNs{-1};
    std::atomic<bool> midStep{false};
    const auto nowNs = [] {
        return std::int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
    };
    const auto request = [&](bool duringStep) {
        std::int64_t expected = -1;
        if (requestedAtNs.compare_exchange_strong(expected, nowNs()))
            midStep = duringStep;
    };
    const auto shouldStop = [&] {
        const Clock::time_point now = Clock::now();
        if (calls > 0)
            stepSeconds.push_back(secondsBetween(lastCall, now));
        lastCall = now;
        ++calls;
        if (armedAtNs >= 0) { // the armed step finished before the interrupt fired: stop here
            request(false);
            return true;
        }
        if (calls == setup.stepsBefore + 1) {
            training = Sample{0.0, deviceMemoryUse(0), readNvidiaSmi()};
            trainingAt = Clock::now();
            std::vector<double> sorted = stepSeconds;
            std::sort(sorted.begin(), sorted.end());
            halfStepNs = std::int64_t(sorted[sorted.size() / 2] / 2 * 1e9);
            armedAtNs = nowNs();
        }
        return false;
    };
    const auto interrupt = [&] {
        const std::int64_t armed = armedAtNs;
        if (armed < 0 || nowNs() - armed < halfStepNs)
            return false;
        request(true);
        return true;
    };
    Result<InnerReport> report = replica->trainInner(shouldStop, interrupt);
    const Clock::time_point stopped = Clock::now();
    if (!report) {
        std::cerr << "swarmtrain_gpu_release: " << report.error().message << "\n";
        return 1;
    }
    if (!report->interrupted || requestedAtNs < 0) {
        std::cerr << "swarmtrain_gpu_release: training ended without the release being asked\n";
        return 1;
    }
    const Clock::time_point requested{std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(requestedAtNs.load()))};
    baseline.seconds = secondsBetween(requested, baselineAt);
    if (training)
        training->seconds = secondsBetween(requested, trainingAt);
    replica.reset();
    const Clock::time_point dropped = Clock::now();
    releaseCachedDeviceMemory();
    const Clock::time_point released = Clock::now();

    // The smaller of what nvidia-smi says this process holds (when it lists it) and what the
    // allocator holds is not taken: nvidia-smi, with the CUDA context, is what another program
    // cannot have, so it decides when it lists this process.
    const bool bySmi = training && training->smi.processMib.has_value();
    const double thresholdBytes = setup.thresholdMib * double(1 << 20);
    std::vector<Sample> after;
    std::optional<double> belowAfter;
    const Clock::time_point pollUntil = released + std::chrono::seconds(3);
    do {
        Sample sample{0.0, deviceMemoryUse(0), bySmi ? readNvidiaSmi() : SmiReading{}};
        sample.seconds = secondsBetween(requested, Clock::now());
        const bool below = bySmi ? sample.smi.processMib && *sample.smi.processMib < setup.thresholdMib
                                 : double(sample.allocator.reservedBytes) < thresholdBytes;
        after.push_back(sample);
        if (below && !belowAfter)
            belowAfter = sample.seconds;
        if (belowAfter && after.size() >= 3)
            break;
        if (!bySmi)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (Clock::now() < pollUntil);

    nlohmann::json samples = nlohmann::json::array();
    for (const Sample &s : after)
        samples.push_back(s.toJson());
    nlohmann::json result = {
        {"device", device},
        {"model", {{"n_layer", setup.model.nLayer}, {"n_head", setup.model.nHead}, {"n_embd", setup.model.nEmbd},
                   {"block_size", setup.model.blockSize}, {"vocab_size", setup.model.vocabSize},
                   {"params", setup.model.parameterCount()}}},
        {"batch_size", setup.batchSize},
        {"dtype", setup.dtype},
        {"swap", setup.swap},
        {"steps_trained", report->steps},
        {"median_step_s", halfStepNs.load() * 2e-9},
        {"release_mid_step", midStep.load()},
        {"baseline", baseline.toJson()},
        {"training", training ? training->toJson() : nlohmann::json()},
        {"after", after.empty() ? nlohmann::json() : after.back().toJson()},
        {"seconds", {{"step_abandoned", secondsBetween(requested, stopped)},
                     {"replica_dropped", secondsBetween(requested, dropped)},
                     {"cache_emptied", secondsBetween(requested, released)}}},
        {"threshold_mib", setup.thresholdMib},
        {"measured_by", bySmi ? "nvidia-smi" : "allocator"},
        {"below_threshold_after_s", belowAfter ? nlohmann::json(*belowAfter) : nlohmann::json()},
        {"samples", samples},
    };
    std::cout << result.dump() << std::endl;
    return 0;
}
