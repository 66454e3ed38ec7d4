#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: perftest over a sroce pair and an rdma_rxe pair, alternated
# in one run on the same kernel, and a table of medians and ratios.
#
#   scripts/bench.sh [--kernel 6.12] [--rounds N] [--quick] [--out DIR]
#   scripts/bench.sh --report DIR	the table again from DIR's runs
#
# SROCE_BENCH_CASES (NAME:TOOL:SIZE:QPS:LOSS%, space separated) replaces
# the case list, e.g. for a before/after figure of one change;
# SROCE_BENCH_PARAMS (NAME=VALUE, space separated) sets writable sroce
# module parameters in the guests first (zcopy=0: copy every payload).
# Each round boots the guest pair once per driver (the order alternates
# between rounds so that drift on this shared machine hits both) and runs
# every case (tests/bench/vm/perftest.sh).  While a case runs, this script
# samples the CPU time of the two QEMU processes, so next to MB/s the
# table gives MiB moved per CPU-second of the guests: on a noisy machine
# that moves far less than MB/s.  Benchmarks, not tests: nothing here
# fails on a figure.  The table goes to stdout and to DIR/table.txt.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.12 rounds=3 quick=0 out= report=0
drivers=${SROCE_BENCH_DRIVERS:-sroce rxe}

while (($#)); do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--quick) quick=1 ;;
	--out) out=$2; shift ;;
	--report) out=$2; report=1; shift ;;
	*) echo "usage: $0 [--kernel K] [--rounds N] [--quick] [--out DIR] | --report DIR" >&2; exit 2 ;;
	esac
	shift
done
out=${out:-$top/build/bench/$(date +%Y%m%d-%H%M%S)}
# Absolute: the CPU sampling finds the QEMU processes by this path.
out=$(realpath -m "$out")
mkdir -p "$out"

# NAME:TOOL:SIZE:QPS:LOSS%
cases_full="
write_bw_64:ib_write_bw:64:1:0 write_bw_4k:ib_write_bw:4096:1:0
write_bw_64k:ib_write_bw:65536:1:0 write_bw_1m:ib_write_bw:1048576:1:0
send_bw_64:ib_send_bw:64:1:0 send_bw_4k:ib_send_bw:4096:1:0
send_bw_64k:ib_send_bw:65536:1:0 send_bw_1m:ib_send_bw:1048576:1:0
read_bw_64:ib_read_bw:64:1:0 read_bw_4k:ib_read_bw:4096:1:0
read_bw_64k:ib_read_bw:65536:1:0 read_bw_1m:ib_read_bw:1048576:1:0
send_lat_2:ib_send_lat:2:1:0 send_lat_4k:ib_send_lat:4096:1:0
write_lat_2:ib_write_lat:2:1:0 write_lat_4k:ib_write_lat:4096:1:0
read_lat_2:ib_read_lat:2:1:0 read_lat_4k:ib_read_lat:4096:1:0
write_bw_64k_q4:ib_write_bw:65536:4:0 write_bw_64k_q16:ib_write_bw:65536:16:0
write_bw_64k_loss1:ib_write_bw:65536:1:1 send_bw_64k_loss1:ib_send_bw:65536:1:1
read_bw_64k_loss1:ib_read_bw:65536:1:1 write_bw_64k_loss10:ib_write_bw:65536:1:10"
cases_quick="write_bw_64k:ib_write_bw:65536:1:0 send_lat_2:ib_send_lat:2:1:0
write_bw_64k_loss1:ib_write_bw:65536:1:1"
if [[ -n ${SROCE_BENCH_CASES:-} ]]; then cases=$SROCE_BENCH_CASES
elif ((quick)); then cases=$cases_quick; else cases=$cases_full; fi
export SROCE_BENCH_CASES=$(echo $cases)
export SROCE_VM_PASS="SROCE_BENCH_CASES SROCE_BENCH_SECS SROCE_BENCH_PARAMS"

# Sum of utime+stime (clock ticks) of the QEMU processes of run dir $1.
qemu_ticks() {
	local p t=0
	for p in $(pgrep -f "file:$1/console\."); do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo $t
}

# Follow guest b's marks file while sroce-vm runs; log "mark CASE ticks".
sample() {
	local run=$1 marks=$1/res/0/b/marks seen=0 n line
	while kill -0 "$2" 2>/dev/null; do
		if [[ -f $marks ]]; then
			n=$(wc -l <"$marks")
			while ((seen < n)); do
				seen=$((seen + 1))
				line=$(sed -n "${seen}p" "$marks")
				echo "$line $(qemu_ticks "$run")" >>"$run/cpu"
			done
		fi
		sleep 0.1
	done
}

if ((report)); then
	# Every round that left results, however many were asked for.
	rounds=$(ls -d "$out"/*.[0-9]* 2>/dev/null | grep -Eo '[.][0-9]+$' |
		 tr -d . | sort -n | tail -1)
	rounds=${rounds:-0}
else
	echo "bench: $rounds round(s) on kernel $kernel, drivers: $drivers, $(wc -w <<<"$cases") cases, results in $out"
fi
for ((r = 1; r <= rounds && !report; r++)); do
	order=$drivers
	((r % 2 == 0)) && order=$(tr ' ' '\n' <<<"$drivers" | tac | xargs)
	for d in $order; do
		run=$out/$d.$r
		echo "bench: round $r, $d"
		"$top/tools/sroce-vm" --kernel "$kernel" --driver "$d" --out "$run" \
			--timeout 3000 "$top/tests/bench/vm/perftest.sh" >"$out/$d.$r.log" 2>&1 &
		vm=$!
		sample "$run" $vm
		wait $vm || echo "bench: round $r on $d: sroce-vm failed (see $out/$d.$r.log)"
	done
done

# Table: medians over rounds of MB/s, Mpps, latency and MiB per CPU-second.
hz=$(getconf CLK_TCK)
for d in $drivers; do
	for ((r = 1; r <= rounds; r++)); do
		run=$out/$d.$r
		[[ -f $run/res/0/b/results ]] || continue
		awk -v d="$d" -v hz="$hz" '
		FNR == NR { if ($1 == "start") s[$2] = $3; else e[$2] = $3; next }
		$2 == "ok" {
			cpu = (e[$1] - s[$1]) / hz
			eff = cpu > 0 ? sprintf("%.3g", $3 / 1048576 / cpu) : "-"
			print d, $1, $4, $5, $6, eff
		}
		$2 != "ok" { print d, $1, "fail", "fail", "fail", "fail" }' "$run/cpu" "$run/res/0/b/results"
	done
done >"$out/raw"

awk -v drivers="$drivers" '
# "fail" when every round of the case failed.
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	if (!n) return "-"
	for (i = j = 1; i <= n; i++) if (a[i] != "fail") a[j++] = a[i]
	if (j == 1) return "fail"
	n = j - 1
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ratio(x, y) {
	if (x == "-" || x == "fail" || y == "-" || y == "fail" || y + 0 == 0) return "-"
	return sprintf("%.2f", x / y)
}
{
	if (!($2 in seen)) { seen[$2] = 1; order[++nc] = $2 }
	for (k = 3; k <= 6; k++) if ($k != "-") v[$1, $2, k] = v[$1, $2, k] " " $k
}
END {
	split(drivers, dv, " "); A = dv[1]; B = dv[2]
	printf "%-20s %9s %9s %6s  %9s %9s %6s  %9s %9s %6s\n", "case", A " MB/s", B " MB/s",
		"ratio", A " us", B " us", "ratio", A " Mi/cs", B " Mi/cs", "ratio"
	for (i = 1; i <= nc; i++) {
		c = order[i]
		a3 = median(v[A, c, 3]); b3 = median(v[B, c, 3])
		a5 = median(v[A, c, 5]); b5 = median(v[B, c, 5])
		a6 = median(v[A, c, 6]); b6 = median(v[B, c, 6])
		printf "%-20s %9s %9s %6s  %9s %9s %6s  %9s %9s %6s\n", c,
			a3, b3, ratio(a3, b3), a5, b5, ratio(b5, a5), a6, b6, ratio(a6, b6)
	}
	print "MB/s: BW average; us: typical latency; Mi/cs: MiB moved per CPU-second of both guests."
	print "ratio: " A "/" B " for MB/s and Mi/cs, " B "/" A " for latency (higher is better for " A ")."
}' "$out/raw" | tee "$out/table.txt"
mkdir -p "$top/build/bench" && ln -sfn "$out" "$top/build/bench/latest"
