#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Congestion control between the guests: guest b's egress is a 50 Mb/s
# bottleneck (tbf) whose queue is fq_codel with ECN marking, and 16 RC QPs
# WRITE through it (ib_write_bw -q 16), with DCQCN off and then on.
# With it on, the marks must come back as CNPs and cut the senders'
# rates, perftest must complete, and every byte of a 16-QP integrity run
# must still arrive.  With it off, fq_codel drops instead of marking and
# go-back-N may run out of retries (IBV_WC_RETRY_EXC_ERR): that outcome
# is logged, not failed.  The retransmits with CC off and on are logged
# as figures (Documentation/congestion.rst): TCG guests are too uneven a
# clock for a ratio to be asserted.
. "$SROCE_TOP/tests/vm/reliability/reliability.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"

modprobe sch_tbf 2>/dev/null || true
modprobe sch_fq_codel 2>/dev/null || true
param=/sys/module/sroce/parameters/cc_enable

bottleneck() {
	is_b || return 0
	tc qdisc replace dev "$SROCE_IF" root handle 1: tbf rate 50mbit \
		burst 16k latency 50ms || fail "tc qdisc tbf"
	tc qdisc add dev "$SROCE_IF" parent 1:1 handle 10: fq_codel ecn ||
		fail "tc qdisc fq_codel ecn"
}

wire_clean() {
	tc qdisc del dev "$SROCE_IF" root 2>/dev/null || true
}
trap 'rc=$?; wire_clean; echo Y >"$param" 2>/dev/null; (exit $rc); _dp_exit' EXIT

retx() {
	echo $(($(sroce_ctr retransmits) + $(sroce_ctr timeouts)))
}

# run TAG Y|N PORT [may-fail]: 16-QP WRITE bandwidth through the
# bottleneck; sets CC_PERF (ok or failed), CC_RETX (b's retransmits and
# timeouts), CC_MARKS (a's CE-marked packets), CC_CNP_TX (a), CC_CNP_RX
# and CC_CUTS (b).
run() {
	local tag=$1 on=$2 r0 m0 s0 c0 d0 v
	echo "$on" >"$param" || fail "cannot set cc_enable"
	r0=$(retx) m0=$(sroce_ctr ecn_marked_packets) s0=$(sroce_ctr cnp_sent)
	c0=$(sroce_ctr cnp_received) d0=$(sroce_ctr rate_decreases)
	bottleneck
	sroce_barrier "$tag-wire"
	CC_PERF=ok
	if [[ ${4:-} == may-fail ]]; then
		(perf ib_write_bw "$tag" "$3" 65536 40 -q 16) || CC_PERF=failed
	else
		perf ib_write_bw "$tag" "$3" 65536 40 -q 16
	fi
	sroce_barrier "$tag-done"
	wire_clean
	v="$(($(retx) - r0)) $(($(sroce_ctr ecn_marked_packets) - m0))"
	v+=" $(($(sroce_ctr cnp_sent) - s0)) $(($(sroce_ctr cnp_received) - c0))"
	v+=" $(($(sroce_ctr rate_decreases) - d0))"
	sroce_put "$tag-ctr-$SROCE_ROLE" "$v"
	if is_a; then
		read -r _ CC_MARKS CC_CNP_TX _ _ <<<"$v"
		read -r CC_RETX _ _ CC_CNP_RX CC_CUTS <<<"$(sroce_get "$tag-ctr-b")"
	else
		read -r CC_RETX _ _ CC_CNP_RX CC_CUTS <<<"$v"
		read -r _ CC_MARKS CC_CNP_TX _ _ <<<"$(sroce_get "$tag-ctr-a")"
	fi
	log "$tag: 16 QPs through 50 Mb/s fq_codel+ECN: perftest $CC_PERF, retransmits+timeouts $CC_RETX, CE marks $CC_MARKS, CNPs sent $CC_CNP_TX received $CC_CNP_RX, rate cuts $CC_CUTS"
}

run cc-off N 18871 may-fail
off_retx=$CC_RETX off_perf=$CC_PERF
((CC_CNP_TX == 0 && CC_CNP_RX == 0 && CC_CUTS == 0 && CC_MARKS == 0)) ||
	fail "CC off: CE marks or CNPs seen"

run cc-on Y 18872
((CC_MARKS > 0)) || fail "CC on: the queue marked nothing"
((CC_CNP_TX > 0)) || fail "CC on: no CNP sent for $CC_MARKS CE marks"
((CC_CNP_RX > 0)) || fail "CC on: no CNP received"
((CC_CUTS > 0)) || fail "CC on: no rate cut"
log "retransmits+timeouts through the bottleneck: CC off $off_retx (perftest $off_perf), CC on $CC_RETX"

# Every byte right with CC on, 16 QPs through the same bottleneck.
bottleneck
sroce_barrier cc-int-wire
rel_integrity_bg cc-integrity 18873 --seed 18873 --ops 200 --bytes 4M \
	--max-size 256K --qps 16
rel_integrity_wait cc-integrity
sroce_barrier cc-int-done
wire_clean
