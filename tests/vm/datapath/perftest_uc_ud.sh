#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# perftest over UC (SEND and RDMA WRITE, bandwidth and latency) and UD
# (SEND, bandwidth and latency, one MTU at most): the transports perftest
# offers besides RC.  UC and UD do not recover a lost packet, and an
# emulated NIC does lose some under a burst: the bandwidth runs are timed
# (-D 3) rather than counted, the latency runs (one message in flight)
# are short counted runs.  4 KiB messages: several packets each, and
# enough of them complete in the window on a slow emulated device.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/perftest.lib"

mtu=$(dp_active_mtu)
perf ib_send_bw uc-send-bw 18711 4096 3s -c UC
perf ib_send_lat uc-send-lat 18712 64 50 -c UC
perf ib_write_bw uc-write-bw 18713 4096 3s -c UC
perf ib_write_lat uc-write-lat 18714 64 50 -c UC
perf ib_send_bw ud-send-bw 18715 "$mtu" 3s -c UD
perf ib_send_lat ud-send-lat 18716 64 50 -c UD
