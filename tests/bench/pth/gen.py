#!/usr/bin/env python3
# Writes a Meta LLaMA checkpoint folder (params.json, consolidated.00.pth)
# with random BF16 weights, for run.js:
#   /usr/bin/python3 gen.py OUT_DIR DIM N_LAYERS N_HEADS N_KV_HEADS VOCAB
# The folder is written as OUT_DIR.tmp and renamed at the end, so an
# interrupted run leaves no folder that looks complete.
import json
import os
import shutil
import sys

import torch

MULTIPLE_OF = 256


def main():
    out = sys.argv[1]
    dim, n_layers, n_heads, n_kv_heads, vocab = map(int, sys.argv[2:7])
    head_dim = dim // n_heads
    # Meta's FeedForward: 2/3 of 4*dim, rounded up to a multiple of multiple_of.
    ffn = int(2 * 4 * dim / 3)
    ffn = MULTIPLE_OF * ((ffn + MULTIPLE_OF - 1) // MULTIPLE_OF)
    params = {"dim": dim, "n_layers": n_layers, "n_heads": n_heads, "n_kv_heads": n_kv_heads,
              "vocab_size": vocab, "multiple_of": MULTIPLE_OF, "norm_eps": 1e-5}

    torch.manual_seed(0)
    # Tensor by tensor, straight in bf16: Python holds the bf16 state dict and nothing more.
    def matrix(rows, cols):
        return torch.randn(rows, cols, dtype=torch.bfloat16).mul_(0.02)

    def ones(n):
        return torch.ones(n, dtype=torch.bfloat16)

    state = {"tok_embeddings.weight": matrix(vocab, dim), "norm.weight": ones(dim), "output.weight": matrix(vocab, dim)}
    for n in range(n_layers):
        p = f"layers.{n}."
        state[p + "attention.wq.weight"] = matrix(n_heads * head_dim, dim)
        state[p + "attention.wk.weight"] = matrix(n_kv_heads * head_dim, dim)
        state[p + "attention.wv.weight"] = matrix(n_kv_heads * head_dim, dim)
        state[p + "attention.wo.weight"] = matrix(dim, n_heads * head_dim)
        state[p + "feed_forward.w1.weight"] = matrix(ffn, dim)
        state[p + "feed_forward.w3.weight"] = matrix(ffn, dim)
        state[p + "feed_forward.w2.weight"] = matrix(dim, ffn)
        state[p + "attention_norm.weight"] = ones(dim)
        state[p + "ffn_norm.weight"] = ones(dim)

    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    torch.save(state, os.path.join(tmp, "consolidated.00.pth"))
    with open(os.path.join(tmp, "params.json"), "w") as f:
        json.dump(params, f)
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    count = sum(t.numel() for t in state.values())
    print(f"{out}: {count / 1e6:.1f}M parameters, ffn {ffn}, torch {torch.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
