#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# With IBV_SHOW_WARNINGS=1 the verbs tools print nothing on stderr: every
# device has its provider, the ABI versions agree, no config complaint.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

run_quiet "$T/out" ibv_devices
run_quiet "$T/out" ibv_devinfo
run_quiet "$T/out" ibv_devinfo -v -d "$SROCE_DEV"
run_quiet "$T/out" ibv_devinfo -d "$SROCE_DEV" -i 1
run_quiet "$T/out" "$SROCE_VERBS_BIN/ibv_devinfo" -v -d "$SROCE_DEV"
run_quiet "$T/out" "$PROBE" -o "$SROCE_DEV"
grep -qx "$SROCE_DEV sroce pd ok" "$T/out" || fail "probe -o $SROCE_DEV: $(cat "$T/out")"
log "ok: no warnings"
