#pragma once

#include <cstdint>

// Element-wise CPU kernels that LibTorch 1.13 runs slowly or in many passes: plain C++ loops
// the compiler vectorizes, built for AVX2+FMA and for any x86-64 / other CPU, picked at run time.
namespace swarmtrain::kernels {

// Exact (erf) GELU as torch.nn.GELU(), to within a few float ulps.
void geluForward(const float *x, float *y, std::int64_t n);
void geluBackward(const float *x, const float *gradY, float *gradX, std::int64_t n);

// Error function, rational approximation accurate to a few ulps (exposed for tests).
void erfApprox(const float *x, float *y, std::int64_t n);

// Softmax over the last axis of [rows, t] attention scores times `scale`, row r seeing only
// columns 0..(r mod t) (causal); the rest of the row is zero. Scale, mask and softmax in one
// pass, where LibTorch takes three.
void causalSoftmaxForward(const float *scores, float *probs, std::int64_t rows, std::int64_t t, float scale);
void causalSoftmaxBackward(const float *probs, const float *gradProbs, float *gradScores, std::int64_t rows,
                           std::int64_t t, float scale);

struct AdamWStep {
    float lr;
    float beta1;
    float beta2;
    float eps;
    float weightDecay;
    float gradScale;       // gradient clipping factor, applied on the fly
    float biasCorrection1; // 1 - beta1^t
    float biasCorrection2; // 1 - beta2^t
};

// One AdamW update in a single pass over param, grad and both moments, with exactly the
// arithmetic of torch.optim.AdamW (decoupled weight decay, then the Adam step).
void adamwUpdate(float *param, const float *grad, float *expAvg, float *expAvgSq, std::int64_t n, const AdamWStep &s);

} // namespace swarmtrain::kernels
