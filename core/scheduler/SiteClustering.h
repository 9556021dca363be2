#pragma once

#include "CostModel.h"

#include <vector>

namespace swarmtrain::scheduler {

// Devices that reach each other over links no slower than `threshold` (single linkage on the
// pipeline edge cost t(d, e, c_pp)): an instance's GPUs, a data center, a region.
struct SiteClustering {
    double threshold = 0.0;
    std::vector<std::vector<int>> sites; // largest first
};

// The levels of the single-linkage hierarchy where sites are most clearly apart: those with the
// largest ratio between the link cost that would merge them next and `threshold`. Levels with one
// site or with every device alone are left out. At most `maxLevels`, best separated first.
std::vector<SiteClustering> findSiteClusterings(const CostModel &model, int maxLevels);

// Starting points for the search, built from sites. Both return stages() groups of
// dataParallel() devices; the devices left over are spares.
//
// Chained: the D_dp pipelines are rows of D_pp devices, and each site fills a row in one run of
// consecutive stages, the emptiest row first, so that the sites line up in the same columns.
// Neighbouring stages then talk inside sites, and each group (a column) spans sites: what suits
// fast sites of a few devices, like 4- or 8-GPU instances.
std::vector<std::vector<int>> chainedGroups(const SiteClustering &clustering, int stages, int dataParallel);
// Packed: each group is filled from as few sites as possible, so data parallelism stays inside
// sites and the pipeline crosses between them.
std::vector<std::vector<int>> packedGroups(const SiteClustering &clustering, int stages, int dataParallel);

} // namespace swarmtrain::scheduler
