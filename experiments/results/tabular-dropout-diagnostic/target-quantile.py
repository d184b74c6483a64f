# Diagnostic (not part of the suite): the decoder trained on G(y), G the training split's ECDF of y
# (piecewise linear through up to 1000 quantile knots, so that the normalized tokenization's cells hold
# equal training mass), against plain min-max y. The transform is applied to a copy of the CSV
# outside decoreg; tau of the predictive mean (in G units, a monotone map of y) against the
# original test y. Usage: target-quantile.py BIN OUT.jsonl CONFIG "SETS" "SPLITS" "plain quantile" ["EXTRA FLAGS"]
import sys, os, json, shutil, subprocess, tempfile, time
import numpy as np, pandas as pd
from scipy.stats import kendalltau
bin_, out, cfgname, sets, splits, modes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), [int(s) for s in sys.argv[5].split()], sys.argv[6].split()
extra = sys.argv[7].split() if len(sys.argv) > 7 else []
D = os.environ.get('DATA', '../shared/data/uci')
COMMIT = subprocess.run(['git', 'rev-parse', 'HEAD'], capture_output=True, text=True).stdout.strip()
CFG = {'trial5': "--encoder plr --input-transform robust --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4".split(), 'defaults': []}
done = set()
if os.path.exists(out):
    done = {json.loads(l)['key'] for l in open(out)}
tmp = tempfile.mkdtemp()
def G_fit(y, nq=1000):
    qs = np.linspace(0, 1, min(nq, len(y)))
    knots = np.quantile(y, qs)
    # strictly increasing knots: merge ties (keep first u of each distinct knot value, average u)
    k, idx = np.unique(knots, return_inverse=True)
    u = np.array([qs[idx == i].mean() for i in range(len(k))])
    if len(k) == 1: return lambda v: np.full_like(v, 0.5, dtype=float), lambda w: np.full_like(w, k[0], dtype=float)
    u = (u - u[0]) / (u[-1] - u[0])
    g = lambda v: np.interp(v, k, u)
    ginv = lambda w: np.interp(w, u, k)
    return g, ginv
for ds in sets:
    df = pd.read_csv(f'{D}/{ds}/data.csv.gz')
    mask = pd.read_csv(f'{D}/{ds}/test_mask.csv.gz')
    for k in splits:
        test = mask[f'split{k}'].values == 1
        y = df['y'].values.astype(float)
        for mode in modes:
            key = f'{ds}/{k}/{cfgname}/{mode}/{" ".join(extra)}'
            if key in done: continue
            d2 = df.copy()
            ginv = None
            if mode == 'quantile':
                g, ginv = G_fit(y[~test])
                d2['y'] = g(y)
            path = f'{tmp}/d.csv'
            d2.to_csv(path, index=False)
            M = ['--data', path, '--test-mask', f'{D}/{ds}/test_mask.csv.gz', '--split', str(k)]
            t0 = time.time()
            tr = json.loads(subprocess.run([bin_, 'train', *M, '--head', 'decoder', *CFG[cfgname], *extra, '--seed', '0', '--threads', '1', '--quiet', '--out', f'{tmp}/m.drm'], check=True, capture_output=True, text=True).stdout)
            secs = time.time() - t0
            subprocess.run([bin_, 'predict', '--model', f'{tmp}/m.drm', *M, '--out', f'{tmp}/p.csv'], check=True, capture_output=True)
            p = pd.read_csv(f'{tmp}/p.csv')
            mean, med = p['mean'].values, p['median'].values
            yt = y[test]
            rec = {'key': key, 'dataset': ds, 'split': k, 'config': cfgname, 'mode': mode, 'extra': ' '.join(extra),
                   'tau': kendalltau(mean, yt)[0], 'tau_median': kendalltau(med, yt)[0],
                   'best_epoch': tr.get('best_epoch'), 'seconds': secs, 'commit': COMMIT}
            if ginv is not None:
                rec['tau_ginv_mean'] = kendalltau(ginv(mean), yt)[0]
            print(json.dumps(rec), file=open(out, 'a'), flush=True)
shutil.rmtree(tmp)
