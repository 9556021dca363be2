#!/usr/bin/python3
"""Checks a Hugging Face model folder that `swarmtrain-cli export` wrote, without SwarmTrain's code.

    hf_export_check.py FOLDER ENGINE.safetensors [--same-as FLOAT32_FOLDER] [--tolerance 1e-5]

- config.json gives the architecture (LlamaForCausalLM or GPT2LMHeadModel) and its sizes; the
  tensors model.safetensors must hold follow from them as transformers lays those models out
  (names, shapes), nothing more and nothing less, in the dtype config.json names.
- model.safetensors is read with the standard library (an 8-byte header length, a JSON header,
  raw bytes).
- A forward pass written here in plain PyTorch from those files (Llama: bench/llama_reference.py,
  written from the published architecture; GPT-2: below, with Conv1D's x @ W + b) must give the
  logits the engine computed (ENGINE.safetensors: input.tokens, engine.logits) within the
  tolerance. With --same-as, each tensor must instead be the float32 folder's, rounded to this
  folder's dtype.
- Where the folder has a SentencePiece tokenizer.model, Debian's python3-sentencepiece loads it,
  encodes the text in ENGINE.safetensors' metadata "text" into the ids the engine gave
  (input.text_ids), and the special tokens the folder names are the model's own.
Prints one JSON object; exits 1 when a check fails, 2 when a file cannot be used.
"""
import argparse
import json
import math
import os
import sys

import torch
from torch.nn import functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_reference import LlamaForCausalLM  # noqa: E402
from safetensors_file import DTYPES, read_safetensors  # noqa: E402

CONFIG_DTYPES = {"float32": "F32", "bfloat16": "BF16", "float16": "F16"}


def llama_layout(c):
    h, v, i = c["hidden_size"], c["vocab_size"], c["intermediate_size"]
    hd = c.get("head_dim", h // c["num_attention_heads"])
    q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    shapes = {"model.embed_tokens.weight": [v, h], "model.norm.weight": [h]}
    for n in range(c["num_hidden_layers"]):
        p = "model.layers.%d." % n
        shapes.update({
            p + "input_layernorm.weight": [h], p + "post_attention_layernorm.weight": [h],
            p + "self_attn.q_proj.weight": [q, h], p + "self_attn.k_proj.weight": [kv, h],
            p + "self_attn.v_proj.weight": [kv, h], p + "self_attn.o_proj.weight": [h, q],
            p + "mlp.gate_proj.weight": [i, h], p + "mlp.up_proj.weight": [i, h], p + "mlp.down_proj.weight": [h, i],
        })
    if not c.get("tie_word_embeddings", True):
        shapes["lm_head.weight"] = [v, h]
    return shapes


def gpt2_layout(c):
    e, v, inner = c["n_embd"], c["vocab_size"], c.get("n_inner") or 4 * c["n_embd"]
    shapes = {"transformer.wte.weight": [v, e], "transformer.wpe.weight": [c["n_positions"], e],
              "transformer.ln_f.weight": [e], "transformer.ln_f.bias": [e]}
    for n in range(c["n_layer"]):
        p = "transformer.h.%d." % n
        shapes.update({
            p + "ln_1.weight": [e], p + "ln_1.bias": [e], p + "ln_2.weight": [e], p + "ln_2.bias": [e],
            p + "attn.c_attn.weight": [e, 3 * e], p + "attn.c_attn.bias": [3 * e],
            p + "attn.c_proj.weight": [e, e], p + "attn.c_proj.bias": [e],
            p + "mlp.c_fc.weight": [e, inner], p + "mlp.c_fc.bias": [inner],
            p + "mlp.c_proj.weight": [inner, e], p + "mlp.c_proj.bias": [e],
        })
    if not c.get("tie_word_embeddings", True):
        shapes["lm_head.weight"] = [v, e]
    return shapes


def gpt2_logits(c, w, tokens):
    """GPT2LMHeadModel's forward, from its published layout: Conv1D is x @ W + b."""
    B, T = tokens.shape
    e, heads = c["n_embd"], c["n_head"]
    eps = c["layer_norm_epsilon"]
    gelu = {"gelu": F.gelu, "gelu_new": lambda x: F.gelu(x, approximate="tanh")}[c["activation_function"]]

    def conv1d(x, name):
        return x @ w[name + ".weight"] + w[name + ".bias"]

    def norm(x, name):
        return F.layer_norm(x, (e,), w[name + ".weight"], w[name + ".bias"], eps)

    x = w["transformer.wte.weight"][tokens] + w["transformer.wpe.weight"][torch.arange(T)]
    future = torch.ones(T, T, dtype=torch.bool).triu(1)
    for n in range(c["n_layer"]):
        p = "transformer.h.%d." % n
        q, k, v = conv1d(norm(x, p + "ln_1"), p + "attn.c_attn").split(e, dim=-1)
        q, k, v = (t.view(B, T, heads, e // heads).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(e // heads)
        y = F.softmax(scores.masked_fill(future, float("-inf")), dim=-1) @ v
        x = x + conv1d(y.transpose(1, 2).reshape(B, T, e), p + "attn.c_proj")
        x = x + conv1d(gelu(conv1d(norm(x, p + "ln_2"), p + "mlp.c_fc")), p + "mlp.c_proj")
    head = w.get("lm_head.weight", w["transformer.wte.weight"])
    return norm(x, "transformer.ln_f") @ head.t()


def check_tokenizer(folder, config, engine_meta, engine):
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(folder, "tokenizer.model"))
    special = json.load(open(os.path.join(folder, "special_tokens_map.json")))
    tokenizer_config = json.load(open(os.path.join(folder, "tokenizer_config.json")))
    ids = sp.encode(engine_meta["text"])
    return {
        "tokenizer_ids_equal": ids == engine["input.text_ids"].tolist(),
        "special_tokens_agree": (special["bos_token"] == sp.id_to_piece(sp.bos_id())
                                 and special["eos_token"] == sp.id_to_piece(sp.eos_id())
                                 and special["unk_token"] == sp.id_to_piece(sp.unk_id())
                                 and config["bos_token_id"] == sp.bos_id() and config["eos_token_id"] == sp.eos_id()
                                 and tokenizer_config["tokenizer_class"] == "LlamaTokenizer"),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("folder")
    p.add_argument("engine")
    p.add_argument("--same-as")
    p.add_argument("--tolerance", type=float, default=1e-5)
    a = p.parse_args()
    try:
        config = json.load(open(os.path.join(a.folder, "config.json")))
        _, weights, dtypes = read_safetensors(os.path.join(a.folder, "model.safetensors"))
        engine_meta, engine, _ = read_safetensors(a.engine)
        architecture = config["architectures"][0]
        layout = {"LlamaForCausalLM": llama_layout, "GPT2LMHeadModel": gpt2_layout}[architecture](config)
    except (OSError, ValueError, KeyError) as e:
        print(json.dumps({"error": repr(e)}))
        return 2
    want_dtype = CONFIG_DTYPES[config["torch_dtype"]]
    result = {
        "architecture": architecture,
        "tensors": len(weights),
        "missing": sorted(set(layout) - set(weights)),
        "unexpected": sorted(set(weights) - set(layout)),
        "wrong_shape": sorted(n for n in layout if n in weights and list(weights[n].shape) != layout[n]),
        "wrong_dtype": sorted(n for n in weights if dtypes[n] != want_dtype),
        "files": sorted(os.listdir(a.folder)),
    }
    ok = not (result["missing"] or result["unexpected"] or result["wrong_shape"] or result["wrong_dtype"])
    if ok and a.same_as:
        _, reference, _ = read_safetensors(os.path.join(a.same_as, "model.safetensors"))
        result["differs_from_rounded_float32"] = sorted(
            n for n in weights if not torch.equal(weights[n], reference[n].to(DTYPES[want_dtype])))
        ok = not result["differs_from_rounded_float32"]
    elif ok:
        tokens = engine["input.tokens"]
        w = {n: t.to(torch.float32) for n, t in weights.items()}
        with torch.no_grad():
            if architecture == "LlamaForCausalLM":
                model = LlamaForCausalLM(config)
                model.load_state_dict(w, strict=True)
                logits, _ = model(tokens)
            else:
                logits = gpt2_logits(config, w, tokens)
        result["logits_max_abs_diff"] = (logits - engine["engine.logits"]).abs().max().item()
        result["logits_max_abs"] = logits.abs().max().item()
        ok = result["logits_max_abs_diff"] <= a.tolerance
    if ok and os.path.exists(os.path.join(a.folder, "tokenizer.model")):
        result.update(check_tokenizer(a.folder, config, engine_meta, engine))
        ok = result["tokenizer_ids_equal"] and result["special_tokens_agree"]
    result["ok"] = ok
    print(json.dumps(result))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
