#include "MacIdleSource.h"

#include <CoreFoundation/CoreFoundation.h>
#include <IOKit/IOKitLib.h>

namespace swarmtrain {

static_assert(sizeof(io_service_t) == sizeof(std::uint32_t), "io_service_t is a mach port");

MacIdleSource::MacIdleSource()
{
    // MACH_PORT_NULL picks the default main port (kIOMasterPortDefault is deprecated since
    // macOS 12, kIOMainPortDefault missing before it). IOServiceMatching's dictionary is consumed.
    m_hidSystem = IOServiceGetMatchingService(MACH_PORT_NULL, IOServiceMatching("IOHIDSystem"));
}

MacIdleSource::~MacIdleSource()
{
    if (m_hidSystem)
        IOObjectRelease(m_hidSystem);
}

std::optional<double> MacIdleSource::idleSeconds() const
{
    if (!m_hidSystem)
        return std::nullopt;
    CFTypeRef property = IORegistryEntryCreateCFProperty(m_hidSystem, CFSTR("HIDIdleTime"), kCFAllocatorDefault, 0);
    if (!property)
        return std::nullopt;
    std::optional<double> seconds;
    std::int64_t nanoseconds = 0;
    // A number on current systems; some older ones stored the 8 bytes as data.
    if (CFGetTypeID(property) == CFNumberGetTypeID() &&
        CFNumberGetValue(static_cast<CFNumberRef>(property), kCFNumberSInt64Type, &nanoseconds))
        seconds = double(nanoseconds) / 1e9;
    else if (CFGetTypeID(property) == CFDataGetTypeID() &&
             CFDataGetLength(static_cast<CFDataRef>(property)) == CFIndex(sizeof(nanoseconds))) {
        CFDataGetBytes(static_cast<CFDataRef>(property), CFRangeMake(0, sizeof(nanoseconds)),
                       reinterpret_cast<UInt8 *>(&nanoseconds));
        seconds = double(nanoseconds) / 1e9;
    }
    CFRelease(property);
    if (seconds && *seconds < 0)
        return std::nullopt;
    return seconds;
}

} // namespace swarmtrain
