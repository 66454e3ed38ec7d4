#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# consumers/nfs.sh between sroce (guest a) and rdma_rxe (guest b).
export CONS_WAIT=${CONS_WAIT:-500}
. "$SROCE_TOP/tests/vm/consumers/nfs.sh"
