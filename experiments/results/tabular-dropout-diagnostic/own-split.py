# Diagnostic (not part of the suite): --ensemble 5 with the members' validation rows shared (same, as
# decoreg does), drawn by each member's seed (own) or taken as consecutive folds of the first
# member's shuffle (fold). Needs a binary built with own-split.patch (DECOREG_PILOT_SPLIT picks).
# Usage: own-split.py BIN OUT.jsonl CONFIG "SETS" "SPLITS" "same own fold"
import sys, os, json, shutil, subprocess, tempfile, time
bin_, out, cfgname, sets, splits, modes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), [int(s) for s in sys.argv[5].split()], sys.argv[6].split()
D = os.environ.get('DATA', '../shared/data/uci')
COMMIT = subprocess.run(['git', 'rev-parse', 'HEAD'], capture_output=True, text=True).stdout.strip() + '+own-split.patch'
CFG = {'trial5': "--encoder plr --input-transform robust --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4".split(), 'defaults': []}
done = {json.loads(l)['key'] for l in open(out)} if os.path.exists(out) else set()
tmp = tempfile.mkdtemp()
for ds in sets:
    for k in splits:
        for mode in modes:
            key = f'{ds}/{k}/{cfgname}/{mode}'
            if key in done: continue
            M = ['--data', f'{D}/{ds}/data.csv.gz', '--test-mask', f'{D}/{ds}/test_mask.csv.gz', '--split', str(k)]
            env = dict(os.environ, DECOREG_PILOT_SPLIT=mode)
            t0 = time.time()
            subprocess.run([bin_, 'train', *M, '--head', 'decoder', *CFG[cfgname], '--ensemble', '5', '--seed', '0', '--threads', '1', '--quiet', '--out', f'{tmp}/m.drm'], check=True, capture_output=True, env=env)
            secs = time.time() - t0
            e = json.loads(subprocess.run([bin_, 'eval', '--model', f'{tmp}/m.drm', *M], check=True, capture_output=True, text=True).stdout)
            print(json.dumps({'key': key, 'dataset': ds, 'split': k, 'config': cfgname, 'mode': mode, 'tau': e['kendall_tau'], 'nll': e['nll'], 'seconds': secs, 'commit': COMMIT}), file=open(out, 'a'), flush=True)
shutil.rmtree(tmp)
