/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulator's network: a frame pool, a time-ordered event queue and
 * a lossy link model.  Frames are real RoCEv2 datagrams (IPv4 or IPv6,
 * UDP to 4791, transport headers, payload, pad, ICRC) so that corruption
 * is caught by the same ICRC check the kernel glue performs.
 */
#ifndef SROCE_SIM_LINK_H
#define SROCE_SIM_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "os.h"
#include "rng.h"

/* Largest frame: IPv6 + UDP + headers + 4096 payload + pad + ICRC. */
#define SIM_FRAME_MAX	(40 + 8 + 64 + 4096 + 4 + 4)

struct sim_frame {
	struct sim_frame *next;		/* free list */
	u32 len;			/* bytes from the IP header on */
	u8 ipv6;
	u8 cls;				/* size class */
	u8 corrupted;			/* damaged by the link */
	u8 looped;			/* multicast looped back to its sender's side */
	u8 ect;				/* IP ECN field ECT(0): may be marked */
	u8 ce;				/* ... and marked CE by the switch */
	u64 depart;			/* left the switch's queue */
	u8 data[];
};

/*
 * A frame with room for @len bytes, from per-size free lists: ACKs take
 * 256 bytes, not a full 4 KiB frame, which keeps the working set small.
 */
struct sim_frame *sim_frame_get(u32 len);
void sim_frame_put(struct sim_frame *f);
/* Frames currently handed out (a leak check for the end of a run). */
long sim_frames_live(void);

/*
 * Event queue.  Ties in time are broken by insertion order, so a run is
 * a pure function of its seed.
 */
enum sim_ev_type {
	SIM_EV_FRAME,		/* deliver .frame to side .side */
	SIM_EV_TIMER,		/* QP .idx of side .side: its deadline */
	SIM_EV_ACTION,		/* scenario callback, .idx is its argument */
	SIM_EV_KICK,		/* QP .idx of side .side: transmit again */
};

struct sim_ev {
	u64 t;
	u64 seq;
	u8 type;
	u8 side;
	u32 idx;
	struct sim_frame *frame;
};

struct sim_evq {
	struct sim_ev *ev;
	u32 n, cap;
	u64 seq;
};

void sim_evq_init(struct sim_evq *q);
void sim_evq_free(struct sim_evq *q);
void sim_evq_push(struct sim_evq *q, const struct sim_ev *e);
bool sim_evq_pop(struct sim_evq *q, struct sim_ev *e);
static inline bool sim_evq_empty(const struct sim_evq *q)
{
	return !q->n;
}

/* What the link does to each frame; probabilities in parts per million. */
struct sim_link_cfg {
	u32 loss_ppm;
	u32 dup_ppm;
	u32 reorder_ppm;	/* extra delay of up to reorder_ns */
	u32 corrupt_ppm;	/* flip 1..3 bits covered by the ICRC */
	u64 delay_ns;		/* one-way propagation */
	u64 jitter_ns;		/* uniform extra, keeps order only by luck */
	u64 reorder_ns;
	u64 gbps;		/* serialization rate; 0 = infinite */
	bool dead;		/* drop everything (retry exhaustion) */
	u64 drop_nth;		/* drop the frame sent as this one (1-based) */
	/*
	 * A switch in front of the wire (needs gbps): a FIFO of buf_bytes
	 * that tail-drops, and marks ECT frames CE when they leave it
	 * (sim_link_mark), with a probability rising linearly from 0 at
	 * kmin to pmax_ppm at kmax queued bytes and always above kmax (RED
	 * as DCQCN configures it).  0: no limit.
	 */
	u64 buf_bytes;
	u64 kmin, kmax;
	u32 pmax_ppm;
};

struct sim_link_stats {
	u64 sent, delivered, lost, dup, reordered, corrupted;
	u64 bytes;
	/* the switch: tail drops, CE marks, queue depth seen by arrivals */
	u64 qdrops, marked, qmax, qsum, qn;
};

/* One direction of the link. */
struct sim_link {
	struct sim_link_cfg cfg;
	struct sim_link_stats st;
	struct sroce_rng rng;
	u64 busy_until;		/* serialization: when the wire frees up */
	u64 last_t;		/* latest in-order delivery time */
	u8 to_side;
};

/*
 * Put @f on the wire at @now: it is delivered (maybe late, twice,
 * corrupted) through @q, or dropped and returned to the pool.  Returns
 * true if it was lost or corrupted.
 */
bool sim_link_send(struct sim_link *l, struct sim_evq *q, u64 now,
		   struct sim_frame *f);

/*
 * The switch's ECN marking as @f, delivered at @now, left its queue:
 * by the bytes queued behind it then (frames that arrived during the
 * propagation delay included, a slight overestimate).
 */
void sim_link_mark(struct sim_link *l, struct sim_frame *f);

/* Which FLUSH ICRCs a side accepts and sends (icrc.h, req.c). */
enum sim_icrc {
	SIM_ICRC_IBA,	/* the IBA's only, as RoCE NICs: the default */
	SIM_ICRC_SROCE,	/* rdma_rxe's FLUSH variant too, as kernel/net.c */
	SIM_ICRC_RXE,	/* rdma_rxe: FLUSHes in its variant only, both ways */
};

/*
 * Encapsulation.  sim_encap_hdr writes IP and UDP headers for a RoCE
 * payload of @roce_len bytes (BTH to ICRC inclusive) and returns the
 * offset of the BTH; sim_encap_icrc fills in the ICRC once the rest of
 * the frame is in place, in rdma_rxe's FLUSH variant if @rxe_flush.
 */
u32 sim_encap_hdr(struct sim_frame *f, bool ipv6, u32 roce_len, u16 sport,
		  u8 src_side);
void sim_encap_icrc(struct sim_frame *f, bool rxe_flush);
/*
 * Multicast: send @f (headers written, ICRC not yet) to the simulated
 * group, 239.1.2.3 or ff0e::1:2:3, instead of the peer.  sim_frame_gids
 * reads a frame's source and destination as GIDs (IPv4-mapped for IPv4),
 * as the receive glue fills them into struct sroce_pkt.
 */
void sim_encap_to_group(struct sim_frame *f);
void sim_frame_gids(const struct sim_frame *f, u8 *sgid, u8 *dgid);

/*
 * What the receive glue does before the core sees a frame: IP and UDP
 * sanity, then the ICRC as a receiver of enum sim_icrc @icrc checks it.
 * On success sets *bth and *len to the RoCE part (BTH to ICRC inclusive)
 * and returns SROCE_DROP_NONE.
 */
int sim_decap(const struct sim_frame *f, u8 icrc, const u8 **bth, u32 *len);

#endif /* SROCE_SIM_LINK_H */
