#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# consumers/nvmeof.sh, bounded (4 MiB per phase), with 1% netem loss on
# both guests' wire and the target receiving on shared receive queues
# (nvmet_rdma use_srq=1): the kernel SRQ path under retransmission and
# RNR.  The long versions are in make soak (consumers-loss).
export CONS_LOSS=${CONS_LOSS:-1%} CONS_MIB=${CONS_MIB:-4}
export CONS_WAIT=${CONS_WAIT:-600} CONS_NVMET_SRQ=${CONS_NVMET_SRQ:-1}
. "$SROCE_TOP/tests/vm/consumers/nvmeof.sh"
