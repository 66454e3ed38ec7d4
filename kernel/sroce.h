/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce kernel glue: the per-device structure and the objects hung off it.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "uapi/sroce-abi.h"
#include "params.h"
#include "proto/mr_state.h"

/*
 * Object kinds counted per device.  ib_core destroys every user object
 * before it calls dealloc_driver, so a non-zero count there is a leak.
 */
enum sroce_obj_type {
	SROCE_OBJ_UCONTEXT,
	SROCE_OBJ_PD,
	SROCE_OBJ_AH,
	SROCE_OBJ_CQ,
	SROCE_OBJ_QP,
	SROCE_OBJ_SRQ,
	SROCE_OBJ_MR,
	SROCE_OBJ_MW,
	SROCE_OBJ_XRCD,
	SROCE_OBJ_MAX
};

/*
 * counters.c: device-wide counters, shown by "rdma statistic show link".
 * The per-QP transport counters (struct sroce_qp_stats) are summed over
 * the live QPs when read; sroce_counters_retire_qp() folds a destroyed
 * QP's into @retired.  Documentation/net.rst lists every counter.
 */
enum sroce_ctr {
	SROCE_CTR_TX_PACKETS,
	SROCE_CTR_TX_BYTES,	/* RoCE bytes: BTH through ICRC */
	SROCE_CTR_RX_PACKETS,	/* accepted by a QP */
	SROCE_CTR_RX_BYTES,
	SROCE_CTR_TX_NO_ROUTE,	/* no route or neighbour: dropped */
	SROCE_CTR_TX_DROPPED,	/* the IP stack or qdisc dropped it */
	SROCE_CTR_TX_NO_MEM,	/* no skb: refused, the core retries */
	SROCE_CTR_RING_ERRORS,	/* a user QP/SRQ ring was impossible: errored */
	SROCE_CTR_CQ_OVERFLOWS,	/* a CQ was full (or its cons impossible) */
	SROCE_CTR_TX_ROOM_WAITS, /* a QP stopped for TX room (tx_room.c) */
	SROCE_CTR_TX_ZCOPY,	/* sent with the payload as page fragments */
	SROCE_CTR_TX_DIRECT,	/* handed to the driver by net_direct.c */
	SROCE_CTR_ODP_PAGE_FAULTS,	/* ODP ranges faulted in (odp.c) */
	SROCE_CTR_ODP_INVALIDATIONS,	/* MMU notifier calls on ODP MRs */
	SROCE_CTR_ODP_PREFETCHES,	/* ibv_advise_mr() SGEs */
	SROCE_CTR_ODP_IMPLICIT_FULL,	/* implicit MR: no child to be had */
	SROCE_CTR_MAX
};

struct sroce_counters {
	atomic64_t		ctr[SROCE_CTR_MAX];
	atomic64_t		drop[SROCE_DROP_MAX];
	spinlock_t		retired_lock;	/* serialises @retired */
	struct sroce_qp_stats	retired;
};

/*
 * mcast.c: the UD multicast groups of a device.  Writers hold @lock;
 * the receive path reads @hash and each group's QP list under RCU.
 */
#define SROCE_MCAST_HASH_BITS	8

struct sroce_mcast {
	struct mutex		lock;		/* the writers; RTNL nests inside */
	struct hlist_head	hash[1 << SROCE_MCAST_HASH_BITS];
	u32			ngrp;		/* groups with a QP attached */
	u32			nattach;	/* (group, QP) attachments */
};

struct sroce_dev {
	struct ib_device	ibdev;
	/* Held from newlink to dealloc_driver; never changes. */
	struct net_device	*ndev;
	netdevice_tracker	ndev_tracker;
	/*
	 * @ndev's namespace at newlink, whose sockets (sock.c) the device
	 * holds.  No reference: the namespace's exit waits for the device.
	 */
	struct net		*net;
	/* Last port state reported through ib_dispatch_event. */
	enum ib_port_state	port_state;
	spinlock_t		port_lock;	/* serialises port_state */
	atomic_t		nobj[SROCE_OBJ_MAX];
	/* RC QPs with PSNs out (sroce_kqp.sending): SROCE_DEV_INFLIGHT */
	atomic_t		senders;
	/* counters.c; zeroed by ib_alloc_device, lock set up by newlink. */
	struct sroce_counters	ctrs;

	/*
	 * Lookup tables, read under RCU on the data path.  Objects are freed
	 * only after an RCU grace period (see "Lifetime" below).
	 *   qps: QPN -> struct sroce_kqp (QPN 1 is the GSI QP)
	 *   mrs: key >> 8 -> struct sroce_mr (the low byte is the key byte)
	 *   ahs: ah_num -> a copy of the AH's AV and PD (every AH, see ah.c)
	 *   mws: key >> 8 -> struct sroce_mw (mw.c; the index is reserved,
	 *        with a NULL entry, in mrs)
	 *   xsrqs: XRC SRQ number -> struct sroce_srq (srq.c)
	 */
	struct xarray		qps;
	struct xarray		mrs;
	struct xarray		ahs;
	struct xarray		mws;
	struct xarray		xsrqs;
	/* mw.c: window state and sroce_mr.nmw */
	spinlock_t		mw_lock;
	/* qp.c: where the cyclic QPN allocation continues (random start). */
	u32			qp_next;

	/* mr.c: next MR index to try (mw.c shares the index space). */
	u32			mr_next;
	/* ah.c: next ah_num to try. */
	u32			ah_next;
	/* srq.c: next XRC SRQ number to try. */
	u32			xsrq_next;
	/*
	 * Set by the ib_client remove callback, which ib_core runs before
	 * uverbs destroys the objects of live processes (our client is
	 * registered after uverbs', and clients go in LIFO order).
	 */
	bool			removing;
	/* tx_room.c; outlives the device while its packets are queued. */
	struct sroce_txdev	*txdev;
	struct sroce_mcast	mcast;
};

struct sroce_ucontext {
	struct ib_ucontext	ibuc;
};

struct sroce_pd {
	struct ib_pd		ibpd;
};

/*
 * Lifetime and locking rules shared by every file
 * -----------------------------------------------
 * - Every call into the protocol core for one QP is made with that QP's
 *   lock held (spin_lock_bh) and inside rcu_read_lock().
 * - A struct sroce_mem_ref (from sroce_mem_access) and the memory behind
 *   it stay valid until that RCU read section ends: deregistration erases
 *   the key from sdev->mrs, waits for a grace period, then releases pages.
 * - QPs, AHs and MRs found through the xarrays are used only inside the
 *   RCU read section that found them.
 */

/*
 * Where packets of a QP (RC/UC: from modify_qp's AV) or of a UD AH go.
 * Filled once from an rdma_ah_attr by sroce_av_from_attr(); net.c routes
 * on it.
 */
union sroce_addr {
	__be32		v4;
	struct in6_addr	v6;
};

struct sroce_av {
	u8	family;		/* AF_INET or AF_INET6 (from the GID types) */
	u8	tclass;		/* IPv4 TOS / IPv6 traffic class: DSCP + ECN */
	u8	hop_limit;	/* IPv4 TTL / IPv6 hop limit */
	u8	sl;
	u32	flow_label;
	u16	sgid_index;
	u8	dmac[ETH_ALEN];
	union sroce_addr saddr, daddr;
};

/*
 * net.c: the route an RC/UC QP last sent on, with a reference, used again
 * while dst_check() accepts it.  Under the QP's lock, like every send.
 */
struct dst_entry;
struct rtable;
struct sroce_route {
	struct dst_entry	*dst;
	u32			cookie;		/* IPv6: the FIB node's serial */
	bool			confirm;	/* the peer answered: see net.c */
};

/*
 * net_direct.c: a QP's packets for one device queue that the driver gets
 * together: at the end of a kick, when the QP's lock is dropped (the
 * answers to a batch of received requests: after the receive softirq,
 * qp_exec.c), or when SROCE_NET_BURST are held.  Under the QP's lock,
 * like every send.
 */
struct netdev_queue;
struct sroce_net_burst {
	struct sk_buff		*head, *tail;
	struct netdev_queue	*txq;
	unsigned int		n;
};

/*
 * ah.c.  Every AH, user or kernel, has an @ah_num in sdev->ahs; the
 * xarray holds a copy of the AV (see sroce_ah_get_av()), not this struct.
 */
struct sroce_ah {
	struct ib_ah		ibah;
	struct sroce_av		av;
	u32			ah_num;
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

/*
 * The key, rights, PD and pages of a user MR: everything ibv_rereg_mr()
 * can change, replaced as a whole (mr.c, sroce_rereg_user_mr).  The data
 * path reads it with one rcu_dereference() and keeps that copy in its
 * sroce_mem_ref, so a check and the copy after it see the same mapping;
 * a replaced map is freed, and its pages unpinned, after a grace period.
 */
struct sroce_odp;

struct sroce_mr_map {
	struct ib_pd		*pd;
	struct sroce_mr_st	st;
	int			access;	/* as registered, for a rereg without it */
	u64			iova;
	u64			length;
	struct ib_umem		*umem;
	struct sroce_odp	*odp;	/* IB_ACCESS_ON_DEMAND: odp.c */
	struct page		**pages;	/* umem pages, in iova order */
	u32			npages;
	u32			page_offset;	/* iova offset in pages[0] */
	bool			owner;	/* frees umem and pages (not lent on) */
	struct rcu_work		free_work;	/* rereg: free after a GP */
};

/*
 * A memory region: user memory (umem), a DMA MR, or a fast-reg MR
 * (IB_MR_TYPE_MEM_REG).  @st is the key and state every access checks
 * (proto/mr_state.h) of a DMA or fast-reg MR, a user MR's is in its
 * @map.  A fast-reg MR's changes under @lock, and with it @iova,
 * @length and @fr_shift (from the page list the consumer mapped while
 * the MR was FREE).
 */
struct sroce_mr {
	struct ib_mr		ibmr;
	/*
	 * ours: set before the key is published; of a user MR, a copy of
	 * map->pd kept for mw.c (a rereg never runs with windows bound)
	 */
	struct ib_pd		*pd;
	spinlock_t		lock;	/* fast-reg: @st and the mapping */
	struct sroce_mr_st	st;	/* DMA and fast-reg MRs */
	u64			iova;	/* DMA and fast-reg MRs */
	u64			length;
	/* User MR (neither DMA nor fast-reg): its current map. */
	struct sroce_mr_map __rcu *map;
	u32			page_offset;	/* fast-reg: iova offset */
	bool			dma;	/* DMA MR: va is a kernel address */
	u32			nmw;	/* windows bound to it (sdev->mw_lock) */
	/* Fast-reg: kernel addresses of ibmr.page_size pages, map_mr_sg. */
	u64			*fr_pages;
	u32			fr_max;		/* allocated entries */
	u32			fr_mapped;	/* entries set by map_mr_sg */
	u8			fr_shift;	/* log2 page size when registered */
	struct rcu_work		free_work;	/* dereg: free after a GP */
};

struct sroce_cq;
struct sroce_kqp;

/*
 * rings.c: one shared queue (SQ, RQ or CQ) in the layout of
 * uapi/sroce-abi.h.  Kernel consumers get the same ring, never mapped.
 * @ctl points into the (possibly user-writable) buffer: read the peer's
 * index once with READ_ONCE/smp_load_acquire and never trust it.
 */
struct sroce_ring {
	void				*buf;	/* vmalloc_user(), page aligned */
	size_t				size;	/* mapped bytes */
	u32				entries;	/* power of two */
	u32				stride;
	struct sroce_ring_ctl		*ctl;	/* == buf */
	struct rdma_user_mmap_entry	*mentry;	/* NULL if not mapped */
};

int sroce_ring_alloc(struct sroce_ring *r, u32 entries, u32 stride,
		     bool user);
/*
 * Make @r mappable by @uc and describe it for a create response.  After
 * this, sroce_ring_free() only revokes the offset; the pages go when the
 * last user mapping does.
 */
int sroce_ring_expose(struct sroce_ring *r, struct ib_ucontext *uc,
		      struct sroce_ring_abi *abi);
void sroce_ring_free(struct sroce_ring *r);
/*
 * The large allocations a process causes (rings, shadow arrays, MR page
 * arrays): charged to its memory cgroup, and refused with ENOMEM rather
 * than by the OOM killer when the cgroup or the machine is short.  The
 * refusal is the caller's answer, not a kernel fault: no allocation
 * failure report (vmalloc prints one with a stack trace).
 */
#define SROCE_GFP_USER		(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
				 __GFP_NOWARN)

/*
 * The device budget (max_ring_mb) for the rings and for other memory a
 * verbs object holds for its whole life (the per-WQE shadow arrays).
 */
bool sroce_mem_charge(size_t size, bool user);
void sroce_mem_uncharge(size_t size);
void sroce_rings_reap(bool all);
/* Power-of-two element sizes: SQ, and RQ or SRQ (uapi/sroce-abi.h). */
u32 sroce_ring_sq_stride(u32 max_sge, u32 max_inline);
u32 sroce_ring_rq_stride(u32 max_sge);

static inline void *sroce_ring_elem(const struct sroce_ring *r, u32 idx)
{
	return r->buf + SROCE_RING_HDR_SIZE +
	       (size_t)(idx & (r->entries - 1)) * r->stride;
}

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

/*
 * MR and MW keys are (index << 8) | key byte.  The byte is random, so an
 * rkey cannot be guessed from the ones seen before it.
 */
#define SROCE_MR_INDEX_MAX	((1u << 24) - 1)

static inline u8 sroce_key_byte(void)
{
	return (u8)get_random_u32();
}

/*
 * No verb but modify_srq (srq.c) defines driver input: refuse any we
 * could not parse (non-zero bytes), and a response buffer too small for
 * our @resp_len reply.
 */
static inline int sroce_udata_check(struct ib_udata *udata, size_t resp_len)
{
	if (!udata)
		return 0;
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return udata->outlen < resp_len ? -EINVAL : 0;
}

/* device.c */
struct sroce_dev *sroce_dev_create(struct net_device *ndev);
int sroce_dev_register(struct sroce_dev *sdev, const char *name);
void sroce_port_update(struct sroce_dev *sdev);
/*
 * Objects of a process (@user) may not take the last sixteenth of a limit,
 * nor of max_ring_mb: kept for kernel consumers (NVMe-oF, NFS), so that a
 * process exhausting the device cannot keep them from reconnecting.
 */
#define SROCE_KERNEL_RESERVE_SHIFT	4
int sroce_obj_add(struct sroce_dev *sdev, enum sroce_obj_type type, bool user);
void sroce_obj_del(struct sroce_dev *sdev, enum sroce_obj_type type);
enum ib_mtu sroce_mtu_from_netdev(unsigned int ndev_mtu);

/* ucontext.c */
int sroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sroce_dealloc_ucontext(struct ib_ucontext *ibuc);
void sroce_disassociate_ucontext(struct ib_ucontext *ibuc);

/* rings.c */
int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);

/* pd.c */
int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* xrcd.c: XRC domains, stateless like PDs. */
extern const struct ib_device_ops sroce_xrcd_ops;

/*
 * mr.c: memory regions and the memory operations of the protocol core.
 * sroce_mem_access() resolves @key (lkey, or rkey if @remote) in @pd for
 * @len bytes at @va with @access (ib_access_flags; 0 = local read),
 * checking validity, key byte, PD, access and bounds.  Call it and use
 * the result inside rcu_read_lock().  The copy helpers work in any
 * context (softirq included); @off is relative to the ref's start.
 */
extern const struct ib_device_ops sroce_mr_ops;
int sroce_mr_module_init(void);
void sroce_mr_module_exit(void);
void sroce_mr_flush_frees(void);
int sroce_mem_access(struct sroce_dev *sdev, struct ib_pd *pd, u32 key,
		     bool remote, u64 va, u32 len, u32 access,
		     struct sroce_mem_ref *out);
/* Call @fn on each virtually contiguous (kmapped) chunk of the range. */
int sroce_mem_for_each(const struct sroce_mem_ref *ref, u32 off, u32 len,
		       int (*fn)(void *priv, void *kaddr, u32 len),
		       void *priv);
/* A run of bytes within one page. */
struct sroce_page_run {
	struct page	*page;
	u32		off;
	u32		len;
};

/*
 * The pages behind the range, in order, into @runs (at most @max).
 * Returns how many, or 0 if the memory is not page-backed (DMA and
 * fast-registered MRs) or needs more than @max runs.
 */
int sroce_mem_pages(const struct sroce_mem_ref *ref, u32 off, u32 len,
		    struct sroce_page_run *runs, int max);
int sroce_mem_copy_to(const struct sroce_mem_ref *ref, u32 off,
		      const void *src, u32 len);
int sroce_mem_copy_from(const struct sroce_mem_ref *ref, u32 off,
			void *dst, u32 len);
/* 8-byte atomic (ref 8-aligned), atomic against other CPUs and QPs. */
int sroce_mem_atomic(const struct sroce_mem_ref *ref, u8 op, u64 cmp,
		     u64 swap_add, u64 *orig);
/*
 * odp.c: on-demand paging of a user MR.  The data path helpers work in
 * any context; a page not present gives -EAGAIN and is faulted in by a
 * work item, a page that could not be faulted in gives -EFAULT once.
 */
struct uverbs_attr_bundle;
extern struct workqueue_struct *sroce_odp_wq;	/* mr.c */
/* Implicit ODP: start 0, length U64_MAX names the whole address space. */
static inline bool sroce_odp_is_implicit(u64 start, u64 length)
{
	return !start && length == U64_MAX;
}

int sroce_odp_get(struct ib_device *ibdev, struct sroce_mr_map *map,
		  u64 start, u64 length, int access);
void sroce_odp_put(struct sroce_odp *odp);
int sroce_odp_check(const struct sroce_mr_map *map, u64 va, u32 len);
int sroce_odp_for_each(const struct sroce_mr_map *map, u64 va, u32 len,
		       int (*fn)(void *priv, void *kaddr, u32 len),
		       void *priv);
int sroce_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs);

/*
 * Fast registration, called from the QP's core call (QP lock held):
 * IB_WR_REG_MR of @key with @access, and invalidation of @key (LOCAL_INV,
 * or the IETH of a received SEND_WITH_INV).  The MR must belong to @pd.
 * Return 0 or -EINVAL.
 */
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd, u32 key,
		      u32 access);
int sroce_mr_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 key);

/*
 * cq.c.  Every field below @lock is protected by it.  ring.ctl->prod is
 * a copy of @prod for the consumer; a user CQ's ring.ctl->cons is read
 * once per use and never trusted.
 */
struct sroce_cq {
	struct ib_cq		ibcq;
	spinlock_t		lock;	/* producers, poll, notify, resize */
	struct sroce_ring	ring;
	struct ib_qp		**qps;	/* kernel CQ: wc->qp of each slot */
	u32			prod;	/* our producer index */
	u32			cons;	/* kernel CQ: our consumer index */
	u8			notify;	/* 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP */
	bool			overflow;	/* in error for good */
	bool			user;	/* consumed by user space */
	bool			ts;	/* stamp each CQE (sroce_cqe_abi.ts) */
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

extern const struct ib_device_ops sroce_cq_ops;

/*
 * sroce_cq_add() appends one completion for @qp (any context, may
 * be called with the QP lock held).  It returns 1 if the CQ was armed
 * for it: the caller then calls sroce_cq_notify() once it holds no lock
 * of ours, because a kernel consumer's comp_handler may poll and post
 * to the same QP at once.  On overflow the completion is dropped, the CQ
 * goes to error (IB_EVENT_CQ_ERR) and -ENOSPC is returned.
 */
int sroce_cq_add(struct sroce_cq *cq, struct ib_qp *qp,
		 const struct sroce_cqe *cqe);
void sroce_cq_notify(struct sroce_cq *cq);

/*
 * ah.c.  sroce_av_from_attr() accepts RoCE v2 GIDs only (-EINVAL
 * otherwise).  sroce_ah_get_av() copies the AV of AH @ah_num if it
 * belongs to @pd: 0 or -EINVAL, any context.
 */
extern const struct ib_device_ops sroce_ah_ops;
int sroce_av_from_attr(struct sroce_dev *sdev,
		       const struct rdma_ah_attr *attr, struct sroce_av *av);
int sroce_ah_get_av(struct sroce_dev *sdev, struct ib_pd *pd, u32 ah_num,
		    struct sroce_av *av);
void sroce_addr_to_gid(u8 family, const union sroce_addr *addr, u8 *gid);

/*
 * srq.c: a shared receive queue, one ring in the RQ format.  Fields below
 * @lock are protected by it; the ring's prod (user SRQ) is untrusted.
 */
struct sroce_srq {
	struct ib_srq		ibsrq;
	spinlock_t		lock;	/* consumers (QPs), kernel posts, limit */
	struct mutex		resize_lock;	/* one resize at a time */
	struct sroce_ring	ring;
	u32			cons;	/* our consumer index */
	u32			seen;	/* prod as last read */
	u32			kprod;	/* kernel SRQ: our producer index */
	u32			max_sge;
	u32			limit;	/* armed srq_limit; 0 = not armed */
	bool			user;
	bool			broken;	/* impossible prod or WQE: no more WQEs */
	/*
	 * XRC SRQ: its domain and CQ, from the init attributes (ib_core
	 * sets ibsrq.ext after create_srq on some kernels).  Else NULL.
	 */
	struct ib_xrcd		*xrcd;
	struct sroce_cq		*xcq;
	/* One WQE copied out of the ring, before any field is read. */
	u64			wqe_copy[SROCE_MAX_WQE_STRIDE / sizeof(u64)];
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

extern const struct ib_device_ops sroce_srq_ops;
/* A QP's responder takes a WQE (QP lock held): 0, or -SROCE_EAGAIN. */
int sroce_srq_take(struct sroce_srq *srq, struct sroce_recv_wqe *out);
/*
 * The XRC SRQ numbered @srqn if it belongs to @xrcd, else NULL.  Inside
 * rcu_read_lock(): the SRQ stays valid until the reader leaves it.
 */
struct sroce_srq *sroce_xrc_srq_find(struct sroce_dev *sdev, u32 srqn,
				     const struct ib_xrcd *xrcd);

/*
 * mw.c: memory windows.  The responder resolves a window's rkey with
 * sroce_mw_access(); bind and invalidation run from the QP's local
 * operations and remote invalidation; mr.c unpublishes an MR through
 * sroce_mw_mr_unpublish().  Access and invalidate return -ENOENT when
 * the key is no window's (the caller then tries the MRs).
 */
extern const struct ib_device_ops sroce_mw_ops;
int sroce_mw_access(struct sroce_kqp *kqp, u32 key, u64 va, u32 len,
		    u32 access, struct sroce_mem_ref *out);
u8 sroce_mw_bind(struct sroce_kqp *kqp, const struct sroce_send_wqe *wr);
int sroce_mw_invalidate(struct sroce_kqp *kqp, u32 rkey, bool remote);
bool sroce_mw_mr_unpublish(struct sroce_dev *sdev, struct sroce_mr *mr);

/*
 * qp.c: a verbs QP around the protocol core.  @lock serialises every call
 * into @core (spin_lock_bh, inside rcu_read_lock()); the fields below it
 * are the glue's own and are protected by the same lock unless noted.
 * Documentation/datapath.rst describes the scheduling.
 */
struct sroce_rx;

struct sroce_kqp {
	struct ib_qp		ibqp;
	spinlock_t		lock;	/* serialises calls into @core */
	struct sroce_qp		core;	/* NET reads core.stats unlocked */
	struct sroce_cc_params	cc;	/* core.cc.p points here, or is NULL */
	struct sroce_dev	*sdev;
	struct sroce_ring	sq;
	struct sroce_ring	rq;	/* rq.buf == NULL on an SRQ */
	struct sroce_srq	*srq;	/* receives come from here, or NULL */
	struct ib_xrcd		*xrcd;	/* XRC_TGT: its domain, else NULL */
	/*
	 * XRC_TGT: the SRQ the request being handled names (ops->xrc_srq),
	 * valid until the lock is dropped (kqp.h clears it), under RCU.
	 */
	struct sroce_srq	*xsrq;
	/* XRC_TGT: the SRQ's CQ to notify once the lock is dropped. */
	struct sroce_cq		*xcq_fire;
	/* Our own indices: ring contents are never trusted. */
	u32			sq_cons;
	u32			rq_cons;
	u32			sq_prod;	/* kernel QPs only */
	u32			rq_prod;	/* kernel QPs only */
	u32			sq_seen;	/* prod as last read */
	u32			rq_seen;
	u32			sq_flags;	/* last cons_flags written */
	u32			max_send_sge;
	u32			max_recv_sge;
	u32			max_inline;
	bool			user;
	bool			sq_sig_all;
	bool			dying;		/* destroy started: no more core calls */
	bool			sq_asked;	/* next_send found the SQ empty */
	bool			sending;	/* counted in sdev->senders */
	/* CQs to notify once the lock is dropped (SROCE_KQP_FIRE_*). */
	u8			cq_fire;
	u8			broken;		/* a ring index or WQE was impossible */
	void			*swqe;		/* the core's SQ slots */
	struct sroce_rd_res	*res;		/* RC responder resources */
	size_t			shadow_size;	/* of both, in the budget */
	struct sroce_av		av;		/* RC/UC destination (IB_QP_AV) */
	u16			src_port;	/* UDP source port, RC/UC */
	struct sroce_route	route;		/* to @av; RC/UC only */
	struct sroce_net_burst	burst;		/* sent at the unlock */
	/* @burst holds answers sent after the receive softirq (qp_exec.c). */
	bool			deferred;
	/* On @defer_cpu's list, under its lock; @defer_cpu under @lock. */
	struct list_head	defer_node;
	int			defer_cpu;
	u64			timer_ns;	/* armed expiry, U64_MAX if none */
	u64			retry_ns;	/* emit refused: kick again then */
	struct sroce_txq	*txq;		/* tx_room.c */
	bool			tx_wait;	/* refused for room: a wakeup comes */
	/* IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK: never its own multicast. */
	bool			mcast_block_self;
	u32			nmcast;		/* groups attached (mcast.c lock) */
	struct hrtimer		timer;
	struct work_struct	work;
	/* One WQE copied out of a ring, before any field is read. */
	u64			wqe_copy[SROCE_MAX_WQE_STRIDE / sizeof(u64)];
};

static inline struct sroce_kqp *to_kqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_kqp, ibqp);
}

extern const struct ib_device_ops sroce_kqp_verbs_ops;
int sroce_kqp_module_init(void);
void sroce_kqp_module_exit(void);
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int mask, struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
/*
 * RX entry (net.c, inside rcu_read_lock()): hand @pkt, already ICRC-checked
 * and parsed, to the QP its BTH DestQP names.  Returns why it was dropped,
 * or SROCE_DROP_NONE.
 */
enum sroce_drop sroce_kqp_deliver(struct sroce_dev *sdev,
				  const struct sroce_pkt *pkt,
				  struct sroce_rx *rx);
/* The same, to @kqp (found by the caller under RCU): one multicast copy. */
enum sroce_drop sroce_kqp_deliver_to(struct sroce_kqp *kqp,
				     const struct sroce_pkt *pkt,
				     struct sroce_rx *rx);

/*
 * mcast.c: attach_mcast/detach_mcast and the group table.  A destroyed
 * QP leaves its groups (sroce_mcast_qp_leave_all, before the grace
 * period that precedes its free).  sroce_mcast_deliver() (inside
 * rcu_read_lock()) hands a multicast packet, checked by the core's
 * rules and the ICRC, to every QP attached to its group, counting each
 * copy as accepted or dropped; it returns SROCE_DROP_UNKNOWN_QP, and
 * counts nothing, when the group has no QP here.
 */
extern const struct ib_device_ops sroce_mcast_ops;
void sroce_mcast_init(struct sroce_dev *sdev);
void sroce_mcast_cleanup(struct sroce_dev *sdev);
void sroce_mcast_qp_leave_all(struct sroce_kqp *kqp);
bool sroce_mcast_has_group(struct sroce_dev *sdev, const u8 *gid);
enum sroce_drop sroce_mcast_deliver(struct sroce_dev *sdev,
				    const struct sroce_pkt *pkt,
				    struct sroce_rx *rx, u32 roce_len);

/*
 * net.c: RoCEv2 over UDP port 4791 (Documentation/net.rst).
 *
 * A received packet, as handed to sroce_kqp_deliver() and back to
 * sroce_net_copy_payload() through the core's copy_in op.  Valid only
 * during the sroce_kqp_deliver() call (the skb is freed after it).
 */
struct sroce_rx {
	struct sk_buff	*skb;
	u32		payload_off;	/* IB payload's offset from skb->data */
	u8		family;		/* AF_INET or AF_INET6 */
	bool		looped;		/* our own multicast, looped back */
	/* GRH image: IPv6 header, or 20 zero bytes then the IPv4 header. */
	u8		grh[SROCE_GRH_LEN];
};

/* sock.c: each namespace's UDP 4791 sockets; main.c refcounts them. */
int sroce_net_sock_get(struct net *net);
void sroce_net_sock_put(struct net *net);
int sroce_sock_module_init(void);
void sroce_sock_module_exit(void);
int sroce_net_encap_recv(struct sock *sk, struct sk_buff *skb);
/*
 * Copy @len bytes from @payload_off into the packet's IB payload to @dst
 * at @dst_off (the core's copy_in op reads the GRH image itself).
 * Returns 0 or -EFAULT (out of the packet's bounds).
 */
int sroce_net_copy_payload(const struct sroce_rx *rx, u32 payload_off,
			   const struct sroce_mem_ref *dst, u32 dst_off,
			   u32 len);
/*
 * Send @pkt to @av from UDP source port @src_port, charged to @txq, held
 * in @burst if it goes to the driver directly.  Process or softirq
 * context, under the lock of the QP that owns @burst and @route.  Returns
 * 0 when sent, or dropped and counted (the core's timers recover);
 * -EAGAIN when @txq has no room (the QP is woken when it has); -ENOBUFS
 * when refused with nothing sent (retry later).
 */
int sroce_net_xmit(struct sroce_dev *sdev, struct sroce_txq *txq,
		   struct sroce_net_burst *burst, const struct sroce_av *av,
		   u16 src_port, struct sroce_route *route,
		   const struct sroce_tx_pkt *pkt);
void sroce_route_reset(struct sroce_route *route);
/* A packet from the QP's peer was accepted; under the QP's lock. */
void sroce_route_confirm(struct sroce_route *route);
/*
 * net_direct.c: the IP output path of @skb, built by net.c with its route
 * attached, handing it to the driver directly where nothing in the qdisc
 * layer would act on it; with @burst, together with the packets after it
 * (sroce_net_flush()).  True with ip_local_out()'s result in @rc; false:
 * the caller sends it through the stack.
 */
bool sroce_direct_xmit4(struct sroce_dev *sdev, struct sroce_net_burst *burst,
			struct sk_buff *skb, struct rtable *rt, int *rc);
bool sroce_direct_xmit6(struct sroce_dev *sdev, struct sroce_net_burst *burst,
			struct sk_buff *skb, struct dst_entry *dst, int *rc);
/* Hand @burst's packets to the driver now.  Under the QP's lock. */
void sroce_net_flush(struct sroce_dev *sdev, struct sroce_net_burst *burst);
/* RoCEv2 annex A17.3.2: 0xC000 | a 14-bit hash of the QP pair. */
u16 sroce_net_src_port(u32 lqpn, u32 rqpn);

/*
 * cc.c: DCQCN for a new RC/UC QP: fills @p from the module parameters
 * and returns it, or NULL when congestion control is off.  The ECN field
 * of a packet of @opcode sent with traffic class @tclass, and whether a
 * received one was marked Congestion Experienced.
 */
const struct sroce_cc_params *sroce_cc_qp_params(struct sroce_cc_params *p);
u8 sroce_cc_dsfield(u8 tclass, bool ect);
bool sroce_cc_ce(const struct sk_buff *skb, bool v6);

/* crc.c: sroce_crc32() (proto/os.h), accelerated if the CPU can. */
int sroce_crc_module_init(void);
void sroce_crc_module_exit(void);

/* tx_room.c: packets of ours below us in the stack, per device. */
struct sroce_txdev;
struct sroce_txq;
struct sroce_txdev *sroce_txdev_alloc(void);
void sroce_txdev_put(struct sroce_txdev *d);
struct sroce_txq *sroce_txq_alloc(struct sroce_txdev *d,
				  struct sroce_kqp *kqp);
void sroce_txq_release(struct sroce_txq *q);
bool sroce_txq_admit(struct sroce_txq *q);
void sroce_txq_charge(struct sroce_txq *q, struct sk_buff *skb);
void sroce_tx_room_exit(void);
/* qp_exec.c: queue a pass of @kqp; any context, no lock needed. */
void sroce_kqp_wake(struct sroce_kqp *kqp);

/* counters.c */
extern const struct ib_device_ops sroce_counters_ops;
void sroce_counters_module_init(void);
void sroce_counters_init(struct sroce_dev *sdev);
void sroce_counters_retire_qp(struct sroce_dev *sdev,
			      const struct sroce_qp_stats *s);

static inline void sroce_count(struct sroce_dev *sdev, enum sroce_ctr c,
			       u64 n)
{
	atomic64_add(n, &sdev->ctrs.ctr[c]);
}

/* Count a dropped received packet; SROCE_DROP_NONE counts nothing. */
static inline void sroce_count_drop(struct sroce_dev *sdev,
				    enum sroce_drop why)
{
	if (why != SROCE_DROP_NONE && (unsigned int)why < SROCE_DROP_MAX)
		atomic64_inc(&sdev->ctrs.drop[why]);
}

#endif /* SROCE_H */
