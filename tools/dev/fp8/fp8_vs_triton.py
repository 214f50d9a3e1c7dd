"""tl's float8e4b15 conversions against Triton's, bit for bit, on a GPU with triton and torch.

Triton converts float8e4b15 in software on NVIDIA GPUs (language/extra/cuda/utils.py); tl
converts it in software on both backends. This compares, for every float16 value, the
midpoints between float8e4b15 values and random float32 values, the code each gives, and for
every code its float32 value. The AMD formats (float8e4b8, float8e5b16) cannot run on an
NVIDIA GPU in Triton and are checked by the test suite against their definitions only.

    g++ -std=c++20 -O1 -Iinclude tools/dev/fp8/fp8_codes.cpp -o /tmp/fp8_codes
    python3 tools/dev/fp8/fp8_vs_triton.py /tmp/fp8_codes
"""
import subprocess
import sys
import tempfile

import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def to_e4b15(x_ptr, q_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n)
    tl.store(q_ptr + i, x.to(tl.float8e4b15).to(tl.uint8, bitcast=True), mask=i < n)


@triton.jit
def from_e4b15(q_ptr, y_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    q = tl.load(q_ptr + i).to(tl.float8e4b15, bitcast=True)
    tl.store(y_ptr + i, q.to(tl.float32))


def main():
    codes_tool = sys.argv[1]
    rng = np.random.default_rng(5)
    halves = np.arange(0, 1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    halves = halves[~np.isnan(halves)]
    randoms = (rng.standard_normal(200000) * np.exp2(rng.uniform(-20, 3, 200000))).astype(np.float32)
    specials = np.array([np.inf, -np.inf, 1e30, -1e30, 1.8, 1.7, 1.71875, 1e-30, -1e-30, 0.0, -0.0], np.float32)
    x = np.concatenate([halves, randoms, specials]).astype(np.float32)
    # NaN: Triton goes through float16 (cvt.rz.f16.f32 gives the canonical, positive NaN).
    with tempfile.TemporaryDirectory() as d:
        x.tofile(f"{d}/x.bin")
        subprocess.run([codes_tool, f"{d}/x.bin", f"{d}/codes.bin", f"{d}/decoded.bin"], check=True)
        tl_codes = np.fromfile(f"{d}/codes.bin", dtype=np.uint8)
        tl_decoded = np.fromfile(f"{d}/decoded.bin", dtype=np.float32)
    xt = torch.from_numpy(x).cuda()
    q = torch.empty(x.size, dtype=torch.uint8, device="cuda")
    to_e4b15[(triton.cdiv(x.size, 1024), )](xt, q, x.size, BLOCK=1024)
    tr_codes = q.cpu().numpy()
    all_codes = torch.arange(256, dtype=torch.int32).to(torch.uint8).cuda()
    y = torch.empty(256, dtype=torch.float32, device="cuda")
    from_e4b15[(1, )](all_codes, y, BLOCK=256)
    tr_decoded = y.cpu().numpy()
    bad = np.nonzero(tl_codes != tr_codes)[0]
    print(f"float32 -> float8e4b15: {x.size - bad.size} of {x.size} values give Triton's code")
    for i in bad[:10]:
        print(f"  x = {x[i]!r} ({x[i].view(np.uint32):#010x}): tl {tl_codes[i]:#04x}, Triton {tr_codes[i]:#04x}")
    dbad = np.nonzero(tl_decoded.view(np.uint32) != tr_decoded.view(np.uint32))[0]
    print(f"float8e4b15 -> float32: {256 - dbad.size} of 256 codes give Triton's value")
    for b in dbad[:10]:
        print(f"  code {b:#04x}: tl {tl_decoded[b]!r}, Triton {tr_decoded[b]!r}")
    return 0 if bad.size == 0 and dbad.size == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
