// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srq: shared receive queues through the sroce provider, on one device
 * (QPs connected to each other through the device's own GID).
 *
 *   srq DEV GID_INDEX
 *
 * Checks: create/query (the caps honoured, srq_limit 0), modify refusals
 * (a limit above max_wr), two RC QPs on one SRQ
 * taking its WQEs in posting order with the payloads intact, the limit
 * event (not while the count stays at the limit; once when it drops below
 * it; the limit reads 0 afterwards and does not fire again), a UD QP on
 * an SRQ (GRH, src_qp), a full SRQ refusing a post (ENOMEM), a destroy
 * refused while a QP is attached, IBV_EVENT_QP_LAST_WQE_REACHED when
 * a QP on an SRQ goes to ERR, and the lkeys of an SRQ's WQEs checked
 * against the SRQ's PD, not the QP's (a UD QP in one PD on an SRQ of
 * another), and resizing (IBV_SRQ_MAX_WR): refused with EINVAL below the
 * WQEs posted, above max_srq_wr, or under a limit it would leave above
 * max_wr, the SRQ unchanged; grown while full, with the limit armed in
 * the same call, the WQEs posted before and after all received in order
 * with every byte checked, the limit event on the new ring; shrunk when
 * empty.  Output ends with "srq: N passed, M failed".
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "../verbs/vm-verbs.h"
#include "vm-check.h"

#define MSG	64
#define NBUF	64

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t buf[NBUF * MSG];
static int gidx;
static union ibv_gid gid;

static struct ibv_qp *rc_qp(struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &ia);
}

static int connect_rc(struct ibv_qp *qp, uint32_t dqpn)
{
	return vm_connect_rc(qp, dqpn, &gid, gidx, 0);
}

static int post_srq(struct ibv_srq *srq, uint64_t wr_id, int slot,
		    uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf + slot * MSG,
			       .length = len, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

static int send_msg(struct ibv_qp *qp, int slot, uint32_t len,
		    struct ibv_ah *ah, uint32_t rqpn)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf + slot * MSG,
			       .length = len, .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1000 + slot, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = rqpn;
		wr.wr.ud.remote_qkey = 0x11111111;
	}
	return ibv_post_send(qp, &wr, &bad);
}

/* Reap @want completions into @wc (sends and receives); false on timeout. */
static bool reap(struct ibv_wc *wc, int want)
{
	long spins = 0;
	int got = 0, n;

	while (got < want && spins++ < 200000000L) {
		n = ibv_poll_cq(cq, want - got, wc + got);
		if (n < 0)
			return false;
		got += n;
	}
	return got == want;
}

/* The next async event within @ms, or -1; @qp/@srq get its element. */
static int next_event(int ms, void **elem)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	if (poll(&p, 1, ms) != 1)
		return -1;
	if (ibv_get_async_event(ctx, &ev))
		return -1;
	type = ev.event_type;
	*elem = type == IBV_EVENT_SRQ_LIMIT_REACHED ||
		type == IBV_EVENT_SRQ_ERR ? (void *)ev.element.srq :
					    (void *)ev.element.qp;
	ibv_ack_async_event(&ev);
	printf("event %s\n", ibv_event_type_str(type));
	return type;
}

/* True if slot @slot holds MSG bytes of @v. */
static bool filled(int slot, uint8_t v)
{
	int i;

	for (i = 0; i < MSG; i++)
		if (buf[slot * MSG + i] != v)
			return false;
	return true;
}

/*
 * Send @n messages from @c to @s, its peer on the SRQ, and check the
 * receives: SRQ WQEs are taken in posting order whichever QP a message
 * arrives on, so the k-th message lands in WQE *@next + k (posted for
 * slot 32 + its wr_id) with its fill byte.
 */
static bool exchange(struct ibv_qp *c, struct ibv_qp *s, int n,
		     uint64_t *next)
{
	struct ibv_wc wc[16];
	bool ok = true;
	uint8_t v;
	int i;

	for (i = 0; i < n; i++) {
		memset(buf + i * MSG, 0x40 + (int)((*next + i) & 0x3f), MSG);
		if (send_msg(c, i, MSG, NULL, 0))
			return false;
	}
	if (!reap(wc, 2 * n))
		return false;
	for (i = 0; i < 2 * n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			printf("wc %s wr_id %llu\n",
			       ibv_wc_status_str(wc[i].status),
			       (unsigned long long)wc[i].wr_id);
			ok = false;
			continue;
		}
		if (wc[i].opcode != IBV_WC_RECV)
			continue;
		v = 0x40 + (uint8_t)(*next & 0x3f);
		if (wc[i].wr_id != *next || wc[i].qp_num != s->qp_num ||
		    wc[i].byte_len != MSG || !filled(32 + (int)*next, v)) {
			printf("recv wr_id %llu (want %llu) qp %u len %u\n",
			       (unsigned long long)wc[i].wr_id,
			       (unsigned long long)*next, wc[i].qp_num,
			       wc[i].byte_len);
			ok = false;
		}
		(*next)++;
	}
	return ok;
}

static void rc_phase(void)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 16,
						   .max_sge = 1 } };
	struct ibv_srq_attr sa;
	struct ibv_qp *s1, *s2, *c1, *c2;
	struct ibv_srq *srq;
	uint64_t next = 0;
	void *elem = NULL;
	int i, ev, ret;

	srq = ibv_create_srq(pd, &sia);
	CHECK("create_srq", srq && sia.attr.max_wr >= 16 &&
	      sia.attr.max_sge >= 1);
	if (!srq)
		return;
	CHECK("query_srq", !ibv_query_srq(srq, &sa) && sa.max_wr >= 16 &&
	      sa.max_sge >= 1 && sa.srq_limit == 0);
	sa.srq_limit = 100000;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT);
	CHECK("modify_srq limit > max_wr refused", ret == EINVAL);

	s1 = rc_qp(srq);
	s2 = rc_qp(srq);
	c1 = rc_qp(NULL);
	c2 = rc_qp(NULL);
	CHECK("QPs on the SRQ", s1 && s2 && c1 && c2);
	if (!s1 || !s2 || !c1 || !c2)
		return;
	CHECK("connect", !connect_rc(s1, c1->qp_num) &&
	      !connect_rc(c1, s1->qp_num) && !connect_rc(s2, c2->qp_num) &&
	      !connect_rc(c2, s2->qp_num));
	{
		struct ibv_recv_wr wr = {}, *bad;

		CHECK("post_recv on a QP on an SRQ refused",
		      ibv_post_recv(s1, &wr, &bad) != 0);
	}
	CHECK("destroy_srq refused while QPs are attached",
	      ibv_destroy_srq(srq) != 0);

	for (i = 0; i < 8; i++)
		if (post_srq(srq, i, 32 + i, MSG))
			break;
	CHECK("post_srq_recv 8", i == 8);
	sa.srq_limit = 4;
	CHECK("arm limit 4", !ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT));
	CHECK("query limit 4", !ibv_query_srq(srq, &sa) && sa.srq_limit == 4);

	/* 8 -> 6 -> 4 posted: never below the limit, no event. */
	CHECK("2 SENDs to QP 1 from the SRQ", exchange(c1, s1, 2, &next));
	CHECK("2 SENDs to QP 2 from the SRQ", exchange(c2, s2, 2, &next));
	ev = next_event(300, &elem);
	CHECK("no event at the limit", ev == -1);

	/* 4 -> 3: below the limit. */
	CHECK("1 SEND more", exchange(c1, s1, 1, &next));
	ev = next_event(3000, &elem);
	CHECK("IBV_EVENT_SRQ_LIMIT_REACHED",
	      ev == IBV_EVENT_SRQ_LIMIT_REACHED && elem == srq);
	CHECK("limit disarmed", !ibv_query_srq(srq, &sa) &&
	      sa.srq_limit == 0);
	CHECK("3 SENDs more", exchange(c2, s2, 3, &next));
	ev = next_event(300, &elem);
	CHECK("one-shot: no second event", ev == -1);

	/* A QP on an SRQ going to ERR: the last WQE reached. */
	sa.srq_limit = 0;
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		CHECK("s1 to ERR", !ibv_modify_qp(s1, &a, IBV_QP_STATE));
	}
	ev = next_event(3000, &elem);
	CHECK("IBV_EVENT_QP_LAST_WQE_REACHED",
	      ev == IBV_EVENT_QP_LAST_WQE_REACHED && elem == s1);
	CHECK("destroy QPs", !ibv_destroy_qp(s1) && !ibv_destroy_qp(s2) &&
	      !ibv_destroy_qp(c1) && !ibv_destroy_qp(c2));
	CHECK("destroy_srq", !ibv_destroy_srq(srq));
}

/* max_wr and srq_limit as query_srq reads them, or false. */
static bool srq_is(struct ibv_srq *srq, uint32_t max_wr, uint32_t limit)
{
	struct ibv_srq_attr sa;

	return !ibv_query_srq(srq, &sa) && sa.max_wr == max_wr &&
	       sa.srq_limit == limit;
}

/*
 * Resizing.  An SRQ of 8 WQEs is filled; the refusals leave it as it was
 * (still full, same max_wr); then it grows to 32 with the limit armed in
 * the same call, takes 16 WQEs more, and 24 SENDs land in all 24 in
 * posting order, the 8 posted into the old ring first, every byte of
 * every receive checked against its own fill byte (the receive slots are
 * zeroed first, so nothing passes by being left over).
 */
static void resize_phase(void)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 8,
						   .max_sge = 1 } };
	struct ibv_device_attr da;
	struct ibv_srq_attr sa = {};
	struct ibv_qp *s, *c;
	struct ibv_srq *srq;
	uint64_t next = 0;
	void *elem = NULL;
	int i, ev, ret;

	memset(buf + 32 * MSG, 0, 32 * MSG);
	srq = ibv_create_srq(pd, &sia);
	CHECK("resize: create_srq 8", srq && srq_is(srq, 8, 0));
	if (!srq)
		return;
	s = rc_qp(srq);
	c = rc_qp(NULL);
	CHECK("resize: QPs", s && c && !connect_rc(s, c->qp_num) &&
	      !connect_rc(c, s->qp_num));
	if (!s || !c)
		return;
	for (i = 0; i < 8; i++)
		if (post_srq(srq, i, 32 + i, MSG))
			break;
	CHECK("resize: post 8, full", i == 8 &&
	      post_srq(srq, 99, 63, MSG) == ENOMEM);

	sa.max_wr = 7;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
	CHECK("resize below the WQEs posted refused (EINVAL)", ret == EINVAL);
	CHECK("ibv_query_device", !ibv_query_device(ctx, &da));
	sa.max_wr = da.max_srq_wr + 1;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
	CHECK("resize above max_srq_wr refused (EINVAL)", ret == EINVAL);
	sa.max_wr = 0;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
	CHECK("resize to 0 refused (EINVAL)", ret == EINVAL);
	sa.max_wr = 16;
	sa.srq_limit = 17;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT);
	CHECK("resize with a limit above the new max_wr refused (EINVAL)",
	      ret == EINVAL);
	CHECK("refusals changed nothing", srq_is(srq, 8, 0) &&
	      post_srq(srq, 99, 63, MSG) == ENOMEM);

	/* Grown while full, the limit armed in the same call. */
	sa.max_wr = 24;
	sa.srq_limit = 2;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT);
	CHECK("resize 8 -> 24 (32) with limit 2", !ret &&
	      srq_is(srq, 32, 2));
	for (i = 8; i < 24; i++)
		if (post_srq(srq, i, 32 + i, MSG))
			break;
	CHECK("post 16 more into the new ring", i == 24);
	for (i = 0; i < 3; i++)
		if (!exchange(c, s, 8, &next))
			break;
	CHECK("24 SENDs into the old WQEs and the new, in order, every byte",
	      i == 3 && next == 24);
	ev = next_event(3000, &elem);
	CHECK("IBV_EVENT_SRQ_LIMIT_REACHED on the new ring",
	      ev == IBV_EVENT_SRQ_LIMIT_REACHED && elem == srq &&
	      srq_is(srq, 32, 0));

	/* Empty now: shrinking is a resize too. */
	sa.max_wr = 2;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
	CHECK("resize 32 -> 2 when empty", !ret && srq_is(srq, 2, 0));
	memset(buf + 56 * MSG, 0, 2 * MSG);
	CHECK("post 2, full at 2", !post_srq(srq, 24, 56, MSG) &&
	      !post_srq(srq, 25, 57, MSG) &&
	      post_srq(srq, 99, 63, MSG) == ENOMEM);
	CHECK("2 SENDs into the shrunk ring", exchange(c, s, 2, &next));
	CHECK("resize teardown", !ibv_destroy_qp(s) && !ibv_destroy_qp(c) &&
	      !ibv_destroy_srq(srq));
}

/* A UD QP of this test from RESET to RTS: 0 or the errno. */
static int ud_up(struct ibv_qp *q)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = 0x11111111 };
	int ret;

	ret = ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	a.qp_state = IBV_QPS_RTR;
	ret = ret ?: ibv_modify_qp(q, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_RTS;
	return ret ?: ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* An AH to this device's own GID. */
static struct ibv_ah *ud_ah(void)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };

	aa.grh.dgid = gid;
	aa.grh.sgid_index = gidx;
	aa.grh.hop_limit = 64;
	return ibv_create_ah(pd, &aa);
}

static void ud_phase(void)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4,
						   .max_sge = 1 } };
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 0,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp *s, *c;
	struct ibv_srq *srq;
	struct ibv_ah *ah;
	struct ibv_wc wc[2];
	int i, ret, recv = -1;

	srq = ibv_create_srq(pd, &sia);
	ia.srq = srq;
	s = srq ? ibv_create_qp(pd, &ia) : NULL;
	ia.srq = NULL;
	ia.cap.max_recv_wr = 1;
	c = s ? ibv_create_qp(pd, &ia) : NULL;
	CHECK("UD QP on an SRQ", srq && s && c);
	if (!c)
		return;
	ret = ud_up(s) ?: ud_up(c);
	ah = ud_ah();
	CHECK("UD to RTS, AH", !ret && ah);
	if (ret || !ah)
		return;
	/* GRH (40) + payload in one SGE. */
	CHECK("post_srq_recv UD", !post_srq(srq, 77, 40, 40 + MSG));
	memset(buf, 0x5a, MSG);
	CHECK("UD SEND", !send_msg(c, 0, MSG, ah, s->qp_num));
	CHECK("UD completions", reap(wc, 2));
	for (i = 0; i < 2; i++)
		if (wc[i].opcode == IBV_WC_RECV)
			recv = i;
	CHECK("UD receive from the SRQ", recv >= 0 &&
	      wc[recv].status == IBV_WC_SUCCESS && wc[recv].wr_id == 77 &&
	      wc[recv].qp_num == s->qp_num && wc[recv].src_qp == c->qp_num &&
	      (wc[recv].wc_flags & IBV_WC_GRH) &&
	      wc[recv].byte_len == 40 + MSG &&
	      !memcmp(buf + 40 * MSG + 40, buf, MSG));

	/* Capacity: max_wr WQEs fit, one more does not. */
	for (i = 0; i < (int)sia.attr.max_wr; i++)
		if (post_srq(srq, 200 + i, 48, MSG))
			break;
	CHECK("SRQ takes max_wr WQEs", i == (int)sia.attr.max_wr);
	CHECK("full SRQ refuses a post (ENOMEM)",
	      post_srq(srq, 299, 48, MSG) == ENOMEM);
	CHECK("UD teardown", !ibv_destroy_ah(ah) && !ibv_destroy_qp(s) &&
	      !ibv_destroy_qp(c) && !ibv_destroy_srq(srq));
}

/* A UD SEND of MSG bytes from @c to @s; the receive's status, or -1. */
static int ud_recv_status(struct ibv_qp *c, struct ibv_qp *s,
			  struct ibv_ah *ah)
{
	struct ibv_wc wc[2];
	int i;

	if (send_msg(c, 0, MSG, ah, s->qp_num) || !reap(wc, 2))
		return -1;
	for (i = 0; i < 2; i++)
		if (wc[i].opcode == IBV_WC_RECV ||
		    (wc[i].status && wc[i].wr_id < 1000))
			return wc[i].status;
	return -1;
}

/*
 * The receive WQEs of an SRQ belong to the SRQ's PD: a UD QP in PD 1 on
 * an SRQ of PD 2 takes a buffer of PD 2's MR and refuses one of PD 1's.
 */
static void pd_phase(void)
{
	static uint8_t buf2[2 * MSG + 64];
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4,
						   .max_sge = 1 } };
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_sge sge = { .length = 40 + MSG };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct ibv_mr *mr2 = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *s = NULL, *c = NULL;
	struct ibv_ah *ah = NULL;
	int ret = -1;

	if (pd2) {
		mr2 = ibv_reg_mr(pd2, buf2, sizeof(buf2),
				 IBV_ACCESS_LOCAL_WRITE);
		srq = ibv_create_srq(pd2, &sia);
	}
	if (srq) {
		c = ibv_create_qp(pd, &ia);
		ia.srq = srq;
		s = ibv_create_qp(pd, &ia);
	}
	if (s && c)
		ret = ud_up(s) ?: ud_up(c);
	ah = ret ? NULL : ud_ah();
	CHECK("UD QP of PD 1 on an SRQ of PD 2", mr2 && ah);
	if (!ah)
		return;
	memset(buf, 0x6b, MSG);
	sge.addr = (uintptr_t)buf2;
	sge.lkey = mr2->lkey;
	wr.wr_id = 81;
	CHECK("post_srq_recv, the SRQ's PD's MR",
	      !ibv_post_srq_recv(srq, &wr, &bad));
	CHECK("received into the SRQ's PD's MR",
	      ud_recv_status(c, s, ah) == IBV_WC_SUCCESS &&
	      !memcmp(buf2 + 40, buf, MSG));
	sge.addr = (uintptr_t)buf + MSG;
	sge.lkey = mr->lkey;
	wr.wr_id = 82;
	CHECK("post_srq_recv, the QP's PD's MR",
	      !ibv_post_srq_recv(srq, &wr, &bad));
	CHECK("refused: the QP's PD is not the SRQ's (LOC_PROT_ERR)",
	      ud_recv_status(c, s, ah) == IBV_WC_LOC_PROT_ERR);
	CHECK("PD teardown", !ibv_destroy_ah(ah) && !ibv_destroy_qp(s) &&
	      !ibv_destroy_qp(c) && !ibv_destroy_srq(srq) &&
	      !ibv_dereg_mr(mr2) && !ibv_dealloc_pd(pd2));
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: srq DEV GID_INDEX\n");
		return 2;
	}
	gidx = atoi(argv[2]);
	ctx = vm_open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	if (!mr || ibv_query_gid(ctx, 1, gidx, &gid)) {
		printf("FAIL setup\nsrq: 0 passed, 1 failed\n");
		return 1;
	}
	rc_phase();
	resize_phase();
	ud_phase();
	pd_phase();
	CHECK("teardown", !ibv_dereg_mr(mr) && !ibv_destroy_cq(cq) &&
	      !ibv_dealloc_pd(pd) && !ibv_close_device(ctx));
	printf("srq: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
