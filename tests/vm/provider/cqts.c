// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cqts: completion timestamps through the sroce provider, on one device
 * (an RC QP connected to another through the device's own GID).
 *
 *   cqts DEV GID_INDEX
 *
 * Checks: the device's clock (hca_core_clock 1 GHz, a 64-bit
 * completion_timestamp_mask); ibv_query_rt_values_ex() reading
 * CLOCK_MONOTONIC and refusing an unknown mask bit; an extended CQ with
 * both timestamp flags whose every completion (sends and receives, read
 * with the extended poll API) is stamped between a clock read before the
 * post and one after the poll, in both clocks, never decreasing along the
 * CQ; the stamps surviving a resize with the receives landed and their
 * completions not yet polled; ibv_poll_cq
 * on the same CQ; a CQ without timestamps still working.  Brackets, not
 * durations: nothing here depends on how fast the guest is.  Output ends
 * with "cqts: N passed, M failed".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "../verbs/vm-verbs.h"
#include "vm-check.h"

#define MSG	64
#define NMSG	16

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t buf[2 * NMSG * MSG];
static int gidx;
static union ibv_gid gid;

static uint64_t now_ns(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

static struct ibv_qp *rc_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = NMSG, .max_recv_wr = NMSG,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &ia);
}

static int connect_rc(struct ibv_qp *qp, uint32_t dqpn)
{
	return vm_connect_rc(qp, dqpn, &gid, gidx, 0);
}

/* @n SENDs from @a to @b, each with its receive: 2 * @n completions. */
static bool exchange(struct ibv_qp *a, struct ibv_qp *b, int n)
{
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge;
	int i;

	for (i = 0; i < n; i++) {
		sge = (struct ibv_sge){ .addr = (uintptr_t)buf + (NMSG + i) * MSG,
					.length = MSG, .lkey = mr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = 2000 + i, .sg_list = &sge,
					    .num_sge = 1 };
		if (ibv_post_recv(b, &rwr, &rbad))
			return false;
	}
	for (i = 0; i < n; i++) {
		memset(buf + i * MSG, 0xa0 + i, MSG);
		sge = (struct ibv_sge){ .addr = (uintptr_t)buf + i * MSG,
					.length = MSG, .lkey = mr->lkey };
		swr = (struct ibv_send_wr){ .wr_id = 1000 + i, .sg_list = &sge,
					    .num_sge = 1, .opcode = IBV_WR_SEND,
					    .send_flags = IBV_SEND_SIGNALED };
		if (ibv_post_send(a, &swr, &sbad))
			return false;
	}
	return true;
}

struct rec {
	uint64_t wr_id, ts, wall;
	enum ibv_wc_status status;
};

/* @n completions into @r, over as many extended polls as it takes. */
static int collect(struct ibv_cq_ex *cq, int n, struct rec *r)
{
	struct ibv_poll_cq_attr pa = {};
	long spins = 0;
	int got = 0;

	while (got < n && spins++ < 200000000L) {
		if (ibv_start_poll(cq, &pa))
			continue;
		do {
			r[got].wr_id = cq->wr_id;
			r[got].status = cq->status;
			r[got].ts = ibv_wc_read_completion_ts(cq);
			r[got].wall = ibv_wc_read_completion_wallclock_ns(cq);
			got++;
		} while (got < n && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	return got;
}

/* Every receive buffer holds its payload: the receives are complete. */
static bool landed(int n)
{
	volatile uint8_t *p = buf;
	long spins;
	int i;

	for (i = 0; i < n; i++)
		for (spins = 0; p[(NMSG + i) * MSG + MSG - 1] != 0xa0 + i; spins++)
			if (spins > 200000000L)
				return false;
	return true;
}

struct verdict {
	int bad_status, bad_data, out_of_range, decreasing, wall_bad;
};

/*
 * Each stamp within [@lo, @hi] of CLOCK_MONOTONIC and [@wlo, @whi] of
 * CLOCK_REALTIME (a wall-clock step between the reads would fail this),
 * never below the one before it on the CQ.
 */
static struct verdict judge(const struct rec *r, int n, uint64_t lo,
			    uint64_t hi, uint64_t wlo, uint64_t whi)
{
	struct verdict v = {};
	int i;

	for (i = 0; i < n; i++) {
		if (r[i].status != IBV_WC_SUCCESS)
			v.bad_status++;
		if (r[i].wr_id >= 2000 &&
		    buf[(NMSG + r[i].wr_id - 2000) * MSG] != 0xa0 + r[i].wr_id - 2000)
			v.bad_data++;
		if (r[i].ts < lo || r[i].ts > hi)
			v.out_of_range++;
		if (i && r[i].ts < r[i - 1].ts)
			v.decreasing++;
		if (r[i].wall < wlo || r[i].wall > whi)
			v.wall_bad++;
	}
	return v;
}

static void check_device(void)
{
	struct ibv_device_attr_ex da = {};
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	uint64_t lo, hi, raw;
	int ret;

	CHECK("query_device_ex", !ibv_query_device_ex(ctx, NULL, &da));
	CHECK("hca_core_clock is 1 GHz (1000000 kHz)",
	      da.hca_core_clock == 1000000);
	CHECK("completion_timestamp_mask is 64 bits",
	      da.completion_timestamp_mask == UINT64_MAX);

	lo = now_ns(CLOCK_MONOTONIC);
	ret = ibv_query_rt_values_ex(ctx, &v);
	hi = now_ns(CLOCK_MONOTONIC);
	raw = (uint64_t)v.raw_clock.tv_sec * 1000000000ull +
	      v.raw_clock.tv_nsec;
	CHECK("query_rt_values_ex(RAW_CLOCK)",
	      !ret && (v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK));
	CHECK("raw clock is CLOCK_MONOTONIC", raw >= lo && raw <= hi);
	v.comp_mask = IBV_VALUES_MASK_RESERVED;
	CHECK("query_rt_values_ex(unknown bit) EINVAL",
	      ibv_query_rt_values_ex(ctx, &v) == EINVAL);
}

/* Post, reap and judge one exchange; @resize: resize before reaping. */
static void round_trip(struct ibv_cq_ex *cq, struct ibv_qp *a,
		       struct ibv_qp *b, const char *name, bool resize)
{
	struct rec r[2 * NMSG];
	uint64_t lo, hi, wlo, whi;
	struct verdict v;
	char what[128];
	int got;

	memset(buf + NMSG * MSG, 0, NMSG * MSG);
	/* A millisecond of slack for the offset start_poll reads. */
	wlo = now_ns(CLOCK_REALTIME) - 1000000;
	lo = now_ns(CLOCK_MONOTONIC);
	snprintf(what, sizeof(what), "%s: posted", name);
	CHECK(what, exchange(a, b, NMSG));
	if (resize) {
		/* With the completions (at least the receives') pending. */
		snprintf(what, sizeof(what), "%s: payloads landed", name);
		CHECK(what, landed(NMSG));
		snprintf(what, sizeof(what), "%s: resize_cq", name);
		CHECK(what, !ibv_resize_cq(ibv_cq_ex_to_cq(cq), 8 * NMSG));
	}
	got = collect(cq, 2 * NMSG, r);
	hi = now_ns(CLOCK_MONOTONIC);
	whi = now_ns(CLOCK_REALTIME) + 1000000;
	v = judge(r, got, lo, hi, wlo, whi);
	snprintf(what, sizeof(what), "%s: %d completions", name, 2 * NMSG);
	CHECK(what, got == 2 * NMSG);
	snprintf(what, sizeof(what), "%s: every status SUCCESS, payload intact",
		 name);
	CHECK(what, !v.bad_status && !v.bad_data);
	snprintf(what, sizeof(what), "%s: every stamp between post and poll",
		 name);
	CHECK(what, !v.out_of_range);
	snprintf(what, sizeof(what), "%s: stamps never decrease along the CQ",
		 name);
	CHECK(what, !v.decreasing);
	snprintf(what, sizeof(what), "%s: wall-clock stamps between post and poll",
		 name);
	CHECK(what, !v.wall_bad);
}

static void check_stamped(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 4 * NMSG,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	struct ibv_wc wc[2 * NMSG];
	struct ibv_cq_ex *cq;
	struct ibv_qp *a, *b;
	long spins = 0;
	int n, got;

	cq = ibv_create_cq_ex(ctx, &ca);
	CHECK("create_cq_ex with both timestamp flags", cq);
	if (!cq)
		return;
	a = rc_qp(ibv_cq_ex_to_cq(cq));
	b = rc_qp(ibv_cq_ex_to_cq(cq));
	CHECK("two RC QPs", a && b);
	if (!a || !b || connect_rc(a, b->qp_num) || connect_rc(b, a->qp_num)) {
		CHECK("connect", false);
		goto out;
	}

	round_trip(cq, a, b, "stamped", false);
	round_trip(cq, a, b, "stamped, resized", true);

	/* ibv_poll_cq on a stamped CQ. */
	CHECK("exchange posted for ibv_poll_cq", exchange(a, b, NMSG));
	for (got = 0; got < 2 * NMSG && spins++ < 200000000L; got += n) {
		n = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 2 * NMSG - got, wc + got);
		if (n < 0)
			break;
	}
	CHECK("ibv_poll_cq reads them", got == 2 * NMSG);
	for (n = 0; n < got && wc[n].status == IBV_WC_SUCCESS; n++)
		;
	CHECK("ibv_poll_cq: every status SUCCESS", n == got);
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	CHECK("destroy stamped CQ", !ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
}

static void check_unstamped(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 4 * NMSG, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cq;
	struct ibv_qp *a, *b;
	long spins = 0;
	int got = 0;

	cq = ibv_create_cq_ex(ctx, &ca);
	CHECK("create_cq_ex without timestamps", cq);
	if (!cq)
		return;
	a = rc_qp(ibv_cq_ex_to_cq(cq));
	b = rc_qp(ibv_cq_ex_to_cq(cq));
	if (a && b && !connect_rc(a, b->qp_num) && !connect_rc(b, a->qp_num) &&
	    exchange(a, b, NMSG)) {
		while (got < 2 * NMSG && spins++ < 200000000L) {
			if (ibv_start_poll(cq, &pa))
				continue;
			do {
				got += cq->status == IBV_WC_SUCCESS;
			} while (!ibv_next_poll(cq));
			ibv_end_poll(cq);
		}
	}
	CHECK("unstamped CQ: every completion SUCCESS", got == 2 * NMSG);
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV GID_INDEX\n", argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	ctx = vm_open_dev(argv[1]);
	if (!ctx || ibv_query_gid(ctx, 1, gidx, &gid))
		return 2;
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!mr)
		return 2;

	check_device();
	check_stamped();
	check_unstamped();

	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("cqts: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
