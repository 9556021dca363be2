#!/usr/bin/python3
"""Checks the engine's Llama against bench/llama_reference.py, an implementation that is not its own.

    llama_parity.py CASE.safetensors [--tolerance 1e-5]

The file (written by LlamaReferenceTest) holds a model's weights under Hugging Face's names,
input.tokens and input.targets, and what the engine computed: engine.logits, engine.loss and
engine.grad.<name> of every weight. Its metadata's "config" is the model config. The file is
read with the standard library (safetensors is an 8-byte header length, a JSON header, raw
bytes); the reference model loads the weights with strict=True, runs forward and backward in
float32 on the CPU, and each figure is compared. Prints one JSON object with the largest
absolute differences; exits 1 when one exceeds the tolerance, 2 when the file cannot be used.
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_reference import LlamaForCausalLM  # noqa: E402
from safetensors_file import read_safetensors  # noqa: E402

def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--tolerance", type=float, default=1e-5)
    a = p.parse_args()
    try:
        metadata, tensors, _ = read_safetensors(a.file)
        config = json.loads(metadata["config"])
    except (OSError, ValueError, KeyError) as e:
        print(json.dumps({"error": str(e)}))
        return 2
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    weights = {k: v for k, v in tensors.items() if not k.startswith(("input.", "engine."))}
    model.load_state_dict(weights, strict=True)
    logits, loss = model(tensors["input.tokens"], tensors["input.targets"])
    loss.backward()
    result = {
        "tokens": list(tensors["input.tokens"].shape),
        "logits_max_abs_diff": (logits.detach() - tensors["engine.logits"]).abs().max().item(),
        "loss_abs_diff": abs(loss.item() - tensors["engine.loss"].item()),
        "loss": loss.item(),
        "logits_max_abs": logits.detach().abs().max().item(),
    }
    worst_grad, worst_name = 0.0, None
    for name, parameter in model.named_parameters():
        diff = (parameter.grad - tensors["engine.grad." + name]).abs().max().item()
        if diff >= worst_grad:
            worst_grad, worst_name = diff, name
    result["grad_max_abs_diff"] = worst_grad
    result["grad_worst"] = worst_name
    result["ok"] = all(result[k] <= a.tolerance for k in ("logits_max_abs_diff", "loss_abs_diff", "grad_max_abs_diff"))
    print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
