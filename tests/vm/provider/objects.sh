#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/provider/objects.c in each guest (no traffic), built by
# scripts/build-provider.sh (make provider).  By hand:
#   gcc -O2 -Wall -I$R/build/include -o build/provider/objects \
#       tests/vm/provider/objects.c -L$R/build/lib -Wl,-rpath,$R/build/lib -libverbs
# (R = the rdma-core tree).
. "$SROCE_TOP/tests/vm/lib.sh"

bin=${OBJECTS_BIN:-$SROCE_TOP/build/provider/objects}
[[ -x $bin ]] || fail "$bin not built"
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
"$bin" "$SROCE_DEV" "$gid"
