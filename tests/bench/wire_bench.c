// SPDX-License-Identifier: GPL-2.0
/*
 * Wire-layer cost of one 4 KiB RDMA WRITE packet (RC WRITE_ONLY, IPv4):
 * building its headers and ICRC on transmit, checking its ICRC and
 * parsing it on receive.  Payload is already in place in both, as it is
 * when the glue points the skb at user pages.
 */
#include "bench.h"
#include "crc32.h"
#include "frame.h"
#include "icrc.h"
#include "psn.h"
#include "wire.h"

#define PAYLEN	4096

static u8 frame[PAYLEN + 128];
static u32 frame_len;
static struct sroce_hdrs hdrs;

static void setup(void)
{
	static u8 pay[PAYLEN];
	unsigned int i;

	for (i = 0; i < PAYLEN; i++)
		pay[i] = i;
	sroce_test_hdrs(&hdrs, SROCE_OPC(RC, WRITE_ONLY), 1, PAYLEN);
	frame_len = sroce_test_frame(frame, sizeof(frame), false, &hdrs, pay,
				     PAYLEN);
}

/* The kernel's crc32_le() on 6.1 and 6.12 is table-driven, like this. */
static void setup_sb8(void)
{
	setup();
	sroce_crc32_set_clmul(false);
}

static void write4k_build(void)
{
	u32 bth = sroce_test_bth_off(false), n, crc;

	hdrs.bth.psn = sroce_psn_add(hdrs.bth.psn, 1);
	n = sroce_build(frame + bth, &hdrs);
	crc = sroce_icrc_begin(frame, false);
	crc = sroce_icrc_update(crc, frame + bth + SROCE_BTH_LEN,
				n - SROCE_BTH_LEN + PAYLEN);
	sroce_icrc_put(frame + bth + n + PAYLEN, sroce_icrc_final(crc));
}

static void write4k_rx(void)
{
	u32 bth = sroce_test_bth_off(false);
	struct sroce_pkt pkt;
	bool ok;

	ok = sroce_icrc_check(frame, frame_len, false);
	sroce_bench_use(ok);
	sroce_bench_use(sroce_parse(frame + bth, frame_len - bth, &pkt));
	sroce_bench_use(pkt.paylen);
}

static void write4k_parse(void)
{
	u32 bth = sroce_test_bth_off(false);
	struct sroce_pkt pkt;

	sroce_bench_use(sroce_parse(frame + bth, frame_len - bth, &pkt));
	sroce_bench_use(pkt.paylen);
}

static const struct sroce_bench wire_cases[] = {
	{ "write4k-build", "RC WRITE_ONLY 4 KiB: sroce_build + ICRC (TX)",
	  setup, write4k_build },
	{ "write4k-rx", "RC WRITE_ONLY 4 KiB: ICRC check + sroce_parse (RX)",
	  setup, write4k_rx },
	{ "write4k-parse", "RC WRITE_ONLY 4 KiB: sroce_parse alone",
	  setup, write4k_parse },
	{ "write4k-build-sb8", "the same TX, slice-by-8 CRC (as crc32_le in 6.1/6.12)",
	  setup_sb8, write4k_build },
	{ "write4k-rx-sb8", "the same RX, slice-by-8 CRC",
	  setup_sb8, write4k_rx },
	{ NULL }
};

const struct sroce_bench *wire_benches(void);

const struct sroce_bench *wire_benches(void)
{
	return wire_cases;
}
