// wayland-scanner's glue for ext-idle-notify-v1 is C, and the project builds only C++: it is
// compiled here with C linkage. C++ gives a const definition internal linkage unless an extern
// declaration came first, so the protocol's header comes first.
#include <cstdint>
#include <cstdlib>

#include "ext-idle-notify-v1-client-protocol.h"

// After the header's plain declarations the glue's "hidden" visibility is ignored, with a
// warning; a static library has nothing to hide the symbols from anyway.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
extern "C" {
#include "ext-idle-notify-v1-protocol.c"
}
#pragma GCC diagnostic pop
