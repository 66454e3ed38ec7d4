/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 invariant CRC (IBA Annex A17.3.3): CRC-32 over the IP, UDP and
 * BTH headers with their variant fields masked to ones, preceded by 64
 * bits of ones standing in for the LRH, then the rest of the packet up to
 * the ICRC itself.
 *
 * The computation is split so that payload held in fragments (page
 * frags on TX, skb frags on RX, a copy loop that folds the CRC in) can
 * be fed piece by piece:
 *
 *	crc = sroce_icrc_begin(l3, ipv6);	IP..BTH, masked
 *	crc = sroce_icrc_update(crc, p, n);	ext headers, payload, pad
 *	sroce_icrc_put(tail, sroce_icrc_final(crc));
 */
#ifndef SROCE_PROTO_ICRC_H
#define SROCE_PROTO_ICRC_H

#include "os.h"

/*
 * @l3 points at the IPv4 (with options, if any) or IPv6 header, followed
 * contiguously by the UDP header and the BTH.  Returns the running CRC
 * state after the masked BTH.
 */
u32 sroce_icrc_begin(const u8 *l3, bool ipv6);

static inline u32 sroce_icrc_update(u32 state, const void *p, u32 len)
{
	return sroce_crc32(state, p, len);
}

/* The 32-bit value carried in the ICRC field. */
static inline u32 sroce_icrc_final(u32 state)
{
	return ~state;
}

/* The ICRC field's byte order on the wire. */
void sroce_icrc_put(u8 *p, u32 icrc);
u32 sroce_icrc_get(const u8 *p);

/*
 * Convenience for a contiguous frame: @len bytes from @l3 to the end of
 * the ICRC.  Returns true if the ICRC matches.
 */
bool sroce_icrc_check(const u8 *l3, u32 len, bool ipv6);

/*
 * rdma_rxe (6.2 to 7.3 at least) computes a FLUSH's ICRC with the headers
 * fed twice: after the IBA's part it runs on over the BTH, FETH and RETH
 * again, unmasked, as if they were the payload (its opcode table gives
 * FLUSH no payload offset).  @state is the CRC after the IBA's part (all
 * but the ICRC), @hdr the @hdr_len bytes from the BTH on, @opflags the
 * packet's enum sroce_opflag.  True if @icrc is that variant of a FLUSH:
 * the receiver accepts it too (Documentation/interop.rst).
 */
bool sroce_icrc_rxe_flush(u32 opflags, u32 state, const u8 *hdr,
			  u32 hdr_len, u32 icrc);

/*
 * Sending that variant (sroce_tx_pkt.icrc_rxe, to rdma_rxe): the CRC
 * state @state after the IBA's part, run on over the @hdr_len header
 * bytes from the BTH as sent.
 */
static inline u32 sroce_icrc_rxe_flush_extend(u32 state, const u8 *hdr,
					      u32 hdr_len)
{
	return sroce_icrc_update(state, hdr, hdr_len);
}

/* sroce_icrc_check() for that variant: a contiguous frame, for the tools. */
bool sroce_icrc_check_rxe_flush(const u8 *l3, u32 len, bool ipv6);

#endif /* SROCE_PROTO_ICRC_H */
