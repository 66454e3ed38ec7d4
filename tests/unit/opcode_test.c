// SPDX-License-Identifier: GPL-2.0
/*
 * The opcode table against an independent transcription of the IBTA
 * opcode tables (header lengths written out as numbers, not derived from
 * the flags the way opcode.c derives them).
 */
#include <check.h>
#include <string.h>

#include "wire.h"

struct want {
	u8 opc;
	u8 hdr_len;
	const char *name;
};

static const struct want want_ops[] = {
	{ 0x00, 12, "RC_SEND_FIRST" },
	{ 0x01, 12, "RC_SEND_MIDDLE" },
	{ 0x02, 12, "RC_SEND_LAST" },
	{ 0x03, 16, "RC_SEND_LAST_IMM" },
	{ 0x04, 12, "RC_SEND_ONLY" },
	{ 0x05, 16, "RC_SEND_ONLY_IMM" },
	{ 0x06, 28, "RC_WRITE_FIRST" },
	{ 0x07, 12, "RC_WRITE_MIDDLE" },
	{ 0x08, 12, "RC_WRITE_LAST" },
	{ 0x09, 16, "RC_WRITE_LAST_IMM" },
	{ 0x0a, 28, "RC_WRITE_ONLY" },
	{ 0x0b, 32, "RC_WRITE_ONLY_IMM" },
	{ 0x0c, 28, "RC_READ_REQ" },
	{ 0x0d, 16, "RC_READ_RESP_FIRST" },
	{ 0x0e, 12, "RC_READ_RESP_MIDDLE" },
	{ 0x0f, 16, "RC_READ_RESP_LAST" },
	{ 0x10, 16, "RC_READ_RESP_ONLY" },
	{ 0x11, 16, "RC_ACK" },
	{ 0x12, 24, "RC_ATOMIC_ACK" },
	{ 0x13, 40, "RC_CMP_SWAP" },
	{ 0x14, 40, "RC_FETCH_ADD" },
	{ 0x16, 16, "RC_SEND_LAST_INV" },
	{ 0x17, 16, "RC_SEND_ONLY_INV" },
	{ 0x1c, 32, "RC_FLUSH" },
	{ 0x1d, 28, "RC_ATOMIC_WRITE" },
	{ 0x20, 12, "UC_SEND_FIRST" },
	{ 0x21, 12, "UC_SEND_MIDDLE" },
	{ 0x22, 12, "UC_SEND_LAST" },
	{ 0x23, 16, "UC_SEND_LAST_IMM" },
	{ 0x24, 12, "UC_SEND_ONLY" },
	{ 0x25, 16, "UC_SEND_ONLY_IMM" },
	{ 0x26, 28, "UC_WRITE_FIRST" },
	{ 0x27, 12, "UC_WRITE_MIDDLE" },
	{ 0x28, 12, "UC_WRITE_LAST" },
	{ 0x29, 16, "UC_WRITE_LAST_IMM" },
	{ 0x2a, 28, "UC_WRITE_ONLY" },
	{ 0x2b, 32, "UC_WRITE_ONLY_IMM" },
	/* XRC: requests carry the 4-byte XRCETH, responses as RC */
	{ 0xa0, 16, "XRC_SEND_FIRST" },
	{ 0xa1, 16, "XRC_SEND_MIDDLE" },
	{ 0xa2, 16, "XRC_SEND_LAST" },
	{ 0xa3, 20, "XRC_SEND_LAST_IMM" },
	{ 0xa4, 16, "XRC_SEND_ONLY" },
	{ 0xa5, 20, "XRC_SEND_ONLY_IMM" },
	{ 0xa6, 32, "XRC_WRITE_FIRST" },
	{ 0xa7, 16, "XRC_WRITE_MIDDLE" },
	{ 0xa8, 16, "XRC_WRITE_LAST" },
	{ 0xa9, 20, "XRC_WRITE_LAST_IMM" },
	{ 0xaa, 32, "XRC_WRITE_ONLY" },
	{ 0xab, 36, "XRC_WRITE_ONLY_IMM" },
	{ 0xac, 32, "XRC_READ_REQ" },
	{ 0xad, 16, "XRC_READ_RESP_FIRST" },
	{ 0xae, 12, "XRC_READ_RESP_MIDDLE" },
	{ 0xaf, 16, "XRC_READ_RESP_LAST" },
	{ 0xb0, 16, "XRC_READ_RESP_ONLY" },
	{ 0xb1, 16, "XRC_ACK" },
	{ 0xb2, 24, "XRC_ATOMIC_ACK" },
	{ 0xb3, 44, "XRC_CMP_SWAP" },
	{ 0xb4, 44, "XRC_FETCH_ADD" },
	{ 0xb6, 20, "XRC_SEND_LAST_INV" },
	{ 0xb7, 20, "XRC_SEND_ONLY_INV" },
	{ 0x64, 20, "UD_SEND_ONLY" },
	{ 0x65, 24, "UD_SEND_ONLY_IMM" },
	{ 0x81, 28, "CNP" },
};

static const struct want *find_want(unsigned int opc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want_ops); i++)
		if (want_ops[i].opc == opc)
			return &want_ops[i];
	return NULL;
}

START_TEST(test_exact_set)
{
	unsigned int opc, n = 0;

	for (opc = 0; opc < 256; opc++) {
		const struct sroce_opinfo *op = sroce_opinfo(opc);
		const struct want *w = find_want(opc);

		ck_assert_msg(!op == !w, "opcode 0x%02x: table %s, IBTA %s", opc,
			      op ? op->name : "-", w ? w->name : "-");
		if (!op)
			continue;
		n++;
		ck_assert_str_eq(op->name, w->name);
		ck_assert_uint_eq(op->hdr_len, w->hdr_len);
		ck_assert_uint_le(op->hdr_len, SROCE_MAX_HDR_LEN);
	}
	ck_assert_uint_eq(n, ARRAY_SIZE(want_ops));
	ck_assert_uint_eq(n, 63);
}
END_TEST

START_TEST(test_flag_invariants)
{
	unsigned int opc;

	for (opc = 0; opc < 256; opc++) {
		const struct sroce_opinfo *op = sroce_opinfo(opc);
		u32 f, pos, kind;

		if (!op)
			continue;
		f = op->flags;
		/* a CNP is neither request nor response, and nothing else */
		if (f & SROCE_OPF_CNP) {
			ck_assert_uint_eq(opc, SROCE_OPC_CNP);
			ck_assert_uint_eq(f, SROCE_OPF_CNP);
			continue;
		}
		/* exactly one direction */
		ck_assert_msg(!(f & SROCE_OPF_REQ) != !(f & SROCE_OPF_RESP),
			      "%s direction", op->name);
		/* FIRST, MIDDLE, LAST or ONLY */
		pos = f & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE | SROCE_OPF_LAST);
		ck_assert_msg(pos == SROCE_OPF_FIRST || pos == SROCE_OPF_MIDDLE ||
			      pos == SROCE_OPF_LAST || pos == SROCE_OPF_ONLY,
			      "%s position", op->name);
		/* an ACK is the one opcode of no operation kind */
		kind = f & (SROCE_OPF_SEND | SROCE_OPF_WRITE | SROCE_OPF_READ |
			    SROCE_OPF_ATOMIC | SROCE_OPF_ATOMIC_WRITE |
			    SROCE_OPF_FLUSH);
		ck_assert_msg(kind ? !(kind & (kind - 1)) :
			      (opc & 0x1f) == SROCE_OP_ACK, "%s kind", op->name);
		/* headers are whole words */
		ck_assert_uint_eq(op->hdr_len % 4, 0);
		/* transport-specific headers */
		if ((opc & SROCE_TRANSPORT_MASK) == SROCE_TRANSPORT_UD)
			ck_assert(f & SROCE_OPF_DETH);
		else
			ck_assert(!(f & SROCE_OPF_DETH));
		if ((opc & SROCE_TRANSPORT_MASK) != SROCE_TRANSPORT_RC &&
		    (opc & SROCE_TRANSPORT_MASK) != SROCE_TRANSPORT_XRC)
			ck_assert(!(f & (SROCE_OPF_READ | SROCE_OPF_ATOMIC |
					 SROCE_OPF_AETH | SROCE_OPF_RESP |
					 SROCE_OPF_IETH | SROCE_OPF_FLUSH |
					 SROCE_OPF_ATOMIC_WRITE)));
		/* XRC: an XRCETH on every request and on nothing else */
		if ((opc & SROCE_TRANSPORT_MASK) == SROCE_TRANSPORT_XRC)
			ck_assert(!(f & SROCE_OPF_REQ) == !(f & SROCE_OPF_XRCETH));
		else
			ck_assert(!(f & SROCE_OPF_XRCETH));
		/* a RETH starts every RDMA operation */
		if (f & (SROCE_OPF_WRITE | SROCE_OPF_READ) && f & SROCE_OPF_REQ)
			ck_assert(!(f & SROCE_OPF_FIRST) == !(f & SROCE_OPF_RETH));
	}
}
END_TEST

START_TEST(test_specific_flags)
{
	const struct sroce_opinfo *op;

	op = sroce_opinfo(SROCE_OPC(RC, READ_RESP_MIDDLE));
	ck_assert(!(op->flags & SROCE_OPF_AETH));
	ck_assert(op->flags & SROCE_OPF_PAYLOAD);
	op = sroce_opinfo(SROCE_OPC(RC, ACK));
	ck_assert(!(op->flags & SROCE_OPF_PAYLOAD));
	op = sroce_opinfo(SROCE_OPC(RC, ATOMIC_WRITE));
	ck_assert(op->flags & SROCE_OPF_PAYLOAD && op->flags & SROCE_OPF_RETH);
	op = sroce_opinfo(SROCE_OPC(RC, FLUSH));
	ck_assert(!(op->flags & SROCE_OPF_PAYLOAD));
	ck_assert(op->flags & SROCE_OPF_FETH && op->flags & SROCE_OPF_RETH);
	op = sroce_opinfo(SROCE_OPC(RC, SEND_ONLY_INV));
	ck_assert(op->flags & SROCE_OPF_IETH);
	op = sroce_opinfo(SROCE_OPC(UD, SEND_ONLY_IMM));
	ck_assert(op->flags & SROCE_OPF_IMMDT && op->flags & SROCE_OPF_DETH);
	op = sroce_opinfo(SROCE_OPC(XRC, SEND_ONLY));
	ck_assert(op->flags & SROCE_OPF_XRCETH);
	op = sroce_opinfo(SROCE_OPC(XRC, ACK));
	ck_assert(!(op->flags & SROCE_OPF_XRCETH));
	/* reserved, RD, XRC placement and CNP's neighbours are not spoken */
	ck_assert_ptr_null(sroce_opinfo(0x15));
	ck_assert_ptr_null(sroce_opinfo(0x18));
	ck_assert_ptr_null(sroce_opinfo(0x1f));
	ck_assert_ptr_null(sroce_opinfo(0x2c));
	ck_assert_ptr_null(sroce_opinfo(0x40));
	ck_assert_ptr_null(sroce_opinfo(0x60));
	ck_assert_ptr_null(sroce_opinfo(0x80));
	ck_assert_ptr_null(sroce_opinfo(0x82));
	ck_assert_ptr_null(sroce_opinfo(0xb5));
	ck_assert_ptr_null(sroce_opinfo(0xbc));
	ck_assert_ptr_null(sroce_opinfo(0xbd));
	ck_assert_ptr_null(sroce_opinfo(0xff));
}
END_TEST

Suite *opcode_suite(void);

Suite *opcode_suite(void)
{
	Suite *s = suite_create("opcode");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_exact_set);
	tcase_add_test(tc, test_flag_invariants);
	tcase_add_test(tc, test_specific_flags);
	suite_add_tcase(s, tc);
	return s;
}
