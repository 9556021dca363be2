#pragma once

#include <dlfcn.h>

namespace swarmtrain {

// Points `function` at `symbol` of a library opened with dlopen; false (and null) if it lacks it.
template <typename F>
bool bindSymbol(void *library, const char *symbol, F &function)
{
    function = reinterpret_cast<F>(dlsym(library, symbol));
    return function != nullptr;
}

} // namespace swarmtrain
