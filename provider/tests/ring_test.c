// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Host test of the provider's data path without a kernel: the provider's
 * cq.c, qp.c, send.c, ah.c and ring.c are linked against the stand-ins
 * for the ibv_cmd_* helpers below, which play the kernel: rings live in a
 * memfd that stands for the verbs cmd_fd, so the provider maps them
 * exactly as it maps the kernel's, and this file reads and writes the
 * other side of each ring.  The doorbell goes to cmd_fd with write(2),
 * which run.sh wraps (-Wl,--wrap=write) so that __wrap_write() below
 * checks and counts it; the ibv_cmd_post_send() stand-in counts the
 * ioctl form.
 *
 * Output ends with "provider-unit: N passed, M failed".
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sroce.h"

static int passed, failed;

#define CHECK(cond) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);	\
	}								\
} while (0)

/* ---- the fake kernel ---------------------------------------------- */

static int memfd;
static off_t memfd_len;
/* Doorbells of either form; of the ioctl form; write(2) refusals. */
static unsigned int doorbells, ioctl_doorbells, bad_doorbells;
/* The kernel refuses write(2) (credentials changed after the open). */
static bool write_refused;
/* Threaded test: doorbells wake the fake kernel's SQ drainer. */
static bool stress;
static sem_t kick;
static int doorbell_err;
static struct ibv_context fake_ctx;

struct kring {
	uint8_t *buf;
	struct sroce_ring_ctl *ctl;
	struct sroce_ring_abi abi;
};

static int kring_alloc(struct kring *k, uint32_t entries, uint32_t stride)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = SROCE_RING_HDR_SIZE + (size_t)entries * stride;

	len = (len + page - 1) / page * page;
	if (ftruncate(memfd, memfd_len + len))
		return errno;
	k->buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd,
		      memfd_len);
	if (k->buf == MAP_FAILED)
		return errno;
	k->ctl = (void *)k->buf;
	k->abi = (struct sroce_ring_abi){
		.mmap_offset = memfd_len, .mmap_len = len,
		.entries = entries, .stride = stride,
	};
	memfd_len += len;
	return 0;
}

static void *kring_elem(struct kring *k, uint32_t i)
{
	return k->buf + SROCE_RING_HDR_SIZE +
	       (size_t)(i & (k->abi.entries - 1)) * k->abi.stride;
}

/* What the next create/resize returns. */
static struct kring kcq, ksq, krq;
static uint32_t next_cq_entries = 4;
/* A module from before completion timestamps used 48 bytes. */
static uint32_t next_cq_stride = sizeof(struct sroce_cqe_abi);
static uint32_t next_sq_entries = 4, next_rq_entries = 4;
static uint32_t next_max_inline = 64;

int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size)
{
	struct sroce_create_cq_resp_buf *r = (void *)resp;
	int ret;

	ret = kring_alloc(&kcq, next_cq_entries, next_cq_stride);
	if (ret)
		return ret;
	r->drv.cq = kcq.abi;
	cq->context = context;
	cq->cqe = next_cq_entries;
	return 0;
}

int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size, struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags)
{
	struct sroce_create_cq_ex_resp_buf *r = (void *)resp;
	int ret;

	ret = kring_alloc(&kcq, next_cq_entries, next_cq_stride);
	if (ret)
		return ret;
	r->drv.cq = kcq.abi;
	cq->cq.context = context;
	return 0;
}

/* Resize as the kernel must: move unconsumed CQEs, keep the indices. */
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size)
{
	struct sroce_resize_cq_resp_buf *r = (void *)resp;
	struct kring old = kcq;
	uint32_t i, cons = old.ctl->cons, prod = old.ctl->prod;
	int ret;

	ret = kring_alloc(&kcq, cqe, sizeof(struct sroce_cqe_abi));
	if (ret)
		return ret;
	for (i = cons; i != prod; i++)
		memcpy(kring_elem(&kcq, i), kring_elem(&old, i),
		       sizeof(struct sroce_cqe_abi));
	kcq.ctl->cons = cons;
	kcq.ctl->prod = prod;
	r->drv.cq = kcq.abi;
	munmap(old.buf, old.abi.mmap_len);
	return 0;
}

int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return 0;
}

static unsigned int pd_handles;

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size)
{
	pd->context = context;
	pd->handle = ++pd_handles;
	return 0;
}

int ibv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	return 0;
}

int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
	munmap(kcq.buf, kcq.abi.mmap_len);
	return 0;
}

/* Create flags the last create command carried; -1 for the plain one. */
static int64_t last_create_flags;

static int fake_create_qp(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex,
			  struct sroce_create_qp_resp *drv);

int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
{
	struct sroce_create_qp_resp_buf *r = (void *)resp;

	/* As libibverbs: the plain command takes no create flags. */
	if (attr_ex->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS)
		return EINVAL;
	last_create_flags = -1;
	return fake_create_qp(context, qp, attr_ex, &r->drv);
}

int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size)
{
	struct sroce_create_qp_ex_resp_buf *r = (void *)resp;

	last_create_flags = attr_ex->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS ?
			    attr_ex->create_flags : 0;
	return fake_create_qp(context, qp, attr_ex, &r->drv);
}

static int mcast_cmds;

int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid)
{
	mcast_cmds++;
	return 0;
}

int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid)
{
	mcast_cmds--;
	return 0;
}

static int fake_create_qp(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex,
			  struct sroce_create_qp_resp *drv)
{
	int ret;

	ret = kring_alloc(&ksq, next_sq_entries,
			  sizeof(struct sroce_send_wqe_abi) +
			  4 * sizeof(struct sroce_sge_abi));
	if (!ret)
		ret = kring_alloc(&krq, next_rq_entries,
				  sizeof(struct sroce_recv_wqe_abi) +
				  4 * sizeof(struct sroce_sge_abi));
	if (ret)
		return ret;
	drv->sq = ksq.abi;
	drv->rq = krq.abi;
	drv->max_inline_data = next_max_inline;
	qp->qp.context = context;
	qp->qp.handle = 0x5150;
	qp->qp.qp_type = attr_ex->qp_type;
	qp->qp.pd = attr_ex->pd;
	qp->comp_mask = 0;
	attr_ex->cap.max_send_sge = 4;
	attr_ex->cap.max_recv_sge = 4;
	attr_ex->cap.max_inline_data = next_max_inline;
	return 0;
}

int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size)
{
	return 0;
}

int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd, size_t cmd_size)
{
	return 0;
}

int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	munmap(ksq.buf, ksq.abi.mmap_len);
	munmap(krq.buf, krq.abi.mmap_len);
	return 0;
}

static int fake_doorbell(void)
{
	__atomic_fetch_add(&doorbells, 1, __ATOMIC_RELAXED);
	if (stress)
		sem_post(&kick);
	return doorbell_err;
}

int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr)
{
	if (wr)
		return EINVAL;	/* the provider only ever rings */
	__atomic_fetch_add(&ioctl_doorbells, 1, __ATOMIC_RELAXED);
	return fake_doorbell();
}

/*
 * Writes to cmd_fd are doorbells, checked as the kernel's write path
 * would (verify_hdr(), then ib_uverbs_post_send()); the rest pass on.
 */
ssize_t __real_write(int fd, const void *buf, size_t len);
ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const struct ib_uverbs_post_send *cmd = (const void *)(hdr + 1);
	int err;

	if (fd != memfd)
		return __real_write(fd, buf, len);
	if (write_refused) {
		errno = EACCES;
		return -1;
	}
	if (len != sizeof(*hdr) + sizeof(*cmd) ||
	    hdr->command != IB_USER_VERBS_CMD_POST_SEND ||
	    hdr->in_words * 4 != len ||
	    hdr->out_words * 4 != sizeof(struct ib_uverbs_post_send_resp) ||
	    !cmd->response || cmd->qp_handle != 0x5150 || cmd->wr_count ||
	    cmd->sge_count ||
	    cmd->wqe_size != sizeof(struct ib_uverbs_send_wr)) {
		__atomic_fetch_add(&bad_doorbells, 1, __ATOMIC_RELAXED);
		errno = EINVAL;
		return -1;
	}
	err = fake_doorbell();
	if (err) {
		errno = err;
		return -1;
	}
	return len;
}

int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size)
{
	struct sroce_create_ah_resp_buf *r = (void *)resp;

	r->drv.ah_num = 77;
	ah->context = pd->context;
	return 0;
}

int ibv_cmd_destroy_ah(struct ibv_ah *ah)
{
	return 0;
}

/*
 * Memory windows need the real kernel (tests/vm/provider/mw.c); send.c
 * only links against provider/mw.c's WQE builder here.
 */
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size)
{
	return EOPNOTSUPP;
}

int ibv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	return EOPNOTSUPP;
}

/* XRC domains and opened QPs need the real kernel (provider/objects.c). */
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size)
{
	return EOPNOTSUPP;
}

int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)
{
	return EOPNOTSUPP;
}

int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
{
	return EOPNOTSUPP;
}

/* libibverbs' own, for the test binary that does not link it. */
struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct verbs_qp *vqp = container_of(qp, struct verbs_qp, qp);

	return (vqp->comp_mask & VERBS_QP_EX) ? &vqp->qp_ex : NULL;
}

/* ---- helpers -------------------------------------------------------- */

static void kcq_push(uint64_t wr_id, uint8_t status, uint8_t opcode,
		     uint8_t kflags, uint32_t ex)
{
	struct sroce_cqe_abi *c = kring_elem(&kcq, kcq.ctl->prod);

	memset(c, 0, sizeof(*c));
	c->wr_id = wr_id;
	c->status = status;
	c->opcode = opcode;
	c->wc_flags = kflags;
	c->ex = ex;
	c->byte_len = 100 + wr_id;
	c->qp_num = 0x11;
	c->src_qp = 0x22;
	c->sl = 3;
	c->slid = 0x44;
	c->dlid_path_bits = 5;
	__atomic_store_n(&kcq.ctl->prod, kcq.ctl->prod + 1, __ATOMIC_RELEASE);
}

/* The provider reads its own struct around every ibv_pd it is given. */
static struct sroce_pd fake_spd = { .ibv_pd.context = &fake_ctx };
#define fake_pd (fake_spd.ibv_pd)

static struct ibv_qp *make_qp_pd(enum ibv_qp_type type, uint64_t send_ops,
				 struct ibv_pd *pd)
{
	struct ibv_qp *qp;
	struct ibv_qp_init_attr_ex a = {
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 4, .max_recv_sge = 4 },
	};

	if (send_ops) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = send_ops;
	}
	qp = sroce_create_qp_ex(&fake_ctx, &a);
	if (qp)
		qp->state = IBV_QPS_RTS;	/* as ibv_modify_qp leaves it */
	return qp;
}

static struct ibv_qp *make_qp(enum ibv_qp_type type, uint64_t send_ops)
{
	return make_qp_pd(type, send_ops, &fake_pd);
}

/* ---- tests ---------------------------------------------------------- */

static void test_poll_cq(void)
{
	struct ibv_wc wc[3];
	struct ibv_cq *cq;
	int i, n, total = 0;

	cq = sroce_create_cq(&fake_ctx, 4, NULL, 0);
	CHECK(cq);
	if (!cq)
		return;
	CHECK(sroce_poll_cq(cq, 3, wc) == 0);

	kcq_push(1, IBV_WC_SUCCESS, IBV_WC_RECV, 1 | 2 | 4, 0x01020304);
	kcq_push(2, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE, 0, 0);
	kcq_push(3, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, 2, 0xaabbccdd);
	n = sroce_poll_cq(cq, 2, wc);
	CHECK(n == 2);
	CHECK(wc[0].wr_id == 1 && wc[0].opcode == IBV_WC_RECV);
	CHECK(wc[0].wc_flags == (IBV_WC_GRH | IBV_WC_WITH_IMM |
				 IBV_WC_WITH_INV));
	CHECK(wc[0].imm_data == 0x01020304);
	CHECK(wc[0].byte_len == 101 && wc[0].qp_num == 0x11 &&
	      wc[0].src_qp == 0x22 && wc[0].sl == 3 && wc[0].slid == 0x44 &&
	      wc[0].dlid_path_bits == 5);
	CHECK(wc[1].status == IBV_WC_REM_ACCESS_ERR && wc[1].wc_flags == 0);
	CHECK(kcq.ctl->cons == 2);
	n = sroce_poll_cq(cq, 3, wc);
	CHECK(n == 1 && wc[0].wr_id == 3 && wc[0].wc_flags == IBV_WC_WITH_IMM);
	CHECK(kcq.ctl->cons == 3);

	/* Many laps of the 4-entry ring. */
	for (i = 0; i < 40; i++) {
		kcq_push(1000 + i, 0, 0, 0, 0);
		if (i % 3 == 2) {
			while ((n = sroce_poll_cq(cq, 3, wc)) > 0)
				total += n;
		}
	}
	while ((n = sroce_poll_cq(cq, 3, wc)) > 0)
		total += n;
	CHECK(total == 40);
	CHECK(kcq.ctl->cons == kcq.ctl->prod);

	/* Resize keeps pending CQEs in order. */
	kcq_push(7, 0, 0, 0, 0);
	kcq_push(8, 0, 0, 0, 0);
	CHECK(sroce_resize_cq(cq, 16) == 0);
	kcq_push(9, 0, 0, 0, 0);
	n = sroce_poll_cq(cq, 3, wc);
	CHECK(n == 3 && wc[0].wr_id == 7 && wc[1].wr_id == 8 &&
	      wc[2].wr_id == 9);

	/* Overflow: the CQ is in error from then on. */
	kcq_push(10, 0, 0, 0, 0);
	kcq.ctl->prod_flags = SROCE_CQ_OVERFLOW;
	CHECK(sroce_poll_cq(cq, 3, wc) == -EOVERFLOW);
	CHECK(sroce_destroy_cq(cq) == 0);
}

static void test_poll_cq_ex(void)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 4,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cq;

	a.wc_flags |= IBV_WC_EX_WITH_FLOW_TAG;
	errno = 0;
	CHECK(!sroce_create_cq_ex(&fake_ctx, &a) && errno == EOPNOTSUPP);
	a.wc_flags = IBV_WC_STANDARD_FLAGS;
	cq = sroce_create_cq_ex(&fake_ctx, &a);
	CHECK(cq);
	if (!cq)
		return;

	CHECK(cq->start_poll(cq, &pa) == ENOENT);
	kcq_push(1, 0, IBV_WC_RECV, 2 | 4, 0x1234);
	kcq_push(2, 5, IBV_WC_SEND, 0, 0);
	CHECK(cq->start_poll(cq, &pa) == 0);
	CHECK(cq->wr_id == 1 && cq->status == 0);
	CHECK(ibv_wc_read_opcode(cq) == IBV_WC_RECV);
	CHECK(ibv_wc_read_wc_flags(cq) == (IBV_WC_WITH_IMM | IBV_WC_WITH_INV));
	CHECK(ibv_wc_read_imm_data(cq) == 0x1234);
	CHECK(ibv_wc_read_byte_len(cq) == 101 && ibv_wc_read_qp_num(cq) == 0x11 &&
	      ibv_wc_read_src_qp(cq) == 0x22 && ibv_wc_read_sl(cq) == 3 &&
	      ibv_wc_read_slid(cq) == 0x44 &&
	      ibv_wc_read_dlid_path_bits(cq) == 5);
	CHECK(kcq.ctl->cons == 0);
	CHECK(cq->next_poll(cq) == 0);
	CHECK(cq->wr_id == 2 && cq->status == 5);
	CHECK(kcq.ctl->cons == 1);
	CHECK(cq->next_poll(cq) == ENOENT);
	cq->end_poll(cq);
	CHECK(kcq.ctl->cons == 2);
	kcq_push(3, 0, 0, 0, 0);
	CHECK(cq->start_poll(cq, &pa) == 0);
	cq->end_poll(cq);
	CHECK(kcq.ctl->cons == 3);
	CHECK(sroce_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0);
}

static int64_t wall_offset(void)
{
	struct timespec m, r;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	return (int64_t)(r.tv_sec - m.tv_sec) * 1000000000 +
	       (r.tv_nsec - m.tv_nsec);
}

/* Stamps as the kernel writes them, both readers, the old stride. */
static void test_cq_timestamps(void)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 4,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_poll_cq_attr pa = {};
	struct sroce_cqe_abi *c;
	struct ibv_cq_ex *cq;
	int64_t off0, off1, d;

	cq = sroce_create_cq_ex(&fake_ctx, &a);
	CHECK(cq);
	if (!cq)
		return;
	kcq_push(1, 0, IBV_WC_SEND, 0, 0);
	c = kring_elem(&kcq, kcq.ctl->prod - 1);
	c->ts = 123456789012ull;
	off0 = wall_offset();
	CHECK(cq->start_poll(cq, &pa) == 0);
	off1 = wall_offset();
	CHECK(ibv_wc_read_completion_ts(cq) == 123456789012ull);
	d = (int64_t)ibv_wc_read_completion_wallclock_ns(cq) - 123456789012ll;
	CHECK(d >= off0 - 1000000 && d <= off1 + 1000000);
	cq->end_poll(cq);
	CHECK(sroce_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0);

	CHECK(sroce_query_rt_values(&fake_ctx, &v) == 0);
	CHECK(v.comp_mask == IBV_VALUES_MASK_RAW_CLOCK &&
	      v.raw_clock.tv_sec == 0 && v.raw_clock.tv_nsec > 0);
	v.comp_mask = IBV_VALUES_MASK_RESERVED;
	CHECK(sroce_query_rt_values(&fake_ctx, &v) == EINVAL);

	/* 48-byte CQEs: stamps cannot be read, plain CQs still work. */
	next_cq_stride = 48;
	errno = 0;
	CHECK(!sroce_create_cq_ex(&fake_ctx, &a) && errno);
	a.wc_flags = IBV_WC_STANDARD_FLAGS;
	cq = sroce_create_cq_ex(&fake_ctx, &a);
	CHECK(cq);
	if (cq)
		CHECK(sroce_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0);
	next_cq_stride = sizeof(struct sroce_cqe_abi);
}

/*
 * Parent domains carry their PD's handle; a thread domain drops the
 * locks of the QPs and CQs made with it; nothing is freed under a user.
 */
static void test_parent_domain(void)
{
	struct ibv_td_init_attr ta = {};
	struct ibv_parent_domain_init_attr pa = {};
	struct ibv_cq_init_attr_ex ca = { .cqe = 4,
					  .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_pd *pd, *par, *par2;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_td *td;

	pd = sroce_alloc_pd(&fake_ctx);
	CHECK(pd && pd->handle);
	ta.comp_mask = 1;
	CHECK(!sroce_alloc_td(&fake_ctx, &ta) && errno == EINVAL);
	ta.comp_mask = 0;
	td = sroce_alloc_td(&fake_ctx, &ta);
	CHECK(td);
	if (!pd || !td)
		return;
	CHECK(!sroce_alloc_parent_domain(&fake_ctx, &pa) && errno == EINVAL);
	pa.pd = pd;
	pa.td = td;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT |
		       IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	pa.pd_context = &pa;
	pa.alloc = IBV_ALLOCATOR_USE_DEFAULT;
	pa.free = IBV_ALLOCATOR_USE_DEFAULT;
	par = sroce_alloc_parent_domain(&fake_ctx, &pa);
	CHECK(par && par->handle == pd->handle && par->context == &fake_ctx);
	if (!par)
		return;
	CHECK(to_sroce_pd(par)->parent_of == to_sroce_pd(pd));
	pa.pd = par;
	CHECK(!sroce_alloc_parent_domain(&fake_ctx, &pa) && errno == EINVAL);
	pa.pd = pd;
	pa.td = NULL;
	pa.comp_mask = 0;
	par2 = sroce_alloc_parent_domain(&fake_ctx, &pa);
	CHECK(par2);

	CHECK(sroce_dealloc_pd(pd) == EBUSY);
	CHECK(sroce_dealloc_td(td) == EBUSY);

	/* A QP in a thread domain goes without locks, one without keeps them. */
	qp = make_qp_pd(IBV_QPT_RC, 0, par);
	CHECK(qp && to_sroce_qp(qp)->sq.lockless && to_sroce_qp(qp)->rq.lockless);
	CHECK(sroce_dealloc_pd(par) == EBUSY);
	if (qp)
		CHECK(sroce_destroy_qp(qp) == 0);
	qp = make_qp_pd(IBV_QPT_RC, 0, par2);
	CHECK(qp && !to_sroce_qp(qp)->sq.lockless);
	if (qp)
		CHECK(sroce_destroy_qp(qp) == 0);
	qp = make_qp(IBV_QPT_RC, 0);
	CHECK(qp && !to_sroce_qp(qp)->sq.lockless);
	if (qp)
		CHECK(sroce_destroy_qp(qp) == 0);
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	ca.parent_domain = pd;
	CHECK(!sroce_create_cq_ex(&fake_ctx, &ca) && errno == EINVAL);
	ca.parent_domain = par;
	cq = sroce_create_cq_ex(&fake_ctx, &ca);
	CHECK(cq && to_sroce_cq_ex(cq)->lockless);
	CHECK(sroce_dealloc_pd(par) == EBUSY);
	if (cq)
		CHECK(sroce_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0);
	ca.parent_domain = par2;
	cq = sroce_create_cq_ex(&fake_ctx, &ca);
	CHECK(cq && !to_sroce_cq_ex(cq)->lockless);
	if (cq)
		CHECK(sroce_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0);
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	cq = sroce_create_cq_ex(&fake_ctx, &ca);
	CHECK(cq && to_sroce_cq_ex(cq)->lockless);
	if (cq)
		CHECK(sroce_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0);

	CHECK(sroce_dealloc_pd(par) == 0);
	CHECK(sroce_dealloc_td(td) == 0);
	CHECK(sroce_dealloc_pd(pd) == EBUSY);
	CHECK(sroce_dealloc_pd(par2) == 0);
	CHECK(sroce_dealloc_pd(pd) == 0);
}

static void test_post_recv(void)
{
	struct ibv_sge sge[5] = {
		{ .addr = 0x1000, .length = 10, .lkey = 1 },
		{ .addr = 0x2000, .length = 20, .lkey = 2 },
	};
	struct ibv_recv_wr wr[6], *bad = NULL;
	struct sroce_recv_wqe_abi *w;
	struct sroce_sge_abi *s;
	struct ibv_qp *qp;
	int i;

	qp = make_qp(IBV_QPT_RC, 0);
	CHECK(qp);
	if (!qp)
		return;
	for (i = 0; i < 6; i++)
		wr[i] = (struct ibv_recv_wr){ .wr_id = 50 + i, .sg_list = sge,
					      .num_sge = 2,
					      .next = i < 5 ? &wr[i + 1] : NULL };

	/* RESET: refused; INIT is fine (tested below in RTS). */
	qp->state = IBV_QPS_RESET;
	CHECK(sroce_post_recv(qp, &wr[0], &bad) == EINVAL && bad == &wr[0]);
	CHECK(krq.ctl->prod == 0);
	qp->state = IBV_QPS_INIT;

	/* Too many SGEs: nothing posted, bad_wr is the culprit. */
	wr[0].num_sge = 5;
	CHECK(sroce_post_recv(qp, &wr[0], &bad) == EINVAL && bad == &wr[0]);
	CHECK(krq.ctl->prod == 0);
	wr[0].num_sge = 2;

	/* 6 WRs into 4 slots: 4 posted, ENOMEM at the 5th. */
	CHECK(sroce_post_recv(qp, &wr[0], &bad) == ENOMEM && bad == &wr[4]);
	CHECK(krq.ctl->prod == 4);
	w = kring_elem(&krq, 1);
	s = (void *)(w + 1);
	CHECK(w->wr_id == 51 && w->num_sge == 2 && s[1].addr == 0x2000 &&
	      s[1].length == 20 && s[1].lkey == 2);

	/* The kernel consumes two: two more fit. */
	__atomic_store_n(&krq.ctl->cons, 2, __ATOMIC_RELEASE);
	wr[5].next = NULL;
	CHECK(sroce_post_recv(qp, &wr[4], &bad) == 0);
	CHECK(krq.ctl->prod == 6);
	w = kring_elem(&krq, 5);
	CHECK(w->wr_id == 55);
	CHECK(doorbells == 0);
	CHECK(sroce_destroy_qp(qp) == 0);
}

static void test_post_send(void)
{
	uint8_t payload[40];
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)payload, .length = 16, .lkey = 9 },
		{ .addr = (uintptr_t)payload + 16, .length = 24, .lkey = 9 },
	};
	struct ibv_send_wr wr[5], *bad = NULL;
	struct sroce_send_wqe_abi *w;
	struct ibv_ah_attr aa = {};
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	int i;

	for (i = 0; i < (int)sizeof(payload); i++)
		payload[i] = i;
	qp = make_qp(IBV_QPT_RC, 0);
	CHECK(qp);
	if (!qp)
		return;
	doorbells = 0;
	for (i = 0; i < 5; i++)
		wr[i] = (struct ibv_send_wr){
			.wr_id = 10 + i, .sg_list = sge, .num_sge = 2,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = 0xabc0, .rkey = 0x55 },
			.next = i < 4 ? &wr[i + 1] : NULL };

	/* Before RTS: refused, nothing written, no doorbell. */
	wr[0].next = NULL;
	qp->state = IBV_QPS_RTR;
	CHECK(sroce_post_send(qp, &wr[0], &bad) == EINVAL && bad == &wr[0]);
	CHECK(ksq.ctl->prod == 0 && doorbells == 0);
	qp->state = IBV_QPS_RTS;

	/* One WR: one doorbell. */
	CHECK(sroce_post_send(qp, &wr[0], &bad) == 0);
	CHECK(ksq.ctl->prod == 1 && doorbells == 1);
	w = kring_elem(&ksq, 0);
	CHECK(w->wr_id == 10 && w->opcode == IBV_WR_RDMA_WRITE &&
	      w->num_sge == 2 && w->rdma.remote_addr == 0xabc0 &&
	      w->rdma.rkey == 0x55 && w->send_flags == IBV_SEND_SIGNALED);

	/* While the kernel drains: no doorbell at all. */
	ksq.ctl->cons_flags = SROCE_SQ_DRAINING;
	wr[1].next = NULL;
	wr[1].opcode = IBV_WR_SEND_WITH_IMM;
	wr[1].imm_data = htobe32(0x01020304);
	CHECK(sroce_post_send(qp, &wr[1], &bad) == 0);
	CHECK(ksq.ctl->prod == 2 && doorbells == 1);
	w = kring_elem(&ksq, 1);
	CHECK(w->ex == htobe32(0x01020304));
	ksq.ctl->cons_flags = 0;

	/* Inline: data gathered into the WQE. */
	wr[2].send_flags = IBV_SEND_INLINE;
	wr[2].next = NULL;
	CHECK(sroce_post_send(qp, &wr[2], &bad) == 0);
	w = kring_elem(&ksq, 2);
	CHECK(w->inline_len == 40 && w->num_sge == 0 &&
	      !memcmp(w + 1, payload, 40));
	CHECK(doorbells == 2);

	/* A list that fills the ring: posted up to full, ENOMEM, 1 doorbell. */
	wr[2].send_flags = 0;
	wr[2].next = &wr[3];
	CHECK(sroce_post_send(qp, &wr[2], &bad) == ENOMEM && bad == &wr[3]);
	CHECK(ksq.ctl->prod == 4 && doorbells == 3);

	/* Bad opcode and oversized inline: EINVAL, nothing posted. */
	__atomic_store_n(&ksq.ctl->cons, 4, __ATOMIC_RELEASE);
	wr[4].opcode = IBV_WR_TSO;
	CHECK(sroce_post_send(qp, &wr[4], &bad) == EINVAL && bad == &wr[4]);
	wr[4].opcode = IBV_WR_RDMA_READ;
	wr[4].send_flags = IBV_SEND_INLINE;
	CHECK(sroce_post_send(qp, &wr[4], &bad) == EINVAL);
	wr[4].opcode = IBV_WR_SEND;
	sge[1].length = 60;
	CHECK(sroce_post_send(qp, &wr[4], &bad) == EINVAL);
	sge[1].length = 24;
	CHECK(ksq.ctl->prod == 4 && doorbells == 3);

	/* A failing doorbell: its errno, bad_wr the first WR. */
	doorbell_err = EIO;
	wr[4].send_flags = 0;
	CHECK(sroce_post_send(qp, &wr[4], &bad) == EIO && bad == &wr[4]);
	doorbell_err = 0;
	/* Every one so far by write(2), each a well-formed POST_SEND. */
	CHECK(doorbells == 4 && ioctl_doorbells == 0 && bad_doorbells == 0);

	/* write(2) refused: this QP rings with the ioctl form from now on. */
	__atomic_store_n(&ksq.ctl->cons, 5, __ATOMIC_RELEASE);
	write_refused = true;
	CHECK(sroce_post_send(qp, &wr[4], &bad) == 0);
	CHECK(doorbells == 5 && ioctl_doorbells == 1);
	write_refused = false;
	CHECK(sroce_post_send(qp, &wr[4], &bad) == 0);
	CHECK(doorbells == 6 && ioctl_doorbells == 2 && bad_doorbells == 0);
	CHECK(sroce_destroy_qp(qp) == 0);

	/* UC: no READ; UD: SEND only, AH by number. */
	qp = make_qp(IBV_QPT_UC, 0);
	CHECK(qp);
	if (!qp)
		return;
	wr[0].opcode = IBV_WR_RDMA_READ;
	CHECK(sroce_post_send(qp, &wr[0], &bad) == EINVAL);
	wr[0].opcode = IBV_WR_SEND_WITH_INV;
	CHECK(sroce_post_send(qp, &wr[0], &bad) == EINVAL);
	CHECK(sroce_destroy_qp(qp) == 0);

	qp = make_qp(IBV_QPT_UD, 0);
	CHECK(qp);
	if (!qp)
		return;
	ah = sroce_create_ah(&fake_pd, &aa);
	CHECK(ah);
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	wr[0].wr.ud.ah = ah;
	CHECK(sroce_post_send(qp, &wr[0], &bad) == EINVAL);
	wr[0].opcode = IBV_WR_SEND;
	wr[0].wr.ud.remote_qpn = 0x123;
	wr[0].wr.ud.remote_qkey = 0x11111111;
	CHECK(sroce_post_send(qp, &wr[0], &bad) == 0);
	w = kring_elem(&ksq, 0);
	CHECK(w->ud.ah_num == 77 && w->ud.remote_qpn == 0x123 &&
	      w->ud.remote_qkey == 0x11111111);
	wr[0].wr.ud.ah = NULL;
	CHECK(sroce_post_send(qp, &wr[0], &bad) == EINVAL);
	CHECK(sroce_destroy_ah(ah) == 0);
	CHECK(sroce_destroy_qp(qp) == 0);
}

static void test_qp_ex(void)
{
	struct sroce_send_wqe_abi *w;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	char data[8] = "inline!";
	unsigned int db;
	int i;

	errno = 0;
	CHECK(!make_qp(IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE) &&
	      errno == EOPNOTSUPP);
	qp = make_qp(IBV_QPT_RC, IBV_QP_EX_WITH_SEND |
		     IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	CHECK(qp);
	if (!qp)
		return;
	qpx = ibv_qp_to_qp_ex(qp);
	CHECK(qpx && qpx->wr_send && !qpx->wr_rdma_read);
	if (!qpx)
		return;
	db = doorbells;

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 3, 0x1000, 64);
	qpx->wr_id = 2;
	ibv_wr_rdma_write(qpx, 0x77, 0x2000);
	ibv_wr_set_inline_data(qpx, data, sizeof(data));
	qpx->wr_id = 3;
	ibv_wr_atomic_fetch_add(qpx, 0x88, 0x3000, 5);
	ibv_wr_set_sge(qpx, 4, 0x4000, 8);
	CHECK(ksq.ctl->prod == 0);
	CHECK(ibv_wr_complete(qpx) == 0);
	CHECK(ksq.ctl->prod == 3 && doorbells == db + 1);
	w = kring_elem(&ksq, 0);
	CHECK(w->wr_id == 1 && w->opcode == IBV_WR_SEND && w->num_sge == 1);
	w = kring_elem(&ksq, 1);
	CHECK(w->opcode == IBV_WR_RDMA_WRITE && w->inline_len == 8 &&
	      (w->send_flags & IBV_SEND_INLINE) && !memcmp(w + 1, data, 8) &&
	      w->rdma.rkey == 0x77);
	w = kring_elem(&ksq, 2);
	CHECK(w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD &&
	      w->atomic.compare_add == 5 && w->atomic.rkey == 0x88);

	/* Before RTS: wr_complete refuses the whole batch. */
	qp->state = IBV_QPS_RTR;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 3, 0x1000, 64);
	CHECK(ibv_wr_complete(qpx) == EINVAL);
	CHECK(ksq.ctl->prod == 3 && doorbells == db + 1);
	qp->state = IBV_QPS_RTS;

	/* An error anywhere posts nothing of the batch. */
	__atomic_store_n(&ksq.ctl->cons, 3, __ATOMIC_RELEASE);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 3, 0x1000, 64);
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, data, 1000);
	CHECK(ibv_wr_complete(qpx) == EINVAL);
	CHECK(ksq.ctl->prod == 3 && doorbells == db + 1);

	/* Abort forgets; full ring gives ENOMEM. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_abort(qpx);
	CHECK(ksq.ctl->prod == 3);
	ibv_wr_start(qpx);
	for (i = 0; i < 5; i++)
		ibv_wr_send(qpx);
	CHECK(ibv_wr_complete(qpx) == ENOMEM);
	CHECK(ksq.ctl->prod == 3 && doorbells == db + 1);
	CHECK(sroce_destroy_qp(qp) == 0);
}

/* ATOMIC_WRITE and FLUSH: RC only, everything in the WQE header. */
static void test_qp_ex_placement(void)
{
	uint8_t value[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct sroce_send_wqe_abi *w;
	struct ibv_send_wr wr, *bad;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;

	errno = 0;
	CHECK(!make_qp(IBV_QPT_UC, IBV_QP_EX_WITH_FLUSH) && errno == EOPNOTSUPP);
	qp = make_qp(IBV_QPT_RC, IBV_QP_EX_WITH_ATOMIC_WRITE |
		     IBV_QP_EX_WITH_FLUSH);
	CHECK(qp);
	if (!qp)
		return;
	qpx = ibv_qp_to_qp_ex(qp);
	CHECK(qpx->wr_atomic_write && qpx->wr_flush && !qpx->wr_send);

	ibv_wr_start(qpx);
	qpx->wr_id = 7;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, 0x55, 0x5008, value);
	/* The caller's buffer is its own again: the value was copied. */
	memset(value, 0xee, sizeof(value));
	qpx->wr_id = 8;
	ibv_wr_flush(qpx, 0x66, 0x6000, 4096, IBV_FLUSH_GLOBAL, IBV_FLUSH_MR);
	CHECK(ibv_wr_complete(qpx) == 0);
	CHECK(ksq.ctl->prod == 2);
	w = kring_elem(&ksq, 0);
	CHECK(w->wr_id == 7 && w->opcode == IBV_WR_ATOMIC_WRITE &&
	      w->atomic_wr.remote_addr == 0x5008 && w->atomic_wr.rkey == 0x55 &&
	      w->atomic_wr.value[0] == 1 && w->atomic_wr.value[7] == 8 &&
	      !w->num_sge && !w->inline_len &&
	      w->send_flags == IBV_SEND_SIGNALED);
	w = kring_elem(&ksq, 1);
	CHECK(w->wr_id == 8 && w->opcode == IBV_WR_FLUSH &&
	      w->flush.remote_addr == 0x6000 && w->flush.rkey == 0x66 &&
	      w->flush.length == 4096 && w->flush.type == IBV_FLUSH_GLOBAL &&
	      w->flush.level == IBV_FLUSH_MR);

	/* No inline data, no 4 GiB range, no ibv_post_send form. */
	ibv_wr_start(qpx);
	ibv_wr_atomic_write(qpx, 0x55, 0x5008, value);
	ibv_wr_set_inline_data(qpx, value, 8);
	CHECK(ibv_wr_complete(qpx) == EINVAL);
	ibv_wr_start(qpx);
	ibv_wr_flush(qpx, 0x66, 0x6000, 1ull << 32, IBV_FLUSH_GLOBAL,
		     IBV_FLUSH_RANGE);
	CHECK(ibv_wr_complete(qpx) == EINVAL);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	CHECK(sroce_post_send(qp, &wr, &bad) == EINVAL && bad == &wr);
	CHECK(ksq.ctl->prod == 2);
	CHECK(sroce_destroy_qp(qp) == 0);
}

/*
 * XRC_SEND: the remote SRQ number lands in the WQE's xrc_srqn, from
 * ibv_send_wr and from ibv_wr_set_xrc_srqn(); more than 24 bits is
 * EINVAL; no placement builders.
 */
static void test_xrc_send(void)
{
	struct sroce_send_wqe_abi *w;
	struct ibv_send_wr wr, *bad;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;

	errno = 0;
	CHECK(!make_qp(IBV_QPT_XRC_SEND, IBV_QP_EX_WITH_FLUSH) &&
	      errno == EOPNOTSUPP);
	qp = make_qp(IBV_QPT_XRC_SEND, IBV_QP_EX_WITH_SEND);
	CHECK(qp);
	if (!qp)
		return;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	wr.opcode = IBV_WR_SEND;
	wr.qp_type.xrc.remote_srqn = 0xabcdef;
	CHECK(sroce_post_send(qp, &wr, &bad) == 0);
	w = kring_elem(&ksq, 0);
	CHECK(ksq.ctl->prod == 1 && w->wr_id == 3 && w->xrc_srqn == 0xabcdef);
	wr.qp_type.xrc.remote_srqn = 0x1000000;
	CHECK(sroce_post_send(qp, &wr, &bad) == EINVAL && bad == &wr);
	CHECK(ksq.ctl->prod == 1);

	qpx = ibv_qp_to_qp_ex(qp);
	ibv_wr_start(qpx);
	qpx->wr_id = 4;
	qpx->wr_flags = 0;
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, 0x123);
	CHECK(ibv_wr_complete(qpx) == 0);
	w = kring_elem(&ksq, 1);
	CHECK(ksq.ctl->prod == 2 && w->wr_id == 4 && w->xrc_srqn == 0x123);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, 0x1000000);
	CHECK(ibv_wr_complete(qpx) == EINVAL);
	CHECK(ksq.ctl->prod == 2);
	CHECK(sroce_destroy_qp(qp) == 0);
}

/*
 * Threads against a fake kernel that drains the SQ as the real one must:
 * set SROCE_SQ_DRAINING, consume to prod, clear the flag, full barrier,
 * re-read prod and go on if it moved; it sleeps until a doorbell
 * otherwise.  Two threads post, one polls.  A lost wake-up (a WQE left
 * in the ring with nobody draining) hangs the test; lost or reordered
 * completions fail it.
 */
#define STRESS_WRS	20000
#define STRESS_THREADS	2

static struct ibv_qp *stress_qp;
static struct ibv_cq *stress_cq;
static bool stress_stop;

static void *stress_kernel(void *arg)
{
	struct sroce_ring_ctl *sq = ksq.ctl;
	struct sroce_send_wqe_abi *w;
	struct sroce_cqe_abi *c;
	uint32_t cons = 0, prod;

	for (;;) {
		sem_wait(&kick);
		if (__atomic_load_n(&stress_stop, __ATOMIC_ACQUIRE))
			return NULL;
		__atomic_store_n(&sq->cons_flags, SROCE_SQ_DRAINING,
				 __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		for (;;) {
			prod = __atomic_load_n(&sq->prod, __ATOMIC_ACQUIRE);
			while (cons != prod) {
				w = kring_elem(&ksq, cons);
				/* Wait for room in the CQ. */
				while (kcq.ctl->prod -
				       __atomic_load_n(&kcq.ctl->cons,
						       __ATOMIC_ACQUIRE) >=
				       kcq.abi.entries)
					;
				c = kring_elem(&kcq, kcq.ctl->prod);
				memset(c, 0, sizeof(*c));
				c->wr_id = w->wr_id;
				__atomic_store_n(&kcq.ctl->prod,
						 kcq.ctl->prod + 1,
						 __ATOMIC_RELEASE);
				cons++;
				__atomic_store_n(&sq->cons, cons,
						 __ATOMIC_RELEASE);
			}
			__atomic_store_n(&sq->cons_flags, 0, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			if (__atomic_load_n(&sq->prod, __ATOMIC_ACQUIRE) == cons)
				break;
			__atomic_store_n(&sq->cons_flags, SROCE_SQ_DRAINING,
					 __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		}
	}
}

static void *stress_poster(void *arg)
{
	uint64_t t = (uintptr_t)arg, i = 0;
	struct ibv_send_wr wr[3], *bad;
	int n, k, ret;

	while (i < STRESS_WRS) {
		n = 1 + i % 3;
		if (i + n > STRESS_WRS)
			n = STRESS_WRS - i;
		for (k = 0; k < n; k++)
			wr[k] = (struct ibv_send_wr){
				.wr_id = t << 32 | (i + k),
				.opcode = IBV_WR_SEND,
				.next = k + 1 < n ? &wr[k + 1] : NULL };
		ret = sroce_post_send(stress_qp, wr, &bad);
		if (ret && ret != ENOMEM)
			return (void *)1;
		/* On ENOMEM the WRs from bad on go again. */
		i += ret ? bad - wr : n;
	}
	return NULL;
}

static void test_threads(void)
{
	uint64_t next[STRESS_THREADS] = {}, t, seq;
	pthread_t kt, pt[STRESS_THREADS];
	unsigned int db0 = doorbells;
	struct ibv_wc wc[16];
	int i, n, got = 0;
	bool order = true;
	time_t deadline;
	void *res;

	next_cq_entries = 256;
	next_sq_entries = 64;
	stress_cq = sroce_create_cq(&fake_ctx, 256, NULL, 0);
	stress_qp = make_qp(IBV_QPT_RC, 0);
	CHECK(stress_cq && stress_qp);
	if (!stress_cq || !stress_qp)
		return;
	stress = true;
	sem_init(&kick, 0, 0);
	pthread_create(&kt, NULL, stress_kernel, NULL);
	for (i = 0; i < STRESS_THREADS; i++)
		pthread_create(&pt[i], NULL, stress_poster,
			       (void *)(uintptr_t)i);

	deadline = time(NULL) + 30;
	while (got < STRESS_THREADS * STRESS_WRS) {
		n = sroce_poll_cq(stress_cq, 16, wc);
		if (n < 0 || time(NULL) > deadline) {
			/* A lost wake-up: say so instead of hanging. */
			printf("threads: stuck at %d completions\n", got);
			CHECK(!"all sends completed");
			printf("provider-unit: %d passed, %d failed\n",
			       passed, failed);
			fflush(stdout);
			_exit(1);
		}
		for (i = 0; i < n; i++) {
			t = wc[i].wr_id >> 32;
			seq = wc[i].wr_id & 0xffffffff;
			if (t >= STRESS_THREADS || seq != next[t])
				order = false;
			else
				next[t]++;
		}
		got += n;
	}
	for (i = 0; i < STRESS_THREADS; i++) {
		pthread_join(pt[i], &res);
		CHECK(!res);
	}
	__atomic_store_n(&stress_stop, true, __ATOMIC_RELEASE);
	sem_post(&kick);
	pthread_join(kt, NULL);
	stress = false;

	CHECK(got == STRESS_THREADS * STRESS_WRS);
	CHECK(order);
	printf("threads: %d sends, %u doorbells\n", got, doorbells - db0);
	CHECK(doorbells - db0 <= (unsigned int)got);
	CHECK(sroce_destroy_qp(stress_qp) == 0);
	CHECK(sroce_destroy_cq(stress_cq) == 0);
}

/* Only BLOCK_SELF_MCAST_LB, through the extended command. */
static void test_create_flags(void)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = &fake_pd,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 4, .max_recv_sge = 4 },
	};
	union ibv_gid gid = {};
	struct ibv_qp *qp;

	a.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	errno = 0;
	CHECK(!sroce_create_qp_ex(&fake_ctx, &a) && errno == EOPNOTSUPP);

	a.create_flags = 0;
	qp = sroce_create_qp_ex(&fake_ctx, &a);
	CHECK(qp && last_create_flags == -1);
	if (qp)
		CHECK(sroce_destroy_qp(qp) == 0);

	a.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	qp = sroce_create_qp_ex(&fake_ctx, &a);
	CHECK(qp && last_create_flags == IBV_QP_CREATE_BLOCK_SELF_MCAST_LB);
	CHECK(a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS);
	if (!qp)
		return;
	gid.raw[0] = 0xff;
	CHECK(sroce_attach_mcast(qp, &gid, 0) == 0 && mcast_cmds == 1);
	CHECK(sroce_detach_mcast(qp, &gid, 0) == 0 && mcast_cmds == 0);
	CHECK(sroce_destroy_qp(qp) == 0);
}

int main(void)
{
	memfd = memfd_create("sroce-rings", 0);
	if (memfd < 0) {
		perror("memfd_create");
		return 1;
	}
	fake_ctx.cmd_fd = memfd;

	test_poll_cq();
	test_poll_cq_ex();
	test_cq_timestamps();
	test_parent_domain();
	test_post_recv();
	test_post_send();
	test_qp_ex();
	test_qp_ex_placement();
	test_xrc_send();
	test_create_flags();
	test_threads();

	printf("provider-unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
