#!/usr/bin/python3
"""Checks a GGUF file that `swarmtrain-cli export --format gguf` wrote, without SwarmTrain's code.

    gguf_check.py MODEL.gguf HF_FOLDER

HF_FOLDER is the same state exported with --format hf (its config.json, model.safetensors and
tokenizer.model; tests/reference/hf_export_check.py checks that one against the engine). The
GGUF is parsed with the standard library as the GGUF v3 specification lays it out (magic,
version, counts, typed metadata, tensor infos with innermost-first dimensions, data aligned to
general.alignment), and:
- the keys llama.cpp reads for the architecture hold config.json's values;
- the vocabulary (tokens, scores, types, <s>/</s>/unknown ids) is tokenizer.model's, as
  Debian's python3-sentencepiece reads it;
- every tensor is the Hugging Face tensor llama.cpp's convert_hf_to_gguf.py would make of it:
  its name mapped, q/k rows of each head permuted from "rotate half" to interleaved pairs (llama),
  Conv1D weights transposed (gpt2), norms in F32, the rest in the file type's dtype.
Prints one JSON object; exits 1 when a check fails, 2 when a file cannot be used.
"""
import json
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_file import read_safetensors  # noqa: E402

SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
GGML = {0: (torch.float32, 4), 1: (torch.float16, 2), 30: (torch.bfloat16, 2)}
FILE_TYPES = {0: torch.float32, 1: torch.float16, 32: torch.bfloat16}


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, fmt):
        (value,) = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return value

    def string(self):
        n = self.take("<Q")
        self.at += n
        return self.data[self.at - n:self.at].decode("utf-8")

    def value(self, kind):
        if kind == 8:
            return self.string()
        if kind == 9:
            inner, n = self.take("<I"), self.take("<Q")
            return [self.value(inner) for _ in range(n)]
        return self.take(SCALARS[kind])


def read_gguf(path):
    data = open(path, "rb").read()
    r = Reader(data)
    if data[:4] != b"GGUF":
        raise ValueError("not a GGUF file")
    r.at = 4
    version, n_tensors, n_keys = r.take("<I"), r.take("<Q"), r.take("<Q")
    meta = {}
    for _ in range(n_keys):
        key = r.string()
        meta[key] = r.value(r.take("<I"))
    infos = []
    for _ in range(n_tensors):
        name = r.string()
        dims = [r.take("<Q") for _ in range(r.take("<I"))]
        infos.append((name, dims, r.take("<I"), r.take("<Q")))
    alignment = meta.get("general.alignment", 32)
    start = (r.at + alignment - 1) // alignment * alignment
    tensors, misaligned = {}, []
    for name, dims, kind, offset in infos:
        dtype, size = GGML[kind]
        if offset % alignment:
            misaligned.append(name)
        count = 1
        for d in dims:
            count *= d
        raw = bytearray(data[start + offset:start + offset + count * size])
        tensors[name] = torch.frombuffer(raw, dtype=dtype).reshape(list(reversed(dims))).clone()
    return version, meta, tensors, misaligned


def permute(w, heads):
    """convert_hf_to_gguf.py's permute(): each head's rows from halves to interleaved pairs."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def expected_llama(c, hf):
    layer = {"input_layernorm.weight": "attn_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
             "self_attn.k_proj.weight": "attn_k.weight", "self_attn.v_proj.weight": "attn_v.weight",
             "self_attn.o_proj.weight": "attn_output.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
             "mlp.gate_proj.weight": "ffn_gate.weight", "mlp.up_proj.weight": "ffn_up.weight",
             "mlp.down_proj.weight": "ffn_down.weight"}
    out = {"token_embd.weight": hf["model.embed_tokens.weight"], "output_norm.weight": hf["model.norm.weight"]}
    if "lm_head.weight" in hf:
        out["output.weight"] = hf["lm_head.weight"]
    for n in range(c["num_hidden_layers"]):
        for name, gguf in layer.items():
            w = hf["model.layers.%d.%s" % (n, name)]
            if name == "self_attn.q_proj.weight":
                w = permute(w, c["num_attention_heads"])
            elif name == "self_attn.k_proj.weight":
                w = permute(w, c["num_key_value_heads"])
            out["blk.%d.%s" % (n, gguf)] = w
    return out


def expected_gpt2(c, hf):
    layer = {"ln_1": "attn_norm", "attn.c_attn": "attn_qkv", "attn.c_proj": "attn_output", "ln_2": "ffn_norm",
             "mlp.c_fc": "ffn_up", "mlp.c_proj": "ffn_down"}
    out = {"token_embd.weight": hf["transformer.wte.weight"], "position_embd.weight": hf["transformer.wpe.weight"],
           "output_norm.weight": hf["transformer.ln_f.weight"], "output_norm.bias": hf["transformer.ln_f.bias"]}
    for n in range(c["n_layer"]):
        for name, gguf in layer.items():
            for part in ("weight", "bias"):
                w = hf["transformer.h.%d.%s.%s" % (n, name, part)]
                out["blk.%d.%s.%s" % (n, gguf, part)] = w.t() if w.dim() == 2 else w
    return out


def architecture_keys(c):
    if c["model_type"] == "llama":
        return {"general.architecture": "llama", "llama.context_length": c["max_position_embeddings"],
                "llama.embedding_length": c["hidden_size"], "llama.block_count": c["num_hidden_layers"],
                "llama.feed_forward_length": c["intermediate_size"],
                "llama.attention.head_count": c["num_attention_heads"],
                "llama.attention.head_count_kv": c["num_key_value_heads"],
                "llama.rope.dimension_count": c["hidden_size"] // c["num_attention_heads"],
                "llama.vocab_size": c["vocab_size"]}
    return {"general.architecture": "gpt2", "gpt2.context_length": c["n_positions"], "gpt2.embedding_length": c["n_embd"],
            "gpt2.block_count": c["n_layer"], "gpt2.feed_forward_length": 4 * c["n_embd"],
            "gpt2.attention.head_count": c["n_head"]}


def vocabulary_problems(meta, model_file):
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor(model_file=model_file)
    problems = []
    if meta.get("tokenizer.ggml.model") != "llama":
        problems.append("tokenizer.ggml.model")
    tokens, scores, types = (meta["tokenizer.ggml." + k] for k in ("tokens", "scores", "token_type"))
    for i in range(sp.get_piece_size()):
        kind = 2 if sp.is_unknown(i) else 3 if sp.is_control(i) else 6 if sp.is_byte(i) else 5 if sp.is_unused(i) else 1
        if tokens[i] != sp.id_to_piece(i) or scores[i] != struct.unpack("<f", struct.pack("<f", sp.get_score(i)))[0] \
                or types[i] != kind:
            problems.append("piece %d" % i)
    for key, want in (("bos_token_id", sp.bos_id()), ("eos_token_id", sp.eos_id()), ("unknown_token_id", sp.unk_id())):
        if meta.get("tokenizer.ggml." + key) != want:
            problems.append(key)
    return problems[:10]


def main():
    gguf_path, folder = sys.argv[1], sys.argv[2]
    try:
        version, meta, tensors, misaligned = read_gguf(gguf_path)
        config = json.load(open(os.path.join(folder, "config.json")))
        _, hf, _ = read_safetensors(os.path.join(folder, "model.safetensors"))
    except (OSError, ValueError, KeyError, struct.error) as e:
        print(json.dumps({"error": repr(e)}))
        return 2
    expected = (expected_llama if config["model_type"] == "llama" else expected_gpt2)(config, hf)
    matrices = FILE_TYPES[meta["general.file_type"]]
    result = {
        "version": version,
        "tensors": len(tensors),
        "misaligned": misaligned,
        "wrong_keys": sorted(k for k, v in architecture_keys(config).items() if meta.get(k) != v),
        "missing": sorted(set(expected) - set(tensors)),
        "unexpected": sorted(set(tensors) - set(expected)),
    }
    result["wrong_values"] = sorted(
        n for n in set(expected) & set(tensors)
        if not torch.equal(tensors[n], expected[n].to(torch.float32 if expected[n].dim() == 1 else matrices)))
    result["vocabulary_problems"] = vocabulary_problems(meta, os.path.join(folder, "tokenizer.model"))
    result["ok"] = version == 3 and not any(result[k] for k in (
        "misaligned", "wrong_keys", "missing", "unexpected", "wrong_values", "vocabulary_problems"))
    print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
