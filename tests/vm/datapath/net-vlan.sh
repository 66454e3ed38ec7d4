#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RoCE over a VLAN: with a VLAN device on the netdev, ib_core puts the
# VLAN's addresses in sroce0's GID table; ibv_rc_pingpong over that GID
# must leave tagged through the VLAN device (the route picks it) and be
# received by sroce0 although skb->dev is the VLAN device.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/pingpong.lib"

[[ $SROCE_DRIVER == sroce ]] || skip "sroce VLAN receive (driver is $SROCE_DRIVER)"
modprobe 8021q || skip "no 8021q module"
vif=$SROCE_IF.100
me=2001:db8:100::${SROCE_ADDR##*.}
trap 'rc=$?; ip link del "$vif" 2>/dev/null || true; (exit $rc); _dp_exit' EXIT

ip link add link "$SROCE_IF" name "$vif" type vlan id 100
ip addr add "$me/64" dev "$vif" nodad
ip link set "$vif" up
for ((i = 0; i < 100; i++)); do
	gv=$(sroce_gid_index "$DEV" "$me") && break
	sleep 0.2
done
[[ -n $gv ]] || fail "no RoCE v2 GID for $me on $DEV"
sroce_barrier vlan.up
rx0=$(sroce_ctr rx_packets "$DEV")
pingpong rc vlan6 18950 "$gv" 50 2000
rx=$(sroce_ctr rx_packets "$DEV")
((rx - rx0 >= 100)) || fail "rx_packets +$((rx - rx0)) over the VLAN"
tagged=$(ip -s link show "$vif" | awk '/RX:/ { getline; print $2; exit }')
((tagged >= 100)) || fail "only $tagged packets received on $vif"
log "VLAN 100 ($me, GID $gv): rx_packets +$((rx - rx0)), $vif RX $tagged"
