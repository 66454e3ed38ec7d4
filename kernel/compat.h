/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels sroce builds against (5.10, 6.1,
 * 6.12 and 7.3; Documentation/install.rst) is absorbed here, so that the
 * .c files are written against one API, the newest.  A shim is keyed on
 * LINUX_VERSION_CODE where the release that changed is known, else on a
 * SROCE_HAVE_* probe of the kernel's headers (kernel/Kbuild): distribution
 * kernels backport, and a version number would lie for them.
 *
 * Where an ops member or a type differs, the .c files use the name given
 * here (sroce_port_num_t, SROCE_OPS_*()); everywhere else they call the
 * newest function, which this file provides on older kernels.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/version.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * 6.11 passes create_cq the uverbs attribute bundle instead of the udata.
 * Declare the op's third argument as "struct sroce_create_cq_arg *" and
 * get the udata with sroce_create_cq_udata().  Kernel callers pass NULL.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define sroce_create_cq_arg	uverbs_attr_bundle
static inline struct ib_udata *
sroce_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define sroce_create_cq_arg	ib_udata
static inline struct ib_udata *sroce_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/* 5.13 made port numbers u32 in every op; they were u8. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 13, 0)
typedef u32 sroce_port_num_t;
#else
typedef u8 sroce_port_num_t;
#endif

/*
 * 5.15 allocates the QP in ib_core (INIT_RDMA_OBJ_SIZE) and frees it after
 * destroy_qp.  Before, create_qp allocated and returned it and destroy_qp
 * freed it: compat.c wraps sroce's two ops that way.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 15, 0)
#define SROCE_OPS_QP(create, destroy, drv_struct, member)		\
	.create_qp = (create),						\
	.destroy_qp = (destroy),					\
	INIT_RDMA_OBJ_SIZE(ib_qp, drv_struct, member),
#else
struct ib_qp *sroce_compat_create_qp(struct ib_pd *pd,
				     struct ib_qp_init_attr *init,
				     struct ib_udata *udata);
int sroce_compat_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
#define SROCE_OPS_QP(create, destroy, drv_struct, member)		\
	.create_qp = sroce_compat_create_qp,				\
	.destroy_qp = sroce_compat_destroy_qp,
#endif

/*
 * Not in 5.10: create_user_ah (uverbs then calls create_ah for user AHs
 * too) and resize_user_cq (7.x; resize_cq before, for kernel CQs too).
 */
#ifdef SROCE_HAVE_CREATE_USER_AH
#define SROCE_OPS_CREATE_USER_AH(fn)	.create_user_ah = (fn),
#else
#define SROCE_OPS_CREATE_USER_AH(fn)
#endif

#ifdef SROCE_HAVE_RESIZE_USER_CQ
typedef unsigned int sroce_cqe_num_t;
#define SROCE_OPS_RESIZE_CQ(fn)		.resize_user_cq = (fn),
#else
typedef int sroce_cqe_num_t;
#define SROCE_OPS_RESIZE_CQ(fn)		.resize_cq = (fn),
#endif

/*
 * Newer cores (7.x) turn netdev events into port events themselves unless
 * the driver has report_port_event: sroce's would be reported twice.
 */
#ifdef SROCE_HAVE_REPORT_PORT_EVENT
#define SROCE_OPS_REPORT_PORT_EVENT(fn)	.report_port_event = (fn),
#else
#define SROCE_OPS_REPORT_PORT_EVENT(fn)
#endif

/*
 * The hw counters.  5.10 has one alloc_hw_stats op (port 0 asks for the
 * device's own, which sroce then has too) and names the counters by a
 * plain string array, which rdma_alloc_hw_stats_struct() here lays out
 * behind the values, freed with them.
 */
#ifdef SROCE_HAVE_RDMA_STAT_DESC
#define SROCE_OPS_ALLOC_HW_PORT_STATS(fn)	.alloc_hw_port_stats = (fn),
#else
#define SROCE_OPS_ALLOC_HW_PORT_STATS(fn)	.alloc_hw_stats = (fn),
struct rdma_stat_desc {
	const char *name;
};

static inline struct rdma_hw_stats *
sroce_compat_alloc_hw_stats(const struct rdma_stat_desc *descs, int num,
			    unsigned long lifespan)
{
	struct rdma_hw_stats *stats;
	const char **names;
	int i;

	stats = kzalloc(struct_size(stats, value, num) + num * sizeof(*names),
			GFP_KERNEL);
	if (!stats)
		return NULL;
	names = (const char **)&stats->value[num];
	for (i = 0; i < num; i++)
		names[i] = descs[i].name;
	stats->names = names;
	stats->num_counters = num;
	stats->lifespan = msecs_to_jiffies(lifespan);
	return stats;
}

#define rdma_alloc_hw_stats_struct(descs, num, lifespan) \
	sroce_compat_alloc_hw_stats(descs, num, lifespan)
#endif

/*
 * The sysfs attributes of the device: an ops member where there is one
 * (not in 5.10), else rdma_set_device_sysfs_group().  Call it after the
 * last ib_set_device_ops().
 */
static inline void sroce_set_device_group(struct ib_device *ibdev,
					  const struct attribute_group *group)
{
#ifdef SROCE_HAVE_DEVICE_GROUP_OP
	ibdev->ops.device_group = group;
#else
	rdma_set_device_sysfs_group(ibdev, group);
#endif
}

/*
 * Since 5.11 ib_core enables each uverbs write command whose op the device
 * has; 5.10 enables only those in uverbs_cmd_mask, which drivers filled.
 * Fill it from the ops at registration, as the later cores decide.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define SROCE_CMD(op, cmd) \
	(dev->ops.op ? BIT_ULL(IB_USER_VERBS_CMD_##cmd) : 0)
static inline int sroce_compat_register_device(struct ib_device *dev,
					       const char *name,
					       struct device *dma_device)
{
	dev->uverbs_cmd_mask |=
		SROCE_CMD(alloc_ucontext, GET_CONTEXT) |
		SROCE_CMD(query_device, QUERY_DEVICE) |
		SROCE_CMD(query_port, QUERY_PORT) |
		SROCE_CMD(alloc_ucontext, CREATE_COMP_CHANNEL) |
		SROCE_CMD(alloc_pd, ALLOC_PD) |
		SROCE_CMD(dealloc_pd, DEALLOC_PD) |
		SROCE_CMD(alloc_mw, ALLOC_MW) |
		SROCE_CMD(dealloc_mw, DEALLOC_MW) |
		SROCE_CMD(attach_mcast, ATTACH_MCAST) |
		SROCE_CMD(detach_mcast, DETACH_MCAST) |
		SROCE_CMD(alloc_xrcd, OPEN_XRCD) |
		SROCE_CMD(dealloc_xrcd, CLOSE_XRCD) |
		SROCE_CMD(create_ah, CREATE_AH) |
		SROCE_CMD(destroy_ah, DESTROY_AH) |
		SROCE_CMD(create_cq, CREATE_CQ) |
		SROCE_CMD(resize_cq, RESIZE_CQ) |
		SROCE_CMD(destroy_cq, DESTROY_CQ) |
		SROCE_CMD(create_qp, CREATE_QP) |
		SROCE_CMD(modify_qp, MODIFY_QP) |
		SROCE_CMD(query_qp, QUERY_QP) |
		SROCE_CMD(destroy_qp, DESTROY_QP) |
		SROCE_CMD(create_srq, CREATE_SRQ) |
		SROCE_CMD(create_srq, CREATE_XSRQ) |
		SROCE_CMD(create_qp, OPEN_QP) |
		SROCE_CMD(modify_srq, MODIFY_SRQ) |
		SROCE_CMD(query_srq, QUERY_SRQ) |
		SROCE_CMD(destroy_srq, DESTROY_SRQ) |
		SROCE_CMD(reg_user_mr, REG_MR) |
		SROCE_CMD(rereg_user_mr, REREG_MR) |
		SROCE_CMD(dereg_mr, DEREG_MR);
	return ib_register_device(dev, name, dma_device);
}

#undef SROCE_CMD

#define ib_register_device(dev, name, dma_device) \
	sroce_compat_register_device(dev, name, dma_device)
#endif

/*
 * Ring pages are mapped into the process with vm_insert_page().  Before
 * 5.11 the memory cgroup marked each page it charged with the Kmemcg page
 * type, which vm_insert_page() refuses (EINVAL), so there a ring page
 * cannot be both charged and mapped: it is charged to max_ring_mb alone.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define SROCE_GFP_RING		(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)
#else
#define SROCE_GFP_RING		SROCE_GFP_USER
#endif

/* 6.0 moved IB_DEVICE_ALLOW_USER_UNREG to kernel_cap_flags. */
static inline void sroce_allow_user_unreg(struct ib_device_attr *attr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 0, 0)
	attr->kernel_cap_flags |= IBK_ALLOW_USER_UNREG;
#else
	attr->device_cap_flags |= IB_DEVICE_ALLOW_USER_UNREG;
#endif
}

/* 6.0 moved IB_DEVICE_BLOCK_MULTICAST_LOOPBACK there too. */
static inline void sroce_set_block_mcast_loopback(struct ib_device_attr *attr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 0, 0)
	attr->kernel_cap_flags |= IBK_BLOCK_MULTICAST_LOOPBACK;
#else
	attr->device_cap_flags |= IB_DEVICE_BLOCK_MULTICAST_LOOPBACK;
#endif
}

/* 6.0 moved IB_DEVICE_ON_DEMAND_PAGING there too. */
static inline void sroce_set_odp(struct ib_device_attr *attr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 0, 0)
	attr->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
#else
	attr->device_cap_flags |= IB_DEVICE_ON_DEMAND_PAGING;
#endif
}

/*
 * 6.15 moved an ODP umem's hmm pfns into an hmm_dma_map and asks for
 * write access with HMM_PFN_WRITE, not ODP_{READ,WRITE}_ALLOWED_BIT.
 */
#ifdef SROCE_HAVE_UMEM_ODP_HMM_DMA
#define sroce_odp_pfns(umem)		((umem)->map.pfn_list)
#define SROCE_ODP_ACCESS(writable)	((writable) ? HMM_PFN_WRITE : 0)
#else
#define sroce_odp_pfns(umem)		((umem)->pfn_list)
#define SROCE_ODP_ACCESS(writable)	(ODP_READ_ALLOWED_BIT |		\
					 ((writable) ? ODP_WRITE_ALLOWED_BIT : 0))
#endif

/*
 * 7.x no longer exports the lookup by name; ib_register_device() still
 * refuses a name in use, with -ENFILE.
 */
#ifndef SROCE_HAVE_IB_DEVICE_GET_BY_NAME
static inline struct ib_device *
ib_device_get_by_name(const char *name, enum rdma_driver_id driver_id)
{
	return NULL;
}
#endif

/*
 * 6.17 or so lets a driver give its device a namespace at birth (used in
 * ib_core's exclusive mode); before, every device is born in init_net.
 */
#ifdef ib_alloc_device_with_net
#define sroce_ib_alloc_device(drv, member, net) \
	ib_alloc_device_with_net(drv, member, net)
#else
#define sroce_ib_alloc_device(drv, member, net) ib_alloc_device(drv, member)
#endif

/*
 * 5.12 let rereg_user_mr return a new MR (NULL: changed in place); 5.10
 * returns an errno.  sroce always changes the MR in place.
 */
#ifdef SROCE_HAVE_REREG_RETURNS_MR
#define SROCE_REREG_RET			struct ib_mr *
#define SROCE_REREG_RESULT(err)		((err) ? ERR_PTR(err) : NULL)
#else
#define SROCE_REREG_RET			int
#define SROCE_REREG_RESULT(err)		(err)
#endif

/* 6.17 or so passes reg_user_mr a DMA handle: NULL, sroce has no alloc_dmah. */
#ifdef SROCE_HAVE_IB_DMAH
#define SROCE_DMAH_ARG		struct ib_dmah *dmah,
#else
#define SROCE_DMAH_ARG
#endif

/* 7.x renamed ib_umem_get() for plain user addresses. */
#ifndef SROCE_HAVE_IB_UMEM_GET_VA
static inline struct ib_umem *ib_umem_get_va(struct ib_device *device,
					     unsigned long addr, size_t size,
					     int access)
{
	return ib_umem_get(device, addr, size, access);
}
#endif

/* The pages of a umem: an sg_append_table since 5.15. */
#ifdef SROCE_HAVE_UMEM_SGT_APPEND
#define sroce_umem_for_each_page(umem, it) \
	for_each_sgtable_page(&(umem)->sgt_append.sgt, it, 0)
#else
#define sroce_umem_for_each_page(umem, it) \
	for_each_sg_page((umem)->sg_head.sgl, it, (umem)->sg_nents, 0)
#endif

/* 5.10's takes no device. */
#ifndef SROCE_HAVE_IB_CHECK_MR_ACCESS_DEV
#define ib_check_mr_access(ibdev, flags) ib_check_mr_access(flags)
#endif

#ifndef SROCE_HAVE_RDMA_GET_UDP_SPORT
static inline u16 rdma_get_udp_sport(u32 fl, u32 lqpn, u32 rqpn)
{
	if (!fl)
		fl = rdma_calc_flow_label(lqpn, rqpn);
	return rdma_flow_label_to_udp_sport(fl);
}
#endif

/*
 * IPv6 through its stubs where it may be a module (before 7.x); 5.10's
 * stub lacks ipv6_dev_find, exported since 5.9.
 */
#ifdef SROCE_HAVE_IPV6_STUBS
#include <net/ipv6_stubs.h>
#define ip6_dst_lookup_flow(net, sk, fl6, final_dst) \
	ipv6_stub->ipv6_dst_lookup_flow(net, sk, fl6, final_dst)
#ifdef SROCE_HAVE_IPV6_STUB_DEV_FIND
#define ipv6_dev_find(net, addr, dev) ipv6_stub->ipv6_dev_find(net, addr, dev)
#endif
#endif

/* 5.11 added kmap_local_page(); the mappings here never sleep. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define kmap_local_page(page)	kmap_atomic(page)
#define kunmap_local(addr)	kunmap_atomic(addr)
#endif

/* 6.13 added hrtimer_setup(); hrtimer_init() went later. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/* 7.x dropped page_mapped() for folio_mapped(). */
#ifndef SROCE_HAVE_PAGE_MAPPED
static inline bool page_mapped(struct page *page)
{
	return folio_mapped(page_folio(page));
}
#endif

/* netdev reference trackers: the type since 5.17, netdev_hold() 6.0. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
typedef struct {} netdevice_tracker;
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 0, 0)
static inline void netdev_hold(struct net_device *dev,
			       netdevice_tracker *tracker, gfp_t gfp)
{
	dev_hold(dev);
}

static inline void netdev_put(struct net_device *dev,
			      netdevice_tracker *tracker)
{
	dev_put(dev);
}
#endif

/* 7.x passes UDP tunnel sockets as the struct sock, no more the socket. */
#ifndef SROCE_HAVE_UDP_TUNNEL_SK
#define setup_udp_tunnel_sock(net, sk, cfg) \
	setup_udp_tunnel_sock(net, (sk)->sk_socket, cfg)
#define udp_tunnel_sock_release(sk) udp_tunnel_sock_release((sk)->sk_socket)
#endif

#ifndef SROCE_HAVE_SKB_LEN_ADD
static inline void skb_len_add(struct sk_buff *skb, int delta)
{
	skb->len += delta;
	skb->data_len += delta;
	skb->truesize += delta;
}
#endif

/* Fragments others may write: a tx_flags bit in 5.10. */
static inline void sroce_skb_shared_frag(struct sk_buff *skb)
{
#ifdef SROCE_HAVE_SKBFL_SHARED_FRAG
	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
#else
	skb_shinfo(skb)->tx_flags |= SKBTX_SHARED_FRAG;
#endif
}

/*
 * 6.2 gave ib_core the IBA 1.5 memory placement operations: the WR and WC
 * opcodes FLUSH and ATOMIC_WRITE, the MR access rights FLUSH_GLOBAL and
 * FLUSH_PERSISTENT (ib_check_mr_access refuses unknown bits before) and
 * the device capabilities.  The uverbs values (bits 38..40 of the
 * capabilities, the opcodes) are the same on every kernel: the provider's
 * data path does not go through ib_core, so ATOMIC WRITE works and is
 * advertised everywhere; FLUSH needs an MR with a flush right, which only
 * 6.2 and later can register (Documentation/verbs-objects.rst).  Only
 * global visibility is offered: sroce memory is RAM, so ib_core refuses
 * an MR with FLUSH_PERSISTENT (EOPNOTSUPP) for want of the capability.
 */
#define SROCE_DEVICE_ATOMIC_WRITE	BIT_ULL(40)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define SROCE_HAVE_IB_PLACEMENT		1
#define SROCE_IB_ACCESS_FLUSH		(IB_ACCESS_FLUSH_GLOBAL |	\
					 IB_ACCESS_FLUSH_PERSISTENT)
#define SROCE_DEVICE_FLUSH		IB_DEVICE_FLUSH_GLOBAL
#else
#define SROCE_IB_ACCESS_FLUSH		0
#define SROCE_DEVICE_FLUSH		0ULL
#endif

/*
 * A tc egress hook on @dev (clsact's mini-qdisc up to 6.5, tcx after) or
 * a netfilter egress hook (5.16 on): __dev_queue_xmit() runs them, so
 * direct transmit (net_direct.c) must not go past them.
 */
static inline bool sroce_dev_egress_hooked(const struct net_device *dev)
{
#if defined(SROCE_HAVE_TCX_EGRESS) && IS_ENABLED(CONFIG_NET_XGRESS)
	if (rcu_access_pointer(dev->tcx_egress))
		return true;
#elif defined(SROCE_HAVE_MINIQ_EGRESS) && IS_ENABLED(CONFIG_NET_CLS_ACT)
	if (rcu_access_pointer(dev->miniq_egress))
		return true;
#endif
#if defined(SROCE_HAVE_NF_HOOKS_EGRESS) && IS_ENABLED(CONFIG_NETFILTER_EGRESS)
	if (rcu_access_pointer(dev->nf_hooks_egress))
		return true;
#endif
	return false;
}

#endif /* SROCE_COMPAT_H */
