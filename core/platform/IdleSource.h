#pragma once

#include <cstdint>
#include <memory>
#include <optional>

namespace swarmtrain {

// How long the person has not touched the keyboard or mouse. One implementation per OS (X11's
// XScreenSaver extension on Linux, GetLastInputInfo on Windows, the HID system's idle time on
// macOS); makeIdleSource() picks it.
class IdleSource {
public:
    virtual ~IdleSource() = default;
    // nullopt: unknown (no X server, a Wayland session without an idle protocol). Cheap enough
    // to ask several times a second.
    virtual std::optional<double> idleSeconds() const = 0;
};

// Linux under X11 (or XWayland): XScreenSaverQueryInfo from libXss, loaded at run time so the
// client starts on machines without X libraries. Unknown without a display.
class X11IdleSource : public IdleSource {
public:
    // `display`: an X display name ("" for $DISPLAY).
    explicit X11IdleSource(const char *display = nullptr);
    ~X11IdleSource() override;
    std::optional<double> idleSeconds() const override;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

#ifdef _WIN32
// Windows: GetLastInputInfo, the last keyboard or mouse input of this session.
class WinIdleSource : public IdleSource {
public:
    std::optional<double> idleSeconds() const override;
    // Seconds from one GetTickCount() reading to a later one, right across the counter's wrap
    // every 49.7 days.
    static double secondsBetween(std::uint32_t earlierTicks, std::uint32_t laterTicks);
};
#endif

#ifdef __APPLE__
// macOS: the HID system's HIDIdleTime (IOKit), which every input device resets.
class MacIdleSource : public IdleSource {
public:
    MacIdleSource();
    ~MacIdleSource() override;
    MacIdleSource(const MacIdleSource &) = delete;
    MacIdleSource &operator=(const MacIdleSource &) = delete;
    std::optional<double> idleSeconds() const override;

private:
    std::uint32_t m_hidSystem = 0; // the IOHIDSystem service (an io_service_t); 0: not found
};
#endif

std::unique_ptr<IdleSource> makeIdleSource();

} // namespace swarmtrain
