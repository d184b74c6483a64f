"""Wins of the default --tune --ensemble 5 against XGBoost on splits 0-3: splits 2 and 3 from
results.jsonl here, splits 0 and 1 from ../tabular-depth/results.jsonl (the same protocol)."""
import collections
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
xgb = {}
for line in open(os.path.join(here, '..', 'xgboost', 'results.jsonl')):
    r = json.loads(line)
    xgb[(r['dataset'], r['split'])] = r['kendall_tau']
runs = {}
for f in [os.path.join(here, '..', 'tabular-depth', 'results.jsonl'), os.path.join(here, 'results.jsonl')]:
    for line in open(f):
        r = json.loads(line)
        if r['group'] == 'tuned-all':
            runs[(r['dataset'], r['split'])] = r
sets = sorted({d for d, _ in runs})
splits = sorted({s for _, s in runs})


TIE = 1e-9  # a win is a tau higher by more than this, as in the tabular report


def mean(v):
    return sum(v) / len(v)


def ok(v):
    return v is not None and v == v  # not None, not NaN


# Set-splits where either tau is undefined (the test targets all tied) are left out.
runs = {k: r for k, r in runs.items() if ok(r['scores']['tuned+all5']['kendall_tau']) and ok(xgb.get(k))}


print('| split | sets | commit | mean tau | XGBoost | wins | ties | mean test NLL | 90% in band (+iso) |')
print('|---|---:|---|---:|---:|---:|---:|---:|---:|')
wins_by_set = collections.Counter()
for s in splits + ['all']:
    ks = [k for k in runs if s == 'all' or k[1] == s]
    tau = [runs[k]['scores']['tuned+all5']['kendall_tau'] for k in ks]
    xt = [xgb[k] for k in ks]
    wins = sum(a > b + TIE for a, b in zip(tau, xt))
    ties = sum(abs(a - b) <= TIE for a, b in zip(tau, xt))
    nll = mean([runs[k]['scores']['tuned+all5']['nll'] for k in ks])
    iso = [runs[k]['scores'].get('tuned+all5+iso') for k in ks]
    band = sum(0.85 <= v['coverage_90'] <= 0.95 for v in iso if v)
    commits = sorted({runs[k]['commit'][:7] for k in ks})
    if s != 'all':
        for k, a, b in zip(ks, tau, xt):
            wins_by_set[k[0]] += a > b + TIE
    print(f"| {s} | {len(ks)} | {', '.join(commits)} | {mean(tau):.3f} | {mean(xt):.3f} | {wins} | {ties} | {nll:.2f} | "
          f"{band} of {sum(1 for v in iso if v)} |")
print()
print('Per set (tau: ours / XGBoost; W marks a win), and wins over the splits run:\n')
print('| set | ' + ' | '.join(f'split {s}' for s in splits) + ' | wins |')
print('|---|' + '---|' * len(splits) + '---:|')
for d in sets:
    cells = []
    for s in splits:
        r = runs.get((d, s))
        if r is None:
            cells.append('–')
            continue
        t, x = r['scores']['tuned+all5']['kendall_tau'], xgb[(d, s)]
        cells.append(f"{t:.3f} / {x:.3f}{' W' if t > x + TIE else ''}")
    print(f"| {d} | " + ' | '.join(cells) + f' | {wins_by_set[d]} |')
n = len(splits)
maj = sum(1 for d in sets if wins_by_set[d] * 2 > n)
print(f'\nSets won on a majority of the {n} splits: {maj} of {len(sets)}.')
# As the other summaries count "over the splits": each set's tau averaged over the splits it ran.
mt = {d: mean([runs[(d, s)]['scores']['tuned+all5']['kendall_tau'] for s in splits if (d, s) in runs]) for d in sets}
mx = {d: mean([xgb[(d, s)] for s in splits if (d, s) in runs]) for d in sets}
print(f"Over the splits, each set's tau averaged: mean tau {mean(list(mt.values())):.3f} against XGBoost's "
      f"{mean(list(mx.values())):.3f}, wins {sum(mt[d] > mx[d] + TIE for d in sets)} of {len(sets)}.")
