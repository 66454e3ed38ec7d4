// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows, type 1 and type 2B (IBA 10.6.7).  A window is a range
 * of an MR with remote access rights of its own, named by its own rkey.
 *
 * Keys: a window's rkey is (index << 8) | key byte, with the index taken
 * from the MRs' index space (sdev->mrs), where it stays reserved with a
 * NULL entry, so no MR ever gets it and an MR lookup of a window's key
 * finds nothing.  The window itself lives in sdev->mws at the same index.
 * sroce_mw_access() is the responder's lookup for such keys.
 *
 * Binding (a send WQE, IB_UVERBS_WR_BIND_MW, for both types: the provider
 * posts one for ibv_bind_mw) and invalidation (LOCAL_INV, or SEND with
 * Invalidate from the peer, type 2 only) run in the QP's send path or
 * receive path with its lock held.  All window state, and each MR's count
 * of windows bound to it, are under sdev->mw_lock, which mr.c's
 * deregistration also takes (sroce_mw_mr_unpublish): an MR with windows
 * bound cannot be deregistered (EBUSY, as verbs requires), and a bind
 * cannot pick up an MR being deregistered.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"

#define SROCE_MW_REMOTE	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
			 IB_ACCESS_REMOTE_ATOMIC)

enum sroce_mw_state {
	SROCE_MW_FREE,		/* allocated, never bound or unbound (type 1) */
	SROCE_MW_VALID,		/* bound: the rkey grants access */
	SROCE_MW_INVALID,	/* type 2: invalidated, may be bound again */
};

struct sroce_mw {
	struct ib_mw		ibmw;
	/* Below: under sdev->mw_lock. */
	u8			state;
	u32			key;	/* the rkey accesses must carry */
	struct sroce_mr		*mr;	/* bound to (mr->nmw counts us) */
	u32			mr_lkey;	/* its key at bind time */
	u64			va;
	u64			length;
	u32			access;	/* IB_ACCESS_REMOTE_* granted */
	u32			qpn;	/* type 2: the QP it was bound through */
};

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

/* Lock held: drop the binding, if any. */
static void sroce_mw_unbind(struct sroce_mw *mw, u8 state)
{
	if (mw->mr)
		mw->mr->nmw--;
	mw->mr = NULL;
	mw->length = 0;
	mw->access = 0;
	mw->state = state;
}

static int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	u32 idx;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (sroce_udata_check(udata, 0))
		return -EINVAL;
	err = sroce_obj_add(sdev, SROCE_OBJ_MW, udata);
	if (err)
		return err;
	/* Reserve the index among the MRs' (NULL: no MR lookup finds it). */
	err = xa_alloc_cyclic_bh(&sdev->mrs, &idx, NULL,
				 XA_LIMIT(1, SROCE_MR_INDEX_MAX), &sdev->mr_next,
				 GFP_KERNEL);
	if (err < 0)
		goto err_obj;
	mw->state = SROCE_MW_FREE;
	mw->key = idx << 8 | sroce_key_byte();
	ibmw->rkey = mw->key;
	err = xa_insert_bh(&sdev->mws, idx, mw, GFP_KERNEL);
	if (err)
		goto err_idx;
	return 0;

err_idx:
	xa_erase_bh(&sdev->mrs, idx);
err_obj:
	sroce_obj_del(sdev, SROCE_OBJ_MW);
	return err;
}

static int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	u32 idx = mw->key >> 8;

	spin_lock_bh(&sdev->mw_lock);
	xa_erase_bh(&sdev->mws, idx);
	sroce_mw_unbind(mw, SROCE_MW_FREE);
	spin_unlock_bh(&sdev->mw_lock);
	/* No responder is still looking at it when ib_core frees it. */
	synchronize_rcu();
	xa_erase_bh(&sdev->mrs, idx);
	sroce_obj_del(sdev, SROCE_OBJ_MW);
	return 0;
}

/*
 * mr.c, deregistration: unpublish @mr (erase its index from sdev->mrs)
 * unless a window is bound to it.  False: busy, nothing done.
 */
bool sroce_mw_mr_unpublish(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	bool idle;

	spin_lock_bh(&sdev->mw_lock);
	idle = !mr->nmw;
	if (idle)
		xa_erase_bh(&sdev->mrs, mr->ibmr.lkey >> 8);
	spin_unlock_bh(&sdev->mw_lock);
	return idle;
}

/*
 * A BIND_MW send WQE, run by the requester in SQ order (QP lock held).
 * Returns a work completion status: 0, or SROCE_WC_MW_BIND_ERR (the
 * window, the MR or the rights do not allow it).  A type 1 bind of
 * length 0 unbinds.
 */
u8 sroce_mw_bind(struct sroce_kqp *kqp, const struct sroce_send_wqe *wr)
{
	struct sroce_dev *sdev = kqp->sdev;
	u32 access = wr->bind.access & SROCE_MW_REMOTE;
	/*
	 * The MR must allow binding (IBV_ACCESS_MW_BIND), and local write
	 * for a window that grants remote write or atomics.
	 */
	u32 need = IB_ACCESS_MW_BIND |
		   (access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC) ?
		    IB_ACCESS_LOCAL_WRITE : 0);
	struct sroce_mem_ref ref = {};
	struct sroce_mw *mw;
	u8 status = SROCE_WC_MW_BIND_ERR;

	if ((wr->bind.new_rkey >> 8) != (wr->bind.mw_rkey >> 8) ||
	    wr->bind.length > U32_MAX)
		return status;
	spin_lock(&sdev->mw_lock);
	mw = xa_load(&sdev->mws, wr->bind.mw_rkey >> 8);
	if (!mw || mw->ibmw.pd != kqp->ibqp.pd)
		goto out;
	if (mw->ibmw.type == IB_MW_TYPE_2) {
		/* Type 2: named by its current key, bound only when not valid. */
		if (mw->key != wr->bind.mw_rkey || mw->state == SROCE_MW_VALID ||
		    !wr->bind.length)
			goto out;
	} else if (!wr->bind.length) {
		sroce_mw_unbind(mw, SROCE_MW_FREE);
		mw->key = wr->bind.new_rkey;
		status = 0;
		goto out;
	}
	/* The MR: valid key, this PD, the range inside it, the rights. */
	if (sroce_mem_access(sdev, kqp->ibqp.pd, wr->bind.mr_lkey, false,
			     wr->bind.addr, wr->bind.length, need, &ref) ||
	    !ref.mr)
		goto out;
	sroce_mw_unbind(mw, SROCE_MW_FREE);
	mw->mr = ref.mr;
	mw->mr->nmw++;
	mw->mr_lkey = wr->bind.mr_lkey;
	mw->va = wr->bind.addr;
	mw->length = wr->bind.length;
	mw->access = access;
	mw->qpn = kqp->ibqp.qp_num;
	mw->key = wr->bind.new_rkey;
	mw->state = SROCE_MW_VALID;
	status = 0;
out:
	spin_unlock(&sdev->mw_lock);
	return status;
}

/*
 * Invalidate window @rkey: LOCAL_INV posted on @kqp (@remote false) or a
 * SEND with Invalidate received on it (@remote true).  -ENOENT if @rkey
 * does not name a window (the caller tries MRs then), -EINVAL if the
 * window may not be invalidated this way (type 1, other PD, other key,
 * not bound; remotely: bound through another QP), 0 when done.
 */
int sroce_mw_invalidate(struct sroce_kqp *kqp, u32 rkey, bool remote)
{
	struct sroce_dev *sdev = kqp->sdev;
	struct sroce_mw *mw;
	int err = -EINVAL;

	/* Freed only after a grace period (dealloc): no lock to look. */
	if (!xa_load(&sdev->mws, rkey >> 8))
		return -ENOENT;
	spin_lock(&sdev->mw_lock);
	mw = xa_load(&sdev->mws, rkey >> 8);
	if (!mw)
		goto out;
	if (mw->ibmw.type != IB_MW_TYPE_2 || mw->ibmw.pd != kqp->ibqp.pd ||
	    mw->key != rkey || mw->state != SROCE_MW_VALID ||
	    (remote && mw->qpn != kqp->ibqp.qp_num))
		goto out;
	sroce_mw_unbind(mw, SROCE_MW_INVALID);
	err = 0;
out:
	spin_unlock(&sdev->mw_lock);
	return err;
}

/*
 * The responder's lookup of an rkey that names a window (inside the QP's
 * locked, RCU-protected core call): -ENOENT if @key is no window's.
 * Otherwise the window's key, state, PD, QP (type 2), range and rights
 * are checked, not the MR's, and the range is resolved through the MR it
 * is bound to (which cannot go away while bound).
 */
int sroce_mw_access(struct sroce_kqp *kqp, u32 key, u64 va, u32 len,
		    u32 access, struct sroce_mem_ref *out)
{
	struct sroce_dev *sdev = kqp->sdev;
	struct sroce_mw *mw;
	struct ib_pd *pd;
	u32 lkey, need;
	int err = -EACCES;

	/* The common case, an MR's key, takes no lock here. */
	if (!xa_load(&sdev->mws, key >> 8))
		return -ENOENT;
	spin_lock(&sdev->mw_lock);
	mw = xa_load(&sdev->mws, key >> 8);
	if (!mw)
		goto unlock;
	if (mw->key != key || mw->state != SROCE_MW_VALID || !mw->mr ||
	    mw->ibmw.pd != kqp->ibqp.pd ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && mw->qpn != kqp->ibqp.qp_num))
		goto unlock;
	if (!(access & SROCE_MW_REMOTE) || (mw->access & access) != access)
		goto unlock;
	if (len && (va < mw->va || va - mw->va > mw->length ||
		    len > mw->length - (va - mw->va)))
		goto unlock;
	pd = mw->mr->pd;
	lkey = mw->mr_lkey;
	spin_unlock(&sdev->mw_lock);

	/* Writes land through the MR: it must allow local writes. */
	need = access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC) ?
	       IB_ACCESS_LOCAL_WRITE : 0;
	return sroce_mem_access(sdev, pd, lkey, false, va, len, need, out);

unlock:
	spin_unlock(&sdev->mw_lock);
	return err;
}

const struct ib_device_ops sroce_mw_ops = {
	.alloc_mw = sroce_alloc_mw,
	.dealloc_mw = sroce_dealloc_mw,

	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
};
