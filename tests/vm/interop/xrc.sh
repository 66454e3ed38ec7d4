#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# XRC between sroce and rdma_rxe: sroce offers XRC, rxe does not.
# rdma-core's own ibv_xsrq_pingpong, server in guest a (sroce), client in
# guest b (rxe).  The sroce server opens its XRC domain, makes its SRQ
# and QPs and listens: its port listening proves all of that (the tool
# listens only after it), and it must still be alive, with no error,
# when the client is done.  The rxe client must stop at once with a
# clear error, the XRC domain that cannot be opened (EOPNOTSUPP), exit
# 1, and so never connect.  The server is then stopped (a bounded
# timeout besides); nothing may hang, and the run's kernel log scan
# catches any warning, of the sroce guest's teardown too.
. "$SROCE_TOP/tests/vm/interop/interop.lib"

port=18620
args="-d $DEV -g $G4 -p $port"
out=$T/xsrq.out
rc=0
if [[ $SROCE_ROLE == a ]]; then
	# shellcheck disable=SC2086 # $args is a word list
	timeout -k 5 120 ibv_xsrq_pingpong $args >"$out" 2>&1 &
	pid=$!
	ready=no
	_dp_wait_ready "tcp:$port" "$pid" && ready=yes
	sroce_put xrc.ready "$ready"
	sroce_barrier xrc-ready 120
	sroce_barrier xrc-client-done 120
	alive=0
	kill -0 "$pid" 2>/dev/null && alive=1
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" || rc=$?
	sed "s/^/  ibv_xsrq_pingpong ($SROCE_DRIVER): /" "$out"
	((alive)) || fail "ibv_xsrq_pingpong server on $SROCE_DRIVER ended before the client was done (exit $rc)"
	[[ $ready == yes ]] ||
		fail "ibv_xsrq_pingpong server on $SROCE_DRIVER never listened: XRC setup failed"
	grep -qi "couldn't\|failed\|error" "$out" &&
		fail "ibv_xsrq_pingpong server on $SROCE_DRIVER reported an error"
	sroce_barrier xrc-done 120
	log "ok: XRC set up by $SROCE_DRIVER (domain, SRQ, QPs, listening), no client came"
else
	sroce_barrier xrc-ready 120
	[[ $(sroce_get xrc.ready 10) == yes ]] ||
		fail "the sroce server never listened"
	# shellcheck disable=SC2086 # $args is a word list
	timeout -k 5 60 ibv_xsrq_pingpong $args "$SROCE_PEER" >"$out" 2>&1 || rc=$?
	sroce_barrier xrc-client-done 120
	sed "s/^/  ibv_xsrq_pingpong ($SROCE_DRIVER): /" "$out"
	((rc != 124 && rc != 137)) || fail "ibv_xsrq_pingpong hung on $SROCE_DRIVER"
	((rc == 1)) || fail "ibv_xsrq_pingpong on $SROCE_DRIVER exited with $rc, want 1"
	grep -qx "Couldn't Open the XRC Domain 95" "$out" ||
		fail "ibv_xsrq_pingpong on $SROCE_DRIVER: not refused at ibv_open_xrcd (EOPNOTSUPP)"
	sroce_barrier xrc-done 120
	log "ok: XRC refused by $SROCE_DRIVER at ibv_open_xrcd, exit 1"
fi
