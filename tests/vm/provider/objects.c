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
 * flag sroce does not implement is refused with EOPNOTSUPP.  XRC: domains
 * (a file's too), XRC SRQs, initiator, target and opened QPs, one SEND
 * through an XRC SRQ and two naming an SRQ the target must refuse.
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
#include <unistd.h>

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
	/* An XRC target responds, an initiator requests (ib_core's table). */
	if (t == IBV_QPT_RC || t == IBV_QPT_XRC_RECV) {
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	ret = ret ?: ibv_modify_qp(qp, &a, mask);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (t == IBV_QPT_XRC_RECV) {
		a.timeout = 14;
		mask |= IBV_QP_TIMEOUT;
	}
	if (t == IBV_QPT_RC || t == IBV_QPT_XRC_SEND) {
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
 * One SEND of 64 bytes from a new XRC_SEND QP to a new XRC_RECV QP of
 * @xrcd, naming XRC SRQ @srqn; both QPs end with the call.  Returns the
 * send's completion status (-1: none, or a setup failure); *@recv_ok
 * tells whether @srq's CQ @rcq got the message, from the target QP, with
 * every byte in place.
 */
static int xrc_send_once(struct ibv_context *ctx, struct ibv_pd *pd,
			 struct ibv_xrcd *xrcd, struct ibv_cq *scq,
			 struct ibv_cq *rcq, struct ibv_srq *srq,
			 struct ibv_mr *mr, int gidx, uint32_t srqn,
			 uint8_t fill, bool *recv_ok)
{
	uint8_t *src = mr->addr, *dst = (uint8_t *)mr->addr + 2048;
	struct ibv_sge ss = { (uintptr_t)src, 64, mr->lkey };
	struct ibv_sge rs = { (uintptr_t)dst, 64, mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 17, .sg_list = &rs, .num_sge = 1 };
	struct ibv_send_wr swr = {
		.wr_id = 18, .sg_list = &ss, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_qp_init_attr_ex ia = {
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
		.send_cq = scq,
		.qp_type = IBV_QPT_XRC_SEND,
	};
	struct ibv_qp_init_attr_ex ta = {
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = xrcd,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_qp *ini, *tgt;
	struct ibv_wc wc;
	union ibv_gid gid;
	int status = -1, i;

	*recv_ok = false;
	memset(src, fill, 64);
	memset(dst, 0, 64);
	ini = ibv_create_qp_ex(ctx, &ia);
	tgt = ibv_create_qp_ex(ctx, &ta);
	if (!ini || !tgt || ibv_query_gid(ctx, 1, gidx, &gid) ||
	    flags_up(ini, tgt->qp_num, gidx, &gid) ||
	    flags_up(tgt, ini->qp_num, gidx, &gid) ||
	    ibv_post_srq_recv(srq, &rwr, &rbad))
		goto out;
	swr.qp_type.xrc.remote_srqn = srqn;
	if (ibv_post_send(ini, &swr, &sbad))
		goto out;
	status = vm_wait_wc(scq, &wc);
	if (status || wc.wr_id != 18)
		goto out;
	if (vm_wait_wc(rcq, &wc) || wc.wr_id != 17 || wc.byte_len != 64 ||
	    wc.opcode != IBV_WC_RECV || wc.qp_num != tgt->qp_num)
		goto out;
	for (i = 0; i < 64 && dst[i] == fill; i++)
		;
	*recv_ok = i == 64;
out:
	if (ini)
		ibv_destroy_qp(ini);
	if (tgt)
		ibv_destroy_qp(tgt);
	return status;
}

/*
 * XRC (Documentation/device.rst, "XRC"): domains, shared through a file
 * too; XRC SRQs and their numbers; initiator and target QPs, a target
 * opened by number; one SEND through an XRC SRQ, and a SEND naming an SRQ
 * that does not exist or is of another domain, which the target answers
 * with an invalid request NAK (REM_INV_REQ_ERR on the sender, nothing
 * received).  What XRC does not allow is refused with EINVAL.
 */
static void xrc_tests(struct ibv_context *ctx, struct ibv_pd *pd,
		      struct ibv_mr *mr, int gidx)
{
	char path[] = "/tmp/sroce-xrcd-XXXXXX";
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
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_xrcd *xrcd, *shared, *other;
	struct ibv_srq *srq, *osrq, *bad;
	struct ibv_srq_init_attr bsa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	uint32_t srqn = 0, osrqn = 0, n;
	struct ibv_device_attr da;
	struct ibv_cq *cq, *rcq;
	struct ibv_qp *qp, *oqp;
	bool got;
	int fd;

	CHECK("query_device: IBV_DEVICE_XRC",
	      !ibv_query_device(ctx, &da) &&
	      (da.device_cap_flags & IBV_DEVICE_XRC));

	/* Domains: a new one, and one shared through a file. */
	xrcd = ibv_open_xrcd(ctx, &xa);
	CHECK("open_xrcd without a file", xrcd);
	fd = mkstemp(path);
	xa.fd = fd;
	shared = fd >= 0 ? ibv_open_xrcd(ctx, &xa) : NULL;
	CHECK("open_xrcd of a file, O_CREAT", shared);
	xa.oflags = 0;
	other = fd >= 0 ? ibv_open_xrcd(ctx, &xa) : NULL;
	CHECK("open_xrcd of the same file again, no O_CREAT", other);
	if (other)
		CHECK("close_xrcd of the second opener", !ibv_close_xrcd(other));
	xa.oflags = O_CREAT | O_EXCL;
	errno = 0;
	other = fd >= 0 ? ibv_open_xrcd(ctx, &xa) : NULL;
	CHECK("open_xrcd O_CREAT|O_EXCL of a file with a domain: EINVAL",
	      !other && errno == EINVAL);
	if (other)
		ibv_close_xrcd(other);
	if (shared)
		CHECK("close_xrcd of the file's domain", !ibv_close_xrcd(shared));
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	if (!xrcd)
		return;

	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	CHECK("create_cq for XRC", cq && rcq);
	if (!cq || !rcq)
		goto out_cq;

	/* XRC SRQs: a domain and a CQ each, a number. */
	sa.cq = rcq;
	sa.xrcd = xrcd;
	srq = ibv_create_srq_ex(ctx, &sa);
	CHECK("create_srq_ex XRC", srq);
	CHECK("get_srq_num", srq && !ibv_get_srq_num(srq, &srqn) && srqn &&
	      srqn <= 0xffffff);
	sa.comp_mask &= ~IBV_SRQ_INIT_ATTR_XRCD;
	errno = 0;
	bad = ibv_create_srq_ex(ctx, &sa);
	CHECK("create_srq_ex XRC without an XRCD: EINVAL",
	      !bad && errno == EINVAL);
	if (bad)
		ibv_destroy_srq(bad);
	sa.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD;
	sa.comp_mask &= ~IBV_SRQ_INIT_ATTR_CQ;
	errno = 0;
	bad = ibv_create_srq_ex(ctx, &sa);
	CHECK("create_srq_ex XRC without a CQ: EINVAL",
	      !bad && errno == EINVAL);
	if (bad)
		ibv_destroy_srq(bad);
	sa.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
	bad = ibv_create_srq(pd, &bsa);
	CHECK("get_srq_num of a basic SRQ: EINVAL",
	      bad && ibv_get_srq_num(bad, &n) == EINVAL);
	if (bad)
		ibv_destroy_srq(bad);

	/* QPs: an initiator sends only, a target belongs to its domain. */
	qa.send_cq = cq;
	qp = ibv_create_qp_ex(ctx, &qa);
	CHECK("create_qp_ex XRC_SEND", qp && qp->qp_type == IBV_QPT_XRC_SEND);
	if (qp) {
		struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad;

		CHECK("post_recv on XRC_SEND: EINVAL",
		      ibv_post_recv(qp, &rwr, &rbad) == EINVAL);
		CHECK("destroy XRC_SEND", !ibv_destroy_qp(qp));
	}
	qa.qp_type = IBV_QPT_XRC_RECV;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	errno = 0;
	qp = ibv_create_qp_ex(ctx, &qa);
	CHECK("create_qp_ex XRC_RECV without an XRCD: EINVAL",
	      !qp && errno == EINVAL);
	if (qp)
		ibv_destroy_qp(qp);
	qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	qa.xrcd = xrcd;
	qp = ibv_create_qp_ex(ctx, &qa);
	CHECK("create_qp_ex XRC_RECV", qp && qp->qp_type == IBV_QPT_XRC_RECV);
	if (qp) {
		struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *sbad;

		oa.xrcd = xrcd;
		oa.qp_num = qp->qp_num;
		oqp = ibv_open_qp(ctx, &oa);
		CHECK("open_qp of the XRC_RECV QP",
		      oqp && oqp->qp_num == qp->qp_num);
		if (oqp)
			CHECK("destroy the opened QP", !ibv_destroy_qp(oqp));
		CHECK("post_send on XRC_RECV: EINVAL",
		      ibv_post_send(qp, &swr, &sbad) == EINVAL);
		CHECK("destroy XRC_RECV", !ibv_destroy_qp(qp));
	}
	oa.qp_num = 0xfffff0;
	errno = 0;
	oqp = ibv_open_qp(ctx, &oa);
	CHECK("open_qp of no QP: EINVAL", !oqp && errno == EINVAL);
	if (oqp)
		ibv_destroy_qp(oqp);

	if (!srq)
		goto out_cq;
	/* Traffic: the SRQ named, then one that is not there. */
	CHECK("XRC SEND completes on the sender",
	      xrc_send_once(ctx, pd, xrcd, cq, rcq, srq, mr, gidx,
			    srqn, 0x5a, &got) == IBV_WC_SUCCESS);
	CHECK("XRC SEND lands in the SRQ, its CQ, every byte", got);
	CHECK("XRC SEND to no such SRQ: REM_INV_REQ_ERR",
	      xrc_send_once(ctx, pd, xrcd, cq, rcq, srq, mr, gidx,
			    (srqn + 4096) & 0xffffff, 0x5b, &got) ==
	      IBV_WC_REM_INV_REQ_ERR && !got);
	other = ibv_open_xrcd(ctx, &(struct ibv_xrcd_init_attr){
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT });
	sa.xrcd = other;
	osrq = other ? ibv_create_srq_ex(ctx, &sa) : NULL;
	CHECK("an XRC SRQ of another domain",
	      osrq && !ibv_get_srq_num(osrq, &osrqn));
	if (osrq)
		CHECK("XRC SEND to another domain's SRQ: REM_INV_REQ_ERR",
		      xrc_send_once(ctx, pd, xrcd, cq, rcq, srq, mr, gidx, osrqn,
				    0x5c, &got) == IBV_WC_REM_INV_REQ_ERR &&
		      !got);
	if (osrq)
		CHECK("destroy the other domain's SRQ", !ibv_destroy_srq(osrq));
	if (other)
		CHECK("close the other domain", !ibv_close_xrcd(other));
	CHECK("destroy the XRC SRQ", !ibv_destroy_srq(srq));
out_cq:
	if (cq)
		ibv_destroy_cq(cq);
	if (rcq)
		ibv_destroy_cq(rcq);
	CHECK("close_xrcd", !ibv_close_xrcd(xrcd));
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

	/* An AH to our own GID: always resolvable. */
	aa.grh.sgid_index = atoi(argv[2]);
	aa.grh.hop_limit = 64;
	ibv_query_gid(ctx, 1, aa.grh.sgid_index, &aa.grh.dgid);
	ah = ibv_create_ah(pd, &aa);
	CHECK("create_ah", ah);

	if (mr && ah) {
		qp_tests(ctx, pd, mr, ah);
		create_flags_tests(ctx, pd, mr, ah, aa.grh.sgid_index);
		xrc_tests(ctx, pd, mr, aa.grh.sgid_index);
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
