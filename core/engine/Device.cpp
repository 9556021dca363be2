#include "Device.h"

#include "DeviceMemory.h"

#include <ATen/autocast_mode.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <torch/version.h>
#if SWARMTRAIN_HAVE_C10_CUDA
#include <c10/cuda/CUDACachingAllocator.h>

// From ATen/cuda/CUDAContextLight.h (libtorch_cuda), whose other declarations need the CUDA
// libraries' headers: frees the cuBLAS workspaces, which the caching allocator otherwise keeps
// allocated (64 MiB on an H100) for as long as the process lives.
namespace at::cuda {
void clearCublasWorkspaces();
}
#endif

namespace swarmtrain {

namespace {

// A function of the CUDA runtime that LibTorch loaded, if it did.
template <typename Function>
Function *cudaRuntimeFunction(const char *name)
{
    if (void *symbol = dlsym(RTLD_DEFAULT, name))
        return reinterpret_cast<Function *>(symbol);
    for (const char *library : {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"}) {
        if (void *handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD)) {
            if (void *symbol = dlsym(handle, name))
                return reinterpret_cast<Function *>(symbol);
        }
    }
    return nullptr;
}

void setAutocast(bool enabled, at::ScalarType dtype)
{
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_dtype(at::kCUDA, dtype);
    at::autocast::set_autocast_enabled(at::kCUDA, enabled);
#else
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(enabled);
#endif
}

} // namespace

Result<torch::Device> resolveDevice(const std::string &spec)
{
    const int cudaDevices = torch::cuda::is_available() ? int(torch::cuda::device_count()) : 0;
    if (spec == "auto")
        return cudaDevices > 0 ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    if (spec == "cpu")
        return torch::Device(torch::kCPU);
    if (spec != "cuda" && !spec.starts_with("cuda:"))
        return makeError("--device must be auto, cpu, cuda or cuda:N, got '" + spec + "'");
    int index = 0;
    if (spec != "cuda") {
        std::istringstream in(spec.substr(5));
        if (!(in >> index) || !in.eof() || index < 0)
            return makeError("--device " + spec + ": N in cuda:N must be a device number");
    }
    if (cudaDevices == 0) {
        return makeError("--device " + spec
                         + ": this build's LibTorch has no CUDA, or no CUDA device is usable (see swarmtrain-cli gpus)");
    }
    if (index >= cudaDevices)
        return makeError("--device " + spec + ": only " + std::to_string(cudaDevices) + " CUDA device(s) are usable");
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

Result<ComputeDtype> resolveDtype(ComputeDtype requested, const torch::Device &device)
{
    if (!device.is_cuda()) {
        if (requested == ComputeDtype::BFloat16 || requested == ComputeDtype::Float16)
            return makeError("--dtype " + computeDtypeName(requested) + " needs a GPU; the CPU trains in float32");
        return ComputeDtype::Float32;
    }
    if (requested != ComputeDtype::Auto)
        return requested;
    const auto capability = cudaComputeCapability(device.index());
    return capability && capability->first >= 8 ? ComputeDtype::BFloat16 : ComputeDtype::Float16;
}

Result<DeviceChoice> resolveDeviceAndDtype(const std::string &deviceSpec, ComputeDtype requested)
{
    Result<torch::Device> device = resolveDevice(deviceSpec);
    if (!device)
        return device.error();
    Result<ComputeDtype> dtype = resolveDtype(requested, *device);
    if (!dtype)
        return dtype.error();
    return DeviceChoice{*device, *dtype};
}

std::optional<std::pair<int, int>> cudaComputeCapability(int index)
{
    using GetAttribute = int(int *, int, int);
    constexpr int kMajor = 75, kMinor = 76; // cudaDevAttrComputeCapabilityMajor / Minor
    auto *getAttribute = cudaRuntimeFunction<GetAttribute>("cudaDeviceGetAttribute");
    int major = 0, minor = 0;
    if (!getAttribute || getAttribute(&major, kMajor, index) != 0 || getAttribute(&minor, kMinor, index) != 0)
        return std::nullopt;
    return std::pair{major, minor};
}

std::int64_t deviceFreeBytes(const torch::Device &device)
{
    if (device.is_cuda()) {
        using MemGetInfo = int(std::size_t *, std::size_t *);
        auto *memGetInfo = cudaRuntimeFunction<MemGetInfo>("cudaMemGetInfo");
        c10::DeviceGuard guard(device);
        std::size_t freeBytes = 0, totalBytes = 0;
        return memGetInfo && memGetInfo(&freeBytes, &totalBytes) == 0 ? std::int64_t(freeBytes) : 0;
    }
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::int64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit) {
        if (key == "MemAvailable:")
            return kib * 1024;
    }
    return 0;
}

AutocastScope::AutocastScope(const torch::Device &device, ComputeDtype dtype)
    : m_enabled(device.is_cuda() && (dtype == ComputeDtype::BFloat16 || dtype == ComputeDtype::Float16))
{
    if (m_enabled)
        setAutocast(true, dtype == ComputeDtype::BFloat16 ? at::kBFloat16 : at::kHalf);
}

AutocastScope::~AutocastScope()
{
    if (m_enabled) {
        setAutocast(false, at::kHalf);
        at::autocast::clear_cache(); // the half-precision weight copies made in the scope
    }
}

CopyStream::CopyStream(const torch::Device &device)
    : m_device(device)
    , m_compute(c10::Stream::DEFAULT, device)
{
    if (!device.is_cuda())
        return;
    c10::impl::VirtualGuardImpl impl(device.type());
    m_compute = impl.getStream(device);
    m_copy = impl.getStreamFromGlobalPool(device);
}

void CopyStream::computeWaitsFor(const CopyEvent &event)
{
    if (event.event)
        event.event->block(m_compute);
}

void CopyStream::hostWaitsForCopies()
{
    if (m_copy)
        m_copy->synchronize();
}

void CopyStream::synchronize()
{
    if (!m_copy)
        return;
    m_compute.synchronize();
    m_copy->synchronize();
}

void CopyStream::keepUntilCopied(const torch::Tensor &tensor)
{
    if (!m_copy)
        return;
    c10::impl::VirtualGuardImpl impl(m_device.type());
    impl.recordDataPtrOnStream(tensor.storage().data_ptr(), *m_copy);
}

void releaseCachedDeviceMemory()
{
#if SWARMTRAIN_HAVE_C10_CUDA
    if (torch::cuda::is_available()) {
        at::cuda::clearCublasWorkspaces();
        c10::cuda::CUDACachingAllocator::emptyCache();
    }
#endif
}

DeviceMemoryUse deviceMemoryUse([[maybe_unused]] int index)
{
    DeviceMemoryUse use;
#if SWARMTRAIN_HAVE_C10_CUDA
    if (torch::cuda::is_available() && index >= 0 && index < int(torch::cuda::device_count())) {
        try {
            const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
            constexpr std::size_t kAggregate = 0; // StatType::AGGREGATE: both pools, small and large blocks
            use.allocatedBytes = stats.allocated_bytes[kAggregate].current;
            use.reservedBytes = stats.reserved_bytes[kAggregate].current;
        } catch (const c10::Error &) {
            // Before CUDA's first use the allocator has no devices and refuses ("Invalid device
            // argument"); it holds nothing then, and initialising CUDA here would create a context.
        }
    }
#endif
    return use;
}

} // namespace swarmtrain
