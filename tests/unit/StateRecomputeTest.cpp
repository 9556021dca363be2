#include "StateRecompute.h"

#include "FileIo.h"
#include "Quantization.h"
#include "ReplicaTrainer.h"
#include "SwarmState.h"
#include "TempDir.h"
#include "TensorContainer.h"
#include "TinyGpt.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <gtest/gtest.h>
#include <random>

using namespace swarmtrain;

namespace {

constexpr std::size_t kSkippedRange = 2;

RangeAverage encodedRange(std::int64_t begin, std::int64_t end, std::mt19937 &rng)
{
    std::normal_distribution<float> normal(0.0f, 0.01f);
    std::vector<float> values(std::size_t(end - begin));
    for (float &v : values)
        v = normal(rng);
    return {begin, end, encodeQuantized(quantize(values).value())};
}

// A round's range averages over [0, count): five ranges of random lengths, the third skipped
// (its owner failed), so it is left out.
std::vector<RangeAverage> randomAverages(std::int64_t count, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<std::int64_t> cuts{0, count};
    for (int i = 0; i < 4; ++i)
        cuts.push_back(1 + std::int64_t(rng() % std::uint64_t(count - 1)));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::vector<RangeAverage> ranges;
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
        if (i != kSkippedRange)
            ranges.push_back(encodedRange(cuts[i], cuts[i + 1], rng));
    }
    return ranges;
}

// Moves one code of `range` a step, so the payload still decodes but to another value.
void bumpCode(RangeAverage &range, std::size_t value)
{
    const std::size_t blocks = quantizationBlockCount(std::size_t(range.end - range.begin),
                                                      kDefaultQuantizationBlockSize);
    std::byte &code = range.payload.at(kQuantizedHeaderBytes + 4 * blocks + value);
    const auto c = std::int8_t(code);
    code = std::byte(std::uint8_t(c == 127 ? 126 : c + 1));
}

// The average as a member's all-reduce builds it (ButterflyAllReduce): zeros, then each range
// decoded into place. Written out here so the test does not check assembleAverage by itself.
std::vector<float> membersAverage(const std::vector<RangeAverage> &ranges, std::int64_t count)
{
    std::vector<float> average(std::size_t(count), 0.0f);
    for (const RangeAverage &range : ranges) {
        const std::vector<float> values =
            dequantize(decodeQuantized(range.payload, std::size_t(range.end - range.begin)).value());
        std::copy(values.begin(), values.end(), average.begin() + range.begin);
    }
    return average;
}

// Rewrites a state file with one float of tensor `name` replaced (checksum recomputed), as a
// hostile uploader could.
void rewriteValue(const std::filesystem::path &file, const std::string &name, std::size_t index, float value)
{
    TensorContainer container = readTensorContainer(file).value();
    TensorContainerWriter writer;
    for (const auto &[key, text] : container.metadata)
        writer.setMetadata(key, text);
    for (const auto &[tensorName, entry] : container.tensors) {
        std::vector<std::byte> bytes(entry.bytes.begin(), entry.bytes.end());
        if (tensorName == name)
            std::memcpy(bytes.data() + index * sizeof(float), &value, sizeof(float));
        writer.addTensor(tensorName, entry.dtype, entry.shape, bytes);
    }
    ASSERT_TRUE(writeFileAtomically(file, writer.finish()).ok());
}

float valueOf(const std::filesystem::path &file, const std::string &name, std::size_t index)
{
    const TensorContainer container = readTensorContainer(file).value();
    float value = 0.0f;
    std::memcpy(&value, container.find(name)->bytes.data() + index * sizeof(float), sizeof(float));
    return value;
}

class StateRecomputeTest : public ::testing::Test {
protected:
    // The previous state is round 1, so that its outer momentum is not all zeros.
    void SetUp() override
    {
        ASSERT_TRUE(writeInitialSwarmState(dir.path() / "round-0.safetensors", config, tokenizer, 5).ok());
        auto first = member(dir.path() / "round-0.safetensors");
        ASSERT_TRUE(first->applyOuterStep(membersAverage(randomAverages(parameterCount(), 1), parameterCount())).ok());
        ASSERT_TRUE(first->saveGlobalState(previous).ok());
    }

    std::unique_ptr<ReplicaTrainer> member(const std::filesystem::path &from, double outerLr = 0.7)
    {
        ReplicaOptions options;
        options.outerLr = outerLr;
        options.outerMomentum = outer.momentum;
        Result<std::unique_ptr<ReplicaTrainer>> r = ReplicaTrainer::create(from, options);
        EXPECT_TRUE(r.ok()) << (r ? "" : r.error().message);
        return std::move(r).value();
    }

    // What a member that applied `ranges` uploads.
    std::filesystem::path uploaded(const std::vector<RangeAverage> &ranges, double outerLr = 0.7)
    {
        auto m = member(previous, outerLr);
        EXPECT_TRUE(m->applyOuterStep(membersAverage(ranges, m->parameterCount())).ok());
        EXPECT_TRUE(m->saveGlobalState(upload).ok());
        return upload;
    }

    Result<void> check(const std::vector<RangeAverage> &ranges, const std::filesystem::path &file)
    {
        const Result<std::vector<float>> average = assembleAverage(ranges, parameterCount());
        if (!average)
            return average.error();
        const Result<std::optional<std::string>> difference =
            checkReproducedState(previous, *average, outer, file, ReplicaOptions{}.innerSteps);
        EXPECT_TRUE(difference.ok()) << "the coordinator's own inputs are sound: " << difference.error().message;
        if (difference && *difference)
            return makeError(**difference);
        return {};
    }

    std::int64_t parameterCount() const { return config.parameterCount(); }

    test::TempDir dir;
    Tokenizer tokenizer = Tokenizer::buildCharacter(test::generatedText(3000)).value();
    ModelConfig config = test::tinyGptConfig(tokenizer.vocabSize(), 2, 2, 16, 8);
    OuterOptimizerOptions outer{0.7, 0.9};
    std::filesystem::path previous = dir.path() / "round-1.safetensors";
    std::filesystem::path upload = dir.path() / "upload.safetensors";
};

} // namespace

TEST_F(StateRecomputeTest, TheAverageIsBitForBitWhatMembersDecodeAndZeroWhereARangeWasSkipped)
{
    const std::vector<RangeAverage> ranges = randomAverages(parameterCount(), 2);
    const Result<std::vector<float>> average = assembleAverage(ranges, parameterCount());
    ASSERT_TRUE(average.ok()) << average.error().message;
    ASSERT_EQ(std::int64_t(average->size()), parameterCount());
    const std::vector<float> members = membersAverage(ranges, parameterCount());
    for (std::size_t i = 0; i < members.size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>((*average)[i]), std::bit_cast<std::uint32_t>(members[i])) << i;
    // A range was skipped, and the average is +0 there.
    const std::int64_t skippedBegin = ranges[kSkippedRange - 1].end, skippedEnd = ranges[kSkippedRange].begin;
    ASSERT_LT(skippedBegin, skippedEnd);
    for (std::int64_t i = skippedBegin; i < skippedEnd; ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>((*average)[std::size_t(i)]), 0u);
}

TEST_F(StateRecomputeTest, TheStateMembersReachedIsReproduced)
{
    const std::vector<RangeAverage> ranges = randomAverages(parameterCount(), 3);
    const Result<void> r = check(ranges, uploaded(ranges));
    EXPECT_TRUE(r.ok()) << r.error().message;
}

TEST_F(StateRecomputeTest, OneFlippedPayloadByteInTheAveragesIsCaught)
{
    std::vector<RangeAverage> ranges = randomAverages(parameterCount(), 4);
    uploaded(ranges);
    bumpCode(ranges.back(), 3);
    const Result<void> r = check(ranges, upload);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("parameters differ from the recomputed ones at 1 of "
                                     + std::to_string(parameterCount()) + " values"),
              std::string::npos)
        << r.error().message;
}

TEST_F(StateRecomputeTest, AStateStepWithAnotherOuterLearningRateIsRefused)
{
    const std::vector<RangeAverage> ranges = randomAverages(parameterCount(), 5);
    const Result<void> r = check(ranges, uploaded(ranges, 0.8));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("parameters differ"), std::string::npos) << r.error().message;
}

TEST_F(StateRecomputeTest, AStateSavedWithoutTheOuterStepIsRefused)
{
    const std::vector<RangeAverage> ranges = randomAverages(parameterCount(), 6);
    ASSERT_TRUE(member(previous)->saveGlobalState(upload).ok());
    const Result<void> r = check(ranges, upload);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("holds round 1, not 2"), std::string::npos) << r.error().message;
}

TEST_F(StateRecomputeTest, AStateOfAnotherRoundIsRefusedEvenWithTheRightValues)
{
    const std::vector<RangeAverage> ranges = randomAverages(parameterCount(), 7);
    auto m = member(previous);
    ASSERT_TRUE(m->applyOuterStep(membersAverage(ranges, parameterCount())).ok());
    ASSERT_TRUE(m->applyOuterStep(std::vector<float>(std::size_t(parameterCount()), 0.0f)).ok());
    ASSERT_TRUE(m->saveGlobalState(upload).ok());
    const Result<void> r = check(ranges, upload);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("holds round 3, not 2"), std::string::npos) << r.error().message;
}

// The inner schedule's clock travels with the state (issue 18): an uploader that moved it other
// than the round says, by a forged advance or none, is caught.
TEST_F(StateRecomputeTest, AStateWhoseScheduleStepIsNotTheRoundsIsRefused)
{
    const std::vector<RangeAverage> ranges = randomAverages(parameterCount(), 11);
    auto m = member(previous);
    ASSERT_EQ(m->scheduleStep(), ReplicaOptions{}.innerSteps) << "round 1 of a state that counts from 0";
    ASSERT_TRUE(m->applyOuterStep(membersAverage(ranges, parameterCount()), 7).ok());
    EXPECT_EQ(m->scheduleStep(), ReplicaOptions{}.innerSteps + 7);
    ASSERT_TRUE(m->saveGlobalState(upload).ok());
    const Result<void> r = check(ranges, upload);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("schedule step is 57, not 100"), std::string::npos) << r.error().message;
    // The same bits applied with the round's advance are the swarm's state.
    uploaded(ranges);
    EXPECT_TRUE(check(ranges, upload).ok());
}

TEST_F(StateRecomputeTest, OneChangedValueOfTheOuterMomentumIsCaught)
{
    const std::vector<RangeAverage> ranges = randomAverages(parameterCount(), 8);
    uploaded(ranges);
    rewriteValue(upload, "outer.momentum", 10, valueOf(upload, "outer.momentum", 10) * 2.0f + 1.0f);
    ASSERT_TRUE(inspectSwarmState(upload).ok()); // a valid state file, only not the swarm's
    const Result<void> r = check(ranges, upload);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("outer momentum differs from the recomputed one at 1 of"), std::string::npos)
        << r.error().message;
}

TEST_F(StateRecomputeTest, AStateOfAnotherModelIsRefused)
{
    const ModelConfig other = test::tinyGptConfig(tokenizer.vocabSize(), 1, 2, 16, 8);
    ASSERT_TRUE(writeInitialSwarmState(upload, other, tokenizer, 5).ok());
    const Result<void> r = check(randomAverages(parameterCount(), 10), upload);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("holds another model"), std::string::npos) << r.error().message;
}

TEST_F(StateRecomputeTest, AnAverageOfTheWrongSizeIsRefused)
{
    const std::vector<float> average(std::size_t(parameterCount()) - 1, 0.0f);
    const Result<std::optional<std::string>> r = checkReproducedState(previous, average, outer, previous, 50);
    ASSERT_FALSE(r.ok()) << "the caller's own average is wrong, not the upload";
    EXPECT_NE(r.error().message.find("cannot recompute"), std::string::npos) << r.error().message;
}

TEST(StateRecomputeAssembleTest, RefusesRangesThatDoNotTileTheParametersOrDoNotDecode)
{
    std::mt19937 rng(11);
    auto refused = [&](std::vector<RangeAverage> ranges, const std::string &why, std::int64_t count = 1000) {
        const Result<std::vector<float>> r = assembleAverage(ranges, count);
        ASSERT_FALSE(r.ok()) << why;
        EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    };
    refused({encodedRange(0, 300, rng), encodedRange(299, 600, rng)}, "overlaps");
    refused({encodedRange(300, 600, rng), encodedRange(0, 300, rng)}, "must be sorted");
    refused({encodedRange(900, 1001, rng)}, "outside");
    refused({encodedRange(-1, 10, rng)}, "outside");
    refused({RangeAverage{5, 5, {}}}, "empty");
    refused({RangeAverage{6, 5, {}}}, "empty");
    refused({encodedRange(0, 1, rng), encodedRange(1, 2, rng)}, "2 ranges for 1 parameters", 1);

    RangeAverage truncated = encodedRange(0, 300, rng);
    truncated.payload.pop_back();
    refused({truncated}, "range 0 [0, 300)");
    RangeAverage longer = encodedRange(0, 300, rng);
    longer.end = 301; // the payload holds 300 values
    refused({longer}, "range 0 [0, 301)");
    RangeAverage garbage = encodedRange(10, 310, rng);
    garbage.payload[0] = std::byte{'X'};
    refused({encodedRange(0, 10, rng), garbage}, "range 1 [10, 310)");

    const Result<std::vector<float>> none = assembleAverage({}, 1000);
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(*none, std::vector<float>(1000, 0.0f));
}
