/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce kernel glue: the per-device structure and the objects hung off it.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/atomic.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "params.h"

/*
 * Object kinds counted per device.  ib_core destroys every user object
 * before it calls dealloc_driver, so a non-zero count there is a leak.
 */
enum sroce_obj_type {
	SROCE_OBJ_UCONTEXT,
	SROCE_OBJ_PD,
	SROCE_OBJ_AH,
	SROCE_OBJ_CQ,
	SROCE_OBJ_QP,
	SROCE_OBJ_SRQ,
	SROCE_OBJ_MR,
	SROCE_OBJ_MAX
};

struct sroce_dev {
	struct ib_device	ibdev;
	/* Held from newlink to dealloc_driver; never changes. */
	struct net_device	*ndev;
	netdevice_tracker	ndev_tracker;
	/* Last port state reported through ib_dispatch_event. */
	enum ib_port_state	port_state;
	spinlock_t		port_lock;	/* serialises port_state */
	atomic_t		nobj[SROCE_OBJ_MAX];
};

struct sroce_ucontext {
	struct ib_ucontext	ibuc;
};

struct sroce_pd {
	struct ib_pd		ibpd;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

/* device.c */
struct sroce_dev *sroce_dev_create(struct net_device *ndev);
int sroce_dev_register(struct sroce_dev *sdev, const char *name);
void sroce_port_update(struct sroce_dev *sdev);
int sroce_obj_add(struct sroce_dev *sdev, enum sroce_obj_type type);
void sroce_obj_del(struct sroce_dev *sdev, enum sroce_obj_type type);

/* ucontext.c */
int sroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sroce_dealloc_ucontext(struct ib_ucontext *ibuc);
void sroce_disassociate_ucontext(struct ib_ucontext *ibuc);
int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);

/* pd.c */
int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

#endif /* SROCE_H */
