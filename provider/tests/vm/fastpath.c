// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fastpath: the system calls of the data path, measured.  Two RC QPs of
 * one device are connected to each other through the device's own GID;
 * each phase below runs between two marker system calls (a write() to fd
 * -1 naming the phase, which fails with EBADF and does nothing else), so
 * that "strace -o T fastpath ..." shows exactly which calls each phase
 * made; provider/tests/vm/fastpath.sh counts them.
 *
 *   fastpath DEV GID_INDEX [N]
 *
 * Phases: N ibv_post_recv (one WR each); N ibv_poll_cq on an empty CQ;
 * N ibv_post_send (one signaled SEND each, polled to completion on both
 * sides before the next: the worst case for doorbells, every post finds
 * the SQ idle); one ibv_post_send of a list of N/4 WRs; then the payloads
 * are checked.  Output ends with "fastpath: N passed, M failed".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MSG	64

static int passed, failed;

#define CHECK(what, cond) do {						\
	if (cond) {							\
		passed++;						\
		printf("PASS %s\n", what);				\
	} else {							\
		failed++;						\
		printf("FAIL %s (line %d)\n", what, __LINE__);		\
	}								\
} while (0)

static void marker(const char *what)
{
	/* Shows in strace as write(-1, "<what>", ...) = -1 EBADF. */
	if (write(-1, what, strlen(what)) != -1)
		abort();
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

static int connect_qp(struct ibv_qp *qp, uint32_t dqpn, int gidx,
		      const union ibv_gid *gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Poll until @want completions, all successful; false on error/timeout. */
static bool reap(struct ibv_cq *cq, int want, long *polls)
{
	struct ibv_wc wc[16];
	long spins = 0;
	int n, i;

	while (want > 0) {
		n = ibv_poll_cq(cq, 16, wc);
		(*polls)++;
		if (n < 0)
			return false;
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				printf("wc status %s wr_id %llu\n",
				       ibv_wc_status_str(wc[i].status),
				       (unsigned long long)wc[i].wr_id);
				return false;
			}
		want -= n;
		if (++spins > 2000000000L)
			return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 1024, .max_recv_wr = 1024,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	struct ibv_send_wr *swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_context *ctx;
	struct ibv_qp *qa, *qb;
	struct ibv_sge *sge;
	union ibv_gid gid;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	long polls = 0;
	int n, gidx, i, bad = 0;
	uint8_t *buf;
	bool ok = true;

	if (argc < 3) {
		fprintf(stderr, "usage: fastpath DEV GID_INDEX [N]\n");
		return 2;
	}
	gidx = atoi(argv[2]);
	n = argc > 3 ? atoi(argv[3]) : 1000;
	if (n < 4 || n > 1024)
		n = 1000;

	ctx = open_dev(argv[1]);
	if (!ctx || ibv_query_gid(ctx, 1, gidx, &gid))
		return 1;
	pd = ibv_alloc_pd(ctx);
	buf = calloc(2 * n, MSG);
	swr = calloc(n, sizeof(*swr));
	sge = calloc(n, sizeof(*sge));
	if (!pd || !buf || !swr || !sge)
		return 1;
	mr = ibv_reg_mr(pd, buf, 2 * n * MSG, IBV_ACCESS_LOCAL_WRITE);
	cq = ibv_create_cq(ctx, 4 * n, NULL, NULL, 0);
	ia.send_cq = ia.recv_cq = cq;
	qa = mr && cq ? ibv_create_qp(pd, &ia) : NULL;
	qb = qa ? ibv_create_qp(pd, &ia) : NULL;
	CHECK("setup", qa && qb);
	if (!qa || !qb)
		return 1;
	CHECK("connect", !connect_qp(qa, qb->qp_num, gidx, &gid) &&
	      !connect_qp(qb, qa->qp_num, gidx, &gid));

	/* Receive buffers: the second half of buf, one MSG per WR. */
	marker("begin post_recv");
	for (i = 0; i < n; i++) {
		sge[0] = (struct ibv_sge){
			.addr = (uintptr_t)buf + (n + i) * MSG,
			.length = MSG, .lkey = mr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &sge[0],
					    .num_sge = 1 };
		if (ibv_post_recv(qb, &rwr, &rbad))
			bad++;
	}
	marker("end post_recv");
	CHECK("post_recv", !bad);

	marker("begin poll_empty");
	for (i = 0; i < n; i++)
		if (ibv_poll_cq(cq, 1, &wc))
			bad++;
	marker("end poll_empty");
	CHECK("poll_cq empty", !bad);

	for (i = 0; i < n; i++)
		memset(buf + i * MSG, i & 0xff, MSG);

	/* One by one: each post finds the SQ idle, the worst case. */
	marker("begin send_one");
	for (i = 0; i < 3 * n / 4 && ok; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)buf + i * MSG,
					   .length = MSG, .lkey = mr->lkey };
		swr[i] = (struct ibv_send_wr){
			.wr_id = i, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
		ok = !ibv_post_send(qa, &swr[i], &sbad) && reap(cq, 2, &polls);
	}
	marker("end send_one");
	CHECK("send one by one", ok);
	printf("send_one: %d sends, %ld poll_cq calls\n", i, polls);

	/* The rest as one list: one doorbell at most. */
	marker("begin send_list");
	for (i = 3 * n / 4; i < n; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)buf + i * MSG,
					   .length = MSG, .lkey = mr->lkey };
		swr[i] = (struct ibv_send_wr){
			.wr_id = i, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.next = i + 1 < n ? &swr[i + 1] : NULL };
	}
	ok = ok && !ibv_post_send(qa, &swr[3 * n / 4], &sbad);
	marker("end send_list");
	CHECK("send list", ok && reap(cq, 2 * (n - 3 * n / 4), &polls));

	CHECK("payloads", !memcmp(buf, buf + n * MSG, n * MSG));

	CHECK("teardown", !ibv_destroy_qp(qa) && !ibv_destroy_qp(qb) &&
	      !ibv_destroy_cq(cq) && !ibv_dereg_mr(mr) &&
	      !ibv_dealloc_pd(pd) && !ibv_close_device(ctx));
	printf("fastpath: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
