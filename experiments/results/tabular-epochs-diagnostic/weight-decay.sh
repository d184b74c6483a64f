#!/usr/bin/env bash
# Diagnostic (not part of the experiment suite): the 3x128x4 PLR trial ("trial5" in run.sh),
# early-stopped as the paper does, with weight decay, on the eight small sets x splits 0, 1 x
# seeds 0, 1. Usage: weight-decay.sh DECOREG_BINARY OUT.jsonl (appends one line per run).
set -euo pipefail
bin=$1 out=$2
D=${DATA:-../shared/data/uci}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
trial5="--encoder plr --input-transform robust --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4"
for wd in "0.01 --adamw" "0.1 --adamw" "1 --adamw" "0" "10 --adamw"; do
 for ds in airfoil concrete energy yacht autompg housing breastcancer autos; do
  for k in 0 1; do
   M="--data $D/$ds/data.csv.gz --test-mask $D/$ds/test_mask.csv.gz --split $k"
   for s in 0 1; do
    "$bin" train $M --head decoder $trial5 --weight-decay $wd --seed $s --threads 2 --quiet --out "$tmp/m.drm" > "$tmp/t.json"
    "$bin" eval --model "$tmp/m.drm" $M > "$tmp/e.json"
    python3 - "$wd" "$ds" "$k" "$s" "$tmp/t.json" "$tmp/e.json" >> "$out" <<'PY'
import json, sys
wd, ds, k, s, t, e = sys.argv[1:]
t, e = json.load(open(t)), json.load(open(e))
print(json.dumps({"wd": wd, "dataset": ds, "split": int(k), "seed": int(s), "best_epoch": t["best_epoch"],
                  "tau": e["kendall_tau"], "nll": e["nll"]}))
PY
   done
  done
 done
done
