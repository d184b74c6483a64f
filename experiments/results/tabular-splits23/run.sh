#!/bin/bash
# How the journal of this directory was made (session 20, AMD EPYC (Zen 4, AVX-512), 2 vCPUs):
# the default `--tune --ensemble 5` (group tuned-all) on splits 2 and 3 of the 24 UCI sets, two
# processes of 1 thread side by side, each a shard. Each shard's journal starts with
# tabular-depth's 48 tuned-all runs of splits 0 and 1, so that `--seeds 4` skips them and runs
# splits 2 and 3 only; results.jsonl here keeps the new runs.
set -e
cd "$(dirname "$0")/../../.."
go build -ldflags "-X decoreg/internal/experiments.BuildCommit=$(git rev-parse HEAD)" -o /tmp/drun23 ./cmd/decoreg
D=${DATA:-/work/shared/data/uci}
for i in 0 1; do
  mkdir -p /tmp/t23_$i
  [ -s /tmp/t23_$i/results.jsonl ] || grep 'group=tuned-all"' experiments/results/tabular-depth/results.jsonl > /tmp/t23_$i/results.jsonl
  /tmp/drun23 experiment tabular --threads 1 --seeds 4 --groups tuned-all --shard $i/2 --data $D --out /tmp/t23_$i &
done
wait
out=experiments/results/tabular-splits23
cat /tmp/t23_0/results.jsonl /tmp/t23_1/results.jsonl | grep -v 'split=[01],' > $out/results.jsonl
/tmp/drun23 experiment tabular --report-only --out $out
(cd $out && python3 summarize.py)  # the tables of README.md
