// SPDX-License-Identifier: GPL-2.0
/*
 * BTH and extension header codecs: golden bytes written out by hand from
 * the IBA layouts, round trips of every field of every opcode, the length
 * and pad rules, and tshark's dissector as an outside reader of what
 * sroce_build() produces.
 */
#include <check.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "icrc.h"
#include "wire.h"

#ifndef SROCE_TEST_TMP
#define SROCE_TEST_TMP "."
#endif
#ifndef SROCE_TEST_DATA
#define SROCE_TEST_DATA "data"
#endif

static u8 buf[8192];

/* ---- golden encodings ---- */

START_TEST(test_golden_write_only)
{
	static const u8 want[] = {
		0x0a, 0xa0, 0xff, 0xff,			/* opc; SE, pad 2; P_Key */
		0x80, 0x12, 0x34, 0x56,			/* FECN; DestQP */
		0x80, 0xab, 0xcd, 0xef,			/* AckReq; PSN */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* VA */
		0x11, 0x22, 0x33, 0x44,			/* R_Key */
		0x00, 0x00, 0x0f, 0xfe,			/* DMA length */
	};
	struct sroce_hdrs h = { 0 };
	struct sroce_pkt pkt;
	u32 n;

	h.bth.opcode = SROCE_OPC(RC, WRITE_ONLY);
	h.bth.se = 1;
	h.bth.pad = 2;
	h.bth.pkey = 0xffff;
	h.bth.fecn = 1;
	h.bth.dqpn = 0x123456;
	h.bth.ackreq = 1;
	h.bth.psn = 0xabcdef;
	h.reth.va = 0x0102030405060708ull;
	h.reth.rkey = 0x11223344;
	h.reth.len = 0xffe;
	memset(buf, 0x5a, sizeof(buf));
	n = sroce_build(buf, &h);
	ck_assert_uint_eq(n, sizeof(want));
	ck_assert_mem_eq(buf, want, sizeof(want));
	ck_assert_uint_eq(buf[n], 0x5a);	/* nothing written past */

	/* 2 payload bytes + pad 2 + ICRC */
	ck_assert_int_eq(sroce_parse(buf, n + 8, &pkt), SROCE_DROP_NONE);
	ck_assert_uint_eq(pkt.paylen, 2);
	ck_assert_uint_eq(pkt.hdr_len, 28);
	ck_assert_ptr_eq(pkt.op, sroce_opinfo(0x0a));
	ck_assert(pkt.h.bth.fecn && !pkt.h.bth.becn && pkt.h.bth.se);
	ck_assert(!pkt.h.bth.mig && pkt.h.bth.ackreq);
}
END_TEST

START_TEST(test_golden_ext_headers)
{
	static const u8 ud[] = {
		0x65, 0x40, 0x80, 0x01, 0x40, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x07,
		0x80, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, /* DETH */
		0xde, 0xad, 0xbe, 0xef,				/* ImmDT */
	};
	static const u8 atk[] = {
		0x12, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x10,
		0x63, 0x00, 0x00, 0x2a,				/* AETH */
		0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,	/* orig */
	};
	static const u8 cas[] = {
		0x13, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x11,
		0, 0, 0, 0, 0, 0, 0x10, 0x00,			/* VA */
		0xaa, 0xbb, 0xcc, 0xdd,				/* R_Key */
		1, 2, 3, 4, 5, 6, 7, 8,				/* swap */
		9, 10, 11, 12, 13, 14, 15, 16,			/* compare */
	};
	static const u8 flush[] = {
		0x1c, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x12,
		0x00, 0x00, 0x00, 0x12,				/* FETH */
		0, 0, 0, 0, 0, 0, 0x20, 0x00,			/* VA */
		0, 0, 0, 5, 0, 0, 0x10, 0,			/* R_Key, len */
	};
	static const u8 inv[] = {
		0x17, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x13,
		0x00, 0x12, 0x34, 0x56,				/* IETH */
	};
	static const u8 xwr[] = {
		0xab, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x14,
		0x00, 0x0a, 0xbc, 0xde,				/* XRCETH */
		0, 0, 0, 0, 0, 0, 0x30, 0x00,			/* VA */
		0, 0, 0, 6, 0, 0, 0, 0x40,			/* R_Key, len */
		0x01, 0x02, 0x03, 0x04,				/* ImmDT */
	};
	static const u8 xack[] = {
		0xb1, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x15,
		0x1f, 0x00, 0x00, 0x07,				/* AETH */
	};
	struct sroce_hdrs h = { 0 };
	struct sroce_pkt pkt;

	h.bth.opcode = SROCE_OPC(UD, SEND_ONLY_IMM);
	h.bth.mig = 1;
	h.bth.pkey = 0x8001;
	h.bth.becn = 1;
	h.bth.dqpn = 1;
	h.bth.psn = 7;
	h.deth.qkey = 0x80010002;
	h.deth.sqpn = 3;
	h.imm = 0xdeadbeef;
	ck_assert_uint_eq(sroce_build(buf, &h), sizeof(ud));
	ck_assert_mem_eq(buf, ud, sizeof(ud));

	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_OPC(RC, ATOMIC_ACK);
	h.bth.pkey = 0xffff;
	h.bth.dqpn = 9;
	h.bth.psn = 0x10;
	h.aeth.syndrome = sroce_aeth_syndrome(SROCE_AETH_NAK,
					      SROCE_NAK_REMOTE_OP_ERR);
	h.aeth.msn = 42;
	h.atmack = 0xf1f2f3f4f5f6f7f8ull;
	ck_assert_uint_eq(sroce_build(buf, &h), sizeof(atk));
	ck_assert_mem_eq(buf, atk, sizeof(atk));

	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_OPC(RC, CMP_SWAP);
	h.bth.pkey = 0xffff;
	h.bth.dqpn = 9;
	h.bth.psn = 0x11;
	h.atmeth.va = 0x1000;
	h.atmeth.rkey = 0xaabbccdd;
	h.atmeth.swap_add = 0x0102030405060708ull;
	h.atmeth.cmp = 0x090a0b0c0d0e0f10ull;
	ck_assert_uint_eq(sroce_build(buf, &h), sizeof(cas));
	ck_assert_mem_eq(buf, cas, sizeof(cas));

	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_OPC(RC, FLUSH);
	h.bth.pkey = 0xffff;
	h.bth.dqpn = 9;
	h.bth.psn = 0x12;
	h.feth = 0x12;
	h.reth.va = 0x2000;
	h.reth.rkey = 5;
	h.reth.len = 0x1000;
	ck_assert_uint_eq(sroce_build(buf, &h), sizeof(flush));
	ck_assert_mem_eq(buf, flush, sizeof(flush));

	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_OPC(RC, SEND_ONLY_INV);
	h.bth.pkey = 0xffff;
	h.bth.dqpn = 9;
	h.bth.psn = 0x13;
	h.ieth = 0x123456;
	ck_assert_uint_eq(sroce_build(buf, &h), sizeof(inv));
	ck_assert_mem_eq(buf, inv, sizeof(inv));

	/* XRC: the XRCETH right after the BTH, before RETH and ImmDT. */
	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_OPC(XRC, WRITE_ONLY_IMM);
	h.bth.pkey = 0xffff;
	h.bth.dqpn = 9;
	h.bth.psn = 0x14;
	h.xrceth = 0xff0abcde;	/* only 24 bits go out */
	h.reth.va = 0x3000;
	h.reth.rkey = 6;
	h.reth.len = 0x40;
	h.imm = 0x01020304;
	ck_assert_uint_eq(sroce_build(buf, &h), sizeof(xwr));
	ck_assert_mem_eq(buf, xwr, sizeof(xwr));
	memset(buf + sizeof(xwr), 0, 0x40 + SROCE_ICRC_LEN);
	ck_assert_int_eq(sroce_parse(buf, sizeof(xwr) + 0x40 + SROCE_ICRC_LEN,
				     &pkt), SROCE_DROP_NONE);
	ck_assert_uint_eq(pkt.h.xrceth, 0x0abcde);
	ck_assert_uint_eq(pkt.h.reth.len, 0x40);
	ck_assert_uint_eq(pkt.paylen, 0x40);
	/* A reserved XRCETH byte is ignored on receive. */
	buf[12] = 0x5a;
	ck_assert_int_eq(sroce_parse(buf, sizeof(xwr) + 0x40 + SROCE_ICRC_LEN,
				     &pkt), SROCE_DROP_NONE);
	ck_assert_uint_eq(pkt.h.xrceth, 0x0abcde);

	/* XRC responses carry no XRCETH. */
	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_OPC(XRC, ACK);
	h.bth.pkey = 0xffff;
	h.bth.dqpn = 9;
	h.bth.psn = 0x15;
	h.xrceth = 0x123;
	h.aeth.syndrome = 0x1f;
	h.aeth.msn = 7;
	ck_assert_uint_eq(sroce_build(buf, &h), sizeof(xack));
	ck_assert_mem_eq(buf, xack, sizeof(xack));
}
END_TEST

/* ---- round trips ---- */

static u32 paylen_for(const struct sroce_opinfo *op, u32 small)
{
	if (!(op->flags & SROCE_OPF_PAYLOAD))
		return 0;
	if (op->flags & SROCE_OPF_ATOMIC_WRITE)
		return 8;
	if (!(op->flags & SROCE_OPF_LAST))
		return 256;
	return small;
}

static void assert_hdrs_eq(const struct sroce_hdrs *a, const struct sroce_hdrs *b,
			   u32 f)
{
	ck_assert_mem_eq(&a->bth, &b->bth, sizeof(a->bth));
	if (f & SROCE_OPF_RETH)
		ck_assert_mem_eq(&a->reth, &b->reth, sizeof(a->reth));
	if (f & SROCE_OPF_AETH) {
		ck_assert_uint_eq(a->aeth.syndrome, b->aeth.syndrome);
		ck_assert_uint_eq(a->aeth.msn, b->aeth.msn);
	}
	if (f & SROCE_OPF_ATMETH)
		ck_assert_mem_eq(&a->atmeth, &b->atmeth, sizeof(a->atmeth));
	if (f & SROCE_OPF_ATMACK)
		ck_assert_uint_eq(a->atmack, b->atmack);
	if (f & SROCE_OPF_IMMDT)
		ck_assert_uint_eq(a->imm, b->imm);
	if (f & SROCE_OPF_IETH)
		ck_assert_uint_eq(a->ieth, b->ieth);
	if (f & SROCE_OPF_DETH)
		ck_assert_mem_eq(&a->deth, &b->deth, sizeof(a->deth));
	if (f & SROCE_OPF_FETH)
		ck_assert_uint_eq(a->feth, b->feth);
	if (f & SROCE_OPF_XRCETH)
		ck_assert_uint_eq(a->xrceth, b->xrceth);
}

START_TEST(test_roundtrip_every_opcode)
{
	unsigned int opc, small, n = 0;

	for (opc = 0; opc < 256; opc++) {
		const struct sroce_opinfo *op = sroce_opinfo(opc);

		if (!op)
			continue;
		for (small = 0; small < 6; small++) {
			struct sroce_hdrs h;
			struct sroce_pkt pkt;
			u32 pl = paylen_for(op, small + 1), len;

			sroce_test_hdrs(&h, opc, opc * 7 + small, pl);
			/* make struct padding comparable */
			memset(&pkt, 0, sizeof(pkt));
			len = sroce_build(buf, &h);
			ck_assert_uint_eq(len, op->hdr_len);
			memset(buf + len, 0x77, pl + h.bth.pad + SROCE_ICRC_LEN);
			len += pl + h.bth.pad + SROCE_ICRC_LEN;
			ck_assert_msg(sroce_parse(buf, len, &pkt) == SROCE_DROP_NONE,
				      "%s: %s", op->name,
				      sroce_drop_name(sroce_parse(buf, len, &pkt)));
			ck_assert_uint_eq(pkt.paylen, pl);
			ck_assert_uint_eq(pkt.hdr_len, op->hdr_len);
			assert_hdrs_eq(&h, &pkt.h, op->flags);
			n++;
		}
	}
	ck_assert_uint_eq(n, 63 * 6);
}
END_TEST

START_TEST(test_bth_every_field)
{
	static const u32 qpns[] = { 0, 1, 0x800000, 0xffffff, 0x123456 };
	static const u16 pkeys[] = { 0, 0x7fff, 0x8000, 0xffff };
	unsigned int bits, i;

	for (bits = 0; bits < 64; bits++) {
		for (i = 0; i < ARRAY_SIZE(qpns); i++) {
			struct sroce_hdrs h = { 0 };
			struct sroce_pkt pkt;
			u32 len;

			memset(&pkt, 0, sizeof(pkt));
			h.bth.opcode = SROCE_OPC(UC, SEND_ONLY);
			h.bth.se = bits & 1;
			h.bth.mig = !!(bits & 2);
			h.bth.fecn = !!(bits & 4);
			h.bth.becn = !!(bits & 8);
			h.bth.ackreq = !!(bits & 16);
			h.bth.pad = (bits >> 4) & 3;	/* overlaps on purpose */
			h.bth.pkey = pkeys[(bits + i) % ARRAY_SIZE(pkeys)];
			h.bth.dqpn = qpns[i];
			h.bth.psn = qpns[(i + 1) % ARRAY_SIZE(qpns)];
			len = sroce_build(buf, &h);
			len += 4 + SROCE_ICRC_LEN;	/* a word of payload + pad */
			ck_assert_int_eq(sroce_parse(buf, len, &pkt), SROCE_DROP_NONE);
			ck_assert_mem_eq(&pkt.h.bth, &h.bth, sizeof(h.bth));
			ck_assert_uint_eq(pkt.paylen, 4u - h.bth.pad);
		}
	}
}
END_TEST

START_TEST(test_build_masks_and_reserved)
{
	struct sroce_hdrs h = { 0 };
	struct sroce_pkt pkt;

	memset(buf, 0xff, 64);
	h.bth.opcode = SROCE_OPC(UD, SEND_ONLY);
	h.bth.dqpn = 0xff123456;
	h.bth.psn = 0xff654321;
	h.bth.pad = 0;
	h.deth.sqpn = 0xffabcdef;
	ck_assert_uint_eq(sroce_build(buf, &h), 20);
	ck_assert_uint_eq(buf[4], 0);			/* resv6a */
	ck_assert_uint_eq(buf[8], 0);			/* resv7 */
	ck_assert_uint_eq(buf[16], 0);			/* DETH reserved */
	ck_assert_int_eq(sroce_parse(buf, 24, &pkt), SROCE_DROP_NONE);
	ck_assert_uint_eq(pkt.h.bth.dqpn, 0x123456);
	ck_assert_uint_eq(pkt.h.bth.psn, 0x654321);
	ck_assert_uint_eq(pkt.h.deth.sqpn, 0xabcdef);
	/* receivers ignore reserved bits */
	buf[4] |= 0x3f;
	buf[8] |= 0x7f;
	buf[16] = 0xff;
	ck_assert_int_eq(sroce_parse(buf, 24, &pkt), SROCE_DROP_NONE);
	ck_assert(!pkt.h.bth.fecn && !pkt.h.bth.becn && !pkt.h.bth.ackreq);
	ck_assert_uint_eq(pkt.h.deth.sqpn, 0xabcdef);

	h.bth.opcode = 0x15;
	ck_assert_uint_eq(sroce_build(buf, &h), 0);
}
END_TEST

/* ---- decode errors ---- */

static enum sroce_drop parse_op(u8 opc, u8 pad, u32 rest)
{
	struct sroce_hdrs h;
	struct sroce_pkt pkt;
	u32 len;

	sroce_test_hdrs(&h, opc, 1, 0);
	h.bth.pad = pad;
	len = sroce_build(buf, &h);
	ck_assert_uint_ne(len, 0);
	memset(buf + len, 0, rest + SROCE_ICRC_LEN);
	return sroce_parse(buf, len + rest + SROCE_ICRC_LEN, &pkt);
}

START_TEST(test_truncated)
{
	unsigned int opc;

	for (opc = 0; opc < 256; opc++) {
		const struct sroce_opinfo *op = sroce_opinfo(opc);
		struct sroce_hdrs h;
		struct sroce_pkt pkt;
		u32 len, cut;

		if (!op)
			continue;
		sroce_test_hdrs(&h, opc, 3, 0);
		len = sroce_build(buf, &h) + SROCE_ICRC_LEN;
		for (cut = 0; cut < len; cut++) {
			/* parse from the heap so ASan sees any over-read */
			u8 *p = malloc(cut ? cut : 1);

			memcpy(p, buf, cut);
			ck_assert_int_eq(sroce_parse(p, cut, &pkt),
					 SROCE_DROP_TRUNCATED);
			free(p);
		}
	}
}
END_TEST

START_TEST(test_bad_tver_and_opcode)
{
	struct sroce_pkt pkt;
	unsigned int opc, tv;

	for (tv = 1; tv < 16; tv++) {
		memset(buf, 0, 64);
		buf[0] = SROCE_OPC(RC, SEND_ONLY);
		buf[1] = tv;
		ck_assert_int_eq(sroce_parse(buf, 16, &pkt), SROCE_DROP_BAD_TVER);
	}
	for (opc = 0; opc < 256; opc++) {
		enum sroce_drop d;

		memset(buf, 0, 128);
		buf[0] = opc;
		d = sroce_parse(buf, 128, &pkt);
		if (!sroce_opinfo(opc))
			ck_assert_int_eq(d, SROCE_DROP_BAD_OPCODE);
		else
			ck_assert_int_ne(d, SROCE_DROP_BAD_OPCODE);
	}
}
END_TEST

START_TEST(test_pad_and_length_rules)
{
	/* no payload allowed */
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ACK), 0, 0), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ACK), 1, 0), SROCE_DROP_BAD_PAD);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ACK), 0, 4), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ACK), 0, 1), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, READ_REQ), 0, 4), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, READ_REQ), 3, 0), SROCE_DROP_BAD_PAD);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, CMP_SWAP), 0, 8), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, FETCH_ADD), 0, 0), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ATOMIC_ACK), 0, 4), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, FLUSH), 0, 0), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, FLUSH), 0, 8), SROCE_DROP_BAD_LENGTH);

	/* FIRST and MIDDLE: non-empty, no pad */
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_FIRST), 0, 256), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_FIRST), 0, 0), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_FIRST), 1, 256), SROCE_DROP_BAD_PAD);
	ck_assert_int_eq(parse_op(SROCE_OPC(UC, WRITE_MIDDLE), 0, 0), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(UC, WRITE_MIDDLE), 2, 1024), SROCE_DROP_BAD_PAD);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, READ_RESP_MIDDLE), 0, 4096), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, READ_RESP_FIRST), 0, 0), SROCE_DROP_BAD_LENGTH);

	/* LAST: at least one byte; pad completes the word */
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_LAST), 0, 0), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_LAST), 3, 4), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, WRITE_LAST_IMM), 0, 4), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, READ_RESP_LAST), 0, 0), SROCE_DROP_BAD_LENGTH);

	/* ONLY: may be empty (zero-length SEND, READ response of 0 bytes) */
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_ONLY), 0, 0), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, READ_RESP_ONLY), 0, 0), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(UD, SEND_ONLY), 0, 0), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(UD, SEND_ONLY), 1, 4), SROCE_DROP_NONE);

	/* payload + pad must fill whole words, and pad cannot exceed them */
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_ONLY), 0, 1), SROCE_DROP_BAD_PAD);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_ONLY), 2, 3), SROCE_DROP_BAD_PAD);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_ONLY), 1, 0), SROCE_DROP_BAD_PAD);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_LAST), 3, 3), SROCE_DROP_BAD_PAD);
	/* one byte of payload, three of pad */
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, SEND_ONLY), 3, 4), SROCE_DROP_NONE);

	/* ATOMIC WRITE carries exactly 8 bytes */
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ATOMIC_WRITE), 0, 8), SROCE_DROP_NONE);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ATOMIC_WRITE), 0, 4), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ATOMIC_WRITE), 0, 16), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ATOMIC_WRITE), 0, 0), SROCE_DROP_BAD_LENGTH);
	ck_assert_int_eq(parse_op(SROCE_OPC(RC, ATOMIC_WRITE), 1, 8), SROCE_DROP_BAD_LENGTH);
}
END_TEST

START_TEST(test_helpers)
{
	ck_assert_uint_eq(sroce_pad_for(0), 0);
	ck_assert_uint_eq(sroce_pad_for(1), 3);
	ck_assert_uint_eq(sroce_pad_for(2), 2);
	ck_assert_uint_eq(sroce_pad_for(3), 1);
	ck_assert_uint_eq(sroce_pad_for(4096), 0);
	ck_assert_uint_eq(sroce_pad_for(4097), 3);
	ck_assert_uint_eq(sroce_mtu_bytes(0), 0);
	ck_assert_uint_eq(sroce_mtu_bytes(1), 256);
	ck_assert_uint_eq(sroce_mtu_bytes(3), 1024);
	ck_assert_uint_eq(sroce_mtu_bytes(5), 4096);
	ck_assert_uint_eq(sroce_mtu_bytes(6), 0);
	ck_assert_uint_eq(sroce_aeth_syndrome(SROCE_AETH_RNR_NAK, 0x1f), 0x3f);
	ck_assert_uint_eq(sroce_aeth_syndrome(SROCE_AETH_NAK, 0x3f), 0x7f);
	ck_assert_int_eq(sroce_aeth_type(0x60), SROCE_AETH_NAK);
	ck_assert_int_eq(sroce_aeth_type(0x3f), SROCE_AETH_RNR_NAK);
	ck_assert_int_eq(sroce_aeth_type(0x1f), SROCE_AETH_ACK);
	ck_assert_uint_eq(sroce_aeth_value(0x7e), 0x1e);
	ck_assert_uint_eq(SROCE_OPC(UD, SEND_ONLY), 0x64);
}
END_TEST

/* ---- tshark as an outside reader ---- */

/*
 * Every opcode, IPv4 and IPv6, with legal payloads, written to a pcap
 * that the IBA dissector then reads: it must find nothing malformed, no
 * expert error or warning, and the same field values we encoded.
 */
#define TSHARK_FIELDS							\
	"-e infiniband.bth.opcode -e infiniband.bth.se -e infiniband.bth.m " \
	"-e infiniband.bth.padcnt -e infiniband.bth.tver "		\
	"-e infiniband.bth.p_key -e infiniband.bth.destqp "		\
	"-e infiniband.bth.a -e infiniband.bth.psn "			\
	"-e infiniband.reth.va -e infiniband.reth.r_key "		\
	"-e infiniband.reth.dmalen -e infiniband.aeth.syndrome "	\
	"-e infiniband.aeth.msn -e infiniband.deth.q_key "		\
	"-e infiniband.deth.srcqp -e infiniband.atomicacketh.origremdt " \
	"-e infiniband.atomiceth.swapdt -e infiniband.atomiceth.cmpdt "	\
	"-e infiniband.invariant.crc"

struct written {
	struct sroce_hdrs h;
	u32 icrc;
};

static unsigned int write_all_opcodes(const char *path, struct written *w,
				      unsigned int max)
{
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *dump;
	unsigned int opc, v6, n = 0;
	static u8 frame[8192], eth[8192 + 16];
	static u8 payload[256];
	unsigned int i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = i;
	ck_assert_ptr_nonnull(pd);
	dump = pcap_dump_open(pd, path);
	ck_assert_msg(dump != NULL, "%s: %s", path, pcap_geterr(pd));
	for (v6 = 0; v6 < 2; v6++) {
		for (opc = 0; opc < 256; opc++) {
			const struct sroce_opinfo *op = sroce_opinfo(opc);
			struct pcap_pkthdr ph = { 0 };
			u32 pl, len;

			if (!op)
				continue;
			pl = paylen_for(op, 13);
			ck_assert_uint_lt(n, max);
			sroce_test_hdrs(&w[n].h, opc, n, pl);
			len = sroce_test_frame(frame, sizeof(frame), v6, &w[n].h,
					       payload, pl);
			ck_assert_uint_ne(len, 0);
			ck_assert(sroce_icrc_check(frame, len, v6));
			w[n].icrc = sroce_icrc_get(frame + len - 4);
			len = sroce_test_eth(eth, frame, len, v6);
			ph.ts.tv_sec = 1700000000;
			ph.ts.tv_usec = n;
			ph.caplen = len;
			ph.len = len;
			pcap_dump((u_char *)dump, &ph, eth);
			n++;
		}
	}
	pcap_dump_close(dump);
	pcap_close(pd);
	return n;
}

static void run_tshark_on(const char *pcap, const char *args, const char *out)
{
	char cmd[2048];
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "tshark -n -r %s -d udp.port==4791,infiniband %s >%s 2>%s.err",
		 pcap, args, out, out);
	rc = system(cmd);
	ck_assert_msg(rc == 0, "tshark failed (%d): is it installed? `%s`",
		      rc, cmd);
}

static void run_tshark(const char *args, const char *out)
{
	run_tshark_on(SROCE_TEST_TMP "/wire-all.pcap", args, out);
}

START_TEST(test_tshark_reads_every_opcode)
{
	static struct written w[128];
	char path[512], out[512], line[4096];
	unsigned int n, i = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/wire-all.pcap", SROCE_TEST_TMP);
	n = write_all_opcodes(path, w, ARRAY_SIZE(w));
	ck_assert_uint_eq(n, 2 * 63);

	/* Full dissection: nothing malformed, no expert complaints. */
	snprintf(out, sizeof(out), "%s/wire-all.txt", SROCE_TEST_TMP);
	run_tshark("-V -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE", out);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		ck_assert_msg(!strstr(line, "Malformed"), "tshark: %s", line);
		ck_assert_msg(!strstr(line, "[Expert Info (Error"), "tshark: %s", line);
		ck_assert_msg(!strstr(line, "[Expert Info (Warn"), "tshark: %s", line);
		ck_assert_msg(!strstr(line, "Bad checksum") &&
			      !strstr(line, "incorrect, should be"), "tshark: %s", line);
		if (strstr(line, "Base Transport Header"))
			i++;
	}
	fclose(f);
	ck_assert_uint_eq(i, n);

	/* Field values as the dissector reads them. */
	run_tshark("-T fields -E separator=/t -E occurrence=f " TSHARK_FIELDS,
		   out);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	for (i = 0; fgets(line, sizeof(line), f); i++) {
		const struct sroce_hdrs *h = &w[i].h;
		u32 fl = sroce_opinfo(h->bth.opcode)->flags;
		unsigned long long v[20];
		char *s = line, *tok;
		unsigned int k;

		ck_assert_uint_lt(i, n);
		for (k = 0; k < ARRAY_SIZE(v); k++) {
			tok = strsep(&s, "\t\n");
			ck_assert_ptr_nonnull(tok);
			if (!strcmp(tok, "True"))
				v[k] = 1;
			else if (!strcmp(tok, "False"))
				v[k] = 0;
			else
				v[k] = *tok ? strtoull(tok, NULL, 0) : ~0ull;
		}
		ck_assert_uint_eq(v[0], h->bth.opcode);
		ck_assert_uint_eq(v[1], h->bth.se);
		ck_assert_uint_eq(v[2], h->bth.mig);
		ck_assert_uint_eq(v[3], h->bth.pad);
		ck_assert_uint_eq(v[4], h->bth.tver);
		ck_assert_uint_eq(v[5], h->bth.pkey);
		ck_assert_uint_eq(v[6], h->bth.dqpn);
		ck_assert_uint_eq(v[7], h->bth.ackreq);
		ck_assert_uint_eq(v[8], h->bth.psn);
		/*
		 * Wireshark 4.0 predates FLUSH and ATOMIC WRITE, and names
		 * XRC opcodes but dissects nothing after their BTH: BTH only.
		 */
		if (fl & (SROCE_OPF_FLUSH | SROCE_OPF_ATOMIC_WRITE) ||
		    (h->bth.opcode & SROCE_TRANSPORT_MASK) == SROCE_TRANSPORT_XRC)
			continue;
		/* Its CNP dissection has no ICRC field. */
		if (fl & SROCE_OPF_CNP)
			continue;
		if (fl & SROCE_OPF_RETH) {
			ck_assert_uint_eq(v[9], h->reth.va);
			ck_assert_uint_eq(v[10], h->reth.rkey);
			ck_assert_uint_eq(v[11], h->reth.len);
		}
		if (fl & SROCE_OPF_AETH) {
			ck_assert_uint_eq(v[12], h->aeth.syndrome);
			ck_assert_uint_eq(v[13], h->aeth.msn);
		}
		if (fl & SROCE_OPF_DETH) {
			ck_assert_uint_eq(v[14], h->deth.qkey);
			ck_assert_uint_eq(v[15], h->deth.sqpn);
		}
		if (fl & SROCE_OPF_ATMACK)
			ck_assert_uint_eq(v[16], h->atmack);
		if (fl & SROCE_OPF_ATMETH) {
			ck_assert_uint_eq(v[17], h->atmeth.swap_add);
			ck_assert_uint_eq(v[18], h->atmeth.cmp);
		}
		/*
		 * tshark shows the ICRC field's four bytes as a big-endian
		 * number and does not verify it: this checks only that it sits
		 * where the dissector expects, after payload and pad.
		 */
		ck_assert_uint_eq(v[19], __builtin_bswap32(w[i].icrc));
	}
	fclose(f);
	ck_assert_uint_eq(i, n);
}
END_TEST

/*
 * The other direction: on the rdma_rxe captures, sroce_parse() and
 * tshark's dissector must agree on the BTH and extension headers.
 */
static void rxe_agree(const char *name, unsigned int *count)
{
	char path[512], out[512], err[PCAP_ERRBUF_SIZE], line[4096];
	struct pcap_pkthdr *ph;
	const u_char *d;
	pcap_t *pc;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", SROCE_TEST_DATA, name);
	snprintf(out, sizeof(out), "%s/%s.fields", SROCE_TEST_TMP, name);
	run_tshark_on(path, "-T fields -E separator=/t -E occurrence=f "
		      TSHARK_FIELDS, out);
	pc = pcap_open_offline(path, err);
	ck_assert_msg(pc != NULL, "%s: %s", path, err);
	ck_assert_int_eq(pcap_datalink(pc), DLT_EN10MB);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	while (pcap_next_ex(pc, &ph, &d) == 1) {
		const u8 *ip = d + 14;
		bool v6 = (ip[0] >> 4) == 6;
		u32 iplen = v6 ? 40 : (ip[0] & 15) * 4u;
		u32 len = v6 ? 40 + sroce_get_be16(ip + 4) : sroce_get_be16(ip + 2);
		struct sroce_pkt pkt = { 0 };
		unsigned long long v[20];
		char *s = line, *tok;
		unsigned int k;
		u32 fl;

		ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
		ck_assert_int_eq(sroce_parse(ip + iplen + 8, len - iplen - 8, &pkt),
				 SROCE_DROP_NONE);
		for (k = 0; k < ARRAY_SIZE(v); k++) {
			tok = strsep(&s, "\t\n");
			ck_assert_ptr_nonnull(tok);
			v[k] = *tok ? strtoull(tok, NULL, 0) : ~0ull;
		}
		fl = pkt.op->flags;
		ck_assert_uint_eq(v[0], pkt.h.bth.opcode);
		ck_assert_uint_eq(v[1], pkt.h.bth.se);
		ck_assert_uint_eq(v[2], pkt.h.bth.mig);
		ck_assert_uint_eq(v[3], pkt.h.bth.pad);
		ck_assert_uint_eq(v[5], pkt.h.bth.pkey);
		ck_assert_uint_eq(v[6], pkt.h.bth.dqpn);
		ck_assert_uint_eq(v[7], pkt.h.bth.ackreq);
		ck_assert_uint_eq(v[8], pkt.h.bth.psn);
		if (fl & SROCE_OPF_RETH) {
			ck_assert_uint_eq(v[9], pkt.h.reth.va);
			ck_assert_uint_eq(v[10], pkt.h.reth.rkey);
			ck_assert_uint_eq(v[11], pkt.h.reth.len);
		}
		if (fl & SROCE_OPF_AETH) {
			ck_assert_uint_eq(v[12], pkt.h.aeth.syndrome);
			ck_assert_uint_eq(v[13], pkt.h.aeth.msn);
		}
		if (fl & SROCE_OPF_DETH) {
			ck_assert_uint_eq(v[14], pkt.h.deth.qkey);
			ck_assert_uint_eq(v[15], pkt.h.deth.sqpn);
		}
		if (fl & SROCE_OPF_ATMACK)
			ck_assert_uint_eq(v[16], pkt.h.atmack);
		if (fl & SROCE_OPF_ATMETH) {
			ck_assert_uint_eq(v[17], pkt.h.atmeth.swap_add);
			ck_assert_uint_eq(v[18], pkt.h.atmeth.cmp);
		}
		(*count)++;
	}
	ck_assert_ptr_null(fgets(line, sizeof(line), f));
	fclose(f);
	pcap_close(pc);
}

START_TEST(test_tshark_agrees_on_rxe)
{
	unsigned int n = 0;

	rxe_agree("rxe-ipv4.pcap", &n);
	rxe_agree("rxe-ipv6.pcap", &n);
	ck_assert_uint_gt(n, 100);
}
END_TEST

Suite *wire_suite(void);

Suite *wire_suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("codec");
	TCase *ts = tcase_create("tshark");

	tcase_add_test(tc, test_golden_write_only);
	tcase_add_test(tc, test_golden_ext_headers);
	tcase_add_test(tc, test_roundtrip_every_opcode);
	tcase_add_test(tc, test_bth_every_field);
	tcase_add_test(tc, test_build_masks_and_reserved);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_bad_tver_and_opcode);
	tcase_add_test(tc, test_pad_and_length_rules);
	tcase_add_test(tc, test_helpers);
	suite_add_tcase(s, tc);
	/* tshark takes a few seconds to start */
	tcase_set_timeout(ts, 60);
	tcase_add_test(ts, test_tshark_reads_every_opcode);
	tcase_add_test(ts, test_tshark_agrees_on_rxe);
	suite_add_tcase(s, ts);
	return s;
}
