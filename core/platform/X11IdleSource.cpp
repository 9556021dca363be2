#include "X11IdleSource.h"

#include "DynamicLibrary.h"

#include <dlfcn.h>

namespace swarmtrain {

namespace {

// The parts of Xlib and XScreenSaver's ABI we call, declared here so that building needs no X
// headers and running needs no X libraries (they are loaded when a display exists).
using Display = void;
using XID = unsigned long;
struct XScreenSaverInfo {
    XID window;
    int state;
    int kind;
    unsigned long tilOrSince;
    unsigned long idle; // milliseconds since the last input
    unsigned long eventMask;
};
using OpenDisplayFn = Display *(*)(const char *);
using CloseDisplayFn = int (*)(Display *);
using DefaultRootWindowFn = XID (*)(Display *);
using FreeFn = int (*)(void *);
using QueryExtensionFn = int (*)(Display *, int *, int *);
using AllocInfoFn = XScreenSaverInfo *(*)();
using QueryInfoFn = int (*)(Display *, XID, XScreenSaverInfo *);

} // namespace

struct X11IdleSource::Impl {
    void *x11 = nullptr;
    void *xss = nullptr;
    Display *display = nullptr;
    XID root = 0;
    CloseDisplayFn closeDisplay = nullptr;
    FreeFn free = nullptr;
    QueryInfoFn queryInfo = nullptr;
    XScreenSaverInfo *info = nullptr;

    ~Impl()
    {
        if (info && free)
            free(info);
        if (display && closeDisplay)
            closeDisplay(display);
        if (xss)
            dlclose(xss);
        if (x11)
            dlclose(x11);
    }
};

X11IdleSource::X11IdleSource(const char *display) : m_impl(std::make_unique<Impl>())
{
    Impl &d = *m_impl;
    d.x11 = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL);
    d.xss = dlopen("libXss.so.1", RTLD_NOW | RTLD_LOCAL);
    OpenDisplayFn openDisplay = nullptr;
    DefaultRootWindowFn defaultRoot = nullptr;
    QueryExtensionFn queryExtension = nullptr;
    AllocInfoFn allocInfo = nullptr;
    if (!d.x11 || !d.xss || !bindSymbol(d.x11, "XOpenDisplay", openDisplay) ||
        !bindSymbol(d.x11, "XCloseDisplay", d.closeDisplay) || !bindSymbol(d.x11, "XDefaultRootWindow", defaultRoot) ||
        !bindSymbol(d.x11, "XFree", d.free) || !bindSymbol(d.xss, "XScreenSaverQueryExtension", queryExtension) ||
        !bindSymbol(d.xss, "XScreenSaverAllocInfo", allocInfo) ||
        !bindSymbol(d.xss, "XScreenSaverQueryInfo", d.queryInfo))
        return;
    d.display = openDisplay(display);
    if (!d.display)
        return;
    int eventBase = 0;
    int errorBase = 0;
    if (!queryExtension(d.display, &eventBase, &errorBase))
        return;
    d.root = defaultRoot(d.display);
    d.info = allocInfo();
}

X11IdleSource::~X11IdleSource() = default;

std::optional<double> X11IdleSource::idleSeconds() const
{
    const Impl &d = *m_impl;
    if (!d.info || !d.queryInfo(d.display, d.root, d.info))
        return std::nullopt;
    return double(d.info->idle) / 1000.0;
}

} // namespace swarmtrain
