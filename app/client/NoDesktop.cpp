// A build without the desktop client (SWARMTRAIN_GUI off): only --headless.
#include "Desktop.h"

#include <iostream>

namespace swarmtrain {

int runDesktop(int, char **)
{
    std::cerr << "swarmtrain: this build has no desktop window; run with --headless" << std::endl;
    return 2;
}

} // namespace swarmtrain
