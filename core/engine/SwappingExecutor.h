#pragma once

#include "AdamW.h"
#include "Device.h"
#include "FlatParameters.h"
#include "Decoder.h"
#include "SwapPlanner.h"

#include <cstdint>
#include <functional>
#include <vector>

#include <torch/torch.h>

namespace swarmtrain {

struct SwapTraffic {
    std::int64_t bytesToDevice = 0;
    std::int64_t bytesToHost = 0;

    std::int64_t total() const { return bytesToDevice + bytesToHost; }
};

// Device bytes each stage of `model` needs in flight: every tensor it reads (the head counts
// the tied embedding too) as float32 weights and their gradients. Indexed from the model's
// first stage (a pipeline stage's span starts anywhere).
std::vector<std::int64_t> swapStageBytes(DecoderImpl &model);
// Device bytes each stage leaves behind until its backward when autocast computes in `dtype`
// on `device` (StageCost::retainedBytes): a half-precision copy of every weight a matmul reads
// (the 2-D weights of the blocks and the head; the embedding stage's are looked up, not
// multiplied). Zeros in float32 and on the CPU, where nothing is cast.
std::vector<std::int64_t> swapRetainedBytes(DecoderImpl &model, const torch::Device &device, ComputeDtype dtype);

// ATOM's swapped execution: the master weights, their gradients and the optimizer state stay
// in host memory (`hostParameters`, pinned where CUDA is present); the executor keeps its own
// copy of the model's modules whose weights exist on the device only while their group of
// stages is in flight. Groups are copied in on a copy stream while the previous group computes,
// the last group stays through the forward/backward turn, and gradients go back on the copy
// stream and are added into hostParameters.grads(). optimizerStep() then updates each group's
// parameters where the plan places its optimizer: on the host, or on the device from copies.
// On the CPU the "device" copies are host copies and every copy is synchronous, so CPU tests
// prove that swapped training gives the resident numbers; the CPU batch is split across the
// cores exactly as forwardBackward() splits it, so they agree bit for bit.
//
// `host` may hold a span of the engine's stages (a pipeline stage's share, Decoder.h): plans and
// stageBytes() then count from its first stage, and backwardSpan() runs one microbatch from the
// span's input to its output gradient or loss (the SWARM stage's backward).
class SwappingExecutor {
public:
    SwappingExecutor(DecoderImpl &host, FlatParameters &hostParameters, const torch::Device &device, ComputeDtype dtype);

    // swapStageBytes of the model.
    const std::vector<std::int64_t> &stageBytes() const { return m_stageBytes; }

    // Times each stage alone on the device (compute, copy in, copy out) with a batch of this
    // shape, to plan from, and, given the optimizer, its AdamW step on the host and on the
    // device (on scratch copies). Touches neither the host parameters, gradients and moments,
    // the step counter, nor any random stream.
    std::vector<StageCost> measureStages(std::int64_t batch, std::int64_t block, AdamW *optimizer = nullptr);

    void setPlan(const SwapPlan &plan);
    const SwapPlan &plan() const { return m_plan; }

    // One training batch's forward and backward, group by group. The gradients of the
    // loss times `lossScale` are added into hostParameters.grads(); the mean loss is returned.
    // A StepInterrupted from the stage gate leaves no group on the device.
    double forwardBackward(const torch::Tensor &tokens, const torch::Tensor &targets, double lossScale = 1.0);
    void setStageGate(StageGate gate) { m_model->setStageGate(std::move(gate)); }

    // One microbatch through the span: forward from `input` (token ids [B, T] when the span
    // starts at the embedding, else activations [B, T, nEmbd]), then backward from the loss of
    // `targets` (when it ends with the head) or from `gradOutput` (the next span's gradient of
    // this span's output), each times `lossScale`. The parameter gradients are added into
    // hostParameters.grads(); returns the mean loss (0 without targets) and the input's
    // gradient on the device (undefined for token ids).
    struct SpanResult {
        double loss = 0.0;
        torch::Tensor inputGradient;
    };
    SpanResult backwardSpan(const torch::Tensor &input, const torch::Tensor &targets, const torch::Tensor &gradOutput,
                            double lossScale = 1.0);

    // The span's output for `input` (logits at the head), without gradients (evaluation).
    torch::Tensor forward(const torch::Tensor &input);

    // A plan of one group stays on the device between passes (the whole span fits the
    // budget): its weights are copied in again only after optimizerStep() or
    // hostValuesChanged(). Off by default: a swapped run gives the device back after each pass.
    void setKeepResident(bool keep);
    // The host parameters were changed behind the executor's back (a state import).
    void hostValuesChanged() { m_residentCurrent = false; }

    // One AdamW step of the host parameters (an AdamW over hostParameters): the norm, clip
    // scale and step count once, then each group's parameters on the host or the device, as
    // the plan places them. Returns the gradient norm before clipping.
    double optimizerStep(AdamW &optimizer, double lr, double maxNorm);

    const SwapTraffic &traffic() const { return m_traffic; }

private:
    // One tensor a stage reads: the device model's tensor, whose data is a view of its group's
    // buffer, and the host slot it comes from and returns gradients to.
    struct Binding {
        torch::Tensor weight;
        int slot = 0;
        std::int64_t offset = 0; // in the group's buffers
        std::int64_t numel = 0;
        bool shared = false;     // read by two stages (the tied embedding)
    };
    struct Group {
        SwapGroup range;
        std::vector<Binding> bindings; // those with gradients on the device first, then shared ones
        std::int64_t numel = 0;
        std::int64_t gradNumel = 0;
        std::vector<int> ownedSlots; // host slots this group's optimizer step updates: those it reads first
        torch::Tensor weights;  // device; storage only while in flight
        torch::Tensor grads;    // device; storage only during backward
        torch::Tensor returned; // host (pinned on CUDA): the gradients copied back
        CopyEvent uploaded;
    };

    // Per host slot, per share: the gradients of each stage that reads a shared weight.
    using SharedGradients = std::vector<std::vector<std::vector<torch::Tensor>>>;

    void upload(Group &group);
    SpanResult runForwardBackward(const torch::Tensor &input, const torch::Tensor &targets,
                                  const torch::Tensor &gradOutput, double lossScale);
    bool resident() const { return m_keepResident && m_groups.size() == 1; }
    // Runs compute(group, index) for every group in order with its weights on the device;
    // the last group stays there when `keepLast` (the forward/backward turn).
    void forwardGroups(bool keepLast, const std::function<void(Group &, int)> &compute);
    void accumulate(Group &group, const std::vector<std::vector<torch::Tensor>> &shareGrads,
                    SharedGradients &sharedGrads);
    void downloadGradients(Group &group);
    void release(Group &group);
    void addReturnedGradients(SharedGradients &sharedGrads);
    std::vector<torch::Tensor> groupWeights(const Group &group) const;
    // The update over `slots` with the fused kernel, adjacent slots merged into one range.
    void stepSlotsOnHost(AdamW &optimizer, const kernels::AdamWStep &update, std::vector<int> slots);
    // The update of `host` (a range of the flat buffers, or scratch copies of one) on the
    // device, a chunk at a time, with weights and moments copied back.
    void stepOnDevice(AdamW &optimizer, const kernels::AdamWStep &update, const AdamWRange &host);
    void measureOptimizer(AdamW &optimizer, std::vector<StageCost> &costs);
    // Runs `work`; while measuring, synchronized and timed into the group's first stage.
    template <typename Work>
    void timed(double StageCost::*field, const Group &group, Work &&work);

    FlatParameters &m_hostParameters;
    torch::Device m_device;
    ComputeDtype m_dtype;
    Decoder m_model{nullptr}; // the device copy: same modules, head untied
    int m_firstStage = 0; // the engine index of plan stage 0
    std::vector<std::int64_t> m_stageBytes;
    std::vector<std::int64_t> m_retainedBytes;
    std::vector<int> m_slotUses; // how many stages read each host slot
    SwapPlan m_plan;
    std::vector<Group> m_groups;
    std::vector<int> m_slotsNoGroupOwns; // stepped on the host
    std::int64_t m_deviceStepChunk = 1;  // elements per device optimizer chunk, within the largest stage's bytes
    CopyStream m_copies;
    SwapTraffic m_traffic;
    std::vector<StageCost> *m_measuring = nullptr;
    bool m_keepResident = false;
    bool m_residentCurrent = false; // the resident group's device weights equal the host's
};

} // namespace swarmtrain
