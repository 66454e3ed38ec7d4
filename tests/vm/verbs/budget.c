// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * budget: take all the device memory a process may have, and hold it.
 *
 *   budget DEV
 *
 * Creates CQs with large rings until the device refuses, then CQs with
 * the smallest ring until it refuses again, so that what is left of the
 * budget (max_ring_mb) is less than one page.  Prints
 *
 *   full: N CQs, K KiB mapped, create_cq errno E (<strerror>)
 *
 * and holds them until its standard input closes
 * (tests/vm/consumers/reserve.sh: a kernel consumer must still connect).
 * Exit status 2 if the device never refused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vm-verbs.h"

#define MAX_CQS	65536

static struct ibv_cq *cqs[MAX_CQS];

int main(int argc, char **argv)
{
	static const int cqe[] = { 16384, 1 };
	struct ibv_context *ctx = argc > 1 ? vm_open_dev(argv[1]) : NULL;
	unsigned long kib = 0;
	int n = 0, err = 0, i;
	char c;

	if (!ctx) {
		fprintf(stderr, "budget: cannot open %s\n",
			argc > 1 ? argv[1] : "(no device given)");
		return 2;
	}
	for (i = 0; i < 2; i++) {
		while (n < MAX_CQS) {
			cqs[n] = ibv_create_cq(ctx, cqe[i], NULL, NULL, 0);
			if (!cqs[n]) {
				err = errno;
				break;
			}
			n++;
		}
	}
	if (!err) {
		printf("budget: %d CQs and never refused\n", n);
		return 2;
	}
	vm_uverbs_maps(NULL, 0, &kib);
	printf("full: %d CQs, %lu KiB mapped, create_cq errno %d (%s)\n", n,
	       kib, err, strerror(err));
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	for (i = n - 1; i >= 0; i--)
		if (ibv_destroy_cq(cqs[i]))
			return 2;
	return ibv_close_device(ctx) ? 2 : 0;
}
