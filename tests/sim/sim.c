// SPDX-License-Identifier: GPL-2.0
/*
 * The simulator's world: endpoints, QP pairs, the receive glue and the
 * virtual-time event loop.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_int.h"
#include "sim.h"

void sim_fail(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->failed++) {
		va_start(ap, fmt);
		vsnprintf(s->fail_msg, sizeof(s->fail_msg), fmt, ap);
		va_end(ap);
	}
}

static struct sim_qp *qp_of(struct sroce_ep_qp *q)
{
	return q->user;
}

/* ops->emit: serialise into a real frame and put it on the link. */
static int sim_emit(void *arg, struct sroce_ep_qp *q,
		    const struct sroce_tx_pkt *pkt)
{
	struct sim *s = arg;
	struct sim_qp *sq = qp_of(q);
	u32 roce = pkt->hdr_len + pkt->paylen + pkt->pad + SROCE_ICRC_LEN;
	bool ipv6 = s->o.ipv6 > 0;
	struct sim_frame *f, *lf;
	bool mc = false;
	u32 off;

	if (s->now < sq->tx_busy_until) {
		s->st.emit_busy++;
		return -SROCE_EAGAIN;
	}
	if (sroce_rng_ppm(&s->erng, s->o.emit_busy_ppm)) {
		/*
		 * Like a full qdisc: nothing is sent and the QP is kicked
		 * again when the queue drains, as the glue's TX wake-up does.
		 */
		u64 span = s->o.emit_busy_ns ? s->o.emit_busy_ns : 5500;
		struct sim_ev e;

		s->st.emit_busy++;
		sq->tx_busy_until = s->now + span / 11 +
				    sroce_rng_below(&s->erng, span - span / 11);
		s->qp[!sq->side][sq->idx].peer_busy_ns +=
			sq->tx_busy_until - s->now;
		memset(&e, 0, sizeof(e));
		e.t = sq->tx_busy_until;
		e.type = SIM_EV_KICK;
		e.side = sq->side;
		e.idx = sq->idx;
		sim_evq_push(&s->evq, &e);
		return -SROCE_EAGAIN;
	}
	if (q->qp.type == SROCE_QPT_UD) {
		const struct sroce_ep_ah *ah = sroce_ep_get_ah(q->ep, pkt->ah);

		if (!ah) {
			sim_fail(s, "emit: unknown AH %u", pkt->ah);
			return 0;
		}
		ipv6 = ah->ipv6;
		mc = sim_mcast_ah(s, sq->side, pkt->ah);
	}
	if (roce > SIM_FRAME_MAX - 48) {
		sim_fail(s, "emit: %u-byte packet exceeds the MTU", roce);
		return 0;
	}
	f = sim_frame_get(roce + 48);
	f->ect = s->o.cc;
	off = sim_encap_hdr(f, ipv6, roce, (u16)(0xc000 | (q->qp.qpn & 0x3fff)),
			    sq->side);
	if (mc)
		sim_encap_to_group(f);
	sroce_ep_pkt_copy(q->ep, pkt, f->data + off);
	sim_encap_icrc(f, (pkt->opcode & ~SROCE_TRANSPORT_MASK) ==
			  SROCE_OP_FLUSH &&
			  (pkt->icrc_rxe || s->o.icrc[sq->side] == SIM_ICRC_RXE));
	if (mc) {
		/* The sender's IP stack loops a copy back to its side. */
		struct sim_ev e = {
			.t = s->now,
			.type = SIM_EV_FRAME,
			.side = sq->side,
		};

		lf = sim_frame_get(f->len);
		lf->len = f->len;
		lf->ipv6 = f->ipv6;
		lf->looped = 1;
		memcpy(lf->data, f->data, f->len);
		e.frame = lf;
		sim_evq_push(&s->evq, &e);
	}
	if (s->o.trace && (sq->idx == s->o.trace - 1))
		printf("%12llu  %u>  qp %#x %-22s psn %#08x len %u%s\n",
		       (unsigned long long)s->now, sq->side, q->qp.qpn,
		       sroce_opinfo(pkt->opcode) ?
		       sroce_opinfo(pkt->opcode)->name : "?", pkt->psn,
		       pkt->paylen, pkt->hdr_len > 12 && (pkt->opcode & 0x1f) ==
		       SROCE_OP_ACK ? " (ack)" : "");
	if (s->o.nic_gbps) {
		/* This sender's NIC is busy for the frame's time on its wire. */
		struct sim_ev e;

		memset(&e, 0, sizeof(e));
		sq->tx_busy_until = s->now +
			((u64)f->len * 8 + s->o.nic_gbps - 1) / s->o.nic_gbps;
		e.t = sq->tx_busy_until;
		e.type = SIM_EV_KICK;
		e.side = sq->side;
		e.idx = sq->idx;
		sim_evq_push(&s->evq, &e);
	}
	if (sim_link_send(&s->link[sq->side], &s->evq, s->now, f)) {
		if (s->o.trace && sq->idx == s->o.trace - 1)
			printf("%12llu      ^ lost or corrupted\n",
			       (unsigned long long)s->now);
		/* Remember losses: they excuse a retry exhaustion. */
		sq->lost_since_ok++;
		s->qp[!sq->side][sq->idx].lost_since_ok++;
	}
	return 0;
}

static struct sim_qp *lookup(struct sim *s, u8 side, u32 qpn)
{
	u32 i = qpn - s->qpn_base[side];

	return i < s->nqp ? s->qp[side] + i : NULL;
}

/* For --trace: why did this QP just enter ERR? */
static void dump_qp(struct sim *s, struct sim_qp *sq,
		    const struct sroce_pkt *pkt)
{
	const struct sroce_qp *q = &sq->q->qp;
	u32 i;

	printf("%12llu   side %u qp %#x entered ERR on %s psn %#x; responder psn %#x, resources:\n",
	       (unsigned long long)s->now, sq->side, q->qpn, pkt->op->name,
	       pkt->h.bth.psn, q->resp.psn);
	for (i = 0; i < q->resp.max_res; i++)
		printf("    res %2u kind %#x pending %u psn %#x..+%u cur %#x end %#x seq %u\n",
		       i, q->resp.res[i].kind, q->resp.res[i].pending,
		       q->resp.res[i].psn, q->resp.res[i].npsn,
		       q->resp.res[i].cur_psn, q->resp.res[i].end_psn,
		       q->resp.res[i].seq);
}

/*
 * The responder's bookkeeping of its READ/atomic slots: the count of
 * slots owing responses matches the slots, and the slot handed out next
 * in turn is free if any is, else the oldest.
 */
static void check_res(struct sim *s, const struct sroce_qp *q)
{
	const struct sroce_rd_res *r = q->resp.res, *next;
	bool any_free = false, older = false;
	u32 i, n = 0;

	for (i = 0; i < q->resp.max_res; i++)
		n += r[i].pending;
	if (n != q->resp.res_pending)
		sim_fail(s, "qp %#x: %u responder slots pending, counted %u",
			 q->qpn, n, q->resp.res_pending);
	if (q->resp.res_scan || !q->resp.res_used)
		return;
	next = &r[q->resp.res_next];
	for (i = 0; i < q->resp.res_n; i++) {
		any_free |= !r[i].kind;
		older |= r[i].kind && (s32)(r[i].seq - next->seq) < 0;
	}
	if (any_free ? next->kind != 0 : older)
		sim_fail(s, "qp %#x: responder slot %u, next in turn, is neither free nor the oldest",
			 q->qpn, q->resp.res_next);
}

/* The requester's count of READ/atomic WQEs out matches its SQ. */
static void check_rd_out(struct sim *s, const struct sroce_qp *q)
{
	u32 i, n = 0;

	for (i = q->comp.head; i != q->req.next; i++)
		n += sroce_wr_is_rd_atomic(sroce_sq_slot(q, i)->wr.opcode);
	if (n != q->req.rd_out)
		sim_fail(s, "qp %#x: %u READ/atomic WQEs out, counted %u",
			 q->qpn, n, q->req.rd_out);
}

static void rx_frame(struct sim *s, u8 side, struct sim_frame *f)
{
	enum sroce_qp_state st0;
	struct sroce_ep_rx rx;
	struct sroce_pkt pkt;
	struct sim_qp *sq;
	const u8 *bth;
	u32 len;
	int r;

	s->st.rx_frames++;
	sim_link_mark(&s->link[!side], f);
	r = sim_decap(f, s->o.icrc[side], &bth, &len);
	if (!r && f->corrupted) {
		sim_fail(s, "a corrupted frame passed the ICRC check");
		return;
	}
	if (!r)
		r = sroce_parse(bth, len, &pkt);
	if (!r)
		pkt.ce = f->ce;
	/*
	 * The addresses only where multicast runs: the connected QPs of
	 * the other runs have no path GIDs to match them against.
	 */
	if (!r && s->mc)
		sim_frame_gids(f, pkt.sgid, pkt.dgid);
	if (!r)
		r = sroce_mcast_check(&pkt);
	if (r) {
		s->st.drops[r < SROCE_DROP_MAX ? r : 0]++;
		return;
	}
	rx.payload = bth + pkt.hdr_len;
	rx.len = pkt.paylen;
	rx.l3 = f->data;
	rx.ipv6 = f->ipv6;
	if (sroce_pkt_is_mcast(&pkt)) {
		if (s->mc)
			sim_mcast_rx(s, side, &pkt, &rx, f->looped);
		else
			s->st.drops[SROCE_DROP_UNKNOWN_QP]++;
		return;
	}
	sq = lookup(s, side, pkt.h.bth.dqpn);
	if (!sq) {
		s->st.drops[SROCE_DROP_UNKNOWN_QP]++;
		return;
	}
	st0 = sq->q->qp.state;
	/* As the kernel glue does: the core reads the clock if it must. */
	r = sroce_qp_rx(&sq->q->qp, &pkt, &rx, SROCE_NOW_LAZY);
	if (st0 != SROCE_QPS_ERR && sq->q->qp.state == SROCE_QPS_ERR &&
	    s->o.trace)
		dump_qp(s, sq, &pkt);
	if (r)
		s->st.drops[r < SROCE_DROP_MAX ? r : 0]++;
	check_res(s, &sq->q->qp);
	if (s->o.trace && sq->idx == s->o.trace - 1)
		printf("%12llu   >%u qp %#x %-22s psn %#08x len %u %s\n",
		       (unsigned long long)s->now, side, sq->q->qp.qpn,
		       pkt.op->name, pkt.h.bth.psn, pkt.paylen,
		       r ? sroce_drop_name(r) : "ok");
	sim_service(s, sq);
}

static void rearm(struct sim *s, struct sim_qp *sq)
{
	u64 d = sroce_qp_next_deadline(&sq->q->qp);
	struct sim_ev e;

	if (d != U64_MAX && d < s->now)
		d = s->now;
	if (d == sq->armed)
		return;
	sq->armed = d;
	if (d == U64_MAX)
		return;
	memset(&e, 0, sizeof(e));
	e.t = d;
	e.type = SIM_EV_TIMER;
	e.side = sq->side;
	e.idx = sq->idx;
	sim_evq_push(&s->evq, &e);
}

/* As the kernel glue does: @sq's side's sending QPs, @sq counted. */
static u32 senders(const struct sim *s, const struct sim_qp *sq)
{
	u32 i, n = !sroce_qp_sending(&sq->q->qp);

	if (s->o.no_share)
		return 0;
	for (i = 0; i < s->nqp; i++)
		if (s->qp[sq->side][i].q)	/* NULL while a pair is added */
			n += sroce_qp_sending(&s->qp[sq->side][i].q->qp);
	return n;
}

void sim_service(struct sim *s, struct sim_qp *sq)
{
	struct sroce_ep_qp *q = sq->q;
	struct sroce_cqe c;
	u32 guard = 0, polled;

	do {
		/* Posting is followed by a kick: pending() cannot see the SQ. */
		sroce_qp_set_senders(&q->qp, senders(s, sq));
		sroce_qp_kick(&q->qp, 256, SROCE_NOW_LAZY);
		while (sroce_qp_pending(&q->qp) &&
		       s->now >= sq->tx_busy_until) {
			sroce_qp_set_senders(&q->qp, senders(s, sq));
			sroce_qp_kick(&q->qp, 256, SROCE_NOW_LAZY);
			if (++guard > 100000) {
				sim_fail(s, "qp %#x: kick never settles",
					 q->qp.qpn);
				return;
			}
		}
		polled = 0;
		/* Completions may post new work, which needs a kick. */
		while (sroce_ep_poll(&q->scq, &c)) {
			polled++;
			s->st.cqes++;
			if (s->on_cqe)
				s->on_cqe(s, sq, &c);
		}
		while (sroce_ep_poll(&q->rcq, &c)) {
			polled++;
			s->st.cqes++;
			if (s->on_cqe)
				s->on_cqe(s, sq, &c);
		}
	} while (polled && !s->failed);
	check_rd_out(s, &q->qp);
	rearm(s, sq);
	if (q->ep->violations && !s->failed)
		sim_fail(s, "side %u: core broke an ops contract: %s",
			 sq->side, q->ep->why);
}

void sim_at(struct sim *s, u64 t, u32 arg)
{
	struct sim_ev e;

	memset(&e, 0, sizeof(e));
	e.t = t;
	e.type = SIM_EV_ACTION;
	e.idx = arg;
	sim_evq_push(&s->evq, &e);
}

void sim_run(struct sim *s, bool (*done)(struct sim *s), u64 limit)
{
	struct sim_qp *sq;
	struct sim_ev e;

	while (!s->failed && !(done && done(s))) {
		if (!sim_evq_pop(&s->evq, &e))
			break;
		if (e.t > limit) {
			/* Not yet: put it back for a later sim_run(). */
			e.seq = 0;
			sim_evq_push(&s->evq, &e);
			s->now = limit;
			break;
		}
		s->st.events++;
		if (e.t > s->now)
			s->now = e.t;
		switch (e.type) {
		case SIM_EV_FRAME:
			rx_frame(s, e.side, e.frame);
			sim_frame_put(e.frame);
			break;
		case SIM_EV_TIMER:
			sq = &s->qp[e.side][e.idx];
			if (sq->armed != e.t)
				break;	/* stale: re-armed since */
			sq->armed = U64_MAX;
			if (s->o.trace && sq->idx == s->o.trace - 1)
				printf("%12llu   deadline side %u\n",
				       (unsigned long long)s->now, sq->side);
			sroce_qp_on_deadline(&sq->q->qp, s->now);
			sim_service(s, sq);
			break;
		case SIM_EV_ACTION:
			if (s->action)
				s->action(s, e.idx);
			break;
		case SIM_EV_KICK:
			sim_service(s, &s->qp[e.side][e.idx]);
			break;
		}
	}
}

u32 sim_add_pair(struct sim *s, enum sroce_qp_type type, u32 sq_size)
{
	struct sroce_qp_attr a[2];
	u32 i = s->nqp++, side;
	u32 psn[2];

	for (side = 0; side < 2; side++) {
		s->qp[side] = realloc(s->qp[side], s->nqp * sizeof(**s->qp));
		if (!s->qp[side])
			abort();
	}
	/* Start PSNs sometimes right below the 2^24 wrap. */
	for (side = 0; side < 2; side++)
		psn[side] = sroce_rng_below(&s->rng, 4) ?
			(u32)sroce_rng_below(&s->rng, SROCE_PSN_MASK + 1) :
			SROCE_PSN_MASK - (u32)sroce_rng_below(&s->rng, 64);
	for (side = 0; side < 2; side++) {
		struct sim_qp *sq = &s->qp[side][i];

		memset(sq, 0, sizeof(*sq));
		sq->side = side;
		sq->idx = i;
		sq->armed = U64_MAX;
		/* XRC: side 0 initiates, side 1's target is in XRC domain 1. */
		sq->q = sroce_ep_qp_create(&s->ep[side],
					   side && type == SROCE_QPT_XRC_INI ?
					   SROCE_QPT_XRC_TGT : type,
					   s->qpn_base[side] + i, 1, sq_size,
					   SROCE_MAX_RD_ATOMIC,
					   side == 1 && s->srq1, false);
		if (!sq->q) {
			sim_fail(s, "qp create failed");
			return i;
		}
		sq->q->xrcd = 1;
		memset(&a[side], 0, sizeof(a[side]));
		a[side].pkey = SROCE_DEFAULT_PKEY;
		a[side].qkey = 0x11111111;
		a[side].qp_access_flags = SROCE_ACCESS_LOCAL_WRITE |
			SROCE_ACCESS_REMOTE_WRITE | SROCE_ACCESS_REMOTE_READ |
			SROCE_ACCESS_REMOTE_ATOMIC |
			SROCE_ACCESS_FLUSH_GLOBAL |
			SROCE_ACCESS_FLUSH_PERSISTENT;
		a[side].path_mtu = (u8)s->o.mtu;
		a[side].dest_qp_num = s->qpn_base[!side] + i;
		a[side].rq_psn = psn[!side];
		a[side].sq_psn = psn[side];
		a[side].max_rd_atomic = (u8)s->o.rd_atomic;
		a[side].max_dest_rd_atomic = (u8)s->o.rd_atomic;
		a[side].min_rnr_timer = s->o.min_rnr_timer;
		a[side].timeout = s->o.timeout;
		a[side].retry_cnt = s->o.retry_cnt;
		a[side].rnr_retry = s->o.rnr_retry;
		a[side].port_num = 1;
	}
	/* realloc moved the array: re-point every QP's back pointer. */
	for (side = 0; side < 2; side++) {
		u32 j;

		for (j = 0; j < s->nqp; j++)
			if (s->qp[side][j].q)
				s->qp[side][j].q->user = &s->qp[side][j];
	}
	for (side = 0; side < 2; side++)
		if (sroce_ep_qp_connect(s->qp[side][i].q, &a[side], s->now))
			sim_fail(s, "qp %u side %u: connect failed", i, side);
	return i;
}

/* ODP: the glue finds a page not present and faults it in for later. */
static bool sim_absent(void *arg)
{
	struct sim *s = arg;

	return sroce_rng_ppm(&s->arng, s->o.absent_ppm);
}

int sim_setup(struct sim *s, const struct sim_opts *o)
{
	int mtu, ipv6;
	u32 side, rd;
	bool rd_max;

	memset(s, 0, sizeof(*s));
	s->o = *o;
	sroce_rng_derive(&s->rng, o->seed, 1, 0);
	sroce_rng_derive(&s->erng, o->seed, 3, 0);
	sroce_rng_derive(&s->arng, o->seed, 4, 0);
	/* Always draw, so that fixing them on the command line replays. */
	mtu = 1 + (int)sroce_rng_below(&s->rng, 5);
	ipv6 = (int)sroce_rng_below(&s->rng, 2);
	rd = 1 + (u32)sroce_rng_below(&s->rng, SROCE_MAX_RD_ATOMIC);
	rd_max = !sroce_rng_below(&s->rng, 2);
	if (!s->o.rd_atomic)
		s->o.rd_atomic = rd_max ? SROCE_MAX_RD_ATOMIC : rd;
	if (!s->o.mtu)
		s->o.mtu = mtu;
	if (s->o.ipv6 < 0)
		s->o.ipv6 = ipv6;
	sim_evq_init(&s->evq);
	if (o->cc)
		sroce_cc_defaults(&s->cc, o->nic_gbps ? o->nic_gbps * 1000000 :
				  o->link.gbps * 1000000);
	for (side = 0; side < 2; side++) {
		sroce_ep_init(&s->ep[side], sim_emit, s);
		s->ep[side].clock = &s->now;
		s->ep[side].ud_mtu = (u8)s->o.mtu;
		if (o->cc)
			s->ep[side].cc = &s->cc;
		if (s->o.absent_ppm) {
			s->ep[side].absent = sim_absent;
			s->ep[side].absent_arg = s;
		}
		sroce_ep_add_ah(&s->ep[side], !side, s->o.ipv6 > 0);
		s->link[side].cfg = o->link;
		s->link[side].to_side = !side;
		sroce_rng_derive(&s->link[side].rng, o->seed, 2, side);
		/* Scatter the QPNs so nothing depends on them being small. */
		s->qpn_base[side] = 0x11 + (u32)sroce_rng_below(&s->rng,
								 0xfff000);
	}
	return 0;
}

void sim_teardown(struct sim *s)
{
	u32 side, i;

	sim_evq_free(&s->evq);
	for (side = 0; side < 2; side++) {
		for (i = 0; i < s->nqp; i++)
			sroce_ep_qp_destroy(s->qp[side][i].q);
		free(s->qp[side]);
		sroce_ep_destroy(&s->ep[side]);
	}
}
