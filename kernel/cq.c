// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues.  A CQ is one ring (rings.c) of struct sroce_cqe_abi:
 * the kernel produces, the consumer (the provider for a user CQ, poll_cq
 * for a kernel CQ) consumes.  The kernel keeps its own producer index and
 * reads a user consumer index once per completion, so a process that
 * scribbles on its ring can only overflow its own CQ.
 *
 * A completion that finds the ring full (or an impossible consumer index)
 * is dropped, and the CQ goes to error for good: SROCE_CQ_OVERFLOW is set
 * in prod_flags and IB_EVENT_CQ_ERR is raised once.  Resize moves the
 * unconsumed completions into a new ring.
 */
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"

#define SROCE_CQE_STRIDE	sizeof(struct sroce_cqe_abi)

static_assert((int)SROCE_WC_F_GRH == (int)IB_WC_GRH);
static_assert((int)SROCE_WC_F_WITH_IMM == (int)IB_WC_WITH_IMM);
static_assert((int)SROCE_WC_F_WITH_INV == (int)IB_WC_WITH_INVALIDATE);
static_assert((int)SROCE_WC_RECV_RDMA_WITH_IMM == (int)IB_WC_RECV_RDMA_WITH_IMM);
static_assert((int)SROCE_WC_GENERAL_ERR == (int)IB_WC_GENERAL_ERR);

/* Ring entries for @cqe requested completions, or 0 if out of range. */
static u32 sroce_cq_entries(int cqe)
{
	if (cqe < 1 || cqe > SROCE_MAX_CQE)
		return 0;
	/* Free-running indices: all entries of a ring are usable. */
	return roundup_pow_of_two(cqe);
}

/* A ring for @entries completions, and the kernel CQ's QP array. */
static int sroce_cq_ring_alloc(struct sroce_ring *ring, struct ib_qp ***qps,
			       u32 entries, bool user)
{
	int err;

	err = sroce_ring_alloc(ring, entries, SROCE_CQE_STRIDE, user);
	if (err)
		return err;
	*qps = NULL;
	if (user)
		return 0;
	*qps = kvcalloc(entries, sizeof(**qps), GFP_KERNEL);
	if (!*qps) {
		sroce_ring_free(ring);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Completions the consumer has not taken yet, or > entries if its index
 * is impossible.  Caller holds cq->lock.
 */
static u32 sroce_cq_used(struct sroce_cq *cq)
{
	u32 cons;

	if (!cq->user)
		return cq->prod - cq->cons;
	/* Its reads of the slots happen before we reuse them. */
	cons = smp_load_acquire(&cq->ring.ctl->cons);
	return cq->prod - cons;
}

static int sroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct sroce_create_cq_arg *arg)
{
	struct ib_udata *udata = sroce_create_cq_udata(arg);
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_create_cq_resp resp = {};
	struct sroce_ucontext *uc;
	u32 entries;
	int err;

	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	entries = sroce_cq_entries(attr->cqe);
	if (!entries)
		return -EINVAL;
	if (sroce_udata_check(udata, sizeof(resp)))
		return -EINVAL;

	err = sroce_obj_add(sdev, SROCE_OBJ_CQ, udata);
	if (err)
		return err;
	spin_lock_init(&cq->lock);
	cq->user = udata;
	cq->ts = attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	err = sroce_cq_ring_alloc(&cq->ring, &cq->qps, entries, cq->user);
	if (err)
		goto err_obj;

	if (udata) {
		uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext,
					       ibuc);
		err = sroce_ring_expose(&cq->ring, &uc->ibuc, &resp.cq);
		if (!err)
			err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_ring;
	}
	ibcq->cqe = entries;
	return 0;

err_ring:
	sroce_ring_free(&cq->ring);
	kvfree(cq->qps);
err_obj:
	sroce_obj_del(sdev, SROCE_OBJ_CQ);
	return err;
}

static int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	/* ib_core destroys every QP using the CQ first, so no add runs. */
	sroce_ring_free(&cq->ring);
	kvfree(cq->qps);
	cq->qps = NULL;
	sroce_obj_del(to_sdev(ibcq->device), SROCE_OBJ_CQ);
	return 0;
}

static int sroce_resize_cq(struct ib_cq *ibcq, sroce_cqe_num_t cqe,
			   struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_resize_cq_resp resp = {};
	struct sroce_ring ring, old;
	struct ib_qp **qps, **old_qps;
	struct sroce_ucontext *uc;
	u32 entries, used, i;
	unsigned long flags;
	int err;

	entries = sroce_cq_entries(cqe);
	if (!entries)
		return -EINVAL;
	if (sroce_udata_check(udata, sizeof(resp)))
		return -EINVAL;

	err = sroce_cq_ring_alloc(&ring, &qps, entries, cq->user);
	if (err)
		return err;
	if (udata) {
		/*
		 * The provider maps the new ring only if this call succeeds,
		 * so the response may go out before the swap below.
		 */
		uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext,
					       ibuc);
		err = sroce_ring_expose(&ring, &uc->ibuc, &resp.cq);
		if (!err)
			err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_ring;
	}

	spin_lock_irqsave(&cq->lock, flags);
	used = sroce_cq_used(cq);
	if (used > cq->ring.entries || used > entries) {
		spin_unlock_irqrestore(&cq->lock, flags);
		err = -EINVAL;
		goto err_ring;
	}
	/* The pending completions move to indices 0..used-1. */
	for (i = 0; i < used; i++) {
		u32 from = cq->prod - used + i;

		memcpy(sroce_ring_elem(&ring, i),
		       sroce_ring_elem(&cq->ring, from), SROCE_CQE_STRIDE);
		if (qps)
			qps[i] = cq->qps[from & (cq->ring.entries - 1)];
	}
	ring.ctl->cons = 0;
	ring.ctl->prod = used;
	ring.ctl->prod_flags = cq->overflow ? SROCE_CQ_OVERFLOW : 0;
	old = cq->ring;
	old_qps = cq->qps;
	cq->ring = ring;
	cq->qps = qps;
	cq->prod = used;
	cq->cons = 0;
	ibcq->cqe = entries;
	spin_unlock_irqrestore(&cq->lock, flags);

	sroce_ring_free(&old);
	kvfree(old_qps);
	return 0;

err_ring:
	sroce_ring_free(&ring);
	kvfree(qps);
	return err;
}

static int sroce_req_notify_cq(struct ib_cq *ibcq,
			       enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP covers SOLICITED: never weaken an armed NEXT_COMP. */
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_NEXT_COMP;
	else if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_SOLICITED;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && sroce_cq_used(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

static void sroce_cqe_fill(struct sroce_cqe_abi *abi,
			   const struct sroce_cqe *cqe)
{
	memset(abi, 0, sizeof(*abi));
	abi->wr_id = cqe->wr_id;
	abi->status = cqe->status;
	abi->opcode = cqe->opcode;
	abi->wc_flags = cqe->flags;
	abi->vendor_err = cqe->vendor_err;
	abi->byte_len = cqe->byte_len;
	/* Verbs hand imm_data over in network order; the core has host. */
	if (cqe->flags & SROCE_WC_F_WITH_IMM)
		abi->ex = (__force u32)cpu_to_be32(cqe->ex);
	else
		abi->ex = cqe->ex;
	abi->qp_num = cqe->qp_num;
	abi->src_qp = cqe->src_qp;
	abi->pkey_index = cqe->pkey_index;
}

int sroce_cq_add(struct sroce_cq *cq, struct ib_qp *qp,
		 const struct sroce_cqe *cqe)
{
	struct sroce_cqe_abi abi;
	unsigned long flags;
	bool fire = false;
	u32 used, slot;

	sroce_cqe_fill(&abi, cqe);

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}
	used = sroce_cq_used(cq);
	if (used >= cq->ring.entries) {
		cq->overflow = true;
		WRITE_ONCE(cq->ring.ctl->prod_flags, SROCE_CQ_OVERFLOW);
		spin_unlock_irqrestore(&cq->lock, flags);
		goto overflow;
	}

	/*
	 * The clock user space reads for ibv_query_rt_values_ex(), taken
	 * under the lock so that stamps never decrease along the ring.
	 */
	if (cq->ts)
		abi.ts = ktime_get_ns();
	slot = cq->prod & (cq->ring.entries - 1);
	memcpy(sroce_ring_elem(&cq->ring, cq->prod), &abi, sizeof(abi));
	if (cq->qps)
		cq->qps[slot] = qp;
	cq->prod++;
	/* The CQE is visible before the index that publishes it. */
	smp_store_release(&cq->ring.ctl->prod, cq->prod);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (cqe->solicited || cqe->status != SROCE_WC_SUCCESS))) {
		cq->notify = 0;
		fire = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return fire;

overflow:
	/* Reached once: later adds see cq->overflow. */
	sroce_count(to_sdev(cq->ibcq.device), SROCE_CTR_CQ_OVERFLOWS, 1);
	if (cq->ibcq.event_handler) {
		struct ib_event ev = {
			.device = cq->ibcq.device,
			.element.cq = &cq->ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	return -ENOSPC;
}

void sroce_cq_notify(struct sroce_cq *cq)
{
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

#ifdef SROCE_HAVE_IB_PLACEMENT
static_assert((int)SROCE_WC_FLUSH == (int)IB_WC_FLUSH);
static_assert((int)SROCE_WC_ATOMIC_WRITE == (int)IB_WC_ATOMIC_WRITE);
#endif

static void sroce_cqe_to_wc(const struct sroce_cqe_abi *abi,
			    struct ib_qp *qp, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = abi->wr_id;
	wc->status = abi->status;
	/* ib_wc_opcode is the uverbs numbering but for REG_MR (qp.h). */
	wc->opcode = abi->opcode == SROCE_WC_REG_MR ? IB_WC_REG_MR :
		     abi->opcode;
	wc->vendor_err = abi->vendor_err;
	wc->byte_len = abi->byte_len;
	wc->qp = qp;
	wc->wc_flags = abi->wc_flags;
	if (abi->wc_flags & IB_WC_WITH_IMM)
		wc->ex.imm_data = (__force __be32)abi->ex;
	else if (abi->wc_flags & IB_WC_WITH_INVALIDATE)
		wc->ex.invalidate_rkey = abi->ex;
	wc->src_qp = abi->src_qp;
	wc->pkey_index = abi->pkey_index;
	wc->sl = abi->sl;
	wc->port_num = SROCE_PORT;
}

/* Kernel CQs only: a user CQ is consumed in user space. */
static int sroce_poll_cq(struct ib_cq *ibcq, int num_entries,
			 struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long flags;
	int n = 0;

	if (cq->user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && cq->cons != cq->prod) {
		sroce_cqe_to_wc(sroce_ring_elem(&cq->ring, cq->cons),
				cq->qps[cq->cons & (cq->ring.entries - 1)],
				&wc[n]);
		cq->cons++;
		n++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

const struct ib_device_ops sroce_cq_ops = {
	.create_cq = sroce_create_cq,
	.destroy_cq = sroce_destroy_cq,
	.poll_cq = sroce_poll_cq,
	.req_notify_cq = sroce_req_notify_cq,
	SROCE_OPS_RESIZE_CQ(sroce_resize_cq)

	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
};
