#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over Fabrics across the mixed pair: the nvmet target on sroce
# (guest a), the nvme-rdma host on rdma_rxe (guest b).  The host SENDs
# the commands; the target answers with RDMA WRITE and READ into the
# host's fast-registered buffers and invalidates them remotely.
# consumers/nvmeof.sh, bounded to 4 MiB per phase.
export CONS_TARGET=a CONS_MIB=${CONS_MIB:-4} CONS_WAIT=${CONS_WAIT:-500}
. "$SROCE_TOP/tests/vm/consumers/nvmeof.sh"
