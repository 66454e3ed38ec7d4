/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce libibverbs provider: private types.
 */
#ifndef SROCE_H
#define SROCE_H

#include <stdint.h>

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>

#include "sroce-abi.h"

struct sroce_device {
	struct verbs_device vdev;
};

struct sroce_context {
	struct verbs_context vctx;
};

/*
 * The alloc_ucontext reply as it sits in the response buffer: the core
 * uverbs reply first, our udata right behind it.
 */
struct sroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct sroce_alloc_ucontext_resp drv;
};

static inline struct sroce_context *to_sroce_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

static inline struct sroce_device *to_sroce_dev(struct verbs_device *vdev)
{
	return container_of(vdev, struct sroce_device, vdev);
}

#endif /* SROCE_H */
