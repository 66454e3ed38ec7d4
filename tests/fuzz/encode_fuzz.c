// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the transmit side: arbitrary header values for any opcode we
 * speak, with a payload length legal for it, are built into a whole IPv4
 * or IPv6 frame (sroce_build via tests/lib/frame.c).  The frame must pass
 * the ICRC check and decode to the same headers, each field cut to its
 * wire width; one flipped covered bit must fail the ICRC.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "icrc.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c)	do { if (!(c)) __builtin_trap(); } while (0)

struct reader {
	const u8 *p;
	size_t left;
};

static u64 take(struct reader *r, unsigned int bytes)
{
	u64 v = 0;

	while (bytes--) {
		v = v << 8 | (r->left ? *r->p : 0);
		if (r->left) {
			r->p++;
			r->left--;
		}
	}
	return v;
}

static u8 pick_opcode(u8 n)
{
	unsigned int opc, k = n % 63;

	for (opc = 0; opc < 256; opc++)
		if (sroce_opinfo(opc) && !k--)
			return opc;
	__builtin_trap();
}

static u32 legal_paylen(u32 flags, u32 want)
{
	want %= 4097;
	if (!(flags & SROCE_OPF_PAYLOAD))
		return 0;
	if (flags & SROCE_OPF_ATOMIC_WRITE)
		return 8;
	if (!(flags & SROCE_OPF_LAST))		/* FIRST, MIDDLE: PMTU-sized */
		return 256u << (want % 5);
	if (!(flags & SROCE_OPF_FIRST) && !want)	/* LAST: not empty */
		return 1;
	return want;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 frame[4096 + 256], pay[4096];
	struct reader r = { data, size };
	const struct sroce_opinfo *op;
	struct sroce_hdrs h;
	struct sroce_pkt pkt;
	u32 len, bth, pl, f, bit;
	bool v6;

	memset(&h, 0, sizeof(h));
	h.bth.opcode = pick_opcode(take(&r, 1));
	op = sroce_opinfo(h.bth.opcode);
	f = op->flags;
	v6 = take(&r, 1) & 1;
	h.bth.se = take(&r, 1);
	h.bth.mig = take(&r, 1) & 1;
	h.bth.fecn = take(&r, 1) & 1;
	h.bth.becn = take(&r, 1) & 1;
	h.bth.ackreq = take(&r, 1) & 1;
	h.bth.pkey = take(&r, 2);
	h.bth.dqpn = take(&r, 4);
	h.bth.psn = take(&r, 4);
	h.reth.va = take(&r, 8);
	h.reth.rkey = take(&r, 4);
	h.reth.len = take(&r, 4);
	h.aeth.syndrome = take(&r, 1);
	h.aeth.msn = take(&r, 4);
	h.atmeth.va = take(&r, 8);
	h.atmeth.rkey = take(&r, 4);
	h.atmeth.swap_add = take(&r, 8);
	h.atmeth.cmp = take(&r, 8);
	h.atmack = take(&r, 8);
	h.imm = take(&r, 4);
	h.ieth = take(&r, 4);
	h.deth.qkey = take(&r, 4);
	h.deth.sqpn = take(&r, 4);
	h.feth = take(&r, 4);
	pl = legal_paylen(f, take(&r, 2));
	h.bth.pad = sroce_pad_for(pl);
	bit = take(&r, 2);
	memcpy(pay, r.p, r.left < pl ? r.left : pl);

	len = sroce_test_frame(frame, sizeof(frame), v6, &h, pay, pl);
	FUZZ_ASSERT(len);
	FUZZ_ASSERT(sroce_icrc_check(frame, len, v6));
	bth = sroce_test_bth_off(v6);
	memset(&pkt, 0, sizeof(pkt));
	FUZZ_ASSERT(sroce_parse(frame + bth, len - bth, &pkt) == SROCE_DROP_NONE);
	FUZZ_ASSERT(pkt.op == op && pkt.paylen == pl);
	FUZZ_ASSERT(!memcmp(frame + bth + pkt.hdr_len, pay, pl));

	FUZZ_ASSERT(pkt.h.bth.se == !!h.bth.se && pkt.h.bth.mig == h.bth.mig);
	FUZZ_ASSERT(pkt.h.bth.fecn == h.bth.fecn && pkt.h.bth.becn == h.bth.becn);
	FUZZ_ASSERT(pkt.h.bth.ackreq == h.bth.ackreq);
	FUZZ_ASSERT(pkt.h.bth.pad == h.bth.pad && pkt.h.bth.tver == 0);
	FUZZ_ASSERT(pkt.h.bth.pkey == h.bth.pkey);
	FUZZ_ASSERT(pkt.h.bth.dqpn == (h.bth.dqpn & SROCE_QPN_MASK));
	FUZZ_ASSERT(pkt.h.bth.psn == (h.bth.psn & SROCE_PSN_MASK));
	if (f & SROCE_OPF_RETH)
		FUZZ_ASSERT(!memcmp(&pkt.h.reth, &h.reth, sizeof(h.reth)));
	if (f & SROCE_OPF_AETH)
		FUZZ_ASSERT(pkt.h.aeth.syndrome == h.aeth.syndrome &&
			    pkt.h.aeth.msn == (h.aeth.msn & SROCE_PSN_MASK));
	if (f & SROCE_OPF_ATMETH)
		FUZZ_ASSERT(pkt.h.atmeth.va == h.atmeth.va &&
			    pkt.h.atmeth.rkey == h.atmeth.rkey &&
			    pkt.h.atmeth.swap_add == h.atmeth.swap_add &&
			    pkt.h.atmeth.cmp == h.atmeth.cmp);
	if (f & SROCE_OPF_ATMACK)
		FUZZ_ASSERT(pkt.h.atmack == h.atmack);
	if (f & SROCE_OPF_IMMDT)
		FUZZ_ASSERT(pkt.h.imm == h.imm);
	if (f & SROCE_OPF_IETH)
		FUZZ_ASSERT(pkt.h.ieth == h.ieth);
	if (f & SROCE_OPF_DETH)
		FUZZ_ASSERT(pkt.h.deth.qkey == h.deth.qkey &&
			    pkt.h.deth.sqpn == (h.deth.sqpn & SROCE_QPN_MASK));
	if (f & SROCE_OPF_FETH)
		FUZZ_ASSERT(pkt.h.feth == h.feth);

	/* a covered bit: anything from the BTH's PSN on */
	bit = (bth + 9) * 8 + bit % ((len - bth - 9) * 8);
	frame[bit / 8] ^= 1u << (bit % 8);
	FUZZ_ASSERT(!sroce_icrc_check(frame, len, v6));
	return 0;
}
