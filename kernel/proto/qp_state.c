// SPDX-License-Identifier: GPL-2.0
/*
 * The QP state machine (IBA 10.3, the transitions and attribute masks of
 * ib_modify_qp) and the QP-level entry points: receive dispatch, kick,
 * deadlines, flush.
 */
#include "qp_int.h"

enum { T_RC, T_UC, T_UD, T_NUM };

#define S(x)	SROCE_QP_##x

struct sroce_transition {
	bool valid;
	u32 req[T_NUM];
	u32 opt[T_NUM];
};

/*
 * [current][next]: which transitions exist and, per QP type, the
 * attributes they require and allow.  SROCE_QP_STATE is implied.
 */
static const struct sroce_transition sroce_qp_table[7][7] = {
	[SROCE_QPS_RESET] = {
		[SROCE_QPS_RESET] = { .valid = true },
		[SROCE_QPS_ERR]   = { .valid = true },
		[SROCE_QPS_INIT]  = {
			.valid = true,
			.req = {
				[T_RC] = S(PKEY_INDEX) | S(PORT) | S(ACCESS_FLAGS),
				[T_UC] = S(PKEY_INDEX) | S(PORT) | S(ACCESS_FLAGS),
				[T_UD] = S(PKEY_INDEX) | S(PORT) | S(QKEY),
			},
		},
	},
	[SROCE_QPS_INIT] = {
		[SROCE_QPS_RESET] = { .valid = true },
		[SROCE_QPS_ERR]   = { .valid = true },
		[SROCE_QPS_INIT]  = {
			.valid = true,
			.opt = {
				[T_RC] = S(PKEY_INDEX) | S(PORT) | S(ACCESS_FLAGS),
				[T_UC] = S(PKEY_INDEX) | S(PORT) | S(ACCESS_FLAGS),
				[T_UD] = S(PKEY_INDEX) | S(PORT) | S(QKEY),
			},
		},
		[SROCE_QPS_RTR]   = {
			.valid = true,
			.req = {
				[T_RC] = S(AV) | S(PATH_MTU) | S(DEST_QPN) |
					 S(RQ_PSN) | S(MAX_DEST_RD_ATOMIC) |
					 S(MIN_RNR_TIMER),
				[T_UC] = S(AV) | S(PATH_MTU) | S(DEST_QPN) |
					 S(RQ_PSN),
			},
			.opt = {
				[T_RC] = S(ALT_PATH) | S(ACCESS_FLAGS) |
					 S(PKEY_INDEX),
				[T_UC] = S(ALT_PATH) | S(ACCESS_FLAGS) |
					 S(PKEY_INDEX),
				[T_UD] = S(PKEY_INDEX) | S(QKEY),
			},
		},
	},
	[SROCE_QPS_RTR] = {
		[SROCE_QPS_RESET] = { .valid = true },
		[SROCE_QPS_ERR]   = { .valid = true },
		[SROCE_QPS_RTS]   = {
			.valid = true,
			.req = {
				[T_RC] = S(TIMEOUT) | S(RETRY_CNT) |
					 S(RNR_RETRY) | S(SQ_PSN) |
					 S(MAX_QP_RD_ATOMIC),
				[T_UC] = S(SQ_PSN),
				[T_UD] = S(SQ_PSN),
			},
			.opt = {
				[T_RC] = S(CUR_STATE) | S(ALT_PATH) |
					 S(ACCESS_FLAGS) | S(MIN_RNR_TIMER) |
					 S(PATH_MIG_STATE),
				[T_UC] = S(CUR_STATE) | S(ALT_PATH) |
					 S(ACCESS_FLAGS) | S(PATH_MIG_STATE),
				[T_UD] = S(CUR_STATE) | S(QKEY),
			},
		},
	},
	[SROCE_QPS_RTS] = {
		[SROCE_QPS_RESET] = { .valid = true },
		[SROCE_QPS_ERR]   = { .valid = true },
		[SROCE_QPS_RTS]   = {
			.valid = true,
			.opt = {
				[T_RC] = S(CUR_STATE) | S(ACCESS_FLAGS) |
					 S(ALT_PATH) | S(PATH_MIG_STATE) |
					 S(MIN_RNR_TIMER),
				[T_UC] = S(CUR_STATE) | S(ACCESS_FLAGS) |
					 S(ALT_PATH) | S(PATH_MIG_STATE),
				[T_UD] = S(CUR_STATE) | S(QKEY),
			},
		},
		[SROCE_QPS_SQD]   = {
			.valid = true,
			.opt = {
				[T_RC] = S(EN_SQD_ASYNC_NOTIFY),
				[T_UC] = S(EN_SQD_ASYNC_NOTIFY),
				[T_UD] = S(EN_SQD_ASYNC_NOTIFY),
			},
		},
	},
	[SROCE_QPS_SQD] = {
		[SROCE_QPS_RESET] = { .valid = true },
		[SROCE_QPS_ERR]   = { .valid = true },
		[SROCE_QPS_RTS]   = {
			.valid = true,
			.opt = {
				[T_RC] = S(CUR_STATE) | S(ALT_PATH) |
					 S(ACCESS_FLAGS) | S(MIN_RNR_TIMER) |
					 S(PATH_MIG_STATE),
				[T_UC] = S(CUR_STATE) | S(ALT_PATH) |
					 S(ACCESS_FLAGS) | S(PATH_MIG_STATE),
				[T_UD] = S(CUR_STATE) | S(QKEY),
			},
		},
		[SROCE_QPS_SQD]   = {
			.valid = true,
			.opt = {
				[T_RC] = S(PORT) | S(AV) | S(TIMEOUT) |
					 S(RETRY_CNT) | S(RNR_RETRY) |
					 S(MAX_QP_RD_ATOMIC) |
					 S(MAX_DEST_RD_ATOMIC) | S(ALT_PATH) |
					 S(ACCESS_FLAGS) | S(PKEY_INDEX) |
					 S(MIN_RNR_TIMER) | S(PATH_MIG_STATE),
				[T_UC] = S(AV) | S(ALT_PATH) |
					 S(ACCESS_FLAGS) | S(PKEY_INDEX) |
					 S(PATH_MIG_STATE),
				[T_UD] = S(PKEY_INDEX) | S(QKEY),
			},
		},
	},
	[SROCE_QPS_SQE] = {
		[SROCE_QPS_RESET] = { .valid = true },
		[SROCE_QPS_ERR]   = { .valid = true },
		[SROCE_QPS_RTS]   = {
			.valid = true,
			.opt = {
				[T_UC] = S(CUR_STATE) | S(ACCESS_FLAGS),
				[T_UD] = S(CUR_STATE) | S(QKEY),
			},
		},
	},
	[SROCE_QPS_ERR] = {
		[SROCE_QPS_RESET] = { .valid = true },
		[SROCE_QPS_ERR]   = { .valid = true },
	},
};

#undef S

static int sroce_type_index(enum sroce_qp_type type)
{
	switch (type) {
	case SROCE_QPT_RC:
		return T_RC;
	case SROCE_QPT_UC:
		return T_UC;
	case SROCE_QPT_UD:
		return T_UD;
	default:
		/* XRC is mapped to RC by sroce_qp_init(). */
		return -1;
	}
}

/* IBA Table 45 (RNR NAK timer field), in units of 10 us; code 0 is the longest. */
static const u16 sroce_rnr_10us[32] = {
	65535, 1, 2, 3, 4, 6, 8, 12,
	16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072,
	4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
};

u64 sroce_rnr_timer_ns(u8 code)
{
	/* 655.36 ms does not fit the u16 table. */
	if (!(code & 31))
		return 655360000ull;
	return (u64)sroce_rnr_10us[code & 31] * 10000;
}

u64 sroce_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return U64_MAX;
	return 4096ull << (timeout & 31);
}

void sroce_qp_event(struct sroce_qp *qp, enum sroce_qp_event ev)
{
	if (qp->ops->event)
		qp->ops->event(qp->ctx, ev);
}

int sroce_qp_init(struct sroce_qp *qp, const struct sroce_qp_init_attr *ia)
{
	const struct sroce_qp_ops *o = ia->ops;
	enum sroce_qp_type type = ia->type;
	u8 xrc = 0;
	u32 room;

	/* XRC runs as RC; qp->xrc remembers the role. */
	if (type == SROCE_QPT_XRC_INI || type == SROCE_QPT_XRC_TGT) {
		xrc = type;
		type = SROCE_QPT_RC;
	}
	if (sroce_type_index(type) < 0 || !o || !ia->sq || !ia->sq_size)
		return -SROCE_EINVAL;
	if (xrc == SROCE_QPT_XRC_TGT && !o->xrc_srq)
		return -SROCE_EINVAL;
	if (!o->next_send || !o->recv_wqe || !o->mem_access || !o->emit ||
	    !o->copy_in || !o->store || !o->atomic || !o->complete ||
	    !o->now)
		return -SROCE_EINVAL;
	if (type == SROCE_QPT_RC && (!ia->res || !ia->max_res))
		return -SROCE_EINVAL;
	if (ia->sq_size > SROCE_PSN_HALF)
		return -SROCE_EINVAL;
	if (ia->sq_slot &&
	    (ia->sq_slot < sroce_swqe_size(0, 0) ||
	     ia->sq_slot > sizeof(struct sroce_swqe) ||
	     ia->sq_slot % __alignof__(struct sroce_swqe)))
		return -SROCE_EINVAL;

	memset(qp, 0, sizeof(*qp));
	qp->type = type;
	qp->xrc = xrc;
	qp->state = SROCE_QPS_RESET;
	qp->qpn = ia->qpn & SROCE_QPN_MASK;
	qp->ops = o;
	qp->ctx = ia->ctx;
	qp->sq = ia->sq;
	qp->sq_size = ia->sq_size;
	qp->sq_slot = ia->sq_slot ? ia->sq_slot : sizeof(struct sroce_swqe);
	room = qp->sq_slot - sroce_swqe_size(0, 0);
	qp->sq_max_sge = room / sizeof(struct sroce_sge);
	if (qp->sq_max_sge > SROCE_MAX_SGE)
		qp->sq_max_sge = SROCE_MAX_SGE;
	qp->sq_max_inline = room < SROCE_MAX_INLINE ? room : SROCE_MAX_INLINE;
	/* An XRC QP has no RQ: the INI receives nothing, the TGT uses SRQs. */
	qp->srq = ia->srq || xrc;
	qp->rq_size = qp->srq ? 0 : ia->rq_size ? ia->rq_size : ia->sq_size;
	qp->sq_sig_all = ia->sq_sig_all;
	qp->resp.res = type == SROCE_QPT_RC ? ia->res : NULL;
	qp->resp.max_res = type == SROCE_QPT_RC ? ia->max_res : 0;
	if (type != SROCE_QPT_UD)
		qp->cc.p = ia->cc;
	if (qp->cc.p)
		sroce_cc_rp_init(&qp->cc.rp, qp->cc.p);
	if (qp->resp.res)
		memset(qp->resp.res, 0, sizeof(*qp->resp.res) * qp->resp.max_res);
	qp->attr.qp_state = SROCE_QPS_RESET;
	qp->attr.pkey = SROCE_DEFAULT_PKEY;
	qp->attr.path_mtu = 1;
	if (type == SROCE_QPT_UD)
		qp->attr.path_mtu = ia->ud_mtu ? ia->ud_mtu : 5;
	qp->mtu = sroce_mtu_bytes(qp->attr.path_mtu);
	if (!qp->mtu)
		return -SROCE_EINVAL;
	return 0;
}

/* Forget every WQE and all protocol state; attributes stay. */
static void sroce_qp_reset(struct sroce_qp *qp)
{
	struct sroce_rd_res *res = qp->resp.res;
	u32 max_res = qp->resp.max_res;

	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->comp, 0, sizeof(qp->comp));
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->resp.res = res;
	qp->resp.max_res = max_res;
	if (res)
		memset(res, 0, sizeof(*res) * max_res);
	qp->comm_est = false;
	qp->attr.sq_draining = 0;
	qp->cc.last_cnp = 0;
	qp->cc.paced = false;
	if (qp->cc.p)
		sroce_cc_rp_init(&qp->cc.rp, qp->cc.p);
}

static int sroce_qp_check_values(const struct sroce_qp *qp,
				 const struct sroce_qp_attr *a, u32 mask)
{
	if ((mask & SROCE_QP_PATH_MTU) && !sroce_mtu_bytes(a->path_mtu))
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_TIMEOUT) && a->timeout > 31)
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_RETRY_CNT) && a->retry_cnt > 7)
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_RNR_RETRY) && a->rnr_retry > 7)
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > qp->resp.max_res)
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_DEST_QPN) && a->dest_qp_num > SROCE_QPN_MASK)
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_RQ_PSN) && a->rq_psn > SROCE_PSN_MASK)
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_SQ_PSN) && a->sq_psn > SROCE_PSN_MASK)
		return -SROCE_EINVAL;
	if ((mask & SROCE_QP_PKEY_INDEX) && !(a->pkey & 0x7fff))
		return -SROCE_EINVAL;
	return 0;
}

static void sroce_qp_apply(struct sroce_qp *qp, const struct sroce_qp_attr *a,
			   u32 mask)
{
	struct sroce_qp_attr *q = &qp->attr;

	if (mask & SROCE_QP_EN_SQD_ASYNC_NOTIFY)
		q->en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & SROCE_QP_ACCESS_FLAGS)
		q->qp_access_flags = a->qp_access_flags;
	if (mask & SROCE_QP_PKEY_INDEX) {
		q->pkey_index = a->pkey_index;
		q->pkey = a->pkey;
	}
	if (mask & SROCE_QP_PORT)
		q->port_num = a->port_num;
	if (mask & SROCE_QP_QKEY)
		q->qkey = a->qkey;
	if (mask & SROCE_QP_PATH_MTU) {
		q->path_mtu = a->path_mtu;
		qp->mtu = sroce_mtu_bytes(a->path_mtu);
	}
	if (mask & SROCE_QP_TIMEOUT)
		q->timeout = a->timeout;
	if (mask & SROCE_QP_RETRY_CNT) {
		q->retry_cnt = a->retry_cnt;
		qp->req.retry_left = a->retry_cnt;
	}
	if (mask & SROCE_QP_RNR_RETRY) {
		q->rnr_retry = a->rnr_retry;
		qp->req.rnr_left = a->rnr_retry;
	}
	if (mask & SROCE_QP_RQ_PSN) {
		q->rq_psn = a->rq_psn;
		qp->resp.psn = a->rq_psn;
	}
	if (mask & SROCE_QP_MAX_QP_RD_ATOMIC)
		q->max_rd_atomic = a->max_rd_atomic;
	if (mask & SROCE_QP_MIN_RNR_TIMER)
		q->min_rnr_timer = a->min_rnr_timer;
	if (mask & SROCE_QP_SQ_PSN) {
		q->sq_psn = a->sq_psn;
		qp->req.psn = a->sq_psn;
		qp->req.psn_hi = a->sq_psn;
		qp->comp.psn = a->sq_psn;
	}
	if (mask & SROCE_QP_MAX_DEST_RD_ATOMIC)
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & SROCE_QP_DEST_QPN)
		q->dest_qp_num = a->dest_qp_num;
	if (mask & SROCE_QP_AV) {
		memcpy(q->sgid, a->sgid, sizeof(q->sgid));
		memcpy(q->dgid, a->dgid, sizeof(q->dgid));
	}
}

/*
 * ERR and SQE complete every WQE in error: those the core holds, then at
 * most @sq_budget and @rq_budget of those still in the caller's rings.
 * A producer that refills its ring as fast as it is flushed must not keep
 * a CPU here: what is left waits for the next kick (sroce_qp_pending()
 * asks for one), so a hostile process costs its own QP's passes.
 */
static void sroce_qp_flush_rings(struct sroce_qp *qp, u32 sq_budget,
				 u32 rq_budget, bool rq)
{
	bool more = sroce_req_flush(qp, sq_budget);

	if (rq && sroce_resp_flush(qp, rq_budget))
		more = true;
	/* A zero budget takes nothing and leaves it all to the next kick. */
	if (more && (sq_budget || (rq && rq_budget)))
		qp->stats.flushes_deferred++;
	qp->flush_more = more;
}

/* Nothing started is still waiting for its completion. */
static bool sroce_sq_idle(const struct sroce_qp *qp)
{
	return qp->comp.head == qp->req.hi && !qp->req.off_psn;
}

int sroce_qp_modify(struct sroce_qp *qp, const struct sroce_qp_attr *attr,
		    u32 mask, u64 now_ns)
{
	enum sroce_qp_state cur = qp->state, next = cur;
	const struct sroce_transition *t;
	int ti = sroce_type_index(qp->type);
	u32 allowed, req, opt, xopt = 0;
	int ret;

	qp->now = now_ns;
	if (mask & SROCE_QP_CUR_STATE) {
		/* The consumer's belief must be right (IBA 11.2.4.2). */
		if (attr->cur_qp_state != cur)
			return -SROCE_EINVAL;
	}
	if (mask & SROCE_QP_STATE) {
		if ((u32)attr->qp_state > SROCE_QPS_ERR)
			return -SROCE_EINVAL;
		next = attr->qp_state;
	}
	t = &sroce_qp_table[cur][next];
	if (!t->valid)
		return -SROCE_EINVAL;
	req = t->req[ti];
	opt = t->opt[ti];
	/*
	 * ib_modify_qp_is_ok: an XRC initiator has no responder to size
	 * at RTR, a target no requester at RTS; those become optional.
	 */
	if (qp->xrc == SROCE_QPT_XRC_INI && next == SROCE_QPS_RTR)
		xopt = SROCE_QP_MAX_DEST_RD_ATOMIC | SROCE_QP_MIN_RNR_TIMER;
	else if (qp->xrc == SROCE_QPT_XRC_TGT && cur == SROCE_QPS_RTR &&
		 next == SROCE_QPS_RTS)
		xopt = SROCE_QP_RETRY_CNT | SROCE_QP_RNR_RETRY |
		       SROCE_QP_MAX_QP_RD_ATOMIC;
	req &= ~xopt;
	opt |= xopt & t->req[ti];
	if ((mask & req) != req)
		return -SROCE_EINVAL;
	allowed = req | opt | SROCE_QP_STATE;
	if (cur == next && next != SROCE_QPS_RESET && next != SROCE_QPS_ERR)
		allowed |= SROCE_QP_CUR_STATE;
	if (mask & ~allowed)
		return -SROCE_EINVAL;
	/* SQD may change attributes or go to RTS only once drained. */
	if (cur == SROCE_QPS_SQD && next != SROCE_QPS_ERR &&
	    next != SROCE_QPS_RESET && !sroce_sq_idle(qp))
		return -SROCE_EINVAL;
	ret = sroce_qp_check_values(qp, attr, mask);
	if (ret)
		return ret;

	if (next == SROCE_QPS_RESET) {
		sroce_qp_reset(qp);
		qp->state = SROCE_QPS_RESET;
		qp->attr.qp_state = SROCE_QPS_RESET;
		sroce_qp_apply(qp, attr, mask);
		return 0;
	}
	sroce_qp_apply(qp, attr, mask);
	if (next == SROCE_QPS_ERR) {
		sroce_qp_to_err(qp);
		return 0;
	}
	/*
	 * WQEs posted in SQE are flushed, also those a bounded flush has
	 * not reached yet: at most one ring's worth was posted before this.
	 */
	if (cur == SROCE_QPS_SQE && qp->flush_more) {
		sroce_qp_flush_rings(qp, qp->sq_size, 0, false);
		qp->flush_more = false;
	}
	if (cur == SROCE_QPS_RTR && next == SROCE_QPS_RTS) {
		qp->req.retry_left = qp->attr.retry_cnt;
		qp->req.rnr_left = qp->attr.rnr_retry;
		qp->req.stall_left = SROCE_TX_STALL_MAX;
	}
	qp->state = next;
	qp->attr.qp_state = next;
	if (next == SROCE_QPS_SQD && cur == SROCE_QPS_RTS) {
		/* Drained at once if idle: comp_progress raises the event. */
		qp->req.sq_drained_sent = false;
		qp->attr.sq_draining = 1;
		sroce_comp_progress(qp);
	}
	return 0;
}

void sroce_qp_query(const struct sroce_qp *qp, struct sroce_qp_attr *attr)
{
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->sq_psn = qp->req.psn;
	attr->rq_psn = qp->resp.psn;
}

void sroce_qp_to_err(struct sroce_qp *qp)
{
	if (qp->state == SROCE_QPS_ERR)
		return;
	qp->state = SROCE_QPS_ERR;
	qp->attr.qp_state = SROCE_QPS_ERR;
	qp->attr.sq_draining = 0;
	sroce_qp_flush_rings(qp, qp->sq_size, qp->rq_size, true);
	if (qp->srq)
		sroce_qp_event(qp, SROCE_EVENT_QP_LAST_WQE_REACHED);
}

/* UC/UD send error: the send queue stops, receives go on (IBA 10.3.1.13). */
void sroce_qp_to_sqe(struct sroce_qp *qp)
{
	if (qp->state == SROCE_QPS_ERR || qp->state == SROCE_QPS_SQE)
		return;
	qp->state = SROCE_QPS_SQE;
	qp->attr.qp_state = SROCE_QPS_SQE;
	qp->attr.sq_draining = 0;
	sroce_qp_flush_rings(qp, qp->sq_size, 0, false);
}

void sroce_qp_flush(struct sroce_qp *qp)
{
	if (qp->state == SROCE_QPS_RESET)
		return;
	sroce_qp_to_err(qp);
}

bool sroce_qp_pending(const struct sroce_qp *qp)
{
	if (qp->state == SROCE_QPS_RESET || qp->state == SROCE_QPS_INIT)
		return false;
	if ((qp->state == SROCE_QPS_ERR || qp->state == SROCE_QPS_SQE) &&
	    qp->flush_more)
		return true;
	return sroce_req_ready(qp) || sroce_resp_ready(qp);
}

bool sroce_qp_kick(struct sroce_qp *qp, u32 budget, u64 now_ns)
{
	u32 used;

	qp->now = now_ns;
	switch (qp->state) {
	case SROCE_QPS_ERR:
		sroce_qp_flush_rings(qp, budget, budget, true);
		return qp->flush_more;
	case SROCE_QPS_SQE:
		sroce_qp_flush_rings(qp, budget, 0, false);
		break;
	case SROCE_QPS_RESET:
	case SROCE_QPS_INIT:
		return false;
	default:
		break;
	}
	/* Responses first: they are owed and the peer's timer is running. */
	used = sroce_resp_run(qp, budget);
	if (used < budget && qp->state != SROCE_QPS_ERR)
		used += sroce_req_run(qp, budget - used);
	if (qp->state == SROCE_QPS_SQE || qp->state == SROCE_QPS_ERR)
		return qp->flush_more || (used >= budget &&
					  sroce_qp_pending(qp));
	return used >= budget && sroce_qp_pending(qp);
}

/*
 * A CE-marked packet from our peer: tell its QP with a CNP, at most one
 * per interval.  Best effort: one the caller refuses is not retried.
 */
static void sroce_qp_cnp(struct sroce_qp *qp)
{
	struct sroce_tx_pkt *tp = &qp->txp;
	struct sroce_hdrs h;
	u64 last = qp->cc.last_cnp;

	qp->stats.ecn_marked++;
	if (!qp->cc.p ||
	    !sroce_cc_np_allow(&qp->cc.last_cnp, qp->cc.p, sroce_qp_now(qp)))
		return;
	sroce_pkt_hdrs_init(qp, &h, SROCE_OPC_CNP, 0);
	h.bth.mig = 0;
	h.bth.becn = 1;
	h.bth.pkey = SROCE_CNP_PKEY;
	tp->paylen = 0;
	tp->nseg = 0;
	tp->inline_data = NULL;
	tp->ah = 0;
	if (sroce_pkt_emit(qp, tp, &h))
		qp->cc.last_cnp = last;
	else
		qp->stats.cnp_sent++;
}

/* A CNP for this QP: only the reaction point hears it, nothing answers. */
static enum sroce_drop sroce_qp_rx_cnp(struct sroce_qp *qp)
{
	qp->stats.cnp_rcvd++;
	if (qp->cc.p && sroce_cc_rp_cnp(&qp->cc.rp, qp->cc.p, sroce_qp_now(qp)))
		qp->stats.rate_decreases++;
	return SROCE_DROP_NONE;
}

enum sroce_drop sroce_qp_rx(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			    const void *payload, u64 now_ns)
{
	const struct sroce_bth *bth = &pkt->h.bth;
	u32 flags = pkt->op->flags;
	u8 want;

	qp->now = now_ns;
	qp->stats.rx_pkts++;
	switch (qp->state) {
	case SROCE_QPS_RTR:
		if (!(flags & SROCE_OPF_REQ))
			return SROCE_DROP_BAD_QP_STATE;
		break;
	case SROCE_QPS_RTS:
	case SROCE_QPS_SQD:
	case SROCE_QPS_SQE:
		break;
	default:
		return SROCE_DROP_BAD_QP_STATE;
	}
	switch (qp->type) {
	case SROCE_QPT_RC:
		want = qp->xrc ? SROCE_TRANSPORT_XRC : SROCE_TRANSPORT_RC;
		break;
	case SROCE_QPT_UC:
		want = SROCE_TRANSPORT_UC;
		break;
	default:
		want = SROCE_TRANSPORT_UD;
		break;
	}
	/* A CNP notifies a connected QP (RoCEv2 Annex A17). */
	if (unlikely(flags & SROCE_OPF_CNP) && qp->type != SROCE_QPT_UD)
		want = SROCE_TRANSPORT_CNP;
	if ((bth->opcode & SROCE_TRANSPORT_MASK) != want)
		return SROCE_DROP_WRONG_QP_TYPE;
	/*
	 * A connection's packets come from its peer to us and nowhere
	 * else: a stranger who guessed the QPN, PSN and rkey still cannot
	 * reach it from another address.
	 */
	if (qp->type != SROCE_QPT_UD &&
	    (memcmp(pkt->sgid, qp->attr.dgid, SROCE_GID_LEN) ||
	     memcmp(pkt->dgid, qp->attr.sgid, SROCE_GID_LEN)))
		return SROCE_DROP_BAD_ADDR;
	if (unlikely(flags & SROCE_OPF_CNP) && bth->pkey == SROCE_CNP_PKEY)
		return sroce_qp_rx_cnp(qp);
	if (!sroce_pkey_match(bth->pkey, qp->attr.pkey))
		return SROCE_DROP_BAD_PKEY;
	if (unlikely(flags & SROCE_OPF_CNP))
		return sroce_qp_rx_cnp(qp);
	/* An initiator only hears responses, a target only requests. */
	if ((qp->xrc == SROCE_QPT_XRC_INI && (flags & SROCE_OPF_REQ)) ||
	    (qp->xrc == SROCE_QPT_XRC_TGT && !(flags & SROCE_OPF_REQ)))
		return SROCE_DROP_WRONG_QP_TYPE;
	if (qp->type == SROCE_QPT_UD && pkt->h.deth.qkey != qp->attr.qkey)
		return SROCE_DROP_BAD_QKEY;
	if (!qp->comm_est) {
		qp->comm_est = true;
		if (qp->state == SROCE_QPS_RTR)
			sroce_qp_event(qp, SROCE_EVENT_COMM_EST);
	}
	if (unlikely(pkt->ce) && qp->type != SROCE_QPT_UD)
		sroce_qp_cnp(qp);
	if (flags & SROCE_OPF_REQ)
		return sroce_resp_rx(qp, pkt, payload);
	if (qp->type != SROCE_QPT_RC)
		return SROCE_DROP_WRONG_QP_TYPE;
	return sroce_comp_rx(qp, pkt, payload);
}

u64 sroce_qp_next_deadline(const struct sroce_qp *qp)
{
	u64 d = U64_MAX;

	if (qp->state == SROCE_QPS_ERR || qp->state == SROCE_QPS_RESET)
		return d;
	if (qp->req.timer_on && qp->req.ack_deadline < d)
		d = qp->req.ack_deadline;
	if (qp->req.rnr_wait && qp->req.rnr_deadline < d)
		d = qp->req.rnr_deadline;
	if (qp->resp.unacked && qp->resp.ack_deadline < d)
		d = qp->resp.ack_deadline;
	if (qp->resp.nak_deadline && qp->resp.nak_deadline < d)
		d = qp->resp.nak_deadline;
	/*
	 * The limiter's timers matter only to a packet waiting for it; an
	 * idle QP catches them up when it next sends (sroce_req_step).
	 */
	if (qp->cc.p && qp->cc.paced) {
		if (qp->cc.rp.next_tx < d)
			d = qp->cc.rp.next_tx;
		if (sroce_cc_rp_deadline(&qp->cc.rp) < d)
			d = sroce_cc_rp_deadline(&qp->cc.rp);
	}
	return d;
}

void sroce_qp_on_deadline(struct sroce_qp *qp, u64 now_ns)
{
	u64 now;

	if (qp->state == SROCE_QPS_ERR || qp->state == SROCE_QPS_RESET)
		return;
	qp->now = now_ns;
	now = sroce_qp_now(qp);
	if (qp->resp.unacked && now >= qp->resp.ack_deadline)
		sroce_resp_ack_deadline(qp);
	if (qp->resp.nak_deadline && now >= qp->resp.nak_deadline)
		sroce_resp_nak_deadline(qp);
	if (qp->req.rnr_wait && now >= qp->req.rnr_deadline) {
		/* The go-back was done when the RNR NAK came; now resend. */
		qp->req.rnr_wait = false;
	}
	if (qp->req.timer_on && now >= qp->req.ack_deadline)
		sroce_comp_timeout(qp);
	if (qp->cc.p) {
		sroce_cc_rp_timer(&qp->cc.rp, qp->cc.p, now);
		if (qp->cc.paced &&
		    sroce_cc_rp_may_send(&qp->cc.rp, now))
			qp->cc.paced = false;
	}
}
