#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# active_mtu is the largest IB MTU whose packets fit the netdev MTU with
# the worst-case RoCEv2 overhead (92 bytes, see params.h); below 256 + 92
# the port goes DOWN.  The netdev MTU is changed live.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
sd_reset
trap sd_reset EXIT

ovh=$(sd_param SROCE_ROCEV2_MAX_OVERHEAD)
((ovh == 92)) || fail "overhead is $ovh, Documentation/device.rst says 92"

sd_veth
rdma link add sroce1 type sroce netdev sdv0 || fail "add on sdv0 failed"
sd_expect_state sroce1 ACTIVE LINK_UP

ip link set sdv0 mtu $((256 + ovh - 1))
sd_expect_state sroce1 DOWN
ip link set sdv0 mtu $((256 + ovh))
sd_expect_state sroce1 ACTIVE LINK_UP

have_verbs=1
[[ -n ${SROCE_VERBS_LIB:-} ]] || have_verbs=

# netdev MTU -> expected active_mtu
cases="348:256 1115:512 1116:1024 1500:1024 2139:1024 2140:2048 4187:2048
4188:4096 9000:4096 1500:1024"
for c in $cases; do
	mtu=${c%%:*} want=${c#*:}
	ip link set sdv0 mtu "$mtu" || fail "cannot set mtu $mtu"
	sd_expect_state sroce1 ACTIVE
	[[ -n $have_verbs ]] || continue
	got=$(sd_devinfo sroce1 | sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
	[[ $got == "$want" ]] || fail "netdev mtu $mtu: active_mtu '$got', expected $want"
	log "netdev mtu $mtu -> active_mtu $got"
done
[[ -n $have_verbs ]] ||
	skip "port state follows the MTU; active_mtu values need the provider (make provider)"
