#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# ibv_rc_pingpong between the guests (RC): a small message and one
# spanning several MTUs over IPv4, then over IPv6, with the receive buffer
# validated (-c); the IPv6 run sleeps on completion events (-e).
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/pingpong.lib"

pingpong rc rc4-small 18600 "$G4" 200 64
pingpong rc rc4-big 18601 "$G4" 50 8192
pingpong rc rc6-events 18602 "$G6" 50 4500 -e
