#pragma once

#include <cstdint>
#include <functional>

namespace swarmtrain::kernels {

// The engine's own worker threads for its kernels (attention heads, GELU). LibTorch's OpenMP
// pool stays at one thread because its spinning workers steal the cores BLAS needs; these
// workers sleep when idle, so they and BLAS share the cores without fighting.
void setParallelThreads(int threads);
int parallelThreads();

// Calls body(begin, end) over [0, n) in at most parallelThreads() contiguous chunks of at least
// `grain` items, one on the calling thread, and returns when all are done. Safe from several
// threads at once: a call that finds the pool busy runs its whole range on its own thread.
void parallelFor(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)> &body);

// The thread count of OpenBLAS, which LibTorch's matrix products run on (a no-op with another
// BLAS, which keeps its own setting).
void setBlasThreads(int threads);

} // namespace swarmtrain::kernels
