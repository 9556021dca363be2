#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and runs the main job: swarmtrain-cli trains
# a small character GPT on Debian's fortunes with a live progress line, then writes a sample.
set -euo pipefail
cd "$(dirname "$0")/.."
./installer/build.sh release
out=${SWARMTRAIN_DEMO_DIR:-$HOME/.local/share/swarmtrain/demo}
exec ./build/release/app/cli/swarmtrain-cli train --data /usr/share/games/fortunes \
    --n-layer 4 --n-head 4 --n-embd 128 --block-size 64 --batch-size 12 \
    --max-iters 600 --lr-decay-iters 600 --eval-interval 100 --eval-iters 10 \
    --out "$out" --sample-tokens 300 "$@"
