"""Wins against XGBoost of the default --tune --ensemble 5 on split 0 with seeds 0 (the experiment's,
../tabular-depth/results.jsonl, a8d708f), 100 and 200 (results.jsonl here)."""
import collections
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
xgb = {}
for line in open(os.path.join(here, '..', 'xgboost', 'results.jsonl')):
    r = json.loads(line)
    xgb[(r['dataset'], r['split'])] = r['kendall_tau']
tau = collections.defaultdict(dict)  # dataset -> seed -> (tau, nll)
for line in open(os.path.join(here, '..', 'tabular-depth', 'results.jsonl')):
    r = json.loads(line)
    if r['group'] == 'tuned-all' and r['split'] == 0:
        s = r['scores']['tuned+all5']
        tau[r['dataset']][0] = (s['kendall_tau'], s['nll'])
commits = collections.Counter()
for line in open(os.path.join(here, 'results.jsonl')):
    r = json.loads(line)
    tau[r['dataset']][r['seed']] = (r['tau'], r['nll'])
    commits[r['commit'][:7]] += 1
TIE = 1e-9
seeds = sorted({s for v in tau.values() for s in v})
full = sorted(d for d in tau if all(s in tau[d] for s in seeds) and xgb.get((d, 0)) == xgb.get((d, 0)))
print(f"Seeds {seeds}; {len(full)} sets with every seed; seeds 100, 200 at {dict(commits)}.\n")
print('| set | XGBoost | ' + ' | '.join(f'seed {s}' for s in seeds) + ' | wins | mean tau | mean NLL |')
print('|---|---:|' + '---:|' * len(seeds) + '---:|---:|---:|')
wins_by_seed = collections.Counter()
mean_wins = 0
for d in full:
    x = xgb[(d, 0)]
    w = [tau[d][s][0] > x + TIE for s in seeds]
    for s, v in zip(seeds, w):
        wins_by_seed[s] += v
    mt = sum(tau[d][s][0] for s in seeds) / len(seeds)
    mean_wins += mt > x + TIE
    cells = ' | '.join(f"{tau[d][s][0]:.3f}" + (' W' if v else '') for s, v in zip(seeds, w))
    print(f"| {d} | {x:.3f} | {cells} | {sum(w)} | {mt:.3f} | {sum(tau[d][s][1] for s in seeds) / len(seeds):.2f} |")
print()
for s in seeds:
    print(f"seed {s}: {wins_by_seed[s]} wins of {len(full)}, mean tau {sum(tau[d][s][0] for d in full) / len(full):.3f}")
print(f"expected wins (mean over the seeds): {sum(wins_by_seed.values()) / len(seeds):.2f}; "
      f"wins of the seed-averaged tau: {mean_wins}; XGBoost mean tau {sum(xgb[(d, 0)] for d in full) / len(full):.3f}")
