// SPDX-License-Identifier: GPL-2.0
/*
 * Transport cost of one 4 KiB RDMA WRITE (RC, path MTU 4096, so one
 * WRITE_ONLY packet) and of one small RDMA READ at each end: what the core
 * itself spends per packet, on top of the wire-layer figures in
 * wire_bench.c.
 *
 *   qp-write4k-req   requester + completer: a posted WQE pulled, its
 *                    packet built and handed to emit, its ACK taken back
 *                    and the completion posted
 *   qp-write4k-resp  responder: the packet checked (state, PSN, R_Key
 *                    through mem_access), its 4 KiB placed through
 *                    copy_in (a memcpy here, as the glue's copy is) and
 *                    the ACK built and handed to emit
 *   qp-read64-resp   responder: a 64-byte READ request checked, a
 *                    responder resource taken (all SROCE_MAX_RD_ATOMIC of
 *                    them hold earlier READs, as in any long READ run, so
 *                    the oldest is reused) and the READ response built and
 *                    handed to emit
 *   qp-read64-req    requester + completer with SROCE_MAX_RD_ATOMIC
 *                    64-byte READs out: the oldest one's response placed
 *                    and completed, and one more READ pulled and sent
 *
 * The ops table is the thinnest possible: one MR, no copies on TX (the
 * glue attaches pages), so the figures are the core's own.
 */
#include "bench.h"
#include "psn.h"
#include "qp.h"
#include "wire.h"

#define PAYLEN		4096
#define MR_KEY		0x1234
#define MR_VA		0x100000ull
#define SQ_SLOTS	256	/* room for SROCE_MAX_RD_ATOMIC READs and more */

struct bq {
	struct sroce_qp qp;
	struct sroce_swqe sq[SQ_SLOTS];
	struct sroce_rd_res res[SROCE_MAX_RD_ATOMIC];
	struct sroce_send_wqe next;	/* what next_send hands out */
	bool have_next;
	u32 emitted_psn;
	u32 ncqe;
};

static u8 mem[PAYLEN];
static u8 payload[PAYLEN];
static struct bq req, resp;
static u32 resp_psn, ack_msn;

static int bq_next_send(void *ctx, struct sroce_send_wqe *out)
{
	struct bq *q = ctx;

	if (!q->have_next)
		return -SROCE_EAGAIN;
	*out = q->next;
	q->have_next = false;
	return 0;
}

static int bq_recv_wqe(void *ctx, struct sroce_recv_wqe *out)
{
	return -SROCE_EAGAIN;
}

static int bq_mem_access(void *ctx, u32 key, bool remote, u64 va, u32 len,
			 u32 access, struct sroce_mem_ref *out)
{
	if (key != MR_KEY || va < MR_VA || va + len > MR_VA + PAYLEN)
		return -SROCE_EACCES;
	out->mr = mem;
	out->va = va;
	out->len = len;
	out->priv = 0;
	return 0;
}

static int bq_emit(void *ctx, const struct sroce_tx_pkt *p)
{
	struct bq *q = ctx;

	q->emitted_psn = p->psn;
	sroce_bench_use(p->paylen);
	return 0;
}

static int bq_copy_in(void *ctx, const struct sroce_mem_ref *dst, u32 off,
		      const void *pl, u32 poff, u32 len)
{
	memcpy(mem + (dst->va - MR_VA) + off, (const u8 *)pl + poff, len);
	return 0;
}

static int bq_store(void *ctx, const struct sroce_mem_ref *dst, u32 off,
		    const void *src, u32 len)
{
	return -SROCE_EFAULT;
}

static int bq_atomic(void *ctx, const struct sroce_mem_ref *dst, u8 op,
		     u64 cmp, u64 swap_add, u64 *orig)
{
	return -SROCE_EFAULT;
}

static void bq_complete(void *ctx, const struct sroce_cqe *cqe)
{
	struct bq *q = ctx;

	q->ncqe++;
	sroce_bench_use(cqe->status);
}

/* Required by sroce_qp_init(); every case passes its time itself. */
static u64 bq_now(void *ctx)
{
	return 1000;
}

static const struct sroce_qp_ops bq_ops = {
	.now = bq_now,
	.next_send = bq_next_send,
	.recv_wqe = bq_recv_wqe,
	.mem_access = bq_mem_access,
	.emit = bq_emit,
	.copy_in = bq_copy_in,
	.store = bq_store,
	.atomic = bq_atomic,
	.complete = bq_complete,
};

/*
 * A case whose QP does not reach RTS, or whose packet is dropped, would
 * measure nothing: crash, so that bench-core reports the case as failed.
 */
static void bq_fail(void)
{
	__builtin_trap();
}

static void bq_setup(struct bq *q, u32 qpn, u32 dest, u8 nres, u8 nrd)
{
	struct sroce_qp_init_attr ia = {
		.type = SROCE_QPT_RC, .qpn = qpn, .sq = q->sq,
		.sq_size = SQ_SLOTS, .res = q->res, .max_res = nres,
		.ops = &bq_ops, .ctx = q,
	};
	struct sroce_qp_attr a = {
		.pkey = SROCE_DEFAULT_PKEY, .port_num = 1, .path_mtu = 5,
		.dest_qp_num = dest, .rq_psn = 0, .sq_psn = 0,
		.max_dest_rd_atomic = nres, .max_rd_atomic = nrd,
		.min_rnr_timer = 1, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7,
		.qp_access_flags = SROCE_ACCESS_LOCAL_WRITE |
				   SROCE_ACCESS_REMOTE_WRITE |
				   SROCE_ACCESS_REMOTE_READ,
	};

	memset(q, 0, sizeof(*q));
	if (sroce_qp_init(&q->qp, &ia))
		bq_fail();
	a.qp_state = SROCE_QPS_INIT;
	if (sroce_qp_modify(&q->qp, &a, SROCE_QP_STATE | SROCE_QP_PKEY_INDEX |
			    SROCE_QP_PORT | SROCE_QP_ACCESS_FLAGS, 0))
		bq_fail();
	a.qp_state = SROCE_QPS_RTR;
	if (sroce_qp_modify(&q->qp, &a, SROCE_QP_STATE | SROCE_QP_AV |
			    SROCE_QP_PATH_MTU | SROCE_QP_DEST_QPN |
			    SROCE_QP_RQ_PSN | SROCE_QP_MAX_DEST_RD_ATOMIC |
			    SROCE_QP_MIN_RNR_TIMER, 0))
		bq_fail();
	a.qp_state = SROCE_QPS_RTS;
	if (sroce_qp_modify(&q->qp, &a, SROCE_QP_STATE | SROCE_QP_TIMEOUT |
			    SROCE_QP_RETRY_CNT | SROCE_QP_RNR_RETRY |
			    SROCE_QP_SQ_PSN | SROCE_QP_MAX_QP_RD_ATOMIC, 0))
		bq_fail();
}

static void setup_req(void)
{
	bq_setup(&req, 0x11, 0x22, 4, 4);
	ack_msn = 0;
}

/* Post one signaled RDMA WRITE or READ of @len bytes and kick the QP. */
static void req_post(u8 opcode, u32 len)
{
	struct sroce_send_wqe *w = &req.next;

	memset(w, 0, sizeof(*w));
	w->opcode = opcode;
	w->send_flags = SROCE_SEND_SIGNALED;
	w->num_sge = 1;
	w->sge[0].addr = MR_VA;
	w->sge[0].length = len;
	w->sge[0].lkey = MR_KEY;
	w->rdma.remote_addr = MR_VA;
	w->rdma.rkey = MR_KEY;
	req.have_next = true;
	sroce_qp_kick(&req.qp, 1, 1000);
}

/* A packet to QP @dqpn at @psn: its BTH, and room for @ext header bytes. */
static void bq_pkt(struct sroce_pkt *pkt, u8 opcode, u32 dqpn, u32 psn,
		   u32 ext)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->h.bth.opcode = opcode;
	pkt->h.bth.pkey = SROCE_DEFAULT_PKEY;
	pkt->h.bth.dqpn = dqpn;
	pkt->h.bth.psn = psn;
	pkt->op = sroce_opinfo(opcode);
	pkt->hdr_len = SROCE_BTH_LEN + ext;
}

/* An ACK or READ response to the requester at @psn, carrying an AETH. */
static void req_answer_pkt(struct sroce_pkt *pkt, u8 opcode, u32 psn)
{
	bq_pkt(pkt, opcode, 0x11, psn, SROCE_AETH_LEN);
	pkt->h.aeth.syndrome = sroce_aeth_syndrome(SROCE_AETH_ACK,
						   SROCE_AETH_CREDIT_INVALID);
	pkt->h.aeth.msn = ++ack_msn & SROCE_PSN_MASK;
}

static void write4k_req(void)
{
	struct sroce_pkt ack;
	u32 before = req.ncqe;

	req_post(SROCE_WR_RDMA_WRITE, PAYLEN);
	req_answer_pkt(&ack, SROCE_OPC(RC, ACK), req.emitted_psn);
	sroce_bench_use(sroce_qp_rx(&req.qp, &ack, NULL, 2000));
	if (req.ncqe != before + 1)
		bq_fail();
}

static void setup_resp(void)
{
	unsigned int i;

	bq_setup(&resp, 0x22, 0x11, 4, 4);
	resp_psn = 0;
	for (i = 0; i < PAYLEN; i++)
		payload[i] = (u8)i;
}

/* A request to the responder at resp_psn, with a RETH naming the MR. */
static void resp_reth_pkt(struct sroce_pkt *pkt, u8 opcode, u32 len)
{
	bq_pkt(pkt, opcode, 0x22, resp_psn, SROCE_RETH_LEN);
	pkt->h.reth.va = MR_VA;
	pkt->h.reth.rkey = MR_KEY;
	pkt->h.reth.len = len;
}

static void write4k_resp(void)
{
	struct sroce_pkt pkt;

	resp_reth_pkt(&pkt, SROCE_OPC(RC, WRITE_ONLY), PAYLEN);
	pkt.h.bth.ackreq = 1;
	pkt.paylen = PAYLEN;
	if (sroce_qp_rx(&resp.qp, &pkt, payload, 1000) != SROCE_DROP_NONE)
		bq_fail();
	resp_psn = sroce_psn_add(resp_psn, 1);
}

static void read64_resp(void)
{
	struct sroce_pkt pkt;

	resp_reth_pkt(&pkt, SROCE_OPC(RC, READ_REQ), 64);
	if (sroce_qp_rx(&resp.qp, &pkt, NULL, 1000) != SROCE_DROP_NONE ||
	    resp.emitted_psn != resp_psn)
		bq_fail();
	resp_psn = sroce_psn_add(resp_psn, 1);
}

/* Every responder resource taken by an earlier READ, not measured. */
static void setup_read_resp(void)
{
	unsigned int i;

	bq_setup(&resp, 0x22, 0x11, SROCE_MAX_RD_ATOMIC, 4);
	resp_psn = 0;
	resp.emitted_psn = ~0u;
	for (i = 0; i < SROCE_MAX_RD_ATOMIC; i++)
		read64_resp();
}

/* Post one 64-byte READ; its request must leave at once. */
static void read64_post(void)
{
	u32 psn = sroce_psn_add(req.emitted_psn, 1);

	req_post(SROCE_WR_RDMA_READ, 64);
	if (req.have_next || req.emitted_psn != psn)
		bq_fail();
}

/*
 * The oldest READ's response arrives and completes it, and the next READ
 * is posted: the requester keeps SROCE_MAX_RD_ATOMIC of them out.
 */
static void read64_req(void)
{
	u32 before = req.ncqe;
	struct sroce_pkt pkt;

	req_answer_pkt(&pkt, SROCE_OPC(RC, READ_RESP_ONLY), resp_psn);
	pkt.paylen = 64;
	if (sroce_qp_rx(&req.qp, &pkt, payload, 2000) != SROCE_DROP_NONE ||
	    req.ncqe != before + 1)
		bq_fail();
	resp_psn = sroce_psn_add(resp_psn, 1);
	read64_post();
}

/* SROCE_MAX_RD_ATOMIC READs out, not measured. */
static void setup_read_req(void)
{
	unsigned int i;

	bq_setup(&req, 0x11, 0x22, 4, SROCE_MAX_RD_ATOMIC);
	ack_msn = 0;
	resp_psn = 0;
	req.emitted_psn = SROCE_PSN_MASK;	/* the PSN before 0 */
	for (i = 0; i < SROCE_MAX_RD_ATOMIC; i++)
		read64_post();
}

static const struct sroce_bench qp_cases[] = {
	{ "qp-write4k-req", "RC WRITE 4 KiB: requester pull+build+emit, ACK -> completion",
	  setup_req, write4k_req },
	{ "qp-write4k-resp", "RC WRITE 4 KiB: responder checks, places 4 KiB (memcpy), ACKs",
	  setup_resp, write4k_resp },
	{ "qp-read64-resp", "RC READ 64 B: responder checks, reuses the oldest of 128 resources, answers",
	  setup_read_resp, read64_resp },
	{ "qp-read64-req", "RC READ 64 B: requester takes the oldest of 128 READs' response, completes it, posts one",
	  setup_read_req, read64_req },
	{ NULL }
};

const struct sroce_bench *qp_benches(void);

const struct sroce_bench *qp_benches(void)
{
	return qp_cases;
}
