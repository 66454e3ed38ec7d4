#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The verbs fuzzer (tests/vm/verbs/vfuzz.c) against the device, in both
# guests at once (each on its own device, loopback through its own GID,
# guest b's seeds 1000 above guest a's).  Four passes, each
# REL_VFUZZ_SECS / 4 seconds (default 60 s in all) of REL_VFUZZ_THREADS
# (default 2) threads, at most REL_VFUZZ_OPS calls a thread:
#
#   shared     one context shared by the threads; ring scribbling, fork
#   close-mid  a context per thread, closed with its objects alive and
#              reopened; raw uverbs write() commands with random handles
#   seeds      REL_VFUZZ_SEEDS (default 2) more seeds, everything on,
#              the time split between them
#   link-del   as close-mid, while this script deletes the rdma link
#              under the running fuzzer and adds it back (same name, same
#              netdev): the fuzzer's contexts must be disassociated, its
#              threads reopen the device once it is back
#
# The fuzzer must end by itself (its watchdog fails a call that does not
# return within REL_VFUZZ_HANG seconds, default 60; this script kills it
# 120 s after its bound), and then every verbs object is gone
# (dp_resources_clean), the device still carries traffic (ibv_rc_pingpong
# between the guests), and the kernel log is clean (the harness scans it:
# WARN, oops, BUG, KASAN/UBSAN, lockups, hung tasks, RCU stalls, leaks).
# While the fuzzer runs, the hung-task detector's timeout is cut to
# 20 s so a task stuck in the kernel is reported within the run.
#
# A failure names the pass and the seed: rerun it with the "rerun:" line
# the fuzzer printed first (its output is in $SROCE_OUT/vfuzz-*.out).
. "$SROCE_TOP/tests/vm/reliability/reliability.lib"

prog=$VERBS/vfuzz
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"
ops=${REL_VFUZZ_OPS:-1000000}
total=${REL_VFUZZ_SECS:-60}
threads=${REL_VFUZZ_THREADS:-2}
nseeds=${REL_VFUZZ_SEEDS:-2}
hang=${REL_VFUZZ_HANG:-60}
seed=${REL_VFUZZ_SEED:-1}
is_b && seed=$((seed + 1000))
pass_secs=$((total / 4 > 5 ? total / 4 : 5))

hung=/proc/sys/kernel/hung_task_timeout_secs
hung0=
if [[ -w $hung ]]; then
	hung0=$(<"$hung")
	echo 20 >"$hung"
fi
restore_hung() {
	[[ -z $hung0 ]] || echo "$hung0" >"$hung"
}

# fuzz NAME SECS SEED OPTIONS...: the fuzzer in the background; VFUZZ_PID.
fuzz() {
	local name=$1 secs=$2 s=$3
	shift 3
	log "$name: vfuzz --seed $s --secs $secs --threads $threads $*"
	timeout -k 5 $((secs + hang + 120)) "$prog" -d "$DEV" -g "$G4" --seed "$s" \
		--ops "$ops" --threads "$threads" --secs "$secs" --hang-secs "$hang" "$@" \
		>"$SROCE_OUT/vfuzz-$name.out" 2>&1 &
	VFUZZ_PID=$!
}

# reap NAME: wait for the fuzzer, judge how it ended, show its figures.
reap() {
	local name=$1 out rc=0 line
	out=$SROCE_OUT/vfuzz-$name.out
	wait "$VFUZZ_PID" || rc=$?
	if ((rc)); then
		sed "s/^/  $name: /" "$out" >&2
		restore_hung
		case $rc in
		3) fail "$name: the fuzzer's watchdog found a call that never returned" ;;
		124 | 137) fail "$name: the fuzzer did not end: killed" ;;
		*) fail "$name: the fuzzer exited with $rc" ;;
		esac
	fi
	grep -E '^vfuzz: (op |objects|thread .*calls|[0-9]+ forks)' "$out" | sed "s/^/  $name: /"
	line=$(grep '^vfuzz: seed .*: ok$' "$out") || fail "$name: no success line"
	log "$name: ${line#vfuzz: }"
	dp_resources_clean || fail "$name: verbs objects left behind"
	sroce_kmsg_check || fail "$name: the kernel log has a report"
}

fuzz shared "$pass_secs" "$seed" --fork
reap shared

fuzz close-mid "$pass_secs" $((seed + 100)) --close-mid --raw --fork
reap close-mid

for ((k = 1; k <= nseeds; k++)); do
	s=$((seed + 200 + k))
	fuzz "seed-$s" $((pass_secs / nseeds > 3 ? pass_secs / nseeds : 3)) "$s" --close-mid --raw --fork
	reap "seed-$s"
done

# Delete the link a third of the way in, add it back two seconds later.
fuzz link-del "$pass_secs" $((seed + 300)) --close-mid --raw --fork
sleep $((pass_secs / 3))
kill -0 "$VFUZZ_PID" 2>/dev/null || log "link-del: the fuzzer ended before the delete"
timeout 30 rdma link delete "$DEV" || fail "link-del: rdma link delete blocked or failed"
[[ ! -e /sys/class/infiniband/$DEV ]] || fail "link-del: $DEV still there after the delete"
log "link-del: $DEV deleted under the fuzzer"
sleep 2
dp_relink link-del
log "link-del: $DEV back on $SROCE_IF, RoCE v2 GID $G4"
reap link-del
restore_hung

# The device as the next tests want it: the same name, the same netdev,
# carrying traffic between the guests.
[[ $(<"/sys/class/infiniband/$DEV/ports/1/gid_attrs/ndevs/$G4") == "$SROCE_IF" ]] ||
	fail "$DEV is not on $SROCE_IF any more"
sroce_barrier vfuzz-fuzzed 300
dp_pair vfuzz-pingpong 60 tcp:18871 \
	"ibv_rc_pingpong -d $DEV -g $G4 -p 18871 -n 200" \
	"ibv_rc_pingpong -d $DEV -g $G4 -p 18871 -n 200 $SROCE_PEER"
log "pingpong after the fuzzing: $(grep -m1 'iters in' "$(dp_out vfuzz-pingpong)")"
