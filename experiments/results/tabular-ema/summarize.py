"""The tuned ensemble with the weights' moving average (this journal, `tuned-all`) against the same
protocol without it (../tabular-depth, a8d708f, the same seeds: split k seeded with k) and XGBoost
(../xgboost), per set and split: python3 summarize.py > summary.md (run in this directory)."""
import json, statistics, collections, os, random

def load(path, group='tuned-all'):
    out = {}
    for l in open(path):
        r = json.loads(l)
        if r['group'] == group:
            out[(r['dataset'], r['split'])] = r
    return out

xg = {}
for l in open('../xgboost/results.jsonl'):
    r = json.loads(l); xg[(r['dataset'], r['split'])] = r['kendall_tau']
won = lambda t, x: t is not None and t > x + 1e-9  # as the experiment's report: within 1e-9 a tie
new, old = load('results.jsonl'), load('../tabular-depth/results.jsonl')
old.update(load('../tabular-splits23/results.jsonl'))  # splits 2 and 3 without the average (2cf4f44, a8d708f's training)
S = 'tuned+all5'
tau = lambda j, k: j[k]['scores'][S]['kendall_tau']
splits = sorted({k[1] for k in new})
paired = [sp for sp in splits if any(k[1] == sp for k in new if k in old)]
for sp in paired:
    keys = sorted(k for k in new if k[1] == sp and k in old)
    print(f'## Split {sp}\n')
    commits = sorted({old[k]['commit'][:7] for k in keys})
    print(f"| set | XGBoost | without ({', '.join(commits)}) | with `--ema 0.99` | NLL without | NLL with | seconds without | with |")
    print('|---|---:|---:|---:|---:|---:|---:|---:|')
    wo = wn = 0; to, tn, no, nn = [], [], [], []
    for k in keys:
        a, b, x = old[k]['scores'][S], new[k]['scores'][S], xg[k]
        ta, tb = a['kendall_tau'], b['kendall_tau']
        w = lambda t: ' W' if won(t, x) else ''
        f = lambda t: 'n/a' if t is None else f'{t:.3f}'
        print(f"| {k[0]} | {x:.3f} | {f(ta)}{w(ta)} | {f(tb)}{w(tb)} | {a['nll']:.2f} | {b['nll']:.2f} | {old[k]['seconds']:.0f} | {new[k]['seconds']:.0f} |")
        if ta is not None and tb is not None:
            to.append(ta); tn.append(tb); wo += won(ta, x); wn += won(tb, x)
        no.append(a['nll']); nn.append(b['nll'])
    d = [b - a for a, b in zip(to, tn)]
    dn = [b - a for a, b in zip(no, nn)]
    print(f"\nSplit {sp}: {len(keys)} sets. Wins against XGBoost {wo} -> {wn}; mean tau {statistics.mean(to):.4f} -> {statistics.mean(tn):.4f} "
          f"(XGBoost {statistics.mean(xg[k] for k in keys if old[k]['scores'][S]['kendall_tau'] is not None):.4f}), higher on {sum(v > 0 for v in d)}, lower on {sum(v < 0 for v in d)}; "
          f"mean test NLL {statistics.mean(no):.3f} -> {statistics.mean(nn):.3f}, lower on {sum(v < 0 for v in dn)}; run time "
          f"{sum(old[k]['seconds'] for k in keys)/60:.0f} -> {sum(new[k]['seconds'] for k in keys)/60:.0f} min.\n")

# Splits run with the average only (from 4 on, at a later commit): the tuned ensemble against XGBoost.
for sp in (sp for sp in splits if sp not in paired):
    keys = sorted(k for k in new if k[1] == sp)
    commits = sorted({new[k]['commit'][:7] for k in keys})
    print(f'## Split {sp} ({", ".join(commits)}; no run without the average)\n')
    print('| set | XGBoost | with `--ema 0.99` | NLL | seconds |')
    print('|---|---:|---:|---:|---:|')
    ts, xs, wn = [], [], 0
    for k in keys:
        b, x = new[k]['scores'][S], xg[k]
        tb = b['kendall_tau']
        print(f"| {k[0]} | {x:.3f} | {'n/a' if tb is None else f'{tb:.3f}'}{' W' if won(tb, x) else ''} | {b['nll']:.2f} | {new[k]['seconds']:.0f} |")
        if tb is not None:
            ts.append(tb); xs.append(x); wn += won(tb, x)
    print(f"\nSplit {sp}: {len(keys)} sets. Wins against XGBoost {wn} of {len(ts)}; mean tau {statistics.mean(ts):.4f} (XGBoost {statistics.mean(xs):.4f}); "
          f"mean test NLL {statistics.mean(new[k]['scores'][S]['nll'] for k in keys):.3f}; run time {sum(new[k]['seconds'] for k in keys)/60:.0f} min.\n")

# Every split run with the average: wins per set, and over the splits (each set's taus averaged).
if len(splits) > 2:
    sets = sorted({k[0] for k in new})
    print(f"## Splits {', '.join(map(str, splits))}: per set\n")
    print('Tau with the average / XGBoost (W: a win); wins over the splits without and with it; the means over the splits run.\n')
    print('| set | ' + ' | '.join(f'split {sp}' for sp in splits) + ' | wins without | wins with | mean without | mean with | mean XGBoost |')
    print('|---|' + '---|' * len(splits) + '---:|---:|---:|---:|---:|')
    tot = collections.Counter()
    perset = []  # (wins, set-splits) of each set, for the bootstrap below
    for ds in sets:
        ks = [(ds, sp) for sp in splits if (ds, sp) in new and tau(new, (ds, sp)) is not None]
        cells = []
        for sp in splits:
            k = (ds, sp)
            t = tau(new, k) if k in new else None
            cells.append('–' if t is None else f"{t:.3f} / {xg[k]:.3f}{' W' if won(t, xg[k]) else ''}")
        ko = [k for k in ks if k in old]
        kp = [k for k in ks if k[1] in paired]
        wo, wn = sum(won(tau(old, k), xg[k]) for k in ko), sum(won(tau(new, k), xg[k]) for k in ks)
        wp = sum(won(tau(new, k), xg[k]) for k in kp)
        mo = statistics.mean(tau(old, k) for k in ko if tau(old, k) is not None)
        mn, mx = statistics.mean(tau(new, k) for k in ks), statistics.mean(xg[k] for k in ks)
        mnp, mxp = statistics.mean(tau(new, k) for k in kp), statistics.mean(xg[k] for k in kp)
        tot['wo'] += wo; tot['wn'] += wn; tot['wp'] += wp; tot['n'] += len(ks); tot['np'] += len(kp)
        tot['so'] += won(mo, mxp); tot['sn'] += won(mn, mx); tot['snp'] += won(mnp, mxp)
        perset.append((wn, len(ks)))
        print(f"| {ds} | " + ' | '.join(cells) + f" | {wo} | {wn} | {mo:.3f} | {mn:.3f} | {mx:.3f} |")
    if len(paired) < len(splits):
        print(f"\nWins without: over splits {', '.join(map(str, paired))} (the runs without the average); mean without: over those splits.")
        print(f"\nOver the {tot['np']} set-splits of splits {', '.join(map(str, paired))}: {tot['wo']} wins without the average, {tot['wp']} with it; "
              f"sets whose tau averaged over them is above XGBoost's: {tot['so']} of {len(sets)} without, {tot['snp']} with.")
        print(f"\nOver all {tot['n']} set-splits run with the average (splits {', '.join(map(str, splits))}): {tot['wn']} wins "
              f"({100 * tot['wn'] / tot['n']:.0f}%; two thirds would be {-(-2 * tot['n'] // 3)}); sets whose tau averaged over them is above XGBoost's: {tot['sn']} of {len(sets)}.")
        # A set's splits share its data, so the set-splits are not independent: resample sets.
        rng, shares = random.Random(0), []
        for _ in range(10000):
            pick = [perset[rng.randrange(len(perset))] for _ in perset]
            shares.append(sum(w for w, _ in pick) / sum(n for _, n in pick))
        shares.sort()
        print(f"\nThe share of set-splits won, {tot['wn'] / tot['n']:.3f}, has a 95% interval of {shares[249]:.3f} to {shares[9749]:.3f} "
              f"(a bootstrap over the {len(sets)} sets, each with its splits, 10,000 draws, seed 0); two thirds is {2/3:.3f}.\n")
    else:
        print(f"\nOver the {tot['n']} set-splits: {tot['wo']} wins without the average, {tot['wn']} with it. Sets whose tau averaged over the "
              f"splits is above XGBoost's: {tot['so']} of {len(sets)} without, {tot['sn']} with.\n")

# Seeds 100 and 200 on split 0 (seeds.jsonl) beside ../tabular-seeds' runs of the same seeds without the average.
if os.path.exists('seeds.jsonl'):
    oldseed = {}
    for l in open('../tabular-seeds/results.jsonl'):
        r = json.loads(l)
        oldseed[(r['dataset'], r['seed'])] = r
    rows = [json.loads(l) for l in open('seeds.jsonl')]
    counts = {0: (sum(won(tau(old, k), xg[k]) for k in old if k[1] == 0),
                  sum(won(tau(new, k), xg[k]) for k in new if k[1] == 0))}
    for seed in sorted({r['seed'] for r in rows}):
        rs = sorted((r for r in rows if r['seed'] == seed), key=lambda r: r['dataset'])
        print(f'## Split 0, seed {seed} (seeds.jsonl)\n')
        print('| set | XGBoost | without (307dd8b) | with `--ema 0.99` | NLL without | NLL with |')
        print('|---|---:|---:|---:|---:|---:|')
        wo = wn = 0
        for r in rs:
            a, x = oldseed[(r['dataset'], seed)], xg[(r['dataset'], 0)]
            w = lambda t: ' W' if won(t, x) else ''
            wo += won(a['tau'], x); wn += won(r['tau'], x)
            print(f"| {r['dataset']} | {x:.3f} | {a['tau']:.3f}{w(a['tau'])} | {r['tau']:.3f}{w(r['tau'])} | {a['nll']:.2f} | {r['nll']:.2f} |")
        ta, tn = [oldseed[(r['dataset'], seed)]['tau'] for r in rs], [r['tau'] for r in rs]
        na, nn = [oldseed[(r['dataset'], seed)]['nll'] for r in rs], [r['nll'] for r in rs]
        print(f"\nSeed {seed}: {len(rs)} of 24 sets; wins against XGBoost {wo} -> {wn}; mean tau {sum(ta)/len(ta):.4f} -> {sum(tn)/len(tn):.4f}, "
              f"higher on {sum(b > a for a, b in zip(ta, tn))}, lower on {sum(b < a for a, b in zip(ta, tn))}; "
              f"mean test NLL {sum(na)/len(na):.3f} -> {sum(nn)/len(nn):.3f}, lower on {sum(b < a for a, b in zip(na, nn))}.\n")
        if len(rs) == 24:
            counts[seed] = (wo, wn)
    if len(counts) > 1:
        ks = sorted(counts)
        print(f"Split 0, seeds {', '.join(map(str, ks))}: wins without the average {', '.join(str(counts[k][0]) for k in ks)} "
              f"(expected {sum(counts[k][0] for k in ks)/len(ks):.2f}); with it {', '.join(str(counts[k][1]) for k in ks)} "
              f"(expected {sum(counts[k][1] for k in ks)/len(ks):.2f}). Seed 0 without the average is tabular-depth's a8d708f run.")
