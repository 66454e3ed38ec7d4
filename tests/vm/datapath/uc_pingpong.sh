#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# ibv_uc_pingpong between the guests (UC): a small message and one
# spanning several MTUs over IPv4, then over IPv6, with the receive buffer
# validated (-c); the IPv6 run sleeps on completion events (-e).
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/pingpong.lib"

pingpong uc uc4-small 18610 "$G4" 200 64
pingpong uc uc4-big 18611 "$G4" 50 8192
pingpong uc uc6-events 18612 "$G6" 50 4500 -e
