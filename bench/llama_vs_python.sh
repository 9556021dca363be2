#!/usr/bin/env bash
# The Llama family's CPU speed (issue 42): swarmtrain-cli training a Llama against
# bench/llama_reference.py (plain PyTorch, eager) on the same model and bytes, and against the
# engine's GPT at a matched parameter count (4 x 128: 12 C^2 a GPT block, 4 C^2 + 3 C x 344 a
# Llama block with as many key/value heads as heads). Each round runs the three back to back, so
# the ratios come from one run on a shared machine. Prints JSON lines; the last is the summary.
#   bench/llama_vs_python.sh DATA.txt [rounds] [iters]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: bench/llama_vs_python.sh DATA.txt [rounds] [iters]}
rounds=${2:-3}
iters=${3:-200}
cli=${SWARMTRAIN_CLI:-./build/release/app/cli/swarmtrain-cli}

common=(--tokenizer byte --n-layer 4 --n-head 4 --n-embd 128 --block-size 64 --batch-size 12)
llama=(--family llama --n-kv-head 4 --intermediate-size 344)
ms() { sed 's/.*"ms_per_iter": *\([0-9.e+-]*\).*/\1/'; }
engine_llama=() engine_gpt=() python_llama=()
for ((r = 0; r < rounds; r++)); do
    e=$("$cli" train --data "$data" "${common[@]}" "${llama[@]}" --max-iters "$iters" --eval-interval 100000 --eval-iters 1 --quiet 2>/dev/null)
    echo "$e" | sed 's/^{/{"bench":"train","impl":"engine","family":"llama",/'
    engine_llama+=("$(echo "$e" | ms)")
    g=$("$cli" train --data "$data" "${common[@]}" --max-iters "$iters" --eval-interval 100000 --eval-iters 1 --quiet 2>/dev/null)
    echo "$g" | sed 's/^{/{"bench":"train","impl":"engine","family":"gpt",/'
    engine_gpt+=("$(echo "$g" | ms)")
    # The reference gets its best threading (1 intra-op thread; more is slower on this CPU).
    p=$(/usr/bin/python3 bench/llama_reference.py --data "$data" --hidden-size 128 --intermediate-size 344 --layers 4 \
        --heads 4 --kv-heads 4 --block-size 64 --batch-size 12 --max-iters "$iters" --threads 1)
    echo "$p" | sed 's/^{/{"bench": "train", "impl": "python-pytorch", "family": "llama", /'
    python_llama+=("$(echo "$p" | ms)")
done
/usr/bin/python3 - "${engine_llama[*]}" "${engine_gpt[*]}" "${python_llama[*]}" <<'PY'
import json, statistics, sys
llama, gpt, python = ([float(x) for x in a.split()] for a in sys.argv[1:4])
print(json.dumps({
    "bench": "summary",
    "engine_llama_ms_per_iter": statistics.median(llama), "engine_gpt_ms_per_iter": statistics.median(gpt),
    "python_llama_ms_per_iter": statistics.median(python),
    # Per round, then the median: each round's runs were back to back.
    "llama_vs_python_eager": statistics.median(p / l for l, p in zip(llama, python)),
    "llama_vs_gpt_tokens_per_s": statistics.median(g / l for l, g in zip(llama, gpt)),
}))
PY
