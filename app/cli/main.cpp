// swarmtrain-cli: drives the engine directly (reference training, sampling, device benchmark, GPUs)
// and the scheduler (placing devices on a pipeline grid).
#include "CliFlags.h"
#include "ControlCommands.h"
#include "DeviceBench.h"
#include "FileIo.h"
#include "Generation.h"
#include "GpuProbe.h"
#include "ModelExport.h"
#include "ScheduleCommand.h"
#include "ScenarioJson.h"
#include "TokenizerTraining.h"
#include "Trainer.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace swarmtrain;

int fail(const std::string &message)
{
    // One line, even when a library put a backtrace under its message.
    std::cerr << "swarmtrain-cli: error: " << message.substr(0, message.find('\n')) << "\n";
    return 1;
}

// Parses a command's flags into `app`. Help asked for, or a bad flag, ends the command: its exit code.
std::optional<int> parseFlags(CLI::App &app, const std::vector<std::string> &args)
{
    if (flags::helpAsked(args)) {
        std::cout << app.help();
        return 0;
    }
    if (Result<void> parsed = flags::parse(app, args); !parsed) {
        std::cerr << app.help();
        return fail(parsed.error().message);
    }
    return std::nullopt;
}

void printProgress(const TrainProgress &p, bool live)
{
    if (p.evaluated) {
        std::fprintf(stderr, "%s" "step %lld/%lld: train loss %.4f, val loss %.4f (%.3f bits per byte)\n",
                     live ? "\r\033[K" : "", static_cast<long long>(p.iter), static_cast<long long>(p.maxIters), p.trainLoss,
                     p.valLoss, p.valBitsPerByte);
    } else if (live) {
        std::fprintf(stderr, "\r\033[Kiter %lld/%lld  loss %.4f  lr %.2e  %.1f ms/iter  %.0f tokens/s",
                     static_cast<long long>(p.iter + 1), static_cast<long long>(p.maxIters), p.loss, p.lr,
                     p.msPerIter, p.tokensPerS);
    }
    std::fflush(stderr);
}

int runTrain(const std::vector<std::string> &args)
{
    if (flags::helpAsked(args)) {
        std::cout << trainUsage();
        return 0;
    }
    Result<TrainOptions> options = parseTrainOptions(args);
    if (!options) {
        std::cerr << trainUsage();
        return fail(options.error().message);
    }
    const bool live = !options->quiet && isatty(STDERR_FILENO);
    Result<TrainReport> report = train(*options, [live](const TrainProgress &p) { printProgress(p, live); });
    if (live)
        std::fputs("\n", stderr);
    if (!report)
        return fail(report.error().message);
    if (!report->sample.empty())
        std::cout << "--- sample ---\n" << report->sample << "\n--- end of sample ---\n";
    std::cout << report->toJson() << std::endl;
    return 0;
}

// tokenizer train --input FILE|DIR... --vocab-size N --out tokenizer.model; tokenizer info --model FILE.
int runTokenizer(const std::vector<std::string> &args)
{
    const std::string sub = args.empty() ? std::string() : args.front();
    const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
    if (sub == "train") {
        if (flags::helpAsked(rest)) {
            std::cout << tokenizerTrainUsage();
            return 0;
        }
        Result<TokenizerTrainOptions> options = parseTokenizerTrainOptions(rest);
        if (!options) {
            std::cerr << tokenizerTrainUsage();
            return fail(options.error().message);
        }
        Result<std::string> report = trainTokenizer(*options, [](const std::string &line) { std::cerr << line << "\n"; });
        if (!report)
            return fail(report.error().message);
        std::cout << *report << std::endl;
        return 0;
    }
    if (sub == "info") {
        std::string model, text;
        CLI::App app("Describes a SentencePiece tokenizer.model: pieces, special tokens, SHA-256, and whether SwarmTrain "
                     "accepts it.",
                     "swarmtrain-cli tokenizer info");
        flags::configure(app);
        app.add_option("--model", model, "the tokenizer.model")->type_name("FILE")->required()->check(flags::nonEmpty());
        app.add_option("--text", text, "also encode this file: its tokens, bytes per token, and whether decoding gives it "
                                       "back byte for byte")
            ->type_name("FILE")
            ->check(flags::nonEmpty());
        if (const std::optional<int> exitCode = parseFlags(app, rest))
            return *exitCode;
        Result<Tokenizer> tokenizer = Tokenizer::loadSentencePiece(model);
        if (!tokenizer)
            return fail(tokenizer.error().message);
        nlohmann::json info{{"vocab_size", tokenizer->vocabSize()}, {"eos_id", tokenizer->endOfText()},
                            {"sha256", tokenizer->sha256()}};
        if (!text.empty()) {
            Result<std::vector<std::byte>> bytes = readFileBytes(text, 1ull << 32);
            if (!bytes)
                return fail(bytes.error().message);
            const std::string_view content(reinterpret_cast<const char *>(bytes->data()), bytes->size());
            Result<std::vector<std::int32_t>> ids = tokenizer->encode(content);
            if (!ids)
                return fail(ids.error().message);
            info["text_bytes"] = content.size();
            info["text_tokens"] = ids->size();
            info["bytes_per_token"] = ids->empty() ? 0.0 : double(content.size()) / double(ids->size());
            info["round_trip"] = tokenizer->decode(*ids) == content;
        }
        std::cout << info.dump() << std::endl;
        return 0;
    }
    std::cerr << "usage: swarmtrain-cli tokenizer train|info [--help]\n";
    return fail(sub.empty() ? "tokenizer needs train or info" : "unknown tokenizer command '" + sub + "'");
}

int runSample(const std::vector<std::string> &args)
{
    if (flags::helpAsked(args)) {
        std::cout << sampleUsage();
        return 0;
    }
    Result<SampleOptions> options = parseSampleOptions(args);
    if (!options) {
        std::cerr << sampleUsage();
        return fail(options.error().message);
    }
    Result<std::string> text = sample(*options);
    if (!text)
        return fail(text.error().message);
    std::cout << *text << std::endl;
    return 0;
}

int runBench(const std::vector<std::string> &args)
{
    if (flags::helpAsked(args)) {
        std::cout << benchUsage();
        return 0;
    }
    Result<BenchOptions> options = parseBenchOptions(args);
    if (!options) {
        std::cerr << benchUsage();
        return fail(options.error().message);
    }
    Result<std::string> report = runDeviceBench(*options);
    if (!report)
        return fail(report.error().message);
    if (options->json) {
        std::cout << *report << std::endl;
        return 0;
    }
    const nlohmann::json r = nlohmann::json::parse(*report);
    std::printf("device %s, %s\n", r["device"].get<std::string>().c_str(), r["dtype"].get<std::string>().c_str());
    for (const auto &[dtype, flops] : r["matmul_flops_per_s"].items()) {
        if (dtype != "size")
            std::printf("matrix product %-9s %8.1f GFLOP/s\n", dtype.c_str(), flops.get<double>() / 1e9);
    }
    const nlohmann::json &b = r["bandwidth_bytes_per_s"];
    std::printf("copies: to device %.2f GB/s, to host %.2f GB/s, both at once %.2f + %.2f GB/s\n",
                b["host_to_device"].get<double>() / 1e9, b["device_to_host"].get<double>() / 1e9,
                b["both_host_to_device"].get<double>() / 1e9, b["both_device_to_host"].get<double>() / 1e9);
    const nlohmann::json &t = r["training"];
    for (const char *mode : {"resident", "swapped"}) {
        std::printf("training %-8s %9.1f ms/iter  %10.0f tokens/s  MFU %.1f%%\n", mode,
                    t[mode]["ms_per_iter"].get<double>(), t[mode]["tokens_per_s"].get<double>(),
                    100.0 * t[mode]["mfu"].get<double>());
    }
    std::printf("swapped/resident %.2f (%s)\n", t["swapped_over_resident"].get<double>(),
                t["swapped"]["swap_plan"].get<std::string>().c_str());
    return 0;
}

int runGpus(const std::vector<std::string> &args, const char *self)
{
    bool json = false;
    CLI::App app("Lists this machine's GPUs and whether this build can train on them.", "swarmtrain-cli gpus");
    flags::configure(app);
    app.add_flag("--json", json, "one JSON object instead of a table");
    if (const std::optional<int> exitCode = parseFlags(app, args))
        return *exitCode;
    Result<GpuReport> report = probeGpus({self, "gpu-probe-child"}, GpuProbeOptions{});
    if (!report)
        return fail(report.error().message);
    markGpusUsable(report->gpus, torchCudaDeviceCount());
    if (json) {
        std::cout << gpuReportToJson(*report) << std::endl;
        return 0;
    }
    if (report->gpus.empty())
        std::cout << "no GPUs found\n";
    for (const GpuInfo &g : report->gpus) {
        std::printf("%s  %.1f GiB (%.1f GiB free)  driver %s  %s\n", g.name.c_str(),
                    double(g.memoryTotalBytes) / double(1ull << 30), double(g.memoryFreeBytes) / double(1ull << 30),
                    g.driverVersion.empty() ? "?" : g.driverVersion.c_str(),
                    g.usable ? "usable" : ("not usable: " + g.unusableReason).c_str());
    }
    for (const std::string &warning : report->warnings)
        std::cerr << "swarmtrain-cli: warning: " << warning << "\n";
    return 0;
}

int runSchedule(const std::vector<std::string> &args)
{
    std::string input;
    double seconds = 10.0;
    std::uint64_t seed = 1;
    bool json = false;
    CLI::App app("Places devices on a pipeline grid with the DT-FM scheduler: reads a scenario (devices, delay and"
                 " bandwidth matrices, model sizes, grid) and prints the assignment and its cost terms.",
                 "swarmtrain-cli schedule");
    flags::configure(app);
    app.add_option("--input", input, "the scenario, JSON (see core/scheduler/ScenarioJson.h for the format)")
        ->type_name("FILE.json")
        ->required()
        ->check(flags::nonEmpty());
    app.add_option("--seconds", seconds, "budget of the search")->transform(flags::numberIn(0.001, 3600.0));
    app.add_option("--seed", seed, "seed of the search (the same seed, the same answer)")
        ->transform(flags::wholeNumberIn(0, (1ll << 53) - 1));
    app.add_flag("--json", json, "one JSON object instead of text");
    if (const std::optional<int> exitCode = parseFlags(app, args))
        return *exitCode;
    Result<std::vector<std::byte>> bytes = readFileBytes(input, scheduler::kMaxScenarioBytes);
    if (!bytes)
        return fail(bytes.error().message);
    Result<std::string> result = scheduler::runScheduleCommand(
        std::string(reinterpret_cast<const char *>(bytes->data()), bytes->size()), seconds, seed, json);
    if (!result)
        return fail(input + ": " + result.error().message);
    std::cout << *result << std::endl;
    return 0;
}

// export --state FILE --format hf|gguf --out PATH: the state as a Hugging Face model folder or a GGUF file.
int runExport(const std::vector<std::string> &args)
{
    ExportOptions o;
    std::string state, out, format = "hf";
    CLI::App app("Exports a checkpoint or a swarm state as a Hugging Face model folder (config.json, model.safetensors, "
                 "the tokenizer and a model card) that transformers loads as LlamaForCausalLM or GPT2LMHeadModel, or as "
                 "a GGUF file for llama.cpp, Ollama and LM Studio.",
                 "swarmtrain-cli export");
    flags::configure(app);
    app.add_option("--state", state, "the checkpoint or swarm state to export")
        ->type_name("FILE")
        ->required()
        ->check(flags::nonEmpty());
    app.add_option("--format", format, "hf: a Hugging Face model folder; gguf: one GGUF file")
        ->check(flags::oneOf({"hf", "gguf"}));
    app.add_option("--out", out, "the folder (hf) or file (gguf) to create; it must not exist")->type_name("PATH")->required()->check(flags::nonEmpty());
    app.add_option("--dtype", o.dtype, "the tensors' type")->check(flags::oneOf({"float32", "bfloat16", "float16"}));
    app.add_option("--license", o.license, "the model card's licence, as the Hugging Face Hub names them")
        ->check(flags::nonEmpty());
    app.add_option("--name", o.name, "the model card's title (the folder's name when not given)");
    if (const std::optional<int> exitCode = parseFlags(app, args))
        return *exitCode;
    o.state = state;
    o.out = out;
    Result<ExportReport> report = format == "gguf" ? exportGguf(o) : exportHuggingFace(o);
    if (!report)
        return fail(report.error().message);
    std::cout << exportReportJson(*report) << std::endl;
    return 0;
}

// generate --state FILE|--swarm URL --prompt TEXT: the model's continuation, printed as it comes.
int runGenerate(const std::vector<std::string> &args)
{
    GenerateOptions o;
    std::string state, swarm, device = "auto";
    int threads = 0;
    bool json = false;
    CLI::App app("Continues a prompt with a checkpoint's or a swarm's model, token by token on a key/value cache, "
                 "printing the text as it comes.",
                 "swarmtrain-cli generate");
    flags::configure(app);
    CLI::Option *stateFlag = app.add_option("--state", state, "a checkpoint or swarm state")->type_name("FILE");
    app.add_option("--swarm", swarm, "a coordinator's URL: its swarm's current state")
        ->type_name("URL")
        ->excludes(stateFlag);
    app.add_option("--prompt", o.prompt, "the text to continue (empty: a new document)");
    app.add_option("--max-tokens", o.maxTokens, "tokens to generate at most")->transform(flags::wholeNumberIn(1, 1 << 20));
    app.add_option("--temperature", o.temperature, "0: always the most likely token")->transform(flags::numberIn(0, 100));
    app.add_option("--top-k", o.topK, "sample among the k most likely tokens (0: all)")
        ->transform(flags::wholeNumberIn(0, 1 << 30));
    app.add_option("--top-p", o.topP, "...and among the fewest whose probabilities add up to p")
        ->transform(flags::numberIn(1e-9, 1));
    app.add_option("--seed", o.seed, "seed of the sampling")->transform(flags::wholeNumberIn(0, (1ll << 53) - 1));
    app.add_option("--device", device, "auto, cpu, cuda or cuda:N");
    app.add_option("--threads", threads, "CPU threads (0: the cores available)")->transform(flags::wholeNumberIn(0, 1024));
    app.add_flag("--json", json, "print one JSON object (the text and the speed) at the end instead of the text as it comes");
    if (const std::optional<int> exitCode = parseFlags(app, args))
        return *exitCode;
    if (state.empty() == swarm.empty())
        return fail("give --state FILE or --swarm URL");
    // A swarm's state goes to a temporary file, removed on the way out.
    const std::filesystem::path downloaded =
        std::filesystem::temp_directory_path() / ("swarmtrain-generate-" + std::to_string(::getpid()) + ".safetensors");
    const std::unique_ptr<const std::filesystem::path, void (*)(const std::filesystem::path *)> removeDownloaded(
        swarm.empty() ? nullptr : &downloaded, [](const std::filesystem::path *file) {
            std::error_code ignored;
            std::filesystem::remove(*file, ignored);
        });
    if (!swarm.empty()) {
        if (Result<void> got = downloadSwarmState(swarm, downloaded); !got)
            return fail(swarm + ": " + got.error().message);
        state = downloaded.string();
    }
    configureThreads(threads);
    Result<GenerateReport> report = generateFromState(state, device, o, [&](const std::string &text) {
        if (!json)
            std::cout << text << std::flush;
        return true;
    });
    if (!report)
        return fail(report.error().message);
    const nlohmann::json summary{{"prompt_tokens", report->promptTokens}, {"tokens", report->tokens},
                                 {"tokens_per_s", report->tokensPerSecond}, {"seconds", report->seconds},
                                 {"stopped", report->stopped},          {"device", report->device}};
    if (json) {
        nlohmann::json all = summary;
        all["text"] = report->text;
        // A model may well generate bytes that are not UTF-8: JSON carries them as U+FFFD.
        std::cout << all.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    } else {
        std::cout << std::endl;
        std::cerr << summary.dump() << std::endl;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    // Each command parses its own flags (a value such as `--prompt train` must not look like a
    // command), so this App only lists them for --help.
    CLI::App app("Drives the SwarmTrain engine directly: reference training, sampling, device benchmark, GPUs.",
                 "swarmtrain-cli");
    flags::configure(app);
    app.footer("Run 'swarmtrain-cli <command> --help' for a command's options.");
    app.add_subcommand("train", "train a GPT or a Llama on a text file or folder (single machine)");
    app.add_subcommand("tokenizer", "train a SentencePiece BPE tokenizer (tokenizer train), or describe one (tokenizer info)");
    app.add_subcommand("sample", "generate text from a checkpoint folder (swarmtrain-cli train --out)");
    app.add_subcommand("generate", "continue a prompt with a checkpoint's or a swarm's model, on a key/value cache");
    app.add_subcommand("export", "write a checkpoint or swarm state as a Hugging Face model folder or a GGUF file");
    app.add_subcommand("bench", "measure this machine's device: FLOP/s, copy bandwidth, training speed");
    app.add_subcommand("gpus", "list this machine's GPUs");
    app.add_subcommand("schedule", "place devices on a pipeline grid from a scenario (the DT-FM scheduler)");
    for (const auto &[name, what] : controlCommands())
        app.add_subcommand(name, what + " (a running client)");

    if (argc < 2) {
        std::cerr << app.help();
        return 2;
    }
    const std::string command = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    try {
        if (command == "train")
            return runTrain(args);
        if (command == "sample")
            return runSample(args);
        if (command == "tokenizer")
            return runTokenizer(args);
        if (command == "export")
            return runExport(args);
        if (command == "generate")
            return runGenerate(args);
        if (command == "bench")
            return runBench(args);
        if (command == "gpus")
            return runGpus(args, "/proc/self/exe");
        if (command == "schedule")
            return runSchedule(args);
        if (std::optional<int> controlled = runControlCommand(command, args))
            return *controlled;
        if (command == "gpu-probe-child") // hidden: the probe's child process
            return runGpuProbeChild(argc - 2, argv + 2);
        if (command == "--help" || command == "-h" || command == "help") {
            std::cout << app.help();
            return 0;
        }
    } catch (const std::exception &e) {
        return fail(std::string("internal error: ") + e.what());
    }
    std::cerr << app.help();
    return fail("unknown command '" + command + "'");
}
