/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Helpers shared by the VM test programs (tests/vm/verbs and
 * tests/vm/provider): header-only, as each program is one file.
 */
#ifndef SROCE_VM_VERBS_H
#define SROCE_VM_VERBS_H

#include <stdio.h>
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

/* A mapping of the device file: [start, end), at page offset @pgoff. */
struct vm_map {
	unsigned long start, end, pgoff;
};

/*
 * This process's mappings of /dev/infiniband/uverbs* (the rings the
 * device shares with it), at most @max into @m; their total size in KiB
 * into *@kib if it is not NULL.  -1 if /proc/self/maps cannot be read.
 */
static inline int vm_uverbs_maps(struct vm_map *m, int max,
				 unsigned long *kib)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long s, e, off, total = 0;
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %*s %lx", &s, &e, &off) != 3)
			continue;
		total += (e - s) >> 10;
		if (n < max) {
			m[n].start = s;
			m[n].end = e;
			m[n].pgoff = off;
			n++;
		}
	}
	fclose(f);
	if (kib)
		*kib = total;
	return n;
}

#endif /* SROCE_VM_VERBS_H */
