"""Tables of this diagnostic from dropout.jsonl, target-quantile.jsonl, own-split.jsonl and
../xgboost/results.jsonl."""
import collections
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
xgb = {}
for line in open(os.path.join(here, '..', 'xgboost', 'results.jsonl')):
    r = json.loads(line)
    xgb[(r['dataset'], r['split'])] = r['kendall_tau']


def load(name):
    return [json.loads(line) for line in open(os.path.join(here, name))]


def mean(v):
    return sum(v) / len(v)


print('## Dropout (dropout.jsonl)\n')
print('| config | run | dropout | runs | mean tau | mean test NLL | mean epoch kept | wins vs XGBoost |')
print('|---|---|---:|---:|---:|---:|---:|---:|')
groups = collections.defaultdict(list)
for r in load('dropout.jsonl'):
    groups[(r['config'], r['run'], r['dropout'])].append(r)
for (cfg, run, p), rs in sorted(groups.items(), key=lambda kv: (kv[0][0] != 'defaults', kv[0][1], kv[0][2])):
    wins = sum(r['kendall_tau'] > xgb[(r['dataset'], r['split'])] for r in rs)
    print(f"| {cfg} | {run} | {p:g} | {len(rs)} | {mean([r['kendall_tau'] for r in rs]):.4f} | "
          f"{mean([r['nll'] for r in rs]):.3f} | {mean([r['best_epoch'] for r in rs]):.1f} | {wins} |")

print('\n## The target through its training ECDF (target-quantile.jsonl)\n')
rows = load('target-quantile.jsonl')
cells = collections.defaultdict(dict)
for r in rows:
    cells[(r['config'], r['extra'] or 'single model')][(r['dataset'], r['split'], r['mode'])] = r
print('"mean" ranks by the predictive mean: of y for plain, of G(y) for quantile (which ranks as')
print('G⁻¹ of it, another point estimate); "median" ranks by the median, the same point either way.\n')
print('| config | members | set-splits | mean tau plain | quantile | higher | median tau plain | quantile | higher | wins plain | wins quantile | XGBoost |')
print('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for (cfg, extra), c in sorted(cells.items()):
    sets = sorted({(d, s) for d, s, _ in c})
    row = [f'{cfg} | {extra} | {len(sets)}']
    for f in ['tau', 'tau_median']:
        p = [c[(d, s, 'plain')][f] for d, s in sets]
        q = [c[(d, s, 'quantile')][f] for d, s in sets]
        row.append(f'{mean(p):.4f} | {mean(q):.4f} | {sum(b > a for a, b in zip(p, q))}')
    wp = sum(c[(d, s, 'plain')]['tau'] > xgb[(d, s)] for d, s in sets)
    wq = sum(c[(d, s, 'quantile')]['tau'] > xgb[(d, s)] for d, s in sets)
    print(f"| {' | '.join(row)} | {wp} | {wq} | {mean([xgb[k] for k in sets]):.4f} |")
print()
keys = sorted(cells)
sets = sorted({(r['dataset'], r['split']) for r in rows})
print('Tau of the mean, plain → quantile ("–": not run):\n')
print('| set | split | XGBoost | ' + ' | '.join(f'{cfg} {e}' for cfg, e in keys) + ' |')
print('|---|---:|---:|' + '---:|' * len(keys))
for d, s in sets:
    print(f'| {d} | {s} | {xgb[(d, s)]:.3f} | ' + ' | '.join(
        f"{cells[k][(d, s, 'plain')]['tau']:.3f} → {cells[k][(d, s, 'quantile')]['tau']:.3f}"
        if (d, s, 'plain') in cells[k] else '–' for k in keys) + ' |')

print('\n## Ensemble members on their own validation rows (own-split.jsonl)\n')
rows = load('own-split.jsonl')
by = collections.defaultdict(dict)
for r in rows:
    by[(r['config'], r['mode'])][(r['dataset'], r['split'])] = r
sets = sorted(set.intersection(*[set(v) for v in by.values()]))
print('| config | validation rows | set-splits | mean tau | higher than same | mean test NLL | wins vs XGBoost |')
print('|---|---|---:|---:|---:|---:|---:|')
for (cfg, mode), v in sorted(by.items(), key=lambda kv: (kv[0][0], ['same', 'own', 'fold'].index(kv[0][1]))):
    same = by[(cfg, 'same')]
    hi = '–' if mode == 'same' else f"{sum(v[k]['tau'] > same[k]['tau'] for k in sets)} of {len(sets)}"
    print(f"| {cfg} | {mode} | {len(sets)} | {mean([v[k]['tau'] for k in sets]):.4f} | {hi} | "
          f"{mean([v[k]['nll'] for k in sets]):.3f} | {sum(v[k]['tau'] > xgb[k] for k in sets)} |")
print(f"\nXGBoost's mean tau on these {len(sets)} set-splits: {mean([xgb[k] for k in sets]):.4f}.")
