/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal in-test implementation of struct sroce_qp_ops for the
 * transport unit tests (qp_state, req, resp, comp): one flat memory per
 * mock with a few MRs, FIFO send and receive queues, and every emitted
 * packet captured as a parseable frame.  Deliberately small; the full
 * two-endpoint simulator lives in tests/sim and tests/lib/endpoint.*.
 * Everything is static: each test file includes its own copy.
 */
#ifndef SROCE_TEST_QP_MOCK_H
#define SROCE_TEST_QP_MOCK_H

#include <check.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psn.h"
#include "qp.h"
#include "wire.h"

#define MOCK_MEM	(1u << 22)
#define MOCK_MRS	8
#define MOCK_Q		256
#define MOCK_PKTS	4096
#define MOCK_FRAME	(SROCE_MAX_HDR_LEN + 4096 + 8)
#define MOCK_SQ		64
#define MOCK_RES	4
#define MOCK_BASE	0x10000ull	/* iova of mem[0] */
#define MOCK_ALL_ACCESS	(SROCE_ACCESS_LOCAL_WRITE | SROCE_ACCESS_REMOTE_WRITE | \
			 SROCE_ACCESS_REMOTE_READ | SROCE_ACCESS_REMOTE_ATOMIC)

struct mock_mr {
	u32 key;
	u64 va;
	u32 len;
	u32 access;
	u64 host;	/* where va lives in the mock's address space */
};

struct mock_frame {
	u8 b[MOCK_FRAME];
	u32 len;
	u32 ah;
	bool ect;	/* sroce_tx_pkt.ect */
};

/* The payload handle handed to sroce_qp_rx(). */
struct mock_payload {
	const u8 *data;
	u32 len;
};

struct mock {
	struct sroce_qp qp;
	struct sroce_swqe sq[MOCK_SQ];
	struct sroce_rd_res res[MOCK_RES];
	u8 *mem;
	struct mock_mr mr[MOCK_MRS];
	u32 nmr;
	struct sroce_send_wqe sw[MOCK_Q];
	u32 sw_head, sw_tail;
	struct sroce_recv_wqe rw[MOCK_Q];
	u32 rw_head, rw_tail;
	struct sroce_cqe cqe[MOCK_Q];
	u32 ncqe;
	struct mock_frame *pkt;
	u32 npkt;
	u32 emit_fail;		/* refuse this many emits */
	bool rationed;		/* ... and if set, accept only emit_room */
	u32 emit_room;
	u32 events[32];
	u32 atomics;
	u32 key_only;		/* mem_access calls with SROCE_ACCESS_KEY_ONLY */
	u32 invalidated;
	int fail_invalidate;
	u32 absent;		/* memory "not present": refuse this many writes */
	u64 clock;		/* what ops->now answers */
	u32 clock_reads;
};

static int mock_next_send(void *ctx, struct sroce_send_wqe *out)
{
	struct mock *m = ctx;

	if (m->sw_head == m->sw_tail)
		return -SROCE_EAGAIN;
	*out = m->sw[m->sw_head++ % MOCK_Q];
	return 0;
}

static int mock_recv_wqe(void *ctx, struct sroce_recv_wqe *out)
{
	struct mock *m = ctx;

	if (m->rw_head == m->rw_tail)
		return -SROCE_EAGAIN;
	*out = m->rw[m->rw_head++ % MOCK_Q];
	return 0;
}

static int mock_mem_access(void *ctx, u32 key, bool remote, u64 va, u32 len,
			   u32 access, struct sroce_mem_ref *out)
{
	struct mock *m = ctx;
	u32 i;

	bool key_only = access & SROCE_ACCESS_KEY_ONLY;

	access &= ~(SROCE_ACCESS_RECV | SROCE_ACCESS_KEY_ONLY);	/* one PD */
	m->key_only += key_only;
	for (i = 0; i < m->nmr; i++) {
		struct mock_mr *r = &m->mr[i];

		if (r->key != key)
			continue;
		if (key_only) {
			va = r->va;
			len = 0;
		}
		if (va < r->va || va + len > r->va + r->len)
			return -SROCE_EFAULT;
		if ((access & r->access) != access)
			return -SROCE_EACCES;
		if (remote && !access)
			return -SROCE_EACCES;
		out->mr = m;
		out->va = va - r->va + r->host;
		out->len = len;
		out->priv = key;
		return 0;
	}
	return -SROCE_EINVAL;
}

static u8 *mock_ptr(struct mock *m, u64 va)
{
	ck_assert(va >= MOCK_BASE && va < MOCK_BASE + MOCK_MEM);
	return m->mem + (va - MOCK_BASE);
}

static int mock_emit(void *ctx, const struct sroce_tx_pkt *p)
{
	struct mock *m = ctx;
	struct mock_frame *f;
	u8 *d;
	u32 i;

	if (m->emit_fail) {
		m->emit_fail--;
		return -SROCE_EAGAIN;
	}
	if (m->rationed && !m->emit_room)
		return -SROCE_EAGAIN;
	if (m->rationed)
		m->emit_room--;
	ck_assert_uint_lt(m->npkt, MOCK_PKTS);
	f = &m->pkt[m->npkt++];
	ck_assert_uint_le(p->hdr_len + p->paylen + p->pad + 4, MOCK_FRAME);
	memcpy(f->b, p->hdr, p->hdr_len);
	d = f->b + p->hdr_len;
	if (p->inline_data) {
		memcpy(d, p->inline_data, p->paylen);
		d += p->paylen;
	} else {
		u32 sum = 0;

		for (i = 0; i < p->nseg; i++) {
			const struct sroce_tx_seg *s = &p->seg[i];

			ck_assert_uint_le(s->off + s->len, s->ref.len);
			memcpy(d, mock_ptr(s->ref.mr, s->ref.va + s->off), s->len);
			d += s->len;
			sum += s->len;
		}
		ck_assert_uint_eq(sum, p->paylen);
	}
	memset(d, 0, p->pad + 4u);
	d += p->pad + 4u;
	f->len = (u32)(d - f->b);
	f->ah = p->ah;
	f->ect = p->ect;
	return 0;
}

static int mock_copy_in(void *ctx, const struct sroce_mem_ref *dst, u32 off,
			const void *payload, u32 poff, u32 len)
{
	const struct mock_payload *pl = payload;
	u8 *d = mock_ptr(dst->mr, dst->va + off);
	struct mock *m = ctx;
	u32 i;

	if (m->absent) {
		m->absent--;
		return -SROCE_EAGAIN;
	}
	ck_assert_uint_le(off + len, dst->len);
	if (poff >= SROCE_COPY_GRH) {
		/* GRH image: byte k reads as 0xa0 + k, recognisable in tests. */
		for (i = 0; i < len; i++)
			d[i] = (u8)(0xa0 + poff - SROCE_COPY_GRH + i);
		return 0;
	}
	ck_assert_uint_le(poff + len, pl->len);
	memcpy(d, pl->data + poff, len);
	return 0;
}

static int mock_store(void *ctx, const struct sroce_mem_ref *dst, u32 off,
		      const void *src, u32 len)
{
	struct mock *m = ctx;

	if (m->absent) {
		m->absent--;
		return -SROCE_EAGAIN;
	}
	ck_assert_uint_le(off + len, dst->len);
	memcpy(mock_ptr(dst->mr, dst->va + off), src, len);
	return 0;
}

static int mock_atomic(void *ctx, const struct sroce_mem_ref *dst, u8 op,
		       u64 cmp, u64 swap_add, u64 *orig)
{
	struct mock *m = ctx;
	u64 v;

	if (m->absent) {
		m->absent--;
		return -SROCE_EAGAIN;
	}
	m->atomics++;
	memcpy(&v, mock_ptr(dst->mr, dst->va), 8);
	*orig = v;
	if (op == SROCE_OP_FETCH_ADD)
		v += swap_add;
	else if (op == SROCE_OP_ATOMIC_WRITE || v == cmp)
		v = swap_add;
	memcpy(mock_ptr(dst->mr, dst->va), &v, 8);
	return 0;
}

static void mock_complete(void *ctx, const struct sroce_cqe *cqe)
{
	struct mock *m = ctx;

	ck_assert_uint_lt(m->ncqe, MOCK_Q);
	m->cqe[m->ncqe++] = *cqe;
}

static void mock_event(void *ctx, enum sroce_qp_event ev)
{
	struct mock *m = ctx;

	m->events[ev & 31]++;
}

static int mock_invalidate(void *ctx, u32 rkey)
{
	struct mock *m = ctx;

	m->invalidated = rkey;
	return m->fail_invalidate ? -SROCE_EINVAL : 0;
}

static u64 mock_now(void *ctx)
{
	struct mock *m = ctx;

	m->clock_reads++;
	return m->clock;
}

static const struct sroce_qp_ops mock_ops = {
	.next_send = mock_next_send,
	.recv_wqe = mock_recv_wqe,
	.mem_access = mock_mem_access,
	.emit = mock_emit,
	.copy_in = mock_copy_in,
	.store = mock_store,
	.atomic = mock_atomic,
	.complete = mock_complete,
	.event = mock_event,
	.invalidate = mock_invalidate,
	.now = mock_now,
};

/* Key 0x100 + i covers [va, va+len) with @access. */
static u32 mock_reg(struct mock *m, u64 va, u32 len, u32 access)
{
	u32 key = 0x100 + m->nmr;

	ck_assert_uint_lt(m->nmr, MOCK_MRS);
	m->mr[m->nmr].key = key;
	m->mr[m->nmr].va = va;
	m->mr[m->nmr].len = len;
	m->mr[m->nmr].access = access;
	m->mr[m->nmr].host = va;
	m->nmr++;
	return key;
}

/* An MR with a foreign key and address, backed at @host in the mock. */
static void mock_reg_at(struct mock *m, u32 key, u64 va, u32 len, u64 host)
{
	u32 i;

	for (i = 0; i < m->nmr; i++)
		if (m->mr[i].key == key)
			return;
	ck_assert_uint_lt(m->nmr, MOCK_MRS);
	m->mr[m->nmr].key = key;
	m->mr[m->nmr].va = va;
	m->mr[m->nmr].len = len;
	m->mr[m->nmr].access = MOCK_ALL_ACCESS;
	m->mr[m->nmr].host = host;
	m->nmr++;
}

static struct mock *mock_new(enum sroce_qp_type type, u32 qpn, bool sig_all)
{
	struct mock *m = calloc(1, sizeof(*m));
	struct sroce_qp_init_attr ia = {
		.type = type, .qpn = qpn, .sq_size = MOCK_SQ,
		.max_res = MOCK_RES, .sq_sig_all = sig_all, .ops = &mock_ops,
	};

	ck_assert_ptr_nonnull(m);
	m->mem = calloc(1, MOCK_MEM);
	m->pkt = calloc(MOCK_PKTS, sizeof(*m->pkt));
	ck_assert_ptr_nonnull(m->mem);
	ck_assert_ptr_nonnull(m->pkt);
	ia.sq = m->sq;
	ia.res = m->res;
	ia.ctx = m;
	ck_assert_int_eq(sroce_qp_init(&m->qp, &ia), 0);
	/* One MR over all memory, all access. */
	mock_reg(m, MOCK_BASE, MOCK_MEM, MOCK_ALL_ACCESS);
	return m;
}

static void mock_free(struct mock *m)
{
	free(m->mem);
	free(m->pkt);
	free(m);
}

#define MOCK_RETRY_CNT	3

/* Typical connected attributes: MTU 1024, PSNs 100 / 200. */
static void mock_attr(struct sroce_qp_attr *a, u32 dest_qpn)
{
	memset(a, 0, sizeof(*a));
	a->pkey = 0xffff;
	a->qkey = 0x11111111;
	a->qp_access_flags = SROCE_ACCESS_LOCAL_WRITE |
			     SROCE_ACCESS_REMOTE_WRITE |
			     SROCE_ACCESS_REMOTE_READ |
			     SROCE_ACCESS_REMOTE_ATOMIC;
	a->port_num = 1;
	a->path_mtu = 3;
	a->dest_qp_num = dest_qpn;
	a->rq_psn = 200;
	a->sq_psn = 100;
	a->max_dest_rd_atomic = MOCK_RES;
	a->max_rd_atomic = 4;
	a->min_rnr_timer = 1;
	a->timeout = 14;
	a->retry_cnt = MOCK_RETRY_CNT;
	a->rnr_retry = 3;
}

#define M_INIT_RC	(SROCE_QP_STATE | SROCE_QP_PKEY_INDEX | SROCE_QP_PORT | \
			 SROCE_QP_ACCESS_FLAGS)
#define M_INIT_UD	(SROCE_QP_STATE | SROCE_QP_PKEY_INDEX | SROCE_QP_PORT | \
			 SROCE_QP_QKEY)
#define M_RTR_RC	(SROCE_QP_STATE | SROCE_QP_AV | SROCE_QP_PATH_MTU | \
			 SROCE_QP_DEST_QPN | SROCE_QP_RQ_PSN | \
			 SROCE_QP_MAX_DEST_RD_ATOMIC | SROCE_QP_MIN_RNR_TIMER)
#define M_RTR_UC	(SROCE_QP_STATE | SROCE_QP_AV | SROCE_QP_PATH_MTU | \
			 SROCE_QP_DEST_QPN | SROCE_QP_RQ_PSN)
#define M_RTS_RC	(SROCE_QP_STATE | SROCE_QP_TIMEOUT | SROCE_QP_RETRY_CNT | \
			 SROCE_QP_RNR_RETRY | SROCE_QP_SQ_PSN | \
			 SROCE_QP_MAX_QP_RD_ATOMIC)
#define M_RTS_UC	(SROCE_QP_STATE | SROCE_QP_SQ_PSN)

static int mock_to(struct mock *m, struct sroce_qp_attr *a,
		   enum sroce_qp_state s, u32 mask)
{
	a->qp_state = s;
	return sroce_qp_modify(&m->qp, a, mask, 0);
}

/* RESET -> RTS with mock_attr(), except what @a already says. */
static void mock_connect_attr(struct mock *m, struct sroce_qp_attr *a)
{
	enum sroce_qp_type t = m->qp.type;

	ck_assert_int_eq(mock_to(m, a, SROCE_QPS_INIT,
				 t == SROCE_QPT_UD ? M_INIT_UD : M_INIT_RC), 0);
	ck_assert_int_eq(mock_to(m, a, SROCE_QPS_RTR,
				 t == SROCE_QPT_RC ? M_RTR_RC :
				 t == SROCE_QPT_UC ? M_RTR_UC :
				 SROCE_QP_STATE), 0);
	ck_assert_int_eq(mock_to(m, a, SROCE_QPS_RTS,
				 t == SROCE_QPT_RC ? M_RTS_RC : M_RTS_UC), 0);
}

static void mock_connect(struct mock *m, u32 dest_qpn)
{
	struct sroce_qp_attr a;

	mock_attr(&a, dest_qpn);
	mock_connect_attr(m, &a);
}

static void mock_post_send(struct mock *m, const struct sroce_send_wqe *w)
{
	ck_assert_uint_lt(m->sw_tail - m->sw_head, MOCK_Q);
	m->sw[m->sw_tail++ % MOCK_Q] = *w;
}

/* A send WQE with one SGE over [va, va+len) of the mock's MR. */
static struct sroce_send_wqe mock_wqe(u8 opcode, u64 wr_id, u64 va, u32 len)
{
	struct sroce_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = opcode;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.num_sge = 1;
	w.sge[0].addr = va;
	w.sge[0].length = len;
	w.sge[0].lkey = 0x100;
	return w;
}

static void mock_post_recv(struct mock *m, u64 wr_id, u64 va, u32 len)
{
	struct sroce_recv_wqe *r;

	ck_assert_uint_lt(m->rw_tail - m->rw_head, MOCK_Q);
	r = &m->rw[m->rw_tail++ % MOCK_Q];
	memset(r, 0, sizeof(*r));
	r->wr_id = wr_id;
	r->num_sge = 1;
	r->sge[0].addr = va;
	r->sge[0].length = len;
	r->sge[0].lkey = 0x100;
}

/* Parse captured packet @i of @m. */
static void mock_parse(struct mock *m, u32 i, struct sroce_pkt *pkt,
		       struct mock_payload *pl)
{
	struct mock_frame *f;

	ck_assert_uint_lt(i, m->npkt);
	f = &m->pkt[i];
	ck_assert_int_eq(sroce_parse(f->b, f->len, pkt), SROCE_DROP_NONE);
	pl->data = f->b + pkt->hdr_len;
	pl->len = pkt->paylen;
}

/* Feed captured packet @i of @from into @to's sroce_qp_rx(). */
static enum sroce_drop mock_deliver(struct mock *from, u32 i, struct mock *to,
				    u64 now)
{
	struct sroce_pkt pkt;
	struct mock_payload pl;

	mock_parse(from, i, &pkt, &pl);
	return sroce_qp_rx(&to->qp, &pkt, &pl, now);
}

/* Deliver @from's packets [*cursor, npkt) to @to, advancing *cursor. */
static u32 mock_pump(struct mock *from, u32 *cursor, struct mock *to, u64 now)
{
	u32 n = 0;

	while (*cursor < from->npkt) {
		mock_deliver(from, (*cursor)++, to, now);
		n++;
	}
	return n;
}

static u8 mock_opcode(struct mock *m, u32 i)
{
	ck_assert_uint_lt(i, m->npkt);
	return m->pkt[i].b[0];
}

static u32 mock_psn(struct mock *m, u32 i)
{
	ck_assert_uint_lt(i, m->npkt);
	return sroce_get_be24(m->pkt[i].b + 9);
}

static bool mock_ackreq(struct mock *m, u32 i)
{
	return m->pkt[i].b[8] & 0x80;
}

/* Build and feed a hand-made ACK/NAK to @m. */
static enum sroce_drop mock_rx_aeth(struct mock *m, u8 syn, u32 psn, u64 now)
{
	struct sroce_pkt pkt;
	struct mock_payload pl = { NULL, 0 };

	memset(&pkt, 0, sizeof(pkt));
	pkt.h.bth.opcode = SROCE_OPC(RC, ACK);
	pkt.h.bth.pkey = 0xffff;
	pkt.h.bth.dqpn = m->qp.qpn;
	pkt.h.bth.psn = psn & 0xffffff;
	pkt.h.aeth.syndrome = syn;
	pkt.op = sroce_opinfo(pkt.h.bth.opcode);
	pkt.hdr_len = pkt.op->hdr_len;
	return sroce_qp_rx(&m->qp, &pkt, &pl, now);
}

static inline u8 mock_ack_syn(void)
{
	return sroce_aeth_syndrome(SROCE_AETH_ACK, SROCE_AETH_CREDIT_INVALID);
}

static inline u8 mock_nak_syn(u8 code)
{
	return sroce_aeth_syndrome(SROCE_AETH_NAK, code);
}

#ifndef SROCE_TEST_DATA
#define SROCE_TEST_DATA "data"
#endif

/* A RoCEv2 packet of an rdma_rxe capture (tests/data), from its BTH on. */
struct cap_pkt {
	u8 side;		/* 0: sent by 192.0.2.1 (guest a), 1: by b */
	u32 len;		/* BTH .. ICRC */
	u8 b[MOCK_FRAME];
	struct sroce_pkt pkt;
	struct mock_payload pl;
};

/* Load the IPv4 RoCE packets of capture @name; returns how many. */
static u32 cap_load(const char *name, struct cap_pkt *out, u32 max)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *d;
	pcap_t *pc;
	u32 n = 0;

	snprintf(path, sizeof(path), "%s/%s", SROCE_TEST_DATA, name);
	pc = pcap_open_offline(path, err);
	ck_assert_msg(pc != NULL, "%s: %s", path, err);
	ck_assert_int_eq(pcap_datalink(pc), DLT_EN10MB);
	while (pcap_next_ex(pc, &ph, &d) == 1) {
		const u8 *ip = d + 14, *udp;
		struct cap_pkt *c;
		u32 off;

		if (ph->caplen < 14 + 20 + 8 + 16 || sroce_get_be16(d + 12) != 0x0800)
			continue;
		udp = ip + (ip[0] & 15) * 4;
		if (ip[9] != 17 || sroce_get_be16(udp + 2) != SROCE_UDP_PORT)
			continue;
		off = (u32)(udp + 8 - d);
		ck_assert_uint_lt(n, max);
		c = &out[n++];
		c->side = ip[15] == 1 ? 0 : 1;
		c->len = ph->caplen - off;
		ck_assert_uint_le(c->len, MOCK_FRAME);
		memcpy(c->b, d + off, c->len);
		ck_assert_int_eq(sroce_parse(c->b, c->len, &c->pkt), SROCE_DROP_NONE);
		c->pl.data = c->b + c->pkt.hdr_len;
		c->pl.len = c->pkt.paylen;
	}
	pcap_close(pc);
	return n;
}

/*
 * Two connected mocks: A (QPN 0x11) and B (0x22), B starting at send PSN
 * 200 and receive PSN 100, with delivery cursors into a->pkt and b->pkt;
 * mock_pair_new_retry() gives A @a_retry_cnt instead of MOCK_RETRY_CNT.
 */
struct mock_pair {
	struct mock *a, *b;
	u32 ca, cb;
};

static void mock_pair_new_retry(struct mock_pair *p, enum sroce_qp_type t,
				u8 a_retry_cnt)
{
	struct sroce_qp_attr at;

	memset(p, 0, sizeof(*p));
	p->a = mock_new(t, 0x11, false);
	p->b = mock_new(t, 0x22, false);
	mock_attr(&at, 0x22);
	at.retry_cnt = a_retry_cnt;
	mock_connect_attr(p->a, &at);
	mock_attr(&at, 0x11);
	at.sq_psn = 200;
	at.rq_psn = 100;
	mock_connect_attr(p->b, &at);
}

static void mock_pair_new(struct mock_pair *p, enum sroce_qp_type t)
{
	mock_pair_new_retry(p, t, MOCK_RETRY_CNT);
}

static void mock_pair_free(struct mock_pair *p)
{
	mock_free(p->a);
	mock_free(p->b);
}

/* @len bytes of a pattern from @seed at @va of @m's memory. */
static void mock_fill(struct mock *m, u64 va, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		m->mem[va - MOCK_BASE + i] = (u8)(seed + i * 31);
}

/* The headers of @m's @i-th emitted packet. */
static struct sroce_pkt mock_pkt(struct mock *m, u32 i)
{
	struct sroce_pkt p;
	struct mock_payload pl;

	mock_parse(m, i, &p, &pl);
	return p;
}

/* Silence unused-function warnings for helpers a file does not use. */
static inline void mock_use_all(void)
{
	(void)mock_connect;
	(void)mock_connect_attr;
	(void)mock_post_send;
	(void)mock_wqe;
	(void)mock_post_recv;
	(void)mock_pump;
	(void)mock_opcode;
	(void)mock_psn;
	(void)mock_ackreq;
	(void)mock_rx_aeth;
	(void)mock_free;
	(void)mock_new;
	(void)mock_deliver;
	(void)mock_reg_at;
	(void)cap_load;
	(void)mock_pair_new;
	(void)mock_pair_new_retry;
	(void)mock_pair_free;
	(void)mock_fill;
	(void)mock_pkt;
}

#endif /* SROCE_TEST_QP_MOCK_H */
