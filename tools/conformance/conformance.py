"""tl against Triton, bit for bit, on edge-case inputs (tools/conformance/run.sh runs it).

    python3 conformance.py triton DIR [PTX_DIR]   inputs and Triton's outputs into DIR (needs a GPU;
                                                   Triton's PTX of each case into PTX_DIR)
    python3 conformance.py table DIR     the comparison of DIR's outputs, as a markdown table

A case's outputs compare as: `=` bit for bit; `NaN` equal except for NaN payloads (every
differing element is NaN in both); else the number of differing elements and the first one.
"""
import re
import sys

import numpy as np

import cases

SIZE = {"int1": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint8": 1, "uint16": 2, "uint32": 4,
        "uint64": 8, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "float8e4nv": 1, "float8e5": 1}
NP = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
      "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float16": np.float16,
      "float32": np.float32, "float64": np.float64, "bfloat16": np.uint16, "float8e4nv": np.uint8, "float8e5": np.uint8}


def stem(name):
    """The file name of a case (tl_conformance.cu's stem()): + - * spelled out, other symbols _."""
    name = name.replace("+", " plus ").replace("-", " minus ").replace("*", " times ")
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def write_triton(d, ptx_dir=None):
    import triton_side
    with open(f"{d}/manifest.txt", "w") as m:
        for name, kind, p, ins, odt, n in cases.cases():
            s = stem(name)
            for k, a in enumerate(ins):
                np.ascontiguousarray(a).tofile(f"{d}/{s}.{k}.bin")
            try:
                ptx = f"{ptx_dir}/{s}.ptx" if ptx_dir else None
                triton_side.run(name, kind, p, ins, odt, n, ptx).tofile(f"{d}/{s}.triton.bin")
            except Exception as e:  # a case Triton rejects: reported in the table
                print(f"triton: {name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            m.write(f"{s}\t{odt}\t{n}\t{name}\n")


def is_nan(v, odt):
    if odt in ("float16", "float32", "float64"):
        return np.isnan(v)
    if odt == "bfloat16":
        return (v & 0x7FFF) > 0x7F80
    return np.zeros(v.shape, bool)


def show(v, odt):
    if odt == "bfloat16":
        return repr(float((np.array([v], np.uint16).astype(np.uint32) << 16).view(np.float32)[0]))
    if odt.startswith("float8"):
        return f"0x{int(v):02x}"
    if odt.startswith("float"):
        f = v.item()
        return f"{f!r} (0x{np.array([v]).view(np.uint64 if odt == 'float64' else np.uint32 if odt == 'float32' else np.uint16)[0]:x})"
    return str(v.item())


def compare(x, y, odt):
    if x is None or y is None:
        return "missing", ""
    if x.tobytes() == y.tobytes():
        return "=", ""
    a, b = x.view(NP[odt]), y.view(NP[odt])
    diff = a.view(np.uint8).reshape(len(a), -1) != b.view(np.uint8).reshape(len(b), -1)
    diff = diff.any(axis=1)
    if (is_nan(a, odt)[diff] & is_nan(b, odt)[diff]).all():
        return "NaN", ""
    idx = np.flatnonzero(diff & ~(is_nan(a, odt) & is_nan(b, odt)))
    i = idx[0]
    u = ulps(a[idx], b[idx], odt)
    return f"{len(idx)}" + (f" ({u} ulp)" if u else ""), f"[{i}] {show(a[i], odt)} vs {show(b[i], odt)}"


def ulps(a, b, odt):
    """The largest distance in units in the last place among finite pairs, as text; '' for others."""
    if odt not in ("float16", "float32", "bfloat16"):
        return ""
    w = {"float16": np.int16, "float32": np.int32, "bfloat16": np.int16}[odt]
    ia, ib = a.view(w).astype(np.int64), b.view(w).astype(np.int64)
    top = np.int64(1) << (8 * np.dtype(w).itemsize - 1)
    ia = np.where(ia < 0, -(ia + top), ia)  # sign-magnitude to a line: -0.0 and +0.0 one apart... both 0
    ib = np.where(ib < 0, -(ib + top), ib)
    fin = ~(is_nan(a, odt) | is_nan(b, odt))
    if not fin.any():
        return ""
    d = np.abs(ia - ib)[fin]
    return f"<= {d.max()}" if d.max() < 1 << 20 else "far"


def load(path):
    try:
        return np.fromfile(path, dtype=np.uint8)
    except FileNotFoundError:
        return None


def table(d):
    rows, counts = [], {}
    with open(f"{d}/manifest.txt") as m:
        entries = [line.rstrip("\n").split("\t") for line in m]
    for s, odt, n, name in entries:
        tr, cpu, gpu = (load(f"{d}/{s}.{w}.bin") for w in ("triton", "tl-cpu", "tl-gpu"))
        r = [compare(cpu, tr, odt), compare(gpu, tr, odt), compare(cpu, gpu, odt)]
        for k, (c, _) in enumerate(r):
            key = ("=" if c == "=" else "NaN" if c == "NaN" else "missing" if c == "missing" else "differ")
            counts[(k, key)] = counts.get((k, key), 0) + 1
        first = next((f"{w}: {e}" for w, (c, e) in zip(("cpu-triton", "gpu-triton", "cpu-gpu"), r) if e), "")
        rows.append(f"| {name} | {r[0][0]} | {r[1][0]} | {r[2][0]} | {first} |")
    print("| case | tl-CPU vs Triton | tl-GPU vs Triton | tl-CPU vs tl-GPU | first difference |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    for k, w in enumerate(("tl-CPU vs Triton", "tl-GPU vs Triton", "tl-CPU vs tl-GPU")):
        print(f"{w}: {counts.get((k, '='), 0)} equal, {counts.get((k, 'NaN'), 0)} NaN payloads only, "
              f"{counts.get((k, 'differ'), 0)} differ, {counts.get((k, 'missing'), 0)} missing "
              f"(of {len(entries)})")


if __name__ == "__main__":
    {"triton": write_triton, "table": table}[sys.argv[1]](*sys.argv[2:])
