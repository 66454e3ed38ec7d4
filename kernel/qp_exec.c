// SPDX-License-Identifier: GPL-2.0
/*
 * Running the protocol core of each QP: its lock, its one timer, its work
 * item, the side-effect operations the core calls back, and the receive
 * entry net.c calls.  Documentation/datapath.rst, "Scheduling".
 *
 * The core never sleeps, allocates or reads a clock; all of that is here.
 * Every core call is made inside rcu_read_lock() with the QP's lock held
 * (sroce_kqp_lock), so memory found through sdev->mrs and sdev->ahs stays
 * valid for the whole call, and one QP is never run on two CPUs at once.
 */
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "kqp.h"

/*
 * Unbound: a pass may send a burst of packets, and the scheduler is
 * better than "the CPU the packet or doorbell arrived on" at spreading
 * busy QPs.  WQ_MEM_RECLAIM: storage and NFS over RDMA write back pages
 * through us, so a pass must be able to run when no worker can be
 * created (the rescuer runs it).
 *
 * Two queues.  The first pass after an event (doorbell, ACK, timer) runs
 * WQ_HIGHPRI: the application usually busy-polls its CQ on the same CPU
 * and, while the work holds SROCE_SQ_DRAINING, rings no doorbell; at
 * equal priority the poller would take a scheduler slice (milliseconds)
 * before the pass that feeds it runs.  A pass that used its whole budget
 * requeues on the normal-priority queue: bulk transfer shares the CPU
 * with the application instead of starving it (16 busy QPs on one vCPU
 * kept perftest from polling a single completion for seconds).
 */
static struct workqueue_struct *sroce_kqp_wq;
static struct workqueue_struct *sroce_kqp_bulk_wq;

/*
 * The QPs whose answers (ACKs, READ and atomic responses) to requests
 * received on this CPU wait in their bursts, all but the first of a
 * softirq run, until the receive softirq is done with what the NIC
 * handed it.  The tasklet runs after net_rx_action(), as a rule in the
 * same softirq run (after a long one, from ksoftirqd), and sends each
 * QP's answers to a batch of requests with one notification of the
 * device, not one per request (Documentation/performance.rst, "Answers
 * after the receive").  The receive on this CPU adds, the tasklet takes
 * (after a CPU went offline, on another CPU), destroy unlinks from any
 * CPU.  A tasklet and not a BH workqueue: those exist from 6.9 only.
 */
struct sroce_kqp_defer {
	spinlock_t		lock;	/* @qps, against destroy */
	struct list_head	qps;
	struct tasklet_struct	flush;
	bool			answered;	/* in this run; this CPU only */
};

static DEFINE_PER_CPU(struct sroce_kqp_defer, sroce_kqp_defers);

static void sroce_kqp_defer_run(struct tasklet_struct *t)
{
	struct sroce_kqp_defer *d = from_tasklet(d, t, flush);
	struct sroce_kqp *kqp;

	d->answered = false;
	/* Destroy waits for RCU after unlinking: @kqp stays valid. */
	rcu_read_lock();
	for (;;) {
		spin_lock(&d->lock);
		kqp = list_first_entry_or_null(&d->qps, struct sroce_kqp,
					       defer_node);
		if (kqp)
			list_del_init(&kqp->defer_node);
		spin_unlock(&d->lock);
		if (!kqp)
			break;
		spin_lock(&kqp->lock);
		kqp->deferred = false;
		sroce_net_flush(kqp->sdev, &kqp->burst);
		spin_unlock(&kqp->lock);
	}
	rcu_read_unlock();
}

/* Lock held, in the receive softirq: @kqp's burst now or in the tasklet. */
static void sroce_kqp_defer(struct sroce_kqp *kqp)
{
	struct sroce_kqp_defer *d = this_cpu_ptr(&sroce_kqp_defers);

	/*
	 * @deferred, not the node: the tasklet unlinks under its list's
	 * lock alone and clears @deferred only under ours, after that.
	 */
	if (kqp->deferred)
		return;
	/*
	 * The first answer of a softirq run leaves now: a lone request (a
	 * latency test, a ping-pong) gains nothing by waiting.  The ones
	 * after it are a batch, and wait for the tasklet.
	 */
	if (!d->answered) {
		d->answered = true;
		tasklet_schedule(&d->flush);
		return;
	}
	kqp->deferred = true;
	kqp->defer_cpu = smp_processor_id();
	spin_lock(&d->lock);
	list_add_tail(&kqp->defer_node, &d->qps);
	spin_unlock(&d->lock);
	tasklet_schedule(&d->flush);
}

static void sroce_kqp_defer_unlink(struct sroce_kqp *kqp)
{
	struct sroce_kqp_defer *d = per_cpu_ptr(&sroce_kqp_defers,
						kqp->defer_cpu);

	spin_lock_bh(&d->lock);
	list_del_init(&kqp->defer_node);
	spin_unlock_bh(&d->lock);
}

int sroce_kqp_module_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sroce_kqp_defer *d = per_cpu_ptr(&sroce_kqp_defers, cpu);

		spin_lock_init(&d->lock);
		INIT_LIST_HEAD(&d->qps);
		tasklet_setup(&d->flush, sroce_kqp_defer_run);
	}
	sroce_kqp_wq = alloc_workqueue("sroce_qp", WQ_UNBOUND | WQ_HIGHPRI |
				       WQ_MEM_RECLAIM, 0);
	if (!sroce_kqp_wq)
		return -ENOMEM;
	sroce_kqp_bulk_wq = alloc_workqueue("sroce_qp_bulk", WQ_UNBOUND |
					    WQ_MEM_RECLAIM, 0);
	if (!sroce_kqp_bulk_wq) {
		destroy_workqueue(sroce_kqp_wq);
		return -ENOMEM;
	}
	return 0;
}

void sroce_kqp_module_exit(void)
{
	int cpu;

	/* Every QP is gone: no tasklet is scheduled again. */
	for_each_possible_cpu(cpu)
		tasklet_kill(&per_cpu_ptr(&sroce_kqp_defers, cpu)->flush);
	destroy_workqueue(sroce_kqp_bulk_wq);
	destroy_workqueue(sroce_kqp_wq);
}

enum sroce_qp_state sroce_kqp_state(const struct sroce_kqp *kqp)
{
	struct sroce_qp_attr a;

	sroce_qp_query(&kqp->core, &a);
	return a.qp_state;
}

void sroce_kqp_event(struct sroce_kqp *kqp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = kqp->ibqp.device,
		.element.qp = &kqp->ibqp,
		.event = type,
	};

	if (kqp->ibqp.event_handler)
		kqp->ibqp.event_handler(&ev, kqp->ibqp.qp_context);
}

/* Lock held: a pass must run soon.  The work keeps the SQ "draining". */
static void sroce_kqp_queue(struct sroce_kqp *kqp)
{
	if (kqp->dying)
		return;
	sroce_kqp_sq_set_draining(kqp, true);
	queue_work(sroce_kqp_wq, &kqp->work);
}

/*
 * No lock: tx_room.c has room for a QP it refused.  A pass queued on a
 * dying QP finds @dying and does nothing; destroy unhooks the QP from
 * tx_room.c before it cancels the work, so none is queued after that.
 */
void sroce_kqp_wake(struct sroce_kqp *kqp)
{
	queue_work(sroce_kqp_wq, &kqp->work);
}

/* Lock held: re-arm the timer at the core's deadline or the TX retry. */
static void sroce_kqp_arm(struct sroce_kqp *kqp)
{
	u64 d = min(sroce_qp_next_deadline(&kqp->core), kqp->retry_ns);

	if (kqp->dying || d == kqp->timer_ns)
		return;
	kqp->timer_ns = d;
	if (d == U64_MAX)
		hrtimer_try_to_cancel(&kqp->timer);
	else
		hrtimer_start(&kqp->timer, ns_to_ktime(d),
			      HRTIMER_MODE_ABS_SOFT);
}

/*
 * Lock held: a ring was found broken inside the last core call.  The core
 * cannot be re-entered from its own callback, so the QP is errored here,
 * after the call: every WQE it holds is flushed and the consumer told.
 */
static void sroce_kqp_check_broken(struct sroce_kqp *kqp)
{
	if (likely(kqp->broken != SROCE_KQP_BROKEN))
		return;
	kqp->broken = SROCE_KQP_ERRORED;
	sroce_count(to_sdev(kqp->ibqp.device), SROCE_CTR_RING_ERRORS, 1);
	sroce_qp_flush(&kqp->core);
	sroce_kqp_event(kqp, IB_EVENT_QP_FATAL);
}

/*
 * How many QPs share the device's in-flight budget, @kqp counted.  Read
 * without a lock: a share one QP too large or small for one kick is
 * harmless.
 */
static u32 sroce_kqp_senders(const struct sroce_kqp *kqp)
{
	return (u32)atomic_read(&kqp->sdev->senders) + !kqp->sending;
}

/*
 * Lock held: run the requester and pending responses for @budget packets.
 * True if a further pass is due at once: the budget ran out, or WQEs were
 * pulled without the SQ being seen empty (the budget may have ended on a
 * message boundary, where the core cannot tell that the ring has more).
 */
bool sroce_kqp_kick(struct sroce_kqp *kqp, u32 budget, u64 now)
{
	u32 cons = kqp->sq_cons;
	bool more;

	kqp->sq_asked = false;
	sroce_qp_set_senders(&kqp->core, sroce_kqp_senders(kqp));
	more = sroce_qp_kick(&kqp->core, budget, now);
	/* Its packets leave before the timer is armed (net_direct.c). */
	sroce_net_flush(kqp->sdev, &kqp->burst);
	sroce_kqp_check_broken(kqp);
	return more || (!kqp->sq_asked && kqp->sq_cons != cons &&
			sroce_kqp_sq_has_more(kqp));
}

/*
 * Lock held, after any core call outside the work: queue a pass if the
 * call left work (@more from sroce_kqp_kick, the core's pending(), or,
 * with @sq_check, posted WQEs the core may now be able to take), and
 * re-arm the timer.  A pass queued while ops->emit is refusing packets
 * finds pending() still true and backs off (sroce_kqp_pass), so this
 * never spins.
 */
void sroce_kqp_settle(struct sroce_kqp *kqp, bool more, bool sq_check)
{
	sroce_kqp_check_broken(kqp);
	if (more || sroce_qp_pending(&kqp->core) ||
	    (sq_check && sroce_kqp_sq_has_more(kqp)))
		sroce_kqp_queue(kqp);
	sroce_kqp_arm(kqp);
}

/*
 * The timer runs in softirq (HRTIMER_MODE_ABS_SOFT), the context RX runs
 * the core in, and does what is due itself: a delayed ACK or a
 * retransmission must not wait until a worker gets a CPU that a
 * busy-polling application holds.  It sends at most
 * SROCE_KQP_INLINE_BUDGET packets (an ACK, SROCE_KQP_RX_BUDGET) and
 * leaves the rest to the work.
 */
static enum hrtimer_restart sroce_kqp_timer(struct hrtimer *t)
{
	struct sroce_kqp *kqp = container_of(t, struct sroce_kqp, timer);
	bool more = false;
	u64 now;

	sroce_kqp_lock(kqp);
	if (!kqp->dying) {
		now = ktime_get_ns();
		kqp->timer_ns = U64_MAX;
		if (now >= kqp->retry_ns)
			kqp->retry_ns = U64_MAX;
		if (sroce_qp_next_deadline(&kqp->core) <= now)
			sroce_qp_on_deadline(&kqp->core, now);
		if (sroce_qp_pending(&kqp->core))
			more = sroce_kqp_kick(kqp, SROCE_KQP_INLINE_BUDGET, now);
		sroce_kqp_settle(kqp, more, false);
	}
	sroce_kqp_unlock(kqp);
	return HRTIMER_NORESTART;
}

/*
 * One pass of the work, lock held.  Returns true to requeue.
 *
 * A user SQ's SROCE_SQ_DRAINING flag stays set while a pass is queued or
 * running.  At the end the flag is cleared, then (full barrier, pairing
 * with the provider's between its prod store and its flag load) prod is
 * read again: WQEs posted in between were not rung for, so they are
 * taken now.  Only if the core asked for more and found the ring empty,
 * though: a core that stopped pulling (window full, fence, not RTS) is
 * restarted by the ACK, timer or modify_qp that unblocks it, each of
 * which looks at the ring (sq_check), and must not be spun on here.
 */
static bool sroce_kqp_pass(struct sroce_kqp *kqp)
{
	struct sroce_qp *qp = &kqp->core;
	bool more, pending;
	u64 now;

	if (kqp->dying)
		return false;
	now = ktime_get_ns();
	if (now >= kqp->timer_ns)
		kqp->timer_ns = U64_MAX;	/* it fired */
	if (now >= kqp->retry_ns)
		kqp->retry_ns = U64_MAX;
	if (sroce_qp_next_deadline(qp) <= now)
		sroce_qp_on_deadline(qp, now);
	kqp->tx_wait = false;
	more = sroce_kqp_kick(kqp, SROCE_KQP_WORK_BUDGET, now);
	pending = !more && sroce_qp_pending(qp);
	/*
	 * Every pass that does not requeue clears the flag, even one that
	 * leaves refused packets to the retry timer: the timer and RX kick
	 * the core but never clear it, so a flag left set here would keep
	 * the provider from ringing for good once they had emptied the SQ.
	 */
	if (!more && kqp->user) {
		sroce_kqp_sq_set_draining(kqp, false);
		smp_mb();	/* flag store before the prod load */
		if (!pending && kqp->sq_asked && sroce_kqp_sq_has_more(kqp)) {
			/* Posted meanwhile: another pass, flag set again. */
			sroce_kqp_sq_set_draining(kqp, true);
			more = true;
		}
	}
	/*
	 * ops->emit refused: retry later, do not spin.  Refused for room,
	 * the packet's destructor wakes the QP; the timer is only a net
	 * under a driver that is slow to free what it sent.
	 */
	if (pending)
		kqp->retry_ns = now + (kqp->tx_wait ? SROCE_KQP_TX_WAIT_NS :
					SROCE_KQP_TX_RETRY_NS);
	sroce_kqp_arm(kqp);
	return more;
}

static void sroce_kqp_work(struct work_struct *work)
{
	struct sroce_kqp *kqp = container_of(work, struct sroce_kqp, work);
	bool again;

	sroce_kqp_lock(kqp);
	again = sroce_kqp_pass(kqp);
	sroce_kqp_unlock(kqp);
	/*
	 * Requeue rather than loop: other QPs' passes get their turn, and
	 * at normal priority so does the application.
	 */
	if (again)
		queue_work(sroce_kqp_bulk_wq, &kqp->work);
}

void sroce_kqp_exec_init(struct sroce_kqp *kqp)
{
	spin_lock_init(&kqp->lock);
	hrtimer_setup(&kqp->timer, sroce_kqp_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
	kqp->timer_ns = U64_MAX;
	kqp->retry_ns = U64_MAX;
	INIT_WORK(&kqp->work, sroce_kqp_work);
	INIT_LIST_HEAD(&kqp->defer_node);
}

/*
 * Destroy: no core call after this returns.  @dying is set under the
 * lock, so no pass or settle arms the timer or queues the work after it,
 * and then the QP leaves tx_room.c, which queues the work without it;
 * what was armed or queued before is cancelled (a running work finishes
 * first, and cancel_work_sync also stops it requeueing itself).  The
 * caller has taken the QP out of sdev->qps and waits for RCU readers.
 */
void sroce_kqp_exec_stop(struct sroce_kqp *kqp)
{
	spin_lock_bh(&kqp->lock);
	kqp->dying = true;
	sroce_kqp_count_sending(kqp);	/* no longer counted */
	sroce_net_flush(kqp->sdev, &kqp->burst);
	spin_unlock_bh(&kqp->lock);
	sroce_kqp_defer_unlink(kqp);
	/* No core call emits now; after this no TX-room wakeup comes. */
	sroce_txq_release(kqp->txq);
	kqp->txq = NULL;
	hrtimer_cancel(&kqp->timer);
	cancel_work_sync(&kqp->work);
}

/*
 * Move to ERR and complete every WR the QP holds or its rings hold with
 * WR_FLUSH_ERR, now.  For destroy while the device is removed under a
 * live process: its CQ rings stay mapped, so it sees each WR end, as on a
 * NIC that died, rather than waiting for completions that never come.
 */
void sroce_kqp_flush_all(struct sroce_kqp *kqp)
{
	/* A ring holds at most its entries: this takes all that was posted. */
	u32 budget = max(kqp->sq.entries, kqp->rq.entries);

	sroce_kqp_lock(kqp);
	if (!kqp->dying) {
		sroce_qp_flush(&kqp->core);
		sroce_kqp_settle(kqp, sroce_kqp_kick(kqp, budget,
						     SROCE_NOW_LAZY), false);
	}
	sroce_kqp_unlock(kqp);
}

enum sroce_drop sroce_kqp_deliver(struct sroce_dev *sdev,
				  const struct sroce_pkt *pkt,
				  struct sroce_rx *rx)
{
	struct sroce_kqp *kqp;

	kqp = xa_load(&sdev->qps, pkt->h.bth.dqpn);
	if (!kqp)
		return SROCE_DROP_UNKNOWN_QP;
	return sroce_kqp_deliver_to(kqp, pkt, rx);
}

enum sroce_drop sroce_kqp_deliver_to(struct sroce_kqp *kqp,
				     const struct sroce_pkt *pkt,
				     struct sroce_rx *rx)
{
	bool answer = !(pkt->op->flags & SROCE_OPF_REQ);
	enum sroce_drop why;
	bool more = false;

	spin_lock_bh(&kqp->lock);
	if (kqp->dying) {
		why = SROCE_DROP_UNKNOWN_QP;
	} else {
		/* Most packets need no time: a request inside a message. */
		why = sroce_qp_rx(&kqp->core, pkt, rx, SROCE_NOW_LAZY);
		if (why == SROCE_DROP_NONE)
			sroce_route_confirm(&kqp->route);
		/*
		 * An ACK or response opens the window: its next packets leave
		 * from here, not after a worker wakes, which a busy-polling
		 * application on this CPU delays.  Unless a pass is queued
		 * already; it sends them.
		 */
		if (answer && !work_pending(&kqp->work))
			more = sroce_kqp_kick(kqp, SROCE_KQP_RX_BUDGET,
					      SROCE_NOW_LAZY);
		else if (kqp->burst.head)
			sroce_kqp_defer(kqp);	/* an ACK or READ response */
		/*
		 * Only an ACK or response can unblock a requester that left
		 * WQEs in the ring; a request cannot, so skip the ring read.
		 */
		sroce_kqp_settle(kqp, more, answer);
	}
	sroce_kqp_unlock_raw(kqp);
	return why;
}

/* ---- The core's side-effect operations ---- */

/*
 * The PD keys are checked in: the QP's, or for an XRC target (which has
 * none) that of the XRC SRQ the request names; NULL if it names none.
 */
static struct ib_pd *sroce_kqp_pd(const struct sroce_kqp *kqp)
{
	if (kqp->ibqp.qp_type == IB_QPT_XRC_TGT)
		return kqp->xsrq ? kqp->xsrq->ibsrq.pd : NULL;
	return kqp->ibqp.pd;
}

static int sroce_kqp_mem_access(void *ctx, u32 key, bool remote, u64 va,
				u32 len, u32 access, struct sroce_mem_ref *out)
{
	struct sroce_kqp *kqp = ctx;
	struct ib_pd *pd = sroce_kqp_pd(kqp);
	int err;

	/* A receive WQE taken from an SRQ belongs to the SRQ's PD. */
	if ((access & SROCE_ACCESS_RECV) && kqp->srq)
		pd = kqp->srq->ibsrq.pd;
	access &= ~SROCE_ACCESS_RECV;
	if (!pd)
		return -EINVAL;
	/* An rkey may name a memory window (mw.c); its checks are its own. */
	if (remote) {
		err = sroce_mw_access(kqp, key, va, len, access, out);
		if (err != -ENOENT)
			return err;
	}
	/* enum sroce_access is ib_access_flags; 0 is a local read. */
	return sroce_mem_access(kqp->sdev, pd, key, remote, va, len, access,
				out);
}

/*
 * RC/UC go to the QP's address vector; UD to the WQE's AH, copied out of
 * sdev->ahs now (the AH may be destroyed at any time).  A packet for an
 * AH that no longer exists is dropped and counted: UD is unreliable and
 * the WQE still completes, as if the fabric had lost it.
 */
static int sroce_kqp_emit(void *ctx, const struct sroce_tx_pkt *pkt)
{
	struct sroce_kqp *kqp = ctx;
	struct sroce_dev *sdev = kqp->sdev;
	struct sroce_av av;
	u32 dqpn;
	int err;

	if (!sroce_kqp_is_ud(kqp)) {
		err = sroce_net_xmit(sdev, kqp->txq, &kqp->burst, &kqp->av,
				     kqp->src_port, &kqp->route, pkt);
		goto out;
	}
	if (sroce_ah_get_av(sdev, kqp->ibqp.pd, pkt->ah, &av)) {
		sroce_count(sdev, SROCE_CTR_TX_NO_ROUTE, 1);
		return 0;
	}
	/* BTH bytes 5..7: DestQP; one source port per QP pair. */
	dqpn = (u32)pkt->hdr[5] << 16 | (u32)pkt->hdr[6] << 8 | pkt->hdr[7];
	err = sroce_net_xmit(sdev, kqp->txq, &kqp->burst, &av,
			     sroce_net_src_port(kqp->ibqp.qp_num, dqpn), NULL,
			     pkt);
out:
	if (err == -EAGAIN && !kqp->tx_wait) {
		kqp->tx_wait = true;
		sroce_count(sdev, SROCE_CTR_TX_ROOM_WAITS, 1);
	}
	return err;
}

static int sroce_kqp_copy_in(void *ctx, const struct sroce_mem_ref *dst,
			     u32 off, const void *payload, u32 payload_off,
			     u32 len)
{
	const struct sroce_rx *rx = payload;
	u32 k;

	if (payload_off >= SROCE_COPY_GRH) {
		k = payload_off - SROCE_COPY_GRH;
		if (k > SROCE_GRH_LEN || len > SROCE_GRH_LEN - k)
			return -EFAULT;
		return sroce_mem_copy_to(dst, off, rx->grh + k, len);
	}
	return sroce_net_copy_payload(rx, payload_off, dst, off, len);
}

static int sroce_kqp_store(void *ctx, const struct sroce_mem_ref *dst,
			   u32 off, const void *src, u32 len)
{
	return sroce_mem_copy_to(dst, off, src, len);
}

static int sroce_kqp_atomic(void *ctx, const struct sroce_mem_ref *dst,
			    u8 op, u64 cmp, u64 swap_add, u64 *orig)
{
	return sroce_mem_atomic(dst, op, cmp, swap_add, orig);
}

/*
 * An XRC target's receive completes in the CQ of the XRC SRQ it names
 * (cqe->srqn): usually the one the request found, else looked up again
 * (a flush of a WQE taken in an earlier call).  An SRQ destroyed since
 * takes its completions with it.  The CQ outlives the SRQ (ib_core).
 */
static void sroce_kqp_complete_xrc(struct sroce_kqp *kqp,
				   const struct sroce_cqe *cqe)
{
	struct sroce_srq *srq = kqp->xsrq;
	struct sroce_cq *cq;

	if (!srq || srq->ibsrq.ext.xrc.srq_num != cqe->srqn)
		srq = sroce_xrc_srq_find(kqp->sdev, cqe->srqn, kqp->xrcd);
	if (!srq || !cqe->is_recv)
		return;
	cq = srq->xcq;
	if (sroce_cq_add(cq, &kqp->ibqp, cqe) <= 0)
		return;
	/* One SRQ per core call: a second CQ would be a core change. */
	if (kqp->xcq_fire && kqp->xcq_fire != cq)
		sroce_cq_notify(kqp->xcq_fire);
	kqp->xcq_fire = cq;
}

static void sroce_kqp_complete(void *ctx, const struct sroce_cqe *cqe)
{
	struct sroce_kqp *kqp = ctx;
	struct ib_cq *ibcq = cqe->is_recv ? kqp->ibqp.recv_cq :
					    kqp->ibqp.send_cq;

	if (kqp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		sroce_kqp_complete_xrc(kqp, cqe);
		return;
	}
	/* An XRC initiator has no receive side; nothing completes there. */
	if (!ibcq)
		return;

	/*
	 * The handler is called when the QP lock is dropped (kqp.h).  An
	 * overflow errors the CQ and is reported by cq.c, not here.
	 */
	if (sroce_cq_add(to_scq(ibcq), &kqp->ibqp, cqe) > 0)
		kqp->cq_fire |= cqe->is_recv ? SROCE_KQP_FIRE_RECV :
					       SROCE_KQP_FIRE_SEND;
}

/* A received SEND_WITH_INV: invalidate the rkey its IETH names. */
static int sroce_kqp_invalidate(void *ctx, u32 rkey)
{
	struct sroce_kqp *kqp = ctx;
	int err;

	/* A type 2 window's rkey, or else an MR's. */
	err = sroce_mw_invalidate(kqp, rkey, true);
	if (err == -ENOENT && sroce_kqp_pd(kqp))
		err = sroce_mr_invalidate(kqp->sdev, sroce_kqp_pd(kqp), rkey);
	return err;
}

/*
 * XRC target: the request names XRC SRQ @srqn, which must be of the
 * QP's XRCD.  It stays the QP's for the rest of this core call (RCU and
 * the QP lock held); kqp.h forgets it when the lock is dropped.
 */
static int sroce_kqp_xrc_srq(void *ctx, u32 srqn)
{
	struct sroce_kqp *kqp = ctx;
	struct sroce_srq *srq;

	srq = sroce_xrc_srq_find(kqp->sdev, srqn, kqp->xrcd);
	if (!srq)
		return -EINVAL;
	kqp->xsrq = srq;
	return 0;
}

/* LOCAL_INV, REG_MR and BIND_MW, run by the requester in SQ order. */
static u8 sroce_kqp_local_op(void *ctx, const struct sroce_send_wqe *wr)
{
	struct sroce_kqp *kqp = ctx;
	int err;

	if (wr->opcode == SROCE_WR_BIND_MW)
		return sroce_mw_bind(kqp, wr);
	if (wr->opcode == SROCE_WR_LOCAL_INV) {
		err = sroce_mw_invalidate(kqp, wr->ex, false);
		if (err != -ENOENT)
			return err ? SROCE_WC_LOC_QP_OP_ERR : SROCE_WC_SUCCESS;
	}
	if (wr->opcode == SROCE_WR_REG_MR)
		err = sroce_mr_fast_reg(kqp->sdev, kqp->ibqp.pd, wr->reg.key,
					wr->reg.access);
	else
		err = sroce_mr_invalidate(kqp->sdev, kqp->ibqp.pd, wr->ex);
	/* As rdma_rxe reports a refused local operation. */
	return err ? SROCE_WC_LOC_QP_OP_ERR : SROCE_WC_SUCCESS;
}

/* enum sroce_qp_event takes ib_event_type's values. */
static void sroce_kqp_core_event(void *ctx, enum sroce_qp_event ev)
{
	sroce_kqp_event(ctx, (enum ib_event_type)ev);
}

/* Asked only by a core call that needs the time (SROCE_NOW_LAZY). */
static u64 sroce_kqp_now(void *ctx)
{
	return ktime_get_ns();
}

const struct sroce_qp_ops sroce_kqp_core_ops = {
	.next_send	= sroce_kqp_next_send,
	.recv_wqe	= sroce_kqp_recv_wqe,
	.mem_access	= sroce_kqp_mem_access,
	.emit		= sroce_kqp_emit,
	.copy_in	= sroce_kqp_copy_in,
	.store		= sroce_kqp_store,
	.atomic		= sroce_kqp_atomic,
	.complete	= sroce_kqp_complete,
	.event		= sroce_kqp_core_event,
	.invalidate	= sroce_kqp_invalidate,
	.local_op	= sroce_kqp_local_op,
	.xrc_srq	= sroce_kqp_xrc_srq,
	.now		= sroce_kqp_now,
};

static_assert((int)SROCE_EVENT_QP_FATAL == IB_EVENT_QP_FATAL);
static_assert((int)SROCE_EVENT_QP_REQ_ERR == IB_EVENT_QP_REQ_ERR);
static_assert((int)SROCE_EVENT_QP_ACCESS_ERR == IB_EVENT_QP_ACCESS_ERR);
static_assert((int)SROCE_EVENT_COMM_EST == IB_EVENT_COMM_EST);
static_assert((int)SROCE_EVENT_SQ_DRAINED == IB_EVENT_SQ_DRAINED);
static_assert((int)SROCE_EVENT_QP_LAST_WQE_REACHED ==
	      IB_EVENT_QP_LAST_WQE_REACHED);
static_assert((int)SROCE_ACCESS_REMOTE_ATOMIC == IB_ACCESS_REMOTE_ATOMIC);
