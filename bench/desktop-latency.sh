#!/usr/bin/env bash
# Runs swarmtrain_desktop_latency on a private Xvfb display: a local swarm trains, xdotool moves
# the mouse, and the bench prints (JSON lines) how long the client took to stop computing, how
# late the GUI event loop ran while training, and its longest stall while leaving a swarm whose
# coordinator stopped answering (and how long quitting took during that leave). Needs xvfb and
# xdotool (installer/install-deps.sh).
# Arguments go to the bench: --trials N --data PATH --loop-seconds S --leave-trials N.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=./build/release/bench/swarmtrain_desktop_latency
cmake --build build/release --target swarmtrain_desktop_latency
exec xvfb-run -a -s "-screen 0 1280x800x24" "$bench" "$@"
