// SPDX-License-Identifier: GPL-2.0
/*
 * The requester: pulls send WQEs into the core's SQ storage and turns
 * them into path-MTU packets with PSNs, opcodes and AckReq; restarts from
 * any PSN for go-back-N retransmission; flushes the SQ when the QP
 * leaves the sending states.
 */
#include "qp_int.h"

enum { STEP_STOP, STEP_SENT };

static bool sroce_wr_allowed(const struct sroce_qp *qp, u8 opcode)
{
	enum sroce_qp_type type = qp->type;

	/* A target sends nothing; XRC has no FLUSH or ATOMIC WRITE here. */
	if (qp->xrc == SROCE_QPT_XRC_TGT)
		return false;
	if (qp->xrc && sroce_wr_is_placement(opcode))
		return false;
	switch (opcode) {
	case SROCE_WR_SEND:
	case SROCE_WR_SEND_WITH_IMM:
		return true;
	case SROCE_WR_RDMA_WRITE:
	case SROCE_WR_RDMA_WRITE_WITH_IMM:
		return type != SROCE_QPT_UD;
	case SROCE_WR_RDMA_READ:
	case SROCE_WR_ATOMIC_CMP_AND_SWP:
	case SROCE_WR_ATOMIC_FETCH_AND_ADD:
	case SROCE_WR_SEND_WITH_INV:
	case SROCE_WR_ATOMIC_WRITE:
	case SROCE_WR_FLUSH:
		return type == SROCE_QPT_RC;
	case SROCE_WR_LOCAL_INV:
	case SROCE_WR_REG_MR:
		return true;
	case SROCE_WR_BIND_MW:
		return type != SROCE_QPT_UD;
	}
	return false;
}

/*
 * Check a freshly pulled WQE against the QP; the error, if any, is
 * reported when the WQE reaches the head of the SQ, in order.
 */
static u8 sroce_req_validate(const struct sroce_qp *qp, struct sroce_swqe *w)
{
	const struct sroce_send_wqe *wr = &w->wr;
	u64 len = 0;
	u32 i;

	w->length = 0;
	if (!sroce_wr_allowed(qp, wr->opcode))
		return SROCE_WC_LOC_QP_OP_ERR;
	if (sroce_wr_is_local(wr->opcode))
		return SROCE_WC_SUCCESS;
	if (sroce_wr_is_rd_atomic(wr->opcode) && !qp->attr.max_rd_atomic)
		return SROCE_WC_LOC_QP_OP_ERR;
	if (sroce_wr_is_placement(wr->opcode)) {
		/* The value or range is in the WQE itself; no SGEs. */
		if (wr->send_flags & SROCE_SEND_INLINE)
			return SROCE_WC_LOC_QP_OP_ERR;
		if (wr->opcode == SROCE_WR_ATOMIC_WRITE) {
			w->length = SROCE_ATOMIC_WRITE_LEN;
			return SROCE_WC_SUCCESS;
		}
		if (!wr->flush.type ||
		    (wr->flush.type & ~(SROCE_FLUSH_GLOBAL |
					SROCE_FLUSH_PERSISTENT)) ||
		    wr->flush.level > SROCE_FLUSH_MR)
			return SROCE_WC_LOC_QP_OP_ERR;
		return SROCE_WC_SUCCESS;
	}
	if (wr->send_flags & SROCE_SEND_INLINE) {
		if (sroce_wr_is_rd_atomic(wr->opcode))
			return SROCE_WC_LOC_QP_OP_ERR;
		if (wr->inline_len > qp->sq_max_inline)
			return SROCE_WC_LOC_LEN_ERR;
		len = wr->inline_len;
	} else {
		if (wr->num_sge > qp->sq_max_sge)
			return SROCE_WC_LOC_QP_OP_ERR;
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sge[i].length;
	}
	if (len > SROCE_MAX_MSG)
		return SROCE_WC_LOC_LEN_ERR;
	if (qp->type == SROCE_QPT_UD && len > qp->mtu)
		return SROCE_WC_LOC_LEN_ERR;
	if (sroce_wr_is_atomic(wr->opcode)) {
		if (len < 8)
			return SROCE_WC_LOC_LEN_ERR;
		len = 8;
	}
	w->length = (u32)len;
	return SROCE_WC_SUCCESS;
}

/*
 * Count again the READ/atomic WQEs sent and not yet completed, after a
 * go-back or a catch-up moved the send cursor: otherwise the count
 * follows the cursor in sroce_req_step() and the head in sroce_comp_cqe().
 */
static void sroce_req_recount_rd(struct sroce_qp *qp)
{
	u32 i, n = 0;

	for (i = qp->comp.head; i != qp->req.next; i++)
		if (sroce_wr_is_rd_atomic(sroce_sq_slot(qp, i)->wr.opcode))
			n++;
	qp->req.rd_out = n;
}

static u32 sroce_inflight(const struct sroce_qp *qp)
{
	s32 d = sroce_psn_diff(qp->req.psn, qp->comp.psn);

	return d > 0 ? (u32)d : 0;
}

static u32 sroce_req_own_window(const struct sroce_qp *qp)
{
	return qp->req.win ? qp->req.win : SROCE_MAX_INFLIGHT;
}

/* The QP's window, or its share of the device's if that is smaller. */
static u32 sroce_req_window(const struct sroce_qp *qp)
{
	u32 w = sroce_req_own_window(qp);

	return qp->req.share && qp->req.share < w ? qp->req.share : w;
}

void sroce_qp_set_senders(struct sroce_qp *qp, u32 senders)
{
	u32 share = senders ? SROCE_DEV_INFLIGHT / senders : 0;

	if (senders && share < SROCE_MIN_INFLIGHT)
		share = SROCE_MIN_INFLIGHT;
	qp->req.share = share;
}

bool sroce_qp_sending(const struct sroce_qp *qp)
{
	return qp->type == SROCE_QPT_RC && sroce_qp_can_send(qp) &&
	       sroce_inflight(qp);
}

/*
 * The window is full.  The QP's own window changes only where go-back-N
 * empties it; the device's share may shrink under packets already out,
 * and if the last of them did not ask for an ACK none might come (the
 * responder ACKs a message's end only after SROCE_ACK_DELAY_NS, and the
 * middle of one not at all): then send on until the AckReq rule, which
 * counts the share, makes one ask.
 */
static bool sroce_req_window_full(const struct sroce_qp *qp)
{
	u32 n = sroce_inflight(qp);

	if (n >= sroce_req_own_window(qp))
		return true;
	return qp->req.share && n >= qp->req.share && !qp->req.noack;
}

/* A loss: halve the window (a timeout: shrink it to the minimum). */
void sroce_req_loss(struct sroce_qp *qp, bool timeout)
{
	u32 w = timeout ? 0 : sroce_req_window(qp) / 2;

	qp->req.win = w < SROCE_MIN_INFLIGHT ? SROCE_MIN_INFLIGHT : w;
	qp->req.win_psn = qp->comp.psn;
}

/* comp.psn moved: one more PSN of window per 4 acknowledged. */
void sroce_req_grow(struct sroce_qp *qp)
{
	s32 n = sroce_psn_diff(qp->comp.psn, qp->req.win_psn);

	if (!qp->req.win || n < 4)
		return;
	qp->req.win += (u32)n / 4;
	qp->req.win_psn = sroce_psn_add(qp->req.win_psn, (u32)n & ~3u);
	if (qp->req.win >= SROCE_MAX_INFLIGHT)
		qp->req.win = 0;
}

/*
 * May the requester send the next packet of wqe[next]?  Everything but
 * "the caller's SQ has more", which only next_send() can tell.
 */
static bool sroce_req_blocked(const struct sroce_qp *qp,
			      const struct sroce_swqe *w)
{
	if (qp->type != SROCE_QPT_RC)
		return false;
	/* A fenced local operation waits for everything before it. */
	if (sroce_wr_is_local(w->wr.opcode) && !qp->req.off_psn && !w->status)
		return (w->wr.send_flags & SROCE_SEND_FENCE) &&
		       qp->comp.head != qp->req.next;
	if (sroce_req_window_full(qp))
		return true;
	if (qp->req.off_psn)
		return false;
	if (w->status)
		return false;
	if ((w->wr.send_flags & SROCE_SEND_FENCE) && qp->req.rd_out)
		return true;
	if (sroce_wr_is_rd_atomic(w->wr.opcode) &&
	    qp->req.rd_out >= qp->attr.max_rd_atomic)
		return true;
	return false;
}

static bool sroce_req_may_pull(const struct sroce_qp *qp)
{
	return qp->state == SROCE_QPS_RTS &&
	       qp->req.tail - qp->comp.head < qp->sq_size;
}

/* Copy the caller's next send WQE into the core's SQ; false if none. */
static bool sroce_req_pull(struct sroce_qp *qp)
{
	struct sroce_swqe *w;

	if (!sroce_req_may_pull(qp))
		return false;
	w = sroce_sq_slot(qp, qp->req.tail);
	if (qp->ops->next_send(qp->ctx, &w->wr))
		return false;
	w->status = sroce_req_validate(qp, w);
	w->done = 0;
	w->npsn = 0;
	qp->req.tail++;
	return true;
}

/*
 * Is wqe[next], whose last packet is being built, followed by a WQE that
 * goes out without waiting for an ACK?  Then that last packet need not
 * ask for one: the follower's AckReq brings an ACK that covers both.  A
 * local operation may wait for wqe[next]'s completion (a fence) and a
 * failed WQE for its ACK before it completes, so those do not count, nor
 * does anything outside RTS (SQD stops after wqe[next]).
 */
static bool sroce_req_followed(struct sroce_qp *qp)
{
	const struct sroce_swqe *n;

	if (qp->state != SROCE_QPS_RTS)
		return false;
	if (qp->req.next + 1 == qp->req.tail && !sroce_req_pull(qp))
		return false;
	n = sroce_sq_slot(qp, qp->req.next + 1);
	return !n->status && !sroce_wr_is_local(n->wr.opcode) &&
	       !(n->wr.send_flags & SROCE_SEND_FENCE);
}

bool sroce_req_ready(const struct sroce_qp *qp)
{
	const struct sroce_swqe *w;

	if (!sroce_qp_can_send(qp) || qp->req.stopped || qp->req.rnr_wait ||
	    qp->cc.paced)
		return false;
	if (qp->req.next == qp->req.tail)
		return false;
	w = sroce_sq_slot(qp, qp->req.next);
	if (qp->state == SROCE_QPS_SQD && !qp->req.off_psn &&
	    (s32)(qp->req.next - qp->req.hi) >= 0)
		return false;
	return !sroce_req_blocked(qp, w);
}

/* Describe bytes [@off, @off + @len) of @w's local data as payload. */
static u8 sroce_req_map(struct sroce_qp *qp, const struct sroce_swqe *w,
			u32 off, u32 len, struct sroce_tx_pkt *tp)
{
	const struct sroce_sge *s;
	u32 i, chunk, n = 0;

	tp->paylen = len;
	tp->nseg = 0;
	tp->inline_data = NULL;
	if (w->wr.send_flags & SROCE_SEND_INLINE) {
		tp->inline_data = w->wr.inline_data + off;
		return SROCE_WC_SUCCESS;
	}
	for (i = 0; i < w->wr.num_sge && len; i++) {
		s = &w->wr.sge[i];
		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		chunk = s->length - off;
		if (chunk > len)
			chunk = len;
		if (qp->ops->mem_access(qp->ctx, s->lkey, false, s->addr + off,
					chunk, 0, &tp->seg[n].ref))
			return SROCE_WC_LOC_PROT_ERR;
		tp->seg[n].off = 0;
		tp->seg[n].len = chunk;
		n++;
		len -= chunk;
		off = 0;
	}
	tp->nseg = (u8)n;
	return len ? SROCE_WC_LOC_LEN_ERR : SROCE_WC_SUCCESS;
}

static u8 sroce_send_opcode(const struct sroce_swqe *w, bool first, bool last)
{
	u8 op = w->wr.opcode;

	if (op == SROCE_WR_RDMA_WRITE || op == SROCE_WR_RDMA_WRITE_WITH_IMM) {
		if (first && last)
			return op == SROCE_WR_RDMA_WRITE ? SROCE_OP_WRITE_ONLY :
			       SROCE_OP_WRITE_ONLY_IMM;
		if (first)
			return SROCE_OP_WRITE_FIRST;
		if (!last)
			return SROCE_OP_WRITE_MIDDLE;
		return op == SROCE_WR_RDMA_WRITE ? SROCE_OP_WRITE_LAST :
		       SROCE_OP_WRITE_LAST_IMM;
	}
	if (first && last) {
		if (op == SROCE_WR_SEND_WITH_IMM)
			return SROCE_OP_SEND_ONLY_IMM;
		if (op == SROCE_WR_SEND_WITH_INV)
			return SROCE_OP_SEND_ONLY_INV;
		return SROCE_OP_SEND_ONLY;
	}
	if (first)
		return SROCE_OP_SEND_FIRST;
	if (!last)
		return SROCE_OP_SEND_MIDDLE;
	if (op == SROCE_WR_SEND_WITH_IMM)
		return SROCE_OP_SEND_LAST_IMM;
	if (op == SROCE_WR_SEND_WITH_INV)
		return SROCE_OP_SEND_LAST_INV;
	return SROCE_OP_SEND_LAST;
}

/*
 * Build and emit the packet of @w at PSN offset req.off_psn.  Returns the
 * PSNs it consumed (a READ request takes all its response PSNs), 0 if
 * the caller could not take it, or sets w->status on a local error.
 */
static u32 sroce_req_packet(struct sroce_qp *qp, struct sroce_swqe *w)
{
	struct sroce_tx_pkt *tp = &qp->txp;
	const struct sroce_send_wqe *wr = &w->wr;
	u32 k = qp->req.off_psn, off = k * qp->mtu, len, used = 1;
	struct sroce_hdrs h;
	bool first, last;
	u8 op, st;

	sroce_pkt_hdrs_init(qp, &h, 0, qp->req.psn);
	tp->paylen = 0;
	tp->nseg = 0;
	tp->inline_data = NULL;
	tp->ah = 0;

	switch (wr->opcode) {
	case SROCE_WR_RDMA_READ:
		op = SROCE_OP_READ_REQ;
		h.reth.va = wr->rdma.remote_addr + off;
		h.reth.rkey = wr->rdma.rkey;
		h.reth.len = w->length - off;
		h.bth.ackreq = 1;
		used = w->npsn - k;
		break;
	case SROCE_WR_ATOMIC_CMP_AND_SWP:
	case SROCE_WR_ATOMIC_FETCH_AND_ADD:
		if (wr->opcode == SROCE_WR_ATOMIC_CMP_AND_SWP) {
			op = SROCE_OP_CMP_SWAP;
			h.atmeth.swap_add = wr->atomic.swap;
			h.atmeth.cmp = wr->atomic.compare_add;
		} else {
			op = SROCE_OP_FETCH_ADD;
			h.atmeth.swap_add = wr->atomic.compare_add;
		}
		h.atmeth.va = wr->atomic.remote_addr;
		h.atmeth.rkey = wr->atomic.rkey;
		h.bth.ackreq = 1;
		break;
	case SROCE_WR_ATOMIC_WRITE:
		op = SROCE_OP_ATOMIC_WRITE;
		h.reth.va = wr->atomic_wr.remote_addr;
		h.reth.rkey = wr->atomic_wr.rkey;
		h.reth.len = SROCE_ATOMIC_WRITE_LEN;
		/* The value was copied into the WQE when it was posted. */
		tp->inline_data = wr->atomic_wr.value;
		tp->paylen = SROCE_ATOMIC_WRITE_LEN;
		h.bth.ackreq = 1;
		break;
	case SROCE_WR_FLUSH:
		op = SROCE_OP_FLUSH;
		h.reth.va = wr->flush.remote_addr;
		h.reth.rkey = wr->flush.rkey;
		h.reth.len = wr->flush.length;
		h.feth = sroce_feth(wr->flush.type, wr->flush.level);
		h.bth.ackreq = 1;
		break;
	default:
		first = k == 0;
		last = k + 1 == w->npsn;
		len = w->length - off;
		if (len > qp->mtu)
			len = qp->mtu;
		st = sroce_req_map(qp, w, off, len, tp);
		if (st) {
			w->status = st;
			return 0;
		}
		op = sroce_send_opcode(w, first, last);
		if (first && (wr->opcode == SROCE_WR_RDMA_WRITE ||
			      wr->opcode == SROCE_WR_RDMA_WRITE_WITH_IMM)) {
			h.reth.va = wr->rdma.remote_addr;
			h.reth.rkey = wr->rdma.rkey;
			h.reth.len = w->length;
		}
		h.imm = wr->ex;
		h.ieth = wr->ex;
		if (last && wr->opcode != SROCE_WR_RDMA_WRITE)
			h.bth.se = !!(wr->send_flags & SROCE_SEND_SOLICITED);
		/*
		 * At the end of a burst, not of each message in it; and twice
		 * per window, so that a small one never waits for ACKs.
		 */
		if (qp->type == SROCE_QPT_RC &&
		    ((last && !sroce_req_followed(qp)) ||
		     ++qp->req.noack >= SROCE_ACKREQ_EVERY ||
		     qp->req.noack >= sroce_req_window(qp) / 2))
			h.bth.ackreq = 1;
		if (qp->type == SROCE_QPT_UD) {
			h.bth.dqpn = wr->ud.remote_qpn;
			h.deth.qkey = (wr->ud.remote_qkey & 0x80000000u) ?
				      qp->attr.qkey : wr->ud.remote_qkey;
			h.deth.sqpn = qp->qpn;
			tp->ah = wr->ud.ah;
		}
		break;
	}
	h.bth.opcode = sroce_qp_transport(qp) | op;
	h.xrceth = wr->xrc_srqn;	/* encoded on XRC requests only */
	if (sroce_pkt_emit(qp, tp, &h)) {
		qp->req.refused = true;
		return 0;
	}
	qp->req.refused = false;
	qp->req.sent = true;
	if (h.bth.ackreq) {
		qp->req.noack = 0;
		/*
		 * Time a new PSN only (Karn), in a call that knows the time
		 * anyway, and not a READ or atomic, whose answer queues
		 * behind the responder's earlier READ responses: comp.c,
		 * sroce_comp_rtt().
		 */
		if (!qp->req.rtt_on && sroce_qp_now_known(qp) &&
		    !sroce_wr_is_rd_atomic(wr->opcode) &&
		    !sroce_psn_lt(h.bth.psn, qp->req.psn_hi)) {
			qp->req.rtt_on = true;
			qp->req.rtt_psn = h.bth.psn;
			qp->req.rtt_ns = sroce_qp_now(qp);
		}
	}
	return used;
}

/*
 * Run the local operation @w == wqe[next] once: a go-back-N that moves
 * the cursor before it walks past it again without re-running it.  It
 * completes from the head (sroce_comp_progress), in order.
 */
static int sroce_req_local(struct sroce_qp *qp, struct sroce_swqe *w)
{
	if (!w->done) {
		w->status = qp->ops->local_op ?
			    qp->ops->local_op(qp->ctx, &w->wr) :
			    SROCE_WC_LOC_QP_OP_ERR;
		if (w->status) {
			qp->req.stopped = true;
			return STEP_STOP;
		}
		w->done = 1;
		w->first_psn = qp->req.psn;
		w->npsn = 0;
	}
	if ((s32)(qp->req.next - qp->req.hi) >= 0)
		qp->req.hi = qp->req.next + 1;
	qp->req.next++;
	return STEP_SENT;
}

/* Point the send cursor at @psn; false if no started WQE holds it. */
static bool sroce_req_seek(struct sroce_qp *qp, u32 psn)
{
	const struct sroce_swqe *w;
	u32 i;

	for (i = qp->comp.head; i != qp->req.hi; i++) {
		w = sroce_sq_slot(qp, i);
		if (sroce_psn_in(psn, w->first_psn, w->npsn)) {
			qp->req.next = i;
			sroce_req_recount_rd(qp);
			qp->req.off_psn = sroce_psn(psn - w->first_psn);
			qp->req.psn = sroce_psn(psn);
			qp->req.stopped = false;
			qp->req.noack = 0;
			return true;
		}
	}
	return false;
}

/*
 * wqe[next] failed while its first packet was mapped: it completes in
 * error once everything before it is acknowledged.  If the message
 * before it went without AckReq (it was followed), send that message's
 * last packet again: now it is not followed and asks, and a responder
 * answers a duplicate that asks.  Without it the error would wait for
 * the retransmit timer, or forever with timeout 0.
 */
static int sroce_req_failed(struct sroce_qp *qp)
{
	qp->req.stopped = true;
	/* noack counts RC packets only. */
	if (qp->req.off_psn || !qp->req.noack ||
	    !sroce_req_seek(qp, sroce_psn_add(qp->req.psn, -1u)))
		return STEP_STOP;
	return STEP_SENT;
}

static int sroce_req_step(struct sroce_qp *qp)
{
	struct sroce_swqe *w;
	u32 used;
	u64 now;

	if (!sroce_qp_can_send(qp) || qp->req.stopped || qp->req.rnr_wait)
		return STEP_STOP;
	if (qp->req.next == qp->req.tail && !sroce_req_pull(qp))
		return STEP_STOP;
	w = sroce_sq_slot(qp, qp->req.next);
	if (w->status) {
		/* Completed in error once it reaches the head. */
		qp->req.stopped = true;
		return STEP_STOP;
	}
	if (qp->state == SROCE_QPS_SQD && !qp->req.off_psn &&
	    (s32)(qp->req.next - qp->req.hi) >= 0)
		return STEP_STOP;
	if (sroce_req_blocked(qp, w))
		return STEP_STOP;
	if (sroce_wr_is_local(w->wr.opcode))
		return sroce_req_local(qp, w);
	/*
	 * The rate limiter's wait ends at a deadline, not by spinning.  An
	 * idle one (no CNP since it recovered) needs no time: no clock read
	 * per packet on a QP that was never cut.
	 */
	if (qp->cc.p && qp->cc.rp.active) {
		now = sroce_qp_now(qp);
		sroce_cc_rp_timer(&qp->cc.rp, qp->cc.p, now);
		if (!sroce_cc_rp_may_send(&qp->cc.rp, now)) {
			qp->cc.paced = true;
			return STEP_STOP;
		}
	}
	if (!qp->req.off_psn) {
		w->first_psn = qp->req.psn;
		if (sroce_wr_is_atomic(w->wr.opcode) ||
		    sroce_wr_is_placement(w->wr.opcode) ||
		    qp->type == SROCE_QPT_UD)
			w->npsn = 1;
		else
			w->npsn = sroce_npsn(w->length, qp->mtu);
		if ((s32)(qp->req.next - qp->req.hi) >= 0)
			qp->req.hi = qp->req.next + 1;
	}
	used = sroce_req_packet(qp, w);
	if (!used)
		return w->status ? sroce_req_failed(qp) : STEP_STOP;
	if (qp->cc.p && qp->cc.rp.active)
		sroce_cc_rp_sent(&qp->cc.rp, qp->cc.p, qp->txp.hdr_len +
				 qp->txp.paylen + qp->txp.pad,
				 sroce_qp_now(qp));
	/* The resend a NAK asked for left: comp.c, sroce_comp_nak_stale(). */
	if ((qp->comp.nak_seen || qp->comp.gap_retried) &&
	    qp->req.psn == qp->comp.psn) {
		qp->comp.resent = true;
		qp->comp.resent_ns = sroce_qp_now(qp);
	}
	qp->req.off_psn += used;
	qp->req.psn = sroce_psn_add(qp->req.psn, used);
	if (sroce_psn_lt(qp->req.psn_hi, qp->req.psn))
		qp->req.psn_hi = qp->req.psn;
	if (qp->req.off_psn >= w->npsn) {
		if (sroce_wr_is_rd_atomic(w->wr.opcode))
			qp->req.rd_out++;
		qp->req.next++;
		qp->req.off_psn = 0;
		if (qp->type != SROCE_QPT_RC)
			w->done = 1;
	}
	if (qp->type == SROCE_QPT_RC && !qp->req.timer_on)
		sroce_comp_arm(qp);
	return STEP_SENT;
}

u32 sroce_req_run(struct sroce_qp *qp, u32 budget)
{
	u32 sent = 0;

	while (sent < budget && sroce_req_step(qp) == STEP_SENT)
		sent++;
	sroce_comp_progress(qp);
	return sent;
}

/*
 * rdma_rxe drops a FLUSH carrying the IBA's ICRC as corrupt, and every
 * other responder drops one carrying rxe's variant (icrc.h); nothing on
 * the wire says which peer this is.  So a FLUSH that has to be resent
 * from its own PSN (the peer has all before it) a third time in a row
 * goes out with the other variant, and the variant alternates from then
 * on; later FLUSHes start with the one that went last.  Once a FLUSH
 * went through with no change of variant, the QP has its answer and
 * stops switching.  A FLUSH lost once or twice costs an IBA peer nothing
 * more; rdma_rxe's first FLUSH on a QP costs three retries, and with
 * retry_cnt 7 either kind of peer still gets three tries or more.
 * Called with the send cursor on @psn.
 */
static void sroce_req_flush_icrc(struct sroce_qp *qp, u32 psn)
{
	const struct sroce_swqe *w = sroce_sq_slot(qp, qp->req.next);

	if (qp->type != SROCE_QPT_RC || w->wr.opcode != SROCE_WR_FLUSH ||
	    qp->req.flush_sure)
		return;
	if (!qp->req.flush_misses || qp->req.flush_miss_psn != psn) {
		qp->req.flush_misses = 1;
		qp->req.flush_miss_psn = psn;
		return;
	}
	if (qp->req.flush_misses < 2) {
		qp->req.flush_misses++;
		return;
	}
	qp->req.flush_misses = 3;	/* three or more: switching */
	qp->req.flush_rxe = !qp->req.flush_rxe;
	qp->stats.flush_icrc_switches++;
}

/* The FLUSH at @psn was answered with success. */
void sroce_req_flush_done(struct sroce_qp *qp, u32 psn)
{
	/* After a switch its response may answer the other variant. */
	if (qp->req.flush_misses < 3 || qp->req.flush_miss_psn != psn)
		qp->req.flush_sure = true;
	qp->req.flush_misses = 0;
}

/* Go back N: the next packet sent will be the one at @psn. */
void sroce_req_rewind(struct sroce_qp *qp, u32 psn)
{
	if (!sroce_req_seek(qp, psn))
		return;
	/* What is resent now neither times a round trip nor has left yet. */
	qp->req.rtt_on = false;
	qp->comp.resent = false;
	qp->stats.retransmits++;
	sroce_req_flush_icrc(qp, psn);
}

/*
 * ACKs for packets sent before a go-back overtook the resend cursor:
 * resume at the oldest unacknowledged PSN rather than resend what the
 * responder already has (and keep PSN arithmetic behind comp.psn from
 * going negative).
 */
void sroce_req_catch_up(struct sroce_qp *qp)
{
	if (!sroce_psn_lt(qp->req.psn, qp->comp.psn))
		return;
	if (sroce_req_seek(qp, qp->comp.psn))
		return;
	/* Everything started is acknowledged. */
	qp->req.next = qp->req.hi;
	sroce_req_recount_rd(qp);
	qp->req.off_psn = 0;
	qp->req.psn = qp->comp.psn;
}

/*
 * Flush every send WQE the core holds (at most sq_size), then at most
 * @budget of those still in the caller's SQ.  True if it stopped at
 * @budget with the SQ maybe not empty.
 */
bool sroce_req_flush(struct sroce_qp *qp, u32 budget)
{
	struct sroce_swqe *w;
	bool more = false;
	u32 n;

	while (qp->comp.head != qp->req.tail) {
		w = sroce_sq_slot(qp, qp->comp.head);
		sroce_comp_complete(qp, w, SROCE_WC_WR_FLUSH_ERR);
	}
	qp->req.next = qp->req.tail;
	qp->req.hi = qp->req.tail;
	qp->req.off_psn = 0;
	for (n = 0;; n++) {
		if (n == budget) {
			more = true;
			break;
		}
		w = sroce_sq_slot(qp, qp->req.tail);
		if (qp->ops->next_send(qp->ctx, &w->wr))
			break;
		/* Never sent: completing it moves next and hi past it. */
		qp->req.tail++;
		sroce_comp_complete(qp, w, SROCE_WC_WR_FLUSH_ERR);
	}
	qp->req.timer_on = false;
	qp->req.rnr_wait = false;
	qp->req.stopped = false;
	return more;
}
