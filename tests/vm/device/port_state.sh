#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The port follows its netdev: admin down -> DOWN/DISABLED, no carrier ->
# DOWN/POLLING, back up -> ACTIVE/LINK_UP, with an IB port event each way
# (seen by ibv_asyncwatch when the provider is built).  The other device
# is not disturbed.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
watch_pid=
cleanup() {
	[[ -n $watch_pid ]] && kill "$watch_pid" 2>/dev/null
	sd_reset
}
sd_reset
trap cleanup EXIT

sd_veth
rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "add on $SROCE_IF failed"
rdma link add sroce1 type sroce netdev sdv0 || fail "add on sdv0 failed"
sd_expect_state sroce1 ACTIVE LINK_UP

events=$SROCE_OUT/async-events
if [[ -n ${SROCE_VERBS_LIB:-} ]]; then
	stdbuf -oL ibv_asyncwatch -d sroce1 >"$events" 2>&1 &
	watch_pid=$!
	for ((i = 0; i < 100; i++)); do
		ls -l /proc/$watch_pid/fd 2>/dev/null | grep -q uverbs && break
		sleep 0.1
	done
	((i < 100)) || fail "ibv_asyncwatch never opened sroce1"
fi

ip link set sdv0 down
sd_expect_state sroce1 DOWN DISABLED
sd_kmsg_expect "sroce1: port down \(sdv0\)"
ip link set sdv0 up
sd_expect_state sroce1 ACTIVE LINK_UP
sd_kmsg_expect "sroce1: port active \(sdv0\)"

# Carrier loss: the peer end goes down.
ip link set sdv1 down
sd_expect_state sroce1 DOWN POLLING
ip link set sdv1 up
sd_expect_state sroce1 ACTIVE LINK_UP

sd_expect_state sroce0 ACTIVE LINK_UP
n=$(sd_kmsg | grep -c "sroce1: port \(down\|active\)")
((n == 4)) || fail "expected 4 port transitions in the log, got $n"

if [[ -n $watch_pid ]]; then
	sleep 1
	kill "$watch_pid" 2>/dev/null || true
	wait "$watch_pid" 2>/dev/null || true
	watch_pid=
	sed 's/^/  asyncwatch: /' "$events"
	err=$(grep -c 'PORT_ERR' "$events" || true)
	act=$(grep -c 'PORT_ACTIVE' "$events" || true)
	((err == 2 && act == 2)) ||
		fail "asyncwatch saw $err PORT_ERR and $act PORT_ACTIVE, expected 2 and 2"
else
	log "provider not built: port events checked through the kernel log only"
fi
