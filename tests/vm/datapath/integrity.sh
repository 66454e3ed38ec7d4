#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/verbs/integrity.c between the guests (integrity.lib): WRITE,
# WRITE_WITH_IMM, READ, SEND, SEND_WITH_IMM, CMP_SWAP and FETCH_ADD on 4
# RC QPs, up to 4 SGEs, every byte and every completion checked on both
# sides.  IPv4 with a fixed seed (a failure reproduces) and sizes up to
# 16 MiB (a 16 MiB WRITE always, the rest within a 20 MiB budget), then
# IPv6 with seed 2 (DP_INTEGRITY_SEED picks another, "random" one from
# the clock, printed) and sizes up to 1 MiB.  Last, the limits: 32 SGEs
# a WR (a SEND into 32 receive SGEs and a WRITE always) and 512-byte
# inline SENDs and WRITEs (one of each exactly 512), on 2 QPs, which
# also exercises the 1024-byte ring strides.  Under TCG rdma_rxe moves
# about 1.7 MB/s of WRITE and 0.3 MB/s of READ, hence the small budgets;
# DP_INTEGRITY_BYTES raises the first.  ATOMIC_WRITE runs on every
# kernel, FLUSH from 6.2 (before, the client must say why it skips it).
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/integrity.lib"

integrity_pair integrity4 240 18801 4 --seed 1 --qps 4 --ops 300 \
	--bytes "${DP_INTEGRITY_BYTES:-20M}" --max-size 16M
if kernel_has_flush; then
	integrity_placement integrity4 ran ran
else
	integrity_placement integrity4 ran skipped
fi
seed=${DP_INTEGRITY_SEED:-2}
if [[ $seed == random ]]; then
	if is_b; then
		seed=$(($(date +%s) % 100000 + 3))
		sroce_put integrity-seed "$seed"
	else
		seed=$(sroce_get integrity-seed)
	fi
fi
integrity_pair integrity6 240 18802 6 --seed "$seed" --qps 4 --ops 300 \
	--bytes 8M --max-size 1M
integrity_pair integrity-limits 240 18803 4 --seed 3 --qps 2 --ops 120 \
	--bytes 4M --max-size 256K --sge 32 --inline 512
out=$(dp_out integrity-limits)
if dp_is_server; then
	grep -q ' up to 32 SGEs, ' "$out" || fail "integrity-limits: no 32-SGE WR seen"
else
	grep -Eq ' up to 32 SGEs, [1-9][0-9]* inline,' "$out" ||
		fail "integrity-limits: no 32-SGE WR or no inline one"
fi
