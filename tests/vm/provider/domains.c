// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * domains: thread domains and parent domains through the sroce provider,
 * on one device (two RC QPs connected through the device's own GID).
 *
 *   domains DEV GID_INDEX
 *
 * Checks: ibv_alloc_td (an unknown comp_mask bit is EINVAL); a parent
 * domain holding a PD and a thread domain, with pd_context; a parent
 * domain of a parent domain refused; an MR registered on the parent
 * domain and a CQ and two RC QPs made in it carrying SEND, RDMA WRITE
 * and RDMA READ with every byte checked; a CQ asking for a PD that is
 * not a parent domain refused (EINVAL); EBUSY for the PD, the thread
 * domain and the parent domain while something holds them, then all of
 * them freed in order.  Output ends with "domains: N passed, M failed".
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

#define LEN	4096

static struct ibv_context *ctx;
static int gidx;
static union ibv_gid gid;
static uint8_t src[LEN], dst[LEN], rbuf[LEN];

static int connect_rc(struct ibv_qp *qp, uint32_t dqpn)
{
	return vm_connect_rc(qp, dqpn, &gid, gidx,
			     IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ);
}

/* One signaled WR on @qp, then its completion (and @more others). */
static bool run(struct ibv_qp *qp, struct ibv_cq_ex *cq,
		struct ibv_send_wr *wr, int more)
{
	struct ibv_poll_cq_attr pa = {};
	struct ibv_send_wr *bad;
	long spins = 0;
	int got = 0, ok = 0;

	if (ibv_post_send(qp, wr, &bad))
		return false;
	while (got < 1 + more && spins++ < 200000000L) {
		if (ibv_start_poll(cq, &pa))
			continue;
		do {
			got++;
			ok += cq->status == IBV_WC_SUCCESS;
		} while (got < 1 + more && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	return got == 1 + more && ok == got;
}

static void fill(uint8_t *p, uint8_t seed)
{
	int i;

	for (i = 0; i < LEN; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

int main(int argc, char **argv)
{
	struct ibv_td_init_attr ta = { .comp_mask = 1 };
	struct ibv_parent_domain_init_attr pa = {};
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_pd *pd, *par;
	struct ibv_td *td;
	struct ibv_cq_ex *cq;
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_mr *mr_src, *mr_dst, *mr_r;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr wr;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV GID_INDEX\n", argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	ctx = vm_open_dev(argv[1]);
	if (!ctx || ibv_query_gid(ctx, 1, gidx, &gid))
		return 2;
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return 2;

	errno = 0;
	CHECK("alloc_td with an unknown comp_mask bit: EINVAL",
	      !ibv_alloc_td(ctx, &ta) && errno == EINVAL);
	ta.comp_mask = 0;
	td = ibv_alloc_td(ctx, &ta);
	CHECK("alloc_td", td);
	pa.pd = pd;
	pa.td = td;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.pd_context = &pa;
	par = ibv_alloc_parent_domain(ctx, &pa);
	CHECK("alloc_parent_domain(pd, td, pd_context)", par);
	if (!td || !par)
		goto out;
	pa.pd = par;
	errno = 0;
	CHECK("a parent domain of a parent domain: EINVAL",
	      !ibv_alloc_parent_domain(ctx, &pa) && errno == EINVAL);

	ca.parent_domain = pd;
	errno = 0;
	CHECK("create_cq_ex in a PD that is no parent domain: EINVAL",
	      !ibv_create_cq_ex(ctx, &ca) && errno == EINVAL);
	ca.parent_domain = par;
	cq = ibv_create_cq_ex(ctx, &ca);
	CHECK("create_cq_ex in the parent domain", cq);
	if (!cq)
		goto out;
	ia.send_cq = ibv_cq_ex_to_cq(cq);
	ia.recv_cq = ia.send_cq;
	a = ibv_create_qp(par, &ia);
	b = ibv_create_qp(par, &ia);
	CHECK("two RC QPs in the parent domain", a && b);
	mr_src = ibv_reg_mr(par, src, LEN, IBV_ACCESS_LOCAL_WRITE);
	mr_dst = ibv_reg_mr(par, dst, LEN, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	mr_r = ibv_reg_mr(pd, rbuf, LEN, IBV_ACCESS_LOCAL_WRITE);
	CHECK("MRs on the parent domain and on its PD", mr_src && mr_dst && mr_r);
	if (!a || !b || !mr_src || !mr_dst || !mr_r ||
	    connect_rc(a, b->qp_num) || connect_rc(b, a->qp_num)) {
		CHECK("connect", false);
		goto out;
	}

	/* SEND a -> b into the PD's own MR. */
	fill(src, 1);
	sge = (struct ibv_sge){ (uintptr_t)rbuf, LEN, mr_r->lkey };
	CHECK("post_recv", !ibv_post_recv(b, &rwr, &rbad));
	sge = (struct ibv_sge){ (uintptr_t)src, LEN, mr_src->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	CHECK("SEND and its receive complete", run(a, cq, &wr, 1));
	CHECK("SEND: every byte", !memcmp(src, rbuf, LEN));

	/* RDMA WRITE a -> b's dst, then READ it back into src. */
	fill(src, 2);
	wr.wr_id = 2;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = mr_dst->rkey;
	CHECK("RDMA WRITE completes", run(a, cq, &wr, 0));
	CHECK("RDMA WRITE: every byte", !memcmp(src, dst, LEN));
	memset(src, 0, LEN);
	wr.wr_id = 3;
	wr.opcode = IBV_WR_RDMA_READ;
	CHECK("RDMA READ completes", run(a, cq, &wr, 0));
	CHECK("RDMA READ: every byte", !memcmp(src, dst, LEN));

	CHECK("dealloc the PD under a parent domain: EBUSY",
	      ibv_dealloc_pd(pd) == EBUSY);
	CHECK("dealloc the thread domain under a parent domain: EBUSY",
	      ibv_dealloc_td(td) == EBUSY);
	CHECK("dealloc the parent domain under its QPs and CQ: EBUSY",
	      ibv_dealloc_pd(par) == EBUSY);
	CHECK("destroy the QPs", !ibv_destroy_qp(a) && !ibv_destroy_qp(b));
	a = b = NULL;
	CHECK("dereg the MRs", !ibv_dereg_mr(mr_src) && !ibv_dereg_mr(mr_dst) &&
	      !ibv_dereg_mr(mr_r));
	CHECK("destroy the CQ", !ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
	CHECK("dealloc the parent domain", !ibv_dealloc_pd(par));
	CHECK("dealloc the thread domain", !ibv_dealloc_td(td));
	CHECK("dealloc the PD", !ibv_dealloc_pd(pd));
	pd = NULL;
out:
	if (pd && failed)
		printf("left objects behind after a failure\n");
	ibv_close_device(ctx);
	printf("domains: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
