// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: shared receive queues.
 *
 * An SRQ is one ring mapped from the kernel, in the RQ's format.
 * post_srq_recv writes receive WQEs into it and publishes prod; the
 * kernel's responder takes them for whichever attached QP a message
 * arrives on, so posting never enters the kernel.  Arming the limit and
 * resizing are ibv_modify_srq (a command); the event arrives on the
 * async fd.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

static_assert(offsetof(struct sroce_create_srq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_srq_resp),
	      "sroce udata must follow the core reply without padding");
static_assert(offsetof(struct sroce_modify_srq_cmd_buf, drv) ==
	      sizeof(struct ibv_modify_srq),
	      "sroce udata must follow the core command without padding");

/* Map the ring the create command described; the SRQ exists already. */
static int sroce_srq_map(struct sroce_srq *srq, int cmd_fd,
			 const struct sroce_create_srq_resp *drv,
			 struct ibv_srq_attr *attr)
{
	const size_t hdr = sizeof(struct sroce_recv_wqe_abi);
	const size_t sge = sizeof(struct sroce_sge_abi);
	int ret;

	ret = sroce_ring_map(&srq->rq.ring, cmd_fd, &drv->rq, hdr, true);
	if (ret)
		return ret;
	/* Never trust a cap the ring's stride could not hold. */
	srq->rq.max_sge = drv->max_sge;
	if (srq->rq.max_sge > (srq->rq.ring.stride - hdr) / sge)
		srq->rq.max_sge = (srq->rq.ring.stride - hdr) / sge;
	attr->max_sge = srq->rq.max_sge;
	pthread_spin_init(&srq->rq.lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

/*
 * After the create command (@ret its result): map the ring, or undo the
 * command; the SRQ, or NULL with errno set.
 */
static struct ibv_srq *sroce_srq_finish(struct sroce_srq *srq, int ret,
					int fd,
					const struct sroce_create_srq_resp *drv,
					struct ibv_srq_attr *attr)
{
	if (!ret) {
		ret = sroce_srq_map(srq, fd, drv, attr);
		if (!ret)
			return &srq->vsrq.srq;
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
	}
	free(srq);
	errno = ret;
	return NULL;
}

struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr)
{
	struct sroce_create_srq_resp_buf resp = {};
	struct ibv_create_srq cmd = {};
	struct sroce_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;

	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	return sroce_srq_finish(srq, ret, pd->context->cmd_fd, &resp.drv,
				&attr->attr);
}

/*
 * ibv_create_srq_ex: libibverbs sends plain SRQs to create_srq, so this
 * sees XRC SRQs (IBV_SRQT_XRC), which need an XRC domain and a CQ, the
 * one their receive completions go to.  Tag matching is not offered.
 */
struct ibv_srq *sroce_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr)
{
	const uint32_t xrc = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	struct sroce_create_srq_resp_buf resp = {};
	struct ibv_create_xsrq cmd = {};
	enum ibv_srq_type type = IBV_SRQT_BASIC;
	struct sroce_srq *srq;
	int ret;

	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if ((attr->comp_mask & ~xrc) ||
	    (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    (type == IBV_SRQT_XRC &&
	     ((attr->comp_mask & xrc) != xrc || !attr->xrcd || !attr->cq))) {
		errno = EINVAL;
		return NULL;
	}

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq_ex(ibctx, &srq->vsrq, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	return sroce_srq_finish(srq, ret, ibctx->cmd_fd, &resp.drv, &attr->attr);
}

/* The number XRC senders name the SRQ by (ibv_wr_set_xrc_srqn). */
int sroce_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct sroce_srq *srq = to_sroce_srq(ibsrq);

	if (srq->vsrq.srq_type != IBV_SRQT_XRC)
		return EINVAL;
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

/*
 * A resize (IBV_SRQ_MAX_WR) replaces the ring: the kernel copies the WQEs
 * posted and not yet taken into a new one, at the same indices, and
 * writes where to map it into @resp (uverbs has no response buffer for
 * this verb; uapi/sroce-abi.h).  The post lock is held across the
 * command, so that no WQE lands in the old ring after the kernel has
 * read prod; once the command succeeded the new ring is mapped, its
 * indices adopted, and the old one unmapped.  A limit alone is sent
 * without our input, as it always was.
 */
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	const size_t hdr = sizeof(struct sroce_recv_wqe_abi);
	struct sroce_srq *srq = to_sroce_srq(ibsrq);
	struct sroce_modify_srq_cmd_buf cmd = {};
	struct sroce_modify_srq_resp resp = {};
	struct sroce_uring old;
	int ret;

	if (!(attr_mask & IBV_SRQ_MAX_WR))
		return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					  sizeof(cmd.ibv_cmd));

	cmd.drv.resp_addr = (uintptr_t)&resp;
	pthread_spin_lock(&srq->rq.lock);
	if (srq->lost) {
		ret = EIO;
		goto out;
	}
	ret = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (ret)
		goto out;

	old = srq->rq.ring;
	ret = sroce_ring_map(&srq->rq.ring, ibsrq->context->cmd_fd, &resp.rq,
			     hdr + srq->rq.max_sge *
				   sizeof(struct sroce_sge_abi), true);
	if (ret) {
		/* The kernel reads only the new ring now. */
		srq->rq.ring = old;
		srq->lost = true;
		goto out;
	}
	sroce_ring_unmap(&old);
out:
	pthread_spin_unlock(&srq->rq.lock);
	return ret;
}

int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};
	int ret;

	ret = ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
	if (!ret)
		attr->max_sge = to_sroce_srq(ibsrq)->rq.max_sge;
	return ret;
}

int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sroce_srq *srq = to_sroce_srq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;

	sroce_ring_unmap(&srq->rq.ring);
	pthread_spin_destroy(&srq->rq.lock);
	free(srq);
	return 0;
}

int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct sroce_wq *rq = &to_sroce_srq(ibsrq)->rq;
	int ret;

	pthread_spin_lock(&rq->lock);
	if (to_sroce_srq(ibsrq)->lost) {
		*bad_wr = wr;
		ret = EIO;
	} else {
		ret = sroce_wq_post_recv(rq, wr, bad_wr);
	}
	pthread_spin_unlock(&rq->lock);
	return ret;
}
