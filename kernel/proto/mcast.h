/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UD multicast addressing: which received packets are multicast, what a
 * multicast packet must look like to be accepted, and which attached QP
 * does not get its own copy back.  The glue looks the group up and hands
 * an accepted packet to each QP attached to it, one sroce_qp_rx() call
 * per QP, in which the QP's state and Q_Key are checked as for unicast.
 * Documentation/protocol-wire.rst, "Multicast".
 */
#ifndef SROCE_PROTO_MCAST_H
#define SROCE_PROTO_MCAST_H

#include "os.h"
#include "wire.h"

/* BTH DestQP of every multicast packet (IBA 9.6.1.5, C9-59). */
#define SROCE_MCAST_QPN		0xffffffu

/*
 * A multicast GID: IPv6 ff00::/8, or an IPv4-mapped one in 224.0.0.0/4
 * (::ffff:224.0.0.0/100), which is how RoCEv2 names IPv4 groups.
 */
bool sroce_gid_is_mcast(const u8 *gid);

static inline bool sroce_pkt_is_mcast(const struct sroce_pkt *pkt)
{
	return pkt->h.bth.dqpn == SROCE_MCAST_QPN;
}

/*
 * The addressing rules, on a parsed packet whose sgid and dgid the glue
 * filled in.  DestQP 0xFFFFFF only on UD, only to a multicast destination
 * and never from a multicast source; a multicast destination only with
 * DestQP 0xFFFFFF.  Returns SROCE_DROP_NONE or SROCE_DROP_BAD_MCAST.
 */
enum sroce_drop sroce_mcast_check(const struct sroce_pkt *pkt);

/*
 * Whether the attached QP @qpn skips this packet: it sent it itself, it
 * was created with "block self multicast loopback", and the packet is
 * the copy the local stack looped back (@looped).
 */
static inline bool sroce_mcast_skip_self(const struct sroce_pkt *pkt,
					 u32 qpn, bool block_self,
					 bool looped)
{
	return block_self && looped && pkt->h.deth.sqpn == qpn;
}

#endif /* SROCE_PROTO_MCAST_H */
