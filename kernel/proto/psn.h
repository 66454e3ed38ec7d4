/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 24-bit packet sequence number arithmetic.  PSNs wrap modulo 2^24; two
 * PSNs compare by the sign of their difference taken in 24 bits, which is
 * meaningful while they are less than 2^23 apart (IBA 9.7.1).
 */
#ifndef SROCE_PROTO_PSN_H
#define SROCE_PROTO_PSN_H

#include "os.h"

#define SROCE_PSN_BITS		24
#define SROCE_PSN_MOD		0x1000000u	/* 2^SROCE_PSN_BITS */
#define SROCE_PSN_HALF		(1u << (SROCE_PSN_BITS - 1))

static inline u32 sroce_psn(u32 v)
{
	return v & (SROCE_PSN_MOD - 1);
}

static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return sroce_psn(psn + n);
}

/* a - b as a signed distance in [-2^23, 2^23); 2^23 apart reads as behind. */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << (32 - SROCE_PSN_BITS)) >> (32 - SROCE_PSN_BITS);
}

static inline bool sroce_psn_lt(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

static inline bool sroce_psn_le(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) <= 0;
}

/* Is @psn within [@lo, @lo + @n)? */
static inline bool sroce_psn_in(u32 psn, u32 lo, u32 n)
{
	return (u32)sroce_psn(psn - lo) < n;
}

#endif /* SROCE_PROTO_PSN_H */
