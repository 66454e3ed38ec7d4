/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB */
/*
 * sroce user/kernel ABI: the one definition of everything the kernel module
 * and the libibverbs provider exchange through udata and mmap.  Both sides
 * include this file; nothing here may depend on kernel-only or libc-only
 * headers beyond <linux/types.h>.
 *
 * Every struct is naturally aligned and padded to a multiple of 8 bytes so
 * that its layout is identical on 32- and 64-bit user space.
 */
#ifndef SROCE_ABI_H
#define SROCE_ABI_H

#include <linux/types.h>

/*
 * ib_core has no rdma_driver_id for an out-of-tree driver, so sroce uses a
 * private value well outside the kernel's enum.  libibverbs places it in
 * every ioctl header and uverbs rejects a mismatch, so both sides must
 * agree on it.
 */
#define SROCE_DRIVER_ID		0x5352

/* Bumped on any incompatible change to the structs below. */
#define SROCE_UVERBS_ABI_VERSION	1

/* sysfs attribute (under /sys/class/infiniband/<dev>/) naming the driver. */
#define SROCE_SYSFS_DRIVER_ATTR	"sroce_abi"

/* Response to ibv_get_context (alloc_ucontext). */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;	/* SROCE_UVERBS_ABI_VERSION */
	__u32 reserved;
};

#endif /* SROCE_ABI_H */
