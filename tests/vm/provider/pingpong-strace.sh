#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# ibv_rc_pingpong over sroce between the guests (server a, client b), each
# under strace -c, to count the system calls of the data path: post_recv
# and poll_cq make none, post_send at most one doorbell (an ioctl() or
# write() on the verbs fd).
#   tools/sroce-vm tests/vm/provider/pingpong-strace.sh
# PINGPONG_ITERS (default 500), PINGPONG_SIZE (default 4096).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/scripts/verbs-env.sh" || fail "scripts/verbs-env.sh failed"

iters=${PINGPONG_ITERS:-500}
size=${PINGPONG_SIZE:-4096}
port=18515
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
command -v strace >/dev/null || skip "strace not installed"

args=(-d "$SROCE_DEV" -g "$gid" -n "$iters" -s "$size" -p "$port")
trace=$SROCE_OUT/strace.txt
if is_a; then
	strace -f -c -o "$trace" ibv_rc_pingpong "${args[@]}" >"$SROCE_OUT/pp.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		ss -ltn | grep -q ":$port " && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sroce_barrier listening 180
	rc=0
	wait "$pid" || rc=$?
else
	sroce_barrier listening 180
	rc=0
	strace -f -c -o "$trace" ibv_rc_pingpong "${args[@]}" "$SROCE_PEER" \
		>"$SROCE_OUT/pp.out" 2>&1 || rc=$?
fi
cat "$SROCE_OUT/pp.out"
log "strace -c summary ($iters iterations):"
cat "$trace"
((rc == 0)) || fail "ibv_rc_pingpong exited with $rc"
grep -q "$iters iters in" "$SROCE_OUT/pp.out" || fail "no iteration summary"
# Verbs commands: setup plus at most one doorbell per send.
for sc in ioctl write; do
	n=$(awk -v sc=$sc '$NF == sc { print $4 }' "$trace")
	log "$sc() calls: ${n:-0} for $iters sends"
done
sroce_barrier finished 180
