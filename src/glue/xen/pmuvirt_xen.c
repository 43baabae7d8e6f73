/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt inside the Xen hypervisor (x86): PMU probe at boot, per-PCPU
 * state, per-VCPU contexts, the domain's shared records, the context-switch
 * hook and the counter interrupt.  The hooks are called from the places
 * tools/xen/pmuvirt-xen.patch adds to Xen.
 */
#include <xen/init.h>
#include <xen/lib.h>
#include <xen/sched.h>
#include <xen/xmalloc.h>
#include <xen/mm.h>
#include <xen/event.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/apic.h>
#include <asm/pmuvirt.h>
#include <irq_vectors.h>

#include "pmuvirt_xen.h"

uint64_t pmuvirt_xen_stamp;
struct pmuvirt_pmu pmuvirt_xen_pmu;
bool pmuvirt_xen_ready;

/* Indexed by PCPU number; each entry touched only by its own PCPU. */
static struct pmuvirt_pcpu *pmuvirt_xen_pcpus;
static unsigned int pmuvirt_xen_nr_pcpus;

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
	.cpuid = pmuvirt_xen_cpuid,
};

/* The hardware, or the emulated PMU with pmuvirt-emulate. */
static const struct pmuvirt_hw_ops *pmuvirt_xen_hwops = &pmuvirt_xen_hw;

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

static int __init pmuvirt_xen_init(void)
{
	const struct pmuvirt_pmu *pmu = &pmuvirt_xen_pmu;
	unsigned int i;
	int rc;

	BUILD_BUG_ON(PMUVIRT_MAX_SLOTS > PMUVIRT_MAX_COUNTERS);
	BUILD_BUG_ON(sizeof(struct pmuvirt_xen_slot) != sizeof(struct pmuvirt_slot));
	BUILD_BUG_ON(sizeof(struct pmuvirt_shared_ctx) > PAGE_SIZE);

	if (pmuvirt_xen_emulate) {
		pmuvirt_xen_hwops = &pmuvirt_xen_emu_hw;
		printk(XENLOG_WARNING "pmuvirt: pmuvirt-emulate: an EMULATED PMU whose counters count TSC ticks, for testing only\n");
	}
	rc = pmuvirt_x86_probe(&pmuvirt_xen_pmu, pmuvirt_xen_hwops, NULL);
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

	printk(XENLOG_INFO "pmuvirt: %s, model %u: %u general, %u fixed counters, %u slots%s\n",
	       pmu->name, pmu->model, pmu->nr_gp, pmu->nr_fixed, pmu->nr_slots,
	       pmuvirt_xen_has_pmi() ? "" : " (TSC only)");
	for (i = 0; i < pmu->nr_slots && i < PMUVIRT_MAX_SLOTS; i++)
		printk(XENLOG_INFO "pmuvirt: slot %u: %s %u, %u bits, events %#x\n", i,
		       pmuvirt_xen_class_name(pmu->slot[i].cls), pmu->slot[i].index,
		       pmu->slot[i].width, pmu->slot[i].events);
	printk(XENLOG_INFO "pmuvirt: hypercall %u, VIRQ %u, ABI %u\n",
	       PMUVIRT_XEN_HYPERCALL, PMUVIRT_XEN_VIRQ, PMUVIRT_XEN_VERSION);

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
		if (pmuvirt_pcpu_init(pc, &pmuvirt_xen_pmu, pmuvirt_xen_hwops, NULL, cpu))
			return NULL;
		/* Counter overflows arrive on pmu_apic_interrupt(). */
		if (pmuvirt_xen_has_pmi() && !pmuvirt_xen_emulate)
			apic_write(APIC_LVTPC, PMU_APIC_VECTOR);
	}
	return pc;
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
	dd->nr_records = d->max_vcpus;
	dd->per_frame = PAGE_SIZE / sizeof(struct pmuvirt_shared_ctx);
	dd->nr_frames = DIV_ROUND_UP(dd->nr_records, dd->per_frame);
	dd->frames = xzalloc_array(void *, dd->nr_frames);
	if (!dd->frames)
		goto fail;
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

	if (!dd)
		return;
	d->arch.pmuvirt = NULL;
	for (i = 0; i < dd->nr_frames; i++)
		free_xenheap_page(dd->frames[i]);
	xfree(dd->frames);
	xfree(dd);
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
	struct pmuvirt_ctx *ctx;
	size_t size;

	if (!pmuvirt_xen_ready || !v->domain->arch.pmuvirt)
		return 0;
	size = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	if (!size)
		return 0;
	ctx = xzalloc_bytes(size);
	if (!ctx)
		return -ENOMEM;
	/* The VCPUs of one domain switch without writes; another domain's re-base. */
	if (pmuvirt_ctx_init(ctx, size, &pmuvirt_xen_pmu) ||
	    pmuvirt_ctx_set_domain(ctx, v->domain->arch.pmuvirt->tag)) {
		xfree(ctx);
		return 0;
	}
	pmuvirt_ctx_attach_shared(ctx, pmuvirt_xen_record(v->domain->arch.pmuvirt, v->vcpu_id));
	v->arch.pmuvirt = ctx;
	return 0;
}

/**
 * pmuvirt_xen_vcpu_destroy() - free a VCPU's context
 * @v:		the VCPU; descheduled for good, so no PCPU runs its context.
 */
void pmuvirt_xen_vcpu_destroy(struct vcpu *v)
{
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;

	if (!ctx)
		return;
	v->arch.pmuvirt = NULL;
	pmuvirt_ctx_release(ctx);
	pmuvirt_ctx_attach_shared(ctx, NULL);
	xfree(ctx);
}

static bool pmuvirt_xen_pending(const struct pmuvirt_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ctx->nr_counters; i++)
		if (ctx->counter[i].pending)
			return true;
	return false;
}

/**
 * pmuvirt_xen_switch() - move the counters from @prev to @next
 * @prev:	the outgoing VCPU.
 * @next:	the incoming VCPU (the idle VCPU stops counting).
 *
 * Called from context_switch() with interrupts disabled, lazy switches
 * included, so a context is never left on a PCPU its VCPU has left.
 * a-mode counters are offset (only reads); the outgoing VCPU gets its VIRQ
 * when overflows became pending on the way out.
 */
void pmuvirt_xen_switch(struct vcpu *prev, struct vcpu *next)
{
	struct pmuvirt_pcpu *pc = pmuvirt_xen_this_pcpu();
	struct pmuvirt_ctx *out, *in;
	struct vcpu *owner;
	int rc;

	if (!pc)
		return;
	out = pmuvirt_xen_running(pc);
	owner = pc->host;
	in = is_idle_vcpu(next) ? NULL : next->arch.pmuvirt;
	if (out == in)
		return;
	rc = pmuvirt_switch(pc, in);
	if (unlikely(rc))
		printk(XENLOG_G_WARNING "pmuvirt: switch to %pv: %s\n", next, pmuvirt_strerror(rc));
	pc->host = pmuvirt_xen_running(pc) ? next : NULL;
	if (out && owner && out->imode_mask && pmuvirt_xen_pending(out))
		send_guest_vcpu_virq(owner, PMUVIRT_XEN_VIRQ);
}

/**
 * pmuvirt_xen_pmi() - the counter interrupt
 * @regs:	interrupted state (unused).
 *
 * Return: true when pmuvirt handled it (then Xen's vPMU is not asked).
 */
bool pmuvirt_xen_pmi(const struct cpu_user_regs *regs)
{
	if (!pmuvirt_xen_ready || !pmuvirt_xen_has_pmi() || pmuvirt_xen_emulate)
		return false;
	pmuvirt_xen_deliver_pmi();
	/* The LVT entry masks itself on delivery (Intel): unmask it. */
	apic_write(APIC_LVTPC, PMU_APIC_VECTOR);
	return true;
}

void pmuvirt_xen_deliver_pmi(void)
{
	struct pmuvirt_pcpu *pc = pmuvirt_xen_this_pcpu();
	uint32_t mask = 0;

	if (!pc)
		return;
	if (pmuvirt_pmi(pc, &mask))
		printk(XENLOG_G_WARNING "pmuvirt: PMI on CPU%u: register access failed\n", pc->cpu);
	if (mask && pc->host)
		send_guest_vcpu_virq(pc->host, PMUVIRT_XEN_VIRQ);
}
