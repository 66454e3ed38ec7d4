// SPDX-License-Identifier: GPL-2.0
/*
 * WQEs in and out of a QP's shared rings (layout: uapi/sroce-abi.h).
 * Kernel consumers post into the same ring format user space does
 * (qp_post.c), so the core sees one producer interface: ops->next_send
 * and ops->recv_wqe, both called with the QP lock held.
 *
 * A user ring is untrusted memory the process may rewrite at any time:
 * its prod is read once per batch and checked against our own consumer
 * index, each WQE is copied out whole before any field is looked at, and
 * only the copy is validated and converted.  Documentation/datapath.rst,
 * "Ring consumption".
 */
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "kqp.h"

/* Not an opcode: makes the core complete the WQE with LOC_QP_OP_ERR. */
#define SROCE_KQP_BAD_OPCODE	0xff

static_assert(sizeof(struct sroce_send_wqe_abi) == 56);
static_assert(sizeof(struct sroce_recv_wqe_abi) == 16);
static_assert(sizeof(struct sroce_sge_abi) == 16);
static_assert((int)IB_SEND_FENCE == (int)SROCE_SEND_FENCE &&
	      (int)IB_SEND_SIGNALED == (int)SROCE_SEND_SIGNALED &&
	      (int)IB_SEND_SOLICITED == (int)SROCE_SEND_SOLICITED &&
	      (int)IB_SEND_INLINE == (int)SROCE_SEND_INLINE);

/* kqp->wqe_copy holds the largest element either ring can have. */
static_assert(sizeof(struct sroce_send_wqe_abi) + SROCE_MAX_INLINE_DATA <=
	      SROCE_MAX_WQE_STRIDE);
static_assert(sizeof(struct sroce_send_wqe_abi) +
	      SROCE_MAX_SGE * sizeof(struct sroce_sge_abi) <=
	      SROCE_MAX_WQE_STRIDE);
static_assert(sizeof(struct sroce_recv_wqe_abi) +
	      SROCE_MAX_SGE * sizeof(struct sroce_sge_abi) <=
	      SROCE_MAX_WQE_STRIDE);

/* The producer's index: ours for a kernel QP, the provider's for a user QP. */
static u32 sroce_kqp_prod(const struct sroce_kqp *kqp,
			  const struct sroce_ring *r, u32 kprod)
{
	/* Pairs with the provider's store-release of prod. */
	return kqp->user ? smp_load_acquire(&r->ctl->prod) : kprod;
}

bool sroce_kqp_sq_has_more(const struct sroce_kqp *kqp)
{
	if (kqp->broken)
		return false;
	return (kqp->user ? READ_ONCE(kqp->sq.ctl->prod) : kqp->sq_prod) !=
	       kqp->sq_cons;
}

/* User SQ: tell the provider whether it needs to ring (uapi header). */
void sroce_kqp_sq_set_draining(struct sroce_kqp *kqp, bool on)
{
	u32 flags = on ? SROCE_SQ_DRAINING : 0;

	if (!kqp->user || kqp->sq_flags == flags)
		return;
	kqp->sq_flags = flags;
	WRITE_ONCE(kqp->sq.ctl->cons_flags, flags);
	/*
	 * Setting: flag store before the pass's prod load, so that a post
	 * that saw the flag set is seen by the pass.  (The pass orders
	 * its own clearing.)
	 */
	if (on)
		smp_mb(); /* pairs with the provider's prod-store/flag-load mb */
}

/*
 * The next element to consume, or NULL if the ring is empty (@asked) or
 * broken.  @seen caches the producer index of the last read, so that
 * prod is read once per batch, not once per WQE.
 */
static void *sroce_kqp_ring_next(struct sroce_kqp *kqp, struct sroce_ring *r,
				 u32 kprod, u32 cons, u32 *seen, bool *asked)
{
	u32 prod;

	if (kqp->broken)
		return NULL;
	if (cons == *seen) {
		prod = sroce_kqp_prod(kqp, r, kprod);
		if (prod - cons > r->entries) {
			kqp->broken = SROCE_KQP_BROKEN;
			return NULL;
		}
		*seen = prod;
		if (prod == cons) {
			if (asked)
				*asked = true;
			return NULL;
		}
	}
	/* One copy; from here on only the copy is read. */
	memcpy(kqp->wqe_copy, sroce_ring_elem(r, cons), r->stride);
	return kqp->wqe_copy;
}

/* Publish our consumer index; the slot may be reused from now on. */
static void sroce_kqp_ring_release(struct sroce_ring *r, u32 cons)
{
	/* The copy is complete before the producer may overwrite the slot. */
	smp_store_release(&r->ctl->cons, cons);
}

/*
 * Convert a copied send WQE.  A malformed one is not an error of the
 * ring: it becomes a WQE the core completes in error, in order, as a
 * hardware device would (LOC_QP_OP_ERR, or LOC_LEN_ERR for inline data).
 */
static void sroce_kqp_conv_send(const struct sroce_kqp *kqp,
				const struct sroce_send_wqe_abi *a,
				struct sroce_send_wqe *w)
{
	u32 room = kqp->sq.stride - sizeof(*a);
	const void *tail = a + 1;

	w->wr_id = a->wr_id;
	w->opcode = a->opcode;
	w->send_flags = a->send_flags;
	w->num_sge = 0;
	w->inline_len = 0;
	w->ex = 0;
	w->xrc_srqn = 0;
	/* An XRC initiator names the remote XRC SRQ, a 24-bit number. */
	if (kqp->ibqp.qp_type == IB_QPT_XRC_INI) {
		if (a->xrc_srqn & ~SROCE_SRQN_MASK) {
			w->opcode = SROCE_KQP_BAD_OPCODE;
			return;
		}
		w->xrc_srqn = a->xrc_srqn;
	}
	if (a->send_flags & ~SROCE_KQP_SEND_FLAGS) {
		w->opcode = SROCE_KQP_BAD_OPCODE;
		return;
	}
	switch (a->opcode) {
	case IB_UVERBS_WR_SEND_WITH_IMM:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		/* The ABI carries it as verbs do, in network order. */
		w->ex = be32_to_cpu((__force __be32)a->ex);
		fallthrough;
	case IB_UVERBS_WR_SEND:
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_READ:
		w->rdma.remote_addr = a->rdma.remote_addr;
		w->rdma.rkey = a->rdma.rkey;
		break;
	case IB_UVERBS_WR_SEND_WITH_INV:
		w->ex = a->ex;
		break;
	case IB_WR_REG_MR:
		/* Fast registration is a kernel verb (ib_alloc_mr). */
		if (kqp->user) {
			w->opcode = SROCE_KQP_BAD_OPCODE;
			return;
		}
		/* Kernel ring: ex = the new key, rdma.rkey = the access. */
		w->reg.key = a->ex;
		w->reg.access = a->rdma.rkey;
		return;
	case IB_UVERBS_WR_LOCAL_INV:
		/* ex = the key to invalidate; no data. */
		w->ex = a->ex;
		return;
	case IB_UVERBS_WR_BIND_MW:
		/* Memory windows are user verbs (mw.c); no data. */
		w->bind.addr = a->bind.addr;
		w->bind.length = a->bind.length;
		w->bind.mr_lkey = a->bind.mr_lkey;
		w->bind.mw_rkey = a->bind.mw_rkey;
		w->bind.new_rkey = a->bind.new_rkey;
		w->bind.access = a->bind.access;
		return;
	case SROCE_WR_ATOMIC_WRITE:
		/* The value travels in the header; no data follows. */
		w->atomic_wr.remote_addr = a->atomic_wr.remote_addr;
		w->atomic_wr.rkey = a->atomic_wr.rkey;
		memcpy(w->atomic_wr.value, a->atomic_wr.value,
		       sizeof(w->atomic_wr.value));
		return;
	case SROCE_WR_FLUSH:
		/* The core checks type and level; no data. */
		w->flush.remote_addr = a->flush.remote_addr;
		w->flush.rkey = a->flush.rkey;
		w->flush.length = a->flush.length;
		w->flush.type = a->flush.type;
		w->flush.level = a->flush.level;
		return;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		w->atomic.remote_addr = a->atomic.remote_addr;
		w->atomic.compare_add = a->atomic.compare_add;
		w->atomic.swap = a->atomic.swap;
		w->atomic.rkey = a->atomic.rkey;
		break;
	default:
		w->opcode = SROCE_KQP_BAD_OPCODE;
		return;
	}
	if (sroce_kqp_is_ud(kqp)) {
		w->ud.ah = a->ud.ah_num;
		w->ud.remote_qpn = a->ud.remote_qpn;
		w->ud.remote_qkey = a->ud.remote_qkey;
	}
	if (a->send_flags & IB_SEND_INLINE) {
		if (a->inline_len > kqp->max_inline || a->inline_len > room) {
			w->inline_len = SROCE_MAX_INLINE + 1;
			return;
		}
		w->inline_len = a->inline_len;
		memcpy(w->inline_data, tail, a->inline_len);
	} else {
		if (a->num_sge > kqp->max_send_sge ||
		    a->num_sge * sizeof(struct sroce_sge_abi) > room) {
			w->num_sge = SROCE_MAX_SGE + 1;
			return;
		}
		w->num_sge = a->num_sge;
		/* struct sroce_sge_abi and struct sroce_sge: same layout. */
		memcpy(w->sge, tail, a->num_sge * sizeof(struct sroce_sge));
	}
}

static_assert(sizeof(struct sroce_sge) == sizeof(struct sroce_sge_abi));
static_assert(offsetof(struct sroce_sge, lkey) ==
	      offsetof(struct sroce_sge_abi, lkey));

int sroce_kqp_next_send(void *ctx, struct sroce_send_wqe *out)
{
	struct sroce_kqp *kqp = ctx;
	const void *a;

	a = sroce_kqp_ring_next(kqp, &kqp->sq, kqp->sq_prod, kqp->sq_cons,
				&kqp->sq_seen, &kqp->sq_asked);
	if (!a)
		return -SROCE_EAGAIN;
	sroce_kqp_conv_send(kqp, a, out);
	sroce_kqp_ring_release(&kqp->sq, ++kqp->sq_cons);
	return 0;
}

/*
 * Receive WQEs have no per-WQE error in the core, so a malformed one
 * breaks the ring: the QP goes to ERR with QP_FATAL (sroce_kqp_settle).
 * A QP on an SRQ takes its WQEs from there (srq.c).
 */
int sroce_kqp_recv_wqe(void *ctx, struct sroce_recv_wqe *out)
{
	struct sroce_kqp *kqp = ctx;
	const struct sroce_recv_wqe_abi *a;
	u32 room = kqp->rq.stride - sizeof(*a);

	if (kqp->srq)
		return sroce_srq_take(kqp->srq, out);
	/* XRC target: the SRQ the request named (ops->xrc_srq). */
	if (kqp->ibqp.qp_type == IB_QPT_XRC_TGT)
		return kqp->xsrq ? sroce_srq_take(kqp->xsrq, out) :
				   -SROCE_EAGAIN;
	if (!kqp->rq.buf)
		return -SROCE_EAGAIN;
	a = sroce_kqp_ring_next(kqp, &kqp->rq, kqp->rq_prod, kqp->rq_cons,
				&kqp->rq_seen, NULL);
	if (!a)
		return -SROCE_EAGAIN;
	if (a->num_sge > kqp->max_recv_sge ||
	    a->num_sge * sizeof(struct sroce_sge_abi) > room) {
		kqp->broken = SROCE_KQP_BROKEN;
		return -SROCE_EAGAIN;
	}
	out->wr_id = a->wr_id;
	out->num_sge = a->num_sge;
	memcpy(out->sge, a + 1, a->num_sge * sizeof(struct sroce_sge));
	sroce_kqp_ring_release(&kqp->rq, ++kqp->rq_cons);
	return 0;
}

/* Drop every WQE posted to the SQ so far, without completions. */
void sroce_kqp_sq_discard(struct sroce_kqp *kqp)
{
	kqp->sq_cons = kqp->user ? READ_ONCE(kqp->sq.ctl->prod) : kqp->sq_prod;
	kqp->sq_seen = kqp->sq_cons;
	sroce_kqp_ring_release(&kqp->sq, kqp->sq_cons);
}

/*
 * modify_qp to RESET: whatever the rings hold is dropped without a
 * completion (verbs), and a broken ring becomes usable again.
 */
void sroce_kqp_rings_reset(struct sroce_kqp *kqp)
{
	kqp->broken = SROCE_KQP_SOUND;
	sroce_kqp_sq_discard(kqp);
	if (kqp->rq.buf) {
		kqp->rq_cons = kqp->user ? READ_ONCE(kqp->rq.ctl->prod) :
					   kqp->rq_prod;
		kqp->rq_seen = kqp->rq_cons;
		sroce_kqp_ring_release(&kqp->rq, kqp->rq_cons);
	}
}
