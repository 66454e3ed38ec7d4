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
 */
#include <linux/hmm.h>
#include <linux/highmem.h>
#include <linux/kref.h>
#include <linux/minmax.h>
#include <linux/mmu_notifier.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
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

struct sroce_odp_range {
	unsigned long lo, hi;	/* page-aligned user addresses, [lo, hi) */
	bool ahead;		/* read-ahead: a failure marks nothing */
};

struct sroce_odp {
	struct kref		ref;	/* the map's, and a prefetch's */
	struct ib_umem_odp	*umem;
	struct sroce_dev	*sdev;
	spinlock_t		lock;	/* @pages and @pending */
	unsigned long		*pages;
	unsigned long		npages;
	unsigned long		start;	/* user address of pages[0] */
	struct sroce_odp_range	pending[SROCE_ODP_PENDING];
	u32			npending;
	struct work_struct	work;
};

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

/*
 * Fault [@addr, @addr + @len) in (or with !@fault, take what is present)
 * and publish it in @pages.  Process context.
 */
static int sroce_odp_map(struct sroce_odp *odp, unsigned long addr,
			 unsigned long len, bool fault)
{
	struct ib_umem_odp *umem = odp->umem;
	unsigned long a, idx;
	int np;

	np = ib_umem_odp_map_dma_and_lock(umem, addr, len,
					  SROCE_ODP_ACCESS(umem->umem.writable),
					  fault);
	if (np < 0)
		return np;
	/* umem_mutex held: no invalidation until the entries are ours. */
	spin_lock_bh(&odp->lock);
	for (a = addr & PAGE_MASK; a < addr + len; a += PAGE_SIZE) {
		idx = (a - odp->start) >> PAGE_SHIFT;
		odp->pages[idx] = sroce_odp_entry(umem, idx);
	}
	spin_unlock_bh(&odp->lock);
	mutex_unlock(&umem->umem_mutex);
	return 0;
}

static void sroce_odp_mark_bad(struct sroce_odp *odp, unsigned long addr)
{
	spin_lock_bh(&odp->lock);
	odp->pages[(addr - odp->start) >> PAGE_SHIFT] = SROCE_ODP_BAD;
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
		end = min(hi, a + SROCE_ODP_CHUNK);
		if (!sroce_odp_map(odp, a, end - a, fault)) {
			sroce_count(odp->sdev, SROCE_CTR_ODP_PAGE_FAULTS, 1);
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
		cond_resched();
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
	unsigned long end = odp->start + (odp->npages << PAGE_SHIFT);

	if (ahead)
		sroce_odp_add(odp, hi, min(end, hi + SROCE_ODP_AHEAD), true);
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
	struct sroce_odp *odp;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max(ib_umem_start(umem), range->start);
	end = min(ib_umem_end(umem), range->end);
	/* NULL until registration finished: nothing of ours mapped yet. */
	odp = umem->private;
	if (odp && start < end) {
		spin_lock_bh(&odp->lock);
		for (i = (start - odp->start) >> PAGE_SHIFT;
		     i < (end - odp->start + PAGE_SIZE - 1) >> PAGE_SHIFT; i++)
			odp->pages[i] = 0;
		spin_unlock_bh(&odp->lock);
		sroce_count(odp->sdev, SROCE_CTR_ODP_INVALIDATIONS, 1);
	}
	if (start < end)
		ib_umem_odp_unmap_dma_pages(umem, start, end);
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_ops = {
	.invalidate = sroce_odp_invalidate,
};

/*
 * What ib_core keeps per page of an ODP umem (pfn_list and dma_list).
 * It allocates them without __GFP_ACCOUNT, so the memory cgroup cannot
 * bound them: the device budget does, as for rings.
 */
#define SROCE_ODP_CORE_BYTES	(sizeof(unsigned long) + sizeof(dma_addr_t))

int sroce_odp_get(struct ib_device *ibdev, struct sroce_mr_map *map,
		  u64 start, u64 length, int access)
{
	struct ib_umem_odp *umem;
	struct sroce_odp *odp;
	unsigned long npages;
	size_t core;
	int err = -ENOMEM;

	/*
	 * With IB_ACCESS_HUGETLB ib_core counts the umem in huge pages; the
	 * table here is per PAGE_SIZE page.  Refused, not half supported.
	 */
	if (access & IB_ACCESS_HUGETLB)
		return -EOPNOTSUPP;
	if (!length || start + length < start)
		return -EINVAL;
	npages = (PAGE_ALIGN(start + length) - (start & PAGE_MASK)) >>
		 PAGE_SHIFT;
	/* kvmalloc warns above INT_MAX bytes (an MR of 1 TiB needs 2 GiB). */
	if (npages > INT_MAX / SROCE_ODP_CORE_BYTES)
		return -ENOMEM;
	core = npages * SROCE_ODP_CORE_BYTES;
	if (!sroce_mem_charge(core, true))
		return -ENOMEM;
	odp = kzalloc(sizeof(*odp), GFP_KERNEL_ACCOUNT);
	if (!odp)
		goto err_budget;
	/* Ours first: charged, so the cgroup refuses before ib_core allocates. */
	odp->pages = kvcalloc(npages, sizeof(*odp->pages),
			      SROCE_GFP_USER | __GFP_NOWARN);
	if (!odp->pages)
		goto err_odp;
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
	kref_init(&odp->ref);
	spin_lock_init(&odp->lock);
	INIT_WORK(&odp->work, sroce_odp_work);
	odp->umem = umem;
	odp->sdev = to_sdev(ibdev);
	odp->start = ib_umem_start(umem);
	odp->npages = npages;
	mutex_lock(&umem->umem_mutex);
	umem->private = odp;
	mutex_unlock(&umem->umem_mutex);
	map->odp = odp;
	map->umem = &umem->umem;
	return 0;

err_pages:
	kvfree(odp->pages);
err_odp:
	kfree(odp);
err_budget:
	sroce_mem_uncharge(core);
	return err;
}

static void sroce_odp_release(struct kref *ref)
{
	struct sroce_odp *odp = container_of(ref, struct sroce_odp, ref);

	/* No reader is left to queue it again (sroce.h, Lifetime). */
	cancel_work_sync(&odp->work);
	ib_umem_odp_release(odp->umem);
	kvfree(odp->pages);
	sroce_mem_uncharge(odp->npages * SROCE_ODP_CORE_BYTES);
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
	unsigned long a = sroce_odp_addr(map, va), i, last;
	int err = 0;

	i = (a - odp->start) >> PAGE_SHIFT;
	last = (a + len - 1 - odp->start) >> PAGE_SHIFT;
	if (last - i >= SROCE_ODP_CHECK_PAGES)
		return 0;
	spin_lock_bh(&odp->lock);
	for (; i <= last; i++) {
		if (odp->pages[i] == SROCE_ODP_BAD) {
			/* Reported once; the next access faults again. */
			odp->pages[i] = 0;
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
	unsigned long a = sroce_odp_addr(map, va), i, first, last;
	u32 in, chunk;
	void *kaddr;
	int err = 0;

	first = (a - odp->start) >> PAGE_SHIFT;
	last = (a + len - 1 - odp->start) >> PAGE_SHIFT;
	if (WARN_ON_ONCE(last >= odp->npages))
		return -EFAULT;
	spin_lock_bh(&odp->lock);
	for (i = first; i <= last; i++) {
		if (odp->pages[i] == SROCE_ODP_BAD) {
			odp->pages[i] = 0;
			err = -EFAULT;
			goto out;
		}
		if (!odp->pages[i]) {
			sroce_odp_request(odp, a & PAGE_MASK,
					  PAGE_ALIGN(a + len), true);
			err = -EAGAIN;
			goto out;
		}
	}
	/* Every page is present, and stays so while we hold the lock. */
	in = offset_in_page(a);
	for (i = first; len; i++) {
		chunk = min_t(u32, len, PAGE_SIZE - in);
		kaddr = kmap_local_page((struct page *)odp->pages[i]);
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
