#!/usr/bin/env python3
"""Tables of the tabular-depth README from results.jsonl (groups tuned-all, splits 0 and 1,
and tuned-all-depth where it ran), ../tabular-resolution/results.jsonl and
../xgboost/results.jsonl. Standard library only. Run from this directory: python3 summarize.py"""
import collections, json, math, statistics as st

TIE = 1e-9  # a win is a tau higher by more than this, as in the tabular report


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def ok(v):
    return v is not None and not (isinstance(v, float) and math.isnan(v))


xgb = {(r["dataset"], r["split"]): r["kendall_tau"] for r in lines("../xgboost/results.jsonl")}
runs = [r for r in lines("results.jsonl") if r["group"] == "tuned-all" and not r.get("error")]
commits = sorted({r["commit"][:7] for r in runs})
print(f"Runs: {len(runs)} (commit {', '.join(commits)}, {sorted({r['threads'] for r in runs})} thread(s) per process).\n")


def table(runs, variants, title):
    """Per split and over the splits: mean tau of the mean and of the median, wins against
    XGBoost, mean test NLL, 90% intervals in the 85-95% band, over the sets where XGBoost's
    tau is defined."""
    print(f"## {title}\n")
    print("| split | variant | sets | mean tau (mean) | wins | mean tau (median) | wins | XGBoost | mean test NLL | 90% in band | mean CRPS |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    splits = sorted({r["split"] for r in runs})
    for sp in splits + ["all"]:
        for v in variants:
            tau, med, x, nll, band, crps = collections.defaultdict(list), collections.defaultdict(list), {}, [], 0, []
            nsets = set()
            for r in runs:
                if sp != "all" and r["split"] != sp:
                    continue
                s = r["scores"].get(v)
                k = (r["dataset"], r["split"])
                if s is None or not ok(xgb.get(k)) or not ok(s["kendall_tau"]):
                    continue
                tau[r["dataset"]].append(s["kendall_tau"])
                med[r["dataset"]].append(s["kendall_tau_median"])
                x.setdefault(r["dataset"], []).append(xgb[k])
                nll.append(s["nll"])
                crps.append(s["crps"])
                band += 0.85 <= s["coverage_90"] <= 0.95
                nsets.add(r["dataset"])
            if not nsets:
                continue
            mt = {d: st.mean(t) for d, t in tau.items()}
            mm = {d: st.mean(t) for d, t in med.items()}
            mx = {d: st.mean(t) for d, t in x.items()}
            w1 = sum(mt[d] > mx[d] + TIE for d in mt)
            w2 = sum(mm[d] > mx[d] + TIE for d in mm)
            print(f"| {sp} | {v} | {len(nsets)} | {st.mean(mt.values()):.3f} | {w1} | {st.mean(mm.values()):.3f} | {w2} | "
                  f"{st.mean(mx.values()):.3f} | {st.mean(nll):.2f} | {band} of {len(nll)} | {st.mean(crps):.4g} |")
    print()


table(runs, ["tuned+all5", "tuned+all5+cal", "tuned+all5+iso", "tuned+all5+depth"], "`--tune --ensemble 5` (from all), its calibrations, and the median")

# NLL and coverage of the calibrations, set by set, where all three exist.
print("## The calibrations, split by split (where the validation rows allow them)\n")
print("| set | split | val rows | test NLL: none | nll T | isotonic | depth | 90% coverage: nll T | isotonic | depth |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
cnt = collections.Counter()
diffs = []
for r in sorted(runs, key=lambda r: (r["dataset"], r["split"])):
    s = r["scores"]
    if "tuned+all5+depth" not in s:
        continue
    n, c, i, d = (s[v] for v in ["tuned+all5", "tuned+all5+cal", "tuned+all5+iso", "tuned+all5+depth"])
    diffs.append(d["nll"] - c["nll"])
    cnt["depth<cal"] += d["nll"] < c["nll"]
    cnt["depth<iso"] += d["nll"] < i["nll"]
    cnt["n"] += 1
    print(f"| {r['dataset']} | {r['split']} | {round(0.1 * r['train_rows'])} | {n['nll']:.3f} | {c['nll']:.3f} | {i['nll']:.3f} | {d['nll']:.3f} | "
          f"{c['coverage_90']:.3f} | {i['coverage_90']:.3f} | {d['coverage_90']:.3f} |")
print(f"\nDepth below the NLL temperature on {cnt['depth<cal']} of {cnt['n']} set-splits (mean change {st.mean(diffs):+.3f} nats, "
      f"median {st.median(diffs):+.3f}); below isotonic on {cnt['depth<iso']}.\n")

# Reproducibility against tabular-resolution (the same protocol at 6565638 and later).
old = {(r["dataset"], r["split"]): r["scores"].get("tuned+all5") for r in lines("../tabular-resolution/results.jsonl")
       if r["group"] == "tuned-all" and r.get("scores")}
same = sum(1 for r in runs if old.get((r["dataset"], r["split"])) and
           old[(r["dataset"], r["split"])]["kendall_tau"] == r["scores"]["tuned+all5"]["kendall_tau"])
both = sum(1 for r in runs if old.get((r["dataset"], r["split"])))
print(f"`tuned+all5`'s tau equal to the bit to `tabular-resolution`'s on {same} of {both} set-splits.\n")

sd = [r for r in lines("results.jsonl") if r["group"] == "tuned-all-depth" and not r.get("error")]
if sd:
    keys = {(r["dataset"], r["split"]) for r in sd}
    base = [r for r in runs if (r["dataset"], r["split"]) in keys]
    table(base + sd, ["tuned+all5+cal", "tuned+all5+depth", "tuned+all5+sd", "tuned+all5+sd+cal", "tuned+all5+sd+depth"],
          f"Early stopping by depth (`tuned-all-depth`, commit {', '.join(sorted({r['commit'][:7] for r in sd}))}) "
          f"against the plain NLL, on the {len(keys)} set-splits it ran")
    print("| set | split | XGBoost | tau: tuned+all5+cal | tuned+all5+sd+depth | NLL: tuned+all5+cal | tuned+all5+sd+depth |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    b = {(r["dataset"], r["split"]): r["scores"] for r in base}
    for r in sorted(sd, key=lambda r: (r["dataset"], r["split"])):
        k = (r["dataset"], r["split"])
        c, d = b[k].get("tuned+all5+cal", b[k]["tuned+all5"]), r["scores"].get("tuned+all5+sd+depth", r["scores"]["tuned+all5+sd"])
        print(f"| {k[0]} | {k[1]} | {xgb[k]:.3f} | {c['kendall_tau']:.3f} | {d['kendall_tau']:.3f} | {c['nll']:.3f} | {d['nll']:.3f} |")

# The floor (min(1, T) for every depth's temperature), added after the runs above: tuned-all
# again at its commit, on the set-splits floor.jsonl holds.
try:
    fl = [r for r in lines("floor.jsonl") if r["group"] == "tuned-all" and not r.get("error")]
except FileNotFoundError:
    fl = []
if fl:
    first = {(r["dataset"], r["split"]): r["scores"] for r in runs}
    print(f"\n## Temperatures per depth with the floor ({sum('tuned+all5+depth' in r['scores'] for r in fl)} calibratable "
          f"set-splits of {len(fl)} run, commit "
          f"{', '.join(sorted({r['commit'][:7] for r in fl}))})\n")
    print("| set | split | tuned+all5 tau the same | test NLL: nll T | depth, no floor | depth, floor | isotonic | 90% coverage: depth, floor |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    d1, d2, n, below = [], [], 0, 0
    for r in sorted(fl, key=lambda r: (r["dataset"], r["split"])):
        s, k = r["scores"], (r["dataset"], r["split"])
        if "tuned+all5+depth" not in s:
            continue
        o = first.get(k, {})
        same = o.get("tuned+all5", {}).get("kendall_tau") == s["tuned+all5"]["kendall_tau"]
        od = o.get("tuned+all5+depth", {}).get("nll", float("nan"))
        print(f"| {k[0]} | {k[1]} | {'yes' if same else 'no'} | {s['tuned+all5+cal']['nll']:.3f} | {od:.3f} | "
              f"{s['tuned+all5+depth']['nll']:.3f} | {s['tuned+all5+iso']['nll']:.3f} | {s['tuned+all5+depth']['coverage_90']:.3f} |")
        d2.append(s["tuned+all5+depth"]["nll"] - s["tuned+all5+cal"]["nll"])
        below += d2[-1] < 0
        n += 1
    print(f"\nWith the floor, depth below the NLL temperature on {below} of {n} (mean change {st.mean(d2):+.3f} nats, "
          f"median {st.median(d2):+.3f}); 90% in band on {sum(0.85 <= r['scores']['tuned+all5+depth']['coverage_90'] <= 0.95 for r in fl if 'tuned+all5+depth' in r['scores'])} "
          f"(isotonic {sum(0.85 <= r['scores']['tuned+all5+iso']['coverage_90'] <= 0.95 for r in fl if 'tuned+all5+iso' in r['scores'])}).")
