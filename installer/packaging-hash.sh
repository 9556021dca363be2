#!/usr/bin/env bash
# Prints the SHA-256 of the packaging inputs: what the package test (tests/package, ctest -L package)
# checks. installer/run-tests.sh runs that test when this differs from the hash the test recorded
# when it last passed on this machine. No git history needed (CI clones afresh).
# The inputs: a fixed list of files and folders (their files, sorted), and the install rules of
# the programs' CMakeLists.txt (their install() calls and the loops around them, not the rest).
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C

files=(
    installer/coordinator/haproxy.cfg
    installer/package.sh
    installer/packaging-hash.sh
    resources/io.github.swarmtrain.SwarmTrain.metainfo.xml
    resources/swarmtrain.desktop
    resources/icons/swarmtrain.svg
    tests/package.cmake
)
folders=(packaging tests/package)
install_rules=(app/cli/CMakeLists.txt app/client/CMakeLists.txt app/coordinator/CMakeLists.txt)

{
    for f in "${files[@]}"; do
        if [[ -f $f ]]; then sha256sum "$f"; else echo "missing $f"; fi
    done
    for d in "${folders[@]}"; do
        find "$d" -type f -print0 | sort -z | xargs -0r sha256sum
    done
    find resources/icons -name 'swarmtrain-*.png' -print0 | sort -z | xargs -0r sha256sum
    for f in "${install_rules[@]}"; do
        # install( ... ) calls, however many lines they take, and foreach/endforeach lines.
        echo "install rules of $f"
        awk '/^[[:space:]]*(foreach|endforeach)\(/ { print; next }
             /^[[:space:]]*install\(/ { depth = 0; inside = 1 }
             inside { print; n = split($0, c, ""); for (i = 1; i <= n; i++) { if (c[i] == "(") depth++; if (c[i] == ")") depth-- }
                      if (depth <= 0) inside = 0 }' "$f" | sha256sum
    done
} | sha256sum | cut -d' ' -f1
