#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bed before the tests: a guest with two vCPUs survives its kernel
# rewriting its own text.  CPU 0 flips the sched_switch tracepoint's
# static key on and off (text_poke_bp, with an int3 in the middle of the
# update) while CPU 1 switches tasks through that very code.  Under QEMU
# 7.2's multi-threaded TCG a vCPU can go on running the old bytes: the
# guest dies of a stray int3 within a minute, sroce or not
# (Documentation/vm.rst, "Two vCPUs need QEMU 10").  Every other test of
# the group flips keys too (a route exception, a UDP tunnel socket), only
# less often, so a bed that fails here fails them at random.
. "$SROCE_TOP/tests/vm/lib.sh"

(($(nproc) >= 2)) || skip "one vCPU: nothing runs beside the patching"
tr=/sys/kernel/tracing
[[ -d $tr/events ]] || mount -t tracefs nodev "$tr" ||
	skip "no tracefs"
ev=$tr/events/sched/sched_switch/enable
[[ -w $ev ]] || skip "no sched_switch event"

secs=${REL_BED_SECS:-20}
hogs=()
for i in 1 2 3; do
	taskset -c 1 bash -c 'while :; do sleep 0; done' &
	hogs+=($!)
done
cleanup() {
	echo 0 >"$ev"
	kill "${hogs[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
}
trap cleanup EXIT

n=0
end=$((SECONDS + secs))
while ((SECONDS < end)); do
	taskset -c 0 sh -c "echo 1 >$ev; echo 0 >$ev"
	n=$((n + 1))
done
((n > 0)) || fail "the key was never flipped"
log "sched_switch's key flipped on and off $n times in ${secs}s beside 3 task switchers"
