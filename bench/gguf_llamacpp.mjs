// llama.cpp (through the npm package node-llama-cpp's prebuilt binaries) on a GGUF that
// `swarmtrain-cli export --format gguf` wrote, against what the engine computed on the same state
// (swarmtrain_export_reference's JSON):
//   node bench/gguf_llamacpp.mjs MODEL.gguf ENGINE.json [--threads 1]
// Prints one JSON line: whether llama.cpp's tokenization of the text equals SentencePiece's, the
// mean and largest absolute difference of the next-token log-probabilities, whether the greedy
// continuation is the same, and llama.cpp's tokens per second while generating it.
import {readFileSync} from "node:fs";
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [modelPath, enginePath, ...rest] = process.argv.slice(2);
const threads = rest[0] === "--threads" ? Number(rest[1]) : 1;
const engine = JSON.parse(readFileSync(enginePath, "utf8"));

const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath});
const ids = model.tokenize(engine.text, false).map(Number);
const context = await model.createContext({contextSize: engine.logprobs.length + 1, batchSize: 512, threads, sequences: 2});

function logSoftmaxAt(logits, id) {
    let max = -Infinity;
    for (const v of logits.values()) max = Math.max(max, v);
    let sum = 0;
    for (const v of logits.values()) sum += Math.exp(v - max);
    return logits.get(id) - max - Math.log(sum);
}

function argmax(logits) {
    let best = null, bestValue = -Infinity;
    for (const [token, value] of logits) if (value > bestValue) [best, bestValue] = [token, value];
    return Number(best);
}

// Next-token log-probabilities over the passage, in one evaluation.
const window = engine.text_ids.slice(0, engine.logprobs.length + 1);
let sequence = context.getSequence();
const out = await sequence.controlledEvaluate(window.map((t, i) =>
    i + 1 < window.length ? [t, {generateNext: {logits: true}}] : t));
const diffs = engine.logprobs.map((lp, i) => Math.abs(logSoftmaxAt(out[i].next.logits, window[i + 1]) - lp));
sequence.dispose();

// Greedy continuation of the prompt, one token at a time on llama.cpp's KV cache.
sequence = context.getSequence();
const greedy = [];
let last = await sequence.controlledEvaluate(engine.prompt.map((t, i) =>
    i + 1 < engine.prompt.length ? t : [t, {generateNext: {logits: true}}]));
const started = performance.now();
for (let i = 0; i < engine.greedy.length; ++i) {
    const token = argmax(last[last.length - 1].next.logits);
    greedy.push(token);
    if (i + 1 < engine.greedy.length)
        last = await sequence.controlledEvaluate([[token, {generateNext: {logits: true}}]]);
}
const seconds = (performance.now() - started) / 1000;

const mean = diffs.reduce((a, b) => a + b, 0) / diffs.length;
console.log(JSON.stringify({
    bench: "gguf_vs_llamacpp",
    llama_cpp_tokens_equal: JSON.stringify(ids) === JSON.stringify(engine.text_ids),
    text_tokens: ids.length,
    logprob_positions: diffs.length,
    logprob_mean_abs_diff: mean,
    logprob_max_abs_diff: Math.max(...diffs),
    greedy_equal: JSON.stringify(greedy) === JSON.stringify(engine.greedy),
    greedy_tokens: greedy.length,
    greedy_first_difference: greedy.findIndex((t, i) => t !== engine.greedy[i]),
    llama_cpp_generate_tokens_per_s: greedy.length / seconds,
    threads,
}));
await context.dispose();
await model.dispose();
