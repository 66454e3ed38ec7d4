#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/odp.c in guest a (guest b idles): on-demand paging
# MRs as WRITE/READ/SEND/atomic targets and sources, MADV_DONTNEED and
# munmap under them, fork, ibv_advise_mr.  `rdma statistic` must show the
# ODP counters, and the ones the program saw grow.  Built by make
# provider.
. "$SROCE_TOP/tests/vm/provider/provider.lib"

is_a || exit 0
bin=$SROCE_TOP/build/provider/odp
[[ -x $bin ]] || fail "$bin not built"
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
f0=$(sroce_ctr odp_page_faults)
i0=$(sroce_ctr odp_invalidations)
p0=$(sroce_ctr odp_prefetches)
run_quiet "$SROCE_OUT/odp.txt" "$bin" "$SROCE_DEV" "$gid"
grep -h '^FAIL\|^odp:\|^page faults' "$SROCE_OUT/odp.txt" | sed 's/^/  /'
grep -q '^odp: [0-9]* passed, 0 failed$' "$SROCE_OUT/odp.txt" || fail "odp checks failed"
f=$(($(sroce_ctr odp_page_faults) - f0))
i=$(($(sroce_ctr odp_invalidations) - i0))
p=$(($(sroce_ctr odp_prefetches) - p0))
log "$(tail -n1 "$SROCE_OUT/odp.txt"); odp_page_faults +$f, odp_invalidations +$i, odp_prefetches +$p"
((f > 0 && i > 0 && p >= 3)) || fail "ODP counters did not grow"
st=$(rdma statistic show link "$SROCE_DEV/1") || fail "rdma statistic show failed"
for c in odp_page_faults odp_invalidations odp_prefetches; do
	grep -qw "$c" <<<"$st" || fail "rdma statistic does not show $c"
done
