#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A process in a memory cgroup of REL_MEMCG_MB (64) MiB makes sroce
# allocate for it until something refuses (tests/vm/verbs/memcg.c, in
# guest a): CQs, QPs and MRs kept alive, then CQ rings mapped a second
# time and kept after their CQ is destroyed, then ODP MRs of 4 GiB over
# untouched address space.  Everything it causes is
# charged to its cgroup (Documentation/reliability.rst, "Trust
# boundary"), so each run must end with ENOMEM from a verb or the OOM
# killer inside the cgroup, before the process maps more than the limit
# (every mapped page is charged to it), and
# the rest of the guest keeps all but the cgroup's limit and 32 MiB of
# the memory it had available.
. "$SROCE_TOP/tests/vm/reliability/reliability.lib"

is_a || exit 0
prog=$VERBS/memcg
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"
mb=${REL_MEMCG_MB:-64}
cg=/sys/fs/cgroup
if [[ ! -f $cg/cgroup.controllers ]]; then
	mount -t cgroup2 cgroup2 $cg || fail "cannot mount cgroup2"
fi
grep -qw memory $cg/cgroup.controllers || fail "no memory controller"
echo +memory >$cg/cgroup.subtree_control || fail "cannot enable the memory controller"
dir=$cg/sroce-memcg
mkdir -p $dir
trap 'rmdir $dir 2>/dev/null' EXIT
echo "${mb}M" >$dir/memory.max || fail "cannot set memory.max"

# The odp mode's page tables that ib_core allocates are not charged to
# the cgroup but to the device budget (max_ring_mb): cut it to 32 MiB
# for the run, so the guest loses at most the cgroup's limit plus that.
budget=/sys/module/sroce/parameters/max_ring_mb
budget0=$(<$budget)
trap 'rmdir $dir 2>/dev/null; echo "$budget0" >$budget' EXIT

for mode in objects keep odp; do
	extra=0
	if [[ $mode == odp ]]; then
		echo 32 >$budget
		extra=32
	fi
	sroce_kmsg_check || fail "the kernel log has a splat before the $mode run"
	out=$SROCE_OUT/memcg-$mode.out
	kills=$(sed -n 's/^oom_kill //p' $dir/memory.events)
	rc=0
	# The shell joins the cgroup, then becomes the program.
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$dir" \
		"$prog" -d "$DEV" --mode $mode --limit-mb "$mb" >"$out" 2>&1 || rc=$?
	sed "s/^/  $mode: /" "$out" | grep -v '^  [a-z]*: held' || true
	grep '^held' "$out" | tail -n 1 | sed "s/^/  $mode: /" || true
	killed=$(($(sed -n 's/^oom_kill //p' $dir/memory.events) - kills))
	grep -q '^over:' "$out" && fail "$mode: the process mapped more than its cgroup's limit"
	# The odp mode's tables are refused by the budget with ENOMEM, well
	# inside the cgroup's limit: a kill means they were not bounded.
	[[ $mode == odp ]] && ((killed)) && fail "odp: OOM-killed: the ODP page tables were not refused in time"
	if ((killed)); then
		# The OOM report has a stack dump, which the harness would take
		# for a splat: it must be a memory cgroup's kill of memcg, with
		# nothing else flagged, and is then acknowledged.
		"$SROCE_TOP/tools/vm/kmsg-since" "$SROCE_VM_KMSG_SEQ" >"$T/kmsg"
		grep -q 'Memory cgroup out of memory: Killed process [0-9]* (memcg)' "$T/kmsg" ||
			fail "$mode: killed, but not by its memory cgroup"
		sroce_kmsg_ack_only '^Call Trace:$' ||
			fail "$mode: the kernel log has more than the OOM report"
		log "$mode: OOM-killed inside its cgroup (rc $rc)"
	else
		((rc == 0)) || fail "$mode: memcg exited with $rc"
		grep -q '^stop: .* errno 12 ' "$out" ||
			fail "$mode: stopped by something else than ENOMEM"
		start=$(sed -n 's/^memavailable: \([0-9]*\) KiB at start.*/\1/p' "$out")
		end=$(sed -n 's/^memavailable: .*, \([0-9]*\) KiB at the end/\1/p' "$out")
		[[ -n $start && -n $end ]] || fail "$mode: no memavailable line"
		floor=$((start - (mb + extra + 32) * 1024))
		log "$mode: refused with ENOMEM; guest MemAvailable $start -> $end KiB (floor $floor)"
		((end >= floor)) || fail "$mode: the guest's available memory fell below $floor KiB"
	fi
	echo "$budget0" >$budget
done
