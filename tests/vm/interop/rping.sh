#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rping between sroce and rxe (rping.lib): rdma_cm (ib_core's CM MADs on
# QP1 between the drivers), then per ping a SEND, an RDMA READ by the
# server, an RDMA WRITE back and a SEND, the data checked.  The client in
# sroce (s2r) over IPv4, then in rxe (r2s) over IPv6, 5 pings each.
. "$SROCE_TOP/tests/vm/interop/interop.lib"
. "$SROCE_TOP/tests/vm/datapath/rping.lib"

ix_dir s2r
rping_pair s2r-rping4 7175 5 2000 4
ix_dir r2s
rping_pair r2s-rping6 7175 5 2000 6
