#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build and run provider/tests/ring_test.c: the provider's data-path files
# against a fake kernel (see the test's header).  Needs the configured
# rdma-core tree (make provider) for its generated headers.
#   provider/tests/run.sh [RDMA_CORE_SRC]
# Last line: "provider-unit: N passed, M failed".
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
src=${1:-${RDMA_CORE_SRC:-$top/build/rdma-core-56.1}}
out=${BUILD:-$top/build}/provider
[[ -f $src/build/include/config.h ]] ||
	{ echo "provider-unit: $src is not built (make provider)" >&2; exit 1; }
mkdir -p "$out"
${CC:-gcc} -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-sign-compare \
	-Wno-unused-parameter -fsanitize=address,undefined \
	-fno-sanitize-recover=all -pthread -Wl,--wrap=write \
	-I"$src/build/include" -I"$src" -I"$top/kernel/uapi" -I"$top/provider" \
	-o "$out/ring_test" "$top/provider/tests/ring_test.c" \
	"$top"/provider/{ring,cq,qp,send,doorbell,ah,mw,pd}.c
"$out/ring_test"
