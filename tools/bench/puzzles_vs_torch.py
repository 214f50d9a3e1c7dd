#!/usr/bin/env python3
"""torch's equivalents of puzzles 8, 10 and 12 at tl-bench's scaled sizes (shared/PUZZLES.md).

  python3 tools/bench/puzzles_vs_torch.py [--out DIR]

Run it in the same device session as `tl-bench` (tools/gpu-check.sh does both): tl-bench times
the puzzle kernels and cuBLAS, this script times what a torch user would write for the same
results, each checked against a float64 reference on a slice before timing, each timed by
triton.testing.do_bench (median). Prints a Markdown table and writes puzzles-vs-torch.csv.

  8   row softmax of a 2^14 x 2^14 float32 matrix: torch.softmax
  10  2^13 images of 32 x 32, a 4 x 4 filter, zero past the bottom and right edges:
      F.conv2d on an explicitly padded input, and F.conv2d(padding=3) sliced (the faster counts)
  12  8192^3 with 4-bit weights (8 a word), a scale and a shift per 8 columns: dequantize to
      fp16 and torch.matmul with the activation in fp16 (the form the issue compares against),
      and in float32 with tf32 allowed (the puzzle's own types)
"""
import argparse
import csv
import os

import torch
import torch.nn.functional as F
import triton.testing


def median_ms(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def case_softmax():
    n0 = t = 1 << 14
    x = torch.randn(n0, t, device="cuda", dtype=torch.float32)
    ref = torch.softmax(x[:64].double(), dim=1)
    assert torch.allclose(torch.softmax(x, dim=1)[:64].double(), ref, rtol=1e-5, atol=1e-9)
    ms = median_ms(lambda: torch.softmax(x, dim=1))
    return [("8", "torch.softmax", f"{n0} x {t} f32", ms, 8 * n0 * t / ms / 1e6, "GB/s")]


def case_conv():
    n0, h, w, kh, kw = 1 << 13, 32, 32, 4, 4
    x = torch.randn(n0, 1, h, w, device="cuda", dtype=torch.float32)
    k = torch.randn(1, 1, kh, kw, device="cuda", dtype=torch.float32)
    xd = F.pad(x[:8].double(), (0, kw - 1, 0, kh - 1))
    ref = torch.zeros(8, 1, h, w, device="cuda", dtype=torch.float64)
    for a in range(kh):
        for b in range(kw):
            ref += k[0, 0, a, b].double() * xd[:, :, a:a + h, b:b + w]
    padded = lambda: F.conv2d(F.pad(x, (0, kw - 1, 0, kh - 1)), k)
    sliced = lambda: F.conv2d(x, k, padding=(kh - 1, kw - 1))[:, :, kh - 1:, kw - 1:]
    rows = []
    for name, fn in (("F.conv2d(F.pad(x))", padded), ("F.conv2d(padding=3)[3:, 3:]", sliced)):
        out = fn()
        assert torch.allclose(out[:8].double(), ref, rtol=1e-3, atol=1e-3), name
        rows.append(("10", name, f"{n0} x {h} x {w}, {kh} x {kw}", median_ms(fn), None, "ms"))
    return rows


def case_quantized():
    n0 = n1 = mid = 8192
    g = torch.Generator(device="cuda").manual_seed(1)
    weight = torch.randint(-2**31, 2**31 - 1, (n0, mid // 8), device="cuda", dtype=torch.int32, generator=g)
    offset = torch.randint(-2**31, 2**31 - 1, (n0, mid // 64), device="cuda", dtype=torch.int32, generator=g)
    scale = torch.rand(n0, mid // 8, device="cuda", dtype=torch.float32, generator=g) * 0.1
    act = torch.randn(mid, n1, device="cuda", dtype=torch.float32, generator=g)
    nib = torch.arange(8, device="cuda", dtype=torch.int32) * 4

    def dequant(dtype):
        wq = ((weight[:, :, None] >> nib) & 0xF).reshape(n0, mid)          # column l = 8 w + n
        sh = ((offset[:, :, None] >> nib) & 0xF).reshape(n0, mid // 8)     # shift of group g
        a = scale.repeat_interleave(8, dim=1) * (wq - sh.repeat_interleave(8, dim=1))
        return a.to(dtype)

    act16 = act.half()
    fp16 = lambda: torch.matmul(dequant(torch.float16), act16)
    f32 = lambda: torch.matmul(dequant(torch.float32), act)
    ref = dequant(torch.float64)[:16] @ act.double()
    rows = []
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        for name, fn, tol in (("dequantize to fp16 + torch.matmul", fp16, 2e-2), ("dequantize + torch.matmul (tf32)", f32, 2e-2)):
            out = fn()[:16].double()
            err = ((out - ref).norm() / ref.norm()).item()
            assert err < tol, (name, err)
            ms = median_ms(fn)
            rows.append(("12", name, f"{n0}^3", ms, 2 * n0 * n1 * mid / ms / 1e9, "TFLOP/s"))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=".", help="directory for puzzles-vs-torch.csv")
    args = ap.parse_args()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = case_softmax() + case_conv() + case_quantized()
    print("| puzzle | torch | size | ms | rate |")
    print("|---|---|---|---|---|")
    for p, name, size, ms, rate, unit in rows:
        r = f"{rate:.1f} {unit}" if rate is not None else "-"
        print(f"| {p} | {name} | {size} | {ms:.4f} | {r} |")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "puzzles-vs-torch.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["puzzle", "torch", "size", "ms", "rate", "unit"])
        for row in rows:
            wr.writerow(row)


if __name__ == "__main__":
    main()
