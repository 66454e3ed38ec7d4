#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong between the guests,
# each with the receive buffer validated (-c) and a GID (-g) choosing the
# RoCE address: RC with a small message and one of several MTUs over IPv4
# and one over IPv6 sleeping on completion events (-e); UC likewise with
# the large one over IPv4 and IPv6; UD (address handles from the peer's
# GID) with a small message over IPv4 and one as large as a UD message
# can be (the active MTU) over IPv6; ibv_srq_pingpong with four RC QPs
# per side sharing one SRQ.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/pingpong.lib"

pingpong rc rc4-small 18600 "$G4" 200 64
pingpong rc rc4-big 18601 "$G4" 50 8192
pingpong rc rc6-events 18602 "$G6" 50 4500 -e
pingpong uc uc4-big 18611 "$G4" 50 8192
pingpong uc uc6-events 18612 "$G6" 50 4500 -e
mtu=$(ibv_devinfo -d "$DEV" | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' | head -n1)
[[ $mtu =~ ^[0-9]+$ ]] || fail "cannot read active_mtu of $DEV"
pingpong ud ud4-small 18620 "$G4" 200 64
pingpong ud ud6-mtu 18622 "$G6" 50 "$mtu" -e
# SRQ: four RC QPs per side sharing one SRQ each (ibv_srq_pingpong -q).
pingpong srq srq4-small 18630 "$G4" 100 64 -q 4
