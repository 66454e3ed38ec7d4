// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * keys: what a stranger would have to guess to reach a connection.  On
 * one device, create an RC QP and register N memory regions back to
 * back; print the QPN and the key of each MR, one per line:
 *
 *   keys DEV N
 *   qpn 0x...
 *   key 0x...   (N lines)
 *
 * keys.sh judges the numbers (a fresh device's first QPN, the key bytes
 * of consecutive registrations).
 */
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "../verbs/vm-verbs.h"

int main(int argc, char **argv)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_context *ctx;
	struct ibv_mr **mrs;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i, n;

	if (argc < 3) {
		fprintf(stderr, "usage: keys DEV N\n");
		return 2;
	}
	n = atoi(argv[2]);
	ctx = vm_open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	mrs = calloc(n > 0 ? n : 1, sizeof(*mrs));
	if (!cq || !mrs) {
		perror("keys: setup");
		return 1;
	}
	ia.send_cq = cq;
	ia.recv_cq = cq;
	qp = ibv_create_qp(pd, &ia);
	if (!qp) {
		perror("keys: create_qp");
		return 1;
	}
	printf("qpn 0x%06x\n", qp->qp_num);
	for (i = 0; i < n; i++) {
		mrs[i] = ibv_reg_mr(pd, buf, sizeof(buf),
				    IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE);
		if (!mrs[i]) {
			perror("keys: reg_mr");
			return 1;
		}
		printf("key 0x%08x\n", mrs[i]->rkey);
	}
	for (i = 0; i < n; i++)
		ibv_dereg_mr(mrs[i]);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
