// SPDX-License-Identifier: GPL-2.0
/*
 * Shared queues: allocation, and exposure to user space through ib_core's
 * mmap entries.  The ring layout is uapi/sroce-abi.h's.
 *
 * A user mapping can outlive the object that owns the ring (the process
 * keeps it after destroy, or after ib_core disassociated the context), so
 * an exposed buffer belongs to its mmap entry and is freed by
 * sroce_mmap_free() once ib_core has dropped the entry's last reference.
 *
 * What a process makes the kernel allocate is its own: ring pages (not on
 * 5.10, compat.h says why) and the per-WQE shadow arrays are charged to
 * its memory cgroup (__GFP_ACCOUNT), and all of them to the device budget
 * below, for as long as they exist, mappings included (the lingering
 * list).  Documentation/reliability.rst, "Trust boundary".
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"

struct sroce_mmap_entry {
	struct rdma_user_mmap_entry	rdma;
	void				*buf;
	size_t				size;
	bool				mapped;	/* mmap()ed at least once */
	struct list_head		linger;	/* on sroce_lingering */
};

/*
 * Rings whose object is gone while a process still maps them: they keep
 * their pages (our reference, and the mapping's) and their share of the
 * budget until no page is mapped any more.  Nothing tells us of the last
 * munmap (a vm_ops of ours would run after an rmmod), so the list is
 * looked at again before every ring allocation and when a context goes
 * (sroce_rings_reap).
 */
static LIST_HEAD(sroce_lingering);
static DEFINE_SPINLOCK(sroce_linger_lock);

/*
 * A memory cgroup bounds one process, not all of them: without a cgroup,
 * "create QPs until the kernel refuses" would end with the OOM killer.
 * So all rings and shadow arrays together get at most max_ring_mb, by
 * default an eighth of RAM; past that, create fails with ENOMEM.
 * Writable at run time.
 */
static unsigned int max_ring_mb;
module_param(max_ring_mb, uint, 0644);
MODULE_PARM_DESC(max_ring_mb,
		 "Memory for all rings and per-WQE shadow arrays, MiB (0: an eighth of RAM)");

static atomic_long_t sroce_ring_pages;

static long sroce_pages_of(size_t size)
{
	return DIV_ROUND_UP(size, PAGE_SIZE);
}

/*
 * Take @size bytes of the device budget; false if it is spent (for a
 * process, if all but the kernel's reserve is).
 */
bool sroce_mem_charge(size_t size, bool user)
{
	unsigned int mb = READ_ONCE(max_ring_mb);
	unsigned long max = mb ? (unsigned long)mb << (20 - PAGE_SHIFT) :
				 totalram_pages() / 8;
	long n = sroce_pages_of(size);

	if (user)
		max -= max >> SROCE_KERNEL_RESERVE_SHIFT;
	if (atomic_long_add_return(n, &sroce_ring_pages) > max) {
		atomic_long_sub(n, &sroce_ring_pages);
		return false;
	}
	return true;
}

void sroce_mem_uncharge(size_t size)
{
	atomic_long_sub(sroce_pages_of(size), &sroce_ring_pages);
}

/*
 * @size bytes of zeroed pages, mapped contiguously and mappable by
 * remap_vmalloc_range() (VM_USERMAP); vfree() frees the pages and the
 * array (VM_MAP_PUT_PAGES).  What vmalloc_user() does, but a process's
 * pages are charged to its memory cgroup (@gfp), which vmalloc_user()
 * cannot do.
 */
static void *sroce_ring_vmalloc(size_t size, gfp_t gfp)
{
	unsigned int i, n = size >> PAGE_SHIFT;
	struct page **pages;
	void *buf;

	pages = kvcalloc(n, sizeof(*pages), gfp);
	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(gfp | __GFP_ZERO);
		if (!pages[i])
			goto err;
	}
	buf = vmap(pages, n, VM_MAP | VM_USERMAP | VM_MAP_PUT_PAGES,
		   PAGE_KERNEL);
	if (buf)
		return buf;
err:
	while (i--)
		__free_page(pages[i]);
	kvfree(pages);
	return NULL;
}

static struct sroce_mmap_entry *
to_sroce_mentry(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct sroce_mmap_entry, rdma);
}

u32 sroce_ring_sq_stride(u32 max_sge, u32 max_inline)
{
	return roundup_pow_of_two(sizeof(struct sroce_send_wqe_abi) +
				  max(max_sge * sizeof(struct sroce_sge_abi),
				      (size_t)max_inline));
}

u32 sroce_ring_rq_stride(u32 max_sge)
{
	return roundup_pow_of_two(sizeof(struct sroce_recv_wqe_abi) +
				  max_sge * sizeof(struct sroce_sge_abi));
}

static bool sroce_ring_mapped(const struct sroce_mmap_entry *me)
{
	size_t off;

	for (off = 0; off < me->size; off += PAGE_SIZE)
		if (page_mapped(vmalloc_to_page(me->buf + off)))
			return true;
	return false;
}

static void sroce_ring_release(struct sroce_mmap_entry *me)
{
	vfree(me->buf);
	sroce_mem_uncharge(me->size);
	kfree(me);
}

/*
 * Free the lingering rings nobody maps any more; all of them if @all
 * (module exit: pages still mapped stay with their mappings).
 */
void sroce_rings_reap(bool all)
{
	struct sroce_mmap_entry *me, *next;
	LIST_HEAD(gone);

	spin_lock(&sroce_linger_lock);
	list_for_each_entry_safe(me, next, &sroce_lingering, linger)
		if (all || !sroce_ring_mapped(me))
			list_move(&me->linger, &gone);
	spin_unlock(&sroce_linger_lock);
	list_for_each_entry_safe(me, next, &gone, linger)
		sroce_ring_release(me);
}

int sroce_ring_alloc(struct sroce_ring *r, u32 entries, u32 stride,
		     bool user)
{
	size_t size;

	if (!entries || !is_power_of_2(entries) || !stride)
		return -EINVAL;
	sroce_rings_reap(false);
	size = PAGE_ALIGN(SROCE_RING_HDR_SIZE + (size_t)entries * stride);
	if (!sroce_mem_charge(size, user))
		return -ENOMEM;
	r->buf = sroce_ring_vmalloc(size, user ? SROCE_GFP_RING : GFP_KERNEL);
	if (!r->buf) {
		sroce_mem_uncharge(size);
		return -ENOMEM;
	}
	r->size = size;
	r->entries = entries;
	r->stride = stride;
	r->ctl = r->buf;
	r->mentry = NULL;
	return 0;
}

int sroce_ring_expose(struct sroce_ring *r, struct ib_ucontext *uc,
		      struct sroce_ring_abi *abi)
{
	struct sroce_mmap_entry *me;
	int err;

	me = kzalloc(sizeof(*me), GFP_KERNEL_ACCOUNT);
	if (!me)
		return -ENOMEM;
	me->buf = r->buf;
	me->size = r->size;
	err = rdma_user_mmap_entry_insert(uc, &me->rdma, r->size);
	if (err) {
		kfree(me);
		return err;
	}
	r->mentry = &me->rdma;
	abi->mmap_offset = rdma_user_mmap_get_offset(&me->rdma);
	abi->mmap_len = r->size;
	abi->entries = r->entries;
	abi->stride = r->stride;
	abi->reserved = 0;
	return 0;
}

void sroce_ring_free(struct sroce_ring *r)
{
	if (r->mentry) {
		/* The entry owns the buffer now; see the top of the file. */
		rdma_user_mmap_entry_remove(r->mentry);
		r->mentry = NULL;
	} else if (r->buf) {
		vfree(r->buf);
		sroce_mem_uncharge(r->size);
	}
	r->buf = NULL;
	r->ctl = NULL;
}

int sroce_mmap(struct ib_ucontext *uc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e;
	int err;

	e = rdma_user_mmap_entry_get(uc, vma);
	if (!e)
		return -EINVAL;
	if (vma->vm_end - vma->vm_start != e->npages << PAGE_SHIFT) {
		err = -EINVAL;
	} else {
		/* Also sets VM_DONTEXPAND | VM_DONTDUMP. */
		err = remap_vmalloc_range(vma, to_sroce_mentry(e)->buf, 0);
		if (!err)
			WRITE_ONCE(to_sroce_mentry(e)->mapped, true);
	}
	rdma_user_mmap_entry_put(e);
	return err;
}

void sroce_mmap_free(struct rdma_user_mmap_entry *e)
{
	struct sroce_mmap_entry *me = to_sroce_mentry(e);

	/*
	 * The object is gone.  Pages a process still maps stay charged to
	 * its cgroup (the mapping holds them) and stay in the budget, on
	 * the lingering list; the provider usually unmaps right after the
	 * destroy, and the next allocation frees them.  No entry reference
	 * is taken by mmap(), so the entry itself is done with.
	 */
	if (READ_ONCE(me->mapped) && sroce_ring_mapped(me)) {
		spin_lock(&sroce_linger_lock);
		list_add_tail(&me->linger, &sroce_lingering);
		spin_unlock(&sroce_linger_lock);
		return;
	}
	sroce_ring_release(me);
}
