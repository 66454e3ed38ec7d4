#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench` (scripts/bench.sh): run each perftest case of
# SROCE_BENCH_CASES between the guests, server in a, client in b.  Guest b
# appends "start CASE" / "end CASE" to $SROCE_OUT/marks (the host samples
# the QEMU processes' CPU time at each mark) and one line per case to
# $SROCE_OUT/results:  CASE STATUS BYTES BW_MBps MPPS LAT_US
# Each guest also leaves $SROCE_OUT/CASE.ctrs: the device counters that
# moved during the case, "NAME +N" (sroce_ctr_delta, tests/vm/lib.sh),
# and $SROCE_OUT/CASE.cpu: the guest's context switches and CPU time
# (user, system, softirq, idle, in ms) during the case.
# A case is NAME:TOOL:SIZE:QPS:LOSS[:MTU[:SMP[:CC]]], e.g.
# write_bw_64k:ib_write_bw:65536:1:0 or write_bw_64k_mtu9k:...:0:9000.
# CC "on" or "off": guest b's egress is a 50 Mb/s tbf whose queue is
# fq_codel with ECN marking, and sroce's cc_enable is set so for the case
# (Documentation/congestion.rst); the retransmits land in CASE.ctrs.
# MTU (default 1500) is set on SROCE_IF in both guests for the case and
# perftest gets the RoCE MTU that goes with it (-m); SMP is the vCPUs per
# guest the case is meant for: scripts/bench.sh boots the pair with them,
# here it is only checked.
. "$SROCE_TOP/tests/vm/lib.sh"

secs=${SROCE_BENCH_SECS:-3}
# SROCE_BENCH_PARAMS="NAME=VALUE ...": sroce module parameters (writable
# ones) set before the cases, for a before/after figure of one switch.
if [[ $SROCE_DRIVER == sroce ]]; then
	for kv in ${SROCE_BENCH_PARAMS:-}; do
		echo "${kv#*=}" >"/sys/module/sroce/parameters/${kv%%=*}" ||
			fail "cannot set sroce parameter $kv"
		log "sroce ${kv%%=*}=$(cat "/sys/module/sroce/parameters/${kv%%=*}")"
	done
fi
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no GID for $SROCE_ADDR"
port=18500
base_mtu=$(cat "/sys/class/net/$SROCE_IF/mtu")
# The guest's symbol copy runs beside the first script (tools/vm/guest):
# a case must not share the vCPU with it.
for ((i = 0; i < 300 && ${SROCE_VM_SYMS_PID:-0} > 0; i++)); do
	kill -0 "$SROCE_VM_SYMS_PID" 2>/dev/null || break
	sleep 0.2
done
((i == 0)) || log "waited $((i / 5)).$((i % 5 * 2)) s for the symbol copy"
: >"$SROCE_OUT/marks"
: >"$SROCE_OUT/results"

# perftest prints a header line then a value line; pick columns by name.
# A bandwidth figure is the #iterations completed inside -D's sample,
# which SIGALRM bounds, over its seconds.  perftest's own divides by TSC
# cycles over a CPU frequency it estimates by sampling at start-up: under
# TCG that estimate strays (by up to a quarter, mostly with two vCPUs)
# or fails ("r^2 < 0.9", 0.00 MB/s).  Its own figure stays in CASE.log.
# Both are MiB/s (perftest's MB is 2^20 bytes).  A latency figure is
# counted the same way, as perftest's -D t_avg is: the sample's seconds
# over the iterations, halved where the tool ping-pongs (SEND, WRITE);
# with a failed estimate perftest printed "inf".  $2: the tool.
parse() {
	awk -v secs="$secs" -v tool="$2" '
	/^ *#bytes/ {
		gsub(/BW /, "")		# "BW peak[MB/sec]" is one column
		for (i = 1; i <= NF; i++) col[$i] = i
		hdr = 1; next
	}
	hdr && $1 ~ /^[0-9]+$/ {
		iters = $(col["#iterations"])
		bytes = $1 * iters
		bw = mpps = "-"
		if ("average[MB/sec]" in col) {
			bw = sprintf("%.2f", bytes / 1048576 / secs)
			mpps = sprintf("%.6f", iters / secs / 1e6)
		}
		lat = "-"
		if ("t_avg[usec]" in col) {
			if (iters <= 0) exit	# no round trip: the case failed
			rtt = tool ~ /_(read|atomic)_lat$/ ? 1 : 2
			lat = sprintf("%.2f", secs * 1e6 / rtt / iters)
		}
		print bytes, bw, mpps, lat; exit
	}' "$1"
}

# The RoCE MTU (active_mtu) a netdev MTU gives, as both drivers derive
# it: the largest IB MTU that fits with the RoCEv2 headers (sroce
# reserves 92 bytes, rxe 80).
roce_mtu() {
	local m
	for m in 4096 2048 1024 512 256; do
		(($1 - 92 >= m)) && { echo $m; return; }
	done
	echo 256
}

# The port's active_mtu, from ibv_devinfo ("active_mtu: 4096 (5)").
port_mtu() {
	ibv_devinfo -d "$SROCE_DEV" -i 1 2>/dev/null | awk '$1 == "active_mtu:" { print $2 }'
}

# set_mtu MTU: set the NIC's MTU and wait, bounded, until the RDMA port's
# active_mtu follows and our RoCE v2 GID is in place again.  The caller's
# next barrier makes sure the peer has done the same.
set_mtu() {
	local want i am='' t0
	want=$(roce_mtu "$1")
	t0=$(date +%s%N)
	ip link set "$SROCE_IF" mtu "$1" || fail "cannot set $SROCE_IF mtu $1"
	for ((i = 0; i < 100; i++)); do
		am=$(port_mtu) || am=
		[[ $am == "$want" ]] && sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR" >/dev/null && break
		sleep 0.1
	done
	[[ $am == "$want" ]] || log "$SROCE_DEV active_mtu ${am:-?} after $SROCE_IF mtu $1 (expected $want)"
	gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no GID for $SROCE_ADDR after mtu $1"
	log "$SROCE_IF mtu $1, $SROCE_DEV active_mtu ${am:-?} after $((($(date +%s%N) - t0) / 1000000)) ms"
}

# Where the guest's CPU went during a case, from /proc/stat: context
# switches and the user, system, softirq and idle time (ms).  Tells a
# driver that works in the receive softirq (rdma_rxe's tasklets up to
# about 6.3) from one that hands work to kworkers (context switches).
# And the virtio NIC's transmit queues (ethtool -S): packets sent and
# kicks (notifications to the host), which batched transmit saves.
cpu_stat() {
	awk -v hz="$(getconf CLK_TCK)" '
	$1 == "cpu" { printf "user_ms %.0f\nsys_ms %.0f\nsoftirq_ms %.0f\nidle_ms %.0f\n",
		($2 + $3) * 1000 / hz, $4 * 1000 / hz, $8 * 1000 / hz, $5 * 1000 / hz }
	$1 == "ctxt" { print "ctxt", $2 }' /proc/stat
	ethtool -S "$SROCE_IF" 2>/dev/null | awk '
	$1 ~ /^tx_queue_[0-9]+_packets:$/ { p += $2 }
	$1 ~ /^tx_queue_[0-9]+_kicks:$/ { k += $2 }
	END { print "nic_tx_packets", p + 0; print "nic_tx_kicks", k + 0 }'
}

# After a failure, the device's counters (retransmits, timeouts, NAKs,
# drops by reason) and the QPs left behind, to tell a stall from a crawl.
stats() {
	echo "--- counters of $SROCE_DEV (sroce_ctrs)"
	sroce_ctrs "$SROCE_DEV"
	echo "--- rdma resource show qp"
	rdma resource show qp 2>&1 | head -40
}

for c in ${SROCE_BENCH_CASES:?}; do
	IFS=: read -r name tool size qps loss mtu smp cc <<<"$c"
	mtu=${mtu:-$base_mtu}
	[[ ${smp:-1} == "$(nproc)" ]] || log "$name is for ${smp:-1} vCPUs, this guest has $(nproc)"
	port=$((port + 1))
	[[ $mtu != "$base_mtu" ]] && set_mtu "$mtu"
	# -f 0: the sample is the whole -D.  perftest's default margin is a
	# quarter of -D, rounded down, at each end: none below 4 s, but
	# SROCE_BENCH_SECS=4 would sample 2 s where parse() counts 4.
	args=(-d "$SROCE_DEV" -x "$gid" -p "$port" -s "$size" -D "$secs" -f 0 -F)
	[[ $mtu != "$base_mtu" ]] && args+=(-m "$(roce_mtu "$mtu")")
	# perftest signals one WQE in 100 (--cq-mod); with many QPs sharing
	# the bandwidth fairly, none reaches 100 inside a 3 s sample and the
	# run reads 0.  Signal each WQE when there are several QPs.  And
	# perftest fills every QP's send queue (-t, 128) before it first
	# polls: 16 QPs of 64 KiB writes kept the client's one vCPU busy past
	# the end of the sample, which then counted nothing (performance.rst,
	# "The 16-QP case").  Keep 128 WQEs in flight in all, as with one QP.
	((qps > 1)) && args+=(-q "$qps" -Q 1 -t $((128 / qps > 0 ? 128 / qps : 1)))
	# SROCE_BENCH_ARGS: extra perftest options for every case, for a
	# before/after figure (-o 16 repeats an older device's READ depth).
	# shellcheck disable=SC2206
	args+=(${SROCE_BENCH_ARGS:-})
	# perftest's latency tools have no message-rate column; bw ones do.
	tc qdisc del dev "$SROCE_IF" root 2>/dev/null || true
	[[ $loss != 0 ]] && tc qdisc add dev "$SROCE_IF" root netem loss "$loss%"
	if [[ -n ${cc:-} ]]; then
		v=N
		[[ $cc == on ]] && v=Y
		[[ $SROCE_DRIVER == sroce ]] &&
			echo "$v" >/sys/module/sroce/parameters/cc_enable
		if is_b; then
			tc qdisc add dev "$SROCE_IF" root handle 1: tbf rate 50mbit \
				burst 16k latency 50ms
			tc qdisc add dev "$SROCE_IF" parent 1:1 handle 10: \
				fq_codel ecn
		fi
	fi
	sroce_ctrs "$SROCE_DEV" >"$SROCE_OUT/$name.ctr0"
	cpu_stat >"$SROCE_OUT/$name.cpu0"
	sroce_barrier "case.$name"
	if is_a; then
		timeout $((secs + 60)) "$tool" "${args[@]}" >"$SROCE_OUT/$name.log" 2>&1 ||
			stats >>"$SROCE_OUT/$name.log"
		sroce_barrier "done.$name"
	else
		sleep 1	# let the server listen
		echo "start $name" >>"$SROCE_OUT/marks"
		sleep 0.3	# the host samples every 0.1 s
		st=0
		timeout $((secs + 60)) "$tool" "${args[@]}" "$SROCE_PEER" \
			>"$SROCE_OUT/$name.log" 2>&1 || st=$?
		echo "end $name" >>"$SROCE_OUT/marks"
		sleep 0.3
		if ((st == 0)) && r=$(parse "$SROCE_OUT/$name.log" "$tool") && [[ -n $r ]]; then
			echo "$name ok $r" >>"$SROCE_OUT/results"
		else
			echo "$name fail - - - -" >>"$SROCE_OUT/results"
			stats >>"$SROCE_OUT/$name.log"
			log "$name failed (exit $st):"
			tail -5 "$SROCE_OUT/$name.log" >&2
		fi
		sroce_barrier "done.$name"
	fi
	sroce_ctrs "$SROCE_DEV" >"$SROCE_OUT/$name.ctr1"
	cpu_stat >"$SROCE_OUT/$name.cpu1"
	[[ $mtu != "$base_mtu" ]] && set_mtu "$base_mtu"
	if [[ -n ${cc:-} && $SROCE_DRIVER == sroce ]]; then
		echo Y >/sys/module/sroce/parameters/cc_enable
	fi
	sroce_ctr_delta "$SROCE_OUT/$name.ctr0" "$SROCE_OUT/$name.ctr1" >"$SROCE_OUT/$name.ctrs"
	rm -f "$SROCE_OUT/$name.ctr0" "$SROCE_OUT/$name.ctr1"
	awk 'FNR == NR { v[$1] = $2; next } { print $1, $2 - v[$1] }' \
		"$SROCE_OUT/$name.cpu0" "$SROCE_OUT/$name.cpu1" >"$SROCE_OUT/$name.cpu"
	rm -f "$SROCE_OUT/$name.cpu0" "$SROCE_OUT/$name.cpu1"
done
tc qdisc del dev "$SROCE_IF" root 2>/dev/null || true
exit 0
