#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the guests' time goes during perftest bandwidth runs: perf
# samples both guests (cpu-clock, call graphs) while one case runs, and
# leaves perf.CASE.data and the guest's kallsyms in $SROCE_OUT for a
# report on the host (Documentation/performance.rst, "Where the time
# goes"):
#
#   SROCE_VM_PASS=SROCE_PROF_CASES SROCE_PROF_CASES="ib_write_bw:65536" \
#       tools/sroce-vm --kernel 6.12 --driver sroce tests/bench/vm/profile.sh
#   perf report -i RUN/res/0/b/perf.ib_write_bw.data \
#       --kallsyms=RUN/res/0/b/kallsyms --children --sort sym
#
# perf starts with its event disabled and is enabled through its control
# FIFO; the case begins once perf acknowledges, so the recording covers
# the case however long perf takes to start under TCG, and it is
# disabled again when both guests' cases have ended.
. "$SROCE_TOP/tests/vm/lib.sh"

gid=$(sroce_gid_index "$SROCE_DEV" "$SROCE_ADDR") || fail "no GID for $SROCE_ADDR"
command -v perf >/dev/null || skip "no perf"
port=18600
cat /proc/kallsyms >"$SROCE_OUT/kallsyms"
for c in ${SROCE_PROF_CASES:-ib_write_bw:65536 ib_send_bw:65536}; do
	IFS=: read -r tool size <<<"$c"
	port=$((port + 1))
	args=(-d "$SROCE_DEV" -x "$gid" -p "$port" -s "$size" -D 15 -F)
	sroce_barrier "case.$tool"
	rm -f /tmp/perf.ctl /tmp/perf.ack
	mkfifo /tmp/perf.ctl /tmp/perf.ack
	perf record -e cpu-clock -F 1000 -a -g -D -1 \
		--control fifo:/tmp/perf.ctl,/tmp/perf.ack \
		-o "/tmp/perf.$tool.data" >/dev/null 2>&1 &
	pp=$!
	exec 8<>/tmp/perf.ctl 9<>/tmp/perf.ack
	echo enable >&8
	read -r -t 180 _ <&9 || fail "perf did not start recording"
	sroce_barrier "go.$tool"
	if is_a; then
		"$tool" "${args[@]}" >"$SROCE_OUT/$tool.log" 2>&1
	else
		sleep 1
		"$tool" "${args[@]}" "$SROCE_PEER" >"$SROCE_OUT/$tool.log" 2>&1
	fi
	sroce_barrier "end.$tool"
	echo disable >&8
	read -r -t 60 _ <&9 || fail "perf did not stop recording"
	# perf re-raises the SIGINT it stops on, so its status says nothing.
	kill -INT $pp
	wait $pp || true
	[[ -s /tmp/perf.$tool.data ]] || fail "perf record wrote nothing"
	exec 8>&- 9>&-
	log "$tool $size: $(grep -A1 '#bytes' "$SROCE_OUT/$tool.log" | tail -1)"
	cp "/tmp/perf.$tool.data" "$SROCE_OUT/"
	sroce_barrier "done.$tool"
done
