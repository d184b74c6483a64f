#!/bin/bash
# `--tune --ensemble 5 --ensemble-from seeds` (group tuned-seeds) on 13 small sets x splits 0-3, its
# seeds' members holding out the best trial's validation rows (plain, as decoreg does) or each its
# own tenth of the training rows (folds: member k the k-th next ValRows of the same shuffle). One
# 1-thread process per variant, side by side.
# usage: run.sh BIN   (BIN: fc9a1b0 with folds.patch applied; DECOREG_PILOT_FOLDS picks the variant)
# Resumable: run it again to go on (the journals are /tmp/efolds_{plain,folds}).
set -eo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
D=${DATA:-/work/shared/data/uci}
sets=airfoil,autompg,autos,breastcancer,challenger,concrete,energy,fertility,housing,solar,stock,wine,yacht
for v in plain folds; do
  mkdir -p /tmp/efolds_$v
  pilot=; [ $v = folds ] && pilot=1
  DECOREG_PILOT_FOLDS=$pilot "$bin" experiment tabular --threads 1 --seeds 4 --groups tuned-seeds \
    --datasets $sets --data $D --out /tmp/efolds_$v > /tmp/efolds_$v.log 2>&1 &
done
wait
for v in plain folds; do
  [ -s /tmp/efolds_$v/results.jsonl ] || { echo "run.sh: $v wrote no results" >&2; exit 1; }
  cp /tmp/efolds_$v/results.jsonl "$here/$v.jsonl.new" && mv "$here/$v.jsonl.new" "$here/$v.jsonl"
done
