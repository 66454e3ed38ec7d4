#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Both guests see the documented environment, with the right values.
. "$SROCE_TOP/tests/vm/lib.sh"

for v in SROCE_ROLE SROCE_DEV SROCE_IF SROCE_ADDR SROCE_ADDR6 SROCE_PEER \
	SROCE_PEER6 SROCE_OUT SROCE_SYNC SROCE_KVER SROCE_DRIVER SROCE_TOP; do
	[[ -n ${!v:-} ]] || fail "$v is not set"
	log "$v=${!v}"
done
if is_a; then
	[[ $SROCE_ADDR == 192.0.2.1 && $SROCE_PEER == 192.0.2.2 ]] || fail "a: v4 addresses"
	[[ $SROCE_ADDR6 == 2001:db8::1 && $SROCE_PEER6 == 2001:db8::2 ]] || fail "a: v6 addresses"
else
	is_b || fail "role is neither a nor b"
	[[ $SROCE_ADDR == 192.0.2.2 && $SROCE_PEER == 192.0.2.1 ]] || fail "b: v4 addresses"
	[[ $SROCE_ADDR6 == 2001:db8::2 && $SROCE_PEER6 == 2001:db8::1 ]] || fail "b: v6 addresses"
fi
[[ $(uname -r) == "$SROCE_KVER" ]] || fail "SROCE_KVER=$SROCE_KVER but running $(uname -r)"
[[ -f $SROCE_TOP/tests/vm/lib.sh ]] || fail "SROCE_TOP does not hold the tree"
ip -br addr show "$SROCE_IF" | grep -q "$SROCE_ADDR/24" || fail "$SROCE_IF lacks $SROCE_ADDR"
# SROCE_OUT is per guest and writable; the root overlay is writable too.
echo "$SROCE_ROLE" >"$SROCE_OUT/role" || fail "SROCE_OUT not writable"
touch /etc/sroce-vm-overlay-test || fail "root overlay not writable"
