#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/verbs/integrity.c between the guests: WRITE, WRITE_WITH_IMM,
# READ, SEND, SEND_WITH_IMM, CMP_SWAP and FETCH_ADD on 4 RC QPs, up to 4
# SGEs, every byte and every completion checked on both sides.  IPv4 with
# a fixed seed (a failure reproduces) and sizes up to 16 MiB (a 16 MiB
# WRITE always, the rest within a 20 MiB budget), then IPv6 with seed 2
# (DP_INTEGRITY_SEED picks another, "random" one from the clock, printed)
# and sizes up to 1 MiB.  Under TCG rdma_rxe moves about 1.7 MB/s of
# WRITE and 0.3 MB/s of READ, hence the small budgets;
# DP_INTEGRITY_BYTES raises the first.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"

prog=$VERBS/integrity
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"
bytes=${DP_INTEGRITY_BYTES:-20M}

# run NAME PORT GID PEER SEED CLIENT_OPTIONS...
run() {
	local name=$1 port=$2 gid=$3 peer=$4 seed=$5 out line
	shift 5

	dp_pair "$name" 240 "tcp:$port" \
		"$prog -s -d $DEV -g $gid -p $port --timeout 120" \
		"$prog -c $peer -d $DEV -g $gid -p $port --timeout 120 --seed $seed --qps 4 $*"
	out=$(dp_out "$name")
	line=$(grep "^integrity: $( is_a && echo server || echo client) ok: " "$out") ||
		{ cat "$out" >&2; fail "$name: no success line"; }
	log "$name: ${line#integrity: }"
	grep '^integrity: .* by type:' "$out" || true
}

run integrity4 18801 "$G4" "$SROCE_PEER" 1 --ops 300 --bytes "$bytes" --max-size 16M
seed=${DP_INTEGRITY_SEED:-2}
if [[ $seed == random ]]; then
	if is_b; then
		seed=$(($(date +%s) % 100000 + 3))
		sroce_put integrity-seed "$seed"
	else
		seed=$(sroce_get integrity-seed)
	fi
fi
run integrity6 18802 "$G6" "$SROCE_PEER6" "$seed" --ops 300 --bytes 8M --max-size 1M
