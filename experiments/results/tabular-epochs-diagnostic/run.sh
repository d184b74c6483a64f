#!/usr/bin/env bash
# Diagnostic (not part of the experiment suite): Kendall's tau and test NLL of the
# normalized decoder against the number of training epochs on small UCI tables.
# Usage: run.sh DECOREG_BINARY OUT.jsonl  (resumable: a finished run is skipped)
set -euo pipefail
bin=$1 out=$2
D=${DATA:-../shared/data/uci}
commit=$(git rev-parse HEAD)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
touch "$out"
defaults=""
trial5="--encoder plr --input-transform robust --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4"
for ds in airfoil concrete energy yacht autompg housing breastcancer autos; do
 for k in 0 1; do
  M="--data $D/$ds/data.csv.gz --test-mask $D/$ds/test_mask.csv.gz --split $k"
  for cfg in defaults trial5; do
   for run in es es-p20 es-p50 e10 e30 e100 e300 ens5-e100; do
    [ "$cfg" = defaults ] && [ "$run" = ens5-e100 ] && continue
    [ "$cfg" = trial5 ] && [ "$run" = e300 ] && continue
    key="$ds/$k/$cfg/$run"
    grep -q "\"key\": \"$key\"" "$out" && continue
    case $run in
     es) T="" ;;
     es-p*) T="--patience ${run#es-p}" ;;
     e*) E=${run##*e}; T="--val-frac 0 --epochs $E" ;;
    esac
    [ "$run" = ens5-e100 ] && T="--val-frac 0 --epochs 100 --ensemble 5"
    [ "$cfg" = defaults ] && C=$defaults || C=$trial5
    start=$(date +%s.%N)
    "$bin" train $M --head decoder $C $T --seed 0 --threads 2 --quiet --out "$tmp/m.drm" > "$tmp/train.json"
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    "$bin" eval --model "$tmp/m.drm" $M > "$tmp/eval.json"
    /usr/bin/python3 - "$key" "$ds" "$k" "$cfg" "$run" "$secs" "$commit" "$tmp/train.json" "$tmp/eval.json" >> "$out" <<'PY'
import json,sys
key,ds,k,cfg,run,secs,commit,tr,ev=sys.argv[1:]
t=json.load(open(tr)); e=json.load(open(ev))
print(json.dumps({"key":key,"dataset":ds,"split":int(k),"config":cfg,"run":run,"epochs":t["epochs"],
 "best_epoch":t.get("best_epoch"),"kendall_tau":e["kendall_tau"],"nll":e["nll"],"crps":e.get("crps"),
 "coverage_90":e["coverage"]["0.9"],"seconds":float(secs),"commit":commit}))
PY
   done
  done
 done
done
