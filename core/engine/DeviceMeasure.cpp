#include "DeviceMeasure.h"

#include "Statistics.h"

#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

namespace swarmtrain {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

} // namespace

void synchronizeDevice(const torch::Device &device)
{
    if (device.is_cuda())
        torch::cuda::synchronize(device.index());
}

std::int64_t benchMatmulSize(const torch::Device &device) { return device.is_cuda() ? 8192 : 2048; }

double measureMatmulFlops(const torch::Device &device, torch::ScalarType dtype, std::int64_t n, double minSeconds)
{
    torch::NoGradGuard noGrad;
    const auto options = torch::TensorOptions().dtype(dtype).device(device);
    const torch::Tensor a = torch::randn({n, n}, options), b = torch::randn({n, n}, options);
    torch::Tensor c = torch::empty({n, n}, options);
    torch::mm_out(c, a, b); // warm-up: kernels chosen, memory touched
    synchronizeDevice(device);
    int products = 0;
    const auto started = Clock::now();
    do {
        torch::mm_out(c, a, b);
        ++products;
        synchronizeDevice(device);
    } while (secondsSince(started) < minSeconds);
    return 2.0 * double(n) * double(n) * double(n) * products / secondsSince(started);
}

Bandwidth measureBandwidth(const torch::Device &device, std::int64_t bytes, int repeats)
{
    const auto hostOptions = torch::TensorOptions().dtype(torch::kUInt8).pinned_memory(device.is_cuda());
    const torch::Tensor hostIn = torch::ones({bytes}, hostOptions), hostOut = torch::empty({bytes}, hostOptions);
    const torch::Tensor deviceIn = torch::ones({bytes}, torch::TensorOptions().dtype(torch::kUInt8).device(device));
    const torch::Tensor deviceOut = torch::empty_like(deviceIn);

    const auto rate = [&](const std::function<void()> &copy) {
        copy();
        synchronizeDevice(device);
        std::vector<double> seconds;
        for (int i = 0; i < repeats; ++i) {
            const auto started = Clock::now();
            copy();
            synchronizeDevice(device);
            seconds.push_back(secondsSince(started));
        }
        return double(bytes) / median(seconds);
    };
    Bandwidth result;
    result.hostToDevice = rate([&] { deviceOut.copy_(hostIn, true); });
    result.deviceToHost = rate([&] { hostOut.copy_(deviceIn, true); });

    // Both directions at once: on two streams of a GPU, on two threads of the CPU. Each
    // direction's rate is its bytes over the time both took.
    double both = 0.0;
    if (device.is_cuda()) {
        c10::impl::VirtualGuardImpl impl(device.type());
        const c10::Stream up = impl.getStreamFromGlobalPool(device), down = impl.getStreamFromGlobalPool(device);
        both = rate([&] {
            {
                c10::StreamGuard guard(up);
                deviceOut.copy_(hostIn, true);
            }
            c10::StreamGuard guard(down);
            hostOut.copy_(deviceIn, true);
        });
    } else {
        both = rate([&] {
            std::thread other([&] { deviceOut.copy_(hostIn); });
            hostOut.copy_(deviceIn);
            other.join();
        });
    }
    result.bothHostToDevice = both;
    result.bothDeviceToHost = both;
    return result;
}

} // namespace swarmtrain
