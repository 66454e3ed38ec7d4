// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * odp: on-demand paging MRs (IBV_ACCESS_ON_DEMAND) through the sroce
 * provider, on one device (RC QP pairs connected through the device's
 * own GID; a refused access ends a pair, so each refusal gets a new one).
 *
 *   odp DEV GID_INDEX
 *
 * The device reports explicit ODP for RC, UC and UD and no implicit ODP;
 * an implicit MR (NULL, SIZE_MAX) is refused with EOPNOTSUPP.  Each
 * target is a fresh anonymous mapping registered before any byte of it
 * is touched: a WRITE of 64 pages lands (every byte checked), a READ of
 * pages never written returns zeros and then the pattern the CPU wrote,
 * a SEND lands in an ODP receive buffer, a SEND from an ODP buffer
 * carries its bytes, a FETCH_ADD and a CMP_SWAP on an ODP word return
 * the old values.  The page-fault counter grows.  MADV_DONTNEED under
 * the MR: the invalidation counter grows and a READ returns zeros; a
 * WRITE after it lands.  munmap of a page inside the MR: a WRITE there
 * (held PROT_NONE, so that no other mapping lands there) completes
 * with REM_ACCESS_ERR, a SEND from there with LOC_PROT_ERR,
 * and a WRITE to the pages around it still lands (new pair).  fork()
 * after registration: the child's writes stay in the child, the
 * parent's WRITE and READ see the parent's memory.  ibv_advise_mr():
 * PREFETCH_WRITE with FLUSH faults the range in (fault counter up, a
 * WRITE then needs no fault), PREFETCH and PREFETCH_NO_FAULT succeed,
 * a non-ODP MR or an unknown lkey is EINVAL.
 * Output ends with "odp: N passed, M failed".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../verbs/vm-verbs.h"
#include "vm-check.h"

#define PG	4096
#define NPG	64
#define ODP	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |	\
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |	\
		 IBV_ACCESS_ON_DEMAND)

static const char *dev;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *lmr;	/* pinned local buffer of the requester */
static uint8_t *lbuf;		/* NPG pages */
static int gidx;
static union ibv_gid gid;

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *s, *c;	/* s owns the ODP memory, c accesses it */
};

static long ctr(const char *name)
{
	char path[256];
	long v = -1;
	FILE *f;

	/* ib_core serves a read within 10 ms of the last from its cache. */
	usleep(50000);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static bool pair_open(struct pair *p)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	unsigned int acc = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC;

	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!p->cq)
		return false;
	ia.send_cq = p->cq;
	ia.recv_cq = p->cq;
	p->s = ibv_create_qp(pd, &ia);
	p->c = p->s ? ibv_create_qp(pd, &ia) : NULL;
	return p->c && !vm_connect_rc(p->s, p->c->qp_num, &gid, gidx, acc) &&
	       !vm_connect_rc(p->c, p->s->qp_num, &gid, gidx, acc);
}

static void pair_close(struct pair *p)
{
	if (p->c)
		ibv_destroy_qp(p->c);
	if (p->s)
		ibv_destroy_qp(p->s);
	if (p->cq)
		ibv_destroy_cq(p->cq);
}

/* c runs one RDMA WRITE/READ of @len between lbuf and @addr: the status. */
static int rdma(enum ibv_wr_opcode op, uint32_t rkey, void *addr, size_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)lbuf, .length = len,
			       .lkey = lmr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	struct pair p;
	int st = -1;

	wr.wr.rdma.remote_addr = (uintptr_t)addr;
	wr.wr.rdma.rkey = rkey;
	if (pair_open(&p) && !ibv_post_send(p.c, &wr, &bad))
		st = vm_wait_wc(p.cq, &wc);
	pair_close(&p);
	return st;
}

/*
 * A SEND of @len bytes from (@src, @lkey) by c into (@dst, @dlkey) posted
 * at s: the send status; *@rst the receive's (-1 if none).
 */
static int send_one(void *src, uint32_t lkey, void *dst, uint32_t dlkey,
		    size_t len, int *rst)
{
	struct ibv_sge ss = { .addr = (uintptr_t)src, .length = len,
			      .lkey = lkey };
	struct ibv_sge rs = { .addr = (uintptr_t)dst, .length = len,
			      .lkey = dlkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &ss, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 },
			   *rbad;
	struct ibv_wc wc;
	struct pair p;
	int st = -1, i;

	*rst = -1;
	if (!pair_open(&p) || ibv_post_recv(p.s, &rwr, &rbad) ||
	    ibv_post_send(p.c, &wr, &bad))
		goto out;
	/* The send and the receive completion, in either order. */
	for (i = 0; i < 2; i++) {
		int s = vm_wait_wc(p.cq, &wc);

		if (s < 0)
			break;
		if (wc.wr_id == 1) {
			st = s;
			/* A failed send leaves the receive to the flush. */
			if (s)
				break;
		} else {
			*rst = s;
		}
	}
out:
	pair_close(&p);
	return st;
}

/* c runs one atomic on the 8 bytes at @addr; the old value into *@old. */
static int atomic(enum ibv_wr_opcode op, uint32_t rkey, void *addr,
		  uint64_t cmp_add, uint64_t swap, uint64_t *old)
{
	struct ibv_sge sge = { .addr = (uintptr_t)lbuf, .length = 8,
			       .lkey = lmr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	struct pair p;
	int st = -1;

	wr.wr.atomic.remote_addr = (uintptr_t)addr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	if (pair_open(&p) && !ibv_post_send(p.c, &wr, &bad))
		st = vm_wait_wc(p.cq, &wc);
	pair_close(&p);
	memcpy(old, lbuf, 8);
	return st;
}

static void *fresh(size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

static bool all(const uint8_t *m, uint8_t v, size_t n)
{
	while (n--)
		if (*m++ != v)
			return false;
	return true;
}

static void pattern(uint8_t *m, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		m[i] = (uint8_t)(seed + i * 7 + (i >> 12));
}

static void caps(void)
{
	struct ibv_device_attr_ex a;
	struct ibv_odp_caps *o = &a.odp_caps;
	uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
		      IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
		      IBV_ODP_SUPPORT_ATOMIC;
	uint32_t ud = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;
	struct ibv_mr *m;

	memset(&a, 0, sizeof(a));
	CHECK("query_device_ex", !ibv_query_device_ex(ctx, NULL, &a));
	CHECK("ODP supported", o->general_caps & IBV_ODP_SUPPORT);
	CHECK("no implicit ODP", !(o->general_caps & IBV_ODP_SUPPORT_IMPLICIT));
	CHECK("RC: SEND RECV WRITE READ ATOMIC",
	      (o->per_transport_caps.rc_odp_caps & rc) == rc);
	CHECK("UD: SEND RECV", (o->per_transport_caps.ud_odp_caps & ud) == ud);
	errno = 0;
	m = ibv_reg_mr(pd, NULL, SIZE_MAX, ODP);
	CHECK("implicit ODP MR refused with EOPNOTSUPP",
	      !m && errno == EOPNOTSUPP);
	if (m)
		ibv_dereg_mr(m);
}

static void transfers(void)
{
	long f0 = ctr("odp_page_faults");
	uint8_t *t = fresh(NPG * PG), *r = fresh(NPG * PG);
	uint8_t *q = fresh(NPG * PG), *w = fresh(PG);
	struct ibv_mr *tm, *rm, *qm, *wm;
	uint64_t old = 1, v;
	int rst;

	CHECK("mmap", t && r && q && w);
	if (!t || !r || !q || !w)
		return;
	tm = ibv_reg_mr(pd, t, NPG * PG, ODP);
	rm = ibv_reg_mr(pd, r, NPG * PG, ODP);
	qm = ibv_reg_mr(pd, q, NPG * PG, ODP);
	wm = ibv_reg_mr(pd, w, PG, ODP);
	CHECK("reg_mr ON_DEMAND, untouched memory", tm && rm && qm && wm);
	if (!tm || !rm || !qm || !wm)
		return;

	pattern(lbuf, NPG * PG, 3);
	CHECK("WRITE 64 pages into untouched ODP memory",
	      rdma(IBV_WR_RDMA_WRITE, tm->rkey, t, NPG * PG) == 0);
	CHECK("every byte landed", !memcmp(t, lbuf, NPG * PG));

	memset(lbuf, 0x55, NPG * PG);
	CHECK("READ of untouched ODP memory",
	      rdma(IBV_WR_RDMA_READ, rm->rkey, r, NPG * PG) == 0);
	CHECK("reads zeros", all(lbuf, 0, NPG * PG));
	pattern(r, NPG * PG, 9);
	CHECK("READ after the CPU wrote it",
	      rdma(IBV_WR_RDMA_READ, rm->rkey, r, NPG * PG) == 0);
	CHECK("reads the CPU's bytes", !memcmp(lbuf, r, NPG * PG));

	pattern(lbuf, 3 * PG, 21);
	CHECK("SEND into an untouched ODP receive buffer",
	      send_one(lbuf, lmr->lkey, q, qm->lkey, 3 * PG, &rst) == 0 &&
	      rst == 0);
	CHECK("received every byte", !memcmp(q, lbuf, 3 * PG));
	pattern(q + 8 * PG, 5000, 33);
	CHECK("SEND from an ODP buffer",
	      send_one(q + 8 * PG, qm->lkey, lbuf, lmr->lkey, 5000, &rst) == 0 &&
	      rst == 0);
	CHECK("sent every byte", !memcmp(lbuf, q + 8 * PG, 5000));

	CHECK("FETCH_ADD on an untouched ODP word",
	      atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, wm->rkey, w + 64, 5, 0,
		     &old) == 0 && old == 0);
	memcpy(&v, w + 64, 8);
	CHECK("the word is 5", v == 5);
	CHECK("CMP_SWAP on it",
	      atomic(IBV_WR_ATOMIC_CMP_AND_SWP, wm->rkey, w + 64, 5, 77,
		     &old) == 0 && old == 5);
	memcpy(&v, w + 64, 8);
	CHECK("the word is 77", v == 77);
	CHECK("odp_page_faults grew", ctr("odp_page_faults") > f0);
	printf("page faults: %ld\n", ctr("odp_page_faults") - f0);

	ibv_dereg_mr(tm);
	ibv_dereg_mr(rm);
	ibv_dereg_mr(qm);
	ibv_dereg_mr(wm);
	munmap(t, NPG * PG);
	munmap(r, NPG * PG);
	munmap(q, NPG * PG);
	munmap(w, PG);
}

static void invalidation(void)
{
	uint8_t *t = fresh(8 * PG);
	struct ibv_mr *m;
	int rst, st;
	long i0;

	if (!t)
		return;
	m = ibv_reg_mr(pd, t, 8 * PG, ODP);
	CHECK("reg_mr ON_DEMAND (8 pages)", m);
	if (!m)
		return;
	pattern(lbuf, 8 * PG, 5);
	CHECK("WRITE before DONTNEED",
	      rdma(IBV_WR_RDMA_WRITE, m->rkey, t, 8 * PG) == 0 &&
	      !memcmp(t, lbuf, 8 * PG));
	i0 = ctr("odp_invalidations");
	CHECK("MADV_DONTNEED", !madvise(t, 8 * PG, MADV_DONTNEED));
	CHECK("odp_invalidations grew", ctr("odp_invalidations") > i0);
	memset(lbuf, 0x77, 8 * PG);
	CHECK("READ after DONTNEED",
	      rdma(IBV_WR_RDMA_READ, m->rkey, t, 8 * PG) == 0);
	CHECK("reads zeros", all(lbuf, 0, 8 * PG));
	pattern(lbuf, 8 * PG, 6);
	CHECK("WRITE after DONTNEED lands",
	      rdma(IBV_WR_RDMA_WRITE, m->rkey, t, 8 * PG) == 0 &&
	      !memcmp(t, lbuf, 8 * PG));

	/*
	 * A hole in the MR: page 3 unmapped, then held PROT_NONE so that no
	 * later mapping (a QP's rings) lands there.
	 */
	i0 = ctr("odp_invalidations");
	CHECK("munmap a page under the MR", !munmap(t + 3 * PG, PG));
	CHECK("odp_invalidations grew", ctr("odp_invalidations") > i0);
	CHECK("the hole held PROT_NONE",
	      mmap(t + 3 * PG, PG, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	      t + 3 * PG);
	st = rdma(IBV_WR_RDMA_WRITE, m->rkey, t + 3 * PG, 64);
	printf("WRITE into the hole: %d\n", st);
	CHECK("WRITE into the hole: REM_ACCESS_ERR",
	      st == IBV_WC_REM_ACCESS_ERR);
	st = rdma(IBV_WR_RDMA_READ, m->rkey, t + 3 * PG + 128, 64);
	printf("READ of the hole: %d\n", st);
	CHECK("READ of the hole: REM_ACCESS_ERR", st == IBV_WC_REM_ACCESS_ERR);
	st = send_one(t + 3 * PG, m->lkey, lbuf, lmr->lkey, 64, &rst);
	printf("SEND from the hole: %d\n", st);
	CHECK("SEND from the hole: LOC_PROT_ERR", st == IBV_WC_LOC_PROT_ERR);
	memset(lbuf, 0x31, PG);
	CHECK("WRITE beside the hole lands",
	      rdma(IBV_WR_RDMA_WRITE, m->rkey, t + 4 * PG, PG) == 0 &&
	      all(t + 4 * PG, 0x31, PG));
	CHECK("dereg_mr with a hole", !ibv_dereg_mr(m));
	munmap(t, 8 * PG);
}

static void forked(void)
{
	uint8_t *t = fresh(4 * PG);
	struct ibv_mr *m;
	pid_t pid;
	int ws = -1;

	if (!t)
		return;
	memset(t, 0x11, 4 * PG);
	m = ibv_reg_mr(pd, t, 4 * PG, ODP);
	CHECK("reg_mr ON_DEMAND before fork", m);
	if (!m)
		return;
	memset(lbuf, 0x22, PG);
	CHECK("WRITE before fork",
	      rdma(IBV_WR_RDMA_WRITE, m->rkey, t, PG) == 0 &&
	      all(t, 0x22, PG));
	pid = fork();
	if (pid == 0) {
		/* The child's copy: its writes are its own. */
		memset(t, 0x99, 4 * PG);
		_exit(0);
	}
	CHECK("fork", pid > 0 && waitpid(pid, &ws, 0) == pid &&
	      WIFEXITED(ws) && !WEXITSTATUS(ws));
	CHECK("the child's writes stay in the child", all(t, 0x22, PG) &&
	      all(t + PG, 0x11, 3 * PG));
	memset(lbuf, 0x33, 2 * PG);
	CHECK("WRITE after fork lands in the parent",
	      rdma(IBV_WR_RDMA_WRITE, m->rkey, t + PG, 2 * PG) == 0 &&
	      all(t + PG, 0x33, 2 * PG));
	memset(t + 3 * PG, 0x44, PG);
	CHECK("READ after fork sees the parent's bytes",
	      rdma(IBV_WR_RDMA_READ, m->rkey, t + 3 * PG, PG) == 0 &&
	      all(lbuf, 0x44, PG));
	ibv_dereg_mr(m);
	munmap(t, 4 * PG);
}

static void advise(void)
{
	uint8_t *t = fresh(16 * PG);
	struct ibv_sge sge;
	struct ibv_mr *m;
	long f0, f1;
	int ret;

	if (!t)
		return;
	m = ibv_reg_mr(pd, t, 16 * PG, ODP);
	CHECK("reg_mr ON_DEMAND (16 pages)", m);
	if (!m)
		return;
	sge = (struct ibv_sge){ .addr = (uintptr_t)t, .length = 16 * PG,
				.lkey = m->lkey };
	f0 = ctr("odp_page_faults");
	ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	printf("advise_mr PREFETCH_WRITE|FLUSH: %d\n", ret);
	CHECK("advise_mr PREFETCH_WRITE, FLUSH", ret == 0);
	f1 = ctr("odp_page_faults");
	CHECK("it faulted the range in", f1 > f0);
	pattern(lbuf, 16 * PG, 40);
	CHECK("WRITE into the prefetched range",
	      rdma(IBV_WR_RDMA_WRITE, m->rkey, t, 16 * PG) == 0 &&
	      !memcmp(t, lbuf, 16 * PG));
	CHECK("... needed no fault", ctr("odp_page_faults") == f1);
	CHECK("advise_mr PREFETCH",
	      !ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1));
	CHECK("advise_mr PREFETCH_NO_FAULT",
	      !ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, 0,
			     &sge, 1));
	sge.lkey = lmr->lkey;
	sge.addr = (uintptr_t)lbuf;
	sge.length = PG;
	ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK("advise_mr on a non-ODP MR: EINVAL", ret == EINVAL);
	sge.lkey = m->lkey ^ 0xffff00;
	ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK("advise_mr with an unknown lkey: EINVAL", ret == EINVAL);
	ibv_dereg_mr(m);
	munmap(t, 16 * PG);
}

/*
 * Pages present but mapped read-only must not take RDMA writes: anonymous
 * memory only read so far maps the shared zero page, which
 * PREFETCH_NO_FAULT would otherwise hand to the data path as it is.  The
 * WRITE must land in a page of this process's own, and the zero page stay
 * zero for everyone.  And IBV_ACCESS_HUGETLB with ON_DEMAND is refused.
 */
static void read_only_pages(void)
{
	uint8_t *t = fresh(4 * PG), *u;
	volatile uint8_t sum = 0;
	struct ibv_sge sge;
	struct ibv_mr *m;
	size_t i;

	if (!t)
		return;
	for (i = 0; i < 4 * PG; i += PG)
		sum += t[i];
	m = ibv_reg_mr(pd, t, 4 * PG, ODP);
	CHECK("reg_mr ON_DEMAND over zero-page memory", m);
	if (!m)
		goto out;
	sge = (struct ibv_sge){ .addr = (uintptr_t)t, .length = 4 * PG,
				.lkey = m->lkey };
	CHECK("advise_mr PREFETCH_NO_FAULT over it",
	      !ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
			     IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1));
	pattern(lbuf, 4 * PG, 77);
	CHECK("WRITE over read-only mapped pages lands in our own copy",
	      rdma(IBV_WR_RDMA_WRITE, m->rkey, t, 4 * PG) == 0 &&
	      !memcmp(t, lbuf, 4 * PG));
	u = fresh(4 * PG);
	CHECK("the zero page is still zero", u && all(u, 0, 4 * PG));
	if (u)
		munmap(u, 4 * PG);
	ibv_dereg_mr(m);
	errno = 0;
	m = ibv_reg_mr(pd, t, 4 * PG, ODP | IBV_ACCESS_HUGETLB);
	CHECK("ON_DEMAND with HUGETLB: EOPNOTSUPP",
	      !m && errno == EOPNOTSUPP);
	if (m)
		ibv_dereg_mr(m);
out:
	munmap(t, 4 * PG);
	(void)sum;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: odp DEV GID_INDEX\n");
		return 2;
	}
	dev = argv[1];
	gidx = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = vm_open_dev(dev);
	if (!ctx || ibv_query_gid(ctx, 1, gidx, &gid)) {
		printf("FAIL cannot open %s\n", dev);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	lbuf = fresh(NPG * PG);
	lmr = pd && lbuf ? ibv_reg_mr(pd, lbuf, NPG * PG,
				      IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!lmr) {
		printf("FAIL setup\n");
		return 1;
	}
	CHECK("hw counters present", ctr("odp_page_faults") >= 0 &&
	      ctr("odp_invalidations") >= 0 && ctr("odp_prefetches") >= 0);
	caps();
	transfers();
	invalidation();
	forked();
	advise();
	read_only_pages();
	ibv_dereg_mr(lmr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("odp: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
