#pragma once

#include <random>
#include <span>
#include <vector>

namespace swarmtrain::scheduler {

// A balanced partition of N devices into `stages` groups of exactly `dataParallel` devices, the
// rest spares. Stored as a permutation of the devices cut into consecutive blocks, so balance
// holds by construction: moves swap devices, never resize a group. Bucket `stages()` is the
// spares (empty when stages x dataParallel = N).
class Partition {
public:
    Partition() = default;
    // `devices` is a permutation of 0..N-1; its first dataParallel devices form group 0, and so on.
    Partition(int stages, int dataParallel, std::vector<int> devices);
    static Partition random(int deviceCount, int stages, int dataParallel, std::mt19937_64 &rng);
    // Groups listed explicitly (each dataParallel devices); the devices in none become spares.
    static Partition fromGroups(int deviceCount, const std::vector<std::vector<int>> &groups);

    int stages() const { return m_stages; }
    int dataParallel() const { return m_dataParallel; }
    int deviceCount() const { return int(m_devices.size()); }
    int bucketCount() const { return spareCount() > 0 ? m_stages + 1 : m_stages; }
    int spareCount() const { return deviceCount() - m_stages * m_dataParallel; }

    std::span<const int> group(int g) const;
    std::span<const int> spares() const;
    std::span<const int> bucket(int b) const { return b < m_stages ? group(b) : spares(); }
    int bucketOf(int device) const;
    std::vector<std::vector<int>> groups() const;
    const std::vector<int> &devices() const { return m_devices; }

    // Exchanges the places of two devices (no-op within one bucket).
    void swapDevices(int a, int b);
    // devices[0] takes devices[1]'s place, devices[1] devices[2]'s, ..., the last devices[0]'s.
    void rotate(std::span<const int> devices);
    // The same buckets, each sorted, buckets in a canonical order: equal for equal partitions.
    std::vector<int> canonical() const;

private:
    int m_stages = 0;
    int m_dataParallel = 0;
    std::vector<int> m_devices; // slot -> device
    std::vector<int> m_slotOf;  // device -> slot
};

} // namespace swarmtrain::scheduler
