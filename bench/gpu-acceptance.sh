#!/usr/bin/env bash
# The GPU path's acceptance run (issue 13), one command for a device machine with an H100 or H200,
# CUDA, CMake, ninja and pip's PyTorch, whose LibTorch (torch.utils.cmake_prefix_path) it builds the
# engine-only preset against. Header packages and GoogleTest's sources missing there come as .deb
# files (bench/fetch-gpu-debs.sh), unpacked into a private prefix under build/gpu-acceptance.
# It writes $OUT/gpu-acceptance.json after every step and $OUT/gpu-acceptance.log, prints a summary
# with the acceptance thresholds, and exits 0 only when every step and criterion passed. Without a
# CUDA device it stops at the first step that needs one (cuda_device), saying why.
#   GPU_DEBS=.debs OUT=/tmp/out bench/gpu-acceptance.sh [--deadline S] [--jobs N] [--steps a,b,...]
# The steps and options: bench/gpu-acceptance.sh --help (bench/gpu_acceptance.py does the work).
set -u
cd "$(dirname "$0")/.."
for python in "${PYTHON:-}" python3 /usr/bin/python3; do
    if [ -n "$python" ] && command -v "$python" >/dev/null 2>&1; then
        exec "$python" bench/gpu_acceptance.py "$@"
    fi
done
echo "gpu-acceptance.sh: no python3 found (set PYTHON)" >&2
exit 1
