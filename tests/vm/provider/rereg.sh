#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/rereg.c in guest a (guest b idles), inside a memory
# cgroup of its own: ibv_rereg_mr() changing translation, access and PD,
# alone and at once, the refusals, and 300 reregistrations that must
# leave no page pinned and no kernel memory charged.  Every access the
# program saw refused must show in the device's access_naks_sent and
# access_naks_rcvd counters.  Built by make provider.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

is_a || exit 0
bin=$SROCE_TOP/build/provider/rereg
[[ -x $bin ]] || fail "$bin not built"
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
cg=/sys/fs/cgroup
if [[ ! -f $cg/cgroup.controllers ]]; then
	mount -t cgroup2 cgroup2 $cg || fail "cannot mount cgroup2"
fi
grep -qw memory $cg/cgroup.controllers || fail "no memory controller"
echo +memory >$cg/cgroup.subtree_control || fail "cannot enable the memory controller"
dir=$cg/sroce-rereg
mkdir -p $dir
at_exit "rmdir $dir 2>/dev/null"
sent0=$(sroce_ctr access_naks_sent)
rcvd0=$(sroce_ctr access_naks_rcvd)
# The shell joins the cgroup, then becomes the program.
run_quiet "$SROCE_OUT/rereg.txt" sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' \
	sh "$dir" "$bin" "$SROCE_DEV" "$gid" "$dir"
grep -h '^FAIL\|^rereg:\|VmPin\|memcg' "$SROCE_OUT/rereg.txt" | sed 's/^/  /'
grep -q '^rereg: [0-9]* passed, 0 failed$' "$SROCE_OUT/rereg.txt" || fail "rereg checks failed"
n=$(sed -n 's/^remote access errors: //p' "$SROCE_OUT/rereg.txt")
sent=$(($(sroce_ctr access_naks_sent) - sent0))
rcvd=$(($(sroce_ctr access_naks_rcvd) - rcvd0))
log "$(tail -n1 "$SROCE_OUT/rereg.txt"); $n refused accesses, access NAKs sent $sent, received $rcvd"
((n > 0 && sent == n && rcvd == n)) || fail "access NAK counters ($sent sent, $rcvd received) do not match $n refused accesses"
