#include "GpuProbe.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>

namespace swarmtrain {

namespace {

// "8 GB", "1536 MB" -> bytes; 0 when unreadable.
std::uint64_t parseMemory(const std::string &text)
{
    std::istringstream in(text);
    double value = 0.0;
    std::string unit;
    if (!(in >> value >> unit))
        return 0;
    const double scale = unit == "GB" ? 1024.0 * 1024 * 1024 : unit == "MB" ? 1024.0 * 1024 : 0.0;
    return std::uint64_t(value * scale);
}

std::string vendorOf(const nlohmann::json &display)
{
    std::string vendor = display.value("sppci_vendor", display.value("spdisplays_vendor", ""));
    std::transform(vendor.begin(), vendor.end(), vendor.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    // In this order: "NVIDIA Corporation" and "Intel Corporation" contain "ati".
    const std::pair<const char *, const char *> known[] = {
        {"apple", "apple"}, {"nvidia", "nvidia"}, {"intel", "intel"}, {"amd", "amd"}, {"ati", "amd"}};
    for (const auto &[marker, vendorName] : known) {
        if (vendor.find(marker) != std::string::npos)
            return vendorName;
    }
    return "unknown";
}

} // namespace

std::vector<GpuInfo> parseSystemProfilerDisplays(const std::string &json, std::uint64_t unifiedMemoryBytes)
{
    std::vector<GpuInfo> gpus;
    const nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object() || !parsed.contains("SPDisplaysDataType") || !parsed["SPDisplaysDataType"].is_array())
        return gpus;
    for (const nlohmann::json &display : parsed["SPDisplaysDataType"]) {
        if (!display.is_object())
            continue;
        GpuInfo gpu;
        gpu.vendor = vendorOf(display);
        gpu.name = display.value("sppci_model", display.value("_name", std::string("GPU")));
        const std::string vram = display.value("spdisplays_vram", display.value("spdisplays_vram_shared", ""));
        // Apple silicon shares the machine's memory with the GPU and reports no VRAM of its own.
        gpu.memoryTotalBytes = !vram.empty() ? parseMemory(vram) : gpu.vendor == "apple" ? unifiedMemoryBytes : 0;
        gpus.push_back(std::move(gpu));
    }
    return gpus;
}

} // namespace swarmtrain
