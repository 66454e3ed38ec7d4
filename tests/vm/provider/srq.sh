#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/srq.c in guest a (guest b idles): shared receive
# queues on one device, RC and UD, the limit event and the last-WQE
# event.  Built by make provider.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

is_a || exit 0
bin=$SROCE_TOP/build/provider/srq
[[ -x $bin ]] || fail "$bin not built"
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
run_quiet "$SROCE_OUT/srq.txt" "$bin" "$SROCE_DEV" "$gid"
grep -h '^FAIL\|^srq:' "$SROCE_OUT/srq.txt" | sed 's/^/  /'
grep -q '^srq: [0-9]* passed, 0 failed$' "$SROCE_OUT/srq.txt" || fail "srq checks failed"
log "$(tail -n1 "$SROCE_OUT/srq.txt")"
