#!/usr/bin/python3
"""A plain PyTorch Llama, written from the published architecture, independent of the engine.

Llama (Touvron et al. 2023) as Hugging Face's LlamaForCausalLM lays it out: RMSNorm before
attention and MLP, rotary position embeddings on queries and keys (the "rotate half" layout,
inverse frequencies theta^(-2i/d)), grouped-query attention (each key/value head serves
n_head / n_kv_head query heads), a SwiGLU MLP (down(silu(gate(x)) * up(x))), no biases, a final
RMSNorm and an output head tied to the token embedding or not. Parameter names are Hugging
Face's (model.embed_tokens.weight, model.layers.N.self_attn.q_proj.weight, ...), so a state dict
of this module is what an exported Hugging Face folder holds.

Two uses:
- tests/reference/llama_parity.py loads the engine's weights into it and compares logits, loss
  and gradients (the engine's correctness check against an implementation that is not its own);
- as a script it trains the model eagerly on the CPU and prints one JSON line with the fields of
  `swarmtrain-cli train`, so bench/llama_vs_python.sh compares the two as a ratio in one run.
"""
import argparse
import json
import math
import resource
import statistics
import time

import torch
import torch.nn as nn
from torch.nn import functional as F


class RMSNorm(nn.Module):
    def __init__(self, width, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotary_tables(head_dim, positions, theta):
    """cos and sin [T, head_dim] of each position's angles, each frequency used twice."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    angles = positions.to(torch.float64)[:, None] * inv_freq[None, :]
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos().to(torch.float32), angles.sin().to(torch.float32)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_head = c["num_attention_heads"]
        self.n_kv_head = c["num_key_value_heads"]
        self.head_dim = c["hidden_size"] // self.n_head
        self.theta = c["rope_theta"]
        width = c["hidden_size"]
        self.q_proj = nn.Linear(width, self.n_head * self.head_dim, bias=False)
        self.k_proj = nn.Linear(width, self.n_kv_head * self.head_dim, bias=False)
        self.v_proj = nn.Linear(width, self.n_kv_head * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.n_head * self.head_dim, width, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_head, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_head, self.head_dim).transpose(1, 2)
        cos, sin = rotary_tables(self.head_dim, torch.arange(T), self.theta)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        group = self.n_head // self.n_kv_head
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        future = torch.ones(T, T, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.o_proj(y.transpose(1, 2).reshape(B, T, self.n_head * self.head_dim))


class Mlp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c["hidden_size"], c["intermediate_size"], bias=False)
        self.up_proj = nn.Linear(c["hidden_size"], c["intermediate_size"], bias=False)
        self.down_proj = nn.Linear(c["intermediate_size"], c["hidden_size"], bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.self_attn = Attention(c)
        self.post_attention_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.mlp = Mlp(c)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaBody(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList(DecoderLayer(c) for _ in range(c["num_hidden_layers"]))
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])


class LlamaForCausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = LlamaBody(config)
        self.tied = config.get("tie_word_embeddings", False)
        if not self.tied:
            self.lm_head = nn.Linear(config["hidden_size"], config["vocab_size"], bias=False)

    def head_weight(self):
        return self.model.embed_tokens.weight if self.tied else self.lm_head.weight

    def forward(self, tokens, targets=None):
        x = self.model.embed_tokens(tokens)
        for layer in self.model.layers:
            x = layer(x)
        logits = F.linear(self.model.norm(x), self.head_weight())
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main():
    p = argparse.ArgumentParser(description="Eager PyTorch Llama training on bytes of a text file (CPU)")
    p.add_argument("--data", required=True)
    p.add_argument("--hidden-size", type=int, default=128)
    p.add_argument("--intermediate-size", type=int, default=352)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--block-size", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=12)
    p.add_argument("--max-iters", type=int, default=50)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    data = torch.tensor(list(open(a.data, "rb").read()), dtype=torch.long)
    config = {"vocab_size": 256, "hidden_size": a.hidden_size, "intermediate_size": a.intermediate_size,
              "num_hidden_layers": a.layers, "num_attention_heads": a.heads, "num_key_value_heads": a.kv_heads,
              "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": True}
    model = LlamaForCausalLM(config)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                                  lr=1e-3, betas=(0.9, 0.99))
    times = []
    loss = None
    for it in range(a.max_iters):
        started = time.perf_counter()
        starts = torch.randint(len(data) - a.block_size - 1, (a.batch_size,))
        x = torch.stack([data[s:s + a.block_size] for s in starts])
        y = torch.stack([data[s + 1:s + 1 + a.block_size] for s in starts])
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        times.append(time.perf_counter() - started)
    ms = statistics.median(times[1:] if len(times) > 1 else times) * 1000.0
    print(json.dumps({
        "iters": a.max_iters, "train_loss": float(loss), "ms_per_iter": ms,
        "tokens_per_s": a.batch_size * a.block_size / (ms / 1000.0),
        "params": sum(p.numel() for p in model.parameters()), "threads": a.threads,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }))


if __name__ == "__main__":
    main()
