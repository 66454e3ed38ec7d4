/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a received packet was dropped.  Every rejecting path in the core
 * returns one of these; the glue counts per reason and the same names
 * label the counters in `rdma statistic`.  Append new reasons before
 * SROCE_DROP_MAX and give each a name in drop.c.
 */
#ifndef SROCE_PROTO_DROP_H
#define SROCE_PROTO_DROP_H

#include "os.h"

enum sroce_drop {
	SROCE_DROP_NONE = 0,		/* accepted */
	/* frame and header decoding (wire.c, icrc.c) */
	SROCE_DROP_TRUNCATED,		/* shorter than its headers say */
	SROCE_DROP_BAD_TVER,		/* BTH transport version != 0 */
	SROCE_DROP_BAD_OPCODE,		/* reserved or unsupported opcode */
	SROCE_DROP_BAD_PAD,		/* pad illegal for opcode or not fitting length */
	SROCE_DROP_BAD_LENGTH,		/* payload length wrong for opcode */
	SROCE_DROP_BAD_ICRC,		/* invariant CRC mismatch */
	SROCE_DROP_BAD_PKEY,		/* P_Key does not match the QP */
	/* addressing (glue + core) */
	SROCE_DROP_UNKNOWN_QP,		/* no QP with that DestQP */
	SROCE_DROP_BAD_QP_STATE,	/* QP cannot receive in its state */
	SROCE_DROP_WRONG_QP_TYPE,	/* opcode's transport != QP type */
	SROCE_DROP_BAD_QKEY,		/* UD Q_Key mismatch */
	/* transport (req/resp/comp) */
	SROCE_DROP_BAD_SEQUENCE,	/* e.g. MIDDLE without FIRST (UC) */
	SROCE_DROP_PSN_INVALID,		/* responder: outside any window */
	SROCE_DROP_DUPLICATE,		/* duplicate already answered */
	SROCE_DROP_ACK_UNEXPECTED,	/* ACK/response for a PSN never sent */
	SROCE_DROP_ACK_STALE,		/* ACK/response older than the oldest outstanding */
	SROCE_DROP_NO_RESOURCE,		/* caller could not take the packet */
	SROCE_DROP_BAD_ADDR,		/* RC/UC: not from the QP's peer to us */
	SROCE_DROP_BAD_MCAST,		/* breaks the multicast addressing rules */
	SROCE_DROP_MAX
};

/* Stable lower-case identifier, e.g. "bad_icrc"; "unknown" if out of range. */
const char *sroce_drop_name(enum sroce_drop reason);

#endif /* SROCE_PROTO_DROP_H */
