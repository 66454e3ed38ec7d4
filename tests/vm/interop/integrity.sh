#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/verbs/integrity.c between sroce and rxe: WRITE,
# WRITE_WITH_IMM, READ, SEND, SEND_WITH_IMM, CMP_SWAP and FETCH_ADD on 2
# RC QPs, every byte and completion checked on both sides.  The client
# (requester) in sroce over IPv4 with seed 1, then in rxe over IPv6 with
# seed 2; small budgets (rxe READs crawl under TCG).
. "$SROCE_TOP/tests/vm/interop/interop.lib"

prog=$VERBS/integrity
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"

# run NAME PORT GID PEER SEED
run() {
	local name=$1 port=$2 gid=$3 peer=$4 seed=$5 out line

	dp_pair "$name" 180 "tcp:$port" \
		"$prog -s -d $DEV -g $gid -p $port --timeout 120" \
		"$prog -c $peer -d $DEV -g $gid -p $port --timeout 120 --seed $seed --qps 2 --ops 60 --bytes 1M --max-size 64K"
	out=$(dp_out "$name")
	line=$(grep "^integrity: $(dp_is_server && echo server || echo client) ok: " "$out") ||
		{ cat "$out" >&2; fail "$name: no success line"; }
	log "$name: $SROCE_DRIVER: ${line#integrity: }"
	grep '^integrity: .* by type:' "$out" || true
}

ix_dir s2r
run s2r-integrity4 18920 "$G4" "$SROCE_PEER" 1
ix_dir r2s
run r2s-integrity6 18921 "$G6" "$SROCE_PEER6" 2
