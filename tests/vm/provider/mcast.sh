#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/mcast.c: UD multicast, over IPv4 (group 239.1.2.3)
# then IPv6 (ff0e::1:2:3).  Guest a attaches QPs to the group (and checks
# the error rows); while they are attached the group must be joined on
# the netdev (IGMP or MLD: /proc/net/igmp or igmp6, and the link-layer
# filter in "ip maddr"); guest b sends to the group, then guest a's own
# QPs do.  Once the program has exited the membership is gone.  Built by
# make provider.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

bin=$SROCE_TOP/build/provider/mcast
[[ -x $bin ]] || fail "$bin not built"

# joined GROUP MAC PROCFILE PROCNAME: all three views of the membership.
joined() {
	local maddr

	maddr=$(ip maddr show dev "$SROCE_IF")
	# "users N" follows the group when more than one joined it.
	grep -Eq "inet6? +$1( |\$)" <<<"$maddr" &&
		grep -q "link  *$2" <<<"$maddr" &&
		grep -qi "$4" "$3"
}

# family NAME GROUP ADDR MAC PROCFILE PROCNAME
family() {
	local name=$1 grp=$2 addr=$3 mac=$4 pf=$5 pn=$6 gid pid rc=0

	gid=$(sroce_gid_index "$SROCE_DEV" "$addr") || fail "no RoCE v2 GID for $addr"
	if is_b; then
		sroce_barrier "mc.$name.ready" 300
		run_quiet "$SROCE_OUT/mcast-send-$name.txt" "$bin" send "$SROCE_DEV" "$gid" "$grp"
		sroce_barrier "mc.$name.sent" 120
		grep -h '^FAIL\|^mcast:' "$SROCE_OUT/mcast-send-$name.txt" | sed 's/^/  /'
		grep -q '^mcast: [0-9]* passed, 0 failed$' "$SROCE_OUT/mcast-send-$name.txt" ||
			fail "$name: mcast send checks failed"
		log "$name send: $(tail -n1 "$SROCE_OUT/mcast-send-$name.txt")"
		return 0
	fi

	! joined "$grp" "$mac" "$pf" "$pn" || fail "$grp joined on $SROCE_IF before the test"
	rm -f "$T/ready" "$T/go"
	IBV_SHOW_WARNINGS=1 "$bin" recv "$SROCE_DEV" "$gid" "$grp" "$T/ready" "$T/go" \
		>"$SROCE_OUT/mcast-$name.txt" 2>"$T/recv.err" &
	pid=$!
	at_exit "kill $pid 2>/dev/null"
	deadline=$((SECONDS + 240))
	while [[ ! -e $T/ready ]]; do
		kill -0 $pid 2>/dev/null || break
		((SECONDS < deadline)) || fail "$name: receiver not ready in 240 s"
		sleep 0.2
	done
	if [[ -e $T/ready ]]; then
		joined "$grp" "$mac" "$pf" "$pn" || {
			ip maddr show dev "$SROCE_IF" | sed 's/^/  maddr: /'
			fail "$grp not joined on $SROCE_IF while QPs are attached"
		}
		log "$grp joined on $SROCE_IF ($pf and the link filter $mac)"
	fi
	sroce_barrier "mc.$name.ready" 300
	sroce_barrier "mc.$name.sent" 120
	: >"$T/go"
	wait $pid || rc=$?
	grep -h '^FAIL\|^mcast:' "$SROCE_OUT/mcast-$name.txt" | sed 's/^/  /'
	[[ ! -s $T/recv.err ]] || {
		sed 's/^/  stderr: /' "$T/recv.err" >&2
		fail "$name: receiver wrote to stderr"
	}
	((rc == 0)) || fail "$name: receiver exited with $rc"
	grep -q '^mcast: [0-9]* passed, 0 failed$' "$SROCE_OUT/mcast-$name.txt" ||
		fail "$name: mcast checks failed"
	! joined "$grp" "$mac" "$pf" "$pn" || fail "$grp still joined after every QP left it"
	log "$name: $(tail -n1 "$SROCE_OUT/mcast-$name.txt")"
}

# /proc/net/igmp prints an IPv4 group as a host-order (little-endian) word.
family ipv4 239.1.2.3 "$SROCE_ADDR" 01:00:5e:01:02:03 /proc/net/igmp 030201EF
family ipv6 ff0e::1:2:3 "$SROCE_ADDR6" 33:33:00:02:00:03 /proc/net/igmp6 \
	ff0e0000000000000000000100020003
