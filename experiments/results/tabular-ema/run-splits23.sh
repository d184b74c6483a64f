#!/bin/bash
# Splits 2 and 3 of the default `--tune --ensemble 5` (group tuned-all) with the weights' moving
# average (session 24, AMD EPYC (Zen 4, AVX-512), 2 vCPUs): two processes of 1 thread side by side,
# each a shard. Each shard's journal starts with this directory's tuned-all runs of splits 0 and 1,
# so that `--seeds 4` skips them and runs splits 2 and 3 only; results.jsonl here gets the new runs.
# Resumable: run it again to go on.
set -e
cd "$(dirname "$0")/../../.."
go build -ldflags "-X decoreg/internal/experiments.BuildCommit=$(git rev-parse HEAD)" -o /tmp/drema23 ./cmd/decoreg
D=${DATA:-/work/shared/data/uci}
for i in 0 1; do
  mkdir -p /tmp/e23_$i
  [ -s /tmp/e23_$i/results.jsonl ] || grep 'group=tuned-all"' experiments/results/tabular-ema/results.jsonl > /tmp/e23_$i/results.jsonl
  /tmp/drema23 experiment tabular --threads 1 --seeds 4 --groups tuned-all --shard $i/2 --data $D --out /tmp/e23_$i &
done
wait
# Into this directory's journal (idempotent: earlier lines of splits 2 and 3 are replaced), then its report.
out=experiments/results/tabular-ema
{ grep -v 'split=[23],group=tuned-all"' $out/results.jsonl; cat /tmp/e23_0/results.jsonl /tmp/e23_1/results.jsonl | grep -v 'split=[01],'; } > $out/results.jsonl.new
mv $out/results.jsonl.new $out/results.jsonl
/tmp/drema23 experiment tabular --report-only --out $out
(cd $out && python3 summarize.py > summary.md)
