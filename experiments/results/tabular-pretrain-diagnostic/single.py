# Pilot: decoder with its encoder first trained as a pointwise (MSE) model, then frozen (freeze) or
# only initialised (init), against the plain decoder (base). Single models, --ema 0.99, 1 thread.
# BIN: decoreg built from 3c2185f with pilot-freeze.patch (DECOREG_PILOT_FREEZE); COMMIT labels the lines.
# usage: single.py BIN OUT.jsonl CONFIG "SETS" "SPLITS" "MODES" [SEEDS]
# (run as: S="airfoil autompg autos breastcancer concrete energy housing yacht"; single.py BIN single.jsonl trial5 "$S" "0 1" "base freeze init pointwise"
#  and "2 3" in a second process; then defaults with "base freeze pointwise")
import sys, os, json, shutil, subprocess, tempfile, time
bin_, out, cfgname, sets, splits, modes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), [int(s) for s in sys.argv[5].split()], sys.argv[6].split()
seeds = [int(s) for s in (sys.argv[7].split() if len(sys.argv) > 7 else ['0'])]
D = os.environ.get('DATA', '/work/shared/data/uci')
CFG = {'trial5': "--encoder plr --input-transform robust --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4".split(), 'defaults': []}
done = {json.loads(l)['key'] for l in open(out)} if os.path.exists(out) else set()
tmp = tempfile.mkdtemp()
try:
  for k in splits:
    for ds in sets:
      for s in seeds:
        for mode in modes:
            key = f'{ds}/{k}/{cfgname}/{s}/{mode}'
            if key in done: continue
            M = ['--data', f'{D}/{ds}/data.csv.gz', '--test-mask', f'{D}/{ds}/test_mask.csv.gz', '--split', str(k)]
            env = dict(os.environ)
            args = CFG[cfgname]
            if mode == 'pointwise':
                args = [a for a in args]
                for f in ('--dec-layers', '--dec-width', '--dec-heads'):
                    if f in args:
                        i = args.index(f); del args[i:i+2]
                head = 'pointwise'
            else:
                head = 'decoder'
                if mode != 'base': env['DECOREG_PILOT_FREEZE'] = mode
            t0 = time.time()
            tr = json.loads(subprocess.run([bin_, 'train', *M, '--head', head, *args, '--ema', '0.99', '--seed', str(s), '--threads', '1', '--quiet', '--out', f'{tmp}/m.drm'], check=True, capture_output=True, env=env, text=True).stdout)
            secs = time.time() - t0
            e = json.loads(subprocess.run([bin_, 'eval', '--model', f'{tmp}/m.drm', *M], check=True, capture_output=True, text=True).stdout)
            print(json.dumps({'key': key, 'dataset': ds, 'split': k, 'config': cfgname, 'seed': s, 'mode': mode, 'tau': e['kendall_tau'], 'nll': e.get('nll'), 'crps': e.get('crps'), 'epochs': tr.get('epochs'), 'best_epoch': tr.get('best_epoch'), 'seconds': secs, 'commit': os.environ.get('COMMIT', '')}), file=open(out, 'a'), flush=True)
finally:
  shutil.rmtree(tmp)
