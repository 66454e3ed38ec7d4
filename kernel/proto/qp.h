/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 transport of one queue pair: the IBA 10.3 state machine, the
 * requester (WQE -> packets), the responder (request -> memory, ACK/NAK,
 * READ/atomic responses) and the completer (ACK/response -> completions,
 * retransmission).  Documentation/protocol-transport.rst explains the
 * policies (AckReq, ACK coalescing, retry and RNR timing, limits).
 *
 * API changes (newest first; keep this list short and stable):
 *   v1.10 ops->now is required: sroce_qp_init() refuses NULL.
 *   v1.9 SROCE_NOW_LAZY in place of a time defers reading the clock to
 *        ops->now, called only if the call needs the time; the core
 *        keeps the time of the current call; sroce_qp_flush() takes
 *        none.
 *   v1.8 XRC: SROCE_QPT_XRC_INI / SROCE_QPT_XRC_TGT at sroce_qp_init(),
 *        sroce_send_wqe.xrc_srqn, ops->xrc_srq (required for XRC_TGT),
 *        sroce_cqe.srqn; SROCE_MAX_HDR_LEN grew by the XRCETH.
 *   v1.7 ops->copy_in, ->store and ->atomic may return -SROCE_EAGAIN:
 *        the memory is not present now (on-demand paging); the core
 *        drops the packet and has it sent again (RNR NAK, or a READ or
 *        atomic response left to the requester's retry).
 *   v1.6 congestion control: sroce_qp_init_attr.cc (NULL: off); the
 *        caller sets sroce_pkt.ce from the IP header; CNPs are parsed
 *        and taken by sroce_qp_rx(); stats count CNPs, CE marks, cuts.
 *   v1.5 RC ATOMIC WRITE and FLUSH: SROCE_WR_ATOMIC_WRITE (value in
 *        wr->atomic_wr), SROCE_WR_FLUSH (wr->flush), their WC opcodes,
 *        SROCE_ACCESS_FLUSH_*; ops->atomic takes SROCE_OP_ATOMIC_WRITE;
 *        ops->mem_access takes SROCE_ACCESS_KEY_ONLY.  SROCE_WC_REG_MR
 *        moved off 8, now SROCE_WC_FLUSH as in ib_uverbs_wc_opcode.
 *   v1.4 sroce_qp_init_attr.sq_slot: SQ slots sized for the QP's caps
 *        (sroce_swqe_size()); 0 keeps whole struct sroce_swqe slots.
 *   v1.3 local operations: SROCE_WR_LOCAL_INV and SROCE_WR_REG_MR run
 *        through ops->local_op in SQ order and complete as
 *        SROCE_WC_LOCAL_INV / SROCE_WC_REG_MR.
 *   v1.2 sroce_qp_init_attr.ud_mtu: a UD QP's MTU (no path_mtu attribute
 *        for UD); 0 means 4096.
 *   v1.1 SROCE_COPY_GRH is a base (GRH byte k = SROCE_COPY_GRH + k);
 *        private fields may grow (only embed the structs, never poke them).
 *   v1  first published version.
 *
 * Model
 * -----
 * The caller embeds struct sroce_qp in its own QP object, hands it all the
 * storage it will ever use at sroce_qp_init() (send WQE slots, responder
 * resources) and a table of side-effect operations.  The core never reads
 * a clock of its own, never arms a timer, never allocates and holds no
 * lock: the caller serialises every call on one QP (one lock per QP) and
 * passes the current time to every entry point that takes one, or
 * SROCE_NOW_LAZY: then the core asks ops->now, once, if the call needs
 * the time at all (a request inside a message does not).  After any call
 * that can move it, the caller re-arms its one timer at
 * sroce_qp_next_deadline() and calls sroce_qp_on_deadline() when it
 * fires.  After any call, if sroce_qp_pending() is true the caller
 * schedules sroce_qp_kick().
 *
 * Receive path: the glue checks the ICRC, runs sroce_parse(), looks the
 * QP up by DestQP and calls sroce_qp_rx(), which checks QP state, opcode
 * vs QP type, P_Key and Q_Key equality, PSN and opcode sequence, then
 * runs the responder (requests) or the completer (ACKs and responses).
 *
 * Send path: after posting to the SQ or RQ the caller calls
 * sroce_qp_kick(); the requester pulls new WQEs with ops->next_send()
 * into its private SQ storage (where they stay until completed, for
 * retransmission), and builds packets with sroce_build().  Payload is
 * described, never copied: the glue copies or attaches pages and folds
 * the ICRC into that pass.
 *
 * Values of enums shared with verbs (states, attribute mask bits, access
 * and send flags, WR and WC opcodes, WC status, events) are numerically
 * those of <rdma/ib_verbs.h> / <infiniband/verbs.h>, so glue maps them by
 * assignment.  Exceptions are noted at the enum.
 */
#ifndef SROCE_PROTO_QP_H
#define SROCE_PROTO_QP_H

#include "os.h"
#include "wire.h"
#include "drop.h"
#include "cc.h"

/* Limits of the fixed-size parts of the shared structs. */
#define SROCE_MAX_SGE		32
#define SROCE_MAX_INLINE	(SROCE_MAX_SGE * 16)	/* shares the SGE array */
#define SROCE_MAX_MSG		0x80000000u	/* IBA message size limit, 2^31 */
/*
 * max_rd_atomic / max_dest_rd_atomic: rdma_rxe's figure.  Applications
 * (perftest among them) keep the device's maximum of READs outstanding,
 * and a small READ is all round trip.
 */
#define SROCE_MAX_RD_ATOMIC	128

/*
 * Policy constants (see Documentation/protocol-transport.rst).
 * SROCE_ACKREQ_EVERY: the requester sets AckReq on the last packet of a
 * burst of messages and on every SROCE_ACKREQ_EVERY-th packet without one.
 * SROCE_ACK_EVERY: the responder ACKs at least every that many accepted
 * packets even without AckReq, and SROCE_ACK_DELAY_NS after the end of a
 * message that came without AckReq.
 * SROCE_MAX_INFLIGHT: unacknowledged PSNs the requester may have out:
 * two ACK intervals, so that an ACK arrives while the second is on the
 * wire, and no more.  A deeper burst than the path can buffer is lost
 * whole and go-back-N sends it again (rdma_rxe's limit is 128 as well).
 * SROCE_RX_INLINE_BUDGET: READ response packets sent from inside
 * sroce_qp_rx(); the rest go out from sroce_qp_kick().
 */
#define SROCE_ACKREQ_EVERY	64
#define SROCE_ACK_EVERY		64
#define SROCE_ACK_DELAY_NS	20000ull
#define SROCE_MAX_INFLIGHT	128
#define SROCE_RX_INLINE_BUDGET	16
/*
 * Loss recovery.  Go-back-N throws away everything in flight behind a
 * lost packet, so each loss (sequence NAK, lost READ response, timeout)
 * halves the requester's window, down to SROCE_MIN_INFLIGHT PSNs; every
 * 4 PSNs acknowledged grow it by one, back up to SROCE_MAX_INFLIGHT.
 * The responder repeats a sequence NAK SROCE_NAK_RESEND_NS after it
 * (doubling each time, at most six times: a forged PSN must not buy an
 * endless NAK stream) while the expected PSN does not come: a lost NAK
 * or a lost first retransmission then costs that, not the ACK timeout.
 * The requester goes back again for a repeat only once its resend had a
 * round trip to arrive, at most SROCE_NAK_STALE_MAX_NS (comp.c,
 * sroce_comp_nak_stale()).
 */
#define SROCE_MIN_INFLIGHT	16
/*
 * SROCE_DEV_INFLIGHT: unacknowledged PSNs a device's RC QPs may have out
 * together.  Each QP with PSNs out takes an equal share, at least
 * SROCE_MIN_INFLIGHT (sroce_qp_set_senders()): sixteen QPs that each
 * fill SROCE_MAX_INFLIGHT overrun a receive buffer that one QP fits in,
 * and go-back-N pays every loss with the window behind it.
 */
#define SROCE_DEV_INFLIGHT	256
#define SROCE_NAK_RESEND_NS	2000000ull
#define SROCE_NAK_STALE_MAX_NS	(SROCE_NAK_RESEND_NS << 4)
/*
 * Local ACK timeouts that expire while ops->emit has refused every packet
 * since the timer started are not retries (the peer was sent nothing to
 * answer); at most this many in a row, so that a TX queue that never
 * drains still ends the QP with RETRY_EXC_ERR.  A period in which the
 * QP's responder sent is not counted: the queue drains, into answers
 * owed to the peer, which go first.
 */
#define SROCE_TX_STALL_MAX	16

enum sroce_qp_type {
	SROCE_QPT_RC = 2,	/* IB_QPT_RC */
	SROCE_QPT_UC = 3,	/* IB_QPT_UC */
	SROCE_QPT_UD = 4,	/* IB_QPT_UD */
	/*
	 * XRC (IBA 1.2.1): the initiator sends, the target answers and
	 * delivers into the XRC SRQ each request names.  Accepted by
	 * sroce_qp_init(); the QP then runs as RC on the XRC transport.
	 */
	SROCE_QPT_XRC_INI = 9,	/* IB_QPT_XRC_INI */
	SROCE_QPT_XRC_TGT = 10,	/* IB_QPT_XRC_TGT */
};

enum sroce_qp_state {		/* ib_qp_state */
	SROCE_QPS_RESET,
	SROCE_QPS_INIT,
	SROCE_QPS_RTR,
	SROCE_QPS_RTS,
	SROCE_QPS_SQD,
	SROCE_QPS_SQE,
	SROCE_QPS_ERR,
};

enum sroce_qp_attr_mask {	/* ib_qp_attr_mask */
	SROCE_QP_STATE			= 1 << 0,
	SROCE_QP_CUR_STATE		= 1 << 1,
	SROCE_QP_EN_SQD_ASYNC_NOTIFY	= 1 << 2,
	SROCE_QP_ACCESS_FLAGS		= 1 << 3,
	SROCE_QP_PKEY_INDEX		= 1 << 4,
	SROCE_QP_PORT			= 1 << 5,
	SROCE_QP_QKEY			= 1 << 6,
	SROCE_QP_AV			= 1 << 7,
	SROCE_QP_PATH_MTU		= 1 << 8,
	SROCE_QP_TIMEOUT		= 1 << 9,
	SROCE_QP_RETRY_CNT		= 1 << 10,
	SROCE_QP_RNR_RETRY		= 1 << 11,
	SROCE_QP_RQ_PSN			= 1 << 12,
	SROCE_QP_MAX_QP_RD_ATOMIC	= 1 << 13,
	SROCE_QP_ALT_PATH		= 1 << 14,
	SROCE_QP_MIN_RNR_TIMER		= 1 << 15,
	SROCE_QP_SQ_PSN			= 1 << 16,
	SROCE_QP_MAX_DEST_RD_ATOMIC	= 1 << 17,
	SROCE_QP_PATH_MIG_STATE		= 1 << 18,
	SROCE_QP_CAP			= 1 << 19,
	SROCE_QP_DEST_QPN		= 1 << 20,
};

enum sroce_access {		/* ib_access_flags */
	SROCE_ACCESS_LOCAL_WRITE	= 1 << 0,
	SROCE_ACCESS_REMOTE_WRITE	= 1 << 1,
	SROCE_ACCESS_REMOTE_READ	= 1 << 2,
	SROCE_ACCESS_REMOTE_ATOMIC	= 1 << 3,
	SROCE_ACCESS_MW_BIND		= 1 << 4,	/* windows may be bound */
	SROCE_ACCESS_FLUSH_GLOBAL	= 1 << 8,	/* FLUSH, global visibility */
	SROCE_ACCESS_FLUSH_PERSISTENT	= 1 << 9,	/* FLUSH, persistence */
	/*
	 * Not a right: tells ops->mem_access() to check the key, its PD,
	 * state and rights only, whatever @va and @len (a FLUSH of a whole
	 * MR, or of zero bytes, which still names a key).
	 */
	SROCE_ACCESS_KEY_ONLY		= 1 << 29,
	/*
	 * Not a right: tells ops->mem_access() that the lkey is a receive
	 * WQE's, which belongs to the SRQ's PD on a QP with an SRQ.
	 */
	SROCE_ACCESS_RECV		= 1 << 30,
};

/*
 * Attributes, as in ib_qp_attr.  @pkey is the P_Key value the caller read
 * from its table at @pkey_index: pass both whenever SROCE_QP_PKEY_INDEX is
 * in the mask (the core compares values, it has no table).  Of the address
 * vector (SROCE_QP_AV) the core keeps only the path's two GIDs, to tie
 * received RC and UC packets to it; the port is the caller's.
 */
struct sroce_qp_attr {
	enum sroce_qp_state qp_state;
	enum sroce_qp_state cur_qp_state;
	u8 path_mtu;		/* ib_mtu: 1 = 256 .. 5 = 4096 */
	u8 en_sqd_async_notify;
	u8 sq_draining;		/* query only */
	u8 max_rd_atomic;	/* initiator depth */
	u8 max_dest_rd_atomic;	/* responder resources */
	u8 min_rnr_timer;	/* 5-bit IBTA RNR timer code */
	u8 port_num;
	u8 timeout;		/* 4.096 us * 2^timeout; 0 = infinite */
	u8 retry_cnt;		/* 0..7 */
	u8 rnr_retry;		/* 0..7, 7 = infinite */
	u16 pkey_index;
	u16 pkey;
	u32 qkey;
	u32 rq_psn;
	u32 sq_psn;
	u32 dest_qp_num;
	u32 qp_access_flags;	/* enum sroce_access */
	u8 sgid[SROCE_GID_LEN];	/* AV: our end of the path */
	u8 dgid[SROCE_GID_LEN];	/* AV: the peer's end */
};

/* Send work request opcodes: ib_uverbs_wr_opcode / ibv_wr_opcode. */
enum sroce_wr_opcode {
	SROCE_WR_RDMA_WRITE		= 0,
	SROCE_WR_RDMA_WRITE_WITH_IMM	= 1,
	SROCE_WR_SEND			= 2,
	SROCE_WR_SEND_WITH_IMM		= 3,
	SROCE_WR_RDMA_READ		= 4,
	SROCE_WR_ATOMIC_CMP_AND_SWP	= 5,
	SROCE_WR_ATOMIC_FETCH_AND_ADD	= 6,
	SROCE_WR_LOCAL_INV		= 7,
	SROCE_WR_BIND_MW		= 8,	/* memory window bind (local) */
	SROCE_WR_SEND_WITH_INV		= 9,
	SROCE_WR_FLUSH			= 14,	/* RC, IBA 1.5 */
	SROCE_WR_ATOMIC_WRITE		= 15,	/* RC, IBA 1.5 */
	SROCE_WR_REG_MR			= 0x20,	/* IB_WR_REG_MR: kernel only */
};

enum sroce_send_flags {		/* ib_send_flags */
	SROCE_SEND_FENCE	= 1 << 0,
	SROCE_SEND_SIGNALED	= 1 << 1,
	SROCE_SEND_SOLICITED	= 1 << 2,
	SROCE_SEND_INLINE	= 1 << 3,
};

struct sroce_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

/*
 * A send WQE, copied out of any shared ring and validated (num_sge,
 * inline length, opcode known) by the caller.  The core still checks the
 * opcode against the QP type and completes a bad one with LOC_QP_OP_ERR.
 * The SGE / inline union comes last: an SQ slot may end inside it
 * (sroce_qp_init_attr.sq_slot).
 */
struct sroce_send_wqe {
	u64 wr_id;
	u8 opcode;		/* enum sroce_wr_opcode */
	u8 send_flags;		/* enum sroce_send_flags */
	u8 num_sge;		/* when not inline */
	u32 ex;			/* imm_data (host order of the wire value) or invalidate_rkey */
	u32 inline_len;		/* when SROCE_SEND_INLINE */
	u32 xrc_srqn;		/* XRC_INI: the remote XRC SRQ (XRCETH) */
	union {
		struct {
			u64 remote_addr;
			u32 rkey;
		} rdma;
		struct {
			u64 remote_addr;
			u64 compare_add;
			u64 swap;
			u32 rkey;
		} atomic;
		struct {		/* SROCE_WR_ATOMIC_WRITE */
			u64 remote_addr;	/* 8-aligned, checked remotely */
			u32 rkey;
			u8 value[8];	/* stored remotely byte for byte */
		} atomic_wr;
		struct {		/* SROCE_WR_FLUSH; no local data */
			u64 remote_addr;
			u32 rkey;
			u32 length;	/* SROCE_FLUSH_RANGE: bytes */
			u8 type;	/* enum sroce_flush_type bits */
			u8 level;	/* enum sroce_flush_level */
		} flush;
		struct {		/* SROCE_WR_REG_MR */
			u32 key;	/* the MR's new lkey/rkey */
			u32 access;	/* enum sroce_access */
		} reg;
		struct {		/* SROCE_WR_BIND_MW */
			u64 addr;
			u64 length;
			u32 mr_lkey;
			u32 mw_rkey;	/* the window's current rkey */
			u32 new_rkey;	/* its rkey once bound */
			u32 access;	/* enum sroce_access, remote bits */
		} bind;
		struct {
			u32 ah;		/* caller's address handle, echoed in emit */
			u32 remote_qpn;
			u32 remote_qkey; /* bit 31 set: use the QP's Q_Key */
		} ud;
	};
	union {
		struct sroce_sge sge[SROCE_MAX_SGE];
		u8 inline_data[SROCE_MAX_INLINE];
	};
};

struct sroce_recv_wqe {
	u64 wr_id;
	u8 num_sge;
	struct sroce_sge sge[SROCE_MAX_SGE];
};

/* Work completion status: ib_wc_status / ibv_wc_status. */
enum sroce_wc_status {
	SROCE_WC_SUCCESS		= 0,
	SROCE_WC_LOC_LEN_ERR		= 1,
	SROCE_WC_LOC_QP_OP_ERR		= 2,
	SROCE_WC_LOC_EEC_OP_ERR		= 3,
	SROCE_WC_LOC_PROT_ERR		= 4,
	SROCE_WC_WR_FLUSH_ERR		= 5,
	SROCE_WC_MW_BIND_ERR		= 6,
	SROCE_WC_BAD_RESP_ERR		= 7,
	SROCE_WC_LOC_ACCESS_ERR		= 8,
	SROCE_WC_REM_INV_REQ_ERR	= 9,
	SROCE_WC_REM_ACCESS_ERR		= 10,
	SROCE_WC_REM_OP_ERR		= 11,
	SROCE_WC_RETRY_EXC_ERR		= 12,
	SROCE_WC_RNR_RETRY_EXC_ERR	= 13,
	SROCE_WC_LOC_RDD_VIOL_ERR	= 14,
	SROCE_WC_REM_INV_RD_REQ_ERR	= 15,
	SROCE_WC_REM_ABORT_ERR		= 16,
	SROCE_WC_INV_EECN_ERR		= 17,
	SROCE_WC_INV_EEC_STATE_ERR	= 18,
	SROCE_WC_FATAL_ERR		= 19,
	SROCE_WC_RESP_TIMEOUT_ERR	= 20,
	SROCE_WC_GENERAL_ERR		= 21,
};

/*
 * Work completion opcodes: ib_uverbs_wc_opcode / ibv_wc_opcode, which the
 * kernel's ib_wc_opcode equals but for REG_MR (8 before 6.2, 10 since):
 * the glue maps SROCE_WC_REG_MR, a kernel-only opcode, on kernel CQs.
 */
enum sroce_wc_opcode {
	SROCE_WC_SEND			= 0,
	SROCE_WC_RDMA_WRITE		= 1,
	SROCE_WC_RDMA_READ		= 2,
	SROCE_WC_COMP_SWAP		= 3,
	SROCE_WC_FETCH_ADD		= 4,
	SROCE_WC_BIND_MW		= 5,
	SROCE_WC_LOCAL_INV		= 6,
	SROCE_WC_FLUSH			= 8,
	SROCE_WC_ATOMIC_WRITE		= 9,
	SROCE_WC_REG_MR			= 0x20,
	SROCE_WC_RECV			= 128,
	SROCE_WC_RECV_RDMA_WITH_IMM	= 129,
};

/*
 * Work completion flags: the kernel's ib_wc_flags values.  (libibverbs
 * numbers WITH_INV differently, 1 << 3: the provider translates.)
 */
enum sroce_wc_flags {
	SROCE_WC_F_GRH		= 1 << 0,
	SROCE_WC_F_WITH_IMM	= 1 << 1,
	SROCE_WC_F_WITH_INV	= 1 << 2,
};

/*
 * A completion.  On error only wr_id, status, opcode (best effort),
 * is_recv and qp_num are meaningful, as in verbs.  For flush completions
 * of receive WQEs opcode is SROCE_WC_RECV.
 */
struct sroce_cqe {
	u64 wr_id;
	u8 status;		/* enum sroce_wc_status */
	u8 opcode;		/* enum sroce_wc_opcode */
	u8 is_recv;		/* from the receive queue (or SRQ) */
	u8 flags;		/* enum sroce_wc_flags */
	u32 byte_len;		/* receive: payload bytes placed (UD: + 40 GRH) */
	u32 ex;			/* imm_data (host order) or invalidated rkey */
	u32 qp_num;
	u32 src_qp;		/* UD receive: DETH source QPN */
	u16 pkey_index;
	u8 solicited;		/* receive: BTH SE bit set */
	u32 vendor_err;		/* the NAK syndrome for remote errors */
	u32 srqn;		/* XRC_TGT receive: the XRC SRQ of the WQE */
};

/* Asynchronous QP events: ib_event_type. */
enum sroce_qp_event {
	SROCE_EVENT_QP_FATAL		= 1,
	SROCE_EVENT_QP_REQ_ERR		= 2,
	SROCE_EVENT_QP_ACCESS_ERR	= 3,
	SROCE_EVENT_COMM_EST		= 4,
	SROCE_EVENT_SQ_DRAINED		= 5,
	SROCE_EVENT_QP_LAST_WQE_REACHED	= 16,
};

/*
 * A resolved, checked range of registered memory.  Filled by
 * ops->mem_access(), opaque to the core except for @len.  It is valid only
 * until the core entry point that obtained it returns: the caller keeps
 * the memory alive across its own per-QP locked call (RCU, refcount held
 * by the QP call, ...); the core keeps no mem_ref across calls.
 */
struct sroce_mem_ref {
	void *mr;		/* caller's object */
	void *map;		/* caller's: the mapping the check saw */
	u64 va;			/* first byte of the checked range */
	u32 len;
	u32 priv;		/* caller's use */
};

/* One piece of a packet's payload: @len bytes at @off into @ref's range. */
struct sroce_tx_seg {
	struct sroce_mem_ref ref;
	u32 off;
	u32 len;
};

/*
 * A packet to transmit.  hdr[] holds BTH and extension headers already
 * encoded (sroce_build), hdr_len bytes.  Payload is either @inline_data
 * (@paylen bytes, valid during the call) or nseg segments summing to
 * @paylen.  The caller appends @pad zero bytes and the ICRC, and adds
 * UDP/IP: for RC/UC towards the QP's address vector, for UD towards @ah.
 */
struct sroce_tx_pkt {
	u8 hdr[SROCE_MAX_HDR_LEN];
	u16 hdr_len;
	u8 pad;
	u8 nseg;
	u32 paylen;
	u32 ah;			/* UD: the WQE's address handle */
	u32 psn;		/* copy of the BTH PSN, for tracing */
	u8 opcode;		/* copy of the BTH opcode */
	bool ect;		/* ECN-capable: set ECT(0) in the IP header */
	bool icrc_rxe;		/* FLUSH: rdma_rxe's ICRC variant (icrc.h) */
	const u8 *inline_data;
	struct sroce_tx_seg seg[SROCE_MAX_SGE];
};

/*
 * UD receive buffers start with the 40-byte GRH of the packet.  The core
 * asks for it through ops->copy_in() with @payload_off = SROCE_COPY_GRH +
 * k: copy from byte k of the packet's GRH image (IPv4: 20 zero bytes then
 * the IP header, as rxe and hardware do) instead of from the payload.
 * The GRH may span receive SGEs, hence the offset.
 */
#define SROCE_GRH_LEN		40
#define SROCE_COPY_GRH		(U32_MAX - 63)

/*
 * Side effects, provided by the caller.  Every int-returning op, like
 * every int-returning core function, returns 0 on success and a negative
 * SROCE_E* (os.h: the host's errno values) on failure.  Called only from
 * inside a core entry point, with the caller's per-QP serialisation held.
 */
struct sroce_qp_ops {
	/*
	 * Next posted send WQE into @out; -SROCE_EAGAIN if none.  @out is
	 * an SQ slot's: it has room for the SGEs or inline bytes the slot
	 * size allows (sroce_qp_init_attr.sq_slot), and not for more, so
	 * write fields and that part of the union, never the whole struct.
	 * A WQE with more fails (num_sge above what the slot holds:
	 * LOC_QP_OP_ERR; inline_len: LOC_LEN_ERR) without its data.
	 */
	int (*next_send)(void *ctx, struct sroce_send_wqe *out);
	/* Take the next receive WQE (RQ or SRQ); -SROCE_EAGAIN if none (RNR). */
	int (*recv_wqe)(void *ctx, struct sroce_recv_wqe *out);
	/*
	 * Resolve @key (an lkey, or an rkey if @remote) for @len bytes at @va
	 * needing @access (enum sroce_access; 0 = local read; with
	 * SROCE_ACCESS_RECV the PD is the SRQ's, if the QP has one).  Checks
	 * key validity, PD, access flags and bounds.  Failure maps to
	 * LOC_PROT_ERR locally and to a remote access NAK remotely.
	 */
	int (*mem_access)(void *ctx, u32 key, bool remote, u64 va, u32 len,
			  u32 access, struct sroce_mem_ref *out);
	/* Transmit one packet; failure = try again later (nothing sent). */
	int (*emit)(void *ctx, const struct sroce_tx_pkt *pkt);
	/*
	 * Copy @len payload bytes starting @payload_off into the received
	 * packet (@payload is the handle given to sroce_qp_rx) to @off in
	 * @dst.  @payload_off >= SROCE_COPY_GRH: from the GRH image, above.
	 */
	int (*copy_in)(void *ctx, const struct sroce_mem_ref *dst, u32 off,
		       const void *payload, u32 payload_off, u32 len);
	/*
	 * copy_in, store and atomic: -SROCE_EAGAIN means the memory is not
	 * present yet (the caller is making it present); nothing is lost.
	 */
	/* Store @len bytes of core data (an atomic's original value). */
	int (*store)(void *ctx, const struct sroce_mem_ref *dst, u32 off,
		     const void *src, u32 len);
	/*
	 * The 8-byte atomic at @dst (8-aligned, checked by the core): @op is
	 * SROCE_OP_CMP_SWAP or SROCE_OP_FETCH_ADD; the value before goes to
	 * *@orig.  SROCE_OP_ATOMIC_WRITE stores @swap_add (its bytes are the
	 * packet's, in memory order) as one 8-byte write.  The caller makes
	 * each atomic against other QPs, the others and the CPU.
	 */
	int (*atomic)(void *ctx, const struct sroce_mem_ref *dst, u8 op,
		      u64 cmp, u64 swap_add, u64 *orig);
	/* Post a completion to the send or receive CQ (cqe->is_recv). */
	void (*complete)(void *ctx, const struct sroce_cqe *cqe);
	/* Asynchronous event; may be NULL. */
	void (*event)(void *ctx, enum sroce_qp_event ev);
	/*
	 * SEND_WITH_INV received: invalidate @rkey.  Failure completes the
	 * receive WQE with LOC_QP_OP_ERR and moves the QP to ERR.  May be
	 * NULL: then the rkey is only reported in the CQE
	 * (SROCE_WC_F_WITH_INV, cqe->ex) for the caller to act on.
	 */
	int (*invalidate)(void *ctx, u32 rkey);
	/*
	 * Run a local operation (SROCE_WR_LOCAL_INV: invalidate the key in
	 * wr->ex; SROCE_WR_REG_MR: wr->reg) when the requester reaches it,
	 * after every earlier WQE has been sent (with SROCE_SEND_FENCE:
	 * completed).  Returns a status (enum sroce_wc_status): non-zero
	 * fails the WQE, in order, and the QP with it.  May be NULL: local
	 * operations then fail with SROCE_WC_LOC_QP_OP_ERR.
	 */
	u8 (*local_op)(void *ctx, const struct sroce_send_wqe *wr);
	/*
	 * XRC_TGT only: make XRC SRQ @srqn the one that the following
	 * recv_wqe and mem_access calls (its PD, for local and remote
	 * keys) of this entry point use.  Fails if there is no such SRQ
	 * or it belongs to another XRC domain than the QP: the request is
	 * then answered with an invalid request NAK.  Called for every new
	 * request packet and before each READ response packet with data
	 * (its memory is checked again).  Receive completions name their
	 * SRQ in cqe->srqn: route them by it.
	 */
	int (*xrc_srq)(void *ctx, u32 srqn);
	/*
	 * The monotonic time in ns, for a call passed SROCE_NOW_LAZY; at
	 * most once per call.  Never NULL (sroce_qp_init() refuses it): any
	 * call may be passed SROCE_NOW_LAZY.
	 */
	u64 (*now)(void *ctx);
};

/* ---- Private state below: embed, but touch only through the API. ---- */

/*
 * A send WQE held by the core until it completes.  @wr comes last, so
 * that a slot sized by sroce_swqe_size() holds all of it but the SGEs or
 * inline bytes the QP cannot take.
 */
struct sroce_swqe {
	u32 length;		/* message bytes */
	u32 first_psn;		/* valid once started */
	u32 npsn;		/* PSNs the message consumes */
	u8 status;		/* error found by the requester, completed in order */
	u8 done;		/* UC/UD, local ops: complete when it reaches the head */
	struct sroce_send_wqe wr;
};

/*
 * Bytes of an SQ slot for WQEs of at most @max_sge SGEs and @max_inline
 * inline bytes (each at most the SROCE_MAX_* above): the header and the
 * larger of the two, rounded up to the struct's alignment.
 */
static inline u32 sroce_swqe_size(u32 max_sge, u32 max_inline)
{
	u32 tail = max_sge * (u32)sizeof(struct sroce_sge);

	if (tail < max_inline)
		tail = max_inline;
	tail += (u32)(offsetof(struct sroce_swqe, wr) +
		      offsetof(struct sroce_send_wqe, sge));
	return (tail + (u32)__alignof__(struct sroce_swqe) - 1) &
	       ~((u32)__alignof__(struct sroce_swqe) - 1);
}

/*
 * A responder READ/atomic resource (IBA "responder resources"); ATOMIC
 * WRITE and FLUSH take one too (IBA 1.5), answered by an empty READ
 * response.
 */
struct sroce_rd_res {
	u8 kind;		/* 0 free, or the request's enum sroce_op */
	u8 pending;		/* responses left to send */
	u8 replay;		/* answering a duplicate of the request */
	u32 psn;		/* first PSN of the original request */
	u32 npsn;
	u32 cur_psn;		/* next response PSN to send */
	u32 end_psn;		/* one past the last PSN to send */
	u64 va;			/* READ: address of cur_psn's payload */
	u32 rkey;
	u32 resid;		/* READ: bytes left from cur_psn */
	u32 start_psn;		/* PSN of the (re)request being answered */
	u64 orig;		/* atomic: value returned (replay cache) */
	u32 msn;		/* MSN carried by the response */
	u32 seq;		/* allocation order, for eviction */
	u32 srqn;		/* XRC: the XRC SRQ the request named */
};

struct sroce_qp_stats {
	u64 tx_pkts;
	u64 rx_pkts;
	u64 retransmits;	/* go-back-N restarts */
	u64 timeouts;		/* local ACK timeouts */
	u64 seq_naks_rcvd;
	u64 rnr_naks_rcvd;
	u64 seq_naks_sent;
	u64 rnr_naks_sent;
	u64 dup_requests;
	u64 implied_naks;	/* ACK past an unanswered READ/atomic */
	u64 access_naks_sent;	/* remote access error NAKs */
	u64 access_naks_rcvd;
	u64 error_naks_sent;	/* invalid request / remote op error NAKs */
	u64 error_naks_rcvd;
	u64 tx_stalls;		/* ACK timeouts not counted: own TX refused */
	u64 acks_deferred;	/* ACK/NAKs refused by emit, sent later */
	u64 flushes_deferred;	/* flushes that left WQEs for a later kick */
	u64 cnp_sent;		/* CNPs sent for CE-marked packets received */
	u64 cnp_rcvd;		/* CNPs taken by the reaction point */
	u64 ecn_marked;		/* CE-marked packets received */
	u64 rate_decreases;	/* reaction point cuts */
	u64 flush_icrc_switches; /* FLUSH ICRC variant changes (req.c) */
	u64 seq_naks_stale;	/* repeated NAKs older than our resend */
};

struct sroce_qp {
	enum sroce_qp_type type;
	enum sroce_qp_state state;
	u32 qpn;
	const struct sroce_qp_ops *ops;
	void *ctx;
	struct sroce_qp_attr attr;
	bool sq_sig_all;
	bool srq;
	bool comm_est;
	u8 xrc;			/* 0, SROCE_QPT_XRC_INI or _TGT; type is RC */
	u32 mtu;		/* bytes */
	struct sroce_qp_stats stats;

	/* SQ storage: indices are free-running, slot = idx % sq_size. */
	u8 *sq;
	u32 sq_size;
	u32 sq_slot;		/* bytes per slot */
	u32 sq_max_sge;		/* what a slot holds */
	u32 sq_max_inline;
	u32 rq_size;		/* most WQEs one ERR flush takes from the RQ */
	/* ERR/SQE: a flush stopped at its budget, the rings may hold more. */
	bool flush_more;

	struct {
		u32 tail;	/* one past the newest WQE pulled in */
		u32 next;	/* WQE being sent (or next to start) */
		u32 hi;		/* one past the newest WQE ever started */
		u32 rd_out;	/* READ/atomic WQEs in [comp.head, next) */
		u32 off_psn;	/* PSNs of wqe[next] already sent */
		u32 psn;	/* next PSN to send */
		u32 psn_hi;	/* one past the highest PSN ever sent */
		u32 noack;	/* packets since the last AckReq */
		u32 win;	/* PSN window after a loss; 0 = SROCE_MAX_INFLIGHT */
		u32 share;	/* of SROCE_DEV_INFLIGHT; 0: no device limit */
		u32 win_psn;	/* comp.psn the window last grew from */
		u8 retry_left;
		u8 rnr_left;
		u8 stall_left;	/* timeouts excused by TX refusal, then retries */
		bool rnr_wait;
		bool timer_on;
		bool refused;	/* ops->emit refused the last packet tried */
		bool sent;	/* a packet left since the ACK timer started */
		bool resp_sent;	/* ... or one of our responder's did */
		u64 rnr_deadline;
		u64 ack_deadline;
		bool stopped;	/* a WQE with an error blocks further sends */
		bool sq_drained_sent;
		/* sroce_req_flush_icrc() */
		bool flush_rxe;	/* FLUSHes go out with rdma_rxe's ICRC */
		bool flush_sure; /* ... or not: a FLUSH went through as is */
		u8 flush_misses; /* resends from flush_miss_psn: 0..3+ */
		u32 flush_miss_psn;
		/* Round trip, RFC 6298's estimator: an AckReq to its ACK. */
		bool rtt_on;	/* rtt_psn, sent at rtt_ns, is being timed */
		u32 rtt_psn;
		u64 rtt_ns;
		u64 srtt;	/* ns; 0: no sample yet */
		u64 rttvar;
	} req;

	struct {
		u32 head;	/* oldest WQE not completed */
		u32 psn;	/* oldest unacknowledged PSN */
		u32 gap_psn;	/* go-back already done for this comp psn */
		bool gap_retried;
		bool nak_seen;	/* a sequence NAK for comp.psn was paid for */
		bool resent;	/* comp.psn went out again after the go-back, */
		u64 resent_ns;	/* ... last at this time */
	} comp;

	struct {
		u32 psn;	/* expected PSN */
		u32 msn;
		bool nak_sent;	/* NAK-once: seq error / RNR NAK outstanding */
		u8 nak_tries;	/* sequence NAKs repeated */
		u64 nak_deadline; /* repeat the sequence NAK; 0 = none */
		bool uc_drop;	/* UC: drop until the next FIRST/ONLY */
		u32 cur;	/* 0, or SROCE_OPF_SEND / SROCE_OPF_WRITE in progress */
		u32 off;	/* bytes of the current message placed */
		u64 va;		/* WRITE in progress */
		u32 rkey;
		u32 resid;
		bool have_rwqe;
		u32 srqn;	/* XRC: the SRQ of the message in progress */
		struct sroce_recv_wqe rwqe;
		u32 unacked;	/* accepted packets not yet ACKed */
		u64 ack_deadline;
		bool ack_held;	/* ACK/NAK waiting behind READ/atomic responses */
		u8 held_syn;
		u32 held_psn;
		u32 res_seq;
		struct sroce_rd_res *res;
		u32 max_res;
		/*
		 * Slots [0, res_used) have been handed out since the reset;
		 * they are taken in turn from slot 0, so the scans that are
		 * left stop here rather than at max_res.
		 */
		u32 res_used;
		/*
		 * Slots with responses owed (their pending set), so that
		 * "anything owed?" costs no scan of res_used slots.
		 */
		u32 res_pending;
		struct sroce_rd_res *res_last;	/* the last slot made pending */
		/*
		 * Slots are handed out in turn from res_next, over res_n of
		 * them: the one there is free (not yet used, or given back
		 * by sroce_resp_res_undo()) or the oldest.  A change of
		 * max_dest_rd_atomic since the first (res_scan) breaks that
		 * order; until the next reset each is then found by a scan.
		 */
		u32 res_next;
		u32 res_n;
		bool res_scan;
	} resp;

	/* Congestion control; p is NULL when it is off. */
	struct {
		const struct sroce_cc_params *p;
		struct sroce_cc_rp rp;
		u64 last_cnp;	/* notification point: when the last CNP left */
		bool paced;	/* the requester waits for rp.next_tx */
	} cc;

	struct sroce_tx_pkt txp;	/* scratch, keeps it off the stack */
	u64 now;	/* the current call's time, or SROCE_NOW_LAZY: unread */
};

struct sroce_qp_init_attr {
	enum sroce_qp_type type;
	u32 qpn;
	/*
	 * sq_size slots of sq_slot bytes each: sroce_swqe_size() of the
	 * most SGEs and inline bytes a WQE of this QP may carry, or 0 for
	 * sizeof(struct sroce_swqe) (an array of them).
	 */
	void *sq;
	u32 sq_size;
	u32 sq_slot;
	u32 rq_size;			/* RQ entries (0: as many as sq_size) */
	struct sroce_rd_res *res;	/* max_res slots (RC), may be NULL otherwise */
	u32 max_res;			/* upper bound of max_dest_rd_atomic */
	bool sq_sig_all;
	bool srq;			/* receives come from an SRQ (XRC: implied) */
	u8 ud_mtu;			/* UD: port MTU as ib_mtu; 0 = 4096 */
	/*
	 * RC/UC congestion control (cc.h), read on every packet, so it
	 * outlives the QP; NULL: no CNPs sent or taken, no pacing.
	 */
	const struct sroce_cc_params *cc;
	const struct sroce_qp_ops *ops;
	void *ctx;
};

/*
 * ---- Entry points.  Those with @now_ns take the caller's monotonic time
 * in ns, or SROCE_NOW_LAZY to have the core read ops->now if it needs it.
 * sroce_qp_modify() reads none today (an ERR flush, an SQD drain need
 * none); it keeps the parameter for a transition that will.
 */
#define SROCE_NOW_LAZY	U64_MAX

/* Set up @qp in RESET.  -SROCE_EINVAL on a bad argument. */
int sroce_qp_init(struct sroce_qp *qp, const struct sroce_qp_init_attr *ia);

/*
 * ib_modify_qp: validates the transition and the attribute mask for the
 * QP type (IBA 10.3 / ib_modify_qp_is_ok) and the values, then applies
 * them atomically.  Moving to ERR flushes (completions are posted from
 * inside this call); moving to RESET forgets all WQEs without completing
 * them.  Returns 0 or -SROCE_EINVAL.
 */
int sroce_qp_modify(struct sroce_qp *qp, const struct sroce_qp_attr *attr,
		    u32 mask, u64 now_ns);

void sroce_qp_query(const struct sroce_qp *qp, struct sroce_qp_attr *attr);

/*
 * Run the requester (and pending READ/atomic responses) for at most
 * @budget packets.  Also pulls and flushes posted WQEs in ERR (and send
 * WQEs in SQE).  Returns true if the budget ran out with work left.
 * False while sroce_qp_pending() stays true means ops->emit refused a
 * packet: retry later (e.g. when TX resources free up), do not spin.
 */
bool sroce_qp_kick(struct sroce_qp *qp, u32 budget, u64 now_ns);

/* True if sroce_qp_kick() has something to do right now. */
bool sroce_qp_pending(const struct sroce_qp *qp);

/*
 * The device's share of in-flight PSNs (SROCE_DEV_INFLIGHT).  @senders:
 * how many of the device's QPs are sending (sroce_qp_sending()), this one
 * included; 0 lifts the limit.  Called before sroce_qp_kick(); a share
 * smaller than what is out already stops the requester once the packets
 * it sent since its last AckReq include one.
 */
void sroce_qp_set_senders(struct sroce_qp *qp, u32 senders);
/* An RC requester with PSNs out: the device counts it in @senders. */
bool sroce_qp_sending(const struct sroce_qp *qp);

/*
 * A received packet, already ICRC-checked, parsed and matched to this QP
 * by DestQP.  @payload is the caller's opaque handle, passed back to
 * ops->copy_in().  May emit ACKs, NAKs and up to SROCE_RX_INLINE_BUDGET
 * READ responses, post completions and change the QP state.  Returns
 * SROCE_DROP_NONE if the packet was consumed (including duplicates that
 * were answered and requests answered with a NAK) or why it was dropped.
 */
enum sroce_drop sroce_qp_rx(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			    const void *payload, u64 now_ns);

/* Earliest armed deadline, or U64_MAX. */
u64 sroce_qp_next_deadline(const struct sroce_qp *qp);

/*
 * Handle every deadline <= @now_ns, or the time ops->now gives
 * (retransmit, RNR retry, delayed ACK).
 */
void sroce_qp_on_deadline(struct sroce_qp *qp, u64 now_ns);

/* Move to ERR and flush every outstanding send and receive WQE. */
void sroce_qp_flush(struct sroce_qp *qp);

/* Timing helpers, exposed for tests and the documentation. */
u64 sroce_ack_timeout_ns(u8 timeout);		/* 0 -> U64_MAX */
u64 sroce_rnr_timer_ns(u8 code);

#endif /* SROCE_PROTO_QP_H */
