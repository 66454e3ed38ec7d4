// SPDX-License-Identifier: GPL-2.0
/*
 * Direct transmit: the IP output path of a RoCE packet net.c has built,
 * route and IP header included, without the steps that have nothing to do
 * for it.  The netfilter hooks run as in ip_local_out() and the neighbour
 * supplies the link header; then, where the device queue is idle, a QP's
 * packets go to the driver in bursts with xmit_more, past
 * __dev_queue_xmit() and its qdisc, so that the device is notified once
 * per burst.  Documentation/net.rst, "Direct transmit", lists each case
 * that goes the stack's way instead.
 *
 * A NIC's RoCE engine skips the host's stack altogether; here only what
 * nothing is configured to use is skipped: netfilter rules, tc filters,
 * a qdisc attached with tc (netem, tbf), IPsec, lightweight tunnels and
 * VRFs see every packet as before.
 */
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <net/dst.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ndisc.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <net/sch_generic.h>
#include <net/sock.h>

#include "sroce.h"

static bool tx_direct = true;
module_param(tx_direct, bool, 0644);
MODULE_PARM_DESC(tx_direct, "Hand packets to the driver in bursts, past the qdisc, when no tc hook or qdisc of the admin's would see them");

/*
 * The queue's qdisc is one the kernel attached by itself (noqueue, or the
 * default one, fq_codel or pfifo_fast, with handle 0: tc always gives a
 * qdisc a major number) and holds nothing: it would pass the packet on at
 * once.  One attached with tc is never skipped, not even of the default's
 * kind, and a non-empty one keeps this QP's packets in order behind its
 * own.  A device that is down has noop_qdisc, which drops.
 */
static bool sroce_qdisc_idle(const struct Qdisc *q)
{
	if (!q->enqueue)
		return true;
	if (TC_H_MAJ(q->handle) ||
	    (q->ops != default_qdisc_ops && q->ops != &pfifo_fast_ops))
		return false;
	return qdisc_is_empty(q);
}

/*
 * Packets of one burst at most: the first waits for the others to be
 * built, and the driver's ring and the device's TX room
 * (SROCE_TX_ROOM_HIGH) are shared with the other QPs.
 */
#define SROCE_NET_BURST		16

/*
 * @skb, a list of packets for @txq, to its driver under one lock, with
 * xmit_more on all but the last, so that it notifies the device once
 * (virtio-net: one kick).  Taps such as tcpdump see each one first.
 * Whatever a stopped queue or the driver does not take goes to the qdisc,
 * which holds it, and the packets after it while it is not empty.
 */
static int sroce_direct_run(struct sroce_dev *sdev, struct netdev_queue *txq,
			    struct sk_buff *skb)
{
	struct net_device *dev = txq->dev;
	netdev_tx_t rc = NETDEV_TX_OK;
	unsigned int sent = 0;
	struct sk_buff *next;

	HARD_TX_LOCK(dev, txq, smp_processor_id());
	for (; skb; skb = next) {
		/* Stopped by the driver or by its byte queue limit (BQL). */
		if (netif_xmit_frozen_or_stopped(txq))
			break;
		next = skb->next;
		skb_mark_not_on_list(skb);
		if (dev_nit_active(dev))
			dev_queue_xmit_nit(skb, dev);
		rc = netdev_start_xmit(skb, dev, txq, !!next);
		if (!dev_xmit_complete(rc)) {
			skb->next = next;
			break;
		}
		sent++;
	}
	HARD_TX_UNLOCK(dev, txq);
	if (sdev && sent)
		sroce_count(sdev, SROCE_CTR_TX_DIRECT, sent);
	for (; skb; skb = next) {
		next = skb->next;
		skb_mark_not_on_list(skb);
		rc = dev_queue_xmit(skb);
	}
	return rc;
}

void sroce_net_flush(struct sroce_dev *sdev, struct sroce_net_burst *burst)
{
	struct sk_buff *skb = burst ? burst->head : NULL;

	if (!skb)
		return;
	burst->head = NULL;
	burst->n = 0;
	sroce_direct_run(sdev, burst->txq, skb);
}

/*
 * The device layer's turn, @skb complete with its link header.  The queue
 * is the one dev_queue_xmit() would pick on this CPU (netdev_pick_tx():
 * XPS, else the flow hash), so a packet that falls back to it meets the
 * same qdisc.  dev_queue_xmit() takes the packet when a tc or netfilter
 * egress hook, traffic classes (mqprio, DCB: their priority to queue map)
 * or a busy qdisc is there, or when the driver chooses queues itself.
 * With @burst the packet joins it (after the packets already there for
 * another queue have gone), else it goes at once.  A packet that goes
 * any other way than into @burst sends the burst first, here and in every
 * caller: one QP's packets stay in order.  Returns the NET_XMIT code,
 * success for a packet held.
 */
static int sroce_direct_send(struct sroce_dev *sdev,
			     struct sroce_net_burst *burst, struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	struct netdev_queue *txq;
	bool again = false;
	u16 qi = 0;

	if (dev->netdev_ops->ndo_select_queue || netdev_get_num_tc(dev) ||
	    sroce_dev_egress_hooked(dev)) {
		sroce_net_flush(sdev, burst);
		return dev_queue_xmit(skb);
	}
	if (dev->real_num_tx_queues > 1)
		qi = netdev_pick_tx(dev, skb, NULL);
	txq = netdev_get_tx_queue(dev, qi);
	if (burst && burst->head && burst->txq != txq)
		sroce_net_flush(sdev, burst);
	/* A packet behind a held burst follows it; the qdisc is not ahead. */
	if ((!burst || !burst->head) &&
	    !sroce_qdisc_idle(rcu_dereference_bh(txq->qdisc))) {
		sroce_net_flush(sdev, burst);
		return dev_queue_xmit(skb);
	}
	skb_set_queue_mapping(skb, qi);
	if (dev->priv_flags & IFF_XMIT_DST_RELEASE)
		skb_dst_drop(skb);
	else
		skb_dst_force(skb);
	/* Checksum, fragment and feature fix-ups the driver may need. */
	skb = validate_xmit_skb_list(skb, dev, &again);
	if (!skb)
		return NET_XMIT_DROP;
	if (!burst)
		return sroce_direct_run(sdev, txq, skb);
	if (burst->head)
		burst->tail->next = skb;
	else
		burst->head = skb;
	burst->tail = skb;
	while (burst->tail->next)	/* segments, were it ever GSO */
		burst->tail = burst->tail->next;
	burst->txq = txq;
	if (++burst->n == SROCE_NET_BURST)
		sroce_net_flush(sdev, burst);
	return NET_XMIT_SUCCESS;
}

/*
 * The neighbour's cached link header, pushed onto @skb as
 * neigh_hh_output() does; false if it is not resolved or not cached.
 */
static bool sroce_direct_push_hh(struct sk_buff *skb, struct neighbour *n)
{
	struct hh_cache *hh = &n->hh;
	unsigned int seq, hh_len, hh_alen;

	if (!(READ_ONCE(n->nud_state) & NUD_VALID))
		return false;
	do {
		seq = read_seqbegin(&hh->hh_lock);
		hh_len = READ_ONCE(hh->hh_len);
		if (!hh_len)
			return false;
		hh_alen = HH_DATA_ALIGN(hh_len);
		if (hh_alen > sizeof(hh->hh_data) ||
		    skb_headroom(skb) < hh_alen)
			return false;
		memcpy(skb->data - hh_alen, hh->hh_data, hh_alen);
	} while (read_seqretry(&hh->hh_lock, seq));
	__skb_push(skb, hh_len);
	skb_reset_mac_header(skb);
	return true;
}

/*
 * After the POST_ROUTING hooks, as ip_finish_output2() and
 * ip6_finish_output2(): a neighbour that is not resolved or cached goes
 * through neigh_output(), which resolves it and queues the packet.  One
 * whose address is known but not recently confirmed (STALE, DELAY,
 * PROBE) is used as neigh_resolve_output() uses it, after
 * neigh_event_send() has moved its state on (STALE to DELAY, a probe
 * later).  @sdev NULL: a packet a hook queued and gave back later, not
 * counted.
 */
static int sroce_direct_neigh(struct sroce_dev *sdev,
			      struct sroce_net_burst *burst, struct sk_buff *skb,
			      struct neighbour *n, bool v6gw)
{
	u8 nud;

	if (IS_ERR_OR_NULL(n)) {
		/* Dropped, as ip_finish_output2() does; the timers recover. */
		kfree_skb(skb);
		return -EINVAL;
	}
	sock_confirm_neigh(skb, n);	/* sroce_route_confirm() asked */
	nud = READ_ONCE(n->nud_state);
	/*
	 * Nonzero: the neighbour died or lost its address meanwhile, and
	 * queued @skb for resolution or dropped it; later packets find it
	 * unresolved and queue behind it.
	 */
	if (!v6gw && (nud & NUD_VALID) && !(nud & NUD_CONNECTED) &&
	    neigh_event_send(n, skb))
		return 0;
	if (v6gw || !sroce_direct_push_hh(skb, n)) {
		sroce_net_flush(sdev, burst);
		return neigh_output(n, skb, v6gw);
	}
	return sroce_direct_send(sdev, burst, skb);
}

/*
 * After POST_ROUTING, as __ip_finish_output(): a source NAT whose policy
 * lookup found IPsec gave the packet an xfrm route, which the stack's
 * output takes from here.  The same in sroce_direct_finish6().
 */
static int sroce_direct_finish4(struct sroce_dev *sdev,
				struct sroce_net_burst *burst,
				struct sk_buff *skb)
{
	bool v6gw = false;

	if (unlikely(dst_xfrm(skb_dst(skb)))) {
		sroce_net_flush(sdev, burst);
		IPCB(skb)->flags |= IPSKB_REROUTED;
		return dst_output(dev_net(skb->dev), NULL, skb);
	}
	return sroce_direct_neigh(sdev, burst, skb,
				  ip_neigh_for_gw(skb_rtable(skb), skb, &v6gw),
				  v6gw);
}

#if IS_ENABLED(CONFIG_IPV6)
static int sroce_direct_finish6(struct sroce_dev *sdev,
				struct sroce_net_burst *burst,
				struct sk_buff *skb)
{
	struct dst_entry *dst = skb_dst(skb);
	const struct in6_addr *nh;
	struct neighbour *n;

	if (unlikely(dst_xfrm(dst))) {
		sroce_net_flush(sdev, burst);
		IP6CB(skb)->flags |= IP6SKB_REROUTED;
		return dst_output(dev_net(skb->dev), NULL, skb);
	}
	nh = rt6_nexthop(container_of(dst, struct rt6_info, dst),
			 &ipv6_hdr(skb)->daddr);
	n = __ipv6_neigh_lookup_noref(dst->dev, nh);
	if (!n)
		n = __neigh_create(&nd_tbl, nh, dst->dev, false);
	return sroce_direct_neigh(sdev, burst, skb, n, false);
}
#endif

static int sroce_direct_finish(struct sroce_dev *sdev,
			       struct sroce_net_burst *burst,
			       struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (skb->protocol == htons(ETH_P_IPV6))
		return sroce_direct_finish6(sdev, burst, skb);
#endif
	return sroce_direct_finish4(sdev, burst, skb);
}

/*
 * okfn of a packet a POST_ROUTING hook queued and gave back.  Module
 * exit waits for every packet charged to a device (tx_room.c), this one
 * too, so the function outlives the packets that point to it.
 */
static int sroce_direct_late(struct net *net, struct sock *sk,
			     struct sk_buff *skb)
{
	int rc;

	rcu_read_lock_bh();
	rc = sroce_direct_finish(NULL, NULL, skb);
	rcu_read_unlock_bh();
	return rc;
}

/*
 * ip_local_out() and then ip_output() for @skb of protocol family @pf
 * (ip6_local_out() and ip6_output()): each netfilter hook may drop,
 * queue or reroute the packet, and what it queues or reroutes continues
 * the stack's way.  Returns the NET_XMIT code or a hook's errno.
 */
static int sroce_direct_output(struct sroce_dev *sdev,
			       struct sroce_net_burst *burst,
			       struct sk_buff *skb, u8 pf)
{
	struct dst_entry *dst = skb_dst(skb);
	struct net_device *dev = dst->dev;
	struct net *net = dev_net(dev);
	int rc;

	skb->dev = dev;
	rcu_read_lock_bh();
	rc = nf_hook(pf, NF_INET_LOCAL_OUT, net, NULL, skb, NULL, dev,
		     dst_output);
	if (rc != 1)
		goto out;
	if (skb_dst(skb) != dst) {
		/* A hook routed it again (mangle, NAT): the stack's way. */
		sroce_net_flush(sdev, burst);
		rc = dst_output(net, NULL, skb);
		goto out;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (pf == NFPROTO_IPV6)
		IP6_UPD_PO_STATS(net, ip6_dst_idev(dst), IPSTATS_MIB_OUT,
				 skb->len);
	else
#endif
		IP_UPD_PO_STATS(net, IPSTATS_MIB_OUT, skb->len);
	rc = nf_hook(pf, NF_INET_POST_ROUTING, net, NULL, skb, NULL, dev,
		     sroce_direct_late);
	if (rc == 1)
		rc = sroce_direct_finish(sdev, burst, skb);
out:
	rcu_read_unlock_bh();
	return rc;
}

/*
 * The IP output path's conditions: the QP's own netdev, a plain unicast
 * route (no IPsec, lightweight tunnel or VRF, which have their own output
 * functions), and a packet within the route's MTU (the stack refuses
 * larger ones with DF set; a RoCE packet is never fragmented).
 */
static bool sroce_direct_route_ok(const struct sroce_dev *sdev,
				  const struct sk_buff *skb,
				  const struct dst_entry *dst)
{
	return dst->dev == sdev->ndev && !netif_is_l3_slave(dst->dev) &&
	       !dst_xfrm(dst) && !dst->lwtstate &&
	       skb->len <= dst_mtu(dst);
}

/*
 * @skb: built by net.c, its IPv4 header complete but for the checksum,
 * @rt attached.  True if its way out was taken here, with the NET_XMIT
 * code (or a netfilter verdict's errno) in @rc; false: send it through
 * ip_local_out(), @skb unchanged.
 */
bool sroce_direct_xmit4(struct sroce_dev *sdev, struct sroce_net_burst *burst,
			struct sk_buff *skb, struct rtable *rt, int *rc)
{
	if (!READ_ONCE(tx_direct) || rt->rt_type != RTN_UNICAST ||
	    !sroce_direct_route_ok(sdev, skb, &rt->dst)) {
		sroce_net_flush(sdev, burst);
		return false;
	}
	ip_send_check(ip_hdr(skb));
	skb->protocol = htons(ETH_P_IP);
	*rc = sroce_direct_output(sdev, burst, skb, NFPROTO_IPV4);
	return true;
}

#if IS_ENABLED(CONFIG_IPV6)
/* As sroce_direct_xmit4(), for a complete IPv6 packet, @dst attached. */
bool sroce_direct_xmit6(struct sroce_dev *sdev, struct sroce_net_burst *burst,
			struct sk_buff *skb, struct dst_entry *dst, int *rc)
{
	struct inet6_dev *idev = ip6_dst_idev(dst);

	/* IPv6 turned off on the device: ip6_output() drops it. */
	if (!READ_ONCE(tx_direct) || !idev ||
	    READ_ONCE(idev->cnf.disable_ipv6) ||
	    ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr) ||
	    !sroce_direct_route_ok(sdev, skb, dst)) {
		sroce_net_flush(sdev, burst);
		return false;
	}
	skb->protocol = htons(ETH_P_IPV6);
	*rc = sroce_direct_output(sdev, burst, skb, NFPROTO_IPV6);
	return true;
}
#endif
