#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# XRC between sroce and rdma_rxe: rxe has no XRC, and sroce's device
# does not offer it yet (its protocol core speaks it:
# Documentation/protocol-transport.rst, "XRC").  rdma-core's own
# ibv_xsrq_pingpong, server in guest a (sroce), client in guest b (rxe),
# must stop at once on each side with a clear error, the XRC domain that
# cannot be opened (EOPNOTSUPP), never hang or crash; the run's kernel
# log scan catches any warning.
. "$SROCE_TOP/tests/vm/interop/interop.lib"

args="-d $DEV -g $G4 -p 18620"
[[ $SROCE_ROLE == b ]] && args+=" $SROCE_PEER"
rc=0
# shellcheck disable=SC2086 # $args is a word list
timeout -k 5 60 ibv_xsrq_pingpong $args >"$T/xsrq.out" 2>&1 || rc=$?
sed "s/^/  ibv_xsrq_pingpong ($SROCE_DRIVER): /" "$T/xsrq.out"
((rc != 124 && rc != 137)) || fail "ibv_xsrq_pingpong hung on $SROCE_DRIVER"
((rc == 1)) || fail "ibv_xsrq_pingpong on $SROCE_DRIVER exited with $rc, want 1"
grep -qx "Couldn't Open the XRC Domain 95" "$T/xsrq.out" ||
	fail "ibv_xsrq_pingpong on $SROCE_DRIVER: not refused at ibv_open_xrcd (EOPNOTSUPP)"
sroce_barrier xrc-done 120
log "ok: XRC refused by $SROCE_DRIVER at ibv_open_xrcd, exit 1"
