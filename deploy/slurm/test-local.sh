#!/usr/bin/env bash
# End-to-end test of deploy/slurm on this machine: brings up a real
# one-node Slurm cluster (Debian's slurm-wlm and munge, installed if
# missing), submits a --quick experiment as a 4-task array plus its merge
# with submit.sh, waits for both jobs, and checks that the merged report
# equals one process's report (all lines but the provenance line) and that
# the merged journal holds exactly the plan's runs. It then drops one
# shard's journal, resubmits, and checks that only that shard ran again.
#
#   bash deploy/slurm/test-local.sh        (as root, or with sudo available)
#
# Environment: EXPERIMENT (default risk; any of risk, curves, density,
# bbob), TASKS (array size, default 4), TIMEOUT (seconds to wait for the
# jobs of one submission, default 240), KEEP=1 keeps the temporary
# directory (slurm.conf, logs, results) for inspection.
#
# Everything lives in a fresh temporary directory /tmp/decoreg-slurm-test.*
# with its own munge socket and free ports, so it neither uses nor disturbs
# a Slurm or munge already on the machine; the daemons and jobs it started
# are stopped and the directory removed at exit, and it can run twice (even
# at the same time). Exit 0: passed; non-zero: failed, with the reason and
# the daemons' and jobs' logs.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
slurmdir="$repo/deploy/slurm"
experiment=${EXPERIMENT:-risk}
tasks=${TASKS:-4}
timeout=${TIMEOUT:-240}
started=$(date +%s)

say() { echo "test-local.sh: $*"; }

# Root is needed to install packages and to run slurmd, which starts jobs.
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null; then
		say "not root; rerunning with sudo"
		exec sudo env "PATH=$PATH" "EXPERIMENT=$experiment" "TASKS=$tasks" "TIMEOUT=$timeout" \
			"KEEP=${KEEP:-0}" bash "${BASH_SOURCE[0]}" "$@"
	fi
	echo "test-local.sh: FAIL: must run as root (it installs slurm-wlm and runs slurmd)" >&2
	exit 1
fi
command -v go >/dev/null || { echo "test-local.sh: FAIL: go is not on PATH" >&2; exit 1; }

# ---- Install Slurm and munge from Debian's packages if missing.
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
	! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
	say "installing slurm-wlm and munge (apt-get)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# The packages' scripts may try to start the system's services; that
	# failing (no systemd, no /etc/slurm/slurm.conf) does not matter here.
	apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

# ---- Clean up after earlier runs that were killed before their own
# teardown: a directory whose test.pid names a process that is gone.
# pids_of DIR lists the processes started with SLURM_CONF=DIR/slurm.conf
# in their environment: the daemons, job steps and jobs of that cluster.
pids_of() {
	local p
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" != "$$" ] || continue
		# environ is NUL-separated; -z reads it so. Unreadable ones are skipped.
		if grep -qzxF "SLURM_CONF=$1/slurm.conf" "/proc/$p/environ" 2>/dev/null; then
			echo "$p"
		fi
	done
}
kill_cluster() {
	local dir=$1 pids
	pids=$(pids_of "$dir")
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086 # one pid a word
	kill -TERM $pids 2>/dev/null || true
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		pids=$(pids_of "$dir")
		[ -n "$pids" ] || return 0
		sleep 0.5
	done
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null || true
}
for old in /tmp/decoreg-slurm-test.*; do
	if [ ! -f "$old/test.pid" ]; then continue; fi
	if ! kill -0 "$(cat "$old/test.pid")" 2>/dev/null; then
		say "removing the leftovers of an earlier run: $old"
		kill_cluster "$old"
		rm -rf "$old"
	fi
done

# ---- A fresh temporary directory for everything (munge's socket needs
# its directories searchable by all).
tmp=$(mktemp -d /tmp/decoreg-slurm-test.XXXXXX)
chmod 755 "$tmp"
echo "$$" >"$tmp/test.pid"
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/run"
chmod 755 "$tmp/munge"
export SLURM_CONF="$tmp/slurm.conf"
# Slurm's clients read these from the environment; ours must not steer them.
unset SLURM_CLUSTERS SBATCH_PARTITION SBATCH_ACCOUNT SBATCH_QOS SBATCH_TIMELIMIT SQUEUE_FORMAT SINFO_FORMAT

# Teardown at exit: cancel the jobs, stop the daemons this run started
# (and any job process left), reap them, remove the temporary directory.
munged_pid="" ctld_pid="" slurmd_pid=""
teardown() {
	local rc=$?
	set +e
	if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
		scancel --quiet --user=root >/dev/null 2>&1
		sleep 1
	fi
	for p in "$slurmd_pid" "$ctld_pid" "$munged_pid"; do
		[ -n "$p" ] && kill -TERM "$p" 2>/dev/null
	done
	for p in "$slurmd_pid" "$ctld_pid" "$munged_pid"; do
		[ -n "$p" ] && wait "$p" 2>/dev/null
	done
	kill_cluster "$tmp"
	if [ "${KEEP:-0}" = 1 ]; then
		say "kept $tmp"
	else
		rm -rf "$tmp"
	fi
	exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# fail MESSAGE prints the message and the logs that say why, then exits 1.
fail() {
	set +e +o pipefail # print all the logs, whatever their commands return
	echo "test-local.sh: FAIL: $*" >&2
	{
		for f in "$tmp"/log/*.log "$tmp"/munge/munged.log "$tmp"/results/logs/*.out; do
			[ -s "$f" ] || continue
			echo "---- $f (last 40 lines)"
			tail -n 40 "$f"
		done
		if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
			echo "---- sinfo"; sinfo 2>&1
			echo "---- squeue"; squeue 2>&1
			echo "---- scontrol show job"; scontrol show job 2>&1 | head -n 80
		fi
	} >&2
	exit 1
}

# wait_for SECONDS WHAT CMD... retries CMD every half second until it
# succeeds, failing after SECONDS.
wait_for() {
	local secs=$1 what=$2 i
	shift 2
	for ((i = 0; i < secs * 2; i++)); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.5
	done
	fail "timed out after ${secs}s waiting for $what"
}

# ---- munge: a new key and our own munged on a socket in $tmp.
say "starting munged ($tmp)"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$tmp/munge/munge.key"
munged --foreground --force --socket="$tmp/munge/munge.socket" --key-file="$tmp/munge/munge.key" \
	--log-file="$tmp/munge/munged.log" --pid-file="$tmp/munge/munged.pid" \
	--seed-file="$tmp/munge/munged.seed" >>"$tmp/munge/munged.log" 2>&1 &
munged_pid=$!
munge_ok() { munge -S "$tmp/munge/munge.socket" -n | unmunge -S "$tmp/munge/munge.socket"; }
wait_for 20 "munged to answer" munge_ok

# ---- Two free TCP ports for slurmctld and slurmd (so that a Slurm already
# running here, or a second run of this test, is no obstacle).
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=$((20000 + RANDOM % 20000))
while ! port_free "$port" || ! port_free $((port + 1)); do port=$((port + 2)); done

# ---- slurm.conf: one node (this machine), one partition, no cgroups and
# no accounting; jobs stay visible to scontrol for 10 minutes after they end.
node=$(hostname -s)
cat >"$SLURM_CONF" <<EOF
ClusterName=decoreg-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
KillWait=5
InactiveLimit=0
MailProg=/bin/true
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=256 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

# ---- Start slurmctld and slurmd in the foreground, as children of this
# script (their logs: $tmp/log), and wait for the node to be idle.
say "starting slurmctld and slurmd (node $node, ports $port and $((port + 1)))"
slurmctld -D -i -f "$SLURM_CONF" >>"$tmp/log/slurmctld.stderr.log" 2>&1 &
ctld_pid=$!
wait_for 30 "slurmctld to answer" scontrol ping
slurmd -D -N "$node" -f "$SLURM_CONF" >>"$tmp/log/slurmd.stderr.log" 2>&1 &
slurmd_pid=$!
node_idle() { [ "$(sinfo -h -n "$node" -o %t)" = idle ]; }
wait_for 60 "node $node to be idle in sinfo" node_idle
say "cluster up after $(($(date +%s) - started))s"

# ---- Build decoreg.
say "building decoreg"
(cd "$repo" && go build -ldflags "-X decoreg/internal/experiments.BuildCommit=$(git rev-parse HEAD 2>/dev/null)" -o "$tmp/decoreg" ./cmd/decoreg) || fail "go build ./cmd/decoreg failed"

# run_jobs waits for the array and merge jobs that submit.sh printed (its
# output is in $1) and fails unless both completed.
job_states() { scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true; }
run_jobs() {
	local out=$1 array_id merge_id deadline states s busy
	array_id=$(sed -n 's/^array_job_id=//p' "$out")
	merge_id=$(sed -n 's/^merge_job_id=//p' "$out")
	if [ -z "$array_id" ] || [ -z "$merge_id" ]; then fail "submit.sh printed no job ids: $(cat "$out")"; fi
	say "waiting for array job $array_id and merge job $merge_id"
	deadline=$(($(date +%s) + timeout))
	while :; do
		states=$(job_states "$array_id"; job_states "$merge_id")
		busy=0
		for s in $states; do
			case "$s" in
			COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED) ;;
			*) busy=1 ;;
			esac
		done
		[ -n "$states" ] || busy=1
		[ "$busy" = 1 ] || break
		[ "$(date +%s)" -lt "$deadline" ] || fail "the jobs did not finish within ${timeout}s (states: ${states//$'\n'/ })"
		sleep 1
	done
	for s in $states; do
		[ "$s" = COMPLETED ] || fail "a job ended $s (array job $array_id: $(job_states "$array_id" | sort | uniq -c | awk '{printf "%s%d %s", sep, $1, $2; sep = ", "}'); merge job $merge_id: $(job_states "$merge_id"))"
	done
}

# nonprov FILE prints a REPORT.md without its provenance line.
nonprov() { grep -vF "(the sum of the runs' wall times)" "$1"; }

# ---- Submit the experiment as an array of $tasks tasks and its merge.
results="$tmp/results"
say "submitting $experiment --quick as a $tasks-task array"
cd "$tmp"
DECOREG="$tmp/decoreg" bash "$slurmdir/submit.sh" "$experiment" "$results" "$tasks" --quick >"$tmp/submit1.out" 2>&1 ||
	fail "submit.sh failed: $(cat "$tmp/submit1.out")"
cat "$tmp/submit1.out"
run_jobs "$tmp/submit1.out"
[ -s "$results/merged/REPORT.md" ] || fail "the merge job wrote no $results/merged/REPORT.md"

# ---- The same experiment in one process.
say "running $experiment --quick in one process"
"$tmp/decoreg" experiment "$experiment" --quick --threads 1 --out "$tmp/one" 2>"$tmp/one.log" ||
	fail "decoreg experiment $experiment --quick failed: $(tail -n 20 "$tmp/one.log")"
plan=$(sed -n "s/^experiment $experiment: \([0-9][0-9]*\) runs in the plan,.*/\1/p" "$tmp/one.log")
[ -n "$plan" ] || fail "no plan size in $tmp/one.log"

# ---- Compare: the reports without their provenance lines, and the keys.
if ! diff <(nonprov "$tmp/one/REPORT.md") <(nonprov "$results/merged/REPORT.md") >"$tmp/report.diff"; then
	cat "$tmp/report.diff" >&2
	fail "the merged REPORT.md differs from one process's (diff above)"
fi
keys=$(grep -o '"key":"[^"]*"' "$results/merged/results.jsonl" | sort -u | wc -l)
lines=$(wc -l <"$results/merged/results.jsonl")
if [ "$keys" != "$plan" ] || [ "$lines" != "$plan" ]; then
	fail "the merged results.jsonl has $lines lines and $keys distinct keys; the plan has $plan runs"
fi
say "merged report equals one process's; $keys distinct keys = the plan's $plan runs"

# ---- Resume: drop one shard's journal (as if its task had died before its
# runs), resubmit the same array, and check that only that shard runs
# again, the merge adds nothing new, and the report is unchanged.
victim=$((plan < tasks ? plan - 1 : tasks - 1))
victim_runs=$(wc -l <"$results/shard-$victim/results.jsonl")
rm -f "$results/shard-$victim/results.jsonl"
say "resubmitting after removing shard $victim's journal ($victim_runs runs)"
DECOREG="$tmp/decoreg" bash "$slurmdir/submit.sh" "$experiment" "$results" "$tasks" --quick >"$tmp/submit2.out" 2>&1 ||
	fail "the second submit.sh failed: $(cat "$tmp/submit2.out")"
run_jobs "$tmp/submit2.out"
array2=$(sed -n 's/^array_job_id=//p' "$tmp/submit2.out")
merge2=$(sed -n 's/^merge_job_id=//p' "$tmp/submit2.out")
for ((i = 0; i < tasks; i++)); do
	log="$results/logs/decoreg-$experiment-${array2}_$i.out"
	want=0
	if [ "$i" = "$victim" ]; then want=$victim_runs; fi
	if ! grep -q "^experiment $experiment: ran $want runs " "$log"; then
		fail "resumed task $i should have run $want runs: $(tail -n 5 "$log")"
	fi
done
grep -q "merged 0 new runs" "$results/logs/decoreg-$experiment-merge-$merge2.out" ||
	fail "the second merge should add nothing: $(tail -n 5 "$results/logs/decoreg-$experiment-merge-$merge2.out")"
diff <(nonprov "$tmp/one/REPORT.md") <(nonprov "$results/merged/REPORT.md") >/dev/null ||
	fail "the report changed after the resubmission"
say "resume: only shard $victim ran again ($victim_runs runs); the merge added none"

say "PASS in $(($(date +%s) - started))s"
