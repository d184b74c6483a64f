#!/bin/bash
# Splits 1 and 3 of the default `--tune --ensemble 5` (group tuned-all, with the moving average)
# with plateau.patch's learning-rate cut at DECOREG_PILOT_PLATEAU=0.2:2, paired with
# ../tabular-ema's runs of the same splits (the same training at 954c7b2, 69330ae and 47b4ddd).
# Two processes of 1 thread side by side, shards 1/4 and 3/4 of `--seeds 4`'s plan
# (which runs set by set, splits 0-3 in turn: shard 1/4 is split 1, 3/4 split 3).
# usage: run-tuned.sh BIN (47b4ddd with plateau.patch applied). Resumable: run it again to go on.
set -e
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
D=${DATA:-/work/shared/data/uci}
export DECOREG_PILOT_PLATEAU=0.2:2
for i in 1 3; do
  mkdir -p /tmp/eplat_$i
  "$bin" experiment tabular --threads 1 --seeds 4 --groups tuned-all --shard $i/4 --data $D --out /tmp/eplat_$i &
done
wait
cat /tmp/eplat_1/results.jsonl /tmp/eplat_3/results.jsonl | grep -E 'split=[13],group=tuned-all"' > "$here/tuned.jsonl"
