// SPDX-License-Identifier: GPL-2.0
/*
 * The responder: classifies request PSNs (expected, duplicate, ahead),
 * places SEND and WRITE payload, executes READ and atomic requests from a
 * resource array, and answers with coalesced ACKs, NAKs and responses
 * that never overtake one another.
 */
#include "qp_int.h"

#define SROCE_ACK_SYN	sroce_aeth_syndrome(SROCE_AETH_ACK, SROCE_AETH_CREDIT_INVALID)

/* Every change of a slot's pending flag goes here, to keep the count. */
static void sroce_res_set_pending(struct sroce_qp *qp, struct sroce_rd_res *r,
				  bool on)
{
	if (r->pending == on)
		return;
	r->pending = on;
	if (on) {
		qp->resp.res_pending++;
		qp->resp.res_last = r;
	} else {
		qp->resp.res_pending--;
	}
}

static void sroce_res_clear_all_pending(struct sroce_qp *qp)
{
	u32 i;

	for (i = 0; i < qp->resp.res_used; i++)
		qp->resp.res[i].pending = 0;
	qp->resp.res_pending = 0;
}

static bool sroce_resp_res_pending(const struct sroce_qp *qp)
{
	return qp->resp.res_pending != 0;
}

bool sroce_resp_ready(const struct sroce_qp *qp)
{
	if (qp->type != SROCE_QPT_RC || qp->state == SROCE_QPS_ERR ||
	    qp->state < SROCE_QPS_RTR)
		return false;
	return sroce_resp_res_pending(qp) || qp->resp.ack_held;
}

static void sroce_resp_emit_ack(struct sroce_qp *qp, u8 syn, u32 psn)
{
	struct sroce_tx_pkt *tp = &qp->txp;
	struct sroce_hdrs h;

	sroce_pkt_hdrs_init(qp, &h, sroce_qp_transport(qp) | SROCE_OP_ACK, psn);
	h.aeth.syndrome = syn;
	h.aeth.msn = qp->resp.msn;
	tp->paylen = 0;
	tp->nseg = 0;
	tp->inline_data = NULL;
	tp->ah = 0;
	/*
	 * A lost ACK is recovered by the requester's timer, but one our own
	 * TX queue refused is owed, not lost: sroce_resp_run sends it once
	 * there is room.  Dropping it would spend the requester's retries on
	 * our back-pressure, and with many QPs exhaust them.  A later ACK or
	 * NAK supersedes it (both are cumulative).
	 */
	if (sroce_pkt_emit(qp, tp, &h)) {
		if (!qp->resp.ack_held)
			qp->stats.acks_deferred++;
		qp->resp.ack_held = true;
		qp->resp.held_syn = syn;
		qp->resp.held_psn = psn;
		return;
	}
	qp->resp.ack_held = false;
}

/*
 * ACK or NAK @psn.  It waits behind owed READ/atomic responses: an ACK
 * for a later PSN would tell the requester those responses were lost.
 */
static void sroce_resp_ack(struct sroce_qp *qp, u8 syn, u32 psn)
{
	qp->resp.unacked = 0;
	if (sroce_resp_res_pending(qp)) {
		qp->resp.ack_held = true;
		qp->resp.held_syn = syn;
		qp->resp.held_psn = psn;
		return;
	}
	sroce_resp_emit_ack(qp, syn, psn);
}

void sroce_resp_ack_deadline(struct sroce_qp *qp)
{
	sroce_resp_ack(qp, SROCE_ACK_SYN, sroce_psn(qp->resp.psn - 1));
}

static void sroce_resp_complete(struct sroce_qp *qp, u8 status, u8 opcode,
				const struct sroce_pkt *pkt, u32 byte_len)
{
	struct sroce_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.wr_id = qp->resp.rwqe.wr_id;
	cqe.status = status;
	cqe.opcode = opcode;
	cqe.is_recv = 1;
	cqe.byte_len = byte_len;
	cqe.qp_num = qp->qpn;
	cqe.pkey_index = qp->attr.pkey_index;
	if (qp->xrc)
		cqe.srqn = qp->resp.srqn;
	if (pkt && status == SROCE_WC_SUCCESS) {
		cqe.solicited = pkt->h.bth.se;
		if (pkt->op->flags & SROCE_OPF_IMMDT) {
			cqe.flags |= SROCE_WC_F_WITH_IMM;
			cqe.ex = pkt->h.imm;
		}
		if (pkt->op->flags & SROCE_OPF_IETH) {
			cqe.flags |= SROCE_WC_F_WITH_INV;
			cqe.ex = pkt->h.ieth;
		}
		if (qp->type == SROCE_QPT_UD) {
			cqe.flags |= SROCE_WC_F_GRH;
			cqe.src_qp = pkt->h.deth.sqpn;
		}
	}
	qp->resp.have_rwqe = false;
	qp->ops->complete(qp->ctx, &cqe);
}

static bool sroce_resp_get_rwqe(struct sroce_qp *qp)
{
	if (qp->resp.have_rwqe)
		return true;
	if (qp->ops->recv_wqe(qp->ctx, &qp->resp.rwqe))
		return false;
	if (qp->resp.rwqe.num_sge > SROCE_MAX_SGE)
		qp->resp.rwqe.num_sge = SROCE_MAX_SGE;
	qp->resp.have_rwqe = true;
	return true;
}

/*
 * A request the responder cannot honour.  RC: NAK it now (owed responses
 * are abandoned), fail the receive WQE in progress if @recv_status, and
 * go to ERR (IBA 9.9.3.1 classes B, C, D).  UC/UD: drop the message.
 */
static enum sroce_drop sroce_resp_error(struct sroce_qp *qp,
					const struct sroce_pkt *pkt, u8 nak,
					u8 recv_status)
{
	qp->resp.cur = 0;
	if (qp->type != SROCE_QPT_RC) {
		if (recv_status && qp->resp.have_rwqe) {
			sroce_resp_complete(qp, recv_status, SROCE_WC_RECV,
					    NULL, 0);
			if (qp->type == SROCE_QPT_UC)
				sroce_qp_to_err(qp);
		}
		return SROCE_DROP_BAD_SEQUENCE;
	}
	sroce_res_clear_all_pending(qp);
	qp->resp.ack_held = false;
	sroce_resp_emit_ack(qp, sroce_aeth_syndrome(SROCE_AETH_NAK, nak),
			    pkt->h.bth.psn);
	if (nak == SROCE_NAK_REMOTE_ACCESS)
		qp->stats.access_naks_sent++;
	else
		qp->stats.error_naks_sent++;
	if (recv_status && qp->resp.have_rwqe)
		sroce_resp_complete(qp, recv_status, SROCE_WC_RECV, NULL, 0);
	sroce_qp_event(qp, nak == SROCE_NAK_REMOTE_ACCESS ?
		       SROCE_EVENT_QP_ACCESS_ERR : SROCE_EVENT_QP_REQ_ERR);
	sroce_qp_to_err(qp);
	return SROCE_DROP_NONE;
}

/*
 * NAK the expected PSN and arm the timer that repeats the NAK: if the NAK
 * or the first retransmitted packet is lost, nothing else would tell the
 * requester before its ACK timeout.  Backs off 2x per repeat, six
 * repeats over 126 ms: past that the requester's own timeout takes over,
 * and a forged or stale PSN cannot start an endless stream of NAKs.
 */
static void sroce_resp_seq_nak(struct sroce_qp *qp)
{
	qp->stats.seq_naks_sent++;
	sroce_resp_ack(qp, sroce_aeth_syndrome(SROCE_AETH_NAK,
					       SROCE_NAK_PSN_SEQ_ERR),
		       qp->resp.psn);
	if (qp->resp.nak_tries > 5) {
		qp->resp.nak_deadline = 0;
		return;
	}
	qp->resp.nak_deadline = sroce_qp_now(qp) +
				(SROCE_NAK_RESEND_NS << qp->resp.nak_tries);
	qp->resp.nak_tries++;
}

/*
 * No receive WQE, or (SROCE_PLACE_AGAIN, -SROCE_EAGAIN) the memory the
 * packet goes to is not present yet: nothing of the packet counts.  RC:
 * RNR NAK its PSN; the requester sends it again after the RNR timer, by
 * when the glue has made the memory present.  UC: the message is lost.
 */
static enum sroce_drop sroce_resp_rnr(struct sroce_qp *qp,
				      const struct sroce_pkt *pkt)
{
	if (qp->type != SROCE_QPT_RC) {
		/* UC: the message is lost; later packets of it are dropped. */
		qp->resp.cur = 0;
		return SROCE_DROP_NO_RESOURCE;
	}
	qp->stats.rnr_naks_sent++;
	/* The retry of a FIRST packet starts the message again. */
	if (pkt->op->flags & SROCE_OPF_FIRST)
		qp->resp.cur = 0;
	/* Later packets are dropped silently until the retry arrives. */
	qp->resp.nak_sent = true;
	sroce_resp_ack(qp, sroce_aeth_syndrome(SROCE_AETH_RNR_NAK,
					       qp->attr.min_rnr_timer),
		       pkt->h.bth.psn);
	return SROCE_DROP_NO_RESOURCE;
}

/* An expected SEND/WRITE packet was placed: ACK by policy. */
static void sroce_resp_advance(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	u32 psn = pkt->h.bth.psn;

	qp->resp.psn = sroce_psn_add(psn, 1);
	if (qp->type != SROCE_QPT_RC)
		return;
	if (pkt->h.bth.ackreq || ++qp->resp.unacked >= SROCE_ACK_EVERY) {
		sroce_resp_ack(qp, SROCE_ACK_SYN, psn);
		return;
	}
	/*
	 * Inside a message the requester's AckReq or SROCE_ACK_EVERY brings
	 * the next ACK; a message that ended without AckReq may wait for
	 * nothing else, so that one is ACKed after SROCE_ACK_DELAY_NS.
	 */
	if (qp->resp.unacked == 1)
		qp->resp.ack_deadline = U64_MAX;
	if ((pkt->op->flags & SROCE_OPF_LAST) &&
	    qp->resp.ack_deadline == U64_MAX)
		qp->resp.ack_deadline = sroce_qp_now(qp) + SROCE_ACK_DELAY_NS;
}

static enum sroce_drop sroce_resp_send(struct sroce_qp *qp,
				       const struct sroce_pkt *pkt,
				       const void *payload)
{
	u32 flags = pkt->op->flags;
	u8 st;

	if (flags & SROCE_OPF_FIRST) {
		if (!sroce_resp_get_rwqe(qp))
			return sroce_resp_rnr(qp, pkt);
		qp->resp.off = 0;
		qp->resp.cur = SROCE_OPF_SEND;
	}
	st = sroce_pkt_place(qp, qp->resp.rwqe.sge, qp->resp.rwqe.num_sge,
			     qp->resp.off, pkt->paylen, payload, 0, NULL, true);
	if (st == SROCE_PLACE_AGAIN)
		return sroce_resp_rnr(qp, pkt);
	if (st)
		return sroce_resp_error(qp, pkt, st == SROCE_WC_LOC_LEN_ERR ?
					SROCE_NAK_INVALID_REQ :
					SROCE_NAK_REMOTE_OP_ERR, st);
	qp->resp.off += pkt->paylen;
	if (flags & SROCE_OPF_LAST) {
		if ((flags & SROCE_OPF_IETH) && qp->ops->invalidate &&
		    qp->ops->invalidate(qp->ctx, pkt->h.ieth))
			return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_OP_ERR,
						SROCE_WC_LOC_QP_OP_ERR);
		sroce_resp_complete(qp, SROCE_WC_SUCCESS, SROCE_WC_RECV, pkt,
				    qp->resp.off);
		qp->resp.msn = sroce_psn_add(qp->resp.msn, 1);
		qp->resp.cur = 0;
	}
	sroce_resp_advance(qp, pkt);
	return SROCE_DROP_NONE;
}

static enum sroce_drop sroce_resp_write(struct sroce_qp *qp,
					const struct sroce_pkt *pkt,
					const void *payload)
{
	u32 flags = pkt->op->flags, len = pkt->paylen;
	struct sroce_mem_ref ref;
	int ret;

	if (flags & SROCE_OPF_FIRST) {
		const struct sroce_reth *reth = &pkt->h.reth;

		if (!(qp->attr.qp_access_flags & SROCE_ACCESS_REMOTE_WRITE))
			return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS,
						0);
		if (reth->len > SROCE_MAX_MSG)
			return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ,
						0);
		/* Zero-length writes carry no usable R_Key (IBA 9.4.4). */
		if (reth->len &&
		    qp->ops->mem_access(qp->ctx, reth->rkey, true, reth->va,
					reth->len, SROCE_ACCESS_REMOTE_WRITE,
					&ref))
			return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS,
						0);
		qp->resp.va = reth->va;
		qp->resp.rkey = reth->rkey;
		qp->resp.resid = reth->len;
		qp->resp.off = 0;
		qp->resp.cur = SROCE_OPF_WRITE;
	}
	if (len > qp->resp.resid ||
	    ((flags & SROCE_OPF_LAST) && len != qp->resp.resid))
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	if ((flags & SROCE_OPF_IMMDT) && !sroce_resp_get_rwqe(qp)) {
		if (flags & SROCE_OPF_FIRST)
			qp->resp.cur = 0;
		return sroce_resp_rnr(qp, pkt);
	}
	if (len) {
		if (qp->ops->mem_access(qp->ctx, qp->resp.rkey, true,
					qp->resp.va, len,
					SROCE_ACCESS_REMOTE_WRITE, &ref))
			return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS,
						0);
		ret = qp->ops->copy_in(qp->ctx, &ref, 0, payload, 0, len);
		if (ret == -SROCE_EAGAIN)
			return sroce_resp_rnr(qp, pkt);
		if (ret)
			return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS,
						0);
	}
	qp->resp.va += len;
	qp->resp.resid -= len;
	qp->resp.off += len;
	if (flags & SROCE_OPF_LAST) {
		if (flags & SROCE_OPF_IMMDT)
			sroce_resp_complete(qp, SROCE_WC_SUCCESS,
					    SROCE_WC_RECV_RDMA_WITH_IMM, pkt,
					    qp->resp.off);
		qp->resp.msn = sroce_psn_add(qp->resp.msn, 1);
		qp->resp.cur = 0;
	}
	sroce_resp_advance(qp, pkt);
	return SROCE_DROP_NONE;
}

/*
 * Is @a a better slot to reuse than @b: free, then the oldest.  Slots are
 * taken in PSN order (only a new, in-sequence request takes one), and a
 * requester keeps at most max_rd_atomic <= max_dest_rd_atomic requests
 * outstanding, the newest ones: so when a new one needs a slot, the
 * oldest is one the requester has all the answers to, whatever its state
 * here.  Preferring answers not being sent instead evicted answers the
 * requester still lacked (one lost, or one cancelled by the go-back-N
 * behind a duplicate READ); its retransmission then found nothing and
 * the requester ran out of retries (found by make soak).
 */
static bool sroce_res_better(const struct sroce_rd_res *a,
			     const struct sroce_rd_res *b)
{
	if (!b)
		return true;
	if (!a->kind != !b->kind)
		return !a->kind;
	return (s32)(a->seq - b->seq) < 0;
}

/*
 * A resource for a new READ/atomic: a free one, else the oldest, whose
 * answers, if any are still being sent (a replay for a stale duplicate),
 * are abandoned.  Like rxe, never a NAK: counting replays against the
 * limit would fail a legal requester.  In turn from res_next, which is
 * always such a slot; by a scan once max_dest_rd_atomic has changed.
 */
static struct sroce_rd_res *sroce_resp_res_alloc(struct sroce_qp *qp)
{
	struct sroce_rd_res *best = NULL;
	u32 i, n = qp->attr.max_dest_rd_atomic;

	if (!n)
		return NULL;
	if (n > qp->resp.max_res)
		n = qp->resp.max_res;
	if (!qp->resp.res_used)
		qp->resp.res_n = n;
	else if (n != qp->resp.res_n)
		qp->resp.res_scan = true;
	if (!qp->resp.res_scan) {
		i = qp->resp.res_next;
		qp->resp.res_next = i + 1 < n ? i + 1 : 0;
		best = &qp->resp.res[i];
	} else {
		for (i = 0; i < n; i++)
			if (sroce_res_better(&qp->resp.res[i], best))
				best = &qp->resp.res[i];
		i = best - qp->resp.res;
	}
	if (i >= qp->resp.res_used)
		qp->resp.res_used = i + 1;
	sroce_res_set_pending(qp, best, false);	/* abandoned, if owed */
	memset(best, 0, sizeof(*best));
	best->seq = qp->resp.res_seq++;
	return best;
}

/* Give back the slot just taken, for a request that was not executed. */
static void sroce_resp_res_undo(struct sroce_qp *qp, struct sroce_rd_res *r)
{
	r->kind = 0;
	if (!qp->resp.res_scan)
		qp->resp.res_next = r - qp->resp.res;
}

static enum sroce_drop sroce_resp_read(struct sroce_qp *qp,
				       const struct sroce_pkt *pkt)
{
	const struct sroce_reth *reth = &pkt->h.reth;
	struct sroce_mem_ref ref;
	struct sroce_rd_res *r;
	u32 psn = pkt->h.bth.psn;

	if (!(qp->attr.qp_access_flags & SROCE_ACCESS_REMOTE_READ))
		return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS, 0);
	if (reth->len > SROCE_MAX_MSG)
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	if (reth->len &&
	    qp->ops->mem_access(qp->ctx, reth->rkey, true, reth->va, reth->len,
				SROCE_ACCESS_REMOTE_READ, &ref))
		return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS, 0);
	r = sroce_resp_res_alloc(qp);
	if (!r)
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	r->kind = SROCE_OP_READ_REQ;
	r->srqn = pkt->h.xrceth;
	r->psn = psn;
	r->npsn = sroce_npsn(reth->len, qp->mtu);
	r->start_psn = psn;
	r->cur_psn = psn;
	r->end_psn = sroce_psn_add(psn, r->npsn);
	r->va = reth->va;
	r->rkey = reth->rkey;
	r->resid = reth->len;
	qp->resp.msn = sroce_psn_add(qp->resp.msn, 1);
	r->msn = qp->resp.msn;
	sroce_res_set_pending(qp, r, true);
	qp->resp.psn = r->end_psn;
	/* The responses acknowledge everything before them. */
	qp->resp.unacked = 0;
	sroce_resp_run(qp, SROCE_RX_INLINE_BUDGET);
	return SROCE_DROP_NONE;
}

/*
 * A one-PSN request executed into @r: the answer is owed from now on,
 * and the responses acknowledge everything before it.
 */
static void sroce_resp_res_owed(struct sroce_qp *qp, struct sroce_rd_res *r,
				u8 kind, u32 psn)
{
	r->kind = kind;
	r->psn = psn;
	r->npsn = 1;
	r->start_psn = psn;
	r->cur_psn = psn;
	r->end_psn = sroce_psn_add(psn, 1);
	qp->resp.msn = sroce_psn_add(qp->resp.msn, 1);
	r->msn = qp->resp.msn;
	sroce_res_set_pending(qp, r, true);
	qp->resp.psn = r->end_psn;
	qp->resp.unacked = 0;
	sroce_resp_run(qp, SROCE_RX_INLINE_BUDGET);
}

static enum sroce_drop sroce_resp_atomic(struct sroce_qp *qp,
					 const struct sroce_pkt *pkt)
{
	const struct sroce_atmeth *a = &pkt->h.atmeth;
	u8 op = pkt->h.bth.opcode & ~SROCE_TRANSPORT_MASK;
	struct sroce_mem_ref ref;
	struct sroce_rd_res *r;
	u64 orig = 0;
	int ret;

	if (!(qp->attr.qp_access_flags & SROCE_ACCESS_REMOTE_ATOMIC))
		return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS, 0);
	if (a->va & 7)
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	if (qp->ops->mem_access(qp->ctx, a->rkey, true, a->va, 8,
				SROCE_ACCESS_REMOTE_ATOMIC, &ref))
		return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS, 0);
	r = sroce_resp_res_alloc(qp);
	if (!r)
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	ret = qp->ops->atomic(qp->ctx, &ref, op, a->cmp, a->swap_add, &orig);
	if (ret) {
		sroce_resp_res_undo(qp, r);
		if (ret == -SROCE_EAGAIN)
			return sroce_resp_rnr(qp, pkt);
		return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_OP_ERR, 0);
	}
	r->orig = orig;
	sroce_resp_res_owed(qp, r, op, pkt->h.bth.psn);
	return SROCE_DROP_NONE;
}

/*
 * ATOMIC WRITE (IBA 1.5): one aligned 8-byte store, atomic against our
 * atomics on the word, after every earlier request (they were executed
 * in PSN order).  As rdma_rxe: it needs remote write on the QP and the
 * MR, takes a responder resource and is answered by an empty READ
 * response; a bad length or alignment is an invalid request.
 */
static enum sroce_drop sroce_resp_atomic_write(struct sroce_qp *qp,
					       const struct sroce_pkt *pkt)
{
	const struct sroce_reth *reth = &pkt->h.reth;
	struct sroce_mem_ref ref;
	struct sroce_rd_res *r;
	u64 val, orig;
	int ret;

	if (!(qp->attr.qp_access_flags & SROCE_ACCESS_REMOTE_WRITE))
		return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS, 0);
	if (reth->len != SROCE_ATOMIC_WRITE_LEN || (reth->va & 7))
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	if (qp->ops->mem_access(qp->ctx, reth->rkey, true, reth->va,
				SROCE_ATOMIC_WRITE_LEN,
				SROCE_ACCESS_REMOTE_WRITE, &ref))
		return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS, 0);
	r = sroce_resp_res_alloc(qp);
	if (!r)
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	memcpy(&val, pkt->h.atomic_wr, sizeof(val));
	ret = qp->ops->atomic(qp->ctx, &ref, SROCE_OP_ATOMIC_WRITE, 0, val,
			      &orig);
	if (ret) {
		sroce_resp_res_undo(qp, r);
		if (ret == -SROCE_EAGAIN)
			return sroce_resp_rnr(qp, pkt);
		return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_OP_ERR, 0);
	}
	sroce_resp_res_owed(qp, r, SROCE_OP_ATOMIC_WRITE, pkt->h.bth.psn);
	return SROCE_DROP_NONE;
}

/* The MR rights a FLUSH of placement type @type needs. */
static u32 sroce_flush_access(u8 type)
{
	return (type & SROCE_FLUSH_GLOBAL ? SROCE_ACCESS_FLUSH_GLOBAL : 0) |
	       (type & SROCE_FLUSH_PERSISTENT ?
		SROCE_ACCESS_FLUSH_PERSISTENT : 0);
}

/*
 * FLUSH (IBA 1.5): everything written before it is placed, since the
 * responder executes in PSN order with CPU stores; sroce memory is RAM,
 * so "persistent" promises no more than "global" (Documentation/
 * protocol-transport.rst).  As rdma_rxe: the QP must allow the placement
 * type (else an invalid request), the MR too (else a remote access
 * error), the range is checked unless the level is the whole MR; it
 * takes a responder resource and is answered by an empty READ response.
 */
static enum sroce_drop sroce_resp_flush_req(struct sroce_qp *qp,
					    const struct sroce_pkt *pkt)
{
	const struct sroce_reth *reth = &pkt->h.reth;
	u8 type = sroce_feth_type(pkt->h.feth);
	u8 level = sroce_feth_level(pkt->h.feth);
	u32 need = sroce_flush_access(type), len = reth->len;
	struct sroce_mem_ref ref;
	struct sroce_rd_res *r;

	if (!type || (type & ~(SROCE_FLUSH_GLOBAL | SROCE_FLUSH_PERSISTENT)) ||
	    level > SROCE_FLUSH_MR ||
	    (qp->attr.qp_access_flags & need) != need)
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	if (level == SROCE_FLUSH_MR || !len) {
		need |= SROCE_ACCESS_KEY_ONLY;
		len = 0;
	}
	if (qp->ops->mem_access(qp->ctx, reth->rkey, true, reth->va, len,
				need, &ref))
		return sroce_resp_error(qp, pkt, SROCE_NAK_REMOTE_ACCESS, 0);
	r = sroce_resp_res_alloc(qp);
	if (!r)
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	sroce_resp_res_owed(qp, r, SROCE_OP_FLUSH, pkt->h.bth.psn);
	return SROCE_DROP_NONE;
}

/*
 * XRC target: the request's XRCETH must name an XRC SRQ of the QP's XRC
 * domain, the same one for every packet of a message (the receive WQE
 * in progress came from it).  The caller's xrc_srq op makes it the SRQ
 * of the receive WQE, memory checks and completions that follow.
 */
static bool sroce_resp_xrc_srq(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	u32 srqn = pkt->h.xrceth;

	if ((qp->resp.cur || qp->resp.have_rwqe) && srqn != qp->resp.srqn)
		return false;
	if (qp->ops->xrc_srq(qp->ctx, srqn))
		return false;
	qp->resp.srqn = srqn;
	return true;
}

/* A packet at the expected PSN (RC, UC). */
static enum sroce_drop sroce_resp_exec(struct sroce_qp *qp,
				       const struct sroce_pkt *pkt,
				       const void *payload)
{
	u32 flags = pkt->op->flags;

	if (qp->xrc && !sroce_resp_xrc_srq(qp, pkt))
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	/* UC: a new message abandons one whose end was lost (IBA 9.8.4). */
	if (qp->type == SROCE_QPT_UC && (flags & SROCE_OPF_FIRST))
		qp->resp.cur = 0;
	/* Opcode sequence (IBA 9.8.3): MIDDLE/LAST only inside a message. */
	if (qp->resp.cur) {
		if (!(flags & qp->resp.cur) || (flags & SROCE_OPF_FIRST))
			return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ,
						0);
	} else if ((flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE)) &&
		   !(flags & SROCE_OPF_FIRST)) {
		return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
	}
	if (flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE)) {
		/* FIRST and MIDDLE carry exactly one PMTU. */
		if (!(flags & SROCE_OPF_LAST) ? pkt->paylen != qp->mtu :
		    pkt->paylen > qp->mtu)
			return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ,
						0);
	}
	if (flags & SROCE_OPF_SEND)
		return sroce_resp_send(qp, pkt, payload);
	if (flags & SROCE_OPF_WRITE)
		return sroce_resp_write(qp, pkt, payload);
	if (qp->type == SROCE_QPT_RC && (flags & SROCE_OPF_READ))
		return sroce_resp_read(qp, pkt);
	if (qp->type == SROCE_QPT_RC && (flags & SROCE_OPF_ATOMIC))
		return sroce_resp_atomic(qp, pkt);
	if (qp->type == SROCE_QPT_RC && (flags & SROCE_OPF_ATOMIC_WRITE))
		return sroce_resp_atomic_write(qp, pkt);
	if (qp->type == SROCE_QPT_RC && (flags & SROCE_OPF_FLUSH))
		return sroce_resp_flush_req(qp, pkt);
	return sroce_resp_error(qp, pkt, SROCE_NAK_INVALID_REQ, 0);
}

static bool sroce_res_is_read(const struct sroce_rd_res *r)
{
	return r->kind == SROCE_OP_READ_REQ;
}

static struct sroce_rd_res *sroce_resp_res_find(struct sroce_qp *qp, u32 psn,
						bool read)
{
	struct sroce_rd_res *r;
	u32 i;

	for (i = 0; i < qp->resp.res_used; i++) {
		r = &qp->resp.res[i];
		if (!r->kind || !read != !sroce_res_is_read(r))
			continue;
		if (sroce_psn_in(psn, r->psn, r->npsn))
			return r;
	}
	return NULL;
}

/* A request the responder already executed (IBA 9.7.5.1.2). */
static enum sroce_drop sroce_resp_dup(struct sroce_qp *qp,
				      const struct sroce_pkt *pkt)
{
	u32 flags = pkt->op->flags, psn = pkt->h.bth.psn, i;
	const struct sroce_reth *reth = &pkt->h.reth;
	struct sroce_mem_ref ref;
	struct sroce_rd_res *r;

	qp->stats.dup_requests++;
	if (flags & SROCE_OPF_READ) {
		r = sroce_resp_res_find(qp, psn, true);
		if (!r || reth->len > SROCE_MAX_MSG)
			return SROCE_DROP_DUPLICATE;
		/* It must ask for the rest of the original READ from @psn. */
		if (sroce_npsn(reth->len, qp->mtu) !=
		    sroce_psn(r->psn + r->npsn - psn))
			return SROCE_DROP_DUPLICATE;
		/* XRC: the rkey is checked against the named SRQ's PD. */
		if (qp->xrc && (pkt->h.xrceth != r->srqn ||
				qp->ops->xrc_srq(qp->ctx, r->srqn)))
			return SROCE_DROP_DUPLICATE;
		if (reth->len &&
		    qp->ops->mem_access(qp->ctx, reth->rkey, true, reth->va,
					reth->len, SROCE_ACCESS_REMOTE_READ,
					&ref))
			return SROCE_DROP_DUPLICATE;
		/* Go-back-N resends what follows; drop its stale answers. */
		for (i = 0; i < qp->resp.res_used; i++)
			if (qp->resp.res[i].pending &&
			    sroce_psn_lt(r->psn, qp->resp.res[i].psn))
				sroce_res_set_pending(qp, &qp->resp.res[i],
						      false);
		r->start_psn = psn;
		r->cur_psn = psn;
		r->end_psn = sroce_psn_add(r->psn, r->npsn);
		r->va = reth->va;
		r->rkey = reth->rkey;
		r->resid = reth->len;
		sroce_res_set_pending(qp, r, true);
		r->replay = 1;
		sroce_resp_run(qp, SROCE_RX_INLINE_BUDGET);
		return SROCE_DROP_NONE;
	}
	if (flags & (SROCE_OPF_ATOMIC | SROCE_OPF_ATOMIC_WRITE |
		     SROCE_OPF_FLUSH)) {
		/* Answer from the replay cache, never execute twice. */
		r = sroce_resp_res_find(qp, psn, false);
		if (!r || r->pending ||
		    r->kind != (pkt->h.bth.opcode & ~SROCE_TRANSPORT_MASK))
			return SROCE_DROP_DUPLICATE;
		sroce_res_set_pending(qp, r, true);
		r->cur_psn = r->psn;
		sroce_resp_run(qp, SROCE_RX_INLINE_BUDGET);
		return SROCE_DROP_NONE;
	}
	/* SEND/WRITE: re-ACK where the requester asks for one (C9-104). */
	if (pkt->h.bth.ackreq) {
		sroce_resp_ack(qp, SROCE_ACK_SYN, sroce_psn(qp->resp.psn - 1));
		return SROCE_DROP_NONE;
	}
	return SROCE_DROP_DUPLICATE;
}

static enum sroce_drop sroce_resp_ud(struct sroce_qp *qp,
				     const struct sroce_pkt *pkt,
				     const void *payload)
{
	u8 st;

	if (!(pkt->op->flags & SROCE_OPF_SEND))
		return SROCE_DROP_BAD_OPCODE;
	if (!sroce_resp_get_rwqe(qp))
		return SROCE_DROP_NO_RESOURCE;
	st = sroce_pkt_place(qp, qp->resp.rwqe.sge, qp->resp.rwqe.num_sge, 0,
			     SROCE_GRH_LEN, payload, SROCE_COPY_GRH, NULL, true);
	if (!st)
		st = sroce_pkt_place(qp, qp->resp.rwqe.sge,
				     qp->resp.rwqe.num_sge, SROCE_GRH_LEN,
				     pkt->paylen, payload, 0, NULL, true);
	/* Not present yet: the datagram is lost, the WQE kept for the next. */
	if (st == SROCE_PLACE_AGAIN)
		return SROCE_DROP_NO_RESOURCE;
	/* UD keeps running after a bad receive buffer; only the WQE fails. */
	sroce_resp_complete(qp, st, SROCE_WC_RECV, pkt,
			    st ? 0 : SROCE_GRH_LEN + pkt->paylen);
	qp->resp.psn = sroce_psn_add(pkt->h.bth.psn, 1);
	return SROCE_DROP_NONE;
}

enum sroce_drop sroce_resp_rx(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			      const void *payload)
{
	u32 psn = pkt->h.bth.psn;
	enum sroce_drop d;
	s32 diff;

	switch (qp->type) {
	case SROCE_QPT_UD:
		return sroce_resp_ud(qp, pkt, payload);
	case SROCE_QPT_UC:
		/* A gap loses the message in progress; resync on FIRST/ONLY. */
		if (psn != qp->resp.psn)
			qp->resp.cur = 0;
		d = sroce_resp_exec(qp, pkt, payload);
		qp->resp.psn = sroce_psn_add(psn, 1);
		return d;
	default:
		break;
	}
	diff = sroce_psn_diff(psn, qp->resp.psn);
	if (diff > 0) {
		/*
		 * NAK once, then drop until the expected PSN shows up; the
		 * NAK is repeated only on its timer (sroce_resp_seq_nak).
		 */
		if (!qp->resp.nak_sent) {
			qp->resp.nak_sent = true;
			qp->resp.nak_tries = 0;
			sroce_resp_seq_nak(qp);
		}
		return SROCE_DROP_PSN_INVALID;
	}
	if (diff < 0)
		return sroce_resp_dup(qp, pkt);
	qp->resp.nak_sent = false;
	qp->resp.nak_deadline = 0;
	return sroce_resp_exec(qp, pkt, payload);
}

/* The expected PSN still has not come since the sequence NAK: repeat it. */
void sroce_resp_nak_deadline(struct sroce_qp *qp)
{
	if (qp->resp.nak_sent && qp->resp.nak_deadline)
		sroce_resp_seq_nak(qp);
	else
		qp->resp.nak_deadline = 0;
}

/*
 * Send the next response @r owes: 0, -SROCE_EAGAIN if emit refused it
 * (try again later), -SROCE_EACCES if the READ's memory went away.
 */
static int sroce_resp_one(struct sroce_qp *qp, struct sroce_rd_res *r)
{
	struct sroce_tx_pkt *tp = &qp->txp;
	struct sroce_hdrs h;
	bool first, last;
	u32 len = 0;
	u8 op;

	tp->paylen = 0;
	tp->nseg = 0;
	tp->inline_data = NULL;
	tp->ah = 0;
	sroce_pkt_hdrs_init(qp, &h, 0, r->cur_psn);
	if (r->kind == SROCE_OP_ATOMIC_WRITE || r->kind == SROCE_OP_FLUSH) {
		/* Done when executed: an empty READ response says so. */
		h.bth.opcode = sroce_qp_transport(qp) | SROCE_OP_READ_RESP_ONLY;
		h.aeth.syndrome = SROCE_ACK_SYN;
		h.aeth.msn = r->msn;
		if (sroce_pkt_emit(qp, tp, &h))
			return -SROCE_EAGAIN;
		qp->req.resp_sent = true;
		sroce_res_set_pending(qp, r, false);
		return 0;
	}
	if (r->kind != SROCE_OP_READ_REQ) {
		h.bth.opcode = sroce_qp_transport(qp) | SROCE_OP_ATOMIC_ACK;
		h.aeth.syndrome = SROCE_ACK_SYN;
		h.aeth.msn = r->msn;
		h.atmack = r->orig;
		if (sroce_pkt_emit(qp, tp, &h))
			return -SROCE_EAGAIN;
		qp->req.resp_sent = true;
		sroce_res_set_pending(qp, r, false);
		return 0;
	}
	first = r->cur_psn == r->start_psn;
	last = sroce_psn_add(r->cur_psn, 1) == r->end_psn;
	len = r->resid < qp->mtu ? r->resid : qp->mtu;
	if (first && last)
		op = SROCE_OP_READ_RESP_ONLY;
	else if (first)
		op = SROCE_OP_READ_RESP_FIRST;
	else if (last)
		op = SROCE_OP_READ_RESP_LAST;
	else
		op = SROCE_OP_READ_RESP_MIDDLE;
	h.bth.opcode = sroce_qp_transport(qp) | op;
	h.aeth.syndrome = SROCE_ACK_SYN;
	h.aeth.msn = r->msn;
	if (len) {
		/* XRC: the SRQ may have been destroyed since the request. */
		if (qp->xrc && qp->ops->xrc_srq(qp->ctx, r->srqn))
			return -SROCE_EACCES;
		if (qp->ops->mem_access(qp->ctx, r->rkey, true, r->va, len,
					SROCE_ACCESS_REMOTE_READ,
					&tp->seg[0].ref))
			return -SROCE_EACCES;
		tp->seg[0].off = 0;
		tp->seg[0].len = len;
		tp->nseg = 1;
		tp->paylen = len;
	}
	if (sroce_pkt_emit(qp, tp, &h))
		return -SROCE_EAGAIN;
	qp->req.resp_sent = true;
	r->cur_psn = sroce_psn_add(r->cur_psn, 1);
	r->va += len;
	r->resid -= len;
	if (r->cur_psn == r->end_psn)
		sroce_res_set_pending(qp, r, false);
	return 0;
}

/*
 * The slot owing the lowest PSN, or NULL.  Usually one slot owes (one
 * READ answered as it arrives): the last one made pending, no scan.
 */
static struct sroce_rd_res *sroce_resp_oldest(struct sroce_qp *qp)
{
	struct sroce_rd_res *r, *best = NULL;
	u32 i;

	if (qp->resp.res_pending == 1 && qp->resp.res_last &&
	    qp->resp.res_last->pending)
		return qp->resp.res_last;

	for (i = 0; i < qp->resp.res_used; i++) {
		r = &qp->resp.res[i];
		if (r->pending && (!best ||
				   sroce_psn_lt(r->cur_psn, best->cur_psn)))
			best = r;
	}
	return best;
}

/*
 * Send owed READ responses and atomic ACKs, oldest first.  The slots'
 * PSN ranges are disjoint, so the one owing the lowest PSN stays the
 * oldest until it is done: the slots are scanned again only then.
 */
u32 sroce_resp_run(struct sroce_qp *qp, u32 budget)
{
	struct sroce_rd_res *best = NULL;
	u32 sent = 0;
	int ret;

	if (qp->type != SROCE_QPT_RC || qp->state == SROCE_QPS_ERR)
		return 0;
	while (sent < budget && qp->resp.res_pending) {
		if (!best || !best->pending) {
			best = sroce_resp_oldest(qp);
			if (!best)
				break;
		}
		ret = sroce_resp_one(qp, best);
		if (ret == -SROCE_EAGAIN)
			return sent;
		if (ret && best->replay) {
			/*
			 * Dropped like a duplicate READ whose rkey is already
			 * invalid on arrival: the requester may have the data
			 * and have freed the buffer; a stale retransmission
			 * must not tear the connection down.
			 */
			sroce_res_set_pending(qp, best, false);
			continue;
		}
		if (ret) {
			/* The MR went away under a READ: fail it. */
			sroce_res_set_pending(qp, best, false);
			sroce_resp_emit_ack(qp, sroce_aeth_syndrome(SROCE_AETH_NAK,
								    SROCE_NAK_REMOTE_ACCESS),
					    best->cur_psn);
			sroce_qp_to_err(qp);
			return sent;
		}
		sent++;
	}
	if (qp->resp.ack_held && !sroce_resp_res_pending(qp))
		sroce_resp_emit_ack(qp, qp->resp.held_syn, qp->resp.held_psn);
	return sent;
}

/*
 * Fail the receive WQE in progress and, without an SRQ, at most @budget
 * posted ones.  True if it stopped at @budget with the RQ maybe not empty.
 */
bool sroce_resp_flush(struct sroce_qp *qp, u32 budget)
{
	u32 i;

	sroce_res_clear_all_pending(qp);
	qp->resp.ack_held = false;
	qp->resp.unacked = 0;
	qp->resp.cur = 0;
	if (qp->resp.have_rwqe)
		sroce_resp_complete(qp, SROCE_WC_WR_FLUSH_ERR, SROCE_WC_RECV,
				    NULL, 0);
	if (qp->srq)
		return false;
	for (i = 0; i < budget; i++) {
		if (qp->ops->recv_wqe(qp->ctx, &qp->resp.rwqe))
			return false;
		qp->resp.have_rwqe = true;
		sroce_resp_complete(qp, SROCE_WC_WR_FLUSH_ERR, SROCE_WC_RECV,
				    NULL, 0);
	}
	return true;
}
