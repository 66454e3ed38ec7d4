#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# ibv_ud_pingpong between the guests: UD through address handles made from
# the peer's GID, over IPv4 and IPv6, a small message and one as large as
# a UD message can be (one MTU), receive buffer validated (-c).
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"
. "$SROCE_TOP/tests/vm/datapath/pingpong.lib"

# The largest UD payload is the port's active MTU.
mtu=$(ibv_devinfo -d "$DEV" | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' | head -n1)
[[ $mtu =~ ^[0-9]+$ ]] || fail "cannot read active_mtu of $DEV"
pingpong ud ud4-small 18620 "$G4" 200 64
pingpong ud ud4-mtu 18621 "$G4" 50 "$mtu"
pingpong ud ud6-mtu 18622 "$G6" 50 "$mtu" -e
