#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace swarmtrain {

// How much a pseudo-gradient trained on a state `staleness` outer steps old still counts in an
// asynchronous round (issue 18), as in asynchronous federated and local-SGD work (FedAsync's
// polynomial decay, a = 1/2): 1 when fresh, 1/sqrt(1 + s) after s outer steps, so a stale
// direction moves the newest state less.
inline double stalenessWeight(std::int64_t staleness)
{
    return 1.0 / std::sqrt(1.0 + double(std::max<std::int64_t>(staleness, 0)));
}

} // namespace swarmtrain
