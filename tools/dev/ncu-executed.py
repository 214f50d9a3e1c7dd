#!/usr/bin/env python3
"""Executed instructions per warp, by opcode, for each kernel of an Nsight Compute source report.

    ncu --section SourceCounters ... -o rep <command>
    ncu --import rep.ncu-rep --page source --csv --print-source sass > src.csv
    tools/dev/ncu-executed.py src.csv [--listing DIR] [--top N]

For each kernel in the report: warp-instructions executed a warp (the entry's first instruction
runs once a warp, so its count is the number of warps), the stall samples, and the opcodes that
take most of them. Two kernels of one run (tl's and Triton's for the same program) compare line
by line this way. --listing writes each kernel's executed instructions, one a line with its count
a warp and its stall samples, to DIR/<n>.txt.
"""
import argparse
import collections
import csv
import os
import sys


def kernels(path):
    """(name, [(sass, executed, samples)]) for each kernel of the CSV."""
    out, cur, cols = [], None, None
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "Kernel Name":
                cur = (row[1], [])
                out.append(cur)
            elif row[0] == "Address":
                cols = {name: i for i, name in enumerate(row)}
            elif cur is not None and cols and len(row) > cols["Instructions Executed"]:
                executed = int(row[cols["Instructions Executed"]] or 0)
                samples = int(row[cols["Warp Stall Sampling (All Samples)"]] or 0)
                cur[1].append((row[cols["Source"]].strip(), executed, samples))
    return out


def opcode(sass):
    words = sass.split()
    op = words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else "?")
    return op.split(".")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--listing", help="directory for each kernel's executed instructions")
    ap.add_argument("--top", type=int, default=16, help="opcodes to show")
    args = ap.parse_args()
    try:
        found = kernels(args.csv)
    except (UnicodeDecodeError, csv.Error) as e:
        sys.exit(f"{args.csv}: not a CSV source page ({e})")
    if not found:
        sys.exit(f"{args.csv}: no kernels (is it `ncu --page source --csv --print-source sass` output?)")
    # ncu prints some kernels' source page twice, once per view of the same profile: one copy each.
    found = [k for i, k in enumerate(found) if i == 0 or k != found[i - 1]]
    for n, (name, ins) in enumerate(found):
        ran = [x for x in ins if x[1]]
        if not ran:
            print(f"[{n}] {name[:100]}: no executed instructions recorded")
            continue
        warps = ran[0][1]
        per_op = collections.Counter()
        for sass, executed, _ in ran:
            per_op[opcode(sass)] += executed / warps
        total = sum(executed for _, executed, _ in ran) / warps
        samples = sum(s for _, _, s in ran)
        print(f"[{n}] {name[:100]}")
        print(f"    {warps} warps, {total:.0f} warp-instructions a warp, {samples} stall samples")
        print("    " + ", ".join(f"{op} {v:.0f}" for op, v in per_op.most_common(args.top)))
        if args.listing:
            os.makedirs(args.listing, exist_ok=True)
            with open(os.path.join(args.listing, f"{n}.txt"), "w") as f:
                f.write(f"# {name}\n# executed a warp, stall samples, instruction\n")
                for sass, executed, s in ran:
                    f.write(f"{executed / warps:7.2f} {s:6d}  {sass}\n")


if __name__ == "__main__":
    main()
