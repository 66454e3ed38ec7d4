#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Last of the group: after the consumers have disconnected and their
# modules are gone, the RDMA driver unloads cleanly.  Removing the device
# frees ib_core's CQ pool that the consumers drew on; sroce's own object
# counts must be zero by then (it warns otherwise, which fails the test).
. "$SROCE_TOP/tests/vm/lib.sh"

[[ -n $SROCE_DEV ]] || fail "no RDMA device in this guest"
mod=$SROCE_DRIVER
[[ $mod == rxe ]] && mod=rdma_rxe
for m in nvme_rdma nvmet_rdma rpcrdma; do
	! grep -q "^$m " /proc/modules || fail "$m is still loaded"
done
rdma link delete "$SROCE_DEV" || fail "rdma link delete $SROCE_DEV failed"
rmmod "$mod" || fail "rmmod $mod failed"
! grep -q "^$mod " /proc/modules || fail "$mod still loaded"
log "$mod unloaded after the consumers"
