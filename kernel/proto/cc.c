// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN (Zhu et al., SIGCOMM 2015) reaction and notification points.
 * Integer arithmetic only: the same code runs in the module, where
 * floating point is not available, and in the simulator.
 */
#include "cc.h"

/* Timer events one call runs one by one; more are applied at once. */
#define CC_MAX_CATCH_UP		64

void sroce_cc_defaults(struct sroce_cc_params *p, u64 line_kbps)
{
	memset(p, 0, sizeof(*p));
	p->line_kbps = line_kbps;
	p->min_kbps = 1000;
	p->ai_kbps = 5000;
	p->hai_kbps = 50000;
	p->alpha_ns = 55000;
	p->rai_ns = 55000;
	p->byte_reset = 10ull << 20;
	p->cnp_gap_ns = 50000;
	p->cut_gap_ns = 4000;
	p->burst_bytes = 16384;
	p->g_shift = 8;
	p->f = 5;
	p->alpha_init = SROCE_CC_ALPHA_ONE / 1024 * 1023;
}

void sroce_cc_rp_init(struct sroce_cc_rp *rp, const struct sroce_cc_params *p)
{
	memset(rp, 0, sizeof(*rp));
	rp->rc = p->line_kbps;
	rp->rt = p->line_kbps;
	rp->alpha = p->alpha_init;
}

/* Time @bytes take at @kbps, in ns. */
static u64 cc_wire_ns(u64 bytes, u64 kbps)
{
	return kbps ? bytes * 8 * 1000000 / kbps : 0;
}

bool sroce_cc_rp_cnp(struct sroce_cc_rp *rp, const struct sroce_cc_params *p,
		     u64 now)
{
	u64 cut;

	/*
	 * One cut per period: CNPs that come closer together, from several
	 * notification points or a peer without a CNP limit, only hold
	 * the recovery back.
	 */
	if (rp->active && now - rp->cut_at < p->cut_gap_ns) {
		rp->rai_at = now + p->rai_ns;
		rp->t_cnt = 0;
		rp->bc_cnt = 0;
		rp->bytes = 0;
		return false;
	}
	if (!rp->active) {
		rp->active = true;
		rp->alpha = p->alpha_init;
		rp->next_tx = now;
	}
	rp->cut_at = now;
	rp->rt = rp->rc;
	cut = rp->rc * rp->alpha / (2 * SROCE_CC_ALPHA_ONE);
	rp->rc = rp->rc - cut < p->min_kbps ? p->min_kbps : rp->rc - cut;
	rp->alpha += (SROCE_CC_ALPHA_ONE - rp->alpha) >> p->g_shift;
	rp->alpha_at = now + p->alpha_ns;
	rp->rai_at = now + p->rai_ns;
	rp->t_cnt = 0;
	rp->bc_cnt = 0;
	rp->bytes = 0;
	rp->decreases++;
	return true;
}

/*
 * One timer or byte-counter event: recover towards, or raise, the
 * target.  A wait booked at the old rate shrinks with the new one, so
 * that a packet paced at the minimum rate does not hold up the recovery.
 */
static void cc_increase(struct sroce_cc_rp *rp, const struct sroce_cc_params *p,
			u64 now)
{
	u64 old = rp->rc;
	u32 hi = rp->t_cnt > rp->bc_cnt ? rp->t_cnt : rp->bc_cnt;
	u32 lo = rp->t_cnt < rp->bc_cnt ? rp->t_cnt : rp->bc_cnt;

	/* Below F events of either kind: fast recovery, the target stays. */
	if (lo > p->f)
		rp->rt += (u64)(lo - p->f) * p->hai_kbps;
	else if (hi >= p->f)
		rp->rt += p->ai_kbps;
	if (rp->rt > p->line_kbps)
		rp->rt = p->line_kbps;
	rp->rc = (rp->rt + rp->rc + 1) / 2;
	rp->increases++;
	if (rp->next_tx > now)
		rp->next_tx = now + (rp->next_tx - now) * old / rp->rc;
	/* Back at line rate: stop pacing and the timers. */
	if (rp->rt == p->line_kbps && p->line_kbps - rp->rc < p->ai_kbps) {
		rp->rc = p->line_kbps;
		rp->active = false;
	}
}

void sroce_cc_rp_sent(struct sroce_cc_rp *rp, const struct sroce_cc_params *p,
		      u32 bytes, u64 now)
{
	u64 credit = cc_wire_ns(p->burst_bytes, rp->rc);

	if (!rp->active)
		return;
	/* An idle limiter saves up at most one burst. */
	if (rp->next_tx + credit < now)
		rp->next_tx = now - credit;
	rp->next_tx += cc_wire_ns(bytes, rp->rc);
	rp->bytes += bytes;
	if (rp->bytes >= p->byte_reset) {
		rp->bytes = 0;
		rp->bc_cnt++;
		cc_increase(rp, p, now);
	}
}

/* @alpha after @k decays by (1 - g): (1 - g)^k by squaring, in Q31. */
static u32 cc_alpha_decayed(u32 alpha, u32 g_shift, u64 k)
{
	u64 f = (1ull << 31) - (1ull << (31 - g_shift));
	u64 r = 1ull << 31;

	for (; k && r; k >>= 1) {
		if (k & 1)
			r = (r * f) >> 31;
		f = (f * f) >> 31;
	}
	return (u32)((alpha * r) >> 31);
}

/*
 * @k timer events at once, after a long idle: as many additive or hyper
 * increases of the target as the state before them gives (fewer than
 * the events one by one would, never more); the exact events that
 * follow bring the current rate up to it.
 */
static void cc_skip_increases(struct sroce_cc_rp *rp,
			      const struct sroce_cc_params *p, u64 k)
{
	u32 t = rp->t_cnt + 1;
	u32 lo = t < rp->bc_cnt ? t : rp->bc_cnt;
	u32 hi = t > rp->bc_cnt ? t : rp->bc_cnt;
	u64 inc = 0;

	if (lo > p->f)
		inc = (u64)(lo - p->f) * p->hai_kbps;
	else if (hi >= p->f)
		inc = p->ai_kbps;
	rp->t_cnt = k > U32_MAX - rp->t_cnt ? U32_MAX : rp->t_cnt + (u32)k;
	if (inc && k >= (p->line_kbps - rp->rt) / inc + 1)
		rp->rt = p->line_kbps;
	else
		rp->rt += k * inc;
}

/*
 * The timers run only while the requester has something to send (the
 * QP's deadline includes them only then), so an idle limiter may owe
 * many events: the first and last CC_MAX_CATCH_UP / 2 run one by one,
 * those between at once.
 */
void sroce_cc_rp_timer(struct sroce_cc_rp *rp, const struct sroce_cc_params *p,
		       u64 now)
{
	u64 due, skip;
	u32 n;

	if (!rp->active)
		return;
	if (rp->alpha_at <= now) {
		due = (now - rp->alpha_at) / p->alpha_ns + 1;
		if (due > CC_MAX_CATCH_UP)
			rp->alpha = cc_alpha_decayed(rp->alpha, p->g_shift,
						     due);
		else
			for (n = 0; n < due; n++)
				rp->alpha -= rp->alpha >> p->g_shift;
		rp->alpha_at += due * p->alpha_ns;
	}
	if (rp->rai_at > now)
		return;
	due = (now - rp->rai_at) / p->rai_ns + 1;
	for (n = 0; rp->active && rp->rai_at <= now; n++) {
		if (n == CC_MAX_CATCH_UP / 2 && due > CC_MAX_CATCH_UP) {
			skip = due - CC_MAX_CATCH_UP;
			cc_skip_increases(rp, p, skip);
			rp->rai_at += skip * p->rai_ns;
		}
		rp->t_cnt++;
		cc_increase(rp, p, now);
		rp->rai_at += p->rai_ns;
	}
}

u64 sroce_cc_rp_deadline(const struct sroce_cc_rp *rp)
{
	if (!rp->active)
		return U64_MAX;
	return rp->alpha_at < rp->rai_at ? rp->alpha_at : rp->rai_at;
}

bool sroce_cc_np_allow(u64 *last, const struct sroce_cc_params *p, u64 now)
{
	if (*last && now - *last < p->cnp_gap_ns)
		return false;
	*last = now ? now : 1;
	return true;
}
