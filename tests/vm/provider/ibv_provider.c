// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Print "<ibdev> <provider>" for every verbs device, the provider being
 * the libibverbs provider that claimed it.  Tests use it to prove which
 * provider a device went to; no verbs tool prints that.  Built against the
 * in-place rdma-core by scripts/build-provider.sh, since it reads the
 * provider-private struct verbs_device.
 */
#include <stdio.h>

#include <infiniband/driver.h>
#include <infiniband/verbs.h>

int main(void)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("%s %s\n", ibv_get_device_name(list[i]),
		       verbs_get_device(list[i])->ops->name);
	ibv_free_device_list(list);
	return 0;
}
