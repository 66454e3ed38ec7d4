#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A process that takes all the device memory a process may have must not
# keep a kernel consumer from connecting (Documentation/reliability.rst,
# "Trust boundary": processes stop a sixteenth short of every limit).  In
# both guests tests/vm/verbs/budget fills what a process may take of
# max_ring_mb (the default, an eighth of RAM, or RES_RING_MB) and holds
# it; then NVMe-oF connects, moves RES_MIB (4) MiB and disconnects
# (nvmeof.sh, without fio), the holder lets go, and every object is gone.
. "$SROCE_TOP/tests/vm/consumers/consumers.lib"

prog=$SROCE_TOP/build/verbs/budget
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"
[[ $SROCE_DRIVER == sroce ]] || skip "the reserve is sroce's"
prm=/sys/module/sroce/parameters/max_ring_mb
old=$(cat $prm)
mb=${RES_RING_MB:-}
mib=${RES_MIB:-4}

hog_pid=
restore() {
	[[ -n $hog_pid ]] && kill "$hog_pid" 2>/dev/null
	echo "$old" >$prm
}
trap 'restore; _cons_exit' EXIT

if [[ -n $mb ]]; then
	echo "$mb" >$prm || fail "cannot set max_ring_mb"
fi
coproc HOG { exec "$prog" "$SROCE_DEV"; }
hog_pid=$HOG_PID
read -r -t 120 line <&"${HOG[0]}" || fail "budget printed nothing"
[[ $line == full:*"errno 12 "* ]] || fail "budget: $line"
budget=${mb:-$old}
((budget)) || budget="0 (an eighth of RAM)"
log "max_ring_mb $budget, a process holds what it may: $line"

sroce_barrier reserve-full 240
CONS_MIB=$mib CONS_FIO=0 bash "$SROCE_TOP/tests/vm/consumers/nvmeof.sh" ||
	fail "NVMe-oF failed while a process held its share of max_ring_mb"
log "NVMe-oF connected, moved $mib MiB and disconnected within the kernel's reserve"

exec {HOG[1]}>&-
wait "$hog_pid" || fail "budget exited with $?"
hog_pid=
cons_resources_clean
sroce_barrier reserve-done 240
