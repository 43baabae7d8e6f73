// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko in a Xen PV domain: the paravirtual backend on top of Xen's
 * per-VCPU counters.
 *
 * Each Linux CPU is a VCPU.  Its struct pmuvirt_pcpu runs the PV backend
 * (src/arch/pv), whose lower operations are here: SET_CONTROL and ARM are
 * hypercalls on the calling VCPU, and a VCPU counter is read from Xen's
 * shared record of that VCPU plus rdtsc/rdpmc, without a hypercall.  Xen's
 * record frames are mapped read-only into the kernel at load time and,
 * on request, into user processes (mmap at page offset 1), so threads read
 * their two levels without a system call.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"
#include "pmuvirt_arch.h"
#include <pv/pmuvirt_pv.h>
#include <pmuvirt/xen.h>
#include <asm/barrier.h>
#define pmuvirt_user_rmb() smp_rmb()
#include <pmuvirt/user.h>

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mm.h>

bool pmuvirt_lx_xen;

#ifdef CONFIG_XEN_PV
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/interrupt.h>
#include <linux/uaccess.h>
#include <asm/msr.h>
#include <asm/pgtable.h>
#include <asm/irq_regs.h>

#include <xen/xen.h>
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
static u64 *xen_mfns;
static void *xen_area;		/* vmalloc'd range whose PTEs point at Xen's frames */
static u64 *xen_saved_ptes;	/* the range's own PTEs, put back at unload */

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

static int map_records_kernel(void)
{
	unsigned int i, n = xen_layout.nr_frames;
	unsigned long va;
	int ret;

	xen_area = vmalloc(n * PAGE_SIZE);
	xen_saved_ptes = kcalloc(n, sizeof(*xen_saved_ptes), GFP_KERNEL);
	if (!xen_area || !xen_saved_ptes)
		return -ENOMEM;
	/*
	 * A PV kernel cannot ioremap another frame by machine address (its
	 * PTEs go through the p2m), and get_vm_area() is not exported: borrow
	 * a vmalloc range, point its PTEs at Xen's frames read-only, and put
	 * the range's own PTEs back before vfree().
	 */
	for (i = 0; i < n; i++) {
		unsigned int level;
		pte_t *ptep;

		va = (unsigned long)xen_area + i * PAGE_SIZE;
		ptep = lookup_address(va, &level);
		if (!ptep || level != PG_LEVEL_4K)
			return -EFAULT;
		xen_saved_ptes[i] = native_pte_val(*ptep);
		ret = HYPERVISOR_update_va_mapping(va, mfn_pte(xen_mfns[i], PAGE_KERNEL_RO),
						   UVMF_INVLPG | UVMF_ALL);
		if (ret) {
			xen_saved_ptes[i] = 0;
			pr_err("cannot map record frame %u (mfn %#llx): %d\n", i, xen_mfns[i], ret);
			return ret;
		}
	}
	return 0;
}

static void unmap_records_kernel(void)
{
	unsigned int i;

	if (xen_area && xen_saved_ptes) {
		for (i = 0; i < xen_layout.nr_frames; i++) {
			unsigned long va = (unsigned long)xen_area + i * PAGE_SIZE;

			if (xen_saved_ptes[i] &&
			    HYPERVISOR_update_va_mapping(va, native_make_pte(xen_saved_ptes[i]),
							 UVMF_INVLPG | UVMF_ALL))
				/* leaking the range beats freeing a page that maps Xen's frame */
				goto leak;
		}
		vfree(xen_area);
	}
leak:
	xen_area = NULL;
	kfree(xen_saved_ptes);
	xen_saved_ptes = NULL;
}

static const struct pmuvirt_shared_ctx *record_of(u32 vcpu)
{
	return (const struct pmuvirt_shared_ctx *)((char *)xen_area +
		(vcpu / xen_layout.per_frame) * PAGE_SIZE +
		(vcpu % xen_layout.per_frame) * xen_layout.record_size);
}

/**
 * pmuvirt_lx_xen_mmap() - map Xen's VCPU records into a process
 * @vma:	a read-only mapping at page offsets 1 .. nr_frames.
 *
 * Every thread's events on every VCPU are in these records, as in a
 * CPU-wide perf event: pmuvirt_lx_may_map_vcpus() decides.
 *
 * Return: 0, -EINVAL for a range outside the frames, -EPERM for a
 * writable mapping, -EACCES without the right to see CPU-wide counts,
 * -EINVAL when not on Xen.
 */
int pmuvirt_lx_xen_mmap(struct vm_area_struct *vma)
{
	unsigned long pages = vma_pages(vma);
	xen_pfn_t *mfns;
	int *errs;
	unsigned long i;
	int ret;

	if (!pmuvirt_lx_xen)
		return -EINVAL;	/* as before: only offset 0 exists */
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
	mfns = kcalloc(pages, sizeof(*mfns), GFP_KERNEL);
	errs = kcalloc(pages, sizeof(*errs), GFP_KERNEL);
	if (!mfns || !errs) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < pages; i++)
		mfns[i] = xen_mfns[vma->vm_pgoff - 1 + i];
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	ret = xen_remap_domain_mfn_array(vma, vma->vm_start, mfns, (int)pages, errs,
					 vma->vm_page_prot, DOMID_SELF);
	ret = ret == (int)pages ? 0 : (ret < 0 ? ret : -EFAULT);
out:
	kfree(mfns);
	kfree(errs);
	return ret;
}

/**
 * pmuvirt_lx_xen_below() - where a thread finds the VCPU records
 * @uarg:	user address of a struct pmuvirt_below.
 *
 * Return: 0, -ENODEV when threads sit on the hardware directly, or the
 * errors of a malformed argument.
 */
int pmuvirt_lx_xen_below(unsigned long uarg)
{
	struct pmuvirt_below b;

	if (copy_from_user(&b, (void __user *)uarg, sizeof(b)))
		return -EFAULT;
	if (b.size != sizeof(b) || b.version != PMUVIRT_LINUX_VERSION || b.flags ||
	    b.reserved)
		return -EINVAL;
	if (!pmuvirt_lx_xen)
		return -ENODEV;
	b.kind = PMUVIRT_BELOW_XEN;
	b.nr_records = xen_layout.nr_records;
	b.record_size = xen_layout.record_size;
	b.per_frame = xen_layout.per_frame;
	b.nr_frames = xen_layout.nr_frames;
	b.pgoff = 1;
	return copy_to_user((void __user *)uarg, &b, sizeof(b)) ? -EFAULT : 0;
}

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
MODULE_PARM_DESC(xen_hypercalls,
		 "Xen PV: pmuvirt hypercalls made by the module since load, and how many of them were READ fallbacks (read-only)");

/**
 * pmuvirt_lx_xen_hw_arg() - the hw_arg of a CPU's struct pmuvirt_pcpu
 * @cpu:	the CPU.
 *
 * Return: its struct pmuvirt_pv_vcpu on Xen, NULL on hardware.
 */
void *pmuvirt_lx_xen_hw_arg(unsigned int cpu)
{
	return pmuvirt_lx_xen ? &xen_vcpus[cpu].pv : NULL;
}

/**
 * pmuvirt_lx_xen_init() - use Xen's counters when in a PV domain of a
 *			   Xen with pmuvirt
 *
 * Return: 0 with pmuvirt_lx_pmu the PV PMU, -ENODEV when not in such a
 * domain (use the hardware), another negative errno on failure.
 */
int pmuvirt_lx_xen_init(void)
{
	struct pmuvirt_xen_query *q;
	struct pmuvirt_pv_desc *d;
	unsigned int cpu;
	long rc;
	int ret;

	if (!xen_pv_domain())
		return -ENODEV;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	xen_hdr(&q->hdr, sizeof(*q));
	rc = xen_op(PMUVIRT_XEN_QUERY, q);
	if (rc) {
		pr_info("Xen PV domain, but Xen answers QUERY with %ld (no pmuvirt in Xen?): using the hardware backend\n",
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
	kfree(d);
	kfree(q);

	xen_hdr(&xen_layout.hdr, sizeof(xen_layout));
	rc = xen_op(PMUVIRT_XEN_MAP_SHARED, &xen_layout);
	if (rc != -ENOSPC && rc)
		return (int)rc;
	if (!xen_layout.nr_frames || xen_layout.nr_frames > 1024 || !xen_layout.per_frame ||
	    xen_layout.record_size != sizeof(struct pmuvirt_shared_ctx) ||
	    xen_layout.per_frame * xen_layout.record_size > PAGE_SIZE ||
	    (u64)xen_layout.per_frame * xen_layout.nr_frames < xen_layout.nr_records) {
		pr_err("Xen's record layout is unusable\n");
		return -EPROTO;
	}
	xen_mfns = kcalloc(xen_layout.nr_frames, sizeof(*xen_mfns), GFP_KERNEL);
	xen_vcpus = kcalloc(nr_cpu_ids, sizeof(*xen_vcpus), GFP_KERNEL);
	ret = -ENOMEM;
	if (!xen_mfns || !xen_vcpus)
		goto fail;
	xen_layout.frames = (u64)(unsigned long)xen_mfns;
	rc = xen_op(PMUVIRT_XEN_MAP_SHARED, &xen_layout);
	ret = (int)rc;
	if (ret)
		goto fail;
	ret = map_records_kernel();
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
	pmuvirt_lx_xen = true;
	pmuvirt_lx_pmc_ok = true;	/* Xen owns the hardware and checks every control */
	pr_info("backend: Xen PV (hypercall %u, VIRQ %u) on Xen's %s, %u VCPU records in %u frames\n",
		PMUVIRT_XEN_HYPERCALL, PMUVIRT_XEN_VIRQ, xen_lower.pmu.name, xen_layout.nr_records,
		xen_layout.nr_frames);
	return 0;
fail:
	pr_err("cannot use Xen's counters: %d\n", ret);
	unmap_records_kernel();
	kfree(xen_vcpus);
	xen_vcpus = NULL;
	kfree(xen_mfns);
	xen_mfns = NULL;
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

/**
 * pmuvirt_lx_xen_exit() - undo pmuvirt_lx_xen_init()
 *
 * No thread is attached any more: the VCPUs' counters are emptied, the
 * VIRQ unbound and the record mapping removed.
 */
void pmuvirt_lx_xen_exit(void)
{
	unsigned int cpu;

	if (!pmuvirt_lx_xen)
		return;
	on_each_cpu(lx_xen_clear, NULL, 1);
	for_each_possible_cpu(cpu)
		if (xen_vcpus[cpu].irq >= 0)
			unbind_from_irqhandler(xen_vcpus[cpu].irq, NULL);
	pmuvirt_lx_xen = false;
	pmuvirt_lx_pmc_ok = false;
	unmap_records_kernel();
	kfree(xen_vcpus);
	xen_vcpus = NULL;
	kfree(xen_mfns);
	xen_mfns = NULL;
}

#else /* !CONFIG_XEN_PV: a kernel that cannot be a PV guest uses the hardware */

int pmuvirt_lx_xen_init(void)
{
	return -ENODEV;
}

void pmuvirt_lx_xen_exit(void)
{
}

void *pmuvirt_lx_xen_hw_arg(unsigned int cpu)
{
	return NULL;
}

int pmuvirt_lx_xen_mmap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

int pmuvirt_lx_xen_below(unsigned long uarg)
{
	return -ENODEV;
}

#endif /* CONFIG_XEN_PV */
