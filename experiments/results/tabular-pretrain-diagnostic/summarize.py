# Prints the tables of README.md from this directory's journals.
# usage: python3 summarize.py  (run from this directory)
import json, collections, os
here = os.path.dirname(os.path.abspath(__file__))
res = os.path.join(here, '..')
xg = {}
for l in open(os.path.join(res, 'xgboost/results.jsonl')):
    r = json.loads(l)
    xg[(r['dataset'], r['split'])] = r['kendall_tau']
won = lambda t, x: t > x + 1e-9  # as the experiment's report: within 1e-9 a tie

# 1. Single models: base (plain decoder), freeze (--pretrain pointwise), init (the pretrained encoder
#    trained on with the head), pointwise (the pointwise head alone).
single = os.path.join(here, 'single.jsonl')
if os.path.exists(single):
    R = collections.defaultdict(dict)
    for l in open(single):
        r = json.loads(l)
        R[(r['config'], r['dataset'], r['split'], r['seed'])][r['mode']] = r
    print('## Single models (8 small sets x splits 0-3, seed 0)\n')
    print('| settings | mode | runs | mean tau | wins against XGBoost | tau higher than base | mean test NLL |')
    print('|---|---|---:|---:|---:|---:|---:|')
    for cfg in ('trial5', 'defaults'):
        keys = [k for k in R if k[0] == cfg]
        for mode in ('base', 'freeze', 'init', 'pointwise'):
            ks = [k for k in keys if mode in R[k]]
            if not ks:
                continue
            tau = [R[k][mode]['tau'] for k in ks]
            wins = sum(won(R[k][mode]['tau'], xg[(k[1], k[2])]) for k in ks)
            hi = '–' if mode == 'base' else str(sum(R[k][mode]['tau'] > R[k]['base']['tau'] for k in ks))
            nll = '–' if mode == 'pointwise' else '%.3f' % (sum(R[k][mode]['nll'] for k in ks) / len(ks))
            print(f'| {cfg} | {mode} | {len(ks)} | {sum(tau)/len(tau):.4f} | {wins} | {hi} | {nll} |')
    print()

# 2. Tuned ensembles (group tuned-all, score tuned+all5+cal where calibrated) against tabular-ema's.
def load(path):
    out = {}
    for l in open(path):
        r = json.loads(l)
        if r['group'] != 'tuned-all':
            continue
        s = r['scores'].get('tuned+all5+cal') or r['scores'].get('tuned+all5')
        out[(r['dataset'], r['split'])] = (s, r)
    return out

base = load(os.path.join(res, 'tabular-ema/results.jsonl'))
for name, title in (('tuned-pretrain.jsonl', 'every trial and member pretrained'), ('tuned-pretrain-seeds.jsonl', '4 pretrained seeds of the best trial in the library')):
    path = os.path.join(here, name)
    if not os.path.exists(path):
        continue
    new = load(path)
    print(f'## Tuned ensembles: {title} ({name})\n')
    print('| set | split | tau (tabular-ema) | tau | XGBoost | test NLL (tabular-ema) | test NLL | seconds (tabular-ema) | seconds |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    d, dn, up, lo, wb, wn, n = [], [], 0, 0, 0, 0, 0
    for k in sorted(new):
        s, r = new[k]
        b, br = base[k]
        bt, nt, x = b['kendall_tau'], s['kendall_tau'], xg[k]
        f = lambda v: 'n/a' if v is None else '%.3f' % v
        print(f"| {k[0]} | {k[1]} | {f(bt)} | {f(nt)} | {x:.3f} | {b['nll']:.3f} | {s['nll']:.3f} | {br['seconds']:.0f} | {r['seconds']:.0f} |")
        dn.append(s['nll'] - b['nll'])
        if bt is None or nt is None:
            continue
        n += 1
        d.append(nt - bt)
        up += nt > bt
        lo += nt < bt
        wb += won(bt, x)
        wn += won(nt, x)
    print(f'\n{n} set-splits with a tau: tau higher on {up}, lower on {lo}, mean change {sum(d)/n:+.4f}; '
          f'wins against XGBoost {wb} -> {wn}; test NLL mean change {sum(dn)/len(dn):+.3f} nats over {len(dn)}, lower on {sum(v < 0 for v in dn)}\n')
