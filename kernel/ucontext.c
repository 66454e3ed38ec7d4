// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts: one per opened verbs context.  The response tells the
 * provider which ABI revision this module speaks.
 */
#include <linux/minmax.h>
#include <rdma/ib_verbs.h>

#include "uapi/sroce-abi.h"
#include "sroce.h"

int sroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibuc->device);
	struct sroce_alloc_ucontext_resp resp = {
		.abi_version = SROCE_UVERBS_ABI_VERSION,
	};
	int err;

	err = sroce_obj_add(sdev, SROCE_OBJ_UCONTEXT, true);
	if (err)
		return err;

	/* An older provider may know a shorter response: give it a prefix. */
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err) {
		sroce_obj_del(sdev, SROCE_OBJ_UCONTEXT);
		return err;
	}
	return 0;
}

void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	/* Its mappings are gone: free the rings they kept (rings.c). */
	sroce_rings_reap(false);
	sroce_obj_del(to_sdev(ibuc->device), SROCE_OBJ_UCONTEXT);
}

/*
 * Having this op lets ib_core revoke a live context when the device goes
 * away (rdma link delete, netdev unregister, rmmod) instead of blocking
 * until the process exits, as rxe does.  ib_core destroys every object;
 * ring pages a process still maps stay allocated (remap_vmalloc_range
 * holds page references, and rings.c frees an exposed buffer only from
 * sroce_mmap_free) but no longer feed any kernel object.  They leave the
 * budget and the memory cgroup once unmapped (rings.c, the lingering
 * list).  Nothing else is left to do here.
 */
void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}
