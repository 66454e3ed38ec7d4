#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A lossy wire: every byte still arrives right, and the recovery is
# counted.  Both guests put netem on their NIC's
# egress and the integrity pair (every byte and completion checked on
# both sides) runs across it: 1%, 5% and 10% loss, reordering,
# duplication, corruption (which only the ICRC can catch: UDP checksums
# are zero on RoCEv2, so it must show as rx_drop_bad_icrc), delay with
# jitter and burst loss (Gilbert-Elliott).  Under loss the requesters'
# retransmissions must show in the counters.  Then perftest WRITE, READ,
# SEND and atomics and an 8 MiB READ under loss, and last the retry
# budget: RC QPs with retry_cnt 3 keep working, the wire is cut (100%
# loss), and the next WRITE must complete with IBV_WC_RETRY_EXC_ERR, not
# hang.
#
# REL_NETEM_SCALE=N multiplies the integrity budgets (make soak).
. "$SROCE_TOP/tests/vm/reliability/reliability.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"

scale=${REL_NETEM_SCALE:-1}
modprobe sch_netem 2>/dev/null || true

wire() {
	tc qdisc replace dev "$SROCE_IF" root netem "$@" ||
		fail "tc qdisc ... netem $*"
}

wire_clean() {
	tc qdisc del dev "$SROCE_IF" root 2>/dev/null || true
}
# Whatever happens, leave the wire clean for the next script.
trap 'rc=$?; wire_clean; (exit $rc); _dp_exit' EXIT

# The requester-side counters of both guests summed, after a barrier.
shared_sum() {
	local tag=$1 mine=$2
	sroce_put "sum-$tag" "$mine"
	echo $((mine + $(sroce_get "sum-$tag")))
}

retx() {
	echo $(($(sroce_ctr retransmits) + $(sroce_ctr timeouts)))
}

# lossy NAME KIB MAXSIZE NETEM...: integrity (KIB KiB) across netem NETEM.
port=18840
lossy() {
	local name=$1 bytes=$2 max=$3 r0 i0 r i moved
	shift 3
	port=$((port + 1))
	r0=$(retx)
	i0=$(sroce_ctr rx_drop_bad_icrc)
	wire "$@"
	sroce_barrier "$name-wire"
	rel_integrity_bg "$name" "$port" --seed "$port" --ops 200 \
		--bytes "$((bytes * scale))K" --max-size "$max" --qps 2
	rel_integrity_wait "$name"
	sroce_barrier "$name-done"
	wire_clean
	r=$(($(retx) - r0))
	i=$(($(sroce_ctr rx_drop_bad_icrc) - i0))
	moved=$(shared_sum "$name-retx" "$r")
	icrc=$(shared_sum "$name-icrc" "$i")
	log "$name (netem $*): retransmits+timeouts here $r, both guests $moved; ICRC drops $icrc"
	REL_RETX=$moved REL_ICRC=$icrc
}

lossy loss1 1024 256K loss 1%
((REL_RETX > 0)) || fail "1% loss: no retransmission counted"
lossy loss5 1024 256K loss 5%
((REL_RETX > 0)) || fail "5% loss: no retransmission counted"
# Not 20%: a request or its answer then fails 36% of the time, and eight
# failures in a row (retry_cnt 7, the most IBA allows) end the QP in
# RETRY_EXC_ERR, correctly: 42 of 3,000 simulator runs of this size
# (Documentation/reliability.rst, "The tests").  At 10%, none.
lossy loss10 256 64K loss 10%
((REL_RETX > 0)) || fail "10% loss: no retransmission counted"
lossy burst 512 128K loss gemodel 1% 30% 100% 0%
((REL_RETX > 0)) || fail "burst loss: no retransmission counted"
lossy reorder 512 128K delay 10ms reorder 25% 50%
lossy duplicate 512 128K duplicate 10%
lossy delay 512 128K delay 20ms 10ms
lossy corrupt 512 128K corrupt 3%
((REL_ICRC > 0)) || fail "3% corruption: no rx_drop_bad_icrc counted"

# perftest under 5% loss (small counts; perftest checks no data, the
# integrity runs above do), and one 8 MiB READ under 1%.
wire loss 5%
sroce_barrier perf-wire
perf ib_write_bw loss-write 18861 16384 50
perf ib_read_bw loss-read 18862 16384 50
perf ib_send_bw loss-send 18863 16384 50
perf ib_atomic_bw loss-atomic 18864 8 50
wire loss 1%
perf ib_read_bw loss-read-8m 18865 8388608 5
wire_clean
sroce_barrier perf-done

# The retry budget: guest b WRITEs to guest a over a working connection,
# then b's egress is cut and the next WRITE must fail with RETRY_EXC_ERR.
target=$VERBS/reltarget
rm -f "$T/info" "$T/peer"*
if is_a; then
	"$target" -d "$DEV" -g "$G4" --peer-gid "$SROCE_PEER" --info "$T/info" --rc 1 \
		--connect "$T/peer" --fuzzed >"$SROCE_OUT/retry-passive.out" 2>&1 &
else
	"$target" -d "$DEV" -g "$G4" --peer-gid "$SROCE_PEER" --info "$T/info" --rc 1 \
		--connect "$T/peer" --retry --timeout 60 >"$SROCE_OUT/retry-active.out" 2>&1 &
fi
pid=$!
for ((i = 0; i < 300; i++)); do
	[[ -s $T/info ]] && break
	sleep 0.1
done
[[ -s $T/info ]] || fail "reltarget wrote no info"
. "$T/info"
sroce_put retry-qp "${RC_QPN[0]} ${RC_SPSN[0]} $RW_VA $RW_RKEY"
sroce_get retry-qp >"$T/peer.tmp"
# The passive side connects first: a WRITE that arrived before its QP was
# in RTR would be dropped, and with 4 ms x 3 retries that is an error.
if is_a; then
	mv "$T/peer.tmp" "$T/peer"
	for ((i = 0; i < 300; i++)); do
		[[ -e $T/peer.up ]] && break
		sleep 0.1
	done
	[[ -e $T/peer.up ]] || fail "the passive reltarget never connected"
	sroce_put retry-passive-up yes
else
	sroce_get retry-passive-up 60 >/dev/null
	mv "$T/peer.tmp" "$T/peer"
fi
if is_b; then
	for ((i = 0; i < 600; i++)); do
		[[ -e $T/peer.ready ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [[ ! -e $T/peer.ready ]]; then
		cat "$SROCE_OUT/retry-active.out" >&2
		sroce_ctrs_show retry "$DEV"
		sroce_put retry-done failed
		fail "first WRITE never completed"
	fi
	r0=$(sroce_ctr retransmits)
	wire loss 100%
	: >"$T/peer.go"
	rc=0
	wait "$pid" || rc=$?
	wire_clean
	sed 's/^/  retry: /' "$SROCE_OUT/retry-active.out"
	((rc == 0)) || fail "retry budget: no IBV_WC_RETRY_EXC_ERR (rc=$rc)"
	# retry_cnt 3 (reltarget): the WRITE went out 1 + 3 times.
	n=$(($(sroce_ctr retransmits) - r0))
	((n == 3)) || fail "retry budget: $n retransmissions before RETRY_EXC_ERR, not 3"
	log "retry budget: RETRY_EXC_ERR after $n retransmissions"
	sroce_put retry-done yes
else
	verdict=$(sroce_get retry-done 120)
	[[ $verdict == yes ]] || sroce_ctrs_show retry "$DEV"
	kill -TERM "$pid"
	wait "$pid" || fail "retry: the passive side's protected memory changed"
fi
sroce_barrier retry-done
