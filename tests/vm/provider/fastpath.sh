#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/fastpath.c under strace, in guest a (guest b idles):
# the system calls each data-path phase made.  post_recv and poll_cq must
# make none; post_send at most one per call.  Built by make provider.
. "$SROCE_TOP/tests/vm/lib.sh"

is_a || exit 0
bin=$SROCE_TOP/build/provider/fastpath
[[ -x $bin ]] || fail "$bin not built"
command -v strace >/dev/null || skip "strace not installed"
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
n=${FASTPATH_N:-1000}
trace=$SROCE_OUT/strace.txt

rc=0
strace -o "$trace" "$bin" "$SROCE_DEV" "$gid" "$n" || rc=$?

# Lines strictly between write(-1, "begin X") and write(-1, "end X").
calls() {
	awk -v b="write(-1, \"begin $1\"" -v e="write(-1, \"end $1\"" '
		index($0, e) == 1 { on = 0 }
		on { n++ }
		index($0, b) == 1 { on = 1 }
		END { print n + 0 }' "$trace"
}
ioctls() {
	awk -v b="write(-1, \"begin $1\"" -v e="write(-1, \"end $1\"" '
		index($0, e) == 1 { on = 0 }
		on && /^ioctl\(/ { n++ }
		index($0, b) == 1 { on = 1 }
		END { print n + 0 }' "$trace"
}
for phase in post_recv poll_empty send_one send_list; do
	log "$phase: $(calls $phase) system calls ($(ioctls $phase) ioctl)"
done
((rc == 0)) || fail "fastpath exited with $rc"
(($(calls post_recv) == 0)) || fail "post_recv made system calls"
(($(calls poll_empty) == 0)) || fail "poll_cq made system calls"
one=$((3 * n / 4))
(($(calls send_one) <= one)) || fail "more than one system call per post_send"
(($(calls send_list) <= 1)) || fail "more than one system call for one post_send of a list"
