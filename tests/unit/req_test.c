// SPDX-License-Identifier: GPL-2.0
/*
 * Requester: WQE segmentation into path-MTU packets, opcodes, PSNs,
 * AckReq policy, READ PSN accounting, max_rd_atomic and fences, UD and
 * UC behaviour, local errors and budgets.
 */
#include "qp_mock.h"

#define MTU	1024
#define VA	(MOCK_BASE + 0x1000)

static struct mock *rc(void)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);

	mock_connect(m, 0x22);
	return m;
}

START_TEST(test_send_segmentation)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 3 * MTU + 10);
	struct sroce_pkt p;
	struct mock_payload pl;
	u32 i;

	for (i = 0; i < 3 * MTU + 10; i++)
		m->mem[0x1000 + i] = (u8)(i * 7);
	mock_post_send(m, &w);
	ck_assert(!sroce_qp_kick(&m->qp, 100, 0));
	ck_assert_uint_eq(m->npkt, 4);
	ck_assert_uint_eq(mock_opcode(m, 0), SROCE_OPC(RC, SEND_FIRST));
	ck_assert_uint_eq(mock_opcode(m, 1), SROCE_OPC(RC, SEND_MIDDLE));
	ck_assert_uint_eq(mock_opcode(m, 2), SROCE_OPC(RC, SEND_MIDDLE));
	ck_assert_uint_eq(mock_opcode(m, 3), SROCE_OPC(RC, SEND_LAST));
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(mock_psn(m, i), 100 + i);
		ck_assert(mock_ackreq(m, i) == (i == 3));
		mock_parse(m, i, &p, &pl);
		ck_assert_uint_eq(p.h.bth.dqpn, 0x22);
		ck_assert_uint_eq(p.h.bth.pkey, 0xffff);
		ck_assert_uint_eq(p.paylen, i < 3 ? MTU : 10);
		ck_assert_int_eq(memcmp(pl.data, m->mem + 0x1000 + i * MTU,
					p.paylen), 0);
	}
	mock_parse(m, 3, &p, &pl);
	ck_assert_uint_eq(p.h.bth.pad, 2);
	/* Nothing completes before the ACK. */
	ck_assert_uint_eq(m->ncqe, 0);
	ck_assert_uint_ne(sroce_qp_next_deadline(&m->qp), U64_MAX);
	mock_free(m);
}
END_TEST

START_TEST(test_multi_sge_and_inline)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND_WITH_IMM, 1, VA, 600);
	struct sroce_pkt p;
	struct mock_payload pl;
	u32 i;

	for (i = 0; i < 2048; i++)
		m->mem[0x1000 + i] = (u8)i;
	w.num_sge = 3;
	w.sge[1].addr = VA + 1000;
	w.sge[1].length = 0;
	w.sge[1].lkey = 0x100;
	w.sge[2].addr = VA + 1200;
	w.sge[2].length = 600;
	w.sge[2].lkey = 0x100;
	w.ex = 0xdeadbeef;
	mock_post_send(m, &w);

	memset(&w, 0, sizeof(w));
	w.opcode = SROCE_WR_SEND;
	w.send_flags = SROCE_SEND_INLINE | SROCE_SEND_SIGNALED;
	w.inline_len = 5;
	memcpy(w.inline_data, "hello", 5);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 3);
	ck_assert_uint_eq(mock_opcode(m, 0), SROCE_OPC(RC, SEND_FIRST));
	ck_assert_uint_eq(mock_opcode(m, 1), SROCE_OPC(RC, SEND_LAST_IMM));
	mock_parse(m, 0, &p, &pl);
	ck_assert_int_eq(memcmp(pl.data, m->mem + 0x1000, 600), 0);
	ck_assert_int_eq(memcmp(pl.data + 600, m->mem + 0x1000 + 1200, 424), 0);
	mock_parse(m, 1, &p, &pl);
	ck_assert_uint_eq(p.paylen, 176);
	ck_assert_uint_eq(p.h.imm, 0xdeadbeef);
	ck_assert_int_eq(memcmp(pl.data, m->mem + 0x1000 + 1200 + 424, 176), 0);
	mock_parse(m, 2, &p, &pl);
	ck_assert_uint_eq(p.h.bth.opcode, SROCE_OPC(RC, SEND_ONLY));
	ck_assert_uint_eq(p.paylen, 5);
	ck_assert_int_eq(memcmp(pl.data, "hello", 5), 0);
	mock_free(m);
}
END_TEST

START_TEST(test_write_reth_first_only)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE_WITH_IMM, 1, VA,
					   2 * MTU);
	struct sroce_pkt p;
	struct mock_payload pl;

	w.rdma.remote_addr = 0xabc000;
	w.rdma.rkey = 0x777;
	w.ex = 42;
	w.send_flags |= SROCE_SEND_SOLICITED;
	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_RDMA_WRITE, 2, VA, 0);
	w.rdma.remote_addr = 0x5000;
	w.rdma.rkey = 0x778;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 3);
	mock_parse(m, 0, &p, &pl);
	ck_assert_uint_eq(p.h.bth.opcode, SROCE_OPC(RC, WRITE_FIRST));
	ck_assert_uint_eq(p.h.reth.va, 0xabc000);
	ck_assert_uint_eq(p.h.reth.rkey, 0x777);
	ck_assert_uint_eq(p.h.reth.len, 2 * MTU);
	ck_assert(!p.h.bth.se);
	mock_parse(m, 1, &p, &pl);
	ck_assert_uint_eq(p.h.bth.opcode, SROCE_OPC(RC, WRITE_LAST_IMM));
	ck_assert_uint_eq(p.h.imm, 42);
	ck_assert(p.h.bth.se);
	mock_parse(m, 2, &p, &pl);
	ck_assert_uint_eq(p.h.bth.opcode, SROCE_OPC(RC, WRITE_ONLY));
	ck_assert_uint_eq(p.h.reth.len, 0);
	ck_assert_uint_eq(p.paylen, 0);
	ck_assert_uint_eq(p.h.bth.psn, 102);
	mock_free(m);
}
END_TEST

START_TEST(test_read_consumes_response_psns)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA,
					   3 * MTU + 1);
	struct sroce_pkt p;
	struct mock_payload pl;

	w.rdma.remote_addr = 0x9000;
	w.rdma.rkey = 5;
	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_ATOMIC_FETCH_AND_ADD, 2, VA, 8);
	w.atomic.remote_addr = 0x8000;
	w.atomic.rkey = 6;
	w.atomic.compare_add = 3;
	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_ATOMIC_CMP_AND_SWP, 3, VA, 8);
	w.atomic.remote_addr = 0x8008;
	w.atomic.rkey = 6;
	w.atomic.compare_add = 10;
	w.atomic.swap = 20;
	mock_post_send(m, &w);
	mock_post_send(m, &(struct sroce_send_wqe){ .opcode = SROCE_WR_SEND });
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 4);
	mock_parse(m, 0, &p, &pl);
	ck_assert_uint_eq(p.h.bth.opcode, SROCE_OPC(RC, READ_REQ));
	ck_assert_uint_eq(p.h.bth.psn, 100);
	ck_assert(p.h.bth.ackreq);
	ck_assert_uint_eq(p.h.reth.len, 3 * MTU + 1);
	ck_assert_uint_eq(p.h.reth.va, 0x9000);
	mock_parse(m, 1, &p, &pl);
	ck_assert_uint_eq(p.h.bth.opcode, SROCE_OPC(RC, FETCH_ADD));
	ck_assert_uint_eq(p.h.bth.psn, 104);
	ck_assert_uint_eq(p.h.atmeth.swap_add, 3);
	ck_assert_uint_eq(p.h.atmeth.va, 0x8000);
	mock_parse(m, 2, &p, &pl);
	ck_assert_uint_eq(p.h.bth.opcode, SROCE_OPC(RC, CMP_SWAP));
	ck_assert_uint_eq(p.h.bth.psn, 105);
	ck_assert_uint_eq(p.h.atmeth.cmp, 10);
	ck_assert_uint_eq(p.h.atmeth.swap_add, 20);
	ck_assert_uint_eq(mock_psn(m, 3), 106);
	mock_free(m);
}
END_TEST

START_TEST(test_ackreq_periodic)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA,
					   200 * 256);
	struct sroce_qp_attr a;
	u32 i, n = 0;

	mock_free(m);
	m = mock_new(SROCE_QPT_RC, 0x11, false);
	mock_attr(&a, 0x22);
	a.path_mtu = 1;
	mock_connect_attr(m, &a);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 1000, 0);
	/* Past the window (SROCE_MAX_INFLIGHT) only once ACKed. */
	while (m->npkt < 200) {
		i = m->npkt;
		ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 100 + i - 1, 1),
				 SROCE_DROP_NONE);
		sroce_qp_kick(&m->qp, 1000, 2);
		ck_assert_uint_gt(m->npkt, i);
	}
	ck_assert_uint_eq(m->npkt, 200);
	for (i = 0; i < 200; i++)
		if (mock_ackreq(m, i))
			n++;
	/* Packets 64, 128, 192 (1-based) and the last. */
	ck_assert_uint_eq(n, 4);
	ck_assert(mock_ackreq(m, 63));
	ck_assert(mock_ackreq(m, 199));
	mock_free(m);
}
END_TEST

/*
 * Messages posted together ask for one ACK, at the end of the burst; a
 * message followed by one that may wait for its completion (fenced, or a
 * local operation) or by one that fails validation asks for its own.
 */
START_TEST(test_ackreq_burst_end)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 10);
	u32 i;

	w.rdma.remote_addr = 0x5000;
	w.rdma.rkey = 0x777;
	for (i = 0; i < 4; i++)
		mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 4);
	for (i = 0; i < 4; i++)
		ck_assert(mock_ackreq(m, i) == (i == 3));
	/* One posted alone asks for its ACK. */
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 1);
	ck_assert(mock_ackreq(m, 4));
	/* Followed by a fenced one. */
	mock_post_send(m, &w);
	w.send_flags |= SROCE_SEND_FENCE;
	mock_post_send(m, &w);
	w.send_flags &= ~SROCE_SEND_FENCE;
	/* Followed by one that fails: it completes only after an ACK. */
	mock_post_send(m, &w);
	w.send_flags |= SROCE_SEND_INLINE;
	w.inline_len = SROCE_MAX_INLINE + 1;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 2);
	ck_assert_uint_eq(m->npkt, 8);
	ck_assert(mock_ackreq(m, 5));
	ck_assert(!mock_ackreq(m, 6));
	ck_assert(mock_ackreq(m, 7));
	mock_free(m);

	/* Followed by a local operation (unfenced): it asks too. */
	m = rc();
	w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 10);
	w.rdma.remote_addr = 0x5000;
	w.rdma.rkey = 0x777;
	mock_post_send(m, &w);
	w.opcode = SROCE_WR_LOCAL_INV;
	w.num_sge = 0;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 1);
	ck_assert(mock_ackreq(m, 0));
	mock_free(m);
}
END_TEST

START_TEST(test_inflight_window)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA,
					   2000 * 256);
	struct sroce_qp_attr a;

	mock_attr(&a, 0x22);
	a.path_mtu = 1;
	mock_connect_attr(m, &a);
	mock_post_send(m, &w);
	ck_assert(!sroce_qp_kick(&m->qp, 4000, 0));
	ck_assert_uint_eq(m->npkt, SROCE_MAX_INFLIGHT);
	ck_assert(!sroce_qp_pending(&m->qp));
	/* The ACK clock: AckReq every 64th packet. */
	ck_assert(mock_ackreq(m, SROCE_MAX_INFLIGHT - 1));
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 100 + 99, 1),
			 SROCE_DROP_NONE);
	ck_assert(sroce_qp_pending(&m->qp));
	sroce_qp_kick(&m->qp, 4000, 2);
	ck_assert_uint_eq(m->npkt, SROCE_MAX_INFLIGHT + 100);
	mock_free(m);
}
END_TEST

/*
 * Go-back-N loses everything in flight behind a lost packet: a sequence
 * NAK halves the window, a timeout drops it to SROCE_MIN_INFLIGHT, and
 * every 4 PSNs acknowledged give one back.
 */
START_TEST(test_loss_window)
{
	u32 max = SROCE_MAX_INFLIGHT, half = SROCE_MAX_INFLIGHT / 2;
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA,
					   3 * SROCE_MAX_INFLIGHT * 256);
	u8 nak = mock_nak_syn(SROCE_NAK_PSN_SEQ_ERR);
	struct sroce_qp_attr a;
	u64 t;
	u32 n;

	mock_attr(&a, 0x22);
	a.path_mtu = 1;
	mock_connect_attr(m, &a);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 4 * max, 0);
	ck_assert_uint_eq(m->npkt, max);
	/* 100..109 arrived, 110 did not: from 110 again, half a window. */
	ck_assert_int_eq(mock_rx_aeth(m, nak, 110, 1), SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 4 * max, 2);
	ck_assert_uint_eq(m->npkt, max + half);
	ck_assert_uint_eq(mock_psn(m, max), 110);
	ck_assert_uint_eq(mock_psn(m, max + half - 1), 110 + half - 1);
	/* 8 PSNs acknowledged: the window moves by 8 and grows by 2. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 117, 3),
			 SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 4 * max, 4);
	ck_assert_uint_eq(m->npkt, max + half + 8 + 2);
	/* Silence until the ACK timer: from 118 again, the minimum window. */
	n = m->npkt;
	t = sroce_qp_next_deadline(&m->qp);
	ck_assert_uint_ne(t, U64_MAX);
	sroce_qp_on_deadline(&m->qp, t);
	sroce_qp_kick(&m->qp, 4 * max, t);
	ck_assert_uint_eq(m->npkt, n + SROCE_MIN_INFLIGHT);
	ck_assert_uint_eq(mock_psn(m, n), 118);
	ck_assert_uint_eq(m->qp.stats.timeouts, 1);
	/* All 16 acknowledged: 16 more go, and 4 for the growth. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(),
				      118 + SROCE_MIN_INFLIGHT - 1, t + 1),
			 SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 4 * max, t + 2);
	ck_assert_uint_eq(m->npkt, n + 2 * SROCE_MIN_INFLIGHT +
			  SROCE_MIN_INFLIGHT / 4);
	mock_free(m);
}
END_TEST

START_TEST(test_max_rd_atomic)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 16);
	struct sroce_qp_attr a;

	mock_attr(&a, 0x22);
	a.max_rd_atomic = 2;
	mock_connect_attr(m, &a);
	mock_post_send(m, &w);
	mock_post_send(m, &w);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 2);
	ck_assert(!sroce_qp_pending(&m->qp));
	/* The first READ's response frees a slot. */
	{
		struct sroce_pkt p;
		struct mock_payload pl = { m->mem, 16 };

		memset(&p, 0, sizeof(p));
		p.h.bth.opcode = SROCE_OPC(RC, READ_RESP_ONLY);
		p.h.bth.pkey = 0xffff;
		p.h.bth.psn = 100;
		p.op = sroce_opinfo(p.h.bth.opcode);
		p.paylen = 16;
		ck_assert_int_eq(sroce_qp_rx(&m->qp, &p, &pl, 10),
				 SROCE_DROP_NONE);
	}
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert(sroce_qp_pending(&m->qp));
	sroce_qp_kick(&m->qp, 100, 20);
	ck_assert_uint_eq(m->npkt, 3);
	ck_assert_uint_eq(mock_psn(m, 2), 102);
	mock_free(m);
}
END_TEST

START_TEST(test_fence)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 16);

	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_SEND, 2, VA, 16);
	mock_post_send(m, &w);		/* no fence: may pass the READ */
	w.send_flags |= SROCE_SEND_FENCE;
	w.wr_id = 3;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 2);
	/* ACK of the SEND implies the READ responses were lost: re-read. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 101, 5),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->qp.stats.implied_naks, 1);
	ck_assert_uint_eq(m->ncqe, 0);
	sroce_qp_kick(&m->qp, 100, 6);
	ck_assert_uint_eq(m->npkt, 4);
	ck_assert_uint_eq(mock_opcode(m, 2), SROCE_OPC(RC, READ_REQ));
	ck_assert_uint_eq(mock_opcode(m, 3), SROCE_OPC(RC, SEND_ONLY));
	ck_assert_uint_eq(mock_psn(m, 3), 101);
	mock_free(m);
}
END_TEST

START_TEST(test_ud_send)
{
	struct mock *m = mock_new(SROCE_QPT_UD, 0x11, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND_WITH_IMM, 7, VA, 100);
	struct sroce_qp_attr a;
	struct sroce_pkt p;
	struct mock_payload pl;

	mock_attr(&a, 0);
	a.qkey = 0x1234;
	mock_connect_attr(m, &a);
	w.ud.ah = 9;
	w.ud.remote_qpn = 0x33;
	w.ud.remote_qkey = 0x5555;
	mock_post_send(m, &w);
	w.ud.remote_qkey = 0x80000000;
	w.send_flags = 0;		/* unsignaled */
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 2);
	mock_parse(m, 0, &p, &pl);
	ck_assert_uint_eq(p.h.bth.opcode, SROCE_OPC(UD, SEND_ONLY_IMM));
	ck_assert_uint_eq(p.h.bth.dqpn, 0x33);
	ck_assert_uint_eq(p.h.deth.qkey, 0x5555);
	ck_assert_uint_eq(p.h.deth.sqpn, 0x11);
	ck_assert_uint_eq(m->pkt[0].ah, 9);
	mock_parse(m, 1, &p, &pl);
	ck_assert_uint_eq(p.h.deth.qkey, 0x1234);
	/* Completes on send; the unsignaled one silently. */
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].wr_id, 7);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(m->cqe[0].opcode, SROCE_WC_SEND);
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), U64_MAX);
	mock_free(m);
}
END_TEST

START_TEST(test_ud_errors_to_sqe)
{
	struct mock *m = mock_new(SROCE_QPT_UD, 0x11, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 4097);
	struct sroce_qp_attr a;

	mock_attr(&a, 0);
	mock_connect_attr(m, &a);
	mock_post_send(m, &w);		/* longer than the MTU */
	w.sge[0].length = 10;
	w.wr_id = 2;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 0);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_SQE);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_LOC_LEN_ERR);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(m->cqe[1].wr_id, 2);
	/* UD has no RDMA WRITE. */
	a.qp_state = SROCE_QPS_RTS;
	ck_assert_int_eq(sroce_qp_modify(&m->qp, &a, SROCE_QP_STATE, 0), 0);
	w = mock_wqe(SROCE_WR_RDMA_WRITE, 3, VA, 10);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->ncqe, 3);
	ck_assert_uint_eq(m->cqe[2].status, SROCE_WC_LOC_QP_OP_ERR);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_SQE);
	mock_free(m);
}
END_TEST

START_TEST(test_uc_completes_on_send)
{
	struct mock *m = mock_new(SROCE_QPT_UC, 0x11, true);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 2500);

	mock_connect(m, 0x22);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 3);
	ck_assert_uint_eq(mock_opcode(m, 0), SROCE_OPC(UC, WRITE_FIRST));
	ck_assert_uint_eq(mock_opcode(m, 2), SROCE_OPC(UC, WRITE_LAST));
	ck_assert(!mock_ackreq(m, 2));
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].opcode, SROCE_WC_RDMA_WRITE);
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), U64_MAX);
	/* UC has no READ. */
	w = mock_wqe(SROCE_WR_RDMA_READ, 2, VA, 10);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_LOC_QP_OP_ERR);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_SQE);
	mock_free(m);
}
END_TEST

START_TEST(test_bad_lkey)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 100);

	mock_post_send(m, &w);
	w.wr_id = 2;
	w.sge[0].lkey = 0x999;
	mock_post_send(m, &w);
	w.wr_id = 3;
	w.sge[0].lkey = 0x100;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	/*
	 * The first SEND went without AckReq, followed by the second; that
	 * failed, so the first's packet goes again, asking for the ACK.
	 */
	ck_assert_uint_eq(m->npkt, 2);
	ck_assert(!mock_ackreq(m, 0));
	ck_assert_uint_eq(mock_psn(m, 1), 100);
	ck_assert(mock_ackreq(m, 1));
	/* The error waits for the WQE before it, to complete in order. */
	ck_assert_uint_eq(m->ncqe, 0);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_RTS);
	mock_rx_aeth(m, mock_ack_syn(), 100, 1);
	ck_assert_uint_eq(m->ncqe, 3);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_LOC_PROT_ERR);
	ck_assert_uint_eq(m->cqe[2].status, SROCE_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
	mock_free(m);
}
END_TEST

START_TEST(test_budget_and_emit_backpressure)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 10 * MTU);

	mock_post_send(m, &w);
	ck_assert(sroce_qp_kick(&m->qp, 4, 0));
	ck_assert_uint_eq(m->npkt, 4);
	ck_assert(sroce_qp_pending(&m->qp));
	m->emit_fail = 1;
	ck_assert(!sroce_qp_kick(&m->qp, 4, 0));
	ck_assert_uint_eq(m->npkt, 4);
	ck_assert(sroce_qp_kick(&m->qp, 4, 0));
	ck_assert(!sroce_qp_kick(&m->qp, 4, 0));
	ck_assert_uint_eq(m->npkt, 10);
	for (u32 i = 0; i < 10; i++)
		ck_assert_uint_eq(mock_psn(m, i), 100 + i);
	ck_assert(!sroce_qp_pending(&m->qp));
	mock_free(m);
}
END_TEST

START_TEST(test_psn_wrap)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 3 * MTU);
	struct sroce_qp_attr a;

	mock_attr(&a, 0x22);
	a.sq_psn = 0xfffffe;
	mock_connect_attr(m, &a);
	mock_post_send(m, &w);
	w.wr_id = 2;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 6);
	ck_assert_uint_eq(mock_psn(m, 0), 0xfffffe);
	ck_assert_uint_eq(mock_psn(m, 1), 0xffffff);
	ck_assert_uint_eq(mock_psn(m, 2), 0);
	ck_assert_uint_eq(mock_psn(m, 5), 3);
	/* An ACK past the wrap retires both. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 3, 1), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), U64_MAX);
	mock_free(m);
}
END_TEST

START_TEST(test_sq_storage_full)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 8);
	u32 i;

	for (i = 0; i < MOCK_SQ + 5; i++)
		mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 1000, 0);
	ck_assert_uint_eq(m->npkt, MOCK_SQ);
	ck_assert(!sroce_qp_pending(&m->qp));
	mock_rx_aeth(m, mock_ack_syn(), 100 + 9, 1);
	ck_assert_uint_eq(m->ncqe, 10);
	sroce_qp_kick(&m->qp, 1000, 2);
	ck_assert_uint_eq(m->npkt, MOCK_SQ + 5);
	mock_free(m);
}
END_TEST

/*
 * SQ slots sized for 2 SGEs or 32 inline bytes (sq_slot): WQEs that fit
 * go out whole; one with more SGEs than a slot holds fails with
 * LOC_QP_OP_ERR without its SGEs being read.  The slots are the exact
 * malloc'd size, so the sanitizer catches a read past the last one.
 */
#define SLOT_SQ		3

static int sized_next_send(void *ctx, struct sroce_send_wqe *out)
{
	struct mock *m = ctx;
	const struct sroce_send_wqe *w;

	if (m->sw_head == m->sw_tail)
		return -SROCE_EAGAIN;
	w = &m->sw[m->sw_head++ % MOCK_Q];
	/* As the kernel glue does: header, then only what the slot holds. */
	memcpy(out, w, offsetof(struct sroce_send_wqe, sge));
	if (w->send_flags & SROCE_SEND_INLINE) {
		if (w->inline_len <= m->qp.sq_max_inline)
			memcpy(out->inline_data, w->inline_data, w->inline_len);
	} else if (w->num_sge <= m->qp.sq_max_sge) {
		memcpy(out->sge, w->sge, w->num_sge * sizeof(w->sge[0]));
	}
	return 0;
}

START_TEST(test_sized_sq_slots)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);
	u32 slot = sroce_swqe_size(2, 32);
	struct sroce_qp_ops ops = *m->qp.ops;
	struct sroce_qp_init_attr ia = {
		.type = SROCE_QPT_RC, .qpn = 0x11, .sq_size = SLOT_SQ,
		.res = m->res, .max_res = MOCK_RES, .ops = &ops, .ctx = m,
	};
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 300);
	struct sroce_pkt p;
	struct mock_payload pl;
	u8 *sq = malloc(SLOT_SQ * slot);
	u32 i;

	ck_assert_ptr_nonnull(sq);
	ops.next_send = sized_next_send;
	ia.sq = sq;
	/* Not a multiple of the alignment, too small, too large. */
	ia.sq_slot = slot - 4;
	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), -SROCE_EINVAL);
	ia.sq_slot = sroce_swqe_size(0, 0) - 8;
	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), -SROCE_EINVAL);
	ia.sq_slot = sizeof(struct sroce_swqe) + 8;
	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), -SROCE_EINVAL);
	ia.sq_slot = slot;
	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), 0);
	ck_assert_uint_eq(m->qp.sq_max_sge, 2);
	ck_assert_uint_eq(m->qp.sq_max_inline, 32);
	mock_connect(m, 0x22);

	for (i = 0; i < 2048; i++)
		m->mem[0x1000 + i] = (u8)(i * 13);
	w.num_sge = 2;
	w.sge[1] = (struct sroce_sge){ VA + 0x400, 200, 0x100 };
	mock_post_send(m, &w);
	memset(&w, 0, sizeof(w));
	w.wr_id = 2;
	w.opcode = SROCE_WR_SEND;
	w.send_flags = SROCE_SEND_INLINE | SROCE_SEND_SIGNALED;
	w.inline_len = 32;
	for (i = 0; i < 32; i++)
		w.inline_data[i] = (u8)(0xa0 + i);
	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_SEND, 3, VA, 30);
	w.num_sge = 3;
	w.sge[1] = w.sge[0];
	w.sge[2] = w.sge[0];
	mock_post_send(m, &w);

	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 2);
	mock_parse(m, 0, &p, &pl);
	ck_assert_uint_eq(p.paylen, 500);
	ck_assert_int_eq(memcmp(pl.data, m->mem + 0x1000, 300), 0);
	ck_assert_int_eq(memcmp(pl.data + 300, m->mem + 0x1400, 200), 0);
	mock_parse(m, 1, &p, &pl);
	ck_assert_uint_eq(p.paylen, 32);
	for (i = 0; i < 32; i++)
		ck_assert_uint_eq(pl.data[i], 0xa0 + i);
	mock_rx_aeth(m, mock_ack_syn(), 101, 1);
	ck_assert_uint_eq(m->ncqe, 3);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(m->cqe[2].wr_id, 3);
	ck_assert_uint_eq(m->cqe[2].status, SROCE_WC_LOC_QP_OP_ERR);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
	free(sq);
	mock_free(m);
}
END_TEST

#define CAP_MAX		256
#define RCONN_MAX	16

struct rconn {
	u8 side;		/* side the requester sits on */
	u8 type;
	u32 dqpn;
	struct mock *m;
	u32 posted;
	u32 cursor;		/* next of m->pkt to compare */
};

static struct rconn *req_conn(struct rconn *c, u32 *n, u8 side,
			      const struct sroce_pkt *p)
{
	enum sroce_qp_type t = (p->h.bth.opcode & SROCE_TRANSPORT_MASK) ==
			       SROCE_TRANSPORT_UD ? SROCE_QPT_UD : SROCE_QPT_RC;
	struct sroce_qp_attr a;
	u32 i;

	for (i = 0; i < *n; i++)
		if (c[i].side == side && c[i].type == t &&
		    c[i].dqpn == p->h.bth.dqpn &&
		    c[i].m->qp.req.psn == p->h.bth.psn)
			return &c[i];
	ck_assert_uint_lt(*n, RCONN_MAX);
	c += (*n)++;
	memset(c, 0, sizeof(*c));
	c->side = side;
	c->type = t;
	c->dqpn = p->h.bth.dqpn;
	c->m = mock_new(t, t == SROCE_QPT_UD ? p->h.deth.sqpn : 0x1, false);
	mock_attr(&a, p->h.bth.dqpn);
	a.sq_psn = p->h.bth.psn;
	a.qkey = p->h.deth.qkey;
	mock_connect_attr(c->m, &a);
	return c;
}

/* The send WQE that makes a requester emit @p (ONLY opcodes). */
static struct sroce_send_wqe req_wqe_for(const struct cap_pkt *cp, u64 va)
{
	const struct sroce_pkt *p = &cp->pkt;
	struct sroce_send_wqe w;
	u8 op = p->h.bth.opcode & ~SROCE_TRANSPORT_MASK;

	w = mock_wqe(SROCE_WR_SEND, op, va, p->paylen);
	switch (op) {
	case SROCE_OP_SEND_ONLY:
		break;
	case SROCE_OP_SEND_ONLY_IMM:
		w.opcode = SROCE_WR_SEND_WITH_IMM;
		w.ex = p->h.imm;
		break;
	case SROCE_OP_SEND_ONLY_INV:
		w.opcode = SROCE_WR_SEND_WITH_INV;
		w.ex = p->h.ieth;
		break;
	case SROCE_OP_WRITE_ONLY:
	case SROCE_OP_WRITE_ONLY_IMM:
		w.opcode = op == SROCE_OP_WRITE_ONLY ? SROCE_WR_RDMA_WRITE :
			   SROCE_WR_RDMA_WRITE_WITH_IMM;
		w.ex = p->h.imm;
		w.rdma.remote_addr = p->h.reth.va;
		w.rdma.rkey = p->h.reth.rkey;
		break;
	case SROCE_OP_READ_REQ:
		w.opcode = SROCE_WR_RDMA_READ;
		w.sge[0].length = p->h.reth.len;
		w.rdma.remote_addr = p->h.reth.va;
		w.rdma.rkey = p->h.reth.rkey;
		break;
	case SROCE_OP_CMP_SWAP:
	case SROCE_OP_FETCH_ADD:
		w.opcode = op == SROCE_OP_CMP_SWAP ? SROCE_WR_ATOMIC_CMP_AND_SWP :
			   SROCE_WR_ATOMIC_FETCH_AND_ADD;
		w.sge[0].length = 8;
		w.atomic.remote_addr = p->h.atmeth.va;
		w.atomic.rkey = p->h.atmeth.rkey;
		w.atomic.compare_add = op == SROCE_OP_CMP_SWAP ? p->h.atmeth.cmp :
				       p->h.atmeth.swap_add;
		w.atomic.swap = p->h.atmeth.swap_add;
		break;
	default:
		ck_abort_msg("capture holds opcode %u; extend the replay",
			     p->h.bth.opcode);
	}
	if (p->h.bth.se)
		w.send_flags |= SROCE_SEND_SOLICITED;
	if ((p->h.bth.opcode & SROCE_TRANSPORT_MASK) == SROCE_TRANSPORT_UD) {
		w.ud.remote_qpn = p->h.bth.dqpn;
		w.ud.remote_qkey = p->h.deth.qkey;
	}
	return w;
}

/*
 * rdma_rxe as the reference: for each request in its captures, post the
 * WQE that asks for it and require our requester to emit the same bytes
 * (headers and payload), then feed rxe's answers back and require every
 * WQE to complete successfully.
 */
START_TEST(test_rxe_replay_requester)
{
	static struct cap_pkt cap[CAP_MAX];
	struct rconn conns[RCONN_MAX];
	u32 n, nc = 0, i, k, checked = 0;

	n = cap_load("rxe-ipv4.pcap", cap, CAP_MAX);
	ck_assert_uint_gt(n, 40);
	for (i = 0; i < n; i++) {
		const struct sroce_pkt *p = &cap[i].pkt;
		struct rconn *c;
		struct sroce_send_wqe w;
		struct mock_frame *f;
		u64 va;

		if (p->op->flags & SROCE_OPF_REQ) {
			c = req_conn(conns, &nc, cap[i].side, p);
			va = VA + c->posted % 64 * 0x1000;
			memcpy(mock_ptr(c->m, va), cap[i].pl.data, p->paylen);
			w = req_wqe_for(&cap[i], va);
			mock_post_send(c->m, &w);
			c->posted++;
			sroce_qp_kick(&c->m->qp, 16, i);
			ck_assert_uint_eq(c->m->npkt, c->cursor + 1);
			f = &c->m->pkt[c->cursor++];
			/*
			 * Everything but the ICRC, which the glue computes,
			 * and MigReq (BTH byte 1, 0x40), which sroce sets as
			 * hardware NICs do and rxe does not
			 * (Documentation/interop.rst).
			 */
			ck_assert_uint_eq(f->len, cap[i].len);
			ck_assert_msg(f->b[0] == cap[i].b[0] &&
				      (f->b[1] ^ cap[i].b[1]) == 0x40 &&
				      !memcmp(f->b + 2, cap[i].b + 2,
					      cap[i].len - 6),
				      "rxe frame %u (opcode %u) differs", i,
				      p->h.bth.opcode);
			checked++;
			continue;
		}
		/* An answer from the other side to one of our requesters. */
		for (k = 0; k < nc; k++) {
			struct sroce_qp *qp = &conns[k].m->qp;

			if (conns[k].side == cap[i].side ||
			    conns[k].type != SROCE_QPT_RC ||
			    !sroce_psn_lt(p->h.bth.psn, qp->req.psn_hi) ||
			    sroce_psn_lt(p->h.bth.psn, qp->comp.psn))
				continue;
			ck_assert_int_eq(sroce_qp_rx(qp, p, &cap[i].pl, i),
					 SROCE_DROP_NONE);
			break;
		}
		ck_assert_msg(k < nc, "rxe frame %u answers no request of ours", i);
	}
	for (k = 0; k < nc; k++) {
		ck_assert_uint_eq(conns[k].m->ncqe, conns[k].posted);
		for (i = 0; i < conns[k].posted; i++)
			ck_assert_uint_eq(conns[k].m->cqe[i].status,
					  SROCE_WC_SUCCESS);
		mock_free(conns[k].m);
	}
	ck_assert_uint_ge(checked, 25);
}
END_TEST

Suite *req_suite(void);

Suite *req_suite(void)
{
	Suite *s = suite_create("req");
	TCase *tc = tcase_create("requester");

	tcase_add_test(tc, test_send_segmentation);
	tcase_add_test(tc, test_multi_sge_and_inline);
	tcase_add_test(tc, test_write_reth_first_only);
	tcase_add_test(tc, test_read_consumes_response_psns);
	tcase_add_test(tc, test_ackreq_periodic);
	tcase_add_test(tc, test_ackreq_burst_end);
	tcase_add_test(tc, test_inflight_window);
	tcase_add_test(tc, test_loss_window);
	tcase_add_test(tc, test_max_rd_atomic);
	tcase_add_test(tc, test_fence);
	tcase_add_test(tc, test_ud_send);
	tcase_add_test(tc, test_ud_errors_to_sqe);
	tcase_add_test(tc, test_uc_completes_on_send);
	tcase_add_test(tc, test_bad_lkey);
	tcase_add_test(tc, test_budget_and_emit_backpressure);
	tcase_add_test(tc, test_psn_wrap);
	tcase_add_test(tc, test_sq_storage_full);
	tcase_add_test(tc, test_sized_sq_slots);
	tcase_add_test(tc, test_rxe_replay_requester);
	suite_add_tcase(s, tc);
	return s;
}
