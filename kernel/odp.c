// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging of a user MR (IB_ACCESS_ON_DEMAND): nothing is pinned.
 * ib_core's umem_odp tracks the range with an MMU interval notifier;
 * sroce keeps its own table of the pages it may touch, @pages, under a
 * spinlock the data path can take in any context.  Documentation/odp.rst.
 *
 * - The data path finds a page absent: it asks the fault work for the
 *   range and answers -EAGAIN (the core sends the packet again later).
 * - The fault work (process context, sroce_odp_wq) faults the range in with
 *   ib_umem_odp_map_dma_and_lock() and, under umem_mutex, fills @pages.
 * - The notifier (munmap, MADV_DONTNEED, fork's write protection,
 *   migration) takes umem_mutex, then the spinlock, and clears @pages
 *   before ib_core unmaps: no access can then reach the old page.
 * A fault that fails (no VMA there, or no write permission) marks the
 * page bad; the next access to it fails (-EFAULT) and clears the mark.
 *
 * An implicit MR (start 0, length U64_MAX) covers the registering
 * process's address space below TASK_SIZE.  ib_core gives it a root umem
 * with no notifier; the fault work adds a child umem, with its own
 * notifier and table, per SROCE_ODP_CHILD_SIZE aligned chunk it is asked
 * for.  Children stay until the MR is freed (so the data path looks them
 * up under the spinlock with no reference of its own), at most
 * SROCE_ODP_MAX_CHILDREN of them: past that, an access to a chunk with no
 * child fails.
 */
#include <linux/hmm.h>
#include <linux/highmem.h>
#include <linux/kref.h>
#include <linux/minmax.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_umem_odp.h>

#include "sroce.h"

/* A @pages entry: a struct page *, 0 (absent) or this (the fault failed). */
#define SROCE_ODP_BAD		1UL
/* The fault work faults at most this much at once. */
#define SROCE_ODP_CHUNK		(512UL << PAGE_SHIFT)
/* Ranges waiting for the fault work; more are merged into the last. */
#define SROCE_ODP_PENDING	8
/* A fault also brings in this much after the page needed (read-ahead). */
#define SROCE_ODP_AHEAD		(64UL << PAGE_SHIFT)
/* mem_access checks the bad marks of ranges this short (one packet's). */
#define SROCE_ODP_CHECK_PAGES	16
/* Implicit MR: each child umem covers one aligned chunk of this size. */
#define SROCE_ODP_CHILD_SHIFT	21
#define SROCE_ODP_CHILD_SIZE	BIT(SROCE_ODP_CHILD_SHIFT)
#define SROCE_ODP_CHILD_PAGES	(SROCE_ODP_CHILD_SIZE >> PAGE_SHIFT)
/*
 * What ib_core keeps per page of an ODP umem (pfn_list and dma_list).
 * It allocates them without __GFP_ACCOUNT, so the memory cgroup cannot
 * bound them: the device budget does, as for rings.
 */
#define SROCE_ODP_CORE_BYTES	(sizeof(unsigned long) + sizeof(dma_addr_t))
/*
 * A child's share of the device budget: ib_core's arrays and its table,
 * made by the fault work, whose kworker no memory cgroup is charged for.
 */
#define SROCE_ODP_CHILD_COST	(SROCE_ODP_CHILD_PAGES * \
				 (SROCE_ODP_CORE_BYTES + sizeof(unsigned long)))
/* At most 16 GiB of an implicit MR's address space has children. */
#define SROCE_ODP_MAX_CHILDREN	8192

struct sroce_odp_range {
	unsigned long lo, hi;	/* page-aligned user addresses, [lo, hi) */
	bool ahead;		/* read-ahead: a failure marks nothing */
};

/* The pages of one umem: the MR's, or an implicit MR's child's. */
struct sroce_odp_tbl {
	struct ib_umem_odp	*umem;	/* ->private points back here */
	struct sroce_odp	*odp;
	unsigned long		*pages;	/* under odp->lock */
	unsigned long		npages;
	unsigned long		start;	/* user address of pages[0] */
};

struct sroce_odp {
	struct kref		ref;	/* the map's, and a prefetch's */
	struct ib_umem_odp	*umem;	/* the MR's, or the implicit root */
	struct sroce_dev	*sdev;
	spinlock_t		lock;	/* every table's pages, @pending */
	struct sroce_odp_tbl	tbl;	/* explicit MR */
	unsigned long		end;	/* user addresses below this */
	bool			implicit;
	/* Implicit MR: tables by chunk index; added, never removed. */
	struct xarray		children;
	struct mutex		child_mutex;	/* adding one */
	unsigned int		nchildren;	/* under @child_mutex */
	bool			full;	/* no more children to be had */
	struct sroce_odp_range	pending[SROCE_ODP_PENDING];
	u32			npending;
	struct work_struct	work;
};

/*
 * The table of the page at @addr, NULL if an implicit MR has no child
 * there yet.  Under odp->lock, or in process context: a table once
 * there stays until the MR is freed.
 */
static struct sroce_odp_tbl *sroce_odp_tbl(struct sroce_odp *odp,
					   unsigned long addr)
{
	if (!odp->implicit)
		return &odp->tbl;
	return xa_load(&odp->children, addr >> SROCE_ODP_CHILD_SHIFT);
}

/* The @pages entry of @addr in @tbl. */
static unsigned long *sroce_odp_slot(struct sroce_odp_tbl *tbl,
				     unsigned long addr)
{
	return &tbl->pages[(addr - tbl->start) >> PAGE_SHIFT];
}

/* The page ib_core mapped at @idx; umem_mutex held, after a fault. */
static unsigned long sroce_odp_entry(struct ib_umem_odp *umem,
				     unsigned long idx)
{
	unsigned long pfn = sroce_odp_pfns(umem)[idx];

	if (!(pfn & HMM_PFN_VALID))
		return 0;
	/*
	 * A page mapped read-only (PREFETCH_NO_FAULT takes any present page:
	 * a file's page cache, the zero page, a COW page after fork) must not
	 * take RDMA writes: absent, so that a write fault breaks it first.
	 */
	if (umem->umem.writable && !(pfn & HMM_PFN_WRITE))
		return 0;
	return (unsigned long)hmm_pfn_to_page(pfn);
}

static const struct mmu_interval_notifier_ops sroce_odp_ops;

/* Give @tbl to @umem's notifier (it saw no table before). */
static void sroce_odp_tbl_attach(struct sroce_odp_tbl *tbl,
				 struct ib_umem_odp *umem, struct sroce_odp *odp)
{
	tbl->umem = umem;
	tbl->odp = odp;
	tbl->start = ib_umem_start(umem);
	mutex_lock(&umem->umem_mutex);
	umem->private = tbl;
	mutex_unlock(&umem->umem_mutex);
}

/*
 * Implicit MR: a child umem and table for the chunk of @addr.  Process
 * context; -ENOSPC once the MR may have no more (the access fails).
 */
static struct sroce_odp_tbl *sroce_odp_child_new(struct sroce_odp *odp,
						 unsigned long addr)
{
	unsigned long lo = round_down(addr, SROCE_ODP_CHILD_SIZE);
	struct mm_struct *mm = odp->umem->umem.owning_mm;
	struct sroce_odp_tbl *tbl;
	struct ib_umem_odp *umem;
	int err;

	if (odp->nchildren >= SROCE_ODP_MAX_CHILDREN) {
		sroce_count(odp->sdev, SROCE_CTR_ODP_IMPLICIT_FULL, 1);
		return ERR_PTR(-ENOSPC);
	}
	/* A spent budget may come back: the access waits, the MR is not full. */
	if (!sroce_mem_charge(SROCE_ODP_CHILD_COST, true))
		return ERR_PTR(-ENOMEM);
	err = -ENOMEM;
	tbl = kzalloc(sizeof(*tbl), GFP_KERNEL_ACCOUNT);
	if (!tbl)
		goto err_budget;
	tbl->npages = SROCE_ODP_CHILD_PAGES;
	tbl->pages = kcalloc(tbl->npages, sizeof(*tbl->pages),
			     GFP_KERNEL_ACCOUNT);
	if (!tbl->pages)
		goto err_free;
	/* The notifier's insertion wants a live mm: the process may be gone. */
	if (!mmget_not_zero(mm)) {
		err = -ENOSPC;
		goto err_free;
	}
	umem = ib_umem_odp_alloc_child(odp->umem, lo, SROCE_ODP_CHILD_SIZE,
				       &sroce_odp_ops);
	mmput(mm);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_free;
	}
	sroce_odp_tbl_attach(tbl, umem, odp);
	err = xa_insert(&odp->children, addr >> SROCE_ODP_CHILD_SHIFT, tbl,
			GFP_KERNEL_ACCOUNT);
	if (err) {
		ib_umem_odp_release(umem);
		goto err_free;
	}
	odp->nchildren++;
	return tbl;

err_free:
	kfree(tbl->pages);
	kfree(tbl);
err_budget:
	sroce_mem_uncharge(SROCE_ODP_CHILD_COST);
	return ERR_PTR(err);
}

/* The table of @addr, a child made for it if need be.  Process context. */
static struct sroce_odp_tbl *sroce_odp_tbl_get(struct sroce_odp *odp,
					       unsigned long addr)
{
	struct sroce_odp_tbl *tbl = sroce_odp_tbl(odp, addr);

	if (tbl)
		return tbl;
	mutex_lock(&odp->child_mutex);
	tbl = sroce_odp_tbl(odp, addr);
	if (!tbl)
		tbl = sroce_odp_child_new(odp, addr);
	/* The data path fails an access with no child from now on. */
	if (IS_ERR(tbl) && PTR_ERR(tbl) == -ENOSPC)
		WRITE_ONCE(odp->full, true);
	mutex_unlock(&odp->child_mutex);
	return tbl;
}

/*
 * Fault [@addr, @addr + @len) in (or with !@fault, take what is present)
 * and publish it in @pages.  Process context.
 */
static int sroce_odp_map(struct sroce_odp *odp, unsigned long addr,
			 unsigned long len, bool fault)
{
	struct sroce_odp_tbl *tbl;
	struct ib_umem_odp *umem;
	unsigned long a, idx;
	int np;

	tbl = sroce_odp_tbl_get(odp, addr);
	if (IS_ERR(tbl))
		return PTR_ERR(tbl);
	umem = tbl->umem;
	np = ib_umem_odp_map_dma_and_lock(umem, addr, len,
					  SROCE_ODP_ACCESS(umem->umem.writable),
					  fault);
	if (np < 0)
		return np;
	/* umem_mutex held: no invalidation until the entries are ours. */
	spin_lock_bh(&odp->lock);
	for (a = addr & PAGE_MASK; a < addr + len; a += PAGE_SIZE) {
		idx = (a - tbl->start) >> PAGE_SHIFT;
		tbl->pages[idx] = sroce_odp_entry(umem, idx);
	}
	spin_unlock_bh(&odp->lock);
	mutex_unlock(&umem->umem_mutex);
	return 0;
}

static void sroce_odp_mark_bad(struct sroce_odp *odp, unsigned long addr)
{
	struct sroce_odp_tbl *tbl = sroce_odp_tbl(odp, addr);

	if (!tbl)
		return;
	spin_lock_bh(&odp->lock);
	*sroce_odp_slot(tbl, addr) = SROCE_ODP_BAD;
	spin_unlock_bh(&odp->lock);
}

/*
 * Fault a page-aligned range in by chunks; with @mark, mark what cannot
 * be had (read-ahead may run past the mapping: that is no error).
 */
static int sroce_odp_fault(struct sroce_odp *odp, unsigned long lo,
			   unsigned long hi, bool fault, bool mark)
{
	unsigned long a, p, end;
	int err = 0, ret;

	for (a = lo; a < hi; a = end) {
		/* An advice may name many GiB: yield, and let a kill end it. */
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		/* One umem at a time: an implicit MR's chunk ends its child. */
		end = min(hi, a + SROCE_ODP_CHUNK);
		if (odp->implicit)
			end = min(end, round_down(a, SROCE_ODP_CHILD_SIZE) +
				       SROCE_ODP_CHILD_SIZE);
		ret = sroce_odp_map(odp, a, end - a, fault);
		if (!ret) {
			sroce_count(odp->sdev, SROCE_CTR_ODP_PAGE_FAULTS, 1);
			continue;
		}
		/* No child to be had: nothing to mark, the access fails. */
		if (ret == -ENOSPC)
			return -EFAULT;
		/* Short of memory or budget: nothing to mark, ask again later. */
		if (ret == -ENOMEM) {
			err = ret;
			continue;
		}
		if (!mark)
			continue;
		/*
		 * Some page of the chunk cannot be had: which ones.  Only a
		 * missing mapping or permission fails the access that needs
		 * the page; a transient error (-EBUSY, -ENOMEM) leaves it
		 * absent, to be asked for again on the retry.
		 */
		for (p = a; p < end; p += PAGE_SIZE) {
			ret = sroce_odp_map(odp, p, PAGE_SIZE, fault);
			if (!ret)
				continue;
			if (ret == -EFAULT || ret == -EPERM)
				sroce_odp_mark_bad(odp, p);
			err = -EFAULT;
			cond_resched();
		}
	}
	return err;
}

static void sroce_odp_work(struct work_struct *work)
{
	struct sroce_odp *odp = container_of(work, struct sroce_odp, work);
	struct sroce_odp_range r;

	for (;;) {
		spin_lock_bh(&odp->lock);
		if (!odp->npending) {
			spin_unlock_bh(&odp->lock);
			return;
		}
		r = odp->pending[--odp->npending];
		spin_unlock_bh(&odp->lock);
		sroce_odp_fault(odp, r.lo, r.hi, true, !r.ahead);
	}
}

/* Under odp->lock: add [@lo, @hi) to the fault work's ranges. */
static void sroce_odp_add(struct sroce_odp *odp, unsigned long lo,
			  unsigned long hi, bool ahead)
{
	struct sroce_odp_range *r;
	u32 i;

	if (lo >= hi)
		return;
	for (i = 0; i < odp->npending; i++) {
		r = &odp->pending[i];
		if (lo >= r->lo && hi <= r->hi && (ahead || !r->ahead))
			return;
	}
	if (odp->npending < SROCE_ODP_PENDING) {
		r = &odp->pending[odp->npending++];
		r->lo = lo;
		r->hi = hi;
		r->ahead = ahead;
		return;
	}
	/*
	 * Full.  Merging would let scattered accesses grow one range over
	 * the whole MR; a needed range takes a read-ahead's place, else it
	 * waits: the access that wants it is retried and asks again.
	 */
	if (ahead)
		return;
	for (i = 0; i < odp->npending; i++) {
		r = &odp->pending[i];
		if (r->ahead) {
			r->lo = lo;
			r->hi = hi;
			r->ahead = false;
			return;
		}
	}
}

/*
 * Under odp->lock: have the fault work bring [@lo, @hi) in, and with
 * @ahead the SROCE_ODP_AHEAD after it (a message goes on where its
 * packet ended).  The needed range is taken first (a stack).
 */
static void sroce_odp_request(struct sroce_odp *odp, unsigned long lo,
			      unsigned long hi, bool ahead)
{
	if (ahead)
		sroce_odp_add(odp, hi, min(odp->end, hi + SROCE_ODP_AHEAD), true);
	sroce_odp_add(odp, lo, hi, false);
	queue_work(sroce_odp_wq, &odp->work);
}

static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp,
						notifier);
	unsigned long start, end, i;
	struct sroce_odp_tbl *tbl;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max(ib_umem_start(umem), range->start);
	end = min(ib_umem_end(umem), range->end);
	/* NULL until registration finished: nothing of ours mapped yet. */
	tbl = umem->private;
	if (tbl && start < end) {
		spin_lock_bh(&tbl->odp->lock);
		for (i = (start - tbl->start) >> PAGE_SHIFT;
		     i < (end - tbl->start + PAGE_SIZE - 1) >> PAGE_SHIFT; i++)
			tbl->pages[i] = 0;
		spin_unlock_bh(&tbl->odp->lock);
		sroce_count(tbl->odp->sdev, SROCE_CTR_ODP_INVALIDATIONS, 1);
	}
	if (start < end)
		ib_umem_odp_unmap_dma_pages(umem, start, end);
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_ops = {
	.invalidate = sroce_odp_invalidate,
};

/* Implicit ODP: the registering process's whole address space. */
static int sroce_odp_get_implicit(struct ib_device *ibdev,
				  struct sroce_odp *odp, int access)
{
	struct ib_umem_odp *root;

	root = ib_umem_odp_alloc_implicit(ibdev, access);
	if (IS_ERR(root))
		return PTR_ERR(root);
	odp->umem = root;
	odp->implicit = true;
	/* TASK_SIZE of the registering task: here, not in a softirq. */
	odp->end = TASK_SIZE & PAGE_MASK;
	xa_init(&odp->children);
	mutex_init(&odp->child_mutex);
	return 0;
}

static int sroce_odp_get_explicit(struct ib_device *ibdev,
				  struct sroce_odp *odp, u64 start, u64 length,
				  int access)
{
	struct ib_umem_odp *umem;
	unsigned long *pages;
	unsigned long npages;
	int err;

	if (!length || start + length < start)
		return -EINVAL;
	npages = (PAGE_ALIGN(start + length) - (start & PAGE_MASK)) >>
		 PAGE_SHIFT;
	/* kvmalloc warns above INT_MAX bytes (an MR of 1 TiB needs 2 GiB). */
	if (npages > INT_MAX / SROCE_ODP_CORE_BYTES)
		return -ENOMEM;
	if (!sroce_mem_charge(npages * SROCE_ODP_CORE_BYTES, true))
		return -ENOMEM;
	/* Ours first: charged, so the cgroup refuses before ib_core allocates. */
	err = -ENOMEM;
	pages = kvcalloc(npages, sizeof(*pages), SROCE_GFP_USER);
	if (!pages)
		goto err_budget;
	umem = ib_umem_odp_get(ibdev, start, length, access, &sroce_odp_ops);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_pages;
	}
	if (umem->page_shift != PAGE_SHIFT ||
	    ib_umem_odp_num_pages(umem) != npages) {
		ib_umem_odp_release(umem);
		err = -EOPNOTSUPP;
		goto err_pages;
	}
	odp->umem = umem;
	odp->tbl.pages = pages;
	odp->tbl.npages = npages;
	odp->end = ib_umem_end(umem);
	sroce_odp_tbl_attach(&odp->tbl, umem, odp);
	return 0;

err_pages:
	kvfree(pages);
err_budget:
	sroce_mem_uncharge(npages * SROCE_ODP_CORE_BYTES);
	return err;
}

int sroce_odp_get(struct ib_device *ibdev, struct sroce_mr_map *map,
		  u64 start, u64 length, int access)
{
	struct sroce_odp *odp;
	int err;

	/*
	 * With IB_ACCESS_HUGETLB ib_core counts the umem in huge pages; the
	 * table here is per PAGE_SIZE page.  Refused, not half supported.
	 */
	if (access & IB_ACCESS_HUGETLB)
		return -EOPNOTSUPP;
	odp = kzalloc(sizeof(*odp), GFP_KERNEL_ACCOUNT);
	if (!odp)
		return -ENOMEM;
	kref_init(&odp->ref);
	spin_lock_init(&odp->lock);
	INIT_WORK(&odp->work, sroce_odp_work);
	odp->sdev = to_sdev(ibdev);
	if (sroce_odp_is_implicit(start, length))
		err = sroce_odp_get_implicit(ibdev, odp, access);
	else
		err = sroce_odp_get_explicit(ibdev, odp, start, length, access);
	if (err) {
		kfree(odp);
		return err;
	}
	map->odp = odp;
	map->umem = &odp->umem->umem;
	return 0;
}

static void sroce_odp_release(struct kref *ref)
{
	struct sroce_odp *odp = container_of(ref, struct sroce_odp, ref);
	struct sroce_odp_tbl *tbl;
	unsigned long idx;

	/* No reader is left to queue it again (sroce.h, Lifetime). */
	cancel_work_sync(&odp->work);
	if (odp->implicit) {
		/* Each child's notifier is gone before its table. */
		xa_for_each(&odp->children, idx, tbl) {
			ib_umem_odp_release(tbl->umem);
			kfree(tbl->pages);
			kfree(tbl);
			sroce_mem_uncharge(SROCE_ODP_CHILD_COST);
			cond_resched();
		}
		xa_destroy(&odp->children);
		mutex_destroy(&odp->child_mutex);
		/* The root goes after its children, and has no notifier. */
		ib_umem_odp_release(odp->umem);
	} else {
		/* The notifier writes into the table until this returns. */
		ib_umem_odp_release(odp->umem);
		kvfree(odp->tbl.pages);
		sroce_mem_uncharge(odp->tbl.npages * SROCE_ODP_CORE_BYTES);
	}
	kfree(odp);
}

void sroce_odp_put(struct sroce_odp *odp)
{
	kref_put(&odp->ref, sroce_odp_release);
}

/* The user address of iova @va of @map. */
static unsigned long sroce_odp_addr(const struct sroce_mr_map *map, u64 va)
{
	return map->umem->address + (va - map->iova);
}

int sroce_odp_check(const struct sroce_mr_map *map, u64 va, u32 len)
{
	struct sroce_odp *odp = map->odp;
	unsigned long a = sroce_odp_addr(map, va), p, last;
	struct sroce_odp_tbl *tbl;
	unsigned long *slot;
	int err = 0;

	/* An implicit MR's length is U64_MAX: the address space ends first. */
	if (a >= odp->end || len > odp->end - a)
		return -EFAULT;
	last = (a + len - 1) & PAGE_MASK;
	if (((last - (a & PAGE_MASK)) >> PAGE_SHIFT) >= SROCE_ODP_CHECK_PAGES)
		return 0;
	spin_lock_bh(&odp->lock);
	for (p = a & PAGE_MASK; p <= last; p += PAGE_SIZE) {
		tbl = sroce_odp_tbl(odp, p);
		if (!tbl)
			continue;
		slot = sroce_odp_slot(tbl, p);
		if (*slot == SROCE_ODP_BAD) {
			/* Reported once; the next access faults again. */
			*slot = 0;
			err = -EFAULT;
		}
	}
	spin_unlock_bh(&odp->lock);
	return err;
}

int sroce_odp_for_each(const struct sroce_mr_map *map, u64 va, u32 len,
		       int (*fn)(void *priv, void *kaddr, u32 len),
		       void *priv)
{
	struct sroce_odp *odp = map->odp;
	unsigned long a = sroce_odp_addr(map, va), p, last;
	struct sroce_odp_tbl *tbl;
	unsigned long *slot;
	u32 in, chunk;
	void *kaddr;
	int err = 0;

	if (!len)
		return 0;
	/* sroce_mem_access() checked the range (sroce_odp_check). */
	if (WARN_ON_ONCE(a >= odp->end || len > odp->end - a))
		return -EFAULT;
	last = (a + len - 1) & PAGE_MASK;
	spin_lock_bh(&odp->lock);
	for (p = a & PAGE_MASK; p <= last; p += PAGE_SIZE) {
		tbl = sroce_odp_tbl(odp, p);
		if (!tbl && READ_ONCE(odp->full)) {
			/* No child can be had for it (SROCE_ODP_MAX_CHILDREN). */
			err = -EFAULT;
			goto out;
		}
		slot = tbl ? sroce_odp_slot(tbl, p) : NULL;
		if (slot && *slot == SROCE_ODP_BAD) {
			*slot = 0;
			err = -EFAULT;
			goto out;
		}
		if (!slot || !*slot) {
			sroce_odp_request(odp, a & PAGE_MASK,
					  PAGE_ALIGN(a + len), true);
			err = -EAGAIN;
			goto out;
		}
	}
	/*
	 * Every page is present, and stays so while we hold the lock (and
	 * so does every table: children are only added).
	 */
	in = offset_in_page(a);
	for (p = a & PAGE_MASK; len; p += PAGE_SIZE) {
		chunk = min_t(u32, len, PAGE_SIZE - in);
		slot = sroce_odp_slot(sroce_odp_tbl(odp, p), p);
		kaddr = kmap_local_page((struct page *)*slot);
		err = fn(priv, kaddr + in, chunk);
		kunmap_local(kaddr);
		if (err)
			break;
		len -= chunk;
		in = 0;
	}
out:
	spin_unlock_bh(&odp->lock);
	return err;
}

/*
 * ibv_advise_mr(): fault the SGEs' ranges in, now (IB_UVERBS_ADVISE_MR_
 * FLAG_FLUSH) or from the fault work.  Each lkey must name an ODP MR of
 * @pd with the rights the advice implies.
 */
int sroce_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs)
{
	struct sroce_dev *sdev = to_sdev(pd->device);
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	bool sync = flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH;
	struct sroce_mem_ref ref;
	struct sroce_mr_map *map;
	struct sroce_odp *odp;
	unsigned long a;
	u32 i, access;
	int err = 0;

	if (advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return -EOPNOTSUPP;
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EOPNOTSUPP;
	access = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE ?
		 IB_ACCESS_LOCAL_WRITE : 0;

	for (i = 0; i < num_sge && !err; i++) {
		if (!sg_list[i].length)
			continue;
		rcu_read_lock();
		err = sroce_mem_access(sdev, pd, sg_list[i].lkey, false,
				       sg_list[i].addr, sg_list[i].length,
				       access, &ref);
		map = ref.map;
		if (!err && (!map || !map->odp))
			err = -EINVAL;
		odp = err ? NULL : map->odp;
		if (odp && !kref_get_unless_zero(&odp->ref))
			err = -EINVAL;
		if (err) {
			rcu_read_unlock();
			break;
		}
		a = sroce_odp_addr(map, sg_list[i].addr);
		if (!sync && fault) {
			/* Advice only: what cannot be had is not marked. */
			spin_lock_bh(&odp->lock);
			sroce_odp_add(odp, a & PAGE_MASK,
				      PAGE_ALIGN(a + sg_list[i].length), true);
			spin_unlock_bh(&odp->lock);
			queue_work(sroce_odp_wq, &odp->work);
		}
		rcu_read_unlock();
		sroce_count(sdev, SROCE_CTR_ODP_PREFETCHES, 1);
		if (sync || !fault)
			err = sroce_odp_fault(odp, a & PAGE_MASK,
					      PAGE_ALIGN(a + sg_list[i].length),
					      fault, true);
		/* Best effort without FLUSH: what could not be had is marked. */
		if (!sync)
			err = 0;
		sroce_odp_put(odp);
		cond_resched();
	}
	return err;
}
