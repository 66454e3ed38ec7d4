// SPDX-License-Identifier: GPL-2.0
/*
 * Per-device counters for "rdma statistic show link DEV/1": the wire
 * counters net.c keeps, the transport counters of every QP (summed at
 * read time over the live QPs plus the destroyed ones' totals) and one
 * counter per receive drop reason of proto/drop.h.
 */
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"

/* The order of the value array: device counters, QP counters, drops. */
enum {
	SROCE_STAT_QP_BASE	= SROCE_CTR_MAX,
	SROCE_STAT_QP_RETRANSMITS = SROCE_STAT_QP_BASE,
	SROCE_STAT_QP_TIMEOUTS,
	SROCE_STAT_QP_SEQ_NAKS_RCVD,
	SROCE_STAT_QP_RNR_NAKS_RCVD,
	SROCE_STAT_QP_SEQ_NAKS_SENT,
	SROCE_STAT_QP_RNR_NAKS_SENT,
	SROCE_STAT_QP_DUP_REQUESTS,
	SROCE_STAT_QP_IMPLIED_NAKS,
	SROCE_STAT_QP_ACCESS_NAKS_SENT,
	SROCE_STAT_QP_ACCESS_NAKS_RCVD,
	SROCE_STAT_QP_ERROR_NAKS_SENT,
	SROCE_STAT_QP_ERROR_NAKS_RCVD,
	SROCE_STAT_QP_TX_STALLS,
	SROCE_STAT_QP_ACKS_DEFERRED,
	SROCE_STAT_QP_FLUSHES_DEFERRED,
	SROCE_STAT_QP_CNP_SENT,
	SROCE_STAT_QP_CNP_RECEIVED,
	SROCE_STAT_QP_ECN_MARKED,
	SROCE_STAT_QP_RATE_DECREASES,
	SROCE_STAT_QP_FLUSH_ICRC_SWITCHES,
	SROCE_STAT_QP_SEQ_NAKS_STALE,
	SROCE_STAT_DROP_BASE,
	/* SROCE_DROP_NONE has no counter. */
	SROCE_NSTATS		= SROCE_STAT_DROP_BASE + SROCE_DROP_MAX - 1,
};

/* These names are user-visible: never rename one once released. */
static const char * const sroce_ctr_names[SROCE_CTR_MAX] = {
	[SROCE_CTR_TX_PACKETS]	= "tx_packets",
	[SROCE_CTR_TX_BYTES]	= "tx_bytes",
	[SROCE_CTR_RX_PACKETS]	= "rx_packets",
	[SROCE_CTR_RX_BYTES]	= "rx_bytes",
	[SROCE_CTR_TX_NO_ROUTE]	= "tx_no_route",
	[SROCE_CTR_TX_DROPPED]	= "tx_dropped",
	[SROCE_CTR_TX_NO_MEM]	= "tx_no_mem",
	[SROCE_CTR_RING_ERRORS]	= "ring_errors",
	[SROCE_CTR_CQ_OVERFLOWS] = "cq_overflows",
	[SROCE_CTR_TX_ROOM_WAITS] = "tx_room_waits",
	[SROCE_CTR_TX_ZCOPY]	= "tx_zcopy_packets",
	[SROCE_CTR_TX_DIRECT]	= "tx_direct_packets",
	[SROCE_CTR_ODP_PAGE_FAULTS] = "odp_page_faults",
	[SROCE_CTR_ODP_INVALIDATIONS] = "odp_invalidations",
	[SROCE_CTR_ODP_PREFETCHES] = "odp_prefetches",
	[SROCE_CTR_ODP_IMPLICIT_FULL] = "odp_implicit_full",
};

static const char * const sroce_kqp_stat_names[] = {
	"retransmits",
	"timeouts",
	"seq_naks_rcvd",
	"rnr_naks_rcvd",
	"seq_naks_sent",
	"rnr_naks_sent",
	"duplicate_requests",
	"implied_naks",
	"access_naks_sent",
	"access_naks_rcvd",
	"error_naks_sent",
	"error_naks_rcvd",
	"tx_stalls",
	"acks_deferred",
	"flushes_deferred",
	"cnp_sent",
	"cnp_received",
	"ecn_marked_packets",
	"rate_decreases",
	"flush_icrc_switches",
	"seq_naks_stale",
};

static_assert(ARRAY_SIZE(sroce_kqp_stat_names) ==
	      SROCE_STAT_DROP_BASE - SROCE_STAT_QP_BASE);

/* "rx_drop_" + the reason's name from drop.c; built once at load. */
#define SROCE_DROP_STAT_NAME_LEN	32
static char sroce_drop_stat_names[SROCE_DROP_MAX][SROCE_DROP_STAT_NAME_LEN];
static struct rdma_stat_desc sroce_stat_descs[SROCE_NSTATS];

void sroce_counters_module_init(void)
{
	int i;

	for (i = 0; i < SROCE_CTR_MAX; i++)
		sroce_stat_descs[i].name = sroce_ctr_names[i];
	for (i = 0; i < ARRAY_SIZE(sroce_kqp_stat_names); i++)
		sroce_stat_descs[SROCE_STAT_QP_BASE + i].name =
			sroce_kqp_stat_names[i];
	for (i = 1; i < SROCE_DROP_MAX; i++) {
		snprintf(sroce_drop_stat_names[i], SROCE_DROP_STAT_NAME_LEN,
			 "rx_drop_%s", sroce_drop_name(i));
		sroce_stat_descs[SROCE_STAT_DROP_BASE + i - 1].name =
			sroce_drop_stat_names[i];
	}
}

void sroce_counters_init(struct sroce_dev *sdev)
{
	spin_lock_init(&sdev->ctrs.retired_lock);
}

static void sroce_kqp_stats_add(u64 *v, const struct sroce_qp_stats *s)
{
	/* Read without the QP lock: each u64 is read whole on 64-bit. */
	v[0] += READ_ONCE(s->retransmits);
	v[1] += READ_ONCE(s->timeouts);
	v[2] += READ_ONCE(s->seq_naks_rcvd);
	v[3] += READ_ONCE(s->rnr_naks_rcvd);
	v[4] += READ_ONCE(s->seq_naks_sent);
	v[5] += READ_ONCE(s->rnr_naks_sent);
	v[6] += READ_ONCE(s->dup_requests);
	v[7] += READ_ONCE(s->implied_naks);
	v[8] += READ_ONCE(s->access_naks_sent);
	v[9] += READ_ONCE(s->access_naks_rcvd);
	v[10] += READ_ONCE(s->error_naks_sent);
	v[11] += READ_ONCE(s->error_naks_rcvd);
	v[12] += READ_ONCE(s->tx_stalls);
	v[13] += READ_ONCE(s->acks_deferred);
	v[14] += READ_ONCE(s->flushes_deferred);
	v[15] += READ_ONCE(s->cnp_sent);
	v[16] += READ_ONCE(s->cnp_rcvd);
	v[17] += READ_ONCE(s->ecn_marked);
	v[18] += READ_ONCE(s->rate_decreases);
	v[19] += READ_ONCE(s->flush_icrc_switches);
	v[20] += READ_ONCE(s->seq_naks_stale);
}

/*
 * Called by qp.c when a QP goes away, once it can no longer count:
 * its totals live on in the device's.
 */
void sroce_counters_retire_qp(struct sroce_dev *sdev,
			      const struct sroce_qp_stats *s)
{
	struct sroce_qp_stats *r = &sdev->ctrs.retired;
	unsigned long flags;

	spin_lock_irqsave(&sdev->ctrs.retired_lock, flags);
	r->tx_pkts += s->tx_pkts;
	r->rx_pkts += s->rx_pkts;
	r->retransmits += s->retransmits;
	r->timeouts += s->timeouts;
	r->seq_naks_rcvd += s->seq_naks_rcvd;
	r->rnr_naks_rcvd += s->rnr_naks_rcvd;
	r->seq_naks_sent += s->seq_naks_sent;
	r->rnr_naks_sent += s->rnr_naks_sent;
	r->dup_requests += s->dup_requests;
	r->implied_naks += s->implied_naks;
	r->access_naks_sent += s->access_naks_sent;
	r->access_naks_rcvd += s->access_naks_rcvd;
	r->error_naks_sent += s->error_naks_sent;
	r->error_naks_rcvd += s->error_naks_rcvd;
	r->tx_stalls += s->tx_stalls;
	r->acks_deferred += s->acks_deferred;
	r->flushes_deferred += s->flushes_deferred;
	r->cnp_sent += s->cnp_sent;
	r->cnp_rcvd += s->cnp_rcvd;
	r->ecn_marked += s->ecn_marked;
	r->rate_decreases += s->rate_decreases;
	r->flush_icrc_switches += s->flush_icrc_switches;
	r->seq_naks_stale += s->seq_naks_stale;
	spin_unlock_irqrestore(&sdev->ctrs.retired_lock, flags);
}

static struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						       sroce_port_num_t port)
{
	return rdma_alloc_hw_stats_struct(sroce_stat_descs, SROCE_NSTATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int sroce_get_hw_stats(struct ib_device *ibdev,
			      struct rdma_hw_stats *stats,
			      sroce_port_num_t port, int index)
{
	struct sroce_counters *c = &to_sdev(ibdev)->ctrs;
	u64 *qv = &stats->value[SROCE_STAT_QP_BASE];
	struct sroce_kqp *kqp;
	unsigned long qpn, flags;
	int i;

	if (stats->num_counters != SROCE_NSTATS)
		return -EINVAL;

	for (i = 0; i < SROCE_CTR_MAX; i++)
		stats->value[i] = atomic64_read(&c->ctr[i]);
	for (i = 1; i < SROCE_DROP_MAX; i++)
		stats->value[SROCE_STAT_DROP_BASE + i - 1] =
			atomic64_read(&c->drop[i]);

	memset(qv, 0, sizeof(*qv) * ARRAY_SIZE(sroce_kqp_stat_names));
	spin_lock_irqsave(&c->retired_lock, flags);
	sroce_kqp_stats_add(qv, &c->retired);
	spin_unlock_irqrestore(&c->retired_lock, flags);
	/* QPs are freed only after a grace period (sroce.h, "Lifetime"). */
	rcu_read_lock();
	xa_for_each(&to_sdev(ibdev)->qps, qpn, kqp)
		sroce_kqp_stats_add(qv, &kqp->core.stats);
	rcu_read_unlock();
	return stats->num_counters;
}

const struct ib_device_ops sroce_counters_ops = {
	SROCE_OPS_ALLOC_HW_PORT_STATS(sroce_alloc_hw_port_stats)
	.get_hw_stats = sroce_get_hw_stats,
};
