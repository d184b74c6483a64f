#!/usr/bin/env python3
"""Summarises experiments/results/xgboost/results.jsonl (written by xgb_uci.py)
into experiments/results/xgboost/REPORT.md: per data set, the mean +- sample
standard deviation over the splits done of Kendall's tau-b and test RMSE, the
number of splits, n_train/n_test and fit seconds, plus the versions, commits
and command lines used.

Run from the repository root:

    /usr/bin/python3 experiments/xgboost/report.py
"""

import argparse
import json
import math
import os
import statistics
from collections import defaultdict

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(REPO, "experiments", "results", "xgboost")

COMMANDS = [
    "sudo apt-get install -y python3-xgboost python3-numpy python3-scipy python3-sklearn",
    "nice -n 10 /usr/bin/python3 experiments/xgboost/xgb_uci.py --splits 0",
    "nice -n 10 /usr/bin/python3 experiments/xgboost/xgb_uci.py --splits 0-9",
    "/usr/bin/python3 experiments/xgboost/report.py",
]


def mean_std(xs):
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return "nan"
    m = statistics.fmean(xs)
    s = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{m:.4g} ± {s:.2g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--in", dest="inp", default=os.path.join(RESULTS, "results.jsonl"))
    ap.add_argument("--out", default=os.path.join(RESULTS, "REPORT.md"))
    args = ap.parse_args()

    recs = {}
    with open(args.inp) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue
                recs[(r["dataset"], r["split"])] = r  # a later line for a key wins
    by = defaultdict(list)
    for (name, _), r in sorted(recs.items()):
        by[name].append(r)

    versions = sorted({(r["xgboost"], r["numpy"], r.get("scipy", "?"), r.get("sklearn", "?"))
                       for r in recs.values()})
    commits = sorted({r["commit"] for r in recs.values()})
    params = next(iter(recs.values()))["params"] if recs else {}
    total = sum(r["seconds"] for r in recs.values())

    out = []
    out.append("# XGBoost baseline on the 24 UCI data sets (decoreg issue 13)\n")
    out.append("Written by `experiments/xgboost/report.py` from `results.jsonl` "
               "(one line per data set and split, written by `experiments/xgboost/xgb_uci.py`).\n")
    out.append(f"Model: `xgboost.XGBRegressor({', '.join(f'{k}={v!r}' for k, v in params.items())})`, "
               "fit on the train rows of each split (raw features, raw targets; the target is the "
               "last CSV column), evaluated on the test rows of the split (`test_mask.csv.gz`, 1 = test). "
               "Kendall tau is tau-b of (prediction, test target), `scipy.stats.kendalltau`'s default, "
               "the same statistic as decoreg's `metrics.KendallTau`. RMSE is in the target's own units.\n")
    out.append(f"Results: {len(recs)} (data set, split) pairs over {len(by)} data sets; "
               f"fit+predict time {total:.0f} s in all (one thread, `nice -n 10`, 2-core machine).\n")
    out.append("Versions (xgboost, numpy, scipy, sklearn): "
               + "; ".join(", ".join(v) for v in versions) + ".  ")
    out.append("Repository commit(s) at run time: " + ", ".join(f"`{c}`" for c in commits) + ".\n")
    out.append("Kendall tau is averaged over the splits where it is defined; the *tau NaN* column counts "
               "the splits where it is not (every test target, or every prediction, the same: tau-b's "
               "denominator is 0, and scipy and decoreg's `metrics.KendallTau` both give NaN). "
               "Test sets of a few rows (challenger 2–3, fertility 10, autos 15–16) make tau very noisy.\n")
    out.append("| data set | splits | Kendall tau (mean ± sd) | tau NaN | test RMSE (mean ± sd) | n_train | n_test | s / split |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in sorted(by):
        rs = by[name]
        splits = [r["split"] for r in rs]
        ntr = sorted({r["n_train"] for r in rs})
        nte = sorted({r["n_test"] for r in rs})
        fmt = lambda v: str(v[0]) if len(v) == 1 else f"{v[0]}–{v[-1]}"
        out.append(f"| {name} | {len(splits)} | {mean_std([r['kendall_tau'] for r in rs])} | "
                   f"{sum(math.isnan(r['kendall_tau']) for r in rs)} | "
                   f"{mean_std([r['rmse'] for r in rs])} | {fmt(ntr)} | {fmt(nte)} | "
                   f"{statistics.fmean(r['seconds'] for r in rs):.2f} |")
    out.append("")
    partial = [f"{n} {sorted(r['split'] for r in by[n])}" for n in sorted(by)
               if sorted(r["split"] for r in by[n]) != list(range(10))]
    out.append("Splits done: " + ("; ".join(partial) if partial else "0–9 on every data set."))
    out.append("")
    out.append("Commands (from the repository root):\n")
    out.append("```")
    out.extend(COMMANDS)
    out.append("```")
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {args.out}: {len(recs)} results, {len(by)} data sets")


if __name__ == "__main__":
    main()
