#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# perftest with its QPs connected by rdma_cm (-R) instead of its own TCP
# exchange: the path through ib_core's connection manager, its MADs on
# QP1 (GSI) and address resolution, for SEND and RDMA WRITE.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"

dp_need_rdma_cm
perf ib_send_bw cm-send-bw 18721 16384 100 -R
perf ib_write_bw cm-write-bw 18722 16384 100 -R
perf ib_send_lat cm-send-lat 18723 64 100 -R
