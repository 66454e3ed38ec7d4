// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: the verbs that create, modify, query and destroy them.
 * The protocol (state machine, requester, responder, completer) is the
 * core's (proto/qp.h); this file sizes and allocates what the core and
 * the rings need and translates verbs attributes.  Running the core is
 * qp_exec.c's job, posting WQEs into the rings qp_post.c's and taking
 * them out qp_ring.c's.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "kqp.h"

/* ib_qp_attr_mask bits we implement: the IBA ones up to DEST_QPN, no APM. */
#define SROCE_KQP_MODIFY_MASK	(GENMASK(20, 0) & ~IB_QP_ALT_PATH)

static_assert((int)IB_QP_DEST_QPN == (int)SROCE_QP_DEST_QPN);
static_assert(IB_QPS_ERR == (int)SROCE_QPS_ERR);
static_assert(IB_QPT_RC == (int)SROCE_QPT_RC &&
	      IB_QPT_UC == (int)SROCE_QPT_UC &&
	      IB_QPT_UD == (int)SROCE_QPT_UD &&
	      IB_QPT_XRC_INI == (int)SROCE_QPT_XRC_INI &&
	      IB_QPT_XRC_TGT == (int)SROCE_QPT_XRC_TGT);

/* Types the core runs as RC: they have responder resources. */
static bool sroce_kqp_type_rc(enum ib_qp_type t)
{
	return t == IB_QPT_RC || t == IB_QPT_XRC_INI || t == IB_QPT_XRC_TGT;
}

/* The active MTU of the port as an ib_mtu (the port reports 256 minimum). */
static enum ib_mtu sroce_kqp_port_mtu(struct sroce_dev *sdev)
{
	enum ib_mtu mtu = sroce_mtu_from_netdev(READ_ONCE(sdev->ndev->mtu));

	return mtu ? mtu : IB_MTU_256;
}

static int sroce_kqp_check_init(const struct ib_qp_init_attr *init,
				struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_GSI:
		if (!init->send_cq || !init->recv_cq)
			return -EINVAL;
		break;
	case IB_QPT_XRC_INI:
		/* Sends only: no RQ, SRQ or receive CQ. */
		if (!init->send_cq || init->srq)
			return -EINVAL;
		break;
	case IB_QPT_XRC_TGT:
		/*
		 * ib_core creates it for its XRCD, without udata even for a
		 * process (it may outlive it, ib_open_qp); its receives come
		 * from the XRC SRQs the requests name, completed in theirs.
		 */
		if (!init->xrcd || init->srq)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if ((init->create_flags & ~IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK) ||
	    init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	/* Only UD QPs join groups; the flag means nothing on others. */
	if ((init->create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK) &&
	    init->qp_type != IB_QPT_UD)
		return -EINVAL;
	/* QP1 is ib_mad's: a process gets no GSI QP of its own. */
	if (udata && init->qp_type == IB_QPT_GSI)
		return -EINVAL;
	if (init->srq && init->qp_type == IB_QPT_GSI)
		return -EOPNOTSUPP;
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    (!init->srq && cap->max_recv_wr > SROCE_MAX_QP_WR) ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_recv_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE_DATA)
		return -EINVAL;
	if (sroce_udata_check(udata, sizeof(struct sroce_create_qp_resp)))
		return -EINVAL;
	return 0;
}

/*
 * Size both rings from the requested caps and report what they hold: at
 * least what was asked, since entries and strides round up.  A QP on an
 * SRQ, and an XRC QP, has no RQ (the receive caps are ignored and
 * reported as 0).  An XRC target sends nothing: the core still wants an
 * SQ, of one slot, and its send caps are reported as 0.
 */
static int sroce_kqp_alloc_rings(struct sroce_kqp *kqp, enum ib_qp_type type,
				 struct ib_qp_cap *cap, bool acct)
{
	u32 sq_entries = roundup_pow_of_two(max(cap->max_send_wr, 1u));
	u32 rq_entries = roundup_pow_of_two(max(cap->max_recv_wr, 1u));
	u32 stride, room;
	int err;

	if (type == IB_QPT_XRC_TGT) {
		memset(cap, 0, sizeof(*cap));
		sq_entries = 1;
	}
	stride = sroce_ring_sq_stride(cap->max_send_sge, cap->max_inline_data);
	room = stride - sizeof(struct sroce_send_wqe_abi);
	kqp->max_send_sge = min_t(u32, SROCE_MAX_SGE,
				  room / sizeof(struct sroce_sge_abi));
	kqp->max_inline = min_t(u32, SROCE_MAX_INLINE_DATA, room);
	err = sroce_ring_alloc(&kqp->sq, sq_entries, stride, acct);
	if (err)
		return err;
	if (kqp->srq || type == IB_QPT_XRC_INI || type == IB_QPT_XRC_TGT) {
		rq_entries = 0;
		goto done;
	}

	stride = sroce_ring_rq_stride(cap->max_recv_sge);
	room = stride - sizeof(struct sroce_recv_wqe_abi);
	kqp->max_recv_sge = min_t(u32, SROCE_MAX_SGE,
				  room / sizeof(struct sroce_sge_abi));
	err = sroce_ring_alloc(&kqp->rq, rq_entries, stride, acct);
	if (err) {
		sroce_ring_free(&kqp->sq);
		return err;
	}

done:
	if (type == IB_QPT_XRC_TGT)
		return 0;
	cap->max_send_wr = sq_entries;
	cap->max_recv_wr = rq_entries;
	cap->max_send_sge = kqp->max_send_sge;
	cap->max_recv_sge = kqp->max_recv_sge;
	cap->max_inline_data = kqp->max_inline;
	return 0;
}

static void sroce_kqp_free(struct sroce_kqp *kqp)
{
	sroce_route_reset(&kqp->route);
	sroce_txq_release(kqp->txq);
	sroce_ring_free(&kqp->sq);
	sroce_ring_free(&kqp->rq);
	kvfree(kqp->swqe);
	kvfree(kqp->res);
	sroce_mem_uncharge(kqp->shadow_size);
}

static int sroce_kqp_expose(struct sroce_kqp *kqp, struct ib_udata *udata)
{
	struct sroce_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	struct sroce_create_qp_resp resp = {};
	int err;

	err = sroce_ring_expose(&kqp->sq, &uc->ibuc, &resp.sq);
	if (!err && kqp->rq.buf)
		err = sroce_ring_expose(&kqp->rq, &uc->ibuc, &resp.rq);
	if (err)
		return err;
	resp.max_inline_data = kqp->max_inline;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_kqp *kqp = to_kqp(ibqp);
	struct sroce_qp_init_attr ia = {};
	size_t shadow;
	bool acct;
	u32 slot;
	gfp_t gfp;
	u32 qpn;
	int err;

	err = sroce_kqp_check_init(init, udata);
	if (err)
		return err;
	/*
	 * A target QP is a process's even though it comes without udata
	 * (ib_core makes it for ibv_create_qp_ex() or ibv_open_qp()): its
	 * count, cgroup and budget share are the process's (@acct).
	 */
	acct = udata || init->qp_type == IB_QPT_XRC_TGT;
	err = sroce_obj_add(sdev, SROCE_OBJ_QP, acct);
	if (err)
		return err;

	kqp->sdev = sdev;
	kqp->user = !!udata;
	kqp->srq = init->srq ? to_ssrq(init->srq) : NULL;
	kqp->xrcd = init->qp_type == IB_QPT_XRC_TGT ? init->xrcd : NULL;
	kqp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	kqp->mcast_block_self = !!(init->create_flags &
				   IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK);
	sroce_kqp_exec_init(kqp);
	kqp->txq = sroce_txq_alloc(sdev->txdev, kqp);
	if (!kqp->txq) {
		err = -ENOMEM;
		goto err_obj;
	}
	err = sroce_kqp_alloc_rings(kqp, init->qp_type, &init->cap, acct);
	if (err)
		goto err_free;
	/*
	 * The core's per-WQE state, sized like the SQ stride by what the
	 * QP's WQEs may carry, is larger than the ring itself: the caller's
	 * cgroup and the device budget pay for it, as for rings.
	 */
	slot = sroce_swqe_size(kqp->max_send_sge, kqp->max_inline);
	shadow = array_size(kqp->sq.entries, slot);
	if (sroce_kqp_type_rc(init->qp_type))
		shadow += array_size(SROCE_MAX_RD_ATOMIC, sizeof(*kqp->res));
	if (!sroce_mem_charge(shadow, acct)) {
		err = -ENOMEM;
		goto err_free;
	}
	kqp->shadow_size = shadow;
	gfp = acct ? SROCE_GFP_USER : GFP_KERNEL;
	kqp->swqe = kvcalloc(kqp->sq.entries, slot, gfp);
	if (sroce_kqp_type_rc(init->qp_type))
		kqp->res = kvcalloc(SROCE_MAX_RD_ATOMIC, sizeof(*kqp->res),
				    gfp);
	if (!kqp->swqe || (sroce_kqp_type_rc(init->qp_type) && !kqp->res)) {
		err = -ENOMEM;
		goto err_free;
	}

	/*
	 * Reserve the QPN now, publish the QP only once it is complete.
	 * 0xffffff is the multicast QPN: never a QP's.
	 */
	if (init->qp_type == IB_QPT_GSI) {
		qpn = 1;
		err = xa_insert_bh(&sdev->qps, qpn, NULL, GFP_KERNEL);
	} else {
		err = xa_alloc_cyclic_bh(&sdev->qps, &qpn, NULL,
					 XA_LIMIT(2, SROCE_QPN_MASK - 1),
					 &sdev->qp_next, GFP_KERNEL);
		err = err < 0 ? err : 0;
	}
	if (err)
		goto err_free;
	ibqp->qp_num = qpn;

	ia.type = init->qp_type == IB_QPT_GSI ? SROCE_QPT_UD :
		  (enum sroce_qp_type)init->qp_type;
	ia.qpn = qpn;
	ia.sq = kqp->swqe;
	ia.sq_slot = slot;
	ia.sq_size = kqp->sq.entries;
	ia.rq_size = kqp->rq.entries;
	ia.res = kqp->res;
	ia.max_res = kqp->res ? SROCE_MAX_RD_ATOMIC : 0;
	ia.sq_sig_all = kqp->sq_sig_all;
	ia.srq = !!kqp->srq;
	ia.ud_mtu = sroce_kqp_port_mtu(sdev);
	ia.cc = sroce_cc_qp_params(&kqp->cc);
	ia.ops = &sroce_kqp_core_ops;
	ia.ctx = kqp;
	err = sroce_qp_init(&kqp->core, &ia);
	if (err)
		goto err_qpn;

	if (udata) {
		err = sroce_kqp_expose(kqp, udata);
		if (err)
			goto err_qpn;
	}
	xa_store_bh(&sdev->qps, qpn, kqp, GFP_KERNEL);
	return 0;

err_qpn:
	xa_erase_bh(&sdev->qps, qpn);
err_free:
	sroce_kqp_free(kqp);
err_obj:
	sroce_obj_del(sdev, SROCE_OBJ_QP);
	return err;
}

/* The UDP source port of an RC/UC QP: the flow label's, or the QP pair's. */
static u16 sroce_kqp_src_port(const struct sroce_kqp *kqp, u32 dest_qpn)
{
	if (kqp->av.flow_label)
		return rdma_flow_label_to_udp_sport(kqp->av.flow_label);
	return sroce_net_src_port(kqp->ibqp.qp_num, dest_qpn);
}

static void sroce_kqp_attr_in(struct sroce_dev *sdev,
			      const struct ib_qp_attr *attr, int mask,
			      struct sroce_qp_attr *a)
{
	a->qp_state = (enum sroce_qp_state)attr->qp_state;
	a->cur_qp_state = (enum sroce_qp_state)attr->cur_qp_state;
	a->path_mtu = attr->path_mtu;
	/* Never more than the netdev carries; a bad value is the core's. */
	if ((mask & IB_QP_PATH_MTU) && attr->path_mtu >= IB_MTU_256 &&
	    attr->path_mtu <= IB_MTU_4096)
		a->path_mtu = min(attr->path_mtu, sroce_kqp_port_mtu(sdev));
	a->en_sqd_async_notify = attr->en_sqd_async_notify;
	a->max_rd_atomic = attr->max_rd_atomic;
	a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	a->min_rnr_timer = attr->min_rnr_timer;
	a->port_num = attr->port_num;
	a->timeout = attr->timeout;
	a->retry_cnt = attr->retry_cnt;
	a->rnr_retry = attr->rnr_retry;
	a->pkey_index = attr->pkey_index;
	/* The one-entry table (device.c) holds the default full P_Key. */
	a->pkey = IB_DEFAULT_PKEY_FULL;
	a->qkey = attr->qkey;
	a->rq_psn = attr->rq_psn;
	a->sq_psn = attr->sq_psn;
	a->dest_qp_num = attr->dest_qp_num;
	a->qp_access_flags = attr->qp_access_flags &
			     (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			      IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
			      SROCE_IB_ACCESS_FLUSH);
}

/*
 * modify_qp: the core validates the transition, the mask for the QP type
 * and the values (ib_modify_qp_is_ok and more) and applies them
 * atomically; only what the core does not know is checked here.
 */
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_kqp *kqp = to_kqp(ibqp);
	struct sroce_qp_attr a = {}, cur;
	struct sroce_av av;
	u32 cmask;
	int err;

	if (sroce_udata_check(udata, 0))
		return -EINVAL;
	if (mask & ~SROCE_KQP_MODIFY_MASK)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= SROCE_PORT_PKEY_TBL_LEN)
		return -EINVAL;
	if (mask & IB_QP_AV) {
		err = sroce_av_from_attr(sdev, &attr->ah_attr, &av);
		if (err)
			return err;
	}
	sroce_kqp_attr_in(sdev, attr, mask, &a);
	if (mask & IB_QP_AV) {
		/* The core ties received packets to the path's two ends. */
		sroce_addr_to_gid(av.family, &av.saddr, a.sgid);
		sroce_addr_to_gid(av.family, &av.daddr, a.dgid);
	}
	cmask = mask;
	/*
	 * The GSI QP has no port attribute (ib_mad moves it to INIT with
	 * P_Key index and Q_Key only); the UD core QP it runs on wants one.
	 */
	if (ibqp->qp_type == IB_QPT_GSI && (mask & IB_QP_STATE) &&
	    attr->qp_state == IB_QPS_INIT) {
		cmask |= SROCE_QP_PORT;
		a.port_num = SROCE_PORT;
	}

	sroce_kqp_lock(kqp);
	err = sroce_qp_modify(&kqp->core, &a, cmask, SROCE_NOW_LAZY);
	if (!err) {
		if (mask & IB_QP_AV)
			kqp->av = av;
		if (mask & (IB_QP_AV | IB_QP_DEST_QPN)) {
			/* A new path or source port: look the route up again. */
			sroce_route_reset(&kqp->route);
			sroce_qp_query(&kqp->core, &cur);
			kqp->src_port = sroce_kqp_src_port(kqp,
							   cur.dest_qp_num);
		}
		if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RESET)
			sroce_kqp_rings_reset(kqp);
		/* WQEs posted before RTS, or a flush to finish. */
		sroce_kqp_settle(kqp, false, true);
	}
	sroce_kqp_unlock(kqp);
	return err;
}

/* The RC/UC address vector back as an rdma_ah_attr (no sgid_attr). */
static void sroce_kqp_av_out(const struct sroce_av *av,
			     struct rdma_ah_attr *ah)
{
	union ib_gid dgid;

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, SROCE_PORT);
	rdma_ah_set_sl(ah, av->sl);
	sroce_addr_to_gid(av->family, &av->daddr, dgid.raw);
	rdma_ah_set_grh(ah, &dgid, av->flow_label, av->sgid_index,
			av->hop_limit, av->tclass);
	memcpy(ah->roce.dmac, av->dmac, ETH_ALEN);
}

int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_kqp *kqp = to_kqp(ibqp);
	struct sroce_qp_attr a;
	struct sroce_av av;

	sroce_kqp_lock(kqp);
	sroce_qp_query(&kqp->core, &a);
	av = kqp->av;
	sroce_kqp_unlock(kqp);

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ib_qp_state)a.qp_state;
	attr->cur_qp_state = (enum ib_qp_state)a.cur_qp_state;
	attr->path_mtu = a.path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = a.qkey;
	attr->rq_psn = a.rq_psn;
	attr->sq_psn = a.sq_psn;
	attr->dest_qp_num = a.dest_qp_num;
	attr->qp_access_flags = a.qp_access_flags;
	attr->pkey_index = a.pkey_index;
	attr->en_sqd_async_notify = a.en_sqd_async_notify;
	attr->sq_draining = a.sq_draining;
	attr->max_rd_atomic = a.max_rd_atomic;
	attr->max_dest_rd_atomic = a.max_dest_rd_atomic;
	attr->min_rnr_timer = a.min_rnr_timer;
	attr->port_num = SROCE_PORT;
	attr->timeout = a.timeout;
	attr->retry_cnt = a.retry_cnt;
	attr->rnr_retry = a.rnr_retry;
	if (!sroce_kqp_is_ud(kqp) && av.family)
		sroce_kqp_av_out(&av, &attr->ah_attr);
	attr->cap.max_send_wr = kqp->sq.entries;
	attr->cap.max_recv_wr = kqp->rq.entries;
	attr->cap.max_send_sge = kqp->max_send_sge;
	attr->cap.max_recv_sge = kqp->max_recv_sge;
	attr->cap.max_inline_data = kqp->max_inline;

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->xrcd = kqp->xrcd;
	init->cap = attr->cap;
	init->sq_sig_type = kqp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					      IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = SROCE_PORT;
	if (kqp->mcast_block_self)
		init->create_flags = IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	return 0;
}

/*
 * A destroyed QP completes nothing more: its WQEs vanish with it (verbs
 * leaves flushing to the consumer, ib_drain_qp).  The exception is a user
 * QP taken away by device removal, whose process is still polling: it is
 * flushed first (sroce_kqp_flush_all).  The order (Documentation/
 * datapath.rst, "Objects"): unpublish (multicast groups, then the
 * QPN), stop the timer and work, wait
 * for RX readers, free.
 */
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_kqp *kqp = to_kqp(ibqp);

	if (kqp->user && READ_ONCE(sdev->removing))
		sroce_kqp_flush_all(kqp);
	sroce_mcast_qp_leave_all(kqp);
	xa_erase_bh(&sdev->qps, ibqp->qp_num);
	sroce_kqp_exec_stop(kqp);
	synchronize_rcu();
	sroce_counters_retire_qp(sdev, &kqp->core.stats);
	sroce_kqp_free(kqp);
	sroce_obj_del(sdev, SROCE_OBJ_QP);
	return 0;
}

const struct ib_device_ops sroce_kqp_verbs_ops = {
	SROCE_OPS_QP(sroce_create_qp, sroce_destroy_qp, sroce_kqp, ibqp)
	.modify_qp = sroce_modify_qp,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.query_qp = sroce_query_qp,
};
