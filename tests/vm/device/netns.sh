#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Network namespaces, in ib_core's exclusive mode: a device added inside
# a namespace binds to that namespace's netdev and opens its own UDP 4791
# socket there (while init_net has its own, for its own device); RC
# traffic (ibv_rc_pingpong, ib_write_bw, rping over rdma_cm) runs between
# two namespaces joined by a veth pair; a third namespace sees neither
# device; "rdma dev set ... netns" moves a device there and back; the
# exit of a namespace removes the devices on its netdevs and completes.
# Documentation/net.rst, "Namespaces", says what each kernel does.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"

NS=(sna snb snc)
A4=10.77.0.1
B4=10.77.0.2
# port 4791 as /proc/net/udp prints it
UDP_4791=':12B7 '

shared_again() { rdma system set netns shared 2>/dev/null; }
cleanup() {
	local n
	for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null || true; done
	sd_reset
	# The scripts after this one expect the default mode; it can only
	# come back once the namespaces finished exiting.
	sd_wait shared_again 60 || true
}
trap cleanup EXIT
sd_reset

in_ns() { ip netns exec "$@"; }

# ns_devs NS: the RDMA devices a process in NS sees.
ns_devs() { in_ns "$1" rdma dev show | awk -F'[ :]+' '{ print $2 }'; }
ns_sees() { ns_devs "$1" | grep -qx "$2"; }
ns_lacks() { ! ns_sees "$1" "$2"; }

# udp_4791 NS: a socket on UDP 4791 in NS (init for init_net).
udp_4791() {
	if [[ $1 == init ]]; then
		grep -q "$UDP_4791" /proc/net/udp
	else
		in_ns "$1" grep -q "$UDP_4791" /proc/net/udp
	fi
}

# ns_gid NS DEV ADDR: the RoCE v2 GID index of ADDR, read from NS's sysfs.
ns_gid_once() {
	in_ns "$1" bash -c "$(declare -f sroce_gid_index _sroce_expand6)
		sroce_gid_index $2 $3"
}
ns_gid() {
	local i
	for ((i = 0; i < 100; i++)); do
		ns_gid_once "$@" && return 0
		sleep 0.1
	done
	fail "$2 in $1: no RoCE v2 GID for $3"
}

# pair NAME SECS SERVER CLIENT: server in snb, then the client in sna;
# both must exit 0 within SECS.
pair() {
	local name=$1 secs=$2 srv=$3 cli=$4 spid rc=0
	in_ns snb timeout "$secs" $srv >"$SROCE_OUT/$name.srv" 2>&1 &
	spid=$!
	sleep 2
	in_ns sna timeout "$secs" $cli >"$SROCE_OUT/$name.cli" 2>&1 || rc=$?
	wait "$spid" || rc=$((rc ? rc : $?))
	if ((rc)); then
		sed 's/^/  server: /' "$SROCE_OUT/$name.srv" >&2
		sed 's/^/  client: /' "$SROCE_OUT/$name.cli" >&2
		fail "$name between the namespaces failed (rc=$rc)"
	fi
	log "$name: sna -> snb passed"
}

traffic() {
	local ga gb
	ga=$(ns_gid sna sra $A4)
	gb=$(ns_gid snb srb $B4)
	pair "pingpong$1" 60 "ibv_rc_pingpong -d srb -g $gb -n 20" \
		"ibv_rc_pingpong -d sra -g $ga -n 20 $B4"
	[[ -n $1 ]] && return 0
	pair write_bw 90 "ib_write_bw -d srb -x $gb -F -n 50 -s 65536" \
		"ib_write_bw -d sra -x $ga -F -n 50 -s 65536 $B4"
	pair rping 60 "rping -s -a $B4 -C 5 -v" "rping -c -a $B4 -C 5 -v"
}

rdma system set netns exclusive || fail "cannot select the exclusive netns mode"
rdma system show | grep -q 'netns exclusive' ||
	fail "rdma system says '$(rdma system show)', not exclusive"

for n in "${NS[@]}"; do
	ip netns add "$n" || fail "cannot add namespace $n"
	ip -n "$n" link set lo up
done
ip link add sdv0 netns sna type veth peer name sdv1 netns snb ||
	fail "cannot create the veth pair"
ip -n sna addr add $A4/24 dev sdv0
ip -n snb addr add $B4/24 dev sdv1
ip -n sna link set sdv0 up
ip -n snb link set sdv1 up

# init_net keeps its own device and socket next to the namespaces'.
rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "add on $SROCE_IF failed"
sd_need_provider sroce0
udp_4791 init || fail "no UDP 4791 socket in init_net with sroce0 there"
! udp_4791 sna || fail "sna has a UDP 4791 socket before any device"

in_ns sna rdma link add sra type sroce netdev sdv0 || fail "add inside sna failed"
in_ns snb rdma link add srb type sroce netdev sdv1 || fail "add inside snb failed"
expect_fail in_ns snc rdma link add src type sroce netdev sdv0
udp_4791 sna || fail "no UDP 4791 socket in sna after sra"
udp_4791 snb || fail "no UDP 4791 socket in snb after srb"
! udp_4791 snc || fail "snc has a UDP 4791 socket without a device"

# Where a device is born: in its netdev's namespace where ib_core can
# say so (7.x), else in init_net, from where it is moved.
if ns_sees sna sra; then
	log "sra born in sna"
	((${SROCE_KVER%%.*} >= 7)) || fail "sra born in sna on $SROCE_KVER"
	ns_sees snb srb || fail "srb not born in snb"
else
	((${SROCE_KVER%%.*} < 7)) || fail "sra not born in sna on $SROCE_KVER"
	rdma dev show sra >/dev/null || fail "sra is in neither sna nor init_net"
	log "sra born in init_net; moving it and srb to their namespaces"
	rdma dev set sra netns sna || fail "cannot move sra to sna"
	rdma dev set srb netns snb || fail "cannot move srb to snb"
	ns_sees sna sra || fail "sra not in sna after the move"
	ns_sees snb srb || fail "srb not in snb after the move"
fi

# Isolation: each namespace sees its own device only.
for d in sra srb sroce0; do
	ns_lacks snc $d || fail "snc sees $d"
done
ns_lacks sna srb || fail "sna sees srb"
! rdma dev show sra >/dev/null 2>&1 || fail "init_net sees sra"
in_ns snc ibv_devices | grep -qw 'sra\|srb\|sroce0' && fail "ibv_devices in snc lists a device"
in_ns sna ibv_devices | grep -qw sra || fail "ibv_devices in sna does not list sra"
log "isolation: snc sees no device, sna only sra, snb only srb"

traffic ""

# A move to snc and back: ib_core removes and re-adds every client,
# sroce's socket reference included.
in_ns sna rdma dev set sra netns snc || fail "cannot move sra to snc"
ns_sees snc sra || fail "sra not in snc after the move"
ns_lacks sna sra || fail "sna still sees sra after the move"
udp_4791 sna || fail "sna lost its socket while sdv0 still carries sra"
in_ns snc rdma dev set sra netns sna || fail "cannot move sra back to sna"
ns_sees sna sra || fail "sra not back in sna"
traffic "-after-move"

# A namespace's exit: deleting sna takes the veth pair with it, so both
# devices go, and both namespaces' sockets close.
ip netns del sna
gone_everywhere() {
	! rdma dev show "$1" >/dev/null 2>&1 && ns_lacks snb "$1" && ns_lacks snc "$1"
}
sd_wait gone_everywhere 60 sra || fail "sra survived the exit of sna"
sd_wait gone_everywhere 60 srb || fail "srb survived the loss of sdv1"
! udp_4791 snb || fail "snb keeps a UDP 4791 socket without a device"
udp_4791 init || fail "init_net lost the socket of sroce0"
ip netns del snb
ip netns del snc
sd_wait shared_again 60 || fail "the namespaces never finished exiting"
log "namespaces exited; ib_core back in shared mode"
