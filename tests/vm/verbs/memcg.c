// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * memcg: a process that makes the kernel allocate for it, run inside a
 * memory cgroup by tests/vm/reliability/memcg.sh.  It must not get more
 * kernel memory than its cgroup allows.
 *
 *   memcg -d DEV --mode objects|keep|odp --limit-mb L [--cqe N] [--wr N]
 *
 * objects: create CQs, QPs and MRs, round after round, and keep them.
 * keep:    create a CQ, map its ring a second time through the device
 *          file, destroy the CQ and keep the mapping: the ring's memory
 *          lives on in this process after the object is gone.
 * odp:     register on-demand-paging MRs of 4 GiB each over address
 *          space reserved but never touched, and keep them: nothing is
 *          mapped or pinned, yet each costs the kernel its page tables
 *          (the cgroup and the device budget pay, odp.rst).
 *
 * Either way it stops at the first refusal (the errno is printed) or
 * once the device memory mapped into this process exceeds L MiB, which
 * a correct kernel never lets happen inside a cgroup of less than L MiB:
 * every ring and shadow array is charged to the process's cgroup for as
 * long as it exists.  Lines printed:
 *
 *   held N KiB after K rounds
 *   stop: <call> errno E (<strerror>)          refused: good
 *   over: N KiB mapped, more than L MiB         not refused: bad (exit 3)
 *   memavailable: S KiB at start, E KiB at the end   (the whole guest's)
 *
 * The OOM killer may end it first inside its cgroup; that is the
 * script's to judge.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "vm-verbs.h"

#define MAX_MAPS	65536

static struct vm_map seen[MAX_MAPS];
static int nseen;

/* Device mappings of this process; exits if they cannot be read. */
static int uverbs_maps(struct vm_map *m, int max, unsigned long *kib)
{
	int n = vm_uverbs_maps(m, max, kib);

	if (n < 0) {
		perror("memcg: /proc/self/maps");
		exit(2);
	}
	return n;
}

static int is_seen(const struct vm_map *x)
{
	int i;

	for (i = 0; i < nseen; i++)
		if (seen[i].start == x->start)
			return 1;
	return 0;
}

/* The guest's MemAvailable, KiB: what the rest of the machine has left. */
static unsigned long mem_available(void)
{
	char line[128];
	unsigned long kib = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static void stop(const char *call, int e)
{
	printf("stop: %s errno %d (%s)\n", call, e, strerror(e));
}

/* True if the process now maps more than the limit: print "over". */
static int over(unsigned long limit_kib, int rounds)
{
	static struct vm_map now[MAX_MAPS];
	unsigned long kib;

	uverbs_maps(now, MAX_MAPS, &kib);
	printf("held %lu KiB after %d rounds\n", kib, rounds);
	if (kib <= limit_kib)
		return 0;
	printf("over: %lu KiB mapped, more than %lu MiB\n", kib,
	       limit_kib >> 10);
	return 1;
}

static int mode_objects(struct ibv_context *ctx, unsigned long limit_kib,
			int cqe, int wr)
{
	static char buf[1 << 16] __attribute__((aligned(4096)));
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = wr, .max_recv_wr = wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	int rounds;

	if (!pd) {
		stop("alloc_pd", errno);
		return 0;
	}
	for (rounds = 1; rounds < 1000000; rounds++) {
		cq = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
		if (!cq) {
			stop("create_cq", errno);
			return 0;
		}
		ia.send_cq = cq;
		ia.recv_cq = cq;
		qp = ibv_create_qp(pd, &ia);
		if (!qp) {
			stop("create_qp", errno);
			return 0;
		}
		mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		if (!mr) {
			stop("reg_mr", errno);
			return 0;
		}
		if (over(limit_kib, rounds))
			return 3;
	}
	return 0;
}

static int mode_keep(struct ibv_context *ctx, unsigned long limit_kib,
		     int cqe)
{
	static struct vm_map now[MAX_MAPS];
	unsigned long kib;
	struct ibv_cq *cq;
	int rounds, i, n, kept;
	void *p;

	for (rounds = 1; rounds < 1000000; rounds++) {
		nseen = uverbs_maps(seen, MAX_MAPS, &kib);
		cq = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
		if (!cq) {
			stop("create_cq", errno);
			return 0;
		}
		n = uverbs_maps(now, MAX_MAPS, &kib);
		kept = 0;
		for (i = 0; i < n; i++) {
			if (is_seen(&now[i]))
				continue;
			/* A second mapping of the ring, made by us. */
			p = mmap(NULL, now[i].end - now[i].start,
				 PROT_READ | PROT_WRITE, MAP_SHARED,
				 ctx->cmd_fd, now[i].pgoff);
			if (p == MAP_FAILED) {
				stop("mmap", errno);
				return 0;
			}
			kept++;
		}
		if (!kept) {
			printf("no new device mapping after create_cq\n");
			return 2;
		}
		if (ibv_destroy_cq(cq)) {
			stop("destroy_cq", errno);
			return 2;
		}
		if (over(limit_kib, rounds))
			return 3;
	}
	return 0;
}

static int mode_odp(struct ibv_context *ctx)
{
	const size_t chunk = 4ul << 30, span = 256 * chunk;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;
	char *base;
	size_t i;

	if (!pd) {
		stop("alloc_pd", errno);
		return 0;
	}
	base = mmap(NULL, span, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		perror("memcg: mmap of the reserve");
		return 2;
	}
	for (i = 0; i < span / chunk; i++) {
		mr = ibv_reg_mr(pd, base + i * chunk, chunk,
				IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
		if (!mr) {
			printf("held %zu ODP MRs of 4 GiB\n", i);
			stop("reg_mr", errno);
			return 0;
		}
	}
	printf("held %zu ODP MRs of 4 GiB, never refused\n", i);
	return 3;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "limit-mb", required_argument, NULL, 'l' },
		{ "cqe", required_argument, NULL, 'c' },
		{ "wr", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = NULL, *mode = "objects";
	unsigned long limit_mb = 64;
	int cqe = 65536, wr = 4096, c;
	struct ibv_context *ctx;
	unsigned long avail;
	int ret;

	while ((c = getopt_long(argc, argv, "d:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'l':
			limit_mb = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			cqe = atoi(optarg);
			break;
		case 'w':
			wr = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	ctx = dev ? vm_open_dev(dev) : NULL;
	if (!ctx) {
		fprintf(stderr, "memcg: cannot open %s\n", dev ? dev : "(none)");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	avail = mem_available();
	if (!strcmp(mode, "keep"))
		ret = mode_keep(ctx, limit_mb << 10, cqe);
	else if (!strcmp(mode, "odp"))
		ret = mode_odp(ctx);
	else
		ret = mode_objects(ctx, limit_mb << 10, cqe, wr);
	/* Measured while everything is still held. */
	printf("memavailable: %lu KiB at start, %lu KiB at the end\n", avail,
	       mem_available());
	return ret;
}
