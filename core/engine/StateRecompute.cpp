#include "StateRecompute.h"

#include "Checkpoint.h"
#include "FlatParameters.h"
#include "Quantization.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace swarmtrain {

namespace {

std::string rangeName(std::size_t index, const RangeAverage &range)
{
    return "range " + std::to_string(index) + " [" + std::to_string(range.begin) + ", " + std::to_string(range.end)
           + ")";
}

// All that can be refused without decoding a payload or allocating the dense vector.
Result<void> checkRangeLayout(std::span<const RangeAverage> ranges, std::int64_t parameterCount)
{
    if (parameterCount <= 0)
        return makeError("the model has " + std::to_string(parameterCount) + " parameters");
    if (ranges.size() > std::uint64_t(parameterCount))
        return makeError(std::to_string(ranges.size()) + " ranges for " + std::to_string(parameterCount)
                         + " parameters");
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const RangeAverage &range = ranges[i];
        if (range.begin >= range.end)
            return makeError(rangeName(i, range) + " is empty");
        if (range.begin < 0 || range.end > parameterCount)
            return makeError(rangeName(i, range) + " lies outside the " + std::to_string(parameterCount)
                             + " parameters");
        if (i == 0 || range.begin >= ranges[i - 1].end)
            continue;
        if (range.begin < ranges[i - 1].begin)
            return makeError(rangeName(i, range) + " comes before " + rangeName(i - 1, ranges[i - 1])
                             + ": ranges must be sorted");
        return makeError(rangeName(i, range) + " overlaps " + rangeName(i - 1, ranges[i - 1]));
    }
    return {};
}

std::span<float> spanOf(torch::Tensor &cpuContiguous)
{
    return {cpuContiguous.data_ptr<float>(), std::size_t(cpuContiguous.numel())};
}

// Where one model tensor lies in the flat parameter vector.
struct FlatSlot {
    std::string name;
    std::int64_t offset = 0;
    std::vector<std::int64_t> shape;
};

// The state every member of the round holds after its outer step.
struct RecomputedState {
    ModelConfig config;
    Tokenizer tokenizer;
    std::int64_t round = 0;
    std::int64_t scheduleStep = -1; // OuterState::scheduleStep
    std::vector<FlatSlot> slots;
    torch::Tensor values; // flat, in FlatParameters order
    torch::Tensor momentum;
};

// What ReplicaTrainer::create (readFlatState) and applyOuterStep do, without the training copy.
Result<RecomputedState> recompute(const std::filesystem::path &previousState, std::span<const float> average,
                                  const OuterOptimizerOptions &outer, std::int64_t scheduleAdvance)
{
    Result<LoadedSwarmState> loaded = loadSwarmState(previousState);
    if (!loaded)
        return loaded.error();
    // The model holds the parameters now: the file's bytes would be one copy too many.
    loaded->checkpoint.container = {};
    FlatParameters flat(loaded->model->namedParameters());
    if (std::int64_t(average.size()) != flat.numel())
        return makeError("the averaged pseudo-gradient has " + std::to_string(average.size()) + " values, the model "
                         + std::to_string(flat.numel()));
    const std::int64_t scheduleStep =
        loaded->outer.scheduleStep >= 0 ? advancedScheduleStep(loaded->outer.scheduleStep, scheduleAdvance) : -1;
    RecomputedState state{loaded->checkpoint.config, loaded->checkpoint.tokenizer, loaded->outer.round + 1, scheduleStep,
                          {}, flat.values(), loaded->outer.momentum};
    for (const FlatParameters::Slot &slot : flat.slots())
        state.slots.push_back({slot.name, slot.offset, slot.parameter.sizes().vec()});
    if (Result<void> r = OuterOptimizer(outer).step(spanOf(state.values), spanOf(state.momentum), average); !r)
        return r.error();
    // Such a state would never load (inspectSwarmState refuses it), whoever uploads it.
    if (!torch::isfinite(state.values).all().item<bool>() || !torch::isfinite(state.momentum).all().item<bool>())
        return makeError("the outer step with this average leaves non-finite values in the state");
    return state;
}

// How many float32 values differ in their bits: -0 and +0 differ, as they would in a hash.
std::int64_t differingValues(const float *expected, std::span<const std::byte> actual)
{
    if (std::memcmp(expected, actual.data(), actual.size()) == 0)
        return 0;
    const auto *bytes = reinterpret_cast<const std::byte *>(expected);
    std::int64_t differing = 0;
    for (std::size_t i = 0; i < actual.size(); i += sizeof(float))
        differing += std::memcmp(bytes + i, actual.data() + i, sizeof(float)) != 0 ? 1 : 0;
    return differing;
}

Result<std::int64_t> differingValues(const TensorContainer &upload, const std::string &name,
                                     const std::vector<std::int64_t> &shape, const float *expected)
{
    const TensorEntry *entry = upload.find(name);
    if (!entry)
        return makeError("the uploaded state lacks tensor '" + name + "'");
    // The container checked that the bytes fit the dtype and shape.
    if (entry->dtype != DType::F32 || entry->shape != shape)
        return makeError("the uploaded state's tensor '" + name + "' has the wrong dtype or shape");
    return differingValues(expected, entry->bytes);
}

std::string ofValues(std::int64_t differing, std::int64_t count)
{
    return std::to_string(differing) + " of " + std::to_string(count) + " values";
}

// Strict: the whole text is a decimal number (no blanks or trailing characters); -1 otherwise.
std::int64_t numberOf(const TensorContainer &upload, const char *key)
{
    const std::string text = upload.meta(key).value_or("");
    std::int64_t number = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    return error == std::errc() && end == text.data() + text.size() ? number : -1;
}

Result<void> compareHeader(const LoadedCheckpoint &upload, const RecomputedState &state)
{
    if (upload.config.toJson() != state.config.toJson())
        return makeError("the uploaded state holds another model: " + upload.config.toJson() + " is not "
                         + state.config.toJson());
    if (!(upload.tokenizer == state.tokenizer))
        return makeError("the uploaded state holds another tokenizer");
    const std::int64_t round = numberOf(upload.container, "round");
    if (round < 0)
        return makeError("the uploaded state has no valid swarm round");
    if (round != state.round)
        return makeError("the uploaded state holds round " + std::to_string(round) + ", not "
                         + std::to_string(state.round));
    // The inner schedule's clock travels with the state: a forged one would set every peer's
    // learning rate that trains from it.
    const std::int64_t scheduleStep = numberOf(upload.container, "schedule_step");
    if (scheduleStep != state.scheduleStep)
        return makeError("the uploaded state's schedule step is " + std::to_string(scheduleStep) + ", not "
                         + std::to_string(state.scheduleStep));
    return {};
}

// Reads only the upload's container (no model is built from it) and compares in place.
Result<void> compareWithUpload(const RecomputedState &state, const std::filesystem::path &uploadedState)
{
    Result<LoadedCheckpoint> upload = readCheckpoint(uploadedState);
    if (!upload)
        return makeError("the uploaded state does not read: " + upload.error().message);
    if (Result<void> r = compareHeader(*upload, state); !r)
        return r;
    const std::int64_t count = state.values.numel();
    const float *values = state.values.data_ptr<float>();
    std::int64_t differing = 0;
    for (const FlatSlot &slot : state.slots) {
        Result<std::int64_t> d = differingValues(upload->container, slot.name, slot.shape, values + slot.offset);
        if (!d)
            return d.error();
        differing += *d;
    }
    if (differing > 0)
        return makeError("the uploaded state's parameters differ from the recomputed ones at "
                         + ofValues(differing, count));
    Result<std::int64_t> d =
        differingValues(upload->container, "outer.momentum", {count}, state.momentum.data_ptr<float>());
    if (!d)
        return d.error();
    if (*d > 0)
        return makeError("the uploaded state's outer momentum differs from the recomputed one at "
                         + ofValues(*d, count));
    return {};
}

} // namespace

Result<std::vector<float>> assembleAverage(std::span<const RangeAverage> ranges, std::int64_t parameterCount)
{
    if (Result<void> r = checkRangeLayout(ranges, parameterCount); !r)
        return r.error();
    std::vector<float> average(std::size_t(parameterCount), 0.0f);
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const RangeAverage &range = ranges[i];
        const std::size_t count = std::size_t(range.end - range.begin);
        // The members' path: ButterflyAllReduce::decodeValues.
        Result<Quantized> quantized = decodeQuantized(range.payload, count);
        if (!quantized)
            return makeError(rangeName(i, range) + ": " + quantized.error().message);
        const std::span<float> out(average.data() + range.begin, count);
        if (Result<void> r = dequantize(*quantized, out); !r)
            return makeError(rangeName(i, range) + ": " + r.error().message);
        // decodeQuantized promises finite values; the state this feeds must never rest on that alone.
        if (!std::all_of(out.begin(), out.end(), [](float v) { return std::isfinite(v); }))
            return makeError(rangeName(i, range) + " decodes to values that are not finite");
    }
    return average;
}

Result<std::optional<std::string>> checkReproducedState(const std::filesystem::path &previousState,
                                                        std::span<const float> averagedPseudoGradient,
                                                        const OuterOptimizerOptions &outer,
                                                        const std::filesystem::path &uploadedState,
                                                        std::int64_t scheduleAdvance)
{
    // The coordinator calls this without LibTorch's types in sight: none of its errors leaves here.
    Result<RecomputedState> state = [&]() -> Result<RecomputedState> {
        try {
            return recompute(previousState, averagedPseudoGradient, outer, scheduleAdvance);
        } catch (const c10::Error &e) {
            return makeError(e.what_without_backtrace());
        }
    }();
    if (!state)
        return makeError("cannot recompute the state after " + previousState.string() + ": " + state.error().message);
    // From here on, anything wrong is the upload's.
    try {
        if (Result<void> same = compareWithUpload(*state, uploadedState); !same)
            return std::optional<std::string>(same.error().message);
    } catch (const c10::Error &e) {
        return std::optional<std::string>(std::string("the uploaded state does not read: ") + e.what_without_backtrace());
    }
    return std::optional<std::string>();
}

} // namespace swarmtrain
