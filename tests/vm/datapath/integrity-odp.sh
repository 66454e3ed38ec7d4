#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/verbs/integrity.c between the guests with on-demand paging
# MRs on both sides (--odp): every operation type on 4 RC QPs, every
# byte and completion checked, the MRs' pages dropped (MADV_DONTNEED)
# before each round, so every round faults them in again after an
# invalidation (Documentation/odp.rst).  Both guests' odp_page_faults and
# odp_invalidations must grow.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/integrity.lib"

[[ $SROCE_DRIVER == sroce ]] || skip "sroce ODP counters (driver is $SROCE_DRIVER)"
f0=$(sroce_ctr odp_page_faults)
i0=$(sroce_ctr odp_invalidations)
INTEGRITY_SERVER_ARGS=--odp integrity_pair integrity-odp 300 18804 4 \
	--seed 4 --qps 4 --ops 200 --bytes 8M --max-size 1M --odp
f=$(($(sroce_ctr odp_page_faults) - f0))
i=$(($(sroce_ctr odp_invalidations) - i0))
log "integrity-odp: odp_page_faults +$f, odp_invalidations +$i"
((f > 0 && i > 0)) || fail "integrity-odp: the ODP counters did not grow"
