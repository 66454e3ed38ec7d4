// SPDX-License-Identifier: GPL-2.0
/*
 * Packet helpers shared by the requester, responder and completer:
 * headers common to every packet a QP sends, handing an encoded packet
 * to the caller, and placing received payload into local SGEs.
 */
#include "qp_int.h"

/* The header fields every packet of @qp carries; callers add the rest. */
void sroce_pkt_hdrs_init(const struct sroce_qp *qp, struct sroce_hdrs *h,
			 u8 opcode, u32 psn)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = opcode;
	/*
	 * MigReq 1: a QP without an armed alternate path is in the Migrated
	 * state, and hardware RoCE NICs (mlx5 creates every QP so) say so
	 * in every packet.  Receivers without APM ignore the bit.
	 */
	h->bth.mig = 1;
	h->bth.pkey = qp->attr.pkey;
	h->bth.dqpn = qp->attr.dest_qp_num;
	h->bth.psn = sroce_psn(psn);
}

/*
 * Encode @h into @tp and hand it to the caller.  The payload fields of
 * @tp are already set.  0, or ops->emit's error, or -SROCE_EINVAL if the
 * headers do not encode.
 */
int sroce_pkt_emit(struct sroce_qp *qp, struct sroce_tx_pkt *tp,
		   const struct sroce_hdrs *h)
{
	struct sroce_hdrs hh = *h;
	u8 t = h->bth.opcode & SROCE_TRANSPORT_MASK;
	int ret;

	hh.bth.pad = sroce_pad_for(tp->paylen);
	tp->pad = hh.bth.pad;
	tp->hdr_len = (u16)sroce_build(tp->hdr, &hh);
	tp->psn = hh.bth.psn;
	tp->opcode = hh.bth.opcode;
	/*
	 * A QP under congestion control sends its RC and UC packets
	 * ECN-capable, as hardware does; UD and CNPs are not (cc.h).
	 */
	tp->ect = qp->cc.p &&
		  (t == SROCE_TRANSPORT_RC || t == SROCE_TRANSPORT_UC);
	tp->icrc_rxe = qp->req.flush_rxe &&
		       (h->bth.opcode & ~SROCE_TRANSPORT_MASK) == SROCE_OP_FLUSH;
	if (!tp->hdr_len)
		return -SROCE_EINVAL;
	ret = qp->ops->emit(qp->ctx, tp);
	if (!ret)
		qp->stats.tx_pkts++;
	return ret;
}

/*
 * Place @len bytes at offset @off of the local buffer @sge[@nsge]: from
 * the received packet (@payload at @poff) or, if @buf, from core memory.
 * @recv: the SGEs are a receive WQE's.  Returns a WC status: LOC_LEN_ERR
 * if it does not fit, LOC_PROT_ERR if an lkey does not allow it; or
 * SROCE_PLACE_AGAIN if memory is not present yet (the bytes placed so far
 * are placed again, identical, by the retry).
 */
u8 sroce_pkt_place(struct sroce_qp *qp, const struct sroce_sge *sge, u32 nsge,
		   u32 off, u32 len, const void *payload, u32 poff,
		   const void *buf, bool recv)
{
	u32 access = SROCE_ACCESS_LOCAL_WRITE | (recv ? SROCE_ACCESS_RECV : 0);
	const struct sroce_sge *s;
	struct sroce_mem_ref ref;
	u32 i, chunk, done = 0;
	int ret;

	if (nsge > SROCE_MAX_SGE)
		nsge = SROCE_MAX_SGE;
	for (i = 0; i < nsge && len; i++) {
		s = &sge[i];
		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		chunk = s->length - off;
		if (chunk > len)
			chunk = len;
		if (qp->ops->mem_access(qp->ctx, s->lkey, false, s->addr + off,
					chunk, access, &ref))
			return SROCE_WC_LOC_PROT_ERR;
		if (buf)
			ret = qp->ops->store(qp->ctx, &ref, 0,
					     (const u8 *)buf + done, chunk);
		else
			ret = qp->ops->copy_in(qp->ctx, &ref, 0, payload,
					       poff + done, chunk);
		if (ret == -SROCE_EAGAIN)
			return SROCE_PLACE_AGAIN;
		if (ret)
			return SROCE_WC_LOC_PROT_ERR;
		done += chunk;
		len -= chunk;
		off = 0;
	}
	return len ? SROCE_WC_LOC_LEN_ERR : SROCE_WC_SUCCESS;
}
