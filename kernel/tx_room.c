// SPDX-License-Identifier: GPL-2.0
/*
 * TX room: how many of our packets sit below us in the local stack (the
 * qdisc and the driver's ring), per device, and waking the QPs that
 * stopped for lack of room.  Documentation/datapath.rst, "TX room".
 *
 * Without a bound a single READ responder or bulk requester fills the
 * qdisc (a thousand packets by default).  Everything queued behind that
 * is late by the time the queue takes to drain: a retransmission asked
 * for after a loss arrives behind a megabyte of answers the requester
 * already discards, and on a slow host that wait outlasts the ACK timeout
 * and the retry budget.  Many QPs refused by a full qdisc, each polling
 * for room, burn the CPU the queue needs to drain.  So the device may have
 * SROCE_TX_ROOM_HIGH packets below us, shared by its QPs, and the skb
 * destructor wakes the QPs stopped for room once it is down to the low
 * mark.
 *
 * The accounting objects are refcounted by their skbs: a packet may
 * outlive its QP and its device, and is freed in whatever context the
 * driver completes it in.  The QP itself is reached only under the
 * device lock, and destroy unhooks it there before it stops its work.
 */
#include <linux/delay.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "sroce.h"

/*
 * Per device, shared by its QPs: enough for one QP's bulk to keep
 * streaming, while a requeued request waits 32 KiB at most.  Many QPs
 * with 64 each stacked up bursts the peer's receive path dropped, and
 * every drop cost a go-back-N window (Documentation/performance.rst,
 * "Device TX room").
 */
#define SROCE_TX_ROOM_HIGH	64
#define SROCE_TX_ROOM_LOW	32

struct sroce_txdev {
	refcount_t		ref;	/* the device, its QPs' txqs */
	atomic_t		inflight;
	spinlock_t		lock;	/* waiters, every txq->kqp and ->node */
	struct list_head	waiters;
};

struct sroce_txq {
	refcount_t		ref;	/* the QP, its packets in flight */
	struct sroce_txdev	*dev;
	struct sroce_kqp	*kqp;	/* NULL once the QP is destroyed */
	struct list_head	node;	/* on dev->waiters */
};

/* Device objects alive: module exit waits for their last packet. */
static atomic_t sroce_txdev_live = ATOMIC_INIT(0);

struct sroce_txdev *sroce_txdev_alloc(void)
{
	struct sroce_txdev *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return NULL;
	refcount_set(&d->ref, 1);
	atomic_set(&d->inflight, 0);
	spin_lock_init(&d->lock);
	INIT_LIST_HEAD(&d->waiters);
	atomic_inc(&sroce_txdev_live);
	return d;
}

void sroce_txdev_put(struct sroce_txdev *d)
{
	if (d && refcount_dec_and_test(&d->ref)) {
		kfree(d);
		atomic_dec(&sroce_txdev_live);
	}
}

struct sroce_txq *sroce_txq_alloc(struct sroce_txdev *d,
				  struct sroce_kqp *kqp)
{
	struct sroce_txq *q = kzalloc(sizeof(*q), kqp->user ?
				      GFP_KERNEL_ACCOUNT : GFP_KERNEL);

	if (!q)
		return NULL;
	refcount_set(&q->ref, 1);
	INIT_LIST_HEAD(&q->node);
	refcount_inc(&d->ref);
	q->dev = d;
	q->kqp = kqp;
	return q;
}

static void sroce_txq_put(struct sroce_txq *q)
{
	if (refcount_dec_and_test(&q->ref)) {
		sroce_txdev_put(q->dev);
		kfree(q);
	}
}

/*
 * Destroy, before the QP's work is cancelled: no wakeup reaches the QP
 * after this.  Its packets still in flight keep @q alive.
 */
void sroce_txq_release(struct sroce_txq *q)
{
	struct sroce_txdev *d;
	unsigned long flags;

	if (!q)
		return;
	d = q->dev;
	spin_lock_irqsave(&d->lock, flags);
	q->kqp = NULL;
	list_del_init(&q->node);
	spin_unlock_irqrestore(&d->lock, flags);
	sroce_txq_put(q);
}

static void sroce_txdev_wake_all(struct sroce_txdev *d)
{
	struct sroce_txq *q, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&d->lock, flags);
	list_for_each_entry_safe(q, tmp, &d->waiters, node) {
		list_del_init(&q->node);
		if (q->kqp)
			sroce_kqp_wake(q->kqp);
	}
	spin_unlock_irqrestore(&d->lock, flags);
}

/*
 * QP lock held: may the QP send one more packet?  If not, it is woken
 * (sroce_kqp_wake) when it may.  A wait registers first and then looks
 * again; the destructor drops the count first and then looks for waiters
 * (both full barriers), so one of the two always sees the other.
 */
bool sroce_txq_admit(struct sroce_txq *q)
{
	struct sroce_txdev *d = q->dev;
	unsigned long flags;

	if (atomic_read(&d->inflight) < SROCE_TX_ROOM_HIGH)
		return true;
	spin_lock_irqsave(&d->lock, flags);
	if (list_empty(&q->node))
		list_add_tail(&q->node, &d->waiters);
	spin_unlock_irqrestore(&d->lock, flags);
	smp_mb();	/* the list entry before the count */
	/* Room after all: a spurious wakeup later is harmless. */
	return atomic_read(&d->inflight) < SROCE_TX_ROOM_HIGH;
}

/*
 * Inside rcu_read_lock(): module exit waits for the last device object,
 * then for RCU, so this code is still there until it has returned.
 */
static void sroce_txq_skb_free(struct sk_buff *skb)
{
	struct sroce_txq *q = skb_shinfo(skb)->destructor_arg;
	struct sroce_txdev *d = q->dev;

	rcu_read_lock();
	if (atomic_dec_return(&d->inflight) <= SROCE_TX_ROOM_LOW &&
	    !list_empty_careful(&d->waiters))
		sroce_txdev_wake_all(d);
	sroce_txq_put(q);
	rcu_read_unlock();
}

/*
 * Charge a new skb (no socket owns it) to @q until it is freed: sent,
 * dropped by the qdisc, or orphaned by a layer that holds it longer
 * (netem's delay, a veth peer).  destructor_arg is the creator's to use
 * when the skb carries no zerocopy data, which ours never does.
 */
void sroce_txq_charge(struct sroce_txq *q, struct sk_buff *skb)
{
	refcount_inc(&q->ref);
	atomic_inc(&q->dev->inflight);
	skb_shinfo(skb)->destructor_arg = q;
	skb->destructor = sroce_txq_skb_free;
}

/* Module exit, every device gone: wait for their packets' destructors. */
void sroce_tx_room_exit(void)
{
	int waited = 0;

	while (atomic_read(&sroce_txdev_live)) {
		if (++waited == 250)
			pr_warn("sroce: waiting for packets still queued below us\n");
		msleep(20);
	}
	synchronize_rcu();
}
