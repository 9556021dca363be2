#pragma once

#include <cstdlib>

namespace swarmtrain::fuzz {

// A property every input a decoder accepts must have: a violation aborts, and libFuzzer keeps
// the input that did it.
inline void check(bool condition)
{
    if (!condition)
        std::abort();
}

} // namespace swarmtrain::fuzz
