// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: protection domains, thread domains and
 * parent domains.
 *
 * A parent domain is a PD to libibverbs and to the kernel: it carries the
 * handle of the PD it contains, so every command made with it (reg_mr,
 * create_qp, create_ah, alloc_mw) acts on that PD.  What it adds lives
 * here only: a thread domain, whose promise that one thread at a time
 * uses the QPs and CQs made with it lets them go without their locks.
 *
 * sroce's queues are kernel memory mapped into the process (ring.c); the
 * provider allocates no buffer a custom allocator could place, so the
 * caller's allocators and pd_context are accepted and not kept.
 */
#include <config.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <infiniband/driver.h>

#include "sroce.h"

struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct sroce_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	atomic_init(&pd->refs, 1);

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

/*
 * EBUSY while anything holds @pd: a parent domain holds its PD, a QP or
 * CQ its parent domain (the kernel counts what holds a real PD).
 */
int sroce_dealloc_pd(struct ibv_pd *ibpd)
{
	struct sroce_pd *pd = to_sroce_pd(ibpd);
	int ret;

	if (atomic_load(&pd->refs) > 1)
		return EBUSY;
	if (pd->parent_of) {
		atomic_fetch_sub(&pd->parent_of->refs, 1);
		if (pd->td)
			atomic_fetch_sub(&pd->td->refs, 1);
		free(pd);
		return 0;
	}
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;
	free(pd);
	return 0;
}

struct ibv_td *sroce_alloc_td(struct ibv_context *ibctx,
			      struct ibv_td_init_attr *attr)
{
	struct sroce_td *td;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td)
		return NULL;
	td->ibv_td.context = ibctx;
	atomic_init(&td->refs, 1);
	return &td->ibv_td;
}

int sroce_dealloc_td(struct ibv_td *ibtd)
{
	struct sroce_td *td = to_sroce_td(ibtd);

	if (atomic_load(&td->refs) > 1)
		return EBUSY;
	free(td);
	return 0;
}

struct ibv_pd *
sroce_alloc_parent_domain(struct ibv_context *ibctx,
			  struct ibv_parent_domain_init_attr *attr)
{
	struct sroce_pd *parent, *pd;

	if (ibv_check_alloc_parent_domain(attr))
		return NULL;
	if (attr->comp_mask & ~(uint32_t)(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					  IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)) {
		errno = EINVAL;
		return NULL;
	}
	pd = to_sroce_pd(attr->pd);
	/* A parent domain contains a PD, not another parent domain. */
	if (pd->parent_of || attr->pd->context != ibctx ||
	    (attr->td && attr->td->context != ibctx)) {
		errno = EINVAL;
		return NULL;
	}

	parent = calloc(1, sizeof(*parent));
	if (!parent)
		return NULL;
	atomic_init(&parent->refs, 1);
	ibv_initialize_parent_domain(&parent->ibv_pd, attr->pd);
	parent->parent_of = pd;
	atomic_fetch_add(&pd->refs, 1);
	if (attr->td) {
		parent->td = to_sroce_td(attr->td);
		atomic_fetch_add(&parent->td->refs, 1);
	}
	return &parent->ibv_pd;
}

/*
 * A QP or CQ made with @ibpd: if it is a parent domain, hold it, and
 * return whether its thread domain lets the object drop its locks.
 */
bool sroce_pd_hold(struct ibv_pd *ibpd)
{
	struct sroce_pd *pd = to_sroce_pd(ibpd);

	if (!pd->parent_of)
		return false;
	atomic_fetch_add(&pd->refs, 1);
	return pd->td;
}

void sroce_pd_release(struct ibv_pd *ibpd)
{
	struct sroce_pd *pd = to_sroce_pd(ibpd);

	if (pd->parent_of)
		atomic_fetch_sub(&pd->refs, 1);
}

bool sroce_pd_is_parent(struct ibv_pd *ibpd)
{
	return to_sroce_pd(ibpd)->parent_of;
}

/*
 * XRC domains: the kernel's object alone (ib_core shares it through
 * @attr->fd and keeps its target QPs); nothing of ours to keep.
 */
struct ibv_xrcd *sroce_open_xrcd(struct ibv_context *ibctx,
				 struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int ret;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;
	ret = ibv_cmd_open_xrcd(ibctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(xrcd);
		errno = ret;
		return NULL;
	}
	return &xrcd->xrcd;
}

int sroce_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int ret;

	ret = ibv_cmd_close_xrcd(xrcd);
	if (ret)
		return ret;
	free(xrcd);
	return 0;
}
