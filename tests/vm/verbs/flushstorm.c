// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * flushstorm: a process that tries to keep the kernel flushing forever.
 * Its RC QP is in ERR, so every WQE in its rings is completed in error
 * when the kernel looks.  One thread keeps storing prod = cons + entries
 * into the SQ's and the RQ's control words (every slot flushable, always)
 * while the main thread rings the doorbell: the uverbs POST_SEND command
 * with no work request, written to the device file as the provider does.
 * The CQ is tiny and overflows at once.
 *
 *   flushstorm -d DEV [--secs S] [--wr N]
 *
 * Prints the doorbells rung, the WQEs the kernel took from each ring in
 * all (its cons at the end less at the start), and the most it took
 * during one doorbell (which includes what the QP's work took meanwhile
 * on another CPU):
 *
 *   flushstorm: D doorbells in S s, taken: sq A, rq B; most per doorbell:
 *   sq X, rq Y (ring N)
 *
 * tests/vm/reliability/flushstorm.sh judges the figures; a kernel that
 * flushes until the ring is seen empty stays in the call for as long as
 * this process keeps up, with bottom halves off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "vm-verbs.h"

#define MAX_MAPS	32
#define RING_HDR	128	/* struct sroce_ring_ctl, uapi/sroce-abi.h */

/* The control words at the start of every ring (uapi/sroce-abi.h). */
struct ctl {
	uint32_t prod;
	uint32_t prod_flags;
	uint8_t pad0[56];
	uint32_t cons;
	uint32_t cons_flags;
};

static volatile bool stop;
static struct ctl *sq, *rq;
static uint32_t entries;

static uint32_t load(uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void *scribbler(void *arg)
{
	(void)arg;
	while (!stop) {
		__atomic_store_n(&sq->prod, load(&sq->cons) + entries,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&rq->prod, load(&rq->cons) + entries,
				 __ATOMIC_RELEASE);
	}
	return NULL;
}

/* A zero-WR POST_SEND: what the provider's doorbell is. */
static int doorbell(struct ibv_qp *qp)
{
	struct ib_uverbs_post_send_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} __attribute__((packed)) c = {
		.hdr = { .command = IB_USER_VERBS_CMD_POST_SEND,
			 .in_words = sizeof(c) / 4,
			 .out_words = sizeof(resp) / 4 },
		.cmd = { .response = (uintptr_t)&resp,
			 .qp_handle = qp->handle,
			 .wqe_size = sizeof(struct ib_uverbs_send_wr) },
	};

	return write(qp->context->cmd_fd, &c, sizeof(c)) == sizeof(c) ? 0 :
	       errno;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "secs", required_argument, NULL, 's' },
		{ "wr", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct vm_map before[MAX_MAPS], after[MAX_MAPS], *ring[2];
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	uint32_t sq_max = 0, rq_max = 0, s0, r0, sq_start, rq_start;
	static char buf[64];
	const char *dev = NULL;
	double secs = 10, t0;
	struct ibv_context *ctx;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	unsigned long bells = 0, failed = 0;
	int nb, na, i, j, k, c, err = 0;
	pthread_t th;

	entries = 1024;
	while ((c = getopt_long(argc, argv, "d:", opts, NULL)) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 's')
			secs = atof(optarg);
		else if (c == 'w')
			entries = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	ctx = dev ? vm_open_dev(dev) : NULL;
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	if (!mr) {
		perror("flushstorm: setup");
		return 2;
	}
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = entries;
	ia.cap.max_recv_wr = entries;
	nb = vm_uverbs_maps(before, MAX_MAPS, NULL);
	qp = ibv_create_qp(pd, &ia);
	if (!qp || ibv_modify_qp(qp, &attr, IBV_QP_STATE)) {
		perror("flushstorm: create_qp / modify_qp(ERR)");
		return 2;
	}
	/* The QP's two new mappings: the SQ has the wider elements. */
	na = vm_uverbs_maps(after, MAX_MAPS, NULL);
	for (i = 0, k = 0; i < na && k < 2; i++) {
		for (j = 0; j < nb; j++)
			if (before[j].start == after[i].start)
				break;
		if (j == nb)
			ring[k++] = &after[i];
	}
	if (k != 2) {
		fprintf(stderr, "flushstorm: %d new mappings, not 2\n", k);
		return 2;
	}
	sq = (struct ctl *)ring[0]->start;
	rq = (struct ctl *)ring[1]->start;
	if (ring[0]->end - ring[0]->start < ring[1]->end - ring[1]->start) {
		sq = (struct ctl *)ring[1]->start;
		rq = (struct ctl *)ring[0]->start;
	}

	if (doorbell(qp)) {
		perror("flushstorm: doorbell");
		return 2;
	}
	if (pthread_create(&th, NULL, scribbler, NULL)) {
		perror("flushstorm: pthread_create");
		return 2;
	}
	sq_start = load(&sq->cons);
	rq_start = load(&rq->cons);
	t0 = now();
	while (now() - t0 < secs) {
		s0 = load(&sq->cons);
		r0 = load(&rq->cons);
		err = doorbell(qp);
		if (err)
			failed++;
		bells++;
		if (load(&sq->cons) - s0 > sq_max)
			sq_max = load(&sq->cons) - s0;
		if (load(&rq->cons) - r0 > rq_max)
			rq_max = load(&rq->cons) - r0;
	}
	stop = true;
	pthread_join(th, NULL);
	printf("flushstorm: %lu doorbells in %.0f s, taken: sq %u, rq %u; most per doorbell: sq %u, rq %u (ring %u)\n",
	       bells, secs, load(&sq->cons) - sq_start,
	       load(&rq->cons) - rq_start, sq_max, rq_max, entries);
	if (failed)
		printf("flushstorm: %lu doorbells failed, the last with %s\n",
		       failed, strerror(err));
	if (ibv_destroy_qp(qp) || ibv_dereg_mr(mr) || ibv_destroy_cq(cq) ||
	    ibv_dealloc_pd(pd) || ibv_close_device(ctx)) {
		perror("flushstorm: teardown");
		return 1;
	}
	return 0;
}
