#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the data-path and reliability suites on the debug
# guest kernel (KASAN, lockdep, kmemleak, UBSAN, DEBUG_LIST; see
# scripts/debug-kernel.sh), one boot, then module unload and a kmemleak
# scan in the same boot (tests/vm/debug/unload-leak.sh).  A KASAN or
# lockdep report anywhere fails the script it happened in: sroce-vm
# scans every script's kernel log.
#
# The first run builds the kernel (about 15 minutes on 2 cores) and
# caches it under /var/cache/sroce/debug-kernel.  Under TCG the debug
# guest is several times slower than a stock one, hence the long
# per-script timeout.  CHECK_DEBUG_SCRIPTS overrides the script list.
# Two vCPUs per guest (CHECK_DEBUG_SMP): lockdep and KASAN see a user
# thread and the kernel's work, timers and softirqs really race.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

rel=$(scripts/debug-kernel.sh install)
[[ $rel =~ ^[^[:space:]]+$ ]] ||
	{ echo "check-debug: bad kernel release '$rel'" >&2; exit 1; }
make -s module KERNELS="$rel"
if [[ -n ${CHECK_DEBUG_SCRIPTS:-} ]]; then
	read -r -a scripts <<<"$CHECK_DEBUG_SCRIPTS"
else
	mapfile -t scripts < <(printf '%s\n' tests/vm/datapath/*.sh tests/vm/reliability/*.sh | sort)
fi
scripts+=(tests/vm/debug/unload-leak.sh)
echo "check-debug: ${#scripts[@]} scripts on $rel"
# The debug guest under TCG moves perhaps a tenth of what a stock one
# does, and far less beside another guest pair: perftest's default ACK
# timeout (14: 67 ms) then measures the emulator, and a READ at 5 % loss
# ran out of retries.  This lane is for KASAN, lockdep and
# kmemleak, so perftest, load and integrity get 18 (1.07 s); the loss
# recovery runs the same code, only with more patience.
export SROCE_QP_TIMEOUT=${SROCE_QP_TIMEOUT:-18}
# The same guests send about 7 Mbit/s: backpressure.sh's 20 Mbit/s token
# bucket never filled, and its TX room case tested nothing.
export BP_ROOM_RATE=${BP_ROOM_RATE:-4mbit}
# With two vCPUs per guest on two host cores, netem's five 8 MiB READs
# under 1 % loss (go-back-N: a loss costs the rest of the response) took
# more than perftest.lib's 90 s; the bound is for hangs only.
export DP_PERF_SECS=${DP_PERF_SECS:-300}
export SROCE_VM_PASS="${SROCE_VM_PASS:-} SROCE_QP_TIMEOUT BP_ROOM_RATE DP_PERF_SECS"
# 5-level paging makes KASAN report a wild access at boot: la57=off.
# acpi=noirq: evaluating the PCI routing tables (_PRT) in the debug
# kernel under TCG hit ACPICA's 30 s loop timeout again and again.
SROCE_VM_CPU=${SROCE_VM_CPU:-max,la57=off} \
SROCE_VM_APPEND=${SROCE_VM_APPEND:-acpi=noirq} \
	exec tools/sroce-vm --kernel "$rel" --driver sroce \
	--smp "${CHECK_DEBUG_SMP:-2}" \
	--timeout "${CHECK_DEBUG_TIMEOUT:-1500}" "${scripts[@]}"
