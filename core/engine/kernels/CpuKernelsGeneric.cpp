#define SWARMTRAIN_KERNEL_NAMESPACE generic
#include "CpuKernelsImpl.inc"
