"""Summary of the refit diagnostic: base.jsonl (the default `decoreg train --tune --ensemble 5`)
against refit.jsonl (the same with the chosen members retrained on all training rows for their
best epoch count, refit.patch), beside XGBoost's taus (../xgboost/results.jsonl).
Usage: python3 summarize.py > summary.md"""
import json, os
here = os.path.dirname(os.path.abspath(__file__))
xg = {}
for l in open(os.path.join(here, '..', 'xgboost', 'results.jsonl')):
    d = json.loads(l)
    xg[(d['dataset'], d['split'])] = d['kendall_tau']
def load(name):
    out = {}
    for l in open(os.path.join(here, name)):
        d = json.loads(l)
        out[(d['dataset'], d['split'])] = d
    return out
b, r = load('base.jsonl'), load('refit.jsonl')
keys = [k for k in b if k in r]
print('| set | split | XGBoost tau | tau | tau refit | test NLL | NLL refit | seconds | seconds refit |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
def f(v, p=4):
    return '–' if v is None else f'{v:.{p}f}'
for k in keys:
    print(f"| {k[0]} | {k[1]} | {xg[k]:.4f} | {f(b[k]['tau'])} | {f(r[k]['tau'])} | {b[k]['nll']:.3f} | {r[k]['nll']:.3f} | {b[k]['seconds']:.0f} | {r[k]['seconds']:.0f} |")
both = [k for k in keys if b[k]['tau'] is not None and r[k]['tau'] is not None]
n = len(both)
mb = sum(b[k]['tau'] for k in both) / n
mr = sum(r[k]['tau'] for k in both) / n
mx = sum(xg[k] for k in both) / n
up = sum(r[k]['tau'] > b[k]['tau'] for k in both)
down = sum(r[k]['tau'] < b[k]['tau'] for k in both)
wb = sum(b[k]['tau'] > xg[k] for k in both)
wr = sum(r[k]['tau'] > xg[k] for k in both)
nb = sum(b[k]['nll'] for k in keys) / len(keys)
nr = sum(r[k]['nll'] for k in keys) / len(keys)
nlow = sum(r[k]['nll'] < b[k]['nll'] for k in keys)
print()
print(f'{len(keys)} set-splits ({len(keys) - n} without a tau: a constant test target). Over the {n} with one: '
      f'mean tau {mb:.4f} → {mr:.4f} with the refit (XGBoost {mx:.4f}); higher on {up}, lower on {down}; '
      f'wins against XGBoost {wb} → {wr}. Mean test NLL {nb:.3f} → {nr:.3f} (lower on {nlow} of {len(keys)}). '
      f'Run time {sum(b[k]["seconds"] for k in keys)/60:.0f} → {sum(r[k]["seconds"] for k in keys)/60:.0f} min.')
