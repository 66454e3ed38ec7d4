// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Test probe for the provider, built against the in-place rdma-core by
 * scripts/build-provider.sh (it reads the provider-private struct
 * verbs_device, which no verbs tool shows).
 *
 *   ibv_provider          print "<ibdev> <provider>" for every verbs device
 *   ibv_provider -o DEV   open DEV, allocate and free a PD, close it; print
 *                         "<ibdev> <provider> pd ok"
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/driver.h>
#include <infiniband/verbs.h>

static int open_pd(struct ibv_device *dev)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int ret;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		fprintf(stderr, "ibv_open_device: %s\n", strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		fprintf(stderr, "ibv_alloc_pd: %s\n", strerror(errno));
		ibv_close_device(ctx);
		return 1;
	}
	ret = ibv_dealloc_pd(pd);
	if (ret) {
		fprintf(stderr, "ibv_dealloc_pd: %s\n", strerror(ret));
		ibv_close_device(ctx);
		return 1;
	}
	if (ibv_close_device(ctx)) {
		fprintf(stderr, "ibv_close_device: %s\n", strerror(errno));
		return 1;
	}
	printf("%s %s pd ok\n", ibv_get_device_name(dev),
	       verbs_get_device(dev)->ops->name);
	return 0;
}

int main(int argc, char **argv)
{
	const char *want = NULL;
	struct ibv_device **list;
	int i, n, ret = 0;

	if (argc == 3 && !strcmp(argv[1], "-o")) {
		want = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: ibv_provider [-o DEV]\n");
		return 2;
	}

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (!want)
			printf("%s %s\n", ibv_get_device_name(list[i]),
			       verbs_get_device(list[i])->ops->name);
		else if (!strcmp(ibv_get_device_name(list[i]), want))
			break;
	}
	if (want) {
		if (i < n) {
			ret = open_pd(list[i]);
		} else {
			fprintf(stderr, "%s: no such verbs device\n", want);
			ret = 1;
		}
	}
	ibv_free_device_list(list);
	return ret;
}
