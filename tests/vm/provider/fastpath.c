// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fastpath: the system calls of the data path, measured.  Two RC QPs of
 * one device are connected to each other through the device's own GID;
 * each phase below runs between two marker system calls (a write() to fd
 * -1 naming the phase, which fails with EBADF and does nothing else), so
 * that "strace -o T fastpath ..." shows exactly which calls each phase
 * made; tests/vm/provider/fastpath.sh counts them.
 *
 *   fastpath DEV GID_INDEX [N]
 *
 * Phases: N ibv_post_recv (one WR each); N ibv_poll_cq on an empty CQ;
 * N ibv_post_send (one signaled SEND each, polled to completion on both
 * sides before the next: the worst case for doorbells, every post finds
 * the SQ idle); one ibv_post_send of a list of N/4 WRs; then the payloads
 * are checked.  Then, not counted: the ibv_qp_ex builders (a batch of
 * SENDs, half inline, one wr_complete) reaped with the extended poll API;
 * and UD: SEND_WITH_IMM through an AH, checking the completion's flags
 * (GRH, WITH_IMM), imm_data, byte_len (payload + 40-byte GRH) and src_qp.
 * Output ends with "fastpath: N passed, M failed".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>

#include <infiniband/verbs.h>

#include "../verbs/vm-verbs.h"
#include "vm-check.h"

#define MSG	64

static void marker(const char *what)
{
	/* Shows in strace as write(-1, "<what>", ...) = -1 EBADF. */
	if (write(-1, what, strlen(what)) != -1)
		abort();
}

static int connect_qp(struct ibv_qp *qp, uint32_t dqpn, int gidx,
		      const union ibv_gid *gid)
{
	return vm_connect_rc(qp, dqpn, gid, gidx, IBV_ACCESS_REMOTE_WRITE);
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

/* The ibv_qp_ex builders and the extended CQ, RC loopback. */
static void qp_ex_phase(struct ibv_context *ctx, struct ibv_pd *pd, int gidx,
			const union ibv_gid *gid)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex ia = {
		.cap = { .max_send_wr = 32, .max_recv_wr = 32,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = MSG },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	static uint8_t buf[2 * 16 * MSG];
	struct ibv_poll_cq_attr pa = {};
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_qp *qa, *qb;
	struct ibv_qp_ex *qx;
	struct ibv_cq_ex *cq;
	struct ibv_sge sge;
	struct ibv_mr *mr;
	int i, got = 0, sends = 0, recvs = 0, bad = 0, ret;
	long spins = 0;

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	cq = ibv_create_cq_ex(ctx, &ca);
	ia.send_cq = cq ? ibv_cq_ex_to_cq(cq) : NULL;
	ia.recv_cq = ia.send_cq;
	qa = mr && cq ? ibv_create_qp_ex(ctx, &ia) : NULL;
	qb = qa ? ibv_create_qp_ex(ctx, &ia) : NULL;
	qx = qa ? ibv_qp_to_qp_ex(qa) : NULL;
	CHECK("qp_ex setup", qx && qb &&
	      !connect_qp(qa, qb->qp_num, gidx, gid) &&
	      !connect_qp(qb, qa->qp_num, gidx, gid));
	if (!qx || !qb)
		return;
	for (i = 0; i < 16; i++) {
		memset(buf + i * MSG, 0xa0 + i, MSG);
		sge = (struct ibv_sge){ .addr = (uintptr_t)buf + (16 + i) * MSG,
					.length = MSG, .lkey = mr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = 100 + i, .sg_list = &sge,
					    .num_sge = 1 };
		bad |= ibv_post_recv(qb, &rwr, &rbad);
	}
	ibv_wr_start(qx);
	for (i = 0; i < 16; i++) {
		qx->wr_id = i;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qx);
		if (i & 1)
			ibv_wr_set_inline_data(qx, buf + i * MSG, MSG);
		else
			ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)buf + i * MSG,
				       MSG);
	}
	CHECK("wr_complete", !bad && !ibv_wr_complete(qx));

	while (got < 32 && spins++ < 2000000000L) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT)
			continue;
		if (ret)
			break;
		do {
			got++;
			if (cq->status != IBV_WC_SUCCESS)
				bad = 1;
			else if (ibv_wc_read_opcode(cq) == IBV_WC_SEND)
				sends++;
			else if (ibv_wc_read_opcode(cq) == IBV_WC_RECV &&
				 ibv_wc_read_byte_len(cq) == MSG &&
				 ibv_wc_read_qp_num(cq) == qb->qp_num &&
				 !(ibv_wc_read_wc_flags(cq) & IBV_WC_WITH_IMM))
				recvs++;
		} while (ibv_next_poll(cq) == 0);
		ibv_end_poll(cq);
	}
	CHECK("extended poll: 16 sends, 16 receives", !bad && sends == 16 &&
	      recvs == 16);
	CHECK("qp_ex payloads (half inline)",
	      !memcmp(buf, buf + 16 * MSG, 16 * MSG));
	CHECK("qp_ex teardown", !ibv_destroy_qp(qa) && !ibv_destroy_qp(qb) &&
	      !ibv_destroy_cq(ibv_cq_ex_to_cq(cq)) && !ibv_dereg_mr(mr));
}

/* UD through an AH to our own GID, with immediate data. */
static void ud_phase(struct ibv_context *ctx, struct ibv_pd *pd, int gidx,
		     const union ibv_gid *gid)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = MSG },
		.qp_type = IBV_QPT_UD,
		.sq_sig_all = 1,
	};
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *gid, .sgid_index = gidx, .hop_limit = 64 },
	};
	static uint8_t buf[2 * MSG + 40];
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = 0x11111111 };
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc[2], rwc = {};
	struct ibv_qp *qa, *qb;
	struct ibv_sge sge;
	struct ibv_cq *cq;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	int got = 0, n, i, ok = 1;
	long spins = 0;

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	ia.send_cq = cq;
	ia.recv_cq = ia.send_cq;
	qa = cq ? ibv_create_qp(pd, &ia) : NULL;
	qb = qa ? ibv_create_qp(pd, &ia) : NULL;
	ah = ibv_create_ah(pd, &aa);
	for (i = 0; qa && qb && i < 2; i++) {
		struct ibv_qp *q = i ? qb : qa;

		a.qp_state = IBV_QPS_INIT;
		ok &= !ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_QKEY);
		a.qp_state = IBV_QPS_RTR;
		ok &= !ibv_modify_qp(q, &a, IBV_QP_STATE);
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0;
		ok &= !ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	CHECK("ud setup", mr && qa && qb && ah && ok);
	if (!mr || !qa || !qb || !ah || !ok)
		return;
	memset(buf, 0x5a, MSG);
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf + MSG,
				.length = MSG + 40, .lkey = mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 7, .sg_list = &sge,
				    .num_sge = 1 };
	CHECK("ud post_recv", !ibv_post_recv(qb, &rwr, &rbad));
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = MSG,
				.lkey = mr->lkey };
	swr = (struct ibv_send_wr){
		.wr_id = 8, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_INLINE,
		.imm_data = htobe32(0xdeadbeef),
		.wr.ud = { .ah = ah, .remote_qpn = qb->qp_num,
			   .remote_qkey = 0x11111111 } };
	CHECK("ud post_send", !ibv_post_send(qa, &swr, &sbad));
	while (got < 2 && spins++ < 2000000000L) {
		n = ibv_poll_cq(cq, 2, wc);
		for (i = 0; i < n; i++)
			if (wc[i].wr_id == 7)
				rwc = wc[i];
		got += n > 0 ? n : 0;
	}
	CHECK("ud completions", got == 2 && rwc.status == IBV_WC_SUCCESS);
	CHECK("ud wc: RECV, GRH | WITH_IMM, imm, byte_len, src_qp",
	      rwc.opcode == IBV_WC_RECV &&
	      rwc.wc_flags == (IBV_WC_GRH | IBV_WC_WITH_IMM) &&
	      rwc.imm_data == htobe32(0xdeadbeef) &&
	      rwc.byte_len == MSG + 40 && rwc.src_qp == qa->qp_num);
	CHECK("ud payload", !memcmp(buf, buf + MSG + 40, MSG));
	CHECK("ud teardown", !ibv_destroy_qp(qa) && !ibv_destroy_qp(qb) &&
	      !ibv_destroy_ah(ah) && !ibv_destroy_cq(cq) && !ibv_dereg_mr(mr));
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

	ctx = vm_open_dev(argv[1]);
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
	ia.send_cq = cq;
	ia.recv_cq = ia.send_cq;
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

	qp_ex_phase(ctx, pd, gidx, &gid);
	ud_phase(ctx, pd, gidx, &gid);

	CHECK("teardown", !ibv_destroy_qp(qa) && !ibv_destroy_qp(qb) &&
	      !ibv_destroy_cq(cq) && !ibv_dereg_mr(mr) &&
	      !ibv_dealloc_pd(pd) && !ibv_close_device(ctx));
	printf("fastpath: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
