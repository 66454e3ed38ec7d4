/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels sroce builds against (6.1 and 6.12)
 * is absorbed here, keyed on LINUX_VERSION_CODE, so that the .c files are
 * written against one API.  Each shim names the release that changed.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/version.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * 6.11 passes create_cq the uverbs attribute bundle instead of the udata.
 * Declare the op's third argument as "struct sroce_create_cq_arg *" and
 * get the udata with sroce_create_cq_udata().  Kernel callers pass NULL.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define sroce_create_cq_arg	uverbs_attr_bundle
static inline struct ib_udata *
sroce_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define sroce_create_cq_arg	ib_udata
static inline struct ib_udata *sroce_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

#endif /* SROCE_COMPAT_H */
