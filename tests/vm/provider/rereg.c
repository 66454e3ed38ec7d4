// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rereg: ibv_rereg_mr() through the sroce provider, on one device (each
 * "peer" is an RC QP connected through the device's own GID; a refused
 * access ends a QP pair, so each refusal gets a fresh one).
 *
 *   rereg DEV GID_INDEX [MEMCG_DIR]
 *
 * The target MR starts on buffer A.  CHANGE_TRANSLATION moves it to B:
 * the keys change (same index), the peer's WRITE, READ and SEND land in
 * B and A is untouched; the old rkey is refused at either address, the
 * new one outside B.  CHANGE_ACCESS to read-only: WRITE refused, READ
 * works; back to writable: WRITE works; an MR registered read-only (no
 * local write: pinned for reading) made writable takes a WRITE that the
 * process then sees.  CHANGE_PD: a QP of the old PD is refused, one of
 * the new PD works, and the old PD's QP cannot use the lkey locally
 * (LOC_PROT_ERR).  All three at once.  Refusals: no flags, unknown flags,
 * a zero length, access without CHANGE_ACCESS, remote write without
 * local write, on-demand paging, a range that is not mapped (the MR
 * then still works with its old keys), an MR with a window bound
 * (EBUSY, then allowed once unbound).  Finally 300 reregistrations in a
 * row (translation between a 4 MiB and a 16 KiB buffer, access, PD): the
 * process's pinned memory (VmPin) returns to what it was, and with
 * MEMCG_DIR (the memory cgroup the process runs in) its slab charge
 * returns to within 256 KiB of what it was (each translation to 4 MiB
 * allocates an 8 KiB page array: 100 of them leaked would show).  Then
 * 40 reregistrations moving the MR between two buffers while a thread of
 * the peer WRITEs through the rkey last published, in a loop: every
 * WRITE completes with success or a remote access error (stale key; the
 * thread then takes a new QP pair), each successful WRITE's bytes are
 * where it aimed, and the pages around the two buffers stay untouched.
 * Output ends with
 * "rereg: N passed, M failed"; "remote access errors: N" counts the
 * accesses refused as expected.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../verbs/vm-verbs.h"
#include "vm-check.h"

#define PG	4096
#define BIG	(1024 * PG)	/* the loop's large translation */
#define LOOPS	300
#define RACES	40	/* reregistrations under the peer's WRITEs */

static int rem_access_errors;

#define RW	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |	\
		 IBV_ACCESS_REMOTE_READ)

static struct ibv_context *ctx;
static struct ibv_pd *pd1, *pd2;
static struct ibv_mr *mr;		/* the one reregistered */
static struct ibv_mr *lmr1, *lmr2;	/* the requester's buffer, per PD */
static uint8_t *a, *b, *lbuf;		/* 4 pages each */
static int gidx;
static union ibv_gid gid;

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *s, *c;	/* s owns mr, c accesses it */
	struct ibv_mr *lmr;	/* c's local buffer in the pair's PD */
};

static int connect_rc(struct ibv_qp *qp, uint32_t dqpn)
{
	return vm_connect_rc(qp, dqpn, &gid, gidx,
			     IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ);
}

static bool pair_open(struct pair *p, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	memset(p, 0, sizeof(*p));
	p->lmr = pd == pd1 ? lmr1 : lmr2;
	p->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!p->cq) {
		printf("pair: create_cq: %s\n", strerror(errno));
		return false;
	}
	ia.send_cq = p->cq;
	ia.recv_cq = p->cq;
	p->s = ibv_create_qp(pd, &ia);
	p->c = p->s ? ibv_create_qp(pd, &ia) : NULL;
	if (!p->c) {
		printf("pair: create_qp: %s\n", strerror(errno));
		return false;
	}
	if (connect_rc(p->s, p->c->qp_num) || connect_rc(p->c, p->s->qp_num)) {
		printf("pair: modify_qp: %s\n", strerror(errno));
		return false;
	}
	return true;
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

/* One completion: its status, or -1 on timeout. */
static int wait_wc(struct pair *p, struct ibv_wc *wc)
{
	return vm_wait_wc(p->cq, wc);
}

/* c reads or writes 64 bytes at @addr through @rkey: the status. */
static int access_rkey(struct pair *p, enum ibv_wr_opcode op, uint32_t rkey,
		       uint8_t *addr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)lbuf, .length = 64,
			       .lkey = p->lmr->lkey };
	struct ibv_send_wr wr = { .wr_id = op, .sg_list = &sge, .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int st;

	wr.wr.rdma.remote_addr = (uintptr_t)addr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(p->c, &wr, &bad))
		return -1;
	st = wait_wc(p, &wc);
	if (st == IBV_WC_REM_ACCESS_ERR)
		rem_access_errors++;
	return st;
}

/* A fresh pair of @pd for one access: its status. */
static int access_once(struct ibv_pd *pd, enum ibv_wr_opcode op,
		       uint32_t rkey, uint8_t *addr)
{
	struct pair p;
	int st = -1;

	if (pair_open(&p, pd))
		st = access_rkey(&p, op, rkey, addr);
	pair_close(&p);
	return st;
}

static bool all(const uint8_t *m, uint8_t v, size_t n)
{
	while (n--)
		if (*m++ != v)
			return false;
	return true;
}

/* A WRITE of 64 bytes of @v into @addr through the current rkey lands. */
static bool write_lands(struct ibv_pd *pd, uint8_t *addr, uint8_t v)
{
	memset(lbuf, v, 64);
	return access_once(pd, IBV_WR_RDMA_WRITE, mr->rkey, addr) == 0 &&
	       all(addr, v, 64);
}

static int rereg(int flags, struct ibv_pd *pd, void *addr, size_t len,
		 int access)
{
	errno = 0;
	return ibv_rereg_mr(mr, flags, pd, addr, len, access);
}

static void translation(void)
{
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_send_wr swr, *sbad;
	struct ibv_sge rsge, ssge;
	uint32_t old = mr->rkey;
	struct ibv_wc wc;
	struct pair p;
	int st, st2;

	memset(a, 0xaa, 4 * PG);
	memset(b, 0, 4 * PG);
	CHECK("rereg CHANGE_TRANSLATION to B",
	      !rereg(IBV_REREG_MR_CHANGE_TRANSLATION, NULL, b, 2 * PG, 0));
	CHECK("ibv_mr shows B", mr->addr == b && mr->length == 2 * PG);
	CHECK("new keys, same index", mr->rkey != old && mr->lkey == mr->rkey &&
	      (mr->rkey >> 8) == (old >> 8));

	CHECK("WRITE lands in B", write_lands(pd1, b + 100, 0x11));
	memset(b + 1000, 0x22, 64);
	memset(lbuf, 0, 64);
	CHECK("READ reads B",
	      access_once(pd1, IBV_WR_RDMA_READ, mr->rkey, b + 1000) == 0 &&
	      all(lbuf, 0x22, 64));

	st = pair_open(&p, pd1);
	CHECK("pair for SEND", st);
	if (!st) {
		pair_close(&p);
		return;
	}
	rsge = (struct ibv_sge){ .addr = (uintptr_t)b + PG + 8, .length = 64,
				 .lkey = mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = &rsge,
				    .num_sge = 1 };
	memset(lbuf, 0x33, 64);
	ssge = (struct ibv_sge){ .addr = (uintptr_t)lbuf, .length = 64,
				 .lkey = p.lmr->lkey };
	swr = (struct ibv_send_wr){ .wr_id = 2, .sg_list = &ssge,
				    .num_sge = 1, .opcode = IBV_WR_SEND,
				    .send_flags = IBV_SEND_SIGNALED };
	st = ibv_post_recv(p.s, &rwr, &rbad) ||
	     ibv_post_send(p.c, &swr, &sbad);
	st2 = st ? -1 : wait_wc(&p, &wc);
	st = st2 ? st2 : wait_wc(&p, &wc);
	CHECK("SEND received into B (lkey of the new range)",
	      st2 == 0 && st == 0 && all(b + PG + 8, 0x33, 64));
	pair_close(&p);
	CHECK("A untouched", all(a, 0xaa, 4 * PG));

	CHECK("old rkey refused at A",
	      access_once(pd1, IBV_WR_RDMA_WRITE, old, a) ==
	      IBV_WC_REM_ACCESS_ERR);
	CHECK("old rkey refused at B",
	      access_once(pd1, IBV_WR_RDMA_WRITE, old, b) ==
	      IBV_WC_REM_ACCESS_ERR);
	CHECK("new rkey refused at A (outside the new range)",
	      access_once(pd1, IBV_WR_RDMA_WRITE, mr->rkey, a) ==
	      IBV_WC_REM_ACCESS_ERR);
	CHECK("new rkey refused past B's 2 pages",
	      access_once(pd1, IBV_WR_RDMA_WRITE, mr->rkey,
			  b + 2 * PG - 32) == IBV_WC_REM_ACCESS_ERR);
	CHECK("A still untouched", all(a, 0xaa, 4 * PG));
}

static void access_change(void)
{
	uint32_t old = mr->rkey;
	struct ibv_mr *ro;
	uint8_t *c;

	CHECK("rereg CHANGE_ACCESS read-only",
	      !rereg(IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		     IBV_ACCESS_REMOTE_READ) && mr->rkey != old);
	memset(b, 0x44, 64);
	memset(lbuf, 0x45, 64);
	CHECK("WRITE refused once read-only",
	      access_once(pd1, IBV_WR_RDMA_WRITE, mr->rkey, b) ==
	      IBV_WC_REM_ACCESS_ERR && all(b, 0x44, 64));
	memset(lbuf, 0, 64);
	CHECK("READ still allowed",
	      access_once(pd1, IBV_WR_RDMA_READ, mr->rkey, b) == 0 &&
	      all(lbuf, 0x44, 64));
	CHECK("rereg CHANGE_ACCESS writable again",
	      !rereg(IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, RW));
	CHECK("WRITE allowed again", write_lands(pd1, b + 200, 0x46));

	/* Pinned for reading only; rereg must pin it for writing. */
	c = aligned_alloc(PG, 2 * PG);
	if (!c) {
		CHECK("buffer for the read-only MR", false);
		return;
	}
	memset(c, 0x50, 2 * PG);
	ro = ibv_reg_mr(pd1, c, 2 * PG, IBV_ACCESS_REMOTE_READ);
	CHECK("reg_mr read-only", ro != NULL);
	if (ro) {
		struct ibv_mr *keep = mr;

		mr = ro;
		CHECK("rereg read-only MR to writable",
		      !rereg(IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, RW));
		CHECK("WRITE into it seen by the process",
		      write_lands(pd1, c + PG + 16, 0x51) &&
		      all(c, 0x50, PG));
		mr = keep;
		CHECK("dereg it", !ibv_dereg_mr(ro));
	}
	free(c);
}

static void pd_change(void)
{
	struct ibv_send_wr swr, *sbad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct pair p;
	int st = -1;

	CHECK("rereg CHANGE_PD to pd2",
	      !rereg(IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0) &&
	      mr->pd == pd2);
	CHECK("QP of the old PD refused",
	      access_once(pd1, IBV_WR_RDMA_WRITE, mr->rkey, b) ==
	      IBV_WC_REM_ACCESS_ERR);
	CHECK("QP of the new PD allowed", write_lands(pd2, b + 300, 0x61));
	memset(lbuf, 0, 64);
	CHECK("READ by a QP of the new PD",
	      access_once(pd2, IBV_WR_RDMA_READ, mr->rkey, b + 300) == 0 &&
	      all(lbuf, 0x61, 64));

	/* The lkey in a send SGE of a QP of the old PD. */
	if (pair_open(&p, pd1)) {
		sge = (struct ibv_sge){ .addr = (uintptr_t)b, .length = 64,
					.lkey = mr->lkey };
		swr = (struct ibv_send_wr){ .wr_id = 3, .sg_list = &sge,
					    .num_sge = 1,
					    .opcode = IBV_WR_RDMA_WRITE,
					    .send_flags = IBV_SEND_SIGNALED };
		swr.wr.rdma.remote_addr = (uintptr_t)lbuf;
		swr.wr.rdma.rkey = lmr1->rkey;
		if (!ibv_post_send(p.c, &swr, &sbad))
			st = wait_wc(&p, &wc);
	}
	pair_close(&p);
	CHECK("lkey refused locally on a QP of the old PD (LOC_PROT_ERR)",
	      st == IBV_WC_LOC_PROT_ERR);
}

static void combined(void)
{
	uint32_t old = mr->rkey;

	memset(a, 0, 4 * PG);
	memset(b, 0xbb, 4 * PG);
	CHECK("rereg TRANSLATION|ACCESS|PD at once",
	      !rereg(IBV_REREG_MR_CHANGE_TRANSLATION |
		     IBV_REREG_MR_CHANGE_ACCESS | IBV_REREG_MR_CHANGE_PD,
		     pd1, a, 4 * PG, IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND) &&
	      mr->pd == pd1 && mr->addr == a && mr->rkey != old);
	CHECK("WRITE by the PD's QP lands in A",
	      write_lands(pd1, a + 3 * PG, 0x71));
	CHECK("READ not granted any more",
	      access_once(pd1, IBV_WR_RDMA_READ, mr->rkey, a) ==
	      IBV_WC_REM_ACCESS_ERR);
	CHECK("QP of pd2 refused",
	      access_once(pd2, IBV_WR_RDMA_WRITE, mr->rkey, a) ==
	      IBV_WC_REM_ACCESS_ERR);
	CHECK("B untouched", all(b, 0xbb, 4 * PG));
}

/*
 * Each refused rereg leaves the MR as it was: same keys, still works.
 * @alt_errno: another errno ib_core gives on some kernel, or 0.
 */
static void refused_alt(const char *what, int flags, struct ibv_pd *pd,
			void *addr, size_t len, int access, int want_ret,
			int want_errno, int alt_errno)
{
	uint32_t key = mr->rkey;
	void *maddr = mr->addr;
	char line[160];
	int ret;

	ret = rereg(flags, pd, addr, len, access);
	snprintf(line, sizeof(line), "%s: ret %d errno %d (want %d, %d)",
		 what, ret, errno, want_ret, want_errno);
	CHECK(line, ret == want_ret &&
	      (errno == want_errno || (alt_errno && errno == alt_errno)) &&
	      mr->rkey == key && mr->addr == maddr);
}

static void refused(const char *what, int flags, struct ibv_pd *pd,
		    void *addr, size_t len, int access, int want_ret,
		    int want_errno)
{
	refused_alt(what, flags, pd, addr, len, access, want_ret, want_errno,
		    0);
}

static void errors(void)
{
	struct ibv_mw_bind bind = {
		.wr_id = 9, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .addr = 0, .length = PG,
			       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE },
	};
	void *hole;
	struct ibv_mw *mw;
	int st;
	struct ibv_wc wc;
	struct pair p;

	refused("no flags", 0, NULL, NULL, 0, 0,
		IBV_REREG_MR_ERR_CMD, EINVAL);
	refused("unknown flag", IBV_REREG_MR_FLAGS_SUPPORTED + 1, NULL, NULL,
		0, 0, IBV_REREG_MR_ERR_INPUT, EINVAL);
	refused("zero length", IBV_REREG_MR_CHANGE_TRANSLATION, NULL, b, 0, 0,
		IBV_REREG_MR_ERR_INPUT, EINVAL);
	refused("access without CHANGE_ACCESS", IBV_REREG_MR_CHANGE_PD, pd2,
		NULL, 0, RW, IBV_REREG_MR_ERR_INPUT, EINVAL);
	refused("remote write without local write",
		IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		IBV_ACCESS_REMOTE_WRITE, IBV_REREG_MR_ERR_CMD, EINVAL);
	/* ib_core refuses it first: EINVAL on 6.1, EOPNOTSUPP later. */
	refused_alt("on-demand paging", IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
		    0, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND,
		    IBV_REREG_MR_ERR_CMD, EINVAL, EOPNOTSUPP);
	hole = mmap(NULL, 4 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (hole != MAP_FAILED) {
		refused("range not accessible", IBV_REREG_MR_CHANGE_TRANSLATION,
			NULL, hole, 4 * PG, 0, IBV_REREG_MR_ERR_CMD, EFAULT);
		munmap(hole, 4 * PG);
	}
	CHECK("MR works after the refusals", write_lands(pd1, a + 64, 0x81));

	mw = ibv_alloc_mw(pd1, IBV_MW_TYPE_1);
	CHECK("alloc_mw", mw != NULL);
	if (!mw)
		return;
	bind.bind_info.mr = mr;
	bind.bind_info.addr = (uintptr_t)a;
	st = pair_open(&p, pd1) && !ibv_bind_mw(p.s, mw, &bind) &&
	     wait_wc(&p, &wc) == 0;
	CHECK("bind a window to the MR", st);
	if (!st) {
		pair_close(&p);
		ibv_dealloc_mw(mw);
		return;
	}
	refused("window bound", IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, RW,
		IBV_REREG_MR_ERR_CMD, EBUSY);
	bind.bind_info.mr = NULL;
	bind.bind_info.addr = 0;
	bind.bind_info.length = 0;
	CHECK("unbind", !ibv_bind_mw(p.s, mw, &bind) &&
	      wait_wc(&p, &wc) == 0);
	pair_close(&p);
	CHECK("rereg allowed once unbound",
	      !rereg(IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, RW));
	CHECK("dealloc_mw", !ibv_dealloc_mw(mw));
}

/* A "Name: N kB" line of /proc/self/status, or -1. */
static long status_kb(const char *name)
{
	FILE *f = fopen("/proc/self/status", "r");
	size_t n = strlen(name);
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* A "name N" line of DIR/memory.stat, or -1. */
static long memcg_stat(const char *dir, const char *name)
{
	char path[512], line[256];
	size_t n = strlen(name);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/*
 * Reregistration in a loop: the pages each one replaced are unpinned
 * (after a grace period, so wait for it) and the memory it allocated is
 * given back to the cgroup.
 */
static void leaks(const char *memcg)
{
	long pin0, pin = -1, slab0 = -1, slab = -1;
	int i, bad = 0, tries;
	uint8_t *big;
	char line[160];

	big = aligned_alloc(PG, BIG);
	if (!big) {
		CHECK("buffer for the loop", false);
		return;
	}
	memset(big, 0, BIG);
	pin0 = status_kb("VmPin");
	if (memcg)
		slab0 = memcg_stat(memcg, "slab");
	for (i = 0; i < LOOPS && !bad; i++) {
		switch (i % 3) {
		case 0:
			bad = rereg(IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				    i % 2 ? a : big, i % 2 ? 4 * PG : BIG, 0);
			break;
		case 1:
			bad = rereg(IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				    i % 2 ? RW : IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE);
			break;
		default:
			bad = rereg(IBV_REREG_MR_CHANGE_PD, i % 2 ? pd1 : pd2,
				    NULL, 0, 0);
			break;
		}
	}
	snprintf(line, sizeof(line), "%d reregistrations", i);
	CHECK(line, !bad && i == LOOPS);
	/* Last state: on A (4 pages), or on big. */
	if (mr->pd != pd1)
		rereg(IBV_REREG_MR_CHANGE_PD, pd1, NULL, 0, 0);
	if (mr->addr != a)
		rereg(IBV_REREG_MR_CHANGE_TRANSLATION, NULL, a, 4 * PG, 0);
	/* The replaced pages are unpinned a grace period later. */
	for (tries = 0; tries < 200; tries++) {
		pin = status_kb("VmPin");
		if (pin == pin0)
			break;
		usleep(50000);
	}
	snprintf(line, sizeof(line), "VmPin back to %ld kB (now %ld kB)",
		 pin0, pin);
	CHECK(line, pin0 >= 16 && pin == pin0);
	if (memcg) {
		slab = memcg_stat(memcg, "slab");
		snprintf(line, sizeof(line),
			 "memcg slab %ld -> %ld bytes (within 256 KiB)", slab0,
			 slab);
		CHECK(line, slab0 >= 0 && slab >= 0 &&
		      slab < slab0 + 256 * 1024);
	}
	CHECK("WRITE after the loop lands in A",
	      write_lands(pd1, a + 2 * PG, 0x91));
	free(big);
}

/* The race: what the owner last published, under race_lock. */
static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t race_rkey;
static uint8_t *race_base;
static bool race_stop;

struct race_result {
	long ok, refused, other, misplaced, pairs;
};

/* The peer: WRITE 64 bytes to a rotating slot of the published range. */
static void *race_writer(void *arg)
{
	struct race_result *r = arg;
	struct ibv_send_wr wr, *bad;
	bool open = false, stop;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint8_t *base, *dst, v;
	struct pair p;
	uint32_t rkey;
	long seq = 0;
	int st;

	for (;;) {
		pthread_mutex_lock(&race_lock);
		stop = race_stop;
		rkey = race_rkey;
		base = race_base;
		pthread_mutex_unlock(&race_lock);
		if (stop)
			break;
		if (!open) {
			if (!pair_open(&p, pd1)) {
				pair_close(&p);
				r->other++;
				break;
			}
			open = true;
			r->pairs++;
		}
		seq++;
		v = (uint8_t)(seq % 251 + 1);
		dst = base + (seq % 60) * 64;
		/* lbuf's second page: the writer's own source bytes. */
		memset(lbuf + PG, v, 64);
		sge = (struct ibv_sge){ .addr = (uintptr_t)lbuf + PG,
					.length = 64, .lkey = p.lmr->lkey };
		wr = (struct ibv_send_wr){ .wr_id = seq, .sg_list = &sge,
					   .num_sge = 1,
					   .opcode = IBV_WR_RDMA_WRITE,
					   .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)dst;
		wr.wr.rdma.rkey = rkey;
		st = ibv_post_send(p.c, &wr, &bad) ? -1 : wait_wc(&p, &wc);
		if (st == IBV_WC_SUCCESS) {
			r->ok++;
			if (!all(dst, v, 64))
				r->misplaced++;
		} else if (st == IBV_WC_REM_ACCESS_ERR) {
			r->refused++;
			pair_close(&p);
			open = false;
		} else {
			r->other++;
			break;
		}
	}
	if (open)
		pair_close(&p);
	return NULL;
}

static void publish(uint32_t rkey, uint8_t *base)
{
	pthread_mutex_lock(&race_lock);
	race_rkey = rkey;
	race_base = base;
	pthread_mutex_unlock(&race_lock);
}

/*
 * Five pages: guard, X, guard, Y, guard.  The MR moves X <-> Y while the
 * peer writes; a WRITE checked against the old mapping may still land
 * in the old buffer, never anywhere else.
 */
static void race(void)
{
	struct race_result r = {};
	uint8_t *m, *x, *y;
	char line[200];
	int i, bad = 0;
	pthread_t th;

	m = aligned_alloc(PG, 5 * PG);
	if (!m) {
		CHECK("buffer for the race", false);
		return;
	}
	memset(m, 0xee, 5 * PG);
	x = m + PG;
	y = m + 3 * PG;
	if (rereg(IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_ACCESS,
		  NULL, x, PG, RW)) {
		CHECK("rereg onto the race buffer", false);
		free(m);
		return;
	}
	publish(mr->rkey, x);
	race_stop = false;
	if (pthread_create(&th, NULL, race_writer, &r)) {
		CHECK("writer thread", false);
		free(m);
		return;
	}
	for (i = 0; i < RACES && !bad; i++) {
		usleep(20000);
		bad = rereg(IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
			    i % 2 ? x : y, PG, 0);
		if (!bad)
			publish(mr->rkey, i % 2 ? x : y);
	}
	/* Give it time to take a new pair after the last one. */
	usleep(200000);
	pthread_mutex_lock(&race_lock);
	race_stop = true;
	pthread_mutex_unlock(&race_lock);
	pthread_join(th, NULL);
	snprintf(line, sizeof(line),
		 "%d reregistrations under WRITEs: %ld landed, %ld refused (stale key), %ld other, %ld misplaced, %ld pairs",
		 i, r.ok, r.refused, r.other, r.misplaced, r.pairs);
	CHECK(line, !bad && i == RACES && r.ok > 0 && !r.other &&
	      !r.misplaced);
	rem_access_errors += r.refused;
	CHECK("guard pages untouched", all(m, 0xee, PG) &&
	      all(m + 2 * PG, 0xee, PG) && all(m + 4 * PG, 0xee, PG));
	CHECK("rereg back onto A",
	      !rereg(IBV_REREG_MR_CHANGE_TRANSLATION, NULL, a, 4 * PG, 0));
	free(m);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: rereg DEV GID_INDEX [MEMCG_DIR]\n");
		return 2;
	}
	/* Each line out before a crash, if there is one. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	gidx = atoi(argv[2]);
	ctx = vm_open_dev(argv[1]);
	pd1 = ctx ? ibv_alloc_pd(ctx) : NULL;
	pd2 = ctx ? ibv_alloc_pd(ctx) : NULL;
	a = aligned_alloc(PG, 4 * PG);
	b = aligned_alloc(PG, 4 * PG);
	lbuf = aligned_alloc(PG, 4 * PG);
	if (!pd1 || !pd2 || !a || !b || !lbuf) {
		printf("FAIL setup\nrereg: 0 passed, 1 failed\n");
		return 1;
	}
	memset(lbuf, 0, 4 * PG);
	mr = ibv_reg_mr(pd1, a, 4 * PG, RW | IBV_ACCESS_MW_BIND);
	lmr1 = ibv_reg_mr(pd1, lbuf, 4 * PG, RW);
	lmr2 = ibv_reg_mr(pd2, lbuf, 4 * PG, RW);
	if (!mr || !lmr1 || !lmr2 || ibv_query_gid(ctx, 1, gidx, &gid)) {
		printf("FAIL setup\nrereg: 0 passed, 1 failed\n");
		return 1;
	}
	translation();
	access_change();
	pd_change();
	combined();
	errors();
	leaks(argc > 3 ? argv[3] : NULL);
	race();
	CHECK("teardown", !ibv_dereg_mr(mr) && !ibv_dereg_mr(lmr1) &&
	      !ibv_dereg_mr(lmr2) && !ibv_dealloc_pd(pd1) &&
	      !ibv_dealloc_pd(pd2) && !ibv_close_device(ctx));
	printf("remote access errors: %d\n", rem_access_errors);
	printf("rereg: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
