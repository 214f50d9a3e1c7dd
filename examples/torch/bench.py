#!/usr/bin/env python3
"""tl_torch's operators beside Triton's tutorial kernels and torch, all three called from Python.

    python3 examples/torch/bench.py [--only softmax,layernorm,matmul,attention] [--quick]

Each side is called as a user calls it: tl's op through torch.ops (outputs allocated by the op),
Triton's tutorial kernel through its tutorial's Python wrapper (outputs allocated there too;
the kernels are the second suite's, tools/bench/tutorials/tutorials_vs_triton.py), torch's own
op. Every output is checked against torch's first. Times: medians of triton.testing.do_bench
(L2 flushed between calls). Prints a Markdown table with each side's time and tl's speed
relative to Triton's and torch's (above 1: tl faster).
"""
import argparse
import importlib.util
import math
import os

import sys

import torch
import triton

here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != here]  # the installed tl_torch, not ./tl_torch
import tl_torch  # noqa: E402

spec = importlib.util.spec_from_file_location("tvt", os.path.join(here, "../../tools/bench/tutorials/tutorials_vs_triton.py"))
tvt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tvt)
F = torch.nn.functional


bench, check = tvt.bench, tvt.check  # the second suite's: do_bench's median; allclose against torch's


def triton_softmax(x):
    rows, cols = x.shape
    y = torch.empty_like(x)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    tvt.softmax_kernel[(min(rows, sms * 8), 1, 1)](y, x, x.stride(0), y.stride(0), rows, cols,
                                                    BLOCK_SIZE=triton.next_power_of_2(cols), num_stages=2, num_warps=8)
    return y


def triton_matmul(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )
    tvt.matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                            ACTIVATION="")
    return c


def triton_attention(q, k, v, causal, sm_scale):
    Z, H, n_ctx, d = q.shape
    o = torch.empty_like(q)
    m = torch.empty((Z, H, n_ctx), device=q.device, dtype=torch.float32)
    grid = lambda META: (triton.cdiv(n_ctx, META["BLOCK_M"]), Z * H, 1)
    tvt._attn_fwd[grid](sm_scale, m, Z, H, q, k, v, o, n_ctx, HEAD_DIM=d, STAGE=3 if causal else 1)
    return o


def case_softmax(rows, cols):
    x = torch.randn(rows, cols, device="cuda")
    want = torch.softmax(x, dim=1)
    check("tl softmax", tl_torch.softmax(x), want, 1e-6, 1e-4)
    check("Triton softmax", triton_softmax(x), want, 1e-6, 1e-4)
    return (bench(lambda: tl_torch.softmax(x)), bench(lambda: triton_softmax(x)), bench(lambda: torch.softmax(x, dim=1)))


def case_layer_norm(M, N, backward):
    dtype, eps = torch.float16, 1e-5
    x = -2.3 + 0.5 * torch.randn(M, N, device="cuda", dtype=dtype)
    w = torch.rand(N, device="cuda", dtype=dtype)
    b = torch.rand(N, device="cuda", dtype=dtype)
    y, mean, rstd = torch.ops.tl_torch.layer_norm_fwd(x, w, b, eps)
    check("tl layer norm", y, F.layer_norm(x, (N, ), w, b, eps), 1e-2, 0)
    if not backward:
        return (bench(lambda: torch.ops.tl_torch.layer_norm_fwd(x, w, b, eps)),
                bench(lambda: tvt.triton_layer_norm_fwd(x, w, b, eps)), bench(lambda: F.layer_norm(x, (N, ), w, b, eps)))
    dy = 0.1 * torch.randn_like(x)
    dx, dw, db = torch.ops.tl_torch.layer_norm_bwd(dy, x, w, mean, rstd)
    xr, wr, br = (t.detach().clone().requires_grad_() for t in (x, w, b))
    yr = F.layer_norm(xr, (N, ), wr, br, eps)
    yr.backward(dy)
    check("tl layer norm dx", dx, xr.grad, 1e-2, 1e-2)
    yr2 = F.layer_norm(xr, (N, ), wr, br, eps)
    return (bench(lambda: torch.ops.tl_torch.layer_norm_bwd(dy, x, w, mean, rstd)),
            bench(lambda: tvt.triton_layer_norm_bwd(dy, x, w, mean, rstd)),
            bench(lambda: torch.autograd.grad(yr2, (xr, wr, br), dy, retain_graph=True)))


def case_matmul(n, dtype):
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    want = torch.matmul(a, b)
    tol = 2e-2 * math.sqrt(n / 512) * (4 if dtype == torch.bfloat16 else 1)
    check("tl matmul", tl_torch.matmul(a, b), want, tol, 1e-2)
    check("Triton matmul", triton_matmul(a, b), want, tol, 1e-2)
    return (bench(lambda: tl_torch.matmul(a, b)), bench(lambda: triton_matmul(a, b)), bench(lambda: torch.matmul(a, b)))


def case_attention(Z, H, n_ctx, d, causal):
    q, k, v = (torch.randn(Z, H, n_ctx, d, device="cuda", dtype=torch.float16) * 0.5 for _ in range(3))
    sm_scale = 1.0 / math.sqrt(d)
    sdpa = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sm_scale)
    want = sdpa()
    check("tl attention", tl_torch.attention(q, k, v, causal, sm_scale), want, 1e-2, 1e-2)
    check("Triton attention", triton_attention(q, k, v, causal, sm_scale), want, 1e-2, 1e-2)
    return (bench(lambda: tl_torch.attention(q, k, v, causal, sm_scale)),
            bench(lambda: triton_attention(q, k, v, causal, sm_scale)), bench(sdpa))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="softmax,layernorm,matmul,attention")
    ap.add_argument("--quick", action="store_true", help="one size each")
    args = ap.parse_args()
    only = set(args.only.split(","))
    cases = []
    if "softmax" in only:
        for cols in ([4096] if args.quick else [1024, 4096, 12672]):
            cases.append(("softmax f32", f"4096 x {cols}", lambda c=cols: case_softmax(4096, c)))
    if "layernorm" in only:
        for n in ([4096] if args.quick else [1024, 4096, 8192]):
            cases.append(("layer_norm fwd fp16", f"4096 x {n}", lambda n=n: case_layer_norm(4096, n, False)))
            cases.append(("layer_norm bwd fp16", f"4096 x {n}", lambda n=n: case_layer_norm(4096, n, True)))
    if "matmul" in only:
        for dtype in (torch.float16, torch.bfloat16):
            for n in ([4096] if args.quick else [1024, 4096]):
                cases.append((f"matmul {str(dtype)[6:]}", f"{n}^3", lambda n=n, t=dtype: case_matmul(n, t)))
    if "attention" in only:
        for d in (64, 128):
            for causal in (False, True):
                cases.append((f"attention fwd d{d}{' causal' if causal else ''}", "4 x 32 x 4096",
                              lambda d=d, c=causal: case_attention(4, 32, 4096, d, c)))
    # Triton's attention makes tensor descriptors on the device, in memory this allocator gives
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    print("| op | size | tl (ms) | Triton (ms) | torch (ms) | tl / Triton | tl / torch |")
    print("|---|---|---|---|---|---|---|")
    for name, size, run in cases:
        t_tl, t_tr, t_torch = run()
        print(f"| {name} | {size} | {t_tl:.4f} | {t_tr:.4f} | {t_torch:.4f} | {t_tr / t_tl:.2f} | {t_torch / t_tl:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
