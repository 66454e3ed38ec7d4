// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * misuse: a table of verbs misuses, each with the error it must get.
 *
 *   misuse -d DEV -g GID_INDEX [-v] [-x ROW[,ROW...]] [ROW...]
 *
 * Every row does one wrong thing to a RoCEv2 verbs device and checks the
 * answer: an errno from the verb, or a work completion status.  Rows that
 * need traffic connect two RC QPs of the same device to each other
 * (loopback through the device's own GID), so one process is enough.
 * Each row builds what it needs and tears it all down, so a failed row
 * does not disturb the next one, and nothing is left behind at exit.
 *
 * Output: one line per row, "PASS|FAIL|SKIP <row>: expected X, got Y",
 * then "misuse: N passed, M failed, K skipped".  Exit status 0 only if no
 * row failed.  -x names rows known to answer otherwise on this device
 * (another driver, say rdma_rxe): their mismatch is printed as XFAIL and
 * not counted, and an XFAIL row that matches says XPASS.
 *
 * The expected values are the verbs-standard ones (IBTA, libibverbs man
 * pages), which Documentation/datapath.rst and verbs-objects.rst adopt for
 * sroce; a row whose answer differs between devices says so in its note.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static struct ibv_context *ctx;
static struct ibv_device_attr dattr;
static struct ibv_port_attr pattr;
static int gidx = -1;
static bool verbose;

/* What a row got: an errno (0 = success) or a completion status. */
enum kind { ERRNO, WC };

struct result {
	enum kind kind;
	int val;		/* errno, or enum ibv_wc_status */
	bool skip;
	char why[160];		/* skip reason or detail */
};

struct row {
	const char *name;
	enum kind kind;
	int want;
	struct result (*fn)(void);
	/* A second answer the standard allows (alt_kind ERRNO with alt 0
	 * means none): say, a provider refusing at post time what a device
	 * would otherwise NAK. */
	enum kind alt_kind;
	int alt;
};

static struct result got_errno(int e)
{
	return (struct result){ .kind = ERRNO, .val = e };
}

static struct result got_wc(enum ibv_wc_status s)
{
	return (struct result){ .kind = WC, .val = s };
}

static struct result skipped(const char *why)
{
	struct result r = { .skip = true };

	snprintf(r.why, sizeof(r.why), "%s", why);
	return r;
}

/* A setup step that must work; a row whose setup fails fails itself. */
static struct result setup_failed(const char *what, int e)
{
	struct result r = { .kind = ERRNO, .val = -1 };

	snprintf(r.why, sizeof(r.why), "setup failed: %s: %s", what, strerror(e));
	return r;
}

static const char *errname(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOSPC: return "ENOSPC";
	case E2BIG: return "E2BIG";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case ENODATA: return "ENODATA";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static const char *show(enum kind k, int v)
{
	if (k == WC)
		return ibv_wc_status_str(v);
	return errname(v);
}

/* ---- helpers ------------------------------------------------------------ */

struct pair {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;	/* 64 KiB, local write + remote read/write/atomic */
	uint8_t *buf;
};

#define BUF_LEN (64 * 1024)

/* ib_uverbs device_cap_flags_ex bits (rdma-core 56.1 has no names). */
#define CAP_FLUSH_GLOBAL	(1ull << 38)
#define CAP_ATOMIC_WRITE	(1ull << 40)
static uint64_t dcaps_ex;

/* Set by the ATOMIC_WRITE and FLUSH rows: their QPs need ibv_wr_*(). */
static uint64_t pair_send_ops;

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_qp_init_attr_ex ix = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = ia.cap, .sq_sig_all = 1, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = pair_send_ops,
	};

	return pair_send_ops ? ibv_create_qp_ex(ctx, &ix) : ibv_create_qp(pd, &ia);
}

static int to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void rtr_attr(struct ibv_qp_attr *a, uint32_t dqpn)
{
	union ibv_gid gid;

	memset(a, 0, sizeof(*a));
	ibv_query_gid(ctx, 1, gidx, &gid);
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = dqpn;
	a->rq_psn = 0x1234;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 1;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.dgid = gid;
	a->ah_attr.grh.sgid_index = gidx;
	a->ah_attr.grh.hop_limit = 64;
}

#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
		  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)

static int to_rtr(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a;

	rtr_attr(&a, dqpn);
	return ibv_modify_qp(qp, &a, RTR_MASK);
}

static int to_rts(struct ibv_qp *qp, int rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .sq_psn = 0x1234, .timeout = 12,
		.retry_cnt = 3, .rnr_retry = rnr_retry, .max_rd_atomic = 1,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_MAX_QP_RD_ATOMIC);
}

static void pair_free(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

/*
 * Two connected RC QPs, a -> b.  @b_access: b's qp_access_flags;
 * @rnr_retry: a's.  Returns 0 or an errno (setup failure).
 */
static int pair_make(struct pair *p, int b_access, int rnr_retry, const char **what)
{
	int all = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		  (dattr.atomic_cap != IBV_ATOMIC_NONE ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	int ret;

	memset(p, 0, sizeof(*p));
	*what = "alloc_pd";
	p->pd = ibv_alloc_pd(ctx);
	if (!p->pd)
		return errno;
	*what = "create_cq";
	p->cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	if (!p->cq)
		return errno;
	*what = "reg_mr";
	p->buf = aligned_alloc(4096, BUF_LEN);
	if (!p->buf)
		return ENOMEM;
	memset(p->buf, 0, BUF_LEN);
	p->mr = ibv_reg_mr(p->pd, p->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE | all);
	if (!p->mr)
		return errno;
	*what = "create_qp";
	p->a = make_qp(p->pd, p->cq);
	if (!p->a)
		return errno;
	p->b = make_qp(p->pd, p->cq);
	if (!p->b)
		return errno;
	*what = "modify_qp";
	ret = to_init(p->a, all);
	ret = ret ?: to_init(p->b, b_access);
	ret = ret ?: to_rtr(p->a, p->b->qp_num);
	ret = ret ?: to_rtr(p->b, p->a->qp_num);
	ret = ret ?: to_rts(p->a, rnr_retry);
	ret = ret ?: to_rts(p->b, 7);
	return ret;
}

/* Wait for the first completion of @qp on @cq (others are skipped). */
static int wait_wc(struct ibv_cq *cq, uint32_t qpn, struct ibv_wc *wc, int secs)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return EIO;
		if (n == 1 && wc->qp_num == qpn)
			return 0;
		if (n == 1)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > secs)
			return ETIMEDOUT;
		usleep(100);
	}
}

static struct result wc_row(struct pair *p, struct ibv_qp *qp)
{
	struct ibv_wc wc;
	struct result r;
	int ret = wait_wc(p->cq, qp->qp_num, &wc, 15);

	if (ret) {
		r = got_errno(ret);
		snprintf(r.why, sizeof(r.why), "no completion in 15 s");
		pair_free(p);
		return r;
	}
	r = got_wc(wc.status);
	pair_free(p);
	return r;
}

/* wc_row() for a row that also holds @mr in the pair's PD. */
static struct result wc_row_mr(struct pair *p, struct ibv_qp *qp,
			       struct ibv_mr *mr)
{
	struct ibv_wc wc;
	struct result r;
	int ret = wait_wc(p->cq, qp->qp_num, &wc, 15);

	if (ret) {
		r = got_errno(ret);
		snprintf(r.why, sizeof(r.why), "no completion in 15 s");
	} else {
		r = got_wc(wc.status);
	}
	ibv_dereg_mr(mr);
	pair_free(p);
	return r;
}

static int post1(struct ibv_qp *qp, enum ibv_wr_opcode op, void *addr,
		 uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.wr.rdma = { raddr, rkey },
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	}
	return ibv_post_send(qp, &wr, &bad);
}

static int recv1(struct ibv_qp *qp, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

#define PAIR(p, access, rnr)						\
	do {								\
		const char *_w;						\
		int _e = pair_make(p, access, rnr, &_w);		\
		if (_e) {						\
			pair_free(p);					\
			return setup_failed(_w, _e);			\
		}							\
	} while (0)

#define ALL_REMOTE (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* ---- rows: resource limits --------------------------------------------- */

static struct result cq_too_many_cqes(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, dattr.max_cqe + 1, NULL, NULL, 0);

	if (cq) {
		ibv_destroy_cq(cq);
		return got_errno(0);
	}
	return got_errno(errno);
}

static struct result cq_zero_cqes(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 0, NULL, NULL, 0);

	if (cq) {
		ibv_destroy_cq(cq);
		return got_errno(0);
	}
	return got_errno(errno);
}

static struct result qp_caps(struct ibv_qp_cap cap)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .cap = cap,
	};
	struct ibv_qp *qp;
	int e = 0;

	if (!pd || !cq) {
		e = errno;
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		return setup_failed("pd/cq", e);
	}
	qp = ibv_create_qp(pd, &ia);
	if (qp)
		ibv_destroy_qp(qp);
	else
		e = errno;
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	return got_errno(e);
}

static struct result qp_too_many_send_wr(void)
{
	return qp_caps((struct ibv_qp_cap){ dattr.max_qp_wr + 1, 1, 1, 1, 0 });
}

static struct result qp_too_many_recv_wr(void)
{
	return qp_caps((struct ibv_qp_cap){ 1, dattr.max_qp_wr + 1, 1, 1, 0 });
}

static struct result qp_too_many_sge(void)
{
	return qp_caps((struct ibv_qp_cap){ 1, 1, dattr.max_sge + 1, 1, 0 });
}

static struct result qp_too_many_recv_sge(void)
{
	return qp_caps((struct ibv_qp_cap){ 1, 1, 1, dattr.max_sge + 1, 0 });
}

static struct result qp_inline_too_large(void)
{
	return qp_caps((struct ibv_qp_cap){ 1, 1, 1, 1, 1u << 20 });
}

/*
 * query_device does not report max_inline_data; sroce's and rdma_rxe's
 * is 512 (Documentation/device.rst).
 */
#define DEV_MAX_INLINE	512

static struct result qp_inline_one_too_many(void)
{
	return qp_caps((struct ibv_qp_cap){ 1, 1, 1, 1, DEV_MAX_INLINE + 1 });
}

/* Not a misuse: the limits themselves, all at once, must be granted. */
static struct result qp_caps_at_the_limits(void)
{
	return qp_caps((struct ibv_qp_cap){ 1, 1, dattr.max_sge, dattr.max_sge,
					    DEV_MAX_INLINE });
}

/* A create flag sroce does not implement (rdma_rxe implements none). */
static struct result qp_create_flag_unsupported(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { 1, 1, 1, 1, 0 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = pd,
		.create_flags = IBV_QP_CREATE_SCATTER_FCS,
	};
	struct ibv_qp *qp;
	int e = 0;

	if (!pd || !cq) {
		e = errno;
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		return setup_failed("pd/cq", e);
	}
	qp = ibv_create_qp_ex(ctx, &ia);
	if (qp)
		ibv_destroy_qp(qp);
	else
		e = errno;
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	return got_errno(e);
}

/* ---- rows: SRQ resize --------------------------------------------------- */

/*
 * An SRQ of (at least) 4 WQEs with all its slots posted when @fill,
 * resized to @max_wr (a function of the max_wr it got); the errno.
 */
static struct result srq_resize(bool fill, uint32_t (*max_wr)(uint32_t))
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_recv_wr wr = { .wr_id = 1 }, *bad;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_srq *srq = pd ? ibv_create_srq(pd, &sia) : NULL;
	struct ibv_srq_attr sa = {};
	uint32_t i;
	int e = 0;

	if (!srq) {
		e = errno;
		if (pd)
			ibv_dealloc_pd(pd);
		return setup_failed("create_srq", e);
	}
	for (i = 0; fill && i < sia.attr.max_wr && !e; i++)
		e = ibv_post_srq_recv(srq, &wr, &bad);
	if (e) {
		ibv_destroy_srq(srq);
		ibv_dealloc_pd(pd);
		return setup_failed("post_srq_recv", e);
	}
	sa.max_wr = max_wr(sia.attr.max_wr);
	e = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
	ibv_destroy_srq(srq);
	ibv_dealloc_pd(pd);
	return got_errno(e);
}

static uint32_t one_less(uint32_t max_wr)
{
	return max_wr - 1;
}

static uint32_t above_device(uint32_t max_wr)
{
	return dattr.max_srq_wr + 1;
}

static struct result srq_resize_below_posted(void)
{
	return srq_resize(true, one_less);
}

static struct result srq_resize_above_max_srq_wr(void)
{
	return srq_resize(false, above_device);
}

/* ---- rows: memory registration ------------------------------------------ */

static struct result reg(void *addr, size_t len, int access)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;
	int e = 0;

	if (!pd)
		return setup_failed("alloc_pd", errno);
	mr = ibv_reg_mr(pd, addr, len, access);
	if (mr)
		ibv_dereg_mr(mr);
	else
		e = errno;
	ibv_dealloc_pd(pd);
	return got_errno(e);
}

static uint8_t page[8192] __attribute__((aligned(4096)));

static struct result mr_remote_write_no_local(void)
{
	return reg(page, 4096, IBV_ACCESS_REMOTE_WRITE);
}

static struct result mr_remote_atomic_no_local(void)
{
	return reg(page, 4096, IBV_ACCESS_REMOTE_ATOMIC);
}

static struct result mr_unmapped(void)
{
	struct result r;
	void *hole = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (hole == MAP_FAILED)
		return setup_failed("mmap", errno);
	munmap(hole, 1 << 20);	/* an address range nothing maps */
	r = reg(hole, 1 << 20, IBV_ACCESS_LOCAL_WRITE);
	return r;
}

static struct result mr_beyond_max_size(void)
{
	if (dattr.max_mr_size >= (UINT64_MAX >> 1))
		return skipped("max_mr_size is unbounded");
	return reg(page, dattr.max_mr_size + 4096, IBV_ACCESS_LOCAL_WRITE);
}

static struct result mr_wrapping_range(void)
{
	return reg((void *)(uintptr_t)(UINT64_MAX - 4095), 8192, IBV_ACCESS_LOCAL_WRITE);
}

/* ---- rows: QP state machine and attributes ------------------------------ */

struct lone {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static int lone_make(struct lone *l)
{
	memset(l, 0, sizeof(*l));
	l->pd = ibv_alloc_pd(ctx);
	if (!l->pd)
		return errno;
	l->cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!l->cq)
		return errno;
	l->qp = make_qp(l->pd, l->cq);
	if (!l->qp)
		return errno;
	return 0;
}

static void lone_free(struct lone *l)
{
	if (l->qp)
		ibv_destroy_qp(l->qp);
	if (l->cq)
		ibv_destroy_cq(l->cq);
	if (l->pd)
		ibv_dealloc_pd(l->pd);
}

#define LONE(l)								\
	do {								\
		int _e = lone_make(l);					\
		if (_e) {						\
			lone_free(l);					\
			return setup_failed("lone QP", _e);		\
		}							\
	} while (0)

/* Run @how on a fresh QP brought to @state first; return its errno. */
enum step { S_RESET, S_INIT, S_RTR };

static struct result modify_from(enum step state, struct ibv_qp_attr *a, int mask)
{
	struct lone l;
	int e = 0;

	LONE(&l);
	if (state >= S_INIT)
		e = to_init(l.qp, ALL_REMOTE);
	if (!e && state >= S_RTR)
		e = to_rtr(l.qp, l.qp->qp_num);
	if (e) {
		lone_free(&l);
		return setup_failed("bring the QP up", e);
	}
	e = ibv_modify_qp(l.qp, a, mask);
	lone_free(&l);
	return got_errno(e);
}

static struct result qp_reset_to_rts(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .sq_psn = 1, .timeout = 12,
				 .retry_cnt = 3, .rnr_retry = 3, .max_rd_atomic = 1 };

	return modify_from(S_RESET, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static struct result qp_reset_to_rtr(void)
{
	struct ibv_qp_attr a;

	rtr_attr(&a, 1);
	return modify_from(S_RESET, &a, RTR_MASK);
}

static struct result qp_init_missing_port(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .qp_access_flags = 0 };

	return modify_from(S_RESET, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_ACCESS_FLAGS);
}

static struct result qp_init_bad_port(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 2 };

	if (dattr.phys_port_cnt >= 2)
		return skipped("device has a port 2");
	return modify_from(S_RESET, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static struct result qp_init_bad_pkey_index(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .pkey_index = 1000 };

	return modify_from(S_RESET, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static struct result qp_rtr_bad_mtu(void)
{
	struct ibv_qp_attr a;

	rtr_attr(&a, 1);
	a.path_mtu = 7;		/* no such enum ibv_mtu */
	return modify_from(S_INIT, &a, RTR_MASK);
}

static struct result qp_rtr_mtu_above_port(void)
{
	struct ibv_qp_attr a;

	if (pattr.max_mtu >= IBV_MTU_4096)
		return skipped("port max_mtu is 4096");
	rtr_attr(&a, 1);
	a.path_mtu = pattr.max_mtu + 1;
	return modify_from(S_INIT, &a, RTR_MASK);
}

static struct result qp_rtr_no_av(void)
{
	struct ibv_qp_attr a;

	rtr_attr(&a, 1);
	return modify_from(S_INIT, &a, RTR_MASK & ~IBV_QP_AV);
}

static struct result qp_rtr_no_dest_qpn(void)
{
	struct ibv_qp_attr a;

	rtr_attr(&a, 1);
	return modify_from(S_INIT, &a, RTR_MASK & ~IBV_QP_DEST_QPN);
}

static struct result qp_rtr_av_no_grh(void)
{
	struct ibv_qp_attr a;

	rtr_attr(&a, 1);
	a.ah_attr.is_global = 0;	/* RoCE needs the GRH (the GIDs) */
	return modify_from(S_INIT, &a, RTR_MASK);
}

static struct result qp_rtr_bad_sgid_index(void)
{
	struct ibv_qp_attr a;

	rtr_attr(&a, 1);
	a.ah_attr.grh.sgid_index = pattr.gid_tbl_len;
	return modify_from(S_INIT, &a, RTR_MASK);
}

static struct result qp_rtr_dest_rd_atomic_too_big(void)
{
	struct ibv_qp_attr a;

	rtr_attr(&a, 1);
	a.max_dest_rd_atomic = dattr.max_qp_rd_atom + 1;
	if (a.max_dest_rd_atomic > 255 || !a.max_dest_rd_atomic)
		return skipped("max_qp_rd_atom is 255");
	return modify_from(S_INIT, &a, RTR_MASK);
}

static struct result qp_rts_rd_atomic_too_big(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .sq_psn = 1, .timeout = 12,
				 .retry_cnt = 3, .rnr_retry = 3,
				 .max_rd_atomic = dattr.max_qp_init_rd_atom + 1 };

	if (!a.max_rd_atomic)
		return skipped("max_qp_init_rd_atom is 255");
	return modify_from(S_RTR, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static struct result qp_rts_missing_sq_psn(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .timeout = 12,
				 .retry_cnt = 3, .rnr_retry = 3, .max_rd_atomic = 1 };

	return modify_from(S_RTR, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* ---- rows: posting ------------------------------------------------------ */

/* The QP's real caps: a device may round the asked ones up. */
static int qp_caps_now(struct ibv_qp *qp, struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr qia;
	struct ibv_qp_attr qa;
	int e = ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia);

	*cap = qa.cap;
	return e;
}

#define SGE_MAX 64

static struct ibv_sge many_sge[SGE_MAX + 1];

static struct result post_too_many_sge(void)
{
	struct ibv_send_wr wr = { .sg_list = many_sge, .opcode = IBV_WR_SEND },
		*bad = NULL;
	struct ibv_qp_cap cap;
	struct lone l;
	int e, i;

	LONE(&l);	/* max_send_sge 1 asked */
	e = qp_caps_now(l.qp, &cap);
	e = e ?: to_init(l.qp, 0);
	e = e ?: to_rtr(l.qp, l.qp->qp_num);
	e = e ?: to_rts(l.qp, 0);
	if (e) {
		lone_free(&l);
		return setup_failed("query caps, bring the QP up", e);
	}
	if (cap.max_send_sge >= SGE_MAX) {
		lone_free(&l);
		return skipped("max_send_sge rounded up to 64 or more");
	}
	for (i = 0; i <= SGE_MAX; i++)
		many_sge[i] = (struct ibv_sge){ (uintptr_t)page, 8, 0 };
	wr.num_sge = cap.max_send_sge + 1;
	e = ibv_post_send(l.qp, &wr, &bad);
	lone_free(&l);
	return got_errno(e);
}

static struct result post_recv_too_many_sge(void)
{
	struct ibv_recv_wr wr = { .sg_list = many_sge }, *bad = NULL;
	struct ibv_qp_cap cap;
	struct lone l;
	int e, i;

	LONE(&l);
	e = qp_caps_now(l.qp, &cap);
	e = e ?: to_init(l.qp, 0);
	if (e) {
		lone_free(&l);
		return setup_failed("query caps, INIT", e);
	}
	if (cap.max_recv_sge >= SGE_MAX) {
		lone_free(&l);
		return skipped("max_recv_sge rounded up to 64 or more");
	}
	for (i = 0; i <= SGE_MAX; i++)
		many_sge[i] = (struct ibv_sge){ (uintptr_t)page, 8, 0 };
	wr.num_sge = cap.max_recv_sge + 1;
	e = ibv_post_recv(l.qp, &wr, &bad);
	lone_free(&l);
	return got_errno(e);
}

static struct result post_inline_too_large(void)
{
	static uint8_t big[64 * 1024];
	struct ibv_sge sge = { (uintptr_t)big, sizeof(big), 0 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_INLINE }, *bad = NULL;
	struct lone l;
	int e;

	LONE(&l);	/* max_inline_data 0 asked; the device may round up */
	e = to_init(l.qp, 0);
	e = e ?: to_rtr(l.qp, l.qp->qp_num);
	e = e ?: to_rts(l.qp, 0);
	if (e) {
		lone_free(&l);
		return setup_failed("bring the QP up", e);
	}
	e = ibv_post_send(l.qp, &wr, &bad);
	lone_free(&l);
	return got_errno(e);
}

static struct result post_sq_overflow(void)
{
	struct ibv_send_wr wr[64], *bad = NULL;
	struct ibv_qp_init_attr qia;
	struct ibv_qp_attr qa;
	struct pair p;
	int e, i, n;

	PAIR(&p, ALL_REMOTE, 7);	/* max_send_wr 8, may be rounded up */
	e = ibv_query_qp(p.a, &qa, IBV_QP_CAP, &qia);
	if (e) {
		pair_free(&p);
		return setup_failed("query_qp", e);
	}
	n = qa.cap.max_send_wr + 1;
	if (n > 64) {
		pair_free(&p);
		return skipped("max_send_wr rounded above 63");
	}
	/* One call posting one WR more than the SQ holds: empty RDMA
	 * WRITEs, harmless to whatever part gets through. */
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = i;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].wr.rdma.remote_addr = (uintptr_t)p.buf;
		wr[i].wr.rdma.rkey = p.mr->rkey;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	e = ibv_post_send(p.a, wr, &bad);
	if (e && bad != &wr[n - 1]) {
		struct result r = got_errno(e);

		snprintf(r.why, sizeof(r.why), "bad_wr is WR %d, not %d",
			 bad ? (int)(bad - wr) : -1, n - 1);
		r.val = -1;
		pair_free(&p);
		return r;
	}
	usleep(100000);	/* let the posted ones complete before teardown */
	pair_free(&p);
	return got_errno(e);
}

static struct result post_send_reset_qp(void)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad = NULL;
	struct lone l;
	int e;

	LONE(&l);
	e = ibv_post_send(l.qp, &wr, &bad);
	lone_free(&l);
	return got_errno(e);
}

/* ---- rows: error completions (loopback pair) ---------------------------- */

static struct result wc_bad_lkey(void)
{
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	e = recv1(p.b, p.buf + 4096, 64, p.mr->lkey);
	e = e ?: post1(p.a, IBV_WR_SEND, p.buf, 64, p.mr->lkey ^ 0x5a5a00, 0, 0);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

static struct result wc_lkey_out_of_bounds(void)
{
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	e = recv1(p.b, p.buf + 4096, 64, p.mr->lkey);
	e = e ?: post1(p.a, IBV_WR_SEND, p.buf + BUF_LEN - 32, 64, p.mr->lkey, 0, 0);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

static struct result wc_lkey_after_dereg(void)
{
	struct ibv_mr *mr;
	uint32_t lkey;
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	mr = ibv_reg_mr(p.pd, page, sizeof(page), IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		e = errno;
		pair_free(&p);
		return setup_failed("reg_mr", e);
	}
	lkey = mr->lkey;
	ibv_dereg_mr(mr);	/* use after destroy: the key must be dead */
	e = recv1(p.b, p.buf + 4096, 64, p.mr->lkey);
	e = e ?: post1(p.a, IBV_WR_SEND, page, 64, lkey, 0, 0);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

/*
 * ibv_rereg_mr changes the keys (sroce: always, verbs: it may); the ones
 * it replaced must be dead, even with nothing else changed.
 */
static struct ibv_mr *reg_rereg(struct pair *p, int access, uint32_t *old,
				int *e)
{
	struct ibv_mr *mr = ibv_reg_mr(p->pd, page, sizeof(page), access);

	*e = 0;
	if (!mr) {
		*e = errno;
		return NULL;
	}
	*old = mr->lkey;
	if (ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			 access)) {
		*e = errno ? errno : EINVAL;
		ibv_dereg_mr(mr);
		return NULL;
	}
	return mr;
}

static struct result wc_lkey_after_rereg(void)
{
	struct ibv_mr *mr;
	uint32_t lkey;
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	mr = reg_rereg(&p, IBV_ACCESS_LOCAL_WRITE, &lkey, &e);
	if (!mr) {
		pair_free(&p);
		return setup_failed("reg_mr/rereg_mr", e);
	}
	e = recv1(p.b, p.buf + 4096, 64, p.mr->lkey);
	e = e ?: post1(p.a, IBV_WR_SEND, page, 64, lkey, 0, 0);
	if (e) {
		ibv_dereg_mr(mr);
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row_mr(&p, p.a, mr);
}

/* ---- rows: on-demand paging (Documentation/odp.rst) -------------------- */

/* Does the device report explicit (and with @implicit, implicit) ODP? */
static bool has_odp(bool implicit)
{
	struct ibv_device_attr_ex a;
	uint32_t want = IBV_ODP_SUPPORT |
			(implicit ? IBV_ODP_SUPPORT_IMPLICIT : 0);

	memset(&a, 0, sizeof(a));
	return !ibv_query_device_ex(ctx, NULL, &a) &&
	       (a.odp_caps.general_caps & want) == want;
}

/*
 * An ODP MR in @p's PD over two fresh pages, the second unmapped after
 * registration (and held PROT_NONE so no other mapping lands there).
 */
static struct ibv_mr *odp_with_hole(struct pair *p, uint8_t **mem, int *e)
{
	struct ibv_mr *mr;
	uint8_t *m;

	m = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		*e = errno;
		return NULL;
	}
	mr = ibv_reg_mr(p->pd, m, 8192, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_ON_DEMAND);
	if (!mr) {
		*e = errno;
		munmap(m, 8192);
		return NULL;
	}
	munmap(m + 4096, 4096);
	mmap(m + 4096, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
	     MAP_FIXED, -1, 0);
	*mem = m;
	return mr;
}

static struct result wc_odp_write_unmapped(void)
{
	struct result r;
	struct ibv_mr *mr;
	struct pair p;
	uint8_t *m;
	int e;

	if (!has_odp(false))
		return skipped("no ODP");
	PAIR(&p, ALL_REMOTE, 7);
	mr = odp_with_hole(&p, &m, &e);
	if (!mr) {
		pair_free(&p);
		return setup_failed("reg_mr ON_DEMAND", e);
	}
	e = post1(p.a, IBV_WR_RDMA_WRITE, p.buf, 64, p.mr->lkey,
		  (uintptr_t)m + 4096, mr->rkey);
	if (e) {
		ibv_dereg_mr(mr);
		pair_free(&p);
		munmap(m, 8192);
		return setup_failed("post", e);
	}
	r = wc_row_mr(&p, p.a, mr);
	munmap(m, 8192);
	return r;
}

static struct result wc_odp_send_from_unmapped(void)
{
	struct result r;
	struct ibv_mr *mr;
	struct pair p;
	uint8_t *m;
	int e;

	if (!has_odp(false))
		return skipped("no ODP");
	PAIR(&p, ALL_REMOTE, 7);
	mr = odp_with_hole(&p, &m, &e);
	if (!mr) {
		pair_free(&p);
		return setup_failed("reg_mr ON_DEMAND", e);
	}
	e = recv1(p.b, p.buf + 4096, 64, p.mr->lkey);
	e = e ?: post1(p.a, IBV_WR_SEND, m + 4096, 64, mr->lkey, 0, 0);
	if (e) {
		ibv_dereg_mr(mr);
		pair_free(&p);
		munmap(m, 8192);
		return setup_failed("post", e);
	}
	r = wc_row_mr(&p, p.a, mr);
	munmap(m, 8192);
	return r;
}

static struct result advise_mr_non_odp(void)
{
	struct ibv_sge sge;
	struct result r;
	struct pair p;

	if (!has_odp(false))
		return skipped("no ODP");
	PAIR(&p, ALL_REMOTE, 7);
	sge = (struct ibv_sge){ (uintptr_t)p.buf, 4096, p.mr->lkey };
	r = got_errno(ibv_advise_mr(p.pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
				    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1));
	pair_free(&p);
	return r;
}

static struct result mr_implicit_odp(void)
{
	if (!has_odp(false))
		return skipped("no ODP");
	if (has_odp(true))
		return skipped("the device offers implicit ODP");
	return reg(NULL, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE |
		   IBV_ACCESS_ON_DEMAND);
}

static struct result wc_rkey_after_rereg(void)
{
	struct ibv_mr *mr;
	uint32_t rkey;
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	mr = reg_rereg(&p, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		       &rkey, &e);
	if (!mr) {
		pair_free(&p);
		return setup_failed("reg_mr/rereg_mr", e);
	}
	e = post1(p.a, IBV_WR_RDMA_WRITE, p.buf, 64, p.mr->lkey,
		  (uintptr_t)page, rkey);
	if (e) {
		ibv_dereg_mr(mr);
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row_mr(&p, p.a, mr);
}

static struct result wc_bad_rkey(void)
{
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	e = post1(p.a, IBV_WR_RDMA_WRITE, p.buf, 64, p.mr->lkey,
		  (uintptr_t)p.buf + 4096, p.mr->rkey ^ 0x5a5a00);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

static struct result wc_rkey_after_dereg(void)
{
	struct ibv_mr *mr;
	uint32_t rkey;
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	mr = ibv_reg_mr(p.pd, page, sizeof(page),
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr) {
		e = errno;
		pair_free(&p);
		return setup_failed("reg_mr", e);
	}
	rkey = mr->rkey;
	ibv_dereg_mr(mr);
	e = post1(p.a, IBV_WR_RDMA_WRITE, p.buf, 64, p.mr->lkey, (uintptr_t)page, rkey);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

static struct result wc_write_beyond_mr(void)
{
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	e = post1(p.a, IBV_WR_RDMA_WRITE, p.buf, 64, p.mr->lkey,
		  (uintptr_t)p.buf + BUF_LEN - 32, p.mr->rkey);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

static struct result wc_write_mr_without_remote_write(void)
{
	struct ibv_mr *mr;
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	mr = ibv_reg_mr(p.pd, page, sizeof(page),
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr) {
		e = errno;
		pair_free(&p);
		return setup_failed("reg_mr", e);
	}
	e = post1(p.a, IBV_WR_RDMA_WRITE, p.buf, 64, p.mr->lkey, (uintptr_t)page, mr->rkey);
	if (e) {
		ibv_dereg_mr(mr);
		pair_free(&p);
		return setup_failed("post", e);
	}
	{
		struct result r = wc_row(&p, p.a);

		ibv_dereg_mr(mr);
		return r;
	}
}

static struct result wc_write_qp_without_remote_write(void)
{
	struct pair p;
	int e;

	PAIR(&p, IBV_ACCESS_REMOTE_READ, 7);	/* b's QP refuses writes */
	e = post1(p.a, IBV_WR_RDMA_WRITE, p.buf, 64, p.mr->lkey,
		  (uintptr_t)p.buf + 4096, p.mr->rkey);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

static struct result wc_read_qp_without_remote_read(void)
{
	struct pair p;
	int e;

	PAIR(&p, IBV_ACCESS_REMOTE_WRITE, 7);
	e = post1(p.a, IBV_WR_RDMA_READ, p.buf, 64, p.mr->lkey,
		  (uintptr_t)p.buf + 4096, p.mr->rkey);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

static struct result wc_atomic_misaligned(void)
{
	struct pair p;
	int e;

	if (dattr.atomic_cap == IBV_ATOMIC_NONE)
		return skipped("no atomics");
	PAIR(&p, ALL_REMOTE | IBV_ACCESS_REMOTE_ATOMIC, 7);
	e = post1(p.a, IBV_WR_ATOMIC_FETCH_AND_ADD, p.buf, 8, p.mr->lkey,
		  (uintptr_t)p.buf + 4096 + 4, p.mr->rkey);
	if (e) {	/* refused at post time */
		pair_free(&p);
		return got_errno(e);
	}
	return wc_row(&p, p.a);
}

/*
 * ATOMIC_WRITE (@flush false) or FLUSH of the range @off..+8 of a target
 * MR of @mr_access (0: the pair's own MR) from a to b, whose QP allows
 * @b_access.  The answer is the completion (or a refusal at post time).
 */
static struct result placement_row(bool flush, int b_access, int mr_access,
				   uint64_t off)
{
	uint64_t cap = flush ? CAP_FLUSH_GLOBAL : CAP_ATOMIC_WRITE;
	uint64_t value = 0x0123456789abcdefull;
	struct ibv_mr *mr = NULL;
	struct ibv_qp_ex *qx;
	struct result r;
	struct pair p;
	int e;

	if (!(dcaps_ex & cap))
		return skipped(flush ? "the device does not advertise FLUSH_GLOBAL" :
			       "the device does not advertise ATOMIC_WRITE");
	pair_send_ops = flush ? IBV_QP_EX_WITH_FLUSH : IBV_QP_EX_WITH_ATOMIC_WRITE;
	{
		const char *w;

		e = pair_make(&p, b_access, 7, &w);
		pair_send_ops = 0;
		if (e) {
			pair_free(&p);
			return setup_failed(w, e);
		}
	}
	if (mr_access) {
		mr = ibv_reg_mr(p.pd, page, sizeof(page), mr_access);
		if (!mr) {
			e = errno;
			pair_free(&p);
			return setup_failed("reg_mr", e);
		}
	}
	qx = ibv_qp_to_qp_ex(p.a);
	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = 0;
	if (flush)
		ibv_wr_flush(qx, mr ? mr->rkey : p.mr->rkey,
			     (mr ? (uintptr_t)page : (uintptr_t)p.buf) + off, 8,
			     IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE);
	else
		ibv_wr_atomic_write(qx, mr ? mr->rkey : p.mr->rkey,
				    (mr ? (uintptr_t)page : (uintptr_t)p.buf) + off,
				    &value);
	e = ibv_wr_complete(qx);
	if (e) {	/* refused at post time */
		if (mr)
			ibv_dereg_mr(mr);
		pair_free(&p);
		return got_errno(e);
	}
	r = wc_row(&p, p.a);
	if (mr)
		ibv_dereg_mr(mr);
	return r;
}

/* The pair's MR has no flush right; b's QP has. */
static struct result wc_flush_mr_without_flush_right(void)
{
	return placement_row(true, ALL_REMOTE | IBV_ACCESS_FLUSH_GLOBAL, 0, 4096);
}

/* As rdma_rxe: the QP must allow the placement type too (invalid request). */
static struct result wc_flush_qp_without_flush_right(void)
{
	return placement_row(true, ALL_REMOTE, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_FLUSH_GLOBAL, 0);
}

static struct result wc_atomic_write_misaligned(void)
{
	return placement_row(false, ALL_REMOTE, 0, 4096 + 4);
}

/* ATOMIC_WRITE needs remote write on the MR, as rdma_rxe: atomic is not enough. */
static struct result wc_atomic_write_mr_without_remote_write(void)
{
	return placement_row(false, ALL_REMOTE, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_READ |
			     (dattr.atomic_cap != IBV_ATOMIC_NONE ?
			      IBV_ACCESS_REMOTE_ATOMIC : 0), 0);
}

/* sroce memory is RAM: no persistence to offer (ib_core: EOPNOTSUPP). */
static struct result mr_flush_persistent(void)
{
	if (!(dcaps_ex & CAP_FLUSH_GLOBAL))
		return skipped("the device does not advertise FLUSH_GLOBAL");
	return reg(page, sizeof(page), IBV_ACCESS_LOCAL_WRITE |
		   IBV_ACCESS_FLUSH_PERSISTENT);
}

static struct result wc_recv_too_small_requester(void)
{
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	e = recv1(p.b, p.buf + 4096, 16, p.mr->lkey);
	e = e ?: post1(p.a, IBV_WR_SEND, p.buf, 64, p.mr->lkey, 0, 0);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

static struct result wc_recv_too_small_responder(void)
{
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	e = recv1(p.b, p.buf + 4096, 16, p.mr->lkey);
	e = e ?: post1(p.a, IBV_WR_SEND, p.buf, 64, p.mr->lkey, 0, 0);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.b);
}

static struct result wc_rnr_retry_exceeded(void)
{
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 0);	/* no receive posted, no RNR retry */
	e = post1(p.a, IBV_WR_SEND, p.buf, 64, p.mr->lkey, 0, 0);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	return wc_row(&p, p.a);
}

static struct result wc_flush_after_error(void)
{
	struct ibv_wc wc;
	struct pair p;
	int e;

	PAIR(&p, ALL_REMOTE, 7);
	/* The first WR fails (bad lkey), the second is flushed. */
	e = post1(p.a, IBV_WR_RDMA_WRITE, p.buf, 64, p.mr->lkey ^ 0x5a5a00,
		  (uintptr_t)p.buf + 4096, p.mr->rkey);
	e = e ?: post1(p.a, IBV_WR_RDMA_WRITE, p.buf, 64, p.mr->lkey,
		       (uintptr_t)p.buf + 4096, p.mr->rkey);
	if (e) {
		pair_free(&p);
		return setup_failed("post", e);
	}
	e = wait_wc(p.cq, p.a->qp_num, &wc, 15);
	if (e) {
		pair_free(&p);
		return setup_failed("first completion", e);
	}
	return wc_row(&p, p.a);
}

/* ---- rows: AH and object lifetime --------------------------------------- */

static struct result ah(int sgid_index, bool global)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_ah_attr a = { .is_global = global, .port_num = 1 };
	struct ibv_ah *ah;
	union ibv_gid gid;
	int e = 0;

	if (!pd)
		return setup_failed("alloc_pd", errno);
	ibv_query_gid(ctx, 1, gidx, &gid);
	a.grh.dgid = gid;
	a.grh.sgid_index = sgid_index;
	a.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &a);
	if (ah)
		ibv_destroy_ah(ah);
	else
		e = errno;
	ibv_dealloc_pd(pd);
	return got_errno(e);
}

static struct result ah_bad_gid_index(void)
{
	return ah(pattr.gid_tbl_len, true);
}

static struct result ah_empty_gid_entry(void)
{
	union ibv_gid gid;
	int i;

	/* An index inside the table that holds no GID. */
	for (i = 0; i < 16 && i < pattr.gid_tbl_len; i++)
		if (!ibv_query_gid(ctx, 1, i, &gid) &&
		    !memcmp(&gid, &(union ibv_gid){ 0 }, sizeof(gid)))
			return ah(i, true);
	return skipped("no empty GID entry among the first 16");
}

static struct result ah_no_grh(void)
{
	return ah(gidx, false);
}

static struct result pd_busy(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;
	int e;

	if (!pd)
		return setup_failed("alloc_pd", errno);
	mr = ibv_reg_mr(pd, page, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		e = errno;
		ibv_dealloc_pd(pd);
		return setup_failed("reg_mr", e);
	}
	e = ibv_dealloc_pd(pd);
	if (!e)	/* freed under the MR: nothing safe left to do */
		return got_errno(0);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	return got_errno(e);
}

static struct result cq_busy(void)
{
	struct lone l;
	int e;

	LONE(&l);
	e = ibv_destroy_cq(l.cq);
	if (!e)
		l.cq = NULL;
	lone_free(&l);
	return got_errno(e);
}

/* ------------------------------------------------------------------------ */

static const struct row rows[] = {
	{ "cq_too_many_cqes", ERRNO, EINVAL, cq_too_many_cqes },
	{ "cq_zero_cqes", ERRNO, EINVAL, cq_zero_cqes },
	{ "qp_too_many_send_wr", ERRNO, EINVAL, qp_too_many_send_wr },
	{ "qp_too_many_recv_wr", ERRNO, EINVAL, qp_too_many_recv_wr },
	{ "qp_too_many_send_sge", ERRNO, EINVAL, qp_too_many_sge },
	{ "qp_too_many_recv_sge", ERRNO, EINVAL, qp_too_many_recv_sge },
	{ "qp_inline_too_large", ERRNO, EINVAL, qp_inline_too_large },
	{ "qp_inline_one_too_many", ERRNO, EINVAL, qp_inline_one_too_many },
	{ "qp_caps_at_the_limits", ERRNO, 0, qp_caps_at_the_limits },
	{ "qp_create_flag_unsupported", ERRNO, EOPNOTSUPP, qp_create_flag_unsupported },
	{ "srq_resize_below_posted", ERRNO, EINVAL, srq_resize_below_posted },
	{ "srq_resize_above_max_srq_wr", ERRNO, EINVAL, srq_resize_above_max_srq_wr },
	{ "mr_remote_write_without_local_write", ERRNO, EINVAL, mr_remote_write_no_local },
	{ "mr_remote_atomic_without_local_write", ERRNO, EINVAL, mr_remote_atomic_no_local },
	{ "mr_unmapped_memory", ERRNO, EFAULT, mr_unmapped },
	{ "mr_beyond_max_mr_size", ERRNO, EINVAL, mr_beyond_max_size },
	{ "mr_wrapping_range", ERRNO, EINVAL, mr_wrapping_range },
	{ "qp_reset_to_rts", ERRNO, EINVAL, qp_reset_to_rts },
	{ "qp_reset_to_rtr", ERRNO, EINVAL, qp_reset_to_rtr },
	{ "qp_init_missing_port", ERRNO, EINVAL, qp_init_missing_port },
	{ "qp_init_bad_port", ERRNO, EINVAL, qp_init_bad_port },
	{ "qp_init_bad_pkey_index", ERRNO, EINVAL, qp_init_bad_pkey_index },
	{ "qp_rtr_bad_path_mtu", ERRNO, EINVAL, qp_rtr_bad_mtu },
	{ "qp_rtr_path_mtu_above_port", ERRNO, EINVAL, qp_rtr_mtu_above_port },
	{ "qp_rtr_rc_without_av", ERRNO, EINVAL, qp_rtr_no_av },
	{ "qp_rtr_rc_without_dest_qpn", ERRNO, EINVAL, qp_rtr_no_dest_qpn },
	{ "qp_rtr_av_without_grh", ERRNO, EINVAL, qp_rtr_av_no_grh },
	{ "qp_rtr_bad_sgid_index", ERRNO, EINVAL, qp_rtr_bad_sgid_index },
	{ "qp_rtr_max_dest_rd_atomic_too_big", ERRNO, EINVAL, qp_rtr_dest_rd_atomic_too_big },
	{ "qp_rts_max_rd_atomic_too_big", ERRNO, EINVAL, qp_rts_rd_atomic_too_big },
	{ "qp_rts_missing_sq_psn", ERRNO, EINVAL, qp_rts_missing_sq_psn },
	{ "post_send_too_many_sge", ERRNO, EINVAL, post_too_many_sge },
	{ "post_recv_too_many_sge", ERRNO, EINVAL, post_recv_too_many_sge },
	{ "post_send_inline_too_large", ERRNO, EINVAL, post_inline_too_large },
	{ "post_send_sq_overflow", ERRNO, ENOMEM, post_sq_overflow },
	{ "post_send_reset_qp", ERRNO, EINVAL, post_send_reset_qp },
	{ "wc_bad_lkey", WC, IBV_WC_LOC_PROT_ERR, wc_bad_lkey },
	{ "wc_lkey_out_of_bounds", WC, IBV_WC_LOC_PROT_ERR, wc_lkey_out_of_bounds },
	{ "wc_lkey_after_dereg", WC, IBV_WC_LOC_PROT_ERR, wc_lkey_after_dereg },
	{ "wc_bad_rkey", WC, IBV_WC_REM_ACCESS_ERR, wc_bad_rkey },
	{ "wc_rkey_after_dereg", WC, IBV_WC_REM_ACCESS_ERR, wc_rkey_after_dereg },
	{ "wc_lkey_after_rereg", WC, IBV_WC_LOC_PROT_ERR, wc_lkey_after_rereg },
	{ "wc_odp_write_unmapped", WC, IBV_WC_REM_ACCESS_ERR, wc_odp_write_unmapped },
	{ "wc_odp_send_from_unmapped", WC, IBV_WC_LOC_PROT_ERR, wc_odp_send_from_unmapped },
	{ "advise_mr_non_odp", ERRNO, EINVAL, advise_mr_non_odp },
	{ "mr_implicit_odp", ERRNO, EOPNOTSUPP, mr_implicit_odp },
	{ "wc_rkey_after_rereg", WC, IBV_WC_REM_ACCESS_ERR, wc_rkey_after_rereg },
	{ "wc_write_beyond_mr", WC, IBV_WC_REM_ACCESS_ERR, wc_write_beyond_mr },
	{ "wc_write_mr_without_remote_write", WC, IBV_WC_REM_ACCESS_ERR,
	  wc_write_mr_without_remote_write },
	{ "wc_write_qp_without_remote_write", WC, IBV_WC_REM_ACCESS_ERR,
	  wc_write_qp_without_remote_write },
	{ "wc_read_qp_without_remote_read", WC, IBV_WC_REM_ACCESS_ERR,
	  wc_read_qp_without_remote_read },
	/* sroce's provider leaves alignment to the responder; rxe's refuses
	 * the WR at post time.  Both are allowed. */
	{ "wc_atomic_misaligned", WC, IBV_WC_REM_INV_REQ_ERR, wc_atomic_misaligned,
	  ERRNO, EINVAL },
	{ "wc_recv_too_small_requester", WC, IBV_WC_REM_INV_REQ_ERR,
	  wc_recv_too_small_requester },
	{ "wc_flush_mr_without_flush_right", WC, IBV_WC_REM_ACCESS_ERR,
	  wc_flush_mr_without_flush_right },
	{ "wc_flush_qp_without_flush_right", WC, IBV_WC_REM_INV_REQ_ERR,
	  wc_flush_qp_without_flush_right },
	{ "wc_atomic_write_misaligned", WC, IBV_WC_REM_INV_REQ_ERR,
	  wc_atomic_write_misaligned },
	{ "wc_atomic_write_mr_without_remote_write", WC, IBV_WC_REM_ACCESS_ERR,
	  wc_atomic_write_mr_without_remote_write },
	/* rdma_rxe advertises persistence but refuses it on RAM: EINVAL */
	{ "mr_flush_persistent", ERRNO, EOPNOTSUPP, mr_flush_persistent,
	  ERRNO, EINVAL },
	{ "wc_recv_too_small_responder", WC, IBV_WC_LOC_LEN_ERR, wc_recv_too_small_responder },
	{ "wc_rnr_retry_exceeded", WC, IBV_WC_RNR_RETRY_EXC_ERR, wc_rnr_retry_exceeded },
	{ "wc_flush_after_error", WC, IBV_WC_WR_FLUSH_ERR, wc_flush_after_error },
	{ "ah_bad_gid_index", ERRNO, EINVAL, ah_bad_gid_index },
	/* ib_core answers this one, for every driver: no GID there */
	{ "ah_empty_gid_entry", ERRNO, ENODATA, ah_empty_gid_entry },
	{ "ah_without_grh", ERRNO, EINVAL, ah_no_grh },
	{ "pd_dealloc_with_mr", ERRNO, EBUSY, pd_busy },
	{ "cq_destroy_with_qp", ERRNO, EBUSY, cq_busy },
};

int main(int argc, char **argv)
{
	const char *devname = NULL, *xfail = "";
	struct ibv_device **list;
	int c, i, j, pass = 0, fail = 0, skip = 0, xfails = 0;
	size_t r;

	while ((c = getopt(argc, argv, "d:g:vx:")) != -1) {
		switch (c) {
		case 'x': xfail = optarg; break;
		case 'd': devname = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'v': verbose = true; break;
		default:
			fprintf(stderr, "usage: misuse -d DEV -g GID_INDEX [-v] [-x ROW,...] [ROW...]\n");
			return 2;
		}
	}
	if (!devname || gidx < 0) {
		fprintf(stderr, "usage: misuse -d DEV -g GID_INDEX [-v] [-x ROW,...] [ROW...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			break;
	if (!list || !list[i]) {
		fprintf(stderr, "misuse: no device %s\n", devname);
		return 2;
	}
	ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx || ibv_query_device(ctx, &dattr) || ibv_query_port(ctx, 1, &pattr)) {
		fprintf(stderr, "misuse: cannot open %s: %s\n", devname, strerror(errno));
		return 2;
	}
	{
		struct ibv_device_attr_ex dx;

		if (!ibv_query_device_ex(ctx, NULL, &dx))
			dcaps_ex = dx.device_cap_flags_ex;
	}
	if (verbose)
		printf("misuse: %s max_cqe %d max_qp_wr %d max_sge %d max_mr_size 0x%llx "
		       "atomic_cap %d gid_tbl_len %d max_mtu %d\n", devname,
		       dattr.max_cqe, dattr.max_qp_wr, dattr.max_sge,
		       (unsigned long long)dattr.max_mr_size, dattr.atomic_cap,
		       pattr.gid_tbl_len, pattr.max_mtu);

	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *w = &rows[r];
		struct result res;
		bool known;

		if (optind < argc) {
			for (j = optind; j < argc; j++)
				if (!strcmp(argv[j], w->name))
					break;
			if (j == argc)
				continue;
		}
		res = w->fn();
		{
			/* whole-word match in the comma-separated -x list */
			const char *x = xfail;
			size_t len = strlen(w->name);

			known = false;
			while ((x = strstr(x, w->name))) {
				if ((x == xfail || x[-1] == ',') &&
				    (x[len] == ',' || !x[len])) {
					known = true;
					break;
				}
				x += len;
			}
		}
		if (res.skip) {
			printf("SKIP %s: %s\n", w->name, res.why);
			skip++;
		} else if (res.kind == w->kind && res.val == w->want) {
			printf("%s %s: expected %s, got %s\n", known ? "XPASS" : "PASS",
			       w->name, show(w->kind, w->want), show(res.kind, res.val));
			pass++;
		} else if ((w->alt_kind != ERRNO || w->alt) &&
			   res.kind == w->alt_kind && res.val == w->alt) {
			printf("PASS %s: expected %s or %s, got %s\n", w->name,
			       show(w->kind, w->want), show(w->alt_kind, w->alt),
			       show(res.kind, res.val));
			pass++;
		} else if (known) {
			printf("XFAIL %s: expected %s, got %s%s%s\n", w->name,
			       show(w->kind, w->want),
			       res.val < 0 ? "nothing" : show(res.kind, res.val),
			       res.why[0] ? ": " : "", res.why);
			xfails++;
		} else {
			printf("FAIL %s: expected %s, got %s%s%s\n", w->name,
			       show(w->kind, w->want),
			       res.val < 0 ? "nothing" : show(res.kind, res.val),
			       res.why[0] ? ": " : "", res.why);
			fail++;
		}
	}
	if (ibv_close_device(ctx)) {
		printf("FAIL close_device: %s\n", strerror(errno));
		fail++;
	}
	printf("misuse: %d passed, %d failed, %d skipped, %d known to differ here\n",
	       pass, fail, skip, xfails);
	return fail ? 1 : 0;
}
