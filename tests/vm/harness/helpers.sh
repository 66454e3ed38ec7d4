#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lib.sh's verdict, GID and counter helpers do what they say.
. "$SROCE_TOP/tests/vm/lib.sh"

expect_fail false
expect_fail ls /nonexistent
( expect_fail true ) 2>/dev/null && fail "expect_fail accepted a command that succeeded"
( fail "deliberate" ) 2>/dev/null && fail "fail did not fail"
rc=0; ( skip "deliberate" ) 2>/dev/null || rc=$?
((rc == 77)) || fail "skip exited $rc, not 77"
# log goes to stdout with the role.
[[ $(log hello) == "[$SROCE_ROLE "*"] hello" ]] || fail "log format"
# The GID helper finds our addresses without reading the whole table.
if [[ -n $SROCE_DEV && -d /sys/class/infiniband/$SROCE_DEV ]]; then
	i4=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no GID for $SROCE_ADDR"
	i6=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR6") || fail "no GID for $SROCE_ADDR6"
	log "GID index v4 $i4, v6 $i6"
	[[ $i4 != "$i6" ]] || fail "v4 and v6 share GID index $i4"
	sroce_gid_index "$SROCE_DEV" 198.51.100.7 && fail "found a GID for an address we lack"
	# The counter helpers, on whatever counters the device has.
	t=$(mktemp -d)
	sroce_ctrs >"$t/all"
	grep -Eqx '[a-z0-9_]+=[0-9]+' "$t/all" || fail "sroce_ctrs: $(head -n 3 "$t/all")"
	c=$(sed -n '1s/=.*//p' "$t/all")
	[[ $(sroce_ctr "$c") =~ ^[0-9]+$ ]] || fail "sroce_ctr $c: not a number"
	( sroce_ctr no_such_counter ) 2>/dev/null && fail "sroce_ctr accepted a missing counter"
	sroce_ctr_wait "$c" 0 1 || fail "sroce_ctr_wait $c 0: not reached"
	sroce_ctr_wait "$c" $((1 << 62)) 0 && fail "sroce_ctr_wait returned 0 for 2^62"
	log "counters: $(wc -l <"$t/all") on $SROCE_DEV, $c=$(sroce_ctr "$c")"
	rm -rf "$t"
fi
# Counter snapshots compared: what moved, and sums over names.
t=$(mktemp -d)
printf 'rx_drop_a=1\nrx_drop_b=5\ntx_packets=7\nretransmits=0\n' >"$t/0"
printf 'rx_drop_a=3\nrx_drop_b=9\ntx_packets=7\nretransmits=2\n' >"$t/1"
[[ $(sroce_ctr_delta "$t/0" "$t/1" | tr '\n' ' ') == "rx_drop_a +2 rx_drop_b +4 retransmits +2 " ]] ||
	fail "sroce_ctr_delta: $(sroce_ctr_delta "$t/0" "$t/1" | tr '\n' ' ')"
[[ $(sroce_ctr_moved "$t/0" "$t/1" 'rx_drop_.*') == 6 ]] || fail "sroce_ctr_moved rx_drop_.*"
[[ $(sroce_ctr_moved "$t/0" "$t/1" 'rx_drop') == 0 ]] || fail "sroce_ctr_moved matched part of a name"
[[ $(sroce_ctr_moved "$t/0" "$t/1" 'retransmits|rx_drop_a') == 4 ]] || fail "sroce_ctr_moved A|B"
[[ $(sroce_ctr_moved "$t/0" "$t/1" tx_packets) == 0 ]] || fail "sroce_ctr_moved tx_packets"
rm -rf "$t"
true
