// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the responder: an RC QP in RTS with registered memory and posted
 * receives takes the input as a sequence of received requests.
 *
 * Input: the records of records.h.
 *
 * After every record: the core never touched memory outside what the
 * endpoint granted (ep.violations), the guard bytes around every MR are
 * intact, read-only memory is unchanged, every packet the core emitted
 * parses, and receive completions come in posting order, exactly once.
 *
 * Seeds: build with -DSROCE_FUZZ_SEEDS (a plain main, no libFuzzer) and
 * run with a directory: a requester QP posts one of each operation
 * against this fixture and its packets are written as records.
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
#define NMR		4
#define NRECV		6

/* MR layout of the fuzzed side; keys are deterministic: (slot + 1) << 8 | n */
static const struct {
	u64 iova;
	u32 len;
	u32 access;
} mr_def[NMR] = {
	{ 0x10000, 4096, SROCE_ACCESS_LOCAL_WRITE | SROCE_ACCESS_REMOTE_WRITE |
			 SROCE_ACCESS_REMOTE_READ | SROCE_ACCESS_REMOTE_ATOMIC },
	{ 0x20000, 4096, SROCE_ACCESS_REMOTE_READ },		/* read-only */
	{ 0x30000, 64, SROCE_ACCESS_LOCAL_WRITE | SROCE_ACCESS_REMOTE_ATOMIC },
	{ 0x40000, 8192, SROCE_ACCESS_LOCAL_WRITE },		/* receives */
};

struct fx {
	struct sroce_ep ep[2];
	struct sroce_ep_qp *qp[2];	/* 0: fuzzed responder, 1: peer */
	u8 *mem[NMR];
	u32 key[NMR];
	u8 *peer_mem;			/* peer's local MR: 8 KiB at 0x50000 */
	u64 now;
	u64 next_recv;			/* next receive wr_id expected */
	FILE *seed_out;			/* seed mode: peer packets go here */
};

static u8 pktbuf[SROCE_MAX_HDR_LEN + 8192 + 8];

static int fx_emit(void *arg, struct sroce_ep_qp *q,
		   const struct sroce_tx_pkt *pkt)
{
	struct fx *f = arg;
	struct sroce_pkt p;
	u32 n;

	FUZZ_ASSERT(pkt->hdr_len + pkt->paylen + pkt->pad + 4 <=
		    sizeof(pktbuf));
	n = sroce_ep_pkt_copy(q->ep, pkt, pktbuf);
	memset(pktbuf + n, 0, 4);	/* ICRC, not checked past the glue */
	n += 4;
	/* What the core sends must itself be a valid packet. */
	FUZZ_ASSERT(sroce_parse(pktbuf, n, &p) == SROCE_DROP_NONE);
	if (f->seed_out && q == f->qp[1]) {
		u8 h[3] = { 0, (u8)(n >> 8), (u8)n };

		fwrite(h, 1, 3, f->seed_out);
		fwrite(pktbuf, 1, n, f->seed_out);
	}
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
			img[i][GUARD + k] = (u8)(k * 13 + i);
	}
	return img[i];
}

static void fx_setup(struct fx *f)
{
	struct sroce_recv_wqe rw;
	u32 i;

	memset(f, 0, sizeof(*f));
	sroce_ep_init(&f->ep[0], fx_emit, f);
	sroce_ep_init(&f->ep[1], fx_emit, f);
	f->ep[0].clock = &f->now;
	f->ep[1].clock = &f->now;
	for (i = 0; i < NMR; i++) {
		f->mem[i] = malloc(mr_def[i].len + 2 * GUARD);
		FUZZ_ASSERT(f->mem[i]);
		memcpy(f->mem[i], pristine(i), mr_def[i].len + 2 * GUARD);
		f->key[i] = sroce_ep_reg_mr(&f->ep[0], 1, f->mem[i] + GUARD,
					    mr_def[i].iova, mr_def[i].len,
					    mr_def[i].access);
	}
	f->peer_mem = calloc(1, 8192);
	FUZZ_ASSERT(f->peer_mem);
	for (i = 0; i < 8192; i++)
		f->peer_mem[i] = (u8)(i * 7);
	/* first MR of ep[1]: key 0x101 */
	sroce_ep_reg_mr(&f->ep[1], 1, f->peer_mem, 0x50000, 8192,
			SROCE_ACCESS_LOCAL_WRITE);
	f->qp[0] = sroce_ep_qp_create(&f->ep[0], SROCE_QPT_RC, 0x11, 1, 16, 4,
				      false, false);
	f->qp[1] = sroce_ep_qp_create(&f->ep[1], SROCE_QPT_RC, 0x22, 1, 16, 4,
				      false, false);
	FUZZ_ASSERT(f->qp[0] && f->qp[1]);
	connect(f->qp[0], 0x22);
	connect(f->qp[1], 0x11);
	/* Receives: two SGEs each, 1 KiB apart, in MR 3. */
	for (i = 0; i < NRECV; i++) {
		memset(&rw, 0, sizeof(rw));
		rw.wr_id = 100 + i;
		rw.num_sge = 2;
		rw.sge[0].addr = mr_def[3].iova + i * 1280;
		rw.sge[0].length = 256;
		rw.sge[0].lkey = f->key[3];
		rw.sge[1].addr = mr_def[3].iova + i * 1280 + 512;
		rw.sge[1].length = 700;
		rw.sge[1].lkey = f->key[3];
		sroce_ep_post_recv(f->qp[0], &rw);
	}
	f->next_recv = 100;
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

static void fx_check(void *arg)
{
	struct fx *f = arg;
	struct sroce_cqe c;
	u32 i, n;

	FUZZ_ASSERT(!f->ep[0].violations);
	for (i = 0; i < NMR; i++) {
		n = mr_def[i].len;
		FUZZ_ASSERT(!memcmp(f->mem[i], pristine(i), GUARD));
		FUZZ_ASSERT(!memcmp(f->mem[i] + GUARD + n,
				    pristine(i) + GUARD + n, GUARD));
	}
	/* MR 1 is read-only to the peer */
	FUZZ_ASSERT(!memcmp(f->mem[1], pristine(1),
			    mr_def[1].len + 2 * GUARD));
	while (sroce_ep_poll(&f->qp[0]->rcq, &c)) {
		FUZZ_ASSERT(c.wr_id == f->next_recv);
		f->next_recv++;
		FUZZ_ASSERT(c.status != SROCE_WC_SUCCESS ||
			    c.byte_len <= 956);
	}
	FUZZ_ASSERT(f->next_recv <= 100 + NRECV);
	while (sroce_ep_poll(&f->qp[0]->scq, &c))
		;	/* the fuzzed QP posted no sends: none may complete */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fx f;

	fx_setup(&f);
	fuzz_feed(f.qp[0], &f.now, data, size, fx_check, &f);
	fx_teardown(&f);
	return 0;
}

#ifdef SROCE_FUZZ_SEEDS
/* One seed file per operation, plus one with all of them in a row. */
static void seed(const char *dir, const char *name,
		 const struct sroce_send_wqe *w, u32 n)
{
	char path[512];
	struct fx f;
	u32 i;

	fx_setup(&f);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f.seed_out = fopen(path, "wb");
	if (!f.seed_out) {
		perror(path);
		exit(1);
	}
	for (i = 0; i < n; i++)
		sroce_ep_post_send(f.qp[1], &w[i]);
	fuzz_service(f.qp[1], false);
	fclose(f.seed_out);
	fx_teardown(&f);
}

static void sge(struct sroce_send_wqe *w, u32 len)
{
	w->send_flags = SROCE_SEND_SIGNALED;
	w->num_sge = 1;
	w->sge[0].addr = 0x50000;
	w->sge[0].length = len;
	w->sge[0].lkey = 0x101;
}

int main(int argc, char **argv)
{
	static struct sroce_send_wqe w[9];
	u32 i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s corpus-dir\n", argv[0]);
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		w[i].wr_id = i + 1;
		w[i].send_flags = SROCE_SEND_SIGNALED | SROCE_SEND_INLINE;
	}
	w[0].opcode = SROCE_WR_SEND;
	w[0].inline_len = 200;
	w[1].opcode = SROCE_WR_SEND_WITH_IMM;
	w[1].inline_len = 16;
	w[1].ex = 0x12345678;
	w[2].opcode = SROCE_WR_RDMA_WRITE;
	sge(&w[2], 2500);		/* three packets at MTU 1024 */
	w[2].rdma.remote_addr = 0x10000 + 100;
	w[2].rdma.rkey = 0x101;
	w[3].opcode = SROCE_WR_RDMA_WRITE_WITH_IMM;
	w[3].inline_len = 8;
	w[3].rdma.remote_addr = 0x10000;
	w[3].rdma.rkey = 0x101;
	w[4].opcode = SROCE_WR_RDMA_READ;
	sge(&w[4], 2000);
	w[4].rdma.remote_addr = 0x20000;
	w[4].rdma.rkey = 0x202;
	w[5].opcode = SROCE_WR_ATOMIC_CMP_AND_SWP;
	sge(&w[5], 8);
	w[5].atomic.remote_addr = 0x30000;
	w[5].atomic.rkey = 0x303;
	w[5].atomic.compare_add = 0x1a0d00ull;
	w[5].atomic.swap = 42;
	w[6].opcode = SROCE_WR_ATOMIC_FETCH_AND_ADD;
	sge(&w[6], 8);
	w[6].atomic.remote_addr = 0x30008;
	w[6].atomic.rkey = 0x303;
	w[6].atomic.compare_add = 1;
	w[7].opcode = SROCE_WR_SEND;
	sge(&w[7], 900);
	w[8].opcode = SROCE_WR_RDMA_WRITE;
	w[8].inline_len = 16;
	w[8].rdma.remote_addr = 0x20000;	/* read-only: NAK */
	w[8].rdma.rkey = 0x202;
	seed(argv[1], "send", &w[0], 1);
	seed(argv[1], "send-imm", &w[1], 1);
	seed(argv[1], "write", &w[2], 1);
	seed(argv[1], "write-imm", &w[3], 1);
	seed(argv[1], "read", &w[4], 1);
	seed(argv[1], "cmp-swap", &w[5], 1);
	seed(argv[1], "fetch-add", &w[6], 1);
	seed(argv[1], "write-ro", &w[8], 1);
	seed(argv[1], "all", w, 8);
	return 0;
}
#endif
