#pragma once

namespace swarmtrain {

// The desktop client: window, tray and throttling around the person using the PC. Returns the
// exit status. Without a display it says so and points at --headless.
int runDesktop(int argc, char **argv);

} // namespace swarmtrain
