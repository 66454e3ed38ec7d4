#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [KERNEL [DRIVER]]: `make demo`.  Boot two QEMU guests with sroce
# (kernel 6.12 unless told otherwise), show how their devices look to the
# unmodified verbs tools, then move data between them with
# ibv_rc_pingpong and ib_write_bw, and print the results.  DRIVER rxe runs
# the same demo on the kernel's rdma_rxe, for comparison.
#
# The same file is the guest side: tools/sroce-vm runs it in both guests
# (SROCE_ROLE is set there), server in guest a, client in guest b.
set -euo pipefail

# ---- guest side ------------------------------------------------------------
if [[ -n ${SROCE_ROLE:-} ]]; then
	. "$SROCE_TOP/tests/vm/lib.sh"
	. "$SROCE_TOP/scripts/verbs-env.sh" || fail "no provider build (make provider)"
	[[ -n $SROCE_DEV ]] || fail "no RDMA device in this guest"
	sum=$SROCE_OUT/demo.txt
	gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") ||
		fail "no RoCE v2 GID for $SROCE_ADDR on $SROCE_DEV"
	say() { echo "$*" >>"$sum"; }

	# step NAME CMD...: server (a) / client (b), the client once the
	# server listens on its TCP port; the client's output is the result.
	step() {
		local name=$1 port=$2 rc=0 pid i
		shift 2
		if is_a; then
			timeout 120 "$@" >"$SROCE_OUT/$name" 2>&1 &
			pid=$!
			i=$((SECONDS + 60))
			while ((SECONDS < i)); do
				ss -Hltn "sport = :$port" | grep -q . && break
				sleep 0.2
			done
			sroce_barrier "$name" 180
			wait "$pid" || rc=$?
		else
			sroce_barrier "$name" 180
			timeout 120 "$@" "$SROCE_PEER" >"$SROCE_OUT/$name" 2>&1 || rc=$?
		fi
		sroce_barrier "$name.done" 180
		return $rc
	}

	ok=1
	if step pingpong 18515 ibv_rc_pingpong -d "$SROCE_DEV" -g "$gid" -n 300 -s 4096; then
		if is_b; then
			say "ibv_rc_pingpong, 300 round trips of 4 KiB over RC:"
			grep -E 'bytes in|iters in' "$SROCE_OUT/pingpong" | sed 's/^/    /' >>"$sum"
		fi
	else
		ok=0
		say "ibv_rc_pingpong FAILED in guest $SROCE_ROLE:"
		tail -n 8 "$SROCE_OUT/pingpong" | sed 's/^/    /' >>"$sum"
	fi
	if step write_bw 18516 ib_write_bw -d "$SROCE_DEV" -x "$gid" -F -s 65536 -n 100; then
		if is_b; then
			say ""
			say "ib_write_bw, 100 RDMA WRITEs of 64 KiB:"
			sed -n '/#bytes/,/^-----/p' "$SROCE_OUT/write_bw" | sed '/^-----/d; s/^/    /' >>"$sum"
		fi
	else
		ok=0
		say "ib_write_bw FAILED in guest $SROCE_ROLE:"
		tail -n 8 "$SROCE_OUT/write_bw" | sed 's/^/    /' >>"$sum"
	fi
	((ok)) || fail "see $sum"
	exit 0
fi

# ---- host side -------------------------------------------------------------
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-6.12}
driver=${2:-sroce}
kver=$("$top/scripts/kver.sh" "$kernel")
ko=$top/build/kernel/$kver/sroce.ko
if [[ $driver == sroce && ! -f $ko ]]; then
	echo "demo: $ko is missing: build the module first (make module)" >&2
	exit 1
fi
# SROCE_DEMO_DIR: where the run goes (make check names one that does not
# exist yet, so a demo that forgets to create its directories fails there).
dir=${SROCE_DEMO_DIR:-$top/build/vm}
mkdir -p "$dir"
run=$dir/demo-$(date +%Y%m%d-%H%M%S)
echo "demo: booting two guests on $kver with $driver (about half a minute under emulation)"
rc=0
"$top/tools/sroce-vm" --kernel "$kernel" --driver "$driver" --out "$run" \
	"$top/tools/vm/demo-guest" "$top/tests/vm/demo.sh" >"$run.log" 2>&1 || rc=$?

# The device view, guest a then guest b, then the traffic, from guest b.
for r in a b; do
	[[ -f $run/res/0/$r.log ]] && cat "$run/res/0/$r.log" && echo
done
echo "===== RoCEv2 traffic between the guests (guest b -> guest a, $driver, emulated CPUs)"
for r in b a; do
	[[ -s $run/res/1/$r/demo.txt ]] && cat "$run/res/1/$r/demo.txt"
done
echo
if ((rc == 0)); then
	echo "demo: ok. Figures come from emulated CPUs (QEMU TCG): they show that"
	echo "data moves, not how fast $driver is on real hardware."
else
	echo "demo: something failed (sroce-vm exit status $rc); this is what it said:"
	grep -v '^PASS' "$run.log" | tail -n 40 | sed 's/^/  /'
	echo "demo: logs in $run and $run.log.  If the $driver data path is still"
	echo "being built, ibv_rc_pingpong and ib_write_bw cannot pass yet."
	exit 1
fi
