// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control glue: the DCQCN module parameters (the algorithm
 * is proto/cc.c), the ECN field of the packets we send and the CE test
 * of those we receive.  Documentation/congestion.rst explains both.
 */
#include <linux/module.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "sroce.h"

static bool cc_enable = true;
module_param(cc_enable, bool, 0644);
MODULE_PARM_DESC(cc_enable, "DCQCN for new RC/UC QPs: ECT(0) on their packets, a CNP for each CE mark, a rate limiter cut by CNPs (default: on)");

static uint cc_line_mbps = 10000;
module_param(cc_line_mbps, uint, 0644);
MODULE_PARM_DESC(cc_line_mbps, "Rate a QP starts at and returns to, Mb/s (default: 10000)");

static uint cc_min_mbps = 1;
module_param(cc_min_mbps, uint, 0644);
MODULE_PARM_DESC(cc_min_mbps, "Least rate a cut leaves, Mb/s (default: 1)");

static uint cc_ai_mbps = 5;
module_param(cc_ai_mbps, uint, 0644);
MODULE_PARM_DESC(cc_ai_mbps, "Additive increase R_AI, Mb/s (default: 5)");

static uint cc_hai_mbps = 50;
module_param(cc_hai_mbps, uint, 0644);
MODULE_PARM_DESC(cc_hai_mbps, "Hyper increase R_HAI, Mb/s (default: 50)");

static uint cc_alpha_us = 55;
module_param(cc_alpha_us, uint, 0644);
MODULE_PARM_DESC(cc_alpha_us, "Alpha update period, us (default: 55)");

static uint cc_rai_us = 55;
module_param(cc_rai_us, uint, 0644);
MODULE_PARM_DESC(cc_rai_us, "Rate increase timer, us (default: 55)");

static uint cc_byte_kb = 10240;
module_param(cc_byte_kb, uint, 0644);
MODULE_PARM_DESC(cc_byte_kb, "Rate increase byte counter, KiB (default: 10240)");

static uint cc_f = 5;
module_param(cc_f, uint, 0644);
MODULE_PARM_DESC(cc_f, "Fast recovery stages F (default: 5)");

static uint cc_g_shift = 8;
module_param(cc_g_shift, uint, 0644);
MODULE_PARM_DESC(cc_g_shift, "Alpha gain g = 1/2^cc_g_shift (default: 8)");

static uint cc_cnp_gap_us = 50;
module_param(cc_cnp_gap_us, uint, 0644);
MODULE_PARM_DESC(cc_cnp_gap_us, "Least time between two CNPs to one QP, us (default: 50)");

static uint cc_cut_gap_us = 4;
module_param(cc_cut_gap_us, uint, 0644);
MODULE_PARM_DESC(cc_cut_gap_us, "Least time between two rate cuts of one QP, us; CNPs closer together only hold the recovery back (default: 4)");

static uint cc_burst_kb = 16;
module_param(cc_burst_kb, uint, 0644);
MODULE_PARM_DESC(cc_burst_kb, "Bytes a rate-limited QP may send back to back after idling, KiB (default: 16)");

/* At least @lo: a zero period or rate would stall or spin a QP. */
static u64 sroce_cc_at_least(uint v, u64 lo)
{
	return max_t(u64, v, lo);
}

const struct sroce_cc_params *sroce_cc_qp_params(struct sroce_cc_params *p)
{
	u64 line;

	if (!READ_ONCE(cc_enable))
		return NULL;
	line = sroce_cc_at_least(READ_ONCE(cc_line_mbps), 1) * 1000;
	sroce_cc_defaults(p, line);
	p->min_kbps = min(sroce_cc_at_least(READ_ONCE(cc_min_mbps), 1) * 1000,
			  line);
	p->ai_kbps = sroce_cc_at_least(READ_ONCE(cc_ai_mbps), 1) * 1000;
	p->hai_kbps = sroce_cc_at_least(READ_ONCE(cc_hai_mbps), 1) * 1000;
	p->alpha_ns = sroce_cc_at_least(READ_ONCE(cc_alpha_us), 1) * 1000;
	p->rai_ns = sroce_cc_at_least(READ_ONCE(cc_rai_us), 1) * 1000;
	p->byte_reset = sroce_cc_at_least(READ_ONCE(cc_byte_kb), 1) * 1024;
	p->f = min_t(uint, READ_ONCE(cc_f), 64);
	p->g_shift = clamp_t(uint, READ_ONCE(cc_g_shift), 1, 16);
	p->cnp_gap_ns = (u64)READ_ONCE(cc_cnp_gap_us) * 1000;
	p->cut_gap_ns = (u64)READ_ONCE(cc_cut_gap_us) * 1000;
	p->burst_bytes = (u64)min_t(uint, READ_ONCE(cc_burst_kb), 1024) * 1024;
	return p;
}

/*
 * The IP header's DS field for a packet the core made ECN-capable
 * (sroce_tx_pkt.ect): ECT(0), unless the address vector set the ECN
 * field itself.
 */
u8 sroce_cc_dsfield(u8 tclass, bool ect)
{
	if (!ect || (tclass & INET_ECN_MASK))
		return tclass;
	return tclass | INET_ECN_ECT_0;
}

bool sroce_cc_ce(const struct sk_buff *skb, bool v6)
{
	u8 ds = v6 ? ipv6_get_dsfield(ipv6_hdr(skb)) : ip_hdr(skb)->tos;

	return INET_ECN_is_ce(ds);
}
