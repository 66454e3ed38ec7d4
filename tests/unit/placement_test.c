// SPDX-License-Identifier: GPL-2.0
/*
 * The IBA 1.5 memory placement operations on RC, requester to responder
 * and back: ATOMIC WRITE (RETH + an 8-byte value stored as one write)
 * and FLUSH (FETH + RETH), both answered by an empty READ response and
 * both held in a responder resource, so a duplicate is answered again
 * without being executed again.  The codecs: FETH fields, the value
 * decoded by sroce_parse().
 */
#include "qp_mock.h"

#define VA	(MOCK_BASE + 0x1000)
#define RVA	(MOCK_BASE + 0x40000)

struct pair {
	struct mock *a, *b;
	u32 ca, cb;
};

/* @b's QP allows @b_access (flush rights added to mock_attr()'s). */
static void pair_new(struct pair *p, u32 b_access)
{
	struct sroce_qp_attr at;

	memset(p, 0, sizeof(*p));
	p->a = mock_new(SROCE_QPT_RC, 0x11, false);
	p->b = mock_new(SROCE_QPT_RC, 0x22, false);
	mock_attr(&at, 0x22);
	mock_connect_attr(p->a, &at);
	mock_attr(&at, 0x11);
	at.sq_psn = 200;
	at.rq_psn = 100;
	at.qp_access_flags = b_access;
	mock_connect_attr(p->b, &at);
}

static void pair_free(struct pair *p)
{
	mock_free(p->a);
	mock_free(p->b);
}

#define QP_ALL	(MOCK_ALL_ACCESS | SROCE_ACCESS_FLUSH_GLOBAL | \
		 SROCE_ACCESS_FLUSH_PERSISTENT)

static struct sroce_send_wqe aw_wqe(u64 wr_id, u64 rva, u32 rkey,
				    const u8 value[8])
{
	struct sroce_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = SROCE_WR_ATOMIC_WRITE;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.atomic_wr.remote_addr = rva;
	w.atomic_wr.rkey = rkey;
	memcpy(w.atomic_wr.value, value, 8);
	return w;
}

static struct sroce_send_wqe flush_wqe(u64 wr_id, u64 rva, u32 len, u32 rkey,
				       u8 type, u8 level)
{
	struct sroce_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = SROCE_WR_FLUSH;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.flush.remote_addr = rva;
	w.flush.rkey = rkey;
	w.flush.length = len;
	w.flush.type = type;
	w.flush.level = level;
	return w;
}

static struct sroce_pkt parse(struct mock *m, u32 i, struct mock_payload *pl)
{
	struct sroce_pkt p;

	mock_parse(m, i, &p, pl);
	return p;
}

/* Run @p until neither side has packets left to deliver. */
static void settle(struct pair *p, u64 now)
{
	sroce_qp_kick(&p->a->qp, 100, now);
	while (mock_pump(p->a, &p->ca, p->b, now) +
	       mock_pump(p->b, &p->cb, p->a, now))
		sroce_qp_kick(&p->a->qp, 100, now);
}

START_TEST(test_feth_codec)
{
	u8 buf[SROCE_MAX_HDR_LEN + 16];
	struct sroce_hdrs h;
	struct sroce_pkt pkt;
	u32 n;

	ck_assert_uint_eq(sroce_feth(SROCE_FLUSH_PERSISTENT, SROCE_FLUSH_MR),
			  0x12);
	ck_assert_uint_eq(sroce_feth_type(0xffffff13), 3);
	ck_assert_uint_eq(sroce_feth_level(0xffffff13), 1);
	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_OPC(RC, FLUSH);
	h.feth = sroce_feth(SROCE_FLUSH_GLOBAL, SROCE_FLUSH_RANGE);
	h.reth.va = 0x1122334455667788ull;
	h.reth.rkey = 0xabcd;
	h.reth.len = 4096;
	n = sroce_build(buf, &h);
	/* BTH, then FETH before RETH (IBA 1.5 header order). */
	ck_assert_uint_eq(n, SROCE_BTH_LEN + SROCE_FETH_LEN + SROCE_RETH_LEN);
	ck_assert_uint_eq(sroce_get_be32(buf + SROCE_BTH_LEN), 0x01);
	ck_assert_uint_eq(sroce_get_be32(buf + 16 + 8), 0xabcd);
	memset(buf + n, 0, 4);
	ck_assert_int_eq(sroce_parse(buf, n + 4, &pkt), SROCE_DROP_NONE);
	ck_assert_uint_eq(pkt.h.feth, 1);
	ck_assert_uint_eq(pkt.h.reth.len, 4096);
	/* FLUSH carries no payload. */
	ck_assert_int_eq(sroce_parse(buf, n + 8, &pkt), SROCE_DROP_BAD_LENGTH);
}
END_TEST

START_TEST(test_atomic_write_codec)
{
	static const u8 v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	u8 buf[SROCE_MAX_HDR_LEN + 16];
	struct sroce_hdrs h;
	struct sroce_pkt pkt;
	u32 n;

	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_OPC(RC, ATOMIC_WRITE);
	h.reth.len = 8;
	n = sroce_build(buf, &h);
	ck_assert_uint_eq(n, SROCE_BTH_LEN + SROCE_RETH_LEN);
	memcpy(buf + n, v, 8);
	memset(buf + n + 8, 0, 4);
	/* Within the bytes the kernel makes linear before parsing. */
	ck_assert_uint_le(n + 8, SROCE_MAX_HDR_LEN);
	ck_assert_int_eq(sroce_parse(buf, n + 12, &pkt), SROCE_DROP_NONE);
	ck_assert_mem_eq(pkt.h.atomic_wr, v, 8);
	ck_assert_uint_eq(pkt.paylen, 8);
	/* Exactly eight bytes. */
	ck_assert_int_eq(sroce_parse(buf, n + 8, &pkt), SROCE_DROP_BAD_LENGTH);
}
END_TEST

START_TEST(test_atomic_write)
{
	static const u8 v[8] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 };
	struct sroce_send_wqe w = aw_wqe(7, RVA + 8, 0x100, v);
	struct mock_payload pl;
	struct sroce_pkt rq, rs;
	struct pair p;

	pair_new(&p, QP_ALL);
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 1);
	rq = parse(p.a, 0, &pl);
	ck_assert_uint_eq(rq.h.bth.opcode, SROCE_OPC(RC, ATOMIC_WRITE));
	ck_assert_uint_eq(rq.h.reth.va, RVA + 8);
	ck_assert_uint_eq(rq.h.reth.len, 8);
	ck_assert(rq.h.bth.ackreq);
	ck_assert_mem_eq(pl.data, v, 8);
	mock_pump(p.a, &p.ca, p.b, 1);
	/* Stored byte for byte, through ops->atomic. */
	ck_assert_mem_eq(p.b->mem + 0x40008, v, 8);
	ck_assert_uint_eq(p.b->atomics, 1);
	ck_assert_uint_eq(p.b->npkt, 1);
	rs = parse(p.b, 0, &pl);
	ck_assert_uint_eq(rs.h.bth.opcode, SROCE_OPC(RC, READ_RESP_ONLY));
	ck_assert_uint_eq(rs.paylen, 0);
	ck_assert_uint_eq(rs.h.bth.psn, rq.h.bth.psn);
	ck_assert_uint_eq(sroce_aeth_type(rs.h.aeth.syndrome), SROCE_AETH_ACK);
	mock_pump(p.b, &p.cb, p.a, 2);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(p.a->cqe[0].opcode, SROCE_WC_ATOMIC_WRITE);
	ck_assert_uint_eq(p.a->cqe[0].wr_id, 7);

	/* The request again: answered again, not stored again. */
	memset(p.b->mem + 0x40008, 0x55, 8);
	ck_assert_int_eq(mock_deliver(p.a, 0, p.b, 3), SROCE_DROP_NONE);
	ck_assert_uint_eq(p.b->atomics, 1);
	ck_assert_uint_eq(p.b->npkt, 2);
	ck_assert_uint_eq(mock_opcode(p.b, 1), SROCE_OPC(RC, READ_RESP_ONLY));
	ck_assert_uint_eq(p.b->mem[0x40008], 0x55);
	/* A stale response for it is dropped by the requester. */
	ck_assert_int_eq(mock_deliver(p.b, 1, p.a, 4), SROCE_DROP_ACK_STALE);
	ck_assert_uint_eq(p.a->ncqe, 1);
	pair_free(&p);
}
END_TEST

/* Each bad ATOMIC WRITE: the NAK the responder sends and the WC status. */
static void aw_refused(u32 b_access, u32 mr_access, u64 rva, u8 nak, u8 st)
{
	static const u8 v[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	struct sroce_send_wqe w;
	struct mock_payload pl;
	struct pair p;
	u32 key;

	pair_new(&p, b_access);
	key = mock_reg(p.b, RVA, 0x1000, mr_access);
	w = aw_wqe(1, rva, key, v);
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	ck_assert_uint_eq(p.b->atomics, 0);
	ck_assert_uint_eq(p.b->mem[rva - MOCK_BASE], 0);
	ck_assert_uint_eq(parse(p.b, 0, &pl).h.aeth.syndrome,
			  mock_nak_syn(nak));
	ck_assert_int_eq(p.b->qp.state, SROCE_QPS_ERR);
	mock_pump(p.b, &p.cb, p.a, 2);
	ck_assert_uint_eq(p.a->cqe[0].status, st);
	ck_assert_uint_eq(p.a->cqe[0].opcode, SROCE_WC_ATOMIC_WRITE);
	pair_free(&p);
}

START_TEST(test_atomic_write_refused)
{
	u32 rw = SROCE_ACCESS_LOCAL_WRITE | SROCE_ACCESS_REMOTE_WRITE;

	/* Misaligned: invalid request, as rdma_rxe. */
	aw_refused(QP_ALL, rw, RVA + 4, SROCE_NAK_INVALID_REQ,
		   SROCE_WC_REM_INV_REQ_ERR);
	/* The MR grants remote atomic but not remote write. */
	aw_refused(QP_ALL, SROCE_ACCESS_LOCAL_WRITE |
		   SROCE_ACCESS_REMOTE_ATOMIC, RVA, SROCE_NAK_REMOTE_ACCESS,
		   SROCE_WC_REM_ACCESS_ERR);
	/* Past the MR's end. */
	aw_refused(QP_ALL, rw, RVA + 0x1000, SROCE_NAK_REMOTE_ACCESS,
		   SROCE_WC_REM_ACCESS_ERR);
	/* The QP does not allow remote writes. */
	aw_refused(QP_ALL & ~SROCE_ACCESS_REMOTE_WRITE, rw, RVA,
		   SROCE_NAK_REMOTE_ACCESS, SROCE_WC_REM_ACCESS_ERR);
}
END_TEST

START_TEST(test_flush_after_write)
{
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 3000);
	struct mock_payload pl;
	struct sroce_pkt rq;
	struct pair p;
	u32 key, i;

	pair_new(&p, QP_ALL);
	key = mock_reg(p.b, RVA, 0x2000, SROCE_ACCESS_LOCAL_WRITE |
		       SROCE_ACCESS_REMOTE_WRITE | SROCE_ACCESS_FLUSH_GLOBAL);
	for (i = 0; i < 3000; i++)
		p.a->mem[0x1000 + i] = (u8)(i * 7);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = key;
	mock_post_send(p.a, &w);
	w = flush_wqe(2, RVA, 3000, key, SROCE_FLUSH_GLOBAL,
		      SROCE_FLUSH_RANGE);
	mock_post_send(p.a, &w);
	/* A whole-MR flush: VA and length are not looked at. */
	w = flush_wqe(3, 0xdead0000, 0, key, SROCE_FLUSH_GLOBAL,
		      SROCE_FLUSH_MR);
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 5);
	rq = parse(p.a, 3, &pl);
	ck_assert_uint_eq(rq.h.bth.opcode, SROCE_OPC(RC, FLUSH));
	ck_assert_uint_eq(rq.h.feth, sroce_feth(SROCE_FLUSH_GLOBAL,
						SROCE_FLUSH_RANGE));
	ck_assert_uint_eq(rq.h.reth.len, 3000);
	ck_assert(rq.h.bth.ackreq);
	ck_assert_uint_eq(parse(p.a, 4, &pl).h.feth,
			  sroce_feth(SROCE_FLUSH_GLOBAL, SROCE_FLUSH_MR));
	settle(&p, 1);
	ck_assert_mem_eq(p.b->mem + 0x40000, p.a->mem + 0x1000, 3000);
	ck_assert_uint_eq(p.b->key_only, 1);
	ck_assert_uint_eq(p.a->ncqe, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(p.a->cqe[i].status, SROCE_WC_SUCCESS);
		ck_assert_uint_eq(p.a->cqe[i].wr_id, i + 1);
	}
	ck_assert_uint_eq(p.a->cqe[1].opcode, SROCE_WC_FLUSH);
	ck_assert_uint_eq(p.a->cqe[2].opcode, SROCE_WC_FLUSH);
	/* Answered with empty READ responses, the write ACKed before. */
	ck_assert_uint_eq(mock_opcode(p.b, p.b->npkt - 1),
			  SROCE_OPC(RC, READ_RESP_ONLY));
	pair_free(&p);
}
END_TEST

static void flush_refused(u32 b_access, u32 mr_access, u8 type, u8 level,
			  u32 len, u8 nak, u8 st)
{
	struct sroce_send_wqe w;
	struct mock_payload pl;
	struct pair p;
	u32 key;

	pair_new(&p, b_access);
	key = mock_reg(p.b, RVA, 0x1000, mr_access);
	w = flush_wqe(1, RVA, len, key, type, level);
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	mock_pump(p.a, &p.ca, p.b, 1);
	ck_assert_uint_eq(parse(p.b, 0, &pl).h.aeth.syndrome,
			  mock_nak_syn(nak));
	mock_pump(p.b, &p.cb, p.a, 2);
	ck_assert_uint_eq(p.a->cqe[0].status, st);
	ck_assert_uint_eq(p.a->cqe[0].opcode, SROCE_WC_FLUSH);
	pair_free(&p);
}

START_TEST(test_flush_refused)
{
	u32 lw = SROCE_ACCESS_LOCAL_WRITE, g = SROCE_ACCESS_FLUSH_GLOBAL;

	/* The MR has no flush right, even for a whole-MR or empty flush. */
	flush_refused(QP_ALL, lw | SROCE_ACCESS_REMOTE_WRITE,
		      SROCE_FLUSH_GLOBAL, SROCE_FLUSH_RANGE, 64,
		      SROCE_NAK_REMOTE_ACCESS, SROCE_WC_REM_ACCESS_ERR);
	flush_refused(QP_ALL, lw | SROCE_ACCESS_REMOTE_WRITE,
		      SROCE_FLUSH_GLOBAL, SROCE_FLUSH_MR, 0,
		      SROCE_NAK_REMOTE_ACCESS, SROCE_WC_REM_ACCESS_ERR);
	flush_refused(QP_ALL, lw | SROCE_ACCESS_REMOTE_WRITE,
		      SROCE_FLUSH_GLOBAL, SROCE_FLUSH_RANGE, 0,
		      SROCE_NAK_REMOTE_ACCESS, SROCE_WC_REM_ACCESS_ERR);
	/* Global granted, persistent asked. */
	flush_refused(QP_ALL, lw | g, SROCE_FLUSH_PERSISTENT,
		      SROCE_FLUSH_RANGE, 64, SROCE_NAK_REMOTE_ACCESS,
		      SROCE_WC_REM_ACCESS_ERR);
	/* Beyond the MR. */
	flush_refused(QP_ALL, lw | g, SROCE_FLUSH_GLOBAL, SROCE_FLUSH_RANGE,
		      0x1001, SROCE_NAK_REMOTE_ACCESS,
		      SROCE_WC_REM_ACCESS_ERR);
	/* The QP does not allow the placement type: invalid, as rdma_rxe. */
	flush_refused(MOCK_ALL_ACCESS, lw | g, SROCE_FLUSH_GLOBAL,
		      SROCE_FLUSH_RANGE, 64, SROCE_NAK_INVALID_REQ,
		      SROCE_WC_REM_INV_REQ_ERR);
}
END_TEST

/* A bad placement type or level never leaves the requester. */
START_TEST(test_flush_bad_wqe)
{
	struct sroce_send_wqe w = flush_wqe(1, RVA, 8, 0x100, 0,
					    SROCE_FLUSH_RANGE);
	struct pair p;

	pair_new(&p, QP_ALL);
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 0);
	ck_assert_uint_eq(p.a->ncqe, 1);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_LOC_QP_OP_ERR);
	pair_free(&p);

	pair_new(&p, QP_ALL);
	w = flush_wqe(1, RVA, 8, 0x100, SROCE_FLUSH_GLOBAL, 2);
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	ck_assert_uint_eq(p.a->npkt, 0);
	ck_assert_uint_eq(p.a->cqe[0].status, SROCE_WC_LOC_QP_OP_ERR);
	pair_free(&p);
}
END_TEST

/*
 * Forged FETH fields on the wire: an invalid request, answered, never
 * executed.  And no responder resources (max_dest_rd_atomic 0).
 */
START_TEST(test_flush_forged)
{
	struct sroce_send_wqe w = flush_wqe(1, RVA, 8, 0x100,
					    SROCE_FLUSH_GLOBAL,
					    SROCE_FLUSH_RANGE);
	struct mock_payload pl;
	struct sroce_pkt pkt;
	struct pair p;

	pair_new(&p, QP_ALL);
	mock_post_send(p.a, &w);
	sroce_qp_kick(&p.a->qp, 100, 0);
	pkt = parse(p.a, 0, &pl);
	pkt.h.feth = sroce_feth(0x4, SROCE_FLUSH_RANGE);
	ck_assert_int_eq(sroce_qp_rx(&p.b->qp, &pkt, &pl, 1), SROCE_DROP_NONE);
	ck_assert_uint_eq(parse(p.b, 0, &pl).h.aeth.syndrome,
			  mock_nak_syn(SROCE_NAK_INVALID_REQ));
	pair_free(&p);
}
END_TEST

/* The initiator depth counts ATOMIC WRITEs and FLUSHes too. */
START_TEST(test_placement_depth)
{
	static const u8 v[8] = { 1 };
	struct sroce_send_wqe w;
	struct pair p;
	u32 i, key;

	pair_new(&p, QP_ALL);
	key = mock_reg(p.b, RVA, 0x1000, QP_ALL);
	for (i = 0; i < 6; i++) {
		w = i & 1 ? flush_wqe(i, RVA, 8, key, SROCE_FLUSH_GLOBAL,
				      SROCE_FLUSH_RANGE) :
			    aw_wqe(i, RVA + 8 * i, key, v);
		mock_post_send(p.a, &w);
	}
	sroce_qp_kick(&p.a->qp, 100, 0);
	/* mock_attr(): max_rd_atomic 4. */
	ck_assert_uint_eq(p.a->npkt, 4);
	settle(&p, 1);
	ck_assert_uint_eq(p.a->ncqe, 6);
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(p.a->cqe[i].status, SROCE_WC_SUCCESS);
	pair_free(&p);
}
END_TEST

Suite *placement_suite(void);

Suite *placement_suite(void)
{
	Suite *s = suite_create("placement");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_feth_codec);
	tcase_add_test(tc, test_atomic_write_codec);
	tcase_add_test(tc, test_atomic_write);
	tcase_add_test(tc, test_atomic_write_refused);
	tcase_add_test(tc, test_flush_after_write);
	tcase_add_test(tc, test_flush_refused);
	tcase_add_test(tc, test_flush_bad_wqe);
	tcase_add_test(tc, test_flush_forged);
	tcase_add_test(tc, test_placement_depth);
	suite_add_tcase(s, tc);
	return s;
}
