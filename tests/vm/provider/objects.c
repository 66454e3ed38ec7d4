// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * objects: the provider's object verbs against the real sroce.ko, one
 * process: MR, CQ (legacy and extended, poll on an empty ring, arm,
 * resize, the refusals), AH, QP (RC, UC, UD, ibv_qp_ex; posts refused in
 * RESET, receives posted in INIT until the RQ is full), an SRQ created
 * and destroyed (srq.c tests it in depth).  The only traffic: a pair of
 * RC, UC and UD QPs made by ibv_create_qp_ex with
 * IBV_QP_INIT_ATTR_CREATE_FLAGS and no flag, connected to each other
 * through the device's own GID, pass one SEND (every byte checked); a
 * flag sroce does not implement is refused with EOPNOTSUPP.  XRC, which
 * the device does not offer yet, is refused at each of its verbs.
 *
 *   objects DEV GID_INDEX
 *
 * Output: "PASS|FAIL <what>" lines, then "objects: N passed, M failed".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "../verbs/vm-verbs.h"
#include "vm-check.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void cq_tests(struct ibv_context *ctx)
{
	struct ibv_cq_init_attr_ex ax = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cqx;
	struct ibv_wc wc[4];
	struct ibv_cq *cq;

	cq = ibv_create_cq(ctx, 10, NULL, NULL, 0);
	CHECK("create_cq", cq && cq->cqe >= 10);
	if (!cq)
		return;
	CHECK("poll_cq empty", ibv_poll_cq(cq, 4, wc) == 0);
	/* These return the errno: show it, not a stale one. */
	errno = ibv_req_notify_cq(cq, 0);
	CHECK("req_notify_cq", !errno);
	errno = ibv_req_notify_cq(cq, 1);
	CHECK("req_notify_cq solicited", !errno);
	errno = ibv_resize_cq(cq, 100);
	CHECK("resize_cq 100", !errno && cq->cqe >= 100);
	CHECK("poll_cq after resize", ibv_poll_cq(cq, 4, wc) == 0);
	errno = ibv_resize_cq(cq, 5);
	CHECK("resize_cq 5", !errno && cq->cqe >= 5);
	CHECK("destroy_cq", ibv_destroy_cq(cq) == 0);

	/* Timestamps are cqts.c's; a vendor field is still refused. */
	ax.wc_flags |= IBV_WC_EX_WITH_FLOW_TAG;
	errno = 0;
	cqx = ibv_create_cq_ex(ctx, &ax);
	CHECK("create_cq_ex flow tag refused", !cqx && errno == EOPNOTSUPP);
	ax.wc_flags = IBV_WC_STANDARD_FLAGS;
	cqx = ibv_create_cq_ex(ctx, &ax);
	CHECK("create_cq_ex", cqx);
	if (!cqx)
		return;
	CHECK("start_poll empty", ibv_start_poll(cqx, &pa) == ENOENT);
	CHECK("destroy_cq_ex", ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)) == 0);
}

static void qp_tests(struct ibv_context *ctx, struct ibv_pd *pd,
		     struct ibv_mr *mr, struct ibv_ah *ah)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD
	};
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr, .length = 64, .lkey = mr->lkey
	};
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr swr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND,
	}, *sbad;
	struct ibv_qp_init_attr_ex ia = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp_init_attr qia;
	struct ibv_recv_wr *rbad;
	struct ibv_qp_attr qa;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq;
	struct ibv_qp_ex *qpx;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char what[64];
	unsigned int i;

	cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	CHECK("create_cq for QPs", cq);
	if (!cq)
		return;
	ia.send_cq = cq;
	ia.recv_cq = ia.send_cq;
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		ia.qp_type = types[i];
		qp = ibv_create_qp_ex(ctx, &ia);
		snprintf(what, sizeof(what), "create_qp_ex type %d", types[i]);
		CHECK(what, qp && ia.cap.max_inline_data >= 64 &&
		      ia.cap.max_send_sge >= 2);
		if (!qp)
			continue;
		snprintf(what, sizeof(what), "query_qp type %d", types[i]);
		CHECK(what, !ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CAP,
					  &qia) && qa.qp_state == IBV_QPS_RESET);
		/* Verbs: no sends before RTS, no receives in RESET. */
		swr.wr.ud.ah = ah;
		snprintf(what, sizeof(what), "post in RESET type %d",
			 types[i]);
		CHECK(what, ibv_post_send(qp, &swr, &sbad) == EINVAL &&
		      ibv_post_recv(qp, &rwr, &rbad) == EINVAL);
		qa.qp_state = IBV_QPS_INIT;
		qa.pkey_index = 0;
		qa.port_num = 1;
		qa.qkey = 0x11111111;
		qa.qp_access_flags = 0;
		snprintf(what, sizeof(what), "modify to INIT type %d",
			 types[i]);
		CHECK(what, !ibv_modify_qp(qp, &qa, IBV_QP_STATE |
					   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					   (types[i] == IBV_QPT_UD ?
					    IBV_QP_QKEY :
					    IBV_QP_ACCESS_FLAGS)));
		/* 8 receives fit, the 9th (at least) does not. */
		for (rwr.wr_id = 0; rwr.wr_id < 64; rwr.wr_id++)
			if (ibv_post_recv(qp, &rwr, &rbad))
				break;
		snprintf(what, sizeof(what), "post_recv until full type %d",
			 types[i]);
		CHECK(what, rwr.wr_id >= 8 && rwr.wr_id < 64 && rbad == &rwr);
		qpx = ibv_qp_to_qp_ex(qp);
		snprintf(what, sizeof(what), "qp_ex type %d", types[i]);
		CHECK(what, qpx && qpx->wr_send);
		snprintf(what, sizeof(what), "destroy_qp type %d", types[i]);
		CHECK(what, ibv_destroy_qp(qp) == 0);
	}
	srq = ibv_create_srq(pd, &sa);
	CHECK("create_srq", srq);
	if (srq)
		CHECK("destroy_srq", ibv_destroy_srq(srq) == 0);
	CHECK("destroy_cq for QPs", ibv_destroy_cq(cq) == 0);
}

/* RESET to RTS; RC and UC connected to @dqpn through @gid. */
static int flags_up(struct ibv_qp *qp, uint32_t dqpn, int gidx,
		    const union ibv_gid *gid)
{
	enum ibv_qp_type t = qp->qp_type;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111,
	};
	int ret, mask;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | (t == IBV_QPT_UD ? IBV_QP_QKEY :
					   IBV_QP_ACCESS_FLAGS));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (t != IBV_QPT_UD) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dqpn;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.dgid = *gid;
		a.ah_attr.grh.sgid_index = gidx;
		a.ah_attr.grh.hop_limit = 64;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	}
	if (t == IBV_QPT_RC) {
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	ret = ret ?: ibv_modify_qp(qp, &a, mask);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (t == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ret ?: ibv_modify_qp(qp, &a, mask);
}

/*
 * One SEND of 64 bytes from @a to @b (UD: through @ah, 40 bytes of GRH
 * first); true if both complete and every byte arrived.
 */
static bool flags_send(struct ibv_cq *cq, struct ibv_mr *mr,
		       struct ibv_qp *a, struct ibv_qp *b, struct ibv_ah *ah,
		       uint8_t fill)
{
	uint8_t *src = mr->addr, *dst = (uint8_t *)mr->addr + 1024;
	uint32_t grh = b->qp_type == IBV_QPT_UD ? 40 : 0;
	struct ibv_sge ss = { (uintptr_t)src, 64, mr->lkey };
	struct ibv_sge rs = { (uintptr_t)dst, grh + 64, mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rs, .num_sge = 1 };
	struct ibv_send_wr swr = {
		.wr_id = 8, .sg_list = &ss, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_wc wc[2];
	long spins = 0;
	int got = 0, n, i;
	bool ok = true;

	memset(src, fill, 64);
	memset(dst, 0, grh + 64);
	if (b->qp_type == IBV_QPT_UD) {
		swr.wr.ud.ah = ah;
		swr.wr.ud.remote_qpn = b->qp_num;
		swr.wr.ud.remote_qkey = 0x11111111;
	}
	if (ibv_post_recv(b, &rwr, &rbad) || ibv_post_send(a, &swr, &sbad))
		return false;
	while (got < 2 && spins++ < 200000000L) {
		n = ibv_poll_cq(cq, 2 - got, wc + got);
		if (n < 0)
			return false;
		got += n;
	}
	if (got != 2)
		return false;
	for (i = 0; i < 2; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			ok = false;
		if (wc[i].opcode == IBV_WC_RECV &&
		    (wc[i].wr_id != 7 || wc[i].byte_len != grh + 64 ||
		     wc[i].qp_num != b->qp_num))
			ok = false;
	}
	for (i = 0; i < 64; i++)
		if (dst[grh + i] != fill)
			ok = false;
	return ok;
}

/*
 * IBV_QP_INIT_ATTR_CREATE_FLAGS with create_flags 0 is an ordinary QP,
 * for each type; a flag sroce does not implement is EOPNOTSUPP.
 */
static void create_flags_tests(struct ibv_context *ctx, struct ibv_pd *pd,
			       struct ibv_mr *mr, struct ibv_ah *ah, int gidx)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD
	};
	struct ibv_qp_init_attr_ex ia = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = pd,
	};
	struct ibv_qp *a, *b;
	union ibv_gid gid;
	struct ibv_cq *cq;
	char what[96];
	unsigned int i;

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK("create_cq for create_flags", cq &&
	      !ibv_query_gid(ctx, 1, gidx, &gid));
	if (!cq)
		return;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		ia.qp_type = types[i];
		ia.create_flags = IBV_QP_CREATE_SCATTER_FCS;
		errno = 0;
		a = ibv_create_qp_ex(ctx, &ia);
		snprintf(what, sizeof(what),
			 "create_qp_ex type %d, unsupported flag: EOPNOTSUPP",
			 types[i]);
		CHECK(what, !a && errno == EOPNOTSUPP);
		if (a)
			ibv_destroy_qp(a);

		ia.create_flags = 0;
		a = ibv_create_qp_ex(ctx, &ia);
		b = a ? ibv_create_qp_ex(ctx, &ia) : NULL;
		snprintf(what, sizeof(what),
			 "create_qp_ex type %d, create_flags 0", types[i]);
		CHECK(what, a && b);
		if (!a || !b) {
			if (a)
				ibv_destroy_qp(a);
			continue;
		}
		snprintf(what, sizeof(what), "type %d to RTS", types[i]);
		CHECK(what, !flags_up(a, b->qp_num, gidx, &gid) &&
		      !flags_up(b, a->qp_num, gidx, &gid));
		snprintf(what, sizeof(what), "type %d SEND, every byte",
			 types[i]);
		CHECK(what, flags_send(cq, mr, a, b, ah, 0x30 + i));
		CHECK("destroy the pair", !ibv_destroy_qp(a) &&
		      !ibv_destroy_qp(b));
	}
	CHECK("destroy_cq for create_flags", !ibv_destroy_cq(cq));
}

/*
 * The device does not offer XRC (Documentation/device.rst, "Not
 * implemented"): no IBV_DEVICE_XRC, and every XRC verb is EOPNOTSUPP
 * rather than a half-made object.
 */
static void xrc_refused_tests(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_qp_init_attr_ex qa = {
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
		.qp_type = IBV_QPT_XRC_SEND,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_XRCD,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
	};
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = 1,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_device_attr da;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	CHECK("query_device: no IBV_DEVICE_XRC",
	      !ibv_query_device(ctx, &da) &&
	      !(da.device_cap_flags & IBV_DEVICE_XRC));
	errno = 0;
	xrcd = ibv_open_xrcd(ctx, &xa);
	CHECK("open_xrcd: EOPNOTSUPP", !xrcd && errno == EOPNOTSUPP);
	if (xrcd)
		ibv_close_xrcd(xrcd);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	CHECK("create_cq for XRC", cq);
	sa.cq = cq;
	errno = 0;
	srq = ibv_create_srq_ex(ctx, &sa);
	CHECK("create_srq_ex XRC: EOPNOTSUPP", !srq && errno == EOPNOTSUPP);
	if (srq)
		ibv_destroy_srq(srq);
	qa.send_cq = cq;
	qa.recv_cq = cq;
	errno = 0;
	qp = ibv_create_qp_ex(ctx, &qa);
	CHECK("create_qp_ex XRC_SEND: EOPNOTSUPP", !qp && errno == EOPNOTSUPP);
	if (qp)
		ibv_destroy_qp(qp);
	qa.qp_type = IBV_QPT_XRC_RECV;
	qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	errno = 0;
	qp = ibv_create_qp_ex(ctx, &qa);
	CHECK("create_qp_ex XRC_RECV: EOPNOTSUPP", !qp && errno == EOPNOTSUPP);
	if (qp)
		ibv_destroy_qp(qp);
	errno = 0;
	qp = ibv_open_qp(ctx, &oa);
	CHECK("open_qp: EOPNOTSUPP", !qp && errno == EOPNOTSUPP);
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		CHECK("destroy_cq for XRC", !ibv_destroy_cq(cq));
}

int main(int argc, char **argv)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	static char buf[8192];

	if (argc != 3) {
		fprintf(stderr, "usage: objects DEV GID_INDEX\n");
		return 2;
	}
	ctx = vm_open_dev(argv[1]);
	CHECK("open_device", ctx);
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	CHECK("alloc_pd", pd);
	if (!pd)
		return 1;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	CHECK("reg_mr", mr && mr->lkey && mr->length == sizeof(buf));
	cq_tests(ctx);
	xrc_refused_tests(ctx, pd);

	/* An AH to our own GID: always resolvable. */
	aa.grh.sgid_index = atoi(argv[2]);
	aa.grh.hop_limit = 64;
	ibv_query_gid(ctx, 1, aa.grh.sgid_index, &aa.grh.dgid);
	ah = ibv_create_ah(pd, &aa);
	CHECK("create_ah", ah);

	if (mr && ah) {
		qp_tests(ctx, pd, mr, ah);
		create_flags_tests(ctx, pd, mr, ah, aa.grh.sgid_index);
	}

	if (ah)
		CHECK("destroy_ah", ibv_destroy_ah(ah) == 0);
	if (mr)
		CHECK("dereg_mr", ibv_dereg_mr(mr) == 0);
	CHECK("dealloc_pd", ibv_dealloc_pd(pd) == 0);
	CHECK("close_device", ibv_close_device(ctx) == 0);
	printf("objects: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
