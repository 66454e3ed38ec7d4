// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * scribble: a hostile local user.  It rewrites the memory its verbs
 * device shares with the kernel (every ring the device mapped for it:
 * SQ, RQ and CQ) while it drives traffic through those rings, and checks
 * that nothing outside its own victim QPs is hurt.
 *
 *   scribble -d DEV -g GID_INDEX [--pairs N] [--iters N] [--seed S]
 *
 * Per victim pair (two RC QPs of DEV connected to each other through the
 * device's own GID, each with its own CQ) the rings are found as the
 * mappings of /dev/infiniband/uverbs* that appeared when the pair was
 * created, so no provider internals are assumed.  The pair then runs
 * --iters rounds of: post receives, overwrite one thing in one of its
 * rings, post SEND/WRITE/READ, poll.  What is overwritten cycles by pair:
 *
 *   0 indices   prod or cons with an impossible, stale or random value
 *   1 flags     the flag words next to them
 *   2 elements  random bytes over WQEs and CQEs, headers left alone
 *   3 anything  all of the above, plus a thread that keeps scribbling
 *               (random bytes anywhere in the rings) while verbs run
 *
 * Garbage that reaches the application through its own rings (CQEs with
 * random wr_ids, a full-looking SQ) is the process's own business and is
 * ignored.  What is checked: a sentinel pair in the same process, never
 * scribbled, moves verified data between the victims' rounds and must
 * see every byte and every completion right; every destroy succeeds; the
 * process does not hang (alarm).  The kernel side (no oops, no WARN, the
 * other processes' QPs unharmed, ring_errors counting) is checked by
 * tests/vm/reliability/scribble.sh.
 *
 * Output ends with "scribble: ... ok" and exit 0; 1 on a failed check,
 * 2 on a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vm-verbs.h"

#define MAX_MAPS	16
#define BUF		65536	/* per pair; the sentinel's halves are 32 KiB */
#define MSG		512
#define SENT_MSG	4096
#define RING_HDR	128	/* struct sroce_ring_ctl; rxe's is smaller */

struct map {
	uintptr_t start, end;
};

struct pair {
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct map maps[MAX_MAPS];
	int nmaps;
	int rq[2];		/* index in @maps of each QP's RQ, or -1 */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gidx;
static uint64_t rng;
static unsigned long scribbles, victim_wcs, events, qp_fatal, cq_err;
static unsigned long sentinel_bytes;
/* Where find_rq's receive points: the victims' buffer. */
static struct ibv_mr *rq_mr;
static uint8_t *rq_buf;

static void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("scribble: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	exit(code);
}

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic per --seed, shared by both threads. */
	uint64_t x = __atomic_load_n(&rng, __ATOMIC_RELAXED);

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	__atomic_store_n(&rng, x, __ATOMIC_RELAXED);
	return x * 0x2545f4914f6cdd1dULL;
}

/* The device mappings of this process, [start, end). */
static int uverbs_maps(struct map *m, int max)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		die(2, "cannot read /proc/self/maps");
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx", &s, &e) != 2)
			continue;
		m[n].start = s;
		m[n].end = e;
		n++;
	}
	fclose(f);
	return n;
}

static bool known(const struct map *m, int n, const struct map *x)
{
	int i;

	for (i = 0; i < n; i++)
		if (m[i].start == x->start)
			return true;
	return false;
}

static int modify(struct ibv_qp *qp, uint32_t dqpn, bool victim)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	/*
	 * Short: a victim whose peer went to error must fail fast.  The
	 * sentinel is patient (1.07 s, 7 retries): a loss beside the
	 * victims' floods must cost it a retransmission, not the test.
	 */
	a.timeout = victim ? 10 : 18;
	a.retry_cnt = victim ? 2 : 7;
	a.rnr_retry = 2;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * Which mapping is @qp's RQ: the one whose first word (prod) moves by one
 * when a receive is posted.  The receive stays posted; -1 if none did.
 */
static int find_rq(struct pair *p, struct ibv_qp *qp)
{
	struct ibv_sge sge = { .addr = (uintptr_t)rq_buf + BUF / 2,
			       .length = MSG, .lkey = rq_mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	uint32_t before[MAX_MAPS];
	int i, found = -1;

	for (i = 0; i < p->nmaps; i++)
		before[i] = *(volatile uint32_t *)p->maps[i].start;
	if (ibv_post_recv(qp, &rwr, &bad))
		return -1;
	for (i = 0; i < p->nmaps; i++)
		if (*(volatile uint32_t *)p->maps[i].start == before[i] + 1)
			found = found == -1 ? i : -2;
	return found < 0 ? -1 : found;
}

/* Two connected RC QPs; @p->maps gets the mappings they brought. */
static void pair_create(struct pair *p, int depth, bool victim)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};
	struct map before[MAX_MAPS * 4], now[MAX_MAPS * 4];
	int nb, nn, i;

	memset(p, 0, sizeof(*p));
	nb = uverbs_maps(before, MAX_MAPS * 4);
	for (i = 0; i < 2; i++) {
		p->cq[i] = ibv_create_cq(ctx, 2 * depth, NULL, NULL, 0);
		if (!p->cq[i])
			die(2, "create_cq: %s", strerror(errno));
		ia.send_cq = ia.recv_cq = p->cq[i];
		p->qp[i] = ibv_create_qp(pd, &ia);
		if (!p->qp[i])
			die(2, "create_qp: %s", strerror(errno));
	}
	if (modify(p->qp[0], p->qp[1]->qp_num, victim) ||
	    modify(p->qp[1], p->qp[0]->qp_num, victim))
		die(2, "connect: %s", strerror(errno));
	nn = uverbs_maps(now, MAX_MAPS * 4);
	for (i = 0; i < nn && p->nmaps < MAX_MAPS; i++)
		if (!known(before, nb, &now[i]))
			p->maps[p->nmaps++] = now[i];
	for (i = 0; i < 2; i++)
		p->rq[i] = victim ? find_rq(p, p->qp[i]) : -1;
}

static bool pair_destroy(struct pair *p)
{
	bool ok = true;
	int i;

	for (i = 0; i < 2; i++)
		if (p->qp[i] && ibv_destroy_qp(p->qp[i])) {
			printf("FAIL destroy_qp: %s\n", strerror(errno));
			ok = false;
		}
	for (i = 0; i < 2; i++)
		if (p->cq[i] && ibv_destroy_cq(p->cq[i])) {
			printf("FAIL destroy_cq: %s\n", strerror(errno));
			ok = false;
		}
	return ok;
}

/* One write of garbage into one of @p's rings, of the kind @mode names. */
static void scribble(struct pair *p, int mode)
{
	const struct map *m = &p->maps[rnd() % p->nmaps];
	uint8_t *base = (uint8_t *)m->start;
	size_t len = m->end - m->start;
	volatile uint32_t *w;
	uint32_t v, cur;
	size_t off;

	if (mode == 3)
		mode = rnd() % 3;
	switch (mode) {
	case 0:		/* prod (offset 0) or cons (offset 64) */
		w = (volatile uint32_t *)(base + (rnd() & 1) * 64);
		/* Half of them an RQ's prod: the kernel reads it next. */
		v = rnd() & 1;
		if (rnd() & 1 && p->rq[v] >= 0) {
			/* Always impossible: more WQEs than the ring holds. */
			w = (volatile uint32_t *)p->maps[p->rq[v]].start;
			*w += 0x10000 + (rnd() & 0xffff);
			scribbles++;
			return;
		}
		cur = *w;
		switch (rnd() % 6) {
		case 0: v = cur + 0x10000; break;	/* far ahead */
		case 1: v = cur - 1; break;		/* backwards */
		case 2: v = cur + 1; break;		/* one too many */
		case 3: v = 0xffffffff; break;
		case 4: v = 0; break;
		default: v = rnd(); break;
		}
		*w = v;
		break;
	case 1:		/* the flag words */
		w = (volatile uint32_t *)(base + 4 + (rnd() & 1) * 64);
		*w = rnd();
		break;
	default:	/* elements: a run of random bytes after the header */
		if (len <= RING_HDR)
			return;
		off = RING_HDR + rnd() % (len - RING_HDR);
		for (v = 1 + rnd() % 64; v && off < len; v--, off++)
			base[off] = rnd();
		break;
	}
	scribbles++;
}

static volatile bool thread_stop;

static void *scribbler(void *arg)
{
	struct pair *p = arg;
	struct timespec ts = { 0, 200000 };

	while (!thread_stop) {
		scribble(p, 3);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void drain_events(void)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(ctx, &ev)) {
		events++;
		if (ev.event_type == IBV_EVENT_QP_FATAL)
			qp_fatal++;
		if (ev.event_type == IBV_EVENT_CQ_ERR)
			cq_err++;
		ibv_ack_async_event(&ev);
	}
}

/*
 * The victims' traffic, both ways; whatever comes back is not looked at.
 * The scribble lands between the receives and the sends: the SENDs make
 * the kernel read the RQ indices and WQEs just overwritten (the provider
 * rewrites an SQ's prod from its own copy at the next post, so that
 * index bites only if the kernel rereads it first, on an ACK).
 */
static void victim_round(struct pair *p, struct ibv_mr *mr, uint8_t *buf,
			 int mode)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = MSG,
			       .lkey = mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1 }, *sbad;
	struct ibv_wc wc[32];
	int i, n, k, q;

	/*
	 * One receive per QP per round, as many as the round's SENDs take:
	 * the kernel has consumed every receive it knew of when the next
	 * SEND arrives, so it reads the RQ's prod afresh then.
	 */
	for (q = 0; q < 2; q++) {
		sge.addr = (uintptr_t)buf + BUF / 2 + q * MSG;
		(void)ibv_post_recv(p->qp[q], &rwr, &rbad);
	}
	if (mode != 3)
		scribble(p, mode);
	for (i = 0; i < 4; i++) {
		q = i == 3;
		sge.addr = (uintptr_t)buf + i * MSG;
		swr.wr_id = i;
		swr.opcode = i == 1 ? IBV_WR_RDMA_WRITE :
			     i == 2 ? IBV_WR_RDMA_READ : IBV_WR_SEND;
		swr.send_flags = IBV_SEND_SIGNALED;
		swr.wr.rdma.remote_addr = (uintptr_t)buf + BUF / 2 + 8 * MSG;
		swr.wr.rdma.rkey = mr->rkey;
		(void)ibv_post_send(p->qp[q], &swr, &sbad);
	}
	for (k = 0; k < 20; k++) {
		for (i = 0; i < 2; i++) {
			n = ibv_poll_cq(p->cq[i], 32, wc);
			if (n > 0)
				victim_wcs += n;
		}
		usleep(100);
	}
}

/* Poll @cq for @want good completions within 10 s. */
static bool reap(struct ibv_cq *cq, int want, const char *what)
{
	struct timespec t0, t;
	struct ibv_wc wc[8];
	int n, i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (want > 0) {
		n = ibv_poll_cq(cq, 8, wc);
		if (n < 0) {
			printf("FAIL sentinel %s: poll_cq %d\n", what, n);
			return false;
		}
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				printf("FAIL sentinel %s: status %s\n", what,
				       ibv_wc_status_str(wc[i].status));
				return false;
			}
		want -= n;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (want > 0 && t.tv_sec - t0.tv_sec > 10) {
			printf("FAIL sentinel %s: no completion in 10 s\n", what);
			return false;
		}
	}
	return true;
}

/*
 * The sentinel: a SEND and a WRITE of fresh patterns from qp[0] to
 * qp[1], every byte checked.  False on any difference.
 */
static bool sentinel_round(struct pair *s, struct ibv_mr *mr, uint8_t *buf,
			   unsigned int round)
{
	uint8_t *src = buf, *dst = buf + BUF / 2;
	struct ibv_sge sge = { .addr = (uintptr_t)dst, .length = SENT_MSG,
			       .lkey = mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = round, .sg_list = &sge,
				   .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	int i;

	for (i = 0; i < 2 * SENT_MSG; i++)
		src[i] = (uint8_t)(round * 7 + i * 13 + (i >> 8));
	memset(dst, 0, 2 * SENT_MSG);
	if (ibv_post_recv(s->qp[1], &rwr, &rbad))
		die(1, "FAIL sentinel post_recv");
	sge.addr = (uintptr_t)src;
	swr.opcode = IBV_WR_SEND;
	if (ibv_post_send(s->qp[0], &swr, &sbad))
		die(1, "FAIL sentinel post_send");
	sge.addr = (uintptr_t)src + SENT_MSG;
	swr.opcode = IBV_WR_RDMA_WRITE;
	swr.wr.rdma.remote_addr = (uintptr_t)dst + SENT_MSG;
	swr.wr.rdma.rkey = mr->rkey;
	if (ibv_post_send(s->qp[0], &swr, &sbad))
		die(1, "FAIL sentinel post_send");
	if (!reap(s->cq[0], 2, "send side") || !reap(s->cq[1], 1, "recv side"))
		return false;
	if (memcmp(src, dst, 2 * SENT_MSG)) {
		printf("FAIL sentinel round %u: data differ\n", round);
		return false;
	}
	sentinel_bytes += 2 * SENT_MSG;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", 1, NULL, 'd' }, { "gid-index", 1, NULL, 'g' },
		{ "pairs", 1, NULL, 'p' }, { "iters", 1, NULL, 'i' },
		{ "seed", 1, NULL, 'S' }, { NULL, 0, NULL, 0 },
	};
	const char *dev = NULL;
	unsigned int pairs = 8, iters = 50, seed = 1, p, i;
	struct pair sent, vic;
	struct ibv_mr *mr, *smr;
	uint8_t *buf, *sbuf;
	unsigned long fatal;
	bool ok = true;
	pthread_t th;
	int c;

	while ((c = getopt_long(argc, argv, "d:g:p:i:S:", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'p': pairs = strtoul(optarg, NULL, 0); break;
		case 'i': iters = strtoul(optarg, NULL, 0); break;
		case 'S': seed = strtoul(optarg, NULL, 0); break;
		default: die(2, "usage: scribble -d DEV -g GIDX [--pairs N] [--iters N] [--seed S]");
		}
	}
	if (!dev)
		die(2, "no -d DEV");
	rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)seed << 17 | seed);
	/* A hang is a failure too; generous for TCG. */
	alarm(60 + pairs * iters / 2);

	ctx = vm_open_dev(dev);
	if (!ctx)
		die(2, "cannot open %s", dev);
	if (ibv_query_gid(ctx, 1, gidx, &gid))
		die(2, "query_gid %d failed", gidx);
	c = fcntl(ctx->async_fd, F_GETFL);
	if (fcntl(ctx->async_fd, F_SETFL, c | O_NONBLOCK))
		die(2, "async_fd: %s", strerror(errno));
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, BUF);
	sbuf = aligned_alloc(4096, BUF);
	if (!pd || !buf || !sbuf)
		die(2, "alloc_pd/buffers failed");
	memset(buf, 0, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	smr = ibv_reg_mr(pd, sbuf, BUF, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	if (!mr || !smr)
		die(2, "reg_mr: %s", strerror(errno));

	rq_mr = mr;
	rq_buf = buf;
	pair_create(&sent, 16, false);
	if (!sentinel_round(&sent, smr, sbuf, 0))
		die(1, "FAIL the sentinel pair does not work before scribbling");

	for (p = 0; p < pairs && ok; p++) {
		int mode = p % 4;

		pair_create(&vic, 8 << (p % 3), true);
		if (vic.nmaps < 1)
			die(2, "pair %u: no new uverbs mapping (rings not mmapped?)", p);
		if (mode == 3) {
			thread_stop = false;
			if (pthread_create(&th, NULL, scribbler, &vic))
				die(2, "pthread_create failed");
		}
		for (i = 0; i < iters; i++) {
			victim_round(&vic, mr, buf, mode);
			if (i % 10 == 9)
				ok &= sentinel_round(&sent, smr, sbuf, p * iters + i);
		}
		if (mode == 3) {
			thread_stop = true;
			pthread_join(th, NULL);
		}
		fatal = qp_fatal;
		drain_events();
		if (mode == 0 && vic.rq[0] < 0 && vic.rq[1] < 0)
			die(2, "pair %u: no RQ mapping found", p);
		/* Twenty-odd impossible RQ indices: the kernel must refuse one. */
		if (mode == 0 && qp_fatal == fatal) {
			printf("FAIL pair %u: index scribbles drew no QP_FATAL\n", p);
			ok = false;
		}
		ok &= pair_destroy(&vic);
		ok &= sentinel_round(&sent, smr, sbuf, p * iters + i);
		printf("pair %u: mode %d, %d mappings, scribbles so far %lu, "
		       "QP_FATAL %lu\n", p, mode, vic.nmaps, scribbles, qp_fatal);
	}
	drain_events();
	ok &= pair_destroy(&sent);
	if (ibv_dereg_mr(mr) || ibv_dereg_mr(smr) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx)) {
		printf("FAIL teardown: %s\n", strerror(errno));
		ok = false;
	}
	printf("scribble: %u pairs, %lu scribbles, %lu victim completions, "
	       "%lu async events (QP_FATAL %lu, CQ_ERR %lu), sentinel %lu bytes verified: %s\n",
	       p, scribbles, victim_wcs, events, qp_fatal, cq_err,
	       sentinel_bytes, ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}
