#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The counters of "rdma statistic show link" add up.  First without loss:
# every packet one guest sent, the other counted, accepted (rx_packets) or
# dropped by reason (rx_drop_*), exactly.  Then with 5 % loss on both
# egresses: the RC QPs must have recovered (retransmits, timeouts or NAKs
# counted), and the counts survive the QPs, which are gone when read.
# The clean half also checks zero-copy transmit: its packets are counted
# and pass the peer's ICRC check; and direct transmit: taken on a plain
# wire, seen by a packet tap, never past the lossy half's netem.
#
# The lossy half runs tests/vm/verbs/integrity.c, not ibv_rc_pingpong.
# The pingpong server exits as soon as its own last SEND is acknowledged;
# when the ACK of the client's last SEND is the packet lost (at most one
# run in twenty at 5 %), the client retransmits to a QP that no longer
# exists and ends in RETRY_EXC_ERR.  CI hit that once, with the server
# done and the wire up.  integrity.c destroys its QPs only after both
# sides have said over TCP that they are done, and checks every byte.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/pingpong.lib"
. "$SROCE_TOP/tests/vm/datapath/integrity.lib"

[[ $SROCE_DRIVER == sroce ]] || skip "sroce counters (driver is $SROCE_DRIVER)"
trap 'rc=$?; tc qdisc del dev "$SROCE_IF" root 2>/dev/null || true; (exit $rc); _dp_exit' EXIT

# moved ERE: how far the counters named ERE moved in the clean run.
moved() {
	sroce_ctr_moved "$SROCE_OUT/c0" "$SROCE_OUT/c1" "$1"
}

# A packet tap (tcpdump's kind) must see every packet sent, however it
# left (net_direct.c feeds the taps itself).
tap=$SROCE_OUT/tap
rm -f "$tap.ready" "$tap.stop"
python3 "$SROCE_TOP/tests/vm/datapath/net-tap.py" "$SROCE_IF" "$tap.ready" "$tap.stop" >"$tap.out" &
tap_pid=$!
for ((i = 0; i < 300; i++)); do [[ -e $tap.ready ]] && break; sleep 0.1; done
[[ -e $tap.ready ]] || fail "the packet tap did not start"
# The neighbour's timers shortened, so that the entry passes through
# STALE, DELAY or PROBE within the run: the direct path must keep its
# packets there too (net_direct.c).  That the peer's answers keep it
# REACHABLE (net.c) is not asserted: the run is too short for a probe.
nsys=net.ipv4.neigh.$SROCE_IF
old_reach=$(sysctl -n "$nsys.base_reachable_time_ms")
old_delay=$(sysctl -n "$nsys.delay_first_probe_time")
sysctl -qw "$nsys.base_reachable_time_ms=500" "$nsys.delay_first_probe_time=1"
sroce_ctrs "$DEV" >"$SROCE_OUT/c0"
pingpong rc cnt-clean 18900 "$G4" 100 4500
sysctl -qw "$nsys.base_reachable_time_ms=$old_reach" "$nsys.delay_first_probe_time=$old_delay"
neigh=$(ip neigh show dev "$SROCE_IF" to "$SROCE_PEER" | head -1)
sroce_ctrs "$DEV" >"$SROCE_OUT/c1"
touch "$tap.stop"
wait "$tap_pid" || fail "the packet tap failed"
read -r tapped tap_drops arp <"$tap.out"
tx=$(moved tx_packets)
rx=$(moved rx_packets)
drop=$(moved 'rx_drop_.*')
sroce_put clean "$tx $rx $drop"
read -r ptx _ _ <<<"$(sroce_get clean)"
log "no loss: sent $tx, received $rx + dropped $drop; peer sent $ptx"
((tx > 200)) || fail "only $tx packets counted sent for 100 x 4500 B round trips"
((rx + drop == ptx)) || fail "peer sent $ptx, here $rx accepted + $drop dropped"
# Deltas: earlier scripts of the boot (backpressure.sh) move tx_dropped.
(($(moved 'tx_(no_route|dropped|no_mem)') == 0)) ||
	fail "transmit errors counted: before $(grep -E '^tx_(no|dr)' "$SROCE_OUT/c0" | tr '\n' ' '), after $(grep -E '^tx_(no|dr)' "$SROCE_OUT/c1" | tr '\n' ' ')"
# Each 4500-byte SEND is five packets of at least 256 payload bytes from a
# user MR: all go out as page fragments (net.c, zero-copy transmit) if
# the NIC gathers fragments, none if it does not (the stack would copy
# them into one buffer again); either way the peer's ICRC check passed
# every one of them (the sum above).  datapath/net-loopback.sh sees the
# fragments go through lo, which gathers.
sg=$(ethtool -k "$SROCE_IF" | awk '$1 == "scatter-gather:" { print $2 }')
zc=$(moved tx_zcopy_packets)
bad=$(moved rx_drop_bad_icrc)
log "no loss: $zc packets sent as page fragments ($SROCE_IF scatter-gather ${sg:-?}), $bad bad ICRCs received"
case $sg in
on) ((zc >= 500)) || fail "only $zc of 100 x 5 SEND packets sent as page fragments (zcopy=$(cat /sys/module/sroce/parameters/zcopy))" ;;
off) ((zc == 0)) || fail "$zc packets sent as page fragments to $SROCE_IF, which cannot gather them" ;;
*) fail "cannot read $SROCE_IF's scatter-gather feature (ethtool -k)" ;;
esac
((bad == 0)) || fail "$bad packets dropped here for a bad ICRC"
# Nothing on this wire acts on our packets (no netfilter rule, tc filter
# or qdisc of our own): they go to the driver directly (net_direct.c),
# bar a few the qdisc held while the driver's queue was full, whatever
# state the neighbour entry passed through with its address known.
direct=$(moved tx_direct_packets)
log "no loss: $direct of $tx packets handed to the driver directly (neighbour: $neigh)"
((direct * 10 >= tx * 9)) || fail "only $direct of $tx packets sent directly (tx_direct=$(cat /sys/module/sroce/parameters/tx_direct), qdisc $(tc qdisc show dev "$SROCE_IF" | head -1), neighbour $neigh)"
# Not asserted: once the run ends nothing confirms the neighbour, and a
# probe may leave before the tap stops.
log "no loss: $arp ARP requests sent while the tap ran"
log "no loss: a packet tap saw $tapped of $tx packets sent ($tap_drops dropped by its socket)"
((tap_drops == 0)) || fail "the tap's socket dropped $tap_drops frames"
((tapped == tx)) || fail "a packet tap saw $tapped of the $tx packets sent"
sroce_barrier clean.checked

tc qdisc add dev "$SROCE_IF" root netem loss 5%
integrity_pair cnt-loss 180 18901 4 --seed 7 --qps 1 --ops 100 --bytes 256K --max-size 8K
tc qdisc del dev "$SROCE_IF" root
sroce_ctrs "$DEV" >"$SROCE_OUT/c2"
rec=$(sroce_ctr_moved "$SROCE_OUT/c1" "$SROCE_OUT/c2" 'retransmits|timeouts|seq_naks_rcvd|duplicate_requests')
# netem is a qdisc of our own: every packet must have gone through it.
ndirect=$(sroce_ctr_moved "$SROCE_OUT/c1" "$SROCE_OUT/c2" tx_direct_packets)
((ndirect == 0)) || fail "$ndirect packets sent past netem directly"
sroce_put loss "$rec"
prec=$(sroce_get loss)
log "5 % loss: recovery events here $rec, peer $prec ($(grep -E '^(retransmits|timeouts|seq_naks|duplicate)' "$SROCE_OUT/c2" | tr '\n' ' '))"
((rec + prec > 0)) || fail "no retransmit, timeout, NAK or duplicate counted under 5 % loss"
