// A stand-in for librocm_smi64.so.1 exporting the ROCm SMI functions GpuProbe uses.
// FAKE_ROCM_SMI_MODE: ok (one GPU) or init_fail.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" {
int rsmi_init(std::uint64_t)
{
    const char *mode = std::getenv("FAKE_ROCM_SMI_MODE");
    return mode && std::string(mode) == "init_fail" ? 8 : 0; // RSMI_STATUS_INIT_ERROR
}
int rsmi_shut_down() { return 0; }
int rsmi_num_monitor_devices(std::uint32_t *count)
{
    *count = 1;
    return 0;
}
int rsmi_dev_name_get(std::uint32_t, char *name, std::size_t length)
{
    std::strncpy(name, "Radeon RX 7900 XTX", length - 1);
    return 0;
}
int rsmi_dev_memory_total_get(std::uint32_t, int type, std::uint64_t *total)
{
    *total = 25753026560ull;
    return type == 0 ? 0 : 2;
}
int rsmi_dev_memory_usage_get(std::uint32_t, int type, std::uint64_t *used)
{
    *used = 1073741824ull;
    return type == 0 ? 0 : 2;
}
int rsmi_dev_busy_percent_get(std::uint32_t, std::uint32_t *busy)
{
    *busy = 12;
    return 0;
}
int rsmi_dev_temp_metric_get(std::uint32_t, std::uint32_t, int, std::int64_t *milli)
{
    *milli = 51000;
    return 0;
}
int rsmi_dev_unique_id_get(std::uint32_t, std::uint64_t *id)
{
    *id = 0xdeadbeefull;
    return 0;
}
int rsmi_version_str_get(int, char *text, std::uint32_t length)
{
    std::strncpy(text, "6.7.0", length - 1);
    return 0;
}
}
