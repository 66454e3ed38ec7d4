#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The wire carries IPv4 and IPv6 both ways.
. "$SROCE_TOP/tests/vm/lib.sh"

ping -4 -c 3 -i 0.2 -W 2 "$SROCE_PEER" || fail "IPv4 ping to $SROCE_PEER"
ping -6 -c 3 -i 0.2 -W 2 "$SROCE_PEER6" || fail "IPv6 ping to $SROCE_PEER6"
