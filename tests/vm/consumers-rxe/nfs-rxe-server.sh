#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# consumers/nfs.sh turned around: the server on rdma_rxe (guest b), the
# client on sroce (guest a).
export CONS_TARGET=b CONS_WAIT=${CONS_WAIT:-500}
. "$SROCE_TOP/tests/vm/consumers/nfs.sh"
