// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 ICRC (IBA Annex A17.3.3).  The CRC runs over a pseudo packet:
 * 64 bits of ones for the LRH that RoCEv2 lacks, then the IP, UDP and BTH
 * headers with every field a router or switch may rewrite set to ones,
 * then the rest of the packet unchanged up to the ICRC field.
 *
 * Masked: IPv4 TOS, TTL and header checksum; IPv6 traffic class, flow
 * label and hop limit; the UDP checksum; BTH byte 4 (FECN, BECN, resv6a).
 *
 * The field holds the inverted CRC least significant byte first, as
 * Ethernet's FCS does.  That is what rdma_rxe sends and checks (it stores
 * the crc32_le() result unswapped, on little-endian hosts), and every
 * packet of the rxe captures in tests/data agrees.
 */
#include "icrc.h"
#include "wire.h"

#define IPV4_MIN_LEN	20
#define IPV4_MAX_LEN	60
#define IPV6_LEN	40
#define UDP_LEN		8
#define IPPROTO_UDP_NR	17

/* sroce_crc32(~0, 8 bytes of 0xff, 8): the LRH stand-in, folded in. */
#define SROCE_ICRC_SEED	0xdebb20e3u

static u32 sroce_ipv4_len(const u8 *l3)
{
	return (l3[0] & 0x0f) * 4u;
}

u32 sroce_icrc_begin(const u8 *l3, bool ipv6)
{
	u8 ph[IPV4_MAX_LEN + UDP_LEN + SROCE_BTH_LEN];
	u32 iplen;
	u8 *udp;

	if (ipv6) {
		iplen = IPV6_LEN;
		memcpy(ph, l3, iplen + UDP_LEN + SROCE_BTH_LEN);
		ph[0] |= 0x0f;			/* traffic class, high nibble */
		ph[1] = 0xff;			/* traffic class low, flow label */
		ph[2] = 0xff;
		ph[3] = 0xff;
		ph[7] = 0xff;			/* hop limit */
	} else {
		/* IHL is four bits, so ph always has room */
		iplen = sroce_ipv4_len(l3);
		memcpy(ph, l3, iplen + UDP_LEN + SROCE_BTH_LEN);
		ph[1] = 0xff;			/* TOS (DSCP, ECN) */
		ph[8] = 0xff;			/* TTL */
		ph[10] = 0xff;			/* header checksum */
		ph[11] = 0xff;
	}
	udp = ph + iplen;
	udp[6] = 0xff;				/* UDP checksum */
	udp[7] = 0xff;
	udp[UDP_LEN + 4] = 0xff;		/* BTH FECN, BECN, resv6a */

	return sroce_crc32(SROCE_ICRC_SEED, ph, iplen + UDP_LEN + SROCE_BTH_LEN);
}

void sroce_icrc_put(u8 *p, u32 icrc)
{
	p[0] = icrc;
	p[1] = icrc >> 8;
	p[2] = icrc >> 16;
	p[3] = icrc >> 24;
}

u32 sroce_icrc_get(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/*
 * The CRC state of the contiguous frame @l3 after everything but the
 * ICRC, and the BTH's offset; false if it is no RoCEv2 frame.
 */
static bool sroce_icrc_frame(const u8 *l3, u32 len, bool ipv6, u32 *state,
			     u32 *bth)
{
	u32 iplen;

	if (ipv6) {
		if (len < IPV6_LEN || (l3[0] >> 4) != 6 ||
		    l3[6] != IPPROTO_UDP_NR)
			return false;
		iplen = IPV6_LEN;
	} else {
		if (len < IPV4_MIN_LEN || (l3[0] >> 4) != 4 ||
		    l3[9] != IPPROTO_UDP_NR)
			return false;
		iplen = sroce_ipv4_len(l3);
		if (iplen < IPV4_MIN_LEN)
			return false;
	}
	if (len < iplen + UDP_LEN + SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return false;

	*bth = iplen + UDP_LEN;
	*state = sroce_icrc_update(sroce_icrc_begin(l3, ipv6),
				   l3 + *bth + SROCE_BTH_LEN,
				   len - *bth - SROCE_BTH_LEN - SROCE_ICRC_LEN);
	return true;
}

bool sroce_icrc_check(const u8 *l3, u32 len, bool ipv6)
{
	u32 state, bth;

	return sroce_icrc_frame(l3, len, ipv6, &state, &bth) &&
	       sroce_icrc_final(state) ==
	       sroce_icrc_get(l3 + len - SROCE_ICRC_LEN);
}

bool sroce_icrc_rxe_flush(u32 opflags, u32 state, const u8 *hdr,
			  u32 hdr_len, u32 icrc)
{
	if (!(opflags & SROCE_OPF_FLUSH))
		return false;
	return sroce_icrc_final(sroce_icrc_rxe_flush_extend(state, hdr,
							   hdr_len)) == icrc;
}

bool sroce_icrc_check_rxe_flush(const u8 *l3, u32 len, bool ipv6)
{
	const struct sroce_opinfo *op;
	u32 state, bth;

	if (!sroce_icrc_frame(l3, len, ipv6, &state, &bth))
		return false;
	op = sroce_opinfo(l3[bth]);
	if (!op || len < bth + op->hdr_len + SROCE_ICRC_LEN)
		return false;
	return sroce_icrc_rxe_flush(op->flags, state, l3 + bth, op->hdr_len,
				    sroce_icrc_get(l3 + len - SROCE_ICRC_LEN));
}
