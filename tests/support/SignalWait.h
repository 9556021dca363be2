#pragma once

#include <QSignalSpy>

namespace swarmtrain::test {

// Generous: CI's two cores may be busy with other tests, and a wait that passes ends early.
inline constexpr int kSignalWaitMs = 60'000;

// Waits until `spy` has caught `count` signals; false when they did not come in time.
inline bool waitFor(QSignalSpy &spy, int count = 1)
{
    while (spy.count() < count) {
        if (!spy.wait(kSignalWaitMs))
            return spy.count() >= count;
    }
    return true;
}

} // namespace swarmtrain::test
