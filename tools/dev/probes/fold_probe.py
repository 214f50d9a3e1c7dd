# Times fold_probe.cu's pipelined descriptor matmul at several stage counts beside Triton's tutorial
# kernel and torch, in one process (medians of triton.testing.do_bench):
#   python3 tools/dev/probes/fold_probe.py LIB_4WARPS LIB_8WARPS [M N K ...]
import ctypes
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "tutorials"))
import tutorials_vs_triton as tv  # noqa: E402

triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
libs = {"128x128 4w": ctypes.CDLL(sys.argv[1]), "128x256 8w": ctypes.CDLL(sys.argv[2])}
sizes = [int(x) for x in sys.argv[3:]] or [4096, 4096, 4096, 8192, 8192, 512]
sms = torch.cuda.get_device_properties(0).multi_processor_count
for M, N, K in zip(sizes[0::3], sizes[1::3], sizes[2::3]):
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    want = torch.matmul(a, b.T)
    flops = 2 * M * N * K / 1e12
    grid = lambda META: (min(sms, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])), )
    c_tr = torch.empty_like(c)
    run_tr = lambda: tv.matmul_kernel_descriptor_persistent[grid](a, b, c_tr, M, N, K, NUM_SMS=sms)
    run_tr()
    row = [f"{M}x{N}x{K}", f"Triton {flops / tv.bench(run_tr) * 1e3:.0f}", f"torch {flops / tv.bench(lambda: a @ b.T) * 1e3:.0f}"]
    for name, lib in libs.items():
        for stages, launch_stages in ((2, 3), (3, 3), (4, 4), (5, 5)):
            call = lambda: lib.fold_probe(ctypes.c_void_p(a.data_ptr()), ctypes.c_void_p(b.data_ptr()),
                                          ctypes.c_void_p(c.data_ptr()), M, N, K, sms, stages, launch_stages)
            c.fill_(float("nan"))
            call()
            torch.cuda.synchronize()
            err = (c.float() - want.float()).abs().max().item()
            ok = err < 0.05 * (K / 512) ** 0.5
            row.append(f"{name} S{stages}/{launch_stages} {flops / tv.bench(call) * 1e3:.0f}{'' if ok else ' WRONG'}")
    print(" | ".join(row), flush=True)
