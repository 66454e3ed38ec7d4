#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider-rxe/foreign.sh (the sroce provider never claims the
# rxe device) needs the same sroce,rxe pair as this group, so it runs
# here and saves its group a boot of its own (provider-rxe/group.conf).
exec bash "$SROCE_TOP/tests/vm/provider-rxe/foreign.sh"
