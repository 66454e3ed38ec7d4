#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every phase in order, each timed.  A phase's output ends with
# "N passed, M failed"; a phase that fails without one counts as one
# failure.  The last line is the total.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
logs=$build/logs
mkdir -p "$logs"
cd "$top" || exit 1

# The kernel matrix (Documentation/testing.rst, "Kernels"): sroce.ko
# builds for all four, the full VM suite runs on 6.1 (Debian 12's
# default) and 7.3 (the newest, beside the strongest rdma_rxe), the smoke
# on 5.10 and 6.12.
vm_full=${CHECK_VM_FULL-6.1 7.3}
vm_smoke=${CHECK_VM_SMOKE-5.10 6.12}
# shellcheck disable=SC2086 # word lists
kernels=$(printf '%s\n' $vm_full $vm_smoke | sort -uV | xargs)
vm_args=$vm_full
for k in $vm_smoke; do vm_args+=" smoke:$k"; done

check_deps() { KERNELS=$kernels scripts/deps.sh; }
check_build() { make -s all KERNELS="$kernels"; }
# shellcheck disable=SC2086 # a word list
check_vm() { tests/vm/run-all.sh $vm_args; }

phases=(deps build lint unit provider deb host sim fuzz demo vm)
declare -A cmd=(
	[deps]="check_deps"
	[build]="check_build"
	[lint]="scripts/lint.sh"
	[unit]="make -s check-unit"
	[provider]="provider/tests/run.sh"
	[deb]="scripts/deb-check.sh"
	[host]="scripts/host-check.sh"
	[sim]="make -s check-sim"
	[fuzz]="make -s check-fuzz"
	[demo]="check_demo"
	[vm]="check_vm"
)
# deps and build are prerequisites, not tests: they count only if they fail.
declare -A counted=([lint]=1 [unit]=1 [provider]=1 [deb]=1 [host]=1 [sim]=1 [fuzz]=1 [demo]=1 [vm]=1)

# The README's `make demo`, as a newcomer runs it: its own script, into a
# directory that does not exist yet (tests/vm/demo.sh must create it).
check_demo() {
	local dir=$build/check-demo
	rm -rf "$dir"
	if SROCE_DEMO_DIR=$dir/vm tests/vm/demo.sh; then
		echo "demo: 1 passed, 0 failed"
	else
		echo "demo: 0 passed, 1 failed"
		return 1
	fi
}

total_pass=0 total_fail=0 summary=()
for p in "${phases[@]}"; do
	echo "=== check: $p"
	start=$SECONDS
	${cmd[$p]} 2>&1 | tee "$logs/$p.log"
	rc=${PIPESTATUS[0]}
	secs=$((SECONDS - start))
	line=$(grep -E '^([A-Za-z0-9_.-]+: )?[0-9]+ passed, [0-9]+ failed' "$logs/$p.log" | tail -n1)
	pass=0 fail=0
	if [[ -n $line && -n ${counted[$p]:-} ]]; then
		pass=$(sed -E 's/.*\b([0-9]+) passed.*/\1/' <<<"$line")
		fail=$(sed -E 's/.*\b([0-9]+) failed.*/\1/' <<<"$line")
	fi
	if ((rc != 0 && fail == 0)); then
		fail=1
	fi
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	summary+=("$(printf '%-6s %5ds  %4d passed  %3d failed  (exit %d)' "$p" "$secs" "$pass" "$fail" "$rc")")
	if ((rc != 0)) && [[ $p == deps || $p == build ]]; then
		break
	fi
done

echo "=== check: summary (logs in $logs)"
printf '%s\n' "${summary[@]}"
echo "check: $total_pass passed, $total_fail failed"
((total_fail == 0))
