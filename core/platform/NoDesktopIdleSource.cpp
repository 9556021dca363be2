// Windows and macOS: the OS's own idle time is right in every session.
#include "DesktopIdleSourceFactory.h"

namespace swarmtrain {

std::unique_ptr<IdleSource> makeDesktopIdleSource() { return makeIdleSource(); }

} // namespace swarmtrain
