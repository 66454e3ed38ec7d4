#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A process keeps its ERR QP's SQ and RQ full from a second thread while
# it rings the doorbell (tests/vm/verbs/flushstorm, guest a, REL_STORM_SECS
# seconds, 1,024-entry rings).  No kernel call may flush more than its
# bound: the rest waits for the QP's next pass, with the QP's lock dropped
# and bottom halves back on in between (Documentation/reliability.rst,
# "Trust boundary").  Each call that stops at its bound counts in
# flushes_deferred, which must move; without the bound one doorbell took
# 171,669 WQEs from the 1,024-entry SQ on 6.1 and nothing counted.  The
# harness fails the test on a soft lockup or an RCU stall in the log.
# The most WQEs taken during one doorbell is logged, not judged: it
# includes what the QP's work took meanwhile on the other CPU.
# Meaningful with two vCPUs (group.conf): on one, the scribbling thread
# never runs while the kernel flushes.
. "$SROCE_TOP/tests/vm/reliability/reliability.lib"

is_a || exit 0
prog=$VERBS/flushstorm
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"
secs=${REL_STORM_SECS:-10}
(($(nproc) > 1)) || log "one vCPU: the storm cannot run beside the kernel"
# A kernel without the bound has no such counter: read it as 0.
deferred() {
	sroce_ctrs | sed -n 's/^flushes_deferred=//p' | grep . || echo 0
}
d0=$(deferred)
out=$SROCE_OUT/flushstorm.out
rc=0
timeout $((secs + 60)) "$prog" -d "$DEV" --secs "$secs" --wr 1024 >"$out" 2>&1 || rc=$?
sed 's/^/  /' "$out"
((rc == 0)) || fail "flushstorm exited with $rc"
grep -q '^flushstorm: .* taken: ' "$out" || fail "flushstorm printed no result"
n=$(($(deferred) - d0))
log "flushes_deferred +$n"
((n > 0)) || fail "flushes_deferred did not move: no flush stopped at its bound"
