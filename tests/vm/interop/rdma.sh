#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# RDMA WRITE, RDMA READ and FETCH_ADD with perftest, bounded runs (-n),
# first sroce as the requester against rxe's responder (s2r), then the
# reverse (r2s); CMP_SWAP, and both atomics' values, are integrity.sh's.  4 KiB messages: WRITE FIRST/MIDDLE/LAST and READ
# RESPONSE FIRST/MIDDLE/LAST at MTU 1024.  perftest checks no data
# (integrity.sh does); the client must report a positive figure.
#
# READ and atomics run with -o 16 (outstanding reads) on both sides:
# perftest gives the requester's QP the responder's figure as its
# max_rd_atomic, so a requester whose limit is below the responder's
# (an mlx5 facing rxe's 128, or sroce before its limit became 128)
# rightly fails ibv_modify_qp(RTS) with EINVAL.  16 keeps the case about
# the wire, valid against any peer.
. "$SROCE_TOP/tests/vm/interop/interop.lib"

port=18910
for dir in s2r r2s; do
	ix_dir "$dir"
	ix_perf ib_write_bw "$dir-write" $((port++)) 4096 20
	ix_perf ib_read_bw "$dir-read" $((port++)) 4096 20 -o 16
	ix_perf ib_atomic_bw "$dir-fetch-add" $((port++)) 8 20 -o 16
done
