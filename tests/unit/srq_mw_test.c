// SPDX-License-Identifier: GPL-2.0
/*
 * The core's side of shared receive queues and memory windows: a QP on
 * an SRQ leaves the SRQ's WQEs alone when it goes to ERR and raises
 * LAST_WQE_REACHED instead of flushing; BIND_MW is a local operation run
 * in SQ order through ops->local_op with its fields intact, completed as
 * SROCE_WC_BIND_MW (or with the status local_op gives), refused on UD.
 */
#include "qp_mock.h"

#define VA	(MOCK_BASE + 0x1000)

static struct sroce_qp_ops sm_ops;
static struct sroce_send_wqe sm_last;	/* the last local_op's WQE */
static u32 sm_local_ops;
static u8 sm_status;			/* what local_op returns */

static u8 sm_local_op(void *ctx, const struct sroce_send_wqe *wr)
{
	sm_last = *wr;
	sm_local_ops++;
	return sm_status;
}

/* A mock QP, on an SRQ (the mock's receive queue stands for it) or not. */
static struct mock *sm_new(enum sroce_qp_type type, bool srq)
{
	struct mock *m = mock_new(type, 0x11, false);
	struct sroce_qp_init_attr ia = {
		.type = type, .qpn = 0x11, .sq = m->sq, .sq_size = MOCK_SQ,
		.res = m->res, .max_res = MOCK_RES, .srq = srq,
		.ops = &sm_ops, .ctx = m,
	};

	sm_ops = mock_ops;
	sm_ops.local_op = sm_local_op;
	sm_local_ops = 0;
	sm_status = SROCE_WC_SUCCESS;
	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), 0);
	mock_connect(m, 0x22);
	return m;
}

static void sm_to_err(struct mock *m)
{
	struct sroce_qp_attr a = { .qp_state = SROCE_QPS_ERR };

	ck_assert_int_eq(sroce_qp_modify(&m->qp, &a, SROCE_QP_STATE, 0), 0);
}

START_TEST(test_srq_err_leaves_wqes)
{
	struct mock *m = sm_new(SROCE_QPT_RC, true);

	mock_post_recv(m, 1, VA, 64);
	mock_post_recv(m, 2, VA, 64);
	sm_to_err(m);
	/* The SRQ's WQEs belong to the other QPs on it: none flushed. */
	ck_assert_uint_eq(m->ncqe, 0);
	ck_assert_uint_eq(m->rw_head, 0);
	ck_assert_uint_eq(m->events[SROCE_EVENT_QP_LAST_WQE_REACHED], 1);
	mock_free(m);
}
END_TEST

START_TEST(test_rq_err_flushes)
{
	struct mock *m = sm_new(SROCE_QPT_RC, false);

	mock_post_recv(m, 1, VA, 64);
	mock_post_recv(m, 2, VA, 64);
	sm_to_err(m);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(m->cqe[1].wr_id, 2);
	ck_assert_uint_eq(m->events[SROCE_EVENT_QP_LAST_WQE_REACHED], 0);
	mock_free(m);
}
END_TEST

static struct sroce_send_wqe bind_wqe(u64 wr_id)
{
	struct sroce_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = SROCE_WR_BIND_MW;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.bind.addr = VA + 0x100;
	w.bind.length = 0x200;
	w.bind.mr_lkey = 0x100;
	w.bind.mw_rkey = 0x4201;
	w.bind.new_rkey = 0x4202;
	w.bind.access = SROCE_ACCESS_REMOTE_READ;
	return w;
}

START_TEST(test_bind_mw_in_order)
{
	struct mock *m = sm_new(SROCE_QPT_RC, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 16);

	mock_post_send(m, &w);
	w = bind_wqe(2);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(sm_local_ops, 1);
	ck_assert_uint_eq(sm_last.bind.addr, VA + 0x100);
	ck_assert_uint_eq(sm_last.bind.length, 0x200);
	ck_assert_uint_eq(sm_last.bind.mw_rkey, 0x4201);
	ck_assert_uint_eq(sm_last.bind.new_rkey, 0x4202);
	ck_assert_uint_eq(sm_last.bind.access, SROCE_ACCESS_REMOTE_READ);
	/* It takes no PSN and completes behind the SEND, on its ACK. */
	ck_assert_uint_eq(m->npkt, 1);
	ck_assert_uint_eq(m->ncqe, 0);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 100, 1),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[0].opcode, SROCE_WC_SEND);
	ck_assert_uint_eq(m->cqe[1].wr_id, 2);
	ck_assert_uint_eq(m->cqe[1].opcode, SROCE_WC_BIND_MW);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_SUCCESS);
	mock_free(m);
}
END_TEST

START_TEST(test_bind_mw_error_status)
{
	struct mock *m = sm_new(SROCE_QPT_RC, false);
	struct sroce_send_wqe w = bind_wqe(7);

	sm_status = SROCE_WC_MW_BIND_ERR;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(sm_local_ops, 1);
	ck_assert_uint_ge(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].wr_id, 7);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_MW_BIND_ERR);
	mock_free(m);
}
END_TEST

START_TEST(test_bind_mw_not_on_ud)
{
	struct mock *m = sm_new(SROCE_QPT_UD, false);
	struct sroce_send_wqe w = bind_wqe(3);

	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(sm_local_ops, 0);
	ck_assert_uint_ge(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_LOC_QP_OP_ERR);
	mock_free(m);
}
END_TEST

Suite *srq_mw_suite(void);
Suite *srq_mw_suite(void)
{
	Suite *s = suite_create("srq_mw");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_srq_err_leaves_wqes);
	tcase_add_test(tc, test_rq_err_flushes);
	tcase_add_test(tc, test_bind_mw_in_order);
	tcase_add_test(tc, test_bind_mw_error_status);
	tcase_add_test(tc, test_bind_mw_not_on_ud);
	suite_add_tcase(s, tc);
	return s;
}
