#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rping between sroce and rxe: rdma_cm (ib_core's CM MADs on QP1 between
# the drivers), then per ping a SEND, an RDMA READ by the server, an RDMA
# WRITE back and a SEND; -V checks the data.  The client in sroce (s2r)
# over IPv4, then in rxe (r2s) over IPv6, 5 pings each.
. "$SROCE_TOP/tests/vm/interop/interop.lib"

dp_need_rdma_cm

# ping NAME SIZE FAMILY
ping() {
	local name=$1 size=$2 addr n
	addr=$(ix_server_addr "$3")
	local args="-v -V -C 5 -S $size -p 7175 -a $addr"

	dp_pair "$name" 60 cm "rping -s $args" "rping -c $args"
	out=$(dp_out "$name")
	if grep -qi 'mismatch\|error' "$out"; then
		cat "$out" >&2
		fail "$name: rping reported a problem"
	fi
	n=$(grep -c 'ping data: rdma-ping-' "$out") || true
	((n == 5)) || { cat "$out" >&2; fail "$name: $n of 5 pings shown"; }
	log "$name: 5 pings of $size bytes verified"
}

ix_dir s2r
ping s2r-rping4 2000 4
ix_dir r2s
ping r2s-rping6 2000 6
