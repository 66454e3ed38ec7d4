// SPDX-License-Identifier: GPL-2.0
/*
 * Feeding the QP harnesses' records (records.h) to a QP.
 */
#include <stdlib.h>
#include <string.h>

#include "records.h"
#include "wire.h"

void fuzz_service(struct sroce_ep_qp *q, bool lazy)
{
	u64 now = lazy ? SROCE_NOW_LAZY : *q->ep->clock;
	u32 guard = 0;

	sroce_qp_kick(&q->qp, 64, now);
	while (sroce_qp_pending(&q->qp) && guard++ < 64)
		sroce_qp_kick(&q->qp, 64, now);
}

void fuzz_feed(struct sroce_ep_qp *q, u64 *clock, const u8 *data,
	       size_t size, void (*check)(void *arg), void *arg)
{
	struct sroce_ep_rx rx;
	struct sroce_pkt pkt;
	size_t off = 0;
	u8 *frame;
	bool lazy;
	u32 len;
	u8 ctl;

	while (off + 3 <= size) {
		ctl = data[off];
		lazy = ctl & 2;
		len = (u32)data[off + 1] << 8 | data[off + 2];
		off += 3;
		if (len > size - off)
			len = (u32)(size - off);
		/* An exact-size copy: ASan sees any read past the frame. */
		frame = malloc(len ? len : 1);
		if (!frame)
			abort();
		memcpy(frame, data + off, len);
		off += len;
		if (sroce_parse(frame, len, &pkt) == SROCE_DROP_NONE) {
			rx.payload = frame + pkt.hdr_len;
			rx.len = pkt.paylen;
			rx.l3 = NULL;
			rx.ipv6 = false;
			sroce_qp_rx(&q->qp, &pkt, &rx,
				    lazy ? SROCE_NOW_LAZY : *clock);
		}
		free(frame);
		if (ctl & 1) {
			*clock += (u64)(ctl >> 2) * 64000;
			if (sroce_qp_next_deadline(&q->qp) <= *clock)
				sroce_qp_on_deadline(&q->qp, *clock);
		}
		fuzz_service(q, lazy);
		check(arg);
	}
}
