#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown under traffic: whatever is pulled out from under a transfer,
# every process ends within a bound and nothing leaks.  Perftest runs
# between the guests while one side pulls something out from under it:
#
#   kill-server   kill -9 of the receiving ib_send_bw mid-transfer: the
#                 sender must end with an error completion (its QP's peer
#                 is gone), not hang
#   kill-client   kill -9 of the requesting ib_read_bw: the other side
#                 ends (perftest's TCP channel closes)
#   link-flap     the netdev of guest b down for 2 s, then up
#   mtu           guest b's netdev MTU 1500 -> 600 -> 1500 (below the
#                 QPs' path MTU for a while)
#   link-delete   "rdma link delete" in guest b: its client's WRs must
#                 complete with IBV_WC_WR_FLUSH_ERR
#   netdev-delete the macvlan a device sits on deleted in guest b: the
#                 same
#   unload        after all that, rdma link delete and module unload in
#                 both guests, then back
#
# In every case both sides must exit within a bound, the side that lost
# its device or peer with an error (or, for the flap and the MTU change,
# with success if the QPs rode it out), and afterwards every verbs object
# is gone (rdma resource show), a fresh transfer works where the device
# still exists, and the kernel log is clean: no WARN, no "object(s)
# leaked" from the module's own accounting (tools/vm/kmsg-scan).
. "$SROCE_TOP/tests/vm/reliability/reliability.lib"

PT=(-F -s 65536 -Q 1)
[[ $SROCE_DRIVER == sroce ]] || skip "the driver here is $SROCE_DRIVER"

# bg NAME CMD...: CMD in the background, output in $SROCE_OUT/NAME.out.
bg() {
	local name=$1
	shift
	"$@" >"$SROCE_OUT/$name.out" 2>&1 &
	BG_PID=$!
}

# bounded NAME PID SECS: wait for PID at most SECS; a hang fails the test.
# Sets RC to its exit status.
bounded() {
	local name=$1 pid=$2 secs=$3 i
	for ((i = 0; i < secs * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		sed "s/^/  $name: /" "$SROCE_OUT/$name.out" >&2
		kill -9 "$pid" 2>/dev/null
		fail "$name: still running ${secs}s later: a hang"
	fi
	RC=0
	wait "$pid" || RC=$?
}

# traffic_started DEV BEFORE: DEV has sent 50 packets since BEFORE.
traffic_started() {
	sroce_ctr_wait tx_packets $(($2 + 51)) 30 "$1" ||
		fail "no traffic on $1 30 s after the start"
}

# readdr: the IPv6 address the harness gave SROCE_IF, again: IPv6 drops
# it when the link goes down and when the MTU falls below 1280.
readdr() {
	[[ $(ip -6 addr show dev "$SROCE_IF") == *" ${SROCE_ADDR6}/"* ]] ||
		ip -6 addr add "$SROCE_ADDR6/64" dev "$SROCE_IF" nodad ||
		fail "cannot restore $SROCE_ADDR6"
}

# perftest_pair NAME TOOL PORT SECS [DEV GID PEER]: TOOL's server in a,
# client in b, both in the background (BG_PID), the client started once
# the server listens.  Returns once traffic flows.
perftest_pair() {
	local name=$1 tool=$2 port=$3 secs=$4 dev=${5:-$DEV} gid=${6:-$G4}
	local peer=${7:-$SROCE_PEER} t0
	t0=$(sroce_ctr tx_packets "$dev")
	snap "$name" "$dev"
	if is_a; then
		bg "$name" "$tool" -d "$dev" -x "$gid" -p "$port" -D "$secs" "${PT[@]}"
		sroce_wait_port "$port"
		sroce_put "$name-up" 1
	else
		sroce_get "$name-up" 60 >/dev/null
		bg "$name" "$tool" -d "$dev" -x "$gid" -p "$port" -D "$secs" "${PT[@]}" "$peer"
	fi
	traffic_started "$dev" "$t0"
}

# A completion error as perftest reports it ("Failed status 12: ...").
error_completion() {
	grep -Eqi 'failed status|completion with error' "$SROCE_OUT/$1.out"
}

# why NAME: perftest's words for how NAME ended.
why() {
	grep -Eim1 "failed status|couldn't post" "$SROCE_OUT/$1.out" ||
		grep -Eim1 'error|fail' "$SROCE_OUT/$1.out" || echo "no message"
}

# tcp_ctrs: this guest's TCP counters, NAME=VALUE a line.
tcp_ctrs() {
	awk '$1 == "Tcp:" || $1 == "TcpExt:" {
		if (!($1 in hdr)) { hdr[$1] = $0; next }
		n = split(hdr[$1], k)
		for (i = 2; i <= n; i++)
			print k[i] "=" $i
	}' /proc/net/snmp /proc/net/netstat
}

# snap NAME DEV: the device's counters and TCP's as case NAME starts.
snap() {
	sroce_ctrs "$2" >"$SROCE_OUT/$1.ctr0"
	tcp_ctrs >"$SROCE_OUT/$1.tcp0"
}

# moved NAME [DEV]: on stderr, what moved since snap NAME DEV (default
# $DEV, as in perftest_pair): the device's counters, and TCP's resets,
# aborts and retransmissions.  perftest's side channel is TCP, and a
# failed exchange there says nothing of why.
moved() {
	sroce_ctrs "${2:-$DEV}" >"$SROCE_OUT/$1.ctr1"
	tcp_ctrs >"$SROCE_OUT/$1.tcp1"
	{
		sroce_ctr_delta "$SROCE_OUT/$1.ctr0" "$SROCE_OUT/$1.ctr1"
		sroce_ctr_delta "$SROCE_OUT/$1.tcp0" "$SROCE_OUT/$1.tcp1" |
			grep -E '^[A-Za-z]*(Rst|Reset|Abort|RetransSegs|TCPTimeouts)' || true
	} | tr '\n' ' ' | sed "s/^/  $1: moved since the start: /" >&2
	echo >&2
}

# survived NAME: the run that had the wire disturbed under it (client in
# b) either rode it out or reported an error completion; the passive
# side in a just has to end.  The client failing with no error
# completion shows what moved in the device's counters and TCP's (the
# passive side too, whenever it ends with an error), so that such a
# failure says whether the QP or perftest's side channel gave up.
survived() {
	local name=$1
	bounded "$name" "$BG_PID" 90
	if is_a; then
		((RC == 0)) || moved "$name"
		log "$name: the passive side ended with rc $RC"
	elif ((RC == 0)); then
		log "$name: the QPs rode it out"
	else
		error_completion "$name" || {
			cat "$SROCE_OUT/$name.out" >&2
			moved "$name"
			fail "$name: rc $RC without an error completion"
		}
		log "$name: ended with an error completion: $(why "$name")"
	fi
}

# lost_device NAME: the client whose device was just removed under it
# ends promptly, told either by its posted WRs completing flushed
# (destroy_qp flushes a user QP that device removal takes away:
# IBV_WC_WR_FLUSH_ERR, status 5) or, posting after the removal, by
# ibv_post_send failing (the doorbell's EIO).
lost_device() {
	bounded "$1" "$BG_PID" 60
	grep -Eq "Failed status 5:|Couldn't post send" "$SROCE_OUT/$1.out" ||
		{ cat "$SROCE_OUT/$1.out" >&2; fail "$1: rc $RC, no flushed completion nor failed post"; }
	log "$1: the client whose device went ended with rc $RC: $(why "$1")"
}

# fresh NAME PORT: a short transfer completes on the device as it is now.
fresh() {
	local name=$1 port=$2
	if is_a; then
		bg "$name" ib_write_bw -d "$DEV" -x "$G4" -p "$port" -n 50 "${PT[@]}"
		sroce_wait_port "$port"
		sroce_put "$name-up" 1
	else
		sroce_get "$name-up" 60 >/dev/null
		bg "$name" ib_write_bw -d "$DEV" -x "$G4" -p "$port" -n 50 "${PT[@]}" "$SROCE_PEER"
	fi
	bounded "$name" "$BG_PID" 90
	((RC == 0)) || { sed "s/^/  $name: /" "$SROCE_OUT/$name.out" >&2; fail "$name: a fresh transfer failed"; }
	log "$name: a fresh transfer afterwards: ok"
}

# clean TAG: every verbs object of this guest is gone.
clean() {
	dp_resources_clean || fail "$1: verbs objects left behind"
}

sroce_wait_port() {
	local i
	for ((i = 0; i < 300; i++)); do
		ss -ltn "sport = :$1" 2>/dev/null | grep -q LISTEN && return 0
		sleep 0.1
	done
	fail "nothing listens on port $1"
}

ping -c 1 -W 5 "$SROCE_PEER" >/dev/null || fail "cannot ping $SROCE_PEER: the wire is dead"

# --- kill -9 of the receiver ---------------------------------------------
perftest_pair kill-server ib_send_bw 18861 30
sroce_barrier kill-server-flowing
if is_a; then
	kill -9 "$BG_PID"
	wait "$BG_PID" 2>/dev/null || true
	log "kill-server: ib_send_bw server killed mid-transfer"
else
	bounded kill-server "$BG_PID" 60
	((RC != 0)) || fail "kill-server: the sender exited 0 with its peer killed"
	error_completion kill-server || { cat "$SROCE_OUT/kill-server.out" >&2; fail "kill-server: no error reported"; }
	log "kill-server: the sender ended with rc $RC: $(why kill-server)"
fi
clean kill-server
sroce_barrier kill-server-done

# --- kill -9 of the requester --------------------------------------------
perftest_pair kill-client ib_read_bw 18862 30
sroce_barrier kill-client-flowing
if is_b; then
	kill -9 "$BG_PID"
	wait "$BG_PID" 2>/dev/null || true
	log "kill-client: ib_read_bw client killed mid-transfer"
else
	bounded kill-client "$BG_PID" 60
	log "kill-client: the responder's perftest ended with rc $RC"
fi
clean kill-client
sroce_barrier kill-client-done

# --- netdev down and up --------------------------------------------------
perftest_pair link-flap ib_write_bw 18863 10
sroce_barrier link-flap-flowing
if is_b; then
	ip link set "$SROCE_IF" down
	sleep 2
	ip link set "$SROCE_IF" up
fi
survived link-flap
sroce_barrier link-flap-ended
readdr
for ((i = 0; i < 100; i++)); do
	ping -c 1 -W 1 "$SROCE_PEER" >/dev/null && break
done
clean link-flap
fresh link-flap-fresh 18864
sroce_barrier link-flap-done

# --- MTU below the path MTU and back -------------------------------------
perftest_pair mtu ib_write_bw 18865 10
sroce_barrier mtu-flowing
if is_b; then
	ip link set "$SROCE_IF" mtu 600
	sleep 2
	ip link set "$SROCE_IF" mtu 1500
fi
survived mtu
sroce_barrier mtu-ended
readdr
clean mtu
fresh mtu-fresh 18866
sroce_barrier mtu-done

# --- rdma link delete ----------------------------------------------------
# The removals run with a duration no run reaches: the client must end
# because its device went, never because its time was up (under a
# loaded host the barrier alone can outlast a short one).
perftest_pair link-delete ib_write_bw 18867 600
sroce_barrier link-delete-flowing
if is_b; then
	timeout 30 rdma link delete "$DEV" || fail "link-delete: rdma link delete blocked or failed"
	lost_device link-delete
	dp_relink link-delete
else
	bounded link-delete "$BG_PID" 60
	log "link-delete: the passive side ended with rc $RC"
fi
sroce_barrier link-delete-ended
clean link-delete
fresh link-delete-fresh 18868
sroce_barrier link-delete-done

# --- netdev deletion: a device on a macvlan ------------------------------
# Addresses .1xx of the guests' /24, host routes over the macvlans; eth0
# must not answer ARP for them (arp_ignore), so the traffic really takes
# the macvlans.
mine=${SROCE_ADDR%.*}.$((${SROCE_ADDR##*.} + 100))
peer=${SROCE_PEER%.*}.$((${SROCE_PEER##*.} + 100))
old_ignore=$(sysctl -n net.ipv4.conf.all.arp_ignore)
sysctl -qw net.ipv4.conf.all.arp_ignore=1
ip link add tdmv0 link "$SROCE_IF" type macvlan mode bridge || fail "cannot add a macvlan"
ip addr add "$mine/32" dev tdmv0
ip link set tdmv0 up
ip route add "$peer/32" dev tdmv0
rdma link add sroce_mv type sroce netdev tdmv0 || fail "rdma link add on a macvlan failed"
mvgid=
for ((i = 0; i < 100; i++)); do
	mvgid=$(sroce_gid_index sroce_mv "$mine" 2>/dev/null) && break
	sleep 0.1
done
[[ -n $mvgid ]] || fail "no GID for $mine on sroce_mv"
sroce_barrier mv-up
ping -c 1 -W 5 "$peer" >/dev/null || fail "cannot ping $peer over the macvlans"
# perftest's TCP channel over eth0: a TCP peer whose route and address
# vanish with the macvlan never hears of the close.
perftest_pair netdev-delete ib_write_bw 18869 600 sroce_mv "$mvgid"
sroce_barrier netdev-delete-flowing
if is_b; then
	ip link del tdmv0 || fail "cannot delete the macvlan"
	for ((i = 0; i < 300; i++)); do
		[[ -e /sys/class/infiniband/sroce_mv ]] || break
		sleep 0.1
	done
	[[ ! -e /sys/class/infiniband/sroce_mv ]] || fail "sroce_mv still there 30 s after its netdev went"
	lost_device netdev-delete
else
	bounded netdev-delete "$BG_PID" 60
	log "netdev-delete: the passive side ended with rc $RC"
	ip link del tdmv0 || fail "cannot delete the macvlan"
fi
sysctl -qw net.ipv4.conf.all.arp_ignore="$old_ignore"
[[ ! -e /sys/class/infiniband/sroce_mv ]] || fail "sroce_mv survived its netdev"
clean netdev-delete
sroce_barrier netdev-delete-done

# --- module unload after all that, then back -----------------------------
timeout 30 rdma link delete "$DEV" || fail "unload: rdma link delete failed"
timeout 60 modprobe -r sroce || fail "unload: modprobe -r sroce failed or blocked"
! grep -qw '^sroce' /proc/modules || fail "unload: sroce still loaded"
sroce_kmsg_check || fail "unload: the kernel log has a report"
modprobe sroce || fail "unload: modprobe sroce failed"
dp_relink unload
log "unload: link delete, module unload and reload after the traffic: ok"
sroce_barrier unload-done
