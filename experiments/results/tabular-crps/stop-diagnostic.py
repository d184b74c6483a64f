# Diagnostic (session 21): --ensemble 5 early-stopped by the validation NLL (nll), by the validation
# CRPS (crps) or by the validation MSE of the predictive mean (mse). Needs a binary of 747f321 with
# stop-pilot.patch applied (the environment variable DECOREG_PILOT_STOP picks the score; the patch's
# CRPS is in y units, the same argmin as the built --stop-by crps's u units).
# Usage: stop-diagnostic.py BIN OUT.jsonl CONFIG "SETS" "SPLITS" "nll crps mse" ENSEMBLE
# (run as: S="airfoil autompg autos breastcancer concrete energy housing stock wine yacht";
#  stop-diagnostic.py BIN stop-diagnostic.jsonl defaults "$S" "0 1" "nll crps mse" 5, then trial5,
#  and the same for splits "2 3" in a second process; DATA=../shared/data/uci by default)
import sys, os, json, shutil, subprocess, tempfile, time
bin_, out, cfgname, sets, splits, modes, ens = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), [int(s) for s in sys.argv[5].split()], sys.argv[6].split(), sys.argv[7]
D = os.environ.get('DATA', '../shared/data/uci')
CFG = {'trial5': "--encoder plr --input-transform robust --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4".split(), 'defaults': []}
done = {json.loads(l)['key'] for l in open(out)} if os.path.exists(out) else set()
tmp = tempfile.mkdtemp()
for k in splits:
    for ds in sets:
        for mode in modes:
            key = f'{ds}/{k}/{cfgname}/e{ens}/{mode}' + os.environ.get('TAG', '')
            if key in done: continue
            M = ['--data', f'{D}/{ds}/data.csv.gz', '--test-mask', f'{D}/{ds}/test_mask.csv.gz', '--split', str(k)]
            env = dict(os.environ, DECOREG_PILOT_STOP=mode)
            t0 = time.time()
            tr = json.loads(subprocess.run([bin_, 'train', *M, '--head', 'decoder', *CFG[cfgname], '--ensemble', ens, '--seed', str(k), '--threads', '1', *os.environ.get('EXTRA', '').split(), '--quiet', '--out', f'{tmp}/m.drm'], check=True, capture_output=True, env=env, text=True).stdout)
            secs = time.time() - t0
            e = json.loads(subprocess.run([bin_, 'eval', '--model', f'{tmp}/m.drm', *M], check=True, capture_output=True, text=True).stdout)
            print(json.dumps({'key': key, 'dataset': ds, 'split': k, 'config': cfgname, 'ensemble': int(ens), 'mode': mode + os.environ.get('TAG', ''), 'tau': e['kendall_tau'], 'nll': e['nll'], 'crps': e['crps'], 'rel_mse': e['rel_mse'], 'epochs': tr.get('epochs'), 'seconds': secs}), file=open(out, 'a'), flush=True)
shutil.rmtree(tmp)
