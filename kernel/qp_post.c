// SPDX-License-Identifier: GPL-2.0
/*
 * post_send and post_recv: kernel consumers write WQEs into the same ring
 * format user space does (uapi/sroce-abi.h), which qp_ring.c consumes.
 * For a user QP, post_send is only the doorbell.
 */
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "kqp.h"

static bool sroce_kqp_opcode_ok(const struct sroce_kqp *kqp,
				enum ib_wr_opcode op, bool any_type)
{
	enum ib_qp_type t = kqp->ibqp.qp_type;

	switch (op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return true;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return any_type || t == IB_QPT_RC || t == IB_QPT_UC;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_SEND_WITH_INV:
		return any_type || t == IB_QPT_RC;
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
		return true;
#ifdef SROCE_HAVE_IB_PLACEMENT
	case IB_WR_ATOMIC_WRITE:
		return any_type || t == IB_QPT_RC;
#endif
	default:
		/*
		 * Masked atomics, LSO: not supported.  FLUSH: ib_send_wr has
		 * no field for its placement type and level.
		 */
		return false;
	}
}

/*
 * One ib_send_wr into the SQ ring, lock held.  In ERR any known opcode
 * is taken whatever the QP type: the WQE is only flushed, and
 * ib_drain_sq() posts an RDMA WRITE even on a UD QP.
 */
static int sroce_kqp_put_send(struct sroce_kqp *kqp,
			      const struct ib_send_wr *wr, bool in_err)
{
	struct sroce_send_wqe_abi *a;
	struct sroce_sge_abi *s;
	u8 *p;
	u32 i, len = 0;

	if (kqp->sq_prod - kqp->sq_cons >= kqp->sq.entries)
		return -ENOMEM;
	if (!sroce_kqp_opcode_ok(kqp, wr->opcode, in_err) ||
	    (wr->send_flags & ~SROCE_KQP_SEND_FLAGS) || wr->num_sge < 0)
		return -EINVAL;
	if (!(wr->send_flags & IB_SEND_INLINE) &&
	    wr->num_sge > kqp->max_send_sge)
		return -EINVAL;

	a = sroce_ring_elem(&kqp->sq, kqp->sq_prod);
	memset(a, 0, sizeof(*a));
	a->wr_id = wr->wr_id;
	a->opcode = wr->opcode;
	a->send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		a->ex = (__force u32)wr->ex.imm_data;
	else if (wr->opcode == IB_WR_SEND_WITH_INV ||
		 wr->opcode == IB_WR_LOCAL_INV)
		a->ex = wr->ex.invalidate_rkey;

	if (wr->opcode == IB_WR_REG_MR) {
		/* The MR is found again by its key's index (sroce_mr_fast_reg). */
		a->ex = reg_wr(wr)->key;
		a->rdma.rkey = reg_wr(wr)->access;
		kqp->sq_prod++;
		return 0;
	}
	if (wr->opcode == IB_WR_LOCAL_INV) {
		kqp->sq_prod++;
		return 0;
	}

#ifdef SROCE_HAVE_IB_PLACEMENT
	if (wr->opcode == IB_WR_ATOMIC_WRITE) {
		/*
		 * An ib_rdma_wr whose one SGE holds the 8-byte value, read
		 * now (kernel SGEs of a software device are kernel
		 * addresses), as user space hands it in at post time.
		 */
		if (wr->num_sge != 1 || wr->sg_list[0].length != 8)
			return -EINVAL;
		a->atomic_wr.remote_addr = rdma_wr(wr)->remote_addr;
		a->atomic_wr.rkey = rdma_wr(wr)->rkey;
		a->send_flags &= ~IB_SEND_INLINE;
		memcpy(a->atomic_wr.value,
		       (void *)(uintptr_t)wr->sg_list[0].addr, 8);
		kqp->sq_prod++;
		return 0;
	}
#endif
	if (sroce_kqp_is_ud(kqp) && !in_err) {
		if (!ud_wr(wr)->ah)
			return -EINVAL;
		a->ud.ah_num = to_sah(ud_wr(wr)->ah)->ah_num;
		a->ud.remote_qpn = ud_wr(wr)->remote_qpn;
		a->ud.remote_qkey = ud_wr(wr)->remote_qkey;
	} else if (wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
		   wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		a->atomic.remote_addr = atomic_wr(wr)->remote_addr;
		a->atomic.compare_add = atomic_wr(wr)->compare_add;
		a->atomic.swap = atomic_wr(wr)->swap;
		a->atomic.rkey = atomic_wr(wr)->rkey;
	} else if (wr->opcode == IB_WR_RDMA_WRITE ||
		   wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
		   wr->opcode == IB_WR_RDMA_READ) {
		a->rdma.remote_addr = rdma_wr(wr)->remote_addr;
		a->rdma.rkey = rdma_wr(wr)->rkey;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		/* Kernel SGEs of a software device hold kernel addresses. */
		p = (u8 *)(a + 1);
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > kqp->max_inline - len)
				return -EINVAL;
			memcpy(p + len,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		a->inline_len = len;
	} else {
		s = (struct sroce_sge_abi *)(a + 1);
		for (i = 0; i < wr->num_sge; i++) {
			s[i].addr = wr->sg_list[i].addr;
			s[i].length = wr->sg_list[i].length;
			s[i].lkey = wr->sg_list[i].lkey;
		}
		a->num_sge = wr->num_sge;
	}
	kqp->sq_prod++;
	return 0;
}

/*
 * post_send.  For a user QP this is the doorbell (a zero-WR command,
 * Documentation/datapath.rst, "Doorbells"): the provider has published
 * WQEs in the ring.  Either way the posting thread runs the requester
 * for a few packets itself, for latency, and leaves the rest to the
 * work.
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_kqp *kqp = to_kqp(ibqp);
	bool irqs_off = irqs_disabled();
	enum sroce_qp_state state;
	int err = 0;
	bool more;

	/* A target sends nothing, and has no send CQ to fail into. */
	if (ibqp->qp_type == IB_QPT_XRC_TGT) {
		if (wr)
			*bad_wr = wr;
		return wr ? -EINVAL : 0;
	}
	if (irqs_off)
		sroce_kqp_lock_irqs_off(kqp);
	else
		sroce_kqp_lock(kqp);
	if (!kqp->user && wr) {
		state = sroce_kqp_state(kqp);
		if (state == SROCE_QPS_RESET) {
			err = -EINVAL;
			*bad_wr = wr;
		}
		for (; wr && !err; wr = wr->next) {
			err = sroce_kqp_put_send(kqp, wr,
						 state == SROCE_QPS_ERR);
			if (err)
				*bad_wr = wr;
		}
	} else if (wr) {
		/* User QPs post through the ring; only the doorbell is a call. */
		err = -EINVAL;
		*bad_wr = wr;
	} else if (kqp->user && sroce_kqp_state(kqp) == SROCE_QPS_RESET) {
		/*
		 * Posting in RESET is an error (verbs); the WQEs must not run
		 * after a later move to RTS, so they are dropped here.
		 */
		sroce_kqp_sq_discard(kqp);
		err = -EINVAL;
	}
	if (kqp->dying) {
		/* Nothing to run. */
	} else if (irqs_off) {
		/* The work sends it (sroce_kqp_lock_irqs_off). */
		sroce_kqp_settle(kqp, true, false);
	} else {
		more = sroce_kqp_kick(kqp, SROCE_KQP_INLINE_BUDGET,
				      SROCE_NOW_LAZY);
		sroce_kqp_settle(kqp, more, false);
	}
	if (irqs_off)
		sroce_kqp_unlock_irqs_off(kqp);
	else
		sroce_kqp_unlock(kqp);
	return err;
}

static int sroce_kqp_put_recv(struct sroce_kqp *kqp,
			      const struct ib_recv_wr *wr)
{
	struct sroce_recv_wqe_abi *a;
	struct sroce_sge_abi *s;
	u32 i;

	if (kqp->rq_prod - kqp->rq_cons >= kqp->rq.entries)
		return -ENOMEM;
	if (wr->num_sge < 0 || wr->num_sge > kqp->max_recv_sge)
		return -EINVAL;
	a = sroce_ring_elem(&kqp->rq, kqp->rq_prod);
	a->wr_id = wr->wr_id;
	a->num_sge = wr->num_sge;
	a->reserved = 0;
	s = (struct sroce_sge_abi *)(a + 1);
	for (i = 0; i < wr->num_sge; i++) {
		s[i].addr = wr->sg_list[i].addr;
		s[i].length = wr->sg_list[i].length;
		s[i].lkey = wr->sg_list[i].lkey;
	}
	kqp->rq_prod++;
	return 0;
}

/*
 * post_recv (kernel QPs only: user receives never enter the kernel).  The
 * responder takes WQEs when requests arrive; in ERR they are flushed now,
 * which is what ib_drain_rq() waits for.
 */
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_kqp *kqp = to_kqp(ibqp);
	enum sroce_qp_state state;
	bool irqs_off;
	int err = 0;

	if (kqp->user || !kqp->rq.buf) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	irqs_off = irqs_disabled();
	if (irqs_off)
		sroce_kqp_lock_irqs_off(kqp);
	else
		sroce_kqp_lock(kqp);
	state = sroce_kqp_state(kqp);
	if (state == SROCE_QPS_RESET) {
		err = -EINVAL;
		*bad_wr = wr;
	}
	for (; wr && !err; wr = wr->next) {
		err = sroce_kqp_put_recv(kqp, wr);
		if (err)
			*bad_wr = wr;
	}
	if (state == SROCE_QPS_ERR && !kqp->dying) {
		/*
		 * In ERR they are flushed now, up to the inline budget, the
		 * rest by the work; with IRQs off the work does it all.
		 */
		sroce_kqp_settle(kqp, irqs_off ||
				 sroce_kqp_kick(kqp, SROCE_KQP_INLINE_BUDGET,
						SROCE_NOW_LAZY),
				 false);
	}
	if (irqs_off)
		sroce_kqp_unlock_irqs_off(kqp);
	else
		sroce_kqp_unlock(kqp);
	return err;
}
