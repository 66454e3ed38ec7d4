#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# active_mtu and the port state that ibv_devinfo shows follow the netdev
# MTU, at each boundary: the largest IB MTU whose worst-case RoCEv2 packet
# (kernel/params.h SROCE_ROCEV2_MAX_OVERHEAD) still fits, and port DOWN
# once not even 256 bytes fit.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

ovh=$(sed -n 's/^#define[[:space:]]*SROCE_ROCEV2_MAX_OVERHEAD[[:space:]]*//p' \
	"$SROCE_TOP/kernel/params.h")
ovh=$((ovh))
((ovh > 0)) || fail "cannot read SROCE_ROCEV2_MAX_OVERHEAD"

# Below 1280 the kernel drops the netdev's IPv6 addresses: put them back.
old=$(cat "/sys/class/net/$SROCE_IF/mtu")
for a in $(ip -o -6 addr show dev "$SROCE_IF" scope global | awk '{ print $4 }'); do
	at_exit ip -6 addr replace "$a" dev "$SROCE_IF" nodad
done
at_exit ip link set dev "$SROCE_IF" mtu "$old"

port() {
	run_quiet "$T/port" ibv_devinfo -d "$SROCE_DEV" -i 1
	sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" "$T/port"
}

n=0
for ib in 256 512 1024 2048 4096; do
	for nd in $((ib + ovh - 1)) $((ib + ovh)); do
		ip link set dev "$SROCE_IF" mtu "$nd" 2>/dev/null ||
			{ log "netdev refuses MTU $nd, not checked"; continue; }
		if ((nd < ib + ovh)); then
			want=$((ib / 2))
		else
			want=$ib
		fi
		if ((want < 256)); then
			[[ $(port state) == "PORT_DOWN (1)" ]] ||
				fail "netdev MTU $nd: state $(port state), want PORT_DOWN (1)"
		else
			[[ $(port active_mtu) == "$want "* ]] ||
				fail "netdev MTU $nd: active_mtu $(port active_mtu), want $want"
			[[ $(port state) == "PORT_ACTIVE (4)" ]] ||
				fail "netdev MTU $nd: state $(port state), want PORT_ACTIVE (4)"
		fi
		n=$((n + 1))
	done
done
((n >= 8)) || fail "only $n MTU boundaries could be set"
log "ok: $n MTU boundaries"
