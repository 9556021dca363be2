#!/usr/bin/env bash
# Installs everything SwarmTrain needs to build, test and run on Debian 12.
# Idempotent: packages already present are skipped, so it is cheap to call before every build.
set -euo pipefail

packages=(
    # toolchain
    g++ cmake ninja-build ccache pkg-config git
    # engine: LibTorch on OpenBLAS (reference BLAS makes LibTorch ~10x slower)
    libtorch-dev libopenblas0-pthread libopenblas-dev python3-torch
    # Qt 6: widgets, charts, translations, HTTP server
    qt6-base-dev qt6-charts-dev libqt6opengl6-dev libxkbcommon-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
    qt6-httpserver-dev qt6-websockets-dev libqt6sql6-sqlite
    # the coordinator on PostgreSQL behind HAProxy (issue 20; its tests start their own server)
    libqt6sql6-psql postgresql-15 haproxy
    # desktop idle time: Qt D-Bus (in qt6-base-dev), the ext-idle-notify-v1 Wayland protocol
    libwayland-dev libwayland-bin wayland-protocols
    # networking, crypto, storage, wire format
    libcurl4-openssl-dev libssl-dev nlohmann-json3-dev libsqlite3-dev libprotobuf-dev protobuf-compiler
    # command-line parsing (header-only)
    libcli11-dev
    # SentencePiece tokenizers (Llama-family vocabularies) and compressed corpora (gzip, zstd);
    # python3-sentencepiece checks that a trained tokenizer.model gives the same ids elsewhere
    libsentencepiece-dev python3-sentencepiece zlib1g-dev libzstd-dev
    # tests and benchmarks
    libgtest-dev libgmock-dev libbenchmark-dev xvfb xauth xdotool
    # idle tests: a private D-Bus session bus, and a headless Wayland compositor (weston)
    dbus weston
    # the coordinator's status page, loaded in a real browser (and the fonts its screenshot shows)
    chromium fonts-dejavu-core
    # Windows sources of core/platform: cross-built with mingw-w64, tested under Wine (tests/windows)
    g++-mingw-w64-x86-64-posix wine wine64 googletest
    # libFuzzer targets (SWARMTRAIN_FUZZ)
    clang libclang-rt-dev
    # the demo corpus
    fortunes fortunes-min
    # packaging: the Debian packages' checks and their install test (ctest -L package)
    lintian appstream desktop-file-utils debootstrap
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    echo "installing: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# LibTorch must use OpenBLAS, not the reference BLAS.
if command -v update-alternatives >/dev/null; then
    arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
    for lib in libblas.so.3 liblapack.so.3; do
        target=$(update-alternatives --list "$lib-$arch" 2>/dev/null | grep openblas-pthread | head -n1 || true)
        if [[ -n $target ]]; then
            ${sudo:-} update-alternatives --set "$lib-$arch" "$target" >/dev/null 2>&1 || true
        fi
    done
fi
