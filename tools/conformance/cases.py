"""The conformance cases: their inputs, and what each computes (the Triton kernels).

Every case is one program on one block: inputs are written to DIR/<case>.<k>.bin, Triton's
output to DIR/<case>.triton.bin; tl_conformance writes DIR/<case>.tl-cpu.bin and
DIR/<case>.tl-gpu.bin from the same inputs, and conformance.py compares the three.
Buffers travel as bytes; each kernel reads them as the element types the case names.
"""
import numpy as np

B = 256  # elements of an elementwise case's block

rng = np.random.default_rng(2024)


def f32(*v):
    return np.array(v, dtype=np.float32)


def pad(a, n=B):
    """a repeated to n elements."""
    a = np.asarray(a)
    return np.resize(a, n).astype(a.dtype)


def f32_bits(*bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


NAN, NNAN = f32_bits(0x7FC00000)[0], f32_bits(0xFFC00000)[0]
DENORM_MIN, DENORM = f32_bits(1)[0], f32_bits(0x00012345)[0]
NORMAL_MIN = f32_bits(0x00800000)[0]

# Values for float -> integer conversions: in range, at and beyond every type's edges, inf, NaN.
CAST_VALUES = [0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 1.5, -1.5, 2.5, 100.7, -100.7, 127.0, 127.9, 128.0, -128.0,
               -128.9, -129.0, 200.0, 255.0, 255.5, 256.0, 257.0, 300.0, -300.0, 1000.0, 32767.0, 32768.0, -32768.0,
               -32769.0, 40000.0, -40000.0, 65535.0, 65536.0, 70000.0, -70000.0, 2.0**31, -(2.0**31), 3e9, -3e9,
               2.0**32, 5e9, -5e9, 1e10, 9.2e18, 2.0**63, -(2.0**63), 1e19, 2.0**64, 1e20, -1e20, 3.4e38, -3.4e38,
               np.inf, -np.inf, NAN, NNAN, -1.0, -2.0, 1e-40, -1e-40, 16777217.0, 4294967040.0, 4294967296.0, -1e30]
# Values for the math functions: denormals, zeros, infinities, NaN, the edges of exp's range, and
# random values over many binades.
MATH_EDGES = [0.0, -0.0, DENORM_MIN, -DENORM_MIN, DENORM, -DENORM, NORMAL_MIN, -NORMAL_MIN, 1e-30, -1e-30, np.inf,
              -np.inf, NAN, 1.0, -1.0, 0.5, 2.0, -2.0, 10.0, -10.0, 88.0, 88.8, 89.0, -87.0, -87.5, -88.0, -103.0,
              -104.0, -126.0, -127.0, -127.5, -130.0, -140.0, -149.0, -149.5, -150.0, 127.0, 127.99, 128.0, 3.14159265,
              1.5707964, 100.0, 1e4, 1e6, 1e30, -1e30, 20.0, -20.0, 9.0, -9.0, 0.25, 1e-4, -1e-4, 1e-7]


def math_inputs():
    r = (rng.standard_normal(B) * np.exp2(rng.uniform(-12, 8, B))).astype(np.float32)
    r[: len(MATH_EDGES)] = np.array(MATH_EDGES, dtype=np.float32)
    return r


def positive_math_inputs():
    r = np.abs(math_inputs())
    r[0] = 0.0
    r[1] = -0.0
    r[2] = -1.0
    r[3] = NAN
    return r


def bf16(a):
    """float32 values rounded to bfloat16, as their bits (uint16)."""
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r


def bf16_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def small_ints(dt, lo, hi):
    return pad(rng.integers(lo, hi, B, endpoint=True).astype(dt))


def int_edges(dt):
    info = np.iinfo(dt)
    v = [0, 1, 2, 3, 7, 100, info.max, info.max - 1, info.min, info.min + 1]
    if info.min < 0:
        v += [-1, -2, -7, -100]
    v += list(rng.integers(info.min, info.max, 40, endpoint=True, dtype=np.int64 if info.min < 0 else np.uint64))
    return pad(np.array(v, dtype=np.int64 if info.min < 0 else np.uint64).astype(dt))


def division_pairs(dt):
    """Numerators and divisors: every numerator by 0, by -1, by 1, by small and large values."""
    info = np.iinfo(dt)
    nums = [0, 1, 7, 100, info.max, info.min + (1 if info.min < 0 else 0), info.min]
    dens = [0, 1, 2, 3, 7, info.max]
    if info.min < 0:
        nums += [-1, -7, -100]
        dens += [-1, -2, -7, info.min]
    a, b = [], []
    for n in nums:
        for d in dens:
            a.append(n)
            b.append(d)
    big = np.int64 if info.min < 0 else np.uint64
    return pad(np.array(a, dtype=big).astype(dt)), pad(np.array(b, dtype=big).astype(dt))


def near_cancel(dt):
    """a, b, c, d with c close to -(a * b) and c * d close to -(a * b): where a fused
    multiply-add and a rounded product give different results."""
    if dt == "bf16":
        a = bf16_to_f32(bf16(rng.uniform(-4, 4, B)))
        b = bf16_to_f32(bf16(rng.uniform(-4, 4, B)))
        c = bf16_to_f32(bf16(-(a * b) * (1 + rng.uniform(-0.02, 0.02, B))))
        d = bf16_to_f32(bf16(rng.uniform(0.9, 1.1, B)))
        return [bf16(a), bf16(b), bf16(c), bf16(d)]
    t = np.float16 if dt == "f16" else np.float32
    a = rng.uniform(-4, 4, B).astype(t)
    b = rng.uniform(-4, 4, B).astype(t)
    c = (-(a.astype(np.float64) * b) * (1 + rng.uniform(-1e-3, 1e-3, B))).astype(t)
    d = rng.uniform(0.9, 1.1, B).astype(t)
    c[:8] = -(a[:8].astype(np.float64) * b[:8]).astype(t)
    d[:8] = 1
    return [a, b, c, d]


def reduce_inputs(dt):
    x = (rng.standard_normal(B) * 10).astype(np.float32)
    x[:4] = [1000.0, 0.001, -1000.0, 3.0]
    if dt == "bf16":
        return bf16(x)
    return x.astype(np.float16 if dt == "f16" else np.float32)


def minmax_pairs():
    vals = [0.0, -0.0, NAN, -NAN, 1.0, -1.0, np.inf, -np.inf, DENORM_MIN, -DENORM_MIN]
    a, b = [], []
    for x in vals:
        for y in vals:
            a.append(x)
            b.append(y)
    return pad(np.array(a, np.float32)), pad(np.array(b, np.float32))


def sort_input(t):
    v = np.array([NAN, 3.0, -0.0, 0.0, np.inf, -np.inf, -1.0, 1.0, 2.0, -2.0, NAN, 0.5, -0.0, 0.0, 7.0, -7.0],
                 dtype=np.float32)
    x = np.concatenate([v, rng.standard_normal(48).astype(np.float32)])
    return x.astype(t)


def cases():
    """Each case: (name, kind, parameters, inputs, output dtype, output length)."""
    out = []
    add = lambda *c: out.append(c)  # noqa: E731
    ints = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
    cv32 = pad(np.array(CAST_VALUES, dtype=np.float32))
    for t in ints:
        add(f"cast f32->{t}", "unary", dict(XT="float32", OT=t, OP="cast"), [cv32], t, B)
    add("cast f32->int1", "unary", dict(XT="float32", OT="int8", OP="to_int1"), [cv32], "int8", B)
    cv16 = pad(np.array(CAST_VALUES, dtype=np.float32).astype(np.float16))
    for t in ["int8", "uint8", "int16", "uint16", "int32", "int64"]:
        add(f"cast f16->{t}", "unary", dict(XT="float16", OT=t, OP="cast"), [cv16], t, B)
    cv64 = pad(np.array(CAST_VALUES, dtype=np.float64))
    for t in ["int8", "uint8", "int32", "int64", "uint32", "uint64"]:
        add(f"cast f64->{t}", "unary", dict(XT="float64", OT=t, OP="cast"), [cv64], t, B)
    fv = pad(np.array(CAST_VALUES + [65504.0, 65519.0, 65520.0, 6e-8, 3e-8, 2.9e-8, 1e-45], dtype=np.float32))
    for t in ["float16", "bfloat16", "float8e4nv", "float8e5"]:
        add(f"cast f32->{t}", "unary", dict(XT="float32", OT=t, OP="cast"), [fv], t, B)
    add("cast i32->int8", "unary", dict(XT="int32", OT="int8", OP="cast"), [int_edges(np.int32)], "int8", B)
    add("cast i64->f32", "unary", dict(XT="int64", OT="float32", OP="cast"), [int_edges(np.int64)], "float32", B)
    add("cast u64->f32", "unary", dict(XT="uint64", OT="float32", OP="cast"), [int_edges(np.uint64)], "float32", B)
    add("cast i32->f16", "unary", dict(XT="int32", OT="float16", OP="cast"), [int_edges(np.int32)], "float16", B)

    # Python-number operands (tl: C++ scalars) on small-type blocks.
    u8 = pad(np.array([0, 1, 2, 127, 128, 200, 254, 255], np.uint8))
    i8 = pad(np.array([0, 1, -1, 100, 126, 127, -127, -128], np.int8))
    u16 = pad(np.array([0, 1, 65534, 65535, 40000], np.uint16))
    for op in ["add1", "sub1", "mul2"]:
        add(f"literal u8 {op}", "unary", dict(XT="uint8", OT="int32", OP=op), [u8], "int32", B)
        add(f"literal i8 {op}", "unary", dict(XT="int8", OT="int32", OP=op), [i8], "int32", B)
    add("literal u16 add1", "unary", dict(XT="uint16", OT="int32", OP="add1"), [u16], "int32", B)
    h = (rng.standard_normal(B) * 4).astype(np.float16)
    hb = bf16((rng.standard_normal(B) * 4).astype(np.float32))
    for op in ["mul0.1", "add0.1", "sub1e-3", "mul3", "div3"]:
        add(f"literal f16 {op}", "unary", dict(XT="float16", OT="float32", OP=op), [h], "float32", B)
        add(f"literal bf16 {op}", "unary", dict(XT="bfloat16", OT="float32", OP=op), [hb], "float32", B)

    # sort and histogram.
    add("sort f32 (NaN, -0.0, inf)", "sort", dict(XT="float32", DESC=False), [sort_input(np.float32)], "float32", 64)
    add("sort f32 descending", "sort", dict(XT="float32", DESC=True), [sort_input(np.float32)], "float32", 64)
    add("sort f16 (NaN, -0.0, inf)", "sort", dict(XT="float16", DESC=False), [sort_input(np.float16)], "float16", 64)
    add("sort i32", "sort", dict(XT="int32", DESC=False), [small_ints(np.int32, -5, 5)[:64]], "int32", 64)
    no_nan = sort_input(np.float32)
    no_nan[np.isnan(no_nan)] = 5.0
    add("sort f32 (-0.0, inf, no NaN)", "sort", dict(XT="float32", DESC=False), [no_nan], "float32", 64)
    add("sort f32 descending (no NaN)", "sort", dict(XT="float32", DESC=True), [no_nan], "float32", 64)
    hv = np.array([0, 0, 7, 7, 8, 8, 9, -1, -2, 100, -100, 3, 0, 0, 0, 7] * 4, dtype=np.int32)
    add("histogram i32 (edges, out of range)", "hist", dict(XT="int32"), [hv], "int32", 8)
    add("histogram i32 random", "hist", dict(XT="int32"), [small_ints(np.int32, 0, 7)[:64]], "int32", 8)
    for v in [8, 9, 15, 16, 100, 1000, -1, -8, -100]:  # one out-of-range value among zeros
        hv1 = np.zeros(64, np.int32)
        hv1[5] = v
        add(f"histogram i32 one {v}", "hist", dict(XT="int32"), [hv1], "int32", 8)

    # integer division and modulo, zero divisors included.
    for t, npt in [("int8", np.int8), ("int16", np.int16), ("int32", np.int32), ("int64", np.int64),
                   ("uint8", np.uint8), ("uint16", np.uint16), ("uint32", np.uint32), ("uint64", np.uint64)]:
        a, b = division_pairs(npt)
        add(f"div {t} (by 0, by -1)", "binary", dict(AT=t, BT=t, OT=t, OP="idiv"), [a, b], t, B)
        add(f"mod {t} (by 0, by -1)", "binary", dict(AT=t, BT=t, OT=t, OP="mod"), [a, b], t, B)

    # math functions.
    for f in ["exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sigmoid", "tanh", "erf", "sin", "cos",
              "floor", "ceil", "abs"]:
        x = positive_math_inputs() if f in ["log", "log2", "sqrt", "sqrt_rn", "rsqrt"] else math_inputs()
        add(f"{f} f32", "unary", dict(XT="float32", OT="float32", OP=f), [x], "float32", B)
    da, db = math_inputs(), math_inputs()[::-1].copy()
    add("div f32 (a / b)", "binary", dict(AT="float32", BT="float32", OT="float32", OP="fdiv"), [da, db], "float32", B)
    add("div_rn f32", "binary", dict(AT="float32", BT="float32", OT="float32", OP="div_rn"), [da, db], "float32", B)
    dn = pad(f32(DENORM_MIN, DENORM, NORMAL_MIN, 1e-20, 1e-30, 3e-39, 1.5, -2.5))
    dm = pad(f32(1.0, 0.5, 0.25, 1e-20, 1e-10, 0.5, DENORM_MIN, DENORM))
    add("mul f32 denormal results", "binary", dict(AT="float32", BT="float32", OT="float32", OP="mul"), [dn, dm],
        "float32", B)
    add("add f32 denormals", "binary", dict(AT="float32", BT="float32", OT="float32", OP="add"), [dn, -dm],
        "float32", B)

    # multiply-add patterns.
    for dt, t in [("f32", "float32"), ("f16", "float16"), ("bf16", "bfloat16")]:
        ins = near_cancel(dt)
        for op in ["a*b+c", "c+a*b", "a*b-c", "c-a*b", "a*b+c*d", "fma(a,b,c)", "fma(a,b,c*d)", "fma(c,d,a*b)"]:
            add(f"{op} {dt}", "mad", dict(T=t, OP=op), ins, t, B)

    # reductions.
    for dt, t in [("f32", "float32"), ("f16", "float16"), ("bf16", "bfloat16")]:
        x = reduce_inputs(dt)
        for op in ["sum", "max", "min"]:
            add(f"{op} {dt}", "reduce", dict(XT=t, OT="float32", OP=op), [x], "float32", 1)
    xn = reduce_inputs("f32")
    xn[17] = NAN
    add("max f32 with NaN", "reduce", dict(XT="float32", OT="float32", OP="max"), [xn], "float32", 1)
    add("sum i8", "reduce", dict(XT="int8", OT="int32", OP="sum"), [small_ints(np.int8, -128, 127)], "int32", 1)

    # maximum / minimum.
    ma, mb = minmax_pairs()
    for op in ["maximum", "minimum", "maximum_all", "minimum_all"]:
        add(f"{op} f32 (-0.0, NaN)", "binary", dict(AT="float32", BT="float32", OT="float32", OP=op), [ma, mb],
            "float32", B)
    add("maximum f16 (-0.0, NaN)", "binary", dict(AT="float16", BT="float16", OT="float16", OP="maximum"),
        [ma.astype(np.float16), mb.astype(np.float16)], "float16", B)

    # dot, 16 x 16 x 16.
    a = rng.standard_normal(256).astype(np.float32)
    b = rng.standard_normal(256).astype(np.float32)
    add("dot f32 tf32", "dot", dict(T="float32", PREC="tf32"), [a, b], "float32", 256)
    add("dot f32 ieee", "dot", dict(T="float32", PREC="ieee"), [a, b], "float32", 256)
    add("dot f16", "dot", dict(T="float16", PREC="tf32"), [a.astype(np.float16), b.astype(np.float16)], "float32", 256)
    add("dot bf16", "dot", dict(T="bfloat16", PREC="tf32"), [bf16(a), bf16(b)], "float32", 256)

    # random numbers (seed 42, offsets 0 .. 255).
    for op, t in [("rand", "float32"), ("randn", "float32"), ("randint", "uint32")]:
        add(f"{op} seed 42", "random", dict(OP=op), [], t, B)
    return out
