#!/usr/bin/env bash
# The exported GGUF in llama.cpp itself (issue 44): a Llama-family model (and a GPT) trained for a
# few hundred steps over a SentencePiece BPE vocabulary, exported with `swarmtrain-cli export
# --format gguf`, loaded by llama.cpp through the npm package node-llama-cpp (its prebuilt
# binaries). llama.cpp's tokenization of a held-out passage must equal SentencePiece's, its
# next-token log-probabilities must match the engine's (mean absolute difference < 1e-3 in F32),
# and its greedy continuation of 64 tokens must be the engine's. Then generation speed: tokens per
# second of `swarmtrain-cli generate` (greedy, a key/value cache) against llama.cpp's on the same
# F32 GGUF of a larger Llama (6 layers, width 384), one thread each; the target is a ratio of at
# least 0.5. Prints JSON lines.
#
#   bench/gguf-vs-llamacpp.sh DATA.txt [steps] [dtype]
#
# node-llama-cpp is installed once into ~/.cache/swarmtrain-bench/node-llama-cpp (npm); without
# node and npm the bench says so and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: bench/gguf-vs-llamacpp.sh DATA.txt [steps] [dtype]}
steps=${2:-300}
dtype=${3:-float32}
cli=${SWARMTRAIN_CLI:-./build/release/app/cli/swarmtrain-cli}
reference=${SWARMTRAIN_EXPORT_REFERENCE:-./build/release/bench/swarmtrain_export_reference}
node_dir=${SWARMTRAIN_NODE_LLAMA_CPP:-$HOME/.cache/swarmtrain-bench/node-llama-cpp}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo '{"bench":"gguf_vs_llamacpp","skipped":"needs node and npm (Debian: apt-get install nodejs npm)"}'
    exit 0
fi
if [ ! -d "$node_dir/node_modules/node-llama-cpp" ]; then
    mkdir -p "$node_dir"
    (cd "$node_dir" && npm install --no-audit --no-fund node-llama-cpp >/dev/null 2>&1) || {
        echo '{"bench":"gguf_vs_llamacpp","skipped":"npm install node-llama-cpp failed"}'
        exit 0
    }
fi
cp bench/gguf_llamacpp.mjs "$node_dir/"

# The tokenizer learns from the first 90% of the text; the passage is from the last 10%.
bytes=$(stat -c %s "$data")
head -c $(( bytes * 9 / 10 )) "$data" > "$work/train-part.txt"
head -c $(( bytes - bytes / 10 + 2000 )) "$data" | tail -c 2000 > "$work/passage.txt"
"$cli" tokenizer train --input "$work/train-part.txt" --vocab-size 1024 --out "$work/tokenizer.model" >/dev/null 2>&1

for family in llama gpt; do
    "$cli" train --data "$data" --family "$family" --tokenizer sentencepiece --tokenizer-model "$work/tokenizer.model" \
        --n-layer 2 --n-head 4 --n-embd 64 --block-size 128 --max-iters "$steps" --eval-interval "$steps" --threads 1 \
        --quiet --out "$work/$family" >/dev/null 2>&1
    "$cli" export --state "$work/$family/checkpoint.safetensors" --format gguf --dtype "$dtype" \
        --out "$work/$family.gguf" >/dev/null
    "$reference" --state "$work/$family/checkpoint.safetensors" --text "$work/passage.txt" > "$work/$family.json"
    node "$node_dir/gguf_llamacpp.mjs" "$work/$family.gguf" "$work/$family.json" --threads 1 \
        | sed "s/^{/{\"family\":\"$family\",\"dtype\":\"$dtype\",\"steps\":$steps,/"
done

# Speed: a larger model (its weights as initialized: speed does not depend on them).
"$cli" train --data "$data" --family llama --tokenizer sentencepiece --tokenizer-model "$work/tokenizer.model" \
    --n-layer 6 --n-head 6 --n-kv-head 2 --n-embd 384 --block-size 256 --max-iters 1 --eval-interval 1 --eval-iters 1 \
    --threads 1 --quiet --out "$work/speed" >/dev/null 2>&1
"$cli" export --state "$work/speed/checkpoint.safetensors" --format gguf --out "$work/speed.gguf" >/dev/null
"$reference" --state "$work/speed/checkpoint.safetensors" --text "$work/passage.txt" --prompt-tokens 16 \
    --greedy-tokens 128 > "$work/speed.json"
llamacpp=$(node "$node_dir/gguf_llamacpp.mjs" "$work/speed.gguf" "$work/speed.json" --threads 1)
prompt=$(/usr/bin/python3 -c 'import sys; print(open(sys.argv[1], encoding="utf-8", errors="replace").read()[:60])' \
    "$work/passage.txt")
ours=$("$cli" generate --state "$work/speed/checkpoint.safetensors" --prompt "$prompt" --max-tokens 128 \
    --temperature 0 --threads 1 --json)
/usr/bin/python3 - "$llamacpp" "$ours" <<'PY'
import json, sys
theirs, ours = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(json.dumps({"bench": "generate_speed", "model": "llama 6x384, 2 kv heads, F32", "threads": 1,
                  "swarmtrain_tokens_per_s": ours["tokens_per_s"], "swarmtrain_tokens": ours["tokens"],
                  "llama_cpp_tokens_per_s": theirs["llama_cpp_generate_tokens_per_s"],
                  "ratio": ours["tokens_per_s"] / theirs["llama_cpp_generate_tokens_per_s"]}))
PY
