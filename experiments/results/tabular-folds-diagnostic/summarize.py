# python3 summarize.py > summary.md: plain.jsonl and folds.jsonl (group tuned-seeds) against
# ../tabular-ema's tuned-all runs of the same set-splits and ../xgboost.
import json, os, statistics as st
here = os.path.dirname(os.path.abspath(__file__))
def load(p, g):
    return {(r['dataset'], r['split']): r for r in map(json.loads, open(os.path.join(here, p))) if r['group'] == g}
xg = {(r['dataset'], r['split']): r['kendall_tau'] for r in map(json.loads, open(os.path.join(here, '../xgboost/results.jsonl')))}
P, F = load('plain.jsonl', 'tuned-seeds'), load('folds.jsonl', 'tuned-seeds')
A = load('../tabular-ema/results.jsonl', 'tuned-all')
S = 'tuned+seeds5'
print('| set | split | XGBoost | from all (tabular-ema) | from seeds | from seeds, folds | NLL seeds | NLL folds |')
print('|---|---:|---:|---:|---:|---:|---:|---:|')
rows = []
for k in sorted(set(P) & set(F)):
    tp, tf = P[k]['scores'][S]['kendall_tau'], F[k]['scores'][S]['kendall_tau']
    if tp is None or k not in xg:
        continue
    ta = A[k]['scores']['tuned+all5']['kendall_tau']
    w = lambda t: ' W' if t > xg[k] + 1e-9 else ''
    np_, nf = P[k]['scores'][S]['nll'], F[k]['scores'][S]['nll']
    print(f"| {k[0]} | {k[1]} | {xg[k]:.3f} | {ta:.3f}{w(ta)} | {tp:.3f}{w(tp)} | {tf:.3f}{w(tf)} | {np_:.2f} | {nf:.2f} |")
    rows.append((xg[k], ta, tp, tf, np_, nf))
print(f"\n{len(rows)} set-splits. Mean tau: from all {st.mean(r[1] for r in rows):.4f}, from seeds {st.mean(r[2] for r in rows):.4f}, "
      f"from seeds with folds {st.mean(r[3] for r in rows):.4f} (XGBoost {st.mean(r[0] for r in rows):.4f}); wins against XGBoost "
      f"{sum(r[1] > r[0] + 1e-9 for r in rows)}, {sum(r[2] > r[0] + 1e-9 for r in rows)}, {sum(r[3] > r[0] + 1e-9 for r in rows)}. "
      f"Folds against plain seeds: tau higher on {sum(r[3] > r[2] for r in rows)}, lower on {sum(r[3] < r[2] for r in rows)}; "
      f"mean test NLL {st.mean(r[4] for r in rows):.3f} -> {st.mean(r[5] for r in rows):.3f}, lower on {sum(r[5] < r[4] for r in rows)}.")
