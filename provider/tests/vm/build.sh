#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build the provider's VM test programs against the pinned rdma-core
# build (RUNPATH into it, so they need no environment in the guests).
#   provider/tests/vm/build.sh [RDMA_CORE_SRC]
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
src=${1:-${RDMA_CORE_SRC:-$top/build/rdma-core-56.1}}
out=${BUILD:-$top/build}/provider
mkdir -p "$out"
for p in objects fastpath; do
	${CC:-gcc} -O2 -g -Wall -Wextra -Werror -I"$src/build/include" \
		-o "$out/$p" "$top/provider/tests/vm/$p.c" \
		-L"$src/build/lib" -Wl,-rpath,"$src/build/lib" -libverbs
	echo "built $out/$p"
done
