#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# perftest over RC, each a short bounded run: SEND, RDMA WRITE and RDMA
# READ bandwidth with messages of several MTUs, their latency with small
# ones, and both atomics (perftest's default FETCH_ADD, then CMP_SWAP);
# then SEND and RDMA WRITE bandwidth with the QPs connected by rdma_cm
# (-R) instead of perftest's own TCP exchange: ib_core's connection
# manager, its MADs on QP1 (GSI) and address resolution.
# Perftest does not check data (tests/vm/verbs/integrity.c does): these
# check that unmodified tools run to the end and report sane figures.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"

perf ib_send_bw rc-send-bw 18701 16384 100
perf ib_send_lat rc-send-lat 18702 64 100
perf ib_write_bw rc-write-bw 18703 16384 100
perf ib_write_lat rc-write-lat 18704 64 100
perf ib_read_bw rc-read-bw 18705 16384 100
perf ib_read_lat rc-read-lat 18706 64 100
perf ib_atomic_bw rc-atomic-bw 18707 8 100
perf ib_atomic_lat rc-atomic-lat 18708 8 100 -A CMP_AND_SWAP

dp_need_rdma_cm
perf ib_send_bw cm-send-bw 18721 16384 100 -R
perf ib_write_bw cm-write-bw 18722 16384 100 -R
