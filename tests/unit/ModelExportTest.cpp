// swarmtrain-cli export's Hugging Face folder, checked by code that is not SwarmTrain's:
// tests/reference/hf_export_check.py reads model.safetensors with Python's standard library,
// holds every tensor's name, shape and dtype against the published LlamaForCausalLM /
// GPT2LMHeadModel layout that config.json implies, runs a plain PyTorch forward pass from the
// folder's files and compares its logits with the engine's (1e-5), and loads tokenizer.model in
// Debian's python3-sentencepiece. And the bad input: an existing or unwritable destination, a
// truncated or lying state, a write that fails half way: clear errors, nothing left behind.
#include "Checkpoint.h"
#include "ChildProcess.h"
#include "Decoder.h"
#include "FileIo.h"
#include "ModelExport.h"
#include "Sha256.h"
#include "TempDir.h"
#include "TinyGpt.h"
#include "Tokenizer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <random>
#include <regex>
#include <sys/resource.h>

using namespace swarmtrain;

namespace {

constexpr const char *kPython = "/usr/bin/python3";

bool pythonHas(const char *module)
{
    return std::system((std::string(kPython) + " -c 'import " + module + "' >/dev/null 2>&1").c_str()) == 0;
}

// A small SentencePiece BPE (Llama 2's settings), trained once for the suite.
const Tokenizer &sentencePiece()
{
    static const Tokenizer tokenizer = [] {
        std::mt19937 rng(5);
        const char *words[] = {"the", "swarm", "trains", "a", "model", "on", "volunteers'", "computers", "and", "exports",
                               "it", "for", "everyone", "to", "use", "tokens", "bits", "per", "byte"};
        int line = 0;
        SentencePieceTraining options;
        options.vocabSize = 400;
        const Result<std::string> model = trainSentencePiece(options, [&](std::string &out) {
            if (line++ == 3000)
                return false;
            out.clear();
            for (int w = 0; w < 12; ++w)
                out += std::string(w ? " " : "") + words[rng() % std::size(words)];
            out += ".";
            return true;
        });
        EXPECT_TRUE(model.ok()) << model.error().message;
        Result<Tokenizer> t = Tokenizer::fromSentencePiece(model.ok() ? *model : std::string());
        EXPECT_TRUE(t.ok()) << t.error().message;
        return t.ok() ? std::move(t).value() : Tokenizer::byteLevel();
    }();
    return tokenizer;
}

std::span<const std::byte> bytesOf(const torch::Tensor &t)
{
    return {static_cast<const std::byte *>(t.data_ptr()), std::size_t(t.nbytes())};
}

// A model whose weights are far from their initial values (norms away from one, matrices five
// times the initial scale), so a misplaced or transposed tensor shows in the logits.
Decoder scrambledModel(const ModelConfig &config)
{
    torch::manual_seed(7);
    Decoder model(config);
    torch::NoGradGuard noGrad;
    for (auto &[name, p] : model->namedParameters()) {
        const bool norm = name.ends_with("norm.weight") || name.find(".ln_") != std::string::npos;
        p.copy_(norm && name.ends_with(".weight") ? 1.0 + 0.3 * torch::randn_like(p) : 0.1 * torch::randn_like(p));
    }
    return model;
}

struct Exported {
    test::TempDir dir;
    std::filesystem::path state;
    std::filesystem::path engine; // input.tokens, engine.logits, input.text_ids; metadata text
};

// Saves `model` as a checkpoint and writes what the engine computes for the checker to compare.
void prepare(Exported &e, Decoder &model, const Tokenizer &tokenizer)
{
    e.state = e.dir.path() / "state.safetensors";
    TrainingState state;
    state.iter = 300;
    state.valLoss = 2.5;
    ASSERT_TRUE(saveCheckpoint(e.state, *model, nullptr, tokenizer, state).ok());
    const ModelConfig &c = model->config();
    torch::NoGradGuard noGrad;
    const torch::Tensor tokens = torch::randint(0, c.vocabSize, {2, c.blockSize}, torch::kLong);
    const torch::Tensor logits = model->forward(tokens).contiguous();
    TensorContainerWriter writer;
    writer.addTensor("input.tokens", DType::I64, tokens.sizes().vec(), bytesOf(tokens));
    writer.addTensor("engine.logits", DType::F32, logits.sizes().vec(), bytesOf(logits));
    const std::string text = "the swarm exports a model for everyone to use, 42 times over";
    writer.setMetadata("text", text);
    if (tokenizer.kind() == TokenizerKind::SentencePiece) {
        const std::vector<std::int32_t> ids = tokenizer.encode(text).value();
        writer.addTensor("input.text_ids", DType::I32, {std::int64_t(ids.size())}, std::as_bytes(std::span(ids)));
    }
    e.engine = e.dir.path() / "engine.safetensors";
    ASSERT_TRUE(writeFileAtomically(e.engine, writer.finish()).ok());
}

// Runs a checker of tests/reference with `args`; its JSON report.
nlohmann::json runChecker(const Exported &e, const std::string &script, const std::vector<std::string> &args)
{
    std::vector<std::string> all{SWARMTRAIN_SOURCE_DIR "/tests/reference/" + script};
    all.insert(all.end(), args.begin(), args.end());
    test::ChildProcess python;
    EXPECT_TRUE(python.start(kPython, all, e.dir.path() / "check.out", e.dir.path() / "check.err"));
    const int status = python.waitForExit(std::chrono::minutes(5));
    const std::string report = python.output();
    std::cout << std::filesystem::path(args.front()).filename().string() << ": " << report;
    EXPECT_EQ(status, 0) << report << python.errors();
    const nlohmann::json json = nlohmann::json::parse(report, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << report << python.errors();
    return json.is_discarded() ? nlohmann::json::object() : json;
}

// tests/reference/hf_export_check.py on a folder.
nlohmann::json check(const Exported &e, const std::filesystem::path &folder, std::vector<std::string> extra = {})
{
    std::vector<std::string> args{folder.string(), e.engine.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return runChecker(e, "hf_export_check.py", args);
}

struct Case {
    const char *name;
    ModelConfig config;
    bool sentencePiece;
};

void PrintTo(const Case &c, std::ostream *out) { *out << c.name; }

class ModelExportTest : public ::testing::TestWithParam<Case> {};

TEST_P(ModelExportTest, TheFolderHasTheirLayoutAndGivesTheEnginesLogitsInPlainPyTorch)
{
    if (!pythonHas("torch") || !pythonHas("sentencepiece"))
        GTEST_SKIP() << "needs " << kPython << " with torch and sentencepiece (installer/install-deps.sh installs them)";
    const Case &c = GetParam();
    const Tokenizer tokenizer = c.sentencePiece ? sentencePiece() : Tokenizer::byteLevel();
    ModelConfig config = c.config;
    config.vocabSize = tokenizer.vocabSize();
    Decoder model = scrambledModel(config);
    Exported e;
    prepare(e, model, tokenizer);

    ExportOptions options;
    options.state = e.state;
    options.out = e.dir.path() / "hf";
    options.license = "apache-2.0";
    options.name = "SwarmTrain test model";
    const Result<ExportReport> report = exportHuggingFace(options);
    ASSERT_TRUE(report.ok()) << report.error().message;
    const nlohmann::json checked = check(e, e.dir.path() / "hf");
    EXPECT_TRUE(checked.value("ok", false)) << checked.dump();
    EXPECT_LE(checked.value("logits_max_abs_diff", 1.0), 1e-5);
    EXPECT_GT(checked.value("logits_max_abs", 0.0), 1.0); // logits worth comparing
    if (c.sentencePiece) {
        EXPECT_TRUE(checked.value("tokenizer_ids_equal", false));
        EXPECT_TRUE(checked.value("special_tokens_agree", false));
    }

    // The report lists each file with its size and hash, as written.
    for (const ExportedFile &f : report->files) {
        const std::filesystem::path file = e.dir.path() / "hf" / f.name;
        EXPECT_EQ(std::filesystem::file_size(file), f.bytes) << f.name;
        EXPECT_EQ(Sha256::hexOfFile(file).value(), f.sha256) << f.name;
    }
    // config.json is a config the engine itself takes back (a host can paste it into a swarm).
    if (config.isLlama()) {
        const std::vector<std::byte> json = readFileBytes(e.dir.path() / "hf" / "config.json", 1 << 20).value();
        const Result<ModelConfig> back = ModelConfig::fromJson(std::string(reinterpret_cast<const char *>(json.data()), json.size()));
        ASSERT_TRUE(back.ok()) << back.error().message;
        EXPECT_EQ(*back, config);
    }
    // The model card states what the state records.
    const std::vector<std::byte> card = readFileBytes(e.dir.path() / "hf" / "README.md", 1 << 20).value();
    const std::string cardText(reinterpret_cast<const char *>(card.data()), card.size());
    EXPECT_NE(cardText.find("license: apache-2.0"), std::string::npos) << cardText;
    EXPECT_NE(cardText.find("| Parameters | " + std::to_string(config.parameterCount()) + " |"), std::string::npos)
        << cardText;
    EXPECT_NE(cardText.find("| Training iterations | 300 |"), std::string::npos) << cardText;

    // bfloat16: the same tensors, each the float32 one rounded.
    options.out = e.dir.path() / "hf-bf16";
    options.dtype = "bfloat16";
    ASSERT_TRUE(exportHuggingFace(options).ok());
    const nlohmann::json rounded = check(e, e.dir.path() / "hf-bf16", {"--same-as", (e.dir.path() / "hf").string()});
    EXPECT_TRUE(rounded.value("ok", false)) << rounded.dump();

    // GGUF, in float32 and bfloat16: the float32 folder's tensors as llama.cpp's converter makes them.
    for (const char *dtype : {"float32", "bfloat16"}) {
        options.out = e.dir.path() / (std::string("model-") + dtype + ".gguf");
        options.dtype = dtype;
        const Result<ExportReport> gguf = exportGguf(options);
        if (!c.sentencePiece) {
            ASSERT_FALSE(gguf.ok());
            EXPECT_NE(gguf.error().message.find("llama.cpp has no such tokenizer"), std::string::npos)
                << gguf.error().message;
            EXPECT_FALSE(std::filesystem::exists(options.out));
            continue;
        }
        ASSERT_TRUE(gguf.ok()) << gguf.error().message;
        const nlohmann::json checked = runChecker(e, "gguf_check.py", {options.out.string(), (e.dir.path() / "hf").string()});
        EXPECT_TRUE(checked.value("ok", false)) << checked.dump();
        EXPECT_EQ(checked.value("version", 0), 3);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Families, ModelExportTest,
    ::testing::Values(Case{"llama-gqa-tied", test::tinyLlamaConfig(0, 2, 4, 2, 32, 88, 24, true), true},
                      Case{"llama-mha-untied", test::tinyLlamaConfig(0, 2, 4, 4, 32, 64, 16, false), true},
                      Case{"gpt-bytes-no-bias", test::tinyGptConfig(0, 2, 4, 32, 16), false},
                      Case{"gpt-sentencepiece-bias",
                           [] {
                               ModelConfig c = test::tinyGptConfig(0, 2, 2, 32, 16);
                               c.bias = true;
                               return c;
                           }(),
                           true}),
    [](const ::testing::TestParamInfo<Case> &info) {
        std::string name = info.param.name;
        std::replace(name.begin(), name.end(), '-', '_');
        return name;
    });

// Nothing of an export that failed is left: no destination, no temporary folder beside it.
void expectNothingLeft(const std::filesystem::path &parent, const std::filesystem::path &out)
{
    EXPECT_FALSE(std::filesystem::exists(out));
    for (const auto &entry : std::filesystem::directory_iterator(parent))
        EXPECT_EQ(entry.path().filename().string().find(".partial"), std::string::npos) << entry.path();
}

TEST(ModelExportBadInputTest, RefusesWithAClearErrorAndLeavesNothingBehind)
{
    Exported e;
    Decoder model = scrambledModel(test::tinyLlamaConfig(256, 1, 2, 1, 16, 32, 8));
    prepare(e, model, Tokenizer::byteLevel());
    const std::filesystem::path out = e.dir.path() / "out";
    const auto options = [](std::filesystem::path state, std::filesystem::path to, std::string dtype = "float32") {
        ExportOptions o;
        o.state = std::move(state);
        o.out = std::move(to);
        o.dtype = std::move(dtype);
        return o;
    };
    const auto refusal = [&](const ExportOptions &o) {
        const Result<ExportReport> r = exportHuggingFace(o);
        EXPECT_FALSE(r.ok());
        return r.ok() ? std::string() : r.error().message;
    };

    // The destination exists: never replaced.
    std::filesystem::create_directory(out);
    EXPECT_NE(refusal(options(e.state, out)).find("already exists"), std::string::npos);
    const Result<ExportReport> overGguf = exportGguf(options(e.state, e.state)); // nor is a file
    ASSERT_FALSE(overGguf.ok());
    EXPECT_NE(overGguf.error().message.find("already exists"), std::string::npos);
    std::filesystem::remove(out);
    // Its parent is not a folder (here, a file).
    EXPECT_NE(refusal(options(e.state, e.state / "hf")).find("is not a folder"), std::string::npos);
    EXPECT_NE(refusal(options(e.state, out, "int8")).find("--dtype"), std::string::npos);

    // A truncated state, and one whose bytes no longer match its SHA-256: refused before a model is built.
    const std::vector<std::byte> bytes = readFileBytes(e.state, 1 << 30).value();
    const std::filesystem::path truncated = e.dir.path() / "truncated.safetensors";
    ASSERT_TRUE(writeFileAtomically(truncated, std::span(bytes).first(bytes.size() / 2)).ok());
    EXPECT_NE(refusal(options(truncated, out)).find("truncated.safetensors"), std::string::npos);
    std::vector<std::byte> lying = bytes;
    lying[lying.size() - 10] ^= std::byte{0x40}; // a weight's bits
    const std::filesystem::path forged = e.dir.path() / "forged.safetensors";
    ASSERT_TRUE(writeFileAtomically(forged, lying).ok());
    EXPECT_NE(refusal(options(forged, out)).find("SHA-256"), std::string::npos) << refusal(options(forged, out));
    // A file that is sound but not the one its record names (the coordinator's check).
    ExportOptions recorded = options(e.state, out);
    recorded.expectedSha256 = std::string(64, '0');
    EXPECT_NE(refusal(recorded).find("does not hash to its record"), std::string::npos);
    expectNothingLeft(e.dir.path(), out);

    // The disk fills up half way: files may grow to 4 KiB here, less than model.safetensors.
    // (RLIMIT_FSIZE stands in for a full disk: the write fails with EFBIG, as ENOSPC would.)
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit before{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
    rlimit small = before;
    small.rlim_cur = 4096;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    const std::string full = refusal(options(e.state, out));
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &before), 0);
    EXPECT_NE(full.find("cannot write the export"), std::string::npos) << full;
    expectNothingLeft(e.dir.path(), out);

    // And then it works.
    const Result<ExportReport> r = exportHuggingFace(options(e.state, out));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(std::filesystem::exists(out / "model.safetensors"));
    EXPECT_TRUE(std::filesystem::exists(out / "swarmtrain_vocabulary.json"));
}

} // namespace
