#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/verbs/integrity.c between sroce and rxe (integrity.lib):
# WRITE, WRITE_WITH_IMM, READ, SEND, SEND_WITH_IMM, CMP_SWAP and
# FETCH_ADD on 2 RC QPs, every byte and completion checked on both sides.
# The client (requester) in sroce over IPv4 with seed 1, then in rxe over
# IPv6 with seed 2; small budgets (rxe READs crawl under TCG).
# ATOMIC_WRITE runs both ways against rdma_rxe of 6.2 and later;
# rdma_rxe of 6.1 has neither it nor FLUSH, and the client must say so.
. "$SROCE_TOP/tests/vm/interop/interop.lib"
. "$SROCE_TOP/tests/vm/datapath/integrity.lib"

ix_dir s2r
# rdma_rxe of 7.3 computes a FLUSH's ICRC over its headers twice and
# drops sroce's FLUSHes, which carry the IBA's ICRC, as corrupt
# (Documentation/interop.rst): sroce's client leaves FLUSH out, saying
# why.  The other way sroce accepts rxe's variant, but rxe resends a
# retried FLUSH with virtual address 0, which any responder must refuse
# as a remote access error: left out there too, saying why.
# (integrity_pair's arguments pass through an eval: '+' for a space)
noflush=rdma_rxe+drops+an+IBA+FLUSH+ICRC,+Documentation/interop.rst
noflush_r2s=rdma_rxe+resends+a+FLUSH+with+VA+0,+Documentation/interop.rst
integrity_pair s2r-integrity4 180 18920 4 --seed 1 --qps 2 --ops 60 --bytes 1M --max-size 64K \
	--no-flush $noflush
if kernel_has_flush; then
	integrity_placement s2r-integrity4 ran skipped
else
	integrity_placement s2r-integrity4 skipped skipped
fi
ix_dir r2s
integrity_pair r2s-integrity6 180 18921 6 --seed 2 --qps 2 --ops 60 --bytes 1M --max-size 64K \
	--no-flush $noflush_r2s
if kernel_has_flush; then
	integrity_placement r2s-integrity6 ran skipped
else
	integrity_placement r2s-integrity6 skipped skipped
fi
