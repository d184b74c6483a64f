#!/bin/bash
# The default `--tune --ensemble 5` (group tuned-all, with the moving average) on splits 1 and 3 with
# one scratch patch's change in every trial and member, paired with ../tabular-ema's runs of the
# same splits (the same training at 954c7b2, 69330ae and 47b4ddd). Two processes of 1 thread side by
# side, shards 1/4 and 3/4 of `--seeds 4`'s plan (which runs set by set, splits 0-3 in turn: shard
# 1/4 is split 1, 3/4 split 3).
# usage: run-tuned.sh BIN VAR=VALUE OUT.jsonl [DATASETS]
#   BIN: 47b4ddd with the patch applied; VAR=VALUE: its environment variable; DATASETS: a comma list
#   (default: every set). The runs here:
#   run-tuned.sh BIN_PLATEAU DECOREG_PILOT_PLATEAU=0.2:2 tuned.jsonl
#   run-tuned.sh BIN_DEPTHW DECOREG_PILOT_DEPTHW=0.5 tuned-depthw.jsonl airfoil,autompg,autos,breastcancer,concrete,energy,housing,yacht
# Resumable: run it again to go on (a shard's journal is /tmp/etuned_VAR_I).
set -eo pipefail
bin=$1 setting=$2 out=$3 sets=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
D=${DATA:-/work/shared/data/uci}
export "$setting"
tag=${setting%%=*}
for i in 1 3; do
  mkdir -p /tmp/etuned_${tag}_$i
  "$bin" experiment tabular --threads 1 --seeds 4 --groups tuned-all --shard $i/4 --data $D --out /tmp/etuned_${tag}_$i \
    ${sets:+--datasets "$sets"} &
done
wait
for i in 1 3; do
  [ -s /tmp/etuned_${tag}_$i/results.jsonl ] || { echo "run-tuned.sh: shard $i/4 wrote no results" >&2; exit 1; }
done
cat /tmp/etuned_${tag}_1/results.jsonl /tmp/etuned_${tag}_3/results.jsonl | grep -E 'split=[13],group=tuned-all"' > "$here/$out.new"
mv "$here/$out.new" "$here/$out"
