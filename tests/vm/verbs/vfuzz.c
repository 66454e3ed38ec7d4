// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * vfuzz: a randomized verbs-call fuzzer.  The kernel is what is under
 * test; every call may fail, and nothing about verbs semantics is judged.
 *
 *   vfuzz -d DEV -g GID_INDEX [--seed N] [--ops N] [--threads T]
 *         [--secs S] [--fork] [--close-mid] [--raw] [--no-scribble]
 *         [--hang-secs S] [--trace]
 *
 * T threads each run their own random sequence (a PRNG seeded from
 * seed + thread, so one thread's calls are reproducible; the interleaving
 * of several threads is not) of: create/modify/destroy of PDs, MRs (odd
 * access flags, unaligned, zero, huge and already unmapped ranges), MWs
 * (type 1 and 2), CQs (with and without a completion channel, resized),
 * SRQs (limits modified), QPs (RC, UC, UD and types the device lacks;
 * random caps, random modify_qp states and attribute masks, and real
 * connections to another QP of the same device through its own GID so
 * that traffic flows) and AHs; posts of random valid and invalid WRs
 * (every opcode, random SGE lists, lkeys and rkeys, inline), polls,
 * req_notify, queries; random stores into the rings the device shares
 * with the process (every mapping the provider made, seen through this
 * program's own mmap and munmap, which the provider's calls resolve to;
 * /dev/infiniband/uverbs* in /proc/self/maps otherwise), including
 * forged WQEs with a bumped producer index.
 *
 * With --fork a thread forks now and then with all its objects alive and
 * the child touches them (posts, polls, modifies, scribbles, closes) and
 * exits.  With --close-mid each thread has a context of its own and
 * closes it with its objects alive now and then, unmapping the rings the
 * provider left mapped so that the kernel tears the context down there
 * and then; after the device went away the thread reopens it by name
 * until it is back.  With --raw each thread also writes random legacy
 * uverbs write() commands with random handles, on a context of its own
 * or on one all threads share, contexts whose libibverbs objects are
 * never destroyed through libibverbs (so that a handle reused under
 * libibverbs' feet cannot make it wait for events forever), and drives
 * traffic on them.
 *
 * The fuzzer must not hang and must not crash: every wait has a deadline,
 * and a watchdog fails the run (exit 3) if one call is still running
 * after --hang-secs (default 60), printing the thread, its seed, the
 * call's index and the kernel stacks of every thread.  Kernel reports
 * (WARN, oops, KASAN, lockups, leaks) are for the caller to find in the
 * kernel log: tests/vm/reliability/vfuzz.sh.
 *
 * Output: the seeds, per-op counts of successes and failures (with the
 * most frequent errno), objects created, the longest run of successful
 * calls; the last line is "vfuzz: ... : ok".  Exit status 0, 2 on a
 * setup error (no device at the start), 3 on a hang.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "vm-verbs.h"

#define MAX_THREADS	16
#define NPD	4
#define NMR	16
#define NMW	8
#define NCQ	6
#define NSRQ	3
#define NQP	10
#define NAH	4
#define ARENA	(1u << 20)
#define MAX_SGE	8
#define MAX_WR	4
#define NERR	140	/* errno histogram size */
#define NRAW	(IB_USER_VERBS_CMD_OPEN_QP + 1)

#define OPS(X)								\
	X(alloc_pd) X(dealloc_pd) X(reg_mr) X(rereg_mr) X(dereg_mr)	\
	X(alloc_mw) X(dealloc_mw) X(bind_mw) X(create_cq) X(resize_cq)	\
	X(destroy_cq) X(create_srq) X(modify_srq) X(query_srq)		\
	X(destroy_srq) X(create_qp) X(modify_qp) X(connect_qp)		\
	X(query_qp) X(destroy_qp) X(create_ah) X(destroy_ah)		\
	X(post_send) X(post_recv) X(post_srq_recv) X(poll_cq)		\
	X(req_notify) X(wait_cq) X(query) X(scribble) X(fork)		\
	X(close_ctx) X(reopen) X(raw_cmd) X(raw_post)

enum op {
#define X(n) OP_##n,
	OPS(X)
#undef X
	NOPS
};

static const char *const op_name[] = {
#define X(n) #n,
	OPS(X)
#undef X
};

enum kind { K_PD, K_MR, K_MW, K_CQ, K_SRQ, K_QP, K_AH, K_CTX, NKINDS };
static const char *const kind_name[] = {
	"pd", "mr", "mw", "cq", "srq", "qp", "ah", "ctx"
};

/* A verbs context and the thread that reads and acks its events. */
struct uctx {
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	pthread_t drainer;
	volatile bool stop;
	bool running;
};

/*
 * --raw: a context whose objects libibverbs never destroys (raw commands
 * may destroy them, or others that reuse their handles).
 */
struct rawset {
	struct uctx u;
	uint8_t *arena;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	unsigned long ops;
};

struct th {
	int id;
	uint64_t rng, seed;
	struct uctx *u;		/* the shared context or @own */
	struct uctx own;
	struct rawset raw;	/* --raw: this thread's */
	union ibv_gid gid;
	struct ibv_pd *pd[NPD];
	struct ibv_mr *mr[NMR];
	struct ibv_mw *mw[NMW];
	struct ibv_cq *cq[NCQ];
	struct ibv_srq *srq[NSRQ];
	struct ibv_qp *qp[NQP];
	struct ibv_ah *ah[NAH];
	uint8_t *arena;
	unsigned long calls, streak, best_streak, fails_in_row;
	unsigned long ok[NOPS], fail[NOPS], err[NOPS][NERR];
	unsigned long created[NKINDS];
	unsigned long forks, children_killed, reopens;
	double slowest[NOPS];	/* the longest call of each op, seconds */
	unsigned long raw_ok[NRAW], raw_err[NRAW][NERR];
	double last_reopen;
	/* For the watchdog. */
	volatile double op_start;	/* 0 when idle */
	volatile int cur_op;
	volatile unsigned long cur_idx;
	pid_t tid;
};

static const char *dev;
static int gidx;
static uint64_t seed = 1;
static unsigned long max_ops = 20000;
static unsigned int nthreads = 1;
static double secs = 60, hang_secs = 60;
static bool opt_fork, opt_close_mid, opt_raw, opt_scribble = true, trace;
static struct uctx shared;
static struct ibv_device_attr dattr;
static struct th ths[MAX_THREADS];
static volatile bool stopping;
static double t_start;
static unsigned long events_async, events_comp;
static __thread sigjmp_buf *guard;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(struct th *t)
{
	return splitmix(&t->rng);
}

/* 0..n-1 */
static uint32_t rn(struct th *t, uint32_t n)
{
	return n ? rnd(t) % n : 0;
}

/* True one time in @n. */
static bool one_in(struct th *t, uint32_t n)
{
	return rn(t, n) == 0;
}

/* A count that is mostly small and sometimes absurd. */
static uint32_t rcount(struct th *t, uint32_t small, uint32_t dev_max)
{
	switch (rn(t, 10)) {
	case 0: return 0;
	case 1: return dev_max;
	case 2: return dev_max + 1;
	case 3: return rnd(t);
	case 4: return 1u << rn(t, 32);
	default: return 1 + rn(t, small);
	}
}

static void *pick(struct th *t, void **arr, int n)
{
	int i, k = rn(t, n);

	for (i = 0; i < n; i++)
		if (arr[(k + i) % n])
			return arr[(k + i) % n];
	return NULL;
}

static int slot(struct th *t, void **arr, int n, bool free_one)
{
	int i, k = rn(t, n);

	for (i = 0; i < n; i++)
		if (!arr[(k + i) % n] == free_one)
			return (k + i) % n;
	return -1;
}

#define PICK(t, a)	pick(t, (void **)(a), sizeof(a) / sizeof((a)[0]))
#define FREE_SLOT(t, a)	slot(t, (void **)(a), sizeof(a) / sizeof((a)[0]), true)
#define USED_SLOT(t, a)	slot(t, (void **)(a), sizeof(a) / sizeof((a)[0]), false)

/* Record one call's result: @e 0 for success, else an errno (or -1). */
static void done(struct th *t, enum op op, int e)
{
	t->calls++;
	if (!e) {
		t->ok[op]++;
		t->streak++;
		if (t->streak > t->best_streak)
			t->best_streak = t->streak;
		t->fails_in_row = 0;
	} else {
		t->fail[op]++;
		t->err[op][e > 0 && e < NERR ? e : 0]++;
		t->streak = 0;
		t->fails_in_row++;
	}
	if (trace)
		fprintf(stderr, "t%d #%lu %s %s\n", t->id, t->cur_idx,
			op_name[op], e ? strerror(e > 0 ? e : EINVAL) : "ok");
}

/* errno of a call that returned an error code or set errno. */
static int eno(int ret)
{
	if (!ret)
		return 0;
	if (ret > 0)
		return ret;
	return errno ? errno : EINVAL;
}

/* ---- the event drainer ------------------------------------------------ */

static void *drainer(void *arg)
{
	struct uctx *u = arg;
	struct ibv_async_event ev;
	struct pollfd pfd[2];
	struct ibv_cq *cq;
	void *cctx;
	int n;

	while (!u->stop) {
		pfd[0] = (struct pollfd){ .fd = u->ctx->async_fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = u->ch ? u->ch->fd : -1,
					  .events = POLLIN };
		n = poll(pfd, 2, 50);
		if (n <= 0)
			continue;
		if (pfd[0].revents) {
			if (!ibv_get_async_event(u->ctx, &ev)) {
				ibv_ack_async_event(&ev);
				__atomic_add_fetch(&events_async, 1, __ATOMIC_RELAXED);
			} else if (errno != EAGAIN) {
				usleep(20000);	/* the device is gone */
			}
		}
		if (pfd[1].revents) {
			if (!ibv_get_cq_event(u->ch, &cq, &cctx)) {
				ibv_ack_cq_events(cq, 1);
				__atomic_add_fetch(&events_comp, 1, __ATOMIC_RELAXED);
			} else if (errno != EAGAIN) {
				usleep(20000);
			}
		}
	}
	return NULL;
}

static int nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static bool uctx_open(struct uctx *u)
{
	memset(u, 0, sizeof(*u));
	u->ctx = vm_open_dev(dev);
	if (!u->ctx)
		return false;
	u->ch = ibv_create_comp_channel(u->ctx);
	if (nonblock(u->ctx->async_fd) || (u->ch && nonblock(u->ch->fd)) ||
	    pthread_create(&u->drainer, NULL, drainer, u)) {
		if (u->ch)
			ibv_destroy_comp_channel(u->ch);
		ibv_close_device(u->ctx);
		u->ctx = NULL;
		return false;
	}
	u->running = true;
	return true;
}

static void uctx_stop(struct uctx *u)
{
	if (u->running) {
		u->stop = true;
		pthread_join(u->drainer, NULL);
		u->running = false;
	}
}

/*
 * Close with whatever objects are still alive: the channel's fd by hand
 * (ibv_destroy_comp_channel would refuse while CQs use it), the context
 * with ibv_close_device.  The objects' memory is abandoned.
 */
/* ---- the device's mappings -------------------------------------------- */

/*
 * mmap and munmap of this process go through here (the provider's calls
 * resolve to these definitions before libc's), so that the fuzzer knows
 * each shared mapping's file descriptor, and so that no mapping comes or
 * goes while a scribble is between choosing an address and storing to
 * it (the address could be somebody's heap by then).
 */
#define MAX_RMAPS	8192

struct rmap {
	uintptr_t addr;
	size_t len;
	int fd;
};

static struct rmap rmaps[MAX_RMAPS];
static int nrmaps;
static pthread_rwlock_t maps_rw = PTHREAD_RWLOCK_INITIALIZER;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	pthread_rwlock_wrlock(&maps_rw);
	p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && fd >= 0 && (flags & MAP_SHARED) &&
	    nrmaps < MAX_RMAPS)
		rmaps[nrmaps++] = (struct rmap){ (uintptr_t)p, len, fd };
	pthread_rwlock_unlock(&maps_rw);
	return p;
}

static void rmaps_forget(uintptr_t a, size_t len)
{
	int i;

	for (i = 0; i < nrmaps; i++)
		if (rmaps[i].addr < a + len && a < rmaps[i].addr + rmaps[i].len)
			rmaps[i--] = rmaps[--nrmaps];
}

int munmap(void *addr, size_t len)
{
	int r;

	pthread_rwlock_wrlock(&maps_rw);
	r = syscall(SYS_munmap, addr, len);
	if (!r)
		rmaps_forget((uintptr_t)addr, len);
	pthread_rwlock_unlock(&maps_rw);
	return r;
}

/*
 * Unmap what the provider mapped from @fd and left behind: a closed
 * context's rings.  A mapping holds the file, so without this the
 * context (and every object in it) would live on until exit.
 */
static void unmap_fd(int fd)
{
	int i;

	pthread_rwlock_wrlock(&maps_rw);
	for (i = 0; i < nrmaps; i++)
		if (rmaps[i].fd == fd) {
			syscall(SYS_munmap, rmaps[i].addr, rmaps[i].len);
			rmaps[i--] = rmaps[--nrmaps];
		}
	pthread_rwlock_unlock(&maps_rw);
}

static int uctx_close(struct uctx *u, bool clean)
{
	int ret = 0;

	uctx_stop(u);
	/* Before the close: the fd's number is free for reuse after it. */
	if (u->ctx && !clean)
		unmap_fd(u->ctx->cmd_fd);
	if (u->ch) {
		if (!clean || ibv_destroy_comp_channel(u->ch))
			close(u->ch->fd);
		u->ch = NULL;
	}
	if (u->ctx)
		ret = ibv_close_device(u->ctx);
	u->ctx = NULL;
	return ret;
}

/* ---- ring scribbling -------------------------------------------------- */

struct map {
	uintptr_t start, end;
};

static int uverbs_maps(struct map *m, int max)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return 0;
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

static void segv(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (guard)
		siglongjmp(*guard, 1);
	/* Not ours: die of it as if there were no handler. */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Find a live lkey to put into a forged WQE. */
static uint32_t some_lkey(struct th *t)
{
	struct ibv_mr *mr = PICK(t, t->mr);

	return mr && !one_in(t, 4) ? mr->lkey : (uint32_t)rnd(t);
}

/*
 * One random store into one of the process's device mappings (anyone's:
 * this thread's, another thread's, a closed context's): an index, a flag
 * word, random bytes over elements, or a forged send WQE with the
 * producer index moved past it.  A mapping unmapped under us (resize,
 * destroy, close in another thread) faults: the fault is caught.
 */
static int do_scribble(struct th *t)
{
	struct map maps[128];
	sigjmp_buf jb;
	volatile uint32_t *w;
	uint8_t *base;
	size_t len, off;
	int n, k;

	pthread_rwlock_rdlock(&maps_rw);
	if (nrmaps) {
		k = rn(t, nrmaps);
		base = (uint8_t *)rmaps[k].addr;
		len = rmaps[k].len;
	} else {
		/* The provider's mmap did not come through here. */
		n = uverbs_maps(maps, 128);
		if (!n) {
			pthread_rwlock_unlock(&maps_rw);
			return ENOENT;
		}
		k = rn(t, n);
		base = (uint8_t *)maps[k].start;
		len = maps[k].end - maps[k].start;
	}
	if (sigsetjmp(jb, 1)) {
		guard = NULL;
		pthread_rwlock_unlock(&maps_rw);
		return EFAULT;
	}
	guard = &jb;
	switch (rn(t, 6)) {
	case 0:		/* prod or cons */
		w = (volatile uint32_t *)(base + rn(t, 2) * 64);
		switch (rn(t, 6)) {
		case 0: *w += 0x10000; break;
		case 1: *w -= 1; break;
		case 2: *w += 1 + rn(t, 4); break;
		case 3: *w = 0xffffffff; break;
		case 4: *w = 0; break;
		default: *w = rnd(t); break;
		}
		break;
	case 1:		/* flag words */
		w = (volatile uint32_t *)(base + 4 + rn(t, 2) * 64);
		*w = rnd(t);
		break;
	case 2:		/* anywhere */
		off = rn(t, len);
		base[off] = rnd(t);
		break;
	case 3:		/* a run of random bytes in the elements */
	case 4:
		if (len <= 128)
			break;
		off = 128 + rn(t, len - 128);
		for (n = 1 + rn(t, 64); n && off < len; n--, off++)
			base[off] = rnd(t);
		break;
	default: {	/* a plausible send WQE, then prod past it */
		uint32_t *p, i, slots = (len - 128) / 64;

		if (!slots)
			break;
		p = (uint32_t *)(base + 128 + 64 * rn(t, slots));
		p[0] = rnd(t);
		p[1] = rnd(t);
		p[2] = rn(t, 16) | (uint32_t)rn(t, 16) << 8 |
		       (uint32_t)(rn(t, 6)) << 16;
		p[3] = rnd(t);
		p[4] = one_in(t, 2) ? rn(t, 512) : rnd(t);
		for (i = 5; i < 12 && (uint8_t *)&p[i + 4] <= base + len; i++)
			p[i] = rnd(t);
		if ((uint8_t *)&p[16] <= base + len) {
			*(uint64_t *)&p[12] = (uintptr_t)t->arena + rn(t, ARENA);
			p[14] = rn(t, 8192);
			p[15] = some_lkey(t);
		}
		w = (volatile uint32_t *)base;
		*w += 1 + rn(t, 3);
		break;
	}
	}
	guard = NULL;
	pthread_rwlock_unlock(&maps_rw);
	return 0;
}

/* ---- object creation -------------------------------------------------- */

static struct ibv_context *C(struct th *t)
{
	return t->u->ctx;
}

static int access_flags(struct th *t)
{
	static const int bits[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED,
		IBV_ACCESS_ON_DEMAND, IBV_ACCESS_RELAXED_ORDERING,
	};
	int f = 0, i;

	if (one_in(t, 8))
		return rnd(t);
	if (one_in(t, 3))
		return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
		       IBV_ACCESS_MW_BIND;
	for (i = 0; i < 8; i++)
		if (one_in(t, 3))
			f |= bits[i];
	return f;
}

static void op_alloc_pd(struct th *t)
{
	int s = FREE_SLOT(t, t->pd);

	if (s < 0)
		return;
	t->pd[s] = ibv_alloc_pd(C(t));
	if (t->pd[s])
		t->created[K_PD]++;
	done(t, OP_alloc_pd, t->pd[s] ? 0 : eno(-1));
}

static void op_dealloc_pd(struct th *t)
{
	int s = USED_SLOT(t, t->pd), e;

	if (s < 0)
		return;
	e = eno(ibv_dealloc_pd(t->pd[s]));
	if (!e)
		t->pd[s] = NULL;
	done(t, OP_dealloc_pd, e);
}

static struct ibv_pd *need_pd(struct th *t)
{
	struct ibv_pd *pd = PICK(t, t->pd);

	if (!pd)
		op_alloc_pd(t);
	return PICK(t, t->pd);
}

static void op_reg_mr(struct th *t)
{
	struct ibv_pd *pd = need_pd(t);
	int s = FREE_SLOT(t, t->mr);
	uint8_t *addr = t->arena + rn(t, ARENA);
	size_t len = rn(t, ARENA - (addr - t->arena));
	void *m = NULL;
	int acc = access_flags(t);

	if (!pd || s < 0)
		return;
	switch (rn(t, 10)) {
	case 0: len = 0; break;
	case 1: len = (size_t)1 << (30 + rn(t, 20)); break;	/* huge */
	case 2: addr = t->arena; len = ARENA; break;
	case 3: addr = (uint8_t *)(uintptr_t)rnd(t); break;
	case 4:		/* unmapped once registered */
		m = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		memset(m, 0x5a, 65536);
		addr = m;
		len = 65536;
		break;
	case 5: len = 1 + rn(t, 64); break;
	default: break;
	}
	t->mr[s] = ibv_reg_mr(pd, addr, len, acc);
	if (t->mr[s])
		t->created[K_MR]++;
	done(t, OP_reg_mr, t->mr[s] ? 0 : eno(-1));
	if (m)
		munmap(m, 65536);
}

static void op_rereg_mr(struct th *t)
{
	struct ibv_mr *mr = PICK(t, t->mr);
	struct ibv_pd *pd = PICK(t, t->pd);
	uint8_t *addr = t->arena + rn(t, ARENA);
	int flags = rn(t, 8) | (one_in(t, 8) ? rnd(t) : 0);

	if (!mr || !pd)
		return;
	/* Never IBV_REREG_MR_CHANGE_PD with a NULL pd. */
	done(t, OP_rereg_mr, eno(ibv_rereg_mr(mr, flags, pd, addr,
					      rn(t, ARENA - (addr - t->arena)),
					      access_flags(t))));
}

static void op_dereg_mr(struct th *t)
{
	int s = USED_SLOT(t, t->mr), e;

	if (s < 0)
		return;
	e = eno(ibv_dereg_mr(t->mr[s]));
	if (!e)
		t->mr[s] = NULL;
	done(t, OP_dereg_mr, e);
}

static void op_alloc_mw(struct th *t)
{
	struct ibv_pd *pd = need_pd(t);
	int s = FREE_SLOT(t, t->mw);
	int type = one_in(t, 10) ? (int)rn(t, 5) :
		   one_in(t, 2) ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2;

	if (!pd || s < 0)
		return;
	t->mw[s] = ibv_alloc_mw(pd, type);
	if (t->mw[s])
		t->created[K_MW]++;
	done(t, OP_alloc_mw, t->mw[s] ? 0 : eno(-1));
}

static void op_dealloc_mw(struct th *t)
{
	int s = USED_SLOT(t, t->mw), e;

	if (s < 0)
		return;
	e = eno(ibv_dealloc_mw(t->mw[s]));
	if (!e)
		t->mw[s] = NULL;
	done(t, OP_dealloc_mw, e);
}

static void bind_info(struct th *t, struct ibv_mw_bind_info *b)
{
	struct ibv_mr *mr = PICK(t, t->mr);

	b->mr = one_in(t, 8) ? NULL : mr;
	b->addr = mr && !one_in(t, 5) ? (uintptr_t)mr->addr + rn(t, mr->length + 1) :
		  rnd(t);
	b->length = mr && !one_in(t, 5) ? rn(t, mr->length + 2) : rnd(t);
	b->mw_access_flags = access_flags(t);
}

static void op_bind_mw(struct th *t)
{
	struct ibv_mw *mw = PICK(t, t->mw);
	struct ibv_qp *qp = PICK(t, t->qp);
	struct ibv_mw_bind b = { .wr_id = rnd(t),
				 .send_flags = rn(t, 16) };

	/* libibverbs only takes type 1 windows here (it checks). */
	if (!mw || !qp || mw->type != IBV_MW_TYPE_1)
		return;
	bind_info(t, &b.bind_info);
	if (!b.bind_info.mr)
		return;
	done(t, OP_bind_mw, eno(ibv_bind_mw(qp, mw, &b)));
}

static void op_create_cq(struct th *t)
{
	int s = FREE_SLOT(t, t->cq);
	int cqe = one_in(t, 4) ? (int)rcount(t, 256, dattr.max_cqe) :
		  1 + (int)rn(t, 256);

	if (s < 0)
		return;
	t->cq[s] = ibv_create_cq(C(t), cqe, NULL,
				 one_in(t, 2) ? t->u->ch : NULL,
				 one_in(t, 10) ? (int)rnd(t) : 0);
	if (t->cq[s])
		t->created[K_CQ]++;
	done(t, OP_create_cq, t->cq[s] ? 0 : eno(-1));
}

static void op_resize_cq(struct th *t)
{
	struct ibv_cq *cq = PICK(t, t->cq);

	if (!cq)
		return;
	done(t, OP_resize_cq, eno(ibv_resize_cq(cq, rcount(t, 512, dattr.max_cqe))));
}

static void op_destroy_cq(struct th *t)
{
	int s = USED_SLOT(t, t->cq), e;

	if (s < 0)
		return;
	e = eno(ibv_destroy_cq(t->cq[s]));
	if (!e)
		t->cq[s] = NULL;
	done(t, OP_destroy_cq, e);
}

static struct ibv_cq *need_cq(struct th *t)
{
	if (!PICK(t, t->cq))
		op_create_cq(t);
	return PICK(t, t->cq);
}

static void op_create_srq(struct th *t)
{
	struct ibv_pd *pd = need_pd(t);
	int s = FREE_SLOT(t, t->srq);
	struct ibv_srq_init_attr a = {
		.attr = { .max_wr = rcount(t, 64, dattr.max_srq_wr),
			  .max_sge = rcount(t, 4, dattr.max_srq_sge),
			  .srq_limit = one_in(t, 3) ? rnd(t) : rn(t, 16) },
	};

	if (!pd || s < 0)
		return;
	t->srq[s] = ibv_create_srq(pd, &a);
	if (t->srq[s])
		t->created[K_SRQ]++;
	done(t, OP_create_srq, t->srq[s] ? 0 : eno(-1));
}

static void op_modify_srq(struct th *t)
{
	struct ibv_srq *srq = PICK(t, t->srq);
	struct ibv_srq_attr a = { .max_wr = rcount(t, 64, dattr.max_srq_wr),
				  .max_sge = rn(t, 8),
				  .srq_limit = one_in(t, 3) ? rnd(t) : rn(t, 32) };
	int mask = one_in(t, 5) ? (int)rnd(t) :
		   one_in(t, 2) ? IBV_SRQ_LIMIT : (int)rn(t, 4);

	if (!srq)
		return;
	done(t, OP_modify_srq, eno(ibv_modify_srq(srq, &a, mask)));
}

static void op_query_srq(struct th *t)
{
	struct ibv_srq *srq = PICK(t, t->srq);
	struct ibv_srq_attr a;

	if (!srq)
		return;
	done(t, OP_query_srq, eno(ibv_query_srq(srq, &a)));
}

static void op_destroy_srq(struct th *t)
{
	int s = USED_SLOT(t, t->srq), e;

	if (s < 0)
		return;
	e = eno(ibv_destroy_srq(t->srq[s]));
	if (!e)
		t->srq[s] = NULL;
	done(t, OP_destroy_srq, e);
}

static void op_create_qp(struct th *t)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
		IBV_QPT_UD, IBV_QPT_RAW_PACKET, (enum ibv_qp_type)0,
		(enum ibv_qp_type)77,
	};
	struct ibv_pd *pd = need_pd(t);
	struct ibv_cq *scq = need_cq(t), *rcq = PICK(t, t->cq);
	int s = FREE_SLOT(t, t->qp);
	struct ibv_qp_init_attr a = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = one_in(t, 3) ? PICK(t, t->srq) : NULL,
		.cap = { .max_send_wr = rcount(t, 64, dattr.max_qp_wr),
			 .max_recv_wr = rcount(t, 64, dattr.max_qp_wr),
			 .max_send_sge = rcount(t, 4, dattr.max_sge),
			 .max_recv_sge = rcount(t, 4, dattr.max_sge),
			 .max_inline_data = one_in(t, 2) ? rn(t, 256) :
					    rcount(t, 1024, 4096) },
		.qp_type = types[rn(t, sizeof(types) / sizeof(types[0]))],
		.sq_sig_all = rn(t, 2),
	};

	if (!pd || !scq || !rcq || s < 0)
		return;
	/* Three in four sane, so that there are QPs to drive. */
	if (!one_in(t, 4)) {
		a.cap.max_send_wr = 1 + rn(t, 64);
		a.cap.max_recv_wr = 1 + rn(t, 64);
		a.cap.max_send_sge = 1 + rn(t, 4);
		a.cap.max_recv_sge = 1 + rn(t, 4);
		a.cap.max_inline_data = rn(t, 256);
		a.qp_type = types[rn(t, 6)];
	}
	t->qp[s] = ibv_create_qp(pd, &a);
	if (t->qp[s])
		t->created[K_QP]++;
	done(t, OP_create_qp, t->qp[s] ? 0 : eno(-1));
}

static void rand_ah_attr(struct th *t, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = !one_in(t, 10);
	ah->port_num = one_in(t, 10) ? rn(t, 4) : 1;
	ah->dlid = one_in(t, 5) ? rnd(t) : 0;
	ah->sl = one_in(t, 5) ? rn(t, 16) : 0;
	ah->static_rate = one_in(t, 5) ? rn(t, 20) : 0;
	ah->grh.sgid_index = one_in(t, 6) ? (int)rn(t, 24) : gidx;
	ah->grh.hop_limit = rn(t, 256);
	ah->grh.traffic_class = rn(t, 256);
	ah->grh.flow_label = rnd(t);
	switch (rn(t, 12)) {
	case 0:		/* random: no route */
		for (int i = 0; i < 16; i++)
			ah->grh.dgid.raw[i] = rnd(t);
		break;
	case 1:		/* multicast */
		ah->grh.dgid.raw[0] = 0xff;
		ah->grh.dgid.raw[1] = 0x02;
		ah->grh.dgid.raw[15] = 1;
		break;
	case 2:
		break;	/* :: */
	default:
		ah->grh.dgid = t->gid;
		break;
	}
}

static void op_modify_qp(struct th *t)
{
	struct ibv_qp *qp = PICK(t, t->qp);
	struct ibv_qp *peer = PICK(t, t->qp);
	struct ibv_qp_attr a;
	int mask;

	if (!qp)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = one_in(t, 10) ? rnd(t) : rn(t, 7);
	a.cur_qp_state = rn(t, 8);
	a.path_mtu = one_in(t, 5) ? rn(t, 8) : IBV_MTU_1024;
	a.qkey = one_in(t, 3) ? rnd(t) : 0x11111111;
	a.rq_psn = rnd(t);
	a.sq_psn = rnd(t);
	a.dest_qp_num = peer && !one_in(t, 5) ? peer->qp_num : rnd(t);
	a.qp_access_flags = access_flags(t);
	a.cap.max_send_wr = rn(t, 64);
	a.cap.max_recv_wr = rn(t, 64);
	rand_ah_attr(t, &a.ah_attr);
	rand_ah_attr(t, &a.alt_ah_attr);
	a.pkey_index = one_in(t, 5) ? rn(t, 65536) : 0;
	a.alt_pkey_index = rn(t, 4);
	a.en_sqd_async_notify = rn(t, 2);
	a.max_rd_atomic = rn(t, 32);
	a.max_dest_rd_atomic = rn(t, 32);
	a.min_rnr_timer = rn(t, 32);
	a.port_num = one_in(t, 5) ? rn(t, 4) : 1;
	a.timeout = rn(t, 32);
	a.retry_cnt = rn(t, 8);
	a.rnr_retry = rn(t, 8);
	a.alt_port_num = rn(t, 3);
	a.alt_timeout = rn(t, 32);
	a.rate_limit = one_in(t, 5) ? rnd(t) : 0;
	mask = rnd(t) & ((1 << 26) - 1);
	if (one_in(t, 2))
		mask &= IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			IBV_QP_ACCESS_FLAGS | IBV_QP_QKEY | IBV_QP_AV |
			IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (one_in(t, 20))
		mask = rnd(t);
	/* Half of them a legal next state, with a plausible mask. */
	if (one_in(t, 2)) {
		struct ibv_qp_attr cur;
		struct ibv_qp_init_attr ia;

		if (!ibv_query_qp(qp, &cur, IBV_QP_STATE, &ia))
			a.qp_state = cur.qp_state == IBV_QPS_RTS && one_in(t, 2) ?
				     IBV_QPS_SQD + rn(t, 3) :
				     cur.qp_state < IBV_QPS_RTS ? cur.qp_state + 1 :
				     rn(t, 2) ? IBV_QPS_RESET : IBV_QPS_ERR;
		mask &= ~(IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
			  IBV_QP_RATE_LIMIT | IBV_QP_CUR_STATE | IBV_QP_CAP);
		/* To ERR or RESET (or SQD) from anywhere: the state alone. */
		if (one_in(t, 3)) {
			a.qp_state = one_in(t, 4) ? IBV_QPS_SQD :
				     one_in(t, 2) ? IBV_QPS_ERR : IBV_QPS_RESET;
			mask = IBV_QP_STATE;
		}
	}
	if (!one_in(t, 10))
		mask |= IBV_QP_STATE;
	done(t, OP_modify_qp, eno(ibv_modify_qp(qp, &a, mask)));
}

/* The legal way up to RTS, towards @dqpn through our own GID. */
static int connect_qp(struct th *t, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	int ud = qp->qp_type == IBV_QPT_UD, uc = qp->qp_type == IBV_QPT_UC;
	int e;

	if (one_in(t, 2) && (e = ibv_modify_qp(qp, &a, IBV_QP_STATE)))
		return e;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    (uc ? 0 : IBV_ACCESS_REMOTE_ATOMIC);
	if ((e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			       IBV_QP_PORT | (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS))))
		return e;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ud) {
		if ((e = ibv_modify_qp(qp, &a, IBV_QP_STATE)))
			return e;
	} else {
		a.path_mtu = IBV_MTU_256 + rn(t, 5);
		a.dest_qp_num = dqpn;
		a.rq_psn = rn(t, 1 << 24);
		a.max_dest_rd_atomic = rn(t, 5);
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.dgid = t->gid;
		a.ah_attr.grh.sgid_index = gidx;
		a.ah_attr.grh.hop_limit = 64;
		if ((e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN |
				       (uc ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC |
					IBV_QP_MIN_RNR_TIMER))))
			return e;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = rn(t, 1 << 24);
	/* Short timeouts: a QP whose peer is gone must fail fast. */
	a.timeout = 8 + rn(t, 4);
	a.retry_cnt = rn(t, 3);
	a.rnr_retry = rn(t, 3);
	a.max_rd_atomic = rn(t, 5);
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     (ud || uc ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC));
}

static void op_connect_qp(struct th *t)
{
	struct ibv_qp *qp = PICK(t, t->qp), *peer = PICK(t, t->qp);

	if (!qp || !peer)
		return;
	done(t, OP_connect_qp, eno(connect_qp(t, qp, peer->qp_num)));
}

static void op_query_qp(struct th *t)
{
	struct ibv_qp *qp = PICK(t, t->qp);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (!qp)
		return;
	done(t, OP_query_qp, eno(ibv_query_qp(qp, &a, one_in(t, 2) ? (int)rnd(t) :
					      IBV_QP_STATE, &ia)));
}

static void op_destroy_qp(struct th *t)
{
	int s = USED_SLOT(t, t->qp), e;

	if (s < 0)
		return;
	e = eno(ibv_destroy_qp(t->qp[s]));
	if (!e)
		t->qp[s] = NULL;
	done(t, OP_destroy_qp, e);
}

static void op_create_ah(struct th *t)
{
	struct ibv_pd *pd = need_pd(t);
	int s = FREE_SLOT(t, t->ah);
	struct ibv_ah_attr a;

	if (!pd || s < 0)
		return;
	rand_ah_attr(t, &a);
	t->ah[s] = ibv_create_ah(pd, &a);
	if (t->ah[s])
		t->created[K_AH]++;
	done(t, OP_create_ah, t->ah[s] ? 0 : eno(-1));
}

static void op_destroy_ah(struct th *t)
{
	int s = USED_SLOT(t, t->ah), e;

	if (s < 0)
		return;
	e = eno(ibv_destroy_ah(t->ah[s]));
	if (!e)
		t->ah[s] = NULL;
	done(t, OP_destroy_ah, e);
}

/* ---- work requests ---------------------------------------------------- */

/*
 * Random SGEs.  The provider copies inline data out of them, so with
 * @inl every SGE lies inside the arena; otherwise only the kernel reads
 * them (through an lkey) and anything goes.
 */
static int rand_sges(struct th *t, struct ibv_sge *sg, bool inl, bool atomic)
{
	int n = one_in(t, 10) ? rn(t, MAX_SGE + 1) : 1 + rn(t, 2), i;
	struct ibv_mr *mr;

	for (i = 0; i < n; i++) {
		mr = PICK(t, t->mr);
		if (inl) {
			uint32_t off = rn(t, ARENA);

			sg[i].addr = (uintptr_t)t->arena + off;
			sg[i].length = rn(t, 1 + (one_in(t, 4) || ARENA - off < 256 ?
						  ARENA - off : 256));
			sg[i].lkey = rnd(t);
			continue;
		}
		if (mr && !one_in(t, 6)) {
			sg[i].addr = (uintptr_t)mr->addr + rn(t, mr->length + 1);
			sg[i].length = atomic ? 8 : rn(t, mr->length + 1);
			if (one_in(t, 8))
				sg[i].length += rn(t, 1 << 20);
			sg[i].lkey = one_in(t, 10) ? mr->rkey : mr->lkey;
		} else {
			sg[i].addr = one_in(t, 2) ? (uintptr_t)t->arena : rnd(t);
			sg[i].length = rn(t, 1 << 16);
			sg[i].lkey = one_in(t, 3) ? 0 : rnd(t);
		}
	}
	return n;
}

static uint32_t some_rkey(struct th *t)
{
	struct ibv_mr *mr = PICK(t, t->mr);
	struct ibv_mw *mw = PICK(t, t->mw);

	switch (rn(t, 5)) {
	case 0: return rnd(t);
	case 1: return mw ? mw->rkey : 0;
	case 2: return mr ? mr->lkey : 0;
	default: return mr ? mr->rkey : 0;
	}
}

static uint64_t some_raddr(struct th *t, bool atomic)
{
	struct ibv_mr *mr = PICK(t, t->mr);
	uint64_t a;

	if (!mr || one_in(t, 6))
		return rnd(t);
	a = (uintptr_t)mr->addr + rn(t, mr->length + 16);
	if (atomic && !one_in(t, 5))
		a &= ~7ULL;
	return a;
}

static void op_post_send(struct th *t)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM,
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ, IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_LOCAL_INV, IBV_WR_BIND_MW,
		IBV_WR_SEND_WITH_INV, IBV_WR_TSO, IBV_WR_DRIVER1,
		IBV_WR_ATOMIC_WRITE, (enum ibv_wr_opcode)99,
	};
	struct ibv_qp *qp = PICK(t, t->qp);
	struct ibv_send_wr wr[MAX_WR], *bad;
	struct ibv_sge sg[MAX_WR][MAX_SGE];
	int n = 1 + (one_in(t, 4) ? rn(t, MAX_WR) : 0), i;

	if (!qp)
		return;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		struct ibv_send_wr *w = &wr[i];
		bool inl = one_in(t, 5), atomic;

		w->wr_id = rnd(t);
		w->next = i + 1 < n ? &wr[i + 1] : NULL;
		w->opcode = ops[rn(t, sizeof(ops) / sizeof(ops[0]))];
		if (qp->qp_type == IBV_QPT_UD && !one_in(t, 8))
			w->opcode = one_in(t, 3) ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
		atomic = w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			 w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
		w->send_flags = (one_in(t, 3) ? 0 : IBV_SEND_SIGNALED) |
				(inl ? IBV_SEND_INLINE : 0) |
				(one_in(t, 6) ? IBV_SEND_FENCE : 0) |
				(one_in(t, 6) ? IBV_SEND_SOLICITED : 0) |
				(one_in(t, 20) ? IBV_SEND_IP_CSUM : 0);
		w->sg_list = sg[i];
		w->num_sge = rand_sges(t, sg[i], inl, atomic);
		w->imm_data = rnd(t);
		if (w->opcode == IBV_WR_LOCAL_INV || w->opcode == IBV_WR_SEND_WITH_INV)
			w->invalidate_rkey = some_rkey(t);
		if (qp->qp_type == IBV_QPT_UD) {
			struct ibv_qp *dq = PICK(t, t->qp);

			w->wr.ud.ah = one_in(t, 10) ? NULL : PICK(t, t->ah);
			w->wr.ud.remote_qpn = dq && !one_in(t, 5) ? dq->qp_num : rnd(t);
			w->wr.ud.remote_qkey = one_in(t, 4) ? rnd(t) : 0x11111111;
		} else if (atomic) {
			w->wr.atomic.remote_addr = some_raddr(t, true);
			w->wr.atomic.rkey = some_rkey(t);
			w->wr.atomic.compare_add = rnd(t);
			w->wr.atomic.swap = rnd(t);
		} else if (w->opcode == IBV_WR_BIND_MW) {
			w->bind_mw.mw = one_in(t, 10) ? NULL : PICK(t, t->mw);
			w->bind_mw.rkey = w->bind_mw.mw ?
				ibv_inc_rkey(w->bind_mw.mw->rkey) : rnd(t);
			bind_info(t, &w->bind_mw.bind_info);
		} else {
			w->wr.rdma.remote_addr = some_raddr(t, false);
			w->wr.rdma.rkey = some_rkey(t);
		}
	}
	done(t, OP_post_send, eno(ibv_post_send(qp, wr, &bad)));
}

static void rand_recv(struct th *t, struct ibv_recv_wr *wr,
		      struct ibv_sge (*sg)[MAX_SGE], int *n)
{
	int i;

	*n = 1 + (one_in(t, 4) ? rn(t, MAX_WR) : 0);
	memset(wr, 0, sizeof(*wr) * MAX_WR);
	for (i = 0; i < *n; i++) {
		wr[i].wr_id = rnd(t);
		wr[i].next = i + 1 < *n ? &wr[i + 1] : NULL;
		wr[i].sg_list = sg[i];
		wr[i].num_sge = rand_sges(t, sg[i], false, false);
	}
}

static void op_post_recv(struct th *t)
{
	struct ibv_qp *qp = PICK(t, t->qp);
	struct ibv_recv_wr wr[MAX_WR], *bad;
	struct ibv_sge sg[MAX_WR][MAX_SGE];
	int n;

	if (!qp)
		return;
	rand_recv(t, wr, sg, &n);
	done(t, OP_post_recv, eno(ibv_post_recv(qp, wr, &bad)));
}

static void op_post_srq_recv(struct th *t)
{
	struct ibv_srq *srq = PICK(t, t->srq);
	struct ibv_recv_wr wr[MAX_WR], *bad;
	struct ibv_sge sg[MAX_WR][MAX_SGE];
	int n;

	if (!srq)
		return;
	rand_recv(t, wr, sg, &n);
	done(t, OP_post_srq_recv, eno(ibv_post_srq_recv(srq, wr, &bad)));
}

static void op_poll_cq(struct th *t)
{
	struct ibv_cq *cq = PICK(t, t->cq);
	struct ibv_wc wc[16];
	int n;

	if (!cq)
		return;
	n = ibv_poll_cq(cq, 1 + rn(t, 16), wc);
	done(t, OP_poll_cq, n < 0 ? EIO : 0);
}

static void op_req_notify(struct th *t)
{
	struct ibv_cq *cq = PICK(t, t->cq);

	if (!cq)
		return;
	done(t, OP_req_notify, eno(ibv_req_notify_cq(cq, rn(t, 2))));
}

/* Poll every CQ until one gives something or 20 ms have passed. */
static void op_wait_cq(struct th *t)
{
	double end = now() + 0.02;
	struct ibv_wc wc[16];
	int i, n, got = 0;

	do {
		for (i = 0; i < NCQ; i++) {
			if (!t->cq[i])
				continue;
			n = ibv_poll_cq(t->cq[i], 16, wc);
			if (n > 0)
				got += n;
		}
		if (!got)
			usleep(500);
	} while (!got && now() < end);
	done(t, OP_wait_cq, got ? 0 : ETIMEDOUT);
}

static void op_query(struct th *t)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid g;
	__be16 pkey;
	int e;

	switch (rn(t, 4)) {
	case 0: e = ibv_query_device(C(t), &da); break;
	case 1: e = ibv_query_port(C(t), one_in(t, 4) ? rn(t, 4) : 1, &pa); break;
	case 2: e = ibv_query_gid(C(t), one_in(t, 4) ? rn(t, 4) : 1,
				  one_in(t, 2) ? gidx : (int)rn(t, 300), &g); break;
	default: e = ibv_query_pkey(C(t), 1, rn(t, 4), &pkey); break;
	}
	done(t, OP_query, eno(e));
}

/* ---- fork, close, raw commands ---------------------------------------- */

static void forget_all(struct th *t)
{
	memset(t->pd, 0, sizeof(t->pd));
	memset(t->mr, 0, sizeof(t->mr));
	memset(t->mw, 0, sizeof(t->mw));
	memset(t->cq, 0, sizeof(t->cq));
	memset(t->srq, 0, sizeof(t->srq));
	memset(t->qp, 0, sizeof(t->qp));
	memset(t->ah, 0, sizeof(t->ah));
}

/*
 * The child of a fork with every object alive: a few random touches that
 * never destroy (a destroy through the shared file could hand the
 * parent's handle to a new object and make the parent's libibverbs wait
 * for events that never come), then exit.  alarm bounds a child stuck on
 * a lock another parent thread held at fork time.
 */
static void child(struct th *t)
{
	int i, n = 1 + rn(t, 30);

	alarm(5);
	trace = false;
	for (i = 0; i < n; i++) {
		switch (rn(t, 9)) {
		case 0: op_post_send(t); break;
		case 1: op_post_recv(t); break;
		case 2: op_poll_cq(t); break;
		case 3: op_modify_qp(t); break;
		case 4: op_req_notify(t); break;
		case 5: if (opt_scribble) do_scribble(t); break;
		case 6: op_create_qp(t); break;
		case 7: op_reg_mr(t); break;
		default:
			if (one_in(t, 4)) {
				/* The child's copy of the context only. */
				ibv_close_device(C(t));
				_exit(0);
			}
			op_query(t);
			break;
		}
	}
	_exit(0);
}

static void op_fork(struct th *t)
{
	uint64_t cseed = rnd(t);
	double end;
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		done(t, OP_fork, errno);
		return;
	}
	if (!pid) {
		t->rng = cseed;
		child(t);
	}
	t->forks++;
	end = now() + 10;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			t->children_killed++;
			break;
		}
		usleep(2000);
	}
	done(t, OP_fork, 0);
}

static bool reopen(struct th *t)
{
	t->last_reopen = now();
	if (!uctx_open(&t->own))
		return false;
	t->reopens++;
	t->created[K_CTX]++;
	if (ibv_query_gid(t->own.ctx, 1, gidx, &t->gid))
		memset(&t->gid, 0, sizeof(t->gid));
	return true;
}

/* Close this thread's own context with its objects alive, reopen it. */
static void op_close_ctx(struct th *t)
{
	done(t, OP_close_ctx, eno(uctx_close(&t->own, false)));
	forget_all(t);
	done(t, OP_reopen, reopen(t) ? 0 : ENODEV);
}

/* The raw context: a connected RC pair libibverbs never destroys. */
static void raw_open(struct th *t, struct rawset *r)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.qp_type = IBV_QPT_RC,
	};
	int i;

	r->pd = NULL;
	r->cq = NULL;
	r->qp[0] = r->qp[1] = NULL;
	r->mr = NULL;
	if (!uctx_open(&r->u))
		return;
	t->created[K_CTX]++;
	r->pd = ibv_alloc_pd(r->u.ctx);
	r->cq = ibv_create_cq(r->u.ctx, 64, NULL, NULL, 0);
	if (!r->pd || !r->cq)
		return;
	r->mr = ibv_reg_mr(r->pd, r->arena, ARENA, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ia.send_cq = ia.recv_cq = r->cq;
	for (i = 0; i < 2; i++)
		r->qp[i] = ibv_create_qp(r->pd, &ia);
	if (r->qp[0] && r->qp[1]) {
		connect_qp(t, r->qp[0], r->qp[1]->qp_num);
		connect_qp(t, r->qp[1], r->qp[0]->qp_num);
	}
}

/* Half the time the context all threads share, else this thread's. */
static struct rawset sraw;

static struct rawset *raw_pick(struct th *t)
{
	return one_in(t, 2) && sraw.u.ctx ? &sraw : &t->raw;
}

/* Each legacy command's request struct, for raw commands of the right size. */
static const unsigned short raw_req[NRAW] = {
#define R(c, st) [IB_USER_VERBS_CMD_##c] = sizeof(struct ib_uverbs_##st)
	R(QUERY_DEVICE, query_device), R(QUERY_PORT, query_port),
	R(ALLOC_PD, alloc_pd), R(DEALLOC_PD, dealloc_pd),
	R(CREATE_AH, create_ah), R(DESTROY_AH, destroy_ah),
	R(REG_MR, reg_mr), R(REREG_MR, rereg_mr), R(DEREG_MR, dereg_mr),
	R(ALLOC_MW, alloc_mw), R(DEALLOC_MW, dealloc_mw),
	R(CREATE_CQ, create_cq), R(RESIZE_CQ, resize_cq),
	R(DESTROY_CQ, destroy_cq), R(POLL_CQ, poll_cq),
	R(REQ_NOTIFY_CQ, req_notify_cq), R(CREATE_QP, create_qp),
	R(QUERY_QP, query_qp), R(MODIFY_QP, modify_qp),
	R(DESTROY_QP, destroy_qp), R(POST_SEND, post_send),
	R(POST_RECV, post_recv), R(ATTACH_MCAST, attach_mcast),
	R(DETACH_MCAST, detach_mcast), R(CREATE_SRQ, create_srq),
	R(MODIFY_SRQ, modify_srq), R(QUERY_SRQ, query_srq),
	R(DESTROY_SRQ, destroy_srq), R(POST_SRQ_RECV, post_srq_recv),
	R(OPEN_XRCD, open_xrcd), R(CLOSE_XRCD, close_xrcd),
	R(CREATE_XSRQ, create_xsrq), R(OPEN_QP, open_qp),
#undef R
};

/*
 * One legacy write() command with random words: handles and counts
 * mostly small, the response pointer (the first u64 of most commands)
 * aimed at a buffer of ours, or at nothing.  Commands that create a file (comp
 * channel) are left out: they would leak descriptors.
 */
static void op_raw_cmd(struct th *t, struct rawset *rs)
{
	static uint8_t resp[8192] __attribute__((aligned(64)));
	uint32_t buf[256];
	struct ib_uverbs_cmd_hdr *h = (void *)buf;
	uint32_t *body = buf + 2, cmd;
	int words = 2 + rn(t, 60), fill, i;
	ssize_t r;

	if (!rs->u.ctx)
		return;
	do
		cmd = rn(t, IB_USER_VERBS_CMD_OPEN_QP + 1);
	while (cmd == IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL ||
	       cmd == IB_USER_VERBS_CMD_GET_CONTEXT);
	/*
	 * ib_core refuses nonzero bytes past the command's struct
	 * (EOPNOTSUPP): mostly the struct's size, filled, then for the
	 * commands that take driver data a few more words, zero or not;
	 * else any size, random words up to a random point, zeros after.
	 */
	fill = words;
	if (raw_req[cmd] && !one_in(t, 5)) {
		fill = raw_req[cmd] / 4;
		words = fill + (one_in(t, 3) ? rn(t, 8) : 0);
		if (one_in(t, 2))
			fill = words;
	} else if (!one_in(t, 3)) {
		words = 2 + rn(t, 14);
		fill = rn(t, words + 1);
	}
	memset(body, 0, words * 4);
	for (i = 0; i < fill; i++) {
		switch (rn(t, 4)) {
		case 0: body[i] = rnd(t); break;
		case 1: body[i] = 0; break;
		default: body[i] = rn(t, 16); break;
		}
	}
	if (!one_in(t, 8)) {
		uint64_t p = (uintptr_t)resp;

		memcpy(body, &p, sizeof(p));
	}
	if (cmd == IB_USER_VERBS_CMD_POST_SEND && rs->qp[0] && one_in(t, 2)) {
		/* A plausible post_send on the raw QP: real WRs in the body. */
		struct ib_uverbs_post_send *ps = (void *)body;
		struct ib_uverbs_send_wr *w = ps->send_wr;
		struct ib_uverbs_sge *sg = (void *)(w + 1);

		ps->qp_handle = rs->qp[0]->handle;
		ps->wr_count = rn(t, 3);
		ps->sge_count = rn(t, 3);
		ps->wqe_size = one_in(t, 4) ? rnd(t) : sizeof(*w);
		memset(w, 0, sizeof(*w));
		w->wr_id = rnd(t);
		w->num_sge = rn(t, 3);
		w->opcode = rn(t, 16);
		w->send_flags = rn(t, 32);
		w->wr.rdma.remote_addr = (uintptr_t)rs->arena + rn(t, ARENA);
		w->wr.rdma.rkey = rs->mr && !one_in(t, 4) ? rs->mr->rkey : rnd(t);
		for (i = 0; i < 2; i++) {
			sg[i].addr = (uintptr_t)rs->arena + rn(t, ARENA);
			sg[i].length = rn(t, 8192);
			sg[i].lkey = rs->mr && !one_in(t, 4) ? rs->mr->lkey : rnd(t);
		}
		words = (sizeof(*ps) + sizeof(*w) + 2 * sizeof(*sg)) / 4;
	}
	h->command = cmd;
	h->in_words = one_in(t, 8) ? (int)rn(t, 70) : words + 2;
	h->out_words = one_in(t, 8) ? rn(t, 2048) : 256;
	r = write(rs->u.ctx->cmd_fd, buf, (words + 2) * 4);
	done(t, OP_raw_cmd, r < 0 ? errno : 0);
	if (trace)
		fprintf(stderr, "t%d raw command %u, %d words in, %d out: %s\n",
			t->id, cmd, h->in_words, h->out_words,
			r < 0 ? strerror(errno) : "ok");
	if (r >= 0)
		t->raw_ok[cmd]++;
	else
		t->raw_err[cmd][errno > 0 && errno < NERR ? errno : 0]++;
	/* Our own one, closed with everything in it now and then. */
	if (rs == &t->raw && ++rs->ops % 500 == 0) {
		uctx_close(&rs->u, false);
		raw_open(t, rs);
	}
}

/* Traffic on a raw pair, whose handles op_raw_cmd may have destroyed. */
static void op_raw_post(struct th *t, struct rawset *rs)
{
	struct ibv_sge sg = { .addr = (uintptr_t)rs->arena + rn(t, ARENA / 2),
			      .length = rn(t, 4096),
			      .lkey = rs->mr ? rs->mr->lkey : 0 };
	struct ibv_send_wr w = { .sg_list = &sg, .num_sge = 1,
				 .opcode = rn(t, 2) ? IBV_WR_RDMA_WRITE : IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rw = { .sg_list = &sg, .num_sge = 1 }, *rbad;
	struct ibv_wc wc[8];
	int e;

	if (!rs->qp[0] || !rs->qp[1] || !rs->mr)
		return;
	w.wr.rdma.remote_addr = (uintptr_t)rs->arena + ARENA / 2;
	w.wr.rdma.rkey = rs->mr->rkey;
	ibv_post_recv(rs->qp[1], &rw, &rbad);
	e = eno(ibv_post_send(rs->qp[0], &w, &bad));
	ibv_poll_cq(rs->cq, 8, wc);
	done(t, OP_raw_post, e);
}

/* ---- the threads ------------------------------------------------------ */

struct wop {
	enum op op;
	int weight;
	void (*fn)(struct th *t);
};

static const struct wop wops[] = {
	{ OP_alloc_pd, 3, op_alloc_pd },	{ OP_dealloc_pd, 2, op_dealloc_pd },
	{ OP_reg_mr, 6, op_reg_mr },		{ OP_rereg_mr, 2, op_rereg_mr },
	{ OP_dereg_mr, 4, op_dereg_mr },	{ OP_alloc_mw, 3, op_alloc_mw },
	{ OP_dealloc_mw, 2, op_dealloc_mw },	{ OP_bind_mw, 3, op_bind_mw },
	{ OP_create_cq, 4, op_create_cq },	{ OP_resize_cq, 3, op_resize_cq },
	{ OP_destroy_cq, 2, op_destroy_cq },	{ OP_create_srq, 3, op_create_srq },
	{ OP_modify_srq, 3, op_modify_srq },	{ OP_query_srq, 1, op_query_srq },
	{ OP_destroy_srq, 2, op_destroy_srq },	{ OP_create_qp, 6, op_create_qp },
	{ OP_modify_qp, 10, op_modify_qp },	{ OP_connect_qp, 8, op_connect_qp },
	{ OP_query_qp, 2, op_query_qp },	{ OP_destroy_qp, 4, op_destroy_qp },
	{ OP_create_ah, 3, op_create_ah },	{ OP_destroy_ah, 2, op_destroy_ah },
	{ OP_post_send, 24, op_post_send },	{ OP_post_recv, 12, op_post_recv },
	{ OP_post_srq_recv, 6, op_post_srq_recv }, { OP_poll_cq, 14, op_poll_cq },
	{ OP_req_notify, 4, op_req_notify },	{ OP_wait_cq, 3, op_wait_cq },
	{ OP_query, 2, op_query },
};

static void teardown(struct th *t)
{
	int i;

	/* Whatever fails (a device gone) the context's close reaps. */
	for (i = 0; i < NQP; i++)
		if (t->qp[i])
			done(t, OP_destroy_qp, eno(ibv_destroy_qp(t->qp[i])));
	for (i = 0; i < NAH; i++)
		if (t->ah[i])
			done(t, OP_destroy_ah, eno(ibv_destroy_ah(t->ah[i])));
	for (i = 0; i < NMW; i++)
		if (t->mw[i])
			done(t, OP_dealloc_mw, eno(ibv_dealloc_mw(t->mw[i])));
	for (i = 0; i < NSRQ; i++)
		if (t->srq[i])
			done(t, OP_destroy_srq, eno(ibv_destroy_srq(t->srq[i])));
	for (i = 0; i < NCQ; i++)
		if (t->cq[i])
			done(t, OP_destroy_cq, eno(ibv_destroy_cq(t->cq[i])));
	for (i = 0; i < NMR; i++)
		if (t->mr[i])
			done(t, OP_dereg_mr, eno(ibv_dereg_mr(t->mr[i])));
	for (i = 0; i < NPD; i++)
		if (t->pd[i])
			done(t, OP_dealloc_pd, eno(ibv_dealloc_pd(t->pd[i])));
	forget_all(t);
}

static void *thread_main(void *arg)
{
	struct th *t = arg;
	int total = 0, i, r;
	unsigned long n;

	t->tid = gettid();
	for (i = 0; i < (int)(sizeof(wops) / sizeof(wops[0])); i++)
		total += wops[i].weight;
	if (opt_close_mid) {
		t->u = &t->own;
		reopen(t);
	} else {
		t->u = &shared;
		if (ibv_query_gid(shared.ctx, 1, gidx, &t->gid))
			memset(&t->gid, 0, sizeof(t->gid));
	}
	if (opt_raw) {
		t->raw.arena = t->arena;
		raw_open(t, &t->raw);
	}
	for (n = 0; n < max_ops && !stopping; n++) {
		if (t->op_start && now() - t->op_start > t->slowest[t->cur_op])
			t->slowest[t->cur_op] = now() - t->op_start;
		t->cur_idx = n;
		t->cur_op = OP_query;
		t->op_start = now();
		if (t->op_start - t_start > secs)
			break;
		if (!C(t)) {
			/* Our context went with the device: reopen by name. */
			t->cur_op = OP_reopen;
			if (t->op_start - t->last_reopen > 0.1)
				done(t, OP_reopen, reopen(t) ? 0 : ENODEV);
			else
				usleep(10000);
			continue;
		}
		/* A device that went away: every call fails; start over. */
		if (opt_close_mid && t->fails_in_row > 200) {
			t->fails_in_row = 0;
			op_close_ctx(t);
			continue;
		}
		if (opt_scribble && one_in(t, 12)) {
			t->cur_op = OP_scribble;
			done(t, OP_scribble, do_scribble(t));
			continue;
		}
		if (opt_fork && one_in(t, 400)) {
			t->cur_op = OP_fork;
			op_fork(t);
			continue;
		}
		if (opt_close_mid && one_in(t, 600)) {
			t->cur_op = OP_close_ctx;
			op_close_ctx(t);
			continue;
		}
		if (opt_raw && one_in(t, 6)) {
			t->cur_op = OP_raw_cmd;
			if (one_in(t, 3))
				op_raw_post(t, raw_pick(t));
			else
				op_raw_cmd(t, raw_pick(t));
			continue;
		}
		r = rn(t, total);
		for (i = 0; r >= wops[i].weight; i++)
			r -= wops[i].weight;
		t->cur_op = wops[i].op;
		wops[i].fn(t);
	}
	t->op_start = now();
	t->cur_op = OP_destroy_qp;
	if (C(t))
		teardown(t);
	if (opt_close_mid)
		uctx_close(&t->own, true);
	if (opt_raw)
		uctx_close(&t->raw.u, false);
	t->op_start = 0;
	return NULL;
}

static void dump_stacks(void)
{
	char path[300], line[256];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	FILE *f;

	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		printf("vfuzz: task %s kernel stack:\n", d->d_name);
		snprintf(path, sizeof(path), "/proc/self/task/%s/stack", d->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			printf("vfuzz:   %s", line);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
}

/* Fail the run if a call does not come back. */
static void *watchdog(void *arg)
{
	unsigned int i;
	double s;

	(void)arg;
	for (;;) {
		sleep(1);
		for (i = 0; i < nthreads; i++) {
			s = ths[i].op_start;
			if (!s || now() - s < hang_secs)
				continue;
			printf("vfuzz: HANG: thread %u (seed %" PRIu64 "), call #%lu (%s) "
			       "still running after %.0f s\n", i, ths[i].seed,
			       ths[i].cur_idx, op_name[ths[i].cur_op], now() - s);
			dump_stacks();
			fflush(stdout);
			_exit(3);
		}
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: vfuzz -d DEV -g GID_INDEX [--seed N] [--ops N] "
		"[--threads T] [--secs S] [--fork] [--close-mid] [--raw] "
		"[--no-scribble] [--hang-secs S] [--trace]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", 1, NULL, 'd' }, { "gid-index", 1, NULL, 'g' },
		{ "seed", 1, NULL, 'S' }, { "ops", 1, NULL, 'n' },
		{ "threads", 1, NULL, 't' }, { "secs", 1, NULL, 's' },
		{ "fork", 0, NULL, 'f' }, { "close-mid", 0, NULL, 'c' },
		{ "raw", 0, NULL, 'r' }, { "no-scribble", 0, NULL, 'N' },
		{ "hang-secs", 1, NULL, 'H' }, { "trace", 0, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long calls = 0, ok = 0, fails = 0, best = 0, created[NKINDS] = { 0 };
	unsigned long forks = 0, killed = 0, reopens = 0;
	struct sigaction sa = { .sa_sigaction = segv, .sa_flags = SA_SIGINFO | SA_NODEFER };
	pthread_t tids[MAX_THREADS], wd;
	unsigned int i, k;
	int c, o;

	while ((c = getopt_long(argc, argv, "d:g:", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'n': max_ops = strtoul(optarg, NULL, 0); break;
		case 't': nthreads = strtoul(optarg, NULL, 0); break;
		case 's': secs = strtod(optarg, NULL); break;
		case 'f': opt_fork = true; break;
		case 'c': opt_close_mid = true; break;
		case 'r': opt_raw = true; break;
		case 'N': opt_scribble = false; break;
		case 'H': hang_secs = strtod(optarg, NULL); break;
		case 'T': trace = true; break;
		default: usage();
		}
	}
	if (!dev || !nthreads || nthreads > MAX_THREADS)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!uctx_open(&shared)) {
		printf("vfuzz: cannot open %s\n", dev);
		return 2;
	}
	if (ibv_query_device(shared.ctx, &dattr)) {
		printf("vfuzz: query_device failed\n");
		return 2;
	}
	printf("vfuzz: seed %" PRIu64 ", %u thread(s), at most %lu calls each, %.0f s;%s%s%s%s\n",
	       seed, nthreads, max_ops, secs, opt_fork ? " fork" : "",
	       opt_close_mid ? " close-mid" : "", opt_raw ? " raw" : "",
	       opt_scribble ? " scribble" : "");
	printf("vfuzz: rerun: vfuzz -d %s -g %d --seed %" PRIu64 " --ops %lu --threads %u --secs %.0f%s%s%s%s\n",
	       dev, gidx, seed, max_ops, nthreads, secs, opt_fork ? " --fork" : "",
	       opt_close_mid ? " --close-mid" : "", opt_raw ? " --raw" : "",
	       opt_scribble ? "" : " --no-scribble");
	t_start = now();
	for (i = 0; i < nthreads; i++) {
		struct th *t = &ths[i];

		t->id = i;
		t->seed = seed + i;
		t->rng = t->seed * 0x2545f4914f6cdd1dULL + 0x9e3779b97f4a7c15ULL;
		t->arena = aligned_alloc(4096, ARENA);
		if (!t->arena) {
			printf("vfuzz: out of memory\n");
			return 2;
		}
		memset(t->arena, 0, ARENA);
		printf("vfuzz: thread %u seed %" PRIu64 "\n", i, t->seed);
	}
	if (opt_raw) {
		/* Its QPs connected with a PRNG of their own. */
		static struct th boot;

		boot.rng = seed ^ 0x5a5a5a5a5a5a5a5aULL;
		if (ibv_query_gid(shared.ctx, 1, gidx, &boot.gid))
			memset(&boot.gid, 0, sizeof(boot.gid));
		sraw.arena = aligned_alloc(4096, ARENA);
		if (!sraw.arena)
			return 2;
		memset(sraw.arena, 0, ARENA);
		raw_open(&boot, &sraw);
	}
	if (pthread_create(&wd, NULL, watchdog, NULL))
		return 2;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, thread_main, &ths[i]))
			return 2;
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	stopping = true;
	uctx_close(&shared, true);
	if (opt_raw)
		uctx_close(&sraw.u, false);

	for (o = 0; o < NOPS; o++) {
		unsigned long so = 0, sf = 0, ec[NERR] = { 0 };
		double slow = 0;
		int top = 0;

		for (i = 0; i < nthreads; i++) {
			if (ths[i].slowest[o] > slow)
				slow = ths[i].slowest[o];
			so += ths[i].ok[o];
			sf += ths[i].fail[o];
			for (k = 0; k < NERR; k++)
				ec[k] += ths[i].err[o][k];
		}
		for (k = 0; k < NERR; k++)
			if (ec[k] > ec[top])
				top = k;
		if (so + sf)
			printf("vfuzz: op %-14s %8lu ok %8lu failed, slowest %6.3f s%s%s\n",
			       op_name[o], so, sf, slow, sf ? ", mostly " : "",
			       sf ? (top ? strerror(top) : "other") : "");
		ok += so;
		fails += sf;
	}
	for (o = 0; opt_raw && o < NRAW; o++) {
		unsigned long so = 0, sf = 0, ec[NERR] = { 0 };
		int top = 0;

		for (i = 0; i < nthreads; i++) {
			so += ths[i].raw_ok[o];
			for (k = 0; k < NERR; k++) {
				ec[k] += ths[i].raw_err[o][k];
				sf += ths[i].raw_err[o][k];
			}
		}
		for (k = 0; k < NERR; k++)
			if (ec[k] > ec[top])
				top = k;
		if (so + sf)
			printf("vfuzz: raw command %2d %6lu ok %6lu failed%s%s\n", o, so, sf,
			       sf ? ", mostly " : "", sf ? (top ? strerror(top) : "other") : "");
	}
	for (i = 0; i < nthreads; i++) {
		calls += ths[i].calls;
		if (ths[i].best_streak > best)
			best = ths[i].best_streak;
		forks += ths[i].forks;
		killed += ths[i].children_killed;
		reopens += ths[i].reopens;
		for (k = 0; k < NKINDS; k++)
			created[k] += ths[i].created[k];
		printf("vfuzz: thread %u seed %" PRIu64 ": %lu calls, longest run %lu "
		       "successful calls\n", i, ths[i].seed, ths[i].calls,
		       ths[i].best_streak);
	}
	printf("vfuzz: objects created:");
	for (k = 0; k < NKINDS; k++)
		printf(" %s %lu", kind_name[k], created[k]);
	printf("\nvfuzz: %lu forks (%lu children killed), %lu context reopens, "
	       "%lu async events, %lu completion events\n", forks, killed,
	       reopens, events_async, events_comp);
	printf("vfuzz: seed %" PRIu64 ": %lu calls (%lu ok, %lu failed) in %.1f s, "
	       "longest run %lu: ok\n", seed, calls, ok, fails, now() - t_start, best);
	return 0;
}
