#!/usr/bin/env bash
# Pilot (not part of the suite): single decoders with the weights' moving average of pilot-ema.patch
# (environment variable DECOREG_PILOT_EMA = the decay; 9d927e6 with the patch applied, binary BIN) on small UCI sets.
# usage: RUN=es EXTRA="" single.sh BIN OUT.jsonl CONFIG "DECAYS" "SETS" "SPLITS" ["SEEDS"]   (CONFIG: trial5 or defaults)
set -euo pipefail
bin=$1 out=$2 cfg=$3 decays=$4 sets=$5 splits=$6 seeds=${7:-0}
D=${DATA:-/work/shared/data/uci}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
touch "$out"
export COMMIT=$(git rev-parse HEAD)  # the patched tree
case $cfg in
 trial5) C="--encoder plr --input-transform robust --dec-layers 3 --dec-width 128 --dec-heads 4 --enc-layers 2 --enc-width 512 --lr 5e-4" ;;
 defaults) C="" ;;
esac
for ds in $sets; do for k in $splits; do for s in $seeds; do for p in $decays; do
  key="$ds/$k/$cfg/$p/$s/$RUN"
  grep -q "\"key\": \"$key\"" "$out" && continue
  M="--data $D/$ds/data.csv.gz --test-mask $D/$ds/test_mask.csv.gz --split $k"
  st=$(date +%s.%N)
  DECOREG_PILOT_EMA=$p "$bin" train $M --head decoder $C $EXTRA --seed $s --threads 1 --quiet --out "$tmp/m.drm" > "$tmp/t.json"
  secs=$(echo "$(date +%s.%N) - $st" | bc)
  "$bin" eval --model "$tmp/m.drm" $M > "$tmp/e.json"
  /usr/bin/python3 - "$key" "$ds" "$k" "$cfg" "$p" "$s" "$secs" "$tmp/t.json" "$tmp/e.json" >> "$out" <<'PY'
import json,sys,os
key,ds,k,cfg,p,s,secs,tr,ev=sys.argv[1:]
t=json.load(open(tr)); e=json.load(open(ev))
print(json.dumps({"key":key,"dataset":ds,"split":int(k),"config":cfg,"ema":float(p),"seed":int(s),"run":os.environ['RUN'],"epochs":t["epochs"],
 "best_epoch":t.get("best_epoch"),"kendall_tau":e["kendall_tau"],"nll":e["nll"],"seconds":float(secs),"commit":os.environ["COMMIT"]}))
PY
done; done; done; done
