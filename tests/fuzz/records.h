/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The input the QP harnesses (comp_fuzz.c, resp_fuzz.c) share, and the
 * loop that feeds it to one QP of a tests/lib endpoint.
 *
 * Input: records of  ctl:u8  len:u16be  bytes[len]  where bytes run from
 * the BTH to the (unchecked) ICRC, as after the glue's ICRC check.  ctl
 * bit 0 advances time by (ctl >> 2) * 64 us after the record's receive
 * and runs the deadlines due; bit 1 makes the record's receive and kick
 * calls pass SROCE_NOW_LAZY, so the core asks ops->now.
 */
#ifndef SROCE_FUZZ_RECORDS_H
#define SROCE_FUZZ_RECORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "endpoint.h"

/*
 * Kick @q, then again while the core has work pending, at most 64 times
 * more: an emit that keeps refusing keeps it pending.  @lazy: pass
 * SROCE_NOW_LAZY rather than the endpoint's clock.
 */
void fuzz_service(struct sroce_ep_qp *q, bool lazy);

/*
 * Feed @data to @q as records.  @clock is what q->ep->clock points at.
 * After each record @q is serviced and @check(@arg) asserts what the
 * harness promises.  A truncated last record is fed as far as it goes.
 */
void fuzz_feed(struct sroce_ep_qp *q, u64 *clock, const u8 *data,
	       size_t size, void (*check)(void *arg), void *arg);

#endif /* SROCE_FUZZ_RECORDS_H */
