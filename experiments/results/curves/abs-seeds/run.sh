#!/usr/bin/env bash
# The README's account of the unnormalized decoder's flat steps on the
# curve abs (section "Curve fitting"): the experiment's setting of that head
# (CurveConfig: unnormalized:base=10,exponent=2,mantissa=4 on the raw y,
# batch 256, at most 100 epochs, the other settings decoreg's defaults)
# trained on 20,000 points of abs with seeds 0 and 1, and with one exponent
# digit with seed 0; each scored by eval on 2,000 test points (synth seed
# 1), whose rel_mse shows the flat steps (a mantissa not learnt). Each
# run's train and eval summaries go to runs.jsonl with the commit. Run from the repository root:
#   bash experiments/results/curves/abs-seeds/run.sh
set -euo pipefail
out=experiments/results/curves/abs-seeds
dr=$(mktemp -d)/decoreg
trap 'rm -rf "$(dirname "$dr")"' EXIT
go build -o "$dr" ./cmd/decoreg
commit=$(git rev-parse HEAD)
data=$(dirname "$dr")/abs.csv
test=$(dirname "$dr")/abs-test.csv
"$dr" synth curve:name=abs --n 20000 --seed 0 --out "$data"
"$dr" synth curve:name=abs --n 2000 --seed 1 --out "$test"
: > "$out/runs.jsonl.tmp"
for run in "exponent=2 0" "exponent=2 1" "exponent=1 0"; do
	set -- $run
	model=$(dirname "$dr")/abs-$1-seed$2.drg
	line=$("$dr" train --data "$data" --target y --head decoder --vocab "unnormalized:base=10,$1,mantissa=4" \
		--raw-target --batch 256 --epochs 100 --seed "$2" --threads 1 --out "$model" 2>/dev/null | tail -1)
	ev=$("$dr" eval --model "$model" --data "$test" --target y 2>/dev/null)
	printf '{"vocab":"unnormalized:base=10,%s,mantissa=4","seed":%s,"commit":"%s","train":%s,"eval":%s}\n' "$1" "$2" "$commit" "$line" "$ev" >> "$out/runs.jsonl.tmp"
done
mv "$out/runs.jsonl.tmp" "$out/runs.jsonl"
