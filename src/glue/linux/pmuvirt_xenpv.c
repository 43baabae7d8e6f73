// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko in a Xen PV, PVH or HVM domain: the paravirtual backend on
 * top of Xen's per-VCPU counters.
 *
 * Each Linux CPU is a VCPU.  Its struct pmuvirt_pcpu runs the PV backend
 * (src/arch/pv), whose lower operations are here: SET_CONTROL and ARM are
 * hypercalls on the calling VCPU, and a VCPU counter is read from Xen's
 * shared record of that VCPU plus rdtsc/rdpmc, without a hypercall.  Xen's
 * record frames are mapped read-only into the kernel at load time and,
 * on request, into user processes (mmap at page offset 1), so threads read
 * their two levels without a system call.  A PV kernel maps them by
 * machine frame (MAP_SHARED); a PVH or HVM kernel has Xen place them at
 * guest frames of its own (MAP_PHYS) and maps those.  Built for kernels
 * that can be Xen guests (CONFIG_XEN); the module uses this backend when
 * it finds itself in such a domain and Xen answers QUERY.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"
#include <pv/pmuvirt_pv.h>
#include <pmuvirt/xen.h>
#include <asm/barrier.h>
#define pmuvirt_user_rmb() smp_rmb()
#include <pmuvirt/user.h>

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/interrupt.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <asm/msr.h>
#include <asm/pgtable.h>
#include <asm/irq_regs.h>

#include <xen/xen.h>
#include <xen/page.h>
#include <xen/xen-ops.h>
#include <xen/events.h>
#include <xen/interface/xen.h>
#include <asm/xen/hypercall.h>
#include <asm/xen/page.h>

/**
 * struct lx_xen_vcpu - one VCPU of this domain
 * @pv:		the PV backend's state; hw_arg of the CPU's struct pmuvirt_pcpu.
 * @rec:	Xen's record of this VCPU (kernel mapping, read-only).
 * @vcpu:	Xen's VCPU id.
 * @irq:	the VIRQ's Linux irq, or a negative errno.
 * @read_fallbacks: counter reads that needed the READ hypercall.
 * @other_hypercalls: TAKE_OVERFLOWS, and SET_CONTROL at unload.
 * @no_rdpmc:	an rdpmc faulted here: Xen keeps the counters from this domain
 *		(or emulates them); PMC reads go straight to READ.
 * @sc, @arm, @rd: hypercall arguments: off the scheduler's stack, and no
 *		allocation under the runqueue lock.
 */
struct lx_xen_vcpu {
	struct pmuvirt_pv_vcpu pv;
	const struct pmuvirt_shared_ctx *rec;
	u32 vcpu;
	int irq;
	u64 read_fallbacks;
	u64 other_hypercalls;
	bool no_rdpmc;
	struct pmuvirt_xen_set_control sc;
	struct pmuvirt_xen_arm arm;
	struct pmuvirt_xen_read rd;
};

static struct pmuvirt_pv_below xen_lower;
static struct pmuvirt_pmu xen_pv_pmu;	/* pmuvirt_lx_pmu once everything is set up */
static struct lx_xen_vcpu *xen_vcpus;
static struct pmuvirt_xen_map_shared xen_layout;
static u64 *xen_frames;		/* PV: machine frames; PVH, HVM: guest frames */
static void *xen_area;		/* kernel mapping of the frames */
static u64 *xen_saved_ptes;	/* PV: the range's own PTEs, put back at unload */
/* PVH, HVM: records at guest frames (MAP_PHYS) of these pages without memory */
static bool xen_translated;
static struct page **xen_pages;
/* False from a suspend until the records are mapped again; readers use xen_no_record. */
static bool xen_records_mapped;
static const struct pmuvirt_shared_ctx xen_no_record;	/* no counter: READ asks Xen */
static unsigned int xen_resumes;

static long xen_op(unsigned int cmd, void *arg)
{
	return _hypercall2(long, arch_7, cmd, arg);
}

static void xen_hdr(struct pmuvirt_xen_hdr *h, u32 size)
{
	h->version = PMUVIRT_XEN_VERSION;
	h->size = size;
}

/* ---- the PMU Xen describes, below the PV backend ---- */

/*
 * The guest cannot rebuild the x86 backend's private description from
 * QUERY: the PV backend gets the slots (pmuvirt_pv_probe_desc()), which
 * checks them and runs the core's generic checks on them; Xen validates
 * every control again in SET_CONTROL.
 */
static int desc_from_query(struct pmuvirt_pv_desc *d, const struct pmuvirt_xen_query *q)
{
	if (q->abi_version != PMUVIRT_ABI_VERSION || q->nr_slots > ARRAY_SIZE(q->slot) ||
	    q->record_size != sizeof(struct pmuvirt_shared_ctx) || q->virq != PMUVIRT_XEN_VIRQ)
		return -EPROTO;
	/* struct pmuvirt_xen_slot is struct pmuvirt_slot on the wire */
	BUILD_BUG_ON(sizeof(d->slot) != sizeof(q->slot));
	BUILD_BUG_ON(offsetof(struct pmuvirt_xen_slot, events) !=
		     offsetof(struct pmuvirt_slot, events));
	BUILD_BUG_ON(offsetof(struct pmuvirt_xen_slot, reserved) !=
		     offsetof(struct pmuvirt_slot, reserved));
	BUILD_BUG_ON(offsetof(struct pmuvirt_xen_slot, threshold) !=
		     offsetof(struct pmuvirt_slot, threshold));
	BUILD_BUG_ON(sizeof(d->name) != sizeof(q->name));
	d->arch = q->arch;
	d->model = q->model;
	d->caps = q->caps;
	d->nr_slots = q->nr_slots;
	memcpy(d->name, q->name, sizeof(d->name));
	memcpy(d->slot, q->slot, sizeof(d->slot));
	return 0;
}

/* ---- lower operations of the PV backend, for the calling VCPU ---- */

static int lx_xen_set_control(void *arg, const struct pmuvirt_control *ctl)
{
	struct lx_xen_vcpu *v = arg;
	long ret;

	xen_hdr(&v->sc.hdr, sizeof(v->sc));
	v->sc.err_counter = -1;
	v->sc.reserved = 0;
	v->sc.ctl = *ctl;
	ret = xen_op(PMUVIRT_XEN_SET_CONTROL, &v->sc);
	if (ret)
		pr_warn_ratelimited("VCPU %u: Xen refused the control (counter %d): %ld\n", v->vcpu,
				    v->sc.err_counter, ret);
	return (int)ret;
}

static int lx_xen_arm(void *arg, uint32_t mask, const uint64_t *remaining, const uint64_t *period)
{
	struct lx_xen_vcpu *v = arg;
	unsigned int i;

	xen_hdr(&v->arm.hdr, sizeof(v->arm));
	v->arm.mask = mask;
	v->arm.reserved = 0;
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++) {
		v->arm.remaining[i] = (mask & (1u << i)) ? remaining[i] : 0;
		v->arm.period[i] = (mask & (1u << i)) ? period[i] : 0;
	}
	return (int)xen_op(PMUVIRT_XEN_ARM, &v->arm);
}

/* What Xen's record of a running VCPU sits on: this physical CPU's counters. */
static int xen_below_hw(void *arg, uint32_t pcpu, uint32_t index, uint64_t *val)
{
	struct lx_xen_vcpu *v = arg;

	if (pcpu == PMUVIRT_SHARED_NONE)
		return -EAGAIN;
	if (index & PMUVIRT_SHARED_TSC) {
		*val = rdtsc_ordered();
		return 0;
	}
	if (v->no_rdpmc)
		return -EFAULT;
	if (pmuvirt_lx_rdpmc_safe(index - 1, val)) {
		/* Xen does not let this domain rdpmc (or the PMU is emulated): stop trying */
		v->no_rdpmc = true;
		return -EFAULT;
	}
	return 0;
}

static int lx_xen_read(void *arg, uint32_t counter, uint64_t *val)
{
	struct lx_xen_vcpu *v = arg;
	struct pmuvirt_xen_read *r = &v->rd;
	int ret;

	ret = pmuvirt_shared_read(v->rec, counter, 1, xen_below_hw, v, val);
	if (!ret)
		return 0;
	/*
	 * Not expected on the running VCPU (its record is stable while it
	 * runs), but a record that keeps changing or a faulting rdpmc must
	 * not make up a value: ask Xen.
	 */
	memset(r, 0, sizeof(*r));
	xen_hdr(&r->hdr, sizeof(*r));
	v->read_fallbacks++;
	ret = (int)xen_op(PMUVIRT_XEN_READ, r);
	if (!ret && counter >= r->nr_counters)
		ret = -ERANGE;
	if (!ret)
		*val = r->value[counter];
	return ret;
}

static const struct pmuvirt_pv_lower_ops lx_xen_lower_ops = {
	.set_control = lx_xen_set_control,
	.arm = lx_xen_arm,
	.read = lx_xen_read,
};

/* ---- the VIRQ ---- */

/*
 * New overflow notifications of this VCPU's counters: take them from Xen,
 * then let the core find which thread counters they concern.  Sample
 * records take the IP of the context the event upcall interrupted: Xen
 * took the PMI and delivers the VIRQ on its next return to this VCPU.
 * (Tested on Xen's emulated PMU: QEMU's x86 CPUs have no PMU to overflow.)
 */
static irqreturn_t lx_xen_virq(int irq, void *dev)
{
	struct pmuvirt_lx_cpu *lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	struct lx_xen_vcpu *v = &xen_vcpus[smp_processor_id()];
	struct pmuvirt_xen_take_overflows t;

	memset(&t, 0, sizeof(t));
	xen_hdr(&t.hdr, sizeof(t));
	v->other_hypercalls++;
	if (xen_op(PMUVIRT_XEN_TAKE_OVERFLOWS, &t))
		return IRQ_HANDLED;
	if (lc->busy) {
		lc->pmi_deferred = true;
	} else {
		lc->pmi_regs = get_irq_regs();
		pmuvirt_lx_pmi(lc);
		lc->pmi_regs = NULL;
	}
	return IRQ_HANDLED;
}

/* ---- mapping Xen's record frames ---- */

/*
 * PV: point the borrowed range's PTEs at the record frames (xen_frames),
 * keeping the range's own PTEs in xen_saved_ptes.  No allocation: also
 * called with interrupts off on resume.
 */
static int point_records(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < xen_layout.nr_frames; i++) {
		unsigned long va = (unsigned long)xen_area + i * PAGE_SIZE;
		unsigned int level;
		pte_t *ptep;

		ptep = lookup_address(va, &level);
		if (!ptep || level != PG_LEVEL_4K)
			return -EFAULT;
		if (!xen_saved_ptes[i])
			xen_saved_ptes[i] = native_pte_val(*ptep);
		ret = HYPERVISOR_update_va_mapping(va, mfn_pte(xen_frames[i], PAGE_KERNEL_RO),
						   UVMF_INVLPG | UVMF_ALL);
		if (ret) {
			pr_err("cannot map record frame %u (mfn %#llx): %d\n", i, xen_frames[i], ret);
			return ret;
		}
	}
	return 0;
}

/* PV: put the range's own PTEs back (0 when every one is back). */
static int unpoint_records(void)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; xen_area && xen_saved_ptes && i < xen_layout.nr_frames; i++) {
		unsigned long va = (unsigned long)xen_area + i * PAGE_SIZE;

		if (!xen_saved_ptes[i])
			continue;
		if (HYPERVISOR_update_va_mapping(va, native_make_pte(xen_saved_ptes[i]),
						 UVMF_INVLPG | UVMF_ALL))
			ret = -EFAULT;
		else
			xen_saved_ptes[i] = 0;
	}
	return ret;
}

static int map_records_kernel(void)
{
	unsigned int n = xen_layout.nr_frames;

	/*
	 * A PV kernel cannot ioremap another frame by machine address (its
	 * PTEs go through the p2m), and get_vm_area() is not exported: borrow
	 * a vmalloc range, point its PTEs at Xen's frames read-only, and put
	 * the range's own PTEs back before vfree().
	 */
	xen_area = vmalloc(n * PAGE_SIZE);
	xen_saved_ptes = kcalloc(n, sizeof(*xen_saved_ptes), GFP_KERNEL);
	if (!xen_area || !xen_saved_ptes)
		return -ENOMEM;
	return point_records();
}

/* Layout of MAP_SHARED or MAP_PHYS the module can use. */
static bool layout_ok(void)
{
	return xen_layout.nr_frames && xen_layout.nr_frames <= 1024 && xen_layout.per_frame &&
	       xen_layout.record_size == sizeof(struct pmuvirt_shared_ctx) &&
	       xen_layout.per_frame * xen_layout.record_size <= PAGE_SIZE &&
	       (u64)xen_layout.per_frame * xen_layout.nr_frames >= xen_layout.nr_records;
}

/* PVH, HVM: have Xen put its record frames at the guest frames of xen_pages. */
static int place_records(void)
{
	struct pmuvirt_xen_map_phys mp;
	long rc;

	memset(&mp, 0, sizeof(mp));
	xen_hdr(&mp.hdr, sizeof(mp));
	mp.nr_frames = xen_layout.nr_frames;
	mp.gfns = (u64)(unsigned long)xen_frames;
	rc = xen_op(PMUVIRT_XEN_MAP_PHYS, &mp);
	if (rc) {
		pr_err("Xen did not place the record frames at guest frames: %ld\n", rc);
		return (int)rc;
	}
	xen_layout.nr_records = mp.nr_records;
	xen_layout.record_size = mp.record_size;
	xen_layout.per_frame = mp.per_frame;
	if (mp.nr_frames != xen_layout.nr_frames || !layout_ok()) {
		pr_err("Xen's record layout is unusable\n");
		return -EPROTO;
	}
	return 0;
}

/*
 * PVH, HVM: @n guest frames without memory (ballooned or unpopulated
 * pages), Xen's record frames placed there, and a read-only kernel mapping
 * of them.
 */
static int map_records_phys(u32 n)
{
	unsigned int i;
	int ret;

	if (!n || n > 1024)
		return -EPROTO;
	xen_layout.nr_frames = n;
	xen_frames = kcalloc(n, sizeof(*xen_frames), GFP_KERNEL);
	xen_pages = kcalloc(n, sizeof(*xen_pages), GFP_KERNEL);
	if (!xen_frames || !xen_pages)
		return -ENOMEM;
	ret = xen_alloc_unpopulated_pages(n, xen_pages);
	if (ret) {
		kfree(xen_pages);
		xen_pages = NULL;
		return ret;
	}
	for (i = 0; i < n; i++)
		xen_frames[i] = xen_page_to_gfn(xen_pages[i]);
	ret = place_records();
	if (ret)
		return ret;
	xen_area = vmap(xen_pages, n, VM_MAP, PAGE_KERNEL_RO);
	return xen_area ? 0 : -ENOMEM;
}

static void unmap_records_phys(void)
{
	struct pmuvirt_xen_unmap_phys up;

	if (xen_area)
		vunmap(xen_area);
	xen_area = NULL;
	if (!xen_pages)
		return;
	/* The pages go back empty: Xen takes its frames out of them first. */
	memset(&up, 0, sizeof(up));
	xen_hdr(&up.hdr, sizeof(up));
	if (xen_op(PMUVIRT_XEN_UNMAP_PHYS, &up)) {
		pr_err("Xen did not take its record frames back: the pages are leaked\n");
	} else {
		xen_free_unpopulated_pages(xen_layout.nr_frames, xen_pages);
	}
	kfree(xen_pages);
	xen_pages = NULL;
}

static void unmap_records_kernel(void)
{
	if (xen_translated) {
		unmap_records_phys();
		return;
	}
	if (xen_area && xen_saved_ptes) {
		/* leaking the range beats freeing a page that maps Xen's frame */
		if (unpoint_records())
			goto leak;
		vfree(xen_area);
	}
leak:
	xen_area = NULL;
	kfree(xen_saved_ptes);
	xen_saved_ptes = NULL;
}

/* PV: the machine frames of MAP_SHARED, mapped into a borrowed vmalloc range. */
static int map_records_pv(void)
{
	long rc;

	xen_hdr(&xen_layout.hdr, sizeof(xen_layout));
	rc = xen_op(PMUVIRT_XEN_MAP_SHARED, &xen_layout);
	if (rc != -ENOSPC && rc)
		return (int)rc;
	if (!layout_ok()) {
		pr_err("Xen's record layout is unusable\n");
		return -EPROTO;
	}
	xen_frames = kcalloc(xen_layout.nr_frames, sizeof(*xen_frames), GFP_KERNEL);
	if (!xen_frames)
		return -ENOMEM;
	xen_layout.frames = (u64)(unsigned long)xen_frames;
	rc = xen_op(PMUVIRT_XEN_MAP_SHARED, &xen_layout);
	if (rc)
		return (int)rc;
	return map_records_kernel();
}

static const struct pmuvirt_shared_ctx *record_of(u32 vcpu)
{
	return (const struct pmuvirt_shared_ctx *)((char *)xen_area +
		(vcpu / xen_layout.per_frame) * PAGE_SIZE +
		(vcpu % xen_layout.per_frame) * xen_layout.record_size);
}

/*
 * Save and restore.  A PV domain's page tables may map no frame outside
 * the domain when the toolstack saves it, and its record frames are new
 * ones afterwards: before the suspend the kernel's mapping is taken down
 * (syscore, xen_suspend()) and the processes' mappings zapped
 * (the freeze callback of a platform device, while they are frozen);
 * after it MAP_SHARED gives the new frames, the kernel maps them
 * (xen_resume()) and a process's next access maps them again
 * (the fault handler).  A PVH or HVM domain's record frames sit at its
 * own guest frames, which the restore fills with plain copies: MAP_PHYS
 * places Xen's frames there again, and every mapping stays valid.  In
 * between, counters are read with READ.
 */
#define XEN_MAP_INODES	4

/* PV: the inodes whose mappings hold record frames (in practice /dev/pmuvirt's). */
static struct inode *xen_map_inodes[XEN_MAP_INODES];
static DEFINE_MUTEX(xen_map_lock);
static struct platform_device *xen_pm_dev;

static int note_mapping(struct vm_area_struct *vma)
{
	struct inode *inode = file_inode(vma->vm_file);
	int i, free = -1, ret = 0;

	mutex_lock(&xen_map_lock);
	for (i = 0; i < XEN_MAP_INODES; i++) {
		if (xen_map_inodes[i] == inode)
			goto out;
		if (!xen_map_inodes[i] && free < 0)
			free = i;
	}
	if (free < 0) {
		ret = -EBUSY;
		goto out;
	}
	ihold(inode);
	xen_map_inodes[free] = inode;
out:
	mutex_unlock(&xen_map_lock);
	return ret;
}

static void forget_mappings(void)
{
	int i;

	mutex_lock(&xen_map_lock);
	for (i = 0; i < XEN_MAP_INODES; i++) {
		if (xen_map_inodes[i])
			iput(xen_map_inodes[i]);
		xen_map_inodes[i] = NULL;
	}
	mutex_unlock(&xen_map_lock);
}

/* PV: a record page zapped before a suspend, mapped again at its next access. */
static vm_fault_t xen_records_fault(struct vm_fault *vmf)
{
	unsigned long k = vmf->pgoff - 1;
	xen_pfn_t mfn;
	int err = 0;

	if (k >= xen_layout.nr_frames || !READ_ONCE(xen_records_mapped))
		return VM_FAULT_SIGBUS;
	mfn = xen_frames[k];
	if (xen_remap_domain_mfn_array(vmf->vma, vmf->address & PAGE_MASK, &mfn, 1, &err,
				       vmf->vma->vm_page_prot, DOMID_SELF) != 1)
		return VM_FAULT_SIGBUS;
	return VM_FAULT_NOPAGE;
}

static const struct vm_operations_struct xen_records_vm_ops = {
	.fault = xen_records_fault,
};

/* Processes are frozen: take every PTE of theirs that maps a record frame. */
static int xen_pm_freeze(struct device *dev)
{
	int i;

	mutex_lock(&xen_map_lock);
	for (i = 0; i < XEN_MAP_INODES; i++)
		if (xen_map_inodes[i])
			unmap_mapping_range(xen_map_inodes[i]->i_mapping, PAGE_SIZE,
					    (loff_t)xen_layout.nr_frames << PAGE_SHIFT, 1);
	mutex_unlock(&xen_map_lock);
	return 0;
}

static const struct dev_pm_ops xen_pm_ops = {
	.freeze = xen_pm_freeze,
};

static struct platform_driver xen_pm_driver = {
	.driver = {
		.name = "pmuvirt-xen",
		.pm = &xen_pm_ops,
	},
};

/* Every CPU's record, or the empty one while the records are not mapped. */
static void set_records(bool mapped)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(xen_vcpus[cpu].rec, mapped ? record_of(xen_vcpus[cpu].vcpu) :
			   &xen_no_record);
	WRITE_ONCE(xen_records_mapped, mapped);
}

/* The domain is about to be suspended (saved). */
static void xen_suspend(void)
{
	set_records(false);
	if (!xen_translated && unpoint_records())
		pr_err("suspend: the kernel still maps Xen's record frames: the toolstack will refuse to save\n");
}

/* The domain runs again: restored, or the suspend was cancelled. */
static void xen_resume(void)
{
	struct pmuvirt_xen_map_shared was = xen_layout;
	int ret;

	if (xen_translated) {
		ret = place_records();
	} else {
		ret = (int)xen_op(PMUVIRT_XEN_MAP_SHARED, &xen_layout);
		if (!ret && (xen_layout.nr_frames != was.nr_frames ||
			     xen_layout.per_frame != was.per_frame ||
			     xen_layout.record_size != was.record_size ||
			     xen_layout.nr_records != was.nr_records))
			ret = -EPROTO;
		if (!ret)
			ret = point_records();
		xen_layout = was;
	}
	if (ret) {
		pr_err("resume: cannot map Xen's records again (%d): counters are read by hypercall\n",
		       ret);
		return;
	}
	set_records(true);
	xen_resumes++;
}

/*
 * Map Xen's VCPU records into a process: a read-only mapping at page
 * offsets 1 .. nr_frames.  Every thread's events on every VCPU are in these
 * records, as in a CPU-wide perf event: pmuvirt_lx_may_map_vcpus() decides
 * (-EACCES).  -EINVAL for a range outside the frames, -EPERM for a writable
 * mapping.
 */
static int xen_mmap(struct vm_area_struct *vma)
{
	unsigned long pages = vma_pages(vma);
	xen_pfn_t *mfns;
	int *errs;
	unsigned long i;
	int ret;

	if (vma->vm_pgoff < 1 || vma->vm_pgoff > xen_layout.nr_frames ||
	    pages > xen_layout.nr_frames - (vma->vm_pgoff - 1))
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (!pmuvirt_lx_may_map_vcpus()) {
		pr_notice_ratelimited("%s[%d]: mapping the VCPU records needs CAP_PERFMON or perf_event_paranoid <= 0; reads take the ioctl\n",
				      current->comm, task_pid_nr(current));
		return -EACCES;
	}
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	if (xen_translated) {
		/* guest frames, one by one: they need not be contiguous */
		for (i = 0; i < pages; i++) {
			ret = remap_pfn_range(vma, vma->vm_start + i * PAGE_SIZE,
					      xen_frames[vma->vm_pgoff - 1 + i], PAGE_SIZE,
					      vma->vm_page_prot);
			if (ret)
				return ret;
		}
		return 0;
	}
	ret = note_mapping(vma);
	if (ret)
		return ret;
	vma->vm_ops = &xen_records_vm_ops;
	mfns = kcalloc(pages, sizeof(*mfns), GFP_KERNEL);
	errs = kcalloc(pages, sizeof(*errs), GFP_KERNEL);
	if (!mfns || !errs) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < pages; i++)
		mfns[i] = xen_frames[vma->vm_pgoff - 1 + i];
	ret = xen_remap_domain_mfn_array(vma, vma->vm_start, mfns, (int)pages, errs,
					 vma->vm_page_prot, DOMID_SELF);
	ret = ret == (int)pages ? 0 : (ret < 0 ? ret : -EFAULT);
out:
	kfree(mfns);
	kfree(errs);
	return ret;
}

/* Where a thread finds the VCPU records (PMUVIRT_IOC_BELOW). */
static void xen_below(struct pmuvirt_below *b)
{
	b->kind = PMUVIRT_BELOW_XEN;
	b->nr_records = xen_layout.nr_records;
	b->record_size = xen_layout.record_size;
	b->per_frame = xen_layout.per_frame;
	b->nr_frames = xen_layout.nr_frames;
	b->pgoff = 1;
}

/* ---- /dev/pmuvirt-xenprof: a PVH or HVM active domain's profiling rings ---- */

/* One open file: its rings at guest frames of pages without memory. */
struct xenprof_file {
	struct mutex lock;
	unsigned int nr_frames;
	struct page **pages;
	u64 *gfns;
};

static int xenprof_open(struct inode *inode, struct file *f)
{
	struct xenprof_file *x;

	/* as privcmd, which the same tool drives: the domain's administrator */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	mutex_init(&x->lock);
	f->private_data = x;
	return 0;
}

/* Xen takes its frames out of the pages, then they go back empty. */
static void xenprof_unplace(struct xenprof_file *x)
{
	struct pmuvirt_xen_prof_unmap um;
	long rc;

	if (!x->pages)
		return;
	memset(&um, 0, sizeof(um));
	xen_hdr(&um.hdr, sizeof(um));
	rc = xen_op(PMUVIRT_XEN_PROF_UNMAP, &um);
	/* -ENOENT, -EPERM: the session is gone, and Xen took its frames back then */
	if (rc && rc != -ENOENT && rc != -EPERM)
		pr_err("Xen did not take the profiling rings back (%ld): %u pages leaked\n", rc,
		       x->nr_frames);
	else
		xen_free_unpopulated_pages(x->nr_frames, x->pages);
	kfree(x->pages);
	kfree(x->gfns);
	x->pages = NULL;
	x->gfns = NULL;
	x->nr_frames = 0;
}

static int xenprof_release(struct inode *inode, struct file *f)
{
	struct xenprof_file *x = f->private_data;

	xenprof_unplace(x);
	kfree(x);
	return 0;
}

/* PROF_MAP with this file's pages as the guest frames. */
static long xenprof_map(struct xenprof_file *x, struct pmuvirt_xen_prof_map __user *uarg)
{
	struct pmuvirt_xen_prof_ring *rings = NULL;
	struct pmuvirt_xen_prof_map um, km;
	unsigned int i, cap;
	long rc;

	if (copy_from_user(&um, uarg, sizeof(um)))
		return -EFAULT;
	if (um.hdr.version != PMUVIRT_XEN_VERSION || um.hdr.size != sizeof(um))
		return -EINVAL;
	cap = um.nr_rings;
	if (x->pages)
		return -EBUSY;
	/* the counts: no room given */
	memset(&km, 0, sizeof(km));
	xen_hdr(&km.hdr, sizeof(km));
	rc = xen_op(PMUVIRT_XEN_PROF_MAP, &km);
	if (rc != -ENOSPC)
		return rc ? rc : -EPROTO;
	if (!km.nr_rings || !km.ring_pages || km.nr_frames != km.nr_rings * km.ring_pages ||
	    km.nr_frames > PMUVIRT_XEN_PROF_MAX_PLACED)
		return -EPROTO;
	um.nr_rings = km.nr_rings;
	um.nr_frames = km.nr_frames;
	um.ring_pages = km.ring_pages;
	um.nr_records = km.nr_records;
	if (cap < km.nr_rings)
		return copy_to_user(uarg, &um, sizeof(um)) ? -EFAULT : -ENOSPC;
	rings = kcalloc(km.nr_rings, sizeof(*rings), GFP_KERNEL);
	x->pages = kcalloc(km.nr_frames, sizeof(*x->pages), GFP_KERNEL);
	x->gfns = kcalloc(km.nr_frames, sizeof(*x->gfns), GFP_KERNEL);
	rc = -ENOMEM;
	if (!rings || !x->pages || !x->gfns)
		goto fail;
	rc = xen_alloc_unpopulated_pages(km.nr_frames, x->pages);
	if (rc)
		goto fail;
	for (i = 0; i < km.nr_frames; i++)
		x->gfns[i] = xen_page_to_gfn(x->pages[i]);
	km.rings = (u64)(unsigned long)rings;
	km.frames = (u64)(unsigned long)x->gfns;
	rc = xen_op(PMUVIRT_XEN_PROF_MAP, &km);
	if (rc) {
		/* nothing stays placed when PROF_MAP fails; the counts may have changed */
		xen_free_unpopulated_pages(km.nr_frames, x->pages);
		if (rc == -ENOSPC)
			rc = -EAGAIN;
		goto fail;
	}
	x->nr_frames = km.nr_frames;
	rc = 0;
	if (copy_to_user(u64_to_user_ptr(um.rings), rings, km.nr_rings * sizeof(*rings)) ||
	    copy_to_user(uarg, &um, sizeof(um)))
		rc = -EFAULT;	/* placed all the same: closing the file takes them back */
	kfree(rings);
	return rc;
fail:
	kfree(rings);
	kfree(x->pages);
	kfree(x->gfns);
	x->pages = NULL;
	x->gfns = NULL;
	return rc;
}

static long xenprof_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct xenprof_file *x = f->private_data;
	long rc;

	if (cmd != PMUVIRT_XENPROF_IOC_MAP)
		return -ENOTTY;
	mutex_lock(&x->lock);
	rc = xenprof_map(x, (struct pmuvirt_xen_prof_map __user *)arg);
	mutex_unlock(&x->lock);
	return rc;
}

static int xenprof_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct xenprof_file *x = f->private_data;
	unsigned long pages = vma_pages(vma), i;
	int ret = 0;

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	mutex_lock(&x->lock);
	if (!x->pages || vma->vm_pgoff >= x->nr_frames || pages > x->nr_frames - vma->vm_pgoff) {
		ret = -EINVAL;
		goto out;
	}
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	/* the mapping holds the file, and so the placement, until it goes */
	for (i = 0; i < pages && !ret; i++)
		ret = remap_pfn_range(vma, vma->vm_start + i * PAGE_SIZE,
				      x->gfns[vma->vm_pgoff + i], PAGE_SIZE, vma->vm_page_prot);
out:
	mutex_unlock(&x->lock);
	return ret;
}

static const struct file_operations xenprof_fops = {
	.owner = THIS_MODULE,
	.open = xenprof_open,
	.release = xenprof_release,
	.unlocked_ioctl = xenprof_ioctl,
	.mmap = xenprof_mmap,
	.llseek = noop_llseek,
};

static struct miscdevice xenprof_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "pmuvirt-xenprof",
	.fops = &xenprof_fops,
	.mode = 0600,
};

static bool xenprof_registered;

/* ---- setup ---- */

static int hypercalls_get(char *buf, const struct kernel_param *kp)
{
	u64 sum = 0, fallbacks = 0;
	unsigned int cpu;

	if (xen_vcpus)
		for_each_possible_cpu(cpu) {
			sum += READ_ONCE(xen_vcpus[cpu].pv.hypercalls) +
			       READ_ONCE(xen_vcpus[cpu].read_fallbacks) +
			       READ_ONCE(xen_vcpus[cpu].other_hypercalls);
			fallbacks += READ_ONCE(xen_vcpus[cpu].read_fallbacks);
		}
	return sysfs_emit(buf, "%llu %llu\n", sum, fallbacks);
}

static const struct kernel_param_ops hypercalls_ops = {
	.get = hypercalls_get,
};
module_param_cb(xen_hypercalls, &hypercalls_ops, NULL, 0444);
module_param(xen_resumes, uint, 0444);
MODULE_PARM_DESC(xen_resumes, "Xen: suspends the domain came back from, its records mapped again (read-only)");
MODULE_PARM_DESC(xen_hypercalls,
		 "Xen: pmuvirt hypercalls made by the module since load, and how many of them were READ fallbacks (read-only)");

/* The hw_arg of CPU @cpu's struct pmuvirt_pcpu: its struct pmuvirt_pv_vcpu. */
static void *xen_hw_arg(unsigned int cpu)
{
	return &xen_vcpus[cpu].pv;
}

/* On Xen, user rdpmc of Xen's counters is not offered (untested here). */
static u32 xen_uread_caps(const u8 *slots, unsigned int nr)
{
	return pmuvirt_lx_x86_uread_tsc() | PMUVIRT_UREAD_VCPU;
}

/*
 * Use Xen's counters when in a Xen domain whose Xen has pmuvirt: 0 with
 * pmuvirt_lx_pmu the PV PMU, -ENODEV when not in such a domain (the
 * hardware is used), another negative errno on failure.
 */
static int xen_init(void)
{
	struct pmuvirt_xen_query *q;
	struct pmuvirt_pv_desc *d;
	unsigned int cpu;
	u32 nr_frames;
	long rc;
	int ret;

	if (!xen_pv_domain() && !xen_hvm_domain())
		return -ENODEV;
	xen_translated = !xen_pv_domain();
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	xen_hdr(&q->hdr, sizeof(*q));
	rc = xen_op(PMUVIRT_XEN_QUERY, q);
	if (rc) {
		pr_info("Xen domain, but Xen answers QUERY with %ld (no pmuvirt in Xen?): using the hardware backend\n",
			rc);
		kfree(q);
		return -ENODEV;
	}
	d = kmalloc(sizeof(*d), GFP_KERNEL);
	ret = d ? desc_from_query(d, q) : -ENOMEM;
	if (!ret)
		ret = pmuvirt_pv_probe_desc(&xen_pv_pmu, &xen_lower, d);
	if (!ret && q->nr_records < nr_cpu_ids)
		ret = -ERANGE;
	if (ret) {
		pr_err("Xen's PMU description is unusable (%u slots, %u records for %u CPUs): %d\n",
		       q->nr_slots, q->nr_records, nr_cpu_ids, ret);
		kfree(d);
		kfree(q);
		return ret;
	}
	nr_frames = q->nr_frames;
	kfree(d);
	kfree(q);

	xen_vcpus = kcalloc(nr_cpu_ids, sizeof(*xen_vcpus), GFP_KERNEL);
	ret = -ENOMEM;
	if (!xen_vcpus)
		goto fail;
	ret = xen_translated ? map_records_phys(nr_frames) : map_records_pv();
	if (ret)
		goto fail;

	for_each_possible_cpu(cpu) {
		struct lx_xen_vcpu *v = &xen_vcpus[cpu];

		v->vcpu = xen_vcpu_nr(cpu);
		/* user records name the VCPU by the CPU number: they must agree */
		if (v->vcpu != cpu || v->vcpu >= xen_layout.nr_records) {
			pr_err("CPU %u is VCPU %u: unsupported\n", cpu, v->vcpu);
			ret = -EOPNOTSUPP;
			goto fail;
		}
		v->rec = record_of(v->vcpu);
		v->pv.ops = &lx_xen_lower_ops;
		v->pv.arg = v;
		v->irq = -ENODEV;
	}
	pmuvirt_lx_pmu = xen_pv_pmu;
	for_each_online_cpu(cpu) {
		struct lx_xen_vcpu *v = &xen_vcpus[cpu];

		v->irq = bind_virq_to_irqhandler(PMUVIRT_XEN_VIRQ, cpu, lx_xen_virq,
						 IRQF_PERCPU | IRQF_NOBALANCING, "pmuvirt", NULL);
		if (v->irq < 0)
			pr_warn("VCPU %u: cannot bind VIRQ %u (%d): overflow notifications are lost\n",
				v->vcpu, PMUVIRT_XEN_VIRQ, v->irq);
	}
	if (!xen_translated) {
		ret = platform_driver_register(&xen_pm_driver);
		if (!ret) {
			xen_pm_dev = platform_device_register_simple("pmuvirt-xen", -1, NULL, 0);
			if (IS_ERR(xen_pm_dev)) {
				platform_driver_unregister(&xen_pm_driver);
				xen_pm_dev = NULL;
			}
		}
		if (!xen_pm_dev)
			pr_warn("no freeze callback: a process that maps the VCPU records keeps the domain from being saved\n");
	}
	if (xen_translated) {
		ret = misc_register(&xenprof_dev);
		if (ret)
			pr_warn("no /dev/pmuvirt-xenprof (%d): this domain cannot read its own profiling rings\n",
				ret);
		xenprof_registered = !ret;
	}
	xen_records_mapped = true;
	pmuvirt_lx_pmc_ok = true;	/* Xen owns the hardware and checks every control */
	pr_info("backend: Xen %s (hypercall %u, VIRQ %u) on Xen's %s, %u VCPU records in %u frames\n",
		xen_pv_domain() ? "PV" : xen_pvh_domain() ? "PVH" : "HVM", PMUVIRT_XEN_HYPERCALL,
		PMUVIRT_XEN_VIRQ, xen_lower.pmu.name, xen_layout.nr_records, xen_layout.nr_frames);
	return 0;
fail:
	pr_err("cannot use Xen's counters: %d\n", ret);
	unmap_records_kernel();
	kfree(xen_vcpus);
	xen_vcpus = NULL;
	kfree(xen_frames);
	xen_frames = NULL;
	return ret;
}

/* On each VCPU: an empty control, so Xen stops counting for it. */
static void lx_xen_clear(void *unused)
{
	struct lx_xen_vcpu *v = &xen_vcpus[smp_processor_id()];
	struct pmuvirt_control ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.version = PMUVIRT_ABI_VERSION;
	v->other_hypercalls++;
	lx_xen_set_control(v, &ctl);
}

/*
 * Undo xen_init(); no thread is attached any more: the VCPUs' counters are
 * emptied, the VIRQ unbound and the record mapping removed.
 */
static void xen_exit(void)
{
	unsigned int cpu;

	/* no file of it is open: the module would be in use */
	if (xenprof_registered)
		misc_deregister(&xenprof_dev);
	xenprof_registered = false;
	on_each_cpu(lx_xen_clear, NULL, 1);
	for_each_possible_cpu(cpu)
		if (xen_vcpus[cpu].irq >= 0)
			unbind_from_irqhandler(xen_vcpus[cpu].irq, NULL);
	WRITE_ONCE(xen_records_mapped, false);
	pmuvirt_lx_pmc_ok = false;
	if (xen_pm_dev) {
		platform_device_unregister(xen_pm_dev);
		platform_driver_unregister(&xen_pm_driver);
		xen_pm_dev = NULL;
	}
	forget_mappings();
	unmap_records_kernel();
	kfree(xen_vcpus);
	xen_vcpus = NULL;
	kfree(xen_frames);
	xen_frames = NULL;
}

const struct pmuvirt_lx_backend pmuvirt_lx_xen_backend = {
	.name = "Xen",
	.init = xen_init,
	.exit = xen_exit,
	.hw_arg = xen_hw_arg,
	.uread_caps = xen_uread_caps,
	.mmap = xen_mmap,
	.below = xen_below,
	.suspend = xen_suspend,
	.resume = xen_resume,
};
