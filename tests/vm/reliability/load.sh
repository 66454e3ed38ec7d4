#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load: many QPs and MRs work at once, and past its limits the device
# refuses cleanly.  tests/vm/verbs/load connects REL_LOAD_QPS
# (default 1000) RC QPs between the guests, each side with REL_LOAD_MRS
# (default 4096) MRs of its own, and moves a WRITE and a SEND on every QP
# per round, every byte checked by the server.  Then, in guest b alone,
# load --limits creates QPs of REL_LIMIT_DEPTH (default 4096) WRs, each on
# its own CQ, until the device refuses: with the default ring memory
# bound (an eighth of RAM, kernel/rings.c) that is ENOMEM after about a
# hundred QPs here, where without the bound the OOM killer ended it.  The
# refusal must be a clean errno, the process must live, the OOM killer
# must not have run, the kernel log stay clean, and a QP made after it
# must work.  REL_LIMIT_QPS (default 20000) caps the count: make soak
# runs depth 1 up to the device's max_qp.
. "$SROCE_TOP/tests/vm/reliability/reliability.lib"

prog=$VERBS/load
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"
qps=${REL_LOAD_QPS:-1000}
mrs=${REL_LOAD_MRS:-4096}
rounds=${REL_LOAD_ROUNDS:-5}
limit=${REL_LIMIT_QPS:-20000}
depth=${REL_LIMIT_DEPTH:-4096}
# The pair's time limit: make soak's 65,536 MRs a side take minutes.
secs=${REL_LOAD_SECS:-600}
limit_secs=3000
# The ACK timeout (IBA encoding) of the pair's QPs.  Every client QP
# posts at once, so the last packet of a round waits behind all the
# others in both guests' queues; the timer runs from the post.  When
# that wait passes the timeout, every QP retransmits and the wire
# collapses: make soak's 4,000 QPs at 16 (268 ms) ran out of retries on
# 6.1.  The soak sets 20 (4.3 s).
qp_timeout=${REL_LOAD_TIMEOUT:-${SROCE_QP_TIMEOUT:-16}}

out=$SROCE_OUT/load.out
if is_a; then
	"$prog" -s -d "$DEV" -g "$G4" -p 18901 --qps "$qps" --mrs "$mrs" --rounds "$rounds" \
		--qp-timeout "$qp_timeout" >"$out" 2>&1 &
else
	"$prog" -c "$SROCE_PEER" -d "$DEV" -g "$G4" -p 18901 --qps "$qps" --mrs "$mrs" \
		--rounds "$rounds" --qp-timeout "$qp_timeout" >"$out" 2>&1 &
fi
pid=$!
for ((i = 0; i < secs * 10; i++)); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; cat "$out" >&2; fail "load: still running after $secs s"; }
rc=0
wait "$pid" || rc=$?
sed 's/^/  /' "$out"
if ((rc != 0)); then
	sroce_ctrs_show load "$DEV"
	fail "load exited with $rc"
fi
log "$(grep '^load: .* ok: ' "$out")"
sroce_barrier load-done

if is_b; then
	oom0=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
	rc=0
	timeout "$limit_secs" "$prog" --limits -d "$DEV" --max-qps "$limit" --depth "$depth" \
		>"$SROCE_OUT/limits.out" 2>&1 || rc=$?
	sed 's/^/  /' "$SROCE_OUT/limits.out"
	((rc == 0)) || fail "load --limits exited with $rc"
	if ((depth > 1)); then
		grep -q 'refused: Cannot allocate memory' "$SROCE_OUT/limits.out" ||
			fail "$depth-WR QPs: no ENOMEM before $limit of them (is the ring bound gone?)"
	fi
	oom1=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
	((oom1 == oom0)) || fail "the OOM killer ran $((oom1 - oom0)) times"
	log "$(grep '^load: limits: ' "$SROCE_OUT/limits.out")"
fi
# Guest a waits out b's limits part: depth-1 QPs up to the refusal take
# minutes (make soak: 10,293 of them in 2 minutes on 6.12).
sroce_barrier limits-done $((limit_secs + 60))
