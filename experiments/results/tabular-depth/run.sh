#!/bin/bash
# How the journal of this directory was made (AMD EPYC (Zen 4, AVX-512), 2 vCPUs):
# two processes of 1 thread side by side, each a shard, then merged.
set -e
cd "$(dirname "$0")/../../.."
go build -ldflags "-X decoreg/internal/experiments.BuildCommit=$(git rev-parse HEAD)" -o /tmp/drun ./cmd/decoreg
D=/work/shared/data/uci
# 1. tuned-all on splits 0 and 1 of the 24 sets (commit a8d708f): the "+depth" variant and the median's tau.
#    for i in 0 1; do /tmp/drun experiment tabular --threads 1 --seeds 2 --groups tuned-all --shard $i/2 --data $D --out /tmp/tdepth$i & done; wait
# 2. tuned-all-depth (--stop-by depth) on splits 0 and 1 of the sets the trees win most and that allow
#    20 validation rows (a later commit, recorded in each line).
#    for i in 0 1; do /tmp/drun experiment tabular --threads 1 --seeds 2 --groups tuned-all-depth --shard $i/2 \
#        --datasets airfoil,autompg,concrete,energy,housing,yacht,gas,parkinsons,stock,wine --data $D --out /tmp/tsd$i & done; wait
# 3. merge and report:
#    /tmp/drun experiment tabular --merge --out experiments/results/tabular-depth /tmp/tdepth0 /tmp/tdepth1 /tmp/tsd0 /tmp/tsd1
#    (cd experiments/results/tabular-depth && python3 summarize.py)
