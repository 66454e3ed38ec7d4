/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Helpers shared by the VM test programs (tests/vm/verbs and
 * tests/vm/provider): header-only, as each program is one file.
 */
#ifndef SROCE_VM_VERBS_H
#define SROCE_VM_VERBS_H

#include <string.h>
#include <infiniband/verbs.h>

/* Open the verbs device called @name; NULL if there is none. */
static inline struct ibv_context *vm_open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

#endif /* SROCE_VM_VERBS_H */
