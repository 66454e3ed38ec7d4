// SPDX-License-Identifier: GPL-2.0
/* Drop reason names: present, unique, stable identifiers. */
#include <check.h>
#include <string.h>

#include "drop.h"

START_TEST(test_every_reason_named)
{
	int i;

	for (i = 0; i < SROCE_DROP_MAX; i++) {
		const char *n = sroce_drop_name(i);
		const char *c;

		ck_assert_msg(strcmp(n, "unknown"), "reason %d has no name", i);
		ck_assert_uint_gt(strlen(n), 0);
		for (c = n; *c; c++)
			ck_assert_msg((*c >= 'a' && *c <= 'z') || *c == '_',
				      "name %s: not a lower-case identifier", n);
	}
}
END_TEST

START_TEST(test_names_unique)
{
	int i, j;

	for (i = 0; i < SROCE_DROP_MAX; i++)
		for (j = i + 1; j < SROCE_DROP_MAX; j++)
			ck_assert_str_ne(sroce_drop_name(i), sroce_drop_name(j));
}
END_TEST

START_TEST(test_known_names)
{
	ck_assert_str_eq(sroce_drop_name(SROCE_DROP_NONE), "none");
	ck_assert_str_eq(sroce_drop_name(SROCE_DROP_TRUNCATED), "truncated");
	ck_assert_str_eq(sroce_drop_name(SROCE_DROP_BAD_ICRC), "bad_icrc");
	ck_assert_str_eq(sroce_drop_name(SROCE_DROP_BAD_PAD), "bad_pad");
	ck_assert_str_eq(sroce_drop_name(SROCE_DROP_NO_RESOURCE), "no_resource");
	ck_assert_str_eq(sroce_drop_name(SROCE_DROP_BAD_ADDR), "bad_addr");
	ck_assert_str_eq(sroce_drop_name(SROCE_DROP_BAD_MCAST), "bad_mcast");
}
END_TEST

START_TEST(test_out_of_range)
{
	ck_assert_str_eq(sroce_drop_name(SROCE_DROP_MAX), "unknown");
	ck_assert_str_eq(sroce_drop_name((enum sroce_drop)-1), "unknown");
	ck_assert_str_eq(sroce_drop_name((enum sroce_drop)1000), "unknown");
}
END_TEST

Suite *drop_suite(void);

Suite *drop_suite(void)
{
	Suite *s = suite_create("drop");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, test_every_reason_named);
	tcase_add_test(tc, test_names_unique);
	tcase_add_test(tc, test_known_names);
	tcase_add_test(tc, test_out_of_range);
	suite_add_tcase(s, tc);
	return s;
}
