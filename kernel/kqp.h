/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals shared by the QP glue: qp.c (the verbs), qp_post.c (kernel
 * post_send/post_recv into the rings), qp_ring.c (WQEs out of the shared
 * rings) and qp_exec.c (running the protocol core: lock, timer, work, the
 * core's side-effect operations).
 */
#ifndef SROCE_KQP_H
#define SROCE_KQP_H

#include "sroce.h"

/*
 * Packets the posting thread sends itself before handing the rest to the
 * work (latency of small messages vs. time spent in post_send), and
 * packets per work pass before the work requeues itself (fairness among
 * QPs; the pass runs with bottom halves disabled).
 */
#define SROCE_KQP_INLINE_BUDGET	16
#define SROCE_KQP_WORK_BUDGET	64
/*
 * Packets an ACK or response may send from the receive softirq: what the
 * window it opened holds, one ACK interval (SROCE_ACKREQ_EVERY).
 */
#define SROCE_KQP_RX_BUDGET	64
/* The network refused a packet: try again this much later, not at once. */
#define SROCE_KQP_TX_RETRY_NS	(50 * NSEC_PER_USEC)
/* Refused for TX room (tx_room.c): woken by a destructor; a safety net. */
#define SROCE_KQP_TX_WAIT_NS	(2 * NSEC_PER_MSEC)

/* kqp->broken: a ring held an impossible index or WQE. */
enum {
	SROCE_KQP_SOUND,
	SROCE_KQP_BROKEN,	/* found inside a core call; not yet acted on */
	SROCE_KQP_ERRORED,	/* moved to ERR, QP_FATAL raised */
};

/* Send flags a WQE may carry, kernel or user. */
#define SROCE_KQP_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

/* qp_ring.c */
int sroce_kqp_next_send(void *ctx, struct sroce_send_wqe *out);
int sroce_kqp_recv_wqe(void *ctx, struct sroce_recv_wqe *out);
bool sroce_kqp_sq_has_more(const struct sroce_kqp *kqp);
void sroce_kqp_rings_reset(struct sroce_kqp *kqp);
void sroce_kqp_sq_discard(struct sroce_kqp *kqp);
void sroce_kqp_sq_set_draining(struct sroce_kqp *kqp, bool on);

/* qp_exec.c */
extern const struct sroce_qp_ops sroce_kqp_core_ops;
void sroce_kqp_exec_init(struct sroce_kqp *kqp);
void sroce_kqp_exec_stop(struct sroce_kqp *kqp);
void sroce_kqp_flush_all(struct sroce_kqp *kqp);
/* @now: the time, or SROCE_NOW_LAZY (read only if the core needs it). */
bool sroce_kqp_kick(struct sroce_kqp *kqp, u32 budget, u64 now);
void sroce_kqp_settle(struct sroce_kqp *kqp, bool more, bool sq_check);
void sroce_kqp_event(struct sroce_kqp *kqp, enum ib_event_type type);
enum sroce_qp_state sroce_kqp_state(const struct sroce_kqp *kqp);

/* GSI is a UD QP with QPN 1. */
static inline bool sroce_kqp_is_ud(const struct sroce_kqp *kqp)
{
	return kqp->ibqp.qp_type == IB_QPT_UD || kqp->ibqp.qp_type == IB_QPT_GSI;
}

/*
 * Lock held, after core calls: keep sdev->senders, the QPs the device's
 * in-flight budget is shared by (sroce_qp_set_senders()), in step.
 */
static inline void sroce_kqp_count_sending(struct sroce_kqp *kqp)
{
	bool sending = !kqp->dying && sroce_qp_sending(&kqp->core);

	if (likely(sending == kqp->sending))
		return;
	kqp->sending = sending;
	if (sending)
		atomic_inc(&kqp->sdev->senders);
	else
		atomic_dec(&kqp->sdev->senders);
}

/* Every call into kqp->core is made between these two. */
static inline void sroce_kqp_lock(struct sroce_kqp *kqp)
	__acquires(&kqp->lock)
{
	rcu_read_lock();
	spin_lock_bh(&kqp->lock);
}

/* kqp->cq_fire: completion handlers due, called after the unlock. */
enum {
	SROCE_KQP_FIRE_SEND = 1,
	SROCE_KQP_FIRE_RECV = 2,
};

/*
 * Drop the QP lock, then call the completion handlers the core's
 * completions made due.  A consumer's handler may poll and post to this
 * QP right away (or call ib_drain_qp's done): it must not find the lock
 * held.  Still inside RCU, so a QP found by lookup cannot go away.
 */
static inline void sroce_kqp_unlock_raw(struct sroce_kqp *kqp)
	__releases(&kqp->lock)
{
	struct sroce_cq *xcq = kqp->xcq_fire;
	u8 fire = kqp->cq_fire;

	kqp->cq_fire = 0;
	sroce_kqp_count_sending(kqp);
	/* Found by this core call; not valid in the next (srq.c). */
	kqp->xsrq = NULL;
	kqp->xcq_fire = NULL;
	/*
	 * Packets built outside a kick (sroce_kqp_kick() sends its own),
	 * unless the receive softirq's tasklet sends them (qp_exec.c).
	 */
	if (!kqp->deferred)
		sroce_net_flush(kqp->sdev, &kqp->burst);
	spin_unlock_bh(&kqp->lock);
	if (fire & SROCE_KQP_FIRE_SEND)
		sroce_cq_notify(to_scq(kqp->ibqp.send_cq));
	if (fire & SROCE_KQP_FIRE_RECV)
		sroce_cq_notify(to_scq(kqp->ibqp.recv_cq));
	/* An XRC target's receives: the SRQ's CQ, alive while under RCU. */
	if (xcq)
		sroce_cq_notify(xcq);
}

static inline void sroce_kqp_unlock(struct sroce_kqp *kqp)
	__releases(&kqp->lock)
{
	sroce_kqp_unlock_raw(kqp);
	rcu_read_unlock();
}

/*
 * For a post with hardirqs off (ib_core's MAD layer posts under an
 * irqsave lock): no softirq can run on this CPU meanwhile, so the plain
 * lock suffices, where spin_unlock_bh() would run softirqs with IRQs off.
 * The caller makes no core call that completes or transmits: the IP
 * stack must not run here either, so the pass is queued instead.
 */
static inline void sroce_kqp_lock_irqs_off(struct sroce_kqp *kqp)
	__acquires(&kqp->lock)
{
	rcu_read_lock();
	spin_lock(&kqp->lock);
}

static inline void sroce_kqp_unlock_irqs_off(struct sroce_kqp *kqp)
	__releases(&kqp->lock)
{
	/* Such a caller completes nothing (above): nothing to notify. */
	sroce_kqp_count_sending(kqp);
	kqp->xsrq = NULL;
	kqp->xcq_fire = NULL;
	spin_unlock(&kqp->lock);
	rcu_read_unlock();
}

#endif /* SROCE_KQP_H */
