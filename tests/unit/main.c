// SPDX-License-Identifier: GPL-2.0
/*
 * Runs every Check suite in tests/unit/ and ends with the plain
 * "unit: N passed, M failed" line that make check adds up.
 * CK_RUN_SUITE / CK_RUN_CASE select a subset, as usual with Check.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define SUITE(n) Suite *n##_suite(void);
#include "suites.h"
#undef SUITE

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int run, failed;

#define SUITE(n) srunner_add_suite(sr, n##_suite());
#include "suites.h"
#undef SUITE

	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	printf("unit: %d passed, %d failed\n", run - failed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
