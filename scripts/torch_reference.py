#!/usr/bin/env python3
"""PyTorch references for the device check (scripts/device-check.sh), and the summary that compares them with
dgxhost's measurements.

  torch_reference.py measure --gemm SHAPE... --layer NAME... [--lora NAME...] --out torch.json
      torch.matmul (BF16) and torch._scaled_mm (FP8 E4M3, per-tensor scales) on the GEMM shapes; a PyTorch
      transformer layer of the same shapes as dgxhost's llm-layer (RMSNorm, QKV, rotary, causal GQA
      scaled_dot_product_attention, output projection, SwiGLU MLP; BF16, eager) forward + backward. --lora: the
      same layer as llm-finetune's LoRA measurement (preset llama8b-lora): frozen weights (no weight gradients),
      a rank-16 adapter (alpha 32) on QKV with its gradients, samples of 512 tokens packed 8 to a 4096-token
      sequence (attention within each sample); and the frozen layer without the adapter.
  torch_reference.py summarize --gemm gemm.json --layer NAME=layer.json... --torch torch.json --out summary.json
          [--lora NAME=finetune.json --torch-lora torch-lora.json] [--decode NAME=decode.json...]
          [--torch-decode torch-decode.json] [--serve serve.json] [--gpu-csv gpu.csv] [--commit C] [--date D]
          [--steps steps.txt]
      our/PyTorch ratios and the issues' targets, printed as a table and written as JSON with the card, driver,
      date and commit measured: GEMMs (and the 8B GEMMs' rate at 4096 tokens against 8192, BF16 and FP8: issue
      24's fine-tuning FP8 question), layers, the LoRA layer, and the serving decode loops (TPOT, tokens/s, MBU per
      batch size, the PyTorch decode step of scripts/torch_decode_reference.py beside ours) and llama70b-serve's
      measured-calibrated projection. Missing inputs (a step that failed) leave their columns empty.

Timing: CUDA events around `iterations` back-to-back calls after warm-up, median of `repeats` such samples.
The layer's attention kernels are recorded from one profiled step, so a comparison against a slow SDPA fallback
(the math backend) is visible as such. Exit code 4 when PyTorch sees no CUDA device.
"""
import argparse
import csv
import json
import os
import math
import statistics
import sys

NO_DEVICE = 4  # dgxhost's exit code for "no CUDA device"

# Kernel-name fragments of PyTorch's fused attention backends (flash, memory-efficient, cuDNN); anything else on
# the attention path means the math fallback ran.
FUSED_ATTENTION = ("flash", "fmha", "cudnn", "efficient_attention", "attention_kernel", "sdpa")

# One decoder layer of each model the device check measures: h, ffn, heads, kv groups (Llama 3.1 model cards).
LAYERS = {
    "llama3.1-8b": dict(hidden=4096, ffn=14336, heads=32, kv=8),
    "llama3.1-70b": dict(hidden=8192, ffn=28672, heads=64, kv=8),
}
SEQ_LEN = 8192
# llm-finetune's LoRA measurement (the llama8b-lora preset): packed samples, an adapter on QKV.
LORA_LAYERS = {"llama3.1-8b": dict(LAYERS["llama3.1-8b"], seq=4096, sample_len=512, rank=16, alpha=32.0,
                                   targets=("qkv",))}
TARGETS = {
    "bf16_gemm_vs_torch": 0.97,  # our BF16 8192^3 / torch.matmul
    "fp8_gemm_vs_bf16": 1.6,  # our FP8 8192^3 / our BF16 8192^3
    "layer70b_bf16_model_tflops": 600.0,
    "layer70b_fp8_vs_bf16": 1.3,  # step-time speed-up
    "lora_layer_faster_than_torch": 1.0,  # PyTorch's LoRA layer fwd+bwd / ours
    "lora_over_frozen_base": 1.5,  # ours: LoRA layer step / the frozen layer's forward + dgrad alone (at most)
    "decode70b_fp8_mbu_batch1": 0.75,  # whole-model decode loop on the H200 (issue 13)
    "decode8b_faster_than_torch": 1.0,  # the smallest torch/ours TPOT ratio over the batch sizes
}
AT_MOST = {"lora_over_frozen_base"}  # targets met from below


def model_flops(hidden, ffn, heads, kv, seq):
    """dgxhost's convention: 3 x forward, full (non-causal) attention term, one sequence (layer_spec.cpp)."""
    d = hidden // heads
    projections = 2 * hidden * (heads * d + 2 * kv * d) + 2 * heads * d * hidden
    core = 4 * seq * heads * d
    mlp = 3 * 2 * hidden * ffn
    return 3 * (projections + core + mlp) * seq


# ---------------------------------------------------------------------------------------------------------------
# Measuring


def time_cuda(torch, fn, iterations, repeats, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iterations):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1e-3 / iterations)
    return statistics.median(samples)


def measure_gemm(torch, shape):
    m, n, k = (int(v) for v in shape.lower().split("x"))
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    flops = 2.0 * m * n * k
    out = {"shape": shape}
    seconds = time_cuda(torch, lambda: torch.matmul(a, b.t()), 10, 10)
    out["bf16_seconds"], out["bf16_tflops"] = seconds, flops / seconds / 1e12
    try:  # FP8 E4M3 with per-tensor scales, BF16 output: the same problem as dgxhost's FP8 case
        fp8 = torch.float8_e4m3fn
        scale_a = (448.0 / a.abs().max().float()).reciprocal().reshape(())
        scale_b = (448.0 / b.abs().max().float()).reciprocal().reshape(())
        a8 = (a.float() / scale_a).to(fp8)
        b8 = (b.float() / scale_b).to(fp8)
        mm = lambda: torch._scaled_mm(a8, b8.t(), scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16,
                                      use_fast_accum=True)
        seconds = time_cuda(torch, mm, 10, 10)
        out["fp8_seconds"], out["fp8_tflops"] = seconds, flops / seconds / 1e12
    except Exception as error:  # noqa: BLE001 - report, do not fail the whole check
        out["fp8_error"] = str(error)
    del a, b
    torch.cuda.empty_cache()
    return out


def make_layer(torch, hidden, ffn, heads, kv, seq, frozen=False, lora=None):
    """The layer as a function of x [b, s, h]. frozen: no weight gradients; lora: {target: rank} with alpha."""
    F = torch.nn.functional
    d = hidden // heads
    dtype, dev = torch.bfloat16, "cuda"

    def weight(out_features, in_features, trains=not frozen):
        w = torch.empty(out_features, in_features, device=dev, dtype=dtype)
        torch.nn.init.uniform_(w, -1.0 / math.sqrt(in_features), 1.0 / math.sqrt(in_features))
        return w.requires_grad_(trains)

    params = dict(
        norm1=torch.ones(hidden, device=dev, dtype=dtype, requires_grad=not frozen),
        qkv=weight((heads + 2 * kv) * d, hidden),
        proj=weight(hidden, heads * d),
        norm2=torch.ones(hidden, device=dev, dtype=dtype, requires_grad=not frozen),
        fc1=weight(2 * ffn, hidden),
        fc2=weight(hidden, ffn),
    )
    adapters = {}
    for target, (rank, alpha) in (lora or {}).items():
        out_features, in_features = params[target].shape
        adapters[target] = (weight(rank, in_features, True), weight(out_features, rank, True), alpha / rank)

    def linear(name, x):  # x W^T (+ s (x A^T) B^T): the adapter as PEFT and NeMo write it
        y = F.linear(x, params[name])
        if name in adapters:
            a, b, scale = adapters[name]
            y = y + scale * F.linear(F.linear(x, a), b)
        return y
    position = torch.arange(seq, device=dev, dtype=torch.float64)
    inverse = 500000.0 ** (-torch.arange(0, d, 2, device=dev, dtype=torch.float64) / d)
    angles = torch.outer(position, inverse)
    cos = torch.cat([angles.cos(), angles.cos()], dim=-1).to(dtype)[None, None]
    sin = torch.cat([angles.sin(), angles.sin()], dim=-1).to(dtype)[None, None]

    def rope(x):  # rotate halves, as dgxhost and Llama
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
        return x * cos + torch.cat([-x2, x1], dim=-1) * sin

    def layer(x):  # x [b, s, h]
        b = x.shape[0]
        n1 = F.rms_norm(x, (hidden,), params["norm1"], eps=1e-5)
        qkv = linear("qkv", n1).view(b, seq, heads + 2 * kv, d).transpose(1, 2)
        q, k, v = qkv.split([heads, kv, kv], dim=1)
        o = F.scaled_dot_product_attention(rope(q), rope(k), v, is_causal=True, enable_gqa=True)
        r1 = x + linear("proj", o.transpose(1, 2).reshape(b, seq, heads * d))
        gate, up = linear("fc1", F.rms_norm(r1, (hidden,), params["norm2"], eps=1e-5)).chunk(2, dim=-1)
        return r1 + linear("fc2", F.silu(gate) * up)

    return layer


def measure_layer(torch, name):
    shape = LAYERS[name]
    layer = make_layer(torch, seq=SEQ_LEN, **shape)
    x = torch.randn(1, SEQ_LEN, shape["hidden"], device="cuda", dtype=torch.bfloat16, requires_grad=True)
    dy = torch.randn_like(x)

    def step():
        layer(x).backward(dy)

    seconds = time_cuda(torch, step, 1, 7, warmup=3)
    flops = model_flops(seq=SEQ_LEN, **shape)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    try:
        kernels, profile_error = profile_kernels(torch, step), None
    except Exception as error:  # noqa: BLE001 - the timing stands; say why the kernel names are missing
        kernels, profile_error = [], f"{type(error).__name__}: {error}"
    attention = [k for k in kernels if any(f in k["name"].lower() for f in FUSED_ATTENTION)]
    torch.cuda.empty_cache()
    return {"model": name, "seconds": seconds, "model_tflops": flops / seconds / 1e12, "peak_memory_bytes": peak,
            "attention_kernels": [k["name"] for k in attention],
            "fused_attention": bool(attention) if profile_error is None else None, "profile_error": profile_error,
            "top_kernels": kernels[:12],
            "note": "eager PyTorch, BF16, F.scaled_dot_product_attention (backend chosen by PyTorch)"}


def measure_lora_layer(torch, name):
    """llm-finetune's LoRA layer in PyTorch: packed samples as a batch of sample_len sequences (positions restart
    per sample, attention within it), frozen weights, the adapters and x with gradients; and the frozen layer alone."""
    c = LORA_LAYERS[name]
    shape = {k: c[k] for k in ("hidden", "ffn", "heads", "kv")}
    samples = c["seq"] // c["sample_len"]
    result = {"model": name, "rank": c["rank"], "alpha": c["alpha"], "targets": list(c["targets"]),
              "seq_len": c["seq"], "sample_len": c["sample_len"],
              "note": "eager PyTorch, BF16, frozen base (requires_grad=False), adapters as PEFT writes them"}
    for label, lora in (("lora", {t: (c["rank"], c["alpha"]) for t in c["targets"]}), ("frozen", None)):
        layer = make_layer(torch, seq=c["sample_len"], frozen=True, lora=lora, **shape)
        x = torch.randn(samples, c["sample_len"], c["hidden"], device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        dy = torch.randn_like(x)

        def step():
            layer(x).backward(dy)

        result[f"{label}_seconds"] = time_cuda(torch, step, 1, 9, warmup=3)
        del layer, x, dy
        torch.cuda.empty_cache()
    result["lora_over_frozen"] = result["lora_seconds"] / result["frozen_seconds"]
    return result


def profile_kernels(torch, step):
    """The CUDA kernels of one profiled step, longest total time first: [{name, count, seconds}]."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    kernels = {}
    for event in prof.events():
        if getattr(event, "device_type", None) is None or "cuda" not in str(event.device_type).lower():
            continue
        entry = kernels.setdefault(event.name, {"name": event.name, "count": 0, "seconds": 0.0})
        entry["count"] += 1
        entry["seconds"] += getattr(event, "device_time", getattr(event, "cuda_time", 0.0)) * 1e-6
    return sorted(kernels.values(), key=lambda k: -k["seconds"])


def measure(args):
    import torch

    if not torch.cuda.is_available():
        print("no CUDA device found: PyTorch " + torch.__version__ + " sees none", file=sys.stderr)
        return NO_DEVICE
    torch.backends.cuda.matmul.allow_tf32 = False
    result = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
              "gemm": [], "layers": [], "lora_layers": []}
    for shape in args.gemm:
        result["gemm"].append(measure_gemm(torch, shape))
        print(f"torch gemm {shape}: {result['gemm'][-1]}", flush=True)
    for name in args.layer:
        torch.cuda.reset_peak_memory_stats()
        result["layers"].append(measure_layer(torch, name))
        print(f"torch layer {name}: {result['layers'][-1]}", flush=True)
    for name in args.lora:
        result["lora_layers"].append(measure_lora_layer(torch, name))
        print(f"torch LoRA layer {name}: {result['lora_layers'][-1]}", flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    return 0


# ---------------------------------------------------------------------------------------------------------------
# Summarizing


MISSING = []  # inputs a failed step did not write, printed under the summary's header


def load(path):
    """A JSON document, or {} when a step failed before writing it (the summary shows what there is)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        MISSING.append(f"(no results from {os.path.basename(path)}: "
                       f"{error.strerror if isinstance(error, OSError) else error})")
        return {}


def gpu_card(path):
    """{name, driver_version, ...} from `nvidia-smi --query-gpu=... --format=csv` (first GPU), or {}."""
    try:
        with open(path) as f:
            rows = list(csv.reader(f))
    except OSError:
        return {}
    if len(rows) < 2:
        return {}
    keys = [k.strip().split(" ")[0] for k in rows[0]]
    return {k: v.strip() for k, v in zip(keys, rows[1])}


def metric(row, name):
    value = row.get("metrics", {}).get(name, {})
    return value.get("value") if isinstance(value, dict) else None


def gemm_rows(path):
    """{(shape, precision): row} of the gemm workload's measured cases."""
    doc = load(path)
    rows = {}
    for row in doc.get("results", []):
        c = row.get("config", {})
        if row.get("workload") == "gemm" and "gemm.m" in c:
            rows[(f"{c['gemm.m']}x{c['gemm.n']}x{c['gemm.k']}", c.get("precision"))] = row
    return doc, rows


def layer_rows(path):
    """{precision: step row} of the llm-layer workload's measured cases (not the per-op rows)."""
    doc = load(path)
    return doc, {row["config"].get("precision"): row for row in doc.get("results", [])
                 if row.get("workload") == "llm-layer" and row.get("table", "llm-layer") == "llm-layer"}


def finetune_rows(path):
    """{precision: measured row} of llm-finetune's measure mode (the layer's case, not the projection)."""
    doc = load(path)
    return {row["config"].get("precision"): row for row in doc.get("results", [])
            if row.get("workload") == "llm-finetune" and "time.median" in row.get("metrics", {})}


def lora_lines(args, summary):
    """The LoRA layer: ours against PyTorch's, and against our frozen layer alone (issue 12's targets)."""
    torch_result = load(args.torch_lora) if args.torch_lora else {}
    torch_lora = {l["model"]: l for l in torch_result.get("lora_layers", [])}
    if not args.lora and not torch_lora:
        return []
    lines = ["", "LoRA layer fwd+bwd (bf16)   ours ms  frozen base ms  ours/frozen  torch ms  torch frozen ms  "
                 "torch/ours"]
    for spec in args.lora or [f"{name}=" for name in torch_lora]:
        name, path = spec.split("=", 1)
        row = finetune_rows(path).get("bf16", {}) if path else {}
        t = torch_lora.get(name, {})
        ours, frozen = metric(row, "time.median"), metric(row, "layer.frozen_base_time")
        entry = {"model": name, "ours_seconds": ours, "ours_frozen_base_seconds": frozen,
                 "ours_over_frozen": metric(row, "layer.adapter_overhead") or ratio(ours, frozen),
                 "torch_seconds": t.get("lora_seconds"), "torch_frozen_seconds": t.get("frozen_seconds"),
                 "torch_over_ours": ratio(t.get("lora_seconds"), ours)}
        summary["lora_layers"].append(entry)
        ms = lambda v: v and v * 1e3  # noqa: E731
        lines.append(f"{name:<26} {fmt(ms(ours), 2):>8}  {fmt(ms(frozen), 2):>14}  {fmt(entry['ours_over_frozen'], 2):>11}"
                     f"  {fmt(ms(t.get('lora_seconds')), 2):>8}  {fmt(ms(t.get('frozen_seconds')), 2):>15}  "
                     f"{fmt(entry['torch_over_ours'], 2):>10}")
        summary["targets"]["lora_layer_faster_than_torch"] = entry["torch_over_ours"]
        summary["targets"]["lora_over_frozen_base"] = entry["ours_over_frozen"]
    return lines
def decode_rows(path):
    """{batch: row} of the llm-decode workload's measured cases."""
    doc = load(path)
    return {int(row["config"]["batch"]): row for row in doc.get("results", [])
            if row.get("workload") == "llm-decode" and "batch" in row.get("config", {})}


def decode_summary(args, summary, lines):
    """The decode loops batch by batch, PyTorch's decode step beside ours, and the serving targets."""
    torch_decode = load(args.torch_decode) if args.torch_decode else {}
    torch_by_batch = {d["batch"]: d for d in torch_decode.get("decode", [])}
    lines += ["", "Decode loop (whole model, CUDA graphs)  batch  TPOT ms   tok/s  MBU %  torch TPOT ms  torch/ours"]
    slowest_vs_torch = None
    for spec in args.decode:
        name, path = spec.split("=", 1)
        rows = decode_rows(path)
        for batch, row in sorted(rows.items()):
            tpot, mbu = metric(row, "time.median"), metric(row, "mbu")
            t = torch_by_batch.get(batch, {}) if name == torch_decode.get("model") else {}
            vs = ratio(t.get("tpot"), tpot)
            entry = {"model": name, "precision": row["config"].get("precision"), "batch": batch, "tpot": tpot,
                     "tokens_per_s": metric(row, "output_tokens_per_s"), "mbu_percent": mbu,
                     "torch_tpot": t.get("tpot"), "torch_over_ours": vs}
            summary["decode"].append(entry)
            lines.append(f"{name + ' ' + str(entry['precision']):<38} {batch:>6}  {fmt(tpot and tpot * 1e3, 2):>7}  "
                         f"{fmt(entry['tokens_per_s'], 0):>6}  {fmt(mbu):>5}  "
                         f"{fmt(t.get('tpot') and t['tpot'] * 1e3, 2):>13}  {fmt(vs, 2):>10}")
            if name == "llama3.1-70b" and batch == 1:
                summary["targets"]["decode70b_fp8_mbu_batch1"] = mbu and mbu / 100
            if vs is not None:
                slowest_vs_torch = vs if slowest_vs_torch is None else min(slowest_vs_torch, vs)
    if torch_by_batch:
        summary["targets"]["decode8b_faster_than_torch"] = slowest_vs_torch
    serve = load(args.serve) if args.serve else {}
    for row in serve.get("results", []):
        if row.get("table") == "measured-calibrated projection":
            summary["serve"] = {k: metric(row, k) for k in ("ttft", "tpot", "output_tokens_per_s",
                                                            "output_tokens_per_s_per_gpu", "mbu")}
            s = summary["serve"]
            lines += ["", f"llama70b-serve measured-calibrated ({row.get('info', {}).get('system', '?')}): "
                          f"TTFT {fmt(s['ttft'] and s['ttft'] * 1e3, 1)} ms, TPOT {fmt(s['tpot'] and s['tpot'] * 1e3, 1)} "
                          f"ms, {fmt(s['output_tokens_per_s'], 0)} output tokens/s ({fmt(s['output_tokens_per_s_per_gpu'], 0)}"
                          f" per GPU), MBU {fmt(s['mbu'])} %"]


# Issue 24: the GEMMs of one Llama 3.1 8B layer at 4096 rows (a packed fine-tuning microbatch) and at 8192 (a
# pretraining one), and fc1's weight gradient at those reduction depths; see row_shapes in scripts/device-check.sh.
ROW_PAIRS = {
    "forward": [("4096x6144x4096", "8192x6144x4096"), ("4096x4096x4096", "8192x4096x4096"),
                ("4096x28672x4096", "8192x28672x4096"), ("4096x4096x14336", "8192x4096x14336")],
    "wgrad": [("28672x4096x4096", "28672x4096x8192")],
}
# What the fine-tuning FP8 rows of NeMo 24.12 (finetune.md section B) need if their gap is the GEMMs' rate: FP8 GEMMs
# about 10 % slower at 4096 rows than the model, which fits 8192-row pretraining and both BF16 sets.
ROW_SCALING_NEEDED = 0.91


def shape_flops(shape):
    m, n, k = (int(x) for x in shape.split("x"))
    return 2.0 * m * n * k


def row_scaling_lines(gemm, summary):
    """The rate of the pairs' small shapes over their large ones, per precision, and FP8's over BF16's: the roofline
    scales both precisions alike (the same tiles and waves), so it assumes 1."""
    lines = ["", "Issue 24: GEMM rate at 4096 tokens / at 8192 (FLOP-weighted)   bf16    fp8  fp8/bf16 (model: 1)"]
    result = {}
    for group, pairs in ROW_PAIRS.items():
        scaled = {}
        for precision in ("bf16", "fp8"):
            times = []
            for small, large in pairs:
                rate_small = metric(gemm.get((small, precision), {}), "tflops")
                rate_large = metric(gemm.get((large, precision), {}), "tflops")
                if not rate_small or not rate_large:
                    break
                times.append((shape_flops(small) / rate_small, shape_flops(small),
                              shape_flops(large) / rate_large, shape_flops(large)))
            else:
                small_rate = sum(t[1] for t in times) / sum(t[0] for t in times)
                large_rate = sum(t[3] for t in times) / sum(t[2] for t in times)
                scaled[precision] = small_rate / large_rate
        relative = ratio(scaled.get("fp8"), scaled.get("bf16"))
        result[group] = {"bf16": scaled.get("bf16"), "fp8": scaled.get("fp8"), "fp8_over_bf16": relative}
        lines.append(f"  {'llama3.1-8b ' + group:<60} {fmt(scaled.get('bf16'), 3):>6} {fmt(scaled.get('fp8'), 3):>6}"
                     f"  {fmt(relative, 3):>8}")
    forward = result["forward"]["fp8_over_bf16"]
    if forward is not None:
        verdict = ("the fine-tuning FP8 gap is the GEMMs' rate at 4096 rows: the roofline needs a size law"
                   if forward <= (1 + ROW_SCALING_NEEDED) / 2 else
                   "the GEMMs scale alike: the fine-tuning FP8 gap lies elsewhere")
        lines.append(f"  fine-tuning FP8 (NeMo 24.12) needs about {ROW_SCALING_NEEDED:.2f} for the forward if its gap is "
                     "the GEMMs' rate:")
        lines.append(f"  {verdict}")
    summary["row_scaling"] = result
    return lines


def ratio(a, b):
    return a / b if a and b else None


def fmt(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def summarize(args):
    torch_result = load(args.torch)
    gemm_doc, gemm = gemm_rows(args.gemm)
    torch_gemm = {g["shape"]: g for g in torch_result.get("gemm", [])}
    for shape, precision in gemm:  # our shapes even when PyTorch did not run
        torch_gemm.setdefault(shape, {"shape": shape})
    summary = {"card": gpu_card(args.gpu_csv) if args.gpu_csv else {}, "date": args.date, "commit": args.commit,
               "device": torch_result.get("device"), "torch": torch_result.get("torch"),
               "dgxhost": gemm_doc.get("context", {}).get("dgxhost"), "time": gemm_doc.get("context", {}).get("time"),
               "gpus": gemm_doc.get("context", {}).get("gpu_summary"), "gemm": [], "layers": [], "lora_layers": [],
               "decode": [], "targets": {}}

    lines = ["", "GEMM (TFLOP/s)            ours bf16  torch bf16  ratio   ours fp8  torch fp8  fp8/bf16"]
    for shape, t in torch_gemm.items():
        ours_bf16 = metric(gemm.get((shape, "bf16"), {}), "tflops")
        ours_fp8 = metric(gemm.get((shape, "fp8"), {}), "tflops")
        entry = {"shape": shape, "ours_bf16_tflops": ours_bf16, "torch_bf16_tflops": t.get("bf16_tflops"),
                 "bf16_ratio": ratio(ours_bf16, t.get("bf16_tflops")), "ours_fp8_tflops": ours_fp8,
                 "torch_fp8_tflops": t.get("fp8_tflops"), "fp8_over_bf16": ratio(ours_fp8, ours_bf16)}
        summary["gemm"].append(entry)
        lines.append(f"{shape:<24}  {fmt(ours_bf16):>9}  {fmt(t.get('bf16_tflops')):>10}  "
                     f"{fmt(entry['bf16_ratio'], 3):>5}  {fmt(ours_fp8):>9}  {fmt(t.get('fp8_tflops')):>9}  "
                     f"{fmt(entry['fp8_over_bf16'], 2):>8}")
        if shape == "8192x8192x8192":
            summary["targets"]["bf16_gemm_vs_torch"] = entry["bf16_ratio"]
            summary["targets"]["fp8_gemm_vs_bf16"] = entry["fp8_over_bf16"]

    lines += row_scaling_lines(gemm, summary)

    torch_layers = {l["model"]: l for l in torch_result.get("layers", [])}
    lines += ["", "Layer fwd+bwd          ours bf16 ms  TFLOP/s  ours fp8 ms  TFLOP/s  fp8 speed-up  torch ms  "
                  "TFLOP/s  torch/ours(bf16)  peak GiB"]
    for spec in args.layer:
        name, path = spec.split("=", 1)
        _, rows = layer_rows(path)
        bf16, fp8 = rows.get("bf16", {}), rows.get("fp8", {})
        t = torch_layers.get(name, {})
        ours_ms = metric(bf16, "time.median")
        fp8_ms = metric(fp8, "time.median")
        entry = {"model": name, "ours_bf16_seconds": ours_ms, "ours_bf16_model_tflops": metric(bf16, "model_tflops"),
                 "ours_fp8_seconds": fp8_ms, "ours_fp8_model_tflops": metric(fp8, "model_tflops"),
                 "fp8_speedup": ratio(ours_ms, fp8_ms), "torch_seconds": t.get("seconds"),
                 "torch_model_tflops": t.get("model_tflops"), "torch_over_ours": ratio(t.get("seconds"), ours_ms),
                 "ours_bf16_peak_memory_bytes": metric(bf16, "peak_memory"),
                 "torch_peak_memory_bytes": t.get("peak_memory_bytes")}
        summary["layers"].append(entry)
        peak = entry["ours_bf16_peak_memory_bytes"]
        lines.append(f"{name:<22} {fmt(ours_ms and ours_ms * 1e3, 2):>12}  {fmt(entry['ours_bf16_model_tflops']):>7}  "
                     f"{fmt(fp8_ms and fp8_ms * 1e3, 2):>11}  {fmt(entry['ours_fp8_model_tflops']):>7}  "
                     f"{fmt(entry['fp8_speedup'], 2):>12}  {fmt(t.get('seconds') and t['seconds'] * 1e3, 2):>8}  "
                     f"{fmt(t.get('model_tflops')):>7}  {fmt(entry['torch_over_ours'], 2):>16}  "
                     f"{fmt(peak and peak / 2**30, 1):>8}")
        entry["torch_attention_kernels"] = t.get("attention_kernels")
        if t and t.get("fused_attention") is False:
            lines.append(f"  ! PyTorch's {name} layer ran no fused attention kernel (math fallback): its time is not "
                         "a fair reference")
        if name == "llama3.1-70b":
            summary["targets"]["layer70b_bf16_model_tflops"] = entry["ours_bf16_model_tflops"]
            summary["targets"]["layer70b_faster_than_torch"] = entry["torch_over_ours"]
            summary["targets"]["layer70b_fp8_vs_bf16"] = entry["fp8_speedup"]

    lines += lora_lines(args, summary)
    decode_summary(args, summary, lines)

    lines += ["", "Targets (issues 5, 8, 12 and 13)"]
    for key, value in summary["targets"].items():
        goal, at_most = TARGETS.get(key, 1.0), key in AT_MOST
        met = value is not None and (value <= goal if at_most else value >= goal)
        status = "n/a" if value is None else ("PASS" if met else "MISS")
        lines.append(f"  {key:<30} {fmt(value, 3):>8}  {'<=' if at_most else '>='} {goal:<6} {status}")
    if args.steps and os.path.exists(args.steps):
        with open(args.steps) as f:
            summary["steps"] = [line.rstrip("\n") for line in f if line.strip()]
        lines += ["", "Steps"] + ["  " + line for line in summary["steps"]]
    card = summary["card"]
    header = (f"Device check of {args.commit or '?'} on {card.get('name', summary['device'] or '?')}"
              f" (driver {card.get('driver_version', '?')}), {args.date or '?'}")
    print("\n".join([header] + MISSING + lines))
    with open(args.out, "w") as f:
        json.dump(summary, f, indent=2)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--gemm", nargs="*", default=["8192x8192x8192"])
    m.add_argument("--layer", nargs="*", default=list(LAYERS), choices=list(LAYERS))
    m.add_argument("--lora", nargs="*", default=[], choices=list(LORA_LAYERS))
    m.add_argument("--out", required=True)
    s = sub.add_parser("summarize")
    s.add_argument("--gemm", required=True, help="dgxhost --plugin gemm JSON")
    s.add_argument("--layer", nargs="*", default=[], help="MODEL=dgxhost llm-layer JSON")
    s.add_argument("--torch", required=True, help="the JSON of `measure`")
    s.add_argument("--lora", nargs="*", default=[], help="MODEL=dgxhost llm-finetune measure-mode JSON")
    s.add_argument("--torch-lora", help="the JSON of `measure --lora`")
    s.add_argument("--decode", nargs="*", default=[], help="MODEL=dgxhost llm-decode JSON")
    s.add_argument("--torch-decode", help="the JSON of torch_decode_reference.py")
    s.add_argument("--serve", help="dgxhost llama70b-serve --mode measure JSON")
    s.add_argument("--gpu-csv", help="nvidia-smi --query-gpu CSV: the card and driver")
    s.add_argument("--commit", help="the commit measured")
    s.add_argument("--date", help="when it was measured (UTC)")
    s.add_argument("--steps", help="the device check's per-step status lines")
    s.add_argument("--out", required=True)
    args = parser.parse_args()
    return (measure if args.command == "measure" else summarize)(args)


if __name__ == "__main__":
    sys.exit(main())
