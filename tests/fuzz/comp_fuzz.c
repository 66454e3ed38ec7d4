// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the completer: an RC requester with eight WQEs in flight (SEND,
 * WRITE, READ, CMP_SWAP, FETCH_ADD, SEND_WITH_IMM, a short READ,
 * WRITE_WITH_IMM) takes the input as a sequence of received responses:
 * ACKs, NAKs, READ responses, atomic ACKs, or anything else.
 *
 * Input: the records of records.h (the deadlines are retransmission
 * and RNR retry).
 *
 * After every record: no access outside what the endpoint granted, guard
 * bytes intact, the send buffer unchanged, READ/atomic results only where
 * the WQEs point, every emitted packet parses, and completions come in
 * posting order, each WQE exactly once.
 *
 * Seeds: build with -DSROCE_FUZZ_SEEDS and run with a directory: the
 * requests go to a real responder QP whose answers become the records.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"
#include "records.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c)	do { if (!(c)) __builtin_trap(); } while (0)

#define GUARD		64
#define GFILL		0xa5
#define NMR		3
#define NWQE		8

static const struct {
	u64 iova;
	u32 len;
	u32 access;
} mr_def[NMR] = {
	{ 0x10000, 4096, 0 },				/* send source */
	{ 0x20000, 4096, SROCE_ACCESS_LOCAL_WRITE },	/* READ targets */
	{ 0x30000, 64, SROCE_ACCESS_LOCAL_WRITE },	/* atomic results */
};

/* Bytes of MR 1 and 2 the WQEs may write: [off, off + len). */
static const struct {
	u8 mr;
	u32 off, len;
} writable[] = {
	{ 1, 0, 2500 }, { 1, 3000, 16 }, { 2, 0, 8 }, { 2, 8, 8 },
};

struct fx {
	struct sroce_ep ep[2];
	struct sroce_ep_qp *qp[2];	/* 0: fuzzed requester, 1: peer */
	u8 *mem[NMR];
	u8 *peer_mem;
	u64 now;
	u64 next_wr;
	FILE *seed_out;
};

static u8 pktbuf[SROCE_MAX_HDR_LEN + 8192 + 8];

static u8 pattern(u32 i, u32 k)
{
	return (u8)(k * 13 + i);
}

static int fx_emit(void *arg, struct sroce_ep_qp *q,
		   const struct sroce_tx_pkt *pkt)
{
	struct fx *f = arg;
	struct sroce_ep_rx rx;
	struct sroce_pkt p;
	u8 *copy;
	u32 n;

	FUZZ_ASSERT(pkt->hdr_len + pkt->paylen + pkt->pad + 4 <=
		    sizeof(pktbuf));
	n = sroce_ep_pkt_copy(q->ep, pkt, pktbuf);
	memset(pktbuf + n, 0, 4);
	n += 4;
	FUZZ_ASSERT(sroce_parse(pktbuf, n, &p) == SROCE_DROP_NONE);
	if (!f->seed_out)
		return 0;
	if (q == f->qp[1]) {
		u8 h[3] = { 0, (u8)(n >> 8), (u8)n };

		fwrite(h, 1, 3, f->seed_out);
		fwrite(pktbuf, 1, n, f->seed_out);
		return 0;
	}
	/* seed mode: the request reaches the real responder */
	copy = malloc(n);
	FUZZ_ASSERT(copy);
	memcpy(copy, pktbuf, n);
	rx.payload = copy + p.hdr_len;
	rx.len = p.paylen;
	rx.l3 = NULL;
	rx.ipv6 = false;
	sroce_qp_rx(&f->qp[1]->qp, &p, &rx, f->now);
	free(copy);
	return 0;
}

static void connect(struct sroce_ep_qp *q, u32 dest)
{
	struct sroce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.pkey = SROCE_DEFAULT_PKEY;
	a.qp_access_flags = SROCE_ACCESS_LOCAL_WRITE |
		SROCE_ACCESS_REMOTE_WRITE | SROCE_ACCESS_REMOTE_READ |
		SROCE_ACCESS_REMOTE_ATOMIC;
	a.path_mtu = 3;			/* 1024 */
	a.dest_qp_num = dest;
	a.max_rd_atomic = 4;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.timeout = 5;
	a.retry_cnt = 3;
	a.rnr_retry = 2;
	a.port_num = 1;
	FUZZ_ASSERT(!sroce_ep_qp_connect(q, &a, 0));
}

static void wqe(struct sroce_send_wqe *w, u64 id, u8 op, u32 key, u64 addr,
		u32 len)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = id;
	w->opcode = op;
	w->send_flags = SROCE_SEND_SIGNALED;
	w->num_sge = 1;
	w->sge[0].addr = addr;
	w->sge[0].length = len;
	w->sge[0].lkey = key;
}

/* Pristine image of MR @i with its guards, built once. */
static const u8 *pristine(u32 i)
{
	static u8 *img[NMR];
	u32 k;

	if (!img[i]) {
		img[i] = malloc(mr_def[i].len + 2 * GUARD);
		FUZZ_ASSERT(img[i]);
		memset(img[i], GFILL, mr_def[i].len + 2 * GUARD);
		for (k = 0; k < mr_def[i].len; k++)
			img[i][GUARD + k] = pattern(i, k);
	}
	return img[i];
}

static void fx_setup(struct fx *f, FILE *seed_out)
{
	struct sroce_send_wqe w;
	struct sroce_recv_wqe rw;
	u32 i, k, key[NMR], pkey;

	memset(f, 0, sizeof(*f));
	f->seed_out = seed_out;
	sroce_ep_init(&f->ep[0], fx_emit, f);
	sroce_ep_init(&f->ep[1], fx_emit, f);
	f->ep[0].clock = &f->now;
	f->ep[1].clock = &f->now;
	for (i = 0; i < NMR; i++) {
		f->mem[i] = malloc(mr_def[i].len + 2 * GUARD);
		FUZZ_ASSERT(f->mem[i]);
		memcpy(f->mem[i], pristine(i), mr_def[i].len + 2 * GUARD);
		key[i] = sroce_ep_reg_mr(&f->ep[0], 1, f->mem[i] + GUARD,
					 mr_def[i].iova, mr_def[i].len,
					 mr_def[i].access);
	}
	f->peer_mem = malloc(8192);
	FUZZ_ASSERT(f->peer_mem);
	for (k = 0; k < 8192; k++)
		f->peer_mem[k] = (u8)(k * 7);
	pkey = sroce_ep_reg_mr(&f->ep[1], 1, f->peer_mem, 0x60000, 8192,
			       SROCE_ACCESS_LOCAL_WRITE |
			       SROCE_ACCESS_REMOTE_WRITE |
			       SROCE_ACCESS_REMOTE_READ |
			       SROCE_ACCESS_REMOTE_ATOMIC);
	f->qp[0] = sroce_ep_qp_create(&f->ep[0], SROCE_QPT_RC, 0x11, 1, 16, 4,
				      false, false);
	f->qp[1] = sroce_ep_qp_create(&f->ep[1], SROCE_QPT_RC, 0x22, 1, 16, 4,
				      false, false);
	FUZZ_ASSERT(f->qp[0] && f->qp[1]);
	connect(f->qp[0], 0x22);
	connect(f->qp[1], 0x11);
	for (i = 0; i < 4; i++) {
		memset(&rw, 0, sizeof(rw));
		rw.wr_id = 100 + i;
		rw.num_sge = 1;
		rw.sge[0].addr = 0x60000 + 4096 + i * 1024;
		rw.sge[0].length = 1024;
		rw.sge[0].lkey = pkey;
		sroce_ep_post_recv(f->qp[1], &rw);
	}
	wqe(&w, 1, SROCE_WR_SEND, key[0], 0x10000, 100);
	sroce_ep_post_send(f->qp[0], &w);
	wqe(&w, 2, SROCE_WR_RDMA_WRITE, key[0], 0x10000 + 10, 2500);
	w.rdma.remote_addr = 0x60000;
	w.rdma.rkey = pkey;
	sroce_ep_post_send(f->qp[0], &w);
	wqe(&w, 3, SROCE_WR_RDMA_READ, key[1], 0x20000, 2500);
	w.rdma.remote_addr = 0x60000 + 100;
	w.rdma.rkey = pkey;
	sroce_ep_post_send(f->qp[0], &w);
	wqe(&w, 4, SROCE_WR_ATOMIC_CMP_AND_SWP, key[2], 0x30000, 8);
	w.atomic.remote_addr = 0x60000 + 3000;
	w.atomic.rkey = pkey;
	w.atomic.compare_add = 0;
	w.atomic.swap = 7;
	sroce_ep_post_send(f->qp[0], &w);
	wqe(&w, 5, SROCE_WR_ATOMIC_FETCH_AND_ADD, key[2], 0x30008, 8);
	w.atomic.remote_addr = 0x60000 + 3008;
	w.atomic.rkey = pkey;
	w.atomic.compare_add = 5;
	sroce_ep_post_send(f->qp[0], &w);
	wqe(&w, 6, SROCE_WR_SEND_WITH_IMM, key[0], 0x10000, 0);
	w.num_sge = 0;
	w.ex = 0xabcdef01;
	sroce_ep_post_send(f->qp[0], &w);
	wqe(&w, 7, SROCE_WR_RDMA_READ, key[1], 0x20000 + 3000, 16);
	w.rdma.remote_addr = 0x60000 + 4000;
	w.rdma.rkey = pkey;
	sroce_ep_post_send(f->qp[0], &w);
	wqe(&w, 8, SROCE_WR_RDMA_WRITE_WITH_IMM, key[0], 0x10000 + 50, 10);
	w.rdma.remote_addr = 0x60000 + 200;
	w.rdma.rkey = pkey;
	sroce_ep_post_send(f->qp[0], &w);
	fuzz_service(f->qp[0], false);
	if (seed_out)
		fuzz_service(f->qp[1], false);
	f->next_wr = 1;
}

static void fx_teardown(struct fx *f)
{
	u32 i;

	sroce_ep_qp_destroy(f->qp[0]);
	sroce_ep_qp_destroy(f->qp[1]);
	for (i = 0; i < NMR; i++)
		free(f->mem[i]);
	free(f->peer_mem);
	sroce_ep_destroy(&f->ep[0]);
	sroce_ep_destroy(&f->ep[1]);
}

/* Every byte of MR @i outside the writable ranges is pristine. */
static void check_mr(struct fx *f, u32 i)
{
	u32 from = 0, to, w, n = mr_def[i].len + 2 * GUARD;

	for (;;) {
		to = n;
		for (w = 0; w < ARRAY_SIZE(writable); w++)
			if (writable[w].mr == i &&
			    GUARD + writable[w].off >= from &&
			    GUARD + writable[w].off < to)
				to = GUARD + writable[w].off;
		FUZZ_ASSERT(!memcmp(f->mem[i] + from, pristine(i) + from,
				    to - from));
		if (to == n)
			return;
		for (w = 0; w < ARRAY_SIZE(writable); w++)
			if (writable[w].mr == i &&
			    GUARD + writable[w].off == to)
				from = to + writable[w].len;
	}
}

static void fx_check(void *arg)
{
	struct fx *f = arg;
	struct sroce_cqe c;
	u32 i;

	FUZZ_ASSERT(!f->ep[0].violations);
	for (i = 0; i < NMR; i++)
		check_mr(f, i);
	while (sroce_ep_poll(&f->qp[0]->scq, &c)) {
		FUZZ_ASSERT(c.wr_id == f->next_wr);
		f->next_wr++;
	}
	FUZZ_ASSERT(f->next_wr <= NWQE + 1);
	while (sroce_ep_poll(&f->qp[0]->rcq, &c))
		FUZZ_ASSERT(0);		/* no receives posted */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fx f;

	fx_setup(&f, NULL);
	fuzz_feed(f.qp[0], &f.now, data, size, fx_check, &f);
	fx_teardown(&f);
	return 0;
}

#ifdef SROCE_FUZZ_SEEDS
int main(int argc, char **argv)
{
	char path[512];
	struct fx f;
	FILE *out;

	if (argc != 2) {
		fprintf(stderr, "usage: %s corpus-dir\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/responses", argv[1]);
	out = fopen(path, "wb");
	if (!out) {
		perror(path);
		return 1;
	}
	fx_setup(&f, out);
	fclose(out);
	fx_teardown(&f);
	return 0;
}
#endif
