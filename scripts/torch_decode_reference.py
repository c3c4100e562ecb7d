#!/usr/bin/env python3
"""The PyTorch reference of a decode step for the device check (scripts/device-check.sh): a whole Llama-shaped model
(BF16, eager PyTorch ops captured in a CUDA graph, as gpt-fast serves) decoding one token per sequence against a
static KV cache with F.scaled_dot_product_attention, at the batch sizes of dgxhost's llm-decode step and the same
context, so that `torch_reference.py summarize` can compare the two decode steps batch by batch.

  torch_decode_reference.py --model llama3.1-8b --batches 1 4 16 64 256 --context 1024 --out torch-decode.json

The step: embedding, per layer RMSNorm, QKV, rotary embedding at the current position, the new K/V written into the
static cache (index_copy_), SDPA over the cache with a mask of the filled positions (grouped-query), output
projection, RMSNorm, SwiGLU MLP; final norm, LM head, greedy token; the position advances on the device. Random
weights. Timing: CUDA events around `iterations` graph replays after warm-up, median of `repeats` samples. Exit code
4 when PyTorch sees no CUDA device.
"""
import argparse
import json
import math
import statistics
import sys

NO_DEVICE = 4

# Llama 3.1 model cards: layers, hidden, ffn, heads, kv groups, vocab.
MODELS = {
    "llama3.1-8b": dict(layers=32, hidden=4096, ffn=14336, heads=32, kv=8, vocab=128256),
    "llama3.1-70b": dict(layers=80, hidden=8192, ffn=28672, heads=64, kv=8, vocab=128256),
}
HEADROOM = 128  # positions the timed replays may fill beyond the context


def build(torch, cfg):
    dev, dtype = "cuda", torch.bfloat16
    h, f, hq, kv, vocab = cfg["hidden"], cfg["ffn"], cfg["heads"], cfg["kv"], cfg["vocab"]
    d = h // hq

    def weight(out_features, in_features):
        bound = 1.0 / math.sqrt(in_features)
        return torch.empty(out_features, in_features, device=dev, dtype=dtype).uniform_(-bound, bound)

    layers = [dict(norm1=torch.ones(h, device=dev, dtype=dtype), qkv=weight((hq + 2 * kv) * d, h),
                   proj=weight(h, hq * d), norm2=torch.ones(h, device=dev, dtype=dtype), fc1=weight(2 * f, h),
                   fc2=weight(h, f)) for _ in range(cfg["layers"])]
    return dict(layers=layers, embedding=torch.randn(vocab, h, device=dev, dtype=dtype),
                head=weight(vocab, h), norm=torch.ones(h, device=dev, dtype=dtype), d=d, hq=hq, kv=kv, h=h)


def make_step(torch, model, batch, context):
    F = torch.nn.functional
    dev, dtype = "cuda", torch.bfloat16
    d, hq, kv, h = model["d"], model["hq"], model["kv"], model["h"]
    max_len = context + HEADROOM
    caches = [(torch.zeros(batch, kv, max_len, d, device=dev, dtype=dtype),
               torch.zeros(batch, kv, max_len, d, device=dev, dtype=dtype)) for _ in model["layers"]]
    inverse = 500000.0 ** (-torch.arange(0, d, 2, device=dev, dtype=torch.float64) / d)
    angles = torch.outer(torch.arange(max_len, device=dev, dtype=torch.float64), inverse)
    cos = torch.cat([angles.cos(), angles.cos()], dim=-1).to(dtype)
    sin = torch.cat([angles.sin(), angles.sin()], dim=-1).to(dtype)
    positions = torch.arange(max_len, device=dev)
    tokens = torch.randint(0, model["embedding"].shape[0], (batch,), device=dev)
    pos = torch.tensor([context], device=dev, dtype=torch.long)

    def rope(x):  # x [b, heads, 1, d]: rotate halves at the current position
        c, s = cos.index_select(0, pos)[None, None], sin.index_select(0, pos)[None, None]
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
        return x * c + torch.cat([-x2, x1], dim=-1) * s

    def step():
        x = model["embedding"].index_select(0, tokens)  # [b, h]
        mask = (positions <= pos)[None, None, None, :]   # the filled positions, the new one included
        for layer, (k_cache, v_cache) in zip(model["layers"], caches):
            n = F.rms_norm(x, (h,), layer["norm1"], eps=1e-5)
            q, k, v = F.linear(n, layer["qkv"]).view(batch, hq + 2 * kv, 1, d).split([hq, kv, kv], dim=1)
            k_cache.index_copy_(2, pos, rope(k))
            v_cache.index_copy_(2, pos, v)
            o = F.scaled_dot_product_attention(rope(q), k_cache, v_cache, attn_mask=mask, enable_gqa=True)
            x = x + F.linear(o.reshape(batch, hq * d), layer["proj"])
            gate, up = F.linear(F.rms_norm(x, (h,), layer["norm2"], eps=1e-5), layer["fc1"]).chunk(2, dim=-1)
            x = x + F.linear(F.silu(gate) * up, layer["fc2"])
        logits = F.linear(F.rms_norm(x, (h,), model["norm"], eps=1e-5), model["head"])
        tokens.copy_(logits.argmax(dim=-1))
        pos.add_(1)

    return step, pos, caches


def time_graph(torch, graph, pos, context, iterations, repeats):
    samples = []
    for _ in range(repeats):
        pos.fill_(context)  # the same contexts in every sample
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iterations):
            graph.replay()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1e-3 / iterations)
    return statistics.median(samples)


def measure(args):
    import torch

    if not torch.cuda.is_available():
        print("no CUDA device found: PyTorch " + torch.__version__ + " sees none", file=sys.stderr)
        return NO_DEVICE
    torch.backends.cuda.matmul.allow_tf32 = False
    cfg = MODELS[args.model]
    result = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
              "model": args.model, "precision": "bf16", "context": args.context, "decode": [],
              "note": "eager PyTorch ops in a CUDA graph, static KV cache, F.scaled_dot_product_attention (masked)"}
    with torch.no_grad():
        model = build(torch, cfg)
        for batch in args.batches:
            step, pos, caches = make_step(torch, model, batch, args.context)
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                for _ in range(3):  # warm-up outside the graph (kernel selection, allocations)
                    step()
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                step()
            tpot = time_graph(torch, graph, pos, args.context, min(args.iterations, HEADROOM - 8), args.repeats)
            result["decode"].append({"batch": batch, "tpot": tpot, "tokens_per_s": batch / tpot})
            print(f"torch decode {args.model} batch {batch}: TPOT {tpot * 1e3:.2f} ms", flush=True)
            del graph, caches, step
            torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="llama3.1-8b", choices=list(MODELS))
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 4, 16, 64, 256])
    parser.add_argument("--context", type=int, default=1024)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", required=True)
    return measure(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
