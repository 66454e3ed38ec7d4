// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the receive-side decoders with arbitrary bytes.  Each input is
 * tried two ways:
 *  - as a BTH-first RoCEv2 payload for sroce_parse(); whatever it accepts
 *    must re-encode (sroce_build) to the same bytes, reserved bits aside,
 *    and decode again to the same headers;
 *  - as an IPv4/IPv6 frame for the ICRC check; when the frame is well
 *    formed, stamping the computed ICRC into a copy must make it pass.
 * libFuzzer hands over a buffer of exactly @size bytes, so ASan catches
 * any read past the end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "icrc.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c)	do { if (!(c)) __builtin_trap(); } while (0)

/* Reserved bits a receiver ignores and sroce_build() writes as zero. */
static void clear_reserved(u8 *hdr, u32 flags)
{
	hdr[4] &= 0xc0;			/* BTH resv6a */
	hdr[8] &= 0x80;			/* BTH resv7 */
	if (flags & SROCE_OPF_DETH)
		hdr[SROCE_BTH_LEN + 4] = 0;	/* DETH reserved byte */
	if (flags & SROCE_OPF_CNP)		/* CNP reserved bytes */
		memset(hdr + SROCE_BTH_LEN, 0, SROCE_CNP_LEN);
	if (flags & SROCE_OPF_XRCETH)
		hdr[SROCE_BTH_LEN] = 0;		/* XRCETH reserved byte */
}

static void fuzz_parse(const u8 *data, u32 size)
{
	u8 enc[SROCE_MAX_HDR_LEN], orig[SROCE_MAX_HDR_LEN];
	struct sroce_pkt pkt, again;
	u8 *copy;
	u32 n;

	/* zeroed: the headers are compared whole, padding included */
	memset(&pkt, 0, sizeof(pkt));
	if (sroce_parse(data, size, &pkt) != SROCE_DROP_NONE)
		return;
	FUZZ_ASSERT(pkt.op == sroce_opinfo(data[0]));
	FUZZ_ASSERT(pkt.hdr_len == pkt.op->hdr_len);
	FUZZ_ASSERT(pkt.hdr_len <= SROCE_MAX_HDR_LEN);
	FUZZ_ASSERT(size == (u64)pkt.hdr_len + pkt.paylen + pkt.h.bth.pad +
		    SROCE_ICRC_LEN);
	FUZZ_ASSERT(pkt.h.bth.tver == 0 && pkt.h.bth.pad <= 3);
	FUZZ_ASSERT(pkt.h.bth.dqpn <= SROCE_QPN_MASK);
	FUZZ_ASSERT(pkt.h.bth.psn <= SROCE_PSN_MASK);

	n = sroce_build(enc, &pkt.h);
	FUZZ_ASSERT(n == pkt.hdr_len);
	memcpy(orig, data, n);
	clear_reserved(orig, pkt.op->flags);
	FUZZ_ASSERT(!memcmp(enc, orig, n));

	/* the re-encoded headers with the original tail decode identically */
	copy = malloc(size);
	FUZZ_ASSERT(copy);
	memcpy(copy, data, size);
	memcpy(copy, enc, n);
	memset(&again, 0, sizeof(again));
	FUZZ_ASSERT(sroce_parse(copy, size, &again) == SROCE_DROP_NONE);
	FUZZ_ASSERT(again.paylen == pkt.paylen && again.op == pkt.op);
	FUZZ_ASSERT(!memcmp(&again.h.bth, &pkt.h.bth, sizeof(pkt.h.bth)));
	free(copy);
}

/* IP header length if @l3 is a frame the ICRC can be computed over, else 0. */
static u32 frame_iplen(const u8 *l3, u32 len, bool v6)
{
	u32 iplen;

	if (v6) {
		if (len < 40 || l3[6] != 17)
			return 0;
		iplen = 40;
	} else {
		if (len < 20 || l3[9] != 17 || (l3[0] & 15) < 5)
			return 0;
		iplen = (l3[0] & 15) * 4;
	}
	if (len < iplen + 8 + SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return 0;
	return iplen;
}

static void fuzz_frame(const u8 *data, u32 size)
{
	bool v6 = size && (data[0] >> 4) == 6;
	bool v4 = size && (data[0] >> 4) == 4;
	u32 iplen, bth, crc;
	struct sroce_pkt pkt;
	u8 *copy;
	bool ok;

	/* both families on every input: the check must reject, not crash */
	ok = sroce_icrc_check(data, size, true);
	FUZZ_ASSERT(!ok || v6);
	ok = sroce_icrc_check(data, size, false);
	FUZZ_ASSERT(!ok || v4);
	if (!v4 && !v6)
		return;

	iplen = frame_iplen(data, size, v6);
	if (!iplen)
		return;
	bth = iplen + 8;
	if (sroce_icrc_check(data, size, v6))
		sroce_parse(data + bth, size - bth, &pkt);

	copy = malloc(size);
	FUZZ_ASSERT(copy);
	memcpy(copy, data, size);
	crc = sroce_icrc_begin(copy, v6);
	crc = sroce_icrc_update(crc, copy + bth + SROCE_BTH_LEN,
				size - bth - SROCE_BTH_LEN - SROCE_ICRC_LEN);
	sroce_icrc_put(copy + size - SROCE_ICRC_LEN, sroce_icrc_final(crc));
	FUZZ_ASSERT(sroce_icrc_check(copy, size, v6));
	/* and one flipped payload-side bit breaks it again */
	copy[size - SROCE_ICRC_LEN - 1] ^= 0x10;
	FUZZ_ASSERT(!sroce_icrc_check(copy, size, v6));
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536u)
		return 0;
	fuzz_parse(data, (u32)size);
	fuzz_frame(data, (u32)size);
	return 0;
}
