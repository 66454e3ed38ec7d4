#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-all.sh [--list] KERNEL...: the VM phase of `make check`.  For each
# kernel and each group directory tests/vm/<group>/ holding *.sh tests,
# boot the two guests once with the group's options (SROCE_VM_ARGS in
# tests/vm/<group>/group.conf) and run the group's tests, sorted.  A group
# that cannot boot (say, sroce.ko is not built) counts every one of its
# tests as failed: nothing passes by not running.  --list prints each
# group's tests as they would run, and boots nothing.
#
# Variants: the same scripts with other options, sizes or drivers are a
# group whose directory holds only a group.conf setting SROCE_VM_TESTS,
# the scripts to run instead of its own, as paths under tests/vm (globs
# allowed, run in the order listed), e.g. SROCE_VM_TESTS="reliability/*.sh",
# with its own SROCE_VM_ARGS (drivers, timeout) and SROCE_VM_ENV (sizes,
# loss).  A name that matches no script counts as a failed test.
#
# A KERNEL written smoke:K (make check: smoke:5.10 smoke:6.12) runs only
# the smoke groups on K: those whose group.conf sets SROCE_VM_SMOKE=1, a
# few scripts of the full groups that prove the module loads, talks and
# serves a kernel consumer on a kernel the full suite does not boot.  On
# a kernel given plainly they are left out (their scripts run in their
# own groups there) unless SROCE_VM_GROUPS names them.
#
# SROCE_VM_GROUPS="g1 g2" limits the run to those groups ("selftest" is
# tools/vm/selftest, run once on the first kernel).  A group whose
# group.conf sets SROCE_VM_ONCE=1 runs on the first kernel only.  A group
# whose group.conf sets SROCE_VM_DISABLED=1 is skipped (with a log line) unless
# SROCE_VM_GROUPS names it.  SROCE_VM_ENV in a group.conf ("NAME=VALUE
# ...") sets variables for that group's guest scripts only.
#
# The output ends with "vm: N passed, M failed"; the exit status is 0 only
# if nothing failed.
set -uo pipefail

# One compound command: parsed whole before it runs, so edits to this
# file cannot upset a run in progress.
{
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tools/sroce-vm
list=0
[[ ${1:-} == --list ]] && { list=1; shift; }
(($#)) || set -- 6.1 7.3 smoke:5.10 smoke:6.12
first=${1#smoke:}

passed=0 failed=0 skipped=0
groups=()
for d in "$top"/tests/vm/*/; do
	g=$(basename "$d")
	if [[ -n ${SROCE_VM_GROUPS:-} && " $SROCE_VM_GROUPS " != *" $g "* ]]; then
		continue
	fi
	# A variant has only its group.conf (SROCE_VM_TESTS).
	if compgen -G "$d*.sh" >/dev/null ||
		grep -qs '^SROCE_VM_TESTS=' "$d/group.conf"; then
		groups+=("$g")
	fi
done

# First prove the harness can fail at all (tools/vm/selftest), once.
if ((!list)) &&
	[[ -z ${SROCE_VM_GROUPS:-} || " $SROCE_VM_GROUPS " == *" selftest "* ]]; then
	echo "=== vm $first selftest: the harness reports failures"
	log=$(mktemp)
	"$top/tools/vm/selftest" "$first" 2>&1 | tee "$log" |
		sed -u '/^vm: [0-9]* passed, [0-9]* failed$/d'
	line=$(grep -E '^vm: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	if [[ -n $line ]]; then
		read -r _ p _ f _ <<<"$line"
	else
		p=0 f=1
	fi
	echo "vm $first selftest: $p passed, $f failed"
	passed=$((passed + p)) failed=$((failed + f))
	rm -f "$log"
fi

for kernel in "$@"; do
	smoke=0
	[[ $kernel == smoke:* ]] && smoke=1 kernel=${kernel#smoke:}
	for g in "${groups[@]}"; do
		dir=$top/tests/vm/$g
		SROCE_VM_ARGS='' SROCE_VM_DISABLED='' SROCE_VM_POST='' SROCE_VM_ONCE=''
		SROCE_VM_ENV='' SROCE_VM_TESTS='' SROCE_VM_SMOKE=''
		if [[ -f $dir/group.conf ]]; then
			# shellcheck source=/dev/null
			. "$dir/group.conf"
		fi
		if ((smoke)) && [[ $SROCE_VM_SMOKE != 1 ]]; then
			continue
		fi
		if ((!smoke)) && [[ $SROCE_VM_SMOKE == 1 &&
			" ${SROCE_VM_GROUPS:-} " != *" $g "* ]]; then
			continue
		fi
		tests=() missing=()
		if [[ -n $SROCE_VM_TESTS ]]; then
			read -r -d '' -a words <<<"$SROCE_VM_TESTS" || true
			for t in "${words[@]}"; do
				m=$(compgen -G "$top/tests/vm/$t" | sort) || m=
				[[ -n $m ]] || { missing+=("$t"); continue; }
				mapfile -t -O "${#tests[@]}" tests <<<"$m"
			done
		else
			mapfile -t tests < <(printf '%s\n' "$dir"/*.sh | sort)
		fi
		# A group not ready for make check sets SROCE_VM_DISABLED=1 in
		# its group.conf; naming it in SROCE_VM_GROUPS runs it anyway.
		if [[ ${SROCE_VM_DISABLED:-} == 1 && " ${SROCE_VM_GROUPS:-} " != *" $g "* ]]; then
			echo "=== vm $kernel $g: disabled (SROCE_VM_DISABLED=1 in $g/group.conf), not run"
			continue
		fi
		# SROCE_VM_ONCE=1: the group tests the harness, not the kernel
		# under it, so the first kernel is enough (make check's time is
		# mostly emulated CPU).
		if [[ ${SROCE_VM_ONCE:-} == 1 && $kernel != "$first" ]]; then
			echo "=== vm $kernel $g: run once, on $first (SROCE_VM_ONCE=1 in $g/group.conf)"
			continue
		fi
		if ((list)); then
			echo "=== vm $kernel $g: ${#tests[@]} tests ($SROCE_VM_ARGS)${SROCE_VM_ENV:+ (env: ${SROCE_VM_ENV//$'\n'/ })}"
			printf '  %s\n' "${tests[@]#"$top"/tests/vm/}" "${missing[@]/%/ (missing)}"
			continue
		fi
		if ((${#missing[@]})); then
			echo "FAIL $g: SROCE_VM_TESTS in $g/group.conf names no script: ${missing[*]}"
			failed=$((failed + ${#missing[@]}))
			((${#tests[@]})) || continue
		fi
		echo "=== vm $kernel $g: ${#tests[@]} tests ($SROCE_VM_ARGS)"
		log=$(mktemp)
		started=$(date +%s)
		# SROCE_VM_ENV: NAME=VALUE words, exported to the guests by name.
		envpass=()
		for kv in $SROCE_VM_ENV; do envpass+=("${kv%%=*}"); done
		# shellcheck disable=SC2086 # SROCE_VM_ARGS, SROCE_VM_ENV are word lists
		env $SROCE_VM_ENV SROCE_VM_PASS="${SROCE_VM_PASS:-} ${envpass[*]}" \
			"$vm" --kernel "$kernel" $SROCE_VM_ARGS "${tests[@]}" 2>&1 |
			tee "$log" | sed -u '/^vm: [0-9]* passed, [0-9]* failed$/d'
		line=$(grep -E '^vm: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
		if [[ -n $line ]]; then
			read -r _ p _ f _ <<<"$line"
			s=$(sed -n 's/^vm: \([0-9]*\) skipped$/\1/p' "$log" | tail -n 1)
			echo "vm $kernel $g: $p passed, $f failed${s:+, $s skipped}"
		else
			p=0 f=${#tests[@]} s=0
			echo "vm $kernel $g: could not run (see above): ${#tests[@]} tests count as failed"
		fi
		# SROCE_VM_POST (group.conf): a host command run after the boot,
		# e.g. to judge what the guests left in the run; one more test.
		# SROCE_VM_STARTED lets it refuse files older than this boot.
		if [[ -n $SROCE_VM_POST ]]; then
			if SROCE_VM_STARTED=$started bash -c "$SROCE_VM_POST"; then
				echo "PASS $g/post"
				p=$((p + 1))
			else
				echo "FAIL $g/post ($SROCE_VM_POST)"
				f=$((f + 1))
			fi
		fi
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
		rm -f "$log"
	done
done
((list)) && exit 0
((skipped)) && echo "vm: $skipped skipped"
echo "vm: $passed passed, $failed failed"
((failed == 0))
exit
}
