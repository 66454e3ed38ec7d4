// SPDX-License-Identifier: GPL-2.0
/*
 * The "mcast" scenario: UD multicast through the core's addressing rules
 * (proto/mcast.h) and a fan-out over a group table as the kernel glue
 * does it.  Side 1 has three QPs attached to the group and one not; side
 * 0 sends from an attached QP created with "block self loopback" and from
 * an attached QP without it, and has one more attached receiver.  Every
 * attached QP must get each message exactly once (the sender's own side
 * through the loopback copy), the detached QP and the blocking sender
 * none; a QP with another Q_Key or no receive WQE drops and counts;
 * packets that break the addressing rules are dropped as bad_mcast.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define MC_NQP		4	/* QPs per side */
#define MC_SLOT		128	/* bytes per receive buffer */
#define MC_NRECV	16	/* receive buffers per QP */
#define MC_NMSG		16	/* message ids */
#define MC_QKEY		0x11111111u	/* sim_add_pair's */
#define MC_LEN		32

struct sim_mcast {
	bool member[2][MC_NQP];
	bool block[2][MC_NQP];
	u32 ah[2];			/* each side's AH to the group */
	u8 *mem[2];
	u32 key[2];
	u64 iova[2];
	u32 next[2][MC_NQP];		/* next receive buffer */
	u32 got[2][MC_NQP][MC_NMSG];	/* receive completions per id */
	u32 bad_cqe;
};

bool sim_mcast_ah(const struct sim *s, u8 side, u32 ah)
{
	return s->mc && ah == s->mc->ah[side];
}

void sim_mcast_rx(struct sim *s, u8 side, const struct sroce_pkt *pkt,
		  const struct sroce_ep_rx *rx, bool looped)
{
	struct sim_mcast *m = s->mc;
	struct sim_qp *sq;
	int r;
	u32 i;

	for (i = 0; i < MC_NQP && i < s->nqp; i++) {
		if (!m->member[side][i])
			continue;
		sq = &s->qp[side][i];
		if (sroce_mcast_skip_self(pkt, sq->q->qp.qpn, m->block[side][i],
					  looped))
			continue;
		r = sroce_qp_rx(&sq->q->qp, pkt, rx, SROCE_NOW_LAZY);
		if (r)
			s->st.drops[r < SROCE_DROP_MAX ? r : 0]++;
		sim_service(s, sq);
	}
}

/* wr_id of a receive: side, QP, buffer. */
static u64 mc_wr_id(u8 side, u32 idx, u32 slot)
{
	return (u64)side << 32 | idx << 16 | slot;
}

static void mc_cqe(struct sim *s, struct sim_qp *sq, const struct sroce_cqe *c)
{
	struct sim_mcast *m = s->mc;
	u32 slot = c->wr_id & 0xffff, id;
	const u8 *buf;

	if (!c->is_recv)
		return;
	if (c->status != SROCE_WC_SUCCESS ||
	    c->byte_len != SROCE_GRH_LEN + MC_LEN || slot >= MC_NRECV ||
	    sq->idx >= MC_NQP) {
		m->bad_cqe++;
		return;
	}
	buf = m->mem[sq->side] + (sq->idx * MC_NRECV + slot) * MC_SLOT;
	id = sroce_get_be32(buf + SROCE_GRH_LEN);
	if (id >= MC_NMSG) {
		m->bad_cqe++;
		return;
	}
	m->got[sq->side][sq->idx][id]++;
}

static void mc_post_recv(struct sim *s, u8 side, u32 idx, u32 n)
{
	struct sim_mcast *m = s->mc;
	struct sroce_recv_wqe r;
	u32 i, slot;

	for (i = 0; i < n; i++) {
		slot = m->next[side][idx]++ % MC_NRECV;
		memset(&r, 0, sizeof(r));
		r.wr_id = mc_wr_id(side, idx, slot);
		r.num_sge = 1;
		r.sge[0].addr = m->iova[side] +
				(idx * MC_NRECV + slot) * MC_SLOT;
		r.sge[0].length = MC_SLOT;
		r.sge[0].lkey = m->key[side];
		sroce_ep_post_recv(s->qp[side][idx].q, &r);
	}
}

/* Send message @id from QP @idx of side 0 to @dqpn through AH @ah. */
static void mc_send(struct sim *s, u32 idx, u32 id, u32 ah, u32 dqpn)
{
	struct sim_mcast *m = s->mc;
	u32 off = (MC_NQP * MC_NRECV + idx) * MC_SLOT;
	struct sroce_send_wqe w;

	sroce_put_be32(m->mem[0] + off, id);
	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = SROCE_WR_SEND;
	w.send_flags = SROCE_SEND_SIGNALED;
	w.num_sge = 1;
	w.sge[0].addr = m->iova[0] + off;
	w.sge[0].length = MC_LEN;
	w.sge[0].lkey = m->key[0];
	w.ud.ah = ah;
	w.ud.remote_qpn = dqpn;
	w.ud.remote_qkey = MC_QKEY;
	sroce_ep_post_send(s->qp[0][idx].q, &w);
	sim_service(s, &s->qp[0][idx]);
	/* One message at a time: its copies are all placed before the next. */
	sim_run(s, NULL, s->now + 1000000);
}

/* Each QP of each side got message @id exactly @want[side][qp] times. */
static void mc_expect(struct sim *s, u32 id, const u32 want[2][MC_NQP])
{
	u32 side, i;

	for (side = 0; side < 2; side++)
		for (i = 0; i < MC_NQP; i++)
			if (s->mc->got[side][i][id] != want[side][i])
				sim_fail(s, "mcast: message %u reached side %u QP %u %u times, expected %u",
					 id, side, i, s->mc->got[side][i][id],
					 want[side][i]);
}

static void mc_expect_drops(struct sim *s, const u64 *before,
			    enum sroce_drop why, u64 n)
{
	if (s->st.drops[why] - before[why] != n)
		sim_fail(s, "mcast: %llu %s drops, expected %llu",
			 (unsigned long long)(s->st.drops[why] - before[why]),
			 sroce_drop_name(why), (unsigned long long)n);
}

static void mc_scenario(struct sim *s)
{
	struct sim_mcast *m = s->mc;
	u64 before[SROCE_DROP_MAX];
	struct sroce_qp_attr a;
	u32 want[2][MC_NQP];
	u32 side, i, id;

	for (side = 0; side < 2; side++) {
		for (i = 0; i < MC_NQP; i++)
			if (i < 3 || side == 0)
				mc_post_recv(s, side, i, 8);
	}
	/* Side 1: QPs 0-2 attached, 3 not.  Side 0: 0 (blocks self), 1, 2. */
	for (i = 0; i < 3; i++) {
		m->member[1][i] = true;
		m->member[0][i] = true;
	}
	m->block[0][0] = true;

	/* From the blocking sender: not to itself, once to each other. */
	memset(want, 0, sizeof(want));
	want[1][0] = want[1][1] = want[1][2] = 1;
	want[0][1] = want[0][2] = 1;
	for (id = 0; id < 4 && !s->failed; id++) {
		mc_send(s, 0, id, m->ah[0], SROCE_MCAST_QPN);
		mc_expect(s, id, want);
	}
	/* From QP 2, which does not block: it gets its own copy too. */
	want[0][0] = 1;
	want[0][2] = 1;
	for (id = 4; id < 8 && !s->failed; id++) {
		mc_send(s, 2, id, m->ah[0], SROCE_MCAST_QPN);
		mc_expect(s, id, want);
	}
	if (s->failed)
		return;

	/*
	 * Side 1: QP 0 has no receive WQE left, QP 1 changes its Q_Key,
	 * QP 2 gets two more WQEs; side 0 detaches QP 1, and QP 2 gets two
	 * more WQEs.
	 */
	memcpy(before, s->st.drops, sizeof(before));
	memset(&a, 0, sizeof(a));
	a.qkey = 0x22222222;
	if (sroce_qp_modify(&s->qp[1][1].q->qp, &a, SROCE_QP_QKEY, s->now))
		sim_fail(s, "mcast: modify Q_Key failed");
	mc_post_recv(s, 1, 2, 2);
	mc_post_recv(s, 0, 2, 2);
	m->member[0][1] = false;
	memset(want, 0, sizeof(want));
	want[1][2] = 1;
	want[0][2] = 1;
	for (id = 8; id < 10 && !s->failed; id++) {
		mc_send(s, 0, id, m->ah[0], SROCE_MCAST_QPN);
		mc_expect(s, id, want);
	}
	mc_expect_drops(s, before, SROCE_DROP_NO_RESOURCE, 2);
	mc_expect_drops(s, before, SROCE_DROP_BAD_QKEY, 2);

	/*
	 * Addressing: DestQP 0xFFFFFF to the peer's unicast address, and a
	 * real DestQP to the group.  Nobody receives either.
	 */
	memcpy(before, s->st.drops, sizeof(before));
	memset(want, 0, sizeof(want));
	mc_send(s, 3, 10, 0, SROCE_MCAST_QPN);
	mc_expect(s, 10, want);
	mc_send(s, 3, 11, m->ah[0], s->qp[1][2].q->qp.qpn);
	mc_expect(s, 11, want);
	/* Both on the wire; the group copy of the second also loops back. */
	mc_expect_drops(s, before, SROCE_DROP_BAD_MCAST, 3);

	for (side = 0; side < 2; side++)
		for (i = 0; i < MC_NQP; i++)
			if (s->qp[side][i].q->qp.state != SROCE_QPS_RTS)
				sim_fail(s, "mcast: side %u QP %u left RTS",
					 side, i);
	if (m->bad_cqe)
		sim_fail(s, "mcast: %u bad receive completions", m->bad_cqe);
}

int sim_mcast(struct sim *s)
{
	struct sim_mcast *m;
	u32 side, size = (MC_NQP * MC_NRECV + MC_NQP) * MC_SLOT;

	m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	s->mc = m;
	s->on_cqe = mc_cqe;
	/* Multicast is not reliable: exact counts need a clean wire. */
	for (side = 0; side < 2; side++) {
		memset(&s->link[side].cfg, 0, sizeof(s->link[side].cfg));
		s->link[side].cfg.delay_ns = 2000;
		m->mem[side] = calloc(1, size);
		if (!m->mem[side])
			abort();
		m->iova[side] = 0x7f0000200000ull;
		m->key[side] = sroce_ep_reg_mr(&s->ep[side], 1, m->mem[side],
					       m->iova[side], size,
					       SROCE_ACCESS_LOCAL_WRITE);
		m->ah[side] = sroce_ep_add_ah(&s->ep[side], !side,
					      s->o.ipv6 > 0);
	}
	for (side = 0; side < MC_NQP; side++)
		sim_add_pair(s, SROCE_QPT_UD, 64);
	if (!s->failed)
		mc_scenario(s);
	for (side = 0; side < 2; side++) {
		sroce_ep_dereg_mr(&s->ep[side], m->key[side]);
		free(m->mem[side]);
	}
	free(m);
	s->mc = NULL;
	s->on_cqe = NULL;
	return s->failed ? 1 : 0;
}
