#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/mcast.c: UD multicast.  Guest a attaches QPs to group
# 239.1.2.3 (and checks the error rows); while they are attached the
# group must be joined on the netdev (IGMP, /proc/net/igmp, and the
# link-layer filter in "ip maddr"); guest b sends to the group, then
# guest a's own QPs do.  Once the program has exited the membership is
# gone.  Built by make provider.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

grp=239.1.2.3
# /proc/net/igmp prints the group as a host-order (little-endian) word.
grp_hex=030201EF
bin=$SROCE_TOP/build/provider/mcast
[[ -x $bin ]] || fail "$bin not built"
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"

joined() {
	ip maddr show dev "$SROCE_IF" | grep -Eq "inet +$grp( |\$)" &&
		ip maddr show dev "$SROCE_IF" | grep -q 'link  *01:00:5e:01:02:03' &&
		grep -q "$grp_hex" /proc/net/igmp
}

if is_b; then
	sroce_barrier mc.ready 300
	run_quiet "$SROCE_OUT/mcast-send.txt" "$bin" send "$SROCE_DEV" "$gid" "$grp"
	sroce_barrier mc.sent 120
	grep -h '^FAIL\|^mcast:' "$SROCE_OUT/mcast-send.txt" | sed 's/^/  /'
	grep -q '^mcast: [0-9]* passed, 0 failed$' "$SROCE_OUT/mcast-send.txt" ||
		fail "mcast send checks failed"
	log "send: $(tail -n1 "$SROCE_OUT/mcast-send.txt")"
	exit 0
fi

! joined || fail "$grp joined on $SROCE_IF before the test"
IBV_SHOW_WARNINGS=1 "$bin" recv "$SROCE_DEV" "$gid" "$grp" "$T/ready" "$T/go" \
	>"$SROCE_OUT/mcast.txt" 2>"$T/recv.err" &
pid=$!
at_exit "kill $pid 2>/dev/null"
deadline=$((SECONDS + 240))
while [[ ! -e $T/ready ]]; do
	kill -0 $pid 2>/dev/null || break
	((SECONDS < deadline)) || fail "receiver not ready in 240 s"
	sleep 0.2
done
if [[ -e $T/ready ]]; then
	ip maddr show dev "$SROCE_IF" | sed 's/^/  maddr: /'
	joined || fail "$grp not joined on $SROCE_IF while QPs are attached"
	log "$grp joined on $SROCE_IF (IGMP and link filter)"
fi
sroce_barrier mc.ready 300
sroce_barrier mc.sent 120
: >"$T/go"
rc=0
wait $pid || rc=$?
grep -h '^FAIL\|^mcast:' "$SROCE_OUT/mcast.txt" | sed 's/^/  /'
[[ ! -s $T/recv.err ]] || { sed 's/^/  stderr: /' "$T/recv.err" >&2; fail "receiver wrote to stderr"; }
((rc == 0)) || fail "receiver exited with $rc"
grep -q '^mcast: [0-9]* passed, 0 failed$' "$SROCE_OUT/mcast.txt" || fail "mcast checks failed"
! joined || fail "$grp still joined after every QP left it"
log "$(tail -n1 "$SROCE_OUT/mcast.txt")"
