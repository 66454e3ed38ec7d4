// SPDX-License-Identifier: GPL-2.0
/*
 * XRC domains.  Like a PD, an XRCD carries no state in a software device:
 * ib_core keeps its target QPs (ib_open_qp) and its inode (shared through
 * a file), XRC SRQs point at it, and the responder of an XRC target QP
 * compares pointers (srq.c, sroce_xrc_srq_find).  Counted so that a
 * process cannot make them without bound.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"

struct sroce_xrcd {
	struct ib_xrcd	ibxrcd;
};

static int sroce_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	if (sroce_udata_check(udata, 0))
		return -EINVAL;
	return sroce_obj_add(to_sdev(ibxrcd->device), SROCE_OBJ_XRCD, udata);
}

static int sroce_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	sroce_obj_del(to_sdev(ibxrcd->device), SROCE_OBJ_XRCD);
	return 0;
}

const struct ib_device_ops sroce_xrcd_ops = {
	.alloc_xrcd = sroce_alloc_xrcd,
	.dealloc_xrcd = sroce_dealloc_xrcd,

	INIT_RDMA_OBJ_SIZE(ib_xrcd, sroce_xrcd, ibxrcd),
};
