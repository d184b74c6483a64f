# Diagnostic (not part of the suite): piecewise linear encoding of the features (PLE, Gorishniy et
# al. 2022, with quantile bins) applied to a copy of the CSV outside decoreg, against the raw
# features. Each feature with more than 2 distinct training values becomes T columns, column t the
# clip((x - e_{t-1}) / (e_t - e_{t-1}), 0, 1) of the training quantiles e_0 < ... < e_T (ties
# merged); the rest are kept. Single `decoreg train` runs, tau of the predictive mean on the
# split's test rows. Resumable (keys already in OUT are skipped).
# Usage: [SEED=S] ple.py BIN OUT.jsonl CONFIG "SETS" "SPLITS" "plain ple" [T]
import sys, os, json, shutil, subprocess, tempfile, time
import numpy as np, pandas as pd
from scipy.stats import kendalltau
bin_, out, cfgname, sets, splits, modes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), [int(s) for s in sys.argv[5].split()], sys.argv[6].split()
T = int(sys.argv[7]) if len(sys.argv) > 7 else 16
SEED = int(os.environ.get('SEED', '0'))
D = os.environ.get('DATA', '/work/shared/data/uci')
COMMIT = subprocess.run(['git', 'rev-parse', 'HEAD'], capture_output=True, text=True).stdout.strip()
CFG = {'trial5': "--encoder plr --input-transform robust --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4 --ema 0.99".split(),
       'trial5mlp': "--encoder mlp --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4 --ema 0.99".split(),
       'defaults': "--ema 0.99".split()}
done = set()
if os.path.exists(out):
    done = {json.loads(l)['key'] for l in open(out)}
tmp = tempfile.mkdtemp()
def ple(xtr, x):
    e = np.unique(np.quantile(xtr, np.linspace(0, 1, T + 1)))
    if len(np.unique(xtr)) <= 2 or len(e) < 3:
        return [x]
    return [np.clip((x - e[t - 1]) / (e[t] - e[t - 1]), 0, 1) for t in range(1, len(e))]
for ds in sets:
    df = pd.read_csv(f'{D}/{ds}/data.csv.gz')
    mask = pd.read_csv(f'{D}/{ds}/test_mask.csv.gz')
    for k in splits:
        test = mask[f'split{k}'].values == 1
        for mode in modes:
            key = f'{ds}/{k}/{cfgname}/{mode}/{T}' + (f'/seed{SEED}' if SEED else '')
            if key in done: continue
            d2 = df
            if mode == 'ple':
                cols = {}
                for c in df.columns:
                    if c == 'y': continue
                    x = df[c].values.astype(float)
                    for t, v in enumerate(ple(x[~test], x)):
                        cols[f'{c}_{t}'] = v
                cols['y'] = df['y'].values
                d2 = pd.DataFrame(cols)
            path = f'{tmp}/d.csv'
            d2.to_csv(path, index=False)
            M = ['--data', path, '--test-mask', f'{D}/{ds}/test_mask.csv.gz', '--split', str(k)]
            t0 = time.time()
            tr = json.loads(subprocess.run([bin_, 'train', *M, '--head', 'decoder', *CFG[cfgname], '--seed', str(SEED), '--threads', '1', '--quiet', '--out', f'{tmp}/m.drm'], check=True, capture_output=True, text=True).stdout)
            secs = time.time() - t0
            subprocess.run([bin_, 'predict', '--model', f'{tmp}/m.drm', *M, '--out', f'{tmp}/p.csv'], check=True, capture_output=True)
            p = pd.read_csv(f'{tmp}/p.csv')
            yt = df['y'].values[test]
            ev = json.loads(subprocess.run([bin_, 'eval', '--model', f'{tmp}/m.drm', *M], check=True, capture_output=True, text=True).stdout)
            rec = {'key': key, 'dataset': ds, 'split': k, 'config': cfgname, 'mode': mode, 'bins': T, 'seed': SEED, 'features': d2.shape[1] - 1,
                   'tau': kendalltau(p['mean'].values, yt)[0], 'nll': ev.get('nll'),
                   'best_epoch': tr.get('best_epoch'), 'seconds': secs, 'commit': COMMIT}
            print(json.dumps(rec), file=open(out, 'a'), flush=True)
shutil.rmtree(tmp)
