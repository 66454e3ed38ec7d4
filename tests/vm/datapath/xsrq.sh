#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# XRC end to end: rdma-core's ibv_xsrq_pingpong, server in guest a, client
# in guest b.  Each side opens an XRC domain through a file (O_CREAT),
# makes an XRC SRQ with its CQ, an XRC_RECV (target) and an XRC_SEND
# (initiator) QP, and sends to the peer's SRQ by number (remote_srqn in
# the WR); the receive completions come from the SRQ's CQ.  Both sides
# must finish every round trip and print "success": messages of several
# packets over IPv4 polling, and single-packet ones over IPv6 sleeping on
# completion events.  The tool carries no pattern to check; integrity of
# the payload is the RC path's, tested by integrity.sh.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"

# rdma_rxe has no XRC (interop/xrc.sh); sroce must offer it.
if ! ibv_devinfo -v -d "$DEV" | grep -qw XRC; then
	[[ $SROCE_DRIVER == sroce ]] && fail "$DEV does not advertise XRC"
	skip "$DEV ($SROCE_DRIVER) does not advertise XRC"
fi

# xsrq NAME PORT GID ITERS SIZE [EXTRA...]
xsrq() {
	local name=$1 port=$2 gid=$3 iters=$4 size=$5 out
	shift 5
	local args="-d $DEV -g $gid -p $port -n $iters -s $size -m 1024 $*"

	dp_pair "$name" 90 "tcp:$port" "ibv_xsrq_pingpong $args" \
		"ibv_xsrq_pingpong $args $SROCE_PEER"
	out=$(dp_out "$name")
	grep -qx "success" "$out" ||
		{ cat "$out" >&2; fail "$name: no 'success' line"; }
	grep -q "remote: LID" "$out" ||
		{ cat "$out" >&2; fail "$name: no remote address exchanged"; }
	log "$name ($iters x $size B, GID $gid): success"
}

xsrq xsrq4-multi 18640 "$G4" 100 4096
xsrq xsrq6-events 18641 "$G6" 50 64 -e
