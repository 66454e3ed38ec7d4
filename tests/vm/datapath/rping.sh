#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rping (rping.lib): rdma_cm connection setup, then per ping a SEND, an
# RDMA READ by the server, an RDMA WRITE back and a SEND, the data
# checked.  A small buffer over IPv4, one of several MTUs over IPv6, and
# the small one again with a QP made by the application (-q).
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/rping.lib"

rping_pair rping4 7174 10 100 4
rping_pair rping6-big 7174 5 8192 6
rping_pair rping4-own-qp 7174 5 100 4 -q
