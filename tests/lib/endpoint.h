/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference user-space implementation of the core's side-effect table
 * (struct sroce_qp_ops) over plain memory: an MR table with key, PD,
 * access and bounds checks, posted send and receive queues (and an SRQ),
 * completion queues and UD address handles.  Used by the simulator, the
 * fuzz harnesses and unit tests.  libc only.
 *
 * The endpoint also polices the core: a copy or atomic outside the range
 * a mem_access() call granted, or a read past a received payload, is
 * refused and counted in ep->violations, which every user asserts is 0.
 */
#ifndef SROCE_TEST_ENDPOINT_H
#define SROCE_TEST_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "os.h"
#include "qp.h"

struct sroce_ep_mr {
	u8 *buf;		/* host memory behind iova */
	u64 iova;
	u64 len;
	u32 key;		/* lkey == rkey; 0 marks a free slot */
	u32 pd;
	u32 access;		/* enum sroce_access */
};

struct sroce_ep_cq {
	struct sroce_cqe *cqe;
	u32 head, tail, cap;	/* free-running; grows, never overflows */
};

/* A FIFO of posted WQEs, growing as needed. */
struct sroce_ep_sq {
	struct sroce_send_wqe *w;
	u32 head, tail, cap;
};

struct sroce_ep_rq {
	struct sroce_recv_wqe *w;
	u32 head, tail, cap;
};

/* What a UD address handle resolves to in the simulated network. */
struct sroce_ep_ah {
	u32 id;
	u8 peer;		/* which endpoint it reaches */
	bool ipv6;
};

/* An XRC SRQ: its own receive queue, CQ, PD and XRC domain. */
struct sroce_ep_xsrq {
	u32 srqn;
	u32 xrcd;
	u32 pd;
	struct sroce_ep_rq rq;
	struct sroce_ep_cq cq;
};

#define SROCE_EP_MAX_XSRQ	4

struct sroce_ep;
struct sroce_ep_qp;

/* Where transmitted packets go, set by the user; returns as ops->emit. */
typedef int (*sroce_ep_emit_fn)(void *arg, struct sroce_ep_qp *qp,
				const struct sroce_tx_pkt *pkt);

struct sroce_ep_qp {
	struct sroce_qp qp;		/* the core's state */
	struct sroce_ep *ep;
	u32 pd;
	bool use_srq;
	struct sroce_ep_sq sq;
	struct sroce_ep_rq rq;
	struct sroce_ep_cq scq, rcq;
	struct sroce_swqe *swqe;
	struct sroce_rd_res *res;
	u32 xrcd;			/* XRC target: its XRC domain */
	struct sroce_ep_xsrq *xsrq;	/* ... the SRQ ops->xrc_srq chose */
	u32 nevents;
	enum sroce_qp_event last_event;
	void *user;			/* for the endpoint's user */
};

/* Handle passed to sroce_qp_rx() as the opaque payload pointer. */
struct sroce_ep_rx {
	const u8 *payload;		/* first payload byte */
	u32 len;			/* payload bytes (no pad, no ICRC) */
	const u8 *l3;			/* IP header, for the UD GRH */
	bool ipv6;
};

struct sroce_ep {
	struct sroce_ep_mr *mr;
	u32 nmr, mr_cap;
	u32 key_seq;			/* varies the key byte of new keys */
	struct sroce_ep_rq srq;
	struct sroce_ep_xsrq xsrq[SROCE_EP_MAX_XSRQ];
	u32 nxsrq;
	struct sroce_ep_ah *ah;
	u32 nah;
	sroce_ep_emit_fn emit;
	void *emit_arg;
	u8 ud_mtu;			/* port MTU (ib_mtu) for UD QPs; 0: 4096 */
	const struct sroce_cc_params *cc; /* new QPs' congestion control */
	/*
	 * If set and true, copy_in/store/atomic find the memory not present
	 * (on-demand paging) and answer -SROCE_EAGAIN; nothing is written.
	 */
	bool (*absent)(void *arg);
	void *absent_arg;
	u64 absent_hits;
	/* What ops->now answers; NULL: every call passes its time. */
	const u64 *clock;
	u64 violations;			/* core broke a contract; must stay 0 */
	char why[160];			/* the first violation */
};

extern const struct sroce_qp_ops sroce_ep_ops;

void sroce_ep_init(struct sroce_ep *ep, sroce_ep_emit_fn emit, void *arg);
void sroce_ep_destroy(struct sroce_ep *ep);

/*
 * Register @len bytes at @buf as iova @iova; returns the key (never 0) or
 * 0 if the table is full.  Keys of freed slots come back with a different
 * key byte, so a stale key never resolves.
 */
u32 sroce_ep_reg_mr(struct sroce_ep *ep, u32 pd, void *buf, u64 iova,
		    u64 len, u32 access);
void sroce_ep_dereg_mr(struct sroce_ep *ep, u32 key);
struct sroce_ep_mr *sroce_ep_mr_lookup(struct sroce_ep *ep, u32 key);

/* The host pointer behind a granted range, or NULL for an empty one. */
u8 *sroce_ep_ref_ptr(const struct sroce_mem_ref *ref);

u32 sroce_ep_add_ah(struct sroce_ep *ep, u8 peer, bool ipv6);
const struct sroce_ep_ah *sroce_ep_get_ah(const struct sroce_ep *ep, u32 id);

/*
 * Create a QP (core state in RESET) with @sq_size send slots and
 * @max_res responder resources.  Returns NULL on failure.
 */
struct sroce_ep_qp *sroce_ep_qp_create(struct sroce_ep *ep,
				       enum sroce_qp_type type, u32 qpn,
				       u32 pd, u32 sq_size, u32 max_res,
				       bool use_srq, bool sq_sig_all);
void sroce_ep_qp_destroy(struct sroce_ep_qp *q);

/* Drive RESET -> INIT -> RTR -> RTS with the given attributes. */
int sroce_ep_qp_connect(struct sroce_ep_qp *q, const struct sroce_qp_attr *a,
			u64 now);

void sroce_ep_post_send(struct sroce_ep_qp *q, const struct sroce_send_wqe *w);
void sroce_ep_post_recv(struct sroce_ep_qp *q, const struct sroce_recv_wqe *w);
void sroce_ep_post_srq(struct sroce_ep *ep, const struct sroce_recv_wqe *w);

/*
 * XRC SRQs: add one of XRC domain @xrcd and PD @pd; returns its number
 * (never 0), or 0 if the table is full.  Receives of XRC target QPs
 * complete on the SRQ's own CQ.
 */
u32 sroce_ep_add_xsrq(struct sroce_ep *ep, u32 xrcd, u32 pd);
struct sroce_ep_xsrq *sroce_ep_get_xsrq(struct sroce_ep *ep, u32 srqn);
void sroce_ep_post_xsrq(struct sroce_ep *ep, u32 srqn,
			const struct sroce_recv_wqe *w);
static inline u32 sroce_ep_sq_posted(const struct sroce_ep_qp *q)
{
	return q->sq.tail - q->sq.head;
}

static inline u32 sroce_ep_rq_posted(const struct sroce_ep_qp *q)
{
	return q->rq.tail - q->rq.head;
}

/* Next completion of @cq into *@c; false if empty. */
bool sroce_ep_poll(struct sroce_ep_cq *cq, struct sroce_cqe *c);

/*
 * Serialise @pkt (headers, payload, pad; no ICRC) into @dst, which has
 * room for pkt->hdr_len + pkt->paylen + pkt->pad bytes.  Returns the
 * bytes written.
 */
u32 sroce_ep_pkt_copy(struct sroce_ep *ep, const struct sroce_tx_pkt *pkt,
		      u8 *dst);

#endif /* SROCE_TEST_ENDPOINT_H */
