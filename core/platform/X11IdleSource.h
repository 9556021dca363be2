#pragma once

#include "IdleSource.h"

#include <memory>

namespace swarmtrain {

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

} // namespace swarmtrain
