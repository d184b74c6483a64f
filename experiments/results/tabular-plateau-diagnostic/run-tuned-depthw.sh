#!/bin/bash
# The token cross-entropy weighted by 0.5^depth (depth-weights.patch, DECOREG_PILOT_DEPTHW=0.5) in
# every trial and member of the default `--tune --ensemble 5` (group tuned-all), on the 8 small
# sets of the single-model runs, splits 1 and 3, paired with ../tabular-ema's runs of the same
# splits. Two processes of 1 thread, shards 1/4 and 3/4 of `--seeds 4`'s plan (split 1 and split 3).
# usage: run-tuned-depthw.sh BIN (47b4ddd with depth-weights.patch applied). Resumable.
set -e
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
D=${DATA:-/work/shared/data/uci}
export DECOREG_PILOT_DEPTHW=0.5
for i in 1 3; do
  mkdir -p /tmp/edw_$i
  "$bin" experiment tabular --threads 1 --seeds 4 --groups tuned-all --shard $i/4 --data $D --out /tmp/edw_$i \
    --datasets airfoil,autompg,autos,breastcancer,concrete,energy,housing,yacht &
done
wait
cat /tmp/edw_1/results.jsonl /tmp/edw_3/results.jsonl | grep -E 'split=[13],group=tuned-all"' > "$here/tuned-depthw.jsonl"
