// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce libibverbs provider: mapping the kernel's shared rings.
 */
#include <config.h>

#include <errno.h>
#include <sys/mman.h>

#include "sroce.h"

/*
 * Map the ring @abi describes and check that it is what we can use: a
 * power-of-two entry count, elements of at least @min_stride bytes, and a
 * mapping that holds all of them.  The kernel's own view never depends on
 * this check; it only keeps a confused kernel from making us write past
 * the mapping.  @producer: we write prod (SQ, RQ), else cons (CQ).
 * Returns 0 or an errno value.
 */
int sroce_ring_map(struct sroce_uring *r, int cmd_fd,
		   const struct sroce_ring_abi *abi, size_t min_stride,
		   bool producer)
{
	void *buf;

	if (!abi->entries || (abi->entries & (abi->entries - 1)) ||
	    abi->stride < min_stride ||
	    abi->mmap_len < SROCE_RING_HDR_SIZE +
			    (uint64_t)abi->entries * abi->stride)
		return EPROTO;

	buf = mmap(NULL, abi->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   cmd_fd, abi->mmap_offset);
	if (buf == MAP_FAILED)
		return errno;

	r->buf = buf;
	r->len = abi->mmap_len;
	r->ctl = buf;
	r->entries = abi->entries;
	r->stride = abi->stride;
	/*
	 * A new ring starts at whatever indices the kernel put there (0, or
	 * where a resized CQ's pending entries begin): adopt both.
	 */
	if (producer) {
		r->idx = sroce_load_relaxed(&r->ctl->prod);
		r->peer = sroce_load_acquire(&r->ctl->cons);
	} else {
		r->idx = sroce_load_relaxed(&r->ctl->cons);
		r->peer = sroce_load_acquire(&r->ctl->prod);
	}
	return 0;
}

void sroce_ring_unmap(struct sroce_uring *r)
{
	if (r->buf)
		munmap(r->buf, r->len);
	r->buf = NULL;
	r->ctl = NULL;
}
