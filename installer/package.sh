#!/usr/bin/env bash
# Builds the Debian packages swarmtrain and swarmtrain-coordinator with CPack (packaging/) and
# prints their paths.
# Usage: installer/package.sh [BUILD_DIR]   (default: build/release, the release preset's)
# A BUILD_DIR not configured yet is configured like the release preset. Only the packaged
# programs are built, not the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}

export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
if [[ ! -f $build/CMakeCache.txt ]]; then
    ./installer/install-deps.sh >&2
    if [[ $build == build/release ]]; then
        cmake --preset release >&2
    else
        cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >&2
    fi
fi
# Build output goes to stderr: stdout is the packages' paths.
cmake --build "$build" --target swarmtrain swarmtrain-cli swarmtrain-coordinator swarmtrain_packaging_files >&2

for tool in cpack dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "package.sh: $tool is missing (apt-get install cmake dpkg-dev)" >&2; exit 1; }
done
mkdir -p "$build/packages"
rm -f "$build"/packages/*.deb
# cpack's own output goes to a log; its errors are shown.
if ! (cd "$build" && cpack -G DEB) >"$build/packages/cpack.log" 2>&1; then
    cat "$build/packages/cpack.log" >&2
    exit 1
fi
shopt -s nullglob
debs=("$build"/packages/*.deb)
((${#debs[@]} == 2)) || { echo "package.sh: expected 2 packages, got ${#debs[@]}" >&2; exit 1; }
for deb in "${debs[@]}"; do
    realpath "$deb"
done
