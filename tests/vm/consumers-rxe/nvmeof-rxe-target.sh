#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# consumers/nvmeof.sh turned around: the target on rdma_rxe (guest b),
# the host on sroce (guest a).
export CONS_TARGET=b CONS_WAIT=${CONS_WAIT:-500}
. "$SROCE_TOP/tests/vm/consumers/nvmeof.sh"
