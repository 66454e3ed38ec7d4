// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: the SQ doorbell, a uverbs POST_SEND that
 * carries no work requests (Documentation/datapath.rst, "Doorbells").
 *
 * It is written to cmd_fd with write(2) rather than sent through
 * ibv_cmd_post_send(), which takes the ioctl form (INVOKE_WRITE) on every
 * kernel that has it.  Both reach the same handler, but the ioctl form
 * marshals an attribute bundle first, and a doorbell is rung for about
 * every message of a latency loop (Documentation/performance.rst,
 * "Doorbell by write(2)").  The write(2) form of POST_SEND is uverbs ABI
 * and on every kernel.  The kernel refuses it (EACCES) to a process whose
 * credentials changed after it opened the device; that QP then rings
 * with the ioctl form from then on.
 */
#include <config.h>

#include <errno.h>
#include <unistd.h>

#include "sroce.h"

struct sroce_doorbell_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send cmd;
};

int sroce_cmd_doorbell(struct sroce_qp *qp)
{
	struct ib_uverbs_post_send_resp resp;
	struct sroce_doorbell_cmd req = {
		.hdr.command = IB_USER_VERBS_CMD_POST_SEND,
		.hdr.in_words = sizeof(req) / 4,
		.hdr.out_words = sizeof(resp) / 4,
		.cmd.response = (uintptr_t)&resp,
		.cmd.qp_handle = qp->vqp.qp.handle,
		.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr),
	};
	struct ibv_send_wr *bad;

	if (!__atomic_load_n(&qp->db_ioctl, __ATOMIC_RELAXED)) {
		if (write(qp->vqp.qp.context->cmd_fd, &req, sizeof(req)) ==
		    sizeof(req))
			return 0;
		if (errno != EACCES)
			return errno;
		__atomic_store_n(&qp->db_ioctl, true, __ATOMIC_RELAXED);
	}
	return ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);
}
