// SPDX-License-Identifier: GPL-2.0
/*
 * Fast registration and invalidation: the MR key/state machine of
 * proto/mr_state.c, and the core's local operations (REG_MR, LOCAL_INV)
 * in SQ order, their completions, fences, errors and flushes, and remote
 * invalidation by SEND_WITH_INV's IETH against that state machine.
 */
#include "qp_mock.h"
#include "mr_state.h"

#define VA	(MOCK_BASE + 0x1000)
#define RVA	(MOCK_BASE + 0x40000)
#define FR_IDX	0x77
#define FR_KEY(b)	((FR_IDX << 8) | (b))
#define RW	(SROCE_ACCESS_LOCAL_WRITE | SROCE_ACCESS_REMOTE_WRITE)

/* ---- The state machine alone ---- */

START_TEST(test_st_fast_lifecycle)
{
	struct sroce_mr_st st;

	sroce_mr_st_init(&st, FR_KEY(1), RW, true);
	/* Allocated: FREE, no access under any rights. */
	ck_assert_int_eq(st.state, SROCE_MR_FREE);
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(1), false, 0),
			 SROCE_MR_E_STATE);
	/* Only the key byte may change. */
	ck_assert_int_eq(sroce_mr_st_reg(&st, FR_KEY(2) + 0x100, RW),
			 SROCE_MR_E_KEY);
	ck_assert_int_eq(sroce_mr_st_reg(&st, FR_KEY(2), RW), SROCE_MR_OK);
	ck_assert_int_eq(st.state, SROCE_MR_VALID);
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(2), true,
					   SROCE_ACCESS_REMOTE_WRITE),
			 SROCE_MR_OK);
	/* The key byte of before the registration is stale. */
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(1), true,
					   SROCE_ACCESS_REMOTE_WRITE),
			 SROCE_MR_E_KEY);
	/* A VALID MR cannot be registered again. */
	ck_assert_int_eq(sroce_mr_st_reg(&st, FR_KEY(3), RW), SROCE_MR_E_STATE);
	/* A stale key invalidates nothing. */
	ck_assert_int_eq(sroce_mr_st_inv(&st, FR_KEY(1)), SROCE_MR_E_KEY);
	ck_assert_int_eq(st.state, SROCE_MR_VALID);
	ck_assert_int_eq(sroce_mr_st_inv(&st, FR_KEY(2)), SROCE_MR_OK);
	ck_assert_int_eq(st.state, SROCE_MR_FREE);
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(2), false, 0),
			 SROCE_MR_E_STATE);
	/* Invalidating a FREE MR again is harmless (as rdma_rxe). */
	ck_assert_int_eq(sroce_mr_st_inv(&st, FR_KEY(2)), SROCE_MR_OK);
	/* Next cycle with a new key byte, read-only this time. */
	ck_assert_int_eq(sroce_mr_st_reg(&st, FR_KEY(3),
					 SROCE_ACCESS_REMOTE_READ), SROCE_MR_OK);
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(3), true,
					   SROCE_ACCESS_REMOTE_READ),
			 SROCE_MR_OK);
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(3), true,
					   SROCE_ACCESS_REMOTE_WRITE),
			 SROCE_MR_E_ACCESS);
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(3), false,
					   SROCE_ACCESS_LOCAL_WRITE),
			 SROCE_MR_E_ACCESS);
	/* Local read needs no right. */
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(3), false, 0),
			 SROCE_MR_OK);
}
END_TEST

START_TEST(test_st_rules)
{
	struct sroce_mr_st st;

	/* Remote write or atomic without local write: refused (verbs). */
	sroce_mr_st_init(&st, FR_KEY(1), 0, true);
	ck_assert_int_eq(sroce_mr_st_reg(&st, FR_KEY(1),
					 SROCE_ACCESS_REMOTE_WRITE),
			 SROCE_MR_E_ACCESS);
	ck_assert_int_eq(sroce_mr_st_reg(&st, FR_KEY(1),
					 SROCE_ACCESS_REMOTE_ATOMIC),
			 SROCE_MR_E_ACCESS);
	ck_assert_int_eq(st.state, SROCE_MR_FREE);
	/* An rkey must carry a remote right; unknown bits are dropped. */
	ck_assert_int_eq(sroce_mr_st_reg(&st, FR_KEY(1),
					 SROCE_ACCESS_LOCAL_WRITE | 0x1000),
			 SROCE_MR_OK);
	ck_assert_uint_eq(st.access, SROCE_ACCESS_LOCAL_WRITE);
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(1), true, 0),
			 SROCE_MR_E_ACCESS);

	/* An ordinary MR: VALID for good, no REG_MR, no invalidation. */
	sroce_mr_st_init(&st, 0x1234, RW, false);
	ck_assert_int_eq(st.state, SROCE_MR_VALID);
	ck_assert_int_eq(sroce_mr_st_check(&st, 0x1234, true,
					   SROCE_ACCESS_REMOTE_WRITE),
			 SROCE_MR_OK);
	ck_assert_int_eq(sroce_mr_st_check(&st, 0x1235, false, 0),
			 SROCE_MR_E_KEY);
	ck_assert_int_eq(sroce_mr_st_reg(&st, 0x1235, RW), SROCE_MR_E_TYPE);
	ck_assert_int_eq(sroce_mr_st_inv(&st, 0x1234), SROCE_MR_E_TYPE);
	ck_assert_int_eq(st.state, SROCE_MR_VALID);

	/* Binding a window needs the MR's own MW_BIND right. */
	ck_assert_int_eq(sroce_mr_st_check(&st, 0x1234, false,
					   SROCE_ACCESS_MW_BIND),
			 SROCE_MR_E_ACCESS);
	sroce_mr_st_init(&st, 0x1234, RW | SROCE_ACCESS_MW_BIND, false);
	ck_assert_int_eq(sroce_mr_st_check(&st, 0x1234, false,
					   SROCE_ACCESS_MW_BIND),
			 SROCE_MR_OK);
	sroce_mr_st_init(&st, FR_KEY(1), 0, true);
	ck_assert_int_eq(sroce_mr_st_reg(&st, FR_KEY(1),
					 SROCE_ACCESS_REMOTE_READ |
					 SROCE_ACCESS_MW_BIND), SROCE_MR_OK);
	ck_assert_int_eq(sroce_mr_st_check(&st, FR_KEY(1), false,
					   SROCE_ACCESS_MW_BIND),
			 SROCE_MR_OK);
}
END_TEST

/* ---- The core's local operations, over a mock with one fast-reg MR ---- */

/*
 * The fast-reg MR of a mock: key index FR_IDX over [RVA, RVA + 64 KiB)
 * of the mock's memory, its state in @st.  Other keys go to the mock.
 */
struct fr {
	struct mock *m;
	struct sroce_mr_st st;
	u32 local_ops;		/* local_op calls */
	u32 npkt_at_op;		/* packets emitted when the last one ran */
};

#define FR_MAX	4
static struct fr frs[FR_MAX];

static struct fr *fr_of(void *ctx)
{
	u32 i;

	for (i = 0; i < FR_MAX; i++)
		if (frs[i].m == ctx)
			return &frs[i];
	ck_abort_msg("no fr for this mock");
	return NULL;
}

static int fr_mem_access(void *ctx, u32 key, bool remote, u64 va, u32 len,
			 u32 access, struct sroce_mem_ref *out)
{
	struct fr *f = fr_of(ctx);

	access &= ~SROCE_ACCESS_RECV;
	if (len && (key >> 8) == FR_IDX) {
		if (sroce_mr_st_check(&f->st, key, remote, access))
			return -SROCE_EACCES;
		if (va < RVA || va + len > RVA + 0x10000)
			return -SROCE_EFAULT;
		/* The memory is the mock's; its MR 0 covers all of it. */
		return mock_mem_access(ctx, 0x100, remote, va, len, access,
				       out);
	}
	return mock_mem_access(ctx, key, remote, va, len, access, out);
}

static u8 fr_local_op(void *ctx, const struct sroce_send_wqe *wr)
{
	struct fr *f = fr_of(ctx);

	f->local_ops++;
	f->npkt_at_op = f->m->npkt;
	if (wr->opcode == SROCE_WR_REG_MR)
		return sroce_mr_st_reg(&f->st, wr->reg.key, wr->reg.access) ?
		       SROCE_WC_LOC_QP_OP_ERR : SROCE_WC_SUCCESS;
	return sroce_mr_st_inv(&f->st, wr->ex) ? SROCE_WC_LOC_QP_OP_ERR :
						 SROCE_WC_SUCCESS;
}

static int fr_invalidate(void *ctx, u32 rkey)
{
	struct fr *f = fr_of(ctx);

	f->m->invalidated = rkey;
	return sroce_mr_st_inv(&f->st, rkey) ? -SROCE_EINVAL : 0;
}

static struct sroce_qp_ops fr_ops;

static struct mock *fr_new(u32 slot, enum sroce_qp_type type, u32 qpn,
			   u32 dest_qpn, bool swap_psn)
{
	struct mock *m = mock_new(type, qpn, false);
	struct sroce_qp_init_attr ia = {
		.type = type, .qpn = qpn, .sq = m->sq, .sq_size = MOCK_SQ,
		.res = m->res, .max_res = MOCK_RES, .ops = &fr_ops, .ctx = m,
	};
	struct sroce_qp_attr at;

	fr_ops = mock_ops;
	fr_ops.mem_access = fr_mem_access;
	fr_ops.local_op = fr_local_op;
	fr_ops.invalidate = fr_invalidate;
	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), 0);
	memset(&frs[slot], 0, sizeof(frs[slot]));
	frs[slot].m = m;
	sroce_mr_st_init(&frs[slot].st, FR_KEY(0), 0, true);
	mock_attr(&at, dest_qpn);
	if (swap_psn) {
		at.sq_psn = 200;
		at.rq_psn = 100;
	}
	mock_connect_attr(m, &at);
	return m;
}

static struct sroce_send_wqe reg_wqe(u64 wr_id, u32 key, u32 access)
{
	struct sroce_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = SROCE_WR_REG_MR;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.reg.key = key;
	w.reg.access = access;
	return w;
}

static struct sroce_send_wqe inv_wqe(u64 wr_id, u32 key)
{
	struct sroce_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = SROCE_WR_LOCAL_INV;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.ex = key;
	return w;
}

START_TEST(test_reg_mr_before_send)
{
	struct mock *m = fr_new(0, SROCE_QPT_RC, 0x11, 0x22, false);
	struct sroce_send_wqe w = reg_wqe(1, FR_KEY(5), RW);

	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_SEND, 2, VA, 16);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	/* Run before the SEND went out; it takes no PSN. */
	ck_assert_uint_eq(frs[0].local_ops, 1);
	ck_assert_uint_eq(frs[0].npkt_at_op, 0);
	ck_assert_uint_eq(m->npkt, 1);
	ck_assert_uint_eq(mock_psn(m, 0), 100);
	ck_assert_int_eq(frs[0].st.state, SROCE_MR_VALID);
	ck_assert_uint_eq(frs[0].st.key, FR_KEY(5));
	/* It completes at once, from the head; the SEND on its ACK. */
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].wr_id, 1);
	ck_assert_uint_eq(m->cqe[0].opcode, SROCE_WC_REG_MR);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 100, 1),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[1].opcode, SROCE_WC_SEND);
	/* Nothing left unacknowledged. */
	ck_assert_uint_eq(sroce_qp_next_deadline(&m->qp), U64_MAX);
	mock_free(m);
}
END_TEST

START_TEST(test_local_inv_in_order)
{
	struct mock *m = fr_new(0, SROCE_QPT_RC, 0x11, 0x22, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 16);

	frs[0].st.state = SROCE_MR_VALID;
	mock_post_send(m, &w);
	w = inv_wqe(2, FR_KEY(0));
	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_SEND, 3, VA, 16);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	/* Unfenced: runs once the SEND before it is sent. */
	ck_assert_uint_eq(frs[0].local_ops, 1);
	ck_assert_uint_eq(frs[0].npkt_at_op, 1);
	ck_assert_int_eq(frs[0].st.state, SROCE_MR_FREE);
	ck_assert_uint_eq(m->npkt, 2);
	ck_assert_uint_eq(mock_psn(m, 1), 101);
	/* Completions wait for the SEND before it. */
	ck_assert_uint_eq(m->ncqe, 0);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 100, 1),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[0].wr_id, 1);
	ck_assert_uint_eq(m->cqe[1].wr_id, 2);
	ck_assert_uint_eq(m->cqe[1].opcode, SROCE_WC_LOCAL_INV);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 101, 2),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 3);
	ck_assert_uint_eq(m->cqe[2].wr_id, 3);
	mock_free(m);
}
END_TEST

START_TEST(test_local_op_fence)
{
	struct mock *m = fr_new(0, SROCE_QPT_RC, 0x11, 0x22, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 16);

	frs[0].st.state = SROCE_MR_VALID;
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = 0x100;
	mock_post_send(m, &w);
	w = inv_wqe(2, FR_KEY(0));
	w.send_flags |= SROCE_SEND_FENCE;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	/* A fenced local operation waits for the WRITE to complete. */
	ck_assert_uint_eq(m->npkt, 1);
	ck_assert_uint_eq(frs[0].local_ops, 0);
	ck_assert(!sroce_qp_pending(&m->qp));
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 100, 1),
			 SROCE_DROP_NONE);
	ck_assert(sroce_qp_pending(&m->qp));
	sroce_qp_kick(&m->qp, 100, 2);
	ck_assert_uint_eq(frs[0].local_ops, 1);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[1].opcode, SROCE_WC_LOCAL_INV);
	mock_free(m);
}
END_TEST

START_TEST(test_local_op_not_rerun_on_go_back)
{
	struct mock *m = fr_new(0, SROCE_QPT_RC, 0x11, 0x22, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND, 1, VA, 16);

	mock_post_send(m, &w);
	w = reg_wqe(2, FR_KEY(1), RW);
	mock_post_send(m, &w);
	w = inv_wqe(3, FR_KEY(1));
	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_SEND, 4, VA, 16);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 2);
	ck_assert_uint_eq(frs[0].local_ops, 2);
	ck_assert_int_eq(frs[0].st.state, SROCE_MR_FREE);
	/* Sequence NAK at 100: both SENDs again, not the MR operations. */
	ck_assert_int_eq(mock_rx_aeth(m, mock_nak_syn(SROCE_NAK_PSN_SEQ_ERR),
				      100, 1), SROCE_DROP_NONE);
	sroce_qp_kick(&m->qp, 100, 2);
	ck_assert_uint_eq(m->npkt, 4);
	ck_assert_uint_eq(mock_psn(m, 2), 100);
	ck_assert_uint_eq(mock_psn(m, 3), 101);
	ck_assert_uint_eq(frs[0].local_ops, 2);
	ck_assert_int_eq(frs[0].st.state, SROCE_MR_FREE);
	ck_assert_int_eq(mock_rx_aeth(m, mock_ack_syn(), 101, 3),
			 SROCE_DROP_NONE);
	ck_assert_uint_eq(m->ncqe, 4);
	ck_assert_uint_eq(m->cqe[1].opcode, SROCE_WC_REG_MR);
	ck_assert_uint_eq(m->cqe[2].opcode, SROCE_WC_LOCAL_INV);
	ck_assert_uint_eq(m->cqe[3].wr_id, 4);
	mock_free(m);
}
END_TEST

START_TEST(test_stale_key_fails_in_order)
{
	struct mock *m = fr_new(0, SROCE_QPT_RC, 0x11, 0x22, false);
	struct sroce_send_wqe w = reg_wqe(1, FR_KEY(1), RW);

	mock_post_send(m, &w);
	/* Key byte 0 is stale after the REG_MR to byte 1. */
	w = inv_wqe(2, FR_KEY(0));
	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_SEND, 3, VA, 16);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 0);
	ck_assert_uint_eq(m->ncqe, 3);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_SUCCESS);
	ck_assert_uint_eq(m->cqe[1].wr_id, 2);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_LOC_QP_OP_ERR);
	ck_assert_uint_eq(m->cqe[1].opcode, SROCE_WC_LOCAL_INV);
	ck_assert_uint_eq(m->cqe[2].status, SROCE_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
	ck_assert_int_eq(frs[0].st.state, SROCE_MR_VALID);
	mock_free(m);
}
END_TEST

START_TEST(test_stale_lkey_in_sge)
{
	struct mock *m = fr_new(0, SROCE_QPT_RC, 0x11, 0x22, false);
	struct sroce_send_wqe w = reg_wqe(1, FR_KEY(2), RW);

	mock_post_send(m, &w);
	/* A SEND from the fast-reg MR under its old key byte. */
	w = mock_wqe(SROCE_WR_SEND, 2, RVA, 16);
	w.sge[0].lkey = FR_KEY(1);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 0);
	ck_assert_uint_eq(m->ncqe, 2);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_LOC_PROT_ERR);
	mock_free(m);
}
END_TEST

START_TEST(test_local_ops_flush_and_uc)
{
	struct mock *m = fr_new(0, SROCE_QPT_UC, 0x11, 0x22, false);
	struct sroce_send_wqe w = reg_wqe(1, FR_KEY(1), RW);

	/* UC: completes as soon as it ran. */
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].opcode, SROCE_WC_REG_MR);
	/* In ERR, local operations flush with their own opcodes. */
	sroce_qp_flush(&m->qp);
	w = inv_wqe(2, FR_KEY(1));
	mock_post_send(m, &w);
	w = reg_wqe(3, FR_KEY(2), RW);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 2);
	ck_assert_uint_eq(m->ncqe, 3);
	ck_assert_uint_eq(m->cqe[1].status, SROCE_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(m->cqe[1].opcode, SROCE_WC_LOCAL_INV);
	ck_assert_uint_eq(m->cqe[2].opcode, SROCE_WC_REG_MR);
	ck_assert_uint_eq(frs[0].local_ops, 1);
	mock_free(m);
}
END_TEST

START_TEST(test_no_local_op_callback)
{
	struct mock *m = mock_new(SROCE_QPT_RC, 0x11, false);
	struct sroce_send_wqe w = reg_wqe(1, FR_KEY(1), RW);

	/* mock_ops has no local_op: refused, in order. */
	mock_connect(m, 0x22);
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->ncqe, 1);
	ck_assert_uint_eq(m->cqe[0].status, SROCE_WC_LOC_QP_OP_ERR);
	ck_assert_int_eq(m->qp.state, SROCE_QPS_ERR);
	mock_free(m);
}
END_TEST

/*
 * b registers its MR, a WRITEs through the rkey, SEND_WITH_INV names
 * it: b's MR is FREE afterwards and the next WRITE is NAKed.
 */
START_TEST(test_remote_invalidate)
{
	struct mock *a = fr_new(0, SROCE_QPT_RC, 0x11, 0x22, false);
	struct mock *b = fr_new(1, SROCE_QPT_RC, 0x22, 0x11, true);
	struct sroce_send_wqe w = reg_wqe(9, FR_KEY(7), RW);
	u32 ca = 0, cb = 0, i;

	mock_post_send(b, &w);
	sroce_qp_kick(&b->qp, 100, 0);
	ck_assert_int_eq(frs[1].st.state, SROCE_MR_VALID);
	for (i = 0; i < 64; i++)
		a->mem[0x1000 + i] = (u8)(i ^ 0x5a);

	w = mock_wqe(SROCE_WR_RDMA_WRITE, 1, VA, 64);
	w.rdma.remote_addr = RVA + 8;
	w.rdma.rkey = FR_KEY(7);
	mock_post_send(a, &w);
	w = mock_wqe(SROCE_WR_SEND_WITH_INV, 2, VA, 4);
	w.ex = FR_KEY(7);
	mock_post_send(a, &w);
	mock_post_recv(b, 5, RVA + 0x8000, 64);
	sroce_qp_kick(&a->qp, 100, 1);
	mock_pump(a, &ca, b, 2);
	ck_assert_int_eq(memcmp(b->mem + (RVA - MOCK_BASE) + 8,
				a->mem + 0x1000, 64), 0);
	ck_assert_uint_eq(b->invalidated, FR_KEY(7));
	ck_assert_int_eq(frs[1].st.state, SROCE_MR_FREE);
	ck_assert_uint_eq(b->ncqe, 2);
	ck_assert_uint_eq(b->cqe[1].wr_id, 5);
	ck_assert_uint_eq(b->cqe[1].flags, SROCE_WC_F_WITH_INV);
	ck_assert_uint_eq(b->cqe[1].ex, FR_KEY(7));
	mock_pump(b, &cb, a, 3);
	ck_assert_uint_eq(a->ncqe, 2);
	ck_assert_uint_eq(a->cqe[1].status, SROCE_WC_SUCCESS);

	/* The invalidated rkey no longer grants access. */
	w = mock_wqe(SROCE_WR_RDMA_WRITE, 3, VA, 8);
	w.rdma.remote_addr = RVA;
	w.rdma.rkey = FR_KEY(7);
	mock_post_send(a, &w);
	sroce_qp_kick(&a->qp, 100, 4);
	mock_pump(a, &ca, b, 5);
	mock_pump(b, &cb, a, 6);
	ck_assert_uint_eq(a->ncqe, 3);
	ck_assert_uint_eq(a->cqe[2].status, SROCE_WC_REM_ACCESS_ERR);
	mock_free(a);
	mock_free(b);
}
END_TEST

/* An IETH naming a key the responder refuses fails the receive. */
START_TEST(test_remote_invalidate_stale)
{
	struct mock *a = fr_new(0, SROCE_QPT_RC, 0x11, 0x22, false);
	struct mock *b = fr_new(1, SROCE_QPT_RC, 0x22, 0x11, true);
	struct sroce_send_wqe w = reg_wqe(9, FR_KEY(7), RW);
	u32 ca = 0, cb = 0;

	mock_post_send(b, &w);
	sroce_qp_kick(&b->qp, 100, 0);
	w = mock_wqe(SROCE_WR_SEND_WITH_INV, 1, VA, 4);
	w.ex = FR_KEY(6);
	mock_post_send(a, &w);
	mock_post_recv(b, 5, RVA + 0x8000, 64);
	sroce_qp_kick(&a->qp, 100, 1);
	mock_pump(a, &ca, b, 2);
	ck_assert_int_eq(frs[1].st.state, SROCE_MR_VALID);
	ck_assert_uint_eq(b->ncqe, 2);
	ck_assert_uint_eq(b->cqe[1].status, SROCE_WC_LOC_QP_OP_ERR);
	ck_assert_int_eq(b->qp.state, SROCE_QPS_ERR);
	mock_pump(b, &cb, a, 3);
	ck_assert_uint_eq(a->ncqe, 1);
	ck_assert_uint_eq(a->cqe[0].status, SROCE_WC_REM_OP_ERR);
	mock_free(a);
	mock_free(b);
}
END_TEST

/* IETH on the wire: SEND_ONLY_INV / SEND_LAST_INV carry the key. */
START_TEST(test_ieth_on_the_wire)
{
	struct mock *m = fr_new(0, SROCE_QPT_RC, 0x11, 0x22, false);
	struct sroce_send_wqe w = mock_wqe(SROCE_WR_SEND_WITH_INV, 1, VA, 16);
	struct mock_payload pl;
	struct sroce_pkt p;

	w.ex = 0xabcdef12;
	mock_post_send(m, &w);
	w = mock_wqe(SROCE_WR_SEND_WITH_INV, 2, VA, 1500);
	w.ex = 0x01020304;
	mock_post_send(m, &w);
	sroce_qp_kick(&m->qp, 100, 0);
	ck_assert_uint_eq(m->npkt, 3);
	ck_assert_uint_eq(mock_opcode(m, 0), SROCE_OPC(RC, SEND_ONLY_INV));
	mock_parse(m, 0, &p, &pl);
	ck_assert_uint_eq(p.h.ieth, 0xabcdef12);
	ck_assert_uint_eq(p.paylen, 16);
	/* BTH + IETH, then the payload. */
	ck_assert_uint_eq(p.hdr_len, SROCE_BTH_LEN + SROCE_IETH_LEN);
	ck_assert_uint_eq(sroce_get_be32(m->pkt[0].b + SROCE_BTH_LEN),
			  0xabcdef12);
	ck_assert_uint_eq(mock_opcode(m, 1), SROCE_OPC(RC, SEND_FIRST));
	ck_assert_uint_eq(mock_opcode(m, 2), SROCE_OPC(RC, SEND_LAST_INV));
	mock_parse(m, 2, &p, &pl);
	ck_assert_uint_eq(p.h.ieth, 0x01020304);
	mock_free(m);
}
END_TEST

Suite *fastreg_suite(void);
Suite *fastreg_suite(void)
{
	Suite *s = suite_create("fastreg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_st_fast_lifecycle);
	tcase_add_test(tc, test_st_rules);
	tcase_add_test(tc, test_reg_mr_before_send);
	tcase_add_test(tc, test_local_inv_in_order);
	tcase_add_test(tc, test_local_op_fence);
	tcase_add_test(tc, test_local_op_not_rerun_on_go_back);
	tcase_add_test(tc, test_stale_key_fails_in_order);
	tcase_add_test(tc, test_stale_lkey_in_sge);
	tcase_add_test(tc, test_local_ops_flush_and_uc);
	tcase_add_test(tc, test_no_local_op_callback);
	tcase_add_test(tc, test_remote_invalidate);
	tcase_add_test(tc, test_remote_invalidate_stale);
	tcase_add_test(tc, test_ieth_on_the_wire);
	suite_add_tcase(s, tc);
	return s;
}
