#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# provider/tests/vm/objects.c in each guest (no traffic).  Build it first:
#   gcc -O2 -Wall -I$R/build/include -o build/provider/objects \
#       provider/tests/vm/objects.c -L$R/build/lib -Wl,-rpath,$R/build/lib -libverbs
# (R = the rdma-core tree), or let provider/tests/vm/build.sh do it.
. "$SROCE_TOP/tests/vm/lib.sh"

bin=${OBJECTS_BIN:-$SROCE_TOP/build/provider/objects}
[[ -x $bin ]] || fail "$bin not built"
gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no RoCE v2 GID for $SROCE_ADDR"
"$bin" "$SROCE_DEV" "$gid"
