#pragma once

#include "Result.h"
#include "TrainOptions.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <c10/core/Event.h>
#include <c10/core/Stream.h>
#include <torch/torch.h>

namespace swarmtrain {

// "auto" (the first CUDA device when this build's LibTorch has one, else the CPU), "cpu",
// "cuda" or "cuda:N". Asking for CUDA that this build cannot use is an error saying why.
Result<torch::Device> resolveDevice(const std::string &spec);

// Auto: float32 on the CPU; bfloat16 on GPUs that compute in it (compute capability 8.0 and
// up), float16 with loss scaling on older ones. Half precision is only offered on GPUs.
Result<ComputeDtype> resolveDtype(ComputeDtype requested, const torch::Device &device);

struct DeviceChoice {
    torch::Device device;
    ComputeDtype dtype;
};

// resolveDevice, then resolveDtype for it.
Result<DeviceChoice> resolveDeviceAndDtype(const std::string &deviceSpec, ComputeDtype requested);

// Compute capability of CUDA device `index` through the CUDA runtime LibTorch loaded;
// nothing when it cannot be asked.
std::optional<std::pair<int, int>> cudaComputeCapability(int index);

// Free bytes on the device (CUDA), or the memory available to programs (CPU).
std::int64_t deviceFreeBytes(const torch::Device &device);

// Mixed precision on the GPU for the scope's lifetime: matrix products in bfloat16 or
// float16, reductions and norms in float32, master weights in float32.
class AutocastScope {
public:
    AutocastScope(const torch::Device &device, ComputeDtype dtype);
    ~AutocastScope();
    AutocastScope(const AutocastScope &) = delete;
    AutocastScope &operator=(const AutocastScope &) = delete;

private:
    bool m_enabled = false;
};

// Marks a point in the copy stream's work that the compute stream or the host can wait for.
// On the CPU nothing is asynchronous and it stays empty.
struct CopyEvent {
    std::optional<c10::Event> event;
};

// A copy stream beside the compute stream (the current one) on a CUDA device, through c10's
// device-generic stream and event API. On the CPU every copy is synchronous and the waits
// do nothing, so the same caller code runs in CPU tests.
class CopyStream {
public:
    explicit CopyStream(const torch::Device &device);

    // Queues the copies `enqueue` issues on the copy stream, after everything queued so far on
    // the compute stream (they may write memory the compute stream just freed), and records
    // `done` after them.
    template <typename F>
    void copyAfterCompute(F &&enqueue, CopyEvent &done)
    {
        if (!m_copy) {
            enqueue();
            return;
        }
        c10::Event computed(m_device.type());
        computed.record(m_compute);
        computed.block(*m_copy);
        {
            c10::StreamGuard guard(*m_copy);
            enqueue();
        }
        done.event.emplace(m_device.type());
        done.event->record(*m_copy);
    }

    void computeWaitsFor(const CopyEvent &event);
    // The host waits for every copy queued so far.
    void hostWaitsForCopies();
    // The host waits for everything queued on both streams (for timing).
    void synchronize();
    // A buffer the copy stream reads must not be reused by the compute stream's allocator
    // until the copy has run.
    void keepUntilCopied(const torch::Tensor &tensor);

private:
    torch::Device m_device;
    c10::Stream m_compute;
    std::optional<c10::Stream> m_copy;
};

} // namespace swarmtrain
