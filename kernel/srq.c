// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues.  An SRQ is one receive ring in the RQ's format
 * (uapi/sroce-abi.h): user space produces into it without a system call,
 * kernel ULPs through post_srq_recv, and the responder of every QP
 * attached to it consumes from it (sroce_srq_take, from qp_ring.c).
 *
 * Consumers are many QPs on any CPU, so the SRQ has its own lock, taken
 * inside a QP's lock (bottom halves already off).  The ring is untrusted
 * exactly as a QP's RQ is: prod is read once per batch and checked
 * against our own cons, each WQE is copied out whole before any field of
 * the copy is read.  A malformed ring breaks the SRQ (IB_EVENT_SRQ_ERR,
 * no more WQEs: the QPs on it see receiver-not-ready), nothing else.
 *
 * The limit (IB_SRQ_LIMIT) is one-shot, as in verbs: once armed, the
 * first WQE taken that leaves fewer than @limit posted WQEs disarms it
 * and raises IB_EVENT_SRQ_LIMIT_REACHED.  Arming does not look at the
 * current count; the event comes with the next WQE taken.
 *
 * A resize (IB_SRQ_MAX_WR) replaces the ring under the lock, the WQEs
 * posted and not yet taken copied (mostly before it) to the same indices
 * of the new one; the stride never changes, so neither does max_sge nor
 * wqe_copy's size.
 *
 * An XRC SRQ (IB_SRQT_XRC) is the same ring with a number, published in
 * sdev->xsrqs, that XRC requests name (XRCETH): the responder of an XRC
 * target QP finds it there under RCU (sroce_xrc_srq_find), takes its
 * WQEs and completes into its CQ (ibsrq.ext.cq).  No QP is attached to
 * it, so ib_core lets it be destroyed while target QPs still receive:
 * destroy unpublishes it and waits for the readers before it frees.
 */
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"

static void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/* Lock held: the producer's index, ours for a kernel SRQ. */
static u32 sroce_srq_prod(const struct sroce_srq *srq)
{
	/* Pairs with the provider's store-release of prod. */
	return srq->user ? smp_load_acquire(&srq->ring.ctl->prod) : srq->kprod;
}

/*
 * The responder of a QP attached to @srq wants a receive WQE (QP lock
 * held).  0 and *@out filled, or -SROCE_EAGAIN if none (RNR).
 */
int sroce_srq_take(struct sroce_srq *srq, struct sroce_recv_wqe *out)
{
	const struct sroce_recv_wqe_abi *a;
	/* The stride is fixed at creation: no lock needed to read it. */
	u32 room = srq->ring.stride - sizeof(*a);
	enum ib_event_type ev = IB_EVENT_SRQ_ERR;
	bool raise = false;
	u32 prod, n;
	int ret = -SROCE_EAGAIN;

	spin_lock(&srq->lock);
	if (srq->broken)
		goto out;
	if (srq->cons == srq->seen) {
		prod = sroce_srq_prod(srq);
		if (prod - srq->cons > srq->ring.entries)
			goto broken;
		srq->seen = prod;
		if (prod == srq->cons)
			goto out;
	}
	/* One copy; from here on only the copy is read. */
	a = memcpy(srq->wqe_copy, sroce_ring_elem(&srq->ring, srq->cons),
		   srq->ring.stride);
	if (a->num_sge > srq->max_sge ||
	    a->num_sge * sizeof(struct sroce_sge_abi) > room)
		goto broken;
	out->wr_id = a->wr_id;
	out->num_sge = a->num_sge;
	memcpy(out->sge, a + 1, a->num_sge * sizeof(struct sroce_sge));
	/* The copy is complete before the producer may reuse the slot. */
	smp_store_release(&srq->ring.ctl->cons, ++srq->cons);
	ret = 0;

	if (srq->limit) {
		/* A fresh prod: WQEs posted since @seen still count. */
		prod = sroce_srq_prod(srq);
		n = prod - srq->cons;
		if (n <= srq->ring.entries && n < srq->limit) {
			srq->limit = 0;
			ev = IB_EVENT_SRQ_LIMIT_REACHED;
			raise = true;
		}
	}
	goto out;

broken:
	srq->broken = true;
	raise = true;
	sroce_count(to_sdev(srq->ibsrq.device), SROCE_CTR_RING_ERRORS, 1);
out:
	spin_unlock(&srq->lock);
	if (raise)
		sroce_srq_event(srq, ev);
	return ret;
}

static int sroce_srq_check(const struct ib_srq_attr *attr)
{
	if (attr->max_wr > SROCE_MAX_SRQ_WR ||
	    attr->max_sge > SROCE_MAX_SRQ_SGE)
		return -EINVAL;
	return 0;
}

static int sroce_create_srq(struct ib_srq *ibsrq,
			    struct ib_srq_init_attr *init,
			    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	struct sroce_ucontext *uc;
	u32 entries, stride, srqn;
	int err;

	if (init->srq_type != IB_SRQT_BASIC && init->srq_type != IB_SRQT_XRC)
		return -EOPNOTSUPP;
	if (init->srq_type == IB_SRQT_XRC &&
	    (!init->ext.cq || !init->ext.xrc.xrcd))
		return -EINVAL;
	err = sroce_srq_check(&init->attr);
	if (err)
		return err;
	if (sroce_udata_check(udata, sizeof(resp)))
		return -EINVAL;
	err = sroce_obj_add(sdev, SROCE_OBJ_SRQ, udata);
	if (err)
		return err;

	spin_lock_init(&srq->lock);
	mutex_init(&srq->resize_lock);
	srq->user = !!udata;
	entries = roundup_pow_of_two(max(init->attr.max_wr, 1u));
	stride = sroce_ring_rq_stride(max(init->attr.max_sge, 1u));
	srq->max_sge = min_t(u32, SROCE_MAX_SRQ_SGE,
			     (stride - sizeof(struct sroce_recv_wqe_abi)) /
			     sizeof(struct sroce_sge_abi));
	err = sroce_ring_alloc(&srq->ring, entries, stride, srq->user);
	if (err)
		goto err_obj;
	/* Reserve the number now, publish the SRQ only once it is complete. */
	if (init->srq_type == IB_SRQT_XRC) {
		err = xa_alloc_cyclic_bh(&sdev->xsrqs, &srqn, NULL,
					 XA_LIMIT(1, SROCE_SRQN_MASK),
					 &sdev->xsrq_next, GFP_KERNEL);
		if (err < 0)
			goto err_ring;
		ibsrq->ext.xrc.srq_num = srqn;
		srq->xrcd = init->ext.xrc.xrcd;
		srq->xcq = to_scq(init->ext.cq);
	}

	if (udata) {
		uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext,
					       ibuc);
		err = sroce_ring_expose(&srq->ring, &uc->ibuc, &resp.rq);
		if (err)
			goto err_ring;
		resp.max_sge = srq->max_sge;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_ring;
	}
	/* srq_limit is not armed at creation; modify_srq arms it. */
	init->attr.max_wr = entries;
	init->attr.max_sge = srq->max_sge;
	init->attr.srq_limit = 0;
	if (init->srq_type == IB_SRQT_XRC)
		xa_store_bh(&sdev->xsrqs, srqn, srq, GFP_KERNEL);
	return 0;

err_ring:
	if (init->srq_type == IB_SRQT_XRC && ibsrq->ext.xrc.srq_num)
		xa_erase_bh(&sdev->xsrqs, ibsrq->ext.xrc.srq_num);
	sroce_ring_free(&srq->ring);
err_obj:
	sroce_obj_del(sdev, SROCE_OBJ_SRQ);
	return err;
}

/*
 * A resize of a user SRQ comes with struct sroce_modify_srq_cmd (the
 * address of the response); nothing else defines driver input.  *@cmd
 * is zeroed when there is none.
 */
static int sroce_srq_cmd(struct ib_udata *udata,
			 struct sroce_modify_srq_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	if (!udata || !udata->inlen)
		return 0;
	if (udata->inlen < sizeof(*cmd))
		return -EINVAL;
	if (udata->inlen > sizeof(*cmd) &&
	    !ib_is_udata_cleared(udata, sizeof(*cmd),
				 udata->inlen - sizeof(*cmd)))
		return -EINVAL;
	return ib_copy_from_udata(cmd, udata, sizeof(*cmd));
}

/* Copy the WQEs [@from, @to) of @srq's ring to the same indices of @ring. */
static void sroce_srq_copy(struct sroce_ring *ring, struct sroce_srq *srq,
			   u32 from, u32 to)
{
	u32 i;

	for (i = from; (s32)(to - i) > 0; i++)
		memcpy(sroce_ring_elem(ring, i), sroce_ring_elem(&srq->ring, i),
		       ring->stride);
}

/*
 * IB_SRQ_MAX_WR, and IB_SRQ_LIMIT with it if @mask has it.  The RX path
 * takes WQEs under srq->lock in softirq, so the new ring is allocated
 * (charged to the caller as at creation), exposed and described to the
 * provider, and the posted WQEs copied (a full ring of 32-SGE WQEs is
 * megabytes), before the lock is taken.  Under it, what was taken
 * meanwhile needs nothing, what was posted meanwhile (a kernel consumer's
 * post) is copied, the count checked and the ring swapped, or nothing
 * changes.  The provider holds its post lock across the command: prod
 * does not move, and it maps the new ring only if we return 0.  The old
 * ring goes when nobody maps it any more (rings.c); resize_lock keeps it
 * until this copy is done.
 */
static int sroce_srq_resize(struct sroce_srq *srq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, u64 resp_addr,
			    struct ib_udata *udata)
{
	struct sroce_modify_srq_resp resp = {};
	struct sroce_ring ring, old;
	struct sroce_ucontext *uc;
	u32 entries, limit, prod, n, from, to;
	int err;

	if (!attr->max_wr || attr->max_wr > SROCE_MAX_SRQ_WR)
		return -EINVAL;
	/* A provider that cannot follow the ring would post into the old. */
	if (srq->user && !resp_addr)
		return -EOPNOTSUPP;
	entries = roundup_pow_of_two(attr->max_wr);
	if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > entries)
		return -EINVAL;

	mutex_lock(&srq->resize_lock);
	err = sroce_ring_alloc(&ring, entries, srq->ring.stride, srq->user);
	if (err)
		goto out;
	if (srq->user) {
		uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext,
					       ibuc);
		err = sroce_ring_expose(&ring, &uc->ibuc, &resp.rq);
		if (!err && copy_to_user(u64_to_user_ptr(resp_addr), &resp,
					 sizeof(resp)))
			err = -EFAULT;
		if (err)
			goto err_ring;
	}

	spin_lock_bh(&srq->lock);
	from = srq->cons;
	to = sroce_srq_prod(srq);
	spin_unlock_bh(&srq->lock);
	/* More than either ring holds: the check under the lock decides. */
	if (to - from > min(entries, srq->ring.entries))
		to = from;
	sroce_srq_copy(&ring, srq, from, to);

	spin_lock_bh(&srq->lock);
	limit = mask & IB_SRQ_LIMIT ? attr->srq_limit : srq->limit;
	prod = sroce_srq_prod(srq);
	n = prod - srq->cons;
	/* Fewer slots than posted WQEs, an impossible prod, a limit above. */
	if (n > attr->max_wr || n > srq->ring.entries || limit > entries) {
		spin_unlock_bh(&srq->lock);
		err = -EINVAL;
		goto err_ring;
	}
	if ((s32)(srq->cons - to) > 0)
		to = srq->cons;
	sroce_srq_copy(&ring, srq, to, prod);
	/* The provider adopts both indices when it maps the ring. */
	ring.ctl->prod = prod;
	ring.ctl->cons = srq->cons;
	old = srq->ring;
	srq->ring = ring;
	srq->seen = prod;
	srq->limit = limit;
	spin_unlock_bh(&srq->lock);

	sroce_ring_free(&old);
	mutex_unlock(&srq->resize_lock);
	attr->max_wr = entries;
	return 0;

err_ring:
	sroce_ring_free(&ring);
out:
	mutex_unlock(&srq->resize_lock);
	return err;
}

static int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_modify_srq_cmd cmd;
	u32 entries;
	int err;

	err = sroce_srq_cmd(udata, &cmd);
	if (err)
		return err;
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR)
		return sroce_srq_resize(srq, attr, mask, cmd.resp_addr, udata);
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_bh(&srq->lock);
		entries = srq->ring.entries;
		if (attr->srq_limit <= entries)
			srq->limit = attr->srq_limit;
		spin_unlock_bh(&srq->lock);
		if (attr->srq_limit > entries)
			return -EINVAL;
	}
	return 0;
}

static int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	spin_lock_bh(&srq->lock);
	attr->srq_limit = srq->limit;
	attr->max_wr = srq->ring.entries;
	spin_unlock_bh(&srq->lock);
	attr->max_sge = srq->max_sge;
	return 0;
}

/*
 * ib_core refuses this while a QP is attached, and a QP's destroy waits
 * for its RX readers, so nobody is in sroce_srq_take() any more.  An XRC
 * SRQ has no QP attached: it is unpublished, then the grace period waits
 * for the target QPs' core calls that may have found it (they run inside
 * rcu_read_lock() and drop it with their lock, kqp.h).
 */
static int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (srq->xrcd) {
		xa_erase_bh(&to_sdev(ibsrq->device)->xsrqs,
			    ibsrq->ext.xrc.srq_num);
		synchronize_rcu();
	}
	sroce_ring_free(&srq->ring);
	sroce_obj_del(to_sdev(ibsrq->device), SROCE_OBJ_SRQ);
	return 0;
}

struct sroce_srq *sroce_xrc_srq_find(struct sroce_dev *sdev, u32 srqn,
				     const struct ib_xrcd *xrcd)
{
	struct sroce_srq *srq = xa_load(&sdev->xsrqs, srqn);

	if (!srq || !xrcd || srq->xrcd != xrcd)
		return NULL;
	return srq;
}

/* Kernel ULPs only: user space posts through the ring. */
static int sroce_post_srq_recv(struct ib_srq *ibsrq,
			       const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_recv_wqe_abi *a;
	struct sroce_sge_abi *s;
	int err = 0;
	u32 i;

	if (srq->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_bh(&srq->lock);
	for (; wr; wr = wr->next) {
		if (srq->kprod - srq->cons >= srq->ring.entries) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > srq->max_sge) {
			err = -EINVAL;
			break;
		}
		a = sroce_ring_elem(&srq->ring, srq->kprod);
		a->wr_id = wr->wr_id;
		a->num_sge = wr->num_sge;
		a->reserved = 0;
		s = (struct sroce_sge_abi *)(a + 1);
		for (i = 0; i < wr->num_sge; i++) {
			s[i].addr = wr->sg_list[i].addr;
			s[i].length = wr->sg_list[i].length;
			s[i].lkey = wr->sg_list[i].lkey;
		}
		srq->kprod++;
	}
	spin_unlock_bh(&srq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

const struct ib_device_ops sroce_srq_ops = {
	.create_srq = sroce_create_srq,
	.destroy_srq = sroce_destroy_srq,
	.modify_srq = sroce_modify_srq,
	.post_srq_recv = sroce_post_srq_recv,
	.query_srq = sroce_query_srq,

	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
};
