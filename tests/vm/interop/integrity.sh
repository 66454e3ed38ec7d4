#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/verbs/integrity.c between sroce and rxe (integrity.lib):
# WRITE, WRITE_WITH_IMM, READ, SEND, SEND_WITH_IMM, CMP_SWAP and
# FETCH_ADD on 2 RC QPs, every byte and completion checked on both sides.
# The client (requester) in sroce over IPv4 with seed 1, then in rxe over
# IPv6 with seed 2; small budgets (rxe READs crawl under TCG).
# ATOMIC_WRITE and FLUSH run both ways against rdma_rxe of 6.2 and
# later; rdma_rxe of 6.1 has neither, and the client must say so.
. "$SROCE_TOP/tests/vm/interop/interop.lib"
. "$SROCE_TOP/tests/vm/datapath/integrity.lib"

# rdma_rxe drops a FLUSH with the IBA's ICRC as corrupt: sroce's
# requester finds its variant on each QP's first FLUSH by resending
# (flush_icrc_switches; Documentation/interop.rst, "FLUSH").
ix_dir s2r
integrity_pair s2r-integrity4 180 18920 4 --seed 1 --qps 2 --ops 60 --bytes 1M --max-size 64K
if kernel_has_flush; then
	integrity_placement s2r-integrity4 ran ran
	if is_a; then
		n=$(sroce_ctr flush_icrc_switches) || exit 1
		((n >= 1)) ||
			fail "s2r-integrity4: FLUSHes completed on rdma_rxe with no ICRC switch"
		log "s2r-integrity4: flush_icrc_switches $n"
	fi
else
	integrity_placement s2r-integrity4 skipped skipped
fi
# rdma_rxe resends a retried range FLUSH with virtual address 0, which
# any responder must refuse: its client flushes whole MRs, which name no
# range.
ix_dir r2s
integrity_pair r2s-integrity6 180 18921 6 --seed 2 --qps 2 --ops 60 --bytes 1M --max-size 64K \
	--flush-level mr
if kernel_has_flush; then
	integrity_placement r2s-integrity6 ran ran
else
	integrity_placement r2s-integrity6 skipped skipped
fi
