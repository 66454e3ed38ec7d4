#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over Fabrics across the mixed pair, turned around: the nvmet
# target on rdma_rxe (guest b), the nvme-rdma host on sroce (guest a),
# so sroce's fast-reg MRs and remote invalidation serve rxe's RDMA.
# consumers/nvmeof.sh, bounded to 4 MiB per phase.
export CONS_TARGET=b CONS_MIB=${CONS_MIB:-4} CONS_WAIT=${CONS_WAIT:-500}
. "$SROCE_TOP/tests/vm/consumers/nvmeof.sh"
