#!/usr/bin/env bash
# Installs what is missing, then configures and builds with the given CMake preset.
# Usage: installer/build.sh [preset]   (default: release)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}

./installer/install-deps.sh
# ccache must accept precompiled headers to cache the torch translation units.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
# Paths relative to the checkout, so a second clone or worktree hits the same cache entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
