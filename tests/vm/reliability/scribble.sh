#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile local user: what a process scribbles on the rings it shares
# with the kernel hurts only its own QPs.  In both guests, while the
# integrity pair runs between them on other QPs, tests/vm/verbs/scribble
# overwrites the rings its own victim QPs share with the kernel: indices,
# flag words, WQEs, CQEs, and (from a second thread) anything at all,
# while it posts and polls.  The kernel must stay safe: the sentinel QPs
# of the same process and the integrity QPs of another process see every
# byte right, every object is destroyed, ring_errors counts the rings
# the kernel refused, and the kernel log stays clean (the harness checks
# it after every test).
. "$SROCE_TOP/tests/vm/reliability/reliability.lib"

prog=$VERBS/scribble
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"
pairs=${REL_SCRIBBLE_PAIRS:-8}
iters=${REL_SCRIBBLE_ITERS:-40}
seed=${REL_SCRIBBLE_SEED:-1}

# The integrity pair first, long enough to run through the scribbling
# (about 10 s here); scribbling starts once its QPs are connected.  Its
# ACK timeout is the sentinel's (about 1 s): four vCPUs on two host
# cores, busy with two hostile processes, can hold a packet back longer
# than integrity's 67 ms default eight times in a row, and what this test
# asserts is every byte right, not how soon it arrives.
rm -f "$T/integrity-qpns"
SROCE_QP_TIMEOUT=${SROCE_QP_TIMEOUT:-18} rel_integrity_bg scribble-integrity 18841 --seed 11 --ops "${REL_SCRIBBLE_OPS:-16000}" \
	--bytes 128M --max-size 64K --qps 2 --qpn-file "$T/integrity-qpns"
if is_b; then
	for ((i = 0; i < 600; i++)); do
		[[ -s $T/integrity-qpns ]] && break
		kill -0 "$REL_INTEGRITY_PID" 2>/dev/null || break
		sleep 0.1
	done
	[[ -s $T/integrity-qpns ]] || fail "the integrity client never connected"
	seed=$((seed + 1000))
fi
sroce_barrier scribble-start
sroce_ctrs "$DEV" >"$T/before"
rc=0
"$prog" -d "$DEV" -g "$G4" --pairs "$pairs" --iters "$iters" --seed "$seed" \
	>"$SROCE_OUT/scribble.out" 2>&1 || rc=$?
sed 's/^/  scribble: /' "$SROCE_OUT/scribble.out"
((rc == 0)) || fail "scribble exited with $rc"
kill -0 "$REL_INTEGRITY_PID" 2>/dev/null && running="integrity still running" ||
	running="integrity finished first"
line=$(grep '^scribble: .*: ok$' "$SROCE_OUT/scribble.out") || fail "scribble: no success line"
rel_integrity_wait scribble-integrity
sroce_ctrs "$DEV" >"$T/after"
sroce_ctr_delta "$T/before" "$T/after" | sed 's/^/  counter /'
errs=$(sroce_ctr_moved "$T/before" "$T/after" ring_errors)
# Scribbled indices are refused at least once per index-mode pair.
((errs > 0)) || fail "ring_errors did not move: the scribbling never reached the kernel"
log "${line#scribble: }; ring_errors +$errs; $running"
sroce_barrier scribble-done
