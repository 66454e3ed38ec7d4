// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: memory windows.
 *
 * Allocation is a command; binding is a send WQE the kernel runs in SQ
 * order (IBV_WR_BIND_MW, for both window types: ibv_bind_mw posts one for
 * a type 1 window, with the next key byte).  Invalidation of a type 2
 * window is IBV_WR_LOCAL_INV, or SEND_WITH_INV from the peer.  The rkey
 * a bound window answers to is the one the bind WQE carried.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;

	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int sroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;

	free(mw);
	return 0;
}

/*
 * ibv_bind_mw (type 1; libibverbs checked the type and PD): a bind WQE
 * with the next key byte.  mw->rkey takes the new key once posted, as
 * verbs says, though it is valid only once the bind completes.
 */
int sroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
	}, *bad;
	int ret;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = sroce_post_send(qp, &wr, &bad);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}

/* Fill a send WQE's bind fields (send.c: post_send and wr_bind_mw). */
void sroce_build_bind(struct sroce_send_wqe_abi *wqe, const struct ibv_mw *mw,
		      uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	wqe->bind.addr = info->addr;
	wqe->bind.length = info->length;
	wqe->bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->bind.mw_rkey = mw->rkey;
	wqe->bind.new_rkey = rkey;
	wqe->bind.access = info->mw_access_flags;
}
