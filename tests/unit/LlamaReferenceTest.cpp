// The engine's Llama family against an implementation that is not its code: bench/llama_reference.py,
// plain PyTorch written from the published architecture, run by tests/reference/llama_parity.py
// on the weights, tokens and results this test writes. Logits, loss and every gradient agree to
// 1e-5 in float32: grouped-query and multi-head attention, tied and untied heads, rotary
// embeddings at positions past 1,000.
#include "ChildProcess.h"
#include "Decoder.h"
#include "TempDir.h"
#include "TensorContainer.h"
#include "TinyGpt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>

using namespace swarmtrain;

namespace {

constexpr const char *kPython = "/usr/bin/python3";

bool pythonHasTorch()
{
    static const bool has = std::system((std::string(kPython) + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0;
    return has;
}

std::span<const std::byte> bytesOf(const torch::Tensor &t)
{
    return {static_cast<const std::byte *>(t.data_ptr()), std::size_t(t.numel() * t.element_size())};
}

void add(TensorContainerWriter &writer, const std::string &name, const torch::Tensor &tensor)
{
    const torch::Tensor t = tensor.detach().contiguous();
    writer.addTensor(name, t.scalar_type() == torch::kLong ? DType::I64 : DType::F32, t.sizes().vec(), bytesOf(t));
}

struct Case {
    const char *name;
    ModelConfig config;
    int batch;
    int tokens;
};

void PrintTo(const Case &c, std::ostream *out) { *out << c.name; }

class LlamaReferenceTest : public ::testing::TestWithParam<Case> {};

TEST_P(LlamaReferenceTest, LogitsLossAndGradientsMatchAPlainPyTorchLlama)
{
    if (!pythonHasTorch())
        GTEST_SKIP() << "needs " << kPython << " with torch (Debian's python3-torch; installer/install-deps.sh installs it)";
    const Case &c = GetParam();
    torch::manual_seed(3);
    Decoder model(c.config);
    {
        // Norm weights away from one and matrices five times the initial scale, so a misplaced
        // or transposed weight shows.
        torch::NoGradGuard noGrad;
        for (auto &[name, p] : model->namedParameters())
            p.copy_(name.ends_with("norm.weight") ? 1.0 + 0.3 * torch::randn_like(p) : 0.1 * torch::randn_like(p));
    }
    const torch::Tensor tokens = torch::randint(0, c.config.vocabSize, {c.batch, c.tokens}, torch::kLong);
    const torch::Tensor targets = torch::randint(0, c.config.vocabSize, {c.batch, c.tokens}, torch::kLong);
    const torch::Tensor logits = model->forward(tokens);
    const torch::Tensor loss = DecoderImpl::loss(logits, targets);
    loss.backward();

    TensorContainerWriter writer;
    writer.setMetadata("config", c.config.toJson());
    for (const auto &[name, p] : model->namedParameters()) {
        add(writer, name, p);
        ASSERT_TRUE(p.grad().defined()) << name;
        add(writer, "engine.grad." + name, p.grad());
    }
    add(writer, "input.tokens", tokens);
    add(writer, "input.targets", targets);
    add(writer, "engine.logits", logits);
    add(writer, "engine.loss", loss.reshape({1}));
    test::TempDir dir;
    const std::filesystem::path file = dir.path() / "case.safetensors";
    {
        const std::vector<std::byte> bytes = writer.finish();
        std::ofstream out(file, std::ios::binary);
        out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
    }

    test::ChildProcess python;
    ASSERT_TRUE(python.start(kPython, {SWARMTRAIN_SOURCE_DIR "/tests/reference/llama_parity.py", file.string()},
                             dir.path() / "out", dir.path() / "err"));
    const int status = python.waitForExit(std::chrono::minutes(5));
    const std::string report = python.output();
    std::cout << c.name << ": " << report;
    EXPECT_EQ(status, 0) << report << python.errors();
    // The report's figures, so a failure shows which one broke.
    for (const char *figure : {"logits_max_abs_diff", "loss_abs_diff", "grad_max_abs_diff"}) {
        std::smatch match;
        ASSERT_TRUE(std::regex_search(report, match, std::regex(std::string("\"") + figure + "\": ([0-9.e+-]+)")))
            << figure << " missing: " << report << python.errors();
        EXPECT_LE(std::stod(match[1].str()), 1e-5) << figure;
    }
}

ModelConfig withTheta(ModelConfig c, double theta)
{
    c.ropeTheta = theta;
    return c;
}

INSTANTIATE_TEST_SUITE_P(
    Families, LlamaReferenceTest,
    ::testing::Values(
        // Grouped-query attention (2 query heads a key/value head), tied head, 1,040 positions.
        Case{"gqa-tied-long", test::tinyLlamaConfig(61, 2, 4, 2, 32, 88, 1040, true), 1, 1040},
        // Multi-head attention, untied head, two sequences.
        Case{"mha-untied", test::tinyLlamaConfig(53, 2, 4, 4, 32, 64, 48, false), 2, 48},
        // One key/value head for all (multi-query), untied, Llama 3's rotary base.
        Case{"mqa-untied-theta", withTheta(test::tinyLlamaConfig(47, 1, 4, 1, 32, 96, 40, false), 500000.0), 3, 40}),
    [](const ::testing::TestParamInfo<Case> &info) {
        std::string name = info.param.name;
        std::replace(name.begin(), name.end(), '-', '_');
        return name;
    });

} // namespace
