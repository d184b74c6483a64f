#!/usr/bin/env bash
# Diagnostic (not part of the suite): single early-stopped decoders on 8 small UCI sets x splits 0-3
# x seeds 0-2, through ../tabular-ema/pilot/single.sh's protocol (train --ema 0.99, 1 thread, scored
# by decoreg eval), with the scratch patches here: plateau.patch (DECOREG_PILOT_PLATEAU) and
# depth-weights.patch (DECOREG_PILOT_DEPTHW), each applied alone to 47b4ddd.
# usage: run.sh PLATEAU_BIN DEPTHW_BIN CONFIG OUT.jsonl   (CONFIG: trial5 or defaults)
# A run already in OUT is skipped, so an interrupted journal resumes.
set -euo pipefail
pbin=$1 dbin=$2 cfg=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
single=$here/../tabular-ema/pilot/single.sh
S="airfoil autompg autos breastcancer concrete energy housing yacht"
for v in base 0.2:2 0.2:2:restore 0.5:3; do
  if [ "$v" = base ]; then unset DECOREG_PILOT_PLATEAU; else export DECOREG_PILOT_PLATEAU=$v; fi
  RUN=$v EXTRA="--ema 0.99" bash "$single" "$pbin" "$out" "$cfg" 0.99 "$S" "0 1 2 3" "0 1 2"
done
unset DECOREG_PILOT_PLATEAU
for v in 0.5 0.7 1.5; do
  export DECOREG_PILOT_DEPTHW=$v
  RUN=dw$v EXTRA="--ema 0.99" bash "$single" "$dbin" "$out" "$cfg" 0.99 "$S" "0 1 2 3" "0 1 2"
done
