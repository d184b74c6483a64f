#!/bin/bash
# The default `--tune --ensemble 5` (group tuned-all) with ple among the grid's input transforms, on
# splits 0-3, two 1-thread processes side by side (shards 0/2 and 1/2 of `--seeds 4`'s plan, which
# runs set by set, splits 0-3 in turn: shard 0/2 takes splits 0 and 2, 1/2 splits 1 and 3).
# usage: run-tuned.sh BIN [DATASETS]   (BIN: decoreg built at the commit to record; DATASETS: a comma
# list, default every set). Resumable: run it again to go on (the shards' journals are
# /tmp/eple_0 and /tmp/eple_1); appends the shards' new lines to tuned.jsonl.
set -eo pipefail
bin=$1 sets=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
D=${DATA:-/work/shared/data/uci}
for i in 0 1; do
  mkdir -p /tmp/eple_$i
  "$bin" experiment tabular --threads 1 --seeds 4 --groups tuned-all --shard $i/2 --data $D --out /tmp/eple_$i \
    ${sets:+--datasets "$sets"} > /tmp/eple_$i.log 2>&1 &
done
wait
cat /tmp/eple_0/results.jsonl /tmp/eple_1/results.jsonl | python3 -c '
import json, sys
path = sys.argv[1]
try:
    have = {json.loads(l)["key"] for l in open(path)}
except FileNotFoundError:
    have = set()
new = [l for l in sys.stdin if l.strip() and json.loads(l)["key"] not in have]
with open(path, "a") as f:
    f.writelines(new)
print(f"run-tuned.sh: {len(new)} new lines in {path}", file=sys.stderr)
' "$here/tuned.jsonl"
