/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals shared by the transport files (qp_state.c, pkt.c, req.c,
 * resp.c, comp.c).  Not part of the API: callers use qp.h only.
 */
#ifndef SROCE_PROTO_QP_INT_H
#define SROCE_PROTO_QP_INT_H

#include "qp.h"
#include "psn.h"

static inline struct sroce_swqe *
sroce_sq_slot(const struct sroce_qp *qp, u32 idx)
{
	return (struct sroce_swqe *)(qp->sq +
				     (size_t)(idx % qp->sq_size) * qp->sq_slot);
}

/* ATOMIC WRITE and FLUSH: answered by an empty READ response only. */
static inline bool sroce_wr_is_placement(u8 opcode)
{
	return opcode == SROCE_WR_ATOMIC_WRITE || opcode == SROCE_WR_FLUSH;
}

/*
 * Operations that take a responder resource and count against the
 * initiator depth (max_rd_atomic), and whose answer is a response, not
 * an ACK.
 */
static inline bool sroce_wr_is_rd_atomic(u8 opcode)
{
	return opcode == SROCE_WR_RDMA_READ ||
	       opcode == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == SROCE_WR_ATOMIC_FETCH_AND_ADD ||
	       sroce_wr_is_placement(opcode);
}

static inline bool sroce_wr_is_atomic(u8 opcode)
{
	return opcode == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == SROCE_WR_ATOMIC_FETCH_AND_ADD;
}

/* Local operations: executed by the requester, no packet, no PSN. */
static inline bool sroce_wr_is_local(u8 opcode)
{
	return opcode == SROCE_WR_LOCAL_INV || opcode == SROCE_WR_REG_MR ||
	       opcode == SROCE_WR_BIND_MW;
}

/* The transport bits of every opcode @qp sends. */
static inline u8 sroce_qp_transport(const struct sroce_qp *qp)
{
	switch (qp->type) {
	case SROCE_QPT_UC:
		return SROCE_TRANSPORT_UC;
	case SROCE_QPT_UD:
		return SROCE_TRANSPORT_UD;
	default:
		return qp->xrc ? SROCE_TRANSPORT_XRC : SROCE_TRANSPORT_RC;
	}
}

/* PSNs needed to carry @len bytes at @mtu: at least one. */
static inline u32 sroce_npsn(u32 len, u32 mtu)
{
	return len ? (len + mtu - 1) / mtu : 1;
}

/* Can the requester run at all in this state? */
static inline bool sroce_qp_can_send(const struct sroce_qp *qp)
{
	return qp->state == SROCE_QPS_RTS || qp->state == SROCE_QPS_SQD;
}

/* IBA 10.9.3: low 15 bits equal, not the invalid key, one full member. */
static inline bool sroce_pkey_match(u16 a, u16 b)
{
	return !((a ^ b) & 0x7fff) && (a & 0x7fff) && ((a | b) & 0x8000);
}

/* The current call's time: read through ops->now the first time. */
static inline u64 sroce_qp_now(struct sroce_qp *qp)
{
	if (qp->now == SROCE_NOW_LAZY)
		qp->now = qp->ops->now(qp->ctx);
	return qp->now;
}

/* Has this call the time already, so that using it costs no read? */
static inline bool sroce_qp_now_known(const struct sroce_qp *qp)
{
	return qp->now != SROCE_NOW_LAZY;
}

/* qp_state.c */
void sroce_qp_to_err(struct sroce_qp *qp);
void sroce_qp_to_sqe(struct sroce_qp *qp);
void sroce_qp_event(struct sroce_qp *qp, enum sroce_qp_event ev);

/* pkt.c */
void sroce_pkt_hdrs_init(const struct sroce_qp *qp, struct sroce_hdrs *h,
			 u8 opcode, u32 psn);
int sroce_pkt_emit(struct sroce_qp *qp, struct sroce_tx_pkt *tp,
		   const struct sroce_hdrs *h);
/* sroce_pkt_place(): memory not present yet, no WC status (v1.7). */
#define SROCE_PLACE_AGAIN	0xff
u8 sroce_pkt_place(struct sroce_qp *qp, const struct sroce_sge *sge, u32 nsge,
		   u32 off, u32 len, const void *payload, u32 poff,
		   const void *buf, bool recv);

/* req.c */
u32 sroce_req_run(struct sroce_qp *qp, u32 budget);
bool sroce_req_ready(const struct sroce_qp *qp);
void sroce_req_rewind(struct sroce_qp *qp, u32 psn);
void sroce_req_flush_done(struct sroce_qp *qp, u32 psn);
void sroce_req_catch_up(struct sroce_qp *qp);
bool sroce_req_flush(struct sroce_qp *qp, u32 budget);
void sroce_req_loss(struct sroce_qp *qp, bool timeout);
void sroce_req_grow(struct sroce_qp *qp);

/* comp.c */
enum sroce_drop sroce_comp_rx(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			      const void *payload);
void sroce_comp_progress(struct sroce_qp *qp);
void sroce_comp_complete(struct sroce_qp *qp, struct sroce_swqe *w, u8 status);
void sroce_comp_timeout(struct sroce_qp *qp);
void sroce_comp_arm(struct sroce_qp *qp);

/* resp.c */
enum sroce_drop sroce_resp_rx(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			      const void *payload);
u32 sroce_resp_run(struct sroce_qp *qp, u32 budget);
bool sroce_resp_ready(const struct sroce_qp *qp);
void sroce_resp_ack_deadline(struct sroce_qp *qp);
void sroce_resp_nak_deadline(struct sroce_qp *qp);
bool sroce_resp_flush(struct sroce_qp *qp, u32 budget);

#endif /* SROCE_PROTO_QP_INT_H */
