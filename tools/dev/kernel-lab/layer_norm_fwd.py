#!/usr/bin/env python3
"""Time the layer norm forward's variants (layer_norm_fwd.cu) beside Triton's kernel, one run.

    layer_norm_fwd.py LIB [LIB...] [--profile VARIANTS]

Each LIB is a build of layer_norm_fwd.cu (run.sh makes them: one a warp count). Variant 0 is
tl's kernel, the others hand-written CUDA (the table in layer_norm_fwd.cu). Two timings:
  graph  GPU time alone: 20 launches captured in a CUDA graph, warm L2 (differences of a few
         instructions a warp show);
  cold   triton.testing.do_bench, one launch a call with L2 flushed between calls, as the
         second suite (tools/bench/tutorials/tutorials_vs_triton.py) measures.
Triton's kernel runs with the first LIB's warp count. --profile runs the given variants once each
and Triton's kernel once, for Nsight Compute (run.sh ncu).
"""
import argparse
import ctypes
import importlib.util
import os

import torch
import triton

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("tvt", os.path.join(here, "../../bench/tutorials/tutorials_vs_triton.py"))
tvt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tvt)

ap = argparse.ArgumentParser()
ap.add_argument("libs", nargs="+", help="builds of layer_norm_fwd.cu, WARPS:PATH")
ap.add_argument("--profile", help="comma-separated variants to run once each")
args = ap.parse_args()
libs = {}
for a in args.libs:
    warps, path = a.split(":", 1)
    libs[f"{os.path.basename(path).rsplit('.', 1)[0]}"] = (int(warps), ctypes.CDLL(path))

M, N, eps, K = 4096, 1024, 1e-5, 20
x = torch.randn(M, N, device="cuda", dtype=torch.float16)
w = torch.rand(N, device="cuda", dtype=torch.float16)
b = torch.rand(N, device="cuda", dtype=torch.float16)
y = torch.empty_like(x)
mean = torch.empty(M, device="cuda")
rstd = torch.empty(M, device="cuda")
ptr = lambda t: ctypes.c_void_p(t.data_ptr())


def tl_run(lib, iters, variant=0):
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    rc = lib.lab_fwd(variant, iters, ptr(x), ptr(y), ptr(w), ptr(b), ptr(mean), ptr(rstd), M, N, ctypes.c_float(eps), stream)
    if rc != 0:
        raise RuntimeError(f"lab_fwd variant {variant}: {rc}")


def triton_run(iters, warps):
    for _ in range(iters):
        tvt._layer_norm_fwd_fused[(M, )](x, y, w, b, mean, rstd, x.stride(0), N, eps, BLOCK_SIZE=1024, num_warps=warps)


first_warps, first = next(iter(libs.values()))
if args.profile:
    for v in (int(s) for s in args.profile.split(",")):
        tl_run(first, 1, v)
    triton_run(1, first_warps)
    torch.cuda.synchronize()
    raise SystemExit(0)

ref = torch.nn.functional.layer_norm(x.float(), (N, ), w.float(), b.float(), eps)
variants = first.lab_variants()
for name, (warps, lib) in libs.items():
    for v in range(variants if lib is first else 1):
        y.fill_(float("nan"))
        tl_run(lib, 1, v)
        torch.cuda.synchronize()
        err = (y.float() - ref).abs().max().item()
        if not err < 1e-2:
            raise SystemExit(f"{name} variant {v}: max error {err}")
print(f"layer norm forward, {M} x {N} fp16, us a launch; every output checked against torch")
for r in range(3):
    row = [f"{n}={triton.testing.do_bench_cudagraph(lambda: tl_run(l, K)) / K * 1e3:.2f}" for n, (_, l) in libs.items()]
    row += [f"v{v}={triton.testing.do_bench_cudagraph(lambda: tl_run(first, K, v)) / K * 1e3:.2f}" for v in range(1, variants)]
    row.append(f"triton={triton.testing.do_bench_cudagraph(lambda: triton_run(K, first_warps)) / K * 1e3:.2f}")
    print("graph  " + "  ".join(row))
for r in range(2):
    row = [f"{n}={triton.testing.do_bench(lambda: tl_run(l, 1)) * 1e3:.2f}" for n, (_, l) in libs.items()]
    row.append(f"triton={triton.testing.do_bench(lambda: triton_run(1, first_warps)) * 1e3:.2f}")
    print("cold   " + "  ".join(row))
