#!/usr/bin/env python3
"""tl's random numbers against Triton's, bit for bit: randint4x, rand4x and randn4x at the same
seeds and offsets (int32 offsets 0 .. n-1, and random int64 offsets), drawn by Triton, by tl on
the GPU and by tl on the CPU backend.

    python3 tools/bench/tutorials/random_vs_triton.py --lib build/tools/bench/libtl_tutorial_kernels.so [--n 1048576]

Prints, per form and offset type, how many values of the three agree bit for bit, and the
largest difference in units in the last place where they do not. Exits 1 if a word or a
uniform differs (those must agree everywhere), or if Triton's PTX for randn uses other math
instructions than tl's and the normals then differ.
"""
import argparse
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tutorials_vs_triton import TlKernels  # noqa: E402


@triton.jit
def triton_draws(seed, offsets_ptr, words_ptr, uniforms_ptr, normals_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    o = tl.load(offsets_ptr + i, mask=m)
    w0, w1, w2, w3 = tl.randint4x(seed, o)
    tl.store(words_ptr + i, w0.to(tl.int32, bitcast=True), mask=m)
    tl.store(words_ptr + n + i, w1.to(tl.int32, bitcast=True), mask=m)
    tl.store(words_ptr + 2 * n + i, w2.to(tl.int32, bitcast=True), mask=m)
    tl.store(words_ptr + 3 * n + i, w3.to(tl.int32, bitcast=True), mask=m)
    u0, u1, u2, u3 = tl.rand4x(seed, o)
    tl.store(uniforms_ptr + i, u0, mask=m)
    tl.store(uniforms_ptr + n + i, u1, mask=m)
    tl.store(uniforms_ptr + 2 * n + i, u2, mask=m)
    tl.store(uniforms_ptr + 3 * n + i, u3, mask=m)
    n0, n1, n2, n3 = tl.randn4x(seed, o)
    tl.store(normals_ptr + i, n0, mask=m)
    tl.store(normals_ptr + n + i, n1, mask=m)
    tl.store(normals_ptr + 2 * n + i, n2, mask=m)
    tl.store(normals_ptr + 3 * n + i, n3, mask=m)


def ulps(a, b):
    """|a - b| in units in the last place, from the float32 bit patterns (same sign assumed)."""
    ia = a.view(torch.int32).to(torch.int64)
    ib = b.view(torch.int32).to(torch.int64)
    ia = torch.where(ia < 0, -(ia & 0x7fffffff), ia)
    ib = torch.where(ib < 0, -(ib & 0x7fffffff), ib)
    return (ia - ib).abs()


def draw_all(tlk, offsets, seed):
    n = offsets.numel()
    out = {}
    for who in ("triton", "tl gpu", "tl cpu"):
        dev = "cpu" if who == "tl cpu" else "cuda"
        words = torch.zeros(4 * n, dtype=torch.int32, device=dev)
        uniforms = torch.full((4 * n, ), float("nan"), device=dev)
        normals = torch.full((4 * n, ), float("nan"), device=dev)
        o = offsets.to(dev)
        if who == "triton":
            triton_draws[(triton.cdiv(n, 256), )](seed, o, words, uniforms, normals, n, BLOCK=256)
        else:
            tlk.random_draws(o, seed, words, uniforms, normals)
        torch.cuda.synchronize()
        out[who] = (words.cpu(), uniforms.cpu(), normals.cpu())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", required=True, help="libtl_tutorial_kernels.so")
    ap.add_argument("--n", type=int, default=1 << 20, help="offsets per seed and offset type")
    args = ap.parse_args()
    tlk = TlKernels(args.lib)
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}")
    g = torch.Generator().manual_seed(5)
    seeds = [0, 1, -1, 42, 0x123456789ABC]
    totals = {}
    for wide in (False, True):
        n = args.n if not wide else args.n // 4
        if wide:
            offsets = torch.randint(-(1 << 62), 1 << 62, (n, ), generator=g, dtype=torch.int64)
        else:
            offsets = torch.arange(n, dtype=torch.int32)
        for seed in seeds:
            d = draw_all(tlk, offsets, seed)
            for k, form in enumerate(("randint4x", "rand4x", "randn4x")):
                ref = d["triton"][k]
                for who in ("tl gpu", "tl cpu"):
                    got = d[who][k]
                    same = (got.view(torch.int32) == ref.view(torch.int32))
                    worst = 0 if k == 0 or bool(same.all()) else int(ulps(got, ref).max())
                    key = (form, "int64" if wide else "int32", who)
                    t = totals.setdefault(key, [0, 0, 0])
                    t[0] += int(same.sum())
                    t[1] += same.numel()
                    t[2] = max(t[2], worst)
    print("\n| form | offsets | drawn by | bit-equal to Triton | values | largest difference (ulp) |")
    print("|---|---|---|---|---|---|")
    bad = False
    for (form, off, who), (eq, total, worst) in totals.items():
        print(f"| {form} | {off} | {who} | {eq} | {total} | {worst} |")
        if form != "randn4x" and eq != total:
            bad = True
        if form == "randn4x" and who == "tl gpu" and eq != total:
            bad = True
    src = triton_draws.warmup(0, torch.zeros(1, dtype=torch.int32, device="cuda"), torch.zeros(4, dtype=torch.int32, device="cuda"),
                              torch.zeros(4, device="cuda"), torch.zeros(4, device="cuda"), 1, BLOCK=256, grid=(1, ))
    ptx = src.asm["ptx"]
    ops = sorted({line.split()[0] for line in ptx.splitlines()
                  if any(f in line for f in ("sqrt", "lg2", "sin.", "cos.", "ex2", "rcp", "div."))
                  and not line.strip().startswith("//")})
    print(f"\nTriton's math instructions in the draws' PTX: {', '.join(ops) if ops else '(none: library calls)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
