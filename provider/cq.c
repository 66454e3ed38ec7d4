// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: completion queues.
 *
 * The kernel writes CQEs into a ring mapped here and publishes prod with a
 * store-release; polling reads prod with a load-acquire, copies the CQEs
 * out and publishes cons with a store-release.  Neither ibv_poll_cq nor
 * the extended poll API enters the kernel.
 */
#include <config.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sroce.h"

static_assert(offsetof(struct sroce_create_cq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_cq_resp),
	      "sroce udata must follow the core reply without padding");
static_assert(offsetof(struct sroce_create_cq_ex_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_ex_create_cq_resp),
	      "sroce udata must follow the core reply without padding");
static_assert(offsetof(struct sroce_resize_cq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_resize_cq_resp),
	      "sroce udata must follow the core reply without padding");

/* The kernel's ib_wc_flags bits as the CQE carries them. */
enum {
	SROCE_KWC_GRH		= 1 << 0,
	SROCE_KWC_WITH_IMM	= 1 << 1,
	SROCE_KWC_WITH_INV	= 1 << 2,
};

/* Every field ibv_wc has, except the completion timestamps. */
#define SROCE_CQ_WC_FLAGS	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
				 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
				 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
				 IBV_WC_EX_WITH_DLID_PATH_BITS | \
				 SROCE_CQ_WC_TS)
#define SROCE_CQ_WC_TS		(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | \
				 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

/*
 * libibverbs numbers WITH_INV 1 << 3 (1 << 2 is IP_CSUM_OK there), so the
 * kernel's bits are translated rather than passed through.
 */
static unsigned int sroce_wc_flags(uint8_t kflags)
{
	unsigned int flags = 0;

	if (kflags & SROCE_KWC_GRH)
		flags |= IBV_WC_GRH;
	if (kflags & SROCE_KWC_WITH_IMM)
		flags |= IBV_WC_WITH_IMM;
	if (kflags & SROCE_KWC_WITH_INV)
		flags |= IBV_WC_WITH_INV;
	return flags;
}

static void sroce_cqe_to_wc(const struct sroce_cqe_abi *cqe,
			    struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	/* Network-order imm_data or host-order rkey: both go as they are. */
	wc->imm_data = cqe->ex;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = sroce_wc_flags(cqe->wc_flags);
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
}

/*
 * A CQ the kernel overflowed has lost a completion and is in error (the
 * kernel also raises IBV_EVENT_CQ_ERR); polling it fails from then on
 * rather than hand out a stream with a hole in it.
 */
static bool sroce_cq_broken(struct sroce_cq *cq)
{
	return cq->lost ||
	       (sroce_load_relaxed(&cq->ring.ctl->prod_flags) &
		SROCE_CQ_OVERFLOW);
}

/* The oldest unread CQE, or NULL; refreshes the cached prod when needed. */
static const struct sroce_cqe_abi *sroce_cq_peek(struct sroce_cq *cq)
{
	struct sroce_uring *r = &cq->ring;

	if (r->idx == r->peer) {
		r->peer = sroce_load_acquire(&r->ctl->prod);
		if (r->idx == r->peer)
			return NULL;
	}
	return sroce_ring_elem(r, r->idx);
}

/* Hand the slot of the CQE just read back to the kernel. */
static void sroce_cq_consume(struct sroce_cq *cq)
{
	cq->ring.idx++;
	sroce_store_release(&cq->ring.ctl->cons, cq->ring.idx);
}

int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	const struct sroce_cqe_abi *cqe;
	int n = 0;

	sroce_cq_lock(cq);
	if (sroce_cq_broken(cq)) {
		n = cq->lost ? -EIO : -EOVERFLOW;
		goto out;
	}
	while (n < ne && (cqe = sroce_cq_peek(cq))) {
		sroce_cqe_to_wc(cqe, &wc[n]);
		cq->ring.idx++;
		n++;
	}
	/* One release store for the whole batch. */
	if (n)
		sroce_store_release(&cq->ring.ctl->cons, cq->ring.idx);
out:
	sroce_cq_unlock(cq);
	return n;
}

/* Extended poll API: the lock is held from a successful start to end. */
static void sroce_cq_set_cur(struct sroce_cq *cq,
			     const struct sroce_cqe_abi *cqe)
{
	cq->cur = cqe;
	cq->vcq.cq_ex.wr_id = cqe->wr_id;
	cq->vcq.cq_ex.status = cqe->status;
}

/*
 * The kernel stamps CQEs with CLOCK_MONOTONIC; wall-clock readers get
 * CLOCK_REALTIME's offset from it as of the start of this poll.
 */
static int64_t sroce_wall_offset(void)
{
	struct timespec mono, real;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	return (int64_t)(real.tv_sec - mono.tv_sec) * 1000000000 +
	       (real.tv_nsec - mono.tv_nsec);
}

static int sroce_start_poll(struct ibv_cq_ex *ibcq,
			    struct ibv_poll_cq_attr *attr)
{
	struct sroce_cq *cq = to_sroce_cq_ex(ibcq);
	const struct sroce_cqe_abi *cqe;

	if (attr->comp_mask)
		return EINVAL;

	sroce_cq_lock(cq);
	if (cq->wallclock)
		cq->wall_off = sroce_wall_offset();
	if (sroce_cq_broken(cq)) {
		sroce_cq_unlock(cq);
		return cq->lost ? EIO : EOVERFLOW;
	}
	cqe = sroce_cq_peek(cq);
	if (!cqe) {
		sroce_cq_unlock(cq);
		return ENOENT;
	}
	sroce_cq_set_cur(cq, cqe);
	return 0;
}

static int sroce_next_poll(struct ibv_cq_ex *ibcq)
{
	struct sroce_cq *cq = to_sroce_cq_ex(ibcq);
	const struct sroce_cqe_abi *cqe;

	if (cq->cur) {
		cq->cur = NULL;
		sroce_cq_consume(cq);
	}
	if (sroce_cq_broken(cq))
		return cq->lost ? EIO : EOVERFLOW;
	cqe = sroce_cq_peek(cq);
	if (!cqe)
		return ENOENT;
	sroce_cq_set_cur(cq, cqe);
	return 0;
}

static void sroce_end_poll(struct ibv_cq_ex *ibcq)
{
	struct sroce_cq *cq = to_sroce_cq_ex(ibcq);

	if (cq->cur) {
		cq->cur = NULL;
		sroce_cq_consume(cq);
	}
	sroce_cq_unlock(cq);
}

static enum ibv_wc_opcode sroce_read_opcode(struct ibv_cq_ex *ibcq)
{
	return to_sroce_cq_ex(ibcq)->cur->opcode;
}

static uint32_t sroce_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_sroce_cq_ex(ibcq)->cur->vendor_err;
}

static uint32_t sroce_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return to_sroce_cq_ex(ibcq)->cur->byte_len;
}

static __be32 sroce_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return (__be32)to_sroce_cq_ex(ibcq)->cur->ex;
}

static uint32_t sroce_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return to_sroce_cq_ex(ibcq)->cur->qp_num;
}

static uint32_t sroce_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return to_sroce_cq_ex(ibcq)->cur->src_qp;
}

static unsigned int sroce_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return sroce_wc_flags(to_sroce_cq_ex(ibcq)->cur->wc_flags);
}

static uint32_t sroce_read_slid(struct ibv_cq_ex *ibcq)
{
	return to_sroce_cq_ex(ibcq)->cur->slid;
}

static uint8_t sroce_read_sl(struct ibv_cq_ex *ibcq)
{
	return to_sroce_cq_ex(ibcq)->cur->sl;
}

static uint8_t sroce_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return to_sroce_cq_ex(ibcq)->cur->dlid_path_bits;
}

static uint64_t sroce_read_completion_ts(struct ibv_cq_ex *ibcq)
{
	return to_sroce_cq_ex(ibcq)->cur->ts;
}

static uint64_t sroce_read_completion_wallclock_ns(struct ibv_cq_ex *ibcq)
{
	struct sroce_cq *cq = to_sroce_cq_ex(ibcq);

	return cq->cur->ts + cq->wall_off;
}

/*
 * The device clock is CLOCK_MONOTONIC in nanoseconds (hca_core_clock
 * 1 GHz); like mlx5, the raw count goes in tv_nsec.
 */
int sroce_query_rt_values(struct ibv_context *ibctx,
			  struct ibv_values_ex *values)
{
	struct timespec now;

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = (uint64_t)now.tv_sec * 1000000000 +
					    now.tv_nsec;
	}
	return 0;
}

static void sroce_cq_ex_init(struct sroce_cq *cq)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = sroce_start_poll;
	cqx->next_poll = sroce_next_poll;
	cqx->end_poll = sroce_end_poll;
	cqx->read_opcode = sroce_read_opcode;
	cqx->read_vendor_err = sroce_read_vendor_err;
	cqx->read_wc_flags = sroce_read_wc_flags;
	cqx->read_byte_len = sroce_read_byte_len;
	cqx->read_imm_data = sroce_read_imm_data;
	cqx->read_qp_num = sroce_read_qp_num;
	cqx->read_src_qp = sroce_read_src_qp;
	cqx->read_slid = sroce_read_slid;
	cqx->read_sl = sroce_read_sl;
	cqx->read_dlid_path_bits = sroce_read_dlid_path_bits;
	cqx->read_completion_ts = sroce_read_completion_ts;
	cqx->read_completion_wallclock_ns = sroce_read_completion_wallclock_ns;
}

/*
 * The CQE bytes this CQ reads: a module from before completion timestamps
 * has a 48-byte stride, enough for a CQ without them.
 */
static size_t sroce_cqe_min(const struct sroce_cq *cq)
{
	return cq->ts ? sizeof(struct sroce_cqe_abi) :
			offsetof(struct sroce_cqe_abi, reserved2);
}

/* Map the ring the create response describes; destroys the CQ on error. */
static int sroce_cq_map(struct sroce_cq *cq, struct ibv_context *ibctx,
			const struct sroce_ring_abi *abi)
{
	int ret;

	ret = sroce_ring_map(&cq->ring, ibctx->cmd_fd, abi, sroce_cqe_min(cq),
			     false);
	if (ret) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		return ret;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct sroce_create_cq_resp_buf resp = {};
	struct sroce_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				NULL, 0, &resp.ibv_resp, sizeof(resp));
	if (!ret)
		ret = sroce_cq_map(cq, ibctx, &resp.drv.cq);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	return &cq->vcq.cq;
}

struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct sroce_create_cq_ex_resp_buf resp = {};
	struct sroce_cq *cq;
	int ret;

	/*
	 * No vendor field.  Asking for either timestamp makes libibverbs
	 * ask the kernel to stamp the CQEs
	 * (IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION).
	 */
	if ((attr->wc_flags & ~(uint64_t)SROCE_CQ_WC_FLAGS) ||
	    (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					   IBV_CQ_INIT_ATTR_MASK_PD)) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!attr->parent_domain || !sroce_pd_is_parent(attr->parent_domain) ||
	     attr->parent_domain->context != ibctx)) {
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->ts = attr->wc_flags & SROCE_CQ_WC_TS;
	cq->wallclock = attr->wc_flags &
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;

	ret = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, NULL, 0,
				   &resp.ibv_resp, sizeof(resp), 0);
	if (!ret)
		ret = sroce_cq_map(cq, ibctx, &resp.drv.cq);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	/*
	 * One thread at a time, by a thread domain's promise or by the
	 * flag's: the CQ goes without its lock.
	 */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		cq->parent = attr->parent_domain;
		cq->lockless = sroce_pd_hold(cq->parent);
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		cq->lockless = true;
	sroce_cq_ex_init(cq);
	return &cq->vcq.cq_ex;
}

/* Arming is the ordinary uverbs command: the kernel owns the events. */
int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/*
 * The kernel builds a new ring, moves the CQEs not yet consumed (as our
 * cons in the old ring says; the lock keeps it still) into it and starts
 * the new ring's indices where those entries are; we adopt its indices
 * and drop the old mapping.
 */
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sroce_resize_cq_resp_buf resp = {};
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_uring old;
	struct ibv_resize_cq cmd;
	int ret;

	sroce_cq_lock(cq);
	if (cq->lost) {
		ret = EIO;
		goto out;
	}
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto out;

	old = cq->ring;
	ret = sroce_ring_map(&cq->ring, ibcq->context->cmd_fd, &resp.drv.cq,
			     sroce_cqe_min(cq), false);
	if (ret) {
		/* The kernel writes only to the new ring now. */
		cq->ring = old;
		cq->lost = true;
		goto out;
	}
	sroce_ring_unmap(&old);
out:
	sroce_cq_unlock(cq);
	return ret;
}

int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;

	if (cq->parent)
		sroce_pd_release(cq->parent);
	sroce_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}
