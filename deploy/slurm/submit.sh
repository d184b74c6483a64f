#!/usr/bin/env bash
# Submits a decoreg experiment to Slurm: an array of N tasks, each running
# one shard (experiment.sbatch), and a merge job (merge.sbatch) that starts
# when every task has succeeded and writes RESULTS/merged/REPORT.md.
#
#   deploy/slurm/submit.sh EXPERIMENT RESULTS N [EXTRA_ARGS...]
#   deploy/slurm/submit.sh bbob /shared/results/bbob 32 --n 100000 --seeds 10
#
# To resume (after a time limit, a failed node, a cancelled job), run the
# same command again: every task skips the runs its shard already has and
# the merge adds only the new lines. Keep N and EXTRA_ARGS the same for a
# RESULTS directory.
#
# Environment:
#   DECOREG        the decoreg binary (default: decoreg on PATH); it must be
#                  reachable at the same path on the compute nodes
#   CPUS_PER_TASK  cores per task, passed to decoreg as --threads (default 1)
#   THROTTLE       at most this many tasks at once (--array=0-(N-1)%THROTTLE)
#   SBATCH_ARGS    more sbatch options for both jobs, split on blanks
#                  (e.g. "--partition=cpu --time=12:00:00 --account=me");
#                  sbatch's own SBATCH_PARTITION, SBATCH_TIMELIMIT, ... work too
# It prints the two job ids as array_job_id=ID and merge_job_id=ID.
set -euo pipefail

usage() {
	echo "usage: $0 EXPERIMENT RESULTS N [EXTRA_ARGS...]   (e.g. $0 risk results/risk 4 --quick)" >&2
	exit 2
}
die() {
	echo "submit.sh: error: $*" >&2
	exit 2
}

[ "$#" -ge 3 ] || usage
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
experiment=$1
results=$2
n=$3
shift 3
case "$n" in '' | *[!0-9]* | 0*) die "N must be a positive integer, have '$n'" ;; esac
for a in "$@"; do
	case "$a" in *[[:space:]]*) die "an EXTRA_ARG may not contain blanks: '$a'" ;; esac
done
command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm submit host"

# Find the binary and make every path absolute: the jobs may start elsewhere.
decoreg=${DECOREG:-}
if [ -z "$decoreg" ]; then
	decoreg=$(command -v decoreg) || die "set DECOREG to the decoreg binary (go build -o decoreg ./cmd/decoreg) or put decoreg on PATH"
fi
[ -x "$decoreg" ] || die "DECOREG=$decoreg is not an executable file"
decoreg=$(cd "$(dirname "$decoreg")" && pwd)/$(basename "$decoreg")
# Check the experiment's name before queueing anything.
[ "$experiment" != uci ] || die "uci has its own sharding (decoreg bench uci --shard I/N); these scripts run the others (risk, curves, density, bbob, ...)"
names=$("$decoreg" experiment --list | awk '$1 != "uci" {print $1}')
if ! grep -qx -- "$experiment" <<<"$names"; then
	die "unknown experiment '$experiment' (have: ${names//$'\n'/ })"
fi
mkdir -p "$results/logs"
results=$(cd "$results" && pwd)

cpus=${CPUS_PER_TASK:-1}
array="0-$((n - 1))"
if [ -n "${THROTTLE:-}" ]; then array="$array%$THROTTLE"; fi
read -r -a sbatch_args <<<"${SBATCH_ARGS:-}"

# The jobs read these from the environment sbatch passes on (--export=ALL).
export EXPERIMENT="$experiment" RESULTS="$results" DECOREG="$decoreg" EXTRA_ARGS="$*" THREADS="$cpus"

# Submit the array: task I runs shard I/N into RESULTS/shard-I.
array_id=$(sbatch --parsable --export=ALL "${sbatch_args[@]}" \
	--job-name="decoreg-$experiment" --array="$array" --cpus-per-task="$cpus" \
	--output="$results/logs/%x-%A_%a.out" "$here/experiment.sbatch")
array_id=${array_id%%;*} # --parsable prints "id" or "id;cluster"

# Submit the merge, to start once every task of the array has succeeded.
merge_id=$(sbatch --parsable --export=ALL "${sbatch_args[@]}" \
	--job-name="decoreg-$experiment-merge" --dependency="afterok:$array_id" \
	--kill-on-invalid-dep=yes --output="$results/logs/%x-%j.out" "$here/merge.sbatch")
merge_id=${merge_id%%;*}

echo "submit.sh: $experiment: array job $array_id (--array=$array, shard I/$n into $results/shard-I), merge job $merge_id (after the array succeeds)"
echo "submit.sh: logs in $results/logs; the report will be $results/merged/REPORT.md"
echo "array_job_id=$array_id"
echo "merge_job_id=$merge_id"
