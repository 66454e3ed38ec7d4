// SPDX-License-Identifier: GPL-2.0
/*
 * Link, IP and UDP walking for the pcap tools; see roce-frame.h.  Only
 * what RoCEv2 needs: no IPv6 extension headers (RoCEv2 peers send none),
 * no IP reassembly (RoCEv2 sets DF and fragments are reported truncated).
 */
#include "roce-frame.h"
#include "wire.h"

#include <pcap/pcap.h>

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2	276
#endif

#define ETH_P_IPV4	0x0800
#define ETH_P_IPV6	0x86dd

static bool sroce_is_vlan(u16 et)
{
	return et == 0x8100 || et == 0x88a8 || et == 0x9100;
}

/*
 * Offset of the IP header, or -1.  @type is where the EtherType-like
 * protocol field sits, @end where the link header ends; VLAN tags, if
 * any, follow @end.
 */
static int sroce_l3_after(const u8 *p, u32 caplen, u32 type, u32 end)
{
	u16 et;

	if (end > caplen)
		return -1;
	et = sroce_get_be16(p + type);
	while (sroce_is_vlan(et)) {
		if (end + 4 > caplen)
			return -1;
		et = sroce_get_be16(p + end + 2);
		end += 4;
	}
	return et == ETH_P_IPV4 || et == ETH_P_IPV6 ? (int)end : -1;
}

static int sroce_l3_offset(int dlt, const u8 *p, u32 caplen)
{
	switch (dlt) {
	case DLT_EN10MB:
		return sroce_l3_after(p, caplen, 12, 14);
	case DLT_LINUX_SLL:
		return sroce_l3_after(p, caplen, 14, 16);
	case DLT_LINUX_SLL2:
		return sroce_l3_after(p, caplen, 0, 20);
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return 0;
	case DLT_NULL:
	case DLT_LOOP:
		/* 4-byte address family; the IP version nibble says enough */
		return caplen >= 4 ? 4 : -1;
	default:
		return -1;
	}
}

bool sroce_capframe_dlt_ok(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_NULL:
	case DLT_LOOP:
		return true;
	default:
		return false;
	}
}

enum sroce_capframe_res sroce_capframe_find(int dlt, const u8 *p, u32 caplen,
					    struct sroce_capframe *f)
{
	u32 avail, hl, tot, udp_len, end;
	bool cut = false;
	const u8 *ip;
	int off;

	memset(f, 0, sizeof(*f));
	off = sroce_l3_offset(dlt, p, caplen);
	if (off < 0 || (u32)off >= caplen)
		return SROCE_CAPFRAME_NOT_ROCE;
	ip = p + off;
	avail = caplen - off;
	switch (ip[0] >> 4) {
	case 4:
		hl = (ip[0] & 15) * 4u;
		if (avail < 20 || hl < 20 || ip[9] != 17)
			return SROCE_CAPFRAME_NOT_ROCE;
		/* A later fragment carries no UDP header. */
		if (sroce_get_be16(ip + 6) & 0x1fff)
			return SROCE_CAPFRAME_NOT_ROCE;
		/* A first fragment is not the whole packet. */
		cut = sroce_get_be16(ip + 6) & 0x2000;
		tot = sroce_get_be16(ip + 2);
		memcpy(f->src, ip + 12, 4);
		memcpy(f->dst, ip + 16, 4);
		break;
	case 6:
		hl = 40;
		if (avail < 40 || ip[6] != 17)
			return SROCE_CAPFRAME_NOT_ROCE;
		tot = 40 + sroce_get_be16(ip + 4);
		memcpy(f->src, ip + 8, 16);
		memcpy(f->dst, ip + 24, 16);
		f->v6 = true;
		break;
	default:
		return SROCE_CAPFRAME_NOT_ROCE;
	}
	if (hl + 8 > avail)
		return SROCE_CAPFRAME_NOT_ROCE;
	f->sport = sroce_get_be16(ip + hl);
	f->dport = sroce_get_be16(ip + hl + 2);
	if (f->dport != SROCE_UDP_PORT)
		return SROCE_CAPFRAME_NOT_ROCE;
	udp_len = sroce_get_be16(ip + hl + 4);

	f->l3 = ip;
	f->bth = ip + hl + 8;
	/* What is both captured and inside the IP and UDP lengths. */
	end = avail < tot ? avail : tot;
	if (udp_len >= 8 && hl + udp_len < end)
		end = hl + udp_len;
	f->bth_caplen = end > hl + 8 ? end - hl - 8 : 0;
	f->bth_len = udp_len >= 8 ? udp_len - 8 : 0;

	if (cut || tot > avail || udp_len < 8 || hl + udp_len > tot)
		return SROCE_CAPFRAME_TRUNCATED;
	f->l3_len = hl + udp_len;
	return SROCE_CAPFRAME_OK;
}
