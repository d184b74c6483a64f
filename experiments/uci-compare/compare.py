#!/usr/bin/env python3
"""Compare two directories of `decoreg bench uci` results cell by cell.

usage: compare.py OLD NEW > COMPARE.md

For every (dataset, head) present in both with the same splits it prints the
mean test NLL (original y units; Kendall's tau for the pointwise head) of
each, the difference of the means in units of the cell's split-to-split
standard deviation (the larger of the two), and the run time of each
directory. Runs differ between commits and machines the way two seeds do
(the first updates that round differently make the trajectories diverge),
so the question is whether the difference is within the spread over
splits, not whether the bits agree. Only the standard library is needed.
"""
import glob
import json
import math
import os
import statistics
import struct
import sys


def load(root):
    out = {}
    for f in glob.glob(os.path.join(root, "*", "*", "split*.json")):
        with open(f) as fh:
            r = json.load(fh)
        out[(r["dataset"], r["head"], r["split"])] = r
    return out


def same_bits(x, y):
    """Whether two JSON values are the same: floats by their bits (NaN as NaN, -0 not 0)."""
    if isinstance(x, float) and isinstance(y, float):
        return struct.pack("<d", x) == struct.pack("<d", y) or (math.isnan(x) and math.isnan(y))
    return type(x) is type(y) and x == y


def same_eval(a, b):
    """Whether every field of two runs' eval objects is the same bits."""
    ea, eb = a.get("eval"), b.get("eval")
    if not ea or not eb:
        return False  # a run that failed on either side
    return all(same_bits(ea.get(k), eb.get(k)) for k in set(ea) | set(eb))


def metric(r):
    e = r.get("eval")
    if not e:
        return None, None
    if r["head"] == "pointwise":
        return "tau", e.get("kendall_tau")
    return "nll", e.get("nll")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old, new = load(sys.argv[1]), load(sys.argv[2])
    for path, runs in ((sys.argv[1], old), (sys.argv[2], new)):
        if not runs:
            sys.exit(f"compare.py: {path}: no bench uci results (DATASET/HEAD/splitN.json) under it")
    cells = sorted({(d, h) for (d, h, _) in old} & {(d, h) for (d, h, _) in new})
    rows, zs, identical, identical_eval, runs = [], [], 0, 0, 0
    for d, h in cells:
        splits = sorted(s for (dd, hh, s) in old if (dd, hh) == (d, h) and (d, h, s) in new)
        a, b = [], []
        for s in splits:
            name, x = metric(old[(d, h, s)])
            _, y = metric(new[(d, h, s)])
            runs += 1
            ran = old[(d, h, s)].get("eval") and new[(d, h, s)].get("eval")
            if ran and same_bits(x, y):  # None and None: undefined on both sides (a tau of tied targets)
                identical += 1
            if same_eval(old[(d, h, s)], new[(d, h, s)]):
                identical_eval += 1
            if x is not None and y is not None and math.isfinite(x) and math.isfinite(y):
                a.append(x)
                b.append(y)
        if len(a) < 2:
            continue
        sd = max(statistics.stdev(a), statistics.stdev(b))
        z = (statistics.mean(b) - statistics.mean(a)) / sd if sd > 0 else 0.0
        zs.append(abs(z))
        rows.append((d, h, name, len(a), statistics.mean(a), statistics.mean(b), sd, z))
    secs = lambda rs: sum(r.get("seconds", 0) for r in rs.values())
    commits = lambda rs: sorted({r.get("commit", "")[:7] for r in rs.values()})
    print(f"# {sys.argv[2]} against {sys.argv[1]}\n")
    print(f"- old: {len(old)} runs, commits {', '.join(commits(old))}, run time {secs(old)/60:.1f} min")
    print(f"- new: {len(new)} runs, commits {', '.join(commits(new))}, run time {secs(new)/60:.1f} min")
    print(f"- runs with identical metric bits: {identical} of {runs}; with every field of eval identical: {identical_eval}")
    if zs:
        zs.sort()
        within = lambda t: sum(1 for z in zs if z <= t)
        print(f"- cells: {len(zs)}; |difference of means| / std over splits: median {statistics.median(zs):.2f}, "
              f"max {zs[-1]:.2f}; within 0.5 std: {within(0.5)}, within 1 std: {within(1)}\n")
    print("| dataset | head | metric | splits | old mean | new mean | std | (new-old)/std |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for d, h, name, n, ma, mb, sd, z in rows:
        print(f"| {d} | {h} | {name} | {n} | {ma:.4g} | {mb:.4g} | {sd:.3g} | {z:+.2f} |")


if __name__ == "__main__":
    main()
