/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: whole RoCEv2 frames (IP | UDP | BTH.. | payload | pad |
 * ICRC) built with the core's codecs, for unit tests, fuzz seeds, the
 * benchmarks and pcap files that tshark checks.
 */
#ifndef SROCE_TEST_FRAME_H
#define SROCE_TEST_FRAME_H

#include "wire.h"

#define SROCE_TEST_IPV4_LEN	20
#define SROCE_TEST_IPV6_LEN	40
#define SROCE_TEST_UDP_LEN	8
#define SROCE_TEST_ETH_LEN	14

/*
 * Build a frame starting at the IP header into @buf (@cap bytes).  The
 * pad count is taken from @h as given (sroce_pad_for() for a legal one),
 * and that many zero bytes follow the payload.  The IP header checksum,
 * UDP checksum and ICRC are all correct.  Returns the frame length, or 0
 * if it does not fit or the opcode is unknown.
 */
u32 sroce_test_frame(u8 *buf, u32 cap, bool ipv6, const struct sroce_hdrs *h,
		     const u8 *payload, u32 paylen);

/* Offset of the BTH in a frame made by sroce_test_frame(). */
static inline u32 sroce_test_bth_off(bool ipv6)
{
	return (ipv6 ? SROCE_TEST_IPV6_LEN : SROCE_TEST_IPV4_LEN) +
	       SROCE_TEST_UDP_LEN;
}

/* Prepend an Ethernet header to an IP frame; @buf has room for it. */
u32 sroce_test_eth(u8 *out, const u8 *ip, u32 len, bool ipv6);

/*
 * Sample headers for @opcode: every field it carries set to a distinct,
 * non-trivial value (derived from @seed), pad for @paylen.
 */
void sroce_test_hdrs(struct sroce_hdrs *h, u8 opcode, u32 seed, u32 paylen);

#endif /* SROCE_TEST_FRAME_H */
