#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and runs the whole test suite.
# The package test (ctest -L package: the .deb files installed into a clean Debian root) takes
# minutes, so it runs only when the packaging inputs (installer/packaging-hash.sh) differ from
# those it last passed with on this machine, recorded outside the checkout (CI clones afresh).
set -euo pipefail
cd "$(dirname "$0")/.."
./installer/build.sh release
ctest --preset release -j "$(nproc)" -LE package
export SWARMTRAIN_PACKAGE_TEST_STATE=${SWARMTRAIN_PACKAGE_TEST_STATE:-/var/cache/swarmtrain-package-test}
if [[ $(./installer/packaging-hash.sh) != "$(cat "$SWARMTRAIN_PACKAGE_TEST_STATE/passed.sha256" 2>/dev/null || true)" ]]; then
    echo "run-tests.sh: the packaging files differ from those the package test last passed with here: ctest -L package"
    ctest --preset release -L package --output-on-failure
fi
