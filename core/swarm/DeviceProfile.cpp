#include "DeviceProfile.h"

#include "DeviceBench.h"
#include "FileIo.h"
#include "GpuProbe.h"
#include "QtText.h"
#include "SwarmLog.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <thread>

namespace swarmtrain {

namespace {

using L = QLatin1StringView;

constexpr std::uint64_t kMaxProfileBytes = 1 << 20;

// What must stay the same for a stored benchmark to still describe this PC.
QJsonObject fingerprint(const DeviceProfileOptions &options, const std::vector<GpuInfo> &gpus)
{
    QJsonArray list;
    for (const GpuInfo &gpu : gpus) {
        list.append(QJsonObject{{L("name"), toQString(gpu.name)},
                                {L("driver"), toQString(gpu.driverVersion)},
                                {L("memory_bytes"), double(gpu.memoryTotalBytes)}});
    }
    return QJsonObject{{L("device"), toQString(options.device)},
                       {L("cpu_threads"), int(std::thread::hardware_concurrency())},
                       {L("gpus"), list}};
}

QJsonObject capabilityToJson(const DeviceCapability &c)
{
    return QJsonObject{{L("device"), toQString(c.device)},
                       {L("dtype"), toQString(c.dtype)},
                       {L("flops_per_s"), c.matmulFlopsPerSecond},
                       {L("host_to_device_bytes_per_s"), c.hostToDeviceBytesPerSecond},
                       {L("device_to_host_bytes_per_s"), c.deviceToHostBytesPerSecond},
                       {L("free_memory_bytes"), double(c.freeMemoryBytes)}};
}

DeviceCapability capabilityFromJson(const QJsonObject &json)
{
    DeviceCapability c;
    c.device = json.value(L("device")).toString().toStdString();
    c.dtype = json.value(L("dtype")).toString().toStdString();
    c.matmulFlopsPerSecond = json.value(L("flops_per_s")).toDouble();
    c.hostToDeviceBytesPerSecond = json.value(L("host_to_device_bytes_per_s")).toDouble();
    c.deviceToHostBytesPerSecond = json.value(L("device_to_host_bytes_per_s")).toDouble();
    c.freeMemoryBytes = qint64(json.value(L("free_memory_bytes")).toDouble());
    return c;
}

// The stored benchmark, when it was made on this PC as it is now.
std::optional<DeviceCapability> storedCapability(const std::filesystem::path &file, const QJsonObject &expected)
{
    Result<std::vector<std::byte>> bytes = readFileBytes(file, kMaxProfileBytes);
    if (!bytes)
        return std::nullopt;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray(reinterpret_cast<const char *>(bytes->data()), qsizetype(bytes->size())));
    const QJsonObject stored = document.object();
    if (stored.value(L("fingerprint")).toObject() != expected || !stored.value(L("capability")).isObject())
        return std::nullopt;
    return capabilityFromJson(stored.value(L("capability")).toObject());
}

} // namespace

Result<DeviceReport> loadOrMeasureDeviceProfile(const std::filesystem::path &stateDir, const DeviceProfileOptions &options)
{
    std::vector<GpuInfo> gpus;
    if (!options.gpuProbeCommand.empty()) {
        Result<GpuReport> probed = probeGpus(options.gpuProbeCommand, GpuProbeOptions{});
        if (probed)
            gpus = probed->gpus;
        else
            qCWarning(lcWorker).noquote() << "cannot list the GPUs:" << toQString(probed.error());
    }
    const QJsonObject expected = fingerprint(options, gpus);
    const std::filesystem::path file = stateDir / "device-profile.json";
    std::optional<DeviceCapability> capability = storedCapability(file, expected);
    if (!capability) {
        qCInfo(lcWorker).noquote() << "measuring this PC's device for the swarm (once)";
        Result<DeviceCapability> measured = measureDeviceCapability(options.device, options.threads);
        if (!measured)
            return measured.error();
        capability = *measured;
        const QByteArray json = QJsonDocument(QJsonObject{{L("fingerprint"), expected},
                                                          {L("capability"), capabilityToJson(*capability)}})
                                    .toJson();
        // Not fatal: the next start measures again.
        if (Result<void> saved = writeFileAtomically(
                file, std::span(reinterpret_cast<const std::byte *>(json.constData()), std::size_t(json.size())));
            !saved)
            qCWarning(lcWorker).noquote() << "cannot keep the device profile:" << toQString(saved.error());
    }

    DeviceReport report;
    report.kind = toQString(options.device);
    report.cpuThreads = int(std::thread::hardware_concurrency());
    for (const GpuInfo &gpu : gpus)
        report.gpus.push_back({toQString(gpu.name), toQString(gpu.vendor), qint64(gpu.memoryTotalBytes)});
    report.trainingMemoryBytes =
        options.deviceMemoryBudget > 0 ? options.deviceMemoryBudget : capability->freeMemoryBytes;
    report.flopsPerSecond = capability->matmulFlopsPerSecond;
    report.hostToDeviceBytesPerSecond = capability->hostToDeviceBytesPerSecond;
    report.deviceToHostBytesPerSecond = capability->deviceToHostBytesPerSecond;
    return report;
}

} // namespace swarmtrain
