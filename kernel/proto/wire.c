// SPDX-License-Identifier: GPL-2.0
/*
 * BTH and extension header codecs.  Extension headers follow the BTH in
 * the IBA order DETH, XRCETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDT,
 * IETH; an opcode carries at most the ones its opinfo flags name.
 */
#include "wire.h"

/* BTH byte 1 */
#define BTH_SE		0x80
#define BTH_MIG		0x40
#define BTH_PAD_SHIFT	4
#define BTH_TVER_MASK	0x0f
/* BTH byte 4; the low six bits are reserved */
#define BTH_FECN	0x80
#define BTH_BECN	0x40
/* BTH byte 8; the low seven bits are reserved */
#define BTH_ACKREQ	0x80

static void sroce_bth_get(const u8 *p, struct sroce_bth *bth)
{
	bth->opcode = p[0];
	bth->se = !!(p[1] & BTH_SE);
	bth->mig = !!(p[1] & BTH_MIG);
	bth->pad = (p[1] >> BTH_PAD_SHIFT) & 3;
	bth->tver = p[1] & BTH_TVER_MASK;
	bth->pkey = sroce_get_be16(p + 2);
	bth->fecn = !!(p[4] & BTH_FECN);
	bth->becn = !!(p[4] & BTH_BECN);
	bth->dqpn = sroce_get_be24(p + 5);
	bth->ackreq = !!(p[8] & BTH_ACKREQ);
	bth->psn = sroce_get_be24(p + 9);
}

static void sroce_bth_put(u8 *p, const struct sroce_bth *bth)
{
	p[0] = bth->opcode;
	p[1] = (bth->se ? BTH_SE : 0) | (bth->mig ? BTH_MIG : 0) |
	       (bth->pad & 3) << BTH_PAD_SHIFT | (bth->tver & BTH_TVER_MASK);
	sroce_put_be16(p + 2, bth->pkey);
	p[4] = (bth->fecn ? BTH_FECN : 0) | (bth->becn ? BTH_BECN : 0);
	sroce_put_be24(p + 5, bth->dqpn & SROCE_QPN_MASK);
	p[8] = bth->ackreq ? BTH_ACKREQ : 0;
	sroce_put_be24(p + 9, bth->psn & SROCE_PSN_MASK);
}

/*
 * Extension headers (a CNP's reserved bytes are read as nothing).  @p
 * is at the first byte after the BTH and the caller has checked that
 * op->hdr_len bytes are present.
 */
static void sroce_ext_get(const u8 *p, u32 flags, struct sroce_hdrs *h)
{
	if (flags & SROCE_OPF_DETH) {
		h->deth.qkey = sroce_get_be32(p);
		h->deth.sqpn = sroce_get_be24(p + 5);
		p += SROCE_DETH_LEN;
	}
	if (flags & SROCE_OPF_XRCETH) {
		h->xrceth = sroce_get_be24(p + 1);
		p += SROCE_XRCETH_LEN;
	}
	if (flags & SROCE_OPF_FETH) {
		h->feth = sroce_get_be32(p);
		p += SROCE_FETH_LEN;
	}
	if (flags & SROCE_OPF_RETH) {
		h->reth.va = sroce_get_be64(p);
		h->reth.rkey = sroce_get_be32(p + 8);
		h->reth.len = sroce_get_be32(p + 12);
		p += SROCE_RETH_LEN;
	}
	if (flags & SROCE_OPF_ATMETH) {
		h->atmeth.va = sroce_get_be64(p);
		h->atmeth.rkey = sroce_get_be32(p + 8);
		h->atmeth.swap_add = sroce_get_be64(p + 12);
		h->atmeth.cmp = sroce_get_be64(p + 20);
		p += SROCE_ATMETH_LEN;
	}
	if (flags & SROCE_OPF_AETH) {
		h->aeth.syndrome = p[0];
		h->aeth.msn = sroce_get_be24(p + 1);
		p += SROCE_AETH_LEN;
	}
	if (flags & SROCE_OPF_ATMACK) {
		h->atmack = sroce_get_be64(p);
		p += SROCE_ATMACK_LEN;
	}
	if (flags & SROCE_OPF_IMMDT) {
		h->imm = sroce_get_be32(p);
		p += SROCE_IMMDT_LEN;
	}
	if (flags & SROCE_OPF_IETH)
		h->ieth = sroce_get_be32(p);
}

static void sroce_ext_put(u8 *p, u32 flags, const struct sroce_hdrs *h)
{
	if (flags & SROCE_OPF_DETH) {
		sroce_put_be32(p, h->deth.qkey);
		p[4] = 0;
		sroce_put_be24(p + 5, h->deth.sqpn & SROCE_QPN_MASK);
		p += SROCE_DETH_LEN;
	}
	if (flags & SROCE_OPF_XRCETH) {
		p[0] = 0;
		sroce_put_be24(p + 1, h->xrceth & SROCE_SRQN_MASK);
		p += SROCE_XRCETH_LEN;
	}
	if (flags & SROCE_OPF_FETH) {
		sroce_put_be32(p, h->feth);
		p += SROCE_FETH_LEN;
	}
	if (flags & SROCE_OPF_RETH) {
		sroce_put_be64(p, h->reth.va);
		sroce_put_be32(p + 8, h->reth.rkey);
		sroce_put_be32(p + 12, h->reth.len);
		p += SROCE_RETH_LEN;
	}
	if (flags & SROCE_OPF_ATMETH) {
		sroce_put_be64(p, h->atmeth.va);
		sroce_put_be32(p + 8, h->atmeth.rkey);
		sroce_put_be64(p + 12, h->atmeth.swap_add);
		sroce_put_be64(p + 20, h->atmeth.cmp);
		p += SROCE_ATMETH_LEN;
	}
	if (flags & SROCE_OPF_AETH) {
		p[0] = h->aeth.syndrome;
		sroce_put_be24(p + 1, h->aeth.msn & SROCE_PSN_MASK);
		p += SROCE_AETH_LEN;
	}
	if (flags & SROCE_OPF_ATMACK) {
		sroce_put_be64(p, h->atmack);
		p += SROCE_ATMACK_LEN;
	}
	if (flags & SROCE_OPF_IMMDT) {
		sroce_put_be32(p, h->imm);
		p += SROCE_IMMDT_LEN;
	}
	if (flags & SROCE_OPF_IETH)
		sroce_put_be32(p, h->ieth);
	if (flags & SROCE_OPF_CNP)
		memset(p, 0, SROCE_CNP_LEN);
}

/*
 * Length and pad rules (IBA 9.2 and 9.7.4.1.6, as rxe and real HCAs
 * apply them to RoCEv2):
 *  - the bytes between the headers and the ICRC are payload plus pad and
 *    are a whole number of 4-byte words, as they are under an LRH;
 *  - opcodes without payload carry neither payload nor pad;
 *  - FIRST and MIDDLE carry a full PMTU, so a non-empty payload and no
 *    pad; LAST carries at least one byte; ONLY may be empty;
 *  - ATOMIC WRITE carries exactly its 8-byte value.
 * Whether a payload equals or fits the PMTU needs QP state and is left to
 * the transport.
 */
static enum sroce_drop sroce_check_len(u32 flags, u8 pad, u32 rest,
				       u32 *paylen)
{
	if (!(flags & SROCE_OPF_PAYLOAD)) {
		if (pad)
			return SROCE_DROP_BAD_PAD;
		if (rest)
			return SROCE_DROP_BAD_LENGTH;
		*paylen = 0;
		return SROCE_DROP_NONE;
	}
	if ((rest & 3) || pad > rest)
		return SROCE_DROP_BAD_PAD;
	*paylen = rest - pad;
	if (!(flags & SROCE_OPF_LAST)) {
		/* FIRST or MIDDLE */
		if (pad)
			return SROCE_DROP_BAD_PAD;
		if (!*paylen)
			return SROCE_DROP_BAD_LENGTH;
	} else if (!(flags & SROCE_OPF_FIRST) && !*paylen) {
		/* LAST */
		return SROCE_DROP_BAD_LENGTH;
	}
	if ((flags & SROCE_OPF_ATOMIC_WRITE) &&
	    *paylen != SROCE_ATOMIC_WRITE_LEN)
		return SROCE_DROP_BAD_LENGTH;
	return SROCE_DROP_NONE;
}

enum sroce_drop sroce_parse(const u8 *buf, u32 len, struct sroce_pkt *pkt)
{
	const struct sroce_opinfo *op;
	enum sroce_drop why;
	u32 rest;

	if (unlikely(len < SROCE_BTH_LEN + SROCE_ICRC_LEN))
		return SROCE_DROP_TRUNCATED;
	memset(pkt->sgid, 0, sizeof(pkt->sgid));
	memset(pkt->dgid, 0, sizeof(pkt->dgid));
	pkt->ce = false;
	sroce_bth_get(buf, &pkt->h.bth);
	if (unlikely(pkt->h.bth.tver != 0))
		return SROCE_DROP_BAD_TVER;
	op = sroce_opinfo(pkt->h.bth.opcode);
	if (unlikely(!op))
		return SROCE_DROP_BAD_OPCODE;
	if (unlikely(len < (u32)op->hdr_len + SROCE_ICRC_LEN))
		return SROCE_DROP_TRUNCATED;

	rest = len - op->hdr_len - SROCE_ICRC_LEN;
	why = sroce_check_len(op->flags, pkt->h.bth.pad, rest, &pkt->paylen);
	if (unlikely(why))
		return why;

	sroce_ext_get(buf + SROCE_BTH_LEN, op->flags, &pkt->h);
	/* sroce_check_len made it exactly 8 bytes, inside SROCE_MAX_HDR_LEN. */
	if (op->flags & SROCE_OPF_ATOMIC_WRITE)
		memcpy(pkt->h.atomic_wr, buf + op->hdr_len,
		       SROCE_ATOMIC_WRITE_LEN);
	pkt->op = op;
	pkt->hdr_len = op->hdr_len;
	return SROCE_DROP_NONE;
}

u32 sroce_build(u8 *buf, const struct sroce_hdrs *h)
{
	const struct sroce_opinfo *op = sroce_opinfo(h->bth.opcode);

	if (!op)
		return 0;
	sroce_bth_put(buf, &h->bth);
	sroce_ext_put(buf + SROCE_BTH_LEN, op->flags, h);
	return op->hdr_len;
}
