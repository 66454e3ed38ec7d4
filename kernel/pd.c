// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains.  A PD carries no state of its own in a software
 * device: MRs, QPs and AHs point at it and key checks compare pointers.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"

int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return sroce_obj_add(to_sdev(ibpd->device), SROCE_OBJ_PD, udata);
}

int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	sroce_obj_del(to_sdev(ibpd->device), SROCE_OBJ_PD);
	return 0;
}
