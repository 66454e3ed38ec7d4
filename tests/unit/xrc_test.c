// SPDX-License-Identifier: GPL-2.0
/*
 * XRC: an initiator QP sends to XRC SRQs named per WQE, the target QP
 * delivers each request into the SRQ its XRCETH names after the caller's
 * xrc_srq op accepts it (same XRC domain), and both speak the XRC
 * opcodes.  Also the attribute masks of the two roles and the packets
 * each role refuses.
 */
#include "qp_mock.h"

#define MTU	1024
#define VA	(MOCK_BASE + 0x1000)
#define RVA	(MOCK_BASE + 0x40000)
#define NSRQ	3

/* A target's caller: SRQs 5, 6 (XRC domain 1) and 7 (domain 2). */
struct xsrq {
	u32 srqn;
	u32 xrcd;
	struct sroce_recv_wqe rw[8];
	u32 head, tail;
};

struct xmock {
	struct mock m;		/* first: the mock ops take the same ctx */
	struct xsrq srq[NSRQ];
	struct xsrq *cur;
	u32 xrcd;
	u32 lookups;
};

static int x_xrc_srq(void *ctx, u32 srqn)
{
	struct xmock *x = ctx;
	u32 i;

	x->lookups++;
	x->cur = NULL;
	for (i = 0; i < NSRQ; i++) {
		if (x->srq[i].srqn != srqn)
			continue;
		if (x->srq[i].xrcd != x->xrcd)
			return -SROCE_EINVAL;
		x->cur = &x->srq[i];
		return 0;
	}
	return -SROCE_EINVAL;
}

static int x_recv_wqe(void *ctx, struct sroce_recv_wqe *out)
{
	struct xmock *x = ctx;

	/* The core must have chosen an SRQ first. */
	ck_assert_ptr_nonnull(x->cur);
	if (x->cur->head == x->cur->tail)
		return -SROCE_EAGAIN;
	*out = x->cur->rw[x->cur->head++ % 8];
	return 0;
}

static struct sroce_qp_ops x_ops;

static struct xmock *xmock_new(enum sroce_qp_type type, u32 qpn)
{
	struct xmock *x = calloc(1, sizeof(*x));
	struct sroce_qp_init_attr ia = {
		.type = type, .qpn = qpn, .sq_size = MOCK_SQ,
		.max_res = MOCK_RES, .ops = &x_ops,
	};
	struct mock *m = &x->m;

	ck_assert_ptr_nonnull(x);
	x_ops = mock_ops;
	x_ops.recv_wqe = x_recv_wqe;
	x_ops.xrc_srq = x_xrc_srq;
	m->mem = calloc(1, MOCK_MEM);
	m->pkt = calloc(MOCK_PKTS, sizeof(*m->pkt));
	ck_assert_ptr_nonnull(m->mem);
	ck_assert_ptr_nonnull(m->pkt);
	ia.sq = m->sq;
	ia.res = m->res;
	ia.ctx = x;
	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), 0);
	mock_reg(m, MOCK_BASE, MOCK_MEM, MOCK_ALL_ACCESS);
	x->xrcd = 1;
	x->srq[0].srqn = 5;
	x->srq[0].xrcd = 1;
	x->srq[1].srqn = 6;
	x->srq[1].xrcd = 1;
	x->srq[2].srqn = 7;
	x->srq[2].xrcd = 2;
	return x;
}

static void xmock_free(struct xmock *x)
{
	free(x->m.mem);
	free(x->m.pkt);
	free(x);
}

static void x_post_recv(struct xmock *x, u32 i, u64 wr_id, u64 va, u32 len)
{
	struct sroce_recv_wqe *r = &x->srq[i].rw[x->srq[i].tail++ % 8];

	memset(r, 0, sizeof(*r));
	r->wr_id = wr_id;
	r->num_sge = 1;
	r->sge[0].addr = va;
	r->sge[0].length = len;
	r->sge[0].lkey = 0x100;
}

#define M_RTR_INI	(SROCE_QP_STATE | SROCE_QP_AV | SROCE_QP_PATH_MTU | \
			 SROCE_QP_DEST_QPN | SROCE_QP_RQ_PSN)
#define M_RTS_TGT	(SROCE_QP_STATE | SROCE_QP_TIMEOUT | SROCE_QP_SQ_PSN)

struct xpair {
	struct xmock *ini, *tgt;
	u32 ci, ct;
};

/* What ibv_xsrq_pingpong passes: the smallest masks each role accepts. */
static void xpair_new(struct xpair *p)
{
	struct sroce_qp_attr a;

	memset(p, 0, sizeof(*p));
	p->ini = xmock_new(SROCE_QPT_XRC_INI, 0x11);
	p->tgt = xmock_new(SROCE_QPT_XRC_TGT, 0x22);
	mock_attr(&a, 0x22);
	ck_assert_int_eq(mock_to(&p->ini->m, &a, SROCE_QPS_INIT, M_INIT_RC), 0);
	ck_assert_int_eq(mock_to(&p->ini->m, &a, SROCE_QPS_RTR, M_RTR_INI), 0);
	ck_assert_int_eq(mock_to(&p->ini->m, &a, SROCE_QPS_RTS, M_RTS_RC), 0);
	mock_attr(&a, 0x11);
	a.sq_psn = 200;
	a.rq_psn = 100;
	ck_assert_int_eq(mock_to(&p->tgt->m, &a, SROCE_QPS_INIT, M_INIT_RC), 0);
	ck_assert_int_eq(mock_to(&p->tgt->m, &a, SROCE_QPS_RTR, M_RTR_RC), 0);
	ck_assert_int_eq(mock_to(&p->tgt->m, &a, SROCE_QPS_RTS, M_RTS_TGT), 0);
}

static void xpair_free(struct xpair *p)
{
	xmock_free(p->ini);
	xmock_free(p->tgt);
}

static struct sroce_send_wqe x_wqe(u8 opcode, u64 wr_id, u32 len, u32 srqn)
{
	struct sroce_send_wqe w = mock_wqe(opcode, wr_id, VA, len);

	w.xrc_srqn = srqn;
	return w;
}

START_TEST(test_send_to_two_srqs)
{
	struct sroce_send_wqe w1 = x_wqe(SROCE_WR_SEND, 1, 2 * MTU + 10, 5);
	struct sroce_send_wqe w2 = x_wqe(SROCE_WR_SEND_WITH_IMM, 2, 100, 6);
	struct mock_payload pl;
	struct sroce_pkt k;
	struct xpair p;
	u32 i;

	xpair_new(&p);
	for (i = 0; i < 2 * MTU + 10; i++)
		p.ini->m.mem[0x1000 + i] = (u8)(i * 7);
	w2.ex = 0xbeef;
	x_post_recv(p.tgt, 0, 50, RVA, 4 * MTU);
	x_post_recv(p.tgt, 1, 60, RVA + 0x10000, MTU);
	mock_post_send(&p.ini->m, &w1);
	mock_post_send(&p.ini->m, &w2);
	sroce_qp_kick(&p.ini->m.qp, 100, 0);
	ck_assert_uint_eq(p.ini->m.npkt, 4);
	ck_assert_uint_eq(mock_opcode(&p.ini->m, 0), SROCE_OPC(XRC, SEND_FIRST));
	ck_assert_uint_eq(mock_opcode(&p.ini->m, 1), SROCE_OPC(XRC, SEND_MIDDLE));
	ck_assert_uint_eq(mock_opcode(&p.ini->m, 2), SROCE_OPC(XRC, SEND_LAST));
	ck_assert_uint_eq(mock_opcode(&p.ini->m, 3),
			  SROCE_OPC(XRC, SEND_ONLY_IMM));
	for (i = 0; i < 4; i++) {
		mock_parse(&p.ini->m, i, &k, &pl);
		ck_assert_uint_eq(k.h.xrceth, i < 3 ? 5 : 6);
		ck_assert_uint_eq(k.h.bth.dqpn, 0x22);
	}
	ck_assert_uint_eq(mock_pump(&p.ini->m, &p.ci, &p.tgt->m, 1), 4);
	ck_assert_uint_eq(p.tgt->m.ncqe, 2);
	ck_assert_uint_eq(p.tgt->m.cqe[0].wr_id, 50);
	ck_assert_uint_eq(p.tgt->m.cqe[0].srqn, 5);
	ck_assert_uint_eq(p.tgt->m.cqe[0].byte_len, 2 * MTU + 10);
	ck_assert_uint_eq(p.tgt->m.cqe[0].qp_num, 0x22);
	ck_assert_uint_eq(p.tgt->m.cqe[1].wr_id, 60);
	ck_assert_uint_eq(p.tgt->m.cqe[1].srqn, 6);
	ck_assert_uint_eq(p.tgt->m.cqe[1].ex, 0xbeef);
	ck_assert_int_eq(memcmp(p.tgt->m.mem + 0x40000, p.ini->m.mem + 0x1000,
				2 * MTU + 10), 0);
	/* Every request was checked against the target's XRC domain. */
	ck_assert_uint_eq(p.tgt->lookups, 4);
	/* XRC ACKs, no XRCETH. */
	ck_assert_uint_ge(p.tgt->m.npkt, 1);
	for (i = 0; i < p.tgt->m.npkt; i++) {
		ck_assert_uint_eq(mock_opcode(&p.tgt->m, i), SROCE_OPC(XRC, ACK));
		ck_assert_uint_eq(p.tgt->m.pkt[i].len, 16 + 4);
	}
	mock_pump(&p.tgt->m, &p.ct, &p.ini->m, 2);
	ck_assert_uint_eq(p.ini->m.ncqe, 2);
	ck_assert_uint_eq(p.ini->m.cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(p.ini->m.cqe[1].status, SROCE_WC_SUCCESS);
	xpair_free(&p);
}
END_TEST

START_TEST(test_read_write_atomic)
{
	struct sroce_send_wqe w = x_wqe(SROCE_WR_RDMA_READ, 1, 3000, 6);
	struct sroce_send_wqe wr = x_wqe(SROCE_WR_RDMA_WRITE, 2, 200, 6);
	struct sroce_send_wqe fa = x_wqe(SROCE_WR_ATOMIC_FETCH_AND_ADD, 3, 8, 6);
	struct xpair p;
	u64 v = 40;
	u32 i;

	xpair_new(&p);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	wr.sge[0].addr = VA + 0x5000;
	fa.sge[0].addr = VA + 0x6000;
	wr.rdma.remote_addr = RVA + 0x8000;
	wr.rdma.rkey = 0x100;
	fa.atomic.remote_addr = RVA + 0x9000;
	fa.atomic.rkey = 0x100;
	fa.atomic.compare_add = 2;
	for (i = 0; i < 3000; i++)
		p.tgt->m.mem[0x40000 + i] = (u8)(i * 3 + 1);
	memcpy(p.tgt->m.mem + 0x49000, &v, 8);
	mock_post_send(&p.ini->m, &w);
	mock_post_send(&p.ini->m, &wr);
	mock_post_send(&p.ini->m, &fa);
	sroce_qp_kick(&p.ini->m.qp, 100, 0);
	ck_assert_uint_eq(mock_opcode(&p.ini->m, 0), SROCE_OPC(XRC, READ_REQ));
	mock_pump(&p.ini->m, &p.ci, &p.tgt->m, 1);
	/* READ responses and the atomic ACK on the XRC transport. */
	ck_assert_uint_eq(mock_opcode(&p.tgt->m, 0),
			  SROCE_OPC(XRC, READ_RESP_FIRST));
	ck_assert_uint_eq(mock_opcode(&p.tgt->m, 2),
			  SROCE_OPC(XRC, READ_RESP_LAST));
	for (i = 0; i < p.tgt->m.npkt; i++)
		ck_assert_uint_eq(mock_opcode(&p.tgt->m, i) &
				  SROCE_TRANSPORT_MASK, SROCE_TRANSPORT_XRC);
	mock_pump(&p.tgt->m, &p.ct, &p.ini->m, 2);
	ck_assert_uint_eq(p.ini->m.ncqe, 3);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(p.ini->m.cqe[i].status, SROCE_WC_SUCCESS);
	ck_assert_int_eq(memcmp(p.ini->m.mem + 0x1000, p.tgt->m.mem + 0x40000,
				3000), 0);
	memcpy(&v, p.tgt->m.mem + 0x49000, 8);
	ck_assert_uint_eq(v, 42);
	/* No receive WQE was consumed by RDMA. */
	ck_assert_uint_eq(p.tgt->m.ncqe, 0);
	xpair_free(&p);
}
END_TEST

/* A request naming SRQ @srqn fails: invalid request NAK, both sides. */
static void bad_srqn(u32 srqn)
{
	struct sroce_send_wqe w = x_wqe(SROCE_WR_SEND, 1, 64, srqn);
	struct sroce_pkt k;
	struct mock_payload pl;
	struct xpair p;

	xpair_new(&p);
	x_post_recv(p.tgt, 2, 50, RVA, MTU);
	mock_post_send(&p.ini->m, &w);
	sroce_qp_kick(&p.ini->m.qp, 100, 0);
	ck_assert_int_eq(mock_pump(&p.ini->m, &p.ci, &p.tgt->m, 1), 1);
	ck_assert_uint_eq(p.tgt->m.npkt, 1);
	mock_parse(&p.tgt->m, 0, &k, &pl);
	ck_assert_uint_eq(k.h.bth.opcode, SROCE_OPC(XRC, ACK));
	ck_assert_uint_eq(k.h.aeth.syndrome,
			  mock_nak_syn(SROCE_NAK_INVALID_REQ));
	ck_assert_uint_eq(p.tgt->m.ncqe, 0);
	ck_assert_uint_eq(p.tgt->m.qp.state, SROCE_QPS_ERR);
	mock_pump(&p.tgt->m, &p.ct, &p.ini->m, 2);
	ck_assert_uint_ge(p.ini->m.ncqe, 1);
	ck_assert_uint_eq(p.ini->m.cqe[0].status, SROCE_WC_REM_INV_REQ_ERR);
	xpair_free(&p);
}

START_TEST(test_unknown_srqn)
{
	bad_srqn(9);
}
END_TEST

START_TEST(test_srq_of_other_xrcd)
{
	bad_srqn(7);
}
END_TEST

START_TEST(test_srqn_changes_mid_message)
{
	struct sroce_send_wqe w = x_wqe(SROCE_WR_SEND, 1, 2 * MTU + 10, 5);
	struct xpair p;

	xpair_new(&p);
	x_post_recv(p.tgt, 0, 50, RVA, 4 * MTU);
	mock_post_send(&p.ini->m, &w);
	sroce_qp_kick(&p.ini->m.qp, 100, 0);
	ck_assert_uint_eq(p.ini->m.npkt, 3);
	/* The MIDDLE packet names SRQ 6, of the same XRC domain. */
	p.ini->m.pkt[1].b[SROCE_BTH_LEN + 3] = 6;
	ck_assert_int_eq(mock_deliver(&p.ini->m, 0, &p.tgt->m, 1),
			 SROCE_DROP_NONE);
	ck_assert_int_eq(mock_deliver(&p.ini->m, 1, &p.tgt->m, 1),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(p.tgt->m.qp.state, SROCE_QPS_ERR);
	/* The receive WQE from SRQ 5 is failed, to SRQ 5's CQ. */
	ck_assert_uint_eq(p.tgt->m.ncqe, 1);
	ck_assert_uint_eq(p.tgt->m.cqe[0].wr_id, 50);
	ck_assert_uint_ne(p.tgt->m.cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(p.tgt->m.cqe[0].srqn, 5);
	xpair_free(&p);
}
END_TEST

START_TEST(test_wrong_transport_dropped)
{
	struct sroce_send_wqe w = x_wqe(SROCE_WR_SEND, 1, 64, 5);
	struct mock *rc = mock_new(SROCE_QPT_RC, 0x22, false);
	struct sroce_qp_attr a;
	struct xpair p;

	xpair_new(&p);
	mock_attr(&a, 0x11);
	a.sq_psn = 200;
	a.rq_psn = 100;
	mock_connect_attr(rc, &a);
	mock_post_recv(rc, 1, RVA, MTU);
	x_post_recv(p.tgt, 0, 50, RVA, MTU);
	mock_post_send(&p.ini->m, &w);
	sroce_qp_kick(&p.ini->m.qp, 100, 0);
	/* An XRC request at an RC QP, and an RC request at the target. */
	ck_assert_int_eq(mock_deliver(&p.ini->m, 0, rc, 1),
			 SROCE_DROP_WRONG_QP_TYPE);
	ck_assert_uint_eq(rc->ncqe, 0);
	w = mock_wqe(SROCE_WR_SEND, 2, VA, 64);
	mock_post_send(rc, &w);
	sroce_qp_kick(&rc->qp, 100, 0);
	ck_assert_int_eq(mock_deliver(rc, 0, &p.tgt->m, 1),
			 SROCE_DROP_WRONG_QP_TYPE);
	/* The initiator takes no requests, the target no responses. */
	ck_assert_int_eq(mock_deliver(&p.ini->m, 0, &p.ini->m, 1),
			 SROCE_DROP_WRONG_QP_TYPE);
	ck_assert_int_eq(mock_deliver(&p.ini->m, 0, &p.tgt->m, 1),
			 SROCE_DROP_NONE);
	ck_assert_int_eq(mock_deliver(&p.tgt->m, 0, &p.tgt->m, 1),
			 SROCE_DROP_WRONG_QP_TYPE);
	ck_assert_uint_eq(p.tgt->m.ncqe, 1);
	ck_assert_uint_eq(p.tgt->m.qp.state, SROCE_QPS_RTS);
	mock_free(rc);
	xpair_free(&p);
}
END_TEST

START_TEST(test_roles_and_masks)
{
	struct sroce_send_wqe w = x_wqe(SROCE_WR_SEND, 1, 64, 5);
	struct sroce_send_wqe f = x_wqe(SROCE_WR_FLUSH, 2, 0, 5);
	struct sroce_qp_init_attr ia;
	struct sroce_qp_attr a;
	struct xmock *x;
	struct xpair p;

	/* A target without the xrc_srq op is refused. */
	x = xmock_new(SROCE_QPT_XRC_TGT, 0x33);
	ia = (struct sroce_qp_init_attr){
		.type = SROCE_QPT_XRC_TGT, .qpn = 0x33, .sq = x->m.sq,
		.sq_size = MOCK_SQ, .res = x->m.res, .max_res = MOCK_RES,
		.ops = &mock_ops, .ctx = x,
	};
	ck_assert_int_eq(sroce_qp_init(&x->m.qp, &ia), -SROCE_EINVAL);
	xmock_free(x);

	/* The initiator still takes the full RC masks; RTS needs its own. */
	x = xmock_new(SROCE_QPT_XRC_INI, 0x33);
	mock_connect(&x->m, 0x44);
	ck_assert_uint_eq(x->m.qp.state, SROCE_QPS_RTS);
	xmock_free(x);
	x = xmock_new(SROCE_QPT_XRC_TGT, 0x33);
	mock_attr(&a, 0x44);
	ck_assert_int_eq(mock_to(&x->m, &a, SROCE_QPS_INIT, M_INIT_RC), 0);
	ck_assert_int_eq(mock_to(&x->m, &a, SROCE_QPS_RTR, M_RTR_INI),
			 -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(&x->m, &a, SROCE_QPS_RTR, M_RTR_RC), 0);
	ck_assert_int_eq(mock_to(&x->m, &a, SROCE_QPS_RTS, M_RTS_TGT &
				 ~SROCE_QP_TIMEOUT), -SROCE_EINVAL);
	ck_assert_int_eq(mock_to(&x->m, &a, SROCE_QPS_RTS, M_RTS_RC), 0);
	xmock_free(x);

	/* A target sends nothing; an initiator no FLUSH. */
	xpair_new(&p);
	mock_post_send(&p.tgt->m, &w);
	sroce_qp_kick(&p.tgt->m.qp, 100, 0);
	ck_assert_uint_eq(p.tgt->m.npkt, 0);
	ck_assert_uint_eq(p.tgt->m.ncqe, 1);
	ck_assert_uint_eq(p.tgt->m.cqe[0].status, SROCE_WC_LOC_QP_OP_ERR);
	f.flush.type = SROCE_FLUSH_GLOBAL;
	f.num_sge = 0;
	mock_post_send(&p.ini->m, &f);
	sroce_qp_kick(&p.ini->m.qp, 100, 0);
	ck_assert_uint_eq(p.ini->m.npkt, 0);
	ck_assert_uint_eq(p.ini->m.ncqe, 1);
	ck_assert_uint_eq(p.ini->m.cqe[0].status, SROCE_WC_LOC_QP_OP_ERR);
	xpair_free(&p);
}
END_TEST

Suite *xrc_suite(void);

Suite *xrc_suite(void)
{
	Suite *s = suite_create("xrc");
	TCase *tc = tcase_create("xrc");

	tcase_add_test(tc, test_send_to_two_srqs);
	tcase_add_test(tc, test_read_write_atomic);
	tcase_add_test(tc, test_unknown_srqn);
	tcase_add_test(tc, test_srq_of_other_xrcd);
	tcase_add_test(tc, test_srqn_changes_mid_message);
	tcase_add_test(tc, test_wrong_transport_dropped);
	tcase_add_test(tc, test_roles_and_masks);
	suite_add_tcase(s, tc);
	return s;
}
