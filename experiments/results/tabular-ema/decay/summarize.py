"""Tables of the decay diagnostic: python3 summarize.py > summary.md (run in this directory).
Decay 0 is ../pilot/single.jsonl's (9d927e6, no average); the others are single.jsonl (the CLI's --ema)."""
import json, collections, statistics
xg = {}
for l in open('../../xgboost/results.jsonl'):
    r = json.loads(l); xg[(r['dataset'], r['split'])] = r['kendall_tau']
runs = collections.defaultdict(dict)  # (config, set, split) -> decay -> run
for path, keep in (('../pilot/single.jsonl', lambda r: r['ema'] == 0), ('single.jsonl', lambda r: True)):
    for l in open(path):
        r = json.loads(l)
        if keep(r):
            runs[(r['config'], r['dataset'], r['split'])][r['ema']] = r
decays = sorted({d for v in runs.values() for d in v})
print('## Means over 8 small sets x splits 0, 1 (single early-stopped decoders, seed 0)\n')
print('| config | decay | steps averaged (1/(1-d)) | mean tau | tau higher / lower than at 0.99 | mean test NLL | mean epoch kept | wins vs XGBoost |')
print('|---|---:|---:|---:|---:|---:|---:|---:|')
for cfg in ('defaults', 'trial5'):
    ks = sorted(k for k in runs if k[0] == cfg)
    for d in decays:
        rs = [runs[k][d] for k in ks]
        ref = [runs[k][0.99]['kendall_tau'] for k in ks]
        hl = '' if d == 0.99 else f"{sum(r['kendall_tau'] > t for r, t in zip(rs, ref))} / {sum(r['kendall_tau'] < t for r, t in zip(rs, ref))}"
        span = '-' if d == 0 else f'{1/(1-d):.0f}'
        print(f"| {cfg} | {d:g} | {span} | {statistics.mean(r['kendall_tau'] for r in rs):.4f} | {hl} | "
              f"{statistics.mean(r['nll'] for r in rs):.3f} | {statistics.mean(r['best_epoch'] or 0 for r in rs):.1f} | "
              f"{sum(r['kendall_tau'] > xg[k[1:]] for r, k in zip(rs, ks))} |")
print('\n## Per set: tau (test NLL) by decay\n')
print('| config | set | split | XGBoost | ' + ' | '.join(f'{d:g}' for d in decays) + ' |')
print('|---|---|---:|---:|' + '---:|' * len(decays))
for k in sorted(runs):
    print(f'| {k[0]} | {k[1]} | {k[2]} | {xg[k[1:]]:.3f} | ' +
          ' | '.join(f"{runs[k][d]['kendall_tau']:.3f} ({runs[k][d]['nll']:.2f})" for d in decays) + ' |')
