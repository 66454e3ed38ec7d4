/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 wire format: IBTA opcodes, the base and extended transport
 * headers, and their codecs.  Decoding is bounds-checked and answers with
 * an enum sroce_drop rather than ever reading past the buffer.
 *
 * A RoCEv2 frame is  IP | UDP(dport 4791) | BTH | ext hdrs | payload | pad | ICRC.
 * The codecs here start at the BTH; ICRC lives in icrc.h.
 */
#ifndef SROCE_PROTO_WIRE_H
#define SROCE_PROTO_WIRE_H

#include "os.h"
#include "drop.h"

#define SROCE_UDP_PORT		4791

#define SROCE_BTH_LEN		12
#define SROCE_RETH_LEN		16
#define SROCE_AETH_LEN		4
#define SROCE_ATMETH_LEN	28
#define SROCE_ATMACK_LEN	8
#define SROCE_IMMDT_LEN		4
#define SROCE_IETH_LEN		4
#define SROCE_DETH_LEN		8
#define SROCE_FETH_LEN		4
#define SROCE_XRCETH_LEN	4
#define SROCE_ICRC_LEN		4
#define SROCE_CNP_LEN		16	/* reserved bytes after a CNP's BTH */
/* Largest BTH + extension headers of any opcode (XRC atomic request). */
#define SROCE_MAX_HDR_LEN	(SROCE_BTH_LEN + SROCE_XRCETH_LEN + SROCE_ATMETH_LEN)
/* ATOMIC WRITE's value: the 8 payload bytes after BTH + RETH. */
#define SROCE_ATOMIC_WRITE_LEN	8

#define SROCE_DEFAULT_PKEY	0xffff
#define SROCE_PSN_MASK		0xffffffu
#define SROCE_QPN_MASK		0xffffffu
#define SROCE_SRQN_MASK		0xffffffu

/* Transport service, the top three bits of the opcode. */
enum sroce_transport {
	SROCE_TRANSPORT_RC	= 0x00,
	SROCE_TRANSPORT_UC	= 0x20,
	SROCE_TRANSPORT_RD	= 0x40,
	SROCE_TRANSPORT_UD	= 0x60,
	SROCE_TRANSPORT_CNP	= 0x80,
	SROCE_TRANSPORT_XRC	= 0xa0,
	SROCE_TRANSPORT_MASK	= 0xe0,
};

/* IBTA opcodes, low five bits; OR with a transport for the wire value. */
enum sroce_op {
	SROCE_OP_SEND_FIRST		= 0x00,
	SROCE_OP_SEND_MIDDLE		= 0x01,
	SROCE_OP_SEND_LAST		= 0x02,
	SROCE_OP_SEND_LAST_IMM		= 0x03,
	SROCE_OP_SEND_ONLY		= 0x04,
	SROCE_OP_SEND_ONLY_IMM		= 0x05,
	SROCE_OP_WRITE_FIRST		= 0x06,
	SROCE_OP_WRITE_MIDDLE		= 0x07,
	SROCE_OP_WRITE_LAST		= 0x08,
	SROCE_OP_WRITE_LAST_IMM		= 0x09,
	SROCE_OP_WRITE_ONLY		= 0x0a,
	SROCE_OP_WRITE_ONLY_IMM		= 0x0b,
	SROCE_OP_READ_REQ		= 0x0c,
	SROCE_OP_READ_RESP_FIRST	= 0x0d,
	SROCE_OP_READ_RESP_MIDDLE	= 0x0e,
	SROCE_OP_READ_RESP_LAST		= 0x0f,
	SROCE_OP_READ_RESP_ONLY		= 0x10,
	SROCE_OP_ACK			= 0x11,
	SROCE_OP_ATOMIC_ACK		= 0x12,
	SROCE_OP_CMP_SWAP		= 0x13,
	SROCE_OP_FETCH_ADD		= 0x14,
	SROCE_OP_SEND_LAST_INV		= 0x16,
	SROCE_OP_SEND_ONLY_INV		= 0x17,
	SROCE_OP_FLUSH			= 0x1c,
	SROCE_OP_ATOMIC_WRITE		= 0x1d,
};

/* Full wire opcodes used often enough to want names. */
#define SROCE_OPC(t, op)	((u8)(SROCE_TRANSPORT_##t | SROCE_OP_##op))
/* RoCEv2 CNP (Annex A17): opcode, and the P_Key it is sent with. */
#define SROCE_OPC_CNP		0x81
#define SROCE_CNP_PKEY		0xffff

/* Per-opcode facts, from the IBTA opcode tables. */
enum sroce_opflag {
	SROCE_OPF_RETH		= 1u << 0,
	SROCE_OPF_AETH		= 1u << 1,
	SROCE_OPF_ATMETH	= 1u << 2,
	SROCE_OPF_ATMACK	= 1u << 3,
	SROCE_OPF_IMMDT		= 1u << 4,
	SROCE_OPF_IETH		= 1u << 5,
	SROCE_OPF_DETH		= 1u << 6,
	SROCE_OPF_FETH		= 1u << 7,
	SROCE_OPF_PAYLOAD	= 1u << 8,	/* may carry payload */
	SROCE_OPF_REQ		= 1u << 9,	/* requester -> responder */
	SROCE_OPF_RESP		= 1u << 10,	/* responder -> requester */
	SROCE_OPF_FIRST		= 1u << 11,
	SROCE_OPF_MIDDLE	= 1u << 12,
	SROCE_OPF_LAST		= 1u << 13,
	SROCE_OPF_ONLY		= SROCE_OPF_FIRST | SROCE_OPF_LAST,
	SROCE_OPF_SEND		= 1u << 14,
	SROCE_OPF_WRITE		= 1u << 15,
	SROCE_OPF_READ		= 1u << 16,
	SROCE_OPF_ATOMIC	= 1u << 17,	/* CMP_SWAP, FETCH_ADD, ATOMIC_ACK */
	SROCE_OPF_ATOMIC_WRITE	= 1u << 18,
	SROCE_OPF_FLUSH		= 1u << 19,
	SROCE_OPF_CNP		= 1u << 20,	/* congestion notification */
	SROCE_OPF_XRCETH	= 1u << 21,	/* XRC requests */
};

struct sroce_opinfo {
	const char *name;	/* "RC_SEND_FIRST": transport + enum sroce_op */
	u32 flags;		/* enum sroce_opflag */
	u8 hdr_len;		/* BTH + all extension headers */
};

/*
 * Facts for a wire opcode, or NULL for a reserved/unsupported one.
 * Covers RC, UC, UD, XRC (no XRC FLUSH or ATOMIC WRITE) and the RoCEv2 CNP.
 */
const struct sroce_opinfo *sroce_opinfo(u8 opcode);

/* Decoded headers, host byte order.  Only fields the opcode carries are set. */
struct sroce_bth {
	u8 opcode;
	u8 se;		/* solicited event */
	u8 mig;		/* MigReq */
	u8 pad;		/* 0..3 */
	u8 tver;
	u8 fecn;
	u8 becn;
	u8 ackreq;
	u16 pkey;
	u32 dqpn;	/* 24 bits */
	u32 psn;	/* 24 bits */
};

struct sroce_reth {
	u64 va;
	u32 rkey;
	u32 len;
};

/* AETH syndrome, bits 7..5 of the syndrome byte. */
enum sroce_aeth_type {
	SROCE_AETH_ACK		= 0,	/* low 5 bits: credit count */
	SROCE_AETH_RNR_NAK	= 1,	/* low 5 bits: RNR timer code */
	SROCE_AETH_NAK		= 3,	/* low 5 bits: enum sroce_nak_code */
};

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR		= 0,
	SROCE_NAK_INVALID_REQ		= 1,
	SROCE_NAK_REMOTE_ACCESS		= 2,
	SROCE_NAK_REMOTE_OP_ERR		= 3,
	SROCE_NAK_INVALID_RD_REQ	= 4,
};

/* Credit count 0x1f means "credits not supported / invalid". */
#define SROCE_AETH_CREDIT_INVALID	0x1f

struct sroce_aeth {
	u8 syndrome;	/* raw byte: type << 5 | value */
	u32 msn;	/* 24 bits */
};

static inline enum sroce_aeth_type sroce_aeth_type(u8 syndrome)
{
	return (enum sroce_aeth_type)((syndrome >> 5) & 0x3);
}

static inline u8 sroce_aeth_value(u8 syndrome)
{
	return syndrome & 0x1f;
}

static inline u8 sroce_aeth_syndrome(enum sroce_aeth_type t, u8 value)
{
	return (u8)(t << 5 | (value & 0x1f));
}

struct sroce_atmeth {
	u64 va;
	u32 rkey;
	u64 swap_add;
	u64 cmp;
};

struct sroce_deth {
	u32 qkey;
	u32 sqpn;	/* 24 bits */
};

/*
 * FETH (IBA 1.5 memory placement extensions): bits 3..0 the placement
 * type, bits 5..4 the selectivity level; the rest reserved.  The values
 * are ib_user_verbs.h's IB_FLUSH_* (ibv_wr_flush's type and level).
 */
enum sroce_flush_type {
	SROCE_FLUSH_GLOBAL	= 1 << 0,	/* global visibility */
	SROCE_FLUSH_PERSISTENT	= 1 << 1,	/* persistence */
};

enum sroce_flush_level {
	SROCE_FLUSH_RANGE	= 0,	/* the RETH's range of the MR */
	SROCE_FLUSH_MR		= 1,	/* the whole MR; VA and length ignored */
};

static inline u8 sroce_feth_type(u32 feth)
{
	return feth & 0xf;
}

static inline u8 sroce_feth_level(u32 feth)
{
	return (feth >> 4) & 0x3;
}

static inline u32 sroce_feth(u8 type, u8 level)
{
	return (u32)(level & 0x3) << 4 | (type & 0xf);
}

struct sroce_hdrs {
	struct sroce_bth bth;
	struct sroce_reth reth;
	struct sroce_aeth aeth;
	struct sroce_atmeth atmeth;
	u64 atmack;		/* AtomicAckETH: original remote value */
	u32 imm;		/* ImmDT: the big-endian wire word in host order */
	u32 ieth;		/* IETH: R_Key to invalidate */
	struct sroce_deth deth;
	u32 feth;		/* FLUSH extended transport header */
	u32 xrceth;		/* XRCETH: the target XRC SRQ number, 24 bits */
	/*
	 * ATOMIC WRITE: its payload, the value, byte for byte as on the
	 * wire (stored to memory unchanged).  Decoded by sroce_parse, which
	 * finds it within SROCE_MAX_HDR_LEN bytes of the BTH.
	 */
	u8 atomic_wr[SROCE_ATOMIC_WRITE_LEN];
};

/* A GID; an IPv4 address is held as ::ffff:a.b.c.d (RoCEv2). */
#define SROCE_GID_LEN		16

/* A decoded packet: headers plus where its payload lies. */
struct sroce_pkt {
	struct sroce_hdrs h;
	const struct sroce_opinfo *op;
	u16 hdr_len;	/* bytes from BTH start to payload */
	u32 paylen;	/* payload bytes, excluding pad and ICRC */
	/*
	 * The IP source and destination as GIDs.  Zeroed by sroce_parse(),
	 * filled by the caller, which alone sees the IP header.
	 */
	u8 sgid[SROCE_GID_LEN];
	u8 dgid[SROCE_GID_LEN];
	/* The IP header's ECN field said CE; zeroed by sroce_parse(). */
	bool ce;
};

/*
 * Decode BTH and extension headers of the @len bytes at @buf, which start
 * at the BTH and end with the ICRC.  Checks the opcode, TVer, the pad
 * rules and that the payload length is legal for the opcode; does not
 * check the ICRC or anything needing QP state (PMTU, P_Key, QP type).
 * @len must come from the UDP length, not the frame: Ethernet pads short
 * frames.  Reads at most the first SROCE_MAX_HDR_LEN bytes of @buf (an
 * ATOMIC WRITE's value included), so only those need be contiguous.  On
 * error only the return value is meaningful.
 */
enum sroce_drop sroce_parse(const u8 *buf, u32 len, struct sroce_pkt *pkt);

/*
 * Encode BTH and the extension headers @h->bth.opcode calls for into @buf
 * (room for SROCE_MAX_HDR_LEN).  Returns the bytes written, or 0 for an
 * unknown opcode.  @h->bth.pad is written as given: sroce_pad_for() of
 * the payload length.  Reserved bits are written as zero.
 */
u32 sroce_build(u8 *buf, const struct sroce_hdrs *h);

/* Pad bytes needed after @paylen payload bytes: 0..3. */
static inline u8 sroce_pad_for(u32 paylen)
{
	return (u8)(-paylen & 3);
}

/* IB MTU enum (256 << (n - 1)), as in ib_mtu / ibv_mtu. */
static inline u32 sroce_mtu_bytes(int ib_mtu)
{
	return ib_mtu >= 1 && ib_mtu <= 5 ? 128u << ib_mtu : 0;
}

#endif /* SROCE_PROTO_WIRE_H */
