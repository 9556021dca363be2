#include "CpuKernels.h"

namespace swarmtrain::kernels {

// One declaration per instruction set, defined by CpuKernelsImpl.inc.
#define SWARMTRAIN_DECLARE_KERNELS(ns)                                                                                \
    namespace ns {                                                                                                     \
    void erfApprox(const float *x, float *y, std::int64_t n);                                                          \
    void geluForward(const float *x, float *y, std::int64_t n);                                                        \
    void geluBackward(const float *x, const float *gradY, float *gradX, std::int64_t n);                               \
    void adamwUpdate(float *param, const float *grad, float *expAvg, float *expAvgSq, std::int64_t n,                  \
                     const AdamWStep &s);                                                                              \
    void causalSoftmaxForward(const float *scores, float *probs, std::int64_t rows, std::int64_t t, float scale);      \
    void causalSoftmaxBackward(const float *probs, const float *gradProbs, float *gradScores, std::int64_t rows,       \
                               std::int64_t t, float scale);                                                           \
    }
SWARMTRAIN_DECLARE_KERNELS(generic)
#if SWARMTRAIN_HAVE_AVX2_KERNELS
SWARMTRAIN_DECLARE_KERNELS(avx2)
#endif

namespace {

bool useAvx2()
{
#if SWARMTRAIN_HAVE_AVX2_KERNELS
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return supported;
#else
    return false;
#endif
}

} // namespace

#if SWARMTRAIN_HAVE_AVX2_KERNELS
#define SWARMTRAIN_DISPATCH(name, ...) (useAvx2() ? avx2::name(__VA_ARGS__) : generic::name(__VA_ARGS__))
#else
#define SWARMTRAIN_DISPATCH(name, ...) generic::name(__VA_ARGS__)
#endif

void erfApprox(const float *x, float *y, std::int64_t n) { SWARMTRAIN_DISPATCH(erfApprox, x, y, n); }
void geluForward(const float *x, float *y, std::int64_t n) { SWARMTRAIN_DISPATCH(geluForward, x, y, n); }

void geluBackward(const float *x, const float *gradY, float *gradX, std::int64_t n)
{
    SWARMTRAIN_DISPATCH(geluBackward, x, gradY, gradX, n);
}

void adamwUpdate(float *param, const float *grad, float *expAvg, float *expAvgSq, std::int64_t n, const AdamWStep &s)
{
    SWARMTRAIN_DISPATCH(adamwUpdate, param, grad, expAvg, expAvgSq, n, s);
}

void causalSoftmaxForward(const float *scores, float *probs, std::int64_t rows, std::int64_t t, float scale)
{
    SWARMTRAIN_DISPATCH(causalSoftmaxForward, scores, probs, rows, t, scale);
}

void causalSoftmaxBackward(const float *probs, const float *gradProbs, float *gradScores, std::int64_t rows,
                           std::int64_t t, float scale)
{
    SWARMTRAIN_DISPATCH(causalSoftmaxBackward, probs, gradProbs, gradScores, rows, t, scale);
}

} // namespace swarmtrain::kernels
