#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A process holding a verbs context does not pin the device: netdev
# unregister, "rdma link delete" and rmmod each revoke the context
# (IB_EVENT_DEVICE_FATAL) and finish promptly, where rxe would wait for
# the process to exit.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
watch_pid=
stop_watch() {
	[[ -n $watch_pid ]] || return 0
	kill "$watch_pid" 2>/dev/null || true
	wait "$watch_pid" 2>/dev/null || true
	watch_pid=
}
trap 'stop_watch; sd_reset' EXIT
sd_reset

# watch DEV: hold a context on DEV with ibv_asyncwatch, logging its events.
watch() {
	local i
	events=$SROCE_OUT/events.$1
	stdbuf -oL ibv_asyncwatch -d "$1" >"$events" 2>&1 &
	watch_pid=$!
	for ((i = 0; i < 100; i++)); do
		ls -l /proc/$watch_pid/fd 2>/dev/null | grep -q uverbs && return 0
		sleep 0.1
	done
	fail "ibv_asyncwatch never opened $1"
}

# revoked DEV WHAT: DEV disappeared in time and the watcher was told.
revoked() {
	sd_wait sd_gone 30 "$1" || fail "$1 still present after $2 with an open context"
	sleep 1
	sed 's/^/  asyncwatch: /' "$events"
	grep -q DEVICE_FATAL "$events" || fail "no DEVICE_FATAL event after $2"
	stop_watch
	log "$1: context revoked by $2"
}

sd_veth
rdma link add sroce1 type sroce netdev sdv0 || fail "add on sdv0 failed"
sd_need_provider sroce1

watch sroce1
ip link del sdv0 || fail "cannot delete veth"
revoked sroce1 "netdev unregister"
! ip link show sdv0 >/dev/null 2>&1 || fail "sdv0 still registered"

rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "add on $SROCE_IF failed"
watch sroce0
timeout 30 rdma link delete sroce0 || fail "rdma link delete blocked or failed"
revoked sroce0 "rdma link delete"

rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "re-add failed"
watch sroce0
timeout 30 rmmod sroce || fail "rmmod blocked or failed"
revoked sroce0 rmmod
