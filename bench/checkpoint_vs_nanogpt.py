#!/usr/bin/python3
"""Opens a SwarmTrain checkpoint with Python's safetensors and checks it against nanoGPT.

    checkpoint_vs_nanogpt.py DIR/checkpoint.safetensors [--data TEXT] [--windows 8]

1. `safetensors.torch.load_file` reads the file (the metadata's model_config gives the model).
2. Its model tensors are compared, name by name, shape by shape, with the state dict of
   nanoGPT's GPT (model.py) for that config. The names are the same, with one difference:
   nanoGPT's state dict lists the tied output head twice, as transformer.wte.weight and
   lm_head.weight (one tensor), and the engine stores it once, as transformer.wte.weight. nanoGPT
   on PyTorch 2 uses flash attention and has no attn.bias mask buffer; bias=False leaves out
   every .bias. The engine's other tensors (optimizer.exp_avg, optimizer.exp_avg_sq, rng.*,
   tokenizer.vocab, outer.momentum) are not model weights and are listed, not compared.
3. The tensors are loaded with strict=True into bench/python_reference.py's GPT, which has
   nanoGPT's module names and forward pass, and its loss on windows of --data (bytes, from the
   last tenth, the engine's validation split) is set beside the checkpoint's own val_loss: a
   layout mismatch (a transposed or reordered weight) loads but gives a far worse loss.

Prints one JSON object; exits 1 when a check fails, 2 when the file cannot be read.
"""
import argparse
import json
import math
import os
import struct
import sys

import torch

ENGINE_EXTRAS = ("optimizer.", "rng.", "tokenizer.", "outer.")


def nanogpt_state_dict_shapes(config):
    """Name -> shape of nanoGPT's GPT(config).state_dict() on PyTorch 2 (flash attention)."""
    v, c, t = config["vocab_size"], config["n_embd"], config["block_size"]
    bias = config["bias"]
    shapes = {"transformer.wte.weight": [v, c], "transformer.wpe.weight": [t, c]}

    def layer_norm(name):
        shapes[name + ".weight"] = [c]
        if bias:
            shapes[name + ".bias"] = [c]

    def linear(name, n_out, n_in):
        shapes[name + ".weight"] = [n_out, n_in]
        if bias:
            shapes[name + ".bias"] = [n_out]

    for i in range(config["n_layer"]):
        h = "transformer.h.%d." % i
        layer_norm(h + "ln_1")
        linear(h + "attn.c_attn", 3 * c, c)
        linear(h + "attn.c_proj", c, c)
        layer_norm(h + "ln_2")
        linear(h + "mlp.c_fc", 4 * c, c)
        linear(h + "mlp.c_proj", c, 4 * c)
    layer_norm("transformer.ln_f")
    shapes["lm_head.weight"] = [v, c]  # tied: the same tensor as transformer.wte.weight
    return shapes


def read_header(path):
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(length))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("checkpoint")
    p.add_argument("--data", help="text the model trained on, for the forward check")
    p.add_argument("--windows", type=int, default=16)
    p.add_argument("--loss-tolerance", type=float, default=0.1,
                   help="largest |nanoGPT forward loss - checkpoint val_loss| that passes")
    a = p.parse_args()

    result = {"checkpoint": a.checkpoint, "bytes": os.path.getsize(a.checkpoint)}
    problems = []
    try:
        import safetensors
        from safetensors.torch import load_file
    except ImportError as e:
        print(json.dumps(dict(result, ok=False, error="the safetensors package is missing: %s" % e)))
        return 2
    try:
        tensors = load_file(a.checkpoint)
        metadata = read_header(a.checkpoint).get("__metadata__", {})
    except Exception as e:  # the package's own error type differs between versions
        print(json.dumps(dict(result, ok=False, error="safetensors cannot open it: %s" % e)))
        return 2
    result["loaded_with"] = "safetensors %s, safetensors.torch.load_file" % safetensors.__version__
    config = json.loads(metadata["model_config"])
    result["config"] = config
    result["metadata"] = {k: metadata[k] for k in ("format", "tokenizer", "iter", "val_loss") if k in metadata}

    expected = nanogpt_state_dict_shapes(config)
    model_tensors = {k: t for k, t in tensors.items() if not k.startswith(ENGINE_EXTRAS)}
    result["extras"] = sorted(k for k in tensors if k.startswith(ENGINE_EXTRAS))
    result["name_mapping"] = {"lm_head.weight": "transformer.wte.weight (tied, stored once)"}
    mapped = dict(model_tensors)
    if "transformer.wte.weight" in mapped:
        mapped["lm_head.weight"] = mapped["transformer.wte.weight"]
    missing = sorted(set(expected) - set(mapped))
    unexpected = sorted(set(mapped) - set(expected))
    shape_mismatches = sorted("%s: %s, nanoGPT %s" % (k, list(mapped[k].shape), expected[k])
                              for k in set(expected) & set(mapped) if list(mapped[k].shape) != expected[k])
    not_float32 = sorted(k for k, t in model_tensors.items() if t.dtype != torch.float32)
    result.update({"nanogpt_tensors": len(expected), "model_tensors": len(model_tensors), "missing": missing,
                   "unexpected": unexpected, "shape_mismatches": shape_mismatches, "not_float32": not_float32})
    for what, names in (("missing", missing), ("unexpected", unexpected), ("shape mismatches", shape_mismatches),
                        ("not float32", not_float32)):
        if names:
            problems.append("%d %s: %s" % (len(names), what, ", ".join(names[:5])))

    # nanoGPT's forward pass over the loaded weights (python_reference.GPT has nanoGPT's names).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from python_reference import GPT
    model = GPT(config["vocab_size"], config["n_layer"], config["n_head"], config["n_embd"], config["block_size"],
                config["bias"], 0.0, fused_attention=hasattr(torch.nn.functional, "scaled_dot_product_attention"))
    reference_names = set(model.state_dict())
    if reference_names != set(expected):
        problems.append("python_reference.GPT's state dict differs from nanoGPT's: %s"
                        % sorted(reference_names ^ set(expected))[:5])
    if not problems:
        try:
            model.load_state_dict(mapped, strict=True)
            result["strict_load"] = True
        except RuntimeError as e:
            problems.append("strict load into nanoGPT's module failed: %s" % str(e).splitlines()[0])
    if not problems and a.data and metadata.get("tokenizer") == "byte":
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model.to(device).eval()
        with open(a.data, "rb") as f:
            data = torch.frombuffer(bytearray(f.read()), dtype=torch.uint8).to(torch.long)
        val = data[int(0.9 * len(data)):]
        t = config["block_size"]
        g = torch.Generator().manual_seed(5)
        starts = torch.randint(len(val) - t - 1, (a.windows,), generator=g)
        x = torch.stack([val[s : s + t] for s in starts]).to(device)
        y = torch.stack([val[s + 1 : s + 1 + t] for s in starts]).to(device)
        with torch.no_grad():
            loss = float(model(x, y))
        result["nanogpt_forward_loss"] = loss
        result["uniform_loss"] = math.log(config["vocab_size"])
        if "val_loss" in metadata:
            engine_loss = float(metadata["val_loss"])
            result["checkpoint_val_loss"] = engine_loss
            if not math.isfinite(loss) or abs(loss - engine_loss) > a.loss_tolerance:
                problems.append("nanoGPT's forward loss %.4f is not within %.2f of the checkpoint's val_loss %.4f"
                                % (loss, a.loss_tolerance, engine_loss))
    result["problems"] = problems
    result["ok"] = not problems
    print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
