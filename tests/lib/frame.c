// SPDX-License-Identifier: GPL-2.0
/*
 * Whole RoCEv2 frames for tests; see frame.h.  Addresses come from the
 * documentation ranges (192.0.2.0/24, 2001:db8::/32).
 */
#include <string.h>

#include "frame.h"
#include "icrc.h"

static u32 sroce_csum_add(u32 sum, const u8 *p, u32 len)
{
	u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (u32)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (u32)p[len - 1] << 8;
	return sum;
}

static u16 sroce_csum_fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

u32 sroce_test_frame(u8 *buf, u32 cap, bool ipv6, const struct sroce_hdrs *h,
		     const u8 *payload, u32 paylen)
{
	u32 iplen = ipv6 ? SROCE_TEST_IPV6_LEN : SROCE_TEST_IPV4_LEN;
	u32 bth = iplen + SROCE_TEST_UDP_LEN;
	const struct sroce_opinfo *op = sroce_opinfo(h->bth.opcode);
	u32 pad = h->bth.pad & 3;
	u32 len, udplen, sum, crc, hl;
	u8 *udp = buf + iplen;

	if (!op || (u64)bth + op->hdr_len + paylen + pad + SROCE_ICRC_LEN > cap)
		return 0;
	hl = sroce_build(buf + bth, h);
	if (paylen)
		memcpy(buf + bth + hl, payload, paylen);
	memset(buf + bth + hl + paylen, 0, pad);
	len = bth + hl + paylen + pad + SROCE_ICRC_LEN;
	udplen = len - iplen;

	if (ipv6) {
		static const u8 src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
		static const u8 dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

		buf[0] = 0x60 | 0x0a;		/* version 6, some traffic class */
		buf[1] = 0x81;			/* and a flow label */
		buf[2] = 0x23;
		buf[3] = 0x45;
		sroce_put_be16(buf + 4, udplen);
		buf[6] = 17;
		buf[7] = 64;
		memcpy(buf + 8, src, 16);
		memcpy(buf + 24, dst, 16);
	} else {
		buf[0] = 0x45;
		buf[1] = 0x8a;			/* DSCP, ECN ECT(0) */
		sroce_put_be16(buf + 2, len);
		sroce_put_be16(buf + 4, 0x1234);
		sroce_put_be16(buf + 6, 0x4000);	/* DF */
		buf[8] = 64;
		buf[9] = 17;
		sroce_put_be16(buf + 10, 0);
		buf[12] = 192; buf[13] = 0; buf[14] = 2; buf[15] = 1;
		buf[16] = 192; buf[17] = 0; buf[18] = 2; buf[19] = 2;
		sroce_put_be16(buf + 10, sroce_csum_fold(sroce_csum_add(0, buf, 20)));
	}
	sroce_put_be16(udp, 0xc000 | (h->bth.dqpn & 0x3fff));
	sroce_put_be16(udp + 2, SROCE_UDP_PORT);
	sroce_put_be16(udp + 4, udplen);
	sroce_put_be16(udp + 6, 0);

	/* ICRC first: the UDP checksum covers it. */
	crc = sroce_icrc_begin(buf, ipv6);
	crc = sroce_icrc_update(crc, buf + bth + SROCE_BTH_LEN,
				len - bth - SROCE_BTH_LEN - SROCE_ICRC_LEN);
	sroce_icrc_put(buf + len - SROCE_ICRC_LEN, sroce_icrc_final(crc));

	/* UDP checksum over the pseudo header; mandatory on IPv6. */
	sum = udplen + 17;
	if (ipv6)
		sum = sroce_csum_add(sum, buf + 8, 32);
	else
		sum = sroce_csum_add(sum, buf + 12, 8);
	sum = sroce_csum_add(sum, udp, udplen);
	sum = sroce_csum_fold(sum);
	sroce_put_be16(udp + 6, sum ? sum : 0xffff);
	return len;
}

u32 sroce_test_eth(u8 *out, const u8 *ip, u32 len, bool ipv6)
{
	static const u8 macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };

	memcpy(out, macs, 12);
	sroce_put_be16(out + 12, ipv6 ? 0x86dd : 0x0800);
	memmove(out + SROCE_TEST_ETH_LEN, ip, len);
	return len + SROCE_TEST_ETH_LEN;
}

void sroce_test_hdrs(struct sroce_hdrs *h, u8 opcode, u32 seed, u32 paylen)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = opcode;
	h->bth.se = seed & 1;
	h->bth.mig = 1;
	h->bth.pad = sroce_pad_for(paylen);
	h->bth.pkey = SROCE_DEFAULT_PKEY;
	h->bth.dqpn = (0x000011 + seed) & SROCE_QPN_MASK;
	h->bth.ackreq = (opcode & 0x1f) < SROCE_OP_READ_RESP_FIRST;
	h->bth.psn = (0xabcdef + seed) & SROCE_PSN_MASK;
	h->reth.va = 0x00007f0012345000ull + seed;
	h->reth.rkey = 0x1234 + seed;
	h->reth.len = paylen;
	h->aeth.syndrome = sroce_aeth_syndrome(SROCE_AETH_ACK,
					       SROCE_AETH_CREDIT_INVALID);
	h->aeth.msn = 0x000102 + seed;
	h->atmeth.va = 0x00007f0000001000ull + 8 * seed;
	h->atmeth.rkey = 0x5678 + seed;
	h->atmeth.swap_add = 0x0102030405060708ull + seed;
	h->atmeth.cmp = 0x1112131415161718ull + seed;
	h->atmack = 0x2122232425262728ull + seed;
	h->imm = 0xdeadbeef ^ seed;
	h->ieth = 0xcafe00 + seed;
	h->deth.qkey = 0x11111111 + seed;
	h->deth.sqpn = 0x000042 + seed;
	h->feth = 0x1;	/* placement type: global visibility */
	h->xrceth = (0x00abc0 + seed) & SROCE_SRQN_MASK;
	if ((opcode & 0x1f) == SROCE_OP_ATOMIC_WRITE)
		h->reth.len = 8;
	if ((opcode & 0x1f) == SROCE_OP_FLUSH)
		h->reth.len = 4096;
}
