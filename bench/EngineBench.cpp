// The engine's micro and step benchmarks (Google Benchmark). Figures only, never pass/fail:
//   swarmtrain_engine_bench --benchmark_format=json
// Matmul: FLOP/s of an fp32 matrix product through LibTorch, the ceiling a training step can
// approach. TrainStep: one optimizer step (forward, backward across the cores, fused AdamW) of
// the shakespeare_char model and of a larger one, as tokens/s and model FLOP/s. Gelu and
// CausalAttention: the engine's kernels next to LibTorch's own operators.
#include "AdamW.h"
#include "FlatParameters.h"
#include "Attention.h"
#include "Decoder.h"
#include "Layers.h"
#include "ParallelStep.h"
#include "Trainer.h"

#include <benchmark/benchmark.h>

#include <thread>

using namespace swarmtrain;

namespace {

void matmul(benchmark::State &state)
{
    const std::int64_t n = state.range(0);
    const torch::Tensor a = torch::randn({n, n}), b = torch::randn({n, n});
    for (auto _ : state)
        benchmark::DoNotOptimize(torch::mm(a, b).data_ptr());
    state.counters["flops_per_s"] = benchmark::Counter(2.0 * double(n * n * n), benchmark::Counter::kIsIterationInvariantRate);
}

void trainStep(benchmark::State &state, int nLayer, int nHead, int nEmbd, int blockSize)
{
    ModelConfig config;
    config.vocabSize = 65;
    config.nLayer = nLayer;
    config.nHead = nHead;
    config.nEmbd = nEmbd;
    config.blockSize = blockSize;
    const int batch = 12;
    torch::manual_seed(1);
    Decoder model(config);
    FlatParameters parameters(model->namedParameters());
    AdamW optimizer(parameters, AdamWOptions{});
    const torch::Tensor tokens = torch::randint(0, config.vocabSize, {batch, blockSize}, torch::kLong);
    const torch::Tensor targets = torch::randint(0, config.vocabSize, {batch, blockSize}, torch::kLong);
    for (auto _ : state) {
        benchmark::DoNotOptimize(forwardBackward(*model, tokens, targets));
        optimizer.step(1e-3, 1.0);
        parameters.zeroGrad();
    }
    const double tokensPerStep = double(batch) * blockSize;
    state.counters["tokens_per_s"] = benchmark::Counter(tokensPerStep, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["model_flops_per_s"] =
        benchmark::Counter(tokensPerStep * config.flopsPerToken(), benchmark::Counter::kIsIterationInvariantRate);
}

void geluEngine(benchmark::State &state)
{
    const torch::Tensor x = torch::randn({12 * 64, 512}, torch::requires_grad());
    for (auto _ : state) {
        torch::Tensor y = fastGelu(x);
        y.backward(torch::ones_like(y));
    }
}

void geluTorch(benchmark::State &state)
{
    const torch::Tensor x = torch::randn({12 * 64, 512}, torch::requires_grad());
    for (auto _ : state) {
        torch::Tensor y = torch::gelu(x);
        y.backward(torch::ones_like(y));
    }
}

void causalAttention(benchmark::State &state, bool engine)
{
    const std::int64_t batch = 12, t = 64, c = 128, heads = 4;
    const torch::Tensor qkv = torch::randn({batch, t, 3 * c}, torch::requires_grad());
    for (auto _ : state) {
        torch::Tensor y;
        if (engine) {
            y = causalSelfAttention(qkv, heads, 0.0);
        } else {
            // nanoGPT's composite: split heads, scores, mask, softmax, weighted values.
            const auto parts = qkv.split(c, 2);
            auto heads4 = [&](const torch::Tensor &m) { return m.view({batch, t, heads, c / heads}).transpose(1, 2); };
            const torch::Tensor q = heads4(parts[0]), k = heads4(parts[1]), v = heads4(parts[2]);
            torch::Tensor att = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(c / heads));
            att = att.masked_fill(torch::ones({t, t}, torch::kBool).triu(1), -INFINITY).softmax(-1);
            y = torch::matmul(att, v).transpose(1, 2).contiguous().view({batch, t, c});
        }
        y.backward(torch::ones_like(y));
    }
}

} // namespace

BENCHMARK(matmul)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(trainStep, shakespeare_char_4x128_block64, 4, 4, 128, 64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(trainStep, gpt_6x384_block256, 6, 6, 384, 256)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(5.0);
BENCHMARK(geluEngine)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(geluTorch)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(causalAttention, engine, true)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(causalAttention, torch_composite, false)->Unit(benchmark::kMicrosecond)->UseRealTime();

int main(int argc, char **argv)
{
    configureThreads(0);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
