#include "SwappingExecutor.h"

#include "ParallelStep.h"
#include "kernels/ParallelFor.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/DeviceGuard.h>
#include <algorithm>
#include <chrono>
#include <mutex>

namespace swarmtrain {

namespace {

// A group's device buffers hold memory only while the group is in flight. The device model's
// weights and the autograd graph keep views of them; freeing and refilling the storage under
// those views (as PyTorch's FSDP does) keeps the graph valid without keeping the memory.
void freeStorage(const torch::Tensor &buffer)
{
    c10::Storage storage = buffer.storage();
    storage.set_nbytes(0);
    storage.set_data_ptr_noswap(storage.allocator()->allocate(0));
}

void allocateStorage(const torch::Tensor &buffer)
{
    const std::size_t bytes = std::size_t(buffer.numel()) * buffer.element_size();
    c10::Storage storage = buffer.storage();
    if (storage.nbytes() == bytes)
        return;
    // The allocator allocates on the current device: the buffer's own, for cuda:N with N > 0.
    const c10::DeviceGuard onBuffersDevice(buffer.device());
    storage.set_data_ptr_noswap(storage.allocator()->allocate(bytes));
    storage.set_nbytes(bytes);
}

// Building the device copy initialises weights it never uses; the default random stream is
// put back afterwards, so dropout draws the same masks as in a resident run.
Decoder buildDeviceModel(const DecoderImpl &host)
{
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    torch::Tensor state;
    {
        std::lock_guard<std::mutex> lock(generator.mutex());
        state = generator.get_state();
    }
    Decoder model(host.config(), host.firstStage(), host.lastStage());
    {
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_state(state);
    }
    model->untieHead();
    model->train(host.is_training());
    return model;
}

constexpr std::int64_t kBytesPerElement = sizeof(float);

} // namespace

std::vector<std::int64_t> swapStageBytes(DecoderImpl &model)
{
    std::vector<std::int64_t> bytes;
    for (int s = 0; s < model.stageCount(); ++s) {
        std::int64_t stage = 0;
        for (const auto &[name, weight] : model.stage(model.firstStage() + s).weights())
            stage += weight.numel() * kBytesPerElement * 2; // weights and gradients
        bytes.push_back(stage);
    }
    return bytes;
}

std::vector<std::int64_t> swapRetainedBytes(DecoderImpl &model, const torch::Device &device, ComputeDtype dtype)
{
    std::vector<std::int64_t> bytes(std::size_t(model.stageCount()), 0);
    if (!device.is_cuda() || !(dtype == ComputeDtype::BFloat16 || dtype == ComputeDtype::Float16))
        return bytes;
    for (int s = 0; s < model.stageCount(); ++s) {
        if (model.firstStage() + s == 0)
            continue; // the embedding stage looks its weights up
        for (const auto &[name, weight] : model.stage(model.firstStage() + s).weights()) {
            if (weight.dim() == 2)
                bytes[std::size_t(s)] += weight.numel() * 2;
        }
    }
    return bytes;
}

SwappingExecutor::SwappingExecutor(DecoderImpl &host, FlatParameters &hostParameters, const torch::Device &device,
                                   ComputeDtype dtype)
    : m_hostParameters(hostParameters)
    , m_device(device)
    , m_dtype(dtype)
    , m_model(buildDeviceModel(host))
    , m_firstStage(host.firstStage())
    , m_stageBytes(swapStageBytes(*m_model))
    , m_retainedBytes(swapRetainedBytes(*m_model, device, dtype))
    , m_slotUses(hostParameters.slots().size(), 0)
    , m_copies(device)
{
    for (int s = 0; s < m_model->stageCount(); ++s) {
        for (const auto &[name, weight] : m_model->stage(m_firstStage + s).weights()) {
            const int slot = hostParameters.findSlot(name);
            TORCH_CHECK(slot >= 0, "the swapped model reads '", name, "', which the host model lacks");
            ++m_slotUses[std::size_t(slot)];
        }
    }
    // A device optimizer chunk holds four copies (weights, gradients, both moments) and up to
    // three temporaries of its size: 32 bytes an element stays within the largest stage's
    // bytes, which the budget holds.
    const std::int64_t largest = m_stageBytes.empty() ? 0 : *std::max_element(m_stageBytes.begin(), m_stageBytes.end());
    m_deviceStepChunk = std::max<std::int64_t>(1, largest / (8 * kBytesPerElement));
    setPlan(SwapPlan::stageByStage(m_stageBytes));
}

void SwappingExecutor::setPlan(const SwapPlan &plan)
{
    TORCH_CHECK(!plan.groups.empty() && plan.groups.front().firstStage == 0
                    && plan.groups.back().lastStage == m_model->stageCount() - 1,
                "a swap plan must cover every stage");
    m_plan = plan;
    m_groups.clear();
    m_residentCurrent = false;
    std::vector<bool> owned(m_hostParameters.slots().size(), false);
    const auto deviceOptions = torch::TensorOptions().dtype(torch::kFloat).device(m_device);
    for (const SwapGroup &range : plan.groups) {
        Group group;
        group.range = range;
        // Shared weights go last: their gradients come back per share (see accumulate), so
        // the gradient buffer covers only the rest.
        std::vector<Binding> shared;
        for (int s = range.firstStage; s <= range.lastStage; ++s) {
            for (const auto &[name, weight] : m_model->stage(m_firstStage + s).weights()) {
                Binding binding;
                binding.weight = weight;
                binding.slot = m_hostParameters.findSlot(name);
                binding.numel = weight.numel();
                binding.shared = m_slotUses[std::size_t(binding.slot)] > 1;
                if (!owned[std::size_t(binding.slot)]) {
                    owned[std::size_t(binding.slot)] = true;
                    group.ownedSlots.push_back(binding.slot);
                }
                (binding.shared ? shared : group.bindings).push_back(binding);
            }
        }
        for (Binding &binding : group.bindings) {
            binding.offset = group.gradNumel;
            group.gradNumel += binding.numel;
        }
        group.numel = group.gradNumel;
        for (Binding &binding : shared) {
            binding.offset = group.numel;
            group.numel += binding.numel;
            group.bindings.push_back(binding);
        }
        group.weights = torch::empty({group.numel}, deviceOptions);
        group.grads = torch::empty({group.gradNumel}, deviceOptions);
        group.returned = torch::empty({group.gradNumel}, torch::TensorOptions().dtype(torch::kFloat).pinned_memory(m_device.is_cuda()));
        for (Binding &binding : group.bindings) {
            const std::vector<std::int64_t> shape = binding.weight.sizes().vec();
            binding.weight.set_data(group.weights.narrow(0, binding.offset, binding.numel).view(shape));
        }
        freeStorage(group.weights);
        freeStorage(group.grads);
        m_groups.push_back(std::move(group));
    }
    m_slotsNoGroupOwns.clear();
    for (std::size_t slot = 0; slot < owned.size(); ++slot) {
        if (!owned[slot])
            m_slotsNoGroupOwns.push_back(int(slot));
    }
}

std::vector<torch::Tensor> SwappingExecutor::groupWeights(const Group &group) const
{
    std::vector<torch::Tensor> weights;
    for (const Binding &binding : group.bindings)
        weights.push_back(binding.weight);
    return weights;
}

template <typename Work>
void SwappingExecutor::timed(double StageCost::*field, const Group &group, Work &&work)
{
    if (!m_measuring) {
        work();
        return;
    }
    m_copies.synchronize();
    const auto started = std::chrono::steady_clock::now();
    work();
    m_copies.synchronize();
    (*m_measuring)[std::size_t(group.range.firstStage)].*field =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
}

void SwappingExecutor::setKeepResident(bool keep)
{
    m_keepResident = keep;
    m_residentCurrent = false;
}

void SwappingExecutor::upload(Group &group)
{
    if (resident() && m_residentCurrent)
        return;
    m_residentCurrent = resident();
    allocateStorage(group.weights);
    timed(&StageCost::uploadMs, group, [&] {
        m_copies.copyAfterCompute(
            [&] {
                for (const Binding &binding : group.bindings) {
                    const FlatParameters::Slot &slot = m_hostParameters.slots()[std::size_t(binding.slot)];
                    group.weights.narrow(0, binding.offset, binding.numel)
                        .copy_(m_hostParameters.values().narrow(0, slot.offset, slot.numel), /*non_blocking=*/true);
                }
            },
            group.uploaded);
    });
    m_traffic.bytesToDevice += group.numel * kBytesPerElement;
}

void SwappingExecutor::downloadGradients(Group &group)
{
    timed(&StageCost::downloadMs, group, [&] {
        CopyEvent copied;
        m_copies.copyAfterCompute([&] { group.returned.copy_(group.grads, /*non_blocking=*/true); }, copied);
        m_copies.keepUntilCopied(group.grads);
    });
    m_traffic.bytesToHost += group.gradNumel * kBytesPerElement;
}

void SwappingExecutor::release(Group &group)
{
    if (!resident())
        freeStorage(group.weights);
    freeStorage(group.grads);
}

// Each share's gradients are added in share order, as forwardBackward() adds them. A weight
// two stages read (the tied embedding) gets one gradient from each; they are summed per share
// on the host before the shares are, which is the order autograd sums them in a resident run.
void SwappingExecutor::accumulate(Group &group, const std::vector<std::vector<torch::Tensor>> &shareGrads,
                                  SharedGradients &sharedGrads)
{
    torch::NoGradGuard noGrad;
    allocateStorage(group.grads);
    group.grads.zero_();
    const auto addBinding = [&](std::int64_t i) {
        const Binding &binding = group.bindings[std::size_t(i)];
        if (binding.shared)
            return;
        torch::Tensor target = group.grads.narrow(0, binding.offset, binding.numel);
        for (const std::vector<torch::Tensor> &grads : shareGrads) {
            if (grads[std::size_t(i)].defined())
                target.add_(grads[std::size_t(i)].reshape({-1}));
        }
    };
    const auto count = std::int64_t(group.bindings.size());
    if (m_device.is_cpu()) {
        kernels::parallelFor(count, 1, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t i = begin; i < end; ++i)
                addBinding(i);
        });
    } else {
        for (std::int64_t i = 0; i < count; ++i)
            addBinding(i);
    }
    for (std::size_t i = 0; i < group.bindings.size(); ++i) {
        const Binding &binding = group.bindings[i];
        if (!binding.shared)
            continue;
        for (std::size_t share = 0; share < shareGrads.size(); ++share) {
            const torch::Tensor &grad = shareGrads[share][i];
            if (!grad.defined())
                continue;
            // On the copy stream into pinned memory, as the other gradients go: the host sums
            // them after waiting for the copies (addReturnedGradients).
            torch::Tensor host = torch::empty(grad.sizes(), grad.options().device(torch::kCPU).pinned_memory(m_device.is_cuda()));
            CopyEvent copied;
            m_copies.copyAfterCompute([&] { host.copy_(grad, /*non_blocking=*/true); }, copied);
            m_copies.keepUntilCopied(grad);
            sharedGrads[std::size_t(binding.slot)][share].push_back(std::move(host));
            m_traffic.bytesToHost += binding.numel * kBytesPerElement;
        }
    }
}

void SwappingExecutor::addReturnedGradients(SharedGradients &sharedGrads)
{
    torch::NoGradGuard noGrad;
    m_copies.hostWaitsForCopies();
    torch::Tensor &hostGrads = m_hostParameters.grads();
    std::vector<std::pair<const Group *, const Binding *>> returned;
    for (const Group &group : m_groups) {
        for (const Binding &binding : group.bindings) {
            if (!binding.shared)
                returned.emplace_back(&group, &binding);
        }
    }
    kernels::parallelFor(std::int64_t(returned.size()), 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            const auto [group, binding] = returned[std::size_t(i)];
            const FlatParameters::Slot &slot = m_hostParameters.slots()[std::size_t(binding->slot)];
            hostGrads.narrow(0, slot.offset, slot.numel).add_(group->returned.narrow(0, binding->offset, binding->numel));
        }
    });
    for (std::size_t slotIndex = 0; slotIndex < sharedGrads.size(); ++slotIndex) {
        const FlatParameters::Slot &slot = m_hostParameters.slots()[slotIndex];
        for (const std::vector<torch::Tensor> &uses : sharedGrads[slotIndex]) {
            if (uses.empty())
                continue;
            torch::Tensor sum = uses.front();
            for (std::size_t u = 1; u < uses.size(); ++u)
                sum = sum + uses[u];
            hostGrads.narrow(0, slot.offset, slot.numel).add_(sum.reshape({-1}));
        }
    }
}

// Forward: each group's weights come in (the next one's while this one computes, when
// prefetching), its stages run, and its weights go; an autograd graph keeps the activations.
void SwappingExecutor::forwardGroups(bool keepLast, const std::function<void(Group &, int)> &compute)
{
    const int k = int(m_groups.size());
    upload(m_groups[0]);
    for (int g = 0; g < k; ++g) {
        Group &group = m_groups[std::size_t(g)];
        if (m_plan.prefetch && g + 1 < k)
            upload(m_groups[std::size_t(g + 1)]);
        m_copies.computeWaitsFor(group.uploaded);
        compute(group, g);
        if (g + 1 < k || !keepLast)
            release(group);
        if (!m_plan.prefetch && g + 1 < k)
            upload(m_groups[std::size_t(g + 1)]);
    }
}

double SwappingExecutor::forwardBackward(const torch::Tensor &tokens, const torch::Tensor &targets, double lossScale)
{
    return backwardSpan(tokens, targets, torch::Tensor(), lossScale).loss;
}

SwappingExecutor::SpanResult SwappingExecutor::backwardSpan(const torch::Tensor &input, const torch::Tensor &targets,
                                                            const torch::Tensor &gradOutput, double lossScale)
{
    TORCH_CHECK(targets.defined() != gradOutput.defined(), "a span's backward starts from targets or an output gradient");
    try {
        return runForwardBackward(input, targets, gradOutput, lossScale);
    } catch (const StepInterrupted &) {
        m_copies.synchronize();
        for (Group &group : m_groups)
            release(group);
        throw;
    }
}

SwappingExecutor::SpanResult SwappingExecutor::runForwardBackward(const torch::Tensor &input,
                                                                  const torch::Tensor &targets,
                                                                  const torch::Tensor &gradOutput, double lossScale)
{
    const int k = int(m_groups.size());
    const std::int64_t rows = input.size(0);
    const std::int64_t shares = batchShares(*m_model, input);
    const auto shareCount = std::size_t(shares);
    const std::vector<StageRun> emptyRuns(shareCount);
    std::vector<std::vector<StageRun>> runs(std::size_t(k), emptyRuns);
    std::vector<torch::Tensor> gradIn(shareCount);
    std::vector<double> losses(shareCount, 0.0);
    SharedGradients sharedGrads(m_hostParameters.slots().size(), std::vector<std::vector<torch::Tensor>>(shareCount));
    AutocastScope autocast(m_device, m_dtype);

    forwardGroups(/*keepLast=*/true, [&](Group &group, int g) {
        timed(&StageCost::forwardMs, group, [&] {
            forEachShare(shares, [&](std::int64_t s) {
                const auto [first, last] = shareRows(rows, s, shares);
                const torch::Tensor in = g == 0 ? input.slice(0, first, last)
                                                : runs[std::size_t(g - 1)][std::size_t(s)].output;
                runs[std::size_t(g)][std::size_t(s)] =
                    m_model->runStages(m_firstStage + group.range.firstStage, m_firstStage + group.range.lastStage, in);
            });
        });
    });

    // Backward, last group first; the last group is still on the device.
    if (m_plan.prefetch && k >= 2)
        upload(m_groups[std::size_t(k - 2)]);
    for (int g = k - 1; g >= 0; --g) {
        Group &group = m_groups[std::size_t(g)];
        if (g < k - 1) {
            if (!m_plan.prefetch)
                upload(group);
            else if (g >= 1)
                upload(m_groups[std::size_t(g - 1)]);
            m_copies.computeWaitsFor(group.uploaded);
        }
        const std::vector<torch::Tensor> weights = groupWeights(group);
        std::vector<std::vector<torch::Tensor>> grads(shareCount);
        timed(&StageCost::backwardMs, group, [&] {
            forEachShare(shares, [&](std::int64_t s) {
                StageRun &run = runs[std::size_t(g)][std::size_t(s)];
                std::vector<torch::Tensor> inputs = weights;
                const bool wantInput = run.input.requires_grad();
                if (wantInput)
                    inputs.push_back(run.input);
                std::vector<torch::Tensor> &shareGrads = grads[std::size_t(s)];
                const auto [first, last] = shareRows(rows, s, shares);
                if (g == k - 1 && targets.defined()) {
                    const double weight = double(last - first) / double(rows);
                    const torch::Tensor loss = DecoderImpl::loss(run.output, targets.slice(0, first, last));
                    shareGrads = torch::autograd::grad({loss * (weight * lossScale)}, inputs, {}, false, false, true);
                    losses[std::size_t(s)] = loss.item<double>() * weight;
                } else if (g == k - 1) {
                    const torch::Tensor seed = gradOutput.slice(0, first, last);
                    shareGrads = torch::autograd::grad({run.output}, inputs,
                                                       {lossScale == 1.0 ? seed : seed * lossScale}, false, false, true);
                } else {
                    shareGrads = torch::autograd::grad({run.output}, inputs, {gradIn[std::size_t(s)]}, false, false,
                                                       true);
                }
                gradIn[std::size_t(s)] = wantInput ? shareGrads.back() : torch::Tensor();
                run = StageRun{};
            });
            accumulate(group, grads, sharedGrads);
        });
        downloadGradients(group);
        release(group);
    }
    addReturnedGradients(sharedGrads);

    SpanResult result;
    for (double share : losses)
        result.loss += share;
    if (input.is_floating_point())
        result.inputGradient = torch::cat(gradIn, 0).to(torch::kFloat);
    return result;
}

torch::Tensor SwappingExecutor::forward(const torch::Tensor &input)
{
    torch::NoGradGuard noGrad;
    AutocastScope autocast(m_device, m_dtype);
    const bool training = m_model->is_training();
    m_model->eval();
    torch::Tensor x = input;
    forwardGroups(/*keepLast=*/false, [&](Group &group, int) {
        x = m_model->forwardStages(m_firstStage + group.range.firstStage, m_firstStage + group.range.lastStage, x);
    });
    m_model->train(training);
    return x;
}

std::vector<StageCost> SwappingExecutor::measureStages(std::int64_t batch, std::int64_t block, AdamW *optimizer)
{
    const SwapPlan plan = m_plan;
    const SwapTraffic traffic = m_traffic;
    setPlan(SwapPlan::stageByStage(m_stageBytes));
    const torch::Tensor kept = m_hostParameters.grads().clone();
    const bool training = m_model->is_training();
    m_model->eval(); // no dropout, so no random numbers are drawn

    // Zeros of the span's shapes: token ids or activations in, targets or an output gradient back.
    const auto ids = torch::TensorOptions().dtype(torch::kLong).device(m_device);
    const auto floats = torch::TensorOptions().dtype(torch::kFloat).device(m_device);
    const std::int64_t width = m_model->config().nEmbd;
    const bool head = m_model->lastStage() == m_model->config().nLayer + 1;
    const torch::Tensor input = m_firstStage == 0 ? torch::zeros({batch, block}, ids) : torch::zeros({batch, block, width}, floats);
    const torch::Tensor targets = head ? torch::zeros({batch, block}, ids) : torch::Tensor();
    const torch::Tensor gradOutput = head ? torch::Tensor() : torch::zeros({batch, block, width}, floats);
    std::vector<StageCost> costs(m_stageBytes.size());
    for (int round = 0; round < 2; ++round) { // the first round warms allocators and kernels up
        m_measuring = &costs;
        backwardSpan(input, targets, gradOutput);
        m_measuring = nullptr;
        if (optimizer)
            measureOptimizer(*optimizer, costs);
    }
    for (std::size_t s = 0; s < costs.size(); ++s) {
        costs[s].bytes = m_stageBytes[s];
        costs[s].retainedBytes = m_retainedBytes[s];
    }

    m_model->train(training);
    m_hostParameters.grads().copy_(kept);
    m_traffic = traffic;
    setPlan(plan);
    return costs;
}

double SwappingExecutor::optimizerStep(AdamW &optimizer, double lr, double maxNorm)
{
    torch::NoGradGuard noGrad;
    const AdamW::PendingStep pending = optimizer.beginStep(lr, maxNorm);
    m_residentCurrent = false;
    std::vector<int> onHost = m_slotsNoGroupOwns;
    for (const Group &group : m_groups) {
        if (group.range.optimizer != OptimizerPlacement::Device) {
            onHost.insert(onHost.end(), group.ownedSlots.begin(), group.ownedSlots.end());
            continue;
        }
        for (const int slot : group.ownedSlots) {
            const FlatParameters::Slot &s = m_hostParameters.slots()[std::size_t(slot)];
            stepOnDevice(optimizer, pending.update, optimizer.range(s.offset, s.numel));
        }
    }
    stepSlotsOnHost(optimizer, pending.update, std::move(onHost));
    return pending.gradNorm;
}

void SwappingExecutor::stepSlotsOnHost(AdamW &optimizer, const kernels::AdamWStep &update, std::vector<int> slots)
{
    const auto &all = m_hostParameters.slots();
    std::sort(slots.begin(), slots.end(),
              [&](int a, int b) { return all[std::size_t(a)].offset < all[std::size_t(b)].offset; });
    // Fewer, longer ranges keep every core busy; all slots on the host are one range, as AdamW::step.
    std::size_t i = 0;
    while (i < slots.size()) {
        const std::int64_t begin = all[std::size_t(slots[i])].offset;
        std::int64_t end = begin;
        while (i < slots.size() && all[std::size_t(slots[i])].offset == end) {
            end += all[std::size_t(slots[i])].numel;
            ++i;
        }
        optimizer.stepOnHost(update, optimizer.range(begin, end - begin));
    }
}

void SwappingExecutor::stepOnDevice(AdamW &optimizer, const kernels::AdamWStep &update, const AdamWRange &host)
{
    const auto deviceOptions = torch::TensorOptions().dtype(torch::kFloat).device(m_device);
    // A copy even when the device is the CPU, where .to() would hand back the host buffer itself.
    const auto toDevice = [&](const torch::Tensor &source) {
        return torch::empty(source.sizes(), deviceOptions).copy_(source);
    };
    const std::int64_t numel = host.values.numel();
    for (std::int64_t begin = 0; begin < numel; begin += m_deviceStepChunk) {
        const std::int64_t length = std::min(m_deviceStepChunk, numel - begin);
        const AdamWRange device{host.offset + begin, toDevice(host.values.narrow(0, begin, length)),
                                toDevice(host.grads.narrow(0, begin, length)),
                                toDevice(host.expAvg.narrow(0, begin, length)),
                                toDevice(host.expAvgSq.narrow(0, begin, length))};
        optimizer.stepWithTensorOps(update, device);
        host.values.narrow(0, begin, length).copy_(device.values);
        host.expAvg.narrow(0, begin, length).copy_(device.expAvg);
        host.expAvgSq.narrow(0, begin, length).copy_(device.expAvgSq);
    }
    m_traffic.bytesToDevice += 4 * numel * kBytesPerElement;
    m_traffic.bytesToHost += 3 * numel * kBytesPerElement;
}

// Each stage's owned slots stepped on scratch copies, on the host and on the device; the
// optimizer's buffers and step counter are only read. Runs under the stage-by-stage plan.
void SwappingExecutor::measureOptimizer(AdamW &optimizer, std::vector<StageCost> &costs)
{
    torch::NoGradGuard noGrad;
    const kernels::AdamWStep update = optimizer.updateAt(1e-3, 1.0, optimizer.stepCount() + 1);
    const auto elapsedMs = [](auto started) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    };
    for (const Group &group : m_groups) {
        std::vector<AdamWRange> scratch;
        for (const int slot : group.ownedSlots) {
            const FlatParameters::Slot &s = m_hostParameters.slots()[std::size_t(slot)];
            const AdamWRange original = optimizer.range(s.offset, s.numel);
            scratch.push_back({original.offset, original.values.clone(), original.grads.clone(),
                               original.expAvg.clone(), original.expAvgSq.clone()});
        }
        StageCost &cost = costs[std::size_t(group.range.firstStage)];
        m_copies.synchronize();
        auto started = std::chrono::steady_clock::now();
        for (const AdamWRange &range : scratch)
            optimizer.stepOnHost(update, range);
        cost.hostStepMs = elapsedMs(started);

        started = std::chrono::steady_clock::now();
        for (const AdamWRange &range : scratch)
            stepOnDevice(optimizer, update, range);
        m_copies.synchronize();
        cost.deviceStepMs = elapsedMs(started);
    }
}

} // namespace swarmtrain
