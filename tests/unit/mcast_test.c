// SPDX-License-Identifier: GPL-2.0
/* UD multicast addressing rules (proto/mcast.c). */
#include <check.h>
#include <string.h>

#include "mcast.h"

static void gid_v4(u8 *gid, u8 a, u8 b, u8 c, u8 d)
{
	memset(gid, 0, SROCE_GID_LEN);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

/* A UD SEND_ONLY from 192.0.2.1 QP 0x21 to @dqpn at @dst. */
static void pkt_make(struct sroce_pkt *p, u32 dqpn, const u8 *dst)
{
	memset(p, 0, sizeof(*p));
	p->h.bth.opcode = SROCE_OPC(UD, SEND_ONLY);
	p->h.bth.dqpn = dqpn;
	p->h.deth.sqpn = 0x21;
	p->op = sroce_opinfo(p->h.bth.opcode);
	gid_v4(p->sgid, 192, 0, 2, 1);
	memcpy(p->dgid, dst, SROCE_GID_LEN);
}

START_TEST(test_gid_is_mcast)
{
	u8 g[SROCE_GID_LEN];

	gid_v4(g, 224, 0, 0, 1);
	ck_assert(sroce_gid_is_mcast(g));
	gid_v4(g, 239, 255, 255, 255);
	ck_assert(sroce_gid_is_mcast(g));
	gid_v4(g, 223, 255, 255, 255);
	ck_assert(!sroce_gid_is_mcast(g));
	gid_v4(g, 240, 0, 0, 0);
	ck_assert(!sroce_gid_is_mcast(g));
	/* 224.x without the ::ffff: prefix is not an IPv4 group. */
	g[11] = 0;
	ck_assert(!sroce_gid_is_mcast(g));
	memset(g, 0, sizeof(g));
	g[0] = 0xff;
	g[1] = 0x0e;
	g[15] = 1;
	ck_assert(sroce_gid_is_mcast(g));
	g[0] = 0xfe;
	g[1] = 0x80;
	ck_assert(!sroce_gid_is_mcast(g));
}
END_TEST

START_TEST(test_check)
{
	u8 grp[SROCE_GID_LEN], uni[SROCE_GID_LEN];
	struct sroce_pkt p;

	gid_v4(grp, 239, 1, 2, 3);
	gid_v4(uni, 192, 0, 2, 2);
	pkt_make(&p, SROCE_MCAST_QPN, grp);
	ck_assert(sroce_pkt_is_mcast(&p));
	ck_assert_int_eq(sroce_mcast_check(&p), SROCE_DROP_NONE);
	/* Unicast UD is not this file's business. */
	pkt_make(&p, 0x33, uni);
	ck_assert(!sroce_pkt_is_mcast(&p));
	ck_assert_int_eq(sroce_mcast_check(&p), SROCE_DROP_NONE);
	/* DestQP 0xFFFFFF to a unicast address. */
	pkt_make(&p, SROCE_MCAST_QPN, uni);
	ck_assert_int_eq(sroce_mcast_check(&p), SROCE_DROP_BAD_MCAST);
	/* A group address with a real DestQP. */
	pkt_make(&p, 0x33, grp);
	ck_assert_int_eq(sroce_mcast_check(&p), SROCE_DROP_BAD_MCAST);
	/* From a group. */
	pkt_make(&p, SROCE_MCAST_QPN, grp);
	memcpy(p.sgid, grp, SROCE_GID_LEN);
	ck_assert_int_eq(sroce_mcast_check(&p), SROCE_DROP_BAD_MCAST);
	/* Not UD. */
	pkt_make(&p, SROCE_MCAST_QPN, grp);
	p.h.bth.opcode = SROCE_OPC(RC, SEND_ONLY);
	ck_assert_int_eq(sroce_mcast_check(&p), SROCE_DROP_BAD_MCAST);
	p.h.bth.opcode = SROCE_OPC(UC, SEND_ONLY);
	ck_assert_int_eq(sroce_mcast_check(&p), SROCE_DROP_BAD_MCAST);
}
END_TEST

START_TEST(test_skip_self)
{
	u8 grp[SROCE_GID_LEN];
	struct sroce_pkt p;

	gid_v4(grp, 239, 1, 2, 3);
	pkt_make(&p, SROCE_MCAST_QPN, grp);
	ck_assert(sroce_mcast_skip_self(&p, 0x21, true, true));
	ck_assert(!sroce_mcast_skip_self(&p, 0x21, false, true));
	ck_assert(!sroce_mcast_skip_self(&p, 0x21, true, false));
	ck_assert(!sroce_mcast_skip_self(&p, 0x22, true, true));
}
END_TEST

Suite *mcast_suite(void);

Suite *mcast_suite(void)
{
	Suite *s = suite_create("mcast");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_gid_is_mcast);
	tcase_add_test(tc, test_check);
	tcase_add_test(tc, test_skip_self);
	suite_add_tcase(s, tc);
	return s;
}
