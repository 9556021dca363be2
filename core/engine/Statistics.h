#pragma once

#include <algorithm>
#include <vector>

namespace swarmtrain {

// The median of timings (the upper one of the middle two for an even count); 0 when empty.
inline double median(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    const auto mid = values.begin() + std::ptrdiff_t(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    return *mid;
}

} // namespace swarmtrain
