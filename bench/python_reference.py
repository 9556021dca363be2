#!/usr/bin/python3
"""Python PyTorch reference for the engine benchmark: nanoGPT's model and training loop.

Same architecture, module names (so its state dict is nanoGPT's), initialisation, optimizer
(AdamW, decay on 2-D weights only), cosine schedule and gradient clipping as nanoGPT's
train.py, run eagerly on the CPU. Prints one JSON line with the same fields as
`swarmtrain-cli train`, so the two can be compared as a ratio within one run
(bench/engine_vs_python.sh).

On a GPU (--device cuda) it runs as nanoGPT's train.py does there: fused scaled-dot-product
(flash) attention, fused AdamW, autocast to --dtype, optionally torch.compile; --tokenizer byte
and --vocab-size (nanoGPT pads GPT-2's 50257 to 50304) give the engine's byte-level model. Such
a run adds device, dtype, compiled, tokenizer, vocab_size, attention and model_flops_per_s to
the JSON line (bench/gpu-acceptance.sh reads them); a CPU run prints exactly the fields above.
"""
import argparse
import contextlib
import json
import math
import resource
import statistics
import time

import torch
import torch.nn as nn
from torch.nn import functional as F


class LayerNorm(nn.Module):
    """LayerNorm with an optional bias, as nanoGPT (PyTorch's has none to switch off)."""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, bias, dropout, fused):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=bias)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head = n_head
        self.dropout = dropout
        self.fused = fused
        if not fused:  # not part of the state dict: nanoGPT with flash attention has no mask buffer
            mask = torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size)
            self.register_buffer("bias", mask, persistent=False)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.fused:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None,
                                               dropout_p=self.dropout if self.training else 0.0, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, n_embd, bias, dropout):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, bias, dropout, fused):
        super().__init__()
        self.ln_1 = LayerNorm(n_embd, bias)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, bias, dropout, fused)
        self.ln_2 = LayerNorm(n_embd, bias)
        self.mlp = MLP(n_embd, bias, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, n_layer, n_head, n_embd, block_size, bias, dropout, fused_attention=False):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            drop=nn.Dropout(dropout),
            h=nn.ModuleList([Block(n_embd, n_head, block_size, bias, dropout, fused_attention)
                             for _ in range(n_layer)]),
            ln_f=LayerNorm(n_embd, bias),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            torch.nn.init.zeros_(module.bias)

    def forward(self, idx, targets):
        T = idx.size(1)
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def flops_per_token(params, n_layer, n_embd, block_size):
    """Training FLOPs per token as the engine counts them (GptConfig::flopsPerToken)."""
    return 6.0 * (params - block_size * n_embd) + 12.0 * n_layer * n_embd * block_size


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--n-layer", type=int, default=4)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--n-embd", type=int, default=128)
    p.add_argument("--block-size", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=12)
    p.add_argument("--max-iters", type=int, default=200)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--min-lr", type=float, default=1e-4)
    p.add_argument("--warmup-iters", type=int, default=100)
    p.add_argument("--lr-decay-iters", type=int, default=2000)
    p.add_argument("--beta2", type=float, default=0.99)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--grad-clip", type=float, default=1.0)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--warmup-skip", type=int, default=5, help="iterations left out of the median")
    p.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    p.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"],
                   help="autocast precision of the matrix products on a GPU")
    p.add_argument("--compile", action="store_true", help="torch.compile the model")
    p.add_argument("--tokenizer", default="char", choices=["char", "byte"])
    p.add_argument("--vocab-size", type=int, default=0, help="pad the vocabulary to this size")
    p.add_argument("--attention", default="auto", choices=["auto", "manual", "fused"],
                   help="auto: fused scaled-dot-product attention on a GPU, the explicit mask on the CPU")
    a = p.parse_args()

    device = torch.device(a.device)
    gpu = device.type == "cuda"
    if gpu and not torch.cuda.is_available():
        p.error("--device %s: torch.cuda.is_available() is False" % a.device)
    if not gpu and a.dtype != "float32":
        p.error("--dtype %s needs a GPU; the CPU trains in float32" % a.dtype)
    if a.compile and not hasattr(torch, "compile"):
        p.error("--compile needs PyTorch 2 (this is %s)" % torch.__version__)
    gpu_run = gpu or a.compile or a.tokenizer != "char" or a.vocab_size > 0 or a.attention != "auto"

    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    if a.tokenizer == "byte":
        with open(a.data, "rb") as f:
            data = torch.frombuffer(bytearray(f.read()), dtype=torch.uint8).to(torch.long)
        vocab = 256
    else:
        text = open(a.data, encoding="utf-8").read()
        chars = sorted(set(text))
        stoi = {c: i for i, c in enumerate(chars)}
        data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
        vocab = len(chars)
    vocab = max(vocab, a.vocab_size)
    train = data[: int(0.9 * len(data))]

    fused_attention = a.attention == "fused" or (a.attention == "auto" and gpu)
    model = GPT(vocab, a.n_layer, a.n_head, a.n_embd, a.block_size, False, a.dropout, fused_attention)
    model.to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": a.weight_decay},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=a.lr, betas=(0.9, a.beta2), **({"fused": True} if gpu else {}))
    if gpu:
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    autocast_dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16}.get(a.dtype)
    scaler = torch.amp.GradScaler("cuda") if a.dtype == "float16" else None
    step_model = torch.compile(model) if a.compile else model

    def lr_at(it):
        if it < a.warmup_iters:
            return a.lr * (it + 1) / (a.warmup_iters + 1)
        if it > a.lr_decay_iters:
            return a.min_lr
        ratio = (it - a.warmup_iters) / (a.lr_decay_iters - a.warmup_iters)
        return a.min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (a.lr - a.min_lr)

    times = []
    loss = None
    for it in range(a.max_iters):
        ix = torch.randint(len(train) - a.block_size, (a.batch_size,))
        x = torch.stack([train[i : i + a.block_size] for i in ix])
        y = torch.stack([train[i + 1 : i + 1 + a.block_size] for i in ix])
        if gpu:
            x = x.pin_memory().to(device, non_blocking=True)
            y = y.pin_memory().to(device, non_blocking=True)
        t0 = time.perf_counter()
        for g in opt.param_groups:
            g["lr"] = lr_at(it)
        with torch.autocast(device_type="cuda", dtype=autocast_dtype) if autocast_dtype else contextlib.nullcontext():
            loss = step_model(x, y)
        if scaler:
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
        else:
            loss.backward()
        if a.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), a.grad_clip)
        if scaler:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        opt.zero_grad(set_to_none=True)
        loss_value = loss.item()  # waits for the GPU, so the time is the step's
        times.append(time.perf_counter() - t0)

    timed = times[a.warmup_skip :] or times
    ms = statistics.median(timed) * 1000.0
    n_params = sum(p.numel() for p in params)
    tokens_per_s = a.batch_size * a.block_size / (ms / 1000.0)
    report = {
        "impl": "python-pytorch", "torch": torch.__version__, "threads": torch.get_num_threads(),
        "iters": a.max_iters, "train_loss": loss_value, "ms_per_iter": ms,
        "tokens_per_s": tokens_per_s,
        "params": n_params,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }
    if gpu_run:
        report.update({
            "device": str(device), "dtype": a.dtype, "compiled": a.compile, "tokenizer": a.tokenizer,
            "vocab_size": vocab, "attention": "fused" if fused_attention else "manual",
            "model_flops_per_s": tokens_per_s * flops_per_token(n_params, a.n_layer, a.n_embd, a.block_size),
        })
    print(json.dumps(report))


if __name__ == "__main__":
    main()
