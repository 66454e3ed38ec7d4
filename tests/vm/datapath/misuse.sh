#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# tests/vm/verbs/misuse.c: every row misuses the verbs in one way (bad QP
# attributes and transitions, oversized WRs and SGE lists, bad or dead
# keys, MRs past the limits, AHs on bad GIDs, objects destroyed while in
# use) and must get the documented errno or error completion.  It runs in
# each guest on its own device (loopback QP pairs).  A refusal must stay
# quiet: the kernel may log nothing at all while the table runs (on
# sroce; rdma_rxe logs its refusals).
. "$SROCE_TOP/tests/vm/datapath/datapath.lib"

prog=$VERBS/misuse
[[ -x $prog ]] || fail "$prog missing: run 'make provider'"
# Where rdma_rxe answers otherwise than the table (sroce's documented
# choice, Documentation/datapath.rst and verbs-objects.rst, which follows
# the IBTA): seen on 6.1 and 6.12.  Printed as XFAIL, not counted.
xfail=
if [[ $SROCE_DRIVER == rxe ]]; then
	xfail=qp_init_bad_pkey_index		# accepted
	xfail+=,qp_rtr_max_dest_rd_atomic_too_big	# accepted
	xfail+=,wc_bad_lkey,wc_lkey_out_of_bounds,wc_lkey_after_dereg # WR_FLUSH_ERR
	xfail+=,wc_write_qp_without_remote_write	# REM_INV_REQ_ERR
	xfail+=,wc_read_qp_without_remote_read	# REM_INV_REQ_ERR
	xfail+=,wc_recv_too_small_requester	# REM_OP_ERR
	xfail+=,wc_recv_too_small_responder	# LOC_QP_OP_ERR
	xfail+=,wc_lkey_after_rereg,wc_rkey_after_rereg	# no rereg: EOPNOTSUPP
	xfail+=,advise_mr_non_odp,mr_implicit_odp	# not checked against rxe
fi
seq=$("$SROCE_TOP/tools/vm/kmsg-since" --last)
rc=0
timeout -k 5 180 "$prog" -d "$DEV" -g "$G4" -v ${xfail:+-x "$xfail"} \
	>"$SROCE_OUT/misuse.out" 2>&1 || rc=$?
cat "$SROCE_OUT/misuse.out"
"$SROCE_TOP/tools/vm/kmsg-since" "$seq" >"$T/kmsg"
if [[ -s $T/kmsg ]]; then
	sed 's/^/  kernel: /' "$T/kmsg" >&2
	# rdma_rxe logs every refused verb (rxe_err_*); the silence is
	# sroce's promise, so only sroce is held to it.
	if [[ $SROCE_DRIVER == sroce ]]; then
		fail "the kernel logged $(wc -l <"$T/kmsg") line(s) during the misuse table"
	fi
	log "$SROCE_DRIVER logged $(wc -l <"$T/kmsg") line(s) (not judged: only sroce must stay quiet)"
fi
((rc != 124)) || fail "misuse timed out"
if ((rc != 0)) || ! grep -q '^misuse: [0-9]* passed, 0 failed' "$SROCE_OUT/misuse.out"; then
	fail "misuse: rows failed (rc=$rc)"
fi
sroce_barrier misuse-done 240
