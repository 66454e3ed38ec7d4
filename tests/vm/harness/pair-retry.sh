#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dp_pair runs a failed pair again only when DP_RETRY judges the failure a
# known race of the tool, at most three times, and then fails the side
# that failed; without DP_RETRY one failure fails at once.  A server
# whose client failed is ended, not left to its bound.  The commands
# are shell, not RDMA: this tests the bookkeeping between the guests.
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"

# flaky N TAG: the client fails its first N runs; each run leaves a mark.
# (dp_pair runs its commands under timeout: a program, not a function.)
cat >"$T/flaky" <<'EOF'
#!/bin/bash
echo run >>"$T/$2.runs"
runs=$(wc -l <"$T/$2.runs")
echo "client run $runs"
((runs > $1)) || { echo "REFUSED (run $runs)"; exit 1; }
EOF
chmod +x "$T/flaky"
export T
race() { grep -q '^REFUSED' "$1"; }
never() { return 1; }
runs() { wc -l <"$T/$1.runs"; }

# Two failures, then success: three runs, passes, earlier outputs kept.
DP_RETRY=race dp_pair retry2 30 now "true" "$T/flaky 2 retry2"
if is_b; then
	[[ $(runs retry2) == 3 ]] || fail "retry2: $(runs retry2) runs, not 3"
	grep -q '^client run 3$' "$(dp_out retry2)" || fail "retry2: the output is not the last run's"
	for r in 1 2; do
		grep -q "^REFUSED (run $r)" "$SROCE_OUT/retry2.run$r.out" ||
			fail "retry2: run $r's output was not kept"
	done
fi

# Three failures: no fourth run, and the client fails.
if is_b; then
	(DP_RETRY=race dp_pair retry3 30 now "true" "$T/flaky 3 retry3") 2>"$T/retry3.err" &&
		fail "retry3: passed after three failed runs"
	[[ $(runs retry3) == 3 ]] || fail "retry3: $(runs retry3) runs, not 3"
	grep -q '^FAIL\[b\]: retry3: exited with 1$' "$T/retry3.err" || fail "retry3: no failure line"
else
	DP_RETRY=race dp_pair retry3 30 now "true" "true"
fi

# A failure the judge does not recognise, and no judge at all: one run.
for judge in never ""; do
	name=noretry${judge:+-$judge}
	if is_b; then
		(DP_RETRY=$judge dp_pair "$name" 30 now "true" "$T/flaky 1 $name") 2>"$T/$name.err" &&
			fail "$name: passed after a failed run"
		[[ $(runs "$name") == 1 ]] || fail "$name: run again"
		grep -q "^FAIL\\[b\\]: $name: exited with 1\$" "$T/$name.err" || fail "$name: no failure line"
	else
		DP_RETRY=$judge dp_pair "$name" 30 now "true" "true"
	fi
done

# The same name again: a call of its own, not the last one's answers
# (the first call's run 1 failed: read again, that would rerun this one).
DP_RETRY=race dp_pair retry2 30 now "true" "$T/flaky 0 again"
if is_b; then
	[[ $(runs again) == 1 ]] || fail "retry2 again: $(runs again) runs, not 1"
fi
# A client that failed does not leave the server to its bound: without
# the end, this server would sleep its 25 s out and exit 0.
cat >"$T/slow" <<'EOF'
#!/bin/bash
echo started
sleep 25
echo finished
EOF
chmod +x "$T/slow"
(dp_pair slowsrv 30 now "$T/slow" "false") 2>"$T/slowsrv.err" &&
	fail "slowsrv: passed with a failed client"
if is_b; then
	grep -q '^FAIL\[b\]: slowsrv: exited with 1$' "$T/slowsrv.err" ||
		fail "slowsrv: no client failure line"
else
	grep -q '^FAIL\[a\]: slowsrv: exited with 143$' "$T/slowsrv.err" ||
		fail "slowsrv: the server was not ended (SIGTERM): $(cat "$T/slowsrv.err")"
	grep -q '^finished' "$(dp_out slowsrv)" && fail "slowsrv: the server ran to its end"
fi
log "dp_pair: reran on a known race (3 runs at most), not otherwise;" \
	"ended a server whose client failed"
