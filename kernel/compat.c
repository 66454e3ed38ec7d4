// SPDX-License-Identifier: GPL-2.0
/*
 * The shims of compat.h that need sroce's own types: on kernels before
 * 5.15, create_qp allocates the QP and destroy_qp frees it.
 */
#include <linux/slab.h>

#include "sroce.h"
#include "kqp.h"

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
/*
 * ib_core fills the ib_qp once create_qp returns; sroce_create_qp() reads
 * what 5.15's core sets before the call, so set that here.
 */
struct ib_qp *sroce_compat_create_qp(struct ib_pd *pd,
				     struct ib_qp_init_attr *init,
				     struct ib_udata *udata)
{
	struct sroce_kqp *kqp;
	int err;

	kqp = kzalloc(sizeof(*kqp), GFP_KERNEL);
	if (!kqp)
		return ERR_PTR(-ENOMEM);
	/* An XRC target QP comes without a PD, from its XRCD. */
	kqp->ibqp.device = pd ? pd->device : init->xrcd->device;
	kqp->ibqp.pd = pd;
	kqp->ibqp.real_qp = &kqp->ibqp;
	kqp->ibqp.qp_type = init->qp_type;
	kqp->ibqp.send_cq = init->send_cq;
	kqp->ibqp.recv_cq = init->recv_cq;
	kqp->ibqp.srq = init->srq;
	kqp->ibqp.event_handler = init->event_handler;
	kqp->ibqp.qp_context = init->qp_context;
	err = sroce_create_qp(&kqp->ibqp, init, udata);
	if (err) {
		kfree(kqp);
		return ERR_PTR(err);
	}
	return &kqp->ibqp;
}

/* sroce_destroy_qp() waits for RX readers: nothing uses the QP after. */
int sroce_compat_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	int err = sroce_destroy_qp(ibqp, udata);

	if (!err)
		kfree(to_kqp(ibqp));
	return err;
}
#endif
