#include "PipelineStage.h"
#include "StageGradients.h"
#include "StagePartition.h"
#include "TinyGpt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>

using namespace swarmtrain;

namespace {

const ModelConfig kConfig = test::tinyGptConfig(13, 4, 2, 32, 16);
constexpr MicrobatchShape kShape{3, 16};

using StageOptions = std::function<PipelineStageOptions(const StageSpan &)>;

std::unique_ptr<PipelineStage> makeStage(const StageSpan &span, std::uint64_t seed = 5)
{
    PipelineStageOptions options;
    options.seed = seed;
    return PipelineStage::create(kConfig, span, options).value();
}

// Through the "device" (the CPU stands in for a GPU) with room for `budget(span)` bytes of
// engine stages at once.
StageOptions swappedWithin(const std::function<std::int64_t(const StageSpan &)> &budget)
{
    return [budget](const StageSpan &span) {
        PipelineStageOptions options;
        options.seed = 5;
        options.swap = SwapMode::On;
        options.deviceMemoryBudget = budget(span);
        return options;
    };
}

// The largest engine stage's float32 weights and gradients: a device with that much room
// holds one engine stage at a time.
std::int64_t largestEngineStageBytes(const StageSpan &span)
{
    std::int64_t largest = 0;
    for (int k = span.first; k <= span.last; ++k)
        largest = std::max(largest, 8 * spanParameterCount(kConfig, {k, k, 0.0}));
    return largest;
}

std::vector<std::int32_t> randomIds(std::size_t count, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<std::int32_t> ids(count);
    for (std::int32_t &id : ids)
        id = std::int32_t(rng() % unsigned(kConfig.vocabSize));
    return ids;
}

using test::gradientsByName;

double relativeError(const std::vector<float> &a, const std::vector<float> &b)
{
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return std::sqrt(diff / norm);
}

struct Pipeline {
    std::vector<std::unique_ptr<PipelineStage>> stages;
    std::vector<std::vector<float>> boundaries; // each stage's input activations (none for stage 0)

    explicit Pipeline(int count, const StageOptions &options = {})
    {
        const std::vector<StageSpan> spans = partitionStages(kConfig, count).value();
        for (const StageSpan &span : spans)
            stages.push_back(options ? PipelineStage::create(kConfig, span, options(span)).value() : makeStage(span));
    }

    // One microbatch forward and back, every stage's gradient confirmed; its loss.
    double run(const std::string &key, const std::vector<std::int32_t> &tokens, const std::vector<std::int32_t> &targets)
    {
        boundaries.assign(stages.size(), {});
        const auto input = [&](std::size_t s) {
            return StageInput{kShape, s == 0 ? tokens : std::span<const std::int32_t>{}, boundaries[s]};
        };
        for (std::size_t s = 0; s + 1 < stages.size(); ++s)
            boundaries[s + 1] = stages[s]->forward(input(s)).value();
        StageBackward back = stages.back()->backward(key, input(stages.size() - 1), {}, targets).value();
        const double loss = back.loss;
        for (std::size_t s = stages.size() - 1; s-- > 0;)
            back = stages[s]->backward(key, input(s), back.inputGradient).value();
        EXPECT_TRUE(back.inputGradient.empty()) << "token ids have no gradient";
        for (auto &stage : stages)
            EXPECT_TRUE(stage->confirm(key));
        return loss;
    }
};

} // namespace

// Three stages, each its own model holding its span, give the one-stage model's loss and
// gradients: the head's copy of the embedding and the embedding itself add up to the tied one.
TEST(PipelineStageTest, ThreeStagesGiveTheWholeModelsGradients)
{
    const std::vector<std::int32_t> tokens = randomIds(kShape.tokenCount(), 1), targets = randomIds(kShape.tokenCount(), 2);
    Pipeline whole(1), split(3);
    const double wholeLoss = whole.run("m1", tokens, targets);
    const double splitLoss = split.run("m1", tokens, targets);
    EXPECT_NEAR(splitLoss, wholeLoss, 1e-6 * wholeLoss);
    const StageInput lastInput{kShape, {}, split.boundaries.back()};
    EXPECT_NEAR(split.stages.back()->evaluate(lastInput, targets).value(), wholeLoss, 1e-6 * wholeLoss)
        << "evaluate() computes the loss backward() reports";
    EXPECT_FALSE(split.stages[1]->evaluate({kShape, {}, split.boundaries[1]}, targets).ok()) << "not a middle stage";
    EXPECT_GT(wholeLoss, 1.0);

    const auto reference = gradientsByName(*whole.stages[0]);
    std::map<std::string, std::vector<float>> summed;
    for (auto &stage : split.stages) {
        for (auto &[name, grad] : gradientsByName(*stage)) {
            if (!summed.contains(name)) {
                summed[name] = grad;
                continue;
            }
            for (std::size_t i = 0; i < grad.size(); ++i)
                summed[name][i] += grad[i];
        }
    }
    ASSERT_EQ(summed.size(), reference.size());
    for (const auto &[name, grad] : reference) {
        ASSERT_TRUE(summed.contains(name)) << name;
        EXPECT_LE(relativeError(summed[name], grad), 1e-5) << name;
    }
}

// A backward retried on another replica of the stage is counted once: the answer nobody
// confirmed is cancelled, and its gradient leaves the accumulator.
TEST(PipelineStageTest, ACancelledBackwardLeavesNoGradient)
{
    const StageSpan middle = partitionStages(kConfig, 3).value()[1];
    auto slow = makeStage(middle), retried = makeStage(middle), reference = makeStage(middle);
    ASSERT_EQ(slow->hash(), retried->hash());
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const std::size_t width = kShape.tokenCount() * std::size_t(kConfig.nEmbd);
    std::vector<float> input1(width), input2(width), grad1(width), grad2(width);
    for (auto *v : {&input1, &input2, &grad1, &grad2})
        for (float &x : *v)
            x = normal(rng);

    // The slow replica confirmed m1, then answered m2 too late: m2 went to another replica.
    ASSERT_TRUE(slow->backward("m1", {kShape, {}, input1}, grad1).ok());
    ASSERT_TRUE(slow->confirm("m1"));
    ASSERT_TRUE(slow->backward("m2", {kShape, {}, input2}, grad2).ok());
    ASSERT_TRUE(retried->backward("m2", {kShape, {}, input2}, grad2).ok());
    ASSERT_TRUE(retried->confirm("m2"));
    EXPECT_EQ(slow->pendingCount(), 1);
    EXPECT_TRUE(slow->cancel("m2"));
    EXPECT_FALSE(slow->cancel("m2")) << "a key is cancelled once";
    EXPECT_FALSE(slow->confirm("m2")) << "a cancelled key cannot be confirmed later";
    ASSERT_TRUE(reference->backward("m1", {kShape, {}, input1}, grad1).ok());
    ASSERT_TRUE(reference->confirm("m1"));

    const std::vector<float> kept = slow->gradientSum(), expected = reference->gradientSum();
    EXPECT_LE(relativeError(kept, expected), 1e-6);
    EXPECT_EQ(slow->confirmedKeys(), std::vector<std::string>{"m1"});
    EXPECT_TRUE(slow->isConfirmed("m1"));

    // A confirmed one taken back (the trainer replayed it elsewhere): nothing of it is left.
    EXPECT_TRUE(slow->cancel("m1"));
    EXPECT_FALSE(slow->isConfirmed("m1"));
    EXPECT_EQ(slow->confirmedCount(), 0);
    double left = 0, scale = 0;
    for (const float v : slow->gradientSum())
        left = std::max(left, double(std::abs(v)));
    for (const float v : expected)
        scale = std::max(scale, double(std::abs(v)));
    EXPECT_LE(left, 1e-6 * scale);

    // An unconfirmed answer is dropped before the gradient is read: nothing of it counts.
    ASSERT_TRUE(retried->backward("m3", {kShape, {}, input1}, grad1).ok());
    const std::vector<float> onlyM2 = retried->gradientSum();
    EXPECT_EQ(retried->pendingCount(), 0);
    EXPECT_EQ(retried->confirmedCount(), 1);
    auto m2Alone = makeStage(middle);
    ASSERT_TRUE(m2Alone->backward("m2", {kShape, {}, input2}, grad2).ok());
    ASSERT_TRUE(m2Alone->confirm("m2"));
    EXPECT_LE(relativeError(onlyM2, m2Alone->gradientSum()), 1e-6);
}

// Whatever a stranger sends is checked before it is computed on.
TEST(PipelineStageTest, RefusesHostileInputs)
{
    const std::vector<StageSpan> spans = partitionStages(kConfig, 3).value();
    auto first = makeStage(spans[0]), middle = makeStage(spans[1]), last = makeStage(spans[2]);
    const std::size_t width = kShape.tokenCount() * std::size_t(kConfig.nEmbd);
    std::vector<float> activations(width, 0.5f), grad(width, 0.01f);
    const std::vector<std::int32_t> ids = randomIds(kShape.tokenCount(), 4);

    std::vector<float> nan = activations;
    nan[17] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(middle->forward({kShape, {}, nan}).ok());
    std::vector<float> inf = grad;
    inf[3] = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(middle->backward("a", {kShape, {}, activations}, inf).ok());
    EXPECT_FALSE(middle->forward({kShape, {}, std::span(activations).first(width - 1)}).ok()) << "wrong count";
    EXPECT_FALSE(middle->forward({{3, kConfig.blockSize + 1}, {}, activations}).ok()) << "longer than the block";
    EXPECT_FALSE(middle->forward({{0, 16}, {}, {}}).ok()) << "empty";
    EXPECT_FALSE(middle->forward({kShape, ids, {}}).ok()) << "ids to a middle stage";
    EXPECT_FALSE(middle->backward("a", {kShape, {}, activations}, grad, ids).ok()) << "targets to a middle stage";

    std::vector<std::int32_t> outside = ids;
    outside[5] = kConfig.vocabSize;
    EXPECT_FALSE(first->forward({kShape, outside, {}}).ok());
    outside[5] = -1;
    EXPECT_FALSE(first->forward({kShape, outside, {}}).ok());
    EXPECT_FALSE(last->backward("a", {kShape, {}, activations}, {}, outside).ok()) << "targets outside the vocabulary";
    EXPECT_FALSE(last->forward({kShape, {}, activations}).ok()) << "the last stage's output is the loss";
    EXPECT_FALSE(last->backward("a", {kShape, {}, activations}, grad, ids).ok()) << "an output gradient to the last stage";

    // Nothing refused reached the accumulator; a key runs backward once.
    ASSERT_TRUE(middle->backward("a", {kShape, {}, activations}, grad).ok());
    EXPECT_FALSE(middle->backward("a", {kShape, {}, activations}, grad).ok());
    EXPECT_TRUE(middle->confirm("a"));
    EXPECT_FALSE(middle->backward("a", {kShape, {}, activations}, grad).ok()) << "nor again once confirmed";
    EXPECT_EQ(middle->confirmedCount(), 1);
    EXPECT_EQ(last->pendingCount() + last->confirmedCount() + first->confirmedCount(), 0);
}

// The count a stage's peers plan their step with is the count its model holds.
TEST(PipelineStageTest, SpanParameterCountIsWhatTheStageHolds)
{
    for (int count = 1; count <= kConfig.nLayer + 2; ++count) {
        std::int64_t total = 0;
        const std::vector<StageSpan> spans = partitionStages(kConfig, count).value();
        for (const StageSpan &span : spans) {
            EXPECT_EQ(spanParameterCount(kConfig, span), makeStage(span)->parameterCount()) << span.first << ".." << span.last;
            total += spanParameterCount(kConfig, span);
        }
        const std::int64_t copies = count > 1 ? 1 : 0; // the head's own token embedding
        EXPECT_EQ(total, kConfig.parameterCount() + copies * kConfig.vocabSize * kConfig.nEmbd);
    }
}

// Replicas that take the same mean gradient stay equal, and the step starts a new accumulation.
TEST(PipelineStageTest, ReplicasStepTogether)
{
    const StageSpan middle = partitionStages(kConfig, 3).value()[1];
    auto a = makeStage(middle), b = makeStage(middle), other = makeStage(middle, 6);
    EXPECT_NE(a->hash(), other->hash()) << "the seed sets the initial values";
    const std::size_t width = kShape.tokenCount() * std::size_t(kConfig.nEmbd);
    std::vector<float> input(width, 0.25f), grad(width, 0.01f);
    ASSERT_TRUE(a->backward("m", {kShape, {}, input}, grad).ok());
    ASSERT_TRUE(a->confirm("m"));
    const std::vector<float> mean = a->gradientSum();
    const std::string before = a->hash();
    ASSERT_TRUE(a->step(mean, 1e-3, 1.0).ok());
    ASSERT_TRUE(b->step(mean, 1e-3, 1.0).ok());
    EXPECT_NE(a->hash(), before);
    EXPECT_EQ(a->hash(), b->hash());
    EXPECT_EQ(a->stepCount(), 1);
    EXPECT_EQ(a->confirmedCount(), 0);
    EXPECT_TRUE(a->backward("m", {kShape, {}, input}, grad).ok()) << "keys start afresh after a step";
    std::vector<float> bad = mean;
    bad[0] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(b->step(bad, 1e-3, 1.0).ok());
    EXPECT_FALSE(b->step(std::span(mean).first(mean.size() - 1), 1e-3, 1.0).ok());
    EXPECT_EQ(a->hash(), b->hash()) << "a refused step changes nothing";
}

// A replica that resyncs takes a neighbour's whole training state: afterwards the two step
// alike. A state from a stranger is checked before anything changes.
TEST(PipelineStageTest, AnExportedStateMakesAnEqualReplicaAndABadOneChangesNothing)
{
    const StageSpan middle = partitionStages(kConfig, 3).value()[1];
    auto neighbour = makeStage(middle), behind = makeStage(middle, 8);
    const std::size_t width = kShape.tokenCount() * std::size_t(kConfig.nEmbd);
    std::vector<float> input(width, 0.3f), grad(width, 0.02f);
    ASSERT_TRUE(neighbour->backward("m", {kShape, {}, input}, grad).ok());
    ASSERT_TRUE(neighbour->confirm("m"));
    const std::vector<float> mean = neighbour->gradientSum();
    ASSERT_TRUE(neighbour->step(mean, 1e-3, 1.0).ok());
    ASSERT_NE(neighbour->hash(), behind->hash());

    std::vector<std::byte> state = neighbour->exportState();
    EXPECT_EQ(state.size(), PipelineStage::stateSize(neighbour->parameterCount()));
    const std::string before = behind->hash();
    std::vector<std::byte> bad = state;
    bad.pop_back();
    EXPECT_FALSE(behind->importState(bad).ok()) << "truncated";
    bad = state;
    bad[0] = std::byte{'X'};
    EXPECT_FALSE(behind->importState(bad).ok()) << "not a state";
    bad = state;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(bad.data() + 20 + 4 * 7, &nan, 4);
    EXPECT_FALSE(behind->importState(bad).ok()) << "a NaN parameter";
    bad = state;
    const float negative = -1.0f;
    std::memcpy(bad.data() + bad.size() - 4, &negative, 4);
    EXPECT_FALSE(behind->importState(bad).ok()) << "a negative second moment";
    auto otherStage = makeStage(partitionStages(kConfig, 3).value()[0]);
    EXPECT_FALSE(otherStage->importState(state).ok()) << "another stage's size";
    EXPECT_EQ(behind->hash(), before) << "a refused state changes nothing";

    ASSERT_TRUE(behind->importState(state).ok());
    EXPECT_EQ(behind->hash(), neighbour->hash());
    EXPECT_EQ(behind->stepCount(), neighbour->stepCount());
    ASSERT_TRUE(neighbour->step(mean, 1e-3, 1.0).ok());
    ASSERT_TRUE(behind->step(mean, 1e-3, 1.0).ok());
    EXPECT_EQ(behind->hash(), neighbour->hash()) << "the moments came along";
}

// A stage too big for the device is served through the SwappingExecutor, a group of its engine
// stages at a time; one that fits stays on the device between microbatches. Either way it
// trains as the stage computed in place: the same losses, gradients and steps, the tied
// embedding's two reads included, and the device's copy follows each step and import.
TEST(PipelineStageTest, StagesServedThroughTheDeviceTrainAsInPlace)
{
    const std::vector<std::int32_t> tokens = randomIds(kShape.tokenCount(), 11), targets = randomIds(kShape.tokenCount(), 12);
    for (const int count : {1, 3}) {
        SCOPED_TRACE(std::to_string(count) + " stages");
        Pipeline inPlace(count), swapped(count, swappedWithin(largestEngineStageBytes)),
            resident(count, swappedWithin([](const StageSpan &) { return std::int64_t(1) << 30; }));
        for (std::size_t s = 0; s < inPlace.stages.size(); ++s) {
            EXPECT_EQ(inPlace.stages[s]->swapGroups(), 0) << inPlace.stages[s]->serving();
            EXPECT_GE(swapped.stages[s]->swapGroups(), 2) << swapped.stages[s]->serving();
            EXPECT_EQ(resident.stages[s]->swapGroups(), 1) << resident.stages[s]->serving();
        }
        for (int step = 0; step < 2; ++step) {
            const std::string key = "m" + std::to_string(step);
            const double loss = inPlace.run(key, tokens, targets);
            for (Pipeline *device : {&swapped, &resident}) {
                EXPECT_NEAR(device->run(key, tokens, targets), loss, 1e-5 * loss) << "step " << step;
                for (std::size_t s = 0; s < inPlace.stages.size(); ++s) {
                    EXPECT_EQ(device->boundaries[s], inPlace.boundaries[s]) << "stage " << s << "'s input";
                    EXPECT_LE(relativeError(device->stages[s]->gradientSum(), inPlace.stages[s]->gradientSum()), 1e-5)
                        << "stage " << s << ", step " << step;
                }
            }
            std::vector<std::vector<float>> means;
            for (auto &stage : inPlace.stages)
                means.push_back(stage->gradientSum());
            for (Pipeline *pipeline : {&inPlace, &swapped, &resident}) {
                for (std::size_t s = 0; s < means.size(); ++s)
                    ASSERT_TRUE(pipeline->stages[s]->step(means[s], 1e-2, 1.0).ok());
            }
            for (std::size_t s = 0; s < inPlace.stages.size(); ++s) {
                EXPECT_EQ(swapped.stages[s]->hash(), inPlace.stages[s]->hash()) << "the step is the host's, stage " << s;
                EXPECT_EQ(resident.stages[s]->hash(), inPlace.stages[s]->hash()) << "stage " << s;
            }
        }
    }

    // An imported state reaches the copy that stays on the device.
    const StageSpan middle = partitionStages(kConfig, 3).value()[1];
    auto neighbour = makeStage(middle, 9);
    auto onDevice = PipelineStage::create(kConfig, middle, swappedWithin([](const StageSpan &) { return std::int64_t(1) << 30; })(middle)).value();
    std::vector<float> input(kShape.tokenCount() * std::size_t(kConfig.nEmbd), 0.4f);
    const std::vector<float> before = onDevice->forward({kShape, {}, input}).value();
    ASSERT_TRUE(onDevice->importState(neighbour->exportState()).ok());
    const std::vector<float> after = onDevice->forward({kShape, {}, input}).value();
    EXPECT_NE(after, before);
    EXPECT_EQ(after, neighbour->forward({kShape, {}, input}).value());
}

// A device with less room than one engine stage cannot serve the stage, and one that does not
// exist is named: clear errors.
TEST(PipelineStageTest, ADeviceTooSmallOrUnknownIsAClearError)
{
    const StageSpan middle = partitionStages(kConfig, 3).value()[1];
    const Result<std::unique_ptr<PipelineStage>> built = PipelineStage::create(
        kConfig, middle, swappedWithin([](const StageSpan &span) { return largestEngineStageBytes(span) - 1; })(middle));
    ASSERT_FALSE(built.ok());
    EXPECT_NE(built.error().message.find("smaller than the largest stage"), std::string::npos) << built.error().message;
    PipelineStageOptions unknown;
    unknown.device = "tpu";
    const Result<std::unique_ptr<PipelineStage>> nowhere = PipelineStage::create(kConfig, middle, unknown);
    ASSERT_FALSE(nowhere.ok());
    EXPECT_NE(nowhere.error().message.find("--device"), std::string::npos) << nowhere.error().message;
}

// On a real GPU (bench/gpu-acceptance.sh runs every Cuda test): stages resident on the device
// and swapped through it give the CPU's losses and gradients, and after a step with the same
// mean gradient the same hashes, since the step is the host's. Without one, "auto" computes in
// place on the CPU.
TEST(PipelineStageTest, CudaStagesTrainAsTheCpuStages)
{
    PipelineStageOptions automatic;
    automatic.device = "auto";
    const StageSpan middle = partitionStages(kConfig, 3).value()[1];
    if (PipelineStage::create(kConfig, middle, automatic).value()->serving() == "cpu")
        GTEST_SKIP() << "no CUDA device: this build's LibTorch has no CUDA or the machine has no GPU";
    const std::vector<std::int32_t> tokens = randomIds(kShape.tokenCount(), 21), targets = randomIds(kShape.tokenCount(), 22);
    const auto onCuda = [](const std::function<std::int64_t(const StageSpan &)> &budget) -> StageOptions {
        return [budget](const StageSpan &span) {
            PipelineStageOptions options = swappedWithin(budget)(span);
            options.device = "cuda";
            options.swap = SwapMode::Auto;
            return options;
        };
    };
    Pipeline cpu(3), swapped(3, onCuda(largestEngineStageBytes)),
        resident(3, onCuda([](const StageSpan &) { return std::int64_t(1) << 30; }));
    for (std::size_t s = 0; s < cpu.stages.size(); ++s) {
        EXPECT_GE(swapped.stages[s]->swapGroups(), 2) << swapped.stages[s]->serving();
        EXPECT_EQ(resident.stages[s]->swapGroups(), 1) << resident.stages[s]->serving();
    }
    for (int step = 0; step < 2; ++step) {
        const std::string key = "m" + std::to_string(step);
        const double loss = cpu.run(key, tokens, targets);
        std::vector<std::vector<float>> means;
        for (auto &stage : cpu.stages)
            means.push_back(stage->gradientSum());
        for (Pipeline *gpu : {&swapped, &resident}) {
            EXPECT_NEAR(gpu->run(key, tokens, targets), loss, 1e-4 * loss) << "step " << step;
            for (std::size_t s = 0; s < means.size(); ++s)
                EXPECT_LE(relativeError(gpu->stages[s]->gradientSum(), means[s]), 1e-4) << "stage " << s << ", step " << step;
        }
        for (Pipeline *pipeline : {&cpu, &swapped, &resident}) {
            for (std::size_t s = 0; s < means.size(); ++s)
                ASSERT_TRUE(pipeline->stages[s]->step(means[s], 1e-2, 1.0).ok());
        }
        for (std::size_t s = 0; s < means.size(); ++s) {
            EXPECT_EQ(swapped.stages[s]->hash(), cpu.stages[s]->hash()) << "stage " << s;
            EXPECT_EQ(resident.stages[s]->hash(), cpu.stages[s]->hash()) << "stage " << s;
        }
    }
}
