// SPDX-License-Identifier: GPL-2.0
/*
 * Reference implementation of struct sroce_qp_ops over plain memory.
 * See endpoint.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"

static void ep_violation(struct sroce_ep *ep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ep_violation(struct sroce_ep *ep, const char *fmt, ...)
{
	va_list ap;

	if (!ep->violations++) {
		va_start(ap, fmt);
		vsnprintf(ep->why, sizeof(ep->why), fmt, ap);
		va_end(ap);
	}
}

static void *ep_grow(void *p, u32 *cap, size_t elem, u32 min)
{
	u32 n = *cap ? *cap * 2 : min;

	p = realloc(p, (size_t)n * elem);
	if (!p) {
		fprintf(stderr, "endpoint: out of memory\n");
		abort();
	}
	*cap = n;
	return p;
}

void sroce_ep_init(struct sroce_ep *ep, sroce_ep_emit_fn emit, void *arg)
{
	memset(ep, 0, sizeof(*ep));
	ep->emit = emit;
	ep->emit_arg = arg;
}

void sroce_ep_destroy(struct sroce_ep *ep)
{
	u32 i;

	free(ep->mr);
	free(ep->srq.w);
	for (i = 0; i < ep->nxsrq; i++) {
		free(ep->xsrq[i].rq.w);
		free(ep->xsrq[i].cq.cqe);
	}
	free(ep->ah);
	memset(ep, 0, sizeof(*ep));
}

/* ---- memory regions ---- */

u32 sroce_ep_reg_mr(struct sroce_ep *ep, u32 pd, void *buf, u64 iova,
		    u64 len, u32 access)
{
	struct sroce_ep_mr *m = NULL;
	u32 i;

	for (i = 0; i < ep->nmr; i++) {
		if (!ep->mr[i].key) {
			m = &ep->mr[i];
			break;
		}
	}
	if (!m) {
		if (ep->nmr >= 0xffffff)
			return 0;
		if (ep->nmr == ep->mr_cap)
			ep->mr = ep_grow(ep->mr, &ep->mr_cap, sizeof(*ep->mr),
					 64);
		i = ep->nmr++;
		m = &ep->mr[i];
	}
	m->buf = buf;
	m->iova = iova;
	m->len = len;
	m->pd = pd;
	m->access = access;
	/* Slot in the high 24 bits, a rotating key byte in the low 8. */
	m->key = (i + 1) << 8 | (++ep->key_seq & 0xff);
	return m->key;
}

struct sroce_ep_mr *sroce_ep_mr_lookup(struct sroce_ep *ep, u32 key)
{
	u32 slot = key >> 8;

	if (!slot || slot > ep->nmr || ep->mr[slot - 1].key != key)
		return NULL;
	return &ep->mr[slot - 1];
}

void sroce_ep_dereg_mr(struct sroce_ep *ep, u32 key)
{
	struct sroce_ep_mr *m = sroce_ep_mr_lookup(ep, key);

	if (m)
		memset(m, 0, sizeof(*m));
}

u8 *sroce_ep_ref_ptr(const struct sroce_mem_ref *ref)
{
	const struct sroce_ep_mr *m = ref->mr;

	if (!m || !ref->len)
		return NULL;
	return m->buf + (ref->va - m->iova);
}

/* ---- address handles ---- */

u32 sroce_ep_add_ah(struct sroce_ep *ep, u8 peer, bool ipv6)
{
	struct sroce_ep_ah *a;

	ep->ah = realloc(ep->ah, (ep->nah + 1) * sizeof(*ep->ah));
	if (!ep->ah)
		abort();
	a = &ep->ah[ep->nah];
	a->id = ep->nah++;
	a->peer = peer;
	a->ipv6 = ipv6;
	return a->id;
}

const struct sroce_ep_ah *sroce_ep_get_ah(const struct sroce_ep *ep, u32 id)
{
	return id < ep->nah ? &ep->ah[id] : NULL;
}

/* ---- the ops table ---- */

static int ep_next_send(void *ctx, struct sroce_send_wqe *out)
{
	struct sroce_ep_qp *q = ctx;

	if (q->sq.head == q->sq.tail)
		return -SROCE_EAGAIN;
	*out = q->sq.w[q->sq.head++ % q->sq.cap];
	return 0;
}

static int ep_recv_wqe(void *ctx, struct sroce_recv_wqe *out)
{
	struct sroce_ep_qp *q = ctx;
	struct sroce_ep_rq *rq = q->use_srq ? &q->ep->srq : &q->rq;

	if (q->qp.xrc) {
		if (!q->xsrq) {
			ep_violation(q->ep, "XRC receive before xrc_srq");
			return -SROCE_EINVAL;
		}
		rq = &q->xsrq->rq;
	}
	if (rq->head == rq->tail)
		return -SROCE_EAGAIN;
	*out = rq->w[rq->head++ % rq->cap];
	return 0;
}

static int ep_mem_access(void *ctx, u32 key, bool remote, u64 va, u32 len,
			 u32 access, struct sroce_mem_ref *out)
{
	struct sroce_ep_qp *q = ctx;
	struct sroce_ep_mr *m;
	u32 pd = q->pd;

	bool key_only = access & SROCE_ACCESS_KEY_ONLY;

	/* An XRC target checks keys, local and remote, in its SRQ's PD. */
	if (q->qp.xrc == SROCE_QPT_XRC_TGT) {
		if (!q->xsrq) {
			ep_violation(q->ep, "XRC memory access before xrc_srq");
			return -SROCE_EINVAL;
		}
		pd = q->xsrq->pd;
	}

	/* the SRQ shares its QPs' PD here */
	access &= ~(SROCE_ACCESS_RECV | SROCE_ACCESS_KEY_ONLY);
	memset(out, 0, sizeof(*out));
	out->va = va;
	/* A zero-length range needs no key (IBA 9.4.4: R_Key not checked). */
	if (!len && !key_only)
		return 0;
	m = sroce_ep_mr_lookup(q->ep, key);
	if (!m || m->pd != pd)
		return -SROCE_EINVAL;
	if ((m->access & access) != access)
		return -SROCE_EACCES;
	if (remote && !access)
		return -SROCE_EACCES;
	/* FLUSH of a whole MR: key and rights only, no range. */
	if (key_only)
		return 0;
	if (va < m->iova || va - m->iova > m->len || len > m->len - (va - m->iova))
		return -SROCE_EFAULT;
	out->mr = m;
	out->len = len;
	return 0;
}

static bool ep_ref_ok(struct sroce_ep *ep, const char *who,
		      const struct sroce_mem_ref *r, u32 off, u32 len)
{
	const struct sroce_ep_mr *m = r->mr;

	if (!len)
		return true;
	if (!m || (u64)off + len > r->len) {
		ep_violation(ep, "%s: %u bytes at %u outside a %u-byte grant",
			     who, len, off, r->len);
		return false;
	}
	if (!m->key) {
		ep_violation(ep, "%s: grant of a deregistered MR", who);
		return false;
	}
	return true;
}

static bool ep_absent(struct sroce_ep *ep)
{
	if (!ep->absent || !ep->absent(ep->absent_arg))
		return false;
	ep->absent_hits++;
	return true;
}

static int ep_copy_in(void *ctx, const struct sroce_mem_ref *dst, u32 off,
		      const void *payload, u32 payload_off, u32 len)
{
	struct sroce_ep_qp *q = ctx;
	const struct sroce_ep_rx *rx = payload;
	u8 grh[SROCE_GRH_LEN];
	const u8 *src;

	if (!ep_ref_ok(q->ep, "copy_in", dst, off, len))
		return -SROCE_EFAULT;
	if (!len)
		return 0;
	if (ep_absent(q->ep))
		return -SROCE_EAGAIN;
	if (payload_off >= SROCE_COPY_GRH) {
		u32 k = payload_off - SROCE_COPY_GRH;

		if ((u64)k + len > SROCE_GRH_LEN) {
			ep_violation(q->ep, "copy_in: GRH bytes %u+%u", k, len);
			return -SROCE_EFAULT;
		}
		memset(grh, 0, sizeof(grh));
		if (rx->l3)
			memcpy(rx->ipv6 ? grh : grh + 20, rx->l3,
			       rx->ipv6 ? 40 : 20);
		src = grh + k;
	} else {
		if ((u64)payload_off + len > rx->len) {
			ep_violation(q->ep,
				     "copy_in: payload bytes %u+%u of %u",
				     payload_off, len, rx->len);
			return -SROCE_EFAULT;
		}
		src = rx->payload + payload_off;
	}
	memcpy(sroce_ep_ref_ptr(dst) + off, src, len);
	return 0;
}

static int ep_store(void *ctx, const struct sroce_mem_ref *dst, u32 off,
		    const void *src, u32 len)
{
	struct sroce_ep_qp *q = ctx;

	if (!ep_ref_ok(q->ep, "store", dst, off, len))
		return -SROCE_EFAULT;
	if (len && ep_absent(q->ep))
		return -SROCE_EAGAIN;
	if (len)
		memcpy(sroce_ep_ref_ptr(dst) + off, src, len);
	return 0;
}

static int ep_atomic(void *ctx, const struct sroce_mem_ref *dst, u8 op,
		     u64 cmp, u64 swap_add, u64 *orig)
{
	struct sroce_ep_qp *q = ctx;
	u64 v;
	u8 *p;

	if (!ep_ref_ok(q->ep, "atomic", dst, 0, 8))
		return -SROCE_EFAULT;
	if (dst->va & 7) {
		ep_violation(q->ep, "atomic: unaligned va %#llx",
			     (unsigned long long)dst->va);
		return -SROCE_EINVAL;
	}
	if (ep_absent(q->ep))
		return -SROCE_EAGAIN;
	p = sroce_ep_ref_ptr(dst);
	memcpy(&v, p, 8);
	*orig = v;
	if (op == SROCE_OP_CMP_SWAP) {
		if (v == cmp)
			v = swap_add;
	} else if (op == SROCE_OP_FETCH_ADD) {
		v += swap_add;
	} else if (op == SROCE_OP_ATOMIC_WRITE) {
		v = swap_add;
	} else {
		ep_violation(q->ep, "atomic: op %u", op);
		return -SROCE_EINVAL;
	}
	memcpy(p, &v, 8);
	return 0;
}

static void cq_push(struct sroce_ep_cq *cq, const struct sroce_cqe *c)
{
	if (cq->tail - cq->head == cq->cap) {
		/* Grow, keeping the ring order. */
		struct sroce_cqe *n;
		u32 i, cnt = cq->tail - cq->head;
		u32 cap = cq->cap ? cq->cap * 2 : 64;

		n = malloc((size_t)cap * sizeof(*n));
		if (!n)
			abort();
		for (i = 0; i < cnt; i++)
			n[i] = cq->cqe[(cq->head + i) % cq->cap];
		free(cq->cqe);
		cq->cqe = n;
		cq->cap = cap;
		cq->head = 0;
		cq->tail = cnt;
	}
	cq->cqe[cq->tail++ % cq->cap] = *c;
}

static void ep_complete(void *ctx, const struct sroce_cqe *cqe)
{
	struct sroce_ep_qp *q = ctx;
	struct sroce_ep_xsrq *x;

	if (cqe->is_recv && q->qp.xrc) {
		x = sroce_ep_get_xsrq(q->ep, cqe->srqn);
		if (!x || q->qp.xrc != SROCE_QPT_XRC_TGT) {
			ep_violation(q->ep, "XRC receive completion for SRQ %u",
				     cqe->srqn);
			return;
		}
		cq_push(&x->cq, cqe);
		return;
	}
	cq_push(cqe->is_recv ? &q->rcq : &q->scq, cqe);
}

static int ep_xrc_srq(void *ctx, u32 srqn)
{
	struct sroce_ep_qp *q = ctx;
	struct sroce_ep_xsrq *x = sroce_ep_get_xsrq(q->ep, srqn);

	q->xsrq = NULL;
	if (!x || x->xrcd != q->xrcd)
		return -SROCE_EINVAL;
	q->xsrq = x;
	return 0;
}

static void ep_event(void *ctx, enum sroce_qp_event ev)
{
	struct sroce_ep_qp *q = ctx;

	q->nevents++;
	q->last_event = ev;
}

/*
 * SEND_WITH_INV: the test endpoint lets any MR of the QP's PD be
 * invalidated (real verbs allow it for fast-register MRs and MWs).
 */
static int ep_invalidate(void *ctx, u32 rkey)
{
	struct sroce_ep_qp *q = ctx;
	struct sroce_ep_mr *m = sroce_ep_mr_lookup(q->ep, rkey);

	if (!m || m->pd != q->pd)
		return -SROCE_EINVAL;
	memset(m, 0, sizeof(*m));
	return 0;
}

static int ep_emit(void *ctx, const struct sroce_tx_pkt *pkt)
{
	struct sroce_ep_qp *q = ctx;

	return q->ep->emit ? q->ep->emit(q->ep->emit_arg, q, pkt) : 0;
}

static u64 ep_now(void *ctx)
{
	struct sroce_ep_qp *q = ctx;

	if (!q->ep->clock) {
		ep_violation(q->ep, "ops->now called but ep->clock is unset");
		return 0;
	}
	return *q->ep->clock;
}

const struct sroce_qp_ops sroce_ep_ops = {
	.next_send	= ep_next_send,
	.recv_wqe	= ep_recv_wqe,
	.mem_access	= ep_mem_access,
	.emit		= ep_emit,
	.copy_in	= ep_copy_in,
	.store		= ep_store,
	.atomic		= ep_atomic,
	.complete	= ep_complete,
	.event		= ep_event,
	.invalidate	= ep_invalidate,
	.xrc_srq	= ep_xrc_srq,
	.now		= ep_now,
};

bool sroce_ep_poll(struct sroce_ep_cq *cq, struct sroce_cqe *c)
{
	if (cq->head == cq->tail)
		return false;
	*c = cq->cqe[cq->head++ % cq->cap];
	return true;
}

u32 sroce_ep_pkt_copy(struct sroce_ep *ep, const struct sroce_tx_pkt *pkt,
		      u8 *dst)
{
	u32 n = pkt->hdr_len, i, sum = 0;
	const struct sroce_tx_seg *s;

	memcpy(dst, pkt->hdr, pkt->hdr_len);
	if (pkt->inline_data) {
		memcpy(dst + n, pkt->inline_data, pkt->paylen);
		n += pkt->paylen;
	} else {
		for (i = 0; i < pkt->nseg && i < SROCE_MAX_SGE; i++) {
			s = &pkt->seg[i];
			if (!ep_ref_ok(ep, "emit", &s->ref, s->off, s->len) ||
			    sum + s->len > pkt->paylen) {
				ep_violation(ep, "emit: bad segment %u", i);
				break;
			}
			if (s->len)
				memcpy(dst + n, sroce_ep_ref_ptr(&s->ref) +
				       s->off, s->len);
			n += s->len;
			sum += s->len;
		}
		if (sum != pkt->paylen) {
			ep_violation(ep, "emit: segments %u != paylen %u", sum,
				     pkt->paylen);
			memset(dst + n, 0, pkt->paylen - sum);
			n = pkt->hdr_len + pkt->paylen;
		}
	}
	memset(dst + n, 0, pkt->pad);
	return n + pkt->pad;
}

/* ---- queue pairs ---- */

struct sroce_ep_qp *sroce_ep_qp_create(struct sroce_ep *ep,
				       enum sroce_qp_type type, u32 qpn,
				       u32 pd, u32 sq_size, u32 max_res,
				       bool use_srq, bool sq_sig_all)
{
	struct sroce_qp_init_attr ia;
	struct sroce_ep_qp *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->ep = ep;
	q->pd = pd;
	q->use_srq = use_srq;
	q->swqe = calloc(sq_size ? sq_size : 1, sizeof(*q->swqe));
	q->res = max_res ? calloc(max_res, sizeof(*q->res)) : NULL;
	if (!q->swqe || (max_res && !q->res))
		goto fail;
	memset(&ia, 0, sizeof(ia));
	ia.type = type;
	ia.qpn = qpn;
	ia.sq = q->swqe;
	ia.sq_size = sq_size;
	ia.res = q->res;
	ia.max_res = max_res;
	ia.sq_sig_all = sq_sig_all;
	ia.srq = use_srq;
	ia.ud_mtu = ep->ud_mtu;
	ia.cc = ep->cc;
	ia.ops = &sroce_ep_ops;
	ia.ctx = q;
	if (sroce_qp_init(&q->qp, &ia))
		goto fail;
	return q;
fail:
	free(q->swqe);
	free(q->res);
	free(q);
	return NULL;
}

void sroce_ep_qp_destroy(struct sroce_ep_qp *q)
{
	if (!q)
		return;
	free(q->swqe);
	free(q->res);
	free(q->sq.w);
	free(q->rq.w);
	free(q->scq.cqe);
	free(q->rcq.cqe);
	free(q);
}

int sroce_ep_qp_connect(struct sroce_ep_qp *q, const struct sroce_qp_attr *a,
			u64 now)
{
	struct sroce_qp_attr at = *a;
	bool ud = q->qp.type == SROCE_QPT_UD;
	bool rc = q->qp.type == SROCE_QPT_RC;
	u32 m;
	int ret;

	at.qp_state = SROCE_QPS_INIT;
	m = SROCE_QP_STATE | SROCE_QP_PKEY_INDEX | SROCE_QP_PORT |
	    (ud ? SROCE_QP_QKEY : SROCE_QP_ACCESS_FLAGS);
	ret = sroce_qp_modify(&q->qp, &at, m, now);
	if (ret)
		return ret;
	at.qp_state = SROCE_QPS_RTR;
	m = SROCE_QP_STATE;
	if (!ud)
		m |= SROCE_QP_AV | SROCE_QP_PATH_MTU | SROCE_QP_DEST_QPN |
		     SROCE_QP_RQ_PSN;
	if (rc)
		m |= SROCE_QP_MAX_DEST_RD_ATOMIC | SROCE_QP_MIN_RNR_TIMER;
	ret = sroce_qp_modify(&q->qp, &at, m, now);
	if (ret)
		return ret;
	at.qp_state = SROCE_QPS_RTS;
	m = SROCE_QP_STATE | SROCE_QP_SQ_PSN;
	if (rc)
		m |= SROCE_QP_TIMEOUT | SROCE_QP_RETRY_CNT |
		     SROCE_QP_RNR_RETRY | SROCE_QP_MAX_QP_RD_ATOMIC;
	return sroce_qp_modify(&q->qp, &at, m, now);
}

void sroce_ep_post_send(struct sroce_ep_qp *q, const struct sroce_send_wqe *w)
{
	struct sroce_ep_sq *sq = &q->sq;

	if (sq->tail - sq->head == sq->cap) {
		struct sroce_send_wqe *n;
		u32 i, cnt = sq->tail - sq->head;
		u32 cap = sq->cap ? sq->cap * 2 : 64;

		n = malloc((size_t)cap * sizeof(*n));
		if (!n)
			abort();
		for (i = 0; i < cnt; i++)
			n[i] = sq->w[(sq->head + i) % sq->cap];
		free(sq->w);
		sq->w = n;
		sq->cap = cap;
		sq->head = 0;
		sq->tail = cnt;
	}
	sq->w[sq->tail++ % sq->cap] = *w;
}

static void rq_push(struct sroce_ep_rq *rq, const struct sroce_recv_wqe *w)
{
	if (rq->tail - rq->head == rq->cap) {
		struct sroce_recv_wqe *n;
		u32 i, cnt = rq->tail - rq->head;
		u32 cap = rq->cap ? rq->cap * 2 : 64;

		n = malloc((size_t)cap * sizeof(*n));
		if (!n)
			abort();
		for (i = 0; i < cnt; i++)
			n[i] = rq->w[(rq->head + i) % rq->cap];
		free(rq->w);
		rq->w = n;
		rq->cap = cap;
		rq->head = 0;
		rq->tail = cnt;
	}
	rq->w[rq->tail++ % rq->cap] = *w;
}

void sroce_ep_post_recv(struct sroce_ep_qp *q, const struct sroce_recv_wqe *w)
{
	rq_push(&q->rq, w);
}

void sroce_ep_post_srq(struct sroce_ep *ep, const struct sroce_recv_wqe *w)
{
	rq_push(&ep->srq, w);
}

u32 sroce_ep_add_xsrq(struct sroce_ep *ep, u32 xrcd, u32 pd)
{
	struct sroce_ep_xsrq *x;

	if (ep->nxsrq == SROCE_EP_MAX_XSRQ)
		return 0;
	x = &ep->xsrq[ep->nxsrq++];
	memset(x, 0, sizeof(*x));
	x->srqn = ep->nxsrq;
	x->xrcd = xrcd;
	x->pd = pd;
	return x->srqn;
}

struct sroce_ep_xsrq *sroce_ep_get_xsrq(struct sroce_ep *ep, u32 srqn)
{
	if (!srqn || srqn > ep->nxsrq)
		return NULL;
	return &ep->xsrq[srqn - 1];
}

void sroce_ep_post_xsrq(struct sroce_ep *ep, u32 srqn,
			const struct sroce_recv_wqe *w)
{
	struct sroce_ep_xsrq *x = sroce_ep_get_xsrq(ep, srqn);

	if (x)
		rq_push(&x->rq, w);
}
