#pragma once

#include "IdleSource.h"

#include <cstdint>

namespace swarmtrain {

// Windows: GetLastInputInfo, the last keyboard or mouse input of this session.
class WinIdleSource : public IdleSource {
public:
    std::optional<double> idleSeconds() const override;
    // Seconds from one GetTickCount() reading to a later one, right across the counter's wrap
    // every 49.7 days.
    static double secondsBetween(std::uint32_t earlierTicks, std::uint32_t laterTicks);
};

} // namespace swarmtrain
