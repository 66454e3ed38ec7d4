// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mw: memory windows through the sroce provider, on one device (each
 * "peer" is an RC QP connected through the device's own GID; a remote
 * access error ends a QP pair, so each case gets a fresh one).
 *
 *   mw DEV GID_INDEX
 *
 * Type 1 (ibv_bind_mw): bind over the MR's second page with REMOTE_WRITE
 * and REMOTE_READ; the peer's WRITE and READ inside work (data checked);
 * the MR cannot be deregistered (EBUSY) while bound; a WRITE outside the
 * window (still inside the MR) fails with REM_ACCESS_ERR; a zero-length
 * bind unbinds and the old rkey then fails.
 * Type 2 (ibv_wr_bind_mw on the responder's QP): WRITE inside works, READ
 * (not granted by the window although the MR allows it) fails; LOCAL_INV
 * invalidates and a WRITE then fails; rebound with a new key, SEND with
 * Invalidate from the peer invalidates it (the receive reports the rkey)
 * and a WRITE then fails.  An MR registered without IBV_ACCESS_MW_BIND
 * takes no window of either type (MW_BIND_ERR).  Output ends with
 * "mw: N passed, M failed"; "remote access errors: N" counts the accesses
 * refused as expected.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "../verbs/vm-verbs.h"
#include "vm-check.h"

#define PG	4096

static int rem_access_errors;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t *buf;		/* 4 pages: [0,1,2] targets, [3] local */
static int gidx;
static union ibv_gid gid;

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *s, *c;	/* s owns the windows, c accesses them */
};

static int connect_rc(struct ibv_qp *qp, uint32_t dqpn)
{
	return vm_connect_rc(qp, dqpn, &gid, gidx,
			     IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ);
}

static bool pair_open(struct pair *p)
{
	struct ibv_qp_init_attr_ex ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_BIND_MW |
				  IBV_QP_EX_WITH_LOCAL_INV,
	};

	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!p->cq)
		return false;
	ia.send_cq = p->cq;
	ia.recv_cq = p->cq;
	p->s = ibv_create_qp_ex(ctx, &ia);
	p->c = p->s ? ibv_create_qp_ex(ctx, &ia) : NULL;
	return p->c && !connect_rc(p->s, p->c->qp_num) &&
	       !connect_rc(p->c, p->s->qp_num);
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
	struct ibv_sge sge = { .addr = (uintptr_t)buf + 3 * PG, .length = 64,
			       .lkey = mr->lkey };
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

/* Type 2 bind (or LOCAL_INV, @mw NULL) posted on p->s: the status. */
static int s_local(struct pair *p, struct ibv_mw *mw, uint32_t rkey,
		   uint8_t *addr, size_t len, unsigned int access,
		   enum ibv_wc_opcode *opcode)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(p->s);
	struct ibv_mw_bind_info bi = { .mr = mr, .addr = (uintptr_t)addr,
				       .length = len,
				       .mw_access_flags = access };
	struct ibv_wc wc;
	int st;

	ibv_wr_start(qx);
	qx->wr_id = 7;
	qx->wr_flags = IBV_SEND_SIGNALED;
	if (mw)
		ibv_wr_bind_mw(qx, mw, rkey, &bi);
	else
		ibv_wr_local_inv(qx, rkey);
	if (ibv_wr_complete(qx))
		return -1;
	st = wait_wc(p, &wc);
	*opcode = wc.opcode;
	return st;
}

static void type1(void)
{
	struct ibv_mw_bind b = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = 0, .length = PG,
			       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
						  IBV_ACCESS_REMOTE_READ },
	};
	uint8_t *win = buf + PG;
	struct ibv_wc wc;
	struct ibv_mw *mw;
	struct pair p;
	uint32_t old;
	int st;

	b.bind_info.addr = (uintptr_t)win;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	CHECK("alloc_mw type 1", mw != NULL);
	if (!mw)
		return;
	CHECK("pair 1", pair_open(&p));
	old = mw->rkey;
	CHECK("ibv_bind_mw posted", !ibv_bind_mw(p.s, mw, &b));
	st = wait_wc(&p, &wc);
	CHECK("bind completes (IBV_WC_BIND_MW)", st == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_BIND_MW && wc.wr_id == 1);
	CHECK("rkey changed by the bind", mw->rkey != old &&
	      (mw->rkey >> 8) == (old >> 8));

	memset(buf + 3 * PG, 0x3c, 64);
	CHECK("WRITE inside the window",
	      access_rkey(&p, IBV_WR_RDMA_WRITE, mw->rkey, win + 100) == 0 &&
	      !memcmp(win + 100, buf + 3 * PG, 64));
	memset(win + 512, 0x5e, 64);
	CHECK("READ inside the window",
	      access_rkey(&p, IBV_WR_RDMA_READ, mw->rkey, win + 512) == 0 &&
	      buf[3 * PG] == 0x5e && buf[3 * PG + 63] == 0x5e);
	CHECK("WRITE across the window's end refused",
	      access_rkey(&p, IBV_WR_RDMA_WRITE, mw->rkey,
			  win + PG - 32) == IBV_WC_REM_ACCESS_ERR);
	CHECK("dereg_mr refused while a window is bound (EBUSY)",
	      ibv_dereg_mr(mr) == EBUSY);
	pair_close(&p);

	CHECK("pair 2", pair_open(&p));
	CHECK("WRITE outside the window (inside the MR) refused",
	      access_rkey(&p, IBV_WR_RDMA_WRITE, mw->rkey, buf + 100) ==
	      IBV_WC_REM_ACCESS_ERR);
	pair_close(&p);

	CHECK("pair 3", pair_open(&p));
	b.bind_info.length = 0;
	b.bind_info.addr = 0;
	b.bind_info.mr = NULL;
	old = mw->rkey;
	CHECK("zero-length bind (unbind)", !ibv_bind_mw(p.s, mw, &b) &&
	      wait_wc(&p, &wc) == IBV_WC_SUCCESS);
	CHECK("old rkey refused after unbind",
	      access_rkey(&p, IBV_WR_RDMA_WRITE, old, win) ==
	      IBV_WC_REM_ACCESS_ERR);
	pair_close(&p);
	CHECK("dealloc_mw type 1", !ibv_dealloc_mw(mw));
}

static void type2(void)
{
	uint8_t *win = buf + 2 * PG;
	enum ibv_wc_opcode op;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_send_wr swr, *sbad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_mw *mw;
	struct pair p;
	uint32_t rkey;
	int st;

	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	CHECK("alloc_mw type 2", mw != NULL);
	if (!mw)
		return;
	CHECK("pair 4", pair_open(&p));
	rkey = ibv_inc_rkey(mw->rkey);
	st = s_local(&p, mw, rkey, win, PG, IBV_ACCESS_REMOTE_WRITE, &op);
	CHECK("ibv_wr_bind_mw completes", st == 0 && op == IBV_WC_BIND_MW);
	mw->rkey = rkey;
	memset(buf + 3 * PG, 0x71, 64);
	CHECK("WRITE inside the type 2 window",
	      access_rkey(&p, IBV_WR_RDMA_WRITE, rkey, win + 8) == 0 &&
	      !memcmp(win + 8, buf + 3 * PG, 64));
	st = s_local(&p, NULL, rkey, NULL, 0, 0, &op);
	CHECK("LOCAL_INV of the window's rkey", st == 0 &&
	      op == IBV_WC_LOCAL_INV);
	CHECK("WRITE after LOCAL_INV refused",
	      access_rkey(&p, IBV_WR_RDMA_WRITE, rkey, win + 8) ==
	      IBV_WC_REM_ACCESS_ERR);
	pair_close(&p);

	CHECK("pair 5", pair_open(&p));
	rkey = ibv_inc_rkey(rkey);
	st = s_local(&p, mw, rkey, win, PG, IBV_ACCESS_REMOTE_WRITE, &op);
	CHECK("rebind after invalidation", st == 0);
	mw->rkey = rkey;
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf + 3 * PG + 2048,
				.length = 64, .lkey = mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 55, .sg_list = &sge,
				    .num_sge = 1 };
	CHECK("post_recv", !ibv_post_recv(p.s, &rwr, &rbad));
	swr = (struct ibv_send_wr){ .wr_id = 56, .sg_list = &sge,
				    .num_sge = 1,
				    .opcode = IBV_WR_SEND_WITH_INV,
				    .send_flags = IBV_SEND_SIGNALED,
				    .invalidate_rkey = rkey };
	CHECK("SEND_WITH_INV posted", !ibv_post_send(p.c, &swr, &sbad));
	st = wait_wc(&p, &wc);
	if (st == 0 && wc.opcode != IBV_WC_RECV)
		st = wait_wc(&p, &wc);
	CHECK("receive reports the invalidated rkey", st == 0 &&
	      wc.opcode == IBV_WC_RECV &&
	      (wc.wc_flags & IBV_WC_WITH_INV) &&
	      wc.invalidated_rkey == rkey);
	if (wc.opcode == IBV_WC_RECV)
		wait_wc(&p, &wc);	/* the send's */
	CHECK("WRITE after remote invalidation refused",
	      access_rkey(&p, IBV_WR_RDMA_WRITE, rkey, win + 8) ==
	      IBV_WC_REM_ACCESS_ERR);
	pair_close(&p);

	CHECK("pair 6", pair_open(&p));
	rkey = ibv_inc_rkey(rkey);
	st = s_local(&p, mw, rkey, win, PG, IBV_ACCESS_REMOTE_WRITE, &op);
	mw->rkey = rkey;
	CHECK("READ through a write-only window refused", st == 0 &&
	      access_rkey(&p, IBV_WR_RDMA_READ, rkey, win) ==
	      IBV_WC_REM_ACCESS_ERR);
	pair_close(&p);
	CHECK("dealloc_mw type 2 (bound)", !ibv_dealloc_mw(mw));
}

/*
 * An MR registered without IBV_ACCESS_MW_BIND takes no window of either
 * type, even one that asks for less than the MR grants.
 */
static void no_bind_right(void)
{
	struct ibv_mr *plain = ibv_reg_mr(pd, buf, 4 * PG,
					  IBV_ACCESS_LOCAL_WRITE |
					  IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ);
	struct ibv_mw_bind b = {
		.wr_id = 9, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = plain, .addr = (uintptr_t)buf,
			       .length = PG,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	struct ibv_mr *keep = mr;
	struct ibv_mw *mw1, *mw2;
	enum ibv_wc_opcode op;
	struct ibv_wc wc;
	struct pair p;
	int st;

	CHECK("reg_mr without MW_BIND", plain != NULL);
	if (!plain)
		return;
	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	CHECK("pair 7", mw1 && mw2 && pair_open(&p));
	st = mw1 && !ibv_bind_mw(p.s, mw1, &b) ? wait_wc(&p, &wc) : -1;
	CHECK("type 1 bind to an MR without MW_BIND: MW_BIND_ERR",
	      st == IBV_WC_MW_BIND_ERR);
	pair_close(&p);
	CHECK("pair 8", pair_open(&p));
	mr = plain;	/* s_local binds over the global mr */
	st = mw2 ? s_local(&p, mw2, ibv_inc_rkey(mw2->rkey), buf, PG,
			   IBV_ACCESS_REMOTE_READ, &op) : -1;
	mr = keep;
	CHECK("type 2 bind to an MR without MW_BIND: MW_BIND_ERR",
	      st == IBV_WC_MW_BIND_ERR);
	pair_close(&p);
	CHECK("dereg_mr of the MR no window took", !ibv_dereg_mr(plain));
	if (mw1)
		ibv_dealloc_mw(mw1);
	if (mw2)
		ibv_dealloc_mw(mw2);
}

int main(int argc, char **argv)
{
	struct ibv_device_attr da;

	if (argc < 3) {
		fprintf(stderr, "usage: mw DEV GID_INDEX\n");
		return 2;
	}
	gidx = atoi(argv[2]);
	ctx = vm_open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	buf = aligned_alloc(PG, 4 * PG);
	mr = pd && buf ? ibv_reg_mr(pd, buf, 4 * PG, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_MW_BIND) : NULL;
	if (!mr || ibv_query_gid(ctx, 1, gidx, &gid) ||
	    ibv_query_device(ctx, &da)) {
		printf("FAIL setup\nmw: 0 passed, 1 failed\n");
		return 1;
	}
	CHECK("device reports windows", da.max_mw > 0 &&
	      (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW));
	memset(buf, 0, 4 * PG);
	type1();
	type2();
	no_bind_right();
	CHECK("dereg_mr once no window is bound", !ibv_dereg_mr(mr));
	CHECK("teardown", !ibv_dealloc_pd(pd) && !ibv_close_device(ctx));
	printf("remote access errors: %d\n", rem_access_errors);
	printf("mw: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
