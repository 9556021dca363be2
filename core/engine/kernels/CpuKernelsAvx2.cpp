// Built with -mavx2 -mfma; only called where the CPU has them.
#define SWARMTRAIN_KERNEL_NAMESPACE avx2
#include "CpuKernelsImpl.inc"
