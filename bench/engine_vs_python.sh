#!/usr/bin/env bash
# Engine benchmark: swarmtrain-cli against the Python PyTorch reference of the same model, run
# alternately on the same machine, so the ratio comes from one run. Prints JSON lines:
#   {"bench":"matmul", ...}                       FLOP/s of a 2048^3 fp32 product (same LibTorch/BLAS)
#   {"bench":"train","impl":"engine"|"python-pytorch","config":..., ...}   per run
#   {"bench":"ratio","config":..., "speedup":...} median over rounds of python ms/iter / engine ms/iter,
#     each round's two runs back to back (shared machines drift between fast and slow phases over
#     minutes; pairing cancels that), plus the ratio of the medians
# Usage: bench/engine_vs_python.sh DATA.txt [rounds] [iters]   (the large config runs iters/10)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: bench/engine_vs_python.sh DATA.txt [rounds] [iters]}
rounds=${2:-3}
iters=${3:-200}
cli=${SWARMTRAIN_CLI:-./build/release/app/cli/swarmtrain-cli}
threads=$(nproc)

/usr/bin/python3 - "$threads" <<'PY'
import json, sys, time, torch
torch.set_num_threads(1)  # BLAS threads itself; see configureThreads() in core/engine/Trainer.cpp
a, b = torch.randn(2048, 2048), torch.randn(2048, 2048)
for _ in range(3): a @ b
t = time.perf_counter(); n = 10
for _ in range(n): a @ b
s = (time.perf_counter() - t) / n
print(json.dumps({"bench": "matmul", "n": 2048, "dtype": "fp32", "flops_per_s": 2 * 2048**3 / s}))
PY

run_config() {
    local name=$1 iters=$2; shift 2
    local engine_ms=() python_ms=()
    for ((r = 0; r < rounds; r++)); do
        e=$("$cli" train --data "$data" "$@" --max-iters "$iters" --eval-interval 100000 --eval-iters 1 --quiet)
        echo "$e" | sed "s/^{/{\"bench\":\"train\",\"impl\":\"engine\",\"config\":\"$name\",/"
        engine_ms+=("$(echo "$e" | sed 's/.*"ms_per_iter":\([0-9.e+-]*\).*/\1/')")
        # The reference gets its best threading (1 intra-op thread; 2 is 2x slower here).
        p=$(/usr/bin/python3 bench/python_reference.py --data "$data" "$@" --max-iters "$iters" --threads 1)
        echo "$p" | sed "s/^{/{\"bench\": \"train\", \"config\": \"$name\", /"
        python_ms+=("$(echo "$p" | sed 's/.*"ms_per_iter": \([0-9.e+-]*\).*/\1/')")
    done
    /usr/bin/python3 - "$name" "${engine_ms[*]}" "${python_ms[*]}" <<'PY'
import json, statistics, sys
name, e, p = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
me, mp = statistics.median(e), statistics.median(p)
print(json.dumps({"bench": "ratio", "config": name, "engine_ms_per_iter": me, "python_ms_per_iter": mp,
                  "speedup": statistics.median(b / a for a, b in zip(e, p)), "speedup_of_medians": mp / me}))
PY
}

run_config small "$iters" --n-layer 4 --n-head 4 --n-embd 128 --block-size 64 --batch-size 12 --lr 1e-3 --beta2 0.99 \
    --warmup-iters 100 --lr-decay-iters 2000 --min-lr 1e-4
run_config large "$(( iters / 10 > 10 ? iters / 10 : 10 ))" --n-layer 6 --n-head 6 --n-embd 384 --block-size 256 --batch-size 12 --lr 1e-3 --beta2 0.99 \
    --warmup-iters 100 --lr-decay-iters 2000 --min-lr 1e-4
