"""The Triton side of the conformance suite: runs every case of cases.py on the GPU."""
import numpy as np
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

import cases

DT = {"int1": tl.int1, "int8": tl.int8, "int16": tl.int16, "int32": tl.int32, "int64": tl.int64,
      "uint8": tl.uint8, "uint16": tl.uint16, "uint32": tl.uint32, "uint64": tl.uint64,
      "float16": tl.float16, "bfloat16": tl.bfloat16, "float32": tl.float32, "float64": tl.float64,
      "float8e4nv": tl.float8e4nv, "float8e5": tl.float8e5}
SIZE = {"int1": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint8": 1, "uint16": 2, "uint32": 4,
        "uint64": 8, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "float8e4nv": 1, "float8e5": 1}


@triton.jit
def k_unary(x_ptr, o_ptr, XT: tl.constexpr, OT: tl.constexpr, OP: tl.constexpr, B: tl.constexpr):
    xp = x_ptr.to(tl.pointer_type(XT))
    op = o_ptr.to(tl.pointer_type(OT))
    i = tl.arange(0, B)
    x = tl.load(xp + i)
    if OP == "cast":
        y = x.to(OT)
    elif OP == "to_int1":
        y = x.to(tl.int1)
    elif OP == "add1":
        y = x + 1
    elif OP == "sub1":
        y = x - 1
    elif OP == "mul2":
        y = x * 2
    elif OP == "mul0.1":
        y = x * 0.1
    elif OP == "add0.1":
        y = x + 0.1
    elif OP == "sub1e-3":
        y = x - 0.001
    elif OP == "mul3":
        y = x * 3
    elif OP == "div3":
        y = x / 3
    elif OP == "exp":
        y = tl.exp(x)
    elif OP == "exp2":
        y = tl.exp2(x)
    elif OP == "log":
        y = tl.log(x)
    elif OP == "log2":
        y = tl.log2(x)
    elif OP == "sqrt":
        y = tl.sqrt(x)
    elif OP == "sqrt_rn":
        y = tl.sqrt_rn(x)
    elif OP == "rsqrt":
        y = tl.rsqrt(x)
    elif OP == "sigmoid":
        y = tl.sigmoid(x)
    elif OP == "tanh":
        y = libdevice.tanh(x)
    elif OP == "erf":
        y = tl.erf(x)
    elif OP == "sin":
        y = tl.sin(x)
    elif OP == "cos":
        y = tl.cos(x)
    elif OP == "floor":
        y = tl.floor(x)
    elif OP == "ceil":
        y = tl.ceil(x)
    else:
        y = tl.abs(x)
    tl.store(op + i, y)


@triton.jit
def k_binary(a_ptr, b_ptr, o_ptr, AT: tl.constexpr, BT: tl.constexpr, OT: tl.constexpr, OP: tl.constexpr,
             B: tl.constexpr):
    i = tl.arange(0, B)
    a = tl.load(a_ptr.to(tl.pointer_type(AT)) + i)
    b = tl.load(b_ptr.to(tl.pointer_type(BT)) + i)
    if OP == "idiv":
        y = a // b
    elif OP == "mod":
        y = a % b
    elif OP == "fdiv":
        y = a / b
    elif OP == "div_rn":
        y = tl.div_rn(a, b)
    elif OP == "mul":
        y = a * b
    elif OP == "add":
        y = a + b
    elif OP == "maximum":
        y = tl.maximum(a, b)
    elif OP == "minimum":
        y = tl.minimum(a, b)
    elif OP == "maximum_all":
        y = tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)
    else:
        y = tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)
    tl.store(o_ptr.to(tl.pointer_type(OT)) + i, y)


@triton.jit
def k_mad(a_ptr, b_ptr, c_ptr, d_ptr, o_ptr, T: tl.constexpr, OP: tl.constexpr, B: tl.constexpr):
    i = tl.arange(0, B)
    a = tl.load(a_ptr.to(tl.pointer_type(T)) + i)
    b = tl.load(b_ptr.to(tl.pointer_type(T)) + i)
    c = tl.load(c_ptr.to(tl.pointer_type(T)) + i)
    d = tl.load(d_ptr.to(tl.pointer_type(T)) + i)
    if OP == "a*b+c":
        y = a * b + c
    elif OP == "c+a*b":
        y = c + a * b
    elif OP == "a*b-c":
        y = a * b - c
    elif OP == "c-a*b":
        y = c - a * b
    elif OP == "a*b+c*d":
        y = a * b + c * d
    elif OP == "fma(a,b,c)":
        y = tl.fma(a, b, c)
    elif OP == "fma(a,b,c*d)":
        y = tl.fma(a, b, c * d)
    else:
        y = tl.fma(c, d, a * b)
    tl.store(o_ptr.to(tl.pointer_type(T)) + i, y)


@triton.jit
def k_reduce(x_ptr, o_ptr, XT: tl.constexpr, OT: tl.constexpr, OP: tl.constexpr, B: tl.constexpr):
    x = tl.load(x_ptr.to(tl.pointer_type(XT)) + tl.arange(0, B))
    if OP == "sum":
        y = tl.sum(x)
    elif OP == "max":
        y = tl.max(x)
    else:
        y = tl.min(x)
    tl.store(o_ptr.to(tl.pointer_type(OT)), y)


@triton.jit
def k_sort(x_ptr, o_ptr, XT: tl.constexpr, DESC: tl.constexpr, B: tl.constexpr):
    i = tl.arange(0, B)
    x = tl.load(x_ptr.to(tl.pointer_type(XT)) + i)
    tl.store(o_ptr.to(tl.pointer_type(XT)) + i, tl.sort(x, descending=DESC))


@triton.jit
def k_hist(x_ptr, o_ptr, XT: tl.constexpr, B: tl.constexpr, NB: tl.constexpr):
    x = tl.load(x_ptr.to(tl.pointer_type(XT)) + tl.arange(0, B))
    tl.store(o_ptr.to(tl.pointer_type(tl.int32)) + tl.arange(0, NB), tl.histogram(x, NB))


@triton.jit
def k_dot(a_ptr, b_ptr, o_ptr, T: tl.constexpr, PREC: tl.constexpr):
    r = tl.arange(0, 16)
    idx = r[:, None] * 16 + r[None, :]
    a = tl.load(a_ptr.to(tl.pointer_type(T)) + idx)
    b = tl.load(b_ptr.to(tl.pointer_type(T)) + idx)
    if PREC == "ieee":
        c = tl.dot(a, b, input_precision="ieee")
    else:
        c = tl.dot(a, b)
    tl.store(o_ptr.to(tl.pointer_type(tl.float32)) + idx, c)


@triton.jit
def k_random(o_ptr, OP: tl.constexpr, B: tl.constexpr):
    off = tl.arange(0, B)
    if OP == "rand":
        tl.store(o_ptr.to(tl.pointer_type(tl.float32)) + off, tl.rand(42, off))
    elif OP == "randn":
        tl.store(o_ptr.to(tl.pointer_type(tl.float32)) + off, tl.randn(42, off))
    else:
        tl.store(o_ptr.to(tl.pointer_type(tl.uint32)) + off, tl.randint(42, off))


def dev(a):
    return torch.from_numpy(np.ascontiguousarray(a).view(np.uint8).copy()).cuda()


def run(name, kind, p, ins, odt, n, ptx=None):
    """Triton's output bytes of one case (and its PTX, into the file ptx if given)."""
    out = torch.full((n * SIZE[odt], ), 0xA5, dtype=torch.uint8, device="cuda")
    x = [dev(a) for a in ins]
    d = {k: (DT[v] if k in ("XT", "OT", "AT", "BT", "T") else v) for k, v in p.items()}
    if kind == "unary":
        compiled = k_unary[(1, )](x[0], out, B=len(ins[0]), **d)
    elif kind == "binary":
        compiled = k_binary[(1, )](x[0], x[1], out, B=len(ins[0]), **d)
    elif kind == "mad":
        compiled = k_mad[(1, )](*x, out, B=len(ins[0]), **d)
    elif kind == "reduce":
        compiled = k_reduce[(1, )](x[0], out, B=len(ins[0]), **d)
    elif kind == "sort":
        compiled = k_sort[(1, )](x[0], out, B=len(ins[0]), **d)
    elif kind == "hist":
        compiled = k_hist[(1, )](x[0], out, B=len(ins[0]), NB=n, **d)
    elif kind == "dot":
        compiled = k_dot[(1, )](x[0], x[1], out, **d)
    elif kind == "random":
        compiled = k_random[(1, )](out, B=n, **d)
    torch.cuda.synchronize()
    if ptx:
        with open(ptx, "w") as f:
            f.write(compiled.asm["ptx"])
    return out.cpu().numpy()
