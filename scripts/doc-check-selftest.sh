#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test of scripts/doc-check.py: on a copy of the files it reads, the
# unmodified tree must pass, and each change below must make it fail with
# the finding that names the change:
#   a device counter renamed in kernel/counters.c
#   a drop reason renamed in kernel/proto/drop.c
#   a module parameter added to kernel/net.c
#   README naming a module parameter that does not exist
#   README naming a make target that does not exist
#   a .PHONY target added to the Makefile, not in make help or the docs
#   a counter's entry missing from kernel/sroce.7
#   kernel/sroce.7 naming a module parameter that does not exist
# Prints one "ok:" or "FAILED:" line per case; exits 1 if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
check=$top/scripts/doc-check.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

fresh() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/kernel/proto"
	cp -r "$top/README.md" "$top/Makefile" "$top/Documentation" "$tmp/t/"
	cp "$top"/kernel/*.c "$top/kernel/sroce.7" "$tmp/t/kernel/"
	cp "$top"/kernel/proto/drop.[ch] "$tmp/t/kernel/proto/"
}

# case NAME WANT: run the checker on the copy; WANT is "pass" or a fixed
# string its output must contain (and it must fail).
case_() {
	local name=$1 want=$2 out rc
	out=$("$check" "$tmp/t" 2>&1)
	rc=$?
	if [[ $want == pass ]]; then
		if ((rc == 0)); then
			echo "ok: doc-check self-test: $name passes"
			return
		fi
	elif ((rc != 0)) && grep -qF -- "$want" <<<"$out"; then
		echo "ok: doc-check self-test: $name caught"
		return
	fi
	echo "$out" | sed 's/^/  | /'
	echo "FAILED: doc-check self-test: $name (wanted: $want)"
	failed=$((failed + 1))
}

fresh
case_ "unmodified copy" pass

# The first device counter, whatever it is called today.
fresh
old=$(sed -n 's/^\t\[SROCE_CTR_[A-Z_]*\][ \t]*= "\([a-z0-9_]*\)",$/\1/p' \
	"$tmp/t/kernel/counters.c" | head -n1)
if [[ -z $old ]]; then
	echo "FAILED: doc-check self-test: no device counter found to rename"
	failed=$((failed + 1))
else
	sed -i "s/\"$old\"/\"${old}_renamed\"/" "$tmp/t/kernel/counters.c"
	case_ "counter $old renamed in kernel/counters.c" "${old}_renamed ("
	case_ "counter $old renamed, docs still naming it" \
		"names counter \"$old\""
	case_ "counter $old renamed, sroce.7 still naming it" \
		"kernel/sroce.7, COUNTERS has an entry for counter \"$old\""
fi

# The last drop reason.
fresh
old=$(sed -n 's/^\t\[SROCE_DROP_[A-Z_]*\][ \t]*= "\([a-z0-9_]*\)",$/\1/p' \
	"$tmp/t/kernel/proto/drop.c" | tail -n1)
if [[ -z $old ]]; then
	echo "FAILED: doc-check self-test: no drop reason found to rename"
	failed=$((failed + 1))
else
	sed -i "s/\"$old\"/\"${old}_renamed\"/" "$tmp/t/kernel/proto/drop.c"
	case_ "drop reason $old renamed in kernel/proto/drop.c" \
		"rx_drop_${old}_renamed ("
fi

fresh
printf 'static int probe;\nmodule_param(doc_check_probe, int, 0444);\n' \
	>>"$tmp/t/kernel/net.c"
case_ "undocumented module parameter" "doc_check_probe (kernel/net.c)"

fresh
printf '\nSet `doc_check_probe=1` (module parameter).\n' >>"$tmp/t/README.md"
case_ "README naming a missing module parameter" \
	'names module parameter "doc_check_probe"'

fresh
printf '\n    make doc-check-probe\n' >>"$tmp/t/README.md"
case_ "README naming a missing make target" '"make doc-check-probe"'

fresh
printf '\n.PHONY: doc-check-probe\ndoc-check-probe:\n\t@true\n' \
	>>"$tmp/t/Makefile"
case_ "undocumented .PHONY target" '"doc-check-probe" is not in make help'

# The entry of the first device counter, tag line and the one after it.
fresh
old=$(sed -n 's/^\t\[SROCE_CTR_[A-Z_]*\][ \t]*= "\([a-z0-9_]*\)",$/\1/p' \
	"$tmp/t/kernel/counters.c" | head -n1)
sed -i "/^\.B $old\$/,+1d" "$tmp/t/kernel/sroce.7"
case_ "counter $old missing from sroce.7" \
	"$old (kernel/counters.c sroce_ctr_names) has no entry in kernel/sroce.7"

fresh
printf '.PP\nSee /sys/module/sroce/parameters/doc_check_probe.\n' \
	>>"$tmp/t/kernel/sroce.7"
case_ "sroce.7 naming a missing module parameter" \
	'kernel/sroce.7 names module parameter "doc_check_probe"'

# A simple table whose text runs into the gap between its columns.
fresh
printf '\n=====  =====\nab     cd\nabcdefg  hi\n=====  =====\n' \
	>>"$tmp/t/Documentation/testing.rst"
case_ "malformed table in testing.rst" "Documentation/testing.rst:"

((failed == 0))
