// The one place that picks each concern's source for the OS being built (STYLE.md), and the
// only one that includes the per-OS headers besides their sources and tests.
#include "Autostart.h"
#include "IdleSource.h"
#include "PowerSource.h"
#include "ProcessList.h"

#if defined(__linux__)
#include "ProcfsProcessList.h"
#include "SysfsPowerSource.h"
#include "X11IdleSource.h"
#include "XdgAutostart.h"
#elif defined(_WIN32)
#include "WinAutostart.h"
#include "WinIdleSource.h"
#include "WinPowerSource.h"
#include "WinProcessList.h"
#elif defined(__APPLE__)
#include "MacAutostart.h"
#include "MacIdleSource.h"
#include "MacPowerSource.h"
#include "MacProcessList.h"
#endif

namespace swarmtrain {

namespace {

// An OS whose sources are not written yet: everything unknown, which never pauses training.
class UnknownPowerSource : public PowerSource {
public:
    std::optional<bool> onBattery() const override { return std::nullopt; }
};

class UnknownIdleSource : public IdleSource {
public:
    std::optional<double> idleSeconds() const override { return std::nullopt; }
};

class EmptyProcessList : public ProcessList {
public:
    std::vector<std::string> runningNames() const override { return {}; }
};

class NoAutostart : public Autostart {
public:
    bool isEnabled() const override { return false; }
    Result<void> enable(const std::filesystem::path &, const std::string &) override
    {
        return makeError("starting at login is not supported on this system yet");
    }
    Result<void> disable() override { return {}; }
};

} // namespace

#if defined(__linux__)
std::unique_ptr<PowerSource> makePowerSource() { return std::make_unique<SysfsPowerSource>(); }
std::unique_ptr<ProcessList> makeProcessList() { return std::make_unique<ProcfsProcessList>(); }
std::unique_ptr<Autostart> makeAutostart() { return std::make_unique<XdgAutostart>(XdgAutostart::defaultConfigDir()); }
// XScreenSaver, unknown without an X server. The desktop client reads Wayland sessions through
// makeDesktopIdleSource() (DesktopIdleSourceFactory.h, Qt) instead, since here it would read XWayland.
std::unique_ptr<IdleSource> makeIdleSource() { return std::make_unique<X11IdleSource>(); }
#elif defined(_WIN32)
std::unique_ptr<PowerSource> makePowerSource() { return std::make_unique<WinPowerSource>(); }
std::unique_ptr<ProcessList> makeProcessList() { return std::make_unique<WinProcessList>(); }
std::unique_ptr<Autostart> makeAutostart() { return std::make_unique<WinAutostart>(); }
std::unique_ptr<IdleSource> makeIdleSource() { return std::make_unique<WinIdleSource>(); }
#elif defined(__APPLE__)
std::unique_ptr<PowerSource> makePowerSource() { return std::make_unique<MacPowerSource>(); }
std::unique_ptr<ProcessList> makeProcessList() { return std::make_unique<MacProcessList>(); }
std::unique_ptr<Autostart> makeAutostart() { return std::make_unique<MacAutostart>(MacAutostart::defaultLaunchAgentsDir()); }
std::unique_ptr<IdleSource> makeIdleSource() { return std::make_unique<MacIdleSource>(); }
#else
std::unique_ptr<IdleSource> makeIdleSource() { return std::make_unique<UnknownIdleSource>(); }
std::unique_ptr<PowerSource> makePowerSource() { return std::make_unique<UnknownPowerSource>(); }
std::unique_ptr<ProcessList> makeProcessList() { return std::make_unique<EmptyProcessList>(); }
std::unique_ptr<Autostart> makeAutostart() { return std::make_unique<NoAutostart>(); }
#endif

} // namespace swarmtrain
