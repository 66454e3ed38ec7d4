#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks:
#   the documentation against the code (scripts/doc-check.py, and its own
#   test, scripts/doc-check-selftest.sh), make bench's case lists
#   (scripts/bench.sh --list), every bash script's syntax (bash -n),
#   checkpatch --strict (from
#   Debian's linux-source-6.1) on every kernel/ source file, the protocol
#   core's included, and sparse (make C=2) against each kernel's headers
#   (a kernel built in a root, with that root's sparse; one too old for
#   the kernel's kbuild prints "skip:" and counts neither way).
# Usage: scripts/lint.sh [FILE...]
#   (default: kernel/*.[ch] kernel/uapi/*.h kernel/proto/*.[ch]; given
#   FILEs, checkpatch runs on those and the doc check is skipped)
# Ends with "lint: N passed, M failed"; exits non-zero if anything failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
kernels=${LINT_KERNELS-${KERNELS:-6.1 6.12}}
tarball=/usr/src/linux-source-6.1.tar.xz
cpdir=$build/checkpatch
passed=0 failed=0

ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAILED: $*"; }

# A script printing "ok: ..." / "FAILED: ..." lines: each counts as one.
counted() {
	local out rc n
	out=$("$@" 2>&1)
	rc=$?
	echo "$out"
	n=$(grep -c '^ok: ' <<<"$out")
	passed=$((passed + n))
	n=$(grep -c '^FAILED: ' <<<"$out")
	failed=$((failed + n))
	if ((rc != 0 && n == 0)); then
		bad "$* (exit $rc)"
	fi
}

if ((!$#)); then
	counted "$top/scripts/doc-check.py" "$top"
	counted "$top/scripts/doc-check-selftest.sh"
	# make bench's case lists parse: eight fields, a vCPU count.
	for q in "" --quick; do
		if l=$(SROCE_BENCH_CASES= "$top/scripts/bench.sh" $q --list) &&
		   [[ -n $l ]] &&
		   awk 'NF != 8 || $7 !~ /^[1-9][0-9]*$/ { exit 1 }' <<<"$l"; then
			ok "bench case list ${q:-(full)}"
		else
			bad "bench case list ${q:-(full)}: scripts/bench.sh $q --list"
		fi
	done
	# Every bash script parses as a whole: bash reads a script as it
	# runs, so a quote broken late in one shows only when it gets there.
	n=0 broken=
	while IFS= read -r f; do
		head -1 "$top/$f" | grep -q '^#!.*bash' || continue
		n=$((n + 1))
		bash -n "$top/$f" 2>/dev/null || broken+=" $f"
	done < <(git -C "$top" ls-files)
	if [[ -z $broken ]]; then
		ok "bash scripts parse ($n, bash -n)"
	else
		bad "bash -n:$broken"
	fi
fi

# checkpatch.pl wants spelling.txt and const_structs.checkpatch beside it.
if [[ ! -f $cpdir/checkpatch.pl ]]; then
	if [[ ! -f $tarball ]]; then
		echo "lint: $tarball missing (apt-get install linux-source-6.1)" >&2
		echo "lint: $passed passed, $((failed + 1)) failed"
		exit 1
	fi
	mkdir -p "$cpdir"
	tar -xJf "$tarball" -C "$cpdir" --strip-components=2 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch || {
		echo "lint: $passed passed, $((failed + 1)) failed"
		exit 1
	}
fi

cd "$top" || exit 1
if (($#)); then
	files=("$@")
else
	files=(kernel/*.c kernel/*.h kernel/uapi/*.h kernel/proto/*.c
	       kernel/proto/*.h)
fi

for f in "${files[@]}"; do
	[[ -f $f ]] || continue
	ignore=
	# compat.[ch] is the one place allowed to test the kernel version,
	# and compat.h defines what older kernels lack (types, kmap_local
	# as kmap_atomic for 5.10) in their upstream names.
	[[ $f == */compat.c ]] && ignore=--ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON
	[[ $f == */compat.h ]] &&
		ignore=--ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON,NEW_TYPEDEFS,DEPRECATED_API,MACRO_ARG_REUSE
	# proto/os.h's user-space half defines u8..s64 from <stdint.h>.
	[[ $f == */proto/os.h ]] && ignore=--ignore=PREFER_KERNEL_TYPES
	# proto/opcode.c's OP() derives two fields of a static initializer
	# from one constant flags argument: no side effects, and no function
	# can stand in for it there.
	[[ $f == */proto/opcode.c ]] && ignore=--ignore=MACRO_ARG_REUSE
	# net_direct.c reads the kernel's struct Qdisc: --no-tree cannot see
	# include/ declare it, so checkpatch takes it for our CamelCase.
	[[ $f == */net_direct.c ]] && ignore=--ignore=CAMELCASE
	# Clean means exit 0 and no finding (--terse prints one line each).
	if out=$(perl "$cpdir/checkpatch.pl" --no-tree --strict --terse \
			--show-types $ignore -f "$f" 2>&1) &&
		! grep -q ': \(ERROR\|WARNING\|CHECK\):' <<<"$out"; then
		ok "checkpatch $f"
	else
		echo "$out"
		bad "checkpatch $f"
	fi
done

# Sparse over a fresh build so every file is checked, not just changed ones.
if ! command -v sparse >/dev/null; then
	bad "sparse not installed (apt-get install sparse)"
else
	for k in $kernels; do
		kver=$("$top/scripts/kver.sh" "$k") || { bad "sparse $k"; continue; }
		find "$build/kernel/$kver" -name '*.o' -delete 2>/dev/null
		if make -s -C kernel "sparse-$k" >"$build/sparse-$k.log" 2>&1; then
			ok "sparse $kver"
		elif grep -q 'no usable sparse' "$build/sparse-$k.log"; then
			# Neither ok nor failed: nothing was checked.
			echo "skip: sparse $kver (its root's sparse is too old for its kbuild)"
		else
			grep -E 'warning|error' "$build/sparse-$k.log" | sort -u
			bad "sparse $kver (log: build/sparse-$k.log)"
		fi
	done
fi

echo "lint: $passed passed, $failed failed"
((failed == 0))
