"""--tune --ensemble 5 with --stop-by crps (tuned-all-crps, results.jsonl here) against the same
protocol early-stopped by the NLL (tuned-all: splits 0 and 1 from ../tabular-depth, a8d708f; splits 2
and 3 from ../tabular-splits23, 2cf4f44) and XGBoost (../xgboost), on the set-splits run here."""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
xgb = {}
for line in open(os.path.join(here, '..', 'xgboost', 'results.jsonl')):
    r = json.loads(line)
    xgb[(r['dataset'], r['split'])] = r['kendall_tau']
nll = {}
for f in ['tabular-depth', 'tabular-splits23']:
    for line in open(os.path.join(here, '..', f, 'results.jsonl')):
        r = json.loads(line)
        if r['group'] == 'tuned-all':
            nll[(r['dataset'], r['split'])] = r
crps = {}
for line in open(os.path.join(here, 'results.jsonl')):
    r = json.loads(line)
    if r['group'] == 'tuned-all-crps':
        crps[(r['dataset'], r['split'])] = r
TIE = 1e-9


def ok(v):
    return v is not None and v == v


def mean(v):
    return sum(v) / len(v) if v else float('nan')


def sc(r, v):
    return r['scores'].get(v) or {}


keys = sorted(k for k in crps if k in nll and ok(xgb.get(k)) and ok(sc(crps[k], 'tuned+all5+sc').get('kendall_tau'))
              and ok(sc(nll[k], 'tuned+all5').get('kendall_tau')))
print('Per set-split: Kendall tau of the mean, test NLL and CRPS (uncalibrated), and the 90% interval of')
print('the isotonic calibration; W marks a tau above XGBoost\'s.\n')
print('| set | split | tau: by CRPS | by NLL | XGBoost | NLL: by CRPS | by NLL | CRPS: by CRPS / by NLL | 90% (+iso): by CRPS | by NLL | seconds: by CRPS | by NLL |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for k in keys:
    c, n, x = sc(crps[k], 'tuned+all5+sc'), sc(nll[k], 'tuned+all5'), xgb[k]
    ci, ni = sc(crps[k], 'tuned+all5+sc+iso'), sc(nll[k], 'tuned+all5+iso')
    w = lambda t: f"{t:.3f}" + (' W' if t > x + TIE else '')
    cov = lambda v: f"{v['coverage_90']:.3f}" if v.get('coverage_90') is not None else '–'
    print(f"| {k[0]} | {k[1]} | {w(c['kendall_tau'])} | {w(n['kendall_tau'])} | {x:.3f} | {c['nll']:.3f} | {n['nll']:.3f} | "
          f"{c['crps'] / n['crps']:.3f} | {cov(ci)} | {cov(ni)} | {crps[k]['seconds']:.0f} | {nll[k]['seconds']:.0f} |")
print()
print('| split | set-splits | commit | mean tau: by CRPS | by NLL | XGBoost | wins: by CRPS | by NLL | mean NLL: by CRPS | by NLL | CRPS ratio (median) | 90% in band (+iso): by CRPS | by NLL |')
print('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for s in sorted({k[1] for k in keys}) + ['all']:
    ks = [k for k in keys if s == 'all' or k[1] == s]
    ct = [sc(crps[k], 'tuned+all5+sc')['kendall_tau'] for k in ks]
    nt = [sc(nll[k], 'tuned+all5')['kendall_tau'] for k in ks]
    xt = [xgb[k] for k in ks]
    ratios = sorted(sc(crps[k], 'tuned+all5+sc')['crps'] / sc(nll[k], 'tuned+all5')['crps'] for k in ks)
    band = lambda runs, v: sum(0.85 <= (sc(runs[k], v).get('coverage_90') or -1) <= 0.95 for k in ks)
    nband = lambda runs, v: sum(sc(runs[k], v).get('coverage_90') is not None for k in ks)
    commits = sorted({crps[k]['commit'][:7] for k in ks})
    print(f"| {s} | {len(ks)} | {', '.join(commits)} | {mean(ct):.3f} | {mean(nt):.3f} | {mean(xt):.3f} | "
          f"{sum(a > b + TIE for a, b in zip(ct, xt))} | {sum(a > b + TIE for a, b in zip(nt, xt))} | "
          f"{mean([sc(crps[k], 'tuned+all5+sc')['nll'] for k in ks]):.2f} | {mean([sc(nll[k], 'tuned+all5')['nll'] for k in ks]):.2f} | "
          f"{ratios[len(ratios) // 2]:.3f} | {band(crps, 'tuned+all5+sc+iso')} of {nband(crps, 'tuned+all5+sc+iso')} | "
          f"{band(nll, 'tuned+all5+iso')} of {nband(nll, 'tuned+all5+iso')} |")
