#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [KERNEL]: `make demo`.  Boot two QEMU guests with sroce (kernel
# 6.12 unless told otherwise) and show how their devices look to the
# unmodified verbs tools, guest a then guest b.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-6.12}
kver=$("$top/scripts/kver.sh" "$kernel")
ko=$top/build/kernel/$kver/sroce.ko
if [[ ! -f $ko ]]; then
	echo "demo: $ko is missing: build the module first (make module)" >&2
	exit 1
fi
echo "demo: booting two guests on $kver with sroce (about half a minute under emulation)"
exec "$top/tools/sroce-vm" --kernel "$kernel" --driver sroce --verbose \
	"$top/tools/vm/demo-guest"
