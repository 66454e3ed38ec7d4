// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: address handles.
 *
 * The kernel keeps the whole address vector, including the destination
 * MAC, which ib_core resolves for user AHs before the driver sees them;
 * a UD send WQE names the AH by the number the create response returns.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>

#include "sroce.h"

static_assert(offsetof(struct sroce_create_ah_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_ah_resp),
	      "sroce udata must follow the core reply without padding");

struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct sroce_create_ah_resp_buf resp = {};
	struct sroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	ret = ibv_cmd_create_ah(pd, &ah->ibah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ah_num = resp.drv.ah_num;
	return &ah->ibah;
}

int sroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;

	free(to_sroce_ah(ibah));
	return 0;
}
