# python3 summarize.py > summary.md: the tables of this diagnostic's README, from single.jsonl,
# tuned.jsonl, ../tabular-ema/results.jsonl (the same protocol before ple) and ../xgboost.
import json, os, statistics as st
here = os.path.dirname(os.path.abspath(__file__))
def jl(p):
    p = os.path.join(here, p)
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []
xg = {(r['dataset'], r['split']): r['kendall_tau'] for r in jl('../xgboost/results.jsonl')}
win = lambda t, k: t > xg[k] + 1e-9

print('## Single models (single.jsonl)\n')
R = {}
for r in jl('single.jsonl'):
    R[(r['config'], r['mode'], r['bins'], r.get('seed', 0), r['dataset'], r['split'])] = r
confs = sorted({k[:4] for k in R}, key=lambda c: (c[0], c[3], c[1] != 'plain', c[2]))
print('| config | features | bins | seed | runs | mean tau | higher than plain | mean test NLL | wins vs XGBoost |')
print('|---|---|---:|---:|---:|---:|---:|---:|---:|')
for c in confs:
    ks = sorted(k[4:] for k in R if k[:4] == c)
    t = [R[c + k]['tau'] for k in ks]
    n = [R[c + k]['nll'] for k in ks]
    hi = '–'
    if c[1] == 'ple':
        base = [(c[0], 'plain', 16, c[3]) + k for k in ks]
        if all(b in R for b in base):
            hi = f"{sum(R[c + k]['tau'] > R[b]['tau'] for k, b in zip(ks, base))} of {len(ks)}"
    print(f"| {c[0]} | {'raw' if c[1] == 'plain' else 'ple'} | {c[2] if c[1] == 'ple' else '–'} | {c[3]} | {len(ks)} | {st.mean(t):.4f} | {hi} | {st.mean(n):.3f} | {sum(win(R[c + k]['tau'], k) for k in ks)} |")
ks = sorted({k[4:] for k in R})
print(f"\nXGBoost's mean tau on these {len(ks)} set-splits: {st.mean(xg[k] for k in ks):.4f}.\n")
print('Per set, seed 0, tau averaged over the splits run:\n')
sets = sorted({k[0] for k in ks})
cols = [c for c in confs if c[3] == 0]
print('| set | XGBoost | ' + ' | '.join(f"{c[0]} {'raw' if c[1] == 'plain' else 'ple ' + str(c[2])}" for c in cols) + ' |')
print('|---|---:|' + '---:|' * len(cols))
for s in sets:
    sk = [k for k in ks if k[0] == s]
    print(f"| {s} | {st.mean(xg[k] for k in sk):.3f} | " + ' | '.join(f"{st.mean(R[c + k]['tau'] for k in sk):.3f}" for c in cols) + ' |')

def tuned(path, title, extra):
    T = {(r['dataset'], r['split']): r for r in jl(path) if r['group'] == 'tuned-all'}
    if not T:
        return
    A = {(r['dataset'], r['split']): r for r in jl('../tabular-ema/results.jsonl') if r['group'] == 'tuned-all'}
    S = 'tuned+all5'
    print(f'\n## {title} ({path}), against ../tabular-ema\n')
    print(f'| set | split | XGBoost | before (tabular-ema) | with ple | {extra[0]} | NLL before | with ple | seconds before | with ple |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    rows = []
    for k in sorted(T):
        a, b = A[k]['scores'][S], T[k]['scores'][S]
        if a['kendall_tau'] is None or k not in xg:
            continue
        ta, tb = a['kendall_tau'], b['kendall_tau']
        ch = T[k].get('chosen') or []
        nple = extra[1](T[k], ch)
        w = lambda t: ' W' if win(t, k) else ''
        print(f"| {k[0]} | {k[1]} | {xg[k]:.3f} | {ta:.3f}{w(ta)} | {tb:.3f}{w(tb)} | {nple} | {a['nll']:.2f} | {b['nll']:.2f} | {A[k]['seconds']:.0f} | {T[k]['seconds']:.0f} |")
        rows.append((k, ta, tb, a['nll'], b['nll'], A[k]['seconds'], T[k]['seconds']))
    n = len(rows)
    print(f"\n{n} set-splits (challenger split 2 has no test tau). Wins against XGBoost {sum(win(r[1], r[0]) for r in rows)} -> {sum(win(r[2], r[0]) for r in rows)}; "
          f"mean tau {st.mean(r[1] for r in rows):.4f} -> {st.mean(r[2] for r in rows):.4f} (XGBoost {st.mean(xg[r[0]] for r in rows):.4f}), "
          f"higher on {sum(r[2] > r[1] for r in rows)}, lower on {sum(r[2] < r[1] for r in rows)}; "
          f"mean test NLL {st.mean(r[3] for r in rows):.3f} -> {st.mean(r[4] for r in rows):.3f}, lower on {sum(r[4] < r[3] for r in rows)}; "
          f"run time {sum(r[5] for r in rows) / 60:.0f} -> {sum(r[6] for r in rows) / 60:.0f} min.")
    for sp in sorted({r[0][1] for r in rows}):
        rs = [r for r in rows if r[0][1] == sp]
        print(f"\nSplit {sp}: wins {sum(win(r[1], r[0]) for r in rs)} -> {sum(win(r[2], r[0]) for r in rs)} of {len(rs)}; mean tau {st.mean(r[1] for r in rs):.4f} -> {st.mean(r[2] for r in rs):.4f}.")

tuned('tuned-grid.jsonl', '`--tune --ensemble 5` with ple as a fourth value of the grid\'s input transform (426118c)',
      ('best trial ple', lambda r, ch: 'yes' if any('input_transform=ple' in c for c in ch) else 'no'))
tuned('tuned.jsonl', '`--tune --ensemble 5` with ple seeds\' members (4cc0022)',
      ('ple seeds chosen', lambda r, ch: r.get('ple_seeds_chosen', 0)))
