// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * integrity: end-to-end data integrity over RC, for any RoCEv2 verbs device.
 *
 *   integrity -s [options]            server (passive side)
 *   integrity -c ADDR [options]       client (drives the operations)
 *
 * Both sides derive the same operation list from the seed the client
 * sends: per operation a QP, a type (WRITE, WRITE_WITH_IMM, READ, SEND,
 * SEND_WITH_IMM, CMP_SWAP, FETCH_ADD, ATOMIC_WRITE, FLUSH), a size from
 * 0 to --max-size, a
 * scatter/gather split and a byte pattern.  Operations are grouped in
 * rounds that fit the per-QP buffers.  Per round, over the TCP control
 * connection:
 *
 *   server: fill targets and guards, post receives      -> "ready"
 *   client: post the round on every QP, check every send completion,
 *           every byte READ and every atomic's old value -> "done"
 *   server: check every receive completion (status, opcode, byte_len,
 *           imm, wr_id, qp_num), every byte written or sent, the guard
 *           bytes around them, and atomics' final values -> "verified"
 *
 * --sge N lets a WR carry up to N SGEs (default 4, at most 32 and the
 * device's max_sge); operations 6 and 7 (a SEND into as many receive
 * SGEs, a WRITE) always use all of them.  --inline N creates the QPs with
 * max_inline_data N and posts operations 8 and 9 (a SEND, a WRITE) of
 * exactly N bytes with IBV_SEND_INLINE, and half the other SENDs and
 * WRITEs of at most N bytes.
 *
 * ATOMIC_WRITE and FLUSH (IBA 1.5, ibv_wr_*()) run when both devices
 * advertise them (device_cap_flags_ex bits 40 and 38); else the client
 * says which it skips and why.  A FLUSH operation is a WRITE and, behind
 * it on the QP, a FLUSH (global visibility) of its range or of the whole
 * MR: both completions, in that order, and every byte are checked.
 *
 * --odp (give it to both sides) registers the areas with
 * IBV_ACCESS_ON_DEMAND and drops their pages (MADV_DONTNEED) before each
 * round fills them: every round's transfers fault the pages in again
 * after an invalidation (Documentation/odp.rst).
 *
 * Perftest does not look at data; this does, byte for byte, on both sides.
 * Exit status: 0 all verified, 1 a check failed, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MAX_QP		16
#define MAX_SGE		32	/* per WR, capped by the device's max_sge */
#define DEFAULT_SGE	4	/* the client's --sge */
#define GUARD		16	/* bytes checked untouched around each target */
#define SLOT_WR		32	/* operations per QP per round (SQ/RQ depth) */
#define ROUND_OPS	64	/* operations per round, all QPs */

enum op_type {
	OP_WRITE, OP_WRITE_IMM, OP_READ, OP_SEND, OP_SEND_IMM,
	OP_CMP_SWAP, OP_FETCH_ADD, OP_ATOMIC_WRITE, OP_FLUSH, OP_NTYPES
};

static const char *const op_name[OP_NTYPES] = {
	"write", "write_imm", "read", "send", "send_imm", "cmp_swap", "fetch_add",
	"atomic_write", "flush",
};

/* ib_uverbs device_cap_flags_ex bits (rdma-core 56.1 has no names). */
#define CAP_FLUSH_GLOBAL	(1ull << 38)
#define CAP_ATOMIC_WRITE	(1ull << 40)
enum { PL_ATOMIC_WRITE = 1, PL_FLUSH = 2 };
/* wr_id of the WRITE a FLUSH operation posts before its FLUSH */
#define WR_FLUSH_WRITE		(1ull << 63)

static bool is_atomic(enum op_type t)
{
	return t == OP_CMP_SWAP || t == OP_FETCH_ADD;
}


struct piece {
	uint64_t off;		/* in the side's area for this QP */
	uint32_t len;
};

struct op {
	enum op_type type;
	unsigned int qp;
	uint32_t size;
	uint64_t pseed;		/* pattern seed */
	/* client side: local gather/scatter pieces (atomics: the 8-byte result) */
	unsigned int nl;
	struct piece l[MAX_SGE];
	uint64_t lspan_off, lspan_len;	/* local range incl. gaps, filled before */
	/* server side: remote target / receive pieces */
	uint64_t roff;		/* WRITE/READ/atomic target in server area */
	unsigned int nr;
	struct piece r[MAX_SGE];	/* SEND: receive scatter list */
	uint32_t rslack;	/* SEND: bytes beyond the message in the last piece */
	uint64_t rspan_off, rspan_len;
	bool inl;		/* client: post with IBV_SEND_INLINE */
	uint32_t imm;
	uint64_t a_init, a_cmp, a_swap;	/* atomics; ATOMIC_WRITE's value */
};

/* Send WQEs (and completions) an operation takes. */
static unsigned int op_wqes(const struct op *o)
{
	return o->type == OP_FLUSH ? 2 : 1;
}

struct params {		/* client -> server, network order on the wire */
	uint64_t seed;
	uint64_t bytes;
	uint32_t ops;
	uint32_t nqp;
	uint32_t max_size;
	uint32_t nsge;
	uint32_t atomics;
	uint32_t mtu;
	uint32_t inl;		/* max_inline_data, inline operations */
	uint32_t placement;	/* PL_*: both devices can */
};

struct qp_info {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t pad;
	uint64_t addr;
};

struct hello {
	uint8_t gid[16];
	uint32_t mtu;
	uint32_t nsge;
	uint32_t atomics;
	uint32_t placement;	/* PL_* this device advertises */
	uint32_t nqp;
	struct qp_info qp[MAX_QP];
};

struct ctl {
	uint32_t what;		/* CTL_* */
	uint32_t round;
	uint32_t status;	/* 0 ok */
};

enum { CTL_READY = 1, CTL_DONE, CTL_VERIFIED };

static struct {
	bool server;
	const char *peer;
	const char *dev;
	int gid_index;
	int port;
	uint64_t seed;
	uint64_t bytes;
	uint32_t ops;
	uint32_t nqp;
	uint32_t max_size;
	uint32_t sge;
	uint32_t inl;
	int timeout;
	bool verbose;
	bool plan;
	int flush_level;	/* client: IBV_FLUSH_RANGE or _MR only; -1 both */
	const char *no_flush;	/* client: no FLUSH at all, for this reason */
	const char *qpn_file;
	bool odp;		/* on-demand paging MRs, dropped every round */
} opt = {
	.gid_index = -1, .port = 18800, .seed = 1, .bytes = 64ull << 20,
	.ops = 300, .nqp = 4, .max_size = 16u << 20, .sge = DEFAULT_SGE,
	.timeout = 60, .flush_level = -1,
};

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp[MAX_QP];
	struct ibv_mr *mr[MAX_QP];
	uint8_t *area[MAX_QP];
	uint64_t area_len;
	int sock;
	uint32_t nsge;		/* SGEs per WR both sides can take */
	bool atomics;
	uint32_t placement;	/* PL_* both sides advertise */
	struct params p;
	struct hello me, peer;
	uint8_t *tmp;		/* expected pattern of one operation */
} g;

static struct {
	uint64_t ops, rounds, bytes, completions;
	uint64_t per_type[OP_NTYPES];
	uint32_t max_size_seen;
	uint32_t max_sge_seen;	/* in one WR, send or receive */
	uint64_t inline_ops;
} st;

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "integrity[%s]: ", opt.server ? "server" : "client");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(code);
}

#define check_fail(...) die(1, __VA_ARGS__)
#define setup_fail(...) die(2, __VA_ARGS__)

/* splitmix64: a tiny seeded generator both sides compute identically. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *s, uint64_t n)	/* 0 .. n-1 */
{
	return n ? mix(s) % n : 0;
}

static void pattern(uint8_t *dst, uint32_t len, uint64_t seed)
{
	uint64_t s = seed, v;
	uint32_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = mix(&s);
		memcpy(dst + i, &v, 8);
	}
	if (i < len) {
		v = mix(&s);
		memcpy(dst + i, &v, len - i);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- control connection ------------------------------------------------ */

static void xfer(bool send_it, void *buf, size_t len)
{
	uint8_t *p = buf;
	struct pollfd pfd = { .fd = g.sock };
	ssize_t n;

	while (len) {
		pfd.events = send_it ? POLLOUT : POLLIN;
		if (poll(&pfd, 1, opt.timeout * 1000) <= 0)
			check_fail("control connection: peer silent for %d s", opt.timeout);
		n = send_it ? send(g.sock, p, len, MSG_NOSIGNAL) : recv(g.sock, p, len, 0);
		if (n == 0)
			check_fail("control connection closed by peer");
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			check_fail("control connection: %s", strerror(errno));
		}
		p += n;
		len -= n;
	}
}

static void ctl_send(uint32_t what, uint32_t round, uint32_t status)
{
	struct ctl c = { htonl(what), htonl(round), htonl(status) };

	xfer(true, &c, sizeof(c));
}

static uint32_t ctl_wait(uint32_t what, uint32_t round)
{
	struct ctl c;

	xfer(false, &c, sizeof(c));
	if (ntohl(c.what) != what || ntohl(c.round) != round)
		check_fail("control: expected message %u round %u, got %u round %u",
			   what, round, ntohl(c.what), ntohl(c.round));
	return ntohl(c.status);
}

static void connect_ctl(void)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char port[16];
	int one = 1, fd, ret;
	double deadline = now() + opt.timeout;

	snprintf(port, sizeof(port), "%d", opt.port);
	if (opt.server) {
		hints.ai_flags = AI_PASSIVE;
		hints.ai_family = AF_INET6;
		ret = getaddrinfo(NULL, port, &hints, &res);
		if (ret)
			setup_fail("getaddrinfo: %s", gai_strerror(ret));
		fd = socket(res->ai_family, SOCK_STREAM, 0);
		if (fd < 0)
			setup_fail("socket: %s", strerror(errno));
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1))
			setup_fail("bind/listen on port %d: %s", opt.port, strerror(errno));
		freeaddrinfo(res);
		printf("integrity: server listening on port %d\n", opt.port);
		fflush(stdout);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, opt.timeout * 1000) <= 0)
			check_fail("no client within %d s", opt.timeout);
		g.sock = accept(fd, NULL, NULL);
		if (g.sock < 0)
			setup_fail("accept: %s", strerror(errno));
		close(fd);
	} else {
		ret = getaddrinfo(opt.peer, port, &hints, &res);
		if (ret)
			setup_fail("getaddrinfo %s: %s", opt.peer, gai_strerror(ret));
		/* The server may still be starting: retry until the timeout. */
		for (;;) {
			for (ai = res; ai; ai = ai->ai_next) {
				fd = socket(ai->ai_family, SOCK_STREAM, 0);
				if (fd < 0)
					continue;
				if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
					break;
				close(fd);
			}
			if (ai)
				break;
			if (now() > deadline)
				check_fail("cannot connect to %s port %d", opt.peer, opt.port);
			usleep(200000);
		}
		freeaddrinfo(res);
		g.sock = fd;
	}
	setsockopt(g.sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---- the operation list ------------------------------------------------- */

/* Allocation in one QP's area on one side: a bump pointer, reset per round. */
struct bump {
	uint64_t next;
};

static bool take(struct bump *b, uint64_t *s, uint64_t len, uint64_t align,
		 uint64_t *off)
{
	uint64_t o = b->next + GUARD + rnd(s, 64);

	o = (o + align - 1) & ~(align - 1);
	if (o + len + GUARD > g.area_len)
		return false;
	*off = o;
	b->next = o + len + GUARD;
	return true;
}

static uint32_t pick_size(uint64_t *s, uint64_t k)
{
	uint32_t mtu = g.p.mtu, max = g.p.max_size, r;

	/* The first operations pin down the edges: empty, one byte, around
	 * one MTU, and the largest size. */
	switch (k) {
	case 0: return 0;
	case 1: return max < 1 ? max : 1;
	case 2: return mtu - 1 < max ? mtu - 1 : max;
	case 3: return mtu < max ? mtu : max;
	case 4: return mtu + 1 < max ? mtu + 1 : max;
	case 5: return max;
	case 6: /* fallthrough */
	case 7: return 3 * mtu + 5 < max ? 3 * mtu + 5 : max;
	case 8: /* fallthrough */
	case 9: if (g.p.inl) return g.p.inl < max ? g.p.inl : max;
	}
	r = rnd(s, 100);
	if (r < 8)
		return 0;
	if (r < 30)
		return 1 + rnd(s, 256 < max ? 256 : max);
	if (r < 60)
		r = mtu * 4;
	else if (r < 95)
		r = 1u << 20;
	else
		r = max;
	if (r > max)
		r = max;
	/* log-uniform below r */
	{
		uint32_t bits = 1 + rnd(s, 32 - __builtin_clz(r ? r : 1));
		uint64_t lim = bits >= 32 ? r : ((1ull << bits) < r ? (1ull << bits) : r);

		return 1 + rnd(s, lim);
	}
}

/* Split len bytes into n non-empty pieces, each at a fresh spot of @b. */
static bool place(struct bump *b, uint64_t *s, uint32_t len, unsigned int n,
		  struct piece *pc, uint64_t *span_off, uint64_t *span_len)
{
	uint32_t left = len, cut;
	uint64_t first = b->next;
	unsigned int i;

	for (i = 0; i < n; i++) {
		cut = i == n - 1 ? left : 1 + rnd(s, left - (n - 1 - i));
		pc[i].len = cut;
		if (!take(b, s, cut, 1, &pc[i].off))
			return false;
		left -= cut;
	}
	*span_off = first;
	*span_len = b->next - first;
	return true;
}

/*
 * Generate the next round: returns the number of operations in it (0 when
 * the list is exhausted).  Both sides call this with the same state.
 */
static uint64_t gen_seed, gen_k, gen_bytes;

static unsigned int gen_round(struct op *ops)
{
	struct bump lb[MAX_QP] = { 0 }, rb[MAX_QP] = { 0 };
	unsigned int n = 0, perqp[MAX_QP] = { 0 };

	while (n < ROUND_OPS && gen_k < g.p.ops && gen_bytes < g.p.bytes) {
		uint64_t s = gen_seed ^ (gen_k * 0x2545f4914f6cdd1dull);
		struct op *o = &ops[n];
		struct bump sl, sr;
		uint32_t ntypes = g.p.atomics ? OP_ATOMIC_WRITE : OP_CMP_SWAP;
		bool ok;

		mix(&s);
		memset(o, 0, sizeof(*o));
		o->qp = rnd(&s, g.p.nqp);
		if (gen_k < 6) {
			o->type = (enum op_type)(gen_k % 5);
		} else if (!g.p.placement) {
			o->type = rnd(&s, ntypes);
		} else {
			/* ntypes, then ATOMIC_WRITE and FLUSH as available */
			o->type = rnd(&s, ntypes + 2);
			if (o->type >= ntypes)
				o->type = o->type == ntypes ? OP_ATOMIC_WRITE : OP_FLUSH;
			if (o->type == OP_ATOMIC_WRITE &&
			    !(g.p.placement & PL_ATOMIC_WRITE))
				o->type = OP_FLUSH;
			if (o->type == OP_FLUSH && !(g.p.placement & PL_FLUSH))
				o->type = OP_ATOMIC_WRITE;
		}
		if (gen_k == 5)
			o->type = OP_WRITE;	/* the largest one */
		/* every SGE on both sides; then inline, at the limit */
		if (gen_k == 6 || (gen_k == 8 && g.p.inl))
			o->type = OP_SEND;
		if (gen_k == 7 || (gen_k == 9 && g.p.inl))
			o->type = OP_WRITE;
		o->size = pick_size(&s, gen_k);
		if (gen_bytes + o->size > g.p.bytes)
			o->size = g.p.bytes - gen_bytes;
		if (is_atomic(o->type) || o->type == OP_ATOMIC_WRITE)
			o->size = 8;
		o->pseed = mix(&s);
		o->imm = (uint32_t)mix(&s);
		if (perqp[o->qp] + op_wqes(o) > SLOT_WR)
			break;
		sl = lb[o->qp];
		sr = rb[o->qp];
		switch (o->type) {
		case OP_CMP_SWAP:
		case OP_FETCH_ADD:
			o->nl = 1;
			o->l[0].len = 8;
			o->lspan_off = sl.next;
			ok = take(&sl, &s, 8, 8, &o->l[0].off) &&
			     take(&sr, &s, 8, 8, &o->roff);
			o->lspan_len = sl.next - o->lspan_off;
			o->a_init = mix(&s);
			/* half of the compares match */
			o->a_cmp = rnd(&s, 2) ? o->a_init : mix(&s);
			o->a_swap = mix(&s);
			break;
		case OP_ATOMIC_WRITE:
			/* no local data: the value is in the WR */
			ok = take(&sr, &s, 8, 8, &o->roff);
			o->a_init = mix(&s);
			o->a_swap = mix(&s);
			break;
		case OP_SEND:
		case OP_SEND_IMM:
			o->nl = o->size ? 1 + rnd(&s, g.p.nsge) : 0;
			if (gen_k == 6 || gen_k == 8)
				o->nl = g.p.nsge;
			if (o->nl > o->size)
				o->nl = o->size;
			ok = place(&sl, &s, o->size, o->nl, o->l, &o->lspan_off,
				   &o->lspan_len);
			/* The receive buffer may be larger than the message. */
			o->rslack = rnd(&s, 3) ? 0 : rnd(&s, 64);
			o->nr = o->size + o->rslack ? 1 + rnd(&s, g.p.nsge) : 0;
			if (gen_k == 6)
				o->nr = g.p.nsge;
			if (o->nr > o->size + o->rslack)
				o->nr = o->size + o->rslack;
			ok = ok && place(&sr, &s, o->size + o->rslack, o->nr, o->r,
					 &o->rspan_off, &o->rspan_len);
			break;
		default:	/* WRITE, WRITE_IMM, READ, FLUSH (a WRITE first) */
			o->nl = o->size ? 1 + rnd(&s, g.p.nsge) : 0;
			if (gen_k == 7 || gen_k == 9)
				o->nl = g.p.nsge;
			if (o->nl > o->size)
				o->nl = o->size;
			ok = place(&sl, &s, o->size, o->nl, o->l, &o->lspan_off,
				   &o->lspan_len) &&
			     take(&sr, &s, o->size, 1, &o->roff);
			break;
		}
		/* Last, so that without --inline the stream is as before. */
		if (g.p.inl && o->size && o->size <= g.p.inl &&
		    (o->type == OP_SEND || o->type == OP_SEND_IMM ||
		     o->type == OP_WRITE || o->type == OP_WRITE_IMM))
			o->inl = gen_k == 8 || gen_k == 9 || rnd(&s, 2);
		if (!ok) {
			if (!n)	/* cannot happen: areas hold --max-size */
				setup_fail("operation %" PRIu64 " does not fit an empty area",
					   gen_k);
			break;
		}
		lb[o->qp] = sl;
		rb[o->qp] = sr;
		perqp[o->qp] += op_wqes(o);
		gen_bytes += o->size;
		gen_k++;
		n++;
	}
	return n;
}

/* ---- verbs setup -------------------------------------------------------- */

static void open_dev(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	uint32_t want;
	int i;

	if (!list)
		setup_fail("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; list[i]; i++)
		if (!opt.dev || !strcmp(opt.dev, ibv_get_device_name(list[i])))
			break;
	if (!list[i])
		setup_fail("device %s not found", opt.dev ? opt.dev : "(any)");
	g.ctx = ibv_open_device(list[i]);
	if (!g.ctx)
		setup_fail("ibv_open_device: %s", strerror(errno));
	ibv_free_device_list(list);
	if (ibv_query_device(g.ctx, &da) || ibv_query_port(g.ctx, 1, &pa))
		setup_fail("ibv_query_device/port: %s", strerror(errno));
	if (ibv_query_gid(g.ctx, 1, opt.gid_index, &gid))
		setup_fail("ibv_query_gid %d: %s", opt.gid_index, strerror(errno));
	memcpy(g.me.gid, gid.raw, 16);
	g.me.mtu = htonl(pa.active_mtu);
	/* The server takes what the client asks for (--sge). */
	want = opt.server ? MAX_SGE : opt.sge;
	g.me.nsge = htonl((uint32_t)da.max_sge < want ? (uint32_t)da.max_sge : want);
	g.me.atomics = htonl(da.atomic_cap != IBV_ATOMIC_NONE);
	{
		struct ibv_device_attr_ex dx;

		if (ibv_query_device_ex(g.ctx, NULL, &dx))
			memset(&dx, 0, sizeof(dx));
		g.me.placement = htonl(
			(dx.device_cap_flags_ex & CAP_ATOMIC_WRITE ? PL_ATOMIC_WRITE : 0) |
			(dx.device_cap_flags_ex & CAP_FLUSH_GLOBAL ? PL_FLUSH : 0));
	}
	if (opt.verbose)
		printf("integrity: %s max_sge %d atomic_cap %d active_mtu %d\n",
		       ibv_get_device_name(g.ctx->device), da.max_sge,
		       da.atomic_cap, pa.active_mtu);
}

static int mtu_bytes(uint32_t m)
{
	return 128 << m;	/* IBV_MTU_256 == 1 */
}

static void create_objects(void)
{
	int access = IBV_ACCESS_LOCAL_WRITE;
	unsigned int i;

	g.pd = ibv_alloc_pd(g.ctx);
	if (!g.pd)
		setup_fail("ibv_alloc_pd: %s", strerror(errno));
	g.scq = ibv_create_cq(g.ctx, 4 * ROUND_OPS, NULL, NULL, 0);
	g.rcq = ibv_create_cq(g.ctx, 4 * ROUND_OPS, NULL, NULL, 0);
	if (!g.scq || !g.rcq)
		setup_fail("ibv_create_cq: %s", strerror(errno));
	if (opt.server)
		access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  (g.atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0) |
			  (g.placement & PL_FLUSH ? IBV_ACCESS_FLUSH_GLOBAL : 0);
	/* Room for the largest operation with its gaps and guards. */
	g.area_len = g.p.max_size + g.p.max_size / 8 + 64 * 1024;
	for (i = 0; i < g.p.nqp; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = g.scq, .recv_cq = g.rcq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = SLOT_WR, .max_recv_wr = SLOT_WR,
				 .max_send_sge = g.nsge, .max_recv_sge = g.nsge,
				 .max_inline_data = g.p.inl },
			.sq_sig_all = 1,
		};
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT, .port_num = 1, .pkey_index = 0,
			.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ |
				(g.atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0) |
				/* rdma_rxe wants the QP to allow flushes too */
				(g.placement & PL_FLUSH ? IBV_ACCESS_FLUSH_GLOBAL : 0),
		};
		struct ibv_qp_init_attr_ex ix = {
			.send_cq = ia.send_cq, .recv_cq = ia.recv_cq,
			.qp_type = IBV_QPT_RC, .cap = ia.cap,
			.sq_sig_all = 1, .pd = g.pd,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.send_ops_flags =
				(g.placement & PL_ATOMIC_WRITE ?
				 IBV_QP_EX_WITH_ATOMIC_WRITE : 0) |
				(g.placement & PL_FLUSH ? IBV_QP_EX_WITH_FLUSH : 0),
		};

		g.area[i] = aligned_alloc(4096, (g.area_len + 4095) & ~4095ull);
		if (!g.area[i])
			setup_fail("out of memory for %" PRIu64 " bytes", g.area_len);
		memset(g.area[i], 0, g.area_len);
		g.mr[i] = ibv_reg_mr(g.pd, g.area[i], g.area_len, access |
				     (opt.odp ? IBV_ACCESS_ON_DEMAND : 0));
		if (!g.mr[i])
			setup_fail("ibv_reg_mr %" PRIu64 " bytes: %s", g.area_len,
				   strerror(errno));
		/* ibv_wr_*() is the only way to post ATOMIC_WRITE and FLUSH. */
		g.qp[i] = g.placement ? ibv_create_qp_ex(g.ctx, &ix) :
			  ibv_create_qp(g.pd, &ia);
		if (!g.qp[i])
			setup_fail("ibv_create_qp: %s", strerror(errno));
		if (ibv_modify_qp(g.qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			setup_fail("modify QP to INIT: %s", strerror(errno));
		g.me.qp[i].qpn = htonl(g.qp[i]->qp_num);
		g.me.qp[i].psn = htonl(mix(&(uint64_t){ opt.seed + i + 77 * opt.server }) & 0xffffff);
		g.me.qp[i].rkey = htonl(g.mr[i]->rkey);
		g.me.qp[i].addr = htobe64((uintptr_t)g.area[i]);
	}
	g.tmp = malloc(g.p.max_size + 64);
	if (!g.tmp)
		setup_fail("out of memory");
}

static void connect_qps(void)
{
	struct ibv_device_attr da;
	unsigned int i;
	int mtu = ntohl(g.me.mtu) < ntohl(g.peer.mtu) ? ntohl(g.me.mtu) : ntohl(g.peer.mtu);

	if (ibv_query_device(g.ctx, &da))
		setup_fail("ibv_query_device: %s", strerror(errno));
	for (i = 0; i < g.p.nqp; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = mtu,
			.dest_qp_num = ntohl(g.peer.qp[i].qpn),
			.rq_psn = ntohl(g.peer.qp[i].psn),
			.max_dest_rd_atomic = da.max_qp_rd_atom < 16 ? da.max_qp_rd_atom : 16,
			.min_rnr_timer = 12,
			.ah_attr = {
				.is_global = 1, .port_num = 1,
				.grh = { .hop_limit = 64, .sgid_index = opt.gid_index },
			},
		};

		memcpy(a.ah_attr.grh.dgid.raw, g.peer.gid, 16);
		if (ibv_modify_qp(g.qp[i], &a, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
			setup_fail("modify QP %u to RTR: %s", i, strerror(errno));
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = ntohl(g.me.qp[i].psn);
		/* make check-debug's slower guests: scripts/check-debug.sh */
		a.timeout = getenv("SROCE_QP_TIMEOUT") ?
			    atoi(getenv("SROCE_QP_TIMEOUT")) : 14;
		if (a.timeout < 1 || a.timeout > 31)
			setup_fail("SROCE_QP_TIMEOUT: 1..31");
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = da.max_qp_init_rd_atom < 16 ? da.max_qp_init_rd_atom : 16;
		if (ibv_modify_qp(g.qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
			setup_fail("modify QP %u to RTS: %s", i, strerror(errno));
	}
}

/*
 * --qpn-file: our QP numbers, comma-separated, written whole (a temporary
 * file renamed) once the QPs are connected; a test that must keep other
 * traffic off them reads it instead of polling "rdma resource show".
 */
static void write_qpns(const char *path)
{
	char tmp[4096];
	unsigned int i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		setup_fail("%s: %s", tmp, strerror(errno));
	for (i = 0; i < g.p.nqp; i++)
		fprintf(f, "%s%u", i ? "," : "", g.qp[i]->qp_num);
	fprintf(f, "\n");
	if (fclose(f) || rename(tmp, path))
		setup_fail("%s: %s", path, strerror(errno));
}

static void handshake(void)
{
	struct params p;

	if (!opt.server) {
		g.p = (struct params){ opt.seed, opt.bytes, opt.ops, opt.nqp,
				       opt.max_size, 0, 0, 0, opt.inl, 0 };
		p = (struct params){ htobe64(opt.seed), htobe64(opt.bytes),
				     htonl(opt.ops), htonl(opt.nqp), htonl(opt.max_size),
				     .inl = htonl(opt.inl) };
		xfer(true, &p, sizeof(p));
	} else {
		xfer(false, &p, sizeof(p));
		g.p = (struct params){ be64toh(p.seed), be64toh(p.bytes),
				       ntohl(p.ops), ntohl(p.nqp), ntohl(p.max_size),
				       .inl = ntohl(p.inl) };
		if (!g.p.nqp || g.p.nqp > MAX_QP || g.p.max_size > (1u << 30))
			setup_fail("bad parameters from the client");
	}
	/* --no-flush: as if this device could not, so both sides agree. */
	if (opt.no_flush)
		g.me.placement &= htonl(~(uint32_t)PL_FLUSH);
	/* Capabilities first, so both sides size their QPs the same way. */
	xfer(true, &g.me, offsetof(struct hello, qp));
	xfer(false, &g.peer, offsetof(struct hello, qp));
	g.nsge = ntohl(g.me.nsge) < ntohl(g.peer.nsge) ? ntohl(g.me.nsge) : ntohl(g.peer.nsge);
	if (!g.nsge)
		setup_fail("device reports max_sge 0");
	g.atomics = ntohl(g.me.atomics) && ntohl(g.peer.atomics);
	g.placement = ntohl(g.me.placement) & ntohl(g.peer.placement);
	if (opt.no_flush) {
		char why[256];
		size_t i;

		/* '+' for a space: the reason passes through shell evals */
		snprintf(why, sizeof(why), "%s", opt.no_flush);
		for (i = 0; why[i]; i++)
			if (why[i] == '+')
				why[i] = ' ';
		printf("integrity: skipping FLUSH: %s\n", why);
	}
	g.p.nsge = g.nsge;
	g.p.atomics = g.atomics;
	g.p.placement = g.placement;
	g.p.mtu = mtu_bytes(ntohl(g.me.mtu) < ntohl(g.peer.mtu) ? ntohl(g.me.mtu) : ntohl(g.peer.mtu));
	create_objects();
	g.me.nqp = htonl(g.p.nqp);
	xfer(true, &g.me, sizeof(g.me));
	xfer(false, &g.peer, sizeof(g.peer));
	connect_qps();
	if (opt.qpn_file)
		write_qpns(opt.qpn_file);
	if (!g.atomics)
		printf("integrity: the device has no atomics (atomic_cap NONE): skipping them\n");
	if (!opt.server && !(g.placement & PL_ATOMIC_WRITE))
		printf("integrity: skipping ATOMIC_WRITE: the %s device does not advertise it\n",
		       ntohl(g.me.placement) & PL_ATOMIC_WRITE ? "server's" : "client's");
	if (!opt.server && !(g.placement & PL_FLUSH) && !opt.no_flush)
		printf("integrity: skipping FLUSH: the %s device does not advertise it "
		       "(FLUSH_GLOBAL: an MR with the flush right needs Linux 6.2)\n",
		       ntohl(g.me.placement) & PL_FLUSH ? "server's" : "client's");
}

/* ---- one round ---------------------------------------------------------- */

static void count_op(const struct op *o)
{
	st.per_type[o->type]++;
	if (o->size > st.max_size_seen)
		st.max_size_seen = o->size;
	if (o->nl > st.max_sge_seen)
		st.max_sge_seen = o->nl;
	if (o->nr > st.max_sge_seen)
		st.max_sge_seen = o->nr;
	st.inline_ops += o->inl;
}

static uint8_t round_fill(uint32_t r)
{
	return (uint8_t)(0x5a + r * 37) | 1;
}

static void fill_pieces(uint8_t *area, const struct op *o, const struct piece *pc,
			unsigned int n)
{
	uint32_t at = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t len = pc[i].len;

		if (at + len > o->size)
			len = o->size - at;
		memcpy(area + pc[i].off, g.tmp + at, len);
		at += len;
	}
}

/* The pieces hold the op's pattern, in order; bytes after it keep @fill. */
static void check_pieces(uint8_t *area, const struct op *o, const struct piece *pc,
			 unsigned int n, uint8_t fill, const char *what, uint64_t k)
{
	uint32_t at = 0, i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < pc[i].len; j++, at++) {
			uint8_t want = at < o->size ? g.tmp[at] : fill;
			uint8_t got = area[pc[i].off + j];

			if (got != want)
				check_fail("op %" PRIu64 " (%s, qp %u, %u bytes): %s byte %u "
					   "(sge %u +%u) is 0x%02x, expected 0x%02x",
					   k, op_name[o->type], o->qp, o->size, what,
					   at, i, j, got, want);
		}
	}
}

static void check_guard(uint8_t *area, uint64_t off, uint64_t len, uint8_t fill,
			const struct op *o, uint64_t k)
{
	uint64_t i;

	for (i = off - GUARD; i < off; i++)
		if (area[i] != fill)
			check_fail("op %" PRIu64 " (%s, qp %u): byte %" PRId64 " before "
				   "the target changed", k, op_name[o->type], o->qp,
				   (int64_t)(i - off));
	for (i = off + len; i < off + len + GUARD; i++)
		if (area[i] != fill)
			check_fail("op %" PRIu64 " (%s, qp %u, %u bytes): byte +%" PRIu64
				   " after the target changed", k, op_name[o->type],
				   o->qp, o->size, i - off - len);
}

static void missing(const struct ibv_wc *wc, unsigned int got, const struct op *ops,
		    unsigned int n, uint64_t k0)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < got; j++)
			if (wc[j].wr_id == k0 + i)
				break;
		if (j == got)
			fprintf(stderr, "integrity: no completion for op %" PRIu64
				" (%s, qp %u, %u bytes, %u/%u sges)\n", k0 + i,
				op_name[ops[i].type], ops[i].qp, ops[i].size,
				ops[i].nl, ops[i].nr);
	}
}

static void poll_n(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int n,
		   const char *what, uint32_t round, const struct op *ops,
		   unsigned int nops, uint64_t k0)
{
	unsigned int got = 0, idle = 0;
	double deadline = now() + opt.timeout;
	int r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			check_fail("ibv_poll_cq (%s): %d", what, r);
		got += r;
		if (r) {
			idle = 0;
			continue;
		}
		/* Give the CPU away now and then: one vCPU drives both the
		 * application and the device's kernel side. */
		if (++idle > 64) {
			usleep(50);
			if (now() > deadline) {
				missing(wc, got, ops, nops, k0);
				check_fail("round %u: %u of %u %s completions after %d s",
					   round, got, n, what, opt.timeout);
			}
		}
	}
	/* Nothing beyond what was asked for. */
	usleep(1000);
	r = ibv_poll_cq(cq, 1, wc + n);
	if (r)
		check_fail("round %u: unexpected extra %s completion (wr_id %" PRIu64
			   ", status %s)", round, what, wc[n].wr_id,
			   ibv_wc_status_str(wc[n].status));
	st.completions += n;
}

/*
 * --odp: drop every page of the MRs before the round fills them, so the
 * device's copies are invalidated and each round faults them in again.
 */
static void odp_drop(void)
{
	uint32_t i;

	for (i = 0; opt.odp && i < g.p.nqp; i++)
		if (madvise(g.area[i], (g.area_len + 4095) & ~4095ull,
			    MADV_DONTNEED))
			setup_fail("madvise: %s", strerror(errno));
}

static void client_round(struct op *ops, unsigned int n, uint32_t round, uint64_t k0)
{
	static struct ibv_wc wc[2 * ROUND_OPS + 1];
	uint8_t fill = round_fill(round);
	unsigned int i, j, ncomp = 0;

	odp_drop();
	/* Sources hold the pattern, sinks the round's fill byte. */
	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		uint8_t *a = g.area[o->qp];

		/* the span includes the guards around its pieces */
		memset(a + o->lspan_off, fill, o->lspan_len);
		if (o->type == OP_WRITE || o->type == OP_WRITE_IMM ||
		    o->type == OP_SEND || o->type == OP_SEND_IMM ||
		    o->type == OP_FLUSH) {
			pattern(g.tmp, o->size, o->pseed);
			fill_pieces(a, o, o->l, o->nl);
		}
		ncomp += op_wqes(o);
	}
	ctl_wait(CTL_READY, round);

	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		struct ibv_sge sge[MAX_SGE];
		struct ibv_send_wr wr = { .wr_id = k0 + i, .sg_list = sge,
					  .num_sge = o->nl,
					  .send_flags = o->inl ? IBV_SEND_INLINE : 0 },
				   *bad;
		uint64_t raddr = be64toh(g.peer.qp[o->qp].addr) + o->roff;
		uint32_t rkey = ntohl(g.peer.qp[o->qp].rkey);
		int ret;

		for (j = 0; j < o->nl; j++)
			sge[j] = (struct ibv_sge){
				(uintptr_t)g.area[o->qp] + o->l[j].off, o->l[j].len,
				g.mr[o->qp]->lkey };
		switch (o->type) {
		case OP_WRITE_IMM:
			wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			wr.imm_data = htonl(o->imm);
			/* fallthrough */
		case OP_WRITE:
		case OP_FLUSH:
			if (o->type != OP_WRITE_IMM)
				wr.opcode = IBV_WR_RDMA_WRITE;
			if (o->type == OP_FLUSH)
				wr.wr_id |= WR_FLUSH_WRITE;
			/* fallthrough */
		case OP_READ:
			if (o->type == OP_READ)
				wr.opcode = IBV_WR_RDMA_READ;
			wr.wr.rdma.remote_addr = raddr;
			wr.wr.rdma.rkey = rkey;
			break;
		case OP_SEND_IMM:
			wr.opcode = IBV_WR_SEND_WITH_IMM;
			wr.imm_data = htonl(o->imm);
			break;
		case OP_SEND:
			wr.opcode = IBV_WR_SEND;
			break;
		case OP_CMP_SWAP:
		case OP_FETCH_ADD:
			wr.opcode = o->type == OP_CMP_SWAP ? IBV_WR_ATOMIC_CMP_AND_SWP :
							     IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = raddr;
			wr.wr.atomic.rkey = rkey;
			wr.wr.atomic.compare_add = o->type == OP_CMP_SWAP ? o->a_cmp : o->a_swap;
			wr.wr.atomic.swap = o->a_swap;
			break;
		default:
			break;
		}
		ret = o->type == OP_ATOMIC_WRITE ? 0 :
		      ibv_post_send(g.qp[o->qp], &wr, &bad);
		if (!ret && (o->type == OP_ATOMIC_WRITE || o->type == OP_FLUSH)) {
			/* Behind the WRITE on the same QP: FLUSH orders after it. */
			struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(g.qp[o->qp]);

			ibv_wr_start(qx);
			qx->wr_id = k0 + i;
			qx->wr_flags = 0;	/* sq_sig_all */
			if (o->type == OP_ATOMIC_WRITE)
				ibv_wr_atomic_write(qx, rkey, raddr, &o->a_swap);
			else
				ibv_wr_flush(qx, rkey, raddr, o->size, IBV_FLUSH_GLOBAL,
					     opt.flush_level >= 0 ? opt.flush_level :
					     o->imm & 1 ? IBV_FLUSH_MR : IBV_FLUSH_RANGE);
			ret = ibv_wr_complete(qx);
		}
		if (ret)
			check_fail("ibv_post_send op %" PRIu64 " (%s): %s", k0 + i,
				   op_name[o->type], strerror(ret));
	}

	poll_n(g.scq, wc, ncomp, "send", round, ops, n, k0);
	/* Every operation completes once, successfully, with its opcode, on
	 * its QP; a QP's completions come in posting order. */
	{
		static const enum ibv_wc_opcode want[OP_NTYPES] = {
			IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
			IBV_WC_SEND, IBV_WC_SEND, IBV_WC_COMP_SWAP, IBV_WC_FETCH_ADD,
			IBV_WC_ATOMIC_WRITE, IBV_WC_FLUSH,
		};
		uint64_t last[MAX_QP];
		bool seen[ROUND_OPS] = { false }, seen_w[ROUND_OPS] = { false };

		for (j = 0; j < MAX_QP; j++)
			last[j] = UINT64_MAX;
		for (i = 0; i < ncomp; i++) {
			struct ibv_wc *w = &wc[i];
			uint64_t k = w->wr_id & ~WR_FLUSH_WRITE;
			bool fw = w->wr_id & WR_FLUSH_WRITE;
			enum ibv_wc_opcode wop;
			struct op *o;

			if (k < k0 || k >= k0 + n ||
			    (fw ? seen_w[k - k0] : seen[k - k0]) ||
			    (fw && ops[k - k0].type != OP_FLUSH))
				check_fail("round %u: completion with bad or repeated wr_id %"
					   PRIu64 " (status %s)", round, w->wr_id,
					   ibv_wc_status_str(w->status));
			o = &ops[k - k0];
			if (fw)
				seen_w[k - k0] = true;
			else
				seen[k - k0] = true;
			if (w->status != IBV_WC_SUCCESS)
				check_fail("op %" PRIu64 " (%s%s, qp %u, %u bytes): status %s "
					   "(vendor_err 0x%x)", k, op_name[o->type],
					   fw ? "'s write" : "", o->qp, o->size,
					   ibv_wc_status_str(w->status), w->vendor_err);
			wop = fw ? IBV_WC_RDMA_WRITE : want[o->type];
			if (w->opcode != wop)
				check_fail("op %" PRIu64 " (%s): completion opcode %d, expected %d",
					   k, op_name[o->type], w->opcode, wop);
			if (o->type == OP_FLUSH && !fw && !seen_w[k - k0])
				check_fail("op %" PRIu64 " (flush): completed before its write", k);
			if (w->qp_num != g.qp[o->qp]->qp_num)
				check_fail("op %" PRIu64 ": completion on QP 0x%x, posted on 0x%x",
					   k, w->qp_num, g.qp[o->qp]->qp_num);
			if (last[o->qp] != UINT64_MAX && k < last[o->qp])
				check_fail("QP %u: op %" PRIu64 " completed after op %" PRIu64,
					   o->qp, k, last[o->qp]);
			last[o->qp] = k;
		}
	}

	/* READ brought the pattern; atomics returned the old value. */
	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		uint8_t *a = g.area[o->qp];
		uint64_t old;

		if (o->type == OP_READ) {
			pattern(g.tmp, o->size, o->pseed);
			check_pieces(a, o, o->l, o->nl, fill, "read", k0 + i);
			for (j = 0; j < o->nl; j++)
				check_guard(a, o->l[j].off, o->l[j].len, fill, o, k0 + i);
			st.bytes += o->size;
		} else if (is_atomic(o->type)) {
			memcpy(&old, a + o->l[0].off, 8);
			if (old != o->a_init)
				check_fail("op %" PRIu64 " (%s): returned 0x%016" PRIx64
					   ", memory held 0x%016" PRIx64, k0 + i,
					   op_name[o->type], old, o->a_init);
			check_guard(a, o->l[0].off, 8, fill, o, k0 + i);
			st.bytes += 8;
		}
		count_op(o);
	}
	ctl_send(CTL_DONE, round, 0);
	if (ctl_wait(CTL_VERIFIED, round))
		check_fail("round %u: the server found an error (see its output)", round);
}

static void server_round(struct op *ops, unsigned int n, uint32_t round, uint64_t k0)
{
	static struct ibv_wc wc[ROUND_OPS + 1];
	uint8_t fill = round_fill(round);
	unsigned int i, j, nrecv = 0;
	unsigned int order[MAX_QP][SLOT_WR], nq[MAX_QP] = { 0 };

	odp_drop();
	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		uint8_t *a = g.area[o->qp];

		switch (o->type) {
		case OP_WRITE:
		case OP_WRITE_IMM:
		case OP_FLUSH:
			memset(a + o->roff - GUARD, fill, o->size + 2 * GUARD);
			break;
		case OP_READ:
			pattern(a + o->roff, o->size, o->pseed);
			break;
		case OP_SEND:
		case OP_SEND_IMM:
			memset(a + o->rspan_off, fill, o->rspan_len);
			break;
		default:
			memset(a + o->roff - GUARD, fill, 8 + 2 * GUARD);
			memcpy(a + o->roff, &o->a_init, 8);
			break;
		}
		/* One receive per SEND and per WRITE_WITH_IMM, in QP order. */
		if (o->type == OP_SEND || o->type == OP_SEND_IMM || o->type == OP_WRITE_IMM) {
			struct ibv_sge sge[MAX_SGE];
			struct ibv_recv_wr wr = { .wr_id = k0 + i, .sg_list = sge }, *bad;
			int ret;

			if (o->type != OP_WRITE_IMM) {
				wr.num_sge = o->nr;
				for (j = 0; j < o->nr; j++)
					sge[j] = (struct ibv_sge){
						(uintptr_t)a + o->r[j].off, o->r[j].len,
						g.mr[o->qp]->lkey };
			}
			ret = ibv_post_recv(g.qp[o->qp], &wr, &bad);
			if (ret)
				check_fail("ibv_post_recv op %" PRIu64 ": %s", k0 + i,
					   strerror(ret));
			order[o->qp][nq[o->qp]++] = i;
			nrecv++;
		}
	}
	ctl_send(CTL_READY, round, 0);
	ctl_wait(CTL_DONE, round);

	poll_n(g.rcq, wc, nrecv, "receive", round, ops, n, k0);
	{
		unsigned int pos[MAX_QP] = { 0 };

		for (i = 0; i < nrecv; i++) {
			struct ibv_wc *w = &wc[i];
			unsigned int q;
			struct op *o;
			uint64_t k;

			for (q = 0; q < g.p.nqp; q++)
				if (g.qp[q]->qp_num == w->qp_num)
					break;
			if (q == g.p.nqp)
				check_fail("receive completion on unknown QP 0x%x", w->qp_num);
			if (pos[q] >= nq[q])
				check_fail("QP %u: more receive completions than receives", q);
			k = k0 + order[q][pos[q]++];
			o = &ops[k - k0];
			if (w->wr_id != k)
				check_fail("QP %u: receive completion wr_id %" PRIu64
					   ", expected %" PRIu64 " (status %s)", q, w->wr_id, k,
					   ibv_wc_status_str(w->status));
			if (w->status != IBV_WC_SUCCESS)
				check_fail("op %" PRIu64 " (%s, %u bytes): receive status %s "
					   "(vendor_err 0x%x)", k, op_name[o->type], o->size,
					   ibv_wc_status_str(w->status), w->vendor_err);
			if (w->opcode != (o->type == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM :
					  IBV_WC_RECV))
				check_fail("op %" PRIu64 " (%s): receive opcode %d", k,
					   op_name[o->type], w->opcode);
			if (w->byte_len != o->size)
				check_fail("op %" PRIu64 " (%s): byte_len %u, expected %u", k,
					   op_name[o->type], w->byte_len, o->size);
			if (o->type == OP_SEND) {
				if (w->wc_flags & IBV_WC_WITH_IMM)
					check_fail("op %" PRIu64 " (send): IBV_WC_WITH_IMM set", k);
			} else {
				if (!(w->wc_flags & IBV_WC_WITH_IMM))
					check_fail("op %" PRIu64 " (%s): IBV_WC_WITH_IMM not set",
						   k, op_name[o->type]);
				if (w->imm_data != htonl(o->imm))
					check_fail("op %" PRIu64 " (%s): imm 0x%08x, expected 0x%08x",
						   k, op_name[o->type], ntohl(w->imm_data), o->imm);
			}
		}
	}

	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		uint8_t *a = g.area[o->qp];
		struct piece whole = { o->roff, o->size };
		uint64_t v, want;

		switch (o->type) {
		case OP_WRITE:
		case OP_WRITE_IMM:
		case OP_FLUSH:
			pattern(g.tmp, o->size, o->pseed);
			check_pieces(a, o, &whole, 1, fill, "written", k0 + i);
			check_guard(a, o->roff, o->size, fill, o, k0 + i);
			st.bytes += o->size;
			break;
		case OP_SEND:
		case OP_SEND_IMM:
			pattern(g.tmp, o->size, o->pseed);
			check_pieces(a, o, o->r, o->nr, fill, "received", k0 + i);
			for (j = 0; j < o->nr; j++)
				check_guard(a, o->r[j].off, o->r[j].len, fill, o, k0 + i);
			st.bytes += o->size;
			break;
		case OP_READ:
			/* READ must not change its source. */
			pattern(g.tmp, o->size, o->pseed);
			check_pieces(a, o, &whole, 1, fill, "read source", k0 + i);
			break;
		default:
			memcpy(&v, a + o->roff, 8);
			if (o->type == OP_FETCH_ADD)
				want = o->a_init + o->a_swap;
			else if (o->type == OP_ATOMIC_WRITE)
				want = o->a_swap;	/* the bytes, as the client held them */
			else
				want = o->a_init == o->a_cmp ? o->a_swap : o->a_init;
			if (v != want)
				check_fail("op %" PRIu64 " (%s): memory is 0x%016" PRIx64
					   ", expected 0x%016" PRIx64, k0 + i,
					   op_name[o->type], v, want);
			check_guard(a, o->roff, 8, fill, o, k0 + i);
			st.bytes += 8;
			break;
		}
		count_op(o);
	}
	ctl_send(CTL_VERIFIED, round, 0);
}

static void destroy_objects(void)
{
	unsigned int i;

	for (i = 0; i < g.p.nqp; i++) {
		if (ibv_destroy_qp(g.qp[i]))
			setup_fail("ibv_destroy_qp: %s", strerror(errno));
		if (ibv_dereg_mr(g.mr[i]))
			setup_fail("ibv_dereg_mr: %s", strerror(errno));
		free(g.area[i]);
	}
	if (ibv_destroy_cq(g.scq) || ibv_destroy_cq(g.rcq))
		setup_fail("ibv_destroy_cq: %s", strerror(errno));
	if (ibv_dealloc_pd(g.pd))
		setup_fail("ibv_dealloc_pd: %s", strerror(errno));
	if (ibv_close_device(g.ctx))
		setup_fail("ibv_close_device: %s", strerror(errno));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: integrity -s|-c ADDR -g GID_INDEX [-d DEV] [-p PORT] [--seed N]\n"
		"       [--ops N] [--bytes N] [--qps N] [--max-size N] [--timeout S] [-v]\n"
		"       [--sge N] [--inline N]   SGEs per WR (4), max_inline_data (0)\n"
		"       [--qpn-file F]   write our QP numbers to F once connected\n"
		"       [--flush-level range|mr]  client: FLUSHes of that level only\n"
		"       [--no-flush REASON]    client: no FLUSH, saying why ('+' = ' ')\n"
		"       [--odp]                both sides: on-demand paging MRs, their\n"
		"                              pages dropped (MADV_DONTNEED) every round\n"
		"       integrity --plan [--seed N --ops N ...]   print the operations\n"
		"  client options (--seed --ops --bytes --qps --max-size --sge --inline)\n"
		"  rule both sides\n");
	exit(2);
}

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", 1, NULL, 'S' }, { "ops", 1, NULL, 'n' },
		{ "bytes", 1, NULL, 'b' }, { "qps", 1, NULL, 'q' },
		{ "max-size", 1, NULL, 'm' }, { "timeout", 1, NULL, 't' },
		{ "plan", 0, NULL, 'P' }, { "qpn-file", 1, NULL, 'Q' },
		{ "sge", 1, NULL, 'G' }, { "inline", 1, NULL, 'I' },
		{ "flush-level", 1, NULL, 'R' }, { "no-flush", 1, NULL, 'F' },
		{ "odp", 0, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	static struct op ops[ROUND_OPS];
	bool role = false;
	unsigned int n;
	uint32_t round = 0;
	double t0;
	int c, i;

	while ((c = getopt_long(argc, argv, "sc:d:g:p:v", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.server = true; role = true; break;
		case 'c': opt.peer = optarg; role = true; break;
		case 'd': opt.dev = optarg; break;
		case 'g': opt.gid_index = num(optarg); break;
		case 'p': opt.port = num(optarg); break;
		case 'v': opt.verbose = true; break;
		case 'S': opt.seed = num(optarg); break;
		case 'n': opt.ops = num(optarg); break;
		case 'b': opt.bytes = num(optarg); break;
		case 'q': opt.nqp = num(optarg); break;
		case 'm': opt.max_size = num(optarg); break;
		case 't': opt.timeout = num(optarg); break;
		case 'P': opt.plan = true; role = true; opt.gid_index = 0; break;
		case 'Q': opt.qpn_file = optarg; break;
		case 'G': opt.sge = num(optarg); break;
		case 'I': opt.inl = num(optarg); break;
		case 'R':
			if (!strcmp(optarg, "range"))
				opt.flush_level = IBV_FLUSH_RANGE;
			else if (!strcmp(optarg, "mr"))
				opt.flush_level = IBV_FLUSH_MR;
			else
				usage();
			break;
		case 'F': opt.no_flush = optarg; break;
		case 'O': opt.odp = true; break;
		default: usage();
		}
	}
	if (!role || optind != argc || opt.gid_index < 0 || !opt.nqp ||
	    opt.nqp > MAX_QP || opt.max_size > (1u << 30) || opt.timeout <= 0 ||
	    !opt.sge || opt.sge > MAX_SGE || opt.inl > 65536)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (opt.plan) {
		/* Print the operation list for an MTU of 1024, --sge SGEs
		 * and atomics, without a device: for debugging a seed. */
		g.p = (struct params){ opt.seed, opt.bytes, opt.ops, opt.nqp,
				       opt.max_size, opt.sge, 1, 1024, opt.inl,
				       PL_ATOMIC_WRITE | PL_FLUSH };
		g.area_len = g.p.max_size + g.p.max_size / 8 + 64 * 1024;
		opt.verbose = true;
	} else {
		open_dev();
		connect_ctl();
		handshake();
	}
	gen_seed = g.p.seed * 0x9e3779b97f4a7c15ull + 1;
	t0 = now();
	while ((n = gen_round(ops))) {
		uint64_t k0 = gen_k - n;

		if (opt.verbose) {
			for (i = 0; i < (int)n; i++)
				printf("round %u op %" PRIu64 ": %s qp %u size %u sge %u/%u%s\n",
				       round, k0 + i, op_name[ops[i].type], ops[i].qp,
				       ops[i].size, ops[i].nl, ops[i].nr,
				       ops[i].inl ? " inline" : "");
		}
		if (opt.plan)
			;
		else if (opt.server)
			server_round(ops, n, round, k0);
		else
			client_round(ops, n, round, k0);
		st.ops += n;
		if (opt.verbose && !opt.plan) {
			uint64_t b = 0;

			for (i = 0; i < (int)n; i++)
				b += ops[i].size;
			printf("round %u: %u ops, %" PRIu64 " bytes, done at %.2f s\n",
			       round, n, b, now() - t0);
		}
		round++;
	}
	st.rounds = round;
	if (opt.plan)
		return 0;
	destroy_objects();
	close(g.sock);
	printf("integrity: %s ok: %" PRIu64 " ops in %" PRIu64 " rounds on %u QPs, "
	       "%" PRIu64 " bytes verified, %" PRIu64 " completions checked, "
	       "largest %u bytes, up to %u SGEs, %" PRIu64 " inline, seed %" PRIu64
	       ", %.1f s\n",
	       opt.server ? "server" : "client", st.ops, st.rounds, g.p.nqp,
	       st.bytes, st.completions, st.max_size_seen, st.max_sge_seen,
	       st.inline_ops, g.p.seed, now() - t0);
	printf("integrity: %s by type:", opt.server ? "server" : "client");
	for (i = 0; i < OP_NTYPES; i++)
		printf(" %s %" PRIu64, op_name[i], st.per_type[i]);
	printf("\n");
	return 0;
}
