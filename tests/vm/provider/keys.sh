#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/keys.c in guest a: a stranger who can reach UDP 4791
# must guess a QPN and an rkey.  A fresh device's first QPN is not 2 and
# differs from the next fresh device's; the key bytes of back-to-back
# registrations do not count up (Documentation/reliability.rst, "Trust
# boundary").
. "$SROCE_TOP/tests/vm/provider/provider.lib"

is_a || exit 0
bin=$SROCE_TOP/build/provider/keys
[[ -x $bin ]] || fail "$bin not built"
n=32

# First QP of a fresh device, twice: the link is created anew each time.
fresh() {
	rdma link delete "$SROCE_DEV" || fail "rdma link delete $SROCE_DEV"
	rdma link add "$SROCE_DEV" type sroce netdev "$SROCE_IF" ||
		fail "rdma link add $SROCE_DEV"
	run_quiet "$T/keys.$1" "$bin" "$SROCE_DEV" "$n"
}
fresh 1
fresh 2
q1=$(sed -n 's/^qpn //p' "$T/keys.1")
q2=$(sed -n 's/^qpn //p' "$T/keys.2")
log "first QPN of two fresh devices: $q1, $q2"
[[ -n $q1 && -n $q2 ]] || fail "keys printed no QPN"
((q1 != 2 && q2 != 2)) || fail "a fresh device handed out QPN 2 first"
((q1 != q2)) || fail "two fresh devices handed out the same first QPN $q1"

# Key bytes: count the registrations whose byte is the last one's + 1.
# shellcheck disable=SC2207 # one hex number a line
keys=($(sed -n 's/^key //p' "$T/keys.1"))
((${#keys[@]} == n)) || fail "keys printed ${#keys[@]} keys, not $n"
steps=0
for ((i = 1; i < n; i++)); do
	((((keys[i] - keys[i - 1]) & 0xff) == 1)) && steps=$((steps + 1))
done
log "$n keys, ${keys[0]} .. ${keys[n - 1]}: $steps of $((n - 1)) key bytes are the previous + 1"
((steps < n / 4)) || fail "key bytes count up ($steps of $((n - 1)) steps are +1)"
