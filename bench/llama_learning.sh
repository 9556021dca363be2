#!/usr/bin/env bash
# Learning at equal wall-clock time (issue 42): on a text such as tinyshakespeare, the Llama family
# over a SentencePiece BPE vocabulary against nanoGPT's GPT over characters, each trained for the
# same seconds on this CPU, compared in validation bits per byte (losses per token cannot be
# compared across tokenizers). Then the full-model swarm of 4 peers on the Llama model against one
# machine at equal tokens (bench/SwarmSimulation.cpp). Prints JSON lines; the last is a summary.
#
#   bench/llama_learning.sh DATA.txt [seconds] [vocab] [swarm-rounds]
#
# The tokenizer learns from the first 90% of the text only: the validation split is the last 10%
# (the trainer's split by tokens), which it never sees. Each run's iterations come from a short
# calibration run of the same model (its ms per iteration), so the cosine schedule ends when the
# time does; --max-seconds stops a run that is slower than calibrated.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: bench/llama_learning.sh DATA.txt [seconds] [vocab] [swarm-rounds]}
seconds=${2:-120}
vocab=${3:-2048}
swarm_rounds=${4:-30}
cli=${SWARMTRAIN_CLI:-./build/release/app/cli/swarmtrain-cli}
simulation=${SWARMTRAIN_SIMULATION:-./build/release/bench/swarmtrain_swarm_simulation}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bytes=$(stat -c %s "$data")
head -c $(( bytes * 9 / 10 )) "$data" > "$work/train-part.txt"
"$cli" tokenizer train --input "$work/train-part.txt" --vocab-size "$vocab" --out "$work/tokenizer.model" 2>/dev/null \
    | sed 's/^{/{"bench":"tokenizer",/'

gpt=(--tokenizer char --n-layer 4 --n-head 4 --n-embd 128 --block-size 64 --batch-size 12)
llama=(--family llama --tokenizer sentencepiece --tokenizer-model "$work/tokenizer.model" --n-layer 4 --n-head 4
       --n-kv-head 2 --n-embd 128 --block-size 64 --batch-size 12)

# ms per iteration of a model: the median of a short run.
calibrate() {
    "$cli" train --data "$data" "$@" --max-iters 40 --eval-interval 100000 --eval-iters 1 --quiet 2>/dev/null \
        | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["ms_per_iter"])'
}

run() {
    local name=$1; shift
    local ms iters
    ms=$(calibrate "$@")
    iters=$(/usr/bin/python3 -c "print(max(100, int($seconds * 1000 / $ms)))")
    "$cli" train --data "$data" "$@" --max-iters "$iters" --lr-decay-iters "$iters" --warmup-iters 100 --lr 1e-3 \
        --min-lr 1e-4 --eval-interval "$iters" --eval-iters 40 --max-seconds "$seconds" --quiet 2>/dev/null \
        | sed "s/^{/{\"bench\":\"train\",\"run\":\"$name\",\"seconds\":$seconds,/" | tee "$work/$name.json"
}

run gpt-char "${gpt[@]}"
run llama-bpe "${llama[@]}"

"$simulation" --data "$data" --family llama --tokenizer-model "$work/tokenizer.model" --n-layer 4 --n-head 4 --n-kv-head 2 \
    --n-embd 128 --block-size 64 --batch-size 12 --peers 4 --inner-steps 50 --rounds "$swarm_rounds" \
    --only swarm 2>/dev/null | grep -E '"summary"|"config"' | sed 's/^{/{"bench":"swarm",/' | tee "$work/swarm.json"
"$simulation" --data "$data" --family llama --tokenizer-model "$work/tokenizer.model" --n-layer 4 --n-head 4 --n-kv-head 2 \
    --n-embd 128 --block-size 64 --batch-size 12 --peers 4 --inner-steps 50 --rounds "$swarm_rounds" \
    --only single_large_batch 2>/dev/null | grep -E '"summary"' | sed 's/^{/{"bench":"single",/' | tee "$work/single.json"

/usr/bin/python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
gpt = json.load(open(work + "/gpt-char.json"))
llama = json.load(open(work + "/llama-bpe.json"))
swarm = [json.loads(l) for l in open(work + "/swarm.json") if '"summary"' in l][-1]
single = [json.loads(l) for l in open(work + "/single.json")][-1]
print(json.dumps({
    "bench": "summary",
    "gpt_char_val_bpb": gpt["val_bpb"], "gpt_char_params": gpt["params"], "gpt_char_tokens_per_s": gpt["tokens_per_s"],
    "gpt_char_iters": gpt["iters"],
    "llama_bpe_val_bpb": llama["val_bpb"], "llama_bpe_params": llama["params"],
    "llama_bpe_tokens_per_s": llama["tokens_per_s"], "llama_bpe_iters": llama["iters"], "llama_vocab": llama["vocab_size"],
    "llama_beats_gpt": llama["val_bpb"] < gpt["val_bpb"],
    "swarm4_val_bpb": swarm["swarm_val_bpb"], "one_machine_val_bpb": single["single_large_batch_val_bpb"],
    "swarm_vs_one_machine": swarm["swarm_val_bpb"] / single["single_large_batch_val_bpb"] - 1.0,
}))
PY
