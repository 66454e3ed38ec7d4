// SPDX-License-Identifier: GPL-2.0
/*
 * ICRC: the CRC primitive against a bitwise reference, known answers
 * computed outside C (Python's zlib over the Annex A17 pseudo packet),
 * the masked fields, single-bit corruption, and every RoCEv2 packet in
 * the rdma_rxe captures under tests/data/.
 */
#include <check.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32.h"
#include "frame.h"
#include "icrc.h"
#include "wire.h"

#ifndef SROCE_TEST_DATA
#define SROCE_TEST_DATA "data"
#endif

/* Textbook one-bit-at-a-time CRC-32 (reflected, poly 0xedb88320). */
static u32 crc32_bitwise(u32 crc, const u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

static u32 rnd_state = 12345;

static u32 rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

static void crc32_against_reference(void)
{
	static u8 data[4096 + 16];
	unsigned int i, len, off, bad = 0;

	ck_assert_uint_eq(~sroce_crc32(~0u, "123456789", 9), 0xcbf43926u);
	ck_assert_uint_eq(sroce_crc32(0x1234, data, 0), 0x1234);
	for (i = 0; i < sizeof(data); i++)
		data[i] = rnd();
	/* every length through several 64-byte blocks, every alignment */
	for (len = 0; len < 600; len++)
		for (off = 0; off < 8; off++)
			bad += sroce_crc32(len * 77, data + off, len) !=
			       crc32_bitwise(len * 77, data + off, len);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(sroce_crc32(~0u, data + 3, 4096),
			  crc32_bitwise(~0u, data + 3, 4096));
	/* chaining: pieces fold into the whole */
	for (i = 0; i < 64; i++) {
		u32 cut = rnd() % 1000, whole = sroce_crc32(~0u, data, 1000);
		u32 part = sroce_crc32(sroce_crc32(~0u, data, cut), data + cut,
				       1000 - cut);

		ck_assert_uint_eq(whole, part);
	}
}

START_TEST(test_crc32_reference)
{
	bool had = sroce_crc32_set_clmul(false);

	/* slice-by-8 alone, then with carry-less multiply where available */
	crc32_against_reference();
	sroce_crc32_set_clmul(true);
	crc32_against_reference();
	sroce_crc32_set_clmul(had);
}
END_TEST

START_TEST(test_seed_is_masked_lrh)
{
	static const u8 ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	ck_assert_uint_eq(crc32_bitwise(~0u, ones, 8), 0xdebb20e3u);
}
END_TEST

/* Computed with Python's zlib.crc32 over 8 x 0xff + masked headers + rest. */
static const u8 known_v4[] = {
	0x45, 0x02, 0x00, 0x34, 0x00, 0x01, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02, 0xd3, 0xa1, 0x12, 0xb7,
	0x00, 0x20, 0x00, 0x00, 0x04, 0x30, 0xff, 0xff, 0x40, 0x00, 0x00, 0x11,
	0x80, 0x00, 0x00, 0x2a, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00,
	0x35, 0x71, 0xaa, 0xd3,
};

static const u8 known_v6[] = {
	0x62, 0xe1, 0x23, 0x45, 0x00, 0x20, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0xd3, 0xa1, 0x12, 0xb7, 0x00, 0x20, 0x00, 0x00,
	0x04, 0x30, 0xff, 0xff, 0x40, 0x00, 0x00, 0x11, 0x80, 0x00, 0x00, 0x2a,
	0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00, 0x1a, 0xe7, 0x80, 0x57,
};

START_TEST(test_known_answers)
{
	u8 b[4];

	ck_assert(sroce_icrc_check(known_v4, sizeof(known_v4), false));
	ck_assert(sroce_icrc_check(known_v6, sizeof(known_v6), true));
	ck_assert_uint_eq(sroce_icrc_get(known_v4 + sizeof(known_v4) - 4),
			  0xd3aa7135u);
	ck_assert_uint_eq(sroce_icrc_get(known_v6 + sizeof(known_v6) - 4),
			  0x5780e71au);
	sroce_icrc_put(b, 0x11223344);
	ck_assert_uint_eq(b[0], 0x44);
	ck_assert_uint_eq(b[3], 0x11);
	ck_assert_uint_eq(sroce_icrc_get(b), 0x11223344);
	/* wrong family */
	ck_assert(!sroce_icrc_check(known_v4, sizeof(known_v4), true));
	ck_assert(!sroce_icrc_check(known_v6, sizeof(known_v6), false));
}
END_TEST

/*
 * A FLUSH from rdma_rxe of 7.3 (IPv6) and one from sroce (IPv4), as
 * recorded between the interop guests: rxe's ICRC covers its 32 header
 * bytes twice, sroce's is the IBA's.
 */
static const u8 rxe_flush_v6[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0xf0, 0x35, 0x12, 0xb7, 0x00, 0x2c, 0x00, 0x00,
	0x1c, 0x00, 0xff, 0xff, 0x00, 0x61, 0x68, 0x7d, 0x80, 0x97, 0x56, 0xd4,
	0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x56, 0x17, 0x82, 0xb6, 0x47, 0x4a,
	0x1f, 0x46, 0x92, 0x8a, 0x00, 0x00, 0x00, 0xef, 0x49, 0x0d, 0x86, 0x19,
};

static const u8 sroce_flush_v4[] = {
	0x45, 0x00, 0x00, 0x40, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb6, 0xa9,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02, 0xf4, 0xfd, 0x12, 0xb7,
	0x00, 0x2c, 0x00, 0x00, 0x1c, 0x40, 0xff, 0xff, 0x00, 0x00, 0x00, 0x12,
	0x80, 0x97, 0x56, 0xd5, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x55, 0xc6,
	0x4b, 0x11, 0x71, 0xec, 0x00, 0x00, 0x03, 0xb0, 0x00, 0x00, 0x01, 0x3c,
	0x05, 0x5c, 0xd1, 0x73,
};

/* The CRC state after the IBA's part of the contiguous frame @l3. */
static u32 iba_state(const u8 *l3, u32 len, u32 iplen, bool v6)
{
	u32 bth = iplen + 8;

	return sroce_icrc_update(sroce_icrc_begin(l3, v6),
				 l3 + bth + SROCE_BTH_LEN,
				 len - bth - SROCE_BTH_LEN - SROCE_ICRC_LEN);
}

START_TEST(test_rxe_flush_variant)
{
	u32 len = sizeof(rxe_flush_v6), st, icrc;
	const u8 *hdr = rxe_flush_v6 + 48;
	u8 f[sizeof(rxe_flush_v6)];

	/* rxe's FLUSH: not the IBA's ICRC, but the headers-twice variant */
	ck_assert(!sroce_icrc_check(rxe_flush_v6, len, true));
	st = iba_state(rxe_flush_v6, len, 40, true);
	icrc = sroce_icrc_get(rxe_flush_v6 + len - 4);
	ck_assert(sroce_icrc_rxe_flush(SROCE_OPF_FLUSH, st, hdr, 32, icrc));
	ck_assert(sroce_icrc_check_rxe_flush(rxe_flush_v6, len, true));
	/* sending it (sroce_tx_pkt.icrc_rxe) gives rxe's own field */
	ck_assert_uint_eq(sroce_icrc_final(sroce_icrc_rxe_flush_extend(st, hdr,
								       32)),
			  icrc);
	/* only for a FLUSH */
	ck_assert(!sroce_icrc_rxe_flush(SROCE_OPF_REQ, st, hdr, 32, icrc));
	/* a flipped payload-free header bit still fails both */
	memcpy(f, rxe_flush_v6, len);
	f[48 + 20] ^= 1;
	st = iba_state(f, len, 40, true);
	ck_assert(!sroce_icrc_check(f, len, true));
	ck_assert(!sroce_icrc_rxe_flush(SROCE_OPF_FLUSH, st, f + 48, 32,
					icrc));
	ck_assert(!sroce_icrc_check_rxe_flush(f, len, true));
	/* sroce's FLUSH carries the IBA's ICRC, not the variant */
	len = sizeof(sroce_flush_v4);
	ck_assert(sroce_icrc_check(sroce_flush_v4, len, false));
	ck_assert(!sroce_icrc_check_rxe_flush(sroce_flush_v4, len, false));
	st = iba_state(sroce_flush_v4, len, 20, false);
	ck_assert(!sroce_icrc_rxe_flush(SROCE_OPF_FLUSH, st,
					sroce_flush_v4 + 28, 32,
					sroce_icrc_get(sroce_flush_v4 +
						       len - 4)));
}
END_TEST

/* Byte offsets the ICRC ignores (Annex A17.3.3), given the IP header length. */
static u8 masked_bits(u32 off, bool v6, u32 iplen)
{
	if (v6) {
		if (off == 0)
			return 0x0f;
		if (off == 1 || off == 2 || off == 3 || off == 7)
			return 0xff;
	} else if (off == 1 || off == 8 || off == 10 || off == 11) {
		return 0xff;
	}
	if (off == iplen + 6 || off == iplen + 7 || off == iplen + 8 + 4)
		return 0xff;
	return 0;
}

/*
 * Flip each bit of @frame in turn (all of them up to @nbits_all bytes,
 * then @nsample random ones): ICRC-covered bits must fail the check,
 * masked ones must not.
 */
static void flip_bits(const u8 *frame, u32 len, bool v6, u32 iplen,
		      u32 nbytes_all, u32 nsample)
{
	u8 *c = malloc(len);
	u32 i, bit, bad = 0, first = 0;

	memcpy(c, frame, len);
	ck_assert(sroce_icrc_check(c, len, v6));
	for (i = 0; i < nbytes_all * 8 + nsample; i++) {
		bool masked;

		bit = i < nbytes_all * 8 ? i : rnd() % (len * 8);
		if (bit >= len * 8)
			continue;
		masked = masked_bits(bit / 8, v6, iplen) & (1u << (bit % 8));
		c[bit / 8] ^= 1u << (bit % 8);
		/* masked bits must not matter, all others must */
		if (sroce_icrc_check(c, len, v6) != masked && !bad++)
			first = bit;
		c[bit / 8] ^= 1u << (bit % 8);
	}
	free(c);
	ck_assert_msg(!bad, "%u bit flips misjudged, first at bit %u (byte %u)",
		      bad, first, first / 8);
}

START_TEST(test_every_bit_of_known)
{
	flip_bits(known_v4, sizeof(known_v4), false, 20, sizeof(known_v4), 0);
	flip_bits(known_v6, sizeof(known_v6), true, 40, sizeof(known_v6), 0);
}
END_TEST

START_TEST(test_built_frames)
{
	static u8 frame[8192], pay[4096];
	unsigned int opc, v6, i;

	for (i = 0; i < sizeof(pay); i++)
		pay[i] = rnd();
	for (v6 = 0; v6 < 2; v6++) {
		for (opc = 0; opc < 256; opc++) {
			const struct sroce_opinfo *op = sroce_opinfo(opc);
			struct sroce_hdrs h;
			u32 pl, len, bth = sroce_test_bth_off(v6);
			u32 crc;

			if (!op)
				continue;
			pl = op->flags & SROCE_OPF_PAYLOAD ? 1 + opc * 13 : 0;
			sroce_test_hdrs(&h, opc, opc, pl);
			len = sroce_test_frame(frame, sizeof(frame), v6, &h, pay, pl);
			ck_assert_uint_ne(len, 0);
			ck_assert(sroce_icrc_check(frame, len, v6));
			/* piecewise, as a fragmented skb is fed */
			crc = sroce_icrc_begin(frame, v6);
			for (i = bth + SROCE_BTH_LEN; i < len - 4; i += 7)
				crc = sroce_icrc_update(crc, frame + i,
							len - 4 - i < 7 ? len - 4 - i : 7);
			ck_assert_uint_eq(sroce_icrc_final(crc),
					  sroce_icrc_get(frame + len - 4));
			flip_bits(frame, len, v6, bth - 8, bth + op->hdr_len, 64);
		}
	}
}
END_TEST

START_TEST(test_ipv4_options_and_rejects)
{
	static u8 f[256];
	struct sroce_hdrs h;
	u32 len, crc;

	/* IHL 6: a 4-byte option is covered like the rest of the header */
	sroce_test_hdrs(&h, SROCE_OPC(RC, SEND_ONLY), 1, 0);
	memcpy(f, known_v4, 20);
	f[0] = 0x46;
	f[20] = 0x01; f[21] = 0x01; f[22] = 0x01; f[23] = 0x00; /* NOPs, EOL */
	memcpy(f + 24, known_v4 + 20, 8);
	len = 24 + 8 + sroce_build(f + 32, &h) + 4;
	crc = sroce_icrc_begin(f, false);
	sroce_icrc_put(f + len - 4, sroce_icrc_final(crc));
	ck_assert(sroce_icrc_check(f, len, false));
	flip_bits(f, len, false, 24, len, 0);

	/* malformed IP never reads out of bounds and never passes */
	memcpy(f, known_v4, sizeof(known_v4));
	f[0] = 0x44;					/* IHL 4 */
	ck_assert(!sroce_icrc_check(f, sizeof(known_v4), false));
	f[0] = 0x4f;					/* IHL 15 */
	ck_assert(!sroce_icrc_check(f, sizeof(known_v4), false));
	f[0] = 0x45;
	f[9] = 6;					/* TCP */
	ck_assert(!sroce_icrc_check(f, sizeof(known_v4), false));
	ck_assert(!sroce_icrc_check(known_v4, 19, false));
	ck_assert(!sroce_icrc_check(known_v4, 20 + 8 + 12 + 3, false));
	ck_assert(!sroce_icrc_check(known_v6, 39, true));
	ck_assert(!sroce_icrc_check(known_v6, 40 + 8 + 12 + 3, true));
	memcpy(f, known_v6, sizeof(known_v6));
	f[6] = 0;					/* hop-by-hop ext header */
	ck_assert(!sroce_icrc_check(f, sizeof(known_v6), true));
}
END_TEST

/* ---- rdma_rxe captures ---- */

struct rxe_stats {
	unsigned int roce, ok, parsed, v6, be;
};

/* Would the ICRC match if the field were read most significant byte first? */
static bool icrc_matches_be(const u8 *ip, u32 len, bool v6, u32 iplen)
{
	u32 crc = sroce_icrc_begin(ip, v6);

	crc = sroce_icrc_update(crc, ip + iplen + 8 + SROCE_BTH_LEN,
				len - iplen - 8 - SROCE_BTH_LEN - SROCE_ICRC_LEN);
	return sroce_icrc_final(crc) == sroce_get_be32(ip + len - SROCE_ICRC_LEN);
}

/* Find the IP header in a captured frame; returns its offset or -1. */
static int l3_offset(int dlt, const u8 *p, u32 caplen)
{
	u32 off;
	u16 et;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return -1;
		off = 12;
		et = sroce_get_be16(p + off);
		while ((et == 0x8100 || et == 0x88a8) && off + 6 <= caplen) {
			off += 4;
			et = sroce_get_be16(p + off);
		}
		off += 2;
		break;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return -1;
		et = sroce_get_be16(p + 14);
		off = 16;
		break;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			return -1;
		et = sroce_get_be16(p);
		off = 20;
		break;
#endif
	case DLT_RAW:
		if (!caplen)
			return -1;
		et = (p[0] >> 4) == 6 ? 0x86dd : 0x0800;
		off = 0;
		break;
	default:
		return -1;
	}
	if (et != 0x0800 && et != 0x86dd)
		return -1;
	return off;
}

static void check_capture(const char *name, struct rxe_stats *st)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *pc;
	int dlt;

	snprintf(path, sizeof(path), "%s/%s", SROCE_TEST_DATA, name);
	ck_assert_msg(access(path, R_OK) == 0,
		      "%s missing: the rdma_rxe captures are the independent ICRC evidence",
		      path);
	pc = pcap_open_offline(path, err);
	ck_assert_msg(pc != NULL, "%s: %s", path, err);
	dlt = pcap_datalink(pc);
	while (pcap_next_ex(pc, &ph, &data) == 1) {
		int off = l3_offset(dlt, data, ph->caplen);
		const u8 *ip;
		u32 avail, iplen, len;
		struct sroce_pkt pkt = { 0 };
		bool v6;

		if (off < 0)
			continue;
		ip = data + off;
		avail = ph->caplen - off;
		if (avail < 40)
			continue;
		v6 = (ip[0] >> 4) == 6;
		if (v6) {
			if (ip[6] != 17)
				continue;
			iplen = 40;
			len = 40 + sroce_get_be16(ip + 4);
		} else {
			if ((ip[0] >> 4) != 4 || ip[9] != 17)
				continue;
			iplen = (ip[0] & 15) * 4;
			len = sroce_get_be16(ip + 2);
		}
		if (sroce_get_be16(ip + iplen + 2) != SROCE_UDP_PORT)
			continue;
		ck_assert_msg(len <= avail, "%s: packet %u truncated in capture",
			      name, st->roce);
		st->roce++;
		st->v6 += v6;
		/* the IP length, not the frame: Ethernet may have padded it */
		ck_assert_msg(sroce_icrc_check(ip, len, v6),
			      "%s: RoCEv2 packet %u: ICRC mismatch (wire %08x)",
			      name, st->roce, sroce_icrc_get(ip + len - 4));
		st->ok++;
		/* the other byte order would not have matched */
		st->be += icrc_matches_be(ip, len, v6, iplen);
		ck_assert_msg(sroce_parse(ip + iplen + 8, len - iplen - 8, &pkt) ==
			      SROCE_DROP_NONE, "%s: packet %u: parse: %s", name,
			      st->roce, sroce_drop_name(sroce_parse(ip + iplen + 8,
						len - iplen - 8, &pkt)));
		st->parsed++;
		/* our encoder reproduces rxe's headers byte for byte */
		{
			u8 enc[SROCE_MAX_HDR_LEN];

			ck_assert_uint_eq(sroce_build(enc, &pkt.h), pkt.hdr_len);
			ck_assert_msg(!memcmp(enc, ip + iplen + 8, pkt.hdr_len),
				      "%s: packet %u: %s re-encodes differently",
				      name, st->roce, pkt.op->name);
		}
		flip_bits(ip, len, v6, iplen, iplen + 8 + pkt.hdr_len, 32);
	}
	pcap_close(pc);
}

START_TEST(test_rxe_captures)
{
	struct rxe_stats v4 = { 0 }, v6 = { 0 };

	check_capture("rxe-ipv4.pcap", &v4);
	check_capture("rxe-ipv6.pcap", &v6);
	printf("icrc: rdma_rxe captures: %u IPv4 + %u IPv6 RoCEv2 packets, ICRC verified\n",
	       v4.ok, v6.ok);
	ck_assert_uint_gt(v4.roce, 0);
	ck_assert_uint_gt(v6.roce, 0);
	ck_assert_uint_eq(v4.v6, 0);
	ck_assert_uint_eq(v6.v6, v6.roce);
	ck_assert_uint_eq(v4.be + v6.be, 0);
}
END_TEST

Suite *icrc_suite(void);

Suite *icrc_suite(void)
{
	Suite *s = suite_create("icrc");
	TCase *tc = tcase_create("icrc");
	TCase *tr;

	tcase_add_test(tc, test_crc32_reference);
	tcase_add_test(tc, test_seed_is_masked_lrh);
	tcase_add_test(tc, test_known_answers);
	tcase_add_test(tc, test_every_bit_of_known);
	tcase_add_test(tc, test_built_frames);
	tcase_add_test(tc, test_ipv4_options_and_rejects);
	tcase_add_test(tc, test_rxe_flush_variant);
	suite_add_tcase(s, tc);
	/* Recorded by tools/vm/capture-rxe; see tests/data/README. */
	tr = tcase_create("rxe");
	tcase_set_timeout(tr, 60);
	tcase_add_test(tr, test_rxe_captures);
	suite_add_tcase(s, tr);
	return s;
}
