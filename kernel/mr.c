// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions, and the memory operations the protocol core performs
 * through them: key lookup and checks, copies and 8-byte atomics.
 *
 * A key is (index in sdev->mrs << 8) | key byte; lkey == rkey.  The index
 * is allocated cyclically from a random start, so a key kept past its
 * deregistration does not name the next MR, and the key byte is random,
 * so a key cannot be guessed from the keys seen before it.  A
 * fast-reg MR keeps its index; the consumer picks a new key byte for each
 * IB_WR_REG_MR (ib_update_fast_reg_key), and the key and state checks of
 * proto/mr_state.c refuse the old one.
 *
 * The device uses virtual DMA (no dma_device): a DMA MR's addresses are
 * kernel virtual addresses, and a user MR is the array of its pinned pages
 * (or, with IB_ACCESS_ON_DEMAND, odp.c's table of the pages present).
 * A user MR keeps its key, rights, PD and pages in a struct sroce_mr_map
 * that ibv_rereg_mr() replaces whole (sroce_rereg_user_mr).
 * Everything here except registration runs in any context, softirq
 * included, under the caller's rcu_read_lock() (see sroce.h, Lifetime).
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"

/* 24 bits of index above the key byte; 0 is never handed out. */
#define SROCE_MR_INDEX_LIMIT	XA_LIMIT(1, SROCE_MR_INDEX_MAX)

/* The access bits sroce enforces; others are accepted and ignored. */
#define SROCE_MR_ACCESS_MASK	(IB_ACCESS_LOCAL_WRITE |		\
				 IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_REMOTE_ATOMIC |		\
				 IB_ACCESS_MW_BIND |			\
				 SROCE_IB_ACCESS_FLUSH)
#define SROCE_MR_REMOTE_MASK	(IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_REMOTE_ATOMIC |		\
				 SROCE_IB_ACCESS_FLUSH)

static_assert((int)SROCE_ACCESS_LOCAL_WRITE == (int)IB_ACCESS_LOCAL_WRITE);
static_assert((int)SROCE_ACCESS_REMOTE_WRITE == (int)IB_ACCESS_REMOTE_WRITE);
static_assert((int)SROCE_ACCESS_REMOTE_READ == (int)IB_ACCESS_REMOTE_READ);
static_assert((int)SROCE_ACCESS_REMOTE_ATOMIC == (int)IB_ACCESS_REMOTE_ATOMIC);
static_assert((int)SROCE_ACCESS_MW_BIND == (int)IB_ACCESS_MW_BIND);
#ifdef SROCE_HAVE_IB_PLACEMENT
static_assert((int)SROCE_ACCESS_FLUSH_GLOBAL == (int)IB_ACCESS_FLUSH_GLOBAL);
static_assert((int)SROCE_ACCESS_FLUSH_PERSISTENT ==
	      (int)IB_ACCESS_FLUSH_PERSISTENT);
#endif

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

static int sroce_mr_check_access(struct ib_device *ibdev, int access,
				 bool user)
{
	/* Also refuses remote write/atomic without local write (verbs). */
	int err = ib_check_mr_access(ibdev, access);

	if (err)
		return err;
	/* On-demand paging is for user memory: kernel memory is present. */
	if ((access & IB_ACCESS_ON_DEMAND) && !user)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * Give @mr its key and make it visible to sroce_mem_access().  The slot
 * is reserved first and the MR stored once its keys are final, so a
 * lookup never sees a half-built MR.
 */
static int sroce_mr_publish(struct sroce_dev *sdev, struct sroce_mr *mr,
			    int access, bool fast)
{
	u32 idx;
	int err;
	u8 key;

	err = xa_alloc_cyclic_bh(&sdev->mrs, &idx, NULL, SROCE_MR_INDEX_LIMIT,
				 &sdev->mr_next, GFP_KERNEL);
	if (err < 0)
		return err;
	key = sroce_key_byte();
	mr->ibmr.lkey = idx << 8 | key;
	mr->ibmr.rkey = mr->ibmr.lkey;
	/* A user MR's map is not visible before the store below. */
	sroce_mr_st_init(mr->map ? &rcu_dereference_raw(mr->map)->st : &mr->st,
			 mr->ibmr.lkey, access, fast);
	/* The slot exists, so this cannot need memory. */
	err = xa_err(xa_store_bh(&sdev->mrs, idx, mr, GFP_KERNEL));
	if (err)
		xa_erase_bh(&sdev->mrs, idx);
	return err;
}

/* Also for a map never published, or whose pages were lent on. */
static void sroce_mr_map_free(struct sroce_mr_map *map)
{
	if (map->owner) {
		if (map->odp)
			sroce_odp_put(map->odp);	/* and its umem */
		else if (map->umem)
			ib_umem_release(map->umem);
		kvfree(map->pages);
	}
	kfree(map);
}

static void sroce_mr_free(struct sroce_mr *mr)
{
	/* Last user gone: no reader, and rereg/dereg are serialised. */
	struct sroce_mr_map *map = rcu_dereference_protected(mr->map, 1);

	if (map)
		sroce_mr_map_free(map);
	kvfree(mr->fr_pages);
	kfree(mr);
}

/*
 * Deregistration frees the MR after an RCU grace period, from a work
 * item, rather than waiting for one: a process exiting with 65,536 MRs
 * otherwise waited for 65,536 grace periods in turn (16,384 took 3.5
 * minutes on the TCG guests).  Its pages stay pinned until then.
 */
static struct workqueue_struct *sroce_mr_wq;

/* odp.c's fault work; 7.x warns about work on system_unbound_wq. */
struct workqueue_struct *sroce_odp_wq;

int sroce_mr_module_init(void)
{
	sroce_mr_wq = alloc_workqueue("sroce_mr_free", WQ_UNBOUND, 0);
	if (!sroce_mr_wq)
		return -ENOMEM;
	sroce_odp_wq = alloc_workqueue("sroce_odp", WQ_UNBOUND, 0);
	if (!sroce_odp_wq) {
		destroy_workqueue(sroce_mr_wq);
		return -ENOMEM;
	}
	return 0;
}

void sroce_mr_module_exit(void)
{
	sroce_mr_flush_frees();
	destroy_workqueue(sroce_mr_wq);
	/* Every ODP MR is freed: no fault work is left. */
	destroy_workqueue(sroce_odp_wq);
}

/* Device dealloc: every MR deregistered so far is freed on return. */
void sroce_mr_flush_frees(void)
{
	rcu_barrier();		/* the grace periods queue the work */
	flush_workqueue(sroce_mr_wq);
}

static void sroce_mr_free_work(struct work_struct *work)
{
	sroce_mr_free(container_of(to_rcu_work(work), struct sroce_mr,
				   free_work));
}

static void sroce_mr_map_free_work(struct work_struct *work)
{
	sroce_mr_map_free(container_of(to_rcu_work(work), struct sroce_mr_map,
				       free_work));
}

/* The pinned pages of @umem in address order, one per PAGE_SIZE. */
static int sroce_mr_fill_pages(struct sroce_mr_map *map, struct ib_umem *umem)
{
	struct sg_page_iter it;
	size_t npages;
	u32 n = 0;

	npages = ib_umem_num_pages(umem);
	/* SROCE_MAX_MR_SIZE keeps this far below U32_MAX. */
	if (npages > U32_MAX || npages > INT_MAX / sizeof(*map->pages))
		return -ENOMEM;
	map->pages = kvcalloc(npages, sizeof(*map->pages), SROCE_GFP_USER);
	if (!map->pages)
		return -ENOMEM;

	sroce_umem_for_each_page(umem, &it) {
		if (n == npages)
			break;
		map->pages[n++] = sg_page_iter_page(&it);
	}
	if (n != npages)
		return -EFAULT;
	map->npages = n;
	map->page_offset = ib_umem_offset(umem);
	return 0;
}

/* A translation's length and iova, as reg_user_mr and rereg check them. */
static int sroce_mr_check_range(u64 length, u64 iova)
{
	if (!length || length > SROCE_MAX_MR_SIZE)
		return -EINVAL;
	/* iova + length - 1 must not wrap: remote addresses are iovas. */
	if (iova > U64_MAX - (length - 1))
		return -EINVAL;
	return 0;
}

/*
 * Pin @length bytes of user memory at @start for @access into @map, as
 * iova @iova.  Charged to the caller: the pinned pages to its
 * RLIMIT_MEMLOCK (ib_umem_get), the page array to its memory cgroup.
 */
static int sroce_mr_map_pin(struct ib_device *ibdev, struct sroce_mr_map *map,
			    u64 start, u64 length, u64 iova, int access)
{
	struct ib_umem *umem;
	int err;

	if (access & IB_ACCESS_ON_DEMAND) {
		/* Nothing pinned: odp.c faults pages in as they are used. */
		err = sroce_odp_get(ibdev, map, start, length, access);
		if (err)
			return err;
		map->owner = true;
		map->iova = iova;
		map->length = length;
		return 0;
	}
	umem = ib_umem_get_va(ibdev, start, length, access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	map->umem = umem;
	map->owner = true;
	map->iova = iova;
	map->length = length;
	return sroce_mr_fill_pages(map, umem);
}

static struct ib_mr *sroce_reg_user_mr(struct ib_pd *pd, u64 start,
				       u64 length, u64 iova, int access,
				       SROCE_DMAH_ARG
				       struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(pd->device);
	struct sroce_mr_map *map;
	struct sroce_mr *mr;
	int err;

	err = sroce_mr_check_access(pd->device, access, true);
	if (err)
		return ERR_PTR(err);
	/*
	 * Implicit ODP: the whole address space, as iova 0 on (odp.c bounds
	 * it by TASK_SIZE); otherwise a range of at most max_mr_size.
	 */
	if ((access & IB_ACCESS_ON_DEMAND) &&
	    sroce_odp_is_implicit(start, length))
		err = iova ? -EINVAL : 0;
	else
		err = sroce_mr_check_range(length, iova);
	if (err)
		return ERR_PTR(err);

	err = sroce_obj_add(sdev, SROCE_OBJ_MR, true);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr) {
		err = -ENOMEM;
		goto err_obj;
	}
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map) {
		err = -ENOMEM;
		goto err_free;
	}
	RCU_INIT_POINTER(mr->map, map);
	err = sroce_mr_map_pin(pd->device, map, start, length, iova, access);
	if (err)
		goto err_free;

	map->pd = pd;
	map->access = access;
	mr->pd = pd;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	err = sroce_mr_publish(sdev, mr, access & SROCE_MR_ACCESS_MASK, false);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	sroce_mr_free(mr);
err_obj:
	sroce_obj_del(sdev, SROCE_OBJ_MR);
	return ERR_PTR(err);
}

/*
 * A DMA MR covers all of kernel memory with the access it was created
 * with; ib_alloc_pd() asks for one (we do not offer a local_dma_lkey).
 */
static struct ib_mr *sroce_get_dma_mr(struct ib_pd *pd, int access)
{
	struct sroce_dev *sdev = to_sdev(pd->device);
	struct sroce_mr *mr;
	int err;

	err = sroce_mr_check_access(pd->device, access, false);
	if (err)
		return ERR_PTR(err);
	err = sroce_obj_add(sdev, SROCE_OBJ_MR, false);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_obj;
	}
	mr->pd = pd;
	mr->dma = true;
	mr->length = U64_MAX;
	err = sroce_mr_publish(sdev, mr, access & SROCE_MR_ACCESS_MASK, false);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	kfree(mr);
err_obj:
	sroce_obj_del(sdev, SROCE_OBJ_MR);
	return ERR_PTR(err);
}

/*
 * ib_alloc_mr(IB_MR_TYPE_MEM_REG): a FREE MR with room for @max_num_sg
 * pages, registered later by ib_map_mr_sg() and IB_WR_REG_MR.
 */
static struct ib_mr *sroce_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				    u32 max_num_sg)
{
	struct sroce_dev *sdev = to_sdev(pd->device);
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);
	err = sroce_obj_add(sdev, SROCE_OBJ_MR, false);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_obj;
	}
	mr->fr_pages = kvcalloc(max_num_sg, sizeof(*mr->fr_pages), GFP_KERNEL);
	if (!mr->fr_pages) {
		err = -ENOMEM;
		goto err_free;
	}
	spin_lock_init(&mr->lock);
	mr->fr_max = max_num_sg;
	mr->fr_shift = PAGE_SHIFT;
	mr->pd = pd;
	err = sroce_mr_publish(sdev, mr, 0, true);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	sroce_mr_free(mr);
err_obj:
	sroce_obj_del(sdev, SROCE_OBJ_MR);
	return ERR_PTR(err);
}

static int sroce_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->fr_mapped >= mr->fr_max)
		return -ENOMEM;
	WRITE_ONCE(mr->fr_pages[mr->fr_mapped++], addr);
	return 0;
}

/*
 * ib_map_mr_sg: the consumer maps a FREE MR (nothing reads the page list
 * then).  ib_sg_to_pages sets ibmr.iova and .length; REG_MR takes them.
 * With virtual DMA the addresses are kernel addresses.
 */
static int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			   int sg_nents, unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	mr->fr_mapped = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset,
			      sroce_mr_set_page);
}

/* The MR of @key in @pd that fast registration applies to, or NULL. */
static struct sroce_mr *sroce_mr_fast_lookup(struct sroce_dev *sdev,
					     struct ib_pd *pd, u32 key)
{
	struct sroce_mr *mr = xa_load(&sdev->mrs, key >> 8);

	if (!mr || !mr->st.fast || mr->pd != pd)
		return NULL;
	return mr;
}

int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd, u32 key,
		      u32 access)
{
	struct sroce_mr *mr = sroce_mr_fast_lookup(sdev, pd, key);
	u64 iova, length, span;
	u32 page_size;
	int err = -EINVAL;

	if (!mr)
		return -EINVAL;
	/* Set by ib_map_mr_sg while the MR is FREE. */
	iova = READ_ONCE(mr->ibmr.iova);
	length = READ_ONCE(mr->ibmr.length);
	page_size = READ_ONCE(mr->ibmr.page_size);
	if (!is_power_of_2(page_size) || page_size < SZ_4K)
		return -EINVAL;

	spin_lock_bh(&mr->lock);
	/* The range must lie in the mapped pages, with u32 offsets. */
	span = (iova & (page_size - 1)) + length;
	if (span > (u64)mr->fr_mapped * page_size || span > U32_MAX)
		goto out;
	if (sroce_mr_st_reg(&mr->st, key, access & SROCE_MR_ACCESS_MASK))
		goto out;
	mr->iova = iova;
	mr->length = length;
	mr->page_offset = iova & (page_size - 1);
	WRITE_ONCE(mr->fr_shift, ilog2(page_size));
	err = 0;
out:
	spin_unlock_bh(&mr->lock);
	return err;
}

int sroce_mr_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 key)
{
	struct sroce_mr *mr = sroce_mr_fast_lookup(sdev, pd, key);
	int err;

	if (!mr)
		return -EINVAL;
	spin_lock_bh(&mr->lock);
	err = sroce_mr_st_inv(&mr->st, key) ? -EINVAL : 0;
	spin_unlock_bh(&mr->lock);
	return err;
}

static int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);

	/* Verbs: not while a memory window is bound to it (mw.c). */
	if (!sroce_mw_mr_unpublish(sdev, mr))
		return -EBUSY;
	/* Freed once no data-path user can still hold a ref to it. */
	INIT_RCU_WORK(&mr->free_work, sroce_mr_free_work);
	queue_rcu_work(sroce_mr_wq, &mr->free_work);
	sroce_obj_del(sdev, SROCE_OBJ_MR);
	return 0;
}

/*
 * ibv_rereg_mr().  ib_core holds the MR's uobject for writing, so no
 * dereg or other rereg of it runs meanwhile; the data path may, on any
 * CPU.  The new map is built beside the old one and swapped in with one
 * pointer store: an access checked against the old map completes on the
 * old pages, which stay pinned until a grace period after the swap, and
 * one checked after it sees only the new map.  Every rereg gives the MR
 * a new key byte (the index stays), so a request still carrying the old
 * lkey or rkey is refused as a stale key, never resolved in the new
 * range, rights or PD.  Any failure leaves the MR as it was.
 */
static int sroce_mr_rereg(struct ib_mr *ibmr, int flags, u64 start,
			  u64 length, u64 iova, int access,
			  struct ib_pd *new_pd)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_mr_map *old, *map;
	bool repin;
	u32 key;
	int err;

	/*
	 * No flags is refused by ib_core, but reaches us when the only
	 * change was IB_MR_REREG_PD to the PD the MR has (6.1 drops the
	 * flag): that succeeds like any rereg, with new keys.
	 */
	if (flags & ~IB_MR_REREG_SUPPORTED)
		return -EINVAL;
	/* ib_core offers rereg for user MRs only; they alone have a map. */
	if (mr->dma || mr->st.fast)
		return -EINVAL;
	/* Verbs: not while a memory window is bound (rechecked below). */
	if (READ_ONCE(mr->nmw))
		return -EBUSY;
	old = rcu_dereference_protected(mr->map, 1);	/* uobject locked */
	if (!(flags & IB_MR_REREG_ACCESS))
		access = old->access;
	err = sroce_mr_check_access(ibmr->device, access, true);
	if (err)
		return err;
	/* An ODP MR is registered anew, not rereg'd (Documentation/odp.rst). */
	if (old->odp || (access & IB_ACCESS_ON_DEMAND))
		return -EOPNOTSUPP;
	if (flags & IB_MR_REREG_TRANS) {
		err = sroce_mr_check_range(length, iova);
		if (err)
			return err;
	}
	/* 5.10 passes no PD without IB_MR_REREG_PD. */
	if (!(flags & IB_MR_REREG_PD) || !new_pd)
		new_pd = old->pd;

	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map)
		return -ENOMEM;
	/*
	 * A new range is pinned anew; so is the old range when the new
	 * rights write to memory that was pinned read-only.  Otherwise the
	 * new map takes over the old one's pages at the swap.
	 */
	repin = (flags & IB_MR_REREG_TRANS) ||
		(ib_access_writable(access) && !old->umem->writable);
	if (flags & IB_MR_REREG_TRANS) {
		err = sroce_mr_map_pin(ibmr->device, map, start, length, iova,
				       access);
	} else if (repin) {
		err = sroce_mr_map_pin(ibmr->device, map, old->umem->address,
				       old->umem->length, old->iova, access);
	} else {
		map->umem = old->umem;
		map->pages = old->pages;
		map->npages = old->npages;
		map->page_offset = old->page_offset;
		map->iova = old->iova;
		map->length = old->length;
	}
	if (err)
		goto err_free;
	map->pd = new_pd;
	map->access = access;
	/* 1..255 added to the key byte: never the old key again. */
	key = (ibmr->lkey & ~0xffu) |
	      (u8)(ibmr->lkey + 1 + sroce_key_byte() % 255);
	sroce_mr_st_init(&map->st, key, access & SROCE_MR_ACCESS_MASK, false);

	/* mw.c binds under this lock: no window appears during the swap. */
	spin_lock_bh(&sdev->mw_lock);
	if (mr->nmw) {
		spin_unlock_bh(&sdev->mw_lock);
		err = -EBUSY;
		goto err_free;
	}
	if (!repin) {
		old->owner = false;
		map->owner = true;
	}
	rcu_assign_pointer(mr->map, map);
	mr->pd = new_pd;
	ibmr->lkey = key;
	ibmr->rkey = key;
	spin_unlock_bh(&sdev->mw_lock);
	ibmr->iova = map->iova;
	ibmr->length = map->length;

	/* The old map's pages are unpinned once no reader can hold them. */
	INIT_RCU_WORK(&old->free_work, sroce_mr_map_free_work);
	queue_rcu_work(sroce_mr_wq, &old->free_work);
	return 0;

err_free:
	sroce_mr_map_free(map);
	return err;
}

static SROCE_REREG_RET sroce_rereg_user_mr(struct ib_mr *ibmr, int flags,
					   u64 start, u64 length, u64 iova,
					   int access, struct ib_pd *pd,
					   struct ib_udata *udata)
{
	return SROCE_REREG_RESULT(sroce_mr_rereg(ibmr, flags, start, length,
						 iova, access, pd));
}

/* A DMA MR address must be mapped kernel memory (direct map or vmalloc). */
static bool sroce_kva_ok(unsigned long kva)
{
	if (is_vmalloc_addr((void *)kva))
		return vmalloc_to_page((void *)kva);
	return virt_addr_valid(kva);
}

/* A copy of @mr's key, state, PD and mapping, consistent for one check. */
struct sroce_mr_view {
	struct sroce_mr_st st;
	struct ib_pd *pd;
	u64 iova;
	u64 length;
	u32 page_off;	/* fast-reg: iova's offset in the first page */
	const struct sroce_mr_map *map;	/* user MR: the one checked */
};

static void sroce_mr_view(struct sroce_mr *mr, struct sroce_mr_view *v)
{
	const struct sroce_mr_map *map;

	v->pd = mr->pd;
	v->page_off = 0;
	v->map = NULL;
	if (mr->dma) {
		/* Fixed from publication on. */
		v->st = mr->st;
		v->iova = mr->iova;
		v->length = mr->length;
		return;
	}
	if (!mr->st.fast) {
		/* One map, one snapshot: rereg replaces it whole. */
		map = rcu_dereference(mr->map);
		v->st = map->st;
		v->pd = map->pd;
		v->iova = map->iova;
		v->length = map->length;
		v->map = map;
		return;
	}
	spin_lock_bh(&mr->lock);
	v->st = mr->st;
	v->iova = mr->iova;
	v->length = mr->length;
	v->page_off = mr->page_offset;
	spin_unlock_bh(&mr->lock);
}

int sroce_mem_access(struct sroce_dev *sdev, struct ib_pd *pd, u32 key,
		     bool remote, u64 va, u32 len, u32 access,
		     struct sroce_mem_ref *out)
{
	bool key_only = access & SROCE_ACCESS_KEY_ONLY;
	struct sroce_mr_view v;
	struct sroce_mr *mr;
	u64 off;

	/* Verbs: a zero-length access checks neither key nor address. */
	if (!len && !key_only) {
		*out = (struct sroce_mem_ref){ .va = va };
		return 0;
	}
	/* FLUSH of a whole MR or of nothing: the key and rights only. */
	access &= ~SROCE_ACCESS_KEY_ONLY;

	mr = xa_load(&sdev->mrs, key >> 8);
	if (!mr)
		return -EINVAL;
	sroce_mr_view(mr, &v);
	if (v.pd != pd)
		return -EINVAL;
	switch (sroce_mr_st_check(&v.st, key, remote, access)) {
	case SROCE_MR_OK:
		break;
	case SROCE_MR_E_ACCESS:
		return -EACCES;
	default:
		return -EINVAL;
	}

	if (key_only) {
		*out = (struct sroce_mem_ref){ .mr = mr, .va = va };
		return 0;
	}
	if (mr->dma) {
		if (va > U64_MAX - (len - 1) || !sroce_kva_ok(va) ||
		    !sroce_kva_ok(va + len - 1))
			return -EFAULT;
	} else {
		if (va < v.iova)
			return -EFAULT;
		off = va - v.iova;
		if (off > v.length || len > v.length - off)
			return -EFAULT;
		/* A page whose fault failed: the access that needs it fails. */
		if (v.map && v.map->odp && sroce_odp_check(v.map, va, len))
			return -EFAULT;
	}

	out->mr = mr;
	out->map = (void *)v.map;
	out->va = va;
	out->len = len;
	/*
	 * Fast-reg: byte offset of @va from the start of the page list,
	 * fixed for this ref.  REG_MR keeps it within u32 (sroce_mr_fast_reg).
	 */
	out->priv = mr->st.fast ? (u32)(off + v.page_off) : 0;
	return 0;
}

/*
 * The kernel address of byte @pos of a fast-reg MR's page list, and the
 * bytes contiguous from there (to the end of its page), or 0 if @pos is
 * outside it.  Pages are ibmr.page_size blocks, each contiguous in the
 * kernel's address space (virtual DMA: ib_sg_to_pages merges only
 * contiguous ranges).
 */
static u32 sroce_mr_fast_addr(const struct sroce_mr *mr, u64 pos, void **kva)
{
	u8 shift = READ_ONCE(mr->fr_shift);
	u64 idx = pos >> shift, in = pos & (BIT_ULL(shift) - 1);
	unsigned long a;

	/* Bounded by the allocation even if the consumer remaps meanwhile. */
	if (idx >= mr->fr_max)
		return 0;
	a = READ_ONCE(mr->fr_pages[idx]) + in;
	if (!sroce_kva_ok(a))
		return 0;
	*kva = (void *)a;
	return min_t(u64, BIT_ULL(shift) - in, PAGE_SIZE - offset_in_page(a));
}

static int sroce_mr_fast_for_each(const struct sroce_mr *mr, u64 pos, u32 len,
				  int (*fn)(void *priv, void *kaddr, u32 len),
				  void *priv)
{
	void *kva;
	u32 chunk;
	int err;

	while (len) {
		chunk = sroce_mr_fast_addr(mr, pos, &kva);
		if (!chunk)
			return -EFAULT;
		chunk = min(chunk, len);
		err = fn(priv, kva, chunk);
		if (err)
			return err;
		pos += chunk;
		len -= chunk;
	}
	return 0;
}

int sroce_mem_for_each(const struct sroce_mem_ref *ref, u32 off, u32 len,
		       int (*fn)(void *priv, void *kaddr, u32 len),
		       void *priv)
{
	const struct sroce_mr *mr = ref->mr;
	const struct sroce_mr_map *map = ref->map;
	u64 pos, idx;
	u32 in, chunk;
	void *kaddr;
	int err;

	if (off > ref->len || len > ref->len - off)
		return -EINVAL;
	if (!len)
		return 0;

	if (mr->dma) {
		/* Kernel addresses are mapped already; walk page by page. */
		pos = ref->va + off;
		while (len) {
			chunk = min_t(u64, len, PAGE_SIZE - offset_in_page(pos));
			if (!sroce_kva_ok(pos))
				return -EFAULT;
			err = fn(priv, (void *)(uintptr_t)pos, chunk);
			if (err)
				return err;
			pos += chunk;
			len -= chunk;
		}
		return 0;
	}

	if (mr->st.fast)
		return sroce_mr_fast_for_each(mr, ref->priv + (u64)off, len, fn,
					      priv);
	if (map->odp)
		return sroce_odp_for_each(map, ref->va + off, len, fn, priv);

	pos = map->page_offset + (ref->va - map->iova) + off;
	idx = pos >> PAGE_SHIFT;
	in = offset_in_page(pos);
	while (len) {
		if (WARN_ON_ONCE(idx >= map->npages))
			return -EFAULT;
		chunk = min_t(u32, len, PAGE_SIZE - in);
		kaddr = kmap_local_page(map->pages[idx]);
		err = fn(priv, kaddr + in, chunk);
		kunmap_local(kaddr);
		if (err)
			return err;
		len -= chunk;
		in = 0;
		idx++;
	}
	return 0;
}

int sroce_mem_pages(const struct sroce_mem_ref *ref, u32 off, u32 len,
		    struct sroce_page_run *runs, int max)
{
	const struct sroce_mr_map *map = ref->map;
	u64 pos, idx;
	u32 in, chunk;
	int n = 0;

	if (off > ref->len || len > ref->len - off)
		return 0;
	/* DMA and fast-reg MRs hold kernel addresses, not pinned pages. */
	if (!map || !map->pages)
		return 0;
	pos = map->page_offset + (ref->va - map->iova) + off;
	idx = pos >> PAGE_SHIFT;
	in = offset_in_page(pos);
	while (len) {
		if (n == max || idx >= map->npages)
			return 0;
		chunk = min_t(u32, len, PAGE_SIZE - in);
		runs[n].page = map->pages[idx];
		runs[n].off = in;
		runs[n].len = chunk;
		n++;
		len -= chunk;
		in = 0;
		idx++;
	}
	return n;
}

static int sroce_copy_to_chunk(void *priv, void *kaddr, u32 len)
{
	const u8 **src = priv;

	memcpy(kaddr, *src, len);
	*src += len;
	return 0;
}

static int sroce_copy_from_chunk(void *priv, void *kaddr, u32 len)
{
	u8 **dst = priv;

	memcpy(*dst, kaddr, len);
	*dst += len;
	return 0;
}

int sroce_mem_copy_to(const struct sroce_mem_ref *ref, u32 off,
		      const void *src, u32 len)
{
	const u8 *p = src;

	return sroce_mem_for_each(ref, off, len, sroce_copy_to_chunk, &p);
}

int sroce_mem_copy_from(const struct sroce_mem_ref *ref, u32 off,
			void *dst, u32 len)
{
	u8 *p = dst;

	return sroce_mem_for_each(ref, off, len, sroce_copy_from_chunk, &p);
}

static void sroce_atomic_word(atomic64_t *word, u8 op, u64 cmp, u64 swap_add,
			      u64 *orig)
{
	if (op == SROCE_OP_CMP_SWAP) {
		*orig = atomic64_cmpxchg(word, cmp, swap_add);
	} else if (op == SROCE_OP_FETCH_ADD) {
		*orig = atomic64_fetch_add(swap_add, word);
	} else {
		/* ATOMIC WRITE: seen only after every earlier placement. */
		atomic64_set_release(word, swap_add);
		*orig = 0;
	}
}

struct sroce_atomic_args {
	u8 op;
	u64 cmp, swap_add, *orig;
};

/* An ODP page's word, under odp.c's lock. */
static int sroce_atomic_chunk(void *priv, void *kaddr, u32 len)
{
	struct sroce_atomic_args *a = priv;

	sroce_atomic_word(kaddr, a->op, a->cmp, a->swap_add, a->orig);
	return 0;
}

/*
 * The atomic works on the memory word itself, so it is atomic against
 * every CPU, QP and local access, with no lock of ours.  An 8-aligned
 * word never crosses a page.
 */
int sroce_mem_atomic(const struct sroce_mem_ref *ref, u8 op, u64 cmp,
		     u64 swap_add, u64 *orig)
{
	const struct sroce_mr *mr = ref->mr;
	const struct sroce_mr_map *map = ref->map;
	atomic64_t *word;
	void *kaddr;
	u64 pos;

	if (ref->len < sizeof(u64) || !IS_ALIGNED(ref->va, sizeof(u64)))
		return -EINVAL;
	if (op != SROCE_OP_CMP_SWAP && op != SROCE_OP_FETCH_ADD &&
	    op != SROCE_OP_ATOMIC_WRITE)
		return -EINVAL;

	if (mr->dma) {
		if (!sroce_kva_ok(ref->va))
			return -EFAULT;
		kaddr = NULL;
		word = (atomic64_t *)(uintptr_t)ref->va;
	} else if (mr->st.fast) {
		if (sroce_mr_fast_addr(mr, ref->priv, &kaddr) < sizeof(u64))
			return -EFAULT;
		word = kaddr;
		kaddr = NULL;
	} else if (map->odp) {
		/* The page stays present while the callback runs. */
		struct sroce_atomic_args a = {
			.op = op, .cmp = cmp, .swap_add = swap_add, .orig = orig,
		};

		return sroce_odp_for_each(map, ref->va, sizeof(u64),
					  sroce_atomic_chunk, &a);
	} else {
		pos = map->page_offset + (ref->va - map->iova);
		if (WARN_ON_ONCE((pos >> PAGE_SHIFT) >= map->npages))
			return -EFAULT;
		kaddr = kmap_local_page(map->pages[pos >> PAGE_SHIFT]);
		word = kaddr + offset_in_page(pos);
	}

	sroce_atomic_word(word, op, cmp, swap_add, orig);
	if (kaddr)
		kunmap_local(kaddr);
	return 0;
}

const struct ib_device_ops sroce_mr_ops = {
	.alloc_mr = sroce_alloc_mr,
	.map_mr_sg = sroce_map_mr_sg,
	.advise_mr = sroce_advise_mr,
	.dereg_mr = sroce_dereg_mr,
	.get_dma_mr = sroce_get_dma_mr,
	.reg_user_mr = sroce_reg_user_mr,
	.rereg_user_mr = sroce_rereg_user_mr,
};
