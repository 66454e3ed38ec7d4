#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/verbs/integrity.c between the guests: WRITE, WRITE_WITH_IMM,
# READ, SEND, SEND_WITH_IMM, CMP_SWAP and FETCH_ADD on 4 RC QPs, sizes
# from 0 bytes to 16 MiB, up to 4 SGEs, every byte and every completion
# checked on both sides.  IPv4 with a fixed seed (a failure reproduces),
# then IPv6 with a seed that changes per run (printed, to reproduce:
# --seed N).  DP_INTEGRITY_BYTES / DP_INTEGRITY_OPS raise the volume.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"

prog=$VERBS/integrity
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"
bytes=${DP_INTEGRITY_BYTES:-40M}
ops=${DP_INTEGRITY_OPS:-300}

run() {
	local name=$1 port=$2 gid=$3 peer=$4 seed=$5 out line

	dp_pair "$name" 240 "tcp:$port" \
		"$prog -s -d $DEV -g $gid -p $port --timeout 120" \
		"$prog -c $peer -d $DEV -g $gid -p $port --timeout 120 --seed $seed --ops $ops --bytes $bytes --qps 4"
	out=$(dp_out "$name")
	line=$(grep "^integrity: $( is_a && echo server || echo client) ok: " "$out") ||
		{ cat "$out" >&2; fail "$name: no success line"; }
	log "$name: ${line#integrity: }"
	grep '^integrity: .* by type:' "$out" || true
}

run integrity4 18801 "$G4" "$SROCE_PEER" 1
if is_b; then
	seed=$(( $(date +%s) % 100000 + 2 ))
	sroce_put integrity-seed "$seed"
else
	seed=$(sroce_get integrity-seed)
fi
run integrity6 18802 "$G6" "$SROCE_PEER6" "$seed"
