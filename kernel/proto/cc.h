/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control: the DCQCN notification point (a CE-marked packet
 * asks for a CNP, at most one per QP per interval) and reaction point
 * (a rate limiter cut by CNPs and raised again by a timer and a byte
 * counter).  Pure functions of their state and the caller's time;
 * Documentation/congestion.rst gives the algorithm and its defaults.
 *
 * Rates are in kbit/s, times in ns, alpha in units of 1/SROCE_CC_ALPHA_ONE.
 */
#ifndef SROCE_PROTO_CC_H
#define SROCE_PROTO_CC_H

#include "os.h"

#define SROCE_CC_ALPHA_ONE	65536u
/* CNP: BTH then 16 reserved bytes (RoCEv2 Annex A17). */
#define SROCE_CNP_RSVD_LEN	16

struct sroce_cc_params {
	u64 line_kbps;		/* the most the limiter allows */
	u64 min_kbps;		/* the least a cut leaves */
	u64 ai_kbps;		/* additive increase of the target */
	u64 hai_kbps;		/* hyper increase of the target */
	u64 alpha_ns;		/* alpha decay period */
	u64 rai_ns;		/* rate increase timer */
	u64 byte_reset;		/* rate increase byte counter */
	u64 cnp_gap_ns;		/* notification point: least time between CNPs */
	u64 cut_gap_ns;		/* reaction point: least time between cuts */
	u64 burst_bytes;	/* sent back to back before pacing waits */
	u32 g_shift;		/* alpha gain g = 1 / 2^g_shift */
	u32 f;			/* fast recovery stages */
	u32 alpha_init;		/* alpha when the limiter starts */
};

struct sroce_cc_rp {
	u64 rc;			/* current rate */
	u64 rt;			/* target rate */
	u64 next_tx;		/* earliest time the next packet may leave */
	u64 alpha_at;		/* next alpha decay */
	u64 rai_at;		/* next timer increase */
	u64 cut_at;		/* last cut */
	u64 bytes;		/* sent since the last byte-counter event */
	u32 alpha;
	u32 t_cnt;		/* timer events since the last cut */
	u32 bc_cnt;		/* byte-counter events since the last cut */
	bool active;		/* below line rate: pacing and timers run */
	u64 decreases;
	u64 increases;
};

/* Fill @p with the defaults for a @line_kbps link. */
void sroce_cc_defaults(struct sroce_cc_params *p, u64 line_kbps);

void sroce_cc_rp_init(struct sroce_cc_rp *rp, const struct sroce_cc_params *p);
/*
 * A CNP arrived: cut the rate by alpha / 2 and raise alpha, unless the
 * last cut was less than cut_gap_ns ago (false: only the recovery
 * restarts).
 */
bool sroce_cc_rp_cnp(struct sroce_cc_rp *rp, const struct sroce_cc_params *p,
		     u64 now);
/* @bytes left at @now: pace the next packet, feed the byte counter. */
void sroce_cc_rp_sent(struct sroce_cc_rp *rp, const struct sroce_cc_params *p,
		      u32 bytes, u64 now);
/* Run the alpha and rate-increase timer events that are due at @now. */
void sroce_cc_rp_timer(struct sroce_cc_rp *rp, const struct sroce_cc_params *p,
		       u64 now);
/* Earliest timer of the limiter, or U64_MAX when it is idle. */
u64 sroce_cc_rp_deadline(const struct sroce_cc_rp *rp);

static inline bool sroce_cc_rp_may_send(const struct sroce_cc_rp *rp, u64 now)
{
	return !rp->active || rp->next_tx <= now;
}

/*
 * Notification point: may a CNP go at @now, the last having gone at
 * *@last (0: none yet)?  If so, *@last becomes @now.
 */
bool sroce_cc_np_allow(u64 *last, const struct sroce_cc_params *p, u64 now);

#endif /* SROCE_PROTO_CC_H */
