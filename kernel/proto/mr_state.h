/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The key and state of a memory region (IBA 10.6), shared by every kind
 * of MR and checked on every local and remote access.
 *
 * A key is (index << 8) | key byte; lkey == rkey.  An ordinary MR is
 * VALID from registration to deregistration.  A fast-registration MR
 * starts FREE; IB_WR_REG_MR (sroce_mr_st_reg) makes it VALID with a key
 * byte and access rights chosen by the consumer, and LOCAL_INV or a
 * remote SEND_WITH_INV (sroce_mr_st_inv) makes it FREE again.  Only a
 * FREE MR can be registered, and only a VALID one accessed, so a stale
 * key byte or a key used after invalidation is refused.
 *
 * Pure logic, no locking: the caller serialises changes of one MR and
 * reads a consistent copy for checks.
 */
#ifndef SROCE_PROTO_MR_STATE_H
#define SROCE_PROTO_MR_STATE_H

#include "os.h"

enum sroce_mr_state {
	SROCE_MR_FREE = 1,	/* allocated, no access (fast-reg only) */
	SROCE_MR_VALID,
};

struct sroce_mr_st {
	u32 key;		/* current lkey == rkey */
	u32 access;		/* enum sroce_access */
	u8 state;		/* enum sroce_mr_state */
	bool fast;		/* REG_MR and LOCAL_INV apply */
};

/* Why an access or an operation was refused. */
enum sroce_mr_err {
	SROCE_MR_OK,
	SROCE_MR_E_KEY,		/* key byte differs: stale or foreign key */
	SROCE_MR_E_STATE,	/* not VALID (access) / not FREE (REG_MR) */
	SROCE_MR_E_ACCESS,	/* rights not granted, or not allowed */
	SROCE_MR_E_TYPE,	/* REG_MR / invalidate of a non-fast-reg MR */
};

/* Set up an ordinary MR (VALID) or a fast-reg MR (FREE) with @key. */
void sroce_mr_st_init(struct sroce_mr_st *st, u32 key, u32 access, bool fast);

/*
 * May @key be used for @access (enum sroce_access; 0 = local read), as
 * an rkey if @remote?  An rkey must carry at least one remote right.
 */
enum sroce_mr_err sroce_mr_st_check(const struct sroce_mr_st *st, u32 key,
				    bool remote, u32 access);

/*
 * IB_WR_REG_MR with @key and @access: FREE -> VALID.  The key's index
 * must be the MR's (only the key byte may change); remote write or
 * atomic rights need local write (verbs).
 */
enum sroce_mr_err sroce_mr_st_reg(struct sroce_mr_st *st, u32 key,
				  u32 access);

/*
 * LOCAL_INV, or SEND_WITH_INV's IETH, naming @key: VALID -> FREE.  The
 * whole key must match (a stale key byte invalidates nothing).
 * Invalidating a FREE MR with its current key is allowed and changes
 * nothing, as in rdma_rxe.
 */
enum sroce_mr_err sroce_mr_st_inv(struct sroce_mr_st *st, u32 key);

#endif /* SROCE_PROTO_MR_STATE_H */
