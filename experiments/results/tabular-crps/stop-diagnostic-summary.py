import json, sys, collections, statistics as st
X = {(r['dataset'], r['split']): r['kendall_tau'] for r in map(json.loads, open('../xgboost/results.jsonl'))}
R = [json.loads(l) for f in sys.argv[1:] for l in open(f)]
by = collections.defaultdict(dict)
for r in R: by[(r['config'], r['ensemble'], r['dataset'], r['split'])][r['mode']] = r
for cfg in sorted({k[:2] for k in by}):
    rows = {k: v for k, v in by.items() if k[:2] == cfg}
    modes = sorted({m for v in rows.values() for m in v})
    full = [k for k, v in rows.items() if all(m in v for m in modes)]
    print(cfg, len(full), 'set-splits')
    for m in modes:
        taus = [rows[k][m]['tau'] for k in full]; nll = [rows[k][m]['nll'] for k in full]
        wins = sum(rows[k][m]['tau'] > X[(k[2], k[3])] for k in full)
        hi = sum(rows[k][m]['tau'] > rows[k]['nll']['tau'] for k in full)
        ep = st.median(rows[k][m]['epochs'] for k in full)
        print(f'  {m:5s} tau {st.mean(taus):.4f} nll {st.mean(nll):.3f} crps-rel {st.mean(rows[k][m]["crps"]/rows[k]["nll"]["crps"] for k in full):.3f} wins {wins} higher-than-nll {hi} median-epochs {ep}')
    if len(sys.argv) > 0 and '-v' in sys.argv: pass
