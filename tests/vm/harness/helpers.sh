#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lib.sh's verdict helpers do what they say.
. "$SROCE_TOP/tests/vm/lib.sh"

expect_fail false
expect_fail ls /nonexistent
( expect_fail true ) 2>/dev/null && fail "expect_fail accepted a command that succeeded"
( fail "deliberate" ) 2>/dev/null && fail "fail did not fail"
rc=0; ( skip "deliberate" ) 2>/dev/null || rc=$?
((rc == 77)) || fail "skip exited $rc, not 77"
# log goes to stdout with the role.
[[ $(log hello) == "[$SROCE_ROLE "*"] hello" ]] || fail "log format"
# The GID helper finds our addresses without reading the whole table.
if [[ -n $SROCE_DEV && -d /sys/class/infiniband/$SROCE_DEV ]]; then
	i4=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no GID for $SROCE_ADDR"
	i6=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR6") || fail "no GID for $SROCE_ADDR6"
	log "GID index v4 $i4, v6 $i6"
	[[ $i4 != "$i6" ]] || fail "v4 and v6 share GID index $i4"
	sroce_gid_index "$SROCE_DEV" 198.51.100.7 && fail "found a GID for an address we lack"
fi
true
