#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: perftest over a sroce pair and an rdma_rxe pair, alternated
# in one run on each kernel, and a table of medians and ratios.
#
#   scripts/bench.sh [--kernel "6.1 6.12"]... [--rounds N] [--quick] [--out DIR]
#   scripts/bench.sh --report DIR	the tables and chart again from DIR's runs
#   scripts/bench.sh [--quick] --list	the cases as parsed, one a line
#
# --kernel takes a list and may be repeated; the default is 6.1, 6.12 and
# 7.3 (sroce.ko is brought up to date for each with make module; a kernel
# that is not installed for the guests, or where it does not build, is
# skipped and said so).
# SROCE_BENCH_CASES (NAME:TOOL:SIZE:QPS:LOSS%[:MTU[:SMP[:CC]]], space
# separated) replaces the case list, e.g. for a before/after figure of one
# change.  MTU is the NIC's MTU for the case (default 1500; perftest gets
# the matching RoCE MTU); SMP the vCPUs per guest (default 1): each SMP
# value is a boot of its own per driver; CC "on" or "off" sends through a
# 50 Mb/s fq_codel+ECN bottleneck with sroce's cc_enable set so.  SROCE_BENCH_PARAMS (NAME=VALUE,
# space separated) sets writable sroce module parameters in the guests
# first (zcopy=0: copy every payload); SROCE_BENCH_ARGS adds perftest
# options to every case (-o 16: 16 READs outstanding).  Each round, on
# each kernel, boots the guest pair once per driver and SMP value (the
# driver order alternates between rounds so that drift on this shared
# machine hits both) and runs the cases (tests/bench/vm/perftest.sh).  While a case
# runs, this script samples the CPU time of the two QEMU processes, so
# next to MB/s the table gives MiB moved per CPU-second of the guests: on
# a noisy machine that moves far less than MB/s; and, per guest, its
# vCPU threads' and other threads' CPU time and its UDP socket's drops
# (qemu_sample).  Benchmarks, not tests: nothing here fails on a figure.
#
# Output: DIR/<kernel>/<driver>[-smpN].<round>/ (sroce-vm run dirs),
# DIR/<kernel>/table.txt (every figure of that kernel), guest-cpu.txt and
# host.txt (where each guest's CPU went, inside and on the host), DIR/table.txt
# (the kernels side by side, also printed), DIR/medians (the same as
# columns) and DIR/chart.svg (scripts/bench-chart.py).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kernels= rounds=3 quick=0 out= report=0 list=0
drivers=${SROCE_BENCH_DRIVERS:-sroce rxe}

while (($#)); do
	case $1 in
	--kernel) kernels+=" $2"; shift ;;
	--rounds) rounds=$2; shift ;;
	--quick) quick=1 ;;
	--out) out=$2; shift ;;
	--report) out=$2; report=1; shift ;;
	--list) list=1 ;;
	*) echo "usage: $0 [--kernel \"K...\"]... [--rounds N] [--quick] [--out DIR] | --report DIR | --list" >&2; exit 2 ;;
	esac
	shift
done
kernels=$(echo ${kernels:-6.1 6.12 7.3})
if ((!list)); then
	out=${out:-$top/build/bench/$(date +%Y%m%d-%H%M%S)}
	# Absolute: the CPU sampling finds the QEMU processes by this path.
	out=$(realpath -m "$out")
	mkdir -p "$out"
fi

# NAME:TOOL:SIZE:QPS:LOSS%[:MTU[:SMP[:CC]]]
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
send_bw_64k_q4:ib_send_bw:65536:4:0
write_bw_64k_loss1:ib_write_bw:65536:1:1 send_bw_64k_loss1:ib_send_bw:65536:1:1
read_bw_64k_loss1:ib_read_bw:65536:1:1 write_bw_64k_loss10:ib_write_bw:65536:1:10
write_bw_64k_mtu9k:ib_write_bw:65536:1:0:9000 send_bw_64k_mtu9k:ib_send_bw:65536:1:0:9000
read_bw_64k_mtu9k:ib_read_bw:65536:1:0:9000 write_lat_4k_mtu9k:ib_write_lat:4096:1:0:9000
write_bw_64k_smp2:ib_write_bw:65536:1:0::2 send_bw_64k_smp2:ib_send_bw:65536:1:0::2
write_bw_64k_q4_smp2:ib_write_bw:65536:4:0::2 send_bw_64k_q4_smp2:ib_send_bw:65536:4:0::2
write_bw_64k_q16_ecn_ccoff:ib_write_bw:65536:16:0:::off
write_bw_64k_q16_ecn_ccon:ib_write_bw:65536:16:0:::on"
cases_quick="write_bw_64k:ib_write_bw:65536:1:0 send_lat_2:ib_send_lat:2:1:0
write_bw_64k_loss1:ib_write_bw:65536:1:1"
if [[ -n ${SROCE_BENCH_CASES:-} ]]; then cases=$SROCE_BENCH_CASES
elif ((quick)); then cases=$cases_quick; else cases=$cases_full; fi
export SROCE_VM_PASS="SROCE_BENCH_CASES SROCE_BENCH_SECS SROCE_BENCH_PARAMS SROCE_BENCH_ARGS"

# The case list, one "NAME TOOL SIZE QPS LOSS MTU SMP CC" line per case,
# kept with the results: the tables and --report read it.
parse_cases() {
	local c n t s q l m p cc
	for c in $cases; do
		IFS=: read -r n t s q l m p cc <<<"$c"
		echo "$n $t $s $q $l ${m:-1500} ${p:-1} ${cc:--}"
	done
}
if ((list)); then
	parse_cases
	exit 0
fi
((report)) || parse_cases >"$out/cases"
[[ -s $out/cases ]] || { echo "bench: no case list in $out (not a run of this script?)" >&2; exit 1; }
# The SMP values, one boot per driver each; and the cases of one of them.
smps=$(awk '{ print $7 }' "$out/cases" | sort -un | xargs)
cases_smp() {
	local c
	for c in $cases; do
		IFS=: read -r _ _ _ _ _ _ p _ <<<"$c"
		[[ ${p:-1} == "$1" ]] && echo "$c"
	done | xargs
}
# Run directory name of driver $1 at SMP $2 (without the round).
runname() {
	if [[ $2 == 1 ]]; then echo "$1"; else echo "$1-smp$2"; fi
}

# The host side of run dir $1 now, in clock ticks and datagrams:
#   TICKS A_VCPU A_OTHER A_DROPS B_VCPU B_OTHER B_DROPS
# TICKS is the utime+stime of both QEMU processes; per guest, VCPU is its
# vCPU threads' ("CPU N/TCG"), OTHER the rest (the main loop, which moves
# every packet between the virtqueues and the UDP socket, and 9p), DROPS
# the drop count of the UDP socket its NIC receives on (/proc/net/udp):
# datagrams the peer sent that the host threw away because this QEMU did
# not read them in time.  Counted the same for both drivers.
qemu_sample() {
	local role p port all t=0 line=
	for role in a b; do
		p=$(pgrep -f "file:$1/console\.$role" | head -1)
		if [[ -z $p ]]; then
			line+=" 0 0 0"
			continue
		fi
		port=$(tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null |
		       sed -n 's/.*local\.port=\([0-9]*\).*/\1/p')
		# The process's own figure keeps the time of threads that
		# have exited (QEMU's worker pool comes and goes); the rest
		# is what its vCPU threads did not use.
		all=$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)
		line+=$(cat "/proc/$p/task"/*/stat 2>/dev/null | awk -v all="$all" '
		{
			c = substr($0, index($0, "(") + 1)
			c = substr(c, 1, index(c, ")") - 1)
			split(substr($0, index($0, ") ") + 2), f, " ")
			if (c ~ /^CPU [0-9]+\/TCG$/) v += f[12] + f[13]
		}
		END { printf " %d %d", v, all - v }')
		line+=$(awk -v port=":$(printf '%04X' "${port:-0}")" '
			substr($2, length($2) - 4) == port { d += $NF }
			END { printf " %d", d }' /proc/net/udp)
		t=$((t + all))
	done
	echo "$t$line"
}

# Follow guest b's marks file while sroce-vm runs; log
# "mark CASE" and qemu_sample's figures.
sample() {
	local run=$1 marks=$1/res/0/b/marks seen=0 n line
	while kill -0 "$2" 2>/dev/null; do
		if [[ -f $marks ]]; then
			n=$(wc -l <"$marks")
			while ((seen < n)); do
				seen=$((seen + 1))
				line=$(sed -n "${seen}p" "$marks")
				echo "$line $(qemu_sample "$run")" >>"$run/cpu"
			done
		fi
		sleep 0.1
	done
}

# The kernels that can run: installed for the guests, and with sroce.ko
# up to date for them (built here for each kernel, not only KERNELS).
runnable=
if ((report)); then
	# Every kernel and round that left results, however many were asked.
	runnable=$(cd "$out" && ls -d */*.[0-9]*/res 2>/dev/null | cut -d/ -f1 | sort -uV | xargs)
	rounds=$(cd "$out" && ls -d */*.[0-9]*/res 2>/dev/null | cut -d/ -f2 |
		 grep -Eo '[.][0-9]+$' | tr -d . | sort -n | tail -1)
	rounds=${rounds:-0}
	[[ -n $runnable ]] || echo "bench: no results under $out/<kernel>/ (a run from before the per-kernel layout?)" >&2
else
	for k in $kernels; do
		if ! rel=$("$top/scripts/kver.sh" "$k" 2>/dev/null) || [[ ! -d /lib/modules/$rel/kernel ]]; then
			echo "bench: kernel $k skipped: not installed for the guests (make deps KERNELS=$k)"
			continue
		fi
		# make rebuilds only what changed; a stale sroce.ko would
		# measure old code.
		if [[ " $drivers " == *" sroce "* ]] &&
		   ! { make -s -C "$top" module KERNELS="$k" >"$out/module-$k.log" 2>&1 &&
		       [[ -f $top/build/kernel/$rel/sroce.ko ]]; }; then
			echo "bench: kernel $k skipped: sroce.ko does not build for $rel (see $out/module-$k.log)"
			continue
		fi
		runnable+=" $k"
	done
	runnable=$(echo $runnable)
	if [[ -z $runnable ]]; then
		echo "bench: no kernel to run on (asked: $kernels)" >&2
		exit 1
	fi
	echo "bench: $rounds round(s) on kernel(s) $runnable, drivers: $drivers, $(wc -l <"$out/cases") cases, vCPUs per guest: $smps, results in $out"
fi
for ((r = 1; r <= rounds && !report; r++)); do
	order=$drivers
	((r % 2 == 0)) && order=$(tr ' ' '\n' <<<"$drivers" | tac | xargs)
	for k in $runnable; do
		for d in $order; do
			for n in $smps; do
				run=$out/$k/$(runname "$d" "$n").$r
				label="round $r, $k, $d"
				[[ $n != 1 ]] && label+=", $n vCPUs"
				echo "bench: $label"
				mkdir -p "$out/$k"
				SROCE_BENCH_CASES=$(cases_smp "$n") "$top/tools/sroce-vm" --kernel "$k" \
					--driver "$d" --smp "$n" --out "$run" --timeout 3000 \
					"$top/tests/bench/vm/perftest.sh" >"$run.log" 2>&1 &
				vm=$!
				sample "$run" $vm
				wait $vm || echo "bench: $label: sroce-vm failed (see $run.log)"
			done
		done
	done
done

# The runs of kernel $1 that left results, "DRIVER RUN ROUND DIR" each.
runs_of() {
	local d r n run
	for d in $drivers; do
		for ((r = 1; r <= rounds; r++)); do
			for n in $smps; do
				run=$out/$1/$(runname "$d" "$n").$r
				[[ -f $run/res/0/b/results ]] &&
					echo "$d $(runname "$d" "$n") $r $run"
			done
		done
	done
}

# Per kernel: DIR/<kernel>/raw, "DRIVER CASE MB/s Mpps us Mi/cs" a line
# per case and round, and the table of every figure of that kernel; and
# DIR/<kernel>/guest-cpu.txt, where each guest's CPU went per case
# (perftest.sh's CASE.cpu): a driver working in softirq shows softirq
# time, one working from kworkers context switches; and the packets and
# kicks of the guest's virtio NIC ("-" for runs from before those).
hz=$(getconf CLK_TCK)
for k in $runnable; do
	runs_of "$k" | while read -r d name r run; do
		awk -v d="$d" -v hz="$hz" '
		FNR == NR { if ($1 == "start") s[$2] = $3; else e[$2] = $3; next }
		$2 == "ok" {
			cpu = (e[$1] - s[$1]) / hz
			eff = cpu > 0 ? sprintf("%.3g", $3 / 1048576 / cpu) : "-"
			# Results from before perftest.sh counted MB/s itself
			# may hold 0.00 from perftest for a run that moved its
			# bytes (it could not time it): no sample, not zero.
			if ($6 == "-" && $4 + 0 == 0 && $3 > 0) $4 = $5 = "-"
			print d, $1, $4, $5, $6, eff
		}
		$2 != "ok" { print d, $1, "fail", "fail", "fail", "fail" }' "$run/cpu" "$run/res/0/b/results"
	done >"$out/$k/raw"
	runs_of "$k" | while read -r d name r run; do
		for f in "$run"/res/0/[ab]/*.cpu; do
			[[ -f $f ]] || continue
			c=${f##*/} g=${f%/*}
			awk -v l="$name $r ${c%.cpu} ${g##*/}" '
			{ v[$1] = $2 }
			END { print l, v["ctxt"], v["user_ms"], v["sys_ms"],
				v["softirq_ms"], v["idle_ms"],
				("nic_tx_kicks" in v) ? v["nic_tx_packets"] : "-",
				("nic_tx_kicks" in v) ? v["nic_tx_kicks"] : "-" }' "$f"
		done
	done | { echo "run round case guest ctxt user_ms sys_ms softirq_ms idle_ms nic_tx nic_kicks"; cat; } \
		>"$out/$k/guest-cpu.txt"
	# And the host's side of each case (qemu_sample): per guest the
	# CPU time of its QEMU's vCPU threads and of the rest, and the
	# datagrams its socket dropped.  Runs from before these were
	# sampled have none.
	runs_of "$k" | while read -r d name r run; do
		awk -v l="$name $r" -v hz="$hz" '
		NF < 9 { next }
		$1 == "start" { for (i = 4; i <= 9; i++) s[$2, i] = $i; next }
		$1 == "end" && ($2, 4) in s {
			printf "%s %s", l, $2
			for (i = 4; i <= 9; i++) {
				v = $i - s[$2, i]
				printf " %d", (i == 6 || i == 9) ? v : v * 1000 / hz
			}
			printf "\n"
		}' "$run/cpu"
	done | { echo "run round case a_vcpu_ms a_other_ms a_drops b_vcpu_ms b_other_ms b_drops"; cat; } \
		>"$out/$k/host.txt"
done

# The medians ("fail" when every round of the case failed), ratios and
# the legend, shared by both tables.
awk_median='
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
# What the units and ratios mean, under every table (A, B: the drivers).
function legend(prefix, A, B) {
	print prefix "MB/s: MiB/s, the iterations perftest counted over its -D seconds; us: latency, the same seconds over the round trips (halved for SEND and WRITE, which ping-pong); Mi/cs: MiB moved per CPU-second of both guests."
	print "ratio: " A "/" B " for MB/s and Mi/cs, " B "/" A " for latency (higher is better for " A ")."
}'

# One kernel, every figure: DIR/<kernel>/table.txt.
for k in $runnable; do
	awk -v drivers="$drivers" -v kernel="$k" "$awk_median"'
	{
		if (!($2 in seen)) { seen[$2] = 1; order[++nc] = $2 }
		for (k = 3; k <= 6; k++) if ($k != "-") v[$1, $2, k] = v[$1, $2, k] " " $k
	}
	END {
		split(drivers, dv, " "); A = dv[1]; B = dv[2]
		print "kernel " kernel
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
		legend("", A, B)
	}' "$out/$k/raw" >"$out/$k/table.txt"
done

# The kernels side by side: per case its main figure (MB/s, or us for a
# latency tool) and Mi/cs, then 1 -> N vCPU scaling of the cases that have
# a twin at one vCPU (same tool, size, QPs, loss and MTU).  Also
# DIR/medians, "KERNEL CASE UNIT A B RATIO A_MICS B_MICS MICS_RATIO" lines
# for the chart.
for k in $runnable; do
	sed "s/^/$k /" "$out/$k/raw"
done | awk -v drivers="$drivers" -v kernels="$runnable" -v medians="$out/medians" "$awk_median"'
FNR == NR {
	nc++; name[nc] = $1; unit[$1] = $2 ~ /_lat$/ ? "us" : "MB/s"
	twin[nc] = $2 ":" $3 ":" $4 ":" $5 ":" $6; smp[nc] = $7
	next
}
{
	# KERNEL DRIVER CASE MB/s Mpps us Mi/cs
	f = unit[$3] == "us" ? 6 : 4
	if ($f != "-") main[$1, $2, $3] = main[$1, $2, $3] " " $f
	if ($7 != "-") eff[$1, $2, $3] = eff[$1, $2, $3] " " $7
}
# A label centred in dashes over the three columns of a kernel.
function over(s,   l, r, d) {
	s = " " s " "; l = int((25 - length(s)) / 2); r = 25 - length(s) - l
	d = "-------------------------"
	return substr(d, 1, l) s substr(d, 1, r)
}
function head(   i) {
	printf "%-20s %-5s", "", ""
	for (i = 1; i <= nk; i++) printf "  %s", over(kv[i])
	printf "\n%-20s %-5s", "case", "unit"
	for (i = 1; i <= nk; i++) printf "  %9s %9s %5s", A, B, "ratio"
	printf "\n"
}
END {
	split(drivers, dv, " "); A = dv[1]; B = dv[2]
	nk = split(kernels, kv, " ")
	for (i = 1; i <= nk; i++) for (c = 1; c <= nc; c++) {
		n = name[c]
		a = median(main[kv[i], A, n]); b = median(main[kv[i], B, n])
		m[i, c] = unit[n] == "us" ? ratio(b, a) : ratio(a, b)
		ma[i, c] = a; mb[i, c] = b
		ea[i, c] = median(eff[kv[i], A, n]); eb[i, c] = median(eff[kv[i], B, n])
		er[i, c] = ratio(ea[i, c], eb[i, c])
		print kv[i], n, unit[n] == "us" ? "us" : "MB/s", a, b, m[i, c],
			ea[i, c], eb[i, c], er[i, c] >medians
	}
	head()
	for (c = 1; c <= nc; c++) {
		printf "%-20s %-5s", name[c], unit[name[c]]
		for (i = 1; i <= nk; i++) printf "  %9s %9s %5s", ma[i, c], mb[i, c], m[i, c]
		printf "\n"
	}
	print ""
	head()
	for (c = 1; c <= nc; c++) {
		printf "%-20s %-5s", name[c], "Mi/cs"
		for (i = 1; i <= nk; i++) printf "  %9s %9s %5s", ea[i, c], eb[i, c], er[i, c]
		printf "\n"
	}
	# Scaling: each case at N > 1 vCPUs against its one-vCPU twin.
	hdr = 0
	for (c = 1; c <= nc; c++) {
		if (smp[c] == 1) continue
		for (t = 1; t <= nc; t++) if (smp[t] == 1 && twin[t] == twin[c]) break
		if (t > nc) continue
		if (!hdr++) {
			printf "\n%-20s %-6s", "", ""
			for (i = 1; i <= nk; i++) printf "  %s", over(kv[i])
			printf "\n%-20s %-6s", "case", "driver"
			for (i = 1; i <= nk; i++) printf "  %9s %9s %5s", "1 vCPU", smp[c] " vCPUs", "x"
			printf "\n"
		}
		for (j = 1; j <= 2; j++) {
			if (dv[j] == "") continue
			printf "%-20s %-6s", name[c], dv[j]
			for (i = 1; i <= nk; i++) {
				one = j == 1 ? ma[i, t] : mb[i, t]; more = j == 1 ? ma[i, c] : mb[i, c]
				x = unit[name[c]] == "us" ? ratio(one, more) : ratio(more, one)
				printf "  %9s %9s %5s", one, more, x
			}
			printf "\n"
		}
	}
	print ""
	legend("unit ", A, B)
	if (hdr) print "x: more vCPUs against one (the case named and its twin at one vCPU; higher is better)."
	print "Per kernel, with Mpps and every unit: <kernel>/table.txt."
}' "$out/cases" - | tee "$out/table.txt"

if python3 "$top/scripts/bench-chart.py" "$out/medians" "$out/chart.svg"; then
	echo "bench: chart in $out/chart.svg"
else
	echo "bench: no chart (scripts/bench-chart.py failed)"
fi
mkdir -p "$top/build/bench" && ln -sfn "$out" "$top/build/bench/latest"
