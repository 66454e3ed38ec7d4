#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/mw.c in guest a (guest b idles): memory windows of
# type 1 and 2 on one device, accessed inside and outside their range,
# invalidated, and the MR's deregistration refused while one is bound.
# Every access the program saw refused must show in the device's
# access_naks_sent and access_naks_rcvd counters.  Built by make provider.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

is_a || exit 0
bin=$SROCE_TOP/build/provider/mw
[[ -x $bin ]] || fail "$bin not built"
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
sent0=$(sroce_ctr access_naks_sent)
rcvd0=$(sroce_ctr access_naks_rcvd)
run_quiet "$SROCE_OUT/mw.txt" "$bin" "$SROCE_DEV" "$gid"
grep -h '^FAIL\|^mw:' "$SROCE_OUT/mw.txt" | sed 's/^/  /'
grep -q '^mw: [0-9]* passed, 0 failed$' "$SROCE_OUT/mw.txt" || fail "mw checks failed"
n=$(sed -n 's/^remote access errors: //p' "$SROCE_OUT/mw.txt")
sent=$(($(sroce_ctr access_naks_sent) - sent0))
rcvd=$(($(sroce_ctr access_naks_rcvd) - rcvd0))
log "$(tail -n1 "$SROCE_OUT/mw.txt"); $n refused accesses, access NAKs sent $sent, received $rcvd"
((n > 0 && sent == n && rcvd == n)) || fail "access NAK counters ($sent sent, $rcvd received) do not match $n refused accesses"
