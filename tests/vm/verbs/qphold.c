// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qphold: an RC QP that stays in RESET, as a target with a known QPN.
 *
 *   qphold DEV
 *
 * Prints "qpn 0x..." and holds the QP until its standard input closes
 * (tests/vm/datapath/net-rx.sh: packets to it pass the ICRC and the QP
 * lookup, then are dropped as rx_drop_bad_qp_state).
 */
#include <stdio.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vm-verbs.h"

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_context *ctx = argc > 1 ? vm_open_dev(argv[1]) : NULL;
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	struct ibv_qp *qp;
	char c;

	if (!cq) {
		perror("qphold: setup");
		return 2;
	}
	ia.send_cq = cq;
	ia.recv_cq = cq;
	qp = ibv_create_qp(pd, &ia);
	if (!qp) {
		perror("qphold: create_qp");
		return 2;
	}
	printf("qpn 0x%06x\n", qp->qp_num);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return ibv_destroy_qp(qp) || ibv_destroy_cq(cq) ||
	       ibv_dealloc_pd(pd) || ibv_close_device(ctx);
}
