#include "WinIdleSource.h"

#include "WinText.h"

namespace swarmtrain {

double WinIdleSource::secondsBetween(std::uint32_t earlierTicks, std::uint32_t laterTicks)
{
    // Unsigned subtraction is right modulo 2^32, so a wrap in between costs nothing.
    return double(std::uint32_t(laterTicks - earlierTicks)) / 1000.0;
}

std::optional<double> WinIdleSource::idleSeconds() const
{
    LASTINPUTINFO info{};
    info.cbSize = sizeof(info);
    if (!GetLastInputInfo(&info))
        return std::nullopt;
    // dwTime is a GetTickCount() value; read the clock after it, so the difference is never negative.
    return secondsBetween(info.dwTime, GetTickCount());
}

} // namespace swarmtrain
