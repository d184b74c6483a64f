#!/bin/bash
# More splits of the default `--tune --ensemble 5` (group tuned-all) with the weights' moving
# average: `run-splits.sh S` runs every split below S that this directory's journal lacks (splits
# 4 and 5: `run-splits.sh 6`), as two processes of 1 thread side by side, each a shard of the plan.
# Each shard's journal starts with this directory's tuned-all runs, so that `--seeds S` skips them;
# results.jsonl here gets the new runs. Resumable: run it again with the same S to go on.
# (run-splits23.sh is the same for splits 2 and 3, kept as it ran.)
set -e
S=${1:?usage: run-splits.sh NSPLITS}
cd "$(dirname "$0")/../../.."
bin=/tmp/drema-splits
go build -ldflags "-X decoreg/internal/experiments.BuildCommit=$(git rev-parse HEAD)" -o $bin ./cmd/decoreg
D=${DATA:-/work/shared/data/uci}
out=experiments/results/tabular-ema
for i in 0 1; do
  mkdir -p /tmp/esplits_$i
  [ -s /tmp/esplits_$i/results.jsonl ] || grep 'group=tuned-all"' $out/results.jsonl > /tmp/esplits_$i/results.jsonl
  $bin experiment tabular --threads 1 --seeds $S --groups tuned-all --shard $i/2 --data $D --out /tmp/esplits_$i &
done
wait
# Into this directory's journal: the shards' lines whose keys it lacks, then its report
# (summary.md: python3 summarize.py > summary.md, run in this directory).
$bin experiment tabular --merge --out $out /tmp/esplits_0 /tmp/esplits_1
