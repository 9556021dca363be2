#include "Partition.h"

#include <algorithm>
#include <numeric>

namespace swarmtrain::scheduler {

Partition::Partition(int stages, int dataParallel, std::vector<int> devices)
    : m_stages(stages), m_dataParallel(dataParallel), m_devices(std::move(devices)), m_slotOf(m_devices.size(), -1)
{
    for (std::size_t slot = 0; slot < m_devices.size(); ++slot)
        m_slotOf[std::size_t(m_devices[slot])] = int(slot);
}

Partition Partition::random(int deviceCount, int stages, int dataParallel, std::mt19937_64 &rng)
{
    std::vector<int> devices(static_cast<std::size_t>(deviceCount));
    std::iota(devices.begin(), devices.end(), 0);
    std::shuffle(devices.begin(), devices.end(), rng);
    return Partition(stages, dataParallel, std::move(devices));
}

Partition Partition::fromGroups(int deviceCount, const std::vector<std::vector<int>> &groups)
{
    std::vector<int> devices;
    std::vector<char> used(std::size_t(deviceCount), 0);
    for (const std::vector<int> &group : groups) {
        for (const int d : group) {
            devices.push_back(d);
            used[std::size_t(d)] = 1;
        }
    }
    for (int d = 0; d < deviceCount; ++d) {
        if (!used[std::size_t(d)])
            devices.push_back(d);
    }
    return Partition(int(groups.size()), groups.empty() ? 0 : int(groups[0].size()), std::move(devices));
}

std::span<const int> Partition::group(int g) const
{
    return std::span<const int>(m_devices).subspan(std::size_t(g) * std::size_t(m_dataParallel),
                                                   std::size_t(m_dataParallel));
}

std::span<const int> Partition::spares() const
{
    return std::span<const int>(m_devices).subspan(std::size_t(m_stages) * std::size_t(m_dataParallel));
}

int Partition::bucketOf(int device) const
{
    return std::min(m_slotOf[std::size_t(device)] / std::max(m_dataParallel, 1), m_stages);
}

std::vector<std::vector<int>> Partition::groups() const
{
    std::vector<std::vector<int>> result;
    for (int g = 0; g < m_stages; ++g)
        result.emplace_back(group(g).begin(), group(g).end());
    return result;
}

void Partition::swapDevices(int a, int b)
{
    const int slotA = m_slotOf[std::size_t(a)], slotB = m_slotOf[std::size_t(b)];
    std::swap(m_devices[std::size_t(slotA)], m_devices[std::size_t(slotB)]);
    m_slotOf[std::size_t(a)] = slotB;
    m_slotOf[std::size_t(b)] = slotA;
}

void Partition::rotate(std::span<const int> devices)
{
    // After swapping the first two, devices[1] sits in devices[0]'s old place; the next swap
    // sends it on to devices[2]'s place and brings devices[2] back there, and so on.
    for (std::size_t i = 1; i < devices.size(); ++i)
        swapDevices(devices[i - 1], devices[i]);
}

std::vector<int> Partition::canonical() const
{
    std::vector<std::vector<int>> buckets = groups();
    for (std::vector<int> &group : buckets)
        std::sort(group.begin(), group.end());
    std::sort(buckets.begin(), buckets.end());
    std::vector<int> result;
    for (const std::vector<int> &group : buckets)
        result.insert(result.end(), group.begin(), group.end());
    std::vector<int> spare(spares().begin(), spares().end());
    std::sort(spare.begin(), spare.end());
    result.insert(result.end(), spare.begin(), spare.end());
    return result;
}

} // namespace swarmtrain::scheduler
