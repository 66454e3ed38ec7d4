// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * odp: on-demand paging MRs (IBV_ACCESS_ON_DEMAND) through the sroce
 * provider, on one device (RC QP pairs connected through the device's
 * own GID; a refused access ends a pair, so each refusal gets a new one).
 *
 *   odp DEV GID_INDEX
 *
 * The device reports explicit and implicit ODP for RC, UC and UD; an
 * implicit MR at an iova other than 0 is EINVAL.  Each
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
 * a non-ODP MR or an unknown lkey is EINVAL.  An implicit MR (NULL,
 * SIZE_MAX): WRITE, READ, SEND and atomics through its rkey and lkey to
 * and from memory allocated after it (heap, mappings near and far, a
 * range across a 2 MiB child boundary), every byte checked; munmap then
 * access fails on both sides, mapped again the new bytes are seen; an
 * address above TASK_SIZE fails on both sides; ibv_advise_mr() on it;
 * past 8192 children (PREFETCH_NO_FAULT over 20 GiB) the advice fails and
 * a chunk with no child is refused; dereg right after the traffic.
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

/*
 * c runs one RDMA WRITE/READ of @len between (@laddr, @lkey) and @addr:
 * the status.
 */
static int rdma_at(enum ibv_wr_opcode op, void *laddr, uint32_t lkey,
		   uint32_t rkey, void *addr, size_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)laddr, .length = len,
			       .lkey = lkey };
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

/* c runs one RDMA WRITE/READ of @len between lbuf and @addr: the status. */
static int rdma(enum ibv_wr_opcode op, uint32_t rkey, void *addr, size_t len)
{
	return rdma_at(op, lbuf, lmr->lkey, rkey, addr, len);
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
	CHECK("implicit ODP supported",
	      o->general_caps & IBV_ODP_SUPPORT_IMPLICIT);
	CHECK("RC: SEND RECV WRITE READ ATOMIC",
	      (o->per_transport_caps.rc_odp_caps & rc) == rc);
	CHECK("UD: SEND RECV", (o->per_transport_caps.ud_odp_caps & ud) == ud);
	errno = 0;
	m = ibv_reg_mr_iova(pd, NULL, SIZE_MAX, PG, ODP);
	CHECK("implicit ODP MR at an iova other than 0: EINVAL",
	      !m && errno == EINVAL);
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

/*
 * An implicit MR has at most 8192 children (2 MiB each): PREFETCH_NO_FAULT
 * with FLUSH over 20 GiB held PROT_NONE asks for more.  It fails, the
 * counter grows, an access to a chunk with no child fails, and memory
 * with a child (@b, 2 pages) still works.  Dereg then frees them all.
 */
static void implicit_full(struct ibv_mr *im, uint8_t *b)
{
	const size_t sgel = 0xffe00000;	/* 4 GiB - 2 MiB: 2047 chunks */
	struct ibv_sge sge[5];
	uint8_t *z, *n;
	long c0;
	int i, ret, st;

	c0 = ctr("odp_implicit_full");
	CHECK("odp_implicit_full counter present", c0 >= 0);
	z = mmap(NULL, 5 * sgel, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK("20 GiB held PROT_NONE", z != MAP_FAILED);
	if (z == MAP_FAILED)
		return;
	for (i = 0; i < 5; i++)
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)z + i * sgel,
					   .length = sgel, .lkey = im->lkey };
	ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
			    IBV_ADVISE_MR_FLAG_FLUSH, sge, 5);
	printf("implicit: advise_mr over 20 GiB: %d\n", ret);
	CHECK("implicit: more than 8192 children: EFAULT", ret == EFAULT);
	CHECK("implicit: odp_implicit_full grew",
	      ctr("odp_implicit_full") > c0);
	munmap(z, 5 * sgel);

	/* Far from everything above: a chunk with no child. */
	n = mmap((void *)0x500000000000UL, PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK("mmap at 0x500000000000", n == (void *)0x500000000000UL);
	if (n != MAP_FAILED) {
		st = rdma(IBV_WR_RDMA_WRITE, im->rkey, n, 64);
		printf("implicit: WRITE to a chunk with no child: %d\n", st);
		CHECK("implicit: WRITE to a chunk with no child: REM_ACCESS_ERR",
		      st == IBV_WC_REM_ACCESS_ERR);
		munmap(n, PG);
	}
	pattern(lbuf, 2 * PG, 60);
	CHECK("implicit: WRITE where a child is still lands",
	      rdma(IBV_WR_RDMA_WRITE, im->rkey, b + 8 * PG, 2 * PG) == 0 &&
	      !memcmp(b + 8 * PG, lbuf, 2 * PG));
}

/* An address no user mapping can have (above TASK_SIZE on x86-64). */
#define KERNEL_VA	((void *)0xffff888000000000UL)
/* 2 MiB: the child size of an implicit MR (Documentation/odp.rst). */
#define CHILD		(2UL << 20)

/*
 * Implicit ODP: one MR over the whole address space.  Its rkey and lkey
 * reach memory allocated after it was registered, in different places
 * (the malloc heap, fresh mappings, a mapping asked for far away, a
 * range across a child boundary), for every opcode from either side.
 * munmap then access fails; mapped again at the same address, the new
 * contents are seen.  An address above TASK_SIZE fails on either side.
 */
static void implicit_mr(void)
{
	uint8_t *h, *b, *f, *d, *x, *y;
	struct ibv_sge sge;
	struct ibv_mr *im;
	uint64_t old = 1, v;
	int rst, st, ret;
	long f0, f1;

	f0 = ctr("odp_page_faults");
	im = ibv_reg_mr(pd, NULL, SIZE_MAX, ODP);
	CHECK("implicit ODP MR (NULL, SIZE_MAX) registers", im);
	if (!im)
		return;
	CHECK("it reports the whole address space",
	      !im->addr && im->length == SIZE_MAX);

	/* Allocated after registration: the heap, and fresh mappings. */
	h = malloc(5 * PG + 8);
	b = fresh(NPG * PG);
	f = mmap((void *)0x300000000000UL, 8 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f == MAP_FAILED)
		f = NULL;
	/* 4 MiB, so that some 2 MiB boundary is inside it. */
	d = fresh(2 * CHILD);
	CHECK("malloc and mmap", h && b && f && d);
	if (!h || !b || !f || !d)
		goto out;

	pattern(lbuf, NPG * PG, 51);
	CHECK("implicit: WRITE 64 pages into a fresh mapping",
	      rdma(IBV_WR_RDMA_WRITE, im->rkey, b, NPG * PG) == 0);
	CHECK("implicit: every byte landed", !memcmp(b, lbuf, NPG * PG));

	pattern(f, 8 * PG, 52);
	memset(lbuf, 0x55, 8 * PG);
	CHECK("implicit: READ of a far mapping",
	      rdma(IBV_WR_RDMA_READ, im->rkey, f, 8 * PG) == 0);
	CHECK("implicit: reads the CPU's bytes", !memcmp(lbuf, f, 8 * PG));

	/* x + 3 pages is the first 2 MiB boundary at least 3 pages into d. */
	x = (uint8_t *)(((uintptr_t)d + 3 * PG + CHILD - 1) & ~(CHILD - 1)) -
	    3 * PG;
	pattern(lbuf, 6 * PG, 53);
	CHECK("implicit: WRITE across a 2 MiB boundary",
	      rdma(IBV_WR_RDMA_WRITE, im->rkey, x + 100, 6 * PG - 200) == 0);
	CHECK("implicit: every byte landed, none around it",
	      !memcmp(x + 100, lbuf, 6 * PG - 200) && all(x, 0, 100) &&
	      all(x + 6 * PG - 100, 0, 100));
	memset(lbuf, 0x66, 6 * PG);
	CHECK("implicit: READ across the boundary",
	      rdma(IBV_WR_RDMA_READ, im->rkey, x, 6 * PG) == 0 &&
	      !memcmp(lbuf, x, 6 * PG));

	/* The requester's side: local SGEs through the implicit lkey. */
	pattern(b, 3 * PG, 54);
	memset(d, 0, 3 * PG);
	CHECK("implicit lkey: WRITE from it",
	      rdma_at(IBV_WR_RDMA_WRITE, b, im->lkey, im->rkey, d,
		      3 * PG) == 0 && !memcmp(d, b, 3 * PG));
	memset(f, 0x5a, 2 * PG);
	CHECK("implicit lkey: READ into it",
	      rdma_at(IBV_WR_RDMA_READ, d + 8 * PG, im->lkey, im->rkey, f,
		      2 * PG) == 0 && all(d + 8 * PG, 0x5a, 2 * PG));

	pattern(lbuf, 5 * PG + 8, 55);
	CHECK("implicit lkey: SEND into a malloc'd receive buffer",
	      send_one(lbuf, lmr->lkey, h, im->lkey, 5 * PG + 8, &rst) == 0 &&
	      rst == 0);
	CHECK("implicit lkey: received every byte",
	      !memcmp(h, lbuf, 5 * PG + 8));
	pattern(f + PG, 3000, 56);
	CHECK("implicit lkey: SEND from it",
	      send_one(f + PG, im->lkey, lbuf, lmr->lkey, 3000, &rst) == 0 &&
	      rst == 0 && !memcmp(lbuf, f + PG, 3000));

	y = d + 2 * CHILD - PG + 64;
	CHECK("implicit: FETCH_ADD on an untouched word",
	      atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, im->rkey, y, 9, 0,
		     &old) == 0 && old == 0);
	memcpy(&v, y, 8);
	CHECK("implicit: the word is 9", v == 9);
	CHECK("implicit: CMP_SWAP on it",
	      atomic(IBV_WR_ATOMIC_CMP_AND_SWP, im->rkey, y, 9, 0x1234,
		     &old) == 0 && old == 9);
	memcpy(&v, y, 8);
	CHECK("implicit: the word is 0x1234", v == 0x1234);
	CHECK("implicit: odp_page_faults grew", ctr("odp_page_faults") > f0);

	/*
	 * munmap b, held PROT_NONE so that no other mapping lands there:
	 * access fails on both sides.  Mapped again: the new contents.
	 */
	CHECK("implicit: munmap a region", !munmap(b, NPG * PG));
	CHECK("implicit: the hole held PROT_NONE",
	      mmap(b, NPG * PG, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == b);
	st = rdma(IBV_WR_RDMA_WRITE, im->rkey, b + 4 * PG, 64);
	printf("implicit: WRITE into the hole: %d\n", st);
	CHECK("implicit: WRITE into the hole: REM_ACCESS_ERR",
	      st == IBV_WC_REM_ACCESS_ERR);
	st = rdma(IBV_WR_RDMA_READ, im->rkey, b + 9 * PG, 64);
	CHECK("implicit: READ of the hole: REM_ACCESS_ERR",
	      st == IBV_WC_REM_ACCESS_ERR);
	st = send_one(b + 2 * PG, im->lkey, lbuf, lmr->lkey, 64, &rst);
	printf("implicit: SEND from the hole: %d\n", st);
	CHECK("implicit: SEND from the hole: LOC_PROT_ERR",
	      st == IBV_WC_LOC_PROT_ERR);
	CHECK("implicit: mapped again at the same address",
	      mmap(b, NPG * PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == b);
	pattern(b, NPG * PG, 57);
	memset(lbuf, 0x11, NPG * PG);
	CHECK("implicit: READ sees the new contents",
	      rdma(IBV_WR_RDMA_READ, im->rkey, b, NPG * PG) == 0 &&
	      !memcmp(lbuf, b, NPG * PG));
	pattern(lbuf, 2 * PG, 58);
	CHECK("implicit: WRITE into it lands",
	      rdma(IBV_WR_RDMA_WRITE, im->rkey, b + 4 * PG, 2 * PG) == 0 &&
	      !memcmp(b + 4 * PG, lbuf, 2 * PG));

	/* Beyond the address space: a remote, and a local, protection error. */
	st = rdma(IBV_WR_RDMA_WRITE, im->rkey, KERNEL_VA, 64);
	printf("implicit: WRITE above TASK_SIZE: %d\n", st);
	CHECK("implicit: WRITE above TASK_SIZE: REM_ACCESS_ERR",
	      st == IBV_WC_REM_ACCESS_ERR);
	st = rdma(IBV_WR_RDMA_READ, im->rkey, (void *)(UINTPTR_MAX - 63), 64);
	CHECK("implicit: READ of the last 64 bytes of 2^64: REM_ACCESS_ERR",
	      st == IBV_WC_REM_ACCESS_ERR);
	st = send_one(KERNEL_VA, im->lkey, lbuf, lmr->lkey, 64, &rst);
	printf("implicit: SEND from above TASK_SIZE: %d\n", st);
	CHECK("implicit: SEND from above TASK_SIZE: LOC_PROT_ERR",
	      st == IBV_WC_LOC_PROT_ERR);

	/* ibv_advise_mr() on the implicit MR. */
	y = fresh(16 * PG);
	CHECK("mmap for prefetch", y);
	if (y) {
		sge = (struct ibv_sge){ .addr = (uintptr_t)y,
					.length = 16 * PG, .lkey = im->lkey };
		f0 = ctr("odp_page_faults");
		ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
		CHECK("implicit: advise_mr PREFETCH_WRITE, FLUSH", ret == 0);
		f1 = ctr("odp_page_faults");
		CHECK("implicit: it faulted the range in", f1 > f0);
		pattern(lbuf, 16 * PG, 59);
		CHECK("implicit: WRITE into the prefetched range",
		      rdma(IBV_WR_RDMA_WRITE, im->rkey, y, 16 * PG) == 0 &&
		      !memcmp(y, lbuf, 16 * PG));
		CHECK("implicit: ... needed no fault",
		      ctr("odp_page_faults") == f1);
		CHECK("implicit: advise_mr PREFETCH",
		      !ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
				     &sge, 1));
		CHECK("implicit: advise_mr PREFETCH_NO_FAULT, FLUSH",
		      !ibv_advise_mr(pd,
				     IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
				     IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1));
		sge.addr = (uintptr_t)KERNEL_VA;
		ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
				    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
		printf("implicit: advise_mr above TASK_SIZE: %d\n", ret);
		CHECK("implicit: advise_mr above TASK_SIZE fails", ret != 0);
		munmap(y, 16 * PG);
	}
	implicit_full(im, b);

out:
	/* The last transfer has just completed. */
	CHECK("dereg_mr of the implicit MR", !ibv_dereg_mr(im));
	free(h);
	if (b)
		munmap(b, NPG * PG);
	if (f)
		munmap(f, 8 * PG);
	if (d)
		munmap(d, 2 * CHILD);
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
	implicit_mr();
	ibv_dereg_mr(lmr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("odp: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
