// SPDX-License-Identifier: GPL-2.0
/*
 * Memory region keys and states: the checks behind every access and the
 * transitions of fast registration and invalidation (mr_state.h).
 */
#include "mr_state.h"
#include "qp.h"

#define SROCE_REMOTE_RIGHTS	(SROCE_ACCESS_REMOTE_WRITE |		\
				 SROCE_ACCESS_REMOTE_READ |		\
				 SROCE_ACCESS_REMOTE_ATOMIC |		\
				 SROCE_ACCESS_FLUSH_GLOBAL |		\
				 SROCE_ACCESS_FLUSH_PERSISTENT)
#define SROCE_ALL_RIGHTS	(SROCE_REMOTE_RIGHTS | SROCE_ACCESS_LOCAL_WRITE | \
				 SROCE_ACCESS_MW_BIND)

void sroce_mr_st_init(struct sroce_mr_st *st, u32 key, u32 access, bool fast)
{
	st->key = key;
	st->access = fast ? 0 : access & SROCE_ALL_RIGHTS;
	st->state = fast ? SROCE_MR_FREE : SROCE_MR_VALID;
	st->fast = fast;
}

enum sroce_mr_err sroce_mr_st_check(const struct sroce_mr_st *st, u32 key,
				    bool remote, u32 access)
{
	if (st->key != key)
		return SROCE_MR_E_KEY;
	if (st->state != SROCE_MR_VALID)
		return SROCE_MR_E_STATE;
	if (remote && !(access & SROCE_REMOTE_RIGHTS))
		return SROCE_MR_E_ACCESS;
	if ((st->access & access) != access)
		return SROCE_MR_E_ACCESS;
	return SROCE_MR_OK;
}

enum sroce_mr_err sroce_mr_st_reg(struct sroce_mr_st *st, u32 key,
				  u32 access)
{
	if (!st->fast)
		return SROCE_MR_E_TYPE;
	if ((st->key >> 8) != (key >> 8))
		return SROCE_MR_E_KEY;
	if (st->state != SROCE_MR_FREE)
		return SROCE_MR_E_STATE;
	if ((access & (SROCE_ACCESS_REMOTE_WRITE | SROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & SROCE_ACCESS_LOCAL_WRITE))
		return SROCE_MR_E_ACCESS;
	st->key = key;
	st->access = access & SROCE_ALL_RIGHTS;
	st->state = SROCE_MR_VALID;
	return SROCE_MR_OK;
}

enum sroce_mr_err sroce_mr_st_inv(struct sroce_mr_st *st, u32 key)
{
	if (!st->fast)
		return SROCE_MR_E_TYPE;
	if (st->key != key)
		return SROCE_MR_E_KEY;
	st->state = SROCE_MR_FREE;
	return SROCE_MR_OK;
}
