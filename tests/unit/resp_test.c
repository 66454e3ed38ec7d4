// SPDX-License-Identifier: GPL-2.0
/*
 * Responder, driven by a real requester: SEND/WRITE placement, ACK
 * policy, PSN classification (NAK once, duplicates), RNR, access errors,
 * READ responses and replay, atomics and their replay cache, UD and UC
 * receive rules, and a lossy end-to-end run of the whole RC transport.
 */
#include "qp_mock.h"

#define MTU	1024
#define VA	(MOCK_BASE + 0x1000)
#define RVA	(MOCK_BASE + 0x40000)

START_TEST(test_send_recv)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND_WITH_IMM, 1, VA,
					   2 * MTU + 500);
	struct sroce_pkt k;

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_fill(p.a, VA, 2 * MTU + 500, 3);
	w.ex = 0xcafe;
	w.send_flags |= SROCE_SEND_SOLICITED;
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 77, RVA, 4 * MTU);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(mock_pump(p.a, &p.ca, p.b, 1), 3);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].wr_id, 77);
	ck_assert_uint_eq(p.b->cqe[0].is_recv, 1);
	ck_assert_uint_eq(p.b->cqe[0].opcode, SROCE_WC_RECV);
	ck_assert_uint_eq(p.b->cqe[0].byte_len, 2 * MTU + 500);
	ck_assert_uint_eq(p.b->cqe[0].flags, SROCE_WC_F_WITH_IMM);
	ck_assert_uint_eq(p.b->cqe[0].ex, 0xcafe);
	ck_assert_uint_eq(p.b->cqe[0].solicited, 1);
	ck_assert_int_eq(memcmp(p.b->mem + 0x40000, p.a->mem + 0x1000,
				2 * MTU + 500), 0);
	/* One ACK, for the AckReq on the LAST packet. */
	ck_assert_uint_eq(p.b->npkt, 1);
	k = mock_pkt(p.b, 0);
	ck_assert_uint_eq(k.h.bth.opcode, SROCE_OPC(RC, ACK));
	ck_assert_uint_eq(k.h.bth.psn, 102);
	ck_assert_uint_eq(k.h.bth.dqpn, 0x11);
	ck_assert_uint_eq(k.h.aeth.msn, 1);
	ck_assert_uint_eq(sroce_qp_next_deadline(&p.b->qp), U64_MAX);
	mock_pump(p.b, &p.cb, p.a, 2);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_delayed_ack)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 3 * MTU);
	u32 i;

	mock_pair_new(&p, SROCE_QPT_RC);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 3);
	/* A requester that sets no AckReq, not even on the last packet. */
	for (i = 0; i < 3; i++)
		p.a->pkt[i].b[8] &= 0x7f;
	mock_deliver(p.a, 0, p.b, 1000);
	mock_deliver(p.a, 1, p.b, 1500);
	/* Mid-message: the rest of the message will bring the ACK. */
	ck_assert_uint_eq(p.b->npkt, 0);
	ck_assert_uint_eq(sroce_qp_next_deadline(&p.b->qp), U64_MAX);
	mock_deliver(p.a, 2, p.b, 2000);
	ck_assert_uint_eq(p.b->npkt, 0);
	ck_assert_uint_eq(sroce_qp_next_deadline(&p.b->qp),
			  2000 + SROCE_ACK_DELAY_NS);
	sroce_qp_on_deadline(&p.b->qp, 2000 + SROCE_ACK_DELAY_NS - 1);
	ck_assert_uint_eq(p.b->npkt, 0);
	sroce_qp_on_deadline(&p.b->qp, 2000 + SROCE_ACK_DELAY_NS);
	ck_assert_uint_eq(p.b->npkt, 1);
	ck_assert_uint_eq(mock_pkt(p.b, 0).h.bth.psn, 102);
	ck_assert_uint_eq(sroce_qp_next_deadline(&p.b->qp), U64_MAX);
	mock_pair_free(&p);
}
END_TEST

/*
 * Given SROCE_NOW_LAZY, the core reads ops->now only for a call that
 * needs the time, once: not for a request inside a message.
 */
START_TEST(test_lazy_clock)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 3 * MTU);
	struct sroce_qp_attr qa;
	u32 i;

	mock_pair_new(&p, SROCE_QPT_RC);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	/* The requester starts its ACK timer: one read for three packets. */
	p.a->clock = 700;
	sroce_qp_kick(&p.a->qp, 100, SROCE_NOW_LAZY);
	ck_assert_uint_eq(p.a->npkt, 3);
	ck_assert_uint_eq(p.a->clock_reads, 1);
	sroce_qp_query(&p.a->qp, &qa);
	ck_assert_uint_eq(sroce_qp_next_deadline(&p.a->qp),
			  700 + sroce_ack_timeout_ns(qa.timeout));
	for (i = 0; i < 3; i++)
		p.a->pkt[i].b[8] &= 0x7f;	/* no AckReq: a delayed ACK */
	p.b->clock = 2000;
	mock_deliver(p.a, 0, p.b, SROCE_NOW_LAZY);
	mock_deliver(p.a, 1, p.b, SROCE_NOW_LAZY);
	ck_assert_uint_eq(p.b->clock_reads, 0);
	mock_deliver(p.a, 2, p.b, SROCE_NOW_LAZY);
	ck_assert_uint_eq(p.b->clock_reads, 1);
	ck_assert_uint_eq(sroce_qp_next_deadline(&p.b->qp),
			  2000 + SROCE_ACK_DELAY_NS);
	p.b->clock = 2000 + SROCE_ACK_DELAY_NS - 1;
	sroce_qp_on_deadline(&p.b->qp, SROCE_NOW_LAZY);
	ck_assert_uint_eq(p.b->npkt, 0);
	p.b->clock++;
	sroce_qp_on_deadline(&p.b->qp, SROCE_NOW_LAZY);
	ck_assert_uint_eq(p.b->npkt, 1);
	ck_assert_uint_eq(p.b->clock_reads, 3);
	/* An ACK that leaves nothing outstanding stops the timer unread. */
	mock_deliver(p.b, 0, p.a, SROCE_NOW_LAZY);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->clock_reads, 1);
	ck_assert_uint_eq(sroce_qp_next_deadline(&p.a->qp), U64_MAX);
	/* A call given the time never asks for it. */
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 9000);
	ck_assert_uint_eq(p.a->clock_reads, 1);
	ck_assert_uint_eq(sroce_qp_next_deadline(&p.a->qp),
			  9000 + sroce_ack_timeout_ns(qa.timeout));
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_ack_every)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 130 * MTU);
	u32 i, sent = 0;

	mock_pair_new(&p, SROCE_QPT_RC);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	/*
	 * Strip AckReq: the responder still ACKs every 64 packets.  Those
	 * ACKs open the requester's window (SROCE_MAX_INFLIGHT) for the rest.
	 */
	while (sent < 130) {
		sroce_qp_kick(&p.a->qp, 1000, 0);
		ck_assert_uint_gt(p.a->npkt, sent);
		for (i = sent; i < p.a->npkt; i++)
			p.a->pkt[i].b[8] &= 0x7f;
		sent = p.a->npkt;
		mock_pump(p.a, &p.ca, p.b, 1);
		mock_pump(p.b, &p.cb, p.a, 1);
	}
	ck_assert_uint_eq(sent, 130);
	ck_assert_uint_eq(p.b->npkt, 2);
	ck_assert_uint_eq(mock_pkt(p.b, 0).h.bth.psn, 100 + 63);
	ck_assert_uint_eq(mock_pkt(p.b, 1).h.bth.psn, 100 + 127);
	/* The last two wait for the delayed ACK. */
	ck_assert_uint_eq(sroce_qp_next_deadline(&p.b->qp), 1 + SROCE_ACK_DELAY_NS);
	sroce_qp_on_deadline(&p.b->qp, 1 + SROCE_ACK_DELAY_NS);
	ck_assert_uint_eq(mock_pkt(p.b, 2).h.bth.psn, 100 + 129);
	mock_pump(p.b, &p.cb, p.a, 2);
	ck_assert_uint_eq(p.a->ncqe, 1);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_psn_ahead_nak_once)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 10);
	struct sroce_pkt k;
	u32 i;

	mock_pair_new(&p, SROCE_QPT_RC);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	for (i = 0; i < 3; i++)
		mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 1), SROCE_DROP_PSN_INVALID);
	ck_assert_uint_eq(p.b->npkt, 1);
	k = mock_pkt(p.b, 0);
	ck_assert_uint_eq(k.h.aeth.syndrome, mock_nak_syn(SROCE_NAK_PSN_SEQ_ERR));
	ck_assert_uint_eq(k.h.bth.psn, 100);
	/* Once only. */
	ck_assert_int_eq(mock_deliver(p.a, 2, p.b, 2), SROCE_DROP_PSN_INVALID);
	ck_assert_uint_eq(p.b->npkt, 1);
	ck_assert_uint_eq(p.b->qp.stats.seq_naks_sent, 1);
	/* The requester goes back to 100. */
	mock_deliver(p.b, 0, p.a, 3);
	ck_assert_uint_eq(p.a->ncqe, 0);
	sroce_qp_kick(&p.a->qp, 100, 4);
	ck_assert_uint_eq(p.a->npkt, 6);
	ck_assert_uint_eq(mock_psn(p.a, 3), 100);
	p.ca = 3;
	mock_pump(p.a, &p.ca, p.b, 5);
	/* Only the burst's last packet asks for the ACK that covers all. */
	ck_assert_uint_eq(p.b->npkt, 2);
	ck_assert_uint_eq(mock_pkt(p.b, 1).h.bth.psn, 102);
	p.cb = 1;
	mock_pump(p.b, &p.cb, p.a, 6);
	ck_assert_uint_eq(p.a->ncqe, 3);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_duplicates)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 2 * MTU);

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 1, RVA, 4 * MTU);
	mock_post_recv(p.b, 2, RVA, 4 * MTU);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	ck_assert_uint_eq(p.b->npkt, 1);
	/* FIRST again: no AckReq, dropped silently. */
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 2), SROCE_DROP_DUPLICATE);
	ck_assert_uint_eq(p.b->npkt, 1);
	/* LAST again: re-ACKed, nothing placed twice. */
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 2), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->npkt, 2);
	ck_assert_uint_eq(mock_pkt(p.b, 1).h.bth.psn, 101);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->rw_head, 1);
	ck_assert_uint_eq(p.b->qp.stats.dup_requests, 2);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_rnr)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 100);
	struct sroce_pkt k;
	u64 t;

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_post_send(p.a, &w);
	w.wr_id = 2;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NO_RESOURCE);
	k = mock_pkt(p.b, 0);
	ck_assert_uint_eq(k.h.aeth.syndrome,
			  sroce_aeth_syndrome(SROCE_AETH_RNR_NAK, 1));
	ck_assert_uint_eq(k.h.bth.psn, 100);
	/* The next packet is ahead: dropped without another NAK. */
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 1), SROCE_DROP_PSN_INVALID);
	ck_assert_uint_eq(p.b->npkt, 1);
	p.ca = 2;
	mock_pump(p.b, &p.cb, p.a, 2);
	t = sroce_qp_next_deadline(&p.a->qp);
	ck_assert_uint_eq(t, 2 + sroce_rnr_timer_ns(1));
	mock_post_recv(p.b, 10, RVA, 200);
	mock_post_recv(p.b, 11, RVA + 200, 200);
	sroce_qp_on_deadline(&p.a->qp, t);
	sroce_qp_kick(&p.a->qp, 100, t);
	mock_pump(p.a, &p.ca, p.b, t);
	ck_assert_uint_eq(p.b->ncqe, 2);
	mock_pump(p.b, &p.cb, p.a, t);
	ck_assert_uint_eq(p.a->ncqe, 2);
	ck_assert_uint_eq(p.b->qp.stats.rnr_naks_sent, 1);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_rnr_on_write_imm_last)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE_WITH_IMM, 1, VA,
					   2 * MTU);
	u64 t;

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_fill(p.a, VA, 2 * MTU, 4);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NONE);
	/* The receive WQE is needed only at the LAST packet. */
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 1), SROCE_DROP_NO_RESOURCE);
	ck_assert_uint_eq(mock_pkt(p.b, 0).h.bth.psn, 101);
	p.ca = 2;
	mock_pump(p.b, &p.cb, p.a, 2);
	ck_assert_uint_eq(p.a->ncqe, 0);
	mock_post_recv(p.b, 3, RVA, 0);
	t = sroce_qp_next_deadline(&p.a->qp);
	ck_assert_uint_ne(t, U64_MAX);	/* a time, not SROCE_NOW_LAZY */
	sroce_qp_on_deadline(&p.a->qp, t);
	sroce_qp_kick(&p.a->qp, 100, t);
	/* Only the LAST goes again. */
	ck_assert_uint_eq(p.a->npkt, 3);
	ck_assert_uint_eq(mock_opcode(p.a, 2), SROCE_OPC(RC, WRITE_LAST_IMM));
	mock_pump(p.a, &p.ca, p.b, t);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].byte_len, 2 * MTU);
	ck_assert_int_eq(memcmp(p.b->mem + 0x40000, p.a->mem + 0x1000, 2 * MTU), 0);
	mock_pump(p.b, &p.cb, p.a, t);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_uc_no_recv_then_next_message)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE_WITH_IMM, 1, VA,
					   2 * MTU);

	mock_pair_new(&p, SROCE_QPT_UC);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NONE);
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 1), SROCE_DROP_NO_RESOURCE);
	mock_post_recv(p.b, 3, RVA, 0);
	/* The next message starts cleanly. */
	ck_assert_int_eq(mock_deliver(p.a, 2, p.b, 1), SROCE_DROP_NONE);
	ck_assert_int_eq(mock_deliver(p.a, 3, p.b, 1), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].opcode, SROCE_WC_RECV_RDMA_WITH_IMM);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_write_access_errors)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 10);
	struct sroce_pkt k;

	mock_pair_new(&p, SROCE_QPT_RC);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x999;
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 5, RVA, 10);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NONE);
	k = mock_pkt(p.b, 0);
	ck_assert_uint_eq(k.h.aeth.syndrome,
			  mock_nak_syn(SROCE_NAK_REMOTE_ACCESS));
	ck_assert_int_eq(p.b->qp.state, SROCE_QPS_ERR);
	ck_assert_uint_eq(p.b->qp.stats.access_naks_sent, 1);
	ck_assert_uint_eq(p.b->qp.stats.error_naks_sent, 0);
	ck_assert_uint_eq(p.b->events[SROCE_EVENT_QP_ACCESS_ERR], 1);
	/* The posted receive is flushed. */
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].status, SROCE_WC_WR_FLUSH_ERR);
	mock_pump(p.b, &p.cb, p.a, 2);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_REM_ACCESS_ERR);
	ck_assert_uint_eq(p.a->qp.stats.access_naks_rcvd, 1);
	mock_pair_free(&p);

	/* Out of the MR's bounds. */
	mock_pair_new(&p, SROCE_QPT_RC);
	w.rdma.rkey = 0x100;
	w.rdma.remote_addr = MOCK_BASE + MOCK_MEM - 4;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_deliver(p.a, 0, p.b, 1);
	ck_assert_uint_eq(mock_pkt(p.b, 0).h.aeth.syndrome,
			  mock_nak_syn(SROCE_NAK_REMOTE_ACCESS));
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_qp_access_flags)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 10);
	struct sroce_qp_attr a;

	memset(&p, 0, sizeof(p));
	p.a = mock_new(SROCE_QPT_RC, 0x11, false);
	p.b = mock_new(SROCE_QPT_RC, 0x22, false);
	mock_attr(&a, 0x22);
	mock_connect_attr(p.a, &a);
	mock_attr(&a, 0x11);
	a.rq_psn = 100;
	a.qp_access_flags = SROCE_ACCESS_REMOTE_WRITE;
	mock_connect_attr(p.b, &a);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_deliver(p.a, 0, p.b, 1);
	ck_assert_uint_eq(mock_pkt(p.b, 0).h.aeth.syndrome,
			  mock_nak_syn(SROCE_NAK_REMOTE_ACCESS));
	ck_assert_int_eq(p.b->qp.state, SROCE_QPS_ERR);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_read_and_replay)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 3 * MTU + 5);
	struct sroce_pkt k;
	u32 i;

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_fill(p.b, RVA, 3 * MTU + 5, 9);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	ck_assert_uint_eq(p.b->npkt, 4);
	for (i = 0; i < 4; i++) {
		k = mock_pkt(p.b, i);
		ck_assert_uint_eq(k.h.bth.psn, 100 + i);
		ck_assert_uint_eq(k.paylen, i < 3 ? MTU : 5);
	}
	ck_assert_uint_eq(mock_opcode(p.b, 0), SROCE_OPC(RC, READ_RESP_FIRST));
	ck_assert_uint_eq(mock_opcode(p.b, 1), SROCE_OPC(RC, READ_RESP_MIDDLE));
	ck_assert_uint_eq(mock_opcode(p.b, 3), SROCE_OPC(RC, READ_RESP_LAST));
	ck_assert_uint_eq(mock_pkt(p.b, 3).h.aeth.msn, 1);
	ck_assert_uint_eq(p.b->qp.resp.psn, 104);

	/* Response 101 is lost: A re-reads from 101, B replays from there. */
	mock_deliver(p.b, 0, p.a, 2);
	mock_deliver(p.b, 2, p.a, 2);
	p.cb = 4;
	sroce_qp_kick(&p.a->qp, 100, 3);
	ck_assert_uint_eq(p.a->npkt, 2);
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 4), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->npkt, 7);
	ck_assert_uint_eq(mock_opcode(p.b, 4), SROCE_OPC(RC, READ_RESP_FIRST));
	ck_assert_uint_eq(mock_psn(p.b, 4), 101);
	ck_assert_uint_eq(mock_opcode(p.b, 6), SROCE_OPC(RC, READ_RESP_LAST));
	/* The replay did not move the expected PSN. */
	ck_assert_uint_eq(p.b->qp.resp.psn, 104);
	mock_pump(p.b, &p.cb, p.a, 5);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_int_eq(memcmp(p.a->mem + 0x1000, p.b->mem + 0x40000,
				3 * MTU + 5), 0);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_responses_not_overtaken)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 40 * MTU);
	u32 i;

	mock_pair_new(&p, SROCE_QPT_RC);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	w = mock_wqe(SROCE_WR_SEND, 2, VA, 10);
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 1, RVA, 100);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	/* Only the inline budget went out; the SEND's ACK waits. */
	ck_assert_uint_eq(p.b->npkt, SROCE_RX_INLINE_BUDGET);
	ck_assert(sroce_qp_pending(&p.b->qp));
	while (sroce_qp_kick(&p.b->qp, 7, 2))
		;
	ck_assert_uint_eq(p.b->npkt, 41);
	for (i = 0; i < 40; i++)
		ck_assert_uint_eq(mock_psn(p.b, i), 100 + i);
	ck_assert_uint_eq(mock_opcode(p.b, 40), SROCE_OPC(RC, ACK));
	ck_assert_uint_eq(mock_psn(p.b, 40), 140);
	ck_assert(!sroce_qp_pending(&p.b->qp));
	mock_pump(p.b, &p.cb, p.a, 3);
	ck_assert_uint_eq(p.a->ncqe, 2);
	mock_pair_free(&p);
}
END_TEST

/*
 * A 64-byte READ (@w) from A completes; then a network duplicate of its
 * request reaches B while B's TX refuses everything, reviving the answer.
 */
static void read_then_dup(struct mock_pair *p, struct sroce_send_wqe *w)
{
	mock_pair_new(p, SROCE_QPT_RC);
	w->rdma.remote_addr = RVA;
	w->rdma.rkey = 0x100;
	mock_post_send(p->a, w);
	sroce_qp_kick(&p->a->qp, 100, 0);
	mock_pump(p->a, &p->ca, p->b, 1);
	mock_pump(p->b, &p->cb, p->a, 1);
	ck_assert_uint_eq(p->a->ncqe, 1);
	p->b->emit_fail = 1000;
	ck_assert_int_eq(mock_deliver(p->a, 0, p->b, 2), SROCE_DROP_NONE);
}

START_TEST(test_dup_read_does_not_eat_resources)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 64);
	u32 i;

	read_then_dup(&p, &w);
	ck_assert(sroce_qp_pending(&p.b->qp));
	/* The revived answer must not count against max_dest_rd_atomic. */
	for (i = 0; i < MOCK_RES; i++) {
		w.wr_id = 10 + i;
		mock_post_send(p.a, &w);
	}
	sroce_qp_kick(&p.a->qp, 100, 3);
	ck_assert_uint_eq(p.a->npkt, 1 + MOCK_RES);
	mock_pump(p.a, &p.ca, p.b, 4);
	ck_assert_int_eq(p.b->qp.state, SROCE_QPS_RTS);
	p.b->emit_fail = 0;
	while (sroce_qp_kick(&p.b->qp, 2, 5))
		;
	mock_pump(p.b, &p.cb, p.a, 6);
	ck_assert_uint_eq(p.a->ncqe, 1 + MOCK_RES);
	for (i = 0; i < 1 + MOCK_RES; i++)
		ck_assert_uint_eq(p.a->cqe[i].status, SROCE_WC_SUCCESS);
	mock_pair_free(&p);
}
END_TEST

/* An atomic of @op on the peer's RVA + @off, its result to local @va. */
static struct sroce_send_wqe atomic_wqe(u8 op, u64 wr_id, u64 va, u64 off,
					u64 compare_add)
{
	struct sroce_send_wqe w = mock_wqe(op, wr_id, va, 8);

	w.atomic.remote_addr = RVA + off;
	w.atomic.rkey = 0x100;
	w.atomic.compare_add = compare_add;
	return w;
}

START_TEST(test_atomic_replay_cache)
{
	struct mock_pair p;
	struct sroce_send_wqe w = atomic_wqe(SROCE_WR_ATOMIC_FETCH_AND_ADD, 1,
					     VA, 0, 5);
	u64 v = 1000, r;

	mock_pair_new(&p, SROCE_QPT_RC);
	memcpy(p.b->mem + 0x40000, &v, 8);
	mock_post_send(p.a, &w);
	w = atomic_wqe(SROCE_WR_ATOMIC_CMP_AND_SWP, 2, VA + 8, 0, 1005);
	w.atomic.swap = 7;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	ck_assert_uint_eq(p.b->atomics, 2);
	memcpy(&v, p.b->mem + 0x40000, 8);
	ck_assert_uint_eq(v, 7);
	ck_assert_uint_eq(p.b->npkt, 2);
	ck_assert_uint_eq(mock_opcode(p.b, 0), SROCE_OPC(RC, ATOMIC_ACK));
	/* The first FETCH_ADD again: answered from the cache. */
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 2), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->atomics, 2);
	ck_assert_uint_eq(p.b->npkt, 3);
	ck_assert_uint_eq(mock_pkt(p.b, 2).h.atmack, 1000);
	mock_pump(p.b, &p.cb, p.a, 3);
	ck_assert_uint_eq(p.a->ncqe, 2);
	memcpy(&r, p.a->mem + 0x1000, 8);
	ck_assert_uint_eq(r, 1000);
	memcpy(&r, p.a->mem + 0x1008, 8);
	ck_assert_uint_eq(r, 1005);
	mock_pair_free(&p);
}
END_TEST

/*
 * An ATOMIC_ACK is lost; the duplicate FETCH_ADD revives its answer, a
 * duplicate READ before it cancels that answer again (go-back-N), and
 * then new requests need every resource.  The atomic's result must still
 * be there when the requester asks once more: found by make soak, where
 * it had been evicted as "answered" and the requester ran out of retries.
 */
START_TEST(test_cancelled_atomic_answer_kept)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 64);
	u64 v = 1000, r;
	u32 i;

	mock_pair_new(&p, SROCE_QPT_RC);
	memcpy(p.b->mem + 0x40000, &v, 8);
	w.rdma.remote_addr = RVA + 0x100;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	w = atomic_wqe(SROCE_WR_ATOMIC_FETCH_AND_ADD, 2, VA + 0x100, 0, 5);
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 2);
	mock_pump(p.a, &p.ca, p.b, 1);
	ck_assert_uint_eq(p.b->npkt, 2);
	/* The READ response arrives, the ATOMIC_ACK is lost. */
	ck_assert_int_eq(mock_deliver(p.b, 0, p.a, 2), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.a->ncqe, 1);
	p.b->emit_fail = 1000;
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 3), SROCE_DROP_NONE);
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 4), SROCE_DROP_NONE);
	/* Three more atomics: with the READ's and the FETCH_ADD's, five. */
	for (i = 0; i < MOCK_RES - 1; i++) {
		w.wr_id = 10 + i;
		w.sge[0].addr = VA + 0x200 + 8 * i;
		mock_post_send(p.a, &w);
	}
	sroce_qp_kick(&p.a->qp, 100, 5);
	ck_assert_uint_eq(p.a->npkt, 2 + MOCK_RES - 1);
	p.ca = 2;
	mock_pump(p.a, &p.ca, p.b, 6);
	ck_assert_uint_eq(p.b->atomics, MOCK_RES);
	/* Asked once more, the first FETCH_ADD is answered from the cache. */
	p.b->emit_fail = 0;
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 7), SROCE_DROP_NONE);
	while (sroce_qp_kick(&p.b->qp, 100, 8))
		;
	p.cb = 2;
	mock_pump(p.b, &p.cb, p.a, 9);
	ck_assert_uint_eq(p.b->atomics, MOCK_RES);
	ck_assert_uint_eq(p.a->ncqe, 1 + MOCK_RES);
	for (i = 0; i < p.a->ncqe; i++)
		ck_assert_uint_eq(p.a->cqe[i].status, SROCE_WC_SUCCESS);
	memcpy(&r, p.a->mem + 0x1100, 8);
	ck_assert_uint_eq(r, 1000);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_misaligned_atomic)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_ATOMIC_FETCH_AND_ADD, 1,
					   VA, 8);

	mock_pair_new(&p, SROCE_QPT_RC);
	w.atomic.remote_addr = RVA + 4;
	w.atomic.rkey = 0x100;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	ck_assert_uint_eq(mock_pkt(p.b, 0).h.aeth.syndrome,
			  mock_nak_syn(SROCE_NAK_INVALID_REQ));
	ck_assert_uint_eq(p.b->atomics, 0);
	mock_pump(p.b, &p.cb, p.a, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_REM_INV_REQ_ERR);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_recv_too_small)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 200);

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 9, RVA, 100);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].status, SROCE_WC_LOC_LEN_ERR);
	ck_assert_uint_eq(p.b->cqe[0].wr_id, 9);
	ck_assert_uint_eq(mock_pkt(p.b, 0).h.aeth.syndrome,
			  mock_nak_syn(SROCE_NAK_INVALID_REQ));
	ck_assert_int_eq(p.b->qp.state, SROCE_QPS_ERR);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_send_inv_and_write_imm)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND_WITH_INV, 1, VA, 20);

	mock_pair_new(&p, SROCE_QPT_RC);
	w.ex = 0x4321;
	mock_post_send(p.a, &w);
	w = mock_wqe(SROCE_WR_RDMA_WRITE_WITH_IMM, 2, VA, 2 * MTU);
	w.rdma.remote_addr = RVA + 0x1000;
	w.rdma.rkey = 0x100;
	w.ex = 99;
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 1, RVA, 100);
	mock_post_recv(p.b, 2, RVA, 0);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	ck_assert_uint_eq(p.b->invalidated, 0x4321);
	ck_assert_uint_eq(p.b->ncqe, 2);
	ck_assert_uint_eq(p.b->cqe[0].flags, SROCE_WC_F_WITH_INV);
	ck_assert_uint_eq(p.b->cqe[0].ex, 0x4321);
	ck_assert_uint_eq(p.b->cqe[1].opcode, SROCE_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(p.b->cqe[1].byte_len, 2 * MTU);
	ck_assert_uint_eq(p.b->cqe[1].ex, 99);
	ck_assert_uint_eq(p.b->cqe[1].wr_id, 2);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_opcode_sequence)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 2 * MTU);

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 1, RVA, 4 * MTU);
	sroce_qp_kick(&p.a->qp, 100, 0);
	/* LAST at the expected PSN without a FIRST before it. */
	p.b->qp.resp.psn = 101;
	mock_deliver(p.a, 1, p.b, 1);
	ck_assert_uint_eq(mock_pkt(p.b, 0).h.aeth.syndrome,
			  mock_nak_syn(SROCE_NAK_INVALID_REQ));
	ck_assert_int_eq(p.b->qp.state, SROCE_QPS_ERR);
	ck_assert_uint_eq(p.b->events[SROCE_EVENT_QP_REQ_ERR], 1);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_ud_recv)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 300);
	struct sroce_recv_wqe *r;
	u32 i;

	mock_pair_new(&p, SROCE_QPT_UD);
	mock_fill(p.a, VA, 300, 1);
	w.ud.remote_qpn = 0x22;
	w.ud.remote_qkey = 0x11111111;
	mock_post_send(p.a, &w);
	w.ud.remote_qkey = 0x2;		/* wrong Q_Key */
	mock_post_send(p.a, &w);
	/* GRH split across two SGEs. */
	mock_post_recv(p.b, 4, RVA, 30);
	r = &p.b->rw[0];
	r->num_sge = 2;
	r->sge[1].addr = RVA + 0x100;
	r->sge[1].length = 400;
	r->sge[1].lkey = 0x100;
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NONE);
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 1), SROCE_DROP_BAD_QKEY);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].byte_len, 340);
	ck_assert_uint_eq(p.b->cqe[0].src_qp, 0x11);
	ck_assert_uint_eq(p.b->cqe[0].flags, SROCE_WC_F_GRH);
	for (i = 0; i < 30; i++)
		ck_assert_uint_eq(p.b->mem[0x40000 + i], 0xa0 + i);
	for (i = 0; i < 10; i++)
		ck_assert_uint_eq(p.b->mem[0x40100 + i], 0xa0 + 30 + i);
	ck_assert_int_eq(memcmp(p.b->mem + 0x40100 + 10, p.a->mem + 0x1000,
				300), 0);
	/* No receive WQE: dropped, counted, no NAK on UD. */
	w.ud.remote_qkey = 0x11111111;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 2);
	ck_assert_int_eq(mock_deliver(p.a, 2, p.b, 3), SROCE_DROP_NO_RESOURCE);
	ck_assert_uint_eq(p.b->npkt, 0);
	mock_pair_free(&p);
}
END_TEST

START_TEST(test_uc_lost_middle)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 3 * MTU);

	mock_pair_new(&p, SROCE_QPT_UC);
	mock_post_send(p.a, &w);
	w = mock_wqe(SROCE_WR_SEND, 2, VA, 10);
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 1, RVA, 4 * MTU);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 4);
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NONE);
	/* 1 lost: the LAST is dropped, the message is abandoned. */
	ck_assert_int_eq(mock_deliver(p.a, 2, p.b, 1), SROCE_DROP_BAD_SEQUENCE);
	ck_assert_uint_eq(p.b->ncqe, 0);
	/* The next message lands in the same receive WQE. */
	ck_assert_int_eq(mock_deliver(p.a, 3, p.b, 1), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].wr_id, 1);
	ck_assert_uint_eq(p.b->cqe[0].byte_len, 10);
	ck_assert_uint_eq(p.b->npkt, 0);
	mock_pair_free(&p);
}
END_TEST

/* xorshift32: a loss pattern with no period a retransmission can match. */
static u32 lossy_next(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * The whole RC transport over a link that drops a fifth of the packets
 * one way and a third the other, with a mixed workload.  The drops are
 * pseudo-random: a fixed period (every 5th, every 3rd) can line up with a
 * go-back-N round of the same length and lose the same packet every time,
 * which no link does.  Several seeds, each reproducible.
 */
START_TEST(test_lossy_end_to_end)
{
	struct mock_pair p;
	struct sroce_send_wqe w;
	u64 now = 0, d;
	u32 i, x = 0x9e3779b9u * (u32)(_i + 1), idle = 0;

	/* At these rates three retries run out now and then; take seven. */
	mock_pair_new_retry(&p, SROCE_QPT_RC, 7);
	mock_fill(p.a, VA, 0x20000, 5);
	mock_fill(p.b, RVA + 0x30000, 0x8000, 77);
	for (i = 0; i < 12; i++) {
		switch (i % 4) {
		case 0:
			w = mock_wqe(SROCE_WR_SEND, i, VA + i * 0x1000,
				     2 * MTU + i);
			mock_post_recv(p.b, i, RVA + i * 0x1000, 0x1000);
			break;
		case 1:
			w = mock_wqe(SROCE_WR_RDMA_WRITE, i, VA + i * 0x1000,
				     3 * MTU);
			w.rdma.remote_addr = RVA + i * 0x1000;
			w.rdma.rkey = 0x100;
			break;
		case 2:
			w = mock_wqe(SROCE_WR_RDMA_READ, i,
				     VA + 0x10000 + i * 0x1000, 3 * MTU + 7);
			w.rdma.remote_addr = RVA + 0x30000 + i * 0x100;
			w.rdma.rkey = 0x100;
			break;
		default:
			w = mock_wqe(SROCE_WR_ATOMIC_FETCH_AND_ADD, i,
				     VA + 0x1f000 + i * 8, 8);
			w.atomic.remote_addr = RVA + 0x3f000;
			w.atomic.rkey = 0x100;
			w.atomic.compare_add = 1;
			break;
		}
		mock_post_send(p.a, &w);
	}
	while (p.a->ncqe < 12 && idle < 1000) {
		u32 moved = 0;

		sroce_qp_kick(&p.a->qp, 8, now);
		sroce_qp_kick(&p.b->qp, 8, now);
		while (p.ca < p.a->npkt) {
			if (lossy_next(&x) % 5)
				mock_deliver(p.a, p.ca, p.b, now);
			p.ca++;
			moved++;
		}
		while (p.cb < p.b->npkt) {
			if (lossy_next(&x) % 3)
				mock_deliver(p.b, p.cb, p.a, now);
			p.cb++;
			moved++;
		}
		if (!moved && !sroce_qp_pending(&p.a->qp) &&
		    !sroce_qp_pending(&p.b->qp)) {
			d = sroce_qp_next_deadline(&p.a->qp);
			if (sroce_qp_next_deadline(&p.b->qp) < d)
				d = sroce_qp_next_deadline(&p.b->qp);
			ck_assert_uint_ne(d, U64_MAX);
			now = d;
			sroce_qp_on_deadline(&p.a->qp, now);
			sroce_qp_on_deadline(&p.b->qp, now);
			idle++;
		}
	}
	ck_assert_uint_eq(p.a->ncqe, 12);
	for (i = 0; i < 12; i++) {
		ck_assert_uint_eq(p.a->cqe[i].wr_id, i);
		ck_assert_uint_eq(p.a->cqe[i].status, SROCE_WC_SUCCESS);
	}
	ck_assert_uint_eq(p.b->ncqe, 3);
	for (i = 0; i < 12; i += 4)
		ck_assert_int_eq(memcmp(p.b->mem + 0x40000 + i * 0x1000,
					p.a->mem + 0x1000 + i * 0x1000,
					2 * MTU + i), 0);
	for (i = 1; i < 12; i += 4)
		ck_assert_int_eq(memcmp(p.b->mem + 0x40000 + i * 0x1000,
					p.a->mem + 0x1000 + i * 0x1000,
					3 * MTU), 0);
	for (i = 2; i < 12; i += 4)
		ck_assert_int_eq(memcmp(p.a->mem + 0x11000 + i * 0x1000,
					p.b->mem + 0x70000 + i * 0x100,
					3 * MTU + 7), 0);
	/* Each atomic executed exactly once despite the losses. */
	{
		u64 v;

		memcpy(&v, p.b->mem + 0x7f000, 8);
		ck_assert_uint_eq(v, 3);
		for (i = 3; i < 12; i += 4) {
			memcpy(&v, p.a->mem + 0x20000 + i * 8, 8);
			ck_assert_uint_eq(v, i / 4);
		}
	}
	ck_assert_uint_gt(p.a->qp.stats.retransmits, 0);
	ck_assert_int_eq(p.a->qp.state, SROCE_QPS_RTS);
	ck_assert_int_eq(p.b->qp.state, SROCE_QPS_RTS);
	mock_pair_free(&p);
}
END_TEST

#define CAP_MAX		256
#define CONN_MAX	16

struct conn {
	u8 side;		/* side the responder sits on */
	u32 qpn;
	struct mock *m;
	u32 matched;		/* of m->pkt, compared with rxe's */
	u32 windows;
};

static struct conn *resp_conn(struct conn *c, u32 *n, u8 side,
			      const struct sroce_pkt *p)
{
	struct sroce_qp_attr a;
	u32 i;

	for (i = 0; i < *n; i++)
		if (c[i].side == side && c[i].qpn == p->h.bth.dqpn &&
		    c[i].m->qp.state == SROCE_QPS_RTS &&
		    sroce_psn_diff(p->h.bth.psn, c[i].m->qp.resp.psn) > -64 &&
		    sroce_psn_diff(p->h.bth.psn, c[i].m->qp.resp.psn) < 64)
			return &c[i];
	ck_assert_uint_lt(*n, CONN_MAX);
	c += (*n)++;
	memset(c, 0, sizeof(*c));
	c->side = side;
	c->qpn = p->h.bth.dqpn;
	c->m = mock_new(SROCE_QPT_RC, c->qpn, false);
	mock_attr(&a, 0x1);
	a.rq_psn = p->h.bth.psn;
	mock_connect_attr(c->m, &a);
	for (i = 0; i < 64; i++)
		mock_post_recv(c->m, i, MOCK_BASE + 0x1000 + i * 0x1000, 0x1000);
	return c;
}

/* Back a foreign rkey's neighbourhood with mock memory. */
static u64 resp_window(struct conn *c, u32 rkey, u64 va)
{
	struct mock *m = c->m;
	u64 lo = va > 0x20000 ? va - 0x20000 : 0;
	u32 i;

	for (i = 0; i < m->nmr; i++)
		if (m->mr[i].key == rkey)
			return va - m->mr[i].va + m->mr[i].host;
	ck_assert_uint_lt(c->windows, 6);
	mock_reg_at(m, rkey, lo, 0x40000,
		    MOCK_BASE + 0x100000 + c->windows++ * 0x40000);
	return resp_window(c, rkey, va);
}

/*
 * rdma_rxe as the reference: feed the requests of its captures to our
 * responder and require our answers to match rxe's byte for byte (BTH and
 * extension headers, DestQP aside, which rxe learnt at connect time) and
 * in number.
 */
START_TEST(test_rxe_replay_responder)
{
	static struct cap_pkt cap[CAP_MAX];
	struct conn conns[CONN_MAX];
	u32 n, nc = 0, i, j, k, checked = 0;

	n = cap_load("rxe-ipv4.pcap", cap, CAP_MAX);
	ck_assert_uint_gt(n, 40);
	for (i = 0; i < n; i++) {
		const struct sroce_pkt *p = &cap[i].pkt;
		u8 side = cap[i].side;
		struct conn *c;
		bool hit = false;

		if ((p->h.bth.opcode & SROCE_TRANSPORT_MASK) != SROCE_TRANSPORT_RC)
			continue;
		if (p->op->flags & SROCE_OPF_REQ) {
			c = resp_conn(conns, &nc, !side, p);
			if (p->op->flags & SROCE_OPF_RETH)
				resp_window(c, p->h.reth.rkey, p->h.reth.va);
			if (p->op->flags & SROCE_OPF_ATMETH) {
				u64 host = resp_window(c, p->h.atmeth.rkey,
						       p->h.atmeth.va);

				/* Seed the value rxe found there. */
				for (j = i + 1; j < n; j++)
					if (cap[j].side != side &&
					    (cap[j].pkt.op->flags & SROCE_OPF_ATMACK) &&
					    cap[j].pkt.h.bth.psn == p->h.bth.psn)
						break;
				ck_assert_uint_lt(j, n);
				memcpy(mock_ptr(c->m, host), &cap[j].pkt.h.atmack, 8);
			}
			ck_assert_int_eq(sroce_qp_rx(&c->m->qp, p, &cap[i].pl, i),
					 SROCE_DROP_NONE);
			continue;
		}
		/* rxe's answer: find ours with the same PSN and opcode. */
		for (k = 0; k < nc && !hit; k++) {
			struct mock *m = conns[k].m;
			struct sroce_pkt q;
			struct mock_payload ql;

			if (conns[k].side != side || conns[k].matched >= m->npkt)
				continue;
			mock_parse(m, conns[k].matched, &q, &ql);
			if (q.h.bth.psn != p->h.bth.psn ||
			    q.h.bth.opcode != p->h.bth.opcode)
				continue;
			ck_assert_uint_eq(q.hdr_len, p->hdr_len);
			ck_assert_uint_eq(q.paylen, p->paylen);
			/*
			 * BTH bytes 5..7 are DestQP.  MigReq (byte 1, 0x40):
			 * sroce sets it as hardware NICs do, rxe does not
			 * (Documentation/interop.rst).
			 */
			ck_assert_uint_eq(m->pkt[conns[k].matched].b[0], cap[i].b[0]);
			ck_assert_uint_eq(m->pkt[conns[k].matched].b[1] ^ cap[i].b[1],
					  0x40);
			ck_assert_int_eq(memcmp(m->pkt[conns[k].matched].b + 2,
						cap[i].b + 2, 3), 0);
			ck_assert_int_eq(memcmp(m->pkt[conns[k].matched].b + 8,
						cap[i].b + 8, p->hdr_len - 8), 0);
			conns[k].matched++;
			checked++;
			hit = true;
		}
		ck_assert_msg(hit, "rxe frame %u (opcode %u psn %u): we did not answer it",
			      i, p->h.bth.opcode, p->h.bth.psn);
	}
	for (k = 0; k < nc; k++) {
		ck_assert_uint_eq(conns[k].matched, conns[k].m->npkt);
		mock_free(conns[k].m);
	}
	ck_assert_uint_ge(checked, 20);
}
END_TEST

/*
 * An ACK our own TX queue refused is owed, not lost: it goes out on the
 * next kick, and a newer one supersedes it.  Dropping it would spend the
 * peer's retries on our back-pressure.
 */
START_TEST(test_refused_ack_is_owed)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 10);

	mock_pair_new(&p, SROCE_QPT_RC);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	/* Posted one by one, so that each asks for an ACK. */
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	w.wr_id = 2;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 2);
	p.b->emit_fail = 2;
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->npkt, 0);
	ck_assert(sroce_qp_pending(&p.b->qp));
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 2), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->npkt, 0);
	ck_assert_uint_eq(p.b->qp.stats.acks_deferred, 1);
	/* Room again: one ACK, for the newer PSN. */
	sroce_qp_kick(&p.b->qp, 100, 3);
	ck_assert_uint_eq(p.b->npkt, 1);
	ck_assert_uint_eq(mock_opcode(p.b, 0), SROCE_OPC(RC, ACK));
	ck_assert_uint_eq(mock_psn(p.b, 0), 101);
	ck_assert(!sroce_qp_pending(&p.b->qp));
	mock_pump(p.b, &p.cb, p.a, 4);
	ck_assert_uint_eq(p.a->ncqe, 2);
	ck_assert_uint_eq(p.a->cqe[1].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(p.a->qp.stats.timeouts, 0);
	mock_pair_free(&p);
}
END_TEST

/*
 * A long READ answer refills B's TX queue each time it drains, so B's own
 * requester is refused at every try while the responder sends.  That is
 * B serving its peer, not a wedged netdev: the timeouts spend neither
 * retries nor the stall allowance, and once the answer is out the SEND
 * is retransmitted and completes (found by make soak: RETRY_EXC_ERR with
 * nothing lost).
 */
START_TEST(test_own_responses_starve_no_retry)
{
	struct mock_pair p;
	struct sroce_send_wqe rd = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 96 * MTU);
	struct sroce_send_wqe sd = mock_wqe(SROCE_WR_SEND, 2, RVA, 8);
	u64 now = 0;
	u32 i, periods = SROCE_TX_STALL_MAX + 8;

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_fill(p.b, RVA, 96 * MTU, 3);
	mock_post_recv(p.a, 7, VA + 96 * MTU, 64);
	mock_post_send(p.b, &sd);
	sroce_qp_kick(&p.b->qp, 100, now);
	ck_assert_uint_eq(p.b->npkt, 1);
	p.cb = 1;			/* the SEND is lost */
	rd.rdma.remote_addr = RVA;
	rd.rdma.rkey = 0x100;
	mock_post_send(p.a, &rd);
	sroce_qp_kick(&p.a->qp, 100, now);
	p.b->rationed = true;
	p.b->emit_room = 2;
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, now), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->npkt, 3);
	/* The first timeout is real: the SEND went out and was not answered. */
	now = sroce_qp_next_deadline(&p.b->qp);
	sroce_qp_on_deadline(&p.b->qp, now);
	ck_assert_uint_eq(p.b->qp.stats.timeouts, 1);
	for (i = 0; i < periods; i++) {
		p.b->emit_room = 2;
		sroce_qp_kick(&p.b->qp, 100, now);
		ck_assert(p.b->qp.req.refused);
		now = sroce_qp_next_deadline(&p.b->qp);
		ck_assert_uint_ne(now, U64_MAX);
		sroce_qp_on_deadline(&p.b->qp, now);
	}
	ck_assert_int_eq(p.b->qp.state, SROCE_QPS_RTS);
	ck_assert_uint_eq(p.b->qp.stats.timeouts, 1);
	ck_assert_uint_eq(p.b->qp.stats.tx_stalls, periods);
	ck_assert_uint_eq(p.b->qp.req.stall_left, SROCE_TX_STALL_MAX);
	ck_assert_uint_eq(p.b->npkt, 3 + 2 * periods);
	/* Room again: the rest of the answer, then the SEND. */
	p.b->rationed = false;
	sroce_qp_kick(&p.b->qp, 200, now);
	ck_assert_uint_eq(p.b->npkt, 96 + 2);
	ck_assert_uint_eq(mock_opcode(p.b, 97), SROCE_OPC(RC, SEND_ONLY));
	mock_pump(p.b, &p.cb, p.a, now + 1);
	ck_assert_uint_eq(p.a->ncqe, 2);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_int_eq(memcmp(p.a->mem + 0x1000, p.b->mem + 0x40000,
				96 * MTU), 0);
	sroce_qp_kick(&p.a->qp, 100, now + 2);
	mock_pump(p.a, &p.ca, p.b, now + 3);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].status, SROCE_WC_SUCCESS);
	mock_pair_free(&p);
}
END_TEST

/*
 * A duplicate READ accepted while its rkey was valid, whose answer waits
 * for TX room while the requester, which already has the data, frees the
 * buffer: the answer is dropped, as for a duplicate whose rkey is invalid
 * on arrival.  No NAK, and the connection lives on.
 */
START_TEST(test_dup_read_of_freed_mr_is_dropped)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 64);

	read_then_dup(&p, &w);
	ck_assert(sroce_qp_pending(&p.b->qp));
	p.b->mr[0].key = 0;		/* deregistered */
	p.b->emit_fail = 0;
	sroce_qp_kick(&p.b->qp, 100, 3);
	ck_assert_uint_eq(p.b->npkt, p.cb);
	ck_assert(!sroce_qp_pending(&p.b->qp));
	ck_assert_int_eq(p.b->qp.state, SROCE_QPS_RTS);
	/* Registered again: the next request is served. */
	p.b->mr[0].key = 0x100;
	w = mock_wqe(SROCE_WR_SEND, 2, VA, 10);
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 7, RVA, 100);
	sroce_qp_kick(&p.a->qp, 100, 4);
	mock_pump(p.a, &p.ca, p.b, 5);
	mock_pump(p.b, &p.cb, p.a, 6);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(p.a->ncqe, 2);
	ck_assert_uint_eq(p.a->cqe[1].status, SROCE_WC_SUCCESS);
	mock_pair_free(&p);
}
END_TEST

Suite *resp_suite(void);

Suite *resp_suite(void)
{
	Suite *s = suite_create("resp");
	TCase *tc = tcase_create("responder");

	tcase_add_test(tc, test_send_recv);
	tcase_add_test(tc, test_delayed_ack);
	tcase_add_test(tc, test_lazy_clock);
	tcase_add_test(tc, test_ack_every);
	tcase_add_test(tc, test_psn_ahead_nak_once);
	tcase_add_test(tc, test_duplicates);
	tcase_add_test(tc, test_rnr);
	tcase_add_test(tc, test_rnr_on_write_imm_last);
	tcase_add_test(tc, test_uc_no_recv_then_next_message);
	tcase_add_test(tc, test_write_access_errors);
	tcase_add_test(tc, test_qp_access_flags);
	tcase_add_test(tc, test_read_and_replay);
	tcase_add_test(tc, test_responses_not_overtaken);
	tcase_add_test(tc, test_dup_read_does_not_eat_resources);
	tcase_add_test(tc, test_refused_ack_is_owed);
	tcase_add_test(tc, test_own_responses_starve_no_retry);
	tcase_add_test(tc, test_dup_read_of_freed_mr_is_dropped);
	tcase_add_test(tc, test_atomic_replay_cache);
	tcase_add_test(tc, test_cancelled_atomic_answer_kept);
	tcase_add_test(tc, test_misaligned_atomic);
	tcase_add_test(tc, test_recv_too_small);
	tcase_add_test(tc, test_send_inv_and_write_imm);
	tcase_add_test(tc, test_opcode_sequence);
	tcase_add_test(tc, test_ud_recv);
	tcase_add_test(tc, test_uc_lost_middle);
	tcase_add_loop_test(tc, test_lossy_end_to_end, 0, 16);
	tcase_add_test(tc, test_rxe_replay_responder);
	suite_add_tcase(s, tc);
	return s;
}
