#!/usr/bin/env python3
"""Tables of the plateau and depth-weight diagnostic (README.md) from single.jsonl and ../xgboost."""
import collections, json, os, statistics as st

here = os.path.dirname(os.path.abspath(__file__))
runs = [json.loads(l) for l in open(os.path.join(here, "single.jsonl"))]
xgb = {}
for l in open(os.path.join(here, "..", "xgboost", "results.jsonl")):
    r = json.loads(l)
    xgb[(r["dataset"], r["split"])] = r["kendall_tau"]

VARIANTS = ["0.2:2", "0.2:2:restore", "0.5:3", "dw0.5", "dw0.7", "dw1.5"]
NAMES = {
    "0.2:2": "plateau x0.2, 2 times",
    "0.2:2:restore": "plateau x0.2, 2 times, from the best epoch",
    "0.5:3": "plateau x0.5, 3 times",
    "dw0.5": "depth weight 0.5",
    "dw0.7": "depth weight 0.7",
    "dw1.5": "depth weight 1.5",
}
by = collections.defaultdict(dict)  # (config, run) -> (set, split, seed) -> run
for r in runs:
    by[(r["config"], r["run"])][(r["dataset"], r["split"], r["seed"])] = r

print("## Against the same runs without the change (`base`)\n")
print("| config | variant | runs | mean tau, base → variant | higher / lower | mean test NLL, base → variant | mean epochs, base → variant |")
print("|---|---|---:|---:|---:|---:|---:|")
for cfg in ["defaults", "trial5"]:
    base = by[(cfg, "base")]
    for v in VARIANTS:
        d = by.get((cfg, v), {})
        ks = sorted(k for k in d if k in base)
        if not ks:
            continue
        t = lambda m: st.mean(m[k]["kendall_tau"] for k in ks)
        n = lambda m: st.mean(m[k]["nll"] for k in ks)
        e = lambda m: st.mean(m[k]["epochs"] for k in ks)
        hi = sum(d[k]["kendall_tau"] > base[k]["kendall_tau"] + 1e-12 for k in ks)
        lo = sum(d[k]["kendall_tau"] < base[k]["kendall_tau"] - 1e-12 for k in ks)
        print(f"| {cfg} | {NAMES[v]} | {len(ks)} | {t(base):.4f} → {t(d):.4f} | {hi} / {lo} | {n(base):.3f} → {n(d):.3f} | {e(base):.1f} → {e(d):.1f} |")

sets = sorted({r["dataset"] for r in runs})
for cfg in ["defaults", "trial5"]:
    base = by[(cfg, "base")]
    print(f"\n## {cfg}: mean tau per set (12 runs: splits 0-3 x seeds 0-2), and XGBoost's over the same splits\n")
    vs = [v for v in VARIANTS if by.get((cfg, v))]
    print("| set | XGBoost | base | " + " | ".join(NAMES[v] for v in vs) + " |")
    print("|---|---:|---:|" + "---:|" * len(vs))
    for s in sets:
        ks = sorted(k for k in base if k[0] == s)
        xs = st.mean(xgb[(s, k[1])] for k in ks)
        cells = [f"{st.mean(base[k]['kendall_tau'] for k in ks):.3f}"]
        for v in vs:
            d = by[(cfg, v)]
            kk = [k for k in ks if k in d]
            cells.append(f"{st.mean(d[k]['kendall_tau'] for k in kk):.3f}" if kk else "–")
        print(f"| {s} | {xs:.3f} | " + " | ".join(cells) + " |")

# The tuned ensembles (run-tuned.sh's tuned.jsonl, run-tuned-depthw.sh's tuned-depthw.jsonl)
# against ../tabular-ema's of the same splits.
ema = {}
for l in open(os.path.join(here, "..", "tabular-ema", "results.jsonl")):
    r = json.loads(l)
    if r["group"] == "tuned-all":
        ema[(r["dataset"], r["split"])] = r


def won(t, x):
    return x is not None and x == x and t > x + 1e-9


def tuned(name, title, label):
    path = os.path.join(here, name)
    if not os.path.exists(path):
        return
    new = {}
    for l in open(path):
        r = json.loads(l)
        new[(r["dataset"], r["split"])] = r
    print(f"\n## {title}\n")
    tot = collections.Counter()
    for split in sorted({k[1] for k in new}):
        ks = sorted(k for k in new if k[1] == split and k in ema)
        print(f"### Split {split}\n")
        print(f"| set | XGBoost | without | {label} | test NLL without | with | seconds without | with |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        c = collections.Counter()
        taus_a, taus_b, taus_x, nll_a, nll_b = [], [], [], [], []
        for k in ks:
            a = ema[k]["scores"]["tuned+all5"]
            b = new[k]["scores"]["tuned+all5"]
            x = xgb.get(k)
            wa, wb = won(a["kendall_tau"], x), won(b["kendall_tau"], x)
            c["a"] += wa
            c["b"] += wb
            c["hi"] += b["kendall_tau"] > a["kendall_tau"] + 1e-12
            c["lo"] += b["kendall_tau"] < a["kendall_tau"] - 1e-12
            c["nll"] += b["nll"] < a["nll"]
            if x == x:
                taus_a.append(a["kendall_tau"])
                taus_b.append(b["kendall_tau"])
                taus_x.append(x)
            nll_a.append(a["nll"])
            nll_b.append(b["nll"])
            xs = "n/a" if x != x else f"{x:.3f}"
            print(f"| {k[0]} | {xs} | {a['kendall_tau']:.3f}{' W' if wa else ''} | {b['kendall_tau']:.3f}{' W' if wb else ''} | "
                  f"{a['nll']:.2f} | {b['nll']:.2f} | {ema[k]['seconds']:.0f} | {new[k]['seconds']:.0f} |")
        print(f"\nSplit {split}: {len(ks)} sets. Wins against XGBoost {c['a']} -> {c['b']}; mean tau {st.mean(taus_a):.4f} -> {st.mean(taus_b):.4f} "
              f"(XGBoost {st.mean(taus_x):.4f}); tau higher on {c['hi']}, lower on {c['lo']}; mean test NLL {st.mean(nll_a):.3f} -> {st.mean(nll_b):.3f}, lower on {c['nll']}.\n")
        tot.update(c)
    print(f"Both splits: wins {tot['a']} -> {tot['b']}; tau higher on {tot['hi']}, lower on {tot['lo']}; test NLL lower on {tot['nll']}.")


tuned("tuned.jsonl", "`--tune --ensemble 5` with `DECOREG_PILOT_PLATEAU=0.2:2` against ../tabular-ema (the same runs without the drops)", "with drops")
tuned("tuned-depthw.jsonl", "`--tune --ensemble 5` with `DECOREG_PILOT_DEPTHW=0.5` (8 small sets) against ../tabular-ema (the same runs without the weights)", "with 0.5^d")
