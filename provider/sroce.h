/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce libibverbs provider: private types and the prototypes shared
 * between the provider's files.
 */
#ifndef SROCE_H
#define SROCE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>

#include "sroce-abi.h"

struct sroce_device {
	struct verbs_device vdev;
};

struct sroce_context {
	struct verbs_context vctx;
};

/*
 * Response buffers: the core uverbs reply first, our udata right behind
 * it (uverbs hands the driver the bytes after the core reply).  Each one
 * is checked for padding by a static_assert next to its user.
 */
struct sroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct sroce_alloc_ucontext_resp drv;
};

struct sroce_create_cq_resp_buf {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct sroce_create_cq_resp drv;
};

struct sroce_create_cq_ex_resp_buf {
	struct ib_uverbs_ex_create_cq_resp ibv_resp;
	struct sroce_create_cq_resp drv;
};

struct sroce_resize_cq_resp_buf {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct sroce_resize_cq_resp drv;
};

struct sroce_create_qp_resp_buf {
	struct ib_uverbs_create_qp_resp ibv_resp;
	struct sroce_create_qp_resp drv;
};

/* The extended command, which alone carries create flags. */
struct sroce_create_qp_ex_resp_buf {
	struct ib_uverbs_ex_create_qp_resp ibv_resp;
	struct sroce_create_qp_resp drv;
};

struct sroce_create_ah_resp_buf {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct sroce_create_ah_resp drv;
};

/*
 * One mapped ring (uapi/sroce-abi.h).  @idx is the index this side owns:
 * prod for an SQ or RQ, cons for a CQ.  The provider keeps the only
 * authoritative copy and publishes it to @ctl; it never reads its own
 * index back from the shared page.  @peer caches the kernel's index so
 * that the common case touches no line the kernel writes.
 */
struct sroce_uring {
	void *buf;
	size_t len;
	struct sroce_ring_ctl *ctl;
	uint32_t entries;	/* a power of two */
	uint32_t stride;
	uint32_t idx;
	uint32_t peer;
};

/*
 * Shared-index accessors.  The plain GCC/clang builtins work on the u32
 * fields of the ABI struct as they are, without _Atomic casts.
 */
static inline uint32_t sroce_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline uint32_t sroce_load_relaxed(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void sroce_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void *sroce_ring_elem(const struct sroce_uring *r, uint32_t i)
{
	return (uint8_t *)r->buf + SROCE_RING_HDR_SIZE +
	       (size_t)(i & (r->entries - 1)) * r->stride;
}

/* ring.c */
int sroce_ring_map(struct sroce_uring *r, int cmd_fd,
		   const struct sroce_ring_abi *abi, size_t min_stride,
		   bool producer);
void sroce_ring_unmap(struct sroce_uring *r);

/* pd.c: a PD, or a parent domain (@parent_of set). */
struct sroce_td {
	struct ibv_td ibv_td;
	atomic_int refs;	/* 1 + parent domains using it */
};

struct sroce_pd {
	struct ibv_pd ibv_pd;
	/* PD: 1 + parent domains on it; parent domain: 1 + QPs and CQs */
	atomic_int refs;
	struct sroce_pd *parent_of;	/* the PD a parent domain contains */
	struct sroce_td *td;
};

static inline struct sroce_pd *to_sroce_pd(struct ibv_pd *pd)
{
	return container_of(pd, struct sroce_pd, ibv_pd);
}

static inline struct sroce_td *to_sroce_td(struct ibv_td *td)
{
	return container_of(td, struct sroce_td, ibv_td);
}

struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx);
int sroce_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_td *sroce_alloc_td(struct ibv_context *ibctx,
			      struct ibv_td_init_attr *attr);
int sroce_dealloc_td(struct ibv_td *ibtd);
struct ibv_pd *
sroce_alloc_parent_domain(struct ibv_context *ibctx,
			  struct ibv_parent_domain_init_attr *attr);
bool sroce_pd_hold(struct ibv_pd *ibpd);
void sroce_pd_release(struct ibv_pd *ibpd);
bool sroce_pd_is_parent(struct ibv_pd *ibpd);

struct sroce_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;	/* the consumer side */
	/* One thread at a time (thread domain, SINGLE_THREADED): no lock. */
	bool lockless;
	struct ibv_pd *parent;		/* the parent domain it was made in */
	struct sroce_uring ring;
	/* Extended poll: the CQE between start_poll/next_poll and the next. */
	const struct sroce_cqe_abi *cur;
	/* resize_cq could not map the kernel's new ring: the CQ is lost. */
	bool lost;
	bool ts;		/* the kernel stamps its CQEs */
	bool wallclock;		/* ... and they are read as wall-clock time */
	int64_t wall_off;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, in ns */
};

static inline void sroce_cq_lock(struct sroce_cq *cq)
{
	if (!cq->lockless)
		pthread_spin_lock(&cq->lock);
}

static inline void sroce_cq_unlock(struct sroce_cq *cq)
{
	if (!cq->lockless)
		pthread_spin_unlock(&cq->lock);
}

/* A send or receive queue: the producer side of one ring. */
struct sroce_wq {
	pthread_spinlock_t lock;
	bool lockless;		/* a QP in a thread domain */
	struct sroce_uring ring;
	uint32_t max_sge;
	uint32_t max_inline;	/* SQ only */
};

/*
 * True if @wq has no free slot for a WQE at @prod.  The kernel's cons is
 * re-read (acquire: its copy of the old WQE happened before) only when
 * the cached value says full, so the common case reads no line the
 * kernel writes.
 */
static inline bool sroce_wq_full(struct sroce_wq *wq, uint32_t prod)
{
	struct sroce_uring *r = &wq->ring;

	if (prod - r->peer < r->entries)
		return false;
	r->peer = sroce_load_acquire(&r->ctl->cons);
	return prod - r->peer >= r->entries;
}

static inline void sroce_wq_lock(struct sroce_wq *wq)
{
	if (!wq->lockless)
		pthread_spin_lock(&wq->lock);
}

static inline void sroce_wq_unlock(struct sroce_wq *wq)
{
	if (!wq->lockless)
		pthread_spin_unlock(&wq->lock);
}

struct sroce_qp {
	struct verbs_qp vqp;	/* vqp.qp.pd as created: maybe a parent domain */
	struct sroce_wq sq;
	struct sroce_wq rq;	/* ring.buf == NULL: no RQ */
	/*
	 * ibv_qp_ex state between wr_start and wr_complete/wr_abort, all
	 * under sq.lock: the next free slot, the WQE being built (NULL after
	 * an error) and the first error, which makes wr_complete post nothing.
	 */
	uint32_t wr_prod;
	struct sroce_send_wqe_abi *wr_cur;
	int wr_err;
	/* doorbell.c: write(2) was refused, ring with the ioctl form. */
	bool db_ioctl;
};

/* srq.c: one ring in the RQ's format, shared by the QPs attached. */
struct sroce_srq {
	struct verbs_srq vsrq;	/* srq_type, srq_num: an XRC SRQ's number */
	struct sroce_wq rq;	/* rq.lock: posting, and a resize */
	/* A resize could not map the kernel's new ring: the SRQ is lost. */
	bool lost;
};

struct sroce_create_srq_resp_buf {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct sroce_create_srq_resp drv;
};

/* modify_srq with IBV_SRQ_MAX_WR: the core command, then our input. */
struct sroce_modify_srq_cmd_buf {
	struct ibv_modify_srq ibv_cmd;
	struct sroce_modify_srq_cmd drv;
};

struct sroce_ah {
	struct ibv_ah ibah;
	uint32_t ah_num;
};

static inline struct sroce_context *to_sroce_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

static inline struct sroce_device *to_sroce_dev(struct verbs_device *vdev)
{
	return container_of(vdev, struct sroce_device, vdev);
}

static inline struct sroce_cq *to_sroce_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq);
}

static inline struct sroce_cq *to_sroce_cq_ex(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq_ex);
}

static inline struct sroce_qp *to_sroce_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, vqp.qp);
}

static inline struct sroce_qp *to_sroce_qp_ex(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct sroce_qp, vqp.qp_ex);
}

static inline struct sroce_srq *to_sroce_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, vsrq.srq);
}

static inline struct sroce_ah *to_sroce_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

/* mw.c */
struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int sroce_dealloc_mw(struct ibv_mw *mw);
int sroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);
void sroce_build_bind(struct sroce_send_wqe_abi *wqe, const struct ibv_mw *mw,
		      uint32_t rkey, const struct ibv_mw_bind_info *info);

/* pd.c: XRC domains, no state of their own. */
struct ibv_xrcd *sroce_open_xrcd(struct ibv_context *ibctx,
				 struct ibv_xrcd_init_attr *attr);
int sroce_close_xrcd(struct ibv_xrcd *ibxrcd);

/* mr.c */
struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access);
int sroce_dereg_mr(struct verbs_mr *vmr);
int sroce_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		    uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);

/* cq.c */
struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe);
int sroce_destroy_cq(struct ibv_cq *ibcq);

/* qp.c */
struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
int sroce_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		       uint16_t lid);
int sroce_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		       uint16_t lid);
struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int sroce_destroy_qp(struct ibv_qp *ibqp);
struct ibv_qp *sroce_open_qp(struct ibv_context *ibctx,
			     struct ibv_qp_open_attr *attr);
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
int sroce_wq_post_recv(struct sroce_wq *rq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

/* srq.c */
struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr);
struct ibv_srq *sroce_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr);
int sroce_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int sroce_query_rt_values(struct ibv_context *ibctx,
			  struct ibv_values_ex *values);
int sroce_destroy_srq(struct ibv_srq *ibsrq);
int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);

/* send.c */
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
/* Which ibv_qp_ex send builders a QP of @type may have. */
uint64_t sroce_send_ops_supported(enum ibv_qp_type type);
void sroce_qp_ex_init(struct sroce_qp *qp, uint64_t send_ops_flags);

/* doorbell.c: tell the kernel of new SQ WQEs; 0 or an errno. */
int sroce_cmd_doorbell(struct sroce_qp *qp);

/* ah.c */
struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int sroce_destroy_ah(struct ibv_ah *ibah);

#endif /* SROCE_H */
