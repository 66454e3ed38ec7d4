/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The checks of a provider test program in tests/vm/provider: CHECK()
 * prints "PASS what", or "FAIL what (line N, errno E text)", and counts
 * it in passed or failed; the program ends with a line "NAME: P passed,
 * F failed", which its .sh script looks for.  Header-only, as each
 * program is one file.
 */
#ifndef SROCE_VM_CHECK_H
#define SROCE_VM_CHECK_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

#define CHECK(what, cond) do {						\
	if (cond) {							\
		passed++;						\
		printf("PASS %s\n", what);				\
	} else {							\
		failed++;						\
		printf("FAIL %s (line %d, errno %d %s)\n", what,	\
		       __LINE__, errno, strerror(errno));		\
	}								\
} while (0)

#endif /* SROCE_VM_CHECK_H */
