#include "MacPowerSource.h"

#include <CoreFoundation/CoreFoundation.h>
#include <IOKit/ps/IOPSKeys.h>
#include <IOKit/ps/IOPowerSources.h>

namespace swarmtrain {

std::optional<bool> MacPowerSource::onBattery() const
{
    CFTypeRef snapshot = IOPSCopyPowerSourcesInfo();
    if (!snapshot)
        return std::nullopt;
    // "Get": owned by the snapshot, not released here.
    CFStringRef providing = IOPSGetProvidingPowerSourceType(snapshot);
    std::optional<bool> result;
    if (providing) {
        if (CFStringCompare(providing, CFSTR(kIOPMACPowerKey), 0) == kCFCompareEqualTo)
            result = false;
        else if (CFStringCompare(providing, CFSTR(kIOPMBatteryPowerKey), 0) == kCFCompareEqualTo ||
                 CFStringCompare(providing, CFSTR(kIOPMUPSPowerKey), 0) == kCFCompareEqualTo)
            result = true;
    }
    CFRelease(snapshot);
    return result;
}

} // namespace swarmtrain
