#!/usr/bin/env bash
# Downloads the Debian packages bench/gpu-acceptance.sh unpacks into a private prefix on a GPU
# machine that lacks them (never into /), into .debs/ (or DIR), and has git ignore that folder
# through .git/info/exclude, so it can travel with the run as a carried path:
#   googletest          GoogleTest's sources; built there with the LibTorch's C++ ABI and compiler
#   nlohmann-json3-dev  JSON for Modern C++ (header-only)
#   libcli11-dev        CLI11 (header-only), swarmtrain-cli's command line
#   libssl-dev          OpenSSL's headers, for libcrypto's SHA-256 (the machine's libcrypto.so.3 is linked)
# Not fetched: libgtest-dev (a library prebuilt against this machine's glibc; the sources above are
# built instead) and libbenchmark-dev (no acceptance step builds swarmtrain_engine_bench).
#   bench/fetch-gpu-debs.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.debs}
packages=(googletest nlohmann-json3-dev libcli11-dev libssl-dev)
exclude="$(git rev-parse --git-common-dir)/info/exclude"
line="/${dir#./}/"
mkdir -p "$(dirname "$exclude")" "$dir"
grep -qxF "$line" "$exclude" 2>/dev/null || echo "$line" >>"$exclude"
rm -f "$dir"/*.deb
(cd "$dir" && apt-get download "${packages[@]}")
ls -l "$dir"
echo "$(du -sh "$dir" | cut -f1) in $dir; carry it: carry [\"${dir#./}\"], GPU_DEBS=${dir#./}"
