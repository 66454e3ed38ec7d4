// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: queue pairs and the receive path.
 *
 * A QP's SQ and RQ are rings mapped from the kernel.  post_recv writes
 * receive WQEs into the RQ and publishes prod; the kernel's responder
 * reads the RQ when a message arrives, so posting a receive never enters
 * the kernel.  The send path is in send.c.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

static_assert(offsetof(struct sroce_create_qp_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_qp_resp),
	      "sroce udata must follow the core reply without padding");
static_assert(offsetof(struct sroce_create_qp_ex_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_ex_create_qp_resp),
	      "sroce udata must follow the core reply without padding");
/* ibv_sge and the ring's SGE are the same 16 bytes: copied as they are. */
static_assert(sizeof(struct ibv_sge) == sizeof(struct sroce_sge_abi) &&
	      offsetof(struct ibv_sge, addr) ==
	      offsetof(struct sroce_sge_abi, addr) &&
	      offsetof(struct ibv_sge, length) ==
	      offsetof(struct sroce_sge_abi, length) &&
	      offsetof(struct ibv_sge, lkey) ==
	      offsetof(struct sroce_sge_abi, lkey),
	      "struct ibv_sge and struct sroce_sge_abi differ");

static uint32_t sroce_min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static int sroce_qp_map(struct sroce_qp *qp, int cmd_fd,
			const struct sroce_create_qp_resp *drv,
			const struct ibv_qp_cap *cap)
{
	const size_t send_hdr = sizeof(struct sroce_send_wqe_abi);
	const size_t recv_hdr = sizeof(struct sroce_recv_wqe_abi);
	const size_t sge = sizeof(struct sroce_sge_abi);
	int ret;

	ret = sroce_ring_map(&qp->sq.ring, cmd_fd, &drv->sq, send_hdr, true);
	if (ret)
		return ret;
	/* Never trust a cap the ring's stride could not hold. */
	qp->sq.max_sge = sroce_min_u32(cap->max_send_sge,
				       (qp->sq.ring.stride - send_hdr) / sge);
	qp->sq.max_inline = sroce_min_u32(drv->max_inline_data,
					  qp->sq.ring.stride - send_hdr);

	if (drv->rq.entries) {
		ret = sroce_ring_map(&qp->rq.ring, cmd_fd, &drv->rq, recv_hdr,
				     true);
		if (ret) {
			sroce_ring_unmap(&qp->sq.ring);
			return ret;
		}
		qp->rq.max_sge = sroce_min_u32(cap->max_recv_sge,
					       (qp->rq.ring.stride - recv_hdr) /
					       sge);
	}
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

/* A QP without rings (XRC target): destroy finds the locks set up. */
static void sroce_qp_no_rings(struct sroce_qp *qp)
{
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
}

static int sroce_check_qp_attr(const struct ibv_qp_init_attr_ex *attr)
{
	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_XRC_SEND:
		break;
	case IBV_QPT_XRC_RECV:
		/* Receives into the XRC SRQs of its domain; sends nothing. */
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd)
			return EINVAL;
		break;
	default:
		return EOPNOTSUPP;
	}
	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					  IBV_QP_INIT_ATTR_XRCD |
					  IBV_QP_INIT_ATTR_CREATE_FLAGS |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return EOPNOTSUPP;
	/*
	 * One create flag is implemented: a UD QP may refuse the multicast
	 * it sends itself.  Zero is a valid request (the mask bit only says
	 * the field is filled in); any other flag is EOPNOTSUPP, as
	 * rdma-core's rxe and siw answer it.
	 */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    (attr->create_flags & ~(uint32_t)IBV_QP_CREATE_BLOCK_SELF_MCAST_LB))
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~sroce_send_ops_supported(attr->qp_type)))
		return EOPNOTSUPP;
	return 0;
}

/*
 * The create command: the extended one when a create flag is set (only
 * it carries them), else the plain one.  Either way the driver's reply
 * lands in *@drv.
 */
static int sroce_cmd_create_qp(struct ibv_context *ibctx, struct sroce_qp *qp,
			       struct ibv_qp_init_attr_ex *attr,
			       struct sroce_create_qp_resp *drv)
{
	struct sroce_create_qp_ex_resp_buf resp_ex = {};
	struct sroce_create_qp_resp_buf resp = {};
	struct ibv_create_qp_ex cmd_ex = {};
	struct ibv_create_qp cmd = {};
	int ret;

	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags) {
		ret = ibv_cmd_create_qp_ex2(ibctx, &qp->vqp, attr, &cmd_ex,
					    sizeof(cmd_ex), &resp_ex.ibv_resp,
					    sizeof(resp_ex));
		if (!ret)
			*drv = resp_ex.drv;
		return ret;
	}
	/*
	 * ibv_cmd_create_qp_ex() refuses the CREATE_FLAGS bit (EINVAL) even
	 * with no flag in it, and there is nothing to pass: the command gets
	 * a copy without it.
	 */
	attr->comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ret = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, attr, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp));
	if (!ret)
		*drv = resp.drv;
	return ret;
}

struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr_ex cmd_attr;
	struct sroce_create_qp_resp drv;
	struct sroce_qp *qp;
	int ret;

	ret = sroce_check_qp_attr(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	cmd_attr = *attr;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	ret = sroce_cmd_create_qp(ibctx, qp, &cmd_attr, &drv);
	if (ret)
		goto err_free;
	/* The command reports the caps in what it was given. */
	attr->cap = cmd_attr.cap;
	/*
	 * An XRC target lives in the kernel, for its domain (others open
	 * it): no rings, nothing posted to it from here.
	 */
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		sroce_qp_no_rings(qp);
		memset(&attr->cap, 0, sizeof(attr->cap));
		return &qp->vqp.qp;
	}

	ret = sroce_qp_map(qp, ibctx->cmd_fd, &drv, &attr->cap);
	if (ret)
		goto err_destroy;

	/* A thread domain's promise: one thread at a time, no locks. */
	qp->sq.lockless = sroce_pd_hold(qp->vqp.qp.pd);
	qp->rq.lockless = qp->sq.lockless;

	/* What the rings can really take is what the caller gets told. */
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->rq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;

	/* Set after the command: it resets vqp.comp_mask. */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		sroce_qp_ex_init(qp, attr->send_ops_flags);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

/*
 * ibv_open_qp: a handle on an XRC target QP of the domain, made by this
 * or another process.  Like the one that created it, it has no rings:
 * it is modified, queried and destroyed, never posted to.
 */
struct ibv_qp *sroce_open_qp(struct ibv_context *ibctx,
			     struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd = {};
	struct sroce_qp *qp;
	int ret;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	ret = ibv_cmd_open_qp(ibctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	sroce_qp_no_rings(qp);
	return &qp->vqp.qp;
}

struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	qp = sroce_create_qp_ex(pd->context, &attr_ex);
	if (qp)
		attr->cap = attr_ex.cap;
	return qp;
}

int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct ibv_query_qp cmd = {};
	int ret;

	ret = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr,
			       &cmd, sizeof(cmd));
	if (ret)
		return ret;
	/* Report the limits post_send and post_recv enforce. */
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->rq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	init_attr->cap = attr->cap;
	return 0;
}

int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_qp cmd = {};

	return ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
}

int sroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	/* An XRC target has no PD (vqp.qp.pd is NULL). */
	if (qp->vqp.qp.pd)
		sroce_pd_release(qp->vqp.qp.pd);
	sroce_ring_unmap(&qp->rq.ring);
	sroce_ring_unmap(&qp->sq.ring);
	pthread_spin_destroy(&qp->rq.lock);
	pthread_spin_destroy(&qp->sq.lock);
	free(qp);
	return 0;
}

/*
 * Write @wr's WQEs into @rq (lock held) and publish prod once.  Shared by
 * a QP's RQ and an SRQ (srq.c): the same ring format.
 */
int sroce_wq_post_recv(struct sroce_wq *rq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct sroce_recv_wqe_abi *wqe;
	uint32_t prod = rq->ring.idx;
	int ret = 0;

	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge) {
			ret = EINVAL;
			break;
		}
		if (sroce_wq_full(rq, prod)) {
			ret = ENOMEM;
			break;
		}
		wqe = sroce_ring_elem(&rq->ring, prod);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved = 0;
		if (wr->num_sge)
			memcpy(wqe + 1, wr->sg_list,
			       wr->num_sge * sizeof(struct sroce_sge_abi));
		prod++;
	}
	if (prod != rq->ring.idx) {
		rq->ring.idx = prod;
		/* The WQEs above become visible no later than prod. */
		sroce_store_release(&rq->ring.ctl->prod, prod);
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct sroce_wq *rq = &to_sroce_qp(ibqp)->rq;
	int ret;

	/*
	 * Receives may be posted from INIT on (verbs), never in RESET; a QP
	 * on an SRQ has no RQ.
	 */
	if (!rq->ring.buf || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}

	sroce_wq_lock(rq);
	ret = sroce_wq_post_recv(rq, wr, bad_wr);
	sroce_wq_unlock(rq);
	return ret;
}

/*
 * Multicast attachments live in the kernel's group table, which the
 * receive path fans out over; uverbs answers a repeated attach itself.
 */
int sroce_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		       uint16_t lid)
{
	return ibv_cmd_attach_mcast(qp, gid, lid);
}

int sroce_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		       uint16_t lid)
{
	return ibv_cmd_detach_mcast(qp, gid, lid);
}
