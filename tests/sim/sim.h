/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The deterministic simulator: two endpoints with many QPs each, joined
 * by a lossy link (link.h), driven by virtual time.  A run is a pure
 * function of (seed, options): any failure prints the command line that
 * reproduces it.
 */
#ifndef SROCE_SIM_H
#define SROCE_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "endpoint.h"
#include "link.h"
#include "mcast.h"
#include "rng.h"

struct sim_opts {
	u64 seed;
	const char *scenario;	/* "random" or an error-path scenario */
	u32 nqp;		/* QP pairs */
	u32 msgs;		/* messages in the run, both directions */
	u32 max_size;		/* largest message */
	int mtu;		/* ib_mtu enum; 0 = pick from the seed */
	int ipv6;		/* -1 = pick from the seed */
	u32 types;		/* bit per SROCE_QPT_*: 0 = RC only */
	u32 depth;		/* outstanding WQEs per flow */
	u32 late_recv_ppm;	/* RC receives posted late (RNR) */
	u32 rd_atomic;		/* max_rd_atomic = max_dest_rd_atomic; 0: seed */
	u32 emit_busy_ppm;	/* emit() refuses: the TX queue is full */
	u64 emit_busy_ns;	/* for up to this long (0: 5.5 us) */
	u32 absent_ppm;		/* a copy finds memory not present (ODP) */
	u8 timeout, retry_cnt, rnr_retry, min_rnr_timer;
	struct sim_link_cfg link;
	/* Per-sender NIC rate: emit refuses while the last frame serialises. */
	u64 nic_gbps;
	bool cc;		/* DCQCN on: ECT frames, CNPs, rate limiting */
	/*
	 * Each side's QPs do not share SROCE_DEV_INFLIGHT, as the kernel's
	 * on one device do (sim_service): each stands for its own host.
	 */
	bool no_share;
	u8 icrc[2];		/* enum sim_icrc of each side */
	bool verbose;
	u32 trace;		/* 1 + index of a QP pair to trace */
};

/* The simulator's view of one QP. */
struct sim_qp {
	struct sroce_ep_qp *q;
	u8 side;
	u32 idx;
	u64 armed;		/* deadline an event is queued for */
	struct sim_flow *tx;	/* flow this QP sends */
	struct sim_flow *rx;	/* flow this QP receives */
	bool broken;		/* pair legitimately failed (loss) */
	u64 tx_busy_until;	/* emit() refuses until then */
	u64 lost_since_ok;	/* frames of this pair lost since progress */
	u64 peer_busy_ns;	/* ... and time the peer could not send */
};

struct sim;
typedef void (*sim_action_fn)(struct sim *s, u32 arg);

struct sim_stats {
	u64 rx_frames, rx_bad_frame;
	u64 drops[SROCE_DROP_MAX];
	u64 msgs, bytes, cqes;
	u64 atomic_writes, flushes;	/* RC, completed and checked */
	u64 retry_exc_legit;
	u64 ud_dups, uc_late, lost_msgs;
	u64 emit_busy;
	u64 events;
};

struct sim {
	struct sim_opts o;
	struct sroce_rng rng;
	struct sroce_rng erng;		/* emit refusals */
	struct sroce_rng arng;		/* memory not present */
	struct sim_evq evq;
	struct sim_link link[2];	/* link[s]: frames sent by side s */
	struct sroce_ep ep[2];
	struct sim_qp *qp[2];
	u32 nqp;
	u32 qpn_base[2];
	u64 now;
	struct sim_stats st;
	u32 failed;
	char fail_msg[512];
	sim_action_fn action;
	bool srq1;			/* new side-1 QPs receive from its SRQ */
	/* Completion consumers: the workload's or a scenario's. */
	void (*on_cqe)(struct sim *s, struct sim_qp *sq,
		       const struct sroce_cqe *c);
	void *wl;			/* workload state */
	struct sim_mcast *mc;		/* mcast.c's group, or NULL */
	struct sroce_cc_params cc;	/* when o.cc */
};

void sim_fail(struct sim *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Build the endpoints and @nqp connected QP pairs of @type. */
int sim_setup(struct sim *s, const struct sim_opts *o);
void sim_teardown(struct sim *s);
/* Add one QP pair of @type; returns its index. */
u32 sim_add_pair(struct sim *s, enum sroce_qp_type type, u32 sq_size);

/* Run the core on a QP after anything happened to it. */
void sim_service(struct sim *s, struct sim_qp *sq);
/* Process events until @done(s) or the queue empties or @limit passes. */
void sim_run(struct sim *s, bool (*done)(struct sim *s), u64 limit);
void sim_at(struct sim *s, u64 t, u32 arg);

/* The random workload (workload.c). */
int sim_random(struct sim *s);
/* Error-path scenarios (scenario.c); -1 if @name is unknown. */
int sim_scenario(struct sim *s, const char *name);

/*
 * UD multicast (mcast.c): the "mcast" scenario, and the glue sim.c calls
 * while one runs: whether a UD send's AH names the group, and the
 * fan-out of a received multicast packet to the QPs of its side that are
 * attached, each once, as the kernel's mcast.c does.
 */
int sim_mcast(struct sim *s);
bool sim_mcast_ah(const struct sim *s, u8 side, u32 ah);
void sim_mcast_rx(struct sim *s, u8 side, const struct sroce_pkt *pkt,
		  const struct sroce_ep_rx *rx, bool looped);
extern const char *const sim_scenarios[];

/*
 * Congestion control (cc.c): incast and a long flow meeting a burst
 * through a switch queue, CC on and off; prints the table, fails a run
 * that misses the targets.  Returns runs done and counts failures.
 */
u32 sim_cc_suite(bool full, u64 seed, u32 *failed);

#endif /* SROCE_SIM_H */
