// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: the send path, ibv_post_send and the
 * ibv_qp_ex work-request builders.
 *
 * Send WQEs go into the SQ ring; prod is published with a store-release.
 * The kernel then has to be told, unless it is already draining this SQ:
 * while it drains it sets SROCE_SQ_DRAINING in cons_flags and promises to
 * read prod again before it stops.  So after publishing prod we issue a
 * full barrier and read the flag; only if it is clear do we ring the
 * doorbell (doorbell.c), a uverbs POST_SEND carrying no work requests.
 * The barrier pairs with the kernel's (clear flag, barrier, re-read
 * prod): either the kernel sees our prod or we see the flag clear and
 * ring.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

#define SROCE_SEND_FLAGS	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | \
				 IBV_SEND_SOLICITED | IBV_SEND_INLINE)

#define SROCE_UD_SEND_OPS	(IBV_QP_EX_WITH_SEND | \
				 IBV_QP_EX_WITH_SEND_WITH_IMM)
#define SROCE_UC_SEND_OPS	(SROCE_UD_SEND_OPS | \
				 IBV_QP_EX_WITH_RDMA_WRITE | \
				 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
				 IBV_QP_EX_WITH_BIND_MW | \
				 IBV_QP_EX_WITH_LOCAL_INV)
#define SROCE_RC_SEND_OPS	(SROCE_UC_SEND_OPS | \
				 IBV_QP_EX_WITH_RDMA_READ | \
				 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
				 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
				 IBV_QP_EX_WITH_SEND_WITH_INV | \
				 IBV_QP_EX_WITH_ATOMIC_WRITE | \
				 IBV_QP_EX_WITH_FLUSH)

uint64_t sroce_send_ops_supported(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return SROCE_RC_SEND_OPS;
	case IBV_QPT_UC:
		return SROCE_UC_SEND_OPS;
	case IBV_QPT_UD:
		return SROCE_UD_SEND_OPS;
	case IBV_QPT_XRC_SEND:
		/* RC's, but for the placement operations (not on XRC). */
		return SROCE_RC_SEND_OPS & ~(uint64_t)(IBV_QP_EX_WITH_ATOMIC_WRITE |
						       IBV_QP_EX_WITH_FLUSH);
	default:
		return 0;
	}
}

/*
 * Opcodes by QP type, following the transport's opcode tables: UD has
 * only SEND; UC has no READ, atomics or SEND with Invalidate.  ATOMIC
 * WRITE and FLUSH have no ibv_send_wr fields: ibv_wr_*() only.
 */
static bool sroce_opcode_ok(enum ibv_qp_type type, enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return true;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_BIND_MW:
	case IBV_WR_LOCAL_INV:
		return type != IBV_QPT_UD;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		return type == IBV_QPT_RC || type == IBV_QPT_XRC_SEND;
	default:
		return false;
	}
}

/* XRCETH carries a 24-bit SRQ number. */
#define SROCE_XRC_SRQN_MAX	0xffffffu

/* Inline data only makes sense where the payload leaves from here. */
static bool sroce_opcode_inline_ok(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* Make the WQEs up to @prod visible: they are written before prod is. */
static void sroce_sq_publish(struct sroce_qp *qp, uint32_t prod)
{
	struct sroce_uring *r = &qp->sq.ring;

	r->idx = prod;
	sroce_store_release(&r->ctl->prod, prod);
}

/*
 * Called after sq.lock is dropped: a doorbell is a syscall and nobody
 * else needs to wait for it.  Returns 0 or the command's errno.
 */
static int sroce_sq_doorbell(struct sroce_qp *qp)
{
	/* Orders our prod store before the flag load (StoreLoad). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (sroce_load_relaxed(&qp->sq.ring.ctl->cons_flags) &
	    SROCE_SQ_DRAINING)
		return 0;
	return sroce_cmd_doorbell(qp);
}

static int sroce_build_send(struct sroce_qp *qp, const struct ibv_send_wr *wr,
			    struct sroce_send_wqe_abi *wqe)
{
	enum ibv_qp_type type = qp->vqp.qp.qp_type;
	uint32_t len = 0;
	uint8_t *data;
	int i;

	if (!sroce_opcode_ok(type, wr->opcode) ||
	    (wr->send_flags & ~SROCE_SEND_FLAGS) ||
	    wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	if (type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	if (type == IBV_QPT_XRC_SEND &&
	    wr->qp_type.xrc.remote_srqn > SROCE_XRC_SRQN_MAX)
		return EINVAL;
	if (wr->send_flags & IBV_SEND_INLINE) {
		if (!sroce_opcode_inline_ok(wr->opcode))
			return EINVAL;
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->sq.max_inline)
			return EINVAL;
	}

	/* Every byte of the header is written: the slot is reused. */
	*wqe = (struct sroce_send_wqe_abi){
		.wr_id = wr->wr_id,
		.opcode = wr->opcode,
		.send_flags = wr->send_flags,
	};
	if (type == IBV_QPT_XRC_SEND)
		wqe->xrc_srqn = wr->qp_type.xrc.remote_srqn;

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex = (uint32_t)wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->ex = wr->invalidate_rkey;
		break;
	case IBV_WR_BIND_MW:
		if (!wr->bind_mw.mw)
			return EINVAL;
		sroce_build_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				 &wr->bind_mw.bind_info);
		return 0;
	default:
		break;
	}

	if (type == IBV_QPT_UD) {
		wqe->ud.ah_num = to_sroce_ah(wr->wr.ud.ah)->ah_num;
		wqe->ud.remote_qpn = wr->wr.ud.remote_qpn;
		wqe->ud.remote_qkey = wr->wr.ud.remote_qkey;
	} else {
		switch (wr->opcode) {
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
		case IBV_WR_RDMA_READ:
			wqe->rdma.remote_addr = wr->wr.rdma.remote_addr;
			wqe->rdma.rkey = wr->wr.rdma.rkey;
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			wqe->atomic.remote_addr = wr->wr.atomic.remote_addr;
			wqe->atomic.compare_add = wr->wr.atomic.compare_add;
			wqe->atomic.swap = wr->wr.atomic.swap;
			wqe->atomic.rkey = wr->wr.atomic.rkey;
			break;
		default:
			break;
		}
	}

	if (wr->send_flags & IBV_SEND_INLINE) {
		/* Gathered now: the buffers are the caller's again on return. */
		data = (uint8_t *)(wqe + 1);
		for (i = 0; i < wr->num_sge; i++) {
			if (!wr->sg_list[i].length)
				continue;
			memcpy(data, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			data += wr->sg_list[i].length;
		}
		wqe->inline_len = len;
	} else if (wr->num_sge) {
		/* (sg_list may be NULL when num_sge is 0) */
		wqe->num_sge = wr->num_sge;
		memcpy(wqe + 1, wr->sg_list,
		       wr->num_sge * sizeof(struct sroce_sge_abi));
	}
	return 0;
}

int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct ibv_send_wr *first = wr;
	uint32_t prod;
	int ret = 0;
	int db;

	/*
	 * Verbs refuse sends before RTS.  libibverbs keeps qp->state from
	 * ibv_modify_qp; a kernel-side move to ERR is not seen here, and
	 * needs not be: posting in ERR is allowed (the WQEs are flushed).
	 */
	if (ibqp->state < IBV_QPS_RTS || !qp->sq.ring.buf) {
		*bad_wr = wr;
		return EINVAL;
	}

	sroce_wq_lock(&qp->sq);
	prod = qp->sq.ring.idx;
	for (; wr; wr = wr->next) {
		if (sroce_wq_full(&qp->sq, prod)) {
			ret = ENOMEM;
			break;
		}
		ret = sroce_build_send(qp, wr,
				       sroce_ring_elem(&qp->sq.ring, prod));
		if (ret)
			break;
		prod++;
	}
	if (prod == qp->sq.ring.idx) {
		sroce_wq_unlock(&qp->sq);
		*bad_wr = wr;
		return ret;
	}
	sroce_sq_publish(qp, prod);
	sroce_wq_unlock(&qp->sq);

	db = sroce_sq_doorbell(qp);
	if (ret) {
		*bad_wr = wr;
		return ret;
	}
	if (db) {
		/* The WQEs are queued but the kernel may not know it. */
		*bad_wr = first;
		return db;
	}
	return 0;
}

/*
 * ibv_qp_ex builders.  wr_start takes sq.lock and wr_complete or
 * wr_abort drops it; in between WQEs are written at wr_prod but prod is
 * published only by wr_complete, so wr_abort simply forgets them and an
 * error anywhere makes wr_complete post none of them.
 */
static void sroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);

	sroce_wq_lock(&qp->sq);
	qp->wr_prod = qp->sq.ring.idx;
	qp->wr_cur = NULL;
	qp->wr_err = 0;
}

static int sroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);
	int ret = qp->wr_err;
	bool posted = false;

	if (!ret && qp->vqp.qp.state < IBV_QPS_RTS)
		ret = EINVAL;	/* as ibv_post_send */

	if (!ret && qp->wr_prod != qp->sq.ring.idx) {
		sroce_sq_publish(qp, qp->wr_prod);
		posted = true;
	}
	qp->wr_cur = NULL;
	sroce_wq_unlock(&qp->sq);

	if (posted)
		ret = sroce_sq_doorbell(qp);
	return ret;
}

static void sroce_wr_abort(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);

	qp->wr_cur = NULL;
	sroce_wq_unlock(&qp->sq);
}

static void sroce_wr_fail(struct sroce_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
	qp->wr_cur = NULL;
}

/* Start the next WQE with @opcode; NULL after any error in this batch. */
static struct sroce_send_wqe_abi *sroce_wr_new(struct ibv_qp_ex *qpx,
					       enum ibv_wr_opcode opcode)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);
	struct sroce_send_wqe_abi *wqe;

	if (qp->wr_err)
		return NULL;
	/* Inline is chosen by wr_set_inline_data*, not by a flag. */
	if (qpx->wr_flags & ~(unsigned int)(SROCE_SEND_FLAGS &
					    ~IBV_SEND_INLINE)) {
		sroce_wr_fail(qp, EINVAL);
		return NULL;
	}
	if (sroce_wq_full(&qp->sq, qp->wr_prod)) {
		sroce_wr_fail(qp, ENOMEM);
		return NULL;
	}
	wqe = sroce_ring_elem(&qp->sq.ring, qp->wr_prod++);
	*wqe = (struct sroce_send_wqe_abi){
		.wr_id = qpx->wr_id,
		.opcode = opcode,
		.send_flags = qpx->wr_flags,
	};
	qp->wr_cur = wqe;
	return wqe;
}

static void sroce_wr_send(struct ibv_qp_ex *qpx)
{
	sroce_wr_new(qpx, IBV_WR_SEND);
}

static void sroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct sroce_send_wqe_abi *wqe;

	wqe = sroce_wr_new(qpx, IBV_WR_SEND_WITH_IMM);
	if (wqe)
		wqe->ex = (uint32_t)imm_data;
}

static void sroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe_abi *wqe;

	wqe = sroce_wr_new(qpx, IBV_WR_SEND_WITH_INV);
	if (wqe)
		wqe->ex = invalidate_rkey;
}

static void sroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe_abi *wqe;

	wqe = sroce_wr_new(qpx, IBV_WR_LOCAL_INV);
	if (wqe)
		wqe->ex = invalidate_rkey;
}

static void sroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *info)
{
	struct sroce_send_wqe_abi *wqe;

	wqe = sroce_wr_new(qpx, IBV_WR_BIND_MW);
	if (wqe)
		sroce_build_bind(wqe, mw, rkey, info);
}

static void sroce_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			  uint32_t rkey, uint64_t remote_addr)
{
	struct sroce_send_wqe_abi *wqe;

	wqe = sroce_wr_new(qpx, opcode);
	if (!wqe)
		return;
	wqe->rdma.remote_addr = remote_addr;
	wqe->rdma.rkey = rkey;
}

static void sroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	sroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr);
}

static void sroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);

	sroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr);
	if (qp->wr_cur)
		qp->wr_cur->ex = (uint32_t)imm_data;
}

static void sroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	sroce_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr);
}

static void sroce_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			    uint32_t rkey, uint64_t remote_addr,
			    uint64_t compare_add, uint64_t swap)
{
	struct sroce_send_wqe_abi *wqe;

	wqe = sroce_wr_new(qpx, opcode);
	if (!wqe)
		return;
	wqe->atomic.remote_addr = remote_addr;
	wqe->atomic.compare_add = compare_add;
	wqe->atomic.swap = swap;
	wqe->atomic.rkey = rkey;
}

static void sroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	sroce_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			compare, swap);
}

static void sroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	sroce_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
			add, 0);
}

/* The value is copied now: the caller's buffer is its own on return. */
static void sroce_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct sroce_send_wqe_abi *wqe;

	wqe = sroce_wr_new(qpx, IBV_WR_ATOMIC_WRITE);
	if (!wqe)
		return;
	wqe->atomic_wr.remote_addr = remote_addr;
	wqe->atomic_wr.rkey = rkey;
	memcpy(wqe->atomic_wr.value, atomic_wr, sizeof(wqe->atomic_wr.value));
}

/* Type and level are checked by the kernel, which fails a bad WQE. */
static void sroce_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
			   uint64_t remote_addr, size_t len, uint8_t type,
			   uint8_t level)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);
	struct sroce_send_wqe_abi *wqe;

	wqe = sroce_wr_new(qpx, IBV_WR_FLUSH);
	if (!wqe)
		return;
	/* The RETH's DMA length is 32 bits. */
	if (len > UINT32_MAX) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	wqe->flush.remote_addr = remote_addr;
	wqe->flush.rkey = rkey;
	wqe->flush.length = len;
	wqe->flush.type = type;
	wqe->flush.level = level;
}

static void sroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);
	struct sroce_send_wqe_abi *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (qp->vqp.qp.qp_type != IBV_QPT_UD || !ah) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	wqe->ud.ah_num = to_sroce_ah(ah)->ah_num;
	wqe->ud.remote_qpn = remote_qpn;
	wqe->ud.remote_qkey = remote_qkey;
}

static void sroce_wr_set_xrc_srqn(struct ibv_qp_ex *qpx,
				  uint32_t remote_srqn)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);
	struct sroce_send_wqe_abi *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (qp->vqp.qp.qp_type != IBV_QPT_XRC_SEND ||
	    remote_srqn > SROCE_XRC_SRQN_MAX) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	wqe->xrc_srqn = remote_srqn;
}

static void sroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);
	struct sroce_send_wqe_abi *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (num_sge > qp->sq.max_sge) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	wqe->send_flags &= ~IBV_SEND_INLINE;
	wqe->inline_len = 0;
	wqe->num_sge = num_sge;
	if (num_sge)
		memcpy(wqe + 1, sg_list,
		       num_sge * sizeof(struct sroce_sge_abi));
}

static void sroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	sroce_wr_set_sge_list(qpx, 1, &sge);
}

static void sroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct sroce_qp *qp = to_sroce_qp_ex(qpx);
	struct sroce_send_wqe_abi *wqe = qp->wr_cur;
	size_t len = 0, i;
	uint8_t *data;

	if (!wqe)
		return;
	for (i = 0; i < num_buf; i++)
		len += buf_list[i].length;
	if (len > qp->sq.max_inline ||
	    !sroce_opcode_inline_ok(wqe->opcode)) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	data = (uint8_t *)(wqe + 1);
	for (i = 0; i < num_buf; i++) {
		if (!buf_list[i].length)
			continue;
		memcpy(data, buf_list[i].addr, buf_list[i].length);
		data += buf_list[i].length;
	}
	wqe->send_flags |= IBV_SEND_INLINE;
	wqe->num_sge = 0;
	wqe->inline_len = len;
}

static void sroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	sroce_wr_set_inline_data_list(qpx, 1, &buf);
}

/* Builders only for the opcodes asked for (and allowed, see qp.c). */
void sroce_qp_ex_init(struct sroce_qp *qp, uint64_t flags)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if (flags & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = sroce_wr_send;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = sroce_wr_send_imm;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = sroce_wr_send_inv;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = sroce_wr_rdma_write;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = sroce_wr_rdma_write_imm;
	if (flags & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = sroce_wr_rdma_read;
	if (flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = sroce_wr_atomic_cmp_swp;
	if (flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = sroce_wr_atomic_fetch_add;
	if (flags & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = sroce_wr_bind_mw;
	if (flags & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = sroce_wr_local_inv;
	if (flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		qpx->wr_atomic_write = sroce_wr_atomic_write;
	if (flags & IBV_QP_EX_WITH_FLUSH)
		qpx->wr_flush = sroce_wr_flush;

	qpx->wr_set_ud_addr = sroce_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = sroce_wr_set_xrc_srqn;
	qpx->wr_set_sge = sroce_wr_set_sge;
	qpx->wr_set_sge_list = sroce_wr_set_sge_list;
	qpx->wr_set_inline_data = sroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = sroce_wr_set_inline_data_list;
	qpx->wr_start = sroce_wr_start;
	qpx->wr_complete = sroce_wr_complete;
	qpx->wr_abort = sroce_wr_abort;
}
