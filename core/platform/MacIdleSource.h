#pragma once

#include "IdleSource.h"

#include <cstdint>

namespace swarmtrain {

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

} // namespace swarmtrain
