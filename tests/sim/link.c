// SPDX-License-Identifier: GPL-2.0
/*
 * Frame pool, event queue and the lossy link of the simulator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drop.h"
#include "icrc.h"
#include "wire.h"
#include "link.h"

/* Frames are recycled through free lists: no malloc per packet. */
static const u32 frame_cls[] = { 256, 640, 1152, 2176, SIM_FRAME_MAX };
static struct sim_frame *frame_free[ARRAY_SIZE(frame_cls)];
static long frame_live;

struct sim_frame *sim_frame_get(u32 len)
{
	struct sim_frame *f;
	u8 c = 0;

	while (frame_cls[c] < len && c + 1u < ARRAY_SIZE(frame_cls))
		c++;
	f = frame_free[c];
	if (f) {
		frame_free[c] = f->next;
	} else {
		f = malloc(sizeof(*f) + frame_cls[c]);
		if (!f) {
			fprintf(stderr, "sim: out of memory\n");
			exit(2);
		}
		f->cls = c;
	}
	f->next = NULL;
	f->len = 0;
	f->corrupted = 0;
	f->looped = 0;
	f->ect = 0;
	f->ce = 0;
	frame_live++;
	return f;
}

void sim_frame_put(struct sim_frame *f)
{
	f->next = frame_free[f->cls];
	frame_free[f->cls] = f;
	frame_live--;
}

long sim_frames_live(void)
{
	return frame_live;
}

/* Binary min-heap on (t, seq). */
static bool ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void sim_evq_init(struct sim_evq *q)
{
	memset(q, 0, sizeof(*q));
}

void sim_evq_free(struct sim_evq *q)
{
	struct sim_ev e;

	while (sim_evq_pop(q, &e))
		if (e.frame)
			sim_frame_put(e.frame);
	free(q->ev);
	memset(q, 0, sizeof(*q));
}

void sim_evq_push(struct sim_evq *q, const struct sim_ev *e)
{
	struct sim_ev t;
	u32 i, p;

	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 1024;
		q->ev = realloc(q->ev, q->cap * sizeof(*q->ev));
		if (!q->ev) {
			fprintf(stderr, "sim: out of memory\n");
			exit(2);
		}
	}
	i = q->n++;
	q->ev[i] = *e;
	q->ev[i].seq = q->seq++;
	while (i) {
		p = (i - 1) / 2;
		if (!ev_before(&q->ev[i], &q->ev[p]))
			break;
		t = q->ev[i];
		q->ev[i] = q->ev[p];
		q->ev[p] = t;
		i = p;
	}
}

bool sim_evq_pop(struct sim_evq *q, struct sim_ev *e)
{
	u32 i = 0, c;
	struct sim_ev last;

	if (!q->n)
		return false;
	*e = q->ev[0];
	last = q->ev[--q->n];
	for (;;) {
		c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && ev_before(&q->ev[c + 1], &q->ev[c]))
			c++;
		if (!ev_before(&q->ev[c], &last))
			break;
		q->ev[i] = q->ev[c];
		i = c;
	}
	if (q->n)
		q->ev[i] = last;
	return true;
}

/*
 * Corrupt @f so that the damage lies in bytes the ICRC covers: the BTH
 * and everything after it, except BTH byte 4 (FECN/BECN/reserved), which
 * the ICRC masks.  Now and then truncate instead.
 */
static void corrupt(struct sim_link *l, struct sim_frame *f)
{
	u32 bth = f->ipv6 ? 48 : 28;
	u32 n, i, k, off, bit, pos[3];

	if (f->len <= bth + 8)
		return;
	if (!sroce_rng_below(&l->rng, 8)) {
		/*
		 * A truncation with consistent IP/UDP lengths, as if a
		 * middlebox cut it: only the ICRC can tell.
		 */
		f->len -= 1 + (u32)sroce_rng_below(&l->rng,
						   f->len - bth - 1);
		sim_encap_hdr(f, f->ipv6, f->len - bth, sroce_get_be16(
			      f->data + bth - 8), f->data[f->ipv6 ? 23 : 15] - 1);
		return;
	}
	/* 1..3 distinct bits: flipping one twice would undo the damage */
	n = 1 + (u32)sroce_rng_below(&l->rng, 3);
	for (i = 0; i < n; i++) {
		do {
			off = bth + (u32)sroce_rng_below(&l->rng,
							 f->len - bth);
			bit = (u32)sroce_rng_below(&l->rng, 8);
			for (k = 0; k < i; k++)
				if (pos[k] == off * 8 + bit)
					break;
		} while (off == bth + 4 || k < i);
		pos[i] = off * 8 + bit;
		f->data[off] ^= 1u << bit;
	}
}

static void deliver(struct sim_link *l, struct sim_evq *q, u64 t,
		    struct sim_frame *f)
{
	struct sim_ev e = {
		.t = t,
		.type = SIM_EV_FRAME,
		.side = l->to_side,
		.frame = f,
	};

	sim_evq_push(q, &e);
}

bool sim_link_send(struct sim_link *l, struct sim_evq *q, u64 now,
		   struct sim_frame *f)
{
	const struct sim_link_cfg *c = &l->cfg;
	u64 t = now;
	struct sim_frame *d;
	bool bad;

	l->st.sent++;
	l->st.bytes += f->len;
	if (c->gbps && c->buf_bytes) {
		/* Bytes ahead of this frame: the wire's backlog. */
		u64 qb = l->busy_until > now ?
			 (l->busy_until - now) * c->gbps / 8 : 0;

		l->st.qn++;
		l->st.qsum += qb;
		if (qb > l->st.qmax)
			l->st.qmax = qb;
		if (qb + f->len > c->buf_bytes) {
			l->st.qdrops++;
			sim_frame_put(f);
			return true;
		}
	}
	if (c->gbps) {
		/* bits / (Gbit/s) = ns */
		u64 ser = ((u64)f->len * 8 + c->gbps - 1) / c->gbps;

		if (l->busy_until > t)
			t = l->busy_until;
		t += ser;
		l->busy_until = t;
	}
	f->depart = t;
	if (c->dead || l->st.sent == c->drop_nth ||
	    sroce_rng_ppm(&l->rng, c->loss_ppm)) {
		l->st.lost++;
		sim_frame_put(f);
		return true;
	}
	t += c->delay_ns;
	if (c->jitter_ns)
		t += sroce_rng_below(&l->rng, c->jitter_ns + 1);
	if (sroce_rng_ppm(&l->rng, c->reorder_ppm)) {
		/* Held back: later frames overtake it. */
		l->st.reordered++;
		t += 1 + sroce_rng_below(&l->rng, c->reorder_ns + 1);
	} else {
		/* Jitter varies the delay but a link keeps order. */
		if (t < l->last_t)
			t = l->last_t;
		l->last_t = t;
	}
	if (sroce_rng_ppm(&l->rng, c->dup_ppm)) {
		l->st.dup++;
		d = sim_frame_get(f->len);
		d->len = f->len;
		d->ipv6 = f->ipv6;
		d->ect = f->ect;
		d->ce = f->ce;
		memcpy(d->data, f->data, f->len);
		/* The copy trails by up to a few RTTs' worth of delay. */
		deliver(l, q, t + sroce_rng_below(&l->rng,
						  4 * c->delay_ns + 1000), d);
	}
	bad = sroce_rng_ppm(&l->rng, c->corrupt_ppm);
	if (bad) {
		l->st.corrupted++;
		corrupt(l, f);
		f->corrupted = 1;
	}
	l->st.delivered++;
	deliver(l, q, t, f);
	return bad;
}

void sim_link_mark(struct sim_link *l, struct sim_frame *f)
{
	const struct sim_link_cfg *c = &l->cfg;
	u64 qb, p;

	if (!f->ect || !c->buf_bytes || !c->gbps)
		return;
	qb = l->busy_until > f->depart ?
	     (l->busy_until - f->depart) * c->gbps / 8 : 0;
	if (qb <= c->kmin)
		return;
	p = qb >= c->kmax ? 1000000 :
	    c->pmax_ppm * (qb - c->kmin) / (c->kmax - c->kmin);
	if (sroce_rng_ppm(&l->rng, (u32)p)) {
		f->ce = 1;
		l->st.marked++;
	}
}

/* RFC 1071 checksum of an IPv4 header. */
static u16 ip_csum(const u8 *p, u32 len)
{
	u32 sum = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		sum += sroce_get_be16(p + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

u32 sim_encap_hdr(struct sim_frame *f, bool ipv6, u32 roce_len, u16 sport,
		  u8 src_side)
{
	u8 *p = f->data;
	u32 l3;

	f->ipv6 = ipv6;
	if (ipv6) {
		/* 2001:db8::1 <-> 2001:db8::2 */
		memset(p, 0, 40);
		p[0] = 0x60;
		sroce_put_be16(p + 4, (u16)(8 + roce_len));
		p[6] = 17;
		p[7] = 64;
		p[8] = 0x20; p[9] = 0x01; p[10] = 0x0d; p[11] = 0xb8;
		p[23] = 1 + src_side;
		p[24] = 0x20; p[25] = 0x01; p[26] = 0x0d; p[27] = 0xb8;
		p[39] = 2 - src_side;
		l3 = 40;
	} else {
		/* 192.0.2.1 <-> 192.0.2.2, DF, no options */
		memset(p, 0, 20);
		p[0] = 0x45;
		sroce_put_be16(p + 2, (u16)(20 + 8 + roce_len));
		sroce_put_be16(p + 6, 0x4000);
		p[8] = 64;
		p[9] = 17;
		p[12] = 192; p[13] = 0; p[14] = 2; p[15] = 1 + src_side;
		p[16] = 192; p[17] = 0; p[18] = 2; p[19] = 2 - src_side;
		sroce_put_be16(p + 10, ip_csum(p, 20));
		l3 = 20;
	}
	sroce_put_be16(p + l3, sport);
	sroce_put_be16(p + l3 + 2, SROCE_UDP_PORT);
	sroce_put_be16(p + l3 + 4, (u16)(8 + roce_len));
	sroce_put_be16(p + l3 + 6, 0);
	f->len = l3 + 8 + roce_len;
	return l3 + 8;
}

void sim_encap_icrc(struct sim_frame *f, bool rxe_flush)
{
	u32 bth = f->ipv6 ? 48 : 28;
	u32 crc = sroce_icrc_begin(f->data, f->ipv6);

	crc = sroce_icrc_update(crc, f->data + bth + SROCE_BTH_LEN,
				f->len - bth - SROCE_BTH_LEN - SROCE_ICRC_LEN);
	if (rxe_flush)	/* a FLUSH has no payload: its headers run to here */
		crc = sroce_icrc_rxe_flush_extend(crc, f->data + bth,
						  f->len - bth - SROCE_ICRC_LEN);
	sroce_icrc_put(f->data + f->len - SROCE_ICRC_LEN,
		       sroce_icrc_final(crc));
}

void sim_encap_to_group(struct sim_frame *f)
{
	u8 *p = f->data;

	if (f->ipv6) {
		memset(p + 24, 0, 16);
		p[24] = 0xff;
		p[25] = 0x0e;
		p[37] = 1;
		p[38] = 2;
		p[39] = 3;
		return;
	}
	p[16] = 239; p[17] = 1; p[18] = 2; p[19] = 3;
	sroce_put_be16(p + 10, 0);
	sroce_put_be16(p + 10, ip_csum(p, 20));
}

static void sim_gid_of(const u8 *addr, bool ipv6, u8 *gid)
{
	if (ipv6) {
		memcpy(gid, addr, 16);
		return;
	}
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, addr, 4);
}

void sim_frame_gids(const struct sim_frame *f, u8 *sgid, u8 *dgid)
{
	sim_gid_of(f->data + (f->ipv6 ? 8 : 12), f->ipv6, sgid);
	sim_gid_of(f->data + (f->ipv6 ? 24 : 16), f->ipv6, dgid);
}

/*
 * Whether a receiver of enum sim_icrc @icrc takes the RoCE frame @p of
 * @len bytes, its BTH at @l3 + 8, on its ICRC.
 */
static bool sim_icrc_ok(const u8 *p, u32 len, bool ipv6, u32 l3, u8 icrc)
{
	const struct sroce_opinfo *op = sroce_opinfo(p[l3 + 8]);
	bool flush = op && (op->flags & SROCE_OPF_FLUSH);

	if (icrc == SIM_ICRC_RXE && flush)
		return sroce_icrc_check_rxe_flush(p, len, ipv6);
	if (sroce_icrc_check(p, len, ipv6))
		return true;
	return icrc == SIM_ICRC_SROCE &&
	       sroce_icrc_check_rxe_flush(p, len, ipv6);
}

int sim_decap(const struct sim_frame *f, u8 icrc, const u8 **bth, u32 *len)
{
	const u8 *p = f->data;
	u32 l3, ulen;

	if (f->ipv6) {
		if (f->len < 48 || (p[0] >> 4) != 6 || p[6] != 17 ||
		    sroce_get_be16(p + 4) != f->len - 40)
			return SROCE_DROP_TRUNCATED;
		l3 = 40;
	} else {
		if (f->len < 28 || p[0] != 0x45 || p[9] != 17 ||
		    sroce_get_be16(p + 2) != f->len || ip_csum(p, 20))
			return SROCE_DROP_TRUNCATED;
		l3 = 20;
	}
	ulen = sroce_get_be16(p + l3 + 4);
	if (sroce_get_be16(p + l3 + 2) != SROCE_UDP_PORT ||
	    ulen != f->len - l3 || ulen < 8 + SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return SROCE_DROP_TRUNCATED;
	if (!sim_icrc_ok(p, f->len, f->ipv6, l3, icrc))
		return SROCE_DROP_BAD_ICRC;
	*bth = p + l3 + 8;
	*len = ulen - 8;
	return SROCE_DROP_NONE;
}
