// SPDX-License-Identifier: GPL-2.0
/*
 * Error-path scenarios: each sets up one RC QP pair (srq: two; xrc:
 * three XRC pairs), provokes one error the IBA specifies exactly, and
 * compares the full completion list (and the responder's memory) with
 * what the spec requires.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define SC_MAX_CQE	256
#define SC_GUARD	64
#define SC_FILL		0xee

struct sc_buf {
	u8 *mem;		/* SC_GUARD | size | SC_GUARD, guards not registered */
	u32 size;
	u32 key;
	u64 iova;		/* of the first registered byte */
};

struct sc_exp {
	u64 wr_id;
	u8 status;
	u8 opcode;		/* checked for SUCCESS only */
};

struct sc {
	struct sroce_cqe cqe[2][2][SC_MAX_CQE];	/* [side][is_recv] */
	u32 n[2][2];
	struct sc_buf lbuf[2];			/* local scratch, each side */
	u32 action;				/* what the timed action does */
};

static struct sc *SC(struct sim *s)
{
	return s->wl;
}

static void sc_cqe(struct sim *s, struct sim_qp *sq, const struct sroce_cqe *c)
{
	struct sc *x = SC(s);
	u32 *n = &x->n[sq->side][!!c->is_recv];

	if (*n == SC_MAX_CQE) {
		sim_fail(s, "scenario: too many completions");
		return;
	}
	x->cqe[sq->side][!!c->is_recv][(*n)++] = *c;
}

static void buf_make(struct sim *s, struct sc_buf *b, u8 side, u32 size,
		     u32 access)
{
	b->size = size;
	b->mem = malloc(size + 2 * SC_GUARD);
	if (!b->mem)
		abort();
	memset(b->mem, SC_FILL, size + 2 * SC_GUARD);
	b->iova = 0x7f0000100000ull + ((u64)sroce_rng_below(&s->rng, 1024) << 12);
	b->key = sroce_ep_reg_mr(&s->ep[side], 1, b->mem + SC_GUARD, b->iova,
				 size, access);
}

static void buf_free(struct sim *s, struct sc_buf *b, u8 side)
{
	if (!b->mem)
		return;
	sroce_ep_dereg_mr(&s->ep[side], b->key);
	free(b->mem);
	memset(b, 0, sizeof(*b));
}

static bool buf_untouched(const struct sc_buf *b)
{
	u32 i;

	for (i = 0; i < b->size + 2 * SC_GUARD; i++)
		if (b->mem[i] != SC_FILL)
			return false;
	return true;
}

/* Post a one-SGE WQE from side 0 of pair 0. */
static void post(struct sim *s, u64 wr_id, u8 op, u32 len, u32 rkey,
		 u64 raddr)
{
	struct sc *x = SC(s);
	struct sroce_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = op;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.num_sge = 1;
	w.sge[0].addr = x->lbuf[0].iova;
	w.sge[0].length = len;
	w.sge[0].lkey = x->lbuf[0].key;
	w.ex = (u32)wr_id;
	if (op == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	    op == SROCE_WR_ATOMIC_FETCH_AND_ADD) {
		w.atomic.remote_addr = raddr;
		w.atomic.rkey = rkey;
		w.atomic.compare_add = 1;
		w.atomic.swap = 2;
	} else {
		w.rdma.remote_addr = raddr;
		w.rdma.rkey = rkey;
	}
	sroce_ep_post_send(s->qp[0][0].q, &w);
}

static void post_recv(struct sim *s, u8 side, u64 wr_id, u32 len)
{
	struct sc *x = SC(s);
	struct sroce_recv_wqe r;

	memset(&r, 0, sizeof(r));
	r.wr_id = wr_id;
	r.num_sge = 1;
	r.sge[0].addr = x->lbuf[side].iova;
	r.sge[0].length = len;
	r.sge[0].lkey = x->lbuf[side].key;
	sroce_ep_post_recv(s->qp[side][0].q, &r);
}

static const char *const status_name[] = {
	"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR",
	"LOC_PROT_ERR", "WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR",
	"LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
	"RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR",
	"REM_INV_RD_REQ_ERR", "REM_ABORT_ERR", "INV_EECN_ERR",
	"INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR",
};

static const char *st_name(u8 st)
{
	return st < ARRAY_SIZE(status_name) ? status_name[st] : "?";
}

/* The completions of (side, is_recv) must be exactly @exp. */
static void expect(struct sim *s, const char *what, u8 side, bool recv,
		   const struct sc_exp *exp, u32 n)
{
	struct sc *x = SC(s);
	u32 got = x->n[side][recv], i;
	const struct sroce_cqe *c;

	for (i = 0; i < n && i < got; i++) {
		c = &x->cqe[side][recv][i];
		if (c->wr_id != exp[i].wr_id || c->status != exp[i].status ||
		    (c->status == SROCE_WC_SUCCESS &&
		     c->opcode != exp[i].opcode)) {
			sim_fail(s, "%s: completion %u is wr_id %llu %s opcode %u, expected wr_id %llu %s opcode %u",
				 what, i, (unsigned long long)c->wr_id,
				 st_name(c->status), c->opcode,
				 (unsigned long long)exp[i].wr_id,
				 st_name(exp[i].status), exp[i].opcode);
			return;
		}
	}
	if (got != n)
		sim_fail(s, "%s: %u completions, expected %u", what, got, n);
}

static void expect_state(struct sim *s, const char *what, u8 side,
			 enum sroce_qp_state st)
{
	if (s->qp[side][0].q->qp.state != st)
		sim_fail(s, "%s: side %u QP state %u, expected %u", what, side,
			 s->qp[side][0].q->qp.state, st);
}

static void kick_all(struct sim *s)
{
	sim_service(s, &s->qp[0][0]);
	sim_service(s, &s->qp[1][0]);
}

static void run_for(struct sim *s, u64 ns)
{
	sim_run(s, NULL, s->now + ns);
}

/*
 * Link dead: the first WQE fails with RETRY_EXC_ERR after retry_cnt
 * retries, every later one is flushed, the QP ends in ERR.
 */
static void sc_retry_exc(struct sim *s)
{
	struct sc_exp e[6];
	u64 t_to = sroce_ack_timeout_ns(s->o.timeout), t0 = s->now;
	u32 i;

	s->link[0].cfg.dead = true;
	for (i = 0; i < 6; i++) {
		static const u8 ops[] = {
			SROCE_WR_SEND, SROCE_WR_RDMA_WRITE, SROCE_WR_RDMA_READ,
		};
		u8 op = ops[i % 3];

		if (op == SROCE_WR_SEND)
			post_recv(s, 1, 100 + i, 4096);
		post(s, 1 + i, op, 100 * i, 0, 0);
		e[i].wr_id = 1 + i;
		e[i].status = i ? SROCE_WC_WR_FLUSH_ERR :
			      SROCE_WC_RETRY_EXC_ERR;
	}
	/* Zero-length RDMA needs no rkey, so 0/0 is fine for the dead link. */
	kick_all(s);
	run_for(s, (s->o.retry_cnt + 3) * t_to * 2 + 1000000);
	expect(s, "retry_exc", 0, false, e, 6);
	expect_state(s, "retry_exc", 0, SROCE_QPS_ERR);
	if (SC(s)->n[0][0] && SC(s)->cqe[0][0][0].status ==
	    SROCE_WC_RETRY_EXC_ERR && s->now - t0 < s->o.retry_cnt * t_to)
		sim_fail(s, "retry_exc: gave up before %u timeouts",
			 s->o.retry_cnt);
	if (s->link[0].st.sent < (u64)s->o.retry_cnt + 1)
		sim_fail(s, "retry_exc: only %llu transmissions for retry_cnt %u",
			 (unsigned long long)s->link[0].st.sent,
			 s->o.retry_cnt);
	if (SC(s)->n[1][0] || SC(s)->n[1][1])
		sim_fail(s, "retry_exc: the peer completed something");
}

/* No receive WQE and rnr_retry < 7: RNR_RETRY_EXC_ERR, then flushes. */
static void sc_rnr_exc(struct sim *s)
{
	struct sc_exp e[3] = {
		{ 1, SROCE_WC_RNR_RETRY_EXC_ERR, 0 },
		{ 2, SROCE_WC_WR_FLUSH_ERR, 0 },
		{ 3, SROCE_WC_WR_FLUSH_ERR, 0 },
	};

	post(s, 1, SROCE_WR_SEND, 64, 0, 0);
	post(s, 2, SROCE_WR_SEND, 64, 0, 0);
	post(s, 3, SROCE_WR_RDMA_WRITE, 0, 0, 0);
	kick_all(s);
	run_for(s, 2000000000ull);
	expect(s, "rnr_exc", 0, false, e, 3);
	expect_state(s, "rnr_exc", 0, SROCE_QPS_ERR);
	if (s->qp[0][0].q->qp.stats.rnr_naks_rcvd !=
	    (u64)s->o.rnr_retry + 1)
		sim_fail(s, "rnr_exc: %llu RNR NAKs for rnr_retry %u",
			 (unsigned long long)s->qp[0][0].q->qp.stats.rnr_naks_rcvd,
			 s->o.rnr_retry);
}

static void sc_rnr_action(struct sim *s, u32 arg)
{
	struct sc *x = SC(s);

	post_recv(s, 1, 500, 4096);
	x->action = 1;
}

/* rnr_retry = 7: retry for as long as it takes, succeed once posted. */
static void sc_rnr_inf(struct sim *s)
{
	struct sc *x = SC(s);
	struct sc_exp e[2] = {
		{ 1, SROCE_WC_SUCCESS, SROCE_WC_SEND },
		{ 2, SROCE_WC_SUCCESS, SROCE_WC_RDMA_WRITE },
	};
	struct sc_exp r[1] = { { 500, SROCE_WC_SUCCESS, SROCE_WC_RECV } };
	u32 i;

	for (i = 0; i < 64; i++)
		x->lbuf[0].mem[SC_GUARD + i] = (u8)(i * 7 + 1);
	post(s, 1, SROCE_WR_SEND, 64, 0, 0);
	post(s, 2, SROCE_WR_RDMA_WRITE, 0, 0, 0);
	s->action = sc_rnr_action;
	/* long after many RNR retries */
	sim_at(s, s->now + 500 * sroce_rnr_timer_ns(s->o.min_rnr_timer) +
	       5000000, 0);
	kick_all(s);
	run_for(s, 5000000000ull);
	if (!x->action)
		sim_fail(s, "rnr_inf: receive never posted");
	expect(s, "rnr_inf send", 0, false, e, 2);
	expect(s, "rnr_inf recv", 1, true, r, 1);
	expect_state(s, "rnr_inf", 0, SROCE_QPS_RTS);
	if (x->n[1][1] && (x->cqe[1][1][0].byte_len != 64 ||
			   memcmp(x->lbuf[1].mem + SC_GUARD,
				  x->lbuf[0].mem + SC_GUARD, 64)))
		sim_fail(s, "rnr_inf: received data wrong");
	if (s->qp[0][0].q->qp.stats.rnr_naks_rcvd < 8)
		sim_fail(s, "rnr_inf: only %llu RNR NAKs before the receive",
			 (unsigned long long)s->qp[0][0].q->qp.stats.rnr_naks_rcvd);
}

/*
 * Access violations: a good WRITE, then the bad operation (REM_ACCESS_ERR
 * for it, flush for the one after), and no byte of the responder's
 * buffer changed by the bad one.
 */
static void sc_access(struct sim *s, int kind)
{
	static const char *const names[] = {
		"bad rkey", "out of bounds", "write to read-only MR",
		"read from write-only MR", "atomic without atomic access",
		"write crossing the MR end",
	};
	struct sc_buf ok, tgt;
	u32 access, len = 300, rkey;
	u64 raddr;
	u8 op = SROCE_WR_RDMA_WRITE, wc = SROCE_WC_RDMA_WRITE;
	char what[64];
	struct sc_exp e[3];

	snprintf(what, sizeof(what), "access (%s)", names[kind]);
	access = SROCE_ACCESS_REMOTE_WRITE | SROCE_ACCESS_REMOTE_READ |
		 SROCE_ACCESS_REMOTE_ATOMIC;
	if (kind == 2)
		access = SROCE_ACCESS_REMOTE_READ;
	if (kind == 3)
		access = SROCE_ACCESS_REMOTE_WRITE;
	if (kind == 4)
		access = SROCE_ACCESS_REMOTE_WRITE | SROCE_ACCESS_REMOTE_READ;
	buf_make(s, &ok, 1, 4096, SROCE_ACCESS_REMOTE_WRITE);
	buf_make(s, &tgt, 1, 8192, access);
	rkey = tgt.key;
	raddr = tgt.iova + 64;
	switch (kind) {
	case 0:
		rkey ^= 0x80;	/* right slot, wrong key byte */
		break;
	case 1:
		raddr = tgt.iova + tgt.size + 4096;
		break;
	case 3:
		op = SROCE_WR_RDMA_READ;
		wc = SROCE_WC_RDMA_READ;
		break;
	case 4:
		op = SROCE_WR_ATOMIC_FETCH_AND_ADD;
		wc = SROCE_WC_FETCH_ADD;
		len = 8;
		break;
	case 5:
		/* several packets; only the end is outside */
		len = 3 * sroce_mtu_bytes(s->o.mtu);
		raddr = tgt.iova + tgt.size - len + 1;
		break;
	}
	memset(SC(s)->lbuf[0].mem + SC_GUARD, 0x42, 65536);
	post(s, 1, SROCE_WR_RDMA_WRITE, 100, ok.key, ok.iova);
	post(s, 2, op, len, rkey, raddr);
	post(s, 3, SROCE_WR_RDMA_WRITE, 100, ok.key, ok.iova + 200);
	e[0] = (struct sc_exp){ 1, SROCE_WC_SUCCESS, SROCE_WC_RDMA_WRITE };
	e[1] = (struct sc_exp){ 2, SROCE_WC_REM_ACCESS_ERR, wc };
	e[2] = (struct sc_exp){ 3, SROCE_WC_WR_FLUSH_ERR, 0 };
	kick_all(s);
	run_for(s, 1000000000ull);
	expect(s, what, 0, false, e, 3);
	expect_state(s, what, 0, SROCE_QPS_ERR);
	if (!buf_untouched(&tgt))
		sim_fail(s, "%s: the responder's buffer changed", what);
	if (ok.mem[SC_GUARD] != 0x42 || ok.mem[SC_GUARD + 99] != 0x42 ||
	    ok.mem[SC_GUARD + 100] != SC_FILL)
		sim_fail(s, "%s: the WRITE before it did not land exactly",
			 what);
	if (ok.mem[SC_GUARD + 200] != SC_FILL)
		sim_fail(s, "%s: the WRITE after it landed", what);
	buf_free(s, &ok, 1);
	buf_free(s, &tgt, 1);
}

static void sc_err_action(struct sim *s, u32 arg)
{
	struct sroce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = SROCE_QPS_ERR;
	if (sroce_qp_modify(&s->qp[0][0].q->qp, &a, SROCE_QP_STATE, s->now))
		sim_fail(s, "err_mid: modify to ERR refused");
	SC(s)->action = 1;
	sim_service(s, &s->qp[0][0]);
}

/*
 * QP moved to ERR mid-transfer: whatever completed before stays, every
 * other send and receive WQE is flushed, in order, exactly once.
 */
static void sc_err_mid(struct sim *s)
{
	struct sc *x = SC(s);
	struct sc_buf rem;
	u32 i, n = 16, ok = 0, len = 64 * 1024;
	struct sroce_cqe *c;

	buf_make(s, &rem, 1, len, SROCE_ACCESS_REMOTE_WRITE);
	for (i = 0; i < 4; i++)
		post_recv(s, 0, 1000 + i, 4096);
	for (i = 0; i < n; i++)
		post(s, 1 + i, SROCE_WR_RDMA_WRITE, len, rem.key, rem.iova);
	s->action = sc_err_action;
	/* somewhere inside the transfer: a few round trips in */
	sim_at(s, s->now + 4 * s->o.link.delay_ns +
	       sroce_rng_below(&s->rng, 20 * s->o.link.delay_ns + 1), 0);
	kick_all(s);
	run_for(s, 1000000000ull);
	if (!x->action)
		sim_fail(s, "err_mid: never moved to ERR");
	expect_state(s, "err_mid", 0, SROCE_QPS_ERR);
	if (x->n[0][0] != n)
		sim_fail(s, "err_mid: %u send completions for %u WQEs",
			 x->n[0][0], n);
	for (i = 0; i < x->n[0][0] && !s->failed; i++) {
		c = &x->cqe[0][0][i];
		if (c->wr_id != 1 + i)
			sim_fail(s, "err_mid: completion %u is wr_id %llu",
				 i, (unsigned long long)c->wr_id);
		else if (c->status == SROCE_WC_SUCCESS && ok == i)
			ok++;
		else if (c->status != SROCE_WC_WR_FLUSH_ERR)
			sim_fail(s, "err_mid: completion %u (%s) after the flush began",
				 i, st_name(c->status));
	}
	if (x->n[0][1] != 4)
		sim_fail(s, "err_mid: %u receive flushes for 4 receives",
			 x->n[0][1]);
	for (i = 0; i < x->n[0][1] && !s->failed; i++) {
		c = &x->cqe[0][1][i];
		if (c->wr_id != 1000 + i || c->status != SROCE_WC_WR_FLUSH_ERR ||
		    c->opcode != SROCE_WC_RECV)
			sim_fail(s, "err_mid: receive completion %u: wr_id %llu %s opcode %u",
				 i, (unsigned long long)c->wr_id,
				 st_name(c->status), c->opcode);
	}
	/* A WQE posted in ERR is flushed too. */
	post(s, 99, SROCE_WR_SEND, 8, 0, 0);
	sim_service(s, &s->qp[0][0]);
	if (!s->failed && (x->n[0][0] != n + 1 ||
			   x->cqe[0][0][n].wr_id != 99 ||
			   x->cqe[0][0][n].status != SROCE_WC_WR_FLUSH_ERR))
		sim_fail(s, "err_mid: a WQE posted in ERR was not flushed");
	buf_free(s, &rem, 1);
}

static void post_on(struct sim *s, u32 pair, u64 wr_id, u32 off, u32 len)
{
	struct sc *x = SC(s);
	struct sroce_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = SROCE_WR_SEND;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.num_sge = 1;
	w.sge[0].addr = x->lbuf[0].iova + off;
	w.sge[0].length = len;
	w.sge[0].lkey = x->lbuf[0].key;
	sroce_ep_post_send(s->qp[0][pair].q, &w);
}

/*
 * Two QPs share side 1's SRQ: receives are taken in posting order by
 * whichever QP needs one, each lands intact, and when one QP goes to ERR
 * it raises LAST_WQE_REACHED and leaves the SRQ's WQEs to the other.
 */
static void sc_srq(struct sim *s)
{
	struct sc *x = SC(s);
	struct sroce_recv_wqe r;
	struct sroce_cqe c;
	struct sroce_qp_attr a;
	u32 i, p, n[2] = { 0, 0 }, got = 0, len;
	u64 last[2] = { 0, 0 }, seen = 0;
	u8 *buf;

	for (i = 0; i < 8 * 1024; i++)
		x->lbuf[0].mem[SC_GUARD + i] = (u8)(i * 31 + 7);
	for (i = 0; i < 10; i++) {
		memset(&r, 0, sizeof(r));
		r.wr_id = 1000 + i;
		r.num_sge = 1;
		r.sge[0].addr = x->lbuf[1].iova + i * 4096;
		r.sge[0].length = 4096;
		r.sge[0].lkey = x->lbuf[1].key;
		sroce_ep_post_srq(&s->ep[1], &r);
	}
	/* pair p message i: 100 * (p + 1) + i bytes from offset 4096 * p */
	for (i = 0; i < 4; i++)
		for (p = 0; p < 2; p++)
			post_on(s, p, 10 * p + i, 4096 * p, 100 * (p + 1) + i);
	sim_service(s, &s->qp[0][0]);
	sim_service(s, &s->qp[0][1]);
	run_for(s, 100000000ull);
	for (i = 0; i < x->n[1][1]; i++) {
		c = x->cqe[1][1][i];
		p = c.qp_num == s->qp[1][1].q->qp.qpn;
		len = c.byte_len;
		if (c.status || c.wr_id < 1000 || c.wr_id >= 1010 ||
		    (seen & (1ull << (c.wr_id - 1000))) ||
		    c.wr_id <= last[p] || len < 100 * (p + 1) ||
		    len >= 100 * (p + 1) + 4) {
			sim_fail(s, "srq: receive %u: wr_id %llu qp %#x status %u len %u",
				 i, (unsigned long long)c.wr_id, c.qp_num,
				 c.status, len);
			return;
		}
		seen |= 1ull << (c.wr_id - 1000);
		last[p] = c.wr_id;
		n[p]++;
		got++;
		buf = x->lbuf[1].mem + SC_GUARD + (c.wr_id - 1000) * 4096;
		if (memcmp(buf, x->lbuf[0].mem + SC_GUARD + 4096 * p, len) ||
		    buf[len] != SC_FILL)
			sim_fail(s, "srq: receive wr_id %llu data wrong",
				 (unsigned long long)c.wr_id);
		/* in order per QP: message i of pair p is len 100(p+1)+i */
		if (len != 100 * (p + 1) + n[p] - 1)
			sim_fail(s, "srq: qp %u got message %u as its #%u",
				 p, len - 100 * (p + 1), n[p] - 1);
	}
	if (got != 8 || seen != 0xff)
		sim_fail(s, "srq: %u receives, wr_id mask %#llx", got,
			 (unsigned long long)seen);
	/* Pair 1's receiver fails: the SRQ's last two WQEs stay for pair 0. */
	memset(&a, 0, sizeof(a));
	a.qp_state = SROCE_QPS_ERR;
	sroce_qp_modify(&s->qp[1][1].q->qp, &a, SROCE_QP_STATE, s->now);
	if (s->qp[1][1].q->last_event != SROCE_EVENT_QP_LAST_WQE_REACHED)
		sim_fail(s, "srq: no LAST_WQE_REACHED event (last %u)",
			 s->qp[1][1].q->last_event);
	post_on(s, 0, 50, 0, 64);
	post_on(s, 0, 51, 0, 65);
	sim_service(s, &s->qp[0][0]);
	run_for(s, 100000000ull);
	if (x->n[1][1] != 10 || x->cqe[1][1][8].wr_id != 1008 ||
	    x->cqe[1][1][9].wr_id != 1009 || x->cqe[1][1][9].status)
		sim_fail(s, "srq: after the other QP failed, %u receives",
			 x->n[1][1]);
}

static void post_xrc(struct sim *s, u32 pair, u64 wr_id, u32 off, u32 len,
		     u32 srqn)
{
	struct sc *x = SC(s);
	struct sroce_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = SROCE_WR_SEND;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.num_sge = 1;
	w.sge[0].addr = x->lbuf[0].iova + off;
	w.sge[0].length = len;
	w.sge[0].lkey = x->lbuf[0].key;
	w.xrc_srqn = srqn;
	sroce_ep_post_send(s->qp[0][pair].q, &w);
}

/* Receive wr_id @id into 4 KiB slot @slot of side 1's buffer. */
static void post_xsrq(struct sim *s, u32 srqn, u64 id, u32 slot)
{
	struct sc *x = SC(s);
	struct sroce_recv_wqe r;

	memset(&r, 0, sizeof(r));
	r.wr_id = id;
	r.num_sge = 1;
	r.sge[0].addr = x->lbuf[1].iova + slot * 4096;
	r.sge[0].length = 4096;
	r.sge[0].lkey = x->lbuf[1].key;
	sroce_ep_post_xsrq(&s->ep[1], srqn, &r);
}

/* The side 1 pair whose target QP is @qpn, or 3. */
static u32 xrc_pair(struct sim *s, u32 qpn)
{
	u32 p;

	for (p = 0; p < 3; p++)
		if (s->qp[1][p].q->qp.qpn == qpn)
			return p;
	return 3;
}

static bool xrc_has(struct sim *s, u64 wr_id, u8 status)
{
	struct sc *x = SC(s);
	u32 i;

	for (i = 0; i < x->n[0][0]; i++)
		if (x->cqe[0][0][i].wr_id == wr_id)
			return x->cqe[0][0][i].status == status;
	return false;
}

/*
 * XRC: three initiators on side 0 send, alternating, into two XRC SRQs
 * of one XRC domain on side 1 through three target QPs.  Each SRQ's CQ
 * gets exactly the messages meant for it, intact and in order per QP.
 * Then a request naming the SRQ of another domain, and one naming no
 * SRQ, fail their initiators with REM_INV_REQ_ERR, and the SRQs go on
 * serving the third pair.
 */
static void sc_xrc(struct sim *s)
{
	struct sc *x = SC(s);
	u32 srq[3], i, k, p, m, slot, len, n[3][2] = { { 0 } };
	struct sroce_ep_xsrq *xs;
	struct sroce_cqe c;
	u8 *buf;

	srq[0] = sroce_ep_add_xsrq(&s->ep[1], 1, 1);
	srq[1] = sroce_ep_add_xsrq(&s->ep[1], 1, 1);
	srq[2] = sroce_ep_add_xsrq(&s->ep[1], 2, 1);
	for (i = 0; i < 3 * 4096; i++)
		x->lbuf[0].mem[SC_GUARD + i] = (u8)(i * 29 + 5);
	for (k = 0; k < 2; k++)
		for (i = 0; i < 9; i++)
			post_xsrq(s, srq[k], 1000 * (k + 1) + i, k * 9 + i);
	/* pair p message i: 100 * (p + 1) + i bytes to SRQ i % 2 */
	for (i = 0; i < 6; i++)
		for (p = 0; p < 3; p++)
			post_xrc(s, p, 10 * p + i, 4096 * p, 100 * (p + 1) + i,
				 srq[i % 2]);
	for (p = 0; p < 3; p++)
		sim_service(s, &s->qp[0][p]);
	run_for(s, 100000000ull);
	for (k = 0; k < 2 && !s->failed; k++) {
		xs = sroce_ep_get_xsrq(&s->ep[1], srq[k]);
		while (sroce_ep_poll(&xs->cq, &c)) {
			p = xrc_pair(s, c.qp_num);
			len = c.byte_len;
			slot = (u32)(c.wr_id - 1000 * (k + 1));
			m = p < 3 ? k + 2 * n[p][k] : 0;
			if (p == 3 || c.status || c.srqn != srq[k] ||
			    slot >= 9 || len != 100 * (p + 1) + m) {
				sim_fail(s, "xrc: SRQ %u: wr_id %llu qp %#x status %u srqn %u len %u",
					 srq[k], (unsigned long long)c.wr_id,
					 c.qp_num, c.status, c.srqn, len);
				return;
			}
			buf = x->lbuf[1].mem + SC_GUARD + (k * 9 + slot) * 4096;
			if (memcmp(buf, x->lbuf[0].mem + SC_GUARD + 4096 * p,
				   len) || buf[len] != SC_FILL)
				sim_fail(s, "xrc: wr_id %llu data wrong",
					 (unsigned long long)c.wr_id);
			n[p][k]++;
		}
	}
	for (p = 0; p < 3; p++)
		for (k = 0; k < 2; k++)
			if (n[p][k] != 3)
				sim_fail(s, "xrc: pair %u, SRQ %u: %u receives",
					 p, srq[k], n[p][k]);
	if (x->n[0][0] != 18)
		sim_fail(s, "xrc: %u send completions", x->n[0][0]);
	for (i = 0; i < x->n[0][0]; i++)
		if (x->cqe[0][0][i].status)
			sim_fail(s, "xrc: send %llu: %s",
				 (unsigned long long)x->cqe[0][0][i].wr_id,
				 st_name(x->cqe[0][0][i].status));
	if (s->failed)
		return;

	/* Another XRC domain's SRQ, and a number no SRQ has. */
	post_xrc(s, 0, 90, 0, 64, srq[2]);
	post_xrc(s, 1, 91, 0, 64, 77);
	post_xsrq(s, srq[0], 1100, 20);
	post_xrc(s, 2, 92, 4096 * 2, 64, srq[0]);
	for (p = 0; p < 3; p++)
		sim_service(s, &s->qp[0][p]);
	run_for(s, 100000000ull);
	if (!xrc_has(s, 90, SROCE_WC_REM_INV_REQ_ERR) ||
	    !xrc_has(s, 91, SROCE_WC_REM_INV_REQ_ERR) ||
	    !xrc_has(s, 92, SROCE_WC_SUCCESS))
		sim_fail(s, "xrc: bad SRQ numbers not refused as invalid requests");
	expect_state(s, "xrc", 1, SROCE_QPS_ERR);
	if (s->qp[1][1].q->qp.state != SROCE_QPS_ERR ||
	    s->qp[1][2].q->qp.state != SROCE_QPS_RTS)
		sim_fail(s, "xrc: target states %u %u", s->qp[1][1].q->qp.state,
			 s->qp[1][2].q->qp.state);
	xs = sroce_ep_get_xsrq(&s->ep[1], srq[0]);
	if (!sroce_ep_poll(&xs->cq, &c) || c.wr_id != 1100 || c.status ||
	    xrc_pair(s, c.qp_num) != 2 || sroce_ep_poll(&xs->cq, &c))
		sim_fail(s, "xrc: the SRQ stopped serving the good pair");
	xs = sroce_ep_get_xsrq(&s->ep[1], srq[2]);
	if (sroce_ep_poll(&xs->cq, &c))
		sim_fail(s, "xrc: another domain's SRQ was used");
}

/*
 * One packet lost on a path whose round trip (5 ms) outlasts the
 * responder's first NAK repeat (2 ms): the repeat reaches the requester
 * while its resend is still on the way.  Going back for it would send
 * everything since a second time; the requester must see that the
 * repeat is stale (it has RTT samples from the stream before the loss),
 * so the responder gets no duplicate and the stream completes.
 */
#define SC_STALE_MSGS	16
#define SC_STALE_PKTS	64	/* per message */

static void sc_nak_stale(struct sim *s)
{
	u32 mtu = sroce_mtu_bytes(s->o.mtu), len = SC_STALE_PKTS * mtu, i;
	const struct sroce_qp_stats *rq = &s->qp[0][0].q->qp.stats;
	const struct sroce_qp_stats *rs = &s->qp[1][0].q->qp.stats;
	struct sc_exp e[SC_STALE_MSGS];
	struct sc_buf tgt;
	u8 side;

	for (side = 0; side < 2; side++) {
		memset(&s->link[side].cfg, 0, sizeof(s->link[side].cfg));
		s->link[side].cfg.delay_ns = 2500000;
		s->link[side].cfg.gbps = 10;
	}
	/* Well into the stream, after ACKs have timed the round trip. */
	s->link[0].cfg.drop_nth = SC_STALE_MSGS * SC_STALE_PKTS * 5 / 8;
	buf_make(s, &tgt, 1, len, SROCE_ACCESS_REMOTE_WRITE);
	for (i = 0; i < SC_STALE_MSGS; i++) {
		post(s, 1 + i, SROCE_WR_RDMA_WRITE, len, tgt.key, tgt.iova);
		e[i] = (struct sc_exp){ 1 + i, SROCE_WC_SUCCESS,
					SROCE_WC_RDMA_WRITE };
	}
	kick_all(s);
	run_for(s, 1000000000ull);
	expect(s, "nak_stale", 0, false, e, SC_STALE_MSGS);
	if (s->link[0].st.lost != 1)
		sim_fail(s, "nak_stale: %llu frames lost, expected 1",
			 (unsigned long long)s->link[0].st.lost);
	if (!s->qp[0][0].q->qp.req.srtt)
		sim_fail(s, "nak_stale: the requester took no RTT sample");
	if (rs->seq_naks_sent < 2 || rq->seq_naks_stale < 1)
		sim_fail(s, "nak_stale: %llu NAKs sent, %llu seen stale; expected a repeat, seen stale",
			 (unsigned long long)rs->seq_naks_sent,
			 (unsigned long long)rq->seq_naks_stale);
	if (rs->dup_requests || rq->retransmits != 1)
		sim_fail(s, "nak_stale: %llu duplicates, %llu go-backs; expected none and one",
			 (unsigned long long)rs->dup_requests,
			 (unsigned long long)rq->retransmits);
	buf_free(s, &tgt, 1);
}

/*
 * The device's in-flight share shrinks under a QP's packets.  Pair 0
 * streams alone, and once it has PSNs out that no AckReq covers yet,
 * fifteen more pairs start: its share falls from SROCE_MAX_INFLIGHT to
 * SROCE_MIN_INFLIGHT, below what it has out.  It must ask for an ACK
 * before it stops (req.c, sroce_req_window_full()): no ACK timeout, and
 * every WRITE completes.
 */
#define SC_SHARE_PAIRS	16
#define SC_SHARE_MSGS	4

static void sc_share(struct sim *s)
{
	u32 mtu = sroce_mtu_bytes(s->o.mtu), i, ok = 0;
	struct sc *x = SC(s);
	struct sroce_send_wqe w;
	struct sc_buf tgt;
	u64 timeouts = 0;
	u8 side;

	for (side = 0; side < 2; side++) {
		memset(&s->link[side].cfg, 0, sizeof(s->link[side].cfg));
		s->link[side].cfg.delay_ns = 50000;
		s->link[side].cfg.gbps = 10;
	}
	buf_make(s, &tgt, 1, 1 << 20, SROCE_ACCESS_REMOTE_WRITE);
	for (i = 0; i < SC_SHARE_MSGS; i++)
		post(s, 1 + i, SROCE_WR_RDMA_WRITE, 256 << 10, tgt.key,
		     tgt.iova);
	sim_service(s, &s->qp[0][0]);
	/* Well inside its first 64 packets, whose last asks for the ACK. */
	run_for(s, 24 * (u64)mtu * 8 / 10);
	if (!s->qp[0][0].q->qp.req.noack)
		sim_fail(s, "share: pair 0 has nothing out without AckReq");
	for (i = 1; i < SC_SHARE_PAIRS; i++) {
		memset(&w, 0, sizeof(w));
		w.wr_id = 100 + i;
		w.opcode = SROCE_WR_RDMA_WRITE;
		w.send_flags = SROCE_SEND_SIGNALED;
		w.num_sge = 1;
		w.sge[0].addr = x->lbuf[0].iova;
		w.sge[0].length = 64 << 10;
		w.sge[0].lkey = x->lbuf[0].key;
		w.rdma.remote_addr = tgt.iova;
		w.rdma.rkey = tgt.key;
		sroce_ep_post_send(s->qp[0][i].q, &w);
		sim_service(s, &s->qp[0][i]);
	}
	run_for(s, 1000000000ull);
	for (i = 0; i < x->n[0][0]; i++)
		ok += x->cqe[0][0][i].status == SROCE_WC_SUCCESS;
	for (i = 0; i < SC_SHARE_PAIRS; i++)
		timeouts += s->qp[0][i].q->qp.stats.timeouts;
	if (ok != SC_SHARE_MSGS + SC_SHARE_PAIRS - 1 || x->n[0][0] != ok)
		sim_fail(s, "share: %u of %u completions, %u successful",
			 x->n[0][0], SC_SHARE_MSGS + SC_SHARE_PAIRS - 1, ok);
	if (timeouts || s->link[0].st.lost)
		sim_fail(s, "share: %llu ACK timeouts, %llu frames lost; expected none",
			 (unsigned long long)timeouts,
			 (unsigned long long)s->link[0].st.lost);
	buf_free(s, &tgt, 1);
}

const char *const sim_scenarios[] = {
	"retry_exc", "rnr_exc", "rnr_inf", "acc_rkey", "acc_bounds",
	"acc_ro", "acc_wo", "acc_atomic", "acc_cross", "err_mid", "srq",
	"xrc", "nak_stale", "share", "mcast", NULL,
};

int sim_scenario(struct sim *s, const char *name)
{
	struct sc *x;
	int i, k = -1;

	if (!strcmp(name, "mcast"))
		return sim_mcast(s);
	for (i = 0; sim_scenarios[i]; i++)
		if (!strcmp(name, sim_scenarios[i]))
			k = i;
	if (k < 0)
		return -1;
	x = calloc(1, sizeof(*x));
	if (!x)
		abort();
	s->wl = x;
	s->on_cqe = sc_cqe;
	/* Scenario-specific QP attributes, varied by the seed. */
	if (k == 0) {
		s->o.retry_cnt = (u8)sroce_rng_below(&s->rng, 8);
		s->o.timeout = 8 + (u8)sroce_rng_below(&s->rng, 4);
	}
	if (k == 1)
		s->o.rnr_retry = (u8)sroce_rng_below(&s->rng, 7);
	if (k == 2)
		s->o.rnr_retry = 7;
	if (k == 10)
		s->srq1 = true;
	if (k == 12 || k == 13)
		s->o.timeout = 14;	/* 67 ms: far beyond the round trip */
	if (k == 13)
		s->o.nic_gbps = 10;	/* a packet per kick, as on a wire */
	sim_add_pair(s, k == 11 ? SROCE_QPT_XRC_INI : SROCE_QPT_RC, 64);
	if (k == 10)
		sim_add_pair(s, SROCE_QPT_RC, 64);
	if (k == 11) {
		sim_add_pair(s, SROCE_QPT_XRC_INI, 64);
		sim_add_pair(s, SROCE_QPT_XRC_INI, 64);
	}
	for (i = 1; k == 13 && i < SC_SHARE_PAIRS; i++)
		sim_add_pair(s, SROCE_QPT_RC, 64);
	buf_make(s, &x->lbuf[0], 0, 1 << 20, SROCE_ACCESS_LOCAL_WRITE);
	buf_make(s, &x->lbuf[1], 1, 1 << 20, SROCE_ACCESS_LOCAL_WRITE);
	if (!s->failed) {
		switch (k) {
		case 0:
			sc_retry_exc(s);
			break;
		case 1:
			sc_rnr_exc(s);
			break;
		case 2:
			sc_rnr_inf(s);
			break;
		case 3: case 4: case 5: case 6: case 7: case 8:
			sc_access(s, k - 3);
			break;
		case 9:
			sc_err_mid(s);
			break;
		case 10:
			sc_srq(s);
			break;
		case 11:
			sc_xrc(s);
			break;
		case 12:
			sc_nak_stale(s);
			break;
		case 13:
			sc_share(s);
			break;
		}
	}
	buf_free(s, &x->lbuf[0], 0);
	buf_free(s, &x->lbuf[1], 1);
	free(x);
	s->wl = NULL;
	s->on_cqe = NULL;
	return s->failed ? 1 : 0;
}
