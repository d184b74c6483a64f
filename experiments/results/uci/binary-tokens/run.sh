#!/usr/bin/env bash
# The README's account of the paper's NLL units (section "On the units"):
# the normalized decoder with binary tokens (normalized:base=2,length=8,
# the other settings decoreg's defaults) trained on split 0 of tamielectric,
# whose target no feature predicts, and scored on that split's test rows:
# its nll_token (a cross-entropy per token) against its NLL (a density).
# eval's summary goes to runs.jsonl with the commit. Run from the
# repository root, with ../shared beside it:
#   bash experiments/results/uci/binary-tokens/run.sh
set -euo pipefail
out=experiments/results/uci/binary-tokens
data=../shared/data/uci/tamielectric
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/decoreg" ./cmd/decoreg
commit=$(git rev-parse HEAD)
"$tmp/decoreg" train --data "$data/data.csv.gz" --test-mask "$data/test_mask.csv.gz" --split 0 --target y \
	--head decoder --vocab normalized:base=2,length=8 --seed 0 --threads 1 --out "$tmp/m.drg" > "$tmp/train.json"
ev=$("$tmp/decoreg" eval --model "$tmp/m.drg" --data "$data/data.csv.gz" --test-mask "$data/test_mask.csv.gz" --split 0 --target y)
printf '{"dataset":"tamielectric","split":0,"vocab":"normalized:base=2,length=8","commit":"%s","train":%s,"eval":%s}\n' \
	"$commit" "$(tail -1 "$tmp/train.json")" "$ev" > "$out/runs.jsonl.tmp"
mv "$out/runs.jsonl.tmp" "$out/runs.jsonl"
