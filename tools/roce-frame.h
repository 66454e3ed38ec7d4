/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the RoCEv2 packet in a captured frame: link header (Ethernet
 * with VLAN tags, Linux cooked v1/v2, raw IP), IPv4/IPv6, UDP to 4791.
 * Shared by the pcap tools; every read is checked against the captured
 * length because the captures may be hostile.
 */
#ifndef SROCE_TOOLS_ROCE_FRAME_H
#define SROCE_TOOLS_ROCE_FRAME_H

#include "os.h"

enum sroce_capframe_res {
	SROCE_CAPFRAME_OK,		/* whole packet captured */
	SROCE_CAPFRAME_NOT_ROCE,	/* not IP/UDP to port 4791 */
	SROCE_CAPFRAME_TRUNCATED,	/* RoCEv2, but cut short or lengths lie */
};

struct sroce_capframe {
	const u8 *l3;		/* IPv4 or IPv6 header */
	u32 l3_len;		/* IP header + UDP length: the ICRC's extent */
	const u8 *bth;		/* first byte after the UDP header */
	u32 bth_len;		/* BTH .. ICRC, from the UDP length */
	u32 bth_caplen;		/* bytes of that actually captured */
	u8 src[16], dst[16];	/* addresses; IPv4 in the first 4 bytes */
	u16 sport, dport;
	bool v6;
};

/* Whether sroce_capframe_find() knows the link type @dlt at all. */
bool sroce_capframe_dlt_ok(int dlt);

/*
 * Locate IP, UDP and BTH in the @caplen captured bytes at @p, a frame of
 * pcap link type @dlt.  On TRUNCATED the addresses, ports, bth,
 * bth_len and bth_caplen are valid (either length may be 0) and l3_len
 * is 0.
 */
enum sroce_capframe_res sroce_capframe_find(int dlt, const u8 *p, u32 caplen,
					    struct sroce_capframe *f);

#endif /* SROCE_TOOLS_ROCE_FRAME_H */
