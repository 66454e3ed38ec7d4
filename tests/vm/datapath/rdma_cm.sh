#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# librdmacm's own examples: udaddy (UD QPs, address handles from rdma_cm,
# SENDs both ways) over IPv4 and IPv6, mckey (UD multicast: guest a joins
# a group, guest b joins and sends to it) over IPv4, and
# rdma_server/rdma_client (RC through rdma_create_ep, one message each
# way).  Each must end with its success line and status 0.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"

dp_need_rdma_cm
a4=192.0.2.1 a6=2001:db8::1

check() {
	local name=$1 want=$2 out

	out=$(dp_out "$name")
	grep -q "$want" "$out" || { cat "$out" >&2; fail "$name: no '$want'"; }
	log "$name: $(grep -m1 "$want" "$out")"
}

dp_pair udaddy4 60 cm "udaddy -b $a4 -C 10 -S 256" "udaddy -s $a4 -C 10 -S 256"
check udaddy4 'data transfers complete'
dp_pair udaddy6 60 cm "udaddy -b $a6 -C 10 -S 256" "udaddy -s $a6 -C 10 -S 256"
check udaddy6 'data transfers complete'
# mckey's receiver waits for all its messages; its sender waits 3 s
# after joining before it sends.  Each binds its own address.  IPv4 only:
# ib_core's rdma_cm refuses IPv6 multicast on RoCE v2 (ENOTSUPP), on any
# device.
dp_pair mckey 90 mc:239.1.2.4 'mckey -m 239.1.2.4 -b $SROCE_ADDR -C 10 -S 256' \
	'mckey -m 239.1.2.4 -b $SROCE_ADDR -s -C 10 -S 256'
check mckey 'data transfers complete'
dp_pair rdma_server 60 cm "rdma_server -s $a4 -p 7471" "rdma_client -s $a4 -p 7471"
if is_a; then
	check rdma_server 'rdma_server: end 0'
else
	check rdma_server 'rdma_client: end 0'
fi
