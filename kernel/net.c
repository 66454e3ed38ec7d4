// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 on the wire: the receive path from the UDP 4791 sockets (sock.c)
 * (device lookup, ICRC, parse, hand-off to the QP) and the transmit
 * path (route, skb build with the payload copied or attached as page
 * fragments and the ICRC computed over it, IP output, or the driver
 * directly through net_direct.c).
 * Documentation/net.rst explains every wire choice.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/dst.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "proto/icrc.h"
#include "proto/mcast.h"
#include "proto/wire.h"

#define SROCE_UDP_HLEN		sizeof(struct udphdr)
#define SROCE_IPV4_HLEN		sizeof(struct iphdr)
#define SROCE_IPV6_HLEN		sizeof(struct ipv6hdr)

/* ---- Receive ---- */

/*
 * The ICRC over @len bytes of @skb from @off, fragments included, in
 * order: CRC-32 needs no combine step then (7.x has neither
 * skb_checksum_ops nor crc32_le_combine()).
 */
static u32 sroce_skb_crc32(struct sk_buff *skb, unsigned int off,
			   unsigned int len, u32 crc)
{
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *p;

	skb_prepare_seq_read(skb, off, off + len, &st);
	/*
	 * A block may run past off + len (into the ICRC); the call at
	 * done == len returns 0 and unmaps.
	 */
	while ((n = skb_seq_read(done, &p, &st))) {
		n = min(n, len - done);
		crc = sroce_crc32(crc, p, n);
		done += n;
	}
	return crc;
}

static struct ib_device *sroce_ibdev_of(struct net_device *ndev)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, SROCE_DRIVER_ID);
	/* A VLAN upper's traffic belongs to the device on its real device. */
	if (!ibdev && is_vlan_dev(ndev))
		ibdev = ib_device_get_by_netdev(vlan_dev_real_dev(ndev),
						SROCE_DRIVER_ID);
	return ibdev;
}

/*
 * The device a packet is for: the one on the receiving netdev (or the
 * real device of a VLAN), else, for traffic between local addresses
 * that arrives on lo, the one whose netdev holds the destination
 * address.  Called in the UDP receive path, inside rcu_read_lock().
 */
static struct ib_device *sroce_rx_ibdev(struct sk_buff *skb, bool v6)
{
	struct net_device *ndev = skb->dev;
	struct ib_device *ibdev;

	ibdev = sroce_ibdev_of(ndev);
	if (ibdev || !(ndev->flags & IFF_LOOPBACK))
		return ibdev;

	if (v6)
		ndev = ipv6_dev_find(dev_net(ndev), &ipv6_hdr(skb)->daddr,
				     NULL);
	else
		ndev = __ip_dev_find(dev_net(ndev), ip_hdr(skb)->daddr, false);
	return ndev ? sroce_ibdev_of(ndev) : NULL;
}

/*
 * Check one RoCEv2 packet and hand it to its QP, or a multicast one to
 * every QP attached to its group (mcast.c).  On entry skb->data is
 * the UDP header and skb->len the UDP length (the UDP layer trimmed the
 * frame and verified any UDP checksum).
 */
static enum sroce_drop sroce_rx(struct sroce_dev *sdev, struct sk_buff *skb,
				bool v6)
{
	u32 len = skb->len, l3len, roce_len, crc;
	struct sroce_pkt pkt;
	struct sroce_rx rx;
	enum sroce_drop why;
	u8 icrc[SROCE_ICRC_LEN];
	const u8 *l3;
	bool mcast;

	if (len < SROCE_UDP_HLEN + SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return SROCE_DROP_TRUNCATED;
	roce_len = len - SROCE_UDP_HLEN;
	/* Only the transport headers need to be linear. */
	if (!pskb_may_pull(skb, SROCE_UDP_HLEN +
			   min_t(u32, roce_len, SROCE_MAX_HDR_LEN)))
		return SROCE_DROP_NO_RESOURCE;

	/*
	 * The headers and the QP (or group) first, the ICRC over the whole
	 * datagram after: junk sent to the port costs a header parse and a
	 * lookup, and nothing of a packet is acted on before its ICRC
	 * passed.
	 */
	why = sroce_parse(skb->data + SROCE_UDP_HLEN, roce_len, &pkt);
	if (why)
		return why;
	pkt.ce = sroce_cc_ce(skb, v6);
	if (v6) {
		memcpy(pkt.sgid, &ipv6_hdr(skb)->saddr, SROCE_GID_LEN);
		memcpy(pkt.dgid, &ipv6_hdr(skb)->daddr, SROCE_GID_LEN);
	} else {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr,
				       (struct in6_addr *)pkt.sgid);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)pkt.dgid);
	}
	why = sroce_mcast_check(&pkt);
	if (why)
		return why;
	mcast = sroce_pkt_is_mcast(&pkt);
	if (mcast ? !sroce_mcast_has_group(sdev, pkt.dgid) :
		    !xa_load(&sdev->qps, pkt.h.bth.dqpn))
		return SROCE_DROP_UNKNOWN_QP;

	/*
	 * The ICRC covers IP, UDP and BTH as one contiguous image.  IPv6
	 * extension headers have no defined place in it: such a packet
	 * cannot be checked, so it is dropped as failing the check.
	 */
	l3 = skb_network_header(skb);
	l3len = skb_transport_header(skb) - skb_network_header(skb);
	if (v6 ? l3len != SROCE_IPV6_HLEN : l3len < SROCE_IPV4_HLEN)
		return SROCE_DROP_BAD_ICRC;
	crc = sroce_icrc_begin(l3, v6);
	crc = sroce_skb_crc32(skb, SROCE_UDP_HLEN + SROCE_BTH_LEN,
			      roce_len - SROCE_BTH_LEN - SROCE_ICRC_LEN, crc);
	if (skb_copy_bits(skb, len - SROCE_ICRC_LEN, icrc, sizeof(icrc)))
		return SROCE_DROP_TRUNCATED;
	if (sroce_icrc_final(crc) != sroce_icrc_get(icrc) &&
	    !sroce_icrc_rxe_flush(pkt.op->flags, crc,
				  skb->data + SROCE_UDP_HLEN, pkt.hdr_len,
				  sroce_icrc_get(icrc)))
		return SROCE_DROP_BAD_ICRC;

	rx.skb = skb;
	/* ip_mc_output() loops our own multicast back as PACKET_LOOPBACK. */
	rx.looped = skb->pkt_type == PACKET_LOOPBACK;
	rx.payload_off = SROCE_UDP_HLEN + pkt.hdr_len;
	if (v6) {
		rx.family = AF_INET6;
		memcpy(rx.grh, l3, SROCE_GRH_LEN);
	} else {
		/* As rxe and hardware do: the IPv4 header in the GRH's tail. */
		rx.family = AF_INET;
		memset(rx.grh, 0, SROCE_GRH_LEN - SROCE_IPV4_HLEN);
		memcpy(rx.grh + SROCE_GRH_LEN - SROCE_IPV4_HLEN, l3,
		       SROCE_IPV4_HLEN);
	}

	rcu_read_lock();
	if (mcast) {
		/* Counts each QP's copy itself, accepted or dropped. */
		why = sroce_mcast_deliver(sdev, &pkt, &rx, roce_len);
		rcu_read_unlock();
		return why;
	}
	why = sroce_kqp_deliver(sdev, &pkt, &rx);
	rcu_read_unlock();
	if (!why) {
		sroce_count(sdev, SROCE_CTR_RX_PACKETS, 1);
		sroce_count(sdev, SROCE_CTR_RX_BYTES, roce_len);
	}
	return why;
}

/*
 * encap_rcv of every namespace's sockets (sock.c): each datagram to port
 * 4791 lands here, in softirq.  The netdev it came in on names the device.
 */
int sroce_net_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	bool v6 = skb->protocol == htons(ETH_P_IPV6);
	struct ib_device *ibdev;
	enum sroce_drop why;

	ibdev = sroce_rx_ibdev(skb, v6);
	if (!ibdev) {
		kfree_skb(skb);
		return 0;
	}
	why = sroce_rx(to_sdev(ibdev), skb, v6);
	sroce_count_drop(to_sdev(ibdev), why);
	ib_device_put(ibdev);
	if (why)
		kfree_skb(skb);
	else
		consume_skb(skb);
	return 0;
}

struct sroce_copy_state {
	const struct sk_buff	*skb;
	u32			off;
};

static int sroce_copy_chunk(void *priv, void *kaddr, u32 len)
{
	struct sroce_copy_state *st = priv;

	if (skb_copy_bits(st->skb, st->off, kaddr, len))
		return -EFAULT;
	st->off += len;
	return 0;
}

int sroce_net_copy_payload(const struct sroce_rx *rx, u32 payload_off,
			   const struct sroce_mem_ref *dst, u32 dst_off,
			   u32 len)
{
	struct sroce_copy_state st = { .skb = rx->skb };

	/* The core checked the length; never read into the ICRC anyway. */
	if ((u64)rx->payload_off + payload_off + len >
	    rx->skb->len - SROCE_ICRC_LEN)
		return -EFAULT;
	st.off = rx->payload_off + payload_off;
	return sroce_mem_for_each(dst, dst_off, len, sroce_copy_chunk, &st);
}

/* ---- Transmit ---- */

u16 sroce_net_src_port(u32 lqpn, u32 rqpn)
{
	/* ib_core's annex A17 helper: 0xC000 | 14 bits of a QP-pair hash. */
	return rdma_get_udp_sport(0, lqpn, rqpn);
}

struct sroce_fill_state {
	struct sk_buff	*skb;
	u32		crc;
};

/* Append one chunk of payload, folding it into the ICRC as it lands. */
static int sroce_fill_chunk(void *priv, void *kaddr, u32 len)
{
	struct sroce_fill_state *st = priv;

	/* CRC the copy, not the source: user memory may change under us. */
	st->crc = sroce_crc32(st->crc, skb_put_data(st->skb, kaddr, len), len);
	return 0;
}

/*
 * Zero-copy transmit (Documentation/performance.rst, "Zero-copy
 * transmit"): the payload of an RC SEND or WRITE from a user MR goes out
 * as fragments of the MR's pinned pages, each holding a page reference
 * until the driver frees the skb, and the ICRC is computed over the pages
 * in place.  The application may not change them before the completion,
 * which waits for the peer's ACK of packets that passed its ICRC check.
 * Not READ responses: that memory is the peer's application's to change
 * at any time, and a change between our CRC and the NIC's read would
 * fail every retry.  Not UD or UC: they complete before the NIC reads.
 */
#define SROCE_ZC_MIN		256	/* below this a copy costs less */
#define SROCE_ZC_RUNS		8	/* pages; more goes the copy way */

static bool zcopy = true;
module_param(zcopy, bool, 0644);
MODULE_PARM_DESC(zcopy, "Send RC SEND/WRITE payloads from user MRs as page fragments, without copying them");

struct sroce_zc {
	int n;				/* 0: copy the payload */
	struct sroce_page_run run[SROCE_ZC_RUNS];
};

/*
 * A device that cannot gather fragments, or (IPv6, CHECKSUM_PARTIAL)
 * checksum them, has the stack copy the skb into one buffer
 * (validate_xmit_skb(), skb_checksum_help()): to such a device the
 * payload is copied here instead, once.
 */
static bool sroce_zc_dev_ok(const struct net_device *dev, bool v6)
{
	if (!(dev->features & NETIF_F_SG))
		return false;
	return !v6 || (dev->features & (NETIF_F_HW_CSUM | NETIF_F_IPV6_CSUM));
}

static void sroce_zc_plan(const struct sroce_tx_pkt *pkt,
			  const struct net_device *dev, bool v6,
			  struct sroce_zc *zc)
{
	const struct sroce_opinfo *oi = sroce_opinfo(pkt->opcode);
	int i, n;

	zc->n = 0;
	if (!READ_ONCE(zcopy) || !sroce_zc_dev_ok(dev, v6) ||
	    pkt->inline_data ||
	    pkt->paylen < SROCE_ZC_MIN || !oi ||
	    (pkt->opcode & SROCE_TRANSPORT_MASK) != SROCE_TRANSPORT_RC ||
	    !(oi->flags & SROCE_OPF_REQ) ||
	    !(oi->flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE)))
		return;
	for (i = 0, n = 0; i < pkt->nseg; i++) {
		int k = sroce_mem_pages(&pkt->seg[i].ref, pkt->seg[i].off,
					pkt->seg[i].len, zc->run + n,
					SROCE_ZC_RUNS - n);

		if (!k)
			return;
		n += k;
	}
	/* Slab or refcount-free pages must not be handed to a driver. */
	for (i = 0; i < n; i++)
		if (!sendpage_ok(zc->run[i].page))
			return;
	zc->n = n;
}

/* Attach the planned pages as fragments, folding them into the ICRC. */
static u32 sroce_fill_pages(struct sk_buff *skb, const struct sroce_zc *zc,
			    u32 crc)
{
	int i;

	for (i = 0; i < zc->n; i++) {
		const struct sroce_page_run *r = &zc->run[i];
		void *kaddr = kmap_local_page(r->page);

		crc = sroce_crc32(crc, kaddr + r->off, r->len);
		kunmap_local(kaddr);
		get_page(r->page);
		skb_fill_page_desc(skb, i, r->page, r->off, r->len);
		skb_len_add(skb, r->len);
	}
	/*
	 * User pages: whatever would write into the fragments or checksum
	 * them (ESP in place, a software checksum) must copy them first.
	 */
	sroce_skb_shared_frag(skb);
	return crc;
}

/*
 * Pad and ICRC after page fragments: one more fragment, from the per-CPU
 * page fragment cache.
 */
static u8 *sroce_fill_tail(struct sk_buff *skb, u32 len)
{
	struct page *page;
	u8 *p;

	p = netdev_alloc_frag(len);
	if (!p)
		return NULL;
	page = virt_to_head_page(p);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page,
			   p - (u8 *)page_address(page), len);
	skb_len_add(skb, len);
	return p;
}

/*
 * Append BTH.., payload, pad and ICRC to @skb, whose network and transport
 * headers are already final, and the ICRC-covered IP/UDP/BTH contiguous.
 */
static int sroce_fill(struct sk_buff *skb, const struct sroce_tx_pkt *pkt,
		      const struct sroce_zc *zc, bool v6)
{
	struct sroce_fill_state st = { .skb = skb };
	const u8 *bth = skb_tail_pointer(skb) - pkt->hdr_len;
	static const u8 zero[4];
	u8 *tail;
	int i, err;

	st.crc = sroce_icrc_begin(skb_network_header(skb), v6);
	st.crc = sroce_crc32(st.crc, bth + SROCE_BTH_LEN,
			     pkt->hdr_len - SROCE_BTH_LEN);
	if (zc->n) {
		st.crc = sroce_fill_pages(skb, zc, st.crc);
		tail = sroce_fill_tail(skb, pkt->pad + SROCE_ICRC_LEN);
		if (!tail)
			return -ENOMEM;
		memset(tail, 0, pkt->pad);
		st.crc = sroce_crc32(st.crc, tail, pkt->pad);
		sroce_icrc_put(tail + pkt->pad, sroce_icrc_final(st.crc));
		return 0;
	}
	if (pkt->inline_data) {
		sroce_fill_chunk(&st, (void *)pkt->inline_data, pkt->paylen);
	} else {
		for (i = 0; i < pkt->nseg; i++) {
			err = sroce_mem_for_each(&pkt->seg[i].ref,
						 pkt->seg[i].off,
						 pkt->seg[i].len,
						 sroce_fill_chunk, &st);
			if (err)
				return err;
		}
	}
	sroce_fill_chunk(&st, (void *)zero, pkt->pad);
	if (pkt->icrc_rxe)	/* a FLUSH: no payload, never zero-copy */
		st.crc = sroce_icrc_rxe_flush_extend(st.crc, bth,
						     pkt->hdr_len);
	sroce_icrc_put(skb_put(skb, SROCE_ICRC_LEN), sroce_icrc_final(st.crc));
	return 0;
}

static struct sk_buff *sroce_alloc_skb(struct dst_entry *dst, u32 l3len,
				       struct sroce_txq *txq,
				       const struct sroce_tx_pkt *pkt,
				       const struct sroce_zc *zc, u32 roce_len)
{
	u32 hroom = LL_RESERVED_SPACE(dst->dev) + l3len + SROCE_UDP_HLEN;
	u32 linear = zc->n ? pkt->hdr_len : roce_len;
	struct sk_buff *skb;
	struct udphdr *uh;

	skb = alloc_skb(hroom + linear + dst->dev->needed_tailroom,
			GFP_ATOMIC);
	if (!skb)
		return NULL;
	sroce_txq_charge(txq, skb);
	skb_reserve(skb, hroom);
	skb_put_data(skb, pkt->hdr, pkt->hdr_len);

	uh = skb_push(skb, SROCE_UDP_HLEN);
	skb_reset_transport_header(skb);
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(SROCE_UDP_HLEN + roce_len);
	uh->check = 0;
	return skb;
}

/*
 * Common tail: count, and map the stack's verdict to our contract.  A
 * full local queue (NET_XMIT_DROP: the qdisc, netem's limit) is not loss
 * on the wire: the packet is refused, and the core sends it again after
 * the TX retry time, instead of a go-back-N round trip later.  Loss that
 * a qdisc models (netem's loss) reports success.
 */
static int sroce_xmit_done(struct sroce_dev *sdev, int err, u32 roce_len,
			   const struct sroce_zc *zc)
{
	err = net_xmit_eval(err);
	if (err) {
		sroce_count(sdev, SROCE_CTR_TX_DROPPED, 1);
		return err == NET_XMIT_DROP ? -ENOBUFS : 0;
	}
	sroce_count(sdev, SROCE_CTR_TX_PACKETS, 1);
	sroce_count(sdev, SROCE_CTR_TX_BYTES, roce_len);
	if (zc->n)
		sroce_count(sdev, SROCE_CTR_TX_ZCOPY, 1);
	return 0;
}

/*
 * No memory for the tail fragment: refused like a failed skb allocation.
 * Unreadable payload memory: dropped, the requester's timer recovers.
 */
static int sroce_fill_failed(struct sroce_dev *sdev, int err)
{
	/* ODP: a page is being faulted in; the QP's retry sends it again. */
	if (err == -EAGAIN)
		return -EBUSY;
	if (err == -ENOMEM) {
		sroce_count(sdev, SROCE_CTR_TX_NO_MEM, 1);
		return -ENOBUFS;
	}
	sroce_count(sdev, SROCE_CTR_TX_DROPPED, 1);
	return 0;
}

/*
 * The route of an RC/UC QP is looked up once and used again while
 * dst_check() accepts it: a FIB change (the generation, IPv6's serial
 * in @cookie) or the device going away (dst_dev_put() marks it dead)
 * sends the next packet to the FIB again.  UD passes no @route: each
 * WQE may go elsewhere.  rxe keeps its RC routes the same way.
 */
void sroce_route_reset(struct sroce_route *route)
{
	dst_release(route->dst);
	route->dst = NULL;
}

/* The cached route with a reference of the caller's, or NULL. */
static struct dst_entry *sroce_route_get(struct sroce_route *route)
{
	if (!route || !route->dst)
		return NULL;
	if (!dst_check(route->dst, route->cookie)) {
		sroce_route_reset(route);
		return NULL;
	}
	dst_hold(route->dst);
	return route->dst;
}

/*
 * The peer answered since the last packet: this one confirms the
 * neighbour its route goes through, as TCP's ACKs do (sock_confirm_neigh()
 * in the IP output path, net_direct.c's too).  A neighbour confirmed
 * within its reachable time stays REACHABLE: without it, every half
 * minute or so the entry would pass through DELAY and PROBE, and an ARP
 * or neighbour solicitation would go out, which a lossy path can lose
 * until the entry fails.  UD has no peer to hear from.
 */
void sroce_route_confirm(struct sroce_route *route)
{
	route->confirm = true;
}

static void sroce_route_confirm_skb(struct sroce_route *route,
				    struct sk_buff *skb)
{
	if (route && route->confirm) {
		route->confirm = false;
		skb_set_dst_pending_confirm(skb, 1);
	}
}

static void sroce_route_set(struct sroce_route *route,
			    struct dst_entry *dst, u32 cookie)
{
	if (!route)
		return;
	sroce_route_reset(route);
	dst_hold(dst);
	route->dst = dst;
	route->cookie = cookie;
}

static struct rtable *sroce_route4(struct sroce_dev *sdev,
				   struct sroce_route *route,
				   struct flowi4 *fl4)
{
	struct dst_entry *dst = sroce_route_get(route);
	struct rtable *rt;

	if (dst)
		return container_of(dst, struct rtable, dst);
	rt = ip_route_output_key(dev_net(sdev->ndev), fl4);
	if (IS_ERR(rt)) {
		sroce_count(sdev, SROCE_CTR_TX_NO_ROUTE, 1);
		return NULL;
	}
	sroce_route_set(route, &rt->dst, 0);
	return rt;
}

static int sroce_xmit4(struct sroce_dev *sdev, struct sroce_txq *txq,
		       struct sroce_net_burst *burst,
		       const struct sroce_av *av, u16 src_port,
		       struct sroce_route *route,
		       const struct sroce_tx_pkt *pkt, u32 roce_len)
{
	struct net *net = dev_net(sdev->ndev);
	struct flowi4 fl4 = {
		.flowi4_proto = IPPROTO_UDP,
		.daddr = av->daddr.v4,
		.saddr = av->saddr.v4,
		.fl4_sport = htons(src_port),
		.fl4_dport = htons(SROCE_UDP_PORT),
	};
	struct sk_buff *skb;
	struct sroce_zc zc;
	struct rtable *rt;
	struct iphdr *iph;
	int err;

	rt = sroce_route4(sdev, route, &fl4);
	if (!rt)
		return 0;
	sroce_zc_plan(pkt, rt->dst.dev, false, &zc);
	skb = sroce_alloc_skb(&rt->dst, SROCE_IPV4_HLEN, txq, pkt, &zc,
			      roce_len);
	if (!skb) {
		ip_rt_put(rt);
		sroce_count(sdev, SROCE_CTR_TX_NO_MEM, 1);
		return -ENOBUFS;
	}
	udp_hdr(skb)->source = htons(src_port);

	iph = skb_push(skb, SROCE_IPV4_HLEN);
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = SROCE_IPV4_HLEN / 4;
	iph->tos = sroce_cc_dsfield(av->tclass, pkt->ect);
	iph->tot_len = htons(SROCE_IPV4_HLEN + SROCE_UDP_HLEN + roce_len);
	/* DF set: an atomic datagram (RFC 6864) needs no ID. */
	iph->id = 0;
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ? av->hop_limit : ip4_dst_hoplimit(&rt->dst);
	iph->protocol = IPPROTO_UDP;
	iph->check = 0;		/* ip_local_out() computes it */
	iph->saddr = fl4.saddr;
	iph->daddr = fl4.daddr;

	err = sroce_fill(skb, pkt, &zc, false);
	if (err) {
		ip_rt_put(rt);
		kfree_skb(skb);
		return sroce_fill_failed(sdev, err);
	}

	/* IPv4 UDP checksum 0: the ICRC protects the packet end to end. */
	skb->ip_summed = CHECKSUM_NONE;
	skb->priority = rt_tos2priority(av->tclass);
	skb->protocol = htons(ETH_P_IP);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb_dst_set(skb, &rt->dst);
	sroce_route_confirm_skb(route, skb);
	if (!sroce_direct_xmit4(sdev, burst, skb, rt, &err))
		err = ip_local_out(net, NULL, skb);
	return sroce_xmit_done(sdev, err, roce_len, &zc);
}

#if IS_ENABLED(CONFIG_IPV6)
static struct dst_entry *sroce_route6(struct sroce_dev *sdev,
				      struct sroce_route *route,
				      struct flowi6 *fl6)
{
	struct dst_entry *dst = sroce_route_get(route);

	if (dst)
		return dst;
	dst = ip6_dst_lookup_flow(dev_net(sdev->ndev), NULL, fl6, NULL);
	if (IS_ERR(dst)) {
		sroce_count(sdev, SROCE_CTR_TX_NO_ROUTE, 1);
		return NULL;
	}
	sroce_route_set(route, dst,
			rt6_get_cookie(container_of(dst, struct rt6_info, dst)));
	return dst;
}

static int sroce_xmit6(struct sroce_dev *sdev, struct sroce_txq *txq,
		       struct sroce_net_burst *burst,
		       const struct sroce_av *av, u16 src_port,
		       struct sroce_route *route,
		       const struct sroce_tx_pkt *pkt, u32 roce_len)
{
	struct net *net = dev_net(sdev->ndev);
	__be32 label = htonl(av->flow_label) & IPV6_FLOWLABEL_MASK;
	struct flowi6 fl6 = {
		.flowi6_proto = IPPROTO_UDP,
		.daddr = av->daddr.v6,
		.saddr = av->saddr.v6,
		.flowlabel = ip6_make_flowinfo(av->tclass, label),
		.fl6_sport = htons(src_port),
		.fl6_dport = htons(SROCE_UDP_PORT),
	};
	struct dst_entry *dst;
	struct sroce_zc zc;
	struct ipv6hdr *ip6h;
	struct sk_buff *skb;
	int err;

	/*
	 * Link-local GIDs (the default fe80:: one) need the interface, and
	 * so does a group: every interface has a route to ff00::/8.
	 */
	if (ipv6_addr_type(&fl6.daddr) & IPV6_ADDR_LINKLOCAL ||
	    ipv6_addr_is_multicast(&fl6.daddr))
		fl6.flowi6_oif = sdev->ndev->ifindex;
	dst = sroce_route6(sdev, route, &fl6);
	if (!dst)
		return 0;
	sroce_zc_plan(pkt, dst->dev, true, &zc);
	skb = sroce_alloc_skb(dst, SROCE_IPV6_HLEN, txq, pkt, &zc, roce_len);
	if (!skb) {
		dst_release(dst);
		sroce_count(sdev, SROCE_CTR_TX_NO_MEM, 1);
		return -ENOBUFS;
	}
	udp_hdr(skb)->source = htons(src_port);

	ip6h = skb_push(skb, SROCE_IPV6_HLEN);
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, sroce_cc_dsfield(av->tclass, pkt->ect), label);
	ip6h->payload_len = htons(SROCE_UDP_HLEN + roce_len);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ? av->hop_limit :
					  ip6_dst_hoplimit(dst);
	ip6h->saddr = fl6.saddr;
	ip6h->daddr = fl6.daddr;

	err = sroce_fill(skb, pkt, &zc, true);
	if (err) {
		dst_release(dst);
		kfree_skb(skb);
		return sroce_fill_failed(sdev, err);
	}

	/*
	 * IPv6 UDP checksum computed (offloaded where the NIC can): RFC 8200
	 * asks for it, and a receiver that refuses zero checksums then still
	 * takes our packets.  The ICRC masks the field, so it can be filled
	 * in after the ICRC.
	 */
	skb->ip_summed = CHECKSUM_NONE;
	udp6_set_csum(false, skb, &ip6h->saddr, &ip6h->daddr,
		      SROCE_UDP_HLEN + roce_len);
	skb->priority = rt_tos2priority(av->tclass);
	skb->protocol = htons(ETH_P_IPV6);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb_dst_set(skb, dst);
	sroce_route_confirm_skb(route, skb);
	if (!sroce_direct_xmit6(sdev, burst, skb, dst, &err))
		err = ip6_local_out(net, NULL, skb);
	return sroce_xmit_done(sdev, err, roce_len, &zc);
}
#endif

int sroce_net_xmit(struct sroce_dev *sdev, struct sroce_txq *txq,
		   struct sroce_net_burst *burst, const struct sroce_av *av,
		   u16 src_port, struct sroce_route *route,
		   const struct sroce_tx_pkt *pkt)
{
	u32 roce_len = pkt->hdr_len + pkt->paylen + pkt->pad + SROCE_ICRC_LEN;

	if (!sroce_txq_admit(txq))
		return -EAGAIN;

	if (av->family == AF_INET)
		return sroce_xmit4(sdev, txq, burst, av, src_port, route,
				   pkt, roce_len);
#if IS_ENABLED(CONFIG_IPV6)
	if (av->family == AF_INET6)
		return sroce_xmit6(sdev, txq, burst, av, src_port, route,
				   pkt, roce_len);
#endif
	sroce_count(sdev, SROCE_CTR_TX_NO_ROUTE, 1);
	return 0;
}
