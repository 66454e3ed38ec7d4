#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CRC behind the ICRC (kernel/crc.c).  By default the module checks
# the kernel's crc32-pclmul driver against crc32_le(), times both at load
# and keeps the faster (emulated, the carry-less multiply is the slower,
# so the default path here is crc32_le); the icrc parameter forces one.
# Checked: the choice follows the logged speeds; a bogus icrc= refuses to
# load with a reason; and guest a forced to crc32-pclmul and guest b to
# crc32_le exchange validated RC messages, each side checking the other's
# ICRCs, with no ICRC drop.
. "$SROCE_TOP/tests/vm/device/device-lib.bash"
sd_reset
trap sd_reset EXIT

icrc_line() { dmesg | grep -o 'sroce: ICRC by .*' | tail -n 1; }

modprobe sroce || fail "modprobe sroce failed"
line=$(icrc_line)
[[ -n $line ]] || fail "no 'sroce: ICRC by' line in the kernel log"
log "auto: $line"
pclmul=0
grep -qw pclmulqdq /proc/cpuinfo && modinfo crc32-pclmul >/dev/null 2>&1 && pclmul=1
if ((pclmul)); then
	re='^sroce: ICRC by ([a-z0-9_-]+): crc32-pclmul ([0-9]+) MB/s, crc32_le ([0-9]+) MB/s$'
	[[ $line =~ $re ]] || fail "crc32-pclmul is there, but not timed: $line"
	want=crc32_le
	((BASH_REMATCH[2] > BASH_REMATCH[3])) && want=crc32-pclmul
	[[ ${BASH_REMATCH[1]} == "$want" ]] ||
		fail "chose ${BASH_REMATCH[1]}, the faster is $want"
fi
rmmod sroce || fail "rmmod failed"

if modprobe sroce icrc=sha256 2>/dev/null; then
	fail "icrc=sha256 loaded"
fi
dmesg | tail -n 5 | grep -q 'sroce: icrc=sha256: no such crc32 driver' ||
	fail "icrc=sha256 refused without the reason in the kernel log"
! grep -q '^sroce ' /proc/modules || fail "sroce loaded after icrc=sha256"

((pclmul)) || skip "no PCLMULQDQ or no crc32-pclmul: one implementation only"
mine=crc32_le
is_a && mine=crc32-pclmul
modprobe sroce icrc=$mine || fail "modprobe sroce icrc=$mine failed"
[[ $(icrc_line) == "sroce: ICRC by $mine (icrc=$mine)" ]] ||
	fail "icrc=$mine: $(icrc_line)"
rdma link add sroce0 type sroce netdev "$SROCE_IF" || fail "rdma link add failed"
sd_expect_state sroce0 ACTIVE LINK_UP
sd_need_provider sroce0
gid=$(sroce_gid_index sroce0 "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
args="-d sroce0 -g $gid -p 18700 -n 50 -s 4500 -c"
if is_a; then
	timeout -k 5 90 ibv_rc_pingpong $args >"$SROCE_OUT/pp" 2>&1 &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		ss -Hltn "sport = :18700" | grep -q . && break
		sleep 0.2
	done
	sroce_barrier listening
	wait "$pid" || { cat "$SROCE_OUT/pp" >&2; fail "server failed"; }
else
	sroce_barrier listening
	timeout -k 5 90 ibv_rc_pingpong $args "$SROCE_PEER" >"$SROCE_OUT/pp" 2>&1 ||
		{ cat "$SROCE_OUT/pp" >&2; fail "client failed"; }
fi
grep -q '^50 iters in' "$SROCE_OUT/pp" || { cat "$SROCE_OUT/pp" >&2; fail "no '50 iters in'"; }
! grep -qi 'invalid data' "$SROCE_OUT/pp" || fail "received data did not validate"
drops=$(sroce_ctr rx_drop_bad_icrc sroce0)
[[ $drops == 0 ]] || fail "rx_drop_bad_icrc $drops"
log "$mine: $(grep -h 'iters in' "$SROCE_OUT/pp"), rx_drop_bad_icrc 0"
