// SPDX-License-Identifier: GPL-2.0
/*
 * The QP state machine: transitions and attribute masks per QP type
 * (IBA 10.3 / ib_modify_qp_is_ok), value checks, SQD draining, flush to
 * ERR, RESET, receive-side admission checks and the timer tables.
 */
#include "qp_mock.h"

#define VA	(MOCK_BASE + 0x1000)

START_TEST(test_init_args)
{
	struct sroce_qp qp;
	struct sroce_swqe sq[4];
	struct sroce_rd_res res[2];
	struct sroce_qp_init_attr ia = {
		.type = SROCE_QPT_RC, .sq = sq, .sq_size = 4, .res = res,
		.max_res = 2, .ops = &mock_ops,
	};
	struct sroce_qp_ops bad = mock_ops;

	ck_assert_int_eq(sroce_qp_init(&qp, &ia), 0);
	ck_assert_int_eq(qp.state, SROCE_QPS_RESET);
	ia.res = NULL;
	ck_assert_int_eq(sroce_qp_init(&qp, &ia), -SROCE_EINVAL);
	ia.type = SROCE_QPT_UD;
	ck_assert_int_eq(sroce_qp_init(&qp, &ia), 0);
	ck_assert_uint_eq(qp.mtu, 4096);
	ia.ud_mtu = 3;
	ck_assert_int_eq(sroce_qp_init(&qp, &ia), 0);
	ck_assert_uint_eq(qp.mtu, 1024);
	ia.ud_mtu = 9;
	ck_assert_int_eq(sroce_qp_init(&qp, &ia), -SROCE_EINVAL);
	ia.ud_mtu = 0;
	ia.type = (enum sroce_qp_type)7;
	ck_assert_int_eq(sroce_qp_init(&qp, &ia), -SROCE_EINVAL);
	ia.type = SROCE_QPT_UC;
	ia.sq_size = 0;
	ck_assert_int_eq(sroce_qp_init(&qp, &ia), -SROCE_EINVAL);
	ia.sq_size = 4;
	bad.emit = NULL;
	ia.ops = &bad;
	ck_assert_int_eq(sroce_qp_init(&qp, &ia), -SROCE_EINVAL);
	/* Any call may pass SROCE_NOW_LAZY, so the clock is required. */
	bad = mock_ops;
	ck_assert_int_eq(sroce_qp_init(&qp, &ia), 0);
	bad.now = NULL;
	ck_assert_int_eq(sroce_qp_init(&qp, &ia), -SROCE_EINVAL);
}
END_TEST

START_TEST(test_rc_masks)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 1, false);
	struct sroce_qp_attr a;

	mock_attr(&a, 2);
	/* Skipping states is not allowed. */
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, M_RTR_RC), -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, M_RTS_RC), -SROCE_EINVAL);
	/* Missing required attribute. */
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_INIT,
				 M_INIT_RC & ~SROCE_QP_ACCESS_FLAGS),
			 -SROCE_EINVAL);
	/* Q_Key is not an RC attribute. */
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_INIT,
				 M_INIT_RC | SROCE_QP_QKEY), -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_INIT, M_INIT_RC), 0);
	/* INIT -> INIT with optional attributes. */
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_INIT,
				 SROCE_QP_STATE | SROCE_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR,
				 M_RTR_RC & ~SROCE_QP_MIN_RNR_TIMER),
			 -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR,
				 M_RTR_RC | SROCE_QP_SQ_PSN), -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, M_RTR_RC), 0);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_RTR);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS,
				 M_RTS_RC & ~SROCE_QP_TIMEOUT), -SROCE_EINVAL);
	/* A failed modify changes nothing. */
	ck_assert_int_eq(m->qp.state, SROCE_QPS_RTR);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS,
				 M_RTS_RC | SROCE_QP_MIN_RNR_TIMER), 0);
	/* RTS -> RTS: only the optional set. */
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS,
				 SROCE_QP_STATE | SROCE_QP_TIMEOUT),
			 -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS,
				 SROCE_QP_STATE | SROCE_QP_MIN_RNR_TIMER), 0);
	/* No STATE bit: modify in place. */
	a.min_rnr_timer = 9;
	ck_assert_int_eq(sroce_qp_modify(&m->qp, &a, SROCE_QP_MIN_RNR_TIMER, 0), 0);
	ck_assert_uint_eq(m->qp.attr.min_rnr_timer, 9);
	mock_free(m);
}
END_TEST

START_TEST(test_ud_uc_masks)
{
	struct mock *m = mock_new(SROCE_QPT_UD, 1, false);
	struct sroce_qp_attr a;

	mock_attr(&a, 0);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_INIT, M_INIT_RC), -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_INIT, M_INIT_UD), 0);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR,
				 SROCE_QP_STATE | SROCE_QP_DEST_QPN),
			 -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, SROCE_QP_STATE), 0);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS,
				 SROCE_QP_STATE | SROCE_QP_SQ_PSN |
				 SROCE_QP_QKEY), 0);
	mock_free(m);

	m = mock_new(SROCE_QPT_UC, 1, false);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_INIT, M_INIT_RC), 0);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, M_RTR_RC), -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, M_RTR_UC), 0);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, M_RTS_RC), -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, M_RTS_UC), 0);
	mock_free(m);
}
END_TEST

START_TEST(test_values)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 1, false);
	struct sroce_qp_attr a;

	mock_attr(&a, 2);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_INIT, M_INIT_RC), 0);
	a.path_mtu = 6;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, M_RTR_RC), -SROCE_EINVAL);
	a.path_mtu = 5;
	a.max_dest_rd_atomic = MOCK_RES + 1;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, M_RTR_RC), -SROCE_EINVAL);
	a.max_dest_rd_atomic = MOCK_RES;
	a.rq_psn = 1u << 24;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, M_RTR_RC), -SROCE_EINVAL);
	a.rq_psn = 5;
	a.min_rnr_timer = 32;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, M_RTR_RC), -SROCE_EINVAL);
	a.min_rnr_timer = 0;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTR, M_RTR_RC), 0);
	ck_assert_uint_eq(m->qp.mtu, 4096);
	a.retry_cnt = 8;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, M_RTS_RC), -SROCE_EINVAL);
	a.retry_cnt = 7;
	a.timeout = 32;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, M_RTS_RC), -SROCE_EINVAL);
	a.timeout = 31;
	a.max_rd_atomic = SROCE_MAX_RD_ATOMIC + 1;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, M_RTS_RC), -SROCE_EINVAL);
	a.max_rd_atomic = 1;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, M_RTS_RC), 0);
	mock_free(m);
}
END_TEST

START_TEST(test_cur_state_and_query)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 1, false);
	struct sroce_qp_attr a, q;

	mock_connect(m, 2);
	mock_attr(&a, 2);
	a.cur_qp_state = SROCE_QPS_SQD;
	ck_assert_int_eq(sroce_qp_modify(&m->qp, &a, SROCE_QP_CUR_STATE, 0),
			 -SROCE_EINVAL);
	a.cur_qp_state = SROCE_QPS_RTS;
	ck_assert_int_eq(sroce_qp_modify(&m->qp, &a, SROCE_QP_CUR_STATE, 0), 0);
	sroce_qp_query(&m->qp, &q);
	ck_assert_int_eq(q.qp_state, SROCE_QPS_RTS);
	ck_assert_uint_eq(q.sq_psn, 100);
	ck_assert_uint_eq(q.rq_psn, 200);
	ck_assert_uint_eq(q.dest_qp_num, 2);
	ck_assert_uint_eq(q.path_mtu, 3);
	ck_assert_uint_eq(q.timeout, 14);
	mock_free(m);
}
END_TEST

START_TEST(test_sqd_drain)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 1, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 10);
	struct sroce_qp_attr a;

	mock_connect(m, 2);
	mock_attr(&a, 2);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 10, 0);
	a.en_sqd_async_notify = 1;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_SQD,
				 SROCE_QP_STATE | SROCE_QP_EN_SQD_ASYNC_NOTIFY), 0);
	ck_assert_uint_eq(m->qp.attr.sq_draining, 1);
	/* New WQEs wait in SQD. */
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 10, 0);
	ck_assert_uint_eq(m->npkt, 1);
	/* Not drained: SQD -> RTS is refused (ERR is always allowed). */
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, SROCE_QP_STATE),
			 -SROCE_EINVAL);
	mock_rx_aeth(m, mock_ack_syn(), 100, 1);
	ck_assert_uint_eq(m->qp.attr.sq_draining, 0);
	ck_assert_uint_eq(m->events[SROCE_EVENT_SQ_DRAINED], 1);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_SQD,
				 SROCE_QP_STATE | SROCE_QP_TIMEOUT), 0);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, SROCE_QP_STATE), 0);
	sroce_qp_kick(&m->qp, 10, 2);
	ck_assert_uint_eq(m->npkt, 2);
	mock_free(m);
}
END_TEST

START_TEST(test_sqd_idle_event)
{
	struct mock *m = mock_new(SROCE_QPT_UD, 1, false);
	struct sroce_qp_attr a;

	mock_attr(&a, 0);
	mock_connect_attr(m, &a);
	a.en_sqd_async_notify = 1;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_SQD,
				 SROCE_QP_STATE | SROCE_QP_EN_SQD_ASYNC_NOTIFY), 0);
	ck_assert_uint_eq(m->qp.attr.sq_draining, 0);
	ck_assert_uint_eq(m->events[SROCE_EVENT_SQ_DRAINED], 1);
	/* SQD -> SQD with a UD attribute, then back. */
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_SQD,
				 SROCE_QP_STATE | SROCE_QP_QKEY), 0);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, SROCE_QP_STATE), 0);
	mock_free(m);
}
END_TEST

START_TEST(test_flush_in_order)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 1, true);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 10);
	struct sroce_qp_attr a;
	u32 i;

	mock_connect(m, 2);
	mock_attr(&a, 2);
	for (i = 1; i <= 3; i++) {
		w.wr_id = i;
		mock_post_send(m, &w);
	}
	sroce_qp_kick(&m->qp, 2, 0);	/* 1, 2 in flight; 3 pulled or not */
	w.wr_id = 4;
	mock_post_send(m, &w);
	mock_post_recv(m, 10, VA, 10);
	mock_post_recv(m, 11, VA, 10);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_ERR, SROCE_QP_STATE), 0);
	ck_assert_uint_eq(m->ncqe, 6);
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(m->cqe[i].wr_id, i + 1);
		ck_assert_uint_eq(m->cqe[i].status, SROCE_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(m->cqe[i].is_recv, 0);
	}
	ck_assert_uint_eq(m->cqe[4].wr_id, 10);
	ck_assert_uint_eq(m->cqe[4].is_recv, 1);
	ck_assert_uint_eq(m->cqe[5].wr_id, 11);
	/* Posting in ERR: the kick flushes. */
	w.wr_id = 5;
	mock_post_send(m, &w);
	mock_post_recv(m, 12, VA, 10);
	sroce_qp_kick(&m->qp, 10, 1);
	ck_assert_uint_eq(m->ncqe, 8);
	ck_assert_uint_eq(m->cqe[6].wr_id, 5);
	ck_assert_uint_eq(m->cqe[7].wr_id, 12);
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), U64_MAX);
	/* ERR -> RESET -> INIT works; RESET forgets without completing. */
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RTS, SROCE_QP_STATE),
			 -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_RESET, SROCE_QP_STATE), 0);
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_INIT, M_INIT_RC), 0);
	ck_assert_uint_eq(m->ncqe, 8);
	mock_free(m);
}
END_TEST

/* A producer that refills its SQ and RQ as fast as the core takes. */
static u32 endless_taken;

static int endless_send(void *ctx, struct sroce_send_wqe *out)
{
	memset(out, 0, sizeof(*out));
	out->wr_id = ++endless_taken;
	out->opcode = SROCE_WR_SEND;
	return 0;
}

static int endless_recv(void *ctx, struct sroce_recv_wqe *out)
{
	memset(out, 0, sizeof(*out));
	out->wr_id = ++endless_taken;
	return 0;
}

static void endless_complete(void *ctx, const struct sroce_cqe *cqe)
{
	struct mock *m = ctx;

	m->ncqe++;
}

/*
 * ERR and SQE flushes are bounded: the move to ERR takes at most one
 * ring's worth from each ring, a kick at most its budget, and what is
 * left is pending for the next kick.
 */
START_TEST(test_flush_bounded)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 1, true);
	struct sroce_qp_ops ops = *m->qp.ops;
	struct sroce_qp_attr a;

	ops.next_send = endless_send;
	ops.recv_wqe = endless_recv;
	ops.complete = endless_complete;
	mock_connect(m, 2);
	mock_attr(&a, 2);
	m->qp.ops = &ops;
	endless_taken = 0;
	ck_assert_int_eq(mock_to(m, &a, SROCE_QPS_ERR, SROCE_QP_STATE), 0);
	/* One ring's worth each: sq_size, and rq_size (sq_size if unset). */
	ck_assert_uint_eq(endless_taken, 2 * MOCK_SQ);
	ck_assert_uint_eq(m->ncqe, 2 * MOCK_SQ);
	ck_assert(sroce_qp_pending(&m->qp));
	ck_assert_uint_eq(m->qp.stats.flushes_deferred, 1);
	/* Each kick takes at most its budget from each ring. */
	ck_assert(sroce_qp_kick(&m->qp, 16, 1));
	ck_assert_uint_eq(endless_taken, 2 * MOCK_SQ + 32);
	ck_assert(sroce_qp_kick(&m->qp, 0, 1));	/* takes none: more */
	ck_assert_uint_eq(endless_taken, 2 * MOCK_SQ + 32);
	/* A zero budget took nothing: nothing was deferred by it. */
	ck_assert_uint_eq(m->qp.stats.flushes_deferred, 2);
	/* The producer stops: the next kick drains and nothing is pending. */
	m->qp.ops = &mock_ops;
	ck_assert(!sroce_qp_kick(&m->qp, 16, 2));
	ck_assert(!sroce_qp_pending(&m->qp));
	mock_free(m);
}
END_TEST

START_TEST(test_srq_last_wqe)
{
	struct mock *m = calloc(1, sizeof(*m));
	struct sroce_qp_init_attr ia = {
		.type = SROCE_QPT_RC, .sq_size = MOCK_SQ, .max_res = MOCK_RES,
		.srq = true, .ops = &mock_ops,
	};
	struct sroce_qp_attr a;

	m->mem = calloc(1, MOCK_MEM);
	m->pkt = calloc(MOCK_PKTS, sizeof(*m->pkt));
	ia.sq = m->sq;
	ia.res = m->res;
	ia.ctx = m;
	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), 0);
	mock_reg(m, MOCK_BASE, MOCK_MEM, MOCK_ALL_ACCESS);
	mock_connect(m, 2);
	mock_post_recv(m, 10, VA, 10);
	sroce_qp_flush(&m->qp);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
	/* SRQ WQEs belong to the SRQ: not flushed by this QP. */
	ck_assert_uint_eq(m->ncqe, 0);
	ck_assert_uint_eq(m->events[SROCE_EVENT_QP_LAST_WQE_REACHED], 1);
	mock_attr(&a, 2);
	mock_free(m);
}
END_TEST

START_TEST(test_rx_admission)
{
	struct mock *a = mock_new(SROCE_QPT_RC, 1, false);
	struct mock *b = mock_new(SROCE_QPT_RC, 2, false);
	struct mock *u = mock_new(SROCE_QPT_UC, 3, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 10);
	struct sroce_qp_attr at;
	struct sroce_pkt p;
	struct mock_payload pl;

	mock_connect(a, 2);
	mock_post_send(a, &w);
	sroce_qp_kick(&a->qp, 10, 0);
	/* RESET and INIT receive nothing. */
	ck_assert_int_eq(mock_deliver(a, 0, b, 0), SROCE_DROP_BAD_QP_STATE);
	mock_attr(&at, 1);
	ck_assert_int_eq(mock_to(b, &at, SROCE_QPS_INIT, M_INIT_RC), 0);
	ck_assert_int_eq(mock_deliver(a, 0, b, 0), SROCE_DROP_BAD_QP_STATE);
	/* RTR takes requests and raises COMM_EST once. */
	at.rq_psn = 100;
	ck_assert_int_eq(mock_to(b, &at, SROCE_QPS_RTR, M_RTR_RC), 0);
	mock_post_recv(b, 1, VA, 100);
	ck_assert_int_eq(mock_deliver(a, 0, b, 0), SROCE_DROP_NONE);
	ck_assert_uint_eq(b->events[SROCE_EVENT_COMM_EST], 1);
	ck_assert_uint_eq(b->ncqe, 1);
	/* ...but not responses. */
	ck_assert_int_eq(mock_deliver(b, 0, a, 0), SROCE_DROP_NONE);
	ck_assert_int_eq(mock_rx_aeth(b, mock_ack_syn(), 1, 0),
			 SROCE_DROP_BAD_QP_STATE);
	/* RC packet to a UC QP. */
	mock_connect(u, 2);
	ck_assert_int_eq(mock_deliver(a, 0, u, 0), SROCE_DROP_WRONG_QP_TYPE);
	/* P_Key mismatch. */
	mock_parse(a, 0, &p, &pl);
	p.h.bth.pkey = 0x7001;
	ck_assert_int_eq(sroce_qp_rx(&b->qp, &p, &pl, 0), SROCE_DROP_BAD_PKEY);
	/* A limited member matches the full member of the same key
	 * (then it is a duplicate with AckReq: re-ACKed).
	 */
	p.h.bth.pkey = 0x7fff;
	ck_assert_int_eq(sroce_qp_rx(&b->qp, &p, &pl, 0), SROCE_DROP_NONE);
	ck_assert_uint_eq(b->qp.stats.dup_requests, 1);
	mock_free(a);
	mock_free(b);
	mock_free(u);
}
END_TEST

/*
 * An RC or UC packet must come from the AV's peer GID to its own; UD
 * packets are checked by Q_Key only.
 */
START_TEST(test_rx_path)
{
	static const u8 peer[SROCE_GID_LEN] = {
		[10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
	static const u8 self[SROCE_GID_LEN] = {
		[10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	struct mock *a = mock_new(SROCE_QPT_RC, 1, false);
	struct mock *b = mock_new(SROCE_QPT_RC, 2, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 10);
	struct sroce_qp_attr at, q;
	struct mock_payload pl;
	struct sroce_pkt p;

	mock_connect(a, 2);
	mock_post_send(a, &w);
	sroce_qp_kick(&a->qp, 10, 0);
	mock_attr(&at, 1);
	at.rq_psn = 100;	/* a's first PSN */
	memcpy(at.sgid, self, sizeof(self));
	memcpy(at.dgid, peer, sizeof(peer));
	mock_connect_attr(b, &at);
	sroce_qp_query(&b->qp, &q);
	ck_assert_mem_eq(q.dgid, peer, sizeof(peer));
	mock_post_recv(b, 1, VA, 100);
	mock_parse(a, 0, &p, &pl);
	/* sroce_parse() leaves the addresses to the caller, zeroed. */
	ck_assert_int_eq(p.sgid[11] | p.dgid[11], 0);
	ck_assert_int_eq(sroce_qp_rx(&b->qp, &p, &pl, 0), SROCE_DROP_BAD_ADDR);
	/* From the peer, but to another of our addresses. */
	memcpy(p.sgid, peer, sizeof(peer));
	ck_assert_int_eq(sroce_qp_rx(&b->qp, &p, &pl, 0), SROCE_DROP_BAD_ADDR);
	/* From a third address to us. */
	memcpy(p.dgid, self, sizeof(self));
	p.sgid[15] = 3;
	ck_assert_int_eq(sroce_qp_rx(&b->qp, &p, &pl, 0), SROCE_DROP_BAD_ADDR);
	ck_assert_uint_eq(b->ncqe, 0);
	ck_assert_uint_eq(b->events[SROCE_EVENT_COMM_EST], 0);
	/* From the peer to us: taken. */
	p.sgid[15] = 2;
	ck_assert_int_eq(sroce_qp_rx(&b->qp, &p, &pl, 0), SROCE_DROP_NONE);
	ck_assert_uint_eq(b->ncqe, 1);
	mock_free(a);
	mock_free(b);
}
END_TEST

START_TEST(test_timer_tables)
{
	ck_assert_uint_eq(sroce_ack_timeout_ns(0), U64_MAX);
	ck_assert_uint_eq(sroce_ack_timeout_ns(1), 8192);
	ck_assert_uint_eq(sroce_ack_timeout_ns(14), 67108864);
	ck_assert_uint_eq(sroce_ack_timeout_ns(31), 4096ull << 31);
	ck_assert_uint_eq(sroce_rnr_timer_ns(0), 655360000);
	ck_assert_uint_eq(sroce_rnr_timer_ns(1), 10000);
	ck_assert_uint_eq(sroce_rnr_timer_ns(5), 60000);
	ck_assert_uint_eq(sroce_rnr_timer_ns(12), 640000);
	ck_assert_uint_eq(sroce_rnr_timer_ns(18), 5120000);
	ck_assert_uint_eq(sroce_rnr_timer_ns(31), 491520000);
}
END_TEST

Suite *qp_state_suite(void);

Suite *qp_state_suite(void)
{
	Suite *s = suite_create("qp_state");
	TCase *tc = tcase_create("state");

	tcase_add_test(tc, test_init_args);
	tcase_add_test(tc, test_rc_masks);
	tcase_add_test(tc, test_ud_uc_masks);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_cur_state_and_query);
	tcase_add_test(tc, test_sqd_drain);
	tcase_add_test(tc, test_sqd_idle_event);
	tcase_add_test(tc, test_flush_in_order);
	tcase_add_test(tc, test_srq_last_wqe);
	tcase_add_test(tc, test_rx_admission);
	tcase_add_test(tc, test_rx_path);
	tcase_add_test(tc, test_flush_bounded);
	tcase_add_test(tc, test_timer_tables);
	suite_add_tcase(s, tc);
	return s;
}
