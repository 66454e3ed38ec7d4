#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/domains.c in guest a (guest b idles): thread and
# parent domains on one device.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

is_a || exit 0
bin=$SROCE_TOP/build/provider/domains
[[ -x $bin ]] || fail "$bin not built"
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
run_quiet "$SROCE_OUT/domains.txt" "$bin" "$SROCE_DEV" "$gid"
grep -h '^FAIL\|^domains:' "$SROCE_OUT/domains.txt" | sed 's/^/  /'
grep -q '^domains: [0-9]* passed, 0 failed$' "$SROCE_OUT/domains.txt" || fail "domains checks failed"
log "$(tail -n1 "$SROCE_OUT/domains.txt")"
