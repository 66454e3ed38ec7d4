#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# RDMA WRITE, RDMA READ and FETCH_ADD with perftest, bounded runs (-n),
# first sroce as the requester against rxe's responder (s2r), then the
# reverse (r2s); CMP_SWAP, and both atomics' values, are integrity.sh's.  4 KiB messages: WRITE FIRST/MIDDLE/LAST and READ
# RESPONSE FIRST/MIDDLE/LAST at MTU 1024.  perftest checks no data
# (integrity.sh does); the client must report a positive figure.
#
# READ and atomics run at perftest's default depth: it gives the
# requester's QP the responder's max_qp_rd_atom as its max_rd_atomic,
# 128 on rdma_rxe and on sroce, so both drivers keep up to 128 requests
# outstanding against the other (a requester with a lower limit, an mlx5
# facing rxe, rightly fails ibv_modify_qp(RTS) with EINVAL).  The READ
# client checks that perftest used 128.
. "$SROCE_TOP/tests/vm/interop/interop.lib"

port=18910
for dir in s2r r2s; do
	ix_dir "$dir"
	ix_perf ib_write_bw "$dir-write" $((port++)) 4096 20
	ix_perf ib_read_bw "$dir-read" $((port++)) 4096 200
	dp_is_server || grep -Eq "Outstand reads +: 128" "$(dp_out "$dir-read")" ||
		fail "$dir-read: perftest did not keep 128 READs outstanding"
	ix_perf ib_atomic_bw "$dir-fetch-add" $((port++)) 8 200
done
