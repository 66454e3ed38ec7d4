# SPDX-License-Identifier: GPL-2.0
#
# Helpers for sroce VM test scripts.  Source it first thing:
#
#	. "$SROCE_TOP/tests/vm/lib.sh"
#
# tools/sroce-vm runs every script in both guests at once, with bash, and
# this environment (see Documentation/vm.rst):
#	SROCE_ROLE (a|b)  SROCE_DEV  SROCE_IF  SROCE_ADDR  SROCE_ADDR6
#	SROCE_PEER  SROCE_PEER6  SROCE_OUT  SROCE_SYNC  SROCE_KVER
#	SROCE_DRIVER  SROCE_TOP
# Exit status: 0 pass, 77 skip, anything else fails.  The names below are
# a stable interface: tests are written against them.

# Fail on the first unchecked error, like a test should.
set -eo pipefail

log() {
	echo "[$SROCE_ROLE $(date +%T)] $*"
}

fail() {
	echo "FAIL[$SROCE_ROLE]: $*" >&2
	exit 1
}

skip() {
	echo "SKIP[$SROCE_ROLE]: $*" >&2
	exit 77
}

is_a() { [[ $SROCE_ROLE == a ]]; }
is_b() { [[ $SROCE_ROLE == b ]]; }

sroce_peer_role() {
	if is_a; then echo b; else echo a; fi
}

# expect_fail CMD...: the test fails unless CMD exits non-zero.  CMD's
# stderr is shown either way so the log says *how* it was refused.
expect_fail() {
	local err rc=0
	err=$(mktemp)
	"$@" 2>"$err" || rc=$?
	if [[ -s $err ]]; then
		sed 's/^/  stderr: /' "$err" >&2
	fi
	rm -f "$err"
	((rc != 0)) || fail "expected failure but succeeded: $*"
	log "failed as expected (rc=$rc): $*"
}

# sroce_barrier NAME [TIMEOUT]: wait until the other guest reaches the
# barrier of the same name (default timeout 120 s), then return.  A name
# may be reused: the Nth call pairs with the peer's Nth call.  The files
# live in SROCE_SYNC, a 9p share mounted cache=none, so a file created by
# one guest is seen by the other on its next lookup.
declare -gA _sroce_bar_count=()
sroce_barrier() {
	local name=${1:?sroce_barrier NAME [TIMEOUT]} timeout=${2:-120}
	local n=$((${_sroce_bar_count[$name]:-0} + 1))
	local mine peer deadline

	_sroce_bar_count[$name]=$n
	mine="$SROCE_SYNC/barrier.$name.$n.$SROCE_ROLE"
	peer="$SROCE_SYNC/barrier.$name.$n.$(sroce_peer_role)"
	: >"$mine"
	deadline=$((SECONDS + timeout))
	while [[ ! -e $peer ]]; do
		((SECONDS < deadline)) ||
			fail "barrier '$name' #$n: peer did not arrive in ${timeout}s"
		sleep 0.05
	done
}

# sroce_put NAME VALUE / sroce_get NAME [TIMEOUT]: pass a small value (a
# QPN, a GID, a port) to the peer through SROCE_SYNC.  sroce_get waits for
# the peer's sroce_put of the same NAME.
sroce_put() {
	local f="$SROCE_SYNC/value.$1.$SROCE_ROLE"
	printf '%s\n' "$2" >"$f.tmp"
	mv "$f.tmp" "$f"
}

sroce_get() {
	local f timeout=${2:-120} deadline
	f="$SROCE_SYNC/value.$1.$(sroce_peer_role)"
	deadline=$((SECONDS + timeout))
	while [[ ! -e $f ]]; do
		((SECONDS < deadline)) ||
			fail "sroce_get '$1': peer did not publish it in ${timeout}s"
		sleep 0.05
	done
	cat "$f"
}

# sroce_peek NAME: the peer's value of NAME if it was published; status 1
# at once if not.
sroce_peek() {
	local f
	f="$SROCE_SYNC/value.$1.$(sroce_peer_role)"
	[[ -e $f ]] && cat "$f"
}

# Device counters: the hw_counters of port 1 in sysfs, which are what
# "rdma statistic show link DEV/1" shows (sroce's and rxe's names
# differ).  Read them only through these; DEV defaults to SROCE_DEV.  The
# kernel caches a device's counters for 10 ms between reads.
#   sroce_ctr NAME [DEV]            the value; fails the test if DEV has
#                                   no counter NAME
#   sroce_ctrs [DEV]                every counter, NAME=VALUE lines: a
#                                   snapshot to keep in a file
#   sroce_ctr_delta BEFORE AFTER    of two snapshots, the counters that
#                                   moved, "NAME +N" a line
#   sroce_ctr_moved BEFORE AFTER ERE
#                                   of two snapshots, how far the counters
#                                   whose whole name matches ERE moved,
#                                   summed (0 if none did)
#   sroce_ctr_wait NAME MIN [SECS] [DEV]
#                                   wait until NAME reaches MIN (default
#                                   10 s, then return 1)
#   sroce_ctrs_show [LABEL] [DEV]   the nonzero counters on stderr, folded
#                                   and prefixed "  LABEL: counters: ",
#                                   for a failure's log
sroce_ctr() {
	local v
	read -r v 2>/dev/null <"/sys/class/infiniband/${2:-$SROCE_DEV}/ports/1/hw_counters/$1" ||
		fail "${2:-$SROCE_DEV} has no counter $1"
	echo "$v"
}

sroce_ctrs() {
	local f v
	for f in "/sys/class/infiniband/${1:-$SROCE_DEV}/ports/1/hw_counters"/*; do
		[[ $f == */lifespan ]] && continue
		read -r v <"$f" || continue
		echo "${f##*/}=$v"
	done
}

sroce_ctr_delta() {
	awk -F= 'NR == FNR { b[$1] = $2; next }
		$2 != b[$1] { printf "%s +%d\n", $1, $2 - b[$1] }' "$1" "$2"
}

sroce_ctr_moved() {
	sroce_ctr_delta "$1" "$2" |
		awk -v re="^($3)\$" '$1 ~ re { s += $2 } END { print s + 0 }'
}

sroce_ctr_wait() {
	local name=$1 min=$2 deadline=$((SECONDS + ${3:-10})) v
	while :; do
		# sroce_ctr has said why if it fails.
		v=$(sroce_ctr "$name" "${4:-}") || exit 1
		((v >= min)) && return 0
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}

sroce_ctrs_show() {
	sroce_ctrs "${2:-}" | awk -F= '$2 != 0' | tr '\n' ' ' | fold -s -w 150 |
		sed "s/^/  ${1:+$1: }counters: /" >&2
	echo >&2
}

# sroce_gid_index DEV ADDR [TYPE]: print the GID table index of ADDR on
# port 1 of DEV (IPv4 as dotted quad, IPv6 in any form), default type
# "RoCE v2".  Only the first 16 entries are read: under emulation reading
# the whole table takes minutes.
sroce_gid_index() {
	local dev=${1:?} addr=${2:?} type=${3:-RoCE v2} want i gid t
	local base=/sys/class/infiniband/$dev/ports/1

	if [[ $addr == *.* && $addr != *:* ]]; then
		want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
			${addr//./ })
	else
		want=$(_sroce_expand6 "$addr")
	fi
	for ((i = 0; i < 16; i++)); do
		gid=$(cat "$base/gids/$i" 2>/dev/null) || continue
		[[ $gid == "$want" ]] || continue
		t=$(cat "$base/gid_attrs/types/$i" 2>/dev/null) || continue
		if [[ $t == "$type" ]]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

# Expand an IPv6 address to the 8 x 4-hex-digit form sysfs prints.
_sroce_expand6() {
	local a=${1,,} head tail groups=() out=() g n i
	if [[ $a == *::* ]]; then
		head=${a%%::*} tail=${a#*::}
		IFS=: read -ra h <<<"$head"
		IFS=: read -ra t <<<"$tail"
		n=$((8 - ${#h[@]} - ${#t[@]}))
		groups=("${h[@]}")
		for ((i = 0; i < n; i++)); do groups+=(0); done
		groups+=("${t[@]}")
	else
		IFS=: read -ra groups <<<"$a"
	fi
	for g in "${groups[@]}"; do out+=("$(printf '%04x' "0x${g:-0}")"); done
	(IFS=:; echo "${out[*]}")
}

# sroce_kmsg_check: scan the kernel log written since this script started
# (or since the last sroce_kmsg_ack) now, print any splat, return 1 if
# there is one.  The harness does the same after the script exits.
sroce_kmsg_check() {
	local rc=0
	"$SROCE_TOP/tools/vm/kmsg-since" "${SROCE_VM_KMSG_SEQ:-0}" |
		"$SROCE_TOP/tools/vm/kmsg-scan" || rc=$?
	return $rc
}

# sroce_kmsg_ack: declare every kernel log line so far expected (a test
# that provokes a warning on purpose); the harness scans only what follows.
sroce_kmsg_ack() {
	local last
	last=$("$SROCE_TOP/tools/vm/kmsg-since" --last)
	echo "$last" >"$SROCE_VM_KMSG_ACK"
	SROCE_VM_KMSG_SEQ=$last
}

# sroce_kmsg_ack_only ERE: acknowledge the kernel log so far if every line
# the scanner flags in it matches ERE (what the test provoked); otherwise
# print the other flagged lines, acknowledge nothing and return 1.
sroce_kmsg_ack_only() {
	local other

	other=$("$SROCE_TOP/tools/vm/kmsg-since" "${SROCE_VM_KMSG_SEQ:-0}" |
		"$SROCE_TOP/tools/vm/kmsg-scan" | grep -Ev -e "$1" || true)
	if [[ -n $other ]]; then
		printf '%s\n' "$other" | sed 's/^/  kernel log: /' >&2
		return 1
	fi
	sroce_kmsg_ack
}
