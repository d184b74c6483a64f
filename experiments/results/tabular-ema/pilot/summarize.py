"""Tables of the moving-average pilot: python3 summarize.py > summary.md (run in this directory)."""
import json, collections, statistics
xg = {}
for l in open('../../xgboost/results.jsonl'):
    r = json.loads(l); xg[(r['dataset'], r['split'])] = r['kendall_tau']

print('## Single models (single.jsonl; bias-corrected average)\n')
print('| config | decay | runs | mean tau | mean test NLL | mean epoch kept | wins vs XGBoost |')
print('|---|---:|---:|---:|---:|---:|---:|')
def by_config(path):
    """The journal's runs grouped by (config, decay), in order."""
    g = collections.defaultdict(list)
    for l in open(path):
        r = json.loads(l); g[(r['config'], r['ema'])].append(r)
    return sorted(g.items())

for (cfg, d), rs in by_config('single.jsonl'):
    n = len(rs)
    print(f"| {cfg} | {d:g} | {n} | {sum(r['kendall_tau'] for r in rs)/n:.4f} | {sum(r['nll'] for r in rs)/n:.3f} | "
          f"{sum(r['best_epoch'] or 0 for r in rs)/n:.1f} | {sum(r['kendall_tau'] > xg[(r['dataset'], r['split'])] for r in rs)} |")

print('\nThe first version of the patch (single-warmup.jsonl) warmed the decay up as TensorFlow\'s '
      'ExponentialMovingAverage does, min(d, (1+t)/(10+t)), from the initial weights, instead of the bias correction:')
print('\n| config | decay | runs | mean tau | mean test NLL |')
print('|---|---:|---:|---:|---:|')
for (cfg, d), rs in by_config('single-warmup.jsonl'):
    n = len(rs)
    print(f"| {cfg} | {d:g} | {n} | {sum(r['kendall_tau'] for r in rs)/n:.4f} | {sum(r['nll'] for r in rs)/n:.3f} |")

print('\n## The tuned ensemble (tuned.jsonl against ../../tabular-refit-diagnostic/base.jsonl)\n')
base = {}
for l in open('../../tabular-refit-diagnostic/base.jsonl'):
    r = json.loads(l); base[(r['dataset'], r['split'])] = r
new = {}
for l in open('tuned.jsonl'):
    r = json.loads(l); new[(r['dataset'], r['split'])] = r
print('| set | split | XGBoost | without | with 0.99 | NLL without | NLL with | seconds without | with |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
dt, dn, wb, we, n = [], [], 0, 0, 0
for k in sorted(new):
    b, e, x = base[k], new[k], xg[k]
    w = lambda t: ' W' if t is not None and t > x else ''
    f = lambda t: 'n/a' if t is None else f'{t:.3f}'
    print(f"| {k[0]} | {k[1]} | {x:.3f} | {f(b['tau'])}{w(b['tau'])} | {f(e['tau'])}{w(e['tau'])} | {b['nll']:.2f} | {e['nll']:.2f} | {b['seconds']:.0f} | {e['seconds']:.0f} |")
    dn.append(e['nll'] - b['nll'])
    if b['tau'] is None or e['tau'] is None:
        continue
    n += 1; dt.append(e['tau'] - b['tau']); wb += b['tau'] > x; we += e['tau'] > x
print(f"\n{len(new)} set-splits ({n} with a tau). Mean tau {statistics.mean(base[k]['tau'] for k in new if base[k]['tau'] is not None):.4f} -> "
      f"{statistics.mean(new[k]['tau'] for k in new if new[k]['tau'] is not None):.4f}: higher on {sum(d > 0 for d in dt)}, lower on {sum(d < 0 for d in dt)}, "
      f"median change {statistics.median(dt):+.4f}. Wins against XGBoost {wb} -> {we}. Mean test NLL "
      f"{statistics.mean(base[k]['nll'] for k in new):.3f} -> {statistics.mean(new[k]['nll'] for k in new):.3f}: lower on {sum(d < 0 for d in dn)} of {len(dn)}, "
      f"median change {statistics.median(dn):+.4f}. Run time {sum(base[k]['seconds'] for k in new)/60:.0f} -> {sum(new[k]['seconds'] for k in new)/60:.0f} min.")
