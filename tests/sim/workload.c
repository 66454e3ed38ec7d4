// SPDX-License-Identifier: GPL-2.0
/*
 * The random workload and its verification model.
 *
 * Every QP pair carries two flows, one per direction.  A flow posts
 * random WQEs (SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, READ,
 * CMP_SWAP, FETCH_ADD on RC; the sends and writes on UC; sends on UD)
 * over scattered SGEs in freshly registered buffers surrounded by guard
 * bytes, and checks each completion against what it posted:
 *
 *  - send queue: one completion per signaled WQE, in order, right status
 *    and opcode; unsignaled ones are implied by the next completion;
 *  - RC: WRITE data at the responder, READ data at the requester, atomic
 *    results against a sequential model of the target word, receives
 *    exactly once and in order with the right byte_len/imm/flags, and
 *    nothing written outside the bytes the operation names;
 *  - UC/UD: what is delivered is intact, in order (UC), never twice
 *    (unless the link duplicates UD datagrams), and a UC WRITE whose
 *    last packet was lost left a prefix of whole packets behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psn.h"
#include "sim.h"

#define WL_GUARD	16
#define WL_TAG		0x5e9d0000u

/* A registered buffer: data pieces scattered among guard bytes. */
struct wl_region {
	u8 *mem;
	u64 size;
	u64 iova;
	u32 key;
	u8 side;
	u8 fill;
	u8 nsge;
	struct sroce_sge sge[SROCE_MAX_SGE];
};

struct wl_meta {
	u8 op;
	u8 solicited;
	u8 delivered;
	u32 len;
	u32 imm;
};

/* A posted send WQE, until its completion is checked. */
struct wl_msg {
	u64 wr_id;
	u32 seq;
	u8 op;
	u8 signaled;
	u32 len;
	u64 expect;		/* atomic: the original value */
	struct wl_region loc;	/* local SGEs */
	struct wl_region rem;	/* WRITE target / READ source at the peer */
	struct wl_region inv;	/* SEND_WITH_INV: the peer's MR to invalidate */
	u64 rva;
};

/* A posted receive WQE. */
struct wl_recv {
	u64 wr_id;
	u32 seq;		/* RC: the message it must receive */
	u32 cap;
	struct wl_region buf;
};

struct wl_flow {
	u32 id;
	struct sim_qp *src, *dst;
	enum sroce_qp_type type;
	u32 quota, posted, completed;
	u32 max_len;
	struct wl_meta *meta;
	struct wl_msg *ring;
	u32 head, tail, depth;
	struct wl_recv *rring;
	u32 rhead, rtail, rdepth;
	u32 rposted;			/* records handed to the endpoint */
	u32 recv_msgs;			/* RC: recv-consuming messages posted */
	u32 last_seq;			/* UC: newest delivered + 1 */
	u32 flushes;			/* FLUSHes completed */
	/* atomic target word at the peer */
	struct wl_region atom;
	u64 aval;
	/* UC WRITE targets, checked at the end */
	struct wl_region *ucw;
	bool done;
};

struct wl {
	struct wl_flow *flows;
	u32 nflows;
	u64 next_wr_id;
	u8 *scratch;
	u64 scratch_len;
	u8 *image;
	u64 image_len;
	u64 done_flows;
	/* remote buffers waiting out the network before deregistration */
	struct wl_grave {
		u64 at;
		struct wl_region r;
	} *grave;
	u32 ghead, gtail, gcap;
};

/*
 * How long a remote buffer stays registered after the requester's
 * completion.  An application learns of the completion through a message
 * that travels the same network, and any late copy of a request (link
 * duplicate, reordered frame, an earlier retransmission) is older than
 * that message; 200 us covers the link model's longest extra delay.
 */
#define WL_DEREG_DELAY	200000ull

static struct wl *WL(struct sim *s)
{
	return s->wl;
}

static u8 *grow(u8 **p, u64 *cap, u64 need)
{
	if (need > *cap) {
		free(*p);
		*cap = need + 4096;
		*p = malloc(*cap);
		if (!*p)
			abort();
	}
	return *p;
}

/* The bytes of message @seq of flow @fl: a pure function of the seed. */
static void msg_bytes(struct sim *s, struct wl_flow *fl, u32 seq, u8 *p,
		      u32 len)
{
	struct sroce_rng r;
	u32 tag[2] = { seq, WL_TAG ^ fl->id };

	sroce_rng_derive(&r, s->o.seed, 1000 + fl->id, seq);
	sroce_rng_fill(&r, p, len);
	/* UC/UD receivers learn which message arrived from its first bytes. */
	if (fl->type != SROCE_QPT_RC && len >= 8)
		memcpy(p, tag, 8);
}

static const char *fname(const struct wl_flow *fl)
{
	static char b[4][24];
	static int k;
	char *p = b[k++ & 3];

	snprintf(p, 24, "%u/%s", fl->id, fl->type == SROCE_QPT_RC ? "RC" :
		 fl->type == SROCE_QPT_UC ? "UC" : "UD");
	return p;
}

static bool rc_like(const struct wl_flow *fl)
{
	return fl->type == SROCE_QPT_RC;
}

static u32 pick_len(struct sim *s, u32 max)
{
	u32 r = (u32)sroce_rng_below(&s->rng, 1000), n;

	if (r < 500)
		n = (u32)sroce_rng_below(&s->rng, 65);
	else if (r < 800)
		n = (u32)sroce_rng_range(&s->rng, 65, 4096);
	else if (r < 960)
		n = (u32)sroce_rng_range(&s->rng, 4097, 65536);
	else if (r < 997)
		n = (u32)sroce_rng_range(&s->rng, 65537, 512 * 1024);
	else
		n = (u32)sroce_rng_range(&s->rng, 512 * 1024, 8u << 20);
	return n > max ? (u32)sroce_rng_below(&s->rng, (u64)max + 1) : n;
}

/*
 * Allocate and register a region holding @len logical bytes in @nsge
 * pieces laid out in shuffled order with guard gaps, so that a core
 * walking SGEs wrongly reads or writes the wrong bytes.  @data (may be
 * NULL) is copied in; the rest is @fill.
 */
static void region_make(struct sim *s, struct wl_region *r, u8 side,
			u32 len, u32 nsge, u32 access, const u8 *data)
{
	u32 cut[SROCE_MAX_SGE + 1], order[SROCE_MAX_SGE], i, j, t;
	u64 off[SROCE_MAX_SGE], pos;

	memset(r, 0, sizeof(*r));
	if (!nsge)
		return;
	r->side = side;
	r->nsge = (u8)nsge;
	r->fill = (u8)sroce_rng_next(&s->rng);
	cut[0] = 0;
	cut[nsge] = len;
	for (i = 1; i < nsge; i++)
		cut[i] = (u32)sroce_rng_below(&s->rng, (u64)len + 1);
	/* sort the cut points */
	for (i = 1; i < nsge; i++)
		for (j = i; j > 1 && cut[j - 1] > cut[j]; j--) {
			t = cut[j];
			cut[j] = cut[j - 1];
			cut[j - 1] = t;
		}
	for (i = 0; i < nsge; i++)
		order[i] = i;
	for (i = nsge - 1; i > 0; i--) {
		j = (u32)sroce_rng_below(&s->rng, i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	pos = WL_GUARD;
	for (i = 0; i < nsge; i++) {
		u32 k = order[i];

		off[k] = pos;
		pos += cut[k + 1] - cut[k] + WL_GUARD +
		       sroce_rng_below(&s->rng, 8);
	}
	r->size = pos;
	r->mem = malloc(r->size);
	if (!r->mem)
		abort();
	memset(r->mem, r->fill, r->size);
	/* iova unrelated to the host address; same alignment mod 16 */
	r->iova = (sroce_rng_next(&s->rng) & 0x00007ffffffff000ull) + 0x1000;
	r->key = sroce_ep_reg_mr(&s->ep[side], 1, r->mem, r->iova, r->size,
				 access);
	for (i = 0; i < nsge; i++) {
		r->sge[i].addr = r->iova + off[i];
		r->sge[i].length = cut[i + 1] - cut[i];
		r->sge[i].lkey = r->key;
		if (data && r->sge[i].length)
			memcpy(r->mem + off[i], data + cut[i],
			       r->sge[i].length);
	}
}

static void region_free(struct sim *s, struct wl_region *r)
{
	struct sroce_ep_mr *mr;

	if (r->mem) {
		/* Unless a SEND_WITH_INV already invalidated it. */
		mr = sroce_ep_mr_lookup(&s->ep[r->side], r->key);
		if (mr && mr->buf == r->mem)
			sroce_ep_dereg_mr(&s->ep[r->side], r->key);
		free(r->mem);
	}
	memset(r, 0, sizeof(*r));
}

/* Free buried regions whose time has come (all of them if @all). */
static void grave_reap(struct sim *s, bool all)
{
	struct wl *w = WL(s);
	struct wl_grave *g;

	while (w->ghead != w->gtail) {
		g = &w->grave[w->ghead % w->gcap];
		if (!all && g->at > s->now)
			break;
		region_free(s, &g->r);
		w->ghead++;
	}
}

static void region_bury(struct sim *s, struct wl_region *r)
{
	struct wl *w = WL(s);
	u32 i, n;

	if (!r->mem)
		return;
	if (w->gtail - w->ghead == w->gcap) {
		struct wl_grave *ng;
		u32 cap = w->gcap ? w->gcap * 2 : 256;

		ng = malloc(cap * sizeof(*ng));
		if (!ng)
			abort();
		n = w->gtail - w->ghead;
		for (i = 0; i < n; i++)
			ng[i] = w->grave[(w->ghead + i) % w->gcap];
		free(w->grave);
		w->grave = ng;
		w->gcap = cap;
		w->ghead = 0;
		w->gtail = n;
	}
	w->grave[w->gtail % w->gcap].at = s->now + WL_DEREG_DELAY;
	w->grave[w->gtail % w->gcap].r = *r;
	w->gtail++;
	memset(r, 0, sizeof(*r));
}

/*
 * Does @r hold @n bytes of @want at the start of its logical stream and
 * its fill byte everywhere else?  Returns the first bad offset or -1.
 */
static long region_check_tail(struct sim *s, const struct wl_region *r,
			      const u8 *want, u64 n, bool tail_any);

static long region_check(struct sim *s, const struct wl_region *r,
			 const u8 *want, u64 n)
{
	return region_check_tail(s, r, want, n, false);
}

/*
 * As region_check(), but with @tail_any the logical bytes after the
 * first @n may hold anything (a UC receive buffer may keep the start of
 * a message that was dropped half-way: IBA 9.8.3, the WQE is reused;
 * so may a UD one when a page was not present).
 */
static long region_check_tail(struct sim *s, const struct wl_region *r,
			      const u8 *want, u64 n, bool tail_any)
{
	struct wl *w = WL(s);
	u8 *img;
	u64 done = 0, k, i;

	if (!r->mem)
		return n ? 0 : -1;
	img = grow(&w->image, &w->image_len, r->size);
	memset(img, r->fill, r->size);
	for (i = 0; i < r->nsge && done < n; i++) {
		u64 o = r->sge[i].addr - r->iova;

		k = r->sge[i].length;
		if (k > n - done)
			k = n - done;
		memcpy(img + o, want + done, k);
		done += k;
	}
	if (done < n)
		return (long)done;	/* more data than the SGEs hold */
	if (tail_any) {
		/* Copy the don't-care bytes over from the buffer itself. */
		for (i = 0, done = 0; i < r->nsge; i++) {
			u64 o = r->sge[i].addr - r->iova, skip = 0;

			k = r->sge[i].length;
			if (done < n)
				skip = n - done < k ? n - done : k;
			memcpy(img + o + skip, r->mem + o + skip, k - skip);
			done += k;
		}
	}
	if (!memcmp(img, r->mem, r->size))
		return -1;
	for (i = 0; i < r->size; i++)
		if (img[i] != r->mem[i])
			return (long)i;
	return -1;
}

/* Single-piece remote region with guards, optionally tight MR bounds. */
static u64 remote_make(struct sim *s, struct wl_region *r, u8 side, u32 len,
		       u32 access, const u8 *data)
{
	region_make(s, r, side, len, 1, access, data);
	return r->sge[0].addr;
}

/* UD datagrams are bounded by the port MTU the endpoint gave the QP. */
static u32 ud_mtu(struct wl_flow *fl)
{
	u8 m = fl->src->q->ep->ud_mtu;

	return m ? sroce_mtu_bytes(m) : 4096;
}

static u32 wl_recv_cap(struct sim *s, struct wl_flow *fl)
{
	if (fl->type == SROCE_QPT_UD)
		return SROCE_GRH_LEN + ud_mtu(fl);
	return fl->max_len;
}

static void hand_recvs(struct sim *s, struct wl_flow *fl);

static void post_recv(struct sim *s, struct wl_flow *fl, u32 seq, u32 cap)
{
	struct wl *w = WL(s);
	struct wl_recv *rv;
	u32 nsge;

	if (fl->rtail - fl->rhead == fl->rdepth) {
		sim_fail(s, "flow %s: receive ring full: oldest receive for seq %u, oldest send seq %u, next seq %u",
			 fname(fl), fl->rring[fl->rhead % fl->rdepth].seq,
			 fl->ring[fl->head % fl->depth].seq, seq);
		return;
	}
	rv = &fl->rring[fl->rtail++ % fl->rdepth];
	memset(rv, 0, sizeof(*rv));
	rv->wr_id = ++w->next_wr_id;
	rv->seq = seq;
	rv->cap = cap;
	nsge = 1 + (u32)sroce_rng_below(&s->rng, 4);
	if (fl->type == SROCE_QPT_UD)
		nsge = 1 + (u32)sroce_rng_below(&s->rng, 2);
	if (!cap && !sroce_rng_below(&s->rng, 2))
		nsge = 0;
	region_make(s, &rv->buf, fl->dst->side, cap, nsge,
		    SROCE_ACCESS_LOCAL_WRITE, NULL);
	if (fl->rposted + 1 != fl->rtail)
		return;		/* behind a late one: posted with it */
	if (fl->type == SROCE_QPT_RC &&
	    sroce_rng_ppm(&s->rng, s->o.late_recv_ppm)) {
		/* Post it late: the SEND meets an empty RQ (RNR NAK). */
		sim_at(s, s->now + 1000 + sroce_rng_below(&s->rng, 100000),
		       fl->id);
		return;
	}
	hand_recvs(s, fl);
}

/* Give the endpoint every receive not yet posted, in order. */
static void hand_recvs(struct sim *s, struct wl_flow *fl)
{
	struct sroce_recv_wqe rw;
	struct wl_recv *rv;

	while (fl->rposted != fl->rtail) {
		rv = &fl->rring[fl->rposted++ % fl->rdepth];
		memset(&rw, 0, sizeof(rw));
		rw.wr_id = rv->wr_id;
		rw.num_sge = rv->buf.nsge;
		memcpy(rw.sge, rv->buf.sge, rw.num_sge * sizeof(rw.sge[0]));
		sroce_ep_post_recv(fl->dst->q, &rw);
	}
}

static void wl_action(struct sim *s, u32 flow)
{
	struct wl *w = WL(s);

	if (flow < w->nflows)
		hand_recvs(s, &w->flows[flow]);
}

static u8 pick_op(struct sim *s, struct wl_flow *fl)
{
	static const u8 rc[] = {
		SROCE_WR_SEND, SROCE_WR_SEND, SROCE_WR_SEND,
		SROCE_WR_SEND_WITH_IMM, SROCE_WR_RDMA_WRITE,
		SROCE_WR_RDMA_WRITE, SROCE_WR_RDMA_WRITE_WITH_IMM,
		SROCE_WR_RDMA_READ, SROCE_WR_RDMA_READ,
		SROCE_WR_ATOMIC_CMP_AND_SWP, SROCE_WR_ATOMIC_FETCH_AND_ADD,
		SROCE_WR_SEND_WITH_INV, SROCE_WR_ATOMIC_WRITE, SROCE_WR_FLUSH,
	};
	static const u8 uc[] = {
		SROCE_WR_SEND, SROCE_WR_SEND_WITH_IMM, SROCE_WR_RDMA_WRITE,
		SROCE_WR_RDMA_WRITE_WITH_IMM,
	};

	if (fl->type == SROCE_QPT_RC)
		return rc[sroce_rng_below(&s->rng, ARRAY_SIZE(rc))];
	if (fl->type == SROCE_QPT_UC)
		return uc[sroce_rng_below(&s->rng, ARRAY_SIZE(uc))];
	return uc[sroce_rng_below(&s->rng, 2)];
}

static bool op_recv(u8 op)
{
	return op == SROCE_WR_SEND || op == SROCE_WR_SEND_WITH_IMM ||
	       op == SROCE_WR_SEND_WITH_INV ||
	       op == SROCE_WR_RDMA_WRITE_WITH_IMM;
}

static bool op_imm(u8 op)
{
	return op == SROCE_WR_SEND_WITH_IMM ||
	       op == SROCE_WR_RDMA_WRITE_WITH_IMM;
}

static void post_one(struct sim *s, struct wl_flow *fl)
{
	struct wl *w = WL(s);
	struct sroce_send_wqe wq;
	struct wl_meta *mt;
	struct wl_msg *m;
	u32 seq = fl->posted++, nsge, access = 0;
	u8 *data;
	u8 op;

	m = &fl->ring[fl->tail++ % fl->depth];
	memset(m, 0, sizeof(*m));
	memset(&wq, 0, sizeof(wq));
	op = pick_op(s, fl);
	m->op = op;
	m->seq = seq;
	m->wr_id = ++w->next_wr_id;
	/*
	 * Some WQEs unsignaled, but never four in a row, never the last and
	 * never one that fills the ring: a later completion must always
	 * come to imply them.
	 */
	m->signaled = sroce_rng_below(&s->rng, 10) != 0 || seq % 4 == 3 ||
		      seq + 1 == fl->quota || fl->tail - fl->head == fl->depth;
	if (op == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	    op == SROCE_WR_ATOMIC_FETCH_AND_ADD ||
	    op == SROCE_WR_ATOMIC_WRITE)
		m->len = 8;
	else if (op == SROCE_WR_FLUSH)
		m->len = 0;
	else
		m->len = pick_len(s, fl->max_len);
	if (fl->type != SROCE_QPT_RC && m->len < 8 &&
	    (op == SROCE_WR_SEND || op == SROCE_WR_SEND_WITH_IMM))
		m->len = 8;
	if (fl->type == SROCE_QPT_UD && m->len > ud_mtu(fl))
		m->len = 8 + (u32)sroce_rng_below(&s->rng, ud_mtu(fl) - 7);
	mt = &fl->meta[seq];
	mt->op = op;
	mt->len = m->len;
	mt->imm = fl->type == SROCE_QPT_RC ? (u32)sroce_rng_next(&s->rng) :
		  WL_TAG ^ seq;
	mt->solicited = (u8)sroce_rng_below(&s->rng, 2);

	data = grow(&w->scratch, &w->scratch_len, m->len + 8);
	msg_bytes(s, fl, seq, data, m->len);

	wq.wr_id = m->wr_id;
	wq.opcode = op;
	wq.send_flags = (m->signaled ? SROCE_SEND_SIGNALED : 0) |
			(mt->solicited ? SROCE_SEND_SOLICITED : 0);
	/* Now and then a fence: waits for earlier READs and atomics. */
	if (fl->type == SROCE_QPT_RC && !sroce_rng_below(&s->rng, 32))
		wq.send_flags |= SROCE_SEND_FENCE;
	wq.ex = mt->imm;
	if (op == SROCE_WR_RDMA_READ)
		access = SROCE_ACCESS_LOCAL_WRITE;
	if (op == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	    op == SROCE_WR_ATOMIC_FETCH_AND_ADD) {
		access = SROCE_ACCESS_LOCAL_WRITE;
		/* CMP_SWAP: compare equal half the time */
		wq.atomic.compare_add = sroce_rng_below(&s->rng, 2) ?
			fl->aval : sroce_rng_next(&s->rng);
		wq.atomic.swap = sroce_rng_next(&s->rng);
		if (op == SROCE_WR_ATOMIC_FETCH_AND_ADD)
			wq.atomic.compare_add = sroce_rng_next(&s->rng);
		wq.atomic.rkey = fl->atom.key;
		wq.atomic.remote_addr = fl->atom.sge[0].addr;
		m->expect = fl->aval;
		if (op == SROCE_WR_ATOMIC_FETCH_AND_ADD)
			fl->aval += wq.atomic.compare_add;
		else if (fl->aval == wq.atomic.compare_add)
			fl->aval = wq.atomic.swap;
		region_make(s, &m->loc, fl->src->side, 8, 1, access, NULL);
		wq.num_sge = 1;
		wq.sge[0] = m->loc.sge[0];
	} else if (op == SROCE_WR_ATOMIC_WRITE) {
		/* The atomic word, in order with the flow's other atomics. */
		wq.atomic_wr.remote_addr = fl->atom.sge[0].addr;
		wq.atomic_wr.rkey = fl->atom.key;
		memcpy(wq.atomic_wr.value, data, 8);
		memcpy(&fl->aval, data, 8);
	} else if (op == SROCE_WR_FLUSH) {
		/* The word, an empty range, or its whole MR; either type. */
		wq.flush.remote_addr = fl->atom.sge[0].addr;
		wq.flush.rkey = fl->atom.key;
		wq.flush.length = (u32)sroce_rng_below(&s->rng, 2) * 8;
		wq.flush.type = 1 + (u8)sroce_rng_below(&s->rng, 3);
		wq.flush.level = (u8)sroce_rng_below(&s->rng, 2);
		if (wq.flush.level == SROCE_FLUSH_MR)
			wq.flush.remote_addr = sroce_rng_next(&s->rng);
	} else {
		bool inl = op != SROCE_WR_RDMA_READ && m->len <= 256 &&
			   !sroce_rng_below(&s->rng, 4);

		if (inl) {
			wq.send_flags |= SROCE_SEND_INLINE;
			wq.inline_len = m->len;
			memcpy(wq.inline_data, data, m->len);
		} else {
			nsge = m->len ? 1 + (u32)sroce_rng_below(&s->rng, 4) :
				(u32)sroce_rng_below(&s->rng, 2);
			if (!sroce_rng_below(&s->rng, 50))
				nsge = 1 + (u32)sroce_rng_below(&s->rng,
								SROCE_MAX_SGE);
			region_make(s, &m->loc, fl->src->side, m->len, nsge,
				    access, op == SROCE_WR_RDMA_READ ?
				    NULL : data);
			wq.num_sge = (u8)nsge;
			memcpy(wq.sge, m->loc.sge, nsge * sizeof(wq.sge[0]));
		}
		if (op == SROCE_WR_RDMA_WRITE ||
		    op == SROCE_WR_RDMA_WRITE_WITH_IMM) {
			m->rva = remote_make(s, &m->rem, fl->dst->side, m->len,
					     SROCE_ACCESS_REMOTE_WRITE, NULL);
			wq.rdma.remote_addr = m->rva;
			wq.rdma.rkey = m->rem.key;
		} else if (op == SROCE_WR_RDMA_READ) {
			m->rva = remote_make(s, &m->rem, fl->dst->side, m->len,
					     SROCE_ACCESS_REMOTE_READ, data);
			wq.rdma.remote_addr = m->rva;
			wq.rdma.rkey = m->rem.key;
		}
	}
	if (op == SROCE_WR_SEND_WITH_INV) {
		region_make(s, &m->inv, fl->dst->side, 64, 1,
			    SROCE_ACCESS_REMOTE_WRITE, NULL);
		wq.ex = m->inv.key;
		mt->imm = m->inv.key;
	}
	if (fl->type == SROCE_QPT_UD) {
		wq.ud.ah = 0;
		wq.ud.remote_qpn = fl->dst->q->qp.qpn;
		wq.ud.remote_qkey = sroce_rng_below(&s->rng, 2) ?
			0x11111111 : 1u << 31;
	}
	if (fl->type == SROCE_QPT_RC && op_recv(op))
		post_recv(s, fl, seq, op == SROCE_WR_RDMA_WRITE_WITH_IMM ?
			  (u32)sroce_rng_below(&s->rng, 64) :
			  m->len + (u32)sroce_rng_below(&s->rng, 64));
	sroce_ep_post_send(fl->src->q, &wq);
}

static void fill_flow(struct sim *s, struct wl_flow *fl)
{
	while (!fl->done && !fl->src->broken && fl->posted < fl->quota &&
	       fl->tail - fl->head < fl->depth && !s->failed)
		post_one(s, fl);
}

static u8 wc_of(u8 op)
{
	switch (op) {
	case SROCE_WR_RDMA_WRITE:
	case SROCE_WR_RDMA_WRITE_WITH_IMM:
		return SROCE_WC_RDMA_WRITE;
	case SROCE_WR_RDMA_READ:
		return SROCE_WC_RDMA_READ;
	case SROCE_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_WC_COMP_SWAP;
	case SROCE_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_WC_FETCH_ADD;
	case SROCE_WR_ATOMIC_WRITE:
		return SROCE_WC_ATOMIC_WRITE;
	case SROCE_WR_FLUSH:
		return SROCE_WC_FLUSH;
	default:
		return SROCE_WC_SEND;
	}
}

static const char *const wr_name[] = {
	"WRITE", "WRITE_IMM", "SEND", "SEND_IMM", "READ", "CMP_SWAP",
	"FETCH_ADD", "?", "?", "SEND_INV", "?", "?", "?", "?", "FLUSH",
	"ATOMIC_WRITE",
};

/*
 * ACK timeouts' worth of time since @sq's last progress in which its
 * peer's TX queue refused everything: no answer could leave, so to the
 * requester each such period is a lost answer, as on a dead wire.
 */
static u64 peer_stalled(struct sim *s, struct sim_qp *sq)
{
	struct sim_qp *peer = &s->qp[!sq->side][sq->idx];
	u64 busy = sq->peer_busy_ns;
	u64 ahead = peer->tx_busy_until > s->now ?
		    peer->tx_busy_until - s->now : 0;	/* not yet spent */

	busy = busy > ahead ? busy - ahead : 0;
	return busy / sroce_ack_timeout_ns(s->o.timeout);
}

/* A pair failed legitimately (or by a scenario): stop it, flush both. */
static void break_pair(struct sim *s, struct sim_qp *sq)
{
	struct sim_qp *peer = &s->qp[!sq->side][sq->idx];
	struct sroce_qp_attr a;

	sq->broken = peer->broken = true;
	memset(&a, 0, sizeof(a));
	a.qp_state = SROCE_QPS_ERR;
	if (peer->q->qp.state != SROCE_QPS_ERR) {
		sroce_qp_modify(&peer->q->qp, &a, SROCE_QP_STATE, s->now);
		sim_service(s, peer);
	}
	if (sq->q->qp.state != SROCE_QPS_ERR)
		sroce_qp_modify(&sq->q->qp, &a, SROCE_QP_STATE, s->now);
}

static void finish_msg(struct sim *s, struct wl_flow *fl, struct wl_msg *m,
		       const struct sroce_cqe *c)
{
	struct wl *w = WL(s);
	u8 status = c ? c->status : SROCE_WC_SUCCESS;
	u8 *data;
	long bad;
	u64 v;

	if (s->o.trace && fl->src->idx == s->o.trace - 1)
		printf("%12llu   side %u wr_id %llu seq %u %s len %u: status %u\n",
		       (unsigned long long)s->now, fl->src->side,
		       (unsigned long long)m->wr_id, m->seq, wr_name[m->op],
		       m->len, status);
	if (status != SROCE_WC_SUCCESS) {
		if (fl->src->broken) {
			if (status != SROCE_WC_WR_FLUSH_ERR &&
			    status != SROCE_WC_RETRY_EXC_ERR)
				sim_fail(s, "flow %s seq %u: status %u after the pair failed",
					 fname(fl), m->seq, status);
		} else if (status == SROCE_WC_RETRY_EXC_ERR &&
			   fl->src->lost_since_ok + peer_stalled(s, fl->src) >=
			   s->o.retry_cnt) {
			/*
			 * retry_cnt + 1 transmissions, each lost (or its
			 * answer).  The first may have gone out, and been lost,
			 * before the previous message completed and reset the
			 * count: at most that one goes uncounted.
			 */
			s->st.retry_exc_legit++;
			break_pair(s, fl->src);
		} else {
			sim_fail(s,
				 "flow %s seq %u %s len %u: status %u (lost since progress %llu, peer busy %llu us)%s",
				 fname(fl), m->seq, wr_name[m->op], m->len,
				 status,
				 (unsigned long long)fl->src->lost_since_ok,
				 (unsigned long long)fl->src->peer_busy_ns / 1000,
				 status == SROCE_WC_WR_FLUSH_ERR ?
				 "; the QP left RTS as a responder (--trace shows why)" :
				 "");
		}
		goto out;
	}
	if (c && c->opcode != wc_of(m->op))
		sim_fail(s, "flow %s seq %u: wc opcode %u for %s", fname(fl),
			 m->seq, c->opcode, wr_name[m->op]);
	/* byte_len is defined on the send side for READ and atomics. */
	if (c && (m->op == SROCE_WR_RDMA_READ ||
		  m->op == SROCE_WR_ATOMIC_CMP_AND_SWP ||
		  m->op == SROCE_WR_ATOMIC_FETCH_AND_ADD) &&
	    c->byte_len != m->len)
		sim_fail(s, "flow %s seq %u %s: byte_len %u, expected %u",
			 fname(fl), m->seq, wr_name[m->op], c->byte_len,
			 m->len);
	fl->src->lost_since_ok = 0;
	fl->src->peer_busy_ns = 0;
	s->st.atomic_writes += m->op == SROCE_WR_ATOMIC_WRITE;
	s->st.flushes += m->op == SROCE_WR_FLUSH;
	fl->flushes += m->op == SROCE_WR_FLUSH;
	s->st.msgs++;
	s->st.bytes += m->len;
	if (fl->type != SROCE_QPT_RC)
		goto out;	/* local completion: says nothing of delivery */
	data = grow(&w->scratch, &w->scratch_len, m->len + 8);
	switch (m->op) {
	case SROCE_WR_RDMA_WRITE:
	case SROCE_WR_RDMA_WRITE_WITH_IMM:
		msg_bytes(s, fl, m->seq, data, m->len);
		bad = region_check(s, &m->rem, data, m->len);
		if (bad >= 0)
			sim_fail(s, "flow %s seq %u WRITE len %u: remote byte %ld wrong",
				 fname(fl), m->seq, m->len, bad);
		break;
	case SROCE_WR_RDMA_READ:
		msg_bytes(s, fl, m->seq, data, m->len);
		bad = region_check(s, &m->loc, data, m->len);
		if (bad >= 0)
			sim_fail(s, "flow %s seq %u READ len %u: local byte %ld wrong",
				 fname(fl), m->seq, m->len, bad);
		break;
	case SROCE_WR_ATOMIC_CMP_AND_SWP:
	case SROCE_WR_ATOMIC_FETCH_AND_ADD:
		memcpy(&v, m->loc.mem + (m->loc.sge[0].addr - m->loc.iova), 8);
		if (v != m->expect)
			sim_fail(s, "flow %s seq %u %s: returned %#llx, model %#llx",
				 fname(fl), m->seq, wr_name[m->op],
				 (unsigned long long)v,
				 (unsigned long long)m->expect);
		if (region_check(s, &m->loc, (u8 *)&m->expect, 8) >= 0)
			sim_fail(s, "flow %s seq %u: atomic result spilled",
				 fname(fl), m->seq);
		break;
	default:
		break;
	}
out:
	region_free(s, &m->loc);
	region_free(s, &m->inv);
	if (fl->type == SROCE_QPT_UC && m->rem.mem) {
		/* Kept: checked once the run is over. */
		fl->ucw[m->seq] = m->rem;
		memset(&m->rem, 0, sizeof(m->rem));
	}
	region_bury(s, &m->rem);
	grave_reap(s, false);
	fl->completed++;
}

static void send_cqe(struct sim *s, struct sim_qp *sq,
		     const struct sroce_cqe *c)
{
	struct wl_flow *fl = (struct wl_flow *)sq->tx;
	struct wl_msg *m;

	if (c->qp_num != sq->q->qp.qpn)
		sim_fail(s, "send cqe qp_num %#x on qp %#x", c->qp_num,
			 sq->q->qp.qpn);
	for (;;) {
		if (fl->head == fl->tail) {
			sim_fail(s, "flow %s: completion for unknown wr_id %llu status %u",
				 fname(fl), (unsigned long long)c->wr_id,
				 c->status);
			return;
		}
		m = &fl->ring[fl->head % fl->depth];
		if (m->wr_id == c->wr_id)
			break;
		if (m->signaled && c->status != SROCE_WC_WR_FLUSH_ERR) {
			sim_fail(s, "flow %s seq %u: no completion (next was wr_id %llu status %u)",
				 fname(fl), m->seq, (unsigned long long)c->wr_id,
				 c->status);
			return;
		}
		/* Unsignaled and done: implied by this later completion. */
		finish_msg(s, fl, m, c->status == SROCE_WC_SUCCESS ? NULL : c);
		fl->head++;
	}
	finish_msg(s, fl, m, c);
	fl->head++;
	if (!m->signaled && c->status == SROCE_WC_SUCCESS)
		sim_fail(s, "flow %s seq %u: completion of an unsignaled WQE",
			 fname(fl), m->seq);
	fill_flow(s, fl);
}

static void recv_cqe(struct sim *s, struct sim_qp *sq,
		     const struct sroce_cqe *c)
{
	struct wl_flow *fl = (struct wl_flow *)sq->rx;
	struct wl *w = WL(s);
	struct wl_recv *rv;
	struct wl_meta *mt;
	bool ud = fl->type == SROCE_QPT_UD;
	u32 seq, tag[2], grh = ud ? SROCE_GRH_LEN : 0, len;
	u8 *data;
	long bad;

	if (fl->rhead == fl->rtail) {
		sim_fail(s, "flow %s: receive completion with no receive posted",
			 fname(fl));
		return;
	}
	rv = &fl->rring[fl->rhead++ % fl->rdepth];
	if (c->wr_id != rv->wr_id || c->qp_num != sq->q->qp.qpn) {
		sim_fail(s, "flow %s: receive completion wr_id %llu qp %#x, expected %llu",
			 fname(fl), (unsigned long long)c->wr_id, c->qp_num,
			 (unsigned long long)rv->wr_id);
		goto out;
	}
	if (c->status != SROCE_WC_SUCCESS) {
		if (!sq->broken || c->status != SROCE_WC_WR_FLUSH_ERR)
			sim_fail(s, "flow %s: receive status %u", fname(fl),
				 c->status);
		goto out;
	}
	if (fl->type == SROCE_QPT_RC) {
		seq = rv->seq;
	} else if (c->opcode == SROCE_WC_RECV_RDMA_WITH_IMM) {
		seq = c->ex ^ WL_TAG;
	} else {
		if (c->byte_len < grh + 8 || !rv->buf.mem) {
			sim_fail(s, "flow %s: %u-byte receive too short",
				 fname(fl), c->byte_len);
			goto out;
		}
		/* The tag is the first 8 logical payload bytes. */
		data = grow(&w->scratch, &w->scratch_len, rv->cap + 8);
		{
			u64 done = 0, i, k, o;

			for (i = 0; i < rv->buf.nsge && done < rv->cap; i++) {
				o = rv->buf.sge[i].addr - rv->buf.iova;
				k = rv->buf.sge[i].length;
				memcpy(data + done, rv->buf.mem + o, k);
				done += k;
			}
		}
		memcpy(tag, data + grh, 8);
		seq = tag[0];
		if (tag[1] != (WL_TAG ^ fl->id) || seq >= fl->posted) {
			sim_fail(s, "flow %s: delivered data carries no valid tag",
				 fname(fl));
			goto out;
		}
	}
	if (seq >= fl->posted) {
		sim_fail(s, "flow %s: receive for unposted seq %u", fname(fl),
			 seq);
		goto out;
	}
	mt = &fl->meta[seq];
	/*
	 * UD and UC detect no duplicates (a UC responder resyncs on any
	 * FIRST/ONLY, as rxe does): with a duplicating or reordering link
	 * they may deliver a message twice or late.  Counted, not failed.
	 */
	if (mt->delivered && !(!rc_like(fl) && (s->o.link.dup_ppm ||
	    (!ud && s->o.link.reorder_ppm)))) {
		sim_fail(s, "flow %s seq %u: delivered twice", fname(fl), seq);
		goto out;
	}
	if (mt->delivered)
		s->st.ud_dups++;
	if (fl->type == SROCE_QPT_UC) {
		if (seq < fl->last_seq && (s->o.link.dup_ppm ||
					   s->o.link.reorder_ppm))
			s->st.uc_late++;
		else if (seq < fl->last_seq)
			sim_fail(s, "flow %s: UC seq %u delivered after %u",
				 fname(fl), seq, fl->last_seq - 1);
		if (seq >= fl->last_seq)
			fl->last_seq = seq + 1;
	}
	mt->delivered = 1;
	len = mt->len;
	if ((c->opcode == SROCE_WC_RECV_RDMA_WITH_IMM) !=
	    (mt->op == SROCE_WR_RDMA_WRITE_WITH_IMM) ||
	    (c->opcode != SROCE_WC_RECV &&
	     c->opcode != SROCE_WC_RECV_RDMA_WITH_IMM))
		sim_fail(s, "flow %s seq %u: receive opcode %u for %s", fname(fl),
			 seq, c->opcode, wr_name[mt->op]);
	if (c->byte_len != len + grh)
		sim_fail(s, "flow %s seq %u %s: byte_len %u, sent %u", fname(fl),
			 seq, wr_name[mt->op], c->byte_len, len + grh);
	if (!!(c->flags & SROCE_WC_F_WITH_IMM) != op_imm(mt->op) ||
	    (op_imm(mt->op) && c->ex != mt->imm))
		sim_fail(s, "flow %s seq %u %s: imm flag %u value %#x, sent %#x",
			 fname(fl), seq, wr_name[mt->op], c->flags, c->ex,
			 mt->imm);
	if (!!(c->flags & SROCE_WC_F_WITH_INV) !=
	    (mt->op == SROCE_WR_SEND_WITH_INV) ||
	    (mt->op == SROCE_WR_SEND_WITH_INV && c->ex != mt->imm))
		sim_fail(s, "flow %s seq %u %s: invalidate flag %u rkey %#x, sent %#x",
			 fname(fl), seq, wr_name[mt->op], c->flags, c->ex,
			 mt->imm);
	if (mt->op == SROCE_WR_SEND_WITH_INV &&
	    sroce_ep_mr_lookup(&s->ep[fl->dst->side], mt->imm))
		sim_fail(s, "flow %s seq %u: rkey %#x still valid after SEND_WITH_INV",
			 fname(fl), seq, mt->imm);
	if (!!(c->flags & SROCE_WC_F_GRH) != ud)
		sim_fail(s, "flow %s seq %u: GRH flag %u", fname(fl), seq,
			 c->flags);
	if (ud && c->src_qp != fl->src->q->qp.qpn)
		sim_fail(s, "flow %s seq %u: src_qp %#x", fname(fl), seq,
			 c->src_qp);
	if (c->solicited != mt->solicited &&
	    mt->op != SROCE_WR_RDMA_WRITE_WITH_IMM)
		sim_fail(s, "flow %s seq %u: solicited %u, sent %u", fname(fl),
			 seq, c->solicited, mt->solicited);
	data = grow(&w->scratch, &w->scratch_len, (u64)len + grh + 8);
	if (mt->op == SROCE_WR_RDMA_WRITE_WITH_IMM) {
		/* The receive buffer must be untouched. */
		bad = region_check_tail(s, &rv->buf, data, 0,
					fl->type == SROCE_QPT_UC);
		if (bad >= 0)
			sim_fail(s, "flow %s seq %u: WRITE_IMM touched the receive buffer at %ld",
				 fname(fl), seq, bad);
		if (fl->type == SROCE_QPT_UC && fl->ucw[seq].mem) {
			msg_bytes(s, fl, seq, data, len);
			bad = region_check(s, &fl->ucw[seq], data, len);
			if (bad >= 0)
				sim_fail(s, "flow %s seq %u: UC WRITE_IMM byte %ld wrong",
					 fname(fl), seq, bad);
		}
	} else {
		if (ud) {
			/* GRH image: IPv4 -> 20 zero bytes + IP header */
			u8 *g = data;
			u64 i, o, k, done = 0;

			for (i = 0; i < rv->buf.nsge && done < grh; i++) {
				o = rv->buf.sge[i].addr - rv->buf.iova;
				k = rv->buf.sge[i].length;
				if (k > grh - done)
					k = grh - done;
				memcpy(g + done, rv->buf.mem + o, k);
				done += k;
			}
			if (s->o.ipv6 > 0 ? (g[0] >> 4) != 6 :
			    g[20] != 0x45 || g[0])
				sim_fail(s, "flow %s seq %u: bad GRH image",
					 fname(fl), seq);
		}
		msg_bytes(s, fl, seq, data + grh, len);
		/* GRH bytes: compare against what was placed */
		if (ud) {
			u64 i, o, k, done = 0;

			for (i = 0; i < rv->buf.nsge && done < grh; i++) {
				o = rv->buf.sge[i].addr - rv->buf.iova;
				k = rv->buf.sge[i].length;
				if (k > grh - done)
					k = grh - done;
				memcpy(data + done, rv->buf.mem + o, k);
				done += k;
			}
		}
		/*
		 * UD too with ODP: a datagram dropped half-placed for a page
		 * not present leaves its start in the WQE it reuses.
		 */
		bad = region_check_tail(s, &rv->buf, data, (u64)len + grh,
					fl->type == SROCE_QPT_UC ||
					(ud && s->o.absent_ppm));
		if (bad >= 0)
			sim_fail(s, "flow %s seq %u %s len %u: receive byte %ld wrong",
				 fname(fl), seq, wr_name[mt->op], len, bad);
	}
out:
	region_free(s, &rv->buf);
	if (fl->type != SROCE_QPT_RC && !sq->broken &&
	    sq->q->qp.state != SROCE_QPS_ERR)
		post_recv(s, fl, 0, wl_recv_cap(s, fl));
}

static void wl_cqe(struct sim *s, struct sim_qp *sq, const struct sroce_cqe *c)
{
	if (c->is_recv)
		recv_cqe(s, sq, c);
	else
		send_cqe(s, sq, c);
}

static bool flow_done(struct sim *s, struct wl_flow *fl)
{
	if (fl->src->broken)
		return fl->head == fl->tail;
	if (fl->completed < fl->quota)
		return false;
	return fl->type != SROCE_QPT_RC || fl->rhead == fl->rtail;
}

static bool all_done(struct sim *s)
{
	struct wl *w = WL(s);
	u32 i;

	for (i = 0; i < w->nflows; i++)
		if (!flow_done(s, &w->flows[i]))
			return false;
	return true;
}

/*
 * After the run: a UC WRITE whose packets were lost stops at the loss
 * (the responder drops the rest of the message), so its target holds a
 * prefix of whole packets and the fill byte after it.
 */
static void check_uc_writes(struct sim *s, struct wl_flow *fl)
{
	struct wl *w = WL(s);
	u32 seq, mtu = sroce_mtu_bytes(s->o.mtu), got, len, k;
	const u8 *p;
	u8 *data;

	for (seq = 0; seq < fl->posted; seq++) {
		struct wl_region *r = &fl->ucw[seq];

		if (!r->mem)
			continue;
		len = fl->meta[seq].len;
		data = grow(&w->scratch, &w->scratch_len, (u64)len + 8);
		msg_bytes(s, fl, seq, data, len);
		p = r->mem + (r->sge[0].addr - r->iova);
		for (got = 0; got < len; got += k) {
			k = len - got < mtu ? len - got : mtu;
			if (memcmp(p + got, data + got, k))
				break;
		}
		if (got < len && fl->meta[seq].delivered)
			sim_fail(s, "flow %s seq %u: UC WRITE_IMM completed but data is partial",
				 fname(fl), seq);
		if (region_check(s, r, data, got) >= 0)
			sim_fail(s, "flow %s seq %u: UC WRITE target is not a packet prefix (%u of %u) plus untouched bytes",
				 fname(fl), seq, got, len);
		if (got < len)
			s->st.lost_msgs++;
		region_free(s, r);
	}
}

/*
 * The FLUSH ICRC variant a requester settled on (req.c) is the one its
 * responder takes; on a clean link against rdma_rxe it took exactly one
 * switch, and none against anything else.
 */
static void check_flush_icrc(struct sim *s, const struct wl_flow *fl)
{
	const struct sroce_qp *q = &fl->src->q->qp;
	bool rxe = s->o.icrc[fl->dst->side] == SIM_ICRC_RXE;
	const struct sim_link_cfg *l = &s->o.link;
	bool clean = !l->loss_ppm && !l->dup_ppm && !l->reorder_ppm &&
		     !l->corrupt_ppm && !s->o.emit_busy_ppm;

	if (s->o.icrc[fl->dst->side] != SIM_ICRC_SROCE && q->req.flush_sure &&
	    q->req.flush_rxe != rxe)
		sim_fail(s, "flow %s: settled on the %s FLUSH ICRC against %s",
			 fname(fl), q->req.flush_rxe ? "rxe" : "IBA",
			 rxe ? "rdma_rxe" : "an IBA peer");
	if (!clean || !fl->flushes ||
	    s->o.icrc[fl->src->side] == SIM_ICRC_RXE)
		return;
	if (q->stats.flush_icrc_switches != rxe)
		sim_fail(s, "flow %s: %llu FLUSH ICRC switches on a clean link, %s",
			 fname(fl),
			 (unsigned long long)q->stats.flush_icrc_switches,
			 rxe ? "against rdma_rxe: want 1" : "want 0");
	if (rxe && fl->flushes > 1 && !q->req.flush_sure)
		sim_fail(s, "flow %s: %u FLUSHes to rdma_rxe, variant not settled",
			 fname(fl), fl->flushes);
}

static void flow_free(struct sim *s, struct wl_flow *fl)
{
	while (fl->head != fl->tail) {
		struct wl_msg *m = &fl->ring[fl->head++ % fl->depth];

		region_free(s, &m->loc);
		region_free(s, &m->rem);
		region_free(s, &m->inv);
	}
	while (fl->rhead != fl->rtail)
		region_free(s, &fl->rring[fl->rhead++ % fl->rdepth].buf);
	if (fl->ucw) {
		u32 i;

		for (i = 0; i < fl->posted; i++)
			region_free(s, &fl->ucw[i]);
	}
	region_free(s, &fl->atom);
	free(fl->ucw);
	free(fl->meta);
	free(fl->ring);
	free(fl->rring);
}

int sim_random(struct sim *s)
{
	struct wl wl_state, *w = &wl_state;
	u32 i, n, side, per, rest;
	u64 v, deadline;

	memset(w, 0, sizeof(*w));
	s->wl = w;
	s->on_cqe = wl_cqe;
	s->action = wl_action;
	for (i = 0; i < s->o.nqp; i++) {
		/* Weights RC 6, UC 1, UD 1 among the allowed types. */
		static const enum sroce_qp_type pick[8] = {
			SROCE_QPT_UC, SROCE_QPT_UD, SROCE_QPT_RC, SROCE_QPT_RC,
			SROCE_QPT_RC, SROCE_QPT_RC, SROCE_QPT_RC, SROCE_QPT_RC,
		};
		u32 types = s->o.types ? s->o.types : 1u << SROCE_QPT_RC;
		enum sroce_qp_type t;

		do
			t = pick[sroce_rng_below(&s->rng, 8)];
		while (!(types & (1u << t)));
		sim_add_pair(s, t, s->o.depth + 8);
	}
	if (s->failed)
		return 1;
	w->nflows = 2 * s->nqp;
	w->flows = calloc(w->nflows, sizeof(*w->flows));
	per = s->o.msgs / w->nflows;
	rest = s->o.msgs % w->nflows;
	for (i = 0; i < w->nflows; i++) {
		struct wl_flow *fl = &w->flows[i];

		side = i & 1;
		fl->id = i;
		fl->src = &s->qp[side][i / 2];
		fl->dst = &s->qp[!side][i / 2];
		fl->src->tx = (struct sim_flow *)fl;
		fl->dst->rx = (struct sim_flow *)fl;
		fl->type = fl->src->q->qp.type;
		fl->quota = per + (i < rest);
		fl->max_len = s->o.max_size;
		if (fl->type == SROCE_QPT_UC && fl->max_len > 65536)
			fl->max_len = 65536;
		fl->depth = s->o.depth;
		fl->rdepth = fl->type == SROCE_QPT_RC ? fl->depth : 2 * fl->depth + 1;
		fl->meta = calloc(fl->quota + 1, sizeof(*fl->meta));
		fl->ring = calloc(fl->depth, sizeof(*fl->ring));
		fl->rring = calloc(fl->rdepth, sizeof(*fl->rring));
		if (fl->type == SROCE_QPT_UC)
			fl->ucw = calloc(fl->quota + 1, sizeof(*fl->ucw));
		if (!fl->meta || !fl->ring || !fl->rring)
			abort();
		if (fl->type == SROCE_QPT_RC) {
			v = sroce_rng_next(&s->rng);
			/* Also the target of ATOMIC WRITEs and FLUSHes. */
			region_make(s, &fl->atom, fl->dst->side, 8, 1,
				    SROCE_ACCESS_REMOTE_ATOMIC |
				    SROCE_ACCESS_REMOTE_WRITE |
				    SROCE_ACCESS_FLUSH_GLOBAL |
				    SROCE_ACCESS_FLUSH_PERSISTENT,
				    (const u8 *)&v);
			fl->aval = v;
		} else {
			for (n = 0; n < 2 * fl->depth; n++)
				post_recv(s, fl, 0, wl_recv_cap(s, fl));
		}
	}
	for (i = 0; i < w->nflows; i++)
		fill_flow(s, &w->flows[i]);
	for (side = 0; side < 2; side++)
		for (i = 0; i < s->nqp; i++)
			sim_service(s, &s->qp[side][i]);

	sim_run(s, all_done, U64_MAX);
	if (!s->failed && !all_done(s)) {
		for (i = 0; i < w->nflows; i++) {
			struct wl_flow *fl = &w->flows[i];

			if (!flow_done(s, fl)) {
				sim_fail(s, "stalled at t=%llu ns: flow %u (%s qp %#x -> %#x) completed %u of %u, %u outstanding, %u receives left",
					 (unsigned long long)s->now, fl->id,
					 fl->type == SROCE_QPT_RC ? "RC" :
					 fl->type == SROCE_QPT_UC ? "UC" : "UD",
					 fl->src->q->qp.qpn,
					 fl->dst->q->qp.qpn, fl->completed,
					 fl->quota, fl->tail - fl->head,
					 fl->rtail - fl->rhead);
				{
					const struct sroce_qp *q = &fl->src->q->qp;

					printf("  requester: state %u tail %u next %u hi %u off_psn %u psn %#x psn_hi %#x stopped %u rnr_wait %u timer_on %u rnr_deadline %llu ack_deadline %llu comp.head %u comp.psn %#x posted-not-pulled %u\n",
					       q->state, q->req.tail, q->req.next,
					       q->req.hi, q->req.off_psn, q->req.psn,
					       q->req.psn_hi, q->req.stopped,
					       q->req.rnr_wait, q->req.timer_on,
					       (unsigned long long)q->req.rnr_deadline,
					       (unsigned long long)q->req.ack_deadline,
					       q->comp.head, q->comp.psn,
					       sroce_ep_sq_posted(fl->src->q));
				}
				break;
			}
		}
	}
	/* Let late duplicates, stale ACKs and delayed ACKs play out. */
	deadline = s->now + 100000000ull;
	if (s->o.timeout && s->o.timeout < 20)
		deadline = s->now + 20 * sroce_ack_timeout_ns(s->o.timeout);
	if (!s->failed)
		sim_run(s, NULL, deadline);
	for (i = 0; i < w->nflows && !s->failed; i++) {
		struct wl_flow *fl = &w->flows[i];

		if (fl->type == SROCE_QPT_UC)
			check_uc_writes(s, fl);
		if (fl->type != SROCE_QPT_RC) {
			for (n = 0; n < fl->posted; n++)
				s->st.lost_msgs += !fl->meta[n].delivered &&
					fl->meta[n].op != SROCE_WR_RDMA_WRITE;
			continue;
		}
		if (fl->src->broken)
			continue;
		memcpy(&v, fl->atom.mem + (fl->atom.sge[0].addr -
					   fl->atom.iova), 8);
		if (v != fl->aval)
			sim_fail(s, "flow %s: atomic word %#llx, model %#llx",
				 fname(fl), (unsigned long long)v,
				 (unsigned long long)fl->aval);
		if (region_check(s, &fl->atom, (const u8 *)&fl->aval, 8) >= 0)
			sim_fail(s, "flow %s: atomic target guard damaged",
				 fname(fl));
		if (fl->src->q->qp.state != SROCE_QPS_RTS)
			sim_fail(s, "flow %s: qp %#x in state %u at the end",
				 fname(fl), fl->src->q->qp.qpn,
				 fl->src->q->qp.state);
		check_flush_icrc(s, fl);
	}
	if (s->o.verbose) {
		for (i = 0; i < 2 * s->nqp; i++) {
			const struct sroce_qp_stats *q =
				&s->qp[i & 1][i / 2].q->qp.stats;

			printf("  qp %u/%u: tx %llu rx %llu retrans %llu timeouts %llu seqnak rx %llu tx %llu rnr rx %llu tx %llu dup %llu implied %llu stalls %llu acks-deferred %llu\n",
			       i & 1, i / 2, (unsigned long long)q->tx_pkts,
			       (unsigned long long)q->rx_pkts,
			       (unsigned long long)q->retransmits,
			       (unsigned long long)q->timeouts,
			       (unsigned long long)q->seq_naks_rcvd,
			       (unsigned long long)q->seq_naks_sent,
			       (unsigned long long)q->rnr_naks_rcvd,
			       (unsigned long long)q->rnr_naks_sent,
			       (unsigned long long)q->dup_requests,
			       (unsigned long long)q->implied_naks,
			       (unsigned long long)q->tx_stalls,
			       (unsigned long long)q->acks_deferred);
		}
	}
	for (i = 0; i < w->nflows; i++)
		flow_free(s, &w->flows[i]);
	grave_reap(s, true);
	free(w->grave);
	free(w->flows);
	free(w->scratch);
	free(w->image);
	s->wl = NULL;
	s->on_cqe = NULL;
	s->action = NULL;
	return s->failed ? 1 : 0;
}
