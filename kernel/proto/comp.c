// SPDX-License-Identifier: GPL-2.0
/*
 * The completer: ACKs, NAKs, READ responses and atomic ACKs retire send
 * WQEs in order; sequence-error NAKs, lost READ responses and the local
 * ACK timeout restart the requester (go-back-N); RNR NAKs pause it.
 */
#include "qp_int.h"

static u8 sroce_wc_opcode(u8 wr_opcode)
{
	switch (wr_opcode) {
	case SROCE_WR_RDMA_WRITE:
	case SROCE_WR_RDMA_WRITE_WITH_IMM:
		return SROCE_WC_RDMA_WRITE;
	case SROCE_WR_RDMA_READ:
		return SROCE_WC_RDMA_READ;
	case SROCE_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_WC_COMP_SWAP;
	case SROCE_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_WC_FETCH_ADD;
	case SROCE_WR_LOCAL_INV:
		return SROCE_WC_LOCAL_INV;
	case SROCE_WR_REG_MR:
		return SROCE_WC_REG_MR;
	case SROCE_WR_BIND_MW:
		return SROCE_WC_BIND_MW;
	case SROCE_WR_FLUSH:
		return SROCE_WC_FLUSH;
	case SROCE_WR_ATOMIC_WRITE:
		return SROCE_WC_ATOMIC_WRITE;
	default:
		return SROCE_WC_SEND;
	}
}

/* Retire the head WQE @w. */
static void sroce_comp_cqe(struct sroce_qp *qp, struct sroce_swqe *w,
			   u8 status, u32 vendor_err)
{
	struct sroce_cqe cqe;

	if (status != SROCE_WC_SUCCESS || qp->sq_sig_all ||
	    (w->wr.send_flags & SROCE_SEND_SIGNALED)) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.wr_id = w->wr.wr_id;
		cqe.status = status;
		cqe.opcode = sroce_wc_opcode(w->wr.opcode);
		cqe.byte_len = w->length;
		cqe.qp_num = qp->qpn;
		cqe.vendor_err = vendor_err;
		qp->ops->complete(qp->ctx, &cqe);
	}
	if (sroce_wr_is_rd_atomic(w->wr.opcode) &&
	    (s32)(qp->req.next - qp->comp.head) > 0)
		qp->req.rd_out--;
	qp->comp.head++;
	/* An unsent WQE failed: the requester's cursors move past it. */
	if ((s32)(qp->req.next - qp->comp.head) < 0) {
		qp->req.next = qp->comp.head;
		qp->req.off_psn = 0;
	}
	if ((s32)(qp->req.hi - qp->comp.head) < 0)
		qp->req.hi = qp->comp.head;
}

void sroce_comp_complete(struct sroce_qp *qp, struct sroce_swqe *w, u8 status)
{
	sroce_comp_cqe(qp, w, status, 0);
}

/* Fail the head WQE and the QP with it (IBA: RC errors are fatal). */
static void sroce_comp_fail(struct sroce_qp *qp, u8 status, u32 vendor_err)
{
	if (qp->comp.head != qp->req.tail)
		sroce_comp_cqe(qp, sroce_sq_slot(qp, qp->comp.head), status,
			       vendor_err);
	if (qp->type == SROCE_QPT_RC)
		sroce_qp_to_err(qp);
	else
		sroce_qp_to_sqe(qp);
}

/* (Re)start the local ACK timer if anything is unacknowledged. */
void sroce_comp_arm(struct sroce_qp *qp)
{
	u64 t = sroce_ack_timeout_ns(qp->attr.timeout);

	if (qp->type != SROCE_QPT_RC || qp->comp.psn == qp->req.psn_hi ||
	    qp->req.rnr_wait || t == U64_MAX) {
		qp->req.timer_on = false;
		return;
	}
	qp->req.timer_on = true;
	qp->req.sent = false;
	qp->req.resp_sent = false;
	qp->req.ack_deadline = sroce_qp_now(qp) + t;
}

/*
 * An RTT sample, RFC 6298's estimator: the progress that acknowledges
 * the AckReq being timed.  None is taken across a go-back (Karn): an
 * ACK then may answer either transmission.  Nor by a call that has not
 * read the clock for its own needs (an ACK that leaves nothing
 * outstanding): samples cost no clock read, and a stream, the only
 * user of the estimate, re-arms its ACK timer with every ACK.
 */
static void sroce_comp_rtt(struct sroce_qp *qp)
{
	u64 now, m, err;

	if (!qp->req.rtt_on || !sroce_psn_lt(qp->req.rtt_psn, qp->comp.psn))
		return;
	qp->req.rtt_on = false;
	if (!sroce_qp_now_known(qp))
		return;
	now = sroce_qp_now(qp);
	/* At least 1: srtt 0 means "no sample yet". */
	m = now > qp->req.rtt_ns ? now - qp->req.rtt_ns : 1;
	if (!qp->req.srtt) {
		qp->req.srtt = m;
		qp->req.rttvar = m / 2;
		return;
	}
	err = qp->req.srtt > m ? qp->req.srtt - m : m - qp->req.srtt;
	qp->req.rttvar = qp->req.rttvar - qp->req.rttvar / 4 + err / 4;
	qp->req.srtt = qp->req.srtt - qp->req.srtt / 8 + m / 8;
}

static void sroce_comp_made_progress(struct sroce_qp *qp)
{
	sroce_req_grow(qp);
	sroce_req_catch_up(qp);
	qp->req.retry_left = qp->attr.retry_cnt;
	qp->req.rnr_left = qp->attr.rnr_retry;
	qp->req.stall_left = SROCE_TX_STALL_MAX;
	qp->comp.gap_retried = false;
	qp->comp.nak_seen = false;
	qp->comp.resent = false;
	sroce_comp_arm(qp);
	sroce_comp_rtt(qp);
}

/*
 * Retire what is finished at the head: UC/UD WQEs once sent, local
 * operations once run, and WQEs the requester failed locally (the QP
 * then leaves RTS).  Also notices the end of an SQ drain.
 */
void sroce_comp_progress(struct sroce_qp *qp)
{
	struct sroce_swqe *w;

	while (qp->comp.head != qp->req.tail) {
		w = sroce_sq_slot(qp, qp->comp.head);
		if (w->status) {
			sroce_comp_fail(qp, w->status, 0);
			return;
		}
		if (!w->done || (qp->type == SROCE_QPT_RC &&
				 !sroce_wr_is_local(w->wr.opcode)))
			break;
		sroce_comp_complete(qp, w, SROCE_WC_SUCCESS);
	}
	if (qp->state == SROCE_QPS_SQD && qp->attr.sq_draining &&
	    qp->comp.head == qp->req.hi && !qp->req.off_psn) {
		qp->attr.sq_draining = 0;
		if (qp->attr.en_sqd_async_notify && !qp->req.sq_drained_sent) {
			qp->req.sq_drained_sent = true;
			sroce_qp_event(qp, SROCE_EVENT_SQ_DRAINED);
		}
	}
}

/*
 * A repeat of the sequence NAK we already went back for.  The responder
 * repeats it on its own timer while the PSN it expects has not come
 * (resp.c), which may be only because our resend is still on its way:
 * when the resend has not left yet, or left less than srtt + 4 * rttvar
 * ago (RFC 6298's bound on a round trip), the repeat is stale, and going
 * back once more would send everything since a second time.  Otherwise
 * the resend was lost too.  Before the first RTT sample every repeat
 * after the resend left goes back.  The bound is capped at
 * SROCE_NAK_STALE_MAX_NS so that some of the responder's six repeats
 * (2 to 126 ms after its first NAK) always count: with no ACK timer
 * (timeout 0) they are all that recovers a lost resend.
 */
static bool sroce_comp_nak_stale(struct sroce_qp *qp)
{
	u64 bound;

	if (!qp->comp.resent)
		return true;
	if (!qp->req.srtt)
		return false;
	bound = qp->req.srtt + 4 * qp->req.rttvar;
	if (bound > SROCE_NAK_STALE_MAX_NS)
		bound = SROCE_NAK_STALE_MAX_NS;
	return sroce_qp_now(qp) - qp->comp.resent_ns < bound;
}

/* A repeated NAK: go back again, free, unless it is stale. */
static void sroce_comp_nak_again(struct sroce_qp *qp, u32 psn)
{
	if (sroce_comp_nak_stale(qp)) {
		qp->stats.seq_naks_stale++;
		return;
	}
	sroce_req_rewind(qp, psn);
}

/*
 * Responses before comp.psn went missing: go back there, once per PSN
 * for an ACK or response that shows the gap.  The responder repeats a
 * sequence NAK, backing off, while what we resent does not arrive: the
 * restart may itself have been lost, so @seq_nak goes back again, free,
 * unless it is stale (sroce_comp_nak_stale()).
 */
static void sroce_comp_implied_nak(struct sroce_qp *qp, bool seq_nak)
{
	if (qp->comp.gap_retried && qp->comp.gap_psn == qp->comp.psn) {
		if (seq_nak)
			sroce_comp_nak_again(qp, qp->comp.psn);
		return;
	}
	qp->comp.gap_retried = true;
	qp->comp.gap_psn = qp->comp.psn;
	qp->stats.implied_naks++;
	sroce_req_loss(qp, false);
	sroce_req_rewind(qp, qp->comp.psn);
}

/*
 * Every PSN before @psn is acknowledged: retire the SEND/WRITE WQEs that
 * finishes.  Returns true if a READ/atomic below @psn still lacks its
 * responses (so they were lost: the caller goes back for them).
 */
static bool sroce_comp_ack_before(struct sroce_qp *qp, u32 psn)
{
	bool progress = false, blocked = false;
	struct sroce_swqe *w;
	u32 end;

	while (qp->comp.head != qp->req.hi) {
		w = sroce_sq_slot(qp, qp->comp.head);
		if (sroce_wr_is_local(w->wr.opcode)) {
			/* Done when run; it only waited for its turn. */
			if (!w->done)
				break;
			sroce_comp_complete(qp, w, SROCE_WC_SUCCESS);
			continue;
		}
		if (!sroce_psn_lt(w->first_psn, psn))
			break;
		if (sroce_wr_is_rd_atomic(w->wr.opcode)) {
			blocked = sroce_psn_lt(qp->comp.psn, psn);
			break;
		}
		end = sroce_psn_add(w->first_psn, w->npsn);
		if (sroce_psn_lt(psn, end)) {
			/* Part of this message is acknowledged. */
			if (sroce_psn_lt(qp->comp.psn, psn)) {
				qp->comp.psn = psn;
				progress = true;
			}
			break;
		}
		qp->comp.psn = end;
		progress = true;
		sroce_comp_complete(qp, w, SROCE_WC_SUCCESS);
	}
	if (progress)
		sroce_comp_made_progress(qp);
	return blocked;
}

static u8 sroce_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_INVALID_REQ:
		return SROCE_WC_REM_INV_REQ_ERR;
	case SROCE_NAK_REMOTE_ACCESS:
		return SROCE_WC_REM_ACCESS_ERR;
	case SROCE_NAK_INVALID_RD_REQ:
		return SROCE_WC_REM_INV_RD_REQ_ERR;
	default:
		return SROCE_WC_REM_OP_ERR;
	}
}

static enum sroce_drop sroce_comp_aeth(struct sroce_qp *qp,
				       const struct sroce_pkt *pkt)
{
	u8 syn = pkt->h.aeth.syndrome, val = sroce_aeth_value(syn);
	u32 psn = pkt->h.bth.psn;

	switch (sroce_aeth_type(syn)) {
	case SROCE_AETH_ACK:
		if (sroce_comp_ack_before(qp, sroce_psn_add(psn, 1)))
			sroce_comp_implied_nak(qp, false);
		sroce_comp_progress(qp);
		return SROCE_DROP_NONE;
	case SROCE_AETH_RNR_NAK:
		if (sroce_comp_ack_before(qp, psn)) {
			sroce_comp_implied_nak(qp, false);
			return SROCE_DROP_NONE;
		}
		qp->stats.rnr_naks_rcvd++;
		if (!qp->req.rnr_left) {
			sroce_comp_fail(qp, SROCE_WC_RNR_RETRY_EXC_ERR, syn);
			return SROCE_DROP_NONE;
		}
		if (qp->attr.rnr_retry != 7)
			qp->req.rnr_left--;
		sroce_req_rewind(qp, psn);
		qp->req.rnr_wait = true;
		qp->req.rnr_deadline = sroce_qp_now(qp) +
				       sroce_rnr_timer_ns(val);
		qp->req.timer_on = false;
		return SROCE_DROP_NONE;
	case SROCE_AETH_NAK:
		if (sroce_comp_ack_before(qp, psn)) {
			sroce_comp_implied_nak(qp,
					       val == SROCE_NAK_PSN_SEQ_ERR);
			return SROCE_DROP_NONE;
		}
		if (val == SROCE_NAK_PSN_SEQ_ERR) {
			qp->stats.seq_naks_rcvd++;
			/*
			 * The same NAK again, no progress since: the responder
			 * repeats it while ePSN does not arrive (ours may be
			 * lost, or still queued here).  Go back again unless
			 * the repeat is stale; the retry was paid by the
			 * first, and the ACK timer, left running from it,
			 * charges for further silence.
			 */
			if (qp->comp.nak_seen) {
				sroce_comp_nak_again(qp, psn);
				return SROCE_DROP_NONE;
			}
			qp->comp.nak_seen = true;
			if (!qp->req.retry_left) {
				sroce_comp_fail(qp, SROCE_WC_RETRY_EXC_ERR,
						syn);
				return SROCE_DROP_NONE;
			}
			qp->req.retry_left--;
			sroce_req_loss(qp, false);
			sroce_req_rewind(qp, psn);
			sroce_comp_arm(qp);
			return SROCE_DROP_NONE;
		}
		if (val == SROCE_NAK_REMOTE_ACCESS)
			qp->stats.access_naks_rcvd++;
		else
			qp->stats.error_naks_rcvd++;
		sroce_comp_fail(qp, sroce_nak_status(val), syn);
		return SROCE_DROP_NONE;
	default:
		return SROCE_DROP_ACK_UNEXPECTED;
	}
}

/* A READ response or atomic ACK at @psn; everything before it is ACKed. */
static enum sroce_drop sroce_comp_data(struct sroce_qp *qp,
				       const struct sroce_pkt *pkt,
				       const void *payload)
{
	u32 psn = pkt->h.bth.psn, flags = pkt->op->flags, k, off, want;
	bool blocked, atomic = flags & SROCE_OPF_ATMACK;
	struct sroce_swqe *w;
	u8 orig[8], st;

	blocked = sroce_comp_ack_before(qp, psn);
	if (qp->comp.head == qp->req.hi)
		return SROCE_DROP_ACK_UNEXPECTED;
	w = sroce_sq_slot(qp, qp->comp.head);
	if (!sroce_psn_in(psn, w->first_psn, w->npsn)) {
		if (blocked)
			sroce_comp_implied_nak(qp, false);
		return blocked ? SROCE_DROP_BAD_SEQUENCE : SROCE_DROP_ACK_UNEXPECTED;
	}
	if (atomic != sroce_wr_is_atomic(w->wr.opcode) ||
	    (!atomic && w->wr.opcode != SROCE_WR_RDMA_READ &&
	     !sroce_wr_is_placement(w->wr.opcode)))
		return SROCE_DROP_ACK_UNEXPECTED;
	if (psn != qp->comp.psn) {
		/* Earlier responses of this READ were lost. */
		sroce_comp_implied_nak(qp, false);
		return SROCE_DROP_BAD_SEQUENCE;
	}
	k = sroce_psn(psn - w->first_psn);
	if (atomic) {
		/* Local memory gets the value in host order, as in rxe. */
		memcpy(orig, &pkt->h.atmack, sizeof(orig));
		st = sroce_pkt_place(qp, w->wr.sge, w->wr.num_sge, 0, 8, NULL, 0,
				     orig, false);
	} else if (sroce_wr_is_placement(w->wr.opcode)) {
		/* ATOMIC WRITE and FLUSH: one empty READ response (IBA 1.5). */
		if ((flags & SROCE_OPF_ONLY) != SROCE_OPF_ONLY)
			return SROCE_DROP_BAD_SEQUENCE;
		if (pkt->paylen)
			return SROCE_DROP_BAD_LENGTH;
		st = SROCE_WC_SUCCESS;
		if (w->wr.opcode == SROCE_WR_FLUSH)
			sroce_req_flush_done(qp, psn);
	} else {
		off = k * qp->mtu;
		want = w->length - off;
		if (want > qp->mtu)
			want = qp->mtu;
		if ((k + 1 == w->npsn) != !!(flags & SROCE_OPF_LAST))
			return SROCE_DROP_BAD_SEQUENCE;
		if (pkt->paylen != want)
			return SROCE_DROP_BAD_LENGTH;
		st = sroce_pkt_place(qp, w->wr.sge, w->wr.num_sge, off, want,
				     payload, 0, NULL, false);
	}
	/*
	 * Local memory not present yet: as if the response were lost.  The
	 * next response is out of sequence (implied NAK) or, for the last,
	 * the ACK timer expires; either way the request is sent again.
	 */
	if (st == SROCE_PLACE_AGAIN)
		return SROCE_DROP_NO_RESOURCE;
	if (st) {
		sroce_comp_fail(qp, st, 0);
		return SROCE_DROP_NONE;
	}
	qp->comp.psn = sroce_psn_add(psn, 1);
	sroce_comp_made_progress(qp);
	if (k + 1 == w->npsn)
		sroce_comp_complete(qp, w, SROCE_WC_SUCCESS);
	sroce_comp_progress(qp);
	return SROCE_DROP_NONE;
}

enum sroce_drop sroce_comp_rx(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			      const void *payload)
{
	u32 psn = pkt->h.bth.psn;
	u32 flags = pkt->op->flags;

	if (qp->comp.psn == qp->req.psn_hi || !sroce_psn_lt(psn, qp->req.psn_hi))
		return sroce_psn_lt(psn, qp->comp.psn) ? SROCE_DROP_ACK_STALE :
		       SROCE_DROP_ACK_UNEXPECTED;
	if (sroce_psn_lt(psn, qp->comp.psn))
		return SROCE_DROP_ACK_STALE;
	if (flags & (SROCE_OPF_READ | SROCE_OPF_ATMACK))
		return sroce_comp_data(qp, pkt, payload);
	if (flags & SROCE_OPF_AETH)
		return sroce_comp_aeth(qp, pkt);
	return SROCE_DROP_ACK_UNEXPECTED;
}

/* The local ACK timer expired: go back to the oldest unacknowledged PSN. */
void sroce_comp_timeout(struct sroce_qp *qp)
{
	qp->req.timer_on = false;
	if (qp->comp.psn == qp->req.psn_hi)
		return;
	/*
	 * Our own TX queue refused every packet since the timer started
	 * (the retransmission of the last timeout, typically): the peer had
	 * nothing new to answer, so this is no evidence of loss.  Wait one
	 * more period rather than spend a retry, a bounded number of times,
	 * so that a wedged netdev still ends in RETRY_EXC_ERR.  Unbounded if
	 * our responder sent meanwhile: not wedged, just owed answers first.
	 */
	if (qp->req.refused && !qp->req.sent &&
	    (qp->req.resp_sent || qp->req.stall_left)) {
		if (!qp->req.resp_sent)
			qp->req.stall_left--;
		qp->stats.tx_stalls++;
		sroce_comp_arm(qp);
		return;
	}
	qp->stats.timeouts++;
	if (!qp->req.retry_left) {
		sroce_comp_fail(qp, SROCE_WC_RETRY_EXC_ERR, 0);
		return;
	}
	qp->req.retry_left--;
	sroce_req_loss(qp, true);
	sroce_req_rewind(qp, qp->comp.psn);
	sroce_comp_arm(qp);
}
