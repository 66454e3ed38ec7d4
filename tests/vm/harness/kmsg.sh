#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel log scanner: it flags each kind of splat, passes a clean log,
# ignores lines user space writes to /dev/kmsg, and catches a real kernel
# stack dump end to end (sysrq 'l' prints a harmless backtrace).
. "$SROCE_TOP/tests/vm/lib.sh"

scan=$SROCE_TOP/tools/vm/kmsg-scan
while read -r line; do
	printf '%s\n' "$line" | "$scan" >/dev/null && fail "scanner missed: $line"
done <<'LOG'
WARNING: CPU: 0 PID: 42 at drivers/infiniband/sw/sroce/qp.c:10 sroce_qp_x+0x1/0x2 [sroce]
BUG: kernel NULL pointer dereference, address: 0000000000000008
kernel BUG at mm/slub.c:100!
Oops: 0000 [#1] PREEMPT SMP NOPTI
Call Trace:
refcount_t: underflow; use-after-free.
WARNING: possible circular locking dependency detected
INFO: task kworker/0:1:12 blocked for more than 120 seconds.
list_add corruption. prev->next should be next (ffff888003a0), but was 0.
list_del corruption, ffff8880 ->next is LIST_POISON1 (dead000000000100)
kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
BUG: KASAN: slab-use-after-free in sroce_rx+0x10/0x20 [sroce]
UBSAN: shift-out-of-bounds in kernel/proto/psn.c:12:3
general protection fault, probably for non-canonical address 0xdead: 0000 [#1]
LOG
printf '%s\n' "rdma_rxe: loaded" "sroce: module verification failed: signature and/or required key missing - tainting kernel" \
	"virtio_net virtio0 eth0: renamed" "IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready" |
	"$scan" && true || fail "scanner flagged a clean log"

# User space annotating the log is not a kernel splat.
echo "WARNING: written by a test, not the kernel" >/dev/kmsg
sroce_kmsg_check || fail "a user-space /dev/kmsg line was taken for a splat"

# A real kernel backtrace is caught, then acknowledged so that this
# script, which provoked it on purpose, still passes.
echo l >/proc/sysrq-trigger
sleep 1
if sroce_kmsg_check >"$SROCE_OUT/caught"; then
	dmesg | tail -n 20
	fail "the scanner missed the sysrq backtrace"
fi
log "caught: $(head -n 1 "$SROCE_OUT/caught")"
# Acknowledging only lines of another kind leaves it flagged.
sroce_kmsg_ack_only '^no such splat$' 2>/dev/null &&
	fail "sroce_kmsg_ack_only took lines it was not given"
sroce_kmsg_check >/dev/null && fail "sroce_kmsg_ack_only acknowledged a refused log"
# Given exactly the flagged lines (escaped into an ERE), it acknowledges.
ere="^($(sed 's/[][\\.*^$+?(){}|]/\\&/g' "$SROCE_OUT/caught" | paste -sd'|'))\$"
sroce_kmsg_ack_only "$ere" || fail "sroce_kmsg_ack_only refused the lines it was given"
sroce_kmsg_check >/dev/null || fail "still flagged after sroce_kmsg_ack_only"
sroce_kmsg_ack
sroce_kmsg_check || fail "still flagged after sroce_kmsg_ack"
