// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control: the DCQCN reaction point's stages and the
 * notification point's rate limit as pure functions (cc.c), then CE
 * marks, CNPs and pacing through a QP (qp_state.c, req.c).
 */
#include "qp_mock.h"

#define LINE	10000000ull	/* 10 Gbit/s in kbit/s */
#define QA	0x11
#define QB	0x22

static struct sroce_cc_params P;

static void cc_setup(void)
{
	sroce_cc_defaults(&P, LINE);
}

START_TEST(test_cut_on_cnp)
{
	struct sroce_cc_rp rp;
	u64 want;
	u32 a0;

	sroce_cc_rp_init(&rp, &P);
	ck_assert(!rp.active);
	ck_assert_uint_eq(sroce_cc_rp_deadline(&rp), U64_MAX);
	ck_assert(sroce_cc_rp_may_send(&rp, 0));
	a0 = rp.alpha;
	ck_assert_uint_eq(a0, SROCE_CC_ALPHA_ONE / 1024 * 1023);

	sroce_cc_rp_cnp(&rp, &P, 1000);
	ck_assert(rp.active);
	ck_assert_uint_eq(rp.rt, LINE);
	want = LINE - LINE * a0 / (2 * SROCE_CC_ALPHA_ONE);
	ck_assert_uint_eq(rp.rc, want);
	/* alpha = (1 - g) alpha + g */
	ck_assert_uint_eq(rp.alpha, a0 + ((SROCE_CC_ALPHA_ONE - a0) >> 8));
	ck_assert_uint_eq(rp.decreases, 1);
	ck_assert_uint_eq(sroce_cc_rp_deadline(&rp), 1000 + 55000);

	/* A second cut starts from the current rate. */
	ck_assert(sroce_cc_rp_cnp(&rp, &P, 1000 + P.cut_gap_ns));
	ck_assert_uint_eq(rp.rt, want);
	ck_assert_uint_lt(rp.rc, want * 51 / 100);
	ck_assert_uint_eq(rp.decreases, 2);

	/* Never below the minimum rate. */
	for (a0 = 2; a0 < 100; a0++)
		ck_assert(sroce_cc_rp_cnp(&rp, &P, 1000 + a0 * P.cut_gap_ns));
	ck_assert_uint_eq(rp.rc, P.min_kbps);
}
END_TEST

START_TEST(test_one_cut_per_gap)
{
	struct sroce_cc_rp rp;
	u64 t = 5000, rc;
	u32 i, a;

	ck_assert_uint_eq(P.cut_gap_ns, 4000);
	sroce_cc_rp_init(&rp, &P);
	ck_assert(sroce_cc_rp_cnp(&rp, &P, t));
	rc = rp.rc;
	a = rp.alpha;
	/* A flood of CNPs inside the gap cuts nothing more... */
	for (i = 1; i < P.cut_gap_ns; i += 100)
		ck_assert(!sroce_cc_rp_cnp(&rp, &P, t + i));
	ck_assert_uint_eq(rp.rc, rc);
	ck_assert_uint_eq(rp.alpha, a);
	ck_assert_uint_eq(rp.decreases, 1);
	/* ...but holds the recovery back: the timer restarted. */
	ck_assert_uint_eq(rp.rai_at, t + 3901 + P.rai_ns);
	sroce_cc_rp_timer(&rp, &P, t + P.rai_ns);
	ck_assert_uint_eq(rp.t_cnt, 0);
	ck_assert_uint_eq(rp.rc, rc);
	/* The next one after the gap cuts again. */
	ck_assert(sroce_cc_rp_cnp(&rp, &P, t + P.cut_gap_ns));
	ck_assert_uint_lt(rp.rc, rc);
	ck_assert_uint_eq(rp.decreases, 2);
}
END_TEST

/* An idle limiter owes its events; one call pays them, bounded. */
START_TEST(test_catch_up_after_idle)
{
	struct sroce_cc_rp rp, one;
	u64 t = 0, later;
	u32 i;

	sroce_cc_rp_init(&rp, &P);
	for (i = 0; i < 20; i++)
		sroce_cc_rp_cnp(&rp, &P, t += P.cut_gap_ns);
	ck_assert_uint_lt(rp.rc, LINE / 100);
	one = rp;
	/* A few owed events: exactly what they give one by one. */
	later = t + 10 * P.rai_ns;
	sroce_cc_rp_timer(&rp, &P, later);
	for (i = 1; i <= 10; i++)
		sroce_cc_rp_timer(&one, &P, t + i * P.rai_ns);
	ck_assert_uint_eq(rp.rc, one.rc);
	ck_assert_uint_eq(rp.rt, one.rt);
	ck_assert_uint_eq(rp.alpha, one.alpha);
	ck_assert_uint_eq(rp.t_cnt, 10);
	/* A second idle: back at line rate at once, no timer left. */
	sroce_cc_rp_timer(&rp, &P, later + 10000000000ull);
	ck_assert(!rp.active);
	ck_assert_uint_eq(rp.rc, LINE);
	ck_assert_uint_eq(sroce_cc_rp_deadline(&rp), U64_MAX);
	/* 100 owed events: never more increase than one by one gives. */
	rp = one;
	sroce_cc_rp_timer(&rp, &P, t + 100 * P.rai_ns);
	for (i = 11; i <= 100; i++)
		sroce_cc_rp_timer(&one, &P, t + i * P.rai_ns);
	ck_assert_uint_eq(rp.t_cnt, one.t_cnt);
	ck_assert_uint_le(rp.rt, one.rt);
	ck_assert_uint_le(rp.rc, one.rc);
	ck_assert_uint_gt(rp.rc, one.rc / 2);
	/* alpha by (1 - g)^k within a part in a thousand of step by step */
	ck_assert_uint_le(rp.alpha, one.alpha + one.alpha / 1000 + 1);
	ck_assert_uint_ge(rp.alpha + rp.alpha / 1000 + 1, one.alpha);
}
END_TEST

START_TEST(test_recovery_stages)
{
	struct sroce_cc_rp rp;
	u64 t = 0, rc, rt;
	u32 i;

	sroce_cc_rp_init(&rp, &P);
	sroce_cc_rp_cnp(&rp, &P, t);
	/* F timer events: fast recovery halves the gap to the target. */
	for (i = 0; i < P.f; i++) {
		rc = rp.rc;
		t += P.rai_ns;
		sroce_cc_rp_timer(&rp, &P, t);
		ck_assert_uint_eq(rp.rt, LINE);
		ck_assert_uint_eq(rp.rc, (LINE + rc + 1) / 2);
	}
	/* Start from a low target so that increases are visible. */
	for (i = 0; i < 13; i++)
		sroce_cc_rp_cnp(&rp, &P, t += P.cut_gap_ns);
	for (i = 0; i < P.f; i++) {
		t += P.rai_ns;
		sroce_cc_rp_timer(&rp, &P, t);
	}
	/* The sixth timer event: additive increase of the target. */
	rt = rp.rt;
	rc = rp.rc;
	t += P.rai_ns;
	sroce_cc_rp_timer(&rp, &P, t);
	ck_assert_uint_eq(rp.rt, rt + P.ai_kbps);
	ck_assert_uint_eq(rp.rc, (rt + P.ai_kbps + rc + 1) / 2);
	ck_assert_uint_eq(rp.t_cnt, P.f + 1);
	/* Byte counter past F too: hyper increase by (min - F) * R_HAI. */
	for (i = 0; i <= P.f; i++)
		sroce_cc_rp_sent(&rp, &P, (u32)P.byte_reset, t);
	ck_assert_uint_eq(rp.bc_cnt, P.f + 1);
	rt = rp.rt;
	t += P.rai_ns;
	sroce_cc_rp_timer(&rp, &P, t);
	ck_assert_uint_eq(rp.t_cnt, P.f + 2);
	ck_assert_uint_eq(rp.rt, rt + 1 * P.hai_kbps);

	/* Left alone it gets back to line rate and stops its timers. */
	for (i = 0; i < 100000 && rp.active; i++) {
		t += P.rai_ns;
		sroce_cc_rp_timer(&rp, &P, t);
	}
	ck_assert(!rp.active);
	ck_assert_uint_eq(rp.rc, LINE);
	ck_assert_uint_eq(sroce_cc_rp_deadline(&rp), U64_MAX);
}
END_TEST

START_TEST(test_alpha_decay)
{
	struct sroce_cc_rp rp;
	u32 a;

	sroce_cc_rp_init(&rp, &P);
	sroce_cc_rp_cnp(&rp, &P, 0);
	a = rp.alpha;
	sroce_cc_rp_timer(&rp, &P, P.alpha_ns - 1);
	ck_assert_uint_eq(rp.alpha, a);
	sroce_cc_rp_timer(&rp, &P, P.alpha_ns);
	ck_assert_uint_eq(rp.alpha, a - (a >> 8));
	a = rp.alpha;
	sroce_cc_rp_timer(&rp, &P, 2 * P.alpha_ns);
	ck_assert_uint_eq(rp.alpha, a - (a >> 8));
	/* A CNP restarts the decay period. */
	sroce_cc_rp_cnp(&rp, &P, 2 * P.alpha_ns + 10);
	ck_assert_uint_eq(rp.alpha_at, 3 * P.alpha_ns + 10);
	/* Catching up after a long sleep is bounded. */
	sroce_cc_rp_timer(&rp, &P, 1000000000ull);
	ck_assert_uint_gt(rp.alpha_at, 1000000000ull);
}
END_TEST

START_TEST(test_pacing)
{
	struct sroce_cc_rp rp;
	u64 t = 1000000, ns;

	sroce_cc_rp_init(&rp, &P);
	/* At line rate nothing is paced. */
	sroce_cc_rp_sent(&rp, &P, 4096, t);
	ck_assert(sroce_cc_rp_may_send(&rp, t));
	sroce_cc_rp_cnp(&rp, &P, t);
	/* 1000 bytes at rc kbit/s */
	ns = 1000ull * 8 * 1000000 / rp.rc;
	sroce_cc_rp_sent(&rp, &P, 1000, t);
	ck_assert_uint_eq(rp.next_tx, t + ns);
	ck_assert(!sroce_cc_rp_may_send(&rp, t));
	ck_assert(sroce_cc_rp_may_send(&rp, t + ns));
	/* After idling, at most one burst goes back to back. */
	t += 1000000000ull;
	sroce_cc_rp_sent(&rp, &P, 1000, t);
	ck_assert_uint_eq(rp.next_tx,
			  t - P.burst_bytes * 8 * 1000000 / rp.rc + ns);
}
END_TEST

START_TEST(test_np_rate_limit)
{
	u64 last = 0;

	ck_assert(sroce_cc_np_allow(&last, &P, 5));
	ck_assert_uint_eq(last, 5);
	ck_assert(!sroce_cc_np_allow(&last, &P, 5 + P.cnp_gap_ns - 1));
	ck_assert_uint_eq(last, 5);
	ck_assert(sroce_cc_np_allow(&last, &P, 5 + P.cnp_gap_ns));
	/* time 0 is a valid time, not "never" */
	last = 0;
	ck_assert(sroce_cc_np_allow(&last, &P, 0));
	ck_assert(!sroce_cc_np_allow(&last, &P, 1));
}
END_TEST

static struct mock *cc_mock(enum sroce_qp_type type, u32 qpn,
			    const struct sroce_cc_params *cc)
{
	struct mock *m = mock_new(type, qpn, true);
	struct sroce_qp_init_attr ia = {
		.type = type, .qpn = qpn, .sq_size = MOCK_SQ, .sq = m->sq,
		.max_res = MOCK_RES, .res = m->res, .sq_sig_all = true,
		.ops = &mock_ops, .ctx = m, .cc = cc,
	};

	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), 0);
	return m;
}

/* Connect @a and @b to each other, PSNs matching. */
static void cc_connect(struct mock *a, struct mock *b)
{
	struct sroce_qp_attr at;

	mock_attr(&at, b->qp.qpn);
	at.sq_psn = 300;
	at.rq_psn = 400;
	mock_connect_attr(a, &at);
	mock_attr(&at, a->qp.qpn);
	at.sq_psn = 400;
	at.rq_psn = 300;
	mock_connect_attr(b, &at);
}

/* Deliver @from's packet @i to @to with the IP header's CE set. */
static enum sroce_drop deliver_ce(struct mock *from, u32 i, struct mock *to,
				  u64 now)
{
	struct sroce_pkt pkt;
	struct mock_payload pl;

	mock_parse(from, i, &pkt, &pl);
	pkt.ce = true;
	return sroce_qp_rx(&to->qp, &pkt, &pl, now);
}

START_TEST(test_ce_makes_one_cnp)
{
	struct mock *a = cc_mock(SROCE_QPT_RC, QA, &P);
	struct mock *b = cc_mock(SROCE_QPT_RC, QB, &P);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, MOCK_BASE,
					   4096);
	static const u8 zero[SROCE_CNP_LEN];
	struct sroce_pkt pkt;
	struct mock_payload pl;
	u32 i, n;

	w.rdma.remote_addr = MOCK_BASE + 8192;
	w.rdma.rkey = 0x100;
	cc_connect(a, b);
	mock_post_send(a, &w);
	sroce_qp_kick(&a->qp, 64, 10);
	ck_assert_uint_eq(a->npkt, 4);	/* MTU 1024 */
	for (i = 0; i < a->npkt; i++)
		ck_assert(a->pkt[i].ect);	/* data is ECN-capable */

	ck_assert_int_eq(deliver_ce(a, 0, b, 100), SROCE_DROP_NONE);
	ck_assert_uint_eq(b->npkt, 1);
	ck_assert_uint_eq(mock_opcode(b, 0), SROCE_OPC_CNP);
	ck_assert(!b->pkt[0].ect);		/* a CNP is not */
	mock_parse(b, 0, &pkt, &pl);
	ck_assert_uint_eq(pkt.h.bth.dqpn, QA);
	ck_assert_uint_eq(pkt.h.bth.psn, 0);
	ck_assert_uint_eq(pkt.h.bth.pkey, SROCE_CNP_PKEY);
	ck_assert(pkt.h.bth.becn);
	ck_assert_uint_eq(pkt.hdr_len, SROCE_BTH_LEN + SROCE_CNP_LEN);
	ck_assert_uint_eq(pkt.paylen, 0);
	ck_assert_mem_eq(b->pkt[0].b + SROCE_BTH_LEN, zero, SROCE_CNP_LEN);
	/* More CE marks within the interval: counted, no CNP. */
	ck_assert_int_eq(deliver_ce(a, 1, b, 200), SROCE_DROP_NONE);
	ck_assert_int_eq(deliver_ce(a, 2, b, 300), SROCE_DROP_NONE);
	ck_assert_uint_eq(b->qp.stats.ecn_marked, 3);
	ck_assert_uint_eq(b->qp.stats.cnp_sent, 1);
	n = b->npkt;
	for (i = 1; i < n; i++)
		ck_assert_uint_ne(mock_opcode(b, i), SROCE_OPC_CNP);
	/* After the interval the next mark makes another. */
	ck_assert_int_eq(deliver_ce(a, 3, b, 100 + P.cnp_gap_ns),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(b->qp.stats.cnp_sent, 2);
	ck_assert_uint_eq(mock_opcode(b, n), SROCE_OPC_CNP);

	/* The CNP cuts A's rate and nothing answers it. */
	n = a->npkt;
	ck_assert_int_eq(mock_deliver(b, 0, a, 400), SROCE_DROP_NONE);
	ck_assert_uint_eq(a->npkt, n);
	ck_assert_uint_eq(a->qp.stats.cnp_rcvd, 1);
	ck_assert_uint_eq(a->qp.stats.rate_decreases, 1);
	ck_assert(a->qp.cc.rp.active);
	ck_assert_uint_eq(a->qp.state, SROCE_QPS_RTS);
	ck_assert_uint_eq(a->ncqe, 0);
	mock_free(a);
	mock_free(b);
}
END_TEST

START_TEST(test_cnp_without_cc)
{
	/* A peer without CC (rdma_rxe) sends no CNP; ours are ignored. */
	struct mock *a = cc_mock(SROCE_QPT_RC, QA, &P);
	struct mock *b = mock_new(SROCE_QPT_RC, QB, true);
	struct mock *u = mock_new(SROCE_QPT_UD, QB, true);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, MOCK_BASE,
					   100);
	struct sroce_pkt pkt;
	struct mock_payload pl;

	w.rdma.remote_addr = MOCK_BASE + 8192;
	w.rdma.rkey = 0x100;
	cc_connect(a, b);
	mock_connect(u, 0);
	mock_post_send(a, &w);
	sroce_qp_kick(&a->qp, 64, 10);
	ck_assert_int_eq(deliver_ce(a, 0, b, 100), SROCE_DROP_NONE);
	ck_assert_uint_eq(b->qp.stats.ecn_marked, 1);
	ck_assert_uint_eq(b->qp.stats.cnp_sent, 0);
	ck_assert_uint_eq(mock_opcode(b, 0), SROCE_OPC(RC, ACK));
	ck_assert(!b->pkt[0].ect);	/* no CC on b: not ECN-capable */

	/* Hand-made CNP: accepted by a QP without CC, which only counts it. */
	memset(&pkt, 0, sizeof(pkt));
	memset(b->pkt[0].b, 0, SROCE_BTH_LEN + SROCE_CNP_LEN + 4);
	b->pkt[0].b[0] = SROCE_OPC_CNP;
	b->pkt[0].b[2] = 0xff;
	b->pkt[0].b[3] = 0xff;
	b->pkt[0].b[4] = 0x40;
	b->pkt[0].b[7] = QB;
	b->pkt[0].len = SROCE_BTH_LEN + SROCE_CNP_LEN + 4;
	mock_parse(b, 0, &pkt, &pl);
	ck_assert_int_eq(sroce_qp_rx(&b->qp, &pkt, &pl, 200), SROCE_DROP_NONE);
	ck_assert_uint_eq(b->qp.stats.cnp_rcvd, 1);
	ck_assert_uint_eq(b->qp.stats.rate_decreases, 0);
	/* A UD QP takes no CNP. */
	ck_assert_int_eq(sroce_qp_rx(&u->qp, &pkt, &pl, 200),
			 SROCE_DROP_WRONG_QP_TYPE);
	/* Wrong P_Key for the QP and not 0xffff: dropped. */
	pkt.h.bth.pkey = 0x1234;
	ck_assert_int_eq(sroce_qp_rx(&b->qp, &pkt, &pl, 200),
			 SROCE_DROP_BAD_PKEY);
	/* A CNP with a payload does not parse. */
	b->pkt[0].len += 4;
	ck_assert_int_eq(sroce_parse(b->pkt[0].b, b->pkt[0].len, &pkt),
			 SROCE_DROP_BAD_LENGTH);
	mock_free(a);
	mock_free(b);
	mock_free(u);
}
END_TEST

START_TEST(test_qp_paced)
{
	struct sroce_cc_params slow;
	struct mock *a, *b;
	struct sroce_send_wqe w;
	u64 t = 1000, d;
	u32 n, i;

	/* A 40 Mbit/s line that one CNP halves. */
	sroce_cc_defaults(&slow, 40000);
	slow.burst_bytes = 0;
	a = cc_mock(SROCE_QPT_RC, QA, &slow);
	b = cc_mock(SROCE_QPT_RC, QB, &slow);
	mock_connect(a, QB);
	mock_connect(b, QA);
	sroce_cc_rp_cnp(&a->qp.cc.rp, &slow, t);
	ck_assert_uint_lt(a->qp.cc.rp.rc, 20100);
	for (i = 0; i < 4; i++) {
		w = mock_wqe(SROCE_WR_SEND, i, MOCK_BASE, 1000);
		mock_post_send(a, &w);
	}
	sroce_qp_kick(&a->qp, 64, t);
	/* One packet leaves; the next waits for its time, not a spin. */
	ck_assert_uint_eq(a->npkt, 1);
	ck_assert(!sroce_qp_pending(&a->qp));
	n = SROCE_BTH_LEN + 1000;
	d = a->qp.cc.rp.next_tx;
	ck_assert_uint_eq(d, t + (u64)n * 8 * 1000000 / a->qp.cc.rp.rc);
	/* The deadline asked for is the earlier of pacing and RP timers. */
	ck_assert_uint_le(sroce_qp_next_deadline(&a->qp), d);
	/* Before the first increase, the wait stands. */
	sroce_qp_on_deadline(&a->qp, t + slow.rai_ns - 1);
	ck_assert(!sroce_qp_pending(&a->qp));
	ck_assert_uint_eq(a->qp.cc.rp.next_tx, d);
	/* Increases shorten it: a paced packet does not wait at the old rate. */
	sroce_qp_on_deadline(&a->qp, t + slow.rai_ns);
	ck_assert_uint_lt(a->qp.cc.rp.next_tx, d);
	d = a->qp.cc.rp.next_tx;
	ck_assert_uint_gt(d, t + slow.rai_ns);
	ck_assert(!sroce_qp_pending(&a->qp));
	sroce_qp_on_deadline(&a->qp, d);
	ck_assert(sroce_qp_pending(&a->qp));
	sroce_qp_kick(&a->qp, 64, d);
	/* Back within R_AI of line rate by then: pacing is off again. */
	ck_assert(!a->qp.cc.rp.active);
	ck_assert_uint_eq(a->npkt, 4);
	mock_free(a);
	mock_free(b);
}
END_TEST

/* A limiter below line rate arms no timer for a QP with nothing to send. */
START_TEST(test_idle_limiter_no_timer)
{
	struct mock *a, *b;
	struct sroce_send_wqe w;
	u64 t = 1000, rc;

	a = cc_mock(SROCE_QPT_RC, QA, &P);
	b = cc_mock(SROCE_QPT_RC, QB, &P);
	mock_connect(a, QB);
	mock_connect(b, QA);
	for (; t < 1000 + 10 * P.cut_gap_ns; t += P.cut_gap_ns)
		ck_assert(sroce_cc_rp_cnp(&a->qp.cc.rp, &P, t));
	ck_assert(a->qp.cc.rp.active);
	ck_assert_uint_eq(sroce_qp_next_deadline(&a->qp), U64_MAX);
	rc = a->qp.cc.rp.rc;
	/* Sending later first pays what the idle time owed. */
	t += 20 * P.rai_ns;
	w = mock_wqe(SROCE_WR_SEND, 1, MOCK_BASE, 100);
	mock_post_send(a, &w);
	sroce_qp_kick(&a->qp, 64, t);
	ck_assert_uint_eq(a->npkt, 1);
	ck_assert_uint_eq(a->qp.cc.rp.t_cnt, 20);
	ck_assert_uint_gt(a->qp.cc.rp.rc, rc);
	mock_free(a);
	mock_free(b);
}
END_TEST

/*
 * An idle limiter (never cut) needs no time: with the ACK timer already
 * running, a kick given SROCE_NOW_LAZY sends without reading the clock;
 * once cut, the limiter reads it, once per call.
 */
START_TEST(test_idle_limiter_reads_no_clock)
{
	struct sroce_send_wqe w;
	struct mock *a;

	a = cc_mock(SROCE_QPT_RC, QA, &P);
	mock_connect(a, QB);
	a->clock = 1000;
	w = mock_wqe(SROCE_WR_SEND, 1, MOCK_BASE, 100);
	mock_post_send(a, &w);
	sroce_qp_kick(&a->qp, 64, SROCE_NOW_LAZY);
	ck_assert_uint_eq(a->npkt, 1);
	ck_assert_uint_eq(a->clock_reads, 1);	/* the ACK timer's start */
	mock_post_send(a, &w);
	mock_post_send(a, &w);
	sroce_qp_kick(&a->qp, 64, SROCE_NOW_LAZY);
	ck_assert_uint_eq(a->npkt, 3);
	ck_assert_uint_eq(a->clock_reads, 1);
	ck_assert(sroce_cc_rp_cnp(&a->qp.cc.rp, &P, 1000));
	mock_post_send(a, &w);
	mock_post_send(a, &w);
	sroce_qp_kick(&a->qp, 64, SROCE_NOW_LAZY);
	ck_assert_uint_eq(a->clock_reads, 2);
	mock_free(a);
}
END_TEST

START_TEST(test_cnp_codec)
{
	struct sroce_hdrs h;
	struct sroce_pkt pkt;
	u8 buf[64];
	static const u8 want[SROCE_BTH_LEN + SROCE_CNP_LEN] = {
		0x81, 0x00, 0xff, 0xff,		/* CNP, TVer 0; P_Key */
		0x40, 0x12, 0x34, 0x56,		/* BECN; DestQP */
		0x00, 0x00, 0x00, 0x00,		/* PSN 0 */
	};
	u32 n;

	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_OPC_CNP;
	h.bth.pkey = SROCE_CNP_PKEY;
	h.bth.becn = 1;
	h.bth.dqpn = 0x123456;
	memset(buf, 0xaa, sizeof(buf));
	n = sroce_build(buf, &h);
	ck_assert_uint_eq(n, 28);
	ck_assert_mem_eq(buf, want, sizeof(want));
	ck_assert_int_eq(sroce_parse(buf, n + 4, &pkt), SROCE_DROP_NONE);
	ck_assert_str_eq(pkt.op->name, "CNP");
	ck_assert(pkt.h.bth.becn);
	ck_assert_uint_eq(pkt.h.bth.dqpn, 0x123456);
	ck_assert(!pkt.ce);
	ck_assert_int_eq(sroce_parse(buf, n, &pkt), SROCE_DROP_TRUNCATED);
	buf[1] = 0x10;	/* pad 1 */
	ck_assert_int_eq(sroce_parse(buf, n + 4, &pkt), SROCE_DROP_BAD_PAD);
}
END_TEST

Suite *cc_suite(void);

Suite *cc_suite(void)
{
	Suite *s = suite_create("cc");
	TCase *tc = tcase_create("dcqcn");

	tcase_add_checked_fixture(tc, cc_setup, NULL);
	tcase_add_test(tc, test_cut_on_cnp);
	tcase_add_test(tc, test_one_cut_per_gap);
	tcase_add_test(tc, test_catch_up_after_idle);
	tcase_add_test(tc, test_recovery_stages);
	tcase_add_test(tc, test_alpha_decay);
	tcase_add_test(tc, test_pacing);
	tcase_add_test(tc, test_np_rate_limit);
	tcase_add_test(tc, test_ce_makes_one_cnp);
	tcase_add_test(tc, test_cnp_without_cc);
	tcase_add_test(tc, test_qp_paced);
	tcase_add_test(tc, test_idle_limiter_no_timer);
	tcase_add_test(tc, test_idle_limiter_reads_no_clock);
	tcase_add_test(tc, test_cnp_codec);
	suite_add_tcase(s, tc);
	return s;
}
