#include "SwappingExecutor.h"

#include "AdamW.h"
#include "ParallelStep.h"
#include "TinyGpt.h"
#include "TrainingStep.h"
#include "kernels/ParallelFor.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

using namespace swarmtrain;

namespace {

constexpr int kVocab = 13;
constexpr int kBatch = 6;
constexpr int kSteps = 4;

ModelConfig config(double dropout = 0.0)
{
    ModelConfig c = test::tinyGptConfig(kVocab, 3, 2, 16, 8);
    c.dropout = dropout;
    return c;
}

struct Trajectory {
    std::vector<double> losses;
    torch::Tensor parameters;
    torch::Tensor expAvgSq;
};

using ForwardBackward =
    std::function<double(Decoder &, FlatParameters &, const torch::Tensor &, const torch::Tensor &)>;

// The same few AdamW steps on the same batches; `forwardBackward` is resident or swapped, and
// `optimizerStep` (AdamW::step when empty) steps the optimizer.
Trajectory train(const ModelConfig &c, const ForwardBackward &forwardBackwardStep,
                 const std::function<void(AdamW &)> &optimizerStep = {})
{
    torch::manual_seed(3);
    Decoder model(c);
    FlatParameters flat(model->namedParameters());
    AdamW optimizer(flat, {0.9, 0.95, 1e-8, 0.1});
    at::Generator batches = at::detail::createCPUGenerator(11);
    Trajectory t;
    for (int step = 0; step < kSteps; ++step) {
        const torch::Tensor x = torch::randint(0, kVocab, {kBatch, c.blockSize}, batches, torch::kLong);
        const torch::Tensor y = torch::randint(0, kVocab, {kBatch, c.blockSize}, batches, torch::kLong);
        t.losses.push_back(forwardBackwardStep(model, flat, x, y));
        if (optimizerStep)
            optimizerStep(optimizer);
        else
            optimizer.step(1e-2, 1.0);
        flat.zeroGrad();
    }
    t.parameters = flat.values().clone();
    t.expAvgSq = optimizer.expAvgSq().clone();
    return t;
}

Trajectory trainResident(const ModelConfig &c)
{
    return train(c, [](Decoder &model, FlatParameters &, const torch::Tensor &x, const torch::Tensor &y) {
        return forwardBackward(*model, x, y);
    });
}

// Swapped on `device` with the plan `makePlan` gives for the executor, which also steps the
// optimizer where that plan places it.
Trajectory trainSwapped(const ModelConfig &c, const torch::Device &device,
                        const std::function<SwapPlan(SwappingExecutor &)> &makePlan, SwapTraffic *traffic = nullptr)
{
    std::unique_ptr<SwappingExecutor> executor;
    Trajectory t = train(
        c,
        [&](Decoder &model, FlatParameters &flat, const torch::Tensor &x, const torch::Tensor &y) {
            if (!executor) {
                executor = std::make_unique<SwappingExecutor>(*model, flat, device, ComputeDtype::Float32);
                executor->setPlan(makePlan(*executor));
            }
            return executor->forwardBackward(x.to(device), y.to(device));
        },
        [&](AdamW &optimizer) { executor->optimizerStep(optimizer, 1e-2, 1.0); });
    if (traffic)
        *traffic = executor->traffic();
    return t;
}

void expectSameTrajectory(const Trajectory &swapped, const Trajectory &resident, const std::string &what)
{
    ASSERT_EQ(swapped.losses.size(), resident.losses.size());
    for (std::size_t i = 0; i < swapped.losses.size(); ++i)
        EXPECT_EQ(swapped.losses[i], resident.losses[i]) << what << ", step " << i;
    EXPECT_TRUE(torch::equal(swapped.parameters, resident.parameters))
        << what << ": max difference " << (swapped.parameters - resident.parameters).abs().max().item<float>();
    EXPECT_TRUE(torch::equal(swapped.expAvgSq, resident.expAvgSq)) << what;
}

// Within float32 rounding of the resident run: the tensor operations a device runs round
// differently from the fused CPU kernel. Each step moves a weight by about lr (1e-2), so an
// absolute 1e-6 is still a thousandth of one update.
void expectCloseTrajectory(const Trajectory &swapped, const Trajectory &resident, const std::string &what)
{
    ASSERT_EQ(swapped.losses.size(), resident.losses.size());
    for (std::size_t i = 0; i < swapped.losses.size(); ++i)
        EXPECT_NEAR(swapped.losses[i], resident.losses[i], 1e-5 * std::abs(resident.losses[i]))
            << what << ", step " << i;
    EXPECT_TRUE(torch::allclose(swapped.parameters, resident.parameters, 1e-5, 1e-6))
        << what << ": max difference " << (swapped.parameters - resident.parameters).abs().max().item<float>();
    EXPECT_TRUE(torch::allclose(swapped.expAvgSq, resident.expAvgSq, 1e-5, 1e-10)) << what;
}

SwapPlan withOptimizerOn(SwapPlan plan, OptimizerPlacement placement, int onlyGroup = -1)
{
    for (int g = 0; g < int(plan.groups.size()); ++g) {
        if (onlyGroup < 0 || g == onlyGroup)
            plan.groups[std::size_t(g)].optimizer = placement;
    }
    return plan;
}

SwapPlan twoGroupsPrefetching(SwappingExecutor &executor)
{
    const std::vector<std::int64_t> &bytes = executor.stageBytes();
    SwapPlan plan;
    const int stages = int(bytes.size());
    plan.groups = {{0, stages / 2 - 1, 0}, {stages / 2, stages - 1, 0}};
    plan.prefetch = true;
    return plan;
}

class SwappingExecutorTest : public ::testing::Test {
protected:
    void TearDown() override { kernels::setParallelThreads(int(std::max(1u, std::thread::hardware_concurrency()))); }
};

} // namespace

TEST_F(SwappingExecutorTest, SwappedTrainingGivesTheResidentNumbersBitForBit)
{
    // nanoGPT's GPT, and the Llama family with a tied and with an untied head.
    const std::pair<const char *, ModelConfig> models[] = {
        {"gpt", config()},
        {"llama tied", test::tinyLlamaConfig(kVocab, 3, 2, 1, 16, 40, 8, true)},
        {"llama untied", test::tinyLlamaConfig(kVocab, 3, 2, 2, 16, 40, 8, false)},
    };
    for (const auto &[family, c] : models) {
        for (const int threads : {1, 3}) {
            kernels::setParallelThreads(threads);
            const Trajectory resident = trainResident(c);
            const std::string on = std::string(", ") + family + " on " + std::to_string(threads) + " threads";
            expectSameTrajectory(trainSwapped(c, torch::kCPU,
                                              [](SwappingExecutor &e) { return SwapPlan::stageByStage(e.stageBytes()); }),
                                 resident, "stage by stage" + on);
            expectSameTrajectory(trainSwapped(c, torch::kCPU, twoGroupsPrefetching), resident, "two groups, prefetching" + on);
        }
    }
}

// What autocast to half precision keeps on the device until each stage's backward: two bytes
// for every weight a matmul reads (blocks and head), nothing for the embedding's lookups, and
// nothing at all in float32 or on the CPU.
TEST_F(SwappingExecutorTest, HalfPrecisionRetainsTwoBytesPerMatmulWeight)
{
    const ModelConfig c = config();
    Decoder model(c);
    const torch::Device gpu(torch::kCUDA, 0); // only named: nothing runs on it
    const std::vector<std::int64_t> retained = swapRetainedBytes(*model, gpu, ComputeDtype::BFloat16);
    ASSERT_EQ(retained.size(), std::size_t(model->stageCount()));
    EXPECT_EQ(retained.front(), 0); // wte and wpe are looked up
    const std::int64_t C = c.nEmbd;
    for (int block = 1; block <= c.nLayer; ++block)
        EXPECT_EQ(retained[std::size_t(block)], 2 * 12 * C * C) << "block " << block; // c_attn, c_proj, c_fc, c_proj
    EXPECT_EQ(retained.back(), 2 * std::int64_t(c.vocabSize) * C); // the head reads the tied embedding
    EXPECT_EQ(swapRetainedBytes(*model, gpu, ComputeDtype::Float16), retained);
    for (const std::int64_t bytes : swapRetainedBytes(*model, gpu, ComputeDtype::Float32))
        EXPECT_EQ(bytes, 0);
    for (const std::int64_t bytes : swapRetainedBytes(*model, torch::kCPU, ComputeDtype::BFloat16))
        EXPECT_EQ(bytes, 0);
    // A Llama block: q, k, v, o and the three SwiGLU matrices.
    const ModelConfig llama = test::tinyLlamaConfig(kVocab, 2, 2, 1, 16, 40, 8, false);
    Decoder llamaModel(llama);
    const std::vector<std::int64_t> llamaRetained = swapRetainedBytes(*llamaModel, gpu, ComputeDtype::BFloat16);
    EXPECT_EQ(llamaRetained[1], 2 * (llama.blockParameterCount() - 2 * 16));
    EXPECT_EQ(llamaRetained.back(), 2 * std::int64_t(kVocab) * 16); // lm_head
}

TEST_F(SwappingExecutorTest, PlannedFromMeasurementsInAQuarterOfTheModel)
{
    kernels::setParallelThreads(2);
    const Trajectory resident = trainResident(config());
    SwapPlan used;
    const Trajectory swapped = trainSwapped(config(), torch::kCPU, [&](SwappingExecutor &e) {
        const std::vector<StageCost> costs = e.measureStages(kBatch, config().blockSize);
        std::int64_t total = 0, largest = 0;
        for (const StageCost &c : costs) {
            EXPECT_GT(c.forwardMs + c.backwardMs, 0.0);
            total += c.bytes;
            largest = std::max(largest, c.bytes);
        }
        const Result<SwapPlan> plan = planSwapping(costs, std::max(total / 4, largest));
        EXPECT_TRUE(plan) << plan.error().message;
        used = *plan;
        return *plan;
    });
    EXPECT_GE(used.groups.size(), 2u) << used.why;
    expectSameTrajectory(swapped, resident, used.why);
}

TEST_F(SwappingExecutorTest, DropoutDrawsTheSameMasks)
{
    const Trajectory resident = trainResident(config(0.2));
    expectSameTrajectory(trainSwapped(config(0.2), torch::kCPU, twoGroupsPrefetching), resident, "dropout 0.2");
}

TEST_F(SwappingExecutorTest, CountsTheBytesItMoves)
{
    SwapTraffic traffic;
    std::int64_t weightBytes = 0, lastStageWeights = 0, gradientBytes = 0;
    trainSwapped(
        config(), torch::kCPU,
        [&](SwappingExecutor &e) {
            for (const std::int64_t bytes : e.stageBytes())
                weightBytes += bytes / 2;
            lastStageWeights = e.stageBytes().back() / 2;
            return SwapPlan::stageByStage(e.stageBytes());
        },
        &traffic);
    // Weights go in for the forward and again for the backward, except the last group's,
    // which stays; every gradient comes back once (the tied embedding's from both stages).
    EXPECT_EQ(traffic.bytesToDevice, kSteps * (2 * weightBytes - lastStageWeights));
    gradientBytes = weightBytes;
    EXPECT_GE(traffic.bytesToHost, kSteps * gradientBytes);
}

TEST_F(SwappingExecutorTest, EvaluationMatchesTheResidentModel)
{
    torch::manual_seed(3);
    Decoder model(config());
    FlatParameters flat(model->namedParameters());
    SwappingExecutor executor(*model, flat, torch::kCPU, ComputeDtype::Float32);
    executor.setPlan(twoGroupsPrefetching(executor));
    const torch::Tensor tokens = torch::randint(0, kVocab, {kBatch, 8}, torch::kLong);
    torch::NoGradGuard noGrad;
    model->eval();
    EXPECT_TRUE(torch::equal(executor.forward(tokens), model->forward(tokens)));
}

TEST_F(SwappingExecutorTest, OptimizerOnTheDeviceMatchesResidentTraining)
{
    kernels::setParallelThreads(2);
    const Trajectory resident = trainResident(config());
    SwapTraffic onHost, onDevice;
    const auto stageByStage = [](SwappingExecutor &e) { return SwapPlan::stageByStage(e.stageBytes()); };
    trainSwapped(config(), torch::kCPU, stageByStage, &onHost);
    const Trajectory swapped = trainSwapped(
        config(), torch::kCPU,
        [&](SwappingExecutor &e) { return withOptimizerOn(stageByStage(e), OptimizerPlacement::Device); }, &onDevice);
    expectCloseTrajectory(swapped, resident, "every group on the device");
    // Each step copies every parameter's weight, gradient and moments there, and three back.
    const std::int64_t params = resident.parameters.numel();
    EXPECT_EQ(onDevice.bytesToDevice - onHost.bytesToDevice, kSteps * params * 4 * 4);
    EXPECT_EQ(onDevice.bytesToHost - onHost.bytesToHost, kSteps * params * 3 * 4);

    expectCloseTrajectory(trainSwapped(config(), torch::kCPU,
                                       [](SwappingExecutor &e) {
                                           return withOptimizerOn(twoGroupsPrefetching(e), OptimizerPlacement::Device,
                                                                  1);
                                       }),
                          resident, "the second of two groups on the device");
}

TEST_F(SwappingExecutorTest, TrainingStepPlacesTheOptimizerAsAsked)
{
    const auto run = [](SwapMode swap, OptimizerPlacement placement, SwapPlan *plan) {
        StepOptions options;
        options.swap = swap;
        options.swapOptimizer = placement;
        options.batchSize = kBatch;
        torch::manual_seed(3);
        Result<std::unique_ptr<TrainingStep>> step = TrainingStep::create(Decoder(config()), options);
        EXPECT_TRUE(step) << step.error().message;
        at::Generator batches = at::detail::createCPUGenerator(11);
        Trajectory t;
        for (int i = 0; i < kSteps; ++i) {
            const torch::Tensor x = torch::randint(0, kVocab, {kBatch, config().blockSize}, batches, torch::kLong);
            const torch::Tensor y = torch::randint(0, kVocab, {kBatch, config().blockSize}, batches, torch::kLong);
            t.losses.push_back((*step)->run(x, y, 1e-2));
        }
        t.parameters = (*step)->parameters().values().clone();
        t.expAvgSq = (*step)->optimizer().expAvgSq().clone();
        if (plan)
            *plan = (*step)->executor()->plan();
        return t;
    };
    const Trajectory resident = run(SwapMode::Off, OptimizerPlacement::Auto, nullptr);
    for (const OptimizerPlacement placement : {OptimizerPlacement::Host, OptimizerPlacement::Device}) {
        SwapPlan plan;
        const Trajectory swapped = run(SwapMode::On, placement, &plan);
        for (const SwapGroup &group : plan.groups)
            EXPECT_EQ(group.optimizer, placement) << plan.why;
        EXPECT_NE(plan.why.find("as asked"), std::string::npos) << plan.why;
        if (placement == OptimizerPlacement::Host)
            expectSameTrajectory(swapped, resident, plan.why);
        else
            expectCloseTrajectory(swapped, resident, plan.why);
    }
}

// A plan of one group kept resident copies the weights in once, and again only after the
// host's values change; the gradients still come back after every pass.
TEST_F(SwappingExecutorTest, AResidentGroupIsCopiedInOnceUntilTheHostChanges)
{
    torch::manual_seed(3);
    Decoder model(config());
    FlatParameters flat(model->namedParameters());
    AdamW optimizer(flat, {0.9, 0.95, 1e-8, 0.1});
    SwappingExecutor executor(*model, flat, torch::kCPU, ComputeDtype::Float32);
    std::int64_t weightBytes = 0;
    for (const std::int64_t bytes : executor.stageBytes())
        weightBytes += bytes / 2;
    SwapPlan whole;
    whole.groups.push_back({0, model->stageCount() - 1, 2 * weightBytes, OptimizerPlacement::Host});
    executor.setPlan(whole);
    executor.setKeepResident(true);
    const torch::Tensor tokens = torch::randint(0, kVocab, {kBatch, 8}, torch::kLong);

    const double first = executor.forwardBackward(tokens, tokens);
    EXPECT_EQ(executor.traffic().bytesToDevice, weightBytes);
    EXPECT_EQ(executor.forwardBackward(tokens, tokens), first);
    EXPECT_EQ(executor.traffic().bytesToDevice, weightBytes) << "the weights stayed";
    EXPECT_GE(executor.traffic().bytesToHost, 2 * weightBytes) << "both passes' gradients came back";

    executor.optimizerStep(optimizer, 1e-2, 1.0);
    flat.zeroGrad();
    const double stepped = executor.forwardBackward(tokens, tokens);
    EXPECT_EQ(executor.traffic().bytesToDevice, 2 * weightBytes) << "copied in again after the step";
    EXPECT_NE(stepped, first);
    flat.values().mul_(0.5); // as a state import does
    executor.hostValuesChanged();
    executor.forward(tokens);
    EXPECT_EQ(executor.traffic().bytesToDevice, 3 * weightBytes);
    torch::NoGradGuard noGrad;
    model->eval();
    EXPECT_TRUE(torch::equal(executor.forward(tokens), model->forward(tokens))) << "the device has the host's values";
}

TEST_F(SwappingExecutorTest, MeasuringLeavesGradientsAndTrafficAlone)
{
    torch::manual_seed(3);
    Decoder model(config());
    FlatParameters flat(model->namedParameters());
    AdamW optimizer(flat, {0.9, 0.95, 1e-8, 0.1});
    flat.grads().fill_(0.25);
    optimizer.step(1e-2, 1.0); // moments that are not zero
    flat.grads().fill_(0.5);
    const torch::Tensor values = flat.values().clone();
    const torch::Tensor expAvg = optimizer.expAvg().clone();
    const torch::Tensor expAvgSq = optimizer.expAvgSq().clone();

    SwappingExecutor executor(*model, flat, torch::kCPU, ComputeDtype::Float32);
    const std::vector<StageCost> costs = executor.measureStages(kBatch, 8, &optimizer);
    EXPECT_EQ(costs.size(), std::size_t(model->stageCount()));
    for (std::size_t s = 0; s < costs.size(); ++s) {
        EXPECT_GT(costs[s].hostStepMs, 0.0) << "stage " << s;
        EXPECT_GT(costs[s].deviceStepMs, 0.0) << "stage " << s;
    }
    EXPECT_TRUE(torch::equal(flat.grads(), torch::full_like(flat.grads(), 0.5)));
    EXPECT_TRUE(torch::equal(flat.values(), values));
    EXPECT_TRUE(torch::equal(optimizer.expAvg(), expAvg));
    EXPECT_TRUE(torch::equal(optimizer.expAvgSq(), expAvgSq));
    EXPECT_EQ(optimizer.stepCount(), 1);
    EXPECT_EQ(executor.traffic().bytesToDevice, 0);
    EXPECT_EQ(executor.traffic().bytesToHost, 0);
}

TEST_F(SwappingExecutorTest, BudgetBelowTheLargestStageIsAClearError)
{
    torch::manual_seed(3);
    StepOptions options;
    options.swap = SwapMode::On;
    options.deviceMemoryBudget = 1000; // bytes; a block of this model needs ~26 KB
    const Result<std::unique_ptr<TrainingStep>> step = TrainingStep::create(Decoder(config()), options);
    ASSERT_FALSE(step);
    EXPECT_NE(step.error().message.find("smaller than the largest stage"), std::string::npos) << step.error().message;
}

TEST_F(SwappingExecutorTest, CudaSwappedMatchesCpuResident)
{
    if (!torch::cuda::is_available())
        GTEST_SKIP() << "no CUDA device: this build's LibTorch has no CUDA or the machine has no GPU";
    kernels::setParallelThreads(1); // one share on the CPU, as on the GPU
    const Trajectory resident = trainResident(config());
    const Trajectory swapped = trainSwapped(config(), torch::Device(torch::kCUDA, 0), twoGroupsPrefetching);
    for (std::size_t i = 0; i < resident.losses.size(); ++i)
        EXPECT_NEAR(swapped.losses[i], resident.losses[i], 1e-4) << "step " << i;
    EXPECT_TRUE(torch::allclose(swapped.parameters, resident.parameters, 1e-3, 1e-5));
}

TEST_F(SwappingExecutorTest, CudaBfloat16SwappedTrainingLearns)
{
    if (!torch::cuda::is_available())
        GTEST_SKIP() << "no CUDA device: this build's LibTorch has no CUDA or the machine has no GPU";
    StepOptions options;
    options.device = torch::Device(torch::kCUDA, 0);
    options.dtype = ComputeDtype::BFloat16;
    options.swap = SwapMode::On;
    options.batchSize = kBatch;
    torch::manual_seed(3);
    Result<std::unique_ptr<TrainingStep>> step = TrainingStep::create(Decoder(config()), options);
    ASSERT_TRUE(step) << step.error().message;
    // One fixed batch, learned by heart: the loss must fall.
    const torch::Tensor x = torch::randint(0, kVocab, {kBatch, 8}, torch::kLong);
    const torch::Tensor y = torch::randint(0, kVocab, {kBatch, 8}, torch::kLong);
    const double first = (*step)->run(x, y, 1e-2);
    double last = first;
    for (int i = 0; i < 30; ++i)
        last = (*step)->run(x, y, 1e-2);
    EXPECT_LT(last, first * 0.7);
}
