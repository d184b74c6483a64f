#!/usr/bin/env python3
"""Tables of the epochs diagnostic (README.md) from results.jsonl, resolution-pilot.jsonl,
../tabular-resolution/results.jsonl and ../xgboost/results.jsonl. Standard library only.
Run from this directory: python3 summarize.py"""
import collections, json, statistics as st

TIE = 1e-9  # a win is a tau higher by more than this, as in the tabular report


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


xgb = {(r["dataset"], r["split"]): r["kendall_tau"] for r in lines("../xgboost/results.jsonl")}
runs = lines("results.jsonl")
sets = sorted({(r["dataset"], r["split"]) for r in runs})
by = collections.defaultdict(dict)
for r in runs:
    by[(r["config"], r["run"])][(r["dataset"], r["split"])] = r

print(f"## Single models against the epoch count ({len(sets)} set-splits)\n")
print(f"XGBoost's mean tau over them: {st.mean(xgb[s] for s in sets):.3f}.\n")
print("| config | run | mean tau | tau − es | higher than es | mean test NLL | NLL − es (median) | mean epoch kept | wins vs XGBoost |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
order = ["es", "es-p20", "es-p50", "e10", "e30", "e100", "e300", "ens5-e100"]
for cfg in ["defaults", "trial5"]:
    es = by[(cfg, "es")]
    for run in order:
        d = by.get((cfg, run))
        if not d:
            continue
        assert sorted(d) == sets, (cfg, run)
        dt = [d[s]["kendall_tau"] - es[s]["kendall_tau"] for s in sets]
        dn = [d[s]["nll"] - es[s]["nll"] for s in sets]
        wins = sum(d[s]["kendall_tau"] > xgb[s] + TIE for s in sets)
        higher = sum(x > TIE for x in dt)
        print(f"| {cfg} | {run} | {st.mean(d[s]['kendall_tau'] for s in sets):.3f} | {st.mean(dt):+.3f} | "
              f"{higher if run != 'es' else '–'} | {st.mean(d[s]['nll'] for s in sets):.2f} | "
              f"{st.mean(dn):+.2f} ({st.median(dn):+.2f}) | {st.mean(d[s]['best_epoch'] for s in sets):.0f} | {wins} |")

tuned = {(r["dataset"], r["split"]): r["scores"]["tuned+all5"] for r in lines("../tabular-resolution/results.jsonl")
         if r["group"] == "tuned-all" and r.get("scores", {}).get("tuned+all5")}
tt = [tuned[s] for s in sets]
print(f"\nFor reference, `tabular-resolution`'s `--tune --ensemble 5` on the same {len(sets)} set-splits: "
      f"mean tau {st.mean(t['kendall_tau'] for t in tt):.3f}, test NLL {st.mean(t['nll'] for t in tt):.2f}, "
      f"{sum(tuned[s]['kendall_tau'] > xgb[s] + TIE for s in sets)} wins.\n")

print("## Per set-split: tau (test NLL)\n")
cols = [("defaults", "es"), ("defaults", "e100"), ("trial5", "es"), ("trial5", "e30"), ("trial5", "e100"), ("trial5", "ens5-e100")]
print("| set | split | XGBoost | tuned ensemble | " + " | ".join(f"{c} {r}" for c, r in cols) + " |")
print("|---|---:|---:|---:|" + "---:|" * len(cols))
for s in sets:
    cells = [f"{by[c][s]['kendall_tau']:.3f} ({by[c][s]['nll']:.2f})" for c in cols]
    print(f"| {s[0]} | {s[1]} | {xgb[s]:.3f} | {tuned[s]['kendall_tau']:.3f} ({tuned[s]['nll']:.2f}) | " + " | ".join(cells) + " |")

pilot = {(r["dataset"], r["split"]): r["scores"]["tuned+all5"] for r in lines("resolution-pilot.jsonl")}
ps = sorted(pilot)
print(f"\n## `--tune --ensemble 5` with the trials compared and early-stopped at 2^-6 ({len(ps)} set-splits)\n")
print("| | mean tau | wins vs XGBoost | mean test NLL |")
print("|---|---:|---:|---:|")
for name, d in [("2^-18 (tabular-resolution)", tuned), ("2^-6 (pilot)", pilot)]:
    print(f"| {name} | {st.mean(d[s]['kendall_tau'] for s in ps):.3f} | {sum(d[s]['kendall_tau'] > xgb[s] + TIE for s in ps)} | "
          f"{st.mean(d[s]['nll'] for s in ps):.2f} |")
print(f"\nXGBoost's mean tau over them: {st.mean(xgb[s] for s in ps):.3f}; tau lower at 2^-6 on "
      f"{sum(pilot[s]['kendall_tau'] < tuned[s]['kendall_tau'] - TIE for s in ps)}, higher on "
      f"{sum(pilot[s]['kendall_tau'] > tuned[s]['kendall_tau'] + TIE for s in ps)}; test NLL higher on "
      f"{sum(pilot[s]['nll'] > tuned[s]['nll'] for s in ps)}.")

t2 = {(r["dataset"], r["split"]): r for r in lines("threads2-split1.jsonl")}
base = {(r["dataset"], r["split"]): r for r in lines("../tabular-resolution/results.jsonl") if r["group"] == "tuned-all"}
print(f"\n## Split 1 of three mid-size sets at 2 threads, one process ({len(t2)} runs)\n")
print("| set | XGBoost | two 1-thread processes (tabular-resolution): tau, NLL, budget cut | 2 threads alone: tau, NLL, budget cut | same trials chosen |")
print("|---|---:|---:|---:|---|")
for s in sorted(t2):
    a, b = base[s], t2[s]
    sa, sb = a["scores"]["tuned+all5"], b["scores"]["tuned+all5"]
    print(f"| {s[0]} | {xgb[s]:.3f} | {sa['kendall_tau']:.3f}, {sa['nll']:.2f}, {bool(a.get('cut'))} | "
          f"{sb['kendall_tau']:.3f}, {sb['nll']:.2f}, {bool(b.get('cut'))} | {'yes' if a['chosen'] == b['chosen'] else 'no'} |")

wd = lines("weight-decay.jsonl")
byw = collections.defaultdict(dict)
for r in wd:
    byw[r["wd"]][(r["dataset"], r["split"], r["seed"])] = r
b0 = byw["0"]
print(f"\n## Weight decay on the 3x128x4 PLR trial, early-stopped ({len(b0)} runs a setting)\n")
print("| --weight-decay | mean tau | tau − none | higher than none | mean test NLL | NLL − none (median) | mean epoch kept |")
print("|---|---:|---:|---:|---:|---:|---:|")
for w in ["0", "0.01 --adamw", "0.1 --adamw", "1 --adamw", "10 --adamw"]:
    d = byw[w]
    assert sorted(d) == sorted(b0), w
    ks = sorted(d)
    dt = [d[k]["tau"] - b0[k]["tau"] for k in ks]
    dn = [d[k]["nll"] - b0[k]["nll"] for k in ks]
    print(f"| {w} | {st.mean(d[k]['tau'] for k in ks):.3f} | {st.mean(dt):+.4f} | {sum(x > TIE for x in dt) if w != '0' else '–'} | "
          f"{st.mean(d[k]['nll'] for k in ks):.3f} | {st.mean(dn):+.3f} ({st.median(dn):+.3f}) | {st.mean(d[k]['best_epoch'] for k in ks):.1f} |")

pr = lines("depth-temperature.jsonl")
print(f"\n## Per-depth temperatures on 100-epoch models ({len(pr)} set-splits)\n")
print("| set | split | early-stopped: tau, NLL, cov90 | 100 epochs: tau, NLL, cov90 | one temperature T: tau, NLL, cov90 | per-depth T: tau, NLL, cov90 | per-depth T (depth 1..6) |")
print("|---|---:|---|---|---|---|---|")
fmt = lambda v: f"{v[0]:.3f}, {v[1]:.2f}, {v[2]:.2f}"
for r in pr:
    print(f"| {r['dataset']} | {r['split']} | {fmt(r['es'])} | {fmt(r['e_T1'])} | T={r['global_T']:g}: {fmt(r['e_global'])} | "
          f"{fmt(r['e_depth'])} | {', '.join(f'{t:g}' for t in r['depth_T'])} |")
print("| mean | | " + " | ".join(
    f"{st.mean(r[k][0] for r in pr):.3f}, {st.mean(r[k][1] for r in pr):.2f}, {st.mean(r[k][2] for r in pr):.2f}"
    for k in ["es", "e_T1", "e_global", "e_depth"]) + " | |")
hi = sum(r["e_depth"][0] > r["es"][0] + TIE for r in pr)
lo = sum(r["e_depth"][1] < r["es"][1] for r in pr)
both = sum(r["e_depth"][0] > r["es"][0] + TIE and r["e_depth"][1] < r["es"][1] for r in pr)
print(f"\nPer-depth temperatures against early stopping: tau higher on {hi} of {len(pr)}, test NLL lower on {lo}, both on {both}.")
