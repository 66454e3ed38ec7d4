#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce_barrier really waits for the peer, a name can be reused, and
# sroce_put/sroce_get carry a value across.
. "$SROCE_TOP/tests/vm/lib.sh"

# b arrives 3 s late: a must not get through before b has arrived.
is_b && sleep 3
t0=${EPOCHREALTIME/./}
sroce_barrier late 60
if is_a; then
	dt=$(((${EPOCHREALTIME/./} - t0) / 1000))
	log "waited ${dt}ms for b"
	((dt > 2000)) || fail "barrier returned before the peer arrived"
fi
for i in 1 2 3; do
	sroce_put round "$SROCE_ROLE$i"
	sroce_barrier round
	[[ $(sroce_get round) == "$(sroce_peer_role)$i" ]] || fail "round $i: wrong value"
	sroce_barrier round.read
done
sroce_put addr "$SROCE_ADDR"
[[ $(sroce_get addr 30) == "$SROCE_PEER" ]] || fail "sroce_get returned the wrong address"
# A barrier the peer never reaches times out and fails.
if ( sroce_barrier "only-$SROCE_ROLE" 1 ) 2>/dev/null; then
	fail "a one-sided barrier did not time out"
fi
