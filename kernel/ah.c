// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles, and the address vector (struct sroce_av) every QP and
 * UD send is routed on.
 *
 * Every AH, user or kernel, gets a number in sdev->ahs; a UD send names
 * its AH by that number only.  The xarray holds a copy of the AV, not the
 * ib_ah: ib_core frees the ib_ah as soon as a (possibly non-sleepable)
 * destroy_ah returns, while the data path may still be looking the number
 * up under RCU.  The copy goes with kfree_rcu().
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"

#define SROCE_FLOW_LABEL_MASK	0xfffff	/* 20 bits */

struct sroce_ah_entry {
	struct sroce_av		av;
	struct ib_pd		*pd;
	struct rcu_head		rcu;
};

static void sroce_gid_to_addr(const union ib_gid *gid, u8 family,
			      union sroce_addr *addr)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (family == AF_INET)
		addr->v4 = a->s6_addr32[3];
	else
		addr->v6 = *a;
}

/* The inverse: an IPv4 address becomes ::ffff:a.b.c.d. */
void sroce_addr_to_gid(u8 family, const union sroce_addr *addr, u8 *gid)
{
	if (family == AF_INET)
		ipv6_addr_set_v4mapped(addr->v4, (struct in6_addr *)gid);
	else
		memcpy(gid, &addr->v6, sizeof(addr->v6));
}

int sroce_av_from_attr(struct sroce_dev *sdev,
		       const struct rdma_ah_attr *attr, struct sroce_av *av)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid;
	bool dv4, sv4;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid = grh->sgid_attr;
	/* Only RoCE v2 exists here: no v1 GIDs are in our table. */
	if (!sgid || sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	switch (rdma_gid_attr_network_type(sgid)) {
	case RDMA_NETWORK_IPV4:
		av->family = AF_INET;
		break;
	case RDMA_NETWORK_IPV6:
		av->family = AF_INET6;
		break;
	default:
		return -EINVAL;
	}
	/* Both ends of a packet are of one family. */
	dv4 = ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);
	sv4 = av->family == AF_INET;
	if (dv4 != sv4)
		return -EINVAL;

	sroce_gid_to_addr(&sgid->gid, av->family, &av->saddr);
	sroce_gid_to_addr(&grh->dgid, av->family, &av->daddr);
	av->tclass = grh->traffic_class;
	/*
	 * ib_core fills the hop limit from the route when it resolves the
	 * destination MAC; a caller that leaves it 0 gets what an IP stack
	 * would use rather than packets that die at the first hop.
	 */
	av->hop_limit = grh->hop_limit ? grh->hop_limit :
					 SROCE_DEFAULT_HOP_LIMIT;
	av->flow_label = grh->flow_label & SROCE_FLOW_LABEL_MASK;
	av->sl = rdma_ah_get_sl(attr);
	av->sgid_index = grh->sgid_index;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	return 0;
}

int sroce_ah_get_av(struct sroce_dev *sdev, struct ib_pd *pd, u32 ah_num,
		    struct sroce_av *av)
{
	const struct sroce_ah_entry *e;
	int err = -EINVAL;

	rcu_read_lock();
	e = xa_load(&sdev->ahs, ah_num);
	if (e && e->pd == pd) {
		*av = e->av;
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/*
 * Kernel callers may create and destroy AHs in atomic context, even with
 * interrupts off (the CM does under its locks), so a non-sleepable path
 * takes the xarray lock with irqsave and allocates atomically.
 */
static int sroce_ah_insert(struct sroce_dev *sdev, struct sroce_ah_entry *e,
			   u32 *num, bool sleepable)
{
	unsigned long flags;
	int err;

	if (sleepable)
		return xa_alloc_cyclic_bh(&sdev->ahs, num, e, xa_limit_32b,
					  &sdev->ah_next, GFP_KERNEL);
	xa_lock_irqsave(&sdev->ahs, flags);
	err = __xa_alloc_cyclic(&sdev->ahs, num, e, xa_limit_32b,
				&sdev->ah_next, GFP_ATOMIC);
	xa_unlock_irqrestore(&sdev->ahs, flags);
	return err;
}

static int sroce_create_ah(struct ib_ah *ibah,
			   struct rdma_ah_init_attr *init_attr,
			   struct ib_udata *udata)
{
	bool sleepable = init_attr->flags & RDMA_CREATE_AH_SLEEPABLE;
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct sroce_create_ah_resp resp = {};
	struct sroce_ah_entry *e;
	int err;

	if (sroce_udata_check(udata, sizeof(resp)))
		return -EINVAL;

	err = sroce_av_from_attr(sdev, init_attr->ah_attr, &ah->av);
	if (err)
		return err;
	err = sroce_obj_add(sdev, SROCE_OBJ_AH, udata);
	if (err)
		return err;
	e = kmalloc(sizeof(*e), udata ? GFP_KERNEL_ACCOUNT :
		    sleepable ? GFP_KERNEL : GFP_ATOMIC);
	if (!e) {
		err = -ENOMEM;
		goto err_obj;
	}
	e->av = ah->av;
	e->pd = ibah->pd;
	err = sroce_ah_insert(sdev, e, &ah->ah_num, sleepable);
	if (err < 0)
		goto err_free;

	if (udata) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_erase;
	}
	return 0;

err_erase:
	/* The number was visible for a moment: free the copy after RCU. */
	xa_erase_bh(&sdev->ahs, ah->ah_num);
	kfree_rcu(e, rcu);
	goto err_obj;
err_free:
	kfree(e);
err_obj:
	sroce_obj_del(sdev, SROCE_OBJ_AH);
	return err;
}

static int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct sroce_ah_entry *e;
	unsigned long irqflags;

	xa_lock_irqsave(&sdev->ahs, irqflags);
	e = __xa_erase(&sdev->ahs, ah->ah_num);
	xa_unlock_irqrestore(&sdev->ahs, irqflags);
	if (!WARN_ON_ONCE(!e))
		kfree_rcu(e, rcu);
	sroce_obj_del(sdev, SROCE_OBJ_AH);
	return 0;
}

static int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	const struct sroce_av *av = &to_sah(ibah)->av;
	union ib_gid dgid;

	if (av->family == AF_INET)
		ipv6_addr_set_v4mapped(av->daddr.v4,
				       (struct in6_addr *)dgid.raw);
	else
		memcpy(dgid.raw, &av->daddr.v6, sizeof(dgid.raw));

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, SROCE_PORT);
	rdma_ah_set_sl(attr, av->sl);
	rdma_ah_set_grh(attr, &dgid, av->flow_label, av->sgid_index,
			av->hop_limit, av->tclass);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
	return 0;
}

const struct ib_device_ops sroce_ah_ops = {
	.create_ah = sroce_create_ah,
	/* uverbs offers create_ah only to devices that set this one. */
	SROCE_OPS_CREATE_USER_AH(sroce_create_ah)
	.destroy_ah = sroce_destroy_ah,
	.query_ah = sroce_query_ah,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
};
