#!/usr/bin/env bash
# The decay of the weights' moving average on single early-stopped decoders (../pilot/single.sh's
# protocol: 8 small sets x splits 0, 1, seed 0, 1 thread), through the CLI's --ema at the current
# commit (single.sh's DECOREG_PILOT_EMA is ignored by an unpatched binary).
# usage: run-single.sh BIN CONFIG "DECAYS" "SPLITS" OUT.jsonl   (CONFIG: trial5 or defaults)
set -euo pipefail
bin=$1 cfg=$2 decays=$3 splits=$4 out=$5
for p in $decays; do
  RUN=head EXTRA="--ema $p" bash "$(dirname "$0")/../pilot/single.sh" "$bin" "$out" "$cfg" "$p" \
    "airfoil autompg autos breastcancer concrete energy housing yacht" "$splits"
done
