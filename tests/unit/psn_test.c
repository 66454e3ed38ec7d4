// SPDX-License-Identifier: GPL-2.0
/* 24-bit PSN arithmetic around the wrap and the 2^23 comparison horizon. */
#include <check.h>

#include "psn.h"

START_TEST(test_mask_and_add)
{
	ck_assert_uint_eq(sroce_psn(0x1000000), 0);
	ck_assert_uint_eq(sroce_psn(0xffffffff), 0xffffff);
	ck_assert_uint_eq(sroce_psn_add(0xffffff, 1), 0);
	ck_assert_uint_eq(sroce_psn_add(0xfffff0, 0x20), 0x10);
	ck_assert_uint_eq(sroce_psn_add(5, 0), 5);
	ck_assert_uint_eq(sroce_psn_add(0, SROCE_PSN_MOD), 0);
}
END_TEST

START_TEST(test_diff_boundaries)
{
	ck_assert_int_eq(sroce_psn_diff(0, 0), 0);
	ck_assert_int_eq(sroce_psn_diff(0, 0xffffff), 1);
	ck_assert_int_eq(sroce_psn_diff(0xffffff, 0), -1);
	ck_assert_int_eq(sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	ck_assert_int_eq(sroce_psn_diff(0, 0x7fffff), -0x7fffff);
	/* Exactly half way is the one ambiguous distance: it reads "behind". */
	ck_assert_int_eq(sroce_psn_diff(0x800000, 0), -0x800000);
	ck_assert_int_eq(sroce_psn_diff(0, 0x800000), -0x800000);
	ck_assert_int_eq(sroce_psn_diff(0x800001, 0), -0x7fffff);
	ck_assert_int_eq(sroce_psn_diff(0x10, 0xfffff0), 0x20);
	/* Bits above 24 are ignored. */
	ck_assert_int_eq(sroce_psn_diff(0x5000003, 0x1000001), 2);
}
END_TEST

START_TEST(test_compare_across_wrap)
{
	u32 base[] = { 0, 1, 0x7fffff, 0x800000, 0xfffffe, 0xffffff };
	s32 d[] = { 1, 2, 100, 0x7ffffe, 0x7fffff };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(base); i++) {
		for (j = 0; j < ARRAY_SIZE(d); j++) {
			u32 a = base[i], b = sroce_psn_add(a, d[j]);

			ck_assert(sroce_psn_lt(a, b));
			ck_assert(!sroce_psn_lt(b, a));
			ck_assert(sroce_psn_le(a, b));
			ck_assert(!sroce_psn_le(b, a));
			ck_assert_int_eq(sroce_psn_diff(b, a), d[j]);
			ck_assert_int_eq(sroce_psn_diff(a, b), -d[j]);
		}
		ck_assert(sroce_psn_le(base[i], base[i]));
		ck_assert(!sroce_psn_lt(base[i], base[i]));
	}
}
END_TEST

START_TEST(test_antisymmetry_sweep)
{
	u32 a, b, bad = 0, n = 0;

	/*
	 * Every distance class, sampled; exact half is excluded above.
	 * Counted, then asserted once: Check's per-assert bookkeeping is slow.
	 */
	for (a = 0; a < SROCE_PSN_MOD; a += 0x10001) {
		for (b = 3; b < SROCE_PSN_MOD; b += 0x7ff3) {
			s32 d = sroce_psn_diff(a, b);

			n++;
			if (sroce_psn_add(b, (u32)d) != a)
				bad++;
			else if (d != -(s32)SROCE_PSN_HALF &&
				 sroce_psn_diff(b, a) != -d)
				bad++;
			else if (d < -(s32)SROCE_PSN_HALF || d >= (s32)SROCE_PSN_HALF)
				bad++;
		}
	}
	ck_assert_uint_gt(n, 100000);
	ck_assert_uint_eq(bad, 0);
}
END_TEST

START_TEST(test_window)
{
	ck_assert(sroce_psn_in(5, 5, 1));
	ck_assert(!sroce_psn_in(6, 5, 1));
	ck_assert(!sroce_psn_in(4, 5, 1));
	ck_assert(!sroce_psn_in(5, 5, 0));
	/* A window straddling the wrap. */
	ck_assert(sroce_psn_in(0xfffffe, 0xfffffe, 4));
	ck_assert(sroce_psn_in(0xffffff, 0xfffffe, 4));
	ck_assert(sroce_psn_in(0, 0xfffffe, 4));
	ck_assert(sroce_psn_in(1, 0xfffffe, 4));
	ck_assert(!sroce_psn_in(2, 0xfffffe, 4));
	ck_assert(!sroce_psn_in(0xfffffd, 0xfffffe, 4));
	/* Largest comparable window. */
	ck_assert(sroce_psn_in(0x7fffff, 0, SROCE_PSN_HALF));
	ck_assert(!sroce_psn_in(0x800000, 0, SROCE_PSN_HALF));
}
END_TEST

Suite *psn_suite(void);

Suite *psn_suite(void)
{
	Suite *s = suite_create("psn");
	TCase *tc = tcase_create("arith");

	tcase_add_test(tc, test_mask_and_add);
	tcase_add_test(tc, test_diff_boundaries);
	tcase_add_test(tc, test_compare_across_wrap);
	tcase_add_test(tc, test_antisymmetry_sweep);
	tcase_add_test(tc, test_window);
	suite_add_tcase(s, tc);
	return s;
}
