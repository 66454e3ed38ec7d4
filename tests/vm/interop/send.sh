#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# SEND between sroce and rxe with the verbs pingpong examples, receive
# buffers validated (-c).  A pingpong sends both ways, so each run has
# both drivers as requester; the server moves between the guests anyway.
# RC with 4 KiB messages (SEND FIRST, MIDDLE, LAST at MTU 1024) over
# IPv4 and small ones over IPv6, UC with 2 KiB ones, UD small; then RC
# SENDs that find no receive posted (RNR NAK and retry), each way.
. "$SROCE_TOP/tests/vm/interop/interop.lib"
. "$SROCE_TOP/tests/vm/datapath/pingpong.lib"

ix_dir s2r
pingpong rc s2r-rc4 18900 "$G4" 20 4096
ix_dir r2s
pingpong rc r2s-rc6 18901 "$G6" 20 64
ix_dir s2r
pingpong uc s2r-uc4 18902 "$G4" 20 2048
ix_dir r2s
pingpong ud r2s-ud4 18903 "$G4" 20 64

# Receiver not ready: ib_send_bw with one receive posted at a time (-r 1)
# against a burst of 20 SENDs, so the responder answers RNR NAK and the
# requester, told to retry forever (perftest's rnr_retry 7), resends
# until every SEND found a receive.
ix_dir s2r
ix_perf ib_send_bw s2r-rnr 18904 64 20 -r 1
ix_dir r2s
ix_perf ib_send_bw r2s-rnr 18905 64 20 -r 1
