#!/bin/bash
# The --soft-targets pilot of the README: split 0 of small UCI sets, the
# default normalized decoder with and without soft digit targets, 3 seeds.
# Prints one line per run: dataset sigma seed kendall_tau nll_u coverage90.
#
#   bash experiments/soft-targets/pilot.sh DECOREG SHARED_UCI_DIR "SETS" "SIGMAS" > results.txt
#
# e.g. bash experiments/soft-targets/pilot.sh ./decoreg ../shared/data/uci \
#        "airfoil concrete yacht" "0 0.01 0.03"
set -euo pipefail
bin=$1 uci=$2 sets=$3 sigmas=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ds in $sets; do
	for s in $sigmas; do
		for seed in 0 1 2; do
			d=$uci/$ds
			soft=0
			[ "$s" != 0 ] && soft=$s
			if ! "$bin" train --data "$d/data.csv.gz" --test-mask "$d/test_mask.csv.gz" --split 0 \
				--out "$tmp/m.drm" --seed "$seed" --threads 1 --soft-targets "$soft" >/dev/null 2>"$tmp/err"; then
				echo "pilot.sh: training $ds, sigma $s, seed $seed failed:" >&2
				cat "$tmp/err" >&2
				exit 1
			fi
			"$bin" eval --model "$tmp/m.drm" --data "$d/data.csv.gz" --test-mask "$d/test_mask.csv.gz" --split 0 2>/dev/null |
				python3 -c 'import json,sys; d=json.load(sys.stdin); print(sys.argv[1], sys.argv[2], sys.argv[3], d["kendall_tau"], d["nll_u"], d["coverage"]["0.9"])' "$ds" "$s" "$seed"
		done
	done
done
