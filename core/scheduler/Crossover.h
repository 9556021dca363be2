#pragma once

#include "Partition.h"

#include <random>

namespace swarmtrain::scheduler {

// Group-wise crossover of two balanced partitions with the same grid. The buckets of `first`
// (groups, then spares) are cut at `points` random places; the child takes the pieces
// alternately from `first` and from `second`, whose groups are first aligned to `first`'s by
// overlap (group numbers mean nothing until the stage order is chosen). Repair keeps every
// bucket at its size: a device inherited twice stays in one bucket (buckets visited in random
// order), and the devices inherited by none fill the holes in random order.
Partition crossover(const Partition &first, const Partition &second, int points, std::mt19937_64 &rng);

} // namespace swarmtrain::scheduler
