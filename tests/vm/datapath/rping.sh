#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rping: rdma_cm connection setup, then per ping a SEND of the buffer's
# address, an RDMA READ by the server, an RDMA WRITE back and a SEND.
# -V makes the client compare the data that came back with what it sent;
# -v prints every ping, and each side must show all COUNT of them, in
# order.  A small buffer over IPv4, one of several MTUs over IPv6, and the
# small one again with a QP made by the application (-q).
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"

dp_need_rdma_cm

# ping NAME COUNT SIZE SERVER_ADDR EXTRA...
ping() {
	local name=$1 count=$2 size=$3 addr=$4 out n i
	shift 4
	local args="-v -V -C $count -S $size -p 7174 $*"

	dp_pair "$name" 60 cm "rping -s -a $addr $args" "rping -c -a $addr $args"
	out=$(dp_out "$name")
	if grep -qi 'mismatch\|error' "$out"; then
		cat "$out" >&2
		fail "$name: rping reported a problem"
	fi
	n=$(grep -c 'ping data: rdma-ping-' "$out") || true
	((n == count)) || { cat "$out" >&2; fail "$name: $n of $count pings shown"; }
	for ((i = 0; i < count; i++)); do
		grep -q "ping data: rdma-ping-$i: " "$out" ||
			fail "$name: ping $i missing"
	done
	log "$name: $count pings of $size bytes verified"
}

ping rping4 10 100 192.0.2.1
ping rping6-big 5 8192 2001:db8::1
ping rping4-own-qp 5 100 192.0.2.1 -q
