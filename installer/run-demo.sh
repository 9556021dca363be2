#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and runs the main job: the client on a local
# demo swarm, a small Llama-family model (4 blocks, 128 wide, grouped-query attention) over a
# SentencePiece vocabulary of 1,024 pieces, both learned from Debian's fortunes.
# - With a display: the desktop window, hosting the demo swarm itself (an embedded coordinator)
#   and contributing to it; the dashboard shows tokens/s, rounds and the swarm's loss.
# - Without one: swarmtrain-coordinator, one helper peer in the background, and
#   `swarmtrain --headless` in the foreground, which prints what it does and one line per round.
# Ctrl-C (or Quit in the tray) leaves the swarm cleanly and stops everything. Extra arguments go
# to the foreground client (e.g. --device cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
./installer/build.sh release
bin=./build/release/app
demo=${SWARMTRAIN_DEMO_DIR:-$HOME/.local/share/swarmtrain/demo}
port=${SWARMTRAIN_DEMO_PORT:-8470}
mkdir -p "$demo"

if [[ -n ${DISPLAY:-}${WAYLAND_DISPLAY:-} && -z ${SWARMTRAIN_DEMO_HEADLESS:-} ]]; then
    echo "opening the SwarmTrain window on a local demo swarm (state in $demo/desktop)"
    exec "$bin/client/swarmtrain" --demo --demo-data /usr/share/games/fortunes --state-dir "$demo/desktop" "$@"
fi
echo "no display: running the client headless (set DISPLAY for the window)"

# The coordinator and the helper peer run in sessions of their own, so Ctrl-C reaches only the
# foreground client; they are stopped after it has left.
coordinator= helper=
cleanup() {
    [[ -n $helper ]] && kill -INT "$helper" 2>/dev/null && wait "$helper" 2>/dev/null
    [[ -n $coordinator ]] && kill -INT "$coordinator" 2>/dev/null && wait "$coordinator" 2>/dev/null
    return 0
}
trap cleanup EXIT

setsid "$bin/coordinator/swarmtrain-coordinator" --listen "127.0.0.1:$port" --state-dir "$demo/coordinator" \
    --data /usr/share/games/fortunes --tokenizer sentencepiece --vocab-size 1024 \
    --family llama --n-layer 4 --n-head 4 --n-kv-head 2 --n-embd 128 --block-size 64 --batch-size 12 \
    --inner-steps 50 --warmup-iters 50 --eval-iters 10 --heartbeat-interval 2 --gather-timeout 20 \
    >"$demo/coordinator.log" 2>&1 &
coordinator=$!
# It serves HTTPS with a self-signed certificate, whose key the clients pin, and prints an
# invite link for other PCs (the desktop client takes it).
# At its first start it learns the vocabulary and tokenizes the fortunes first (seconds).
echo "starting the demo swarm's coordinator (the first time, it learns its vocabulary from the fortunes)"
for _ in $(seq 600); do
    grep -q "^invite " "$demo/coordinator.log" 2>/dev/null && break
    kill -0 "$coordinator" 2>/dev/null || break
    sleep 0.2
done
if ! grep -q "^invite " "$demo/coordinator.log"; then
    cat "$demo/coordinator.log" >&2
    echo "the demo swarm did not start; if its state is from an earlier SwarmTrain (another model or data)," \
        "remove $demo and run this again" >&2
    exit 1
fi
pin=$(sed -n 's/^fingerprint //p' "$demo/coordinator.log" | head -n 1)
echo "demo swarm: coordinator at https://127.0.0.1:$port, certificate $pin (log $demo/coordinator.log)"
echo "  status: curl -k https://127.0.0.1:$port/v1/status; $(grep -m 1 '^invite ' "$demo/coordinator.log")"

setsid "$bin/client/swarmtrain" --headless --swarm "https://127.0.0.1:$port" --pin "$pin" \
    --state-dir "$demo/helper-peer" --listen 127.0.0.1:0 --threads 1 >"$demo/helper-peer.log" 2>&1 &
helper=$!

"$bin/client/swarmtrain" --headless --swarm "https://127.0.0.1:$port" --pin "$pin" --state-dir "$demo/peer" \
    --listen 127.0.0.1:0 --threads 1 "$@" &
client=$!
# Ctrl-C reaches the client and this script: the client leaves the swarm and exits by itself.
trap '' INT
wait "$client" || true
