#include "GpuProbe.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace swarmtrain {

void probeNvidia(const GpuProbeOptions &options, GpuReport &report); // NvmlProbe.cpp
void probeApple(GpuReport &report);                                   // MacGpuProbe.cpp (nothing elsewhere)
bool probeRocmSmi(const GpuProbeOptions &options, GpuReport &report); // RocmSmiProbe.cpp

namespace {

std::string readFirstLine(const std::filesystem::path &path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::uint64_t readNumber(const std::filesystem::path &path, std::uint64_t fallback)
{
    const std::string text = readFirstLine(path);
    try {
        return text.empty() ? fallback : std::stoull(text, nullptr, 0);
    } catch (const std::exception &) {
        return fallback;
    }
}

// AMD GPUs through the amdgpu driver's sysfs files (no library to load or hang).
void probeAmd(const GpuProbeOptions &options, GpuReport &report)
{
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator(options.drmRoot, error)) {
        const std::string card = entry.path().filename().string();
        if (!card.starts_with("card") || card.find('-') != std::string::npos)
            continue; // connectors such as card0-DP-1
        const std::filesystem::path device = entry.path() / "device";
        if (readFirstLine(device / "vendor") != "0x1002")
            continue;
        GpuInfo gpu;
        gpu.vendor = "amd";
        const std::string product = readFirstLine(device / "product_name");
        gpu.name = !product.empty() ? product : "AMD GPU (device " + readFirstLine(device / "device") + ")";
        gpu.uuid = readFirstLine(device / "unique_id");
        gpu.memoryTotalBytes = readNumber(device / "mem_info_vram_total", 0);
        const std::uint64_t used = readNumber(device / "mem_info_vram_used", 0);
        gpu.memoryFreeBytes = gpu.memoryTotalBytes > used ? gpu.memoryTotalBytes - used : 0;
        gpu.utilizationPercent = int(readNumber(device / "gpu_busy_percent", std::uint64_t(-1)));
        for (const auto &hwmon : std::filesystem::directory_iterator(device / "hwmon", error)) {
            const std::uint64_t milli = readNumber(hwmon.path() / "temp1_input", 0);
            if (milli > 0)
                gpu.temperatureC = int(milli / 1000);
        }
        gpu.driverVersion = readFirstLine("/sys/module/amdgpu/version");
        report.gpus.push_back(std::move(gpu));
    }
}

std::string signalName(int signal)
{
    const char *name = strsignal(signal);
    return name ? std::string(name) : "signal " + std::to_string(signal);
}

} // namespace

GpuReport probeGpusInProcess(const GpuProbeOptions &options)
{
    GpuReport report;
    probeNvidia(options, report);
    if (!probeRocmSmi(options, report))
        probeAmd(options, report);
    probeApple(report);
    return report;
}

std::string gpuReportToJson(const GpuReport &report)
{
    nlohmann::json gpus = nlohmann::json::array();
    for (const GpuInfo &g : report.gpus) {
        nlohmann::json processes = nlohmann::json::array();
        for (const GpuProcess &p : g.processes)
            processes.push_back({{"pid", p.pid}, {"used_memory_bytes", p.usedMemoryBytes}});
        gpus.push_back({{"vendor", g.vendor},
                        {"name", g.name},
                        {"uuid", g.uuid},
                        {"driver_version", g.driverVersion},
                        {"memory_total_bytes", g.memoryTotalBytes},
                        {"memory_free_bytes", g.memoryFreeBytes},
                        {"utilization_percent", g.utilizationPercent},
                        {"temperature_c", g.temperatureC},
                        {"compute_capability", std::to_string(g.computeCapabilityMajor) + "."
                                                   + std::to_string(g.computeCapabilityMinor)},
                        {"processes", processes},
                        {"usable", g.usable},
                        {"unusable_reason", g.unusableReason}});
    }
    return nlohmann::json{{"gpus", gpus}, {"warnings", report.warnings}}.dump();
}

Result<GpuReport> gpuReportFromJson(const std::string &text)
{
    try {
        const nlohmann::json json = nlohmann::json::parse(text);
        GpuReport report;
        report.warnings = json.at("warnings").get<std::vector<std::string>>();
        for (const nlohmann::json &g : json.at("gpus")) {
            GpuInfo gpu;
            gpu.vendor = g.at("vendor").get<std::string>();
            gpu.name = g.at("name").get<std::string>();
            gpu.uuid = g.at("uuid").get<std::string>();
            gpu.driverVersion = g.at("driver_version").get<std::string>();
            gpu.memoryTotalBytes = g.at("memory_total_bytes").get<std::uint64_t>();
            gpu.memoryFreeBytes = g.at("memory_free_bytes").get<std::uint64_t>();
            gpu.utilizationPercent = g.at("utilization_percent").get<int>();
            gpu.temperatureC = g.at("temperature_c").get<int>();
            const std::string cc = g.at("compute_capability").get<std::string>();
            if (std::sscanf(cc.c_str(), "%d.%d", &gpu.computeCapabilityMajor, &gpu.computeCapabilityMinor) != 2)
                return makeError("GPU probe: bad compute capability \"" + cc + "\"");
            for (const nlohmann::json &p : g.at("processes"))
                gpu.processes.push_back({p.at("pid").get<std::uint32_t>(), p.at("used_memory_bytes").get<std::uint64_t>()});
            gpu.usable = g.value("usable", false);
            gpu.unusableReason = g.value("unusable_reason", std::string());
            report.gpus.push_back(std::move(gpu));
        }
        return report;
    } catch (const nlohmann::json::exception &e) {
        return makeError(std::string("GPU probe: malformed report: ") + e.what());
    }
}

int runGpuProbeChild(int argc, char **argv)
{
    GpuProbeOptions options;
    for (int i = 0; i + 1 < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--nvml")
            options.nvmlLibrary = argv[++i];
        else if (flag == "--drm")
            options.drmRoot = argv[++i];
        else if (flag == "--rocm-smi")
            options.rocmSmiLibrary = argv[++i];
    }
    std::cout << gpuReportToJson(probeGpusInProcess(options)) << std::endl;
    return 0;
}

Result<GpuReport> probeGpus(const std::vector<std::string> &childCommand, const GpuProbeOptions &options)
{
    std::vector<std::string> args = childCommand;
    args.insert(args.end(),
                {"--nvml", options.nvmlLibrary, "--drm", options.drmRoot, "--rocm-smi", options.rocmSmiLibrary});
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0)
        return makeError(std::string("GPU probe: cannot make a pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
    pid_t pid = -1;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipeFds[1]);
    if (spawned != 0) {
        ::close(pipeFds[0]);
        return makeError("GPU probe: cannot start " + args[0] + ": " + std::strerror(spawned));
    }

    std::string output;
    bool timedOut = false;
    const auto deadline = std::chrono::steady_clock::now() + options.timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            break;
        }
        pollfd fd{pipeFds[0], POLLIN, 0};
        const int ready = ::poll(&fd, 1, int(left.count()));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0) {
            timedOut = true;
            break;
        }
        char buffer[4096];
        const ssize_t got = ::read(pipeFds[0], buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        output.append(buffer, std::size_t(got));
    }
    ::close(pipeFds[0]);
    if (timedOut)
        ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }

    if (timedOut) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.1f", double(options.timeout.count()) / 1000.0);
        return GpuReport{{}, {"GPU probe gave no answer within " + std::string(seconds)
                                  + " s (a GPU driver library hung); GPUs unknown"}};
    }
    if (WIFSIGNALED(status))
        return GpuReport{{}, {"GPU probe crashed (" + signalName(WTERMSIG(status)) + "); GPUs unknown"}};
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return GpuReport{{}, {"GPU probe failed (exit status " + std::to_string(WEXITSTATUS(status)) + "); GPUs unknown"}};
    return gpuReportFromJson(output);
}

void markGpusUsable(std::vector<GpuInfo> &gpus, int cudaDevices)
{
    int nvidiaIndex = 0;
    for (GpuInfo &g : gpus) {
        g.usable = false;
        if (g.vendor != "nvidia") {
            g.unusable = GpuInfo::Unusable::NotNvidia;
            g.unusableReason = g.name + " found, but this build's LibTorch supports NVIDIA GPUs only";
        } else if (cudaDevices == 0) {
            g.unusable = GpuInfo::Unusable::NoCuda;
            g.unusableReason = g.name + " found, but this build's LibTorch has no CUDA";
        } else if (nvidiaIndex >= cudaDevices) {
            g.unusable = GpuInfo::Unusable::NotVisible;
            g.unusableReason = g.name + " found, but CUDA does not see it (CUDA_VISIBLE_DEVICES?)";
        } else {
            g.usable = true;
            g.unusable = GpuInfo::Unusable::No;
            g.unusableReason.clear();
        }
        nvidiaIndex += g.vendor == "nvidia";
    }
}

} // namespace swarmtrain
