/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt inside the Xen hypervisor (x86): PMU probe at boot, per-PCPU
 * state, per-VCPU contexts, the domain's shared records, the context-switch
 * hook and the counter interrupt.  The hooks are called from the places
 * tools/xen/pmuvirt-xen.patch adds to Xen.
 */
#include <xen/init.h>
#include <xen/lib.h>
#include <xen/cpu.h>
#include <xen/param.h>
#include <xen/sched.h>
#include <xen/smp.h>
#include <xen/xmalloc.h>
#include <xen/mm.h>
#include <xen/event.h>
#include <xen/xenoprof.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/vpmu.h>
#include <asm/processor.h>
#include <asm/apic.h>
#include <asm/msr-index.h>
#include <asm/hvm/hvm.h>
#include <asm/hvm/svm/vmcb.h>
#include <asm/p2m.h>
#include <asm/pmuvirt.h>
#include <irq_vectors.h>

#include "pmuvirt_xen.h"
#include "pmuvirt_x86_emu.h"

uint64_t pmuvirt_xen_stamp;
struct pmuvirt_pmu pmuvirt_xen_pmu;
bool pmuvirt_xen_ready;
int pmuvirt_xen_refused;

/*
 * vpmu= as the administrator gave it.  Xen's own handler of the option
 * runs too; pmuvirt only notes that the vPMU was asked for, so the
 * refusal does not depend on whether the vPMU then supports this CPU.
 */
static char __initdata pmuvirt_xen_vpmu_opt[32];

static int __init cf_check pmuvirt_xen_parse_vpmu(const char *s)
{
	if (*s && parse_bool(s, NULL) == 0)
		pmuvirt_xen_vpmu_opt[0] = '\0';
	else
		safe_strcpy(pmuvirt_xen_vpmu_opt, *s ? s : "1");
	return 0;
}
custom_param("vpmu", pmuvirt_xen_parse_vpmu);

/* The policy every new domain starts with (pmuvirt-policy=all|arch|ipc). */
static struct pmuvirt_policy __read_mostly pmuvirt_xen_default_policy = {
	.version = PMUVIRT_ABI_VERSION, .action = PMUVIRT_POLICY_DENY,
};

static int __init cf_check pmuvirt_xen_parse_policy(const char *s)
{
	struct pmuvirt_policy *p = &pmuvirt_xen_default_policy;

	if (!strcmp(s, "all")) {
		p->action = PMUVIRT_POLICY_DENY;
		p->events = 0;
	} else if (!strcmp(s, "arch")) {
		/* every portable event, no raw code */
		p->action = PMUVIRT_POLICY_ALLOW;
		p->events = ((1u << PMUVIRT_EV_NR) - 1) & ~(1u << PMUVIRT_EV_NONE);
	} else if (!strcmp(s, "ipc")) {
		p->action = PMUVIRT_POLICY_ALLOW;
		p->events = (1u << PMUVIRT_EV_INSTRUCTIONS) | (1u << PMUVIRT_EV_CYCLES) |
			    (1u << PMUVIRT_EV_TSC);
	} else {
		return -EINVAL;
	}
	return 0;
}
custom_param("pmuvirt-policy", pmuvirt_xen_parse_policy);

/* Indexed by PCPU number; each entry touched only by its own PCPU. */
static struct pmuvirt_pcpu *pmuvirt_xen_pcpus;
static unsigned int pmuvirt_xen_nr_pcpus;

/*
 * Guest-only counting (PMUVIRT_CTR_GUEST, HVM and PVH kernel mode).
 * AMD's GuestOnly bit needs EFER.SVME, which Xen's SVM sets on every CPU.
 * The emulated PMU is Intel-style: IA32_PERF_GLOBAL_CTRL must change at
 * VMRUN and #VMEXIT, as VMX's load controls would change it; the SVM
 * hooks below do that in software.  Xen's VMX code does not load the
 * values (pmuvirt_x86_vm_global_ctrl()), so on VMX the capability is
 * taken away and HVM kernel mode stays refused.
 */
static bool __read_mostly pmuvirt_xen_vm_switch;

/*
 * pmuvirt-tcg-intr-exit, for Xen under QEMU's TCG only.  QEMU (7.2, as
 * Debian 12 ships it) delivers an external interrupt that VMRUN injects
 * inside its VMRUN and leaves the CPU's pending-exception index at the
 * vector.  The next time its execution loop stops for an icount deadline
 * or a kick, it delivers the vector again, wherever the guest then is:
 * inside the entry code of the first delivery, before SWAPGS, a Linux
 * guest takes the second with the user's GS base and dies on its entry
 * stack.  A self-IPI held pending across VMRUN (GIF is clear until VMRUN
 * sets it) makes the guest exit right after the delivery, which resets
 * the index: one more exit for each injected interrupt.
 */
static bool __read_mostly pmuvirt_xen_tcg_intr_exit;
boolean_param("pmuvirt-tcg-intr-exit", pmuvirt_xen_tcg_intr_exit);
static atomic_t pmuvirt_xen_tcg_intr_exits;

/* This CPU entered its guest with another IA32_PERF_GLOBAL_CTRL than the host's. */
static DEFINE_PER_CPU(bool, pmuvirt_xen_guest_ctrl);

static const char *__init pmuvirt_xen_guest_caps(void)
{
	switch (pmuvirt_x86_guest_only(&pmuvirt_xen_pmu)) {
	case PMUVIRT_X86_GUEST_BITS:
		if (hvm_enabled && cpu_has_svm)
			return "counted in SVM guest mode only (GuestOnly)";
		break;
	case PMUVIRT_X86_GUEST_SWITCH:
		if (hvm_enabled && cpu_has_svm && pmuvirt_xen_emulate) {
			pmuvirt_xen_vm_switch = true;
			return "counted in SVM guest mode only (GLOBAL_CTRL loaded at VMRUN and #VMEXIT)";
		}
		break;
	}
	pmuvirt_xen_pmu.caps &= ~PMUVIRT_CAP_GUEST_ONLY;
	return hvm_enabled ? "refused (Xen cannot leave itself out)" : "refused (no HVM)";
}

static bool pmuvirt_xen_has_pmi(void)
{
	return pmuvirt_xen_pmu.nr_gp + pmuvirt_xen_pmu.nr_fixed > 0;
}

static int cf_check pmuvirt_xen_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	uint64_t v;

	if (rdmsr_safe(reg, v)) {
		*val = 0;
		return -EFAULT;
	}
	*val = v;
	return 0;
}

static int cf_check pmuvirt_xen_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	return wrmsr_safe(reg, val) ? -EFAULT : 0;
}

static int cf_check pmuvirt_xen_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	uint32_t lo, hi;
	int rc;

	/* rdpmc of an absent counter faults (#GP; #UD under QEMU): recover. */
	asm volatile("1: rdpmc\n2:\n"
		     ".section .fixup,\"ax\"\n"
		     "3: xorl %0, %0\n\txorl %1, %1\n\tmovl %4, %2\n\tjmp 2b\n"
		     ".previous\n"
		     _ASM_EXTABLE(1b, 3b)
		     : "=a" (lo), "=d" (hi), "=&r" (rc)
		     : "c" (idx), "i" (-EFAULT), "2" (0));
	*val = ((uint64_t)hi << 32) | lo;
	return rc;
}

static int cf_check pmuvirt_xen_read_tsc(void *arg, uint64_t *val)
{
	*val = rdtsc();
	return 0;
}

static int cf_check pmuvirt_xen_read_counters(void *arg, const uint32_t *idx, unsigned int n,
					      uint64_t *vals)
{
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++) {
		if (idx[i] == PMUVIRT_HW_INDEX_TSC) {
			vals[i] = rdtsc();
			continue;
		}
		rc = pmuvirt_xen_read_counter(arg, idx[i], &vals[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int cf_check pmuvirt_xen_cpuid(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	cpuid_count(leaf, sub, &out[0], &out[1], &out[2], &out[3]);
	return 0;
}

static const struct pmuvirt_hw_ops pmuvirt_xen_hw = {
	.read_reg = pmuvirt_xen_read_reg,
	.write_reg = pmuvirt_xen_write_reg,
	.read_counter = pmuvirt_xen_read_counter,
	.read_tsc = pmuvirt_xen_read_tsc,
	.read_cpuid = pmuvirt_xen_cpuid,
	.read_counters = pmuvirt_xen_read_counters,
};

/* The hardware, or the emulated PMU with pmuvirt-emulate. */
static const struct pmuvirt_hw_ops *pmuvirt_xen_hwops = &pmuvirt_xen_hw;

/* The accessors' argument on @cpu: its emulated PMU, or nothing on hardware. */
static void *pmuvirt_xen_hwarg(unsigned int cpu)
{
	return pmuvirt_xen_emulate ? pmuvirt_xen_emu_hw_arg(cpu) : NULL;
}

static const char *pmuvirt_xen_class_name(unsigned int cls)
{
	switch (cls) {
	case PMUVIRT_CLASS_GP:
		return "general";
	case PMUVIRT_CLASS_FIXED:
		return "fixed";
	case PMUVIRT_CLASS_TSC:
		return "tsc";
	default:
		return "?";
	}
}

static void pmuvirt_xen_cpu_reset(void);
static void pmuvirt_xen_cpu_dead(unsigned int cpu);

static int cf_check pmuvirt_xen_cpu_callback(struct notifier_block *nfb, unsigned long action,
					     void *hcpu)
{
	unsigned int cpu = (unsigned long)hcpu;

	switch (action) {
	case CPU_STARTING:
		/* On @cpu with interrupts off: its PMU and LVT are at power-on values. */
		pmuvirt_xen_cpu_reset();
		break;
	case CPU_DEAD:
		pmuvirt_xen_cpu_dead(cpu);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pmuvirt_xen_cpu_nfb = {
	.notifier_call = pmuvirt_xen_cpu_callback,
};

static int __init pmuvirt_xen_init(void)
{
	const struct pmuvirt_pmu *pmu = &pmuvirt_xen_pmu;
	const char *guest_only;
	unsigned int i;
	int rc;

	BUILD_BUG_ON(PMUVIRT_MAX_SLOTS > PMUVIRT_MAX_COUNTERS);
	BUILD_BUG_ON(sizeof(struct pmuvirt_xen_slot) != sizeof(struct pmuvirt_slot));
	BUILD_BUG_ON(sizeof(struct pmuvirt_shared_ctx) > PAGE_SIZE);

	/* pmuvirt takes every PMI and owns the counters: it shares them with no one. */
	if (pmuvirt_xen_vpmu_opt[0] || vpmu_mode != XENPMU_MODE_OFF) {
		printk(XENLOG_WARNING "pmuvirt: disabled: Xen's vPMU was asked for (vpmu=%s) and pmuvirt does not share the PMU; hypercall %u answers -EBUSY\n",
		       pmuvirt_xen_vpmu_opt[0] ? pmuvirt_xen_vpmu_opt : "?", PMUVIRT_XEN_HYPERCALL);
		pmuvirt_xen_refused = -EBUSY;
		return 0;
	}
	if (opt_watchdog) {
		printk(XENLOG_WARNING "pmuvirt: disabled: the NMI watchdog (watchdog) counts with a performance counter; hypercall %u answers -EBUSY\n",
		       PMUVIRT_XEN_HYPERCALL);
		pmuvirt_xen_refused = -EBUSY;
		return 0;
	}
	if (pmuvirt_xen_emulate) {
		pmuvirt_xen_hwops = &pmuvirt_x86_emu_hw;
		printk(XENLOG_WARNING "pmuvirt: pmuvirt-emulate: an EMULATED PMU whose counters count TSC ticks, for testing only\n");
	}
	rc = pmuvirt_x86_probe(&pmuvirt_xen_pmu, pmuvirt_xen_hwops,
			       pmuvirt_xen_hwarg(smp_processor_id()));
	if (rc) {
		printk(XENLOG_WARNING "pmuvirt: no PMU: %s (%d)\n", pmuvirt_strerror(rc), rc);
		return 0;
	}
	pmuvirt_xen_pcpus = xzalloc_array(struct pmuvirt_pcpu, nr_cpu_ids);
	if (!pmuvirt_xen_pcpus) {
		printk(XENLOG_WARNING "pmuvirt: out of memory, disabled\n");
		return 0;
	}
	pmuvirt_xen_nr_pcpus = nr_cpu_ids;
	guest_only = pmuvirt_xen_guest_caps();
	/* From here on xenoprof cannot reserve the counters (it gets -EBUSY). */
	if (!acquire_pmu_ownership(PMU_OWNER_PMUVIRT)) {
		printk(XENLOG_WARNING "pmuvirt: disabled: the PMU belongs to xenoprof or an HVM vPMU; hypercall %u answers -EBUSY\n",
		       PMUVIRT_XEN_HYPERCALL);
		xfree(pmuvirt_xen_pcpus);
		pmuvirt_xen_pcpus = NULL;
		pmuvirt_xen_refused = -EBUSY;
		return 0;
	}
	register_cpu_notifier(&pmuvirt_xen_cpu_nfb);

	printk(XENLOG_INFO "pmuvirt: %s, model %u: %u general, %u fixed counters, %u slots%s\n",
	       pmu->name, pmu->model, pmu->nr_gp, pmu->nr_fixed, pmu->nr_slots,
	       pmuvirt_xen_has_pmi() ? "" : " (TSC only)");
	for (i = 0; i < pmu->nr_slots && i < PMUVIRT_MAX_SLOTS; i++)
		printk(XENLOG_INFO "pmuvirt: slot %u: %s %u, %u bits, events %#x\n", i,
		       pmuvirt_xen_class_name(pmu->slot[i].cls), pmu->slot[i].index,
		       pmu->slot[i].width, pmu->slot[i].events);
	printk(XENLOG_INFO "pmuvirt: hypercall %u, VIRQ %u, ABI %u\n",
	       PMUVIRT_XEN_HYPERCALL, PMUVIRT_XEN_VIRQ, PMUVIRT_XEN_VERSION);
	printk(XENLOG_INFO "pmuvirt: HVM and PVH kernel mode: %s\n", guest_only);

	pmuvirt_xen_vpmu_init();

	smp_wmb();
	pmuvirt_xen_ready = true;
	return 0;
}
__initcall(pmuvirt_xen_init);

struct pmuvirt_pcpu *pmuvirt_xen_this_pcpu(void)
{
	unsigned int cpu = smp_processor_id();
	struct pmuvirt_pcpu *pc;

	if (!pmuvirt_xen_ready || cpu >= pmuvirt_xen_nr_pcpus)
		return NULL;
	pc = &pmuvirt_xen_pcpus[cpu];
	if (unlikely(!pc->pmu)) {
		if (pmuvirt_xen_emulate)
			pmuvirt_xen_emu_cpu_init();
		if (pmuvirt_pcpu_init(pc, &pmuvirt_xen_pmu, pmuvirt_xen_hwops, pmuvirt_xen_hwarg(cpu),
				      cpu))
			return NULL;
		/* Counter overflows arrive on pmu_apic_interrupt(). */
		if (pmuvirt_xen_has_pmi() && !pmuvirt_xen_emulate)
			apic_write(APIC_LVTPC, PMU_APIC_VECTOR);
	}
	return pc;
}

/*
 * This PCPU's PMU lost its state (it came online, or the system resumed):
 * forget what pmuvirt wrote and give the counter interrupt its vector
 * again.  Interrupts disabled.  No guest VCPU runs here: a CPU goes down
 * and suspends from its idle VCPU, on which at most a profiling session's
 * idle context counts, and that one is dropped with the PMU's state.
 */
static void pmuvirt_xen_cpu_reset(void)
{
	unsigned int cpu = smp_processor_id();
	struct pmuvirt_pcpu *pc;

	if (!pmuvirt_xen_ready || cpu >= pmuvirt_xen_nr_pcpus)
		return;
	pc = &pmuvirt_xen_pcpus[cpu];
	if (pc->pmu) {
		if (pc->running && pc->running != pmuvirt_xen_prof_idle(cpu))
			printk(XENLOG_ERR "pmuvirt: CPU%u lost its PMU with a VCPU's counters on it\n",
			       cpu);
		pmuvirt_pcpu_invalidate(pc);
		pc->host = NULL;
		if (pmuvirt_xen_has_pmi() && !pmuvirt_xen_emulate)
			apic_write(APIC_LVTPC, PMU_APIC_VECTOR);
	}
	pmuvirt_xen_this_pcpu();
}

/*
 * @cpu is gone (another CPU runs this): it names no context, and starts
 * from scratch when it returns.  It went down from its idle VCPU, where a
 * profiling session's idle context may count: that context is dropped
 * here (no register of a dead CPU is touched), so that the session's
 * release may free it.
 */
static void pmuvirt_xen_cpu_dead(unsigned int cpu)
{
	struct pmuvirt_pcpu *pc;

	if (!pmuvirt_xen_ready || cpu >= pmuvirt_xen_nr_pcpus)
		return;
	pc = &pmuvirt_xen_pcpus[cpu];
	if (pc->running && pc->running != pmuvirt_xen_prof_idle(cpu))
		printk(XENLOG_ERR "pmuvirt: CPU%u went down with a VCPU's counters on it\n", cpu);
	pmuvirt_pcpu_drop(pc);
	pc->host = NULL;
	pc->pmu = NULL;
	if (pmuvirt_xen_emulate)
		pmuvirt_xen_emu_cpu_dead(cpu);
}

int pmuvirt_xen_pcpu_forget(unsigned int cpu, struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_pcpu *pc;

	if (!pmuvirt_xen_ready || cpu >= pmuvirt_xen_nr_pcpus)
		return 0;
	pc = &pmuvirt_xen_pcpus[cpu];
	if (pc->running != ctx)
		return 0;
	if (cpu_online(cpu))
		return -EBUSY;
	pmuvirt_pcpu_drop(pc);
	return 0;
}

/**
 * pmuvirt_xen_resume() - the boot CPU is back from ACPI S3
 *
 * Called from enter_state() on CPU 0 with interrupts disabled; the other
 * CPUs come back through the CPU notifier.
 */
void pmuvirt_xen_resume(void)
{
	pmuvirt_xen_cpu_reset();
}

struct pmuvirt_shared_ctx *pmuvirt_xen_record(const struct pmuvirt_xen_domain *dd,
					      unsigned int vcpu_id)
{
	if (!dd || vcpu_id >= dd->nr_records)
		return NULL;
	return (struct pmuvirt_shared_ctx *)((char *)dd->frames[vcpu_id / dd->per_frame] +
		(vcpu_id % dd->per_frame) * sizeof(struct pmuvirt_shared_ctx));
}

/**
 * pmuvirt_xen_domain_create() - allocate a domain's shared VCPU records
 * @d:		the new domain (d->max_vcpus is set).
 *
 * One record per possible VCPU, in Xen heap pages shared read-only with @d,
 * so its guests can read VCPU counts without a hypercall.
 * Return: 0, or -ENOMEM.
 */
int pmuvirt_xen_domain_create(struct domain *d)
{
	struct pmuvirt_xen_domain *dd;
	unsigned int i;

	if (!pmuvirt_xen_ready || is_idle_domain(d) || is_system_domain(d) || !d->max_vcpus)
		return 0;
	dd = xzalloc(struct pmuvirt_xen_domain);
	if (!dd)
		return -ENOMEM;
	/* Domids are reused; the library's stamps never are. */
	dd->tag = pmuvirt_stamp_next();
	spin_lock_init(&dd->policy_lock);
	dd->policy = pmuvirt_xen_default_policy;
	dd->nr_records = d->max_vcpus;
	dd->per_frame = PAGE_SIZE / sizeof(struct pmuvirt_shared_ctx);
	dd->nr_frames = DIV_ROUND_UP(dd->nr_records, dd->per_frame);
	spin_lock_init(&dd->map_lock);
	spin_lock_init(&dd->pv_lock);
	dd->frames = xzalloc_array(void *, dd->nr_frames);
	dd->gfns = xmalloc_array(uint64_t, dd->nr_frames);
	if (!dd->frames || !dd->gfns)
		goto fail;
	for (i = 0; i < dd->nr_frames; i++)
		dd->gfns[i] = INVALID_GFN_RAW;
	for (i = 0; i < dd->nr_frames; i++) {
		dd->frames[i] = alloc_xenheap_page();
		if (!dd->frames[i])
			goto fail;
		clear_page(dd->frames[i]);
		share_xen_page_with_guest(virt_to_page(dd->frames[i]), d, SHARE_ro);
	}
	d->arch.pmuvirt = dd;
	return 0;

fail:
	for (i = 0; dd->frames && i < dd->nr_frames; i++)
		if (dd->frames[i])
			free_xenheap_page(dd->frames[i]);
	xfree(dd->frames);
	xfree(dd->gfns);
	xfree(dd);
	return -ENOMEM;
}

/**
 * pmuvirt_xen_domain_destroy() - free a domain's shared records
 * @d:		the domain; its VCPUs are gone (or were never created).
 */
void pmuvirt_xen_domain_destroy(struct domain *d)
{
	struct pmuvirt_xen_domain *dd = d->arch.pmuvirt;
	unsigned int i;

	pmuvirt_xen_prof_domain_destroy(d);
	if (pmuvirt_xen_tcg_intr_exit)
		printk(XENLOG_INFO "pmuvirt: d%d destroyed; pmuvirt-tcg-intr-exit: %d exits after an injected interrupt so far\n",
		       d->domain_id, atomic_read(&pmuvirt_xen_tcg_intr_exits));
	if (!dd)
		return;
	d->arch.pmuvirt = NULL;
	/* As shared_info: the dead domain's p2m goes with it. */
	for (i = 0; i < dd->nr_frames; i++)
		free_xenheap_page(dd->frames[i]);
	xfree(dd->frames);
	xfree(dd->gfns);
	xfree(dd);
}

/* Take frame @i out of the physical map, if it is placed.  map_lock held. */
void pmuvirt_xen_unplace_frame(struct domain *d, uint64_t gfn, mfn_t mfn)
{
	int rc = p2m_remove_page(d, _gfn(gfn), mfn, PAGE_ORDER_4K);

	/* The guest gave the frame away itself (decrease_reservation): nothing mapped. */
	if (rc)
		gdprintk(XENLOG_INFO, "pmuvirt: frame %#lx at gfn %#"PRIx64": %d\n", mfn_x(mfn),
			 gfn, rc);
}

static bool pmuvirt_xen_unplace_one(struct domain *d, struct pmuvirt_xen_domain *dd,
				    unsigned int i)
{
	if (dd->gfns[i] == INVALID_GFN_RAW)
		return false;
	pmuvirt_xen_unplace_frame(d, dd->gfns[i], virt_to_mfn(dd->frames[i]));
	dd->gfns[i] = INVALID_GFN_RAW;
	return true;
}

unsigned int pmuvirt_xen_unplace(struct domain *d)
{
	struct pmuvirt_xen_domain *dd = d->arch.pmuvirt;
	unsigned int i, n = 0;

	spin_lock(&dd->map_lock);
	for (i = 0; i < dd->nr_frames; i++)
		n += pmuvirt_xen_unplace_one(d, dd, i);
	spin_unlock(&dd->map_lock);
	return n;
}

/*
 * Put Xen heap frame @mfn, shared with @d, at @gfn read-only, as
 * XENMEM_add_to_physmap puts shared_info (whatever the guest had there
 * goes: its RAM is freed, a special page unhooked), but refusing what Xen
 * must not take over.  The gfn lock, which locks the whole p2m, is held
 * throughout.
 */
int pmuvirt_xen_place_frame(struct domain *d, uint64_t gfn, mfn_t mfn)
{
	mfn_t prev;
	p2m_type_t t;
	int rc = 0;

	prev = get_gfn(d, gfn, &t);
	if (p2m_is_special(t) || p2m_is_shared(t) || p2m_is_paging(t) || t == p2m_ioreq_server)
		rc = -EBUSY;
	else if (mfn_valid(prev) && !mfn_eq(prev, mfn)) {
		if (is_special_page(mfn_to_page(prev)))
			rc = p2m_remove_page(d, _gfn(gfn), prev, PAGE_ORDER_4K);
		else
			rc = guest_remove_page(d, gfn);
	}
	if (!rc)
		rc = p2m_add_page(d, _gfn(gfn), mfn, PAGE_ORDER_4K, p2m_ram_ro);
	put_gfn(d, gfn);
	return rc;
}

/* Record frame @i at @gfn; map_lock held. */
static int pmuvirt_xen_place_one(struct domain *d, struct pmuvirt_xen_domain *dd,
				 unsigned int i, uint64_t gfn)
{
	int rc = pmuvirt_xen_place_frame(d, gfn, virt_to_mfn(dd->frames[i]));

	if (!rc)
		dd->gfns[i] = gfn;
	return rc;
}

int pmuvirt_xen_place(struct domain *d, const uint64_t *gfns)
{
	struct pmuvirt_xen_domain *dd = d->arch.pmuvirt;
	unsigned int i;
	int rc = 0;

	spin_lock(&dd->map_lock);
	for (i = 0; i < dd->nr_frames; i++)
		pmuvirt_xen_unplace_one(d, dd, i);
	for (i = 0; i < dd->nr_frames && !rc; i++)
		rc = pmuvirt_xen_place_one(d, dd, i, gfns[i]);
	spin_unlock(&dd->map_lock);
	return rc;
}

/**
 * pmuvirt_xen_vcpu_create() - give a new VCPU its counter context
 * @v:		the VCPU (not yet running).
 *
 * The context starts with no counters and publishes to the VCPU's record.
 * Return: 0, or -ENOMEM.
 */
int pmuvirt_xen_vcpu_create(struct vcpu *v)
{
	struct pmuvirt_xen_vcpu *xv;
	struct pmuvirt_ctx *ctx;
	size_t size;

	BUILD_BUG_ON(sizeof(struct pmuvirt_xen_vcpu) % 8);
	if (!pmuvirt_xen_ready || !v->domain->arch.pmuvirt)
		return 0;
	size = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	if (!size)
		return 0;
	xv = xzalloc_bytes(sizeof(*xv) + size);
	if (!xv)
		return -ENOMEM;
	xv->ctl.version = PMUVIRT_ABI_VERSION;	/* no counters */
	xv->eff = xv->ctl;
	xv->policy_gen = v->domain->arch.pmuvirt->policy_gen;
	xv->vpolicy_gen = xv->policy_gen;
	ctx = (struct pmuvirt_ctx *)(xv + 1);
	/* The VCPUs of one domain switch without writes; another domain's re-base. */
	if (pmuvirt_ctx_init(ctx, size, &pmuvirt_xen_pmu) ||
	    pmuvirt_ctx_set_domain(ctx, v->domain->arch.pmuvirt->tag)) {
		xfree(xv);
		return 0;
	}
	pmuvirt_ctx_attach_shared(ctx, pmuvirt_xen_record(v->domain->arch.pmuvirt, v->vcpu_id));
	pmuvirt_xen_vpmu_vcpu_create(v, ctx);
	v->arch.pmuvirt = ctx;
	return 0;
}

static void cf_check pmuvirt_xen_release_here(void *arg)
{
	pmuvirt_ctx_release(arg);
}

/**
 * pmuvirt_xen_vcpu_destroy() - free a VCPU's context
 * @v:		the VCPU; descheduled for good, so its last switch out (the
 *		hook) took its context off the PCPU.
 */
void pmuvirt_xen_vcpu_destroy(struct vcpu *v)
{
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	struct pmuvirt_pcpu *pc;

	pmuvirt_xen_prof_vcpu_destroy(v);
	if (!ctx)
		return;
	pmuvirt_xen_pv_vcpu_destroy(v);
	pmuvirt_xen_vpmu_vcpu_destroy(v, ctx);
	v->arch.pmuvirt = NULL;
	pc = pmuvirt_ctx_running_on(ctx);
	/* A PCPU's state belongs to that PCPU: release the context there. */
	if (pc && pc->cpu != smp_processor_id()) {
		printk(XENLOG_ERR "pmuvirt: %pv destroyed while its counters run on CPU%u\n", v,
		       pc->cpu);
		on_selected_cpus(cpumask_of(pc->cpu), pmuvirt_xen_release_here, ctx, 1);
	} else {
		unsigned long flags;

		local_irq_save(flags);
		pmuvirt_ctx_release(ctx);
		local_irq_restore(flags);
	}
	pmuvirt_ctx_attach_shared(ctx, NULL);
	xfree(pmuvirt_xen_vcpu_of(ctx));
}

/*
 * Give @v's context @ctl (checked), next to a profiling session's counters
 * when one runs.  Interrupts off; the context runs on this PCPU or nowhere.
 */
static int pmuvirt_xen_apply(struct vcpu *v, struct pmuvirt_ctx *ctx,
			     const struct pmuvirt_control *ctl, struct pmuvirt_error *err)
{
	struct pmuvirt_pcpu *pc = pmuvirt_xen_this_pcpu();
	bool running = pc && pc->running == ctx;
	int rc;

	if (!pc)
		return -ENODEV;
	/* Off the PCPU while it changes (a context a failed switch left off stays off). */
	if (running)
		pmuvirt_switch_hook(pc, NULL);
	pmuvirt_xen_vpmu_off(v, ctx);
	rc = pmuvirt_xen_prof_set(v, ctx, ctl, err);
	pmuvirt_xen_vpmu_on(v, ctx);
	if (running)
		pmuvirt_switch_hook(pc, ctx);
	return rc;
}

/* Drop @v's control if the domain's policy does not permit it; lock held. */
static void pmuvirt_xen_enforce_locked(struct vcpu *v, struct pmuvirt_xen_domain *dd,
				       struct pmuvirt_ctx *ctx)
{
	static const struct pmuvirt_control empty = { .version = PMUVIRT_ABI_VERSION };
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);
	unsigned int i;
	int rc;

	for (i = 0; i < xv->ctl.nr_counters && i < PMUVIRT_MAX_COUNTERS; i++)
		if (!pmuvirt_policy_permits(&dd->policy, &xv->ctl.counter[i]))
			break;
	if (i < xv->ctl.nr_counters && i < PMUVIRT_MAX_COUNTERS) {
		rc = pmuvirt_xen_apply(v, ctx, &empty, NULL);
		printk(XENLOG_G_INFO "pmuvirt: %pv: control dropped, counter %u not permitted by the domain's policy (%d)\n",
		       v, i, rc);
		if (rc)
			return;	/* tried again at the next switch in */
		xv->ctl = empty;
		xv->pv_usr_only = xv->pv_os_only = 0;
	}
	xv->policy_gen = dd->policy_gen;
}

void pmuvirt_xen_enforce_policy(struct vcpu *v)
{
	struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	unsigned long flags;
	uint64_t gen;

	if (!dd || !ctx)
		return;
	gen = read_atomic(&dd->policy_gen);
	if (likely(pmuvirt_xen_vcpu_of(ctx)->policy_gen == gen &&
		   pmuvirt_xen_vcpu_of(ctx)->vpolicy_gen == gen))
		return;
	spin_lock_irqsave(&dd->policy_lock, flags);
	if (pmuvirt_xen_vcpu_of(ctx)->policy_gen != dd->policy_gen)
		pmuvirt_xen_enforce_locked(v, dd, ctx);
	/* the guest's counters: its emulated PMU's copy of the policy */
	pmuvirt_xen_vpmu_policy(v, ctx, dd);
	spin_unlock_irqrestore(&dd->policy_lock, flags);
}

int pmuvirt_xen_set_vcpu_control(struct vcpu *v, const struct pmuvirt_control *ctl,
				 struct pmuvirt_error *err)
{
	struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	unsigned long flags;
	int rc;

	if (!dd || !ctx)
		return -ENODEV;
	/* A profiling session starts before or after the check and the setting. */
	pmuvirt_xen_prof_read_lock();
	spin_lock_irqsave(&dd->policy_lock, flags);
	rc = pmuvirt_validate_policy(&pmuvirt_xen_pmu, ctl, pmuvirt_ctx_max_counters(ctx), NULL, NULL,
				     &dd->policy, err);
	if (!rc)
		rc = pmuvirt_xen_prof_fits(ctl, pmuvirt_ctx_max_counters(ctx), err);
	if (!rc)
		rc = pmuvirt_xen_apply(v, ctx, ctl, err);
	if (!rc)
		pmuvirt_xen_vcpu_of(ctx)->policy_gen = dd->policy_gen;
	spin_unlock_irqrestore(&dd->policy_lock, flags);
	pmuvirt_xen_prof_read_unlock();
	return rc;
}

/**
 * pmuvirt_xen_switch() - move the counters from @prev to @next
 * @prev:	the outgoing VCPU.
 * @next:	the incoming VCPU (the idle VCPU stops counting).
 *
 * Called from context_switch() with interrupts disabled, lazy switches
 * included, before sched_context_switched() clears @prev's is_running: so
 * @prev's context is off this PCPU before any other PCPU may pick @prev,
 * and a context is never left on a PCPU its VCPU has left.  Should that
 * order ever break, pmuvirt_switch_hook() leaves this PCPU counting for
 * no one rather than for the wrong VCPU.  a-mode counters are offset (only
 * reads); the outgoing VCPU gets its VIRQ when overflows became pending on
 * the way out.
 */
void pmuvirt_xen_switch(struct vcpu *prev, struct vcpu *next)
{
	struct pmuvirt_pcpu *pc = pmuvirt_xen_this_pcpu();
	struct pmuvirt_ctx *out, *in;
	struct vcpu *owner;
	int rc;

	if (!pc)
		return;
	out = pc->running;
	owner = pc->host;
	/* An idle PCPU runs a profiling session's counters, if one runs. */
	in = is_idle_vcpu(next) ? pmuvirt_xen_prof_idle(pc->cpu) : next->arch.pmuvirt;
	if (out == in)
		return;
	if (in && !is_idle_vcpu(next)) {
		pmuvirt_xen_enforce_policy(next);
		pmuvirt_xen_prof_switch_in(next, in);
		/* a control applied meanwhile starts every counter unmuted */
		if (is_pv_vcpu(next))
			pmuvirt_xen_pv_remute(next, in, NULL);
	}
	rc = pmuvirt_switch_hook(pc, in);
	if (unlikely(rc))
		printk(XENLOG_G_WARNING "pmuvirt: switch to %pv: %s\n", next, pmuvirt_strerror(rc));
	pc->host = pc->running ? next : NULL;
	/* The guest's interrupt for what the switch collected of its emulated PMU. */
	if (out && owner && !is_idle_vcpu(owner) && out == owner->arch.pmuvirt)
		pmuvirt_xen_vpmu_deliver(owner);
	if (out && owner && (pmuvirt_ctx_imode_mask(out) & pmuvirt_ctx_own_mask(out)) &&
	    (pmuvirt_ctx_pending(out) & pmuvirt_ctx_own_mask(out)))
		send_guest_vcpu_virq(owner, PMUVIRT_XEN_VIRQ);
}

/**
 * pmuvirt_xen_pmi() - the counter interrupt
 * @regs:	interrupted state (a profiling session's records say where).
 *
 * Return: true when pmuvirt handled it (then Xen's vPMU is not asked).
 */
bool pmuvirt_xen_pmi(const struct cpu_user_regs *regs)
{
	if (!pmuvirt_xen_ready || !pmuvirt_xen_has_pmi() || pmuvirt_xen_emulate)
		return false;
	pmuvirt_xen_prof_set_regs(regs);
	pmuvirt_xen_deliver_pmi();
	pmuvirt_xen_prof_set_regs(NULL);
	/* The LVT entry masks itself on delivery (Intel): unmask it. */
	apic_write(APIC_LVTPC, PMU_APIC_VECTOR);
	return true;
}

void pmuvirt_xen_deliver_pmi(void)
{
	struct pmuvirt_pcpu *pc = pmuvirt_xen_this_pcpu();
	struct vcpu *v;
	uint32_t mask = 0;

	if (!pc)
		return;
	v = pc->host;
	if (pmuvirt_pmi(pc, &mask))
		printk(XENLOG_G_WARNING "pmuvirt: PMI on CPU%u: register access failed\n", pc->cpu);
	/* A profiling session's counters notify no VCPU. */
	if (pc->running)
		mask &= pmuvirt_ctx_own_mask(pc->running);
	if (mask && pc->host)
		send_guest_vcpu_virq(pc->host, PMUVIRT_XEN_VIRQ);
	/* The emulated PMU's counters notify the guest through its LVTPC. */
	if (v && !is_idle_vcpu(v) && pc->running == v->arch.pmuvirt)
		pmuvirt_xen_vpmu_deliver(v);
	pmuvirt_xen_prof_pmi_done(pc->running);
}

/**
 * pmuvirt_xen_rdpmc_exits() - must an HVM or PVH guest's rdpmc exit to Xen?
 * @v:		current, about to enter the guest on this PCPU (interrupts off).
 *
 * The hardware's counters may be read by @v's guest only while this PCPU
 * runs @v's own context with no profiling session's counters joined to
 * it: then each counter holds @v's domain's events (a switch from another
 * domain re-based them all).  Otherwise a counter may hold Xen's, a
 * session's or another domain's events, and rdpmc exits to
 * pmuvirt_xen_rdpmc().
 * Return: true when rdpmc must exit.
 */
bool pmuvirt_xen_rdpmc_exits(const struct vcpu *v)
{
	const struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	unsigned int cpu = smp_processor_id();

	if (!pmuvirt_xen_ready)
		return false;
	return !ctx || cpu >= pmuvirt_xen_nr_pcpus || pmuvirt_xen_pcpus[cpu].running != ctx ||
	       pmuvirt_ctx_nr_counters(ctx) != pmuvirt_ctx_nr_own(ctx) ||
	       pmuvirt_xen_vpmu_rdpmc_exits(v);
}

/**
 * pmuvirt_xen_rdpmc() - an HVM or PVH guest's rdpmc that exited to Xen
 * @v:		current.
 * @ecx:	the counter the guest asks for (its ECX).
 * @val:	the counter's raw value when it is one of @v's own.
 *
 * The counters of @v's own context running here are readable, with the
 * value a guest reading the hardware would see.  In a domain that uses
 * pmuvirt's ABI and a stock PMU driver at once (pmuvirt.ko beside the
 * guest kernel's perf), an index that is none of them names the emulated
 * PMU's counter, as for a domain that never used the ABI.  Any other index
 * (a session's counter, a counter neither uses, an absent one) is refused
 * and the guest gets #GP, as for an absent counter.
 * Return: 0, or -EPERM.
 */
int pmuvirt_xen_rdpmc(struct vcpu *v, uint32_t ecx, uint64_t *val)
{
	const struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	struct pmuvirt_pcpu *pc;
	unsigned long flags;
	int rc = -EPERM;

	/* A VCPU with an emulated PMU and no control of its own: the guest's counters. */
	if (pmuvirt_xen_vpmu_rdpmc_stock(v))
		return pmuvirt_xen_vpmu_rdpmc(v, ecx, val);
	/* As every access to this PCPU's PMU: a PMI (the emulated one's timer) waits. */
	local_irq_save(flags);
	pc = pmuvirt_xen_this_pcpu();
	if (ctx && pc && pc->running == ctx && pmuvirt_ctx_own_user_index(ctx, ecx) &&
	    !pc->hw->read_counter(pc->hw_arg, ecx, val))
		rc = 0;
	local_irq_restore(flags);
	if (rc && !pmuvirt_xen_vpmu_rdpmc(v, ecx, val))
		rc = 0;
	return rc;
}

static void tcg_intr_exit(void)
{
	const struct vmcb_struct *vmcb = current->arch.hvm.svm.vmcb;

	if (vmcb->event_inj.v && vmcb->event_inj.type == X86_EVENTTYPE_EXT_INTR) {
		send_IPI_self(EVENT_CHECK_VECTOR);
		atomic_inc(&pmuvirt_xen_tcg_intr_exits);
	}
}

/**
 * pmuvirt_xen_vm_entry() - the guest of this CPU is about to run (VMRUN)
 *
 * Called from svm_vmenter_helper() with interrupts disabled.  With the
 * emulated PMU, loads IA32_PERF_GLOBAL_CTRL with the running context's
 * guest-only counters enabled; pmuvirt_xen_vm_exit() puts the host's
 * value back.  With pmuvirt-tcg-intr-exit, also makes an injected
 * external interrupt end in an exit (tcg_intr_exit()).
 */
void pmuvirt_xen_vm_entry(void)
{
	struct pmuvirt_pcpu *pc;
	uint64_t host, guest;

	if (unlikely(pmuvirt_xen_tcg_intr_exit))
		tcg_intr_exit();
	if (likely(!pmuvirt_xen_vm_switch))
		return;
	pc = pmuvirt_xen_this_pcpu();
	if (!pc || pmuvirt_x86_vm_global_ctrl(pc, &host, &guest) || guest == host)
		return;
	/* Behind the cache's back: it keeps the host's value for the exit. */
	if (!pc->hw->write_reg(pc->hw_arg, MSR_CORE_PERF_GLOBAL_CTRL, guest)) {
		this_cpu(pmuvirt_xen_guest_ctrl) = true;
		pmuvirt_xen_emu_vm_entry();
	}
}

/**
 * pmuvirt_xen_vm_exit() - the guest of this CPU left (#VMEXIT)
 *
 * Called first thing in svm_vmexit_handler().  Interrupts taken between
 * the exit and this call count as the guest's on the emulated PMU.
 */
void pmuvirt_xen_vm_exit(void)
{
	struct pmuvirt_pcpu *pc;
	uint64_t host, guest;
	unsigned long flags;

	if (likely(!this_cpu(pmuvirt_xen_guest_ctrl)))
		return;
	local_irq_save(flags);
	this_cpu(pmuvirt_xen_guest_ctrl) = false;
	pc = pmuvirt_xen_this_pcpu();
	if (pc && !pmuvirt_x86_vm_global_ctrl(pc, &host, &guest) &&
	    pc->hw->write_reg(pc->hw_arg, MSR_CORE_PERF_GLOBAL_CTRL, host))
		printk(XENLOG_G_WARNING "pmuvirt: CPU%u: cannot restore the host's global control\n",
		       pc->cpu);
	local_irq_restore(flags);
}
