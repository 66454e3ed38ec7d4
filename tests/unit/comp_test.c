// SPDX-License-Identifier: GPL-2.0
/*
 * Completer: ACK coalescing, stale and unexpected ACKs, local ACK timeout
 * and retry_cnt, sequence-error NAK go-back-N, RNR NAK waits and
 * rnr_retry, remote error NAKs, READ responses and atomic ACKs, implied
 * NAKs for lost READ responses.
 */
#include "qp_mock.h"

#define MTU	1024
#define VA	(MOCK_BASE + 0x1000)
#define TMO	(4096ull << 14)

static struct mock *rc(void)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);

	mock_connect(m, 0x22);
	return m;
}

static void post_sends(struct mock *m, u32 n, u32 len)
{
	struct sroce_send_wqe w;
	u32 i;

	for (i = 0; i < n; i++) {
		w = mock_wqe(SROCE_WR_SEND, i + 1, VA, len);
		mock_post_send(m, &w);
	}
}

static enum sroce_drop rx_resp(struct mock *m, u8 opcode, u32 psn,
			       const void *data, u32 len, u64 orig, u64 now)
{
	struct sroce_pkt p;
	struct mock_payload pl = { data, len };

	memset(&p, 0, sizeof(p));
	p.h.bth.opcode = opcode;
	p.h.bth.pkey = 0xffff;
	p.h.bth.psn = psn;
	p.h.aeth.syndrome = mock_ack_syn();
	p.h.atmack = orig;
	p.op = sroce_opinfo(opcode);
	p.paylen = len;
	return sroce_qp_rx(&m->qp, &p, &pl, now);
}

START_TEST(test_coalesced_ack_and_signaling)
{
	struct mock *m = rc();
	struct sroce_send_wqe w;

	post_sends(m, 3, 10);
	w = mock_wqe(SROCE_WR_RDMA_WRITE, 9, VA, 10);
	w.send_flags = 0;		/* unsignaled */
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 4);
	/* One ACK for PSN 101 retires the first two. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 101, 10), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[0].wr_id, 1);
	ck_assert_uint_eq(m->cqe[1].wr_id, 2);
	ck_assert_uint_eq(m->cqe[1].opcode, SROCE_WC_SEND);
	/* Timer restarted from the progress. */
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), 10 + TMO);
	/* Duplicate of that ACK: stale. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 101, 11),
			 SROCE_DROP_ACK_STALE);
	/* ACK for a PSN never sent. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 104, 11),
			 SROCE_DROP_ACK_UNEXPECTED);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 103, 12), SROCE_DROP_NONE);
	/* The unsignaled WRITE retires without a CQE. */
	ck_assert_uint_eq(m->ncqe, 3);
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), U64_MAX);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 103, 13),
			 SROCE_DROP_ACK_STALE);
	mock_free(m);
}
END_TEST

START_TEST(test_partial_ack_of_long_message)
{
	struct mock *m = rc();

	post_sends(m, 1, 4 * MTU);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 101, 5), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 0);
	ck_assert_uint_eq(m->qp.comp.psn, 102);
	/* A timeout now resends only from PSN 102. */
	sroce_qp_on_deadline(&m->qp, 5 + TMO);
	sroce_qp_kick(&m->qp, 100, 5 + TMO);
	ck_assert_uint_eq(m->npkt, 6);
	ck_assert_uint_eq(mock_psn(m, 4), 102);
	ck_assert_uint_eq(mock_opcode(m, 4), SROCE_OPC(RC, SEND_MIDDLE));
	ck_assert_uint_eq(mock_opcode(m, 5), SROCE_OPC(RC, SEND_LAST));
	mock_free(m);
}
END_TEST

START_TEST(test_timeout_retry_exhaustion)
{
	struct mock *m = rc();
	u64 now = 0, d;
	u32 i;

	post_sends(m, 2, 10);
	sroce_qp_kick(&m->qp, 100, now);
	ck_assert_uint_eq(m->npkt, 2);
	for (i = 0; i < 3; i++) {
		d = sroce_qp_next_deadline(&m->qp);
		ck_assert_uint_eq(d, now + TMO);
		/* Early wake-ups change nothing. */
		sroce_qp_on_deadline(&m->qp, d - 1);
		ck_assert_uint_eq(m->qp.stats.timeouts, i);
		now = d;
		sroce_qp_on_deadline(&m->qp, now);
		sroce_qp_kick(&m->qp, 100, now);
		ck_assert_uint_eq(m->npkt, 2 + 2 * (i + 1));
		ck_assert_uint_eq(mock_psn(m, 2 + 2 * i), 100);
		ck_assert_uint_eq(mock_psn(m, 3 + 2 * i), 101);
	}
	ck_assert_uint_eq(m->qp.stats.timeouts, 3);
	now = sroce_qp_next_deadline(&m->qp);
	sroce_qp_on_deadline(&m->qp, now);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_RETRY_EXC_ERR);
	ck_assert_uint_eq(m->cqe[0].wr_id, 1);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), U64_MAX);
	mock_free(m);
}
END_TEST

START_TEST(test_progress_resets_retry)
{
	struct mock *m = rc();
	u64 now;

	post_sends(m, 3, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	now = sroce_qp_next_deadline(&m->qp);
	sroce_qp_on_deadline(&m->qp, now);
	now = sroce_qp_next_deadline(&m->qp);
	sroce_qp_on_deadline(&m->qp, now);
	ck_assert_uint_eq(m->qp.req.retry_left, 1);
	mock_rx_aeth(m, mock_ack_syn(), 100, now);
	ck_assert_uint_eq(m->qp.req.retry_left, 3);
	mock_free(m);
}
END_TEST

START_TEST(test_acks_overtake_go_back)
{
	struct mock *m = rc();
	u64 now;

	post_sends(m, 4, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	now = sroce_qp_next_deadline(&m->qp);
	sroce_qp_on_deadline(&m->qp, now);
	/* Resend only 100, then the ACK of the original 103 arrives. */
	sroce_qp_kick(&m->qp, 1, now);
	ck_assert_uint_eq(mock_psn(m, 4), 100);
	mock_rx_aeth(m, mock_ack_syn(), 103, now + 1);
	ck_assert_uint_eq(m->ncqe, 4);
	ck_assert(!sroce_qp_pending(&m->qp));
	/* The cursor caught up: the next WQE gets PSN 104, no stall. */
	post_sends(m, 1, 10);
	sroce_qp_kick(&m->qp, 100, now + 2);
	ck_assert_uint_eq(m->npkt, 6);
	ck_assert_uint_eq(mock_psn(m, 5), 104);
	/* Partly: go back to 104, ACKs up to 103 are stale, ACK 104 lands. */
	mock_rx_aeth(m, mock_ack_syn(), 104, now + 3);
	ck_assert_uint_eq(m->ncqe, 5);
	mock_free(m);
}
END_TEST

START_TEST(test_atomic_ack_after_go_back)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_ATOMIC_CMP_AND_SWP, 1,
					   VA, 8);

	mock_post_send(m, &w);
	post_sends(m, 1, 3 * MTU);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 4);
	/* Implied NAK: go back to the atomic at 100... */
	mock_rx_aeth(m, mock_ack_syn(), 101, 1);
	ck_assert_uint_eq(m->qp.req.psn, 100);
	/* ...but its answer to the first copy arrives before the resend. */
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, ATOMIC_ACK), 100, NULL, 0,
				 5, 2), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 1);
	sroce_qp_kick(&m->qp, 100, 3);
	ck_assert_uint_eq(mock_psn(m, 4), 101);
	ck_assert_uint_eq(mock_opcode(m, 4), SROCE_OPC(RC, SEND_FIRST));
	mock_free(m);
}
END_TEST

START_TEST(test_infinite_timeout)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);
	struct sroce_qp_attr a;

	mock_attr(&a, 0x22);
	a.timeout = 0;
	mock_connect_attr(m, &a);
	post_sends(m, 1, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 1);
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), U64_MAX);
	mock_free(m);
}
END_TEST

START_TEST(test_seq_nak_go_back_n)
{
	struct mock *m = rc();

	post_sends(m, 4, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 4);
	/* Responder expected 102: 100 and 101 are implicitly ACKed. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_nak_syn(SROCE_NAK_PSN_SEQ_ERR),
				      102, 5), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->qp.stats.seq_naks_rcvd, 1);
	sroce_qp_kick(&m->qp, 100, 6);
	ck_assert_uint_eq(m->npkt, 6);
	ck_assert_uint_eq(mock_psn(m, 4), 102);
	ck_assert_uint_eq(mock_psn(m, 5), 103);
	ck_assert_uint_eq(m->qp.req.retry_left, 2);
	mock_free(m);
}
END_TEST

START_TEST(test_rnr_nak_wait)
{
	struct mock *m = rc();
	u64 rnr = sroce_rnr_timer_ns(14);

	post_sends(m, 2, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_int_eq(mock_rx_aeth(m, sroce_aeth_syndrome(SROCE_AETH_RNR_NAK, 14),
				      101, 1000), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), 1000 + rnr);
	/* Nothing is resent while waiting. */
	ck_assert(!sroce_qp_pending(&m->qp));
	sroce_qp_kick(&m->qp, 100, 2000);
	ck_assert_uint_eq(m->npkt, 2);
	sroce_qp_on_deadline(&m->qp, 1000 + rnr);
	ck_assert(sroce_qp_pending(&m->qp));
	sroce_qp_kick(&m->qp, 100, 1000 + rnr);
	ck_assert_uint_eq(m->npkt, 3);
	ck_assert_uint_eq(mock_psn(m, 2), 101);
	ck_assert_uint_eq(m->qp.req.rnr_left, 2);
	mock_free(m);
}
END_TEST

START_TEST(test_rnr_retry_exhaustion)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);
	struct sroce_qp_attr a;
	u8 syn = sroce_aeth_syndrome(SROCE_AETH_RNR_NAK, 1);
	u64 now = 0;
	u32 i;

	mock_attr(&a, 0x22);
	a.rnr_retry = 1;
	mock_connect_attr(m, &a);
	post_sends(m, 2, 10);
	sroce_qp_kick(&m->qp, 100, now);
	for (i = 0; i < 1; i++) {
		mock_rx_aeth(m, syn, 100, now);
		now = sroce_qp_next_deadline(&m->qp);
		sroce_qp_on_deadline(&m->qp, now);
		sroce_qp_kick(&m->qp, 100, now);
	}
	ck_assert_int_eq(m->qp.state, SROCE_QPS_RTS);
	mock_rx_aeth(m, syn, 100, now);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_RNR_RETRY_EXC_ERR);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_WR_FLUSH_ERR);
	mock_free(m);
}
END_TEST

START_TEST(test_rnr_retry_infinite)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);
	struct sroce_qp_attr a;
	u8 syn = sroce_aeth_syndrome(SROCE_AETH_RNR_NAK, 1);
	u64 now = 0;
	u32 i;

	mock_attr(&a, 0x22);
	a.rnr_retry = 7;
	mock_connect_attr(m, &a);
	post_sends(m, 1, 10);
	sroce_qp_kick(&m->qp, 100, now);
	for (i = 0; i < 50; i++) {
		ck_assert_int_eq(mock_rx_aeth(m, syn, 100, now), SROCE_DROP_NONE);
		now = sroce_qp_next_deadline(&m->qp);
		sroce_qp_on_deadline(&m->qp, now);
		sroce_qp_kick(&m->qp, 100, now);
	}
	ck_assert_int_eq(m->qp.state, SROCE_QPS_RTS);
	ck_assert_uint_eq(m->npkt, 51);
	ck_assert_uint_eq(m->qp.stats.rnr_naks_rcvd, 50);
	mock_free(m);
}
END_TEST

START_TEST(test_remote_errors)
{
	static const struct { u8 code; u8 status; } t[] = {
		{ SROCE_NAK_INVALID_REQ, SROCE_WC_REM_INV_REQ_ERR },
		{ SROCE_NAK_REMOTE_ACCESS, SROCE_WC_REM_ACCESS_ERR },
		{ SROCE_NAK_REMOTE_OP_ERR, SROCE_WC_REM_OP_ERR },
		{ SROCE_NAK_INVALID_RD_REQ, SROCE_WC_REM_INV_RD_REQ_ERR },
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct mock *m = rc();

		post_sends(m, 3, 10);
		sroce_qp_kick(&m->qp, 100, 0);
		mock_rx_aeth(m, mock_nak_syn(t[i].code), 101, 1);
		ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
		ck_assert_uint_eq(m->ncqe, 3);
		ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_SUCCESS);
		ck_assert_uint_eq(m->cqe[1].status, t[i].status);
		ck_assert_uint_eq(m->cqe[1].vendor_err, mock_nak_syn(t[i].code));
		ck_assert_uint_eq(m->cqe[2].status, SROCE_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(m->qp.stats.access_naks_rcvd,
				  t[i].code == SROCE_NAK_REMOTE_ACCESS);
		ck_assert_uint_eq(m->qp.stats.error_naks_rcvd,
				  t[i].code != SROCE_NAK_REMOTE_ACCESS);
		/* In ERR, further packets are refused. */
		ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 102, 2),
				 SROCE_DROP_BAD_QP_STATE);
		mock_free(m);
	}
}
END_TEST

START_TEST(test_read_responses)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 5, VA, 2 * MTU + 3);
	u8 data[3 * MTU];
	u32 i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 13 + 1);
	/* Two SGEs, split inside the first packet. */
	w.num_sge = 2;
	w.sge[0].length = 100;
	w.sge[1].addr = VA + 0x2000;
	w.sge[1].length = 2 * MTU + 3 - 100;
	w.sge[1].lkey = 0x100;
	mock_post_send(m, &w);
	post_sends(m, 1, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 2);
	ck_assert_uint_eq(mock_psn(m, 1), 103);
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, READ_RESP_FIRST), 100, data,
				 MTU, 0, 1), SROCE_DROP_NONE);
	/* Wrong length for a MIDDLE: dropped. */
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, READ_RESP_MIDDLE), 101,
				 data + MTU, 5, 0, 1), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, READ_RESP_MIDDLE), 101,
				 data + MTU, MTU, 0, 2), SROCE_DROP_NONE);
	/* The MIDDLE again: stale. */
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, READ_RESP_MIDDLE), 101,
				 data + MTU, MTU, 0, 2), SROCE_DROP_ACK_STALE);
	ck_assert_uint_eq(m->ncqe, 0);
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, READ_RESP_LAST), 102,
				 data + 2 * MTU, 3, 0, 3), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].opcode, SROCE_WC_RDMA_READ);
	ck_assert_uint_eq(m->cqe[0].wr_id, 5);
	ck_assert_int_eq(memcmp(m->mem + 0x1000, data, 100), 0);
	ck_assert_int_eq(memcmp(m->mem + 0x3000, data + 100, 2 * MTU + 3 - 100), 0);
	mock_rx_aeth(m, mock_ack_syn(), 103, 4);
	ck_assert_uint_eq(m->ncqe, 2);
	mock_free(m);
}
END_TEST

START_TEST(test_lost_read_response)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 5, VA, 3 * MTU);
	struct sroce_pkt p;
	struct mock_payload pl;
	u8 data[MTU] = { 0 };

	w.rdma.remote_addr = 0x40000;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	rx_resp(m, SROCE_OPC(RC, READ_RESP_FIRST), 100, data, MTU, 0, 1);
	/* 101 lost: 102 triggers one re-request from 101. */
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, READ_RESP_LAST), 102, data,
				 MTU, 0, 2), SROCE_DROP_BAD_SEQUENCE);
	sroce_qp_kick(&m->qp, 100, 3);
	ck_assert_uint_eq(m->npkt, 2);
	mock_parse(m, 1, &p, &pl);
	ck_assert_uint_eq(p.h.bth.opcode, SROCE_OPC(RC, READ_REQ));
	ck_assert_uint_eq(p.h.bth.psn, 101);
	ck_assert_uint_eq(p.h.reth.va, 0x40000 + MTU);
	ck_assert_uint_eq(p.h.reth.len, 2 * MTU);
	/* A second out-of-order packet does not re-request again. */
	rx_resp(m, SROCE_OPC(RC, READ_RESP_LAST), 102, data, MTU, 0, 4);
	sroce_qp_kick(&m->qp, 100, 5);
	ck_assert_uint_eq(m->npkt, 2);
	/* The responder answers the re-request with FIRST at 101. */
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, READ_RESP_FIRST), 101, data,
				 MTU, 0, 6), SROCE_DROP_NONE);
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, READ_RESP_LAST), 102, data,
				 MTU, 0, 7), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_SUCCESS);
	mock_free(m);
}
END_TEST

START_TEST(test_atomic_ack)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_ATOMIC_FETCH_AND_ADD, 8,
					   VA + 64, 8);
	u64 v;

	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	/* An atomic ACK for a PSN never sent. */
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, ATOMIC_ACK), 101, NULL, 0,
				 1, 1), SROCE_DROP_ACK_UNEXPECTED);
	ck_assert_int_eq(rx_resp(m, SROCE_OPC(RC, ATOMIC_ACK), 100, NULL, 0,
				 0x1122334455667788ull, 1), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].opcode, SROCE_WC_FETCH_ADD);
	memcpy(&v, m->mem + 0x1000 + 64, 8);
	ck_assert_uint_eq(v, 0x1122334455667788ull);
	mock_free(m);
}
END_TEST

START_TEST(test_bad_local_read_buffer)
{
	struct mock *m = rc();
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 5, VA, 16);
	u8 data[16] = { 0 };

	w.sge[0].lkey = 0x555;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 1);
	rx_resp(m, SROCE_OPC(RC, READ_RESP_ONLY), 100, data, 16, 0, 1);
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_LOC_PROT_ERR);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
	mock_free(m);
}
END_TEST

/*
 * A timeout while our own TX queue refuses the retransmission is not a
 * retry: the peer was sent nothing to answer.  Once TX has room the
 * retransmission goes out and the WQEs complete.
 */
START_TEST(test_tx_stall_spends_no_retry)
{
	struct mock *m = rc();
	u64 now;
	u32 i;

	post_sends(m, 2, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 2);
	now = sroce_qp_next_deadline(&m->qp);
	sroce_qp_on_deadline(&m->qp, now);	/* a real timeout */
	ck_assert_uint_eq(m->qp.req.retry_left, 2);
	m->emit_fail = 1000;
	for (i = 0; i < 5; i++) {
		sroce_qp_kick(&m->qp, 100, now);
		ck_assert(m->qp.req.refused);
		now = sroce_qp_next_deadline(&m->qp);
		ck_assert_uint_ne(now, U64_MAX);
		sroce_qp_on_deadline(&m->qp, now);
	}
	ck_assert_uint_eq(m->npkt, 2);
	ck_assert_uint_eq(m->qp.stats.tx_stalls, 5);
	ck_assert_uint_eq(m->qp.stats.timeouts, 1);
	ck_assert_uint_eq(m->qp.req.retry_left, 2);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_RTS);
	m->emit_fail = 0;
	sroce_qp_kick(&m->qp, 100, now);
	ck_assert_uint_eq(m->npkt, 4);
	ck_assert_uint_eq(mock_psn(m, 2), 100);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 101, now + 1),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_SUCCESS);
	mock_free(m);
}
END_TEST

/*
 * A TX queue that never drains: SROCE_TX_STALL_MAX excused timeouts,
 * then retry_cnt real ones, then RETRY_EXC_ERR, never an endless wait.
 */
START_TEST(test_tx_stall_is_bounded)
{
	struct mock *m = rc();
	u64 now = 0;
	u32 n = 0;

	post_sends(m, 1, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	m->emit_fail = ~0u;
	while (m->qp.state == SROCE_QPS_RTS && n++ < 100) {
		now = sroce_qp_next_deadline(&m->qp);
		ck_assert_uint_ne(now, U64_MAX);
		sroce_qp_on_deadline(&m->qp, now);
		sroce_qp_kick(&m->qp, 100, now);
	}
	ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_RETRY_EXC_ERR);
	ck_assert_uint_eq(m->qp.stats.tx_stalls, SROCE_TX_STALL_MAX);
	/* The first timeout, then the retries; the stalls in between. */
	ck_assert_uint_eq(m->qp.stats.timeouts, 1 + 3);
	ck_assert_uint_eq(n, 1 + SROCE_TX_STALL_MAX + 3);
	mock_free(m);
}
END_TEST

/*
 * The responder repeats a sequence NAK while ePSN does not arrive: each
 * repeat goes back again, but only the first costs a retry; further
 * silence is the ACK timer's to charge.  Progress makes the next NAK a
 * first one again.
 */
START_TEST(test_repeated_seq_nak_costs_one_retry)
{
	u8 nak = mock_nak_syn(SROCE_NAK_PSN_SEQ_ERR);
	struct mock *m = rc();
	u32 i;

	post_sends(m, 4, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_int_eq(mock_rx_aeth(m, nak, 102, 5), SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 100, 6);
	ck_assert_uint_eq(m->npkt, 6);
	ck_assert_uint_eq(m->qp.req.retry_left, 2);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(mock_rx_aeth(m, nak, 102, 10 + i),
				 SROCE_DROP_NONE);
		sroce_qp_kick(&m->qp, 100, 10 + i);
		ck_assert_uint_eq(m->npkt, 8 + 2 * i);
		ck_assert_uint_eq(mock_psn(m, 6 + 2 * i), 102);
	}
	ck_assert_uint_eq(m->qp.stats.seq_naks_rcvd, 7);
	ck_assert_uint_eq(m->qp.req.retry_left, 2);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_RTS);
	/* The timer still runs from the first NAK and charges silence. */
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), 5 + TMO);
	sroce_qp_on_deadline(&m->qp, 5 + TMO);
	ck_assert_uint_eq(m->qp.req.retry_left, 1);
	/* 102 arrives; a NAK at 103 is a new loss and costs a retry. */
	ck_assert_int_eq(mock_rx_aeth(m, nak, 103, 6 + TMO), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 3);
	ck_assert_uint_eq(m->qp.req.retry_left, 2);
	mock_free(m);
}
END_TEST

/*
 * With a round trip measured (srtt 1000, rttvar 500: a repeat is stale
 * for 3000 after the resend left), a repeated NAK that comes before the
 * resend left, or less than that after, goes back for nothing: it may
 * predate the resend's arrival.  One that comes later goes back.
 */
START_TEST(test_stale_repeated_nak)
{
	u8 nak = mock_nak_syn(SROCE_NAK_PSN_SEQ_ERR);
	struct mock *m = rc();

	/* 100..103 with AckReq on 103, timed from 0; then 104..107. */
	post_sends(m, 4, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert(m->qp.req.rtt_on);
	ck_assert_uint_eq(m->qp.req.rtt_psn, 103);
	post_sends(m, 4, 10);
	sroce_qp_kick(&m->qp, 100, 10);
	ck_assert_uint_eq(m->npkt, 8);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 103, 1000),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->qp.req.srtt, 1000);
	ck_assert_uint_eq(m->qp.req.rttvar, 500);
	/* 105 lost: go back; a repeat before the resend left is stale. */
	ck_assert_int_eq(mock_rx_aeth(m, nak, 105, 2000), SROCE_DROP_NONE);
	ck_assert_int_eq(mock_rx_aeth(m, nak, 105, 2050), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->qp.stats.seq_naks_stale, 1);
	sroce_qp_kick(&m->qp, 100, 2100);
	ck_assert_uint_eq(m->npkt, 11);
	ck_assert_uint_eq(mock_psn(m, 8), 105);
	ck_assert_uint_eq(m->qp.stats.retransmits, 1);
	/* 1900 after the resend: stale, nothing is sent again. */
	ck_assert_int_eq(mock_rx_aeth(m, nak, 105, 4000), SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 100, 4000);
	ck_assert_uint_eq(m->npkt, 11);
	ck_assert_uint_eq(m->qp.stats.seq_naks_stale, 2);
	ck_assert_uint_eq(m->qp.stats.retransmits, 1);
	/* 3100 after: the resend was lost too; go back, free. */
	ck_assert_int_eq(mock_rx_aeth(m, nak, 105, 5200), SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 100, 5200);
	ck_assert_uint_eq(m->npkt, 14);
	ck_assert_uint_eq(mock_psn(m, 11), 105);
	ck_assert_uint_eq(m->qp.stats.seq_naks_stale, 2);
	ck_assert_uint_eq(m->qp.stats.retransmits, 2);
	ck_assert_uint_eq(m->qp.req.retry_left, 2);
	/* No sample across the go-backs: Karn. */
	ck_assert(!m->qp.req.rtt_on);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 107, 9000),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->qp.req.srtt, 1000);
	ck_assert_uint_eq(m->ncqe, 8);
	mock_free(m);
}
END_TEST

/*
 * However long the measured round trip, a repeat more than
 * SROCE_NAK_STALE_MAX_NS after the resend goes back: without an ACK
 * timer (timeout 0) the responder's repeats are all that recover a
 * lost resend, and it stops after six, 126 ms after its first NAK.
 */
START_TEST(test_stale_bound_capped)
{
	u8 nak = mock_nak_syn(SROCE_NAK_PSN_SEQ_ERR);
	struct mock *m = rc();
	const u64 ms = 1000000;

	post_sends(m, 4, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	post_sends(m, 4, 10);
	sroce_qp_kick(&m->qp, 100, 10);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 103, 100 * ms),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->qp.req.srtt, 100 * ms);
	ck_assert_int_eq(mock_rx_aeth(m, nak, 105, 101 * ms),
			 SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 100, 101 * ms);
	ck_assert_uint_eq(m->npkt, 11);
	ck_assert_int_eq(mock_rx_aeth(m, nak, 105,
				      101 * ms + SROCE_NAK_STALE_MAX_NS - 1),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->qp.stats.seq_naks_stale, 1);
	ck_assert_uint_eq(m->qp.stats.retransmits, 1);
	ck_assert_int_eq(mock_rx_aeth(m, nak, 105,
				      101 * ms + SROCE_NAK_STALE_MAX_NS),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->qp.stats.seq_naks_stale, 1);
	ck_assert_uint_eq(m->qp.stats.retransmits, 2);
	sroce_qp_kick(&m->qp, 100, 101 * ms + SROCE_NAK_STALE_MAX_NS);
	ck_assert_uint_eq(m->npkt, 14);
	ck_assert_uint_eq(mock_psn(m, 11), 105);
	mock_free(m);
}
END_TEST

/*
 * A READ's responses are lost, and so is a later SEND: the sequence NAK
 * past the READ goes back to it.  Everything resent is lost again, and
 * the responder repeats its NAK: that goes back once more, without a
 * retry.  (A plain ACK past the READ goes back once per PSN.)
 */
START_TEST(test_repeated_nak_past_lost_read)
{
	u8 nak = mock_nak_syn(SROCE_NAK_PSN_SEQ_ERR);
	struct mock *m = rc();
	struct sroce_send_wqe w;

	w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 2 * MTU);
	w.rdma.remote_addr = 0x9000;
	w.rdma.rkey = 0x100;
	mock_post_send(m, &w);
	post_sends(m, 2, 10);
	sroce_qp_kick(&m->qp, 100, 0);
	/* READ 100 (responses 100 and 101), SENDs 102 and 103. */
	ck_assert_uint_eq(m->npkt, 3);
	ck_assert_uint_eq(mock_psn(m, 2), 103);
	ck_assert_int_eq(mock_rx_aeth(m, nak, 102, 1), SROCE_DROP_NONE);
	ck_assert_uint_eq(m->qp.stats.implied_naks, 1);
	sroce_qp_kick(&m->qp, 100, 2);
	ck_assert_uint_eq(m->npkt, 6);
	ck_assert_uint_eq(mock_psn(m, 3), 100);
	/* The same NAK, repeated by the responder's timer. */
	ck_assert_int_eq(mock_rx_aeth(m, nak, 102, 3), SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 100, 4);
	ck_assert_uint_eq(m->npkt, 9);
	ck_assert_uint_eq(mock_psn(m, 6), 100);
	/* A plain ACK past the READ does not go back a second time. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 103, 5),
			 SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 100, 6);
	ck_assert_uint_eq(m->npkt, 9);
	ck_assert_uint_eq(m->qp.stats.implied_naks, 1);
	ck_assert_uint_eq(m->qp.req.retry_left, 3);
	ck_assert_uint_eq(m->ncqe, 0);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_RTS);
	mock_free(m);
}
END_TEST

Suite *comp_suite(void);

Suite *comp_suite(void)
{
	Suite *s = suite_create("comp");
	TCase *tc = tcase_create("completer");

	tcase_add_test(tc, test_coalesced_ack_and_signaling);
	tcase_add_test(tc, test_partial_ack_of_long_message);
	tcase_add_test(tc, test_timeout_retry_exhaustion);
	tcase_add_test(tc, test_progress_resets_retry);
	tcase_add_test(tc, test_tx_stall_spends_no_retry);
	tcase_add_test(tc, test_tx_stall_is_bounded);
	tcase_add_test(tc, test_acks_overtake_go_back);
	tcase_add_test(tc, test_atomic_ack_after_go_back);
	tcase_add_test(tc, test_infinite_timeout);
	tcase_add_test(tc, test_seq_nak_go_back_n);
	tcase_add_test(tc, test_repeated_seq_nak_costs_one_retry);
	tcase_add_test(tc, test_stale_repeated_nak);
	tcase_add_test(tc, test_stale_bound_capped);
	tcase_add_test(tc, test_repeated_nak_past_lost_read);
	tcase_add_test(tc, test_rnr_nak_wait);
	tcase_add_test(tc, test_rnr_retry_exhaustion);
	tcase_add_test(tc, test_rnr_retry_infinite);
	tcase_add_test(tc, test_remote_errors);
	tcase_add_test(tc, test_read_responses);
	tcase_add_test(tc, test_lost_read_response);
	tcase_add_test(tc, test_atomic_ack);
	tcase_add_test(tc, test_bad_local_read_buffer);
	suite_add_tcase(s, tc);
	return s;
}
