# Prints the tables of README.md from this directory's journal.
# usage: python3 summarize.py  (run from this directory)
#
# Each line of results.jsonl is one run of the default `--tune --ensemble 5` (group tuned-all) with
# pilot-selection.patch: the same run scores the greedy ensemble of the library by the validation NLL
# ("tuned+all5", the default), and the same library chosen from greedily by the validation Kendall's
# tau of the mixture's mean ("pilot+tau5"), by its validation squared error ("pilot+mse5"), and by
# the NLL but on to 5 members whether or not each lowers it ("pilot+fill5"): exact pairs.
import json, os, statistics
here = os.path.dirname(os.path.abspath(__file__))
res = os.path.join(here, '..')
xg = {}
for l in open(os.path.join(res, 'xgboost/results.jsonl')):
    r = json.loads(l)
    xg[(r['dataset'], r['split'])] = r['kendall_tau']
won = lambda t, x: t is not None and t > x + 1e-9  # as the experiment's report: within 1e-9 a tie


def load(path):
    out = {}
    for l in open(path):
        r = json.loads(l)
        if r['group'] == 'tuned-all':
            out[(r['dataset'], r['split'])] = r
    return out


runs = load(os.path.join(here, 'results.jsonl'))
ema = load(os.path.join(res, 'tabular-ema/results.jsonl'))
V = [('tuned+all5', 'pilot_members', 'greedy by NLL (default)'), ('pilot+tau5', 'pilot_tau_members', 'greedy by tau'),
     ('pilot+mse5', 'pilot_mse_members', 'greedy by squared error'), ('pilot+fill5', 'pilot_fill_members', 'by NLL, filled to 5')]
f = lambda v: 'n/a' if v is None else '%.3f' % v


def sc(r, v):
    return r['scores'].get(v) or r['scores']['tuned+all5']  # one model in the library: the default's


print('| set | split | XGBoost | ' + ' | '.join(f'{name}: members, tau, NLL' for _, _, name in V) + " | tau in tabular-ema |")
print('|---|---:|---:|' + '---|' * len(V) + '---:|')
for k in sorted(runs):
    r = runs[k]
    cells = []
    for v, mk, _ in V:
        s = sc(r, v)
        cells.append(f"{r.get(mk) or 1}, {f(s['kendall_tau'])}{' W' if k in xg and xg[k] == xg[k] and won(s['kendall_tau'], xg[k]) else ''}, {s['nll']:.2f}")
    e = ema[k]['scores']['tuned+all5']['kendall_tau'] if k in ema else None
    print(f"| {k[0]} | {k[1]} | {f(xg.get(k))} | " + ' | '.join(cells) + f' | {f(e)} |')
keys = [k for k in sorted(runs) if runs[k]['scores']['tuned+all5']['kendall_tau'] is not None and k in xg and xg[k] == xg[k]]
same = sum(k in ema and ema[k]['scores']['tuned+all5']['kendall_tau'] == runs[k]['scores']['tuned+all5']['kendall_tau'] for k in runs)
print(f"\n{len(runs)} runs; {len(keys)} set-splits with a tau and an XGBoost tau; the default's tau equal to tabular-ema's on {same} of {sum(k in ema for k in runs)}.\n")
print('| selection | wins against XGBoost | mean tau | tau higher / lower than the default | mean test NLL | NLL lower than the default | mean members |')
print('|---|---:|---:|---:|---:|---:|---:|')
for v, mk, name in V:
    t = [sc(runs[k], v)['kendall_tau'] for k in keys]
    t0 = [runs[k]['scores']['tuned+all5']['kendall_tau'] for k in keys]
    n = [sc(runs[k], v)['nll'] for k in runs]
    n0 = [runs[k]['scores']['tuned+all5']['nll'] for k in runs]
    w = sum(won(a, xg[k]) for a, k in zip(t, keys))
    print(f"| {name} | {w} of {len(keys)} | {statistics.mean(t):.4f} | {sum(a > b for a, b in zip(t, t0))} / {sum(a < b for a, b in zip(t, t0))} | "
          f"{statistics.mean(n):.3f} | {sum(a < b for a, b in zip(n, n0))} of {len(n)} | {statistics.mean((runs[k].get(mk) or 1) for k in runs):.1f} |")
