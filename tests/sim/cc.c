// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control in virtual time.  N RC QP pairs send RDMA WRITEs
 * from side 0 to side 1; each side-0 QP stands for one sending host with
 * a NIC of the bottleneck's rate, and link[0] is a switch port with a
 * finite buffer that marks ECT frames CE the RED way (link.c).  The same
 * runs with DCQCN off and on give the table in
 * Documentation/congestion.rst; with it on they must meet the targets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define CC_MAX_FLOWS	16
#define CC_MSG		(64u << 10)
#define CC_DEPTH	8
#define CC_GBPS		10
#define MS		1000000ull

/* Targets with CC on, once the flows have settled. */
#define CC_GOODPUT_MIN	0.90
#define CC_JAIN_MIN	0.95

enum cc_kind { CC_INCAST, CC_BURST };

struct ccw {
	u32 n;			/* flows */
	u32 nlong;		/* flows 0..nlong-1 run all along */
	u64 budget;		/* messages of each other flow (burst) */
	u64 start_others;	/* when the others start */
	u64 win0, win1;		/* measurement window */
	u64 posted[CC_MAX_FLOWS], done[CC_MAX_FLOWS];
	u64 win_bytes[CC_MAX_FLOWS];
	u64 after_bytes;	/* flow 0, after the burst is done */
	u64 burst_end;		/* last burst message completed */
	u64 errors;
	struct sim_link_stats at_win0;
	u8 *lmem, *rmem;
	u32 lkey, rkey;
	u64 riova;
};

struct cc_result {
	double qmax_kb, qmean_kb, goodput, jain, long_after;
	u64 drops, drops_settled, marked, cnp, cuts, retx, errors;
	double burst_ms;
};

static struct ccw *CW(struct sim *s)
{
	return s->wl;
}

static void cc_post(struct sim *s, u32 i)
{
	struct ccw *w = CW(s);
	struct sroce_send_wqe wr;

	if (s->now >= w->win1 ||
	    (i >= w->nlong && w->posted[i] >= w->budget))
		return;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = i;
	wr.opcode = SROCE_WR_RDMA_WRITE;
	wr.send_flags = SROCE_SEND_SIGNALED;
	wr.num_sge = 1;
	wr.sge[0].addr = 0x10000;
	wr.sge[0].length = CC_MSG;
	wr.sge[0].lkey = w->lkey;
	wr.rdma.remote_addr = w->riova;
	wr.rdma.rkey = w->rkey;
	w->posted[i]++;
	sroce_ep_post_send(s->qp[0][i].q, &wr);
}

static void cc_cqe(struct sim *s, struct sim_qp *sq, const struct sroce_cqe *c)
{
	struct ccw *w = CW(s);
	u32 i = sq->idx;

	if (c->status != SROCE_WC_SUCCESS) {
		w->errors++;
		return;
	}
	if (sq->side || c->is_recv)
		return;
	w->done[i]++;
	if (s->now >= w->win0 && s->now < w->win1)
		w->win_bytes[i] += CC_MSG;
	if (i >= w->nlong && w->done[i] == w->budget && s->now > w->burst_end)
		w->burst_end = s->now;
	if (i == 0 && w->burst_end && s->now > w->burst_end + 5 * MS)
		w->after_bytes += CC_MSG;
	cc_post(s, i);
}

static void cc_action(struct sim *s, u32 arg)
{
	struct ccw *w = CW(s);
	u32 i, k;

	if (arg == 0) {
		w->at_win0 = s->link[0].st;
		return;
	}
	for (i = w->nlong; i < w->n; i++) {
		for (k = 0; k < CC_DEPTH; k++)
			cc_post(s, i);
		sim_service(s, &s->qp[0][i]);
	}
}

static double jain(const u64 *x, u32 n)
{
	double sum = 0, sq = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		sum += (double)x[i];
		sq += (double)x[i] * (double)x[i];
	}
	return sq > 0 ? sum * sum / (n * sq) : 0;
}

static void cc_opts(struct sim_opts *o, u64 seed, bool cc, bool share)
{
	memset(o, 0, sizeof(*o));
	o->seed = seed;
	o->scenario = "cc";
	o->mtu = 5;
	o->ipv6 = 0;
	o->timeout = 10;
	o->retry_cnt = 7;
	o->rnr_retry = 7;
	o->min_rnr_timer = 1;
	o->rd_atomic = 16;
	o->link.delay_ns = 1000;
	o->link.gbps = CC_GBPS;
	/* DCQCN paper's RED: K_min 5 KB, K_max 200 KB, P_max 1 %. */
	o->link.buf_bytes = 1u << 20;
	o->link.kmin = 5 << 10;
	o->link.kmax = 200 << 10;
	o->link.pmax_ppm = 10000;
	o->nic_gbps = CC_GBPS;
	o->cc = cc;
	o->no_share = !share;	/* else each QP stands for one host */
}

static int cc_run(enum cc_kind kind, u32 n, bool cc, bool share, u64 seed,
		  struct cc_result *r)
{
	struct sim *s = calloc(1, sizeof(*s));
	struct ccw *w = calloc(1, sizeof(*w));
	struct sim_opts o;
	u64 end, sent, i, k;
	int failed;

	if (!s || !w)
		abort();
	cc_opts(&o, seed, cc, share);
	sim_setup(s, &o);
	s->wl = w;
	s->on_cqe = cc_cqe;
	s->action = cc_action;
	w->n = n;
	if (kind == CC_INCAST) {
		w->nlong = n;
		w->win0 = 10 * MS;
		w->win1 = 30 * MS;
	} else {
		w->nlong = 1;
		w->budget = 64;		/* 4 MiB each */
		w->start_others = 10 * MS;
		w->win0 = w->start_others;
		w->win1 = 60 * MS;
	}
	end = w->win1;
	w->lmem = calloc(1, CC_MSG);
	w->rmem = calloc(1, CC_MSG);
	if (!w->lmem || !w->rmem)
		abort();
	w->riova = 0x7f0000000000ull;
	w->lkey = sroce_ep_reg_mr(&s->ep[0], 1, w->lmem, 0x10000, CC_MSG,
				  SROCE_ACCESS_LOCAL_WRITE);
	w->rkey = sroce_ep_reg_mr(&s->ep[1], 1, w->rmem, w->riova, CC_MSG,
				  SROCE_ACCESS_LOCAL_WRITE |
				  SROCE_ACCESS_REMOTE_WRITE);
	for (i = 0; i < n; i++)
		sim_add_pair(s, SROCE_QPT_RC, 64);
	for (i = 0; i < w->nlong; i++) {
		for (k = 0; k < CC_DEPTH; k++)
			cc_post(s, (u32)i);
		sim_service(s, &s->qp[0][i]);
	}
	sim_at(s, w->win0, 0);
	if (kind == CC_BURST)
		sim_at(s, w->start_others, 1);
	sim_run(s, NULL, end);

	memset(r, 0, sizeof(*r));
	r->qmax_kb = s->link[0].st.qmax / 1024.0;
	k = s->link[0].st.qn - w->at_win0.qn;
	r->qmean_kb = k ? (s->link[0].st.qsum - w->at_win0.qsum) / 1024.0 / k
			: 0;
	r->drops = s->link[0].st.qdrops;
	r->drops_settled = s->link[0].st.qdrops - w->at_win0.qdrops;
	r->marked = s->link[0].st.marked;
	r->errors = w->errors;
	for (i = 0; i < n; i++) {
		const struct sroce_qp_stats *st0 = &s->qp[0][i].q->qp.stats;

		r->cnp += s->qp[1][i].q->qp.stats.cnp_sent;
		r->cuts += st0->rate_decreases;
		r->retx += st0->retransmits;
	}
	sent = 0;
	for (i = 0; i < n; i++)
		sent += w->win_bytes[i];
	r->goodput = (double)sent * 8 / ((double)(w->win1 - w->win0) * CC_GBPS);
	r->jain = jain(w->win_bytes, kind == CC_INCAST ? n : 1);
	if (kind == CC_BURST) {
		r->burst_ms = w->burst_end ?
			(w->burst_end - w->start_others) / 1e6 : -1;
		r->long_after = w->burst_end && w->win1 > w->burst_end + 5 * MS ?
			(double)w->after_bytes * 8 /
			((double)(w->win1 - w->burst_end - 5 * MS) * CC_GBPS) : 0;
	}
	failed = s->failed;
	if (failed)
		printf("FAIL: cc %s n=%u cc=%d: %s\n",
		       kind == CC_INCAST ? "incast" : "burst", n, cc,
		       s->fail_msg);
	sim_teardown(s);
	free(w->lmem);
	free(w->rmem);
	free(w);
	free(s);
	return failed ? -1 : 0;
}

static void cc_row(const char *what, u32 n, bool cc, const struct cc_result *r)
{
	printf("cc: %-6s %2u %-3s  qmax %7.1f KB  qmean %6.1f KB  drops %6llu (settled %4llu)  marks %6llu  cnp %5llu  cuts %5llu  retx %5llu  goodput %5.3f  jain %5.3f",
	       what, n, cc ? "on" : "off", r->qmax_kb, r->qmean_kb,
	       (unsigned long long)r->drops,
	       (unsigned long long)r->drops_settled,
	       (unsigned long long)r->marked, (unsigned long long)r->cnp,
	       (unsigned long long)r->cuts, (unsigned long long)r->retx,
	       r->goodput, r->jain);
	if (r->burst_ms != 0)
		printf("  burst %6.2f ms  long after %5.3f", r->burst_ms,
		       r->long_after);
	printf("\n");
}

static bool cc_miss(const char *what, u32 n, const char *why)
{
	printf("FAIL: cc %s n=%u: %s\n  reproduce: sim --suite cc\n", what, n,
	       why);
	return true;
}

u32 sim_cc_suite(bool full, u64 seed, u32 *failed)
{
	static const u32 ns[] = { 2, 4, 8, 16 };
	struct cc_result on, off, unshared[ARRAY_SIZE(ns)];
	u32 i, runs = 0;
	bool bad;

	for (i = 0; i < ARRAY_SIZE(ns); i++) {
		if (!full && ns[i] != 4)
			continue;
		bad = cc_run(CC_INCAST, ns[i], false, false, seed, &off) < 0;
		cc_row("incast", ns[i], false, &off);
		bad |= cc_run(CC_INCAST, ns[i], true, false, seed, &on) < 0;
		cc_row("incast", ns[i], true, &on);
		if (on.drops_settled)
			bad = cc_miss("incast", ns[i], "buffer drops after settling");
		if (on.goodput < CC_GOODPUT_MIN)
			bad = cc_miss("incast", ns[i], "goodput below 90 %");
		if (on.jain < CC_JAIN_MIN)
			bad = cc_miss("incast", ns[i], "Jain's index below 0.95");
		if (on.errors || !on.cnp || !on.cuts)
			bad = cc_miss("incast", ns[i], "errors, or no CNP/cut");
		if (off.cnp || off.cuts || off.marked)
			bad = cc_miss("incast", ns[i], "CC off marked or cut");
		unshared[i] = off;
		runs += 2;
		*failed += bad;
	}
	/*
	 * The same incast with the QPs on one device, DCQCN off: they share
	 * SROCE_DEV_INFLIGHT, so the switch sees at most that much.
	 */
	for (i = 0; i < ARRAY_SIZE(ns); i++) {
		if (!full && ns[i] != 4)
			continue;
		off = unshared[i];	/* the CC-off row above */
		bad = cc_run(CC_INCAST, ns[i], false, true, seed, &on) < 0;
		cc_row("shared", ns[i], false, &on);
		if (on.drops > off.drops || on.goodput < off.goodput)
			bad = cc_miss("shared", ns[i],
				      "more drops or less goodput than unshared");
		if (ns[i] <= 4 && on.drops)
			bad = cc_miss("shared", ns[i], "buffer drops");
		if (on.errors || on.cnp || on.cuts || on.marked)
			bad = cc_miss("shared", ns[i], "errors, or marked or cut");
		runs++;
		*failed += bad;
	}
	bad = cc_run(CC_BURST, 9, false, false, seed, &off) < 0;
	cc_row("burst", 9, false, &off);
	bad |= cc_run(CC_BURST, 9, true, false, seed, &on) < 0;
	cc_row("burst", 9, true, &on);
	if (on.errors || on.burst_ms <= 0)
		bad = cc_miss("burst", 9, "the burst did not complete");
	if (on.drops > off.drops)
		bad = cc_miss("burst", 9, "more drops with CC than without");
	runs += 2;
	*failed += bad;
	return runs;
}
