// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast: attach_mcast/detach_mcast, the per-device group table,
 * the IGMP/MLD membership on the netdev that has the network (and the
 * local IP stack, for loopback) deliver a group's packets here, and the
 * receive fan-out of a multicast packet to every QP attached to its
 * group.  What a multicast packet must look like is the core's
 * (proto/mcast.h).  Documentation/verbs-objects.rst, "Multicast groups".
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/jhash.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include "kqp.h"
#include "proto/mcast.h"

/* One group: its GID and the QPs attached to it. */
struct sroce_mcg {
	struct hlist_node	node;	/* in sroce_mcast.hash, RCU */
	union ib_gid		gid;
	struct list_head	qps;	/* struct sroce_mca, RCU */
	u32			nqp;
	struct rcu_head		rcu;
};

/* One QP's attachment to one group. */
struct sroce_mca {
	struct list_head	node;	/* in sroce_mcg.qps, RCU */
	struct sroce_kqp	*kqp;
	struct rcu_head		rcu;
};

void sroce_mcast_init(struct sroce_dev *sdev)
{
	struct sroce_mcast *t = &sdev->mcast;
	int i;

	mutex_init(&t->lock);
	for (i = 0; i < ARRAY_SIZE(t->hash); i++)
		INIT_HLIST_HEAD(&t->hash[i]);
}

static struct hlist_head *sroce_mcg_bucket(struct sroce_mcast *t,
					   const u8 *gid)
{
	u32 h = jhash(gid, SROCE_GID_LEN, 0);

	return &t->hash[h & (ARRAY_SIZE(t->hash) - 1)];
}

/* Under t->lock or RCU. */
static struct sroce_mcg *sroce_mcg_find(struct sroce_mcast *t, const u8 *gid)
{
	struct sroce_mcg *g;

	hlist_for_each_entry_rcu(g, sroce_mcg_bucket(t, gid), node,
				 lockdep_is_held(&t->lock))
		if (!memcmp(g->gid.raw, gid, SROCE_GID_LEN))
			return g;
	return NULL;
}

static struct sroce_mca *sroce_mca_find(struct sroce_mcg *g,
					struct sroce_kqp *kqp)
{
	struct sroce_mca *a;

	list_for_each_entry(a, &g->qps, node)
		if (a->kqp == kqp)
			return a;
	return NULL;
}

/*
 * Join or leave the group on the netdev: IGMP for an IPv4-mapped GID,
 * MLD for an IPv6 one.  The IP layer counts joins, adds the link-layer
 * filter (dev_mc_add) and sends the reports a switch snoops; membership
 * also makes the local stack loop our own sends back (ip_mc_output()).
 */
static int sroce_mcg_netdev(struct sroce_dev *sdev, const union ib_gid *gid,
			    bool join)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;
	struct net_device *ndev = sdev->ndev;
	struct in_device *in_dev;
	int err = 0;

	rtnl_lock();
	if (ipv6_addr_v4mapped(a)) {
		in_dev = __in_dev_get_rtnl(ndev);
		if (!in_dev)
			err = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, a->s6_addr32[3]);
		else
			ip_mc_dec_group(in_dev, a->s6_addr32[3]);
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		err = join ? ipv6_dev_mc_inc(ndev, a) :
			     ipv6_dev_mc_dec(ndev, a);
	} else {
		err = -EAFNOSUPPORT;
	}
	rtnl_unlock();
	return err;
}

/* Under t->lock: drop one attachment, and the group with its last. */
static void sroce_mca_del(struct sroce_dev *sdev, struct sroce_mcg *g,
			  struct sroce_mca *a)
{
	struct sroce_mcast *t = &sdev->mcast;

	list_del_rcu(&a->node);
	WRITE_ONCE(a->kqp->nmcast, a->kqp->nmcast - 1);
	kfree_rcu(a, rcu);
	t->nattach--;
	if (--g->nqp)
		return;
	hlist_del_rcu(&g->node);
	t->ngrp--;
	sroce_mcg_netdev(sdev, &g->gid, false);
	kfree_rcu(g, rcu);
}

/*
 * ib_core (kernel consumers) and uverbs call this; uverbs itself answers
 * a repeated attach by a process without calling us.  For a kernel
 * consumer a repeated attach is a no-op that returns 0, as on rdma_rxe:
 * one detach then ends it.
 */
static int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_kqp *kqp = to_kqp(ibqp);
	struct sroce_dev *sdev = kqp->sdev;
	struct sroce_mcast *t = &sdev->mcast;
	struct sroce_mcg *g, *ng = NULL;
	struct sroce_mca *a;
	int err = 0;

	/* GSI included: QP1 is ib_mad's and has no multicast. */
	if (ibqp->qp_type != IB_QPT_UD || !sroce_gid_is_mcast(gid->raw))
		return -EINVAL;

	mutex_lock(&t->lock);
	g = sroce_mcg_find(t, gid->raw);
	if (g && sroce_mca_find(g, kqp))
		goto out;
	if (t->nattach >= SROCE_MAX_TOTAL_MCAST_QP_ATTACH ||
	    (g && g->nqp >= SROCE_MAX_MCAST_QP_ATTACH) ||
	    (!g && t->ngrp >= SROCE_MAX_MCAST_GRP)) {
		err = -ENOMEM;
		goto out;
	}
	/* Charged to the caller's memory cgroup, as every verbs object. */
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a) {
		err = -ENOMEM;
		goto out;
	}
	if (!g) {
		ng = kzalloc(sizeof(*ng), GFP_KERNEL_ACCOUNT);
		if (!ng) {
			kfree(a);
			err = -ENOMEM;
			goto out;
		}
		ng->gid = *gid;
		INIT_LIST_HEAD(&ng->qps);
		err = sroce_mcg_netdev(sdev, gid, true);
		if (err) {
			kfree(ng);
			kfree(a);
			goto out;
		}
		hlist_add_head_rcu(&ng->node, sroce_mcg_bucket(t, gid->raw));
		t->ngrp++;
		g = ng;
	}
	a->kqp = kqp;
	list_add_tail_rcu(&a->node, &g->qps);
	g->nqp++;
	t->nattach++;
	WRITE_ONCE(kqp->nmcast, kqp->nmcast + 1);
out:
	mutex_unlock(&t->lock);
	return err;
}

static int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_kqp *kqp = to_kqp(ibqp);
	struct sroce_dev *sdev = kqp->sdev;
	struct sroce_mcast *t = &sdev->mcast;
	struct sroce_mca *a = NULL;
	struct sroce_mcg *g;

	mutex_lock(&t->lock);
	g = sroce_mcg_find(t, gid->raw);
	if (g)
		a = sroce_mca_find(g, kqp);
	if (a)
		sroce_mca_del(sdev, g, a);
	mutex_unlock(&t->lock);
	return a ? 0 : -EINVAL;
}

/*
 * destroy_qp: leave every group, before the grace period after which the
 * QP is freed, so no fan-out still finds it then.
 */
void sroce_mcast_qp_leave_all(struct sroce_kqp *kqp)
{
	struct sroce_dev *sdev = kqp->sdev;
	struct sroce_mcast *t = &sdev->mcast;
	struct hlist_node *tmp;
	struct sroce_mca *a;
	struct sroce_mcg *g;
	int i;

	/*
	 * Nothing attaches a QP being destroyed, so a QP in no group (most
	 * of them) need not queue behind the device's attach/detach.
	 */
	if (!READ_ONCE(kqp->nmcast))
		return;
	mutex_lock(&t->lock);
	for (i = 0; i < ARRAY_SIZE(t->hash) && kqp->nmcast; i++) {
		hlist_for_each_entry_safe(g, tmp, &t->hash[i], node) {
			a = sroce_mca_find(g, kqp);
			if (a)
				sroce_mca_del(sdev, g, a);
		}
	}
	mutex_unlock(&t->lock);
}

/*
 * dealloc_driver: every QP was destroyed, and with it every attachment;
 * this only makes sure no membership outlives the device.
 */
void sroce_mcast_cleanup(struct sroce_dev *sdev)
{
	struct sroce_mcast *t = &sdev->mcast;
	struct sroce_mca *a, *an;
	struct hlist_node *tmp;
	struct sroce_mcg *g;
	int i;

	mutex_lock(&t->lock);
	for (i = 0; i < ARRAY_SIZE(t->hash); i++) {
		hlist_for_each_entry_safe(g, tmp, &t->hash[i], node) {
			list_for_each_entry_safe(a, an, &g->qps, node)
				sroce_mca_del(sdev, g, a);
		}
	}
	mutex_unlock(&t->lock);
	mutex_destroy(&t->lock);
}

bool sroce_mcast_has_group(struct sroce_dev *sdev, const u8 *gid)
{
	bool found;

	rcu_read_lock();
	found = sroce_mcg_find(&sdev->mcast, gid);
	rcu_read_unlock();
	return found;
}

/*
 * One copy per attached QP, each through the QP's own checks (state,
 * Q_Key) and into its own receive WQE.  The list holds at most
 * SROCE_MAX_MCAST_QP_ATTACH entries, and an RCU list walk meets each
 * entry at most once even while QPs attach and detach.
 */
enum sroce_drop sroce_mcast_deliver(struct sroce_dev *sdev,
				    const struct sroce_pkt *pkt,
				    struct sroce_rx *rx, u32 roce_len)
{
	struct sroce_mca *a;
	struct sroce_mcg *g;
	enum sroce_drop why;

	g = sroce_mcg_find(&sdev->mcast, pkt->dgid);
	if (!g)
		return SROCE_DROP_UNKNOWN_QP;
	list_for_each_entry_rcu(a, &g->qps, node) {
		if (sroce_mcast_skip_self(pkt, a->kqp->ibqp.qp_num,
					  a->kqp->mcast_block_self,
					  rx->looped))
			continue;
		why = sroce_kqp_deliver_to(a->kqp, pkt, rx);
		if (why) {
			sroce_count_drop(sdev, why);
			continue;
		}
		sroce_count(sdev, SROCE_CTR_RX_PACKETS, 1);
		sroce_count(sdev, SROCE_CTR_RX_BYTES, roce_len);
	}
	return SROCE_DROP_NONE;
}

const struct ib_device_ops sroce_mcast_ops = {
	.attach_mcast = sroce_attach_mcast,
	.detach_mcast = sroce_detach_mcast,
};
