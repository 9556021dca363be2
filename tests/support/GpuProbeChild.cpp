// The GPU probe's child process for the tests (swarmtrain-cli runs the same function).
#include "GpuProbe.h"

int main(int argc, char **argv) { return swarmtrain::runGpuProbeChild(argc - 1, argv + 1); }
