// SPDX-License-Identifier: GPL-2.0
/*
 * Memory that is not present yet (on-demand paging): the glue's copy_in,
 * store or atomic answers -SROCE_EAGAIN.  Nothing is lost or placed
 * twice: the responder RNR NAKs the packet (RC) or drops it (UC, UD),
 * the completer drops a READ or atomic response and the request goes
 * again; every byte and completion is checked once the memory is there.
 */
#include "qp_mock.h"

#define MTU	1024
#define VA	(MOCK_BASE + 0x1000)
#define RVA	(MOCK_BASE + 0x40000)

/* B's last packet is an RNR NAK of @psn; A waits the RNR timer out. */
static u64 pair_rnr(struct mock_pair *p, u32 psn, u64 now)
{
	struct sroce_pkt k = mock_pkt(p->b, p->b->npkt - 1);
	u64 t;

	ck_assert_uint_eq(k.h.aeth.syndrome,
			  sroce_aeth_syndrome(SROCE_AETH_RNR_NAK, 1));
	ck_assert_uint_eq(k.h.bth.psn, psn);
	mock_pump(p->b, &p->cb, p->a, now);
	ck_assert_uint_eq(p->a->ncqe, 0);
	t = sroce_qp_next_deadline(&p->a->qp);
	ck_assert_uint_eq(t, now + sroce_rnr_timer_ns(1));
	sroce_qp_on_deadline(&p->a->qp, t);
	sroce_qp_kick(&p->a->qp, 100, t);
	return t;
}

/* A SEND whose middle packet meets absent memory: resent from there. */
START_TEST(test_send_middle_absent)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 2 * MTU + 500);
	u64 t;

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_fill(p.a, VA, 2 * MTU + 500, 3);
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 7, RVA, 4 * MTU);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 3);
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NONE);
	p.b->absent = 1;
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 1), SROCE_DROP_NO_RESOURCE);
	/* The LAST is ahead now: dropped without another NAK. */
	ck_assert_int_eq(mock_deliver(p.a, 2, p.b, 1), SROCE_DROP_PSN_INVALID);
	ck_assert_uint_eq(p.b->npkt, 1);
	ck_assert_uint_eq(p.b->ncqe, 0);
	p.ca = 3;
	t = pair_rnr(&p, 101, 2);
	/* MIDDLE and LAST again; the same receive WQE completes once. */
	ck_assert_uint_eq(p.a->npkt, 5);
	ck_assert_uint_eq(mock_psn(p.a, 3), 101);
	mock_pump(p.a, &p.ca, p.b, t);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].wr_id, 7);
	ck_assert_uint_eq(p.b->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(p.b->cqe[0].byte_len, 2 * MTU + 500);
	ck_assert_uint_eq(p.b->rw_head, 1);
	ck_assert_int_eq(memcmp(p.b->mem + 0x40000, p.a->mem + 0x1000,
				2 * MTU + 500), 0);
	mock_pump(p.b, &p.cb, p.a, t);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	mock_pair_free(&p);
}
END_TEST

/* A WRITE's FIRST packet meets absent memory: the retry starts afresh. */
START_TEST(test_write_first_absent)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 2 * MTU);
	u64 t;

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_fill(p.a, VA, 2 * MTU, 8);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	p.b->absent = 1;
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NO_RESOURCE);
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 1), SROCE_DROP_PSN_INVALID);
	p.ca = 2;
	t = pair_rnr(&p, 100, 2);
	ck_assert_uint_eq(p.a->npkt, 4);
	ck_assert_uint_eq(mock_opcode(p.a, 2), SROCE_OPC(RC, WRITE_FIRST));
	mock_pump(p.a, &p.ca, p.b, t);
	ck_assert_int_eq(memcmp(p.b->mem + 0x40000, p.a->mem + 0x1000, 2 * MTU),
			 0);
	mock_pump(p.b, &p.cb, p.a, t);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(p.b->qp.state, SROCE_QPS_RTS);
	mock_pair_free(&p);
}
END_TEST

/* An atomic target absent: executed once, after the RNR retry. */
START_TEST(test_atomic_absent)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_ATOMIC_FETCH_AND_ADD, 1, VA,
					   8);
	u64 v = 1000, r;
	u64 t;

	mock_pair_new(&p, SROCE_QPT_RC);
	memcpy(p.b->mem + 0x40000, &v, 8);
	w.atomic.remote_addr = RVA;
	w.atomic.rkey = 0x100;
	w.atomic.compare_add = 5;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	p.b->absent = 1;
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NO_RESOURCE);
	ck_assert_uint_eq(p.b->atomics, 0);
	p.ca = 1;
	t = pair_rnr(&p, 100, 2);
	mock_pump(p.a, &p.ca, p.b, t);
	ck_assert_uint_eq(p.b->atomics, 1);
	memcpy(&v, p.b->mem + 0x40000, 8);
	ck_assert_uint_eq(v, 1005);
	mock_pump(p.b, &p.cb, p.a, t);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	memcpy(&r, p.a->mem + 0x1000, 8);
	ck_assert_uint_eq(r, 1000);
	mock_pair_free(&p);
}
END_TEST

/* The READ's local buffer is absent for one response: read again. */
START_TEST(test_read_response_absent)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_READ, 1, VA, 3 * MTU);
	u64 now = 1;
	u32 i;

	mock_pair_new(&p, SROCE_QPT_RC);
	mock_fill(p.b, RVA, 3 * MTU, 9);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, now);
	ck_assert_uint_eq(p.b->npkt, 3);
	p.a->absent = 1;
	ck_assert_int_eq(mock_deliver(p.b, 0, p.a, now), SROCE_DROP_NO_RESOURCE);
	p.cb = 1;
	/* The next is out of sequence: A reads again from the first. */
	for (i = 0; i < 10 && !p.a->ncqe; i++) {
		now++;
		mock_pump(p.b, &p.cb, p.a, now);
		sroce_qp_kick(&p.a->qp, 100, now);
		mock_pump(p.a, &p.ca, p.b, now);
	}
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_int_eq(memcmp(p.a->mem + 0x1000, p.b->mem + 0x40000, 3 * MTU),
			 0);
	mock_pair_free(&p);
}
END_TEST

/* The last (only) response lost to absent memory: the ACK timer resends. */
START_TEST(test_atomic_response_absent)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_ATOMIC_FETCH_AND_ADD, 1, VA,
					   8);
	u64 v = 40, r, t;

	mock_pair_new(&p, SROCE_QPT_RC);
	memcpy(p.b->mem + 0x40000, &v, 8);
	w.atomic.remote_addr = RVA;
	w.atomic.rkey = 0x100;
	w.atomic.compare_add = 2;
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	p.a->absent = 1;
	ck_assert_int_eq(mock_deliver(p.b, 0, p.a, 1), SROCE_DROP_NO_RESOURCE);
	p.cb = 1;
	ck_assert_uint_eq(p.a->ncqe, 0);
	t = sroce_qp_next_deadline(&p.a->qp);
	ck_assert_uint_ne(t, U64_MAX);
	sroce_qp_on_deadline(&p.a->qp, t);
	sroce_qp_kick(&p.a->qp, 100, t);
	mock_pump(p.a, &p.ca, p.b, t);
	/* Answered from the replay cache: the add happened once. */
	ck_assert_uint_eq(p.b->atomics, 1);
	mock_pump(p.b, &p.cb, p.a, t);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	memcpy(&r, p.a->mem + 0x1000, 8);
	ck_assert_uint_eq(r, 40);
	memcpy(&v, p.b->mem + 0x40000, 8);
	ck_assert_uint_eq(v, 42);
	mock_pair_free(&p);
}
END_TEST

/* UD: the datagram is lost, its receive WQE kept for the next one. */
START_TEST(test_ud_absent)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 300);

	mock_pair_new(&p, SROCE_QPT_UD);
	mock_fill(p.a, VA, 300, 1);
	w.ud.remote_qpn = 0x22;
	w.ud.remote_qkey = 0x11111111;
	mock_post_send(p.a, &w);
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 4, RVA, 400);
	sroce_qp_kick(&p.a->qp, 100, 0);
	p.b->absent = 1;
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NO_RESOURCE);
	ck_assert_uint_eq(p.b->ncqe, 0);
	ck_assert_uint_eq(p.b->npkt, 0);
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 1), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].wr_id, 4);
	ck_assert_uint_eq(p.b->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(p.b->cqe[0].byte_len, 340);
	ck_assert_int_eq(memcmp(p.b->mem + 0x40000 + 40, p.a->mem + 0x1000,
				300), 0);
	mock_pair_free(&p);
}
END_TEST

/* UC: the message is lost, no NAK; the next one is placed. */
START_TEST(test_uc_absent)
{
	struct mock_pair p;
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 2 * MTU);

	mock_pair_new(&p, SROCE_QPT_UC);
	mock_fill(p.a, VA, 2 * MTU, 5);
	mock_post_send(p.a, &w);
	w = mock_wqe(SROCE_WR_SEND, 2, VA, 10);
	mock_post_send(p.a, &w);
	mock_post_recv(p.b, 1, RVA, 4 * MTU);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 3);
	p.b->absent = 1;
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 1), SROCE_DROP_NO_RESOURCE);
	ck_assert_int_eq(mock_deliver(p.a, 1, p.b, 1), SROCE_DROP_BAD_SEQUENCE);
	ck_assert_int_eq(mock_deliver(p.a, 2, p.b, 1), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->npkt, 0);
	ck_assert_uint_eq(p.b->ncqe, 1);
	ck_assert_uint_eq(p.b->cqe[0].byte_len, 10);
	ck_assert_int_eq(memcmp(p.b->mem + 0x40000, p.a->mem + 0x1000, 10), 0);
	mock_pair_free(&p);
}
END_TEST

Suite *odp_suite(void);

Suite *odp_suite(void)
{
	Suite *s = suite_create("odp");
	TCase *tc = tcase_create("not_present");

	tcase_add_test(tc, test_send_middle_absent);
	tcase_add_test(tc, test_write_first_absent);
	tcase_add_test(tc, test_atomic_absent);
	tcase_add_test(tc, test_read_response_absent);
	tcase_add_test(tc, test_atomic_response_absent);
	tcase_add_test(tc, test_ud_absent);
	tcase_add_test(tc, test_uc_absent);
	suite_add_tcase(s, tc);
	return s;
}
