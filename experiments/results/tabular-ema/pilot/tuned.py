"""Pilot (not part of the suite): the weights' moving average of pilot-ema.patch (DECOREG_PILOT_EMA) in every
training run of the default `train --tune --ensemble 5`, paired with ../../tabular-refit-diagnostic/base.jsonl.
Usage: tuned.py BIN OUT.jsonl VARIANT SPLITS SETS...; VARIANT emaD sets DECOREG_PILOT_EMA=D."""
import json, os, subprocess, sys, tempfile, time, shutil
bin_, out, variant, splits = sys.argv[1], sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4].split(',')]
sets = sys.argv[5:]
D = os.environ.get('DATA', '/work/shared/data/uci')
env = dict(os.environ)
if variant.startswith('ema'):
    env['DECOREG_PILOT_EMA'] = variant[3:]
else:
    env.pop('DECOREG_PILOT_EMA', None)
done = {json.loads(l)['key'] for l in open(out)} if os.path.exists(out) else set()
tmp = tempfile.mkdtemp()
try:
    for sp in splits:
        for ds in sets:
            key = f'{ds}/{sp}/{variant}'
            if key in done:
                continue
            M = ['--data', f'{D}/{ds}/data.csv.gz', '--test-mask', f'{D}/{ds}/test_mask.csv.gz', '--split', str(sp)]
            t0 = time.time()
            tr = subprocess.run([bin_, 'train', *M, '--head', 'decoder', '--tune', '--ensemble', '5',
                                 '--seed', str(sp), '--threads', '1', '--quiet', '--out', f'{tmp}/m.drm'],
                                capture_output=True, text=True, env=env)
            if tr.returncode != 0:
                print(key, tr.stderr, file=sys.stderr); continue
            secs = time.time() - t0
            e = json.loads(subprocess.run([bin_, 'eval', '--model', f'{tmp}/m.drm', *M], check=True,
                                          capture_output=True, text=True).stdout)
            rec = {'key': key, 'dataset': ds, 'split': sp, 'variant': variant, 'seconds': secs,
                   'train': json.loads(tr.stdout), 'tau': e['kendall_tau'], 'nll': e['nll'], 'crps': e.get('crps')}
            print(json.dumps(rec), file=open(out, 'a'), flush=True)
finally:
    shutil.rmtree(tmp)
