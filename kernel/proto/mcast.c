// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast addressing rules (mcast.h).
 */
#include "mcast.h"

static const u8 sroce_v4mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

bool sroce_gid_is_mcast(const u8 *gid)
{
	if (gid[0] == 0xff)
		return true;
	/* ::ffff:224.0.0.0/4 */
	return !memcmp(gid, sroce_v4mapped_prefix,
		       sizeof(sroce_v4mapped_prefix)) &&
	       (gid[12] & 0xf0) == 0xe0;
}

enum sroce_drop sroce_mcast_check(const struct sroce_pkt *pkt)
{
	bool to_group = sroce_gid_is_mcast(pkt->dgid);

	if (!sroce_pkt_is_mcast(pkt))
		return to_group ? SROCE_DROP_BAD_MCAST : SROCE_DROP_NONE;
	if (!to_group || sroce_gid_is_mcast(pkt->sgid))
		return SROCE_DROP_BAD_MCAST;
	/* UD alone has multicast; its only opcodes are SEND_ONLY(_IMM). */
	if ((pkt->h.bth.opcode & SROCE_TRANSPORT_MASK) != SROCE_TRANSPORT_UD)
		return SROCE_DROP_BAD_MCAST;
	return SROCE_DROP_NONE;
}
