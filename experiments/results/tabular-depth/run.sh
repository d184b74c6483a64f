#!/bin/bash
# How the journal of this directory was made (AMD EPYC (Zen 4, AVX-512), 2 vCPUs):
# two processes of 1 thread side by side, each a shard, then merged.
set -e
cd "$(dirname "$0")/../../.."
go build -ldflags "-X decoreg/internal/experiments.BuildCommit=$(git rev-parse HEAD)" -o /tmp/drun ./cmd/decoreg
D=/work/shared/data/uci
# 0. the median's quick check (median-check.txt), single decoders at 1ac2481:
#    for ds in airfoil concrete energy yacht autompg housing breastcancer autos; do for s in 0 1; do
#      ./decoreg train --threads 1 --data $D/$ds/data.csv.gz --test-mask $D/$ds/test_mask.csv.gz --split $s \
#          --head decoder --encoder plr --input-transform robust --quiet --out m.model
#      for p in mean median mode; do ./decoreg eval --model m.model --data $D/$ds/data.csv.gz \
#          --test-mask $D/$ds/test_mask.csv.gz --split $s --point $p; done; done; done
# 1. tuned-all on splits 0 and 1 of the 24 sets (commit a8d708f): the "+depth" variant and the median's tau.
#    for i in 0 1; do /tmp/drun experiment tabular --threads 1 --seeds 2 --groups tuned-all --shard $i/2 --data $D --out /tmp/tdepth$i & done; wait
# 2. tuned-all-depth (--stop-by depth) on splits 0 and 1 of the sets the trees win most and that allow
#    20 validation rows (a later commit, recorded in each line).
#    for i in 0 1; do /tmp/drun experiment tabular --threads 1 --seeds 2 --groups tuned-all-depth --shard $i/2 \
#        --datasets airfoil,autompg,concrete,energy,housing,yacht,gas,parkinsons,stock,wine --data $D --out /tmp/tsd$i & done; wait
# 3. the floor (min(1, T) for each depth's temperature), checked at 1a24da3 on wine and housing, then on
#    the whole plan (stopped after 42 runs; floor.jsonl is those and the first check's wine split 0):
#    /tmp/drun experiment tabular --threads 1 --seeds 2 --groups tuned-all --datasets wine,housing --data $D --out /tmp/twine
#    for i in 0 1; do /tmp/drun experiment tabular --threads 1 --seeds 2 --groups tuned-all --shard $i/2 --data $D --out /tmp/tfloor$i & done; wait
#    (resume: the same command with the journal in place skips the runs it holds; session 20 resumed
#    the 5 missing set-splits so, with a binary of 1a24da3, and appended them to floor.jsonl)
# 4. merge and report (items 1 and 2):
#    /tmp/drun experiment tabular --merge --out experiments/results/tabular-depth /tmp/tdepth0 /tmp/tdepth1 /tmp/tsd0 /tmp/tsd1
#    (cd experiments/results/tabular-depth && python3 summarize.py)
