// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt's emulated architectural PMU (include/pmuvirt/vpmu.h) as the
 * PMU of HVM and PVH guests that know nothing of pmuvirt: the model each
 * VCPU gets, its PMU MSRs, CPUID leaves and RDPMC, its LVTPC through the
 * vLAPIC, and the hand-over between the emulator and the glue's own
 * controls (pmuvirt-aware guests' SET_CONTROL, profiling sessions, save
 * and restore).  docs/xen.md, "Stock guests", says what guests see.
 */
#include <xen/init.h>
#include <xen/lib.h>
#include <xen/param.h>
#include <xen/sched.h>
#include <xen/event.h>
#include <asm/apic.h>
#include <asm/msr-index.h>
#include <asm/x86-vendors.h>
#include <asm/x86_emulate.h>
#ifdef CONFIG_HVM
#include <asm/hvm/hvm.h>
#include <asm/hvm/vlapic.h>
#endif
#include <asm/pmuvirt.h>

#include "pmuvirt_xen.h"

/* pmuvirt-vpmu=<bool>: stock HVM and PVH guests see a PMU (default on). */
static bool __initdata pmuvirt_xen_vpmu_opt = true;
boolean_param("pmuvirt-vpmu", pmuvirt_xen_vpmu_opt);

/* The model every stock guest's VCPU gets; valid when pmuvirt_xen_vpmu_enabled. */
static struct pmuvirt_vpmu_model __read_mostly pmuvirt_xen_vpmu_model;
static bool __read_mostly pmuvirt_xen_vpmu_enabled;
static uint32_t __read_mostly pmuvirt_xen_vpmu_flags;

/**
 * pmuvirt_xen_vpmu_init() - choose the guests' PMU model at boot
 *
 * Called once pmuvirt has its PMU.  The guest's PMU is of the vendor its
 * CPUID says: the host's model when the PMU is of the CPU's vendor; on an
 * AMD CPU whose PMU is of another kind (pmuvirt-emulate under QEMU, an
 * Intel-style PMU) the legacy AMD PMU of the CPU's family, the four K7
 * counters that Linux drives on every AMD CPU without PerfCtrExtCore.
 * A host without HVM chooses one as well, for its PV guests.
 */
void __init pmuvirt_xen_vpmu_init(void)
{
	struct pmuvirt_vpmu_model m;
	bool amd_cpu = boot_cpu_data.x86_vendor & (X86_VENDOR_AMD | X86_VENDOR_HYGON);
	bool intel_cpu = boot_cpu_data.x86_vendor & X86_VENDOR_INTEL;
	const char *why = NULL;

	if (!pmuvirt_xen_vpmu_opt) {
		printk(XENLOG_INFO "pmuvirt: stock guests' PMU: off (pmuvirt-vpmu=0)\n");
		return;
	}
	if (pmuvirt_vpmu_model_host(&pmuvirt_xen_pmu, &m))
		why = "no general counters";
	else if (amd_cpu && m.vendor != PMUVIRT_VPMU_AMD)
		m = (struct pmuvirt_vpmu_model){
			.vendor = PMUVIRT_VPMU_AMD, .version = PMUVIRT_VPMU_AMD_LEGACY,
			.nr_gp = 4, .width = 48, .family = boot_cpu_data.x86,
		};
	else if (!amd_cpu && !(intel_cpu && m.vendor == PMUVIRT_VPMU_INTEL))
		why = "the CPU's vendor has no model on this PMU";
	if (!why && pmuvirt_vpmu_model_check(&m))
		why = "the model is refused";
	if (why) {
		printk(XENLOG_INFO "pmuvirt: stock guests' PMU: none (%s)\n", why);
		return;
	}
	pmuvirt_xen_vpmu_model = m;
	if (pmuvirt_xen_pmu.caps & PMUVIRT_CAP_GUEST_ONLY)
		pmuvirt_xen_vpmu_flags = PMUVIRT_VPMU_F_GUEST_ONLY;
	pmuvirt_xen_vpmu_enabled = true;
	if (hvm_enabled) {
		printk(XENLOG_INFO "pmuvirt: stock HVM and PVH guests' PMU: %s version %u, %u general counters (%u bits), %u fixed%s\n",
		       m.vendor == PMUVIRT_VPMU_AMD ? "AMD" : "Intel", m.version, m.nr_gp, m.width,
		       m.nr_fixed, pmuvirt_xen_vpmu_flags ? ", kernel mode in the guest only" : "");
		printk(XENLOG_INFO "pmuvirt: stock PV guests' PMU: the same, through XENPMU_*\n");
		return;
	}
	/* No HVM VCPU is ever created: the model is the PV guests' alone. */
	printk(XENLOG_INFO "pmuvirt: stock HVM and PVH guests' PMU: none (no HVM)\n");
	printk(XENLOG_INFO "pmuvirt: stock PV guests' PMU: %s version %u, %u general counters (%u bits), %u fixed, through XENPMU_*\n",
	       m.vendor == PMUVIRT_VPMU_AMD ? "AMD" : "Intel", m.version, m.nr_gp, m.width,
	       m.nr_fixed);
}

#ifdef CONFIG_HVM

static int vpmu_attach(struct pmuvirt_xen_vcpu *xv, struct pmuvirt_pcpu *pc);

static struct pmuvirt_vpmu *vpmu_of(const struct vcpu *v)
{
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	struct pmuvirt_xen_vcpu *xv;

	if (!ctx)
		return NULL;
	xv = pmuvirt_xen_vcpu_of(ctx);
	return xv->has_vpmu ? &xv->vpmu : NULL;
}

/* The PCPU state to pass for @ctx: this PCPU's when @ctx runs here, else NULL. */
static struct pmuvirt_pcpu *pc_for(const struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_pcpu *pc = pmuvirt_xen_this_pcpu();

	return pc && pc->running == ctx ? pc : NULL;
}

/*
 * The guest's performance interrupt: its LVTPC as programmed (a fixed
 * vector or NMI), not when the vLAPIC is off or the entry masked.  Intel
 * CPUs mask the entry when they deliver a PMI (the handler unmasks it);
 * AMD's do not, so neither is an AMD model's masked here.
 */
static void cf_check pmuvirt_xen_vpmu_pmi(void *arg, uint64_t ovf)
{
	struct vcpu *v = arg;
	struct vlapic *vlapic = vcpu_vlapic(v);
	uint32_t lvtpc;

	if (v->arch.pmuvirt)
		pmuvirt_xen_vcpu_of(v->arch.pmuvirt)->nr_pmis++;
	if (is_pv_vcpu(v)) {
		pmuvirt_xen_pv_pmi(v, ovf);
		return;
	}
	if (!has_vlapic(v->domain) || !is_vlapic_lvtpc_enabled(vlapic))
		return;
	lvtpc = vlapic_get_reg(vlapic, APIC_LVTPC);
	if (pmuvirt_xen_vpmu_model.vendor == PMUVIRT_VPMU_INTEL)
		vlapic_set_reg(vlapic, APIC_LVTPC, lvtpc | APIC_LVT_MASKED);
	switch (GET_APIC_DELIVERY_MODE(lvtpc)) {
	case APIC_MODE_FIXED:
		vlapic_set_irq(vlapic, lvtpc & APIC_VECTOR_MASK, 0);
		break;
	case APIC_MODE_NMI:
		v->arch.nmi_pending = true;
		vcpu_kick(v);
		break;
	}
}

int pmuvirt_xen_vpmu_vcpu_create(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);
	unsigned long flags;

	if (!pmuvirt_xen_vpmu_enabled || !is_hvm_vcpu(v))
		return 0;
	if (pmuvirt_vpmu_init(&xv->vpmu, ctx, &pmuvirt_xen_vpmu_model, pmuvirt_xen_vpmu_flags,
			      pmuvirt_xen_vpmu_pmi, v))
		return 0;
	xv->has_vpmu = 1;
	/* The domain's policy (the boot option's, or one SET_POLICY gave it). */
	spin_lock_irqsave(&dd->policy_lock, flags);
	xv->vpolicy = dd->policy;
	xv->vpolicy_gen = dd->policy_gen;
	pmuvirt_vpmu_set_policy(NULL, &xv->vpmu, &xv->vpolicy);
	spin_unlock_irqrestore(&dd->policy_lock, flags);
	return 0;
}

const struct pmuvirt_vpmu_model *pmuvirt_xen_vpmu_pv_model(void)
{
	return pmuvirt_xen_vpmu_enabled ? &pmuvirt_xen_vpmu_model : NULL;
}

int pmuvirt_xen_vpmu_pv_start(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);
	int rc;

	if (!pmuvirt_xen_vpmu_pv_model() || !is_pv_vcpu(v))
		return -EOPNOTSUPP;
	if (xv->has_vpmu)
		return -EEXIST;
	/* A PV kernel runs in ring 3: its OS bit counts there too (pmuvirt_xen_pv_toggle()). */
	rc = pmuvirt_vpmu_init(&xv->vpmu, ctx, &pmuvirt_xen_vpmu_model, PMUVIRT_VPMU_F_PV,
			       pmuvirt_xen_vpmu_pmi, v);
	if (rc)
		return rc;
	(void)pmuvirt_vpmu_pv_mode(pc_for(ctx), &xv->vpmu, v->arch.flags & TF_kernel_mode);
	spin_lock(&dd->policy_lock);
	xv->vpolicy = dd->policy;
	xv->vpolicy_gen = dd->policy_gen;
	pmuvirt_vpmu_set_policy(pc_for(ctx), &xv->vpmu, &xv->vpolicy);
	spin_unlock(&dd->policy_lock);
	xv->has_vpmu = 1;
	return 0;
}

void pmuvirt_xen_vpmu_pv_stop(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);

	if (!xv->has_vpmu)
		return;
	if (pmuvirt_vpmu_attached(&xv->vpmu) &&
	    pmuvirt_vpmu_detach(pc_for(ctx), &xv->vpmu))
		printk(XENLOG_G_WARNING "pmuvirt: %pv: emulated PMU: cannot detach\n", v);
	pmuvirt_xen_vpmu_vcpu_destroy(v, ctx);
	xv->has_vpmu = 0;
	xv->nr_rdmsr = xv->nr_wrmsr = xv->nr_rdpmc = 0;
	xv->nr_pv_toggles = 0;
	xv->nr_pmis = 0;
}

/*
 * A 64-bit PV kernel runs in ring 3 like its user space: the hardware
 * counts both for a counter of either mode.  Xen knows when the VCPU
 * switches (toggle_guest_mode()): the counters that select one mode are
 * muted in the other, those of the glue's control as the guest asked for
 * them and those of the emulated PMU by their USR and OS bits.
 */
void pmuvirt_xen_pv_remute(struct vcpu *v, struct pmuvirt_ctx *ctx, struct pmuvirt_pcpu *pc)
{
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);
	bool kernel = v->arch.flags & TF_kernel_mode;
	unsigned int n = min_t(unsigned int, xv->ctl.nr_counters, pmuvirt_ctx_nr_counters(ctx));
	uint32_t own = n >= 32 ? ~0u : (1u << n) - 1;
	int rc = 0;

	if (own && (xv->pv_usr_only | xv->pv_os_only))
		rc = pmuvirt_mute(pc, ctx, own, (kernel ? xv->pv_usr_only : xv->pv_os_only) & own);
	if (!rc && xv->has_vpmu && (xv->vpmu.flags & PMUVIRT_VPMU_F_PV))
		rc = pmuvirt_vpmu_pv_mode(pc, &xv->vpmu, kernel);
	if (rc)
		gdprintk(XENLOG_WARNING, "pmuvirt: kernel/user mode switch: %d\n", rc);
}

void pmuvirt_xen_pv_sides(struct vcpu *v, const struct pmuvirt_control *asked)
{
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	struct pmuvirt_xen_vcpu *xv;
	uint32_t usr = 0, os = 0;
	unsigned long flags;
	unsigned int i;

	if (!ctx || !is_pv_vcpu(v))
		return;
	xv = pmuvirt_xen_vcpu_of(ctx);
	for (i = 0; asked && i < asked->nr_counters && i < PMUVIRT_MAX_COUNTERS; i++) {
		const struct pmuvirt_counter_ctl *c = &asked->counter[i];
		uint32_t f = c->flags & (PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL);

		/* the TSC counts time, whatever the mode */
		if (c->event == PMUVIRT_EV_TSC && !(c->flags & PMUVIRT_CTR_RAW))
			continue;
		if (f == PMUVIRT_CTR_USER)
			usr |= 1u << i;
		else if (f == PMUVIRT_CTR_KERNEL)
			os |= 1u << i;
	}
	local_irq_save(flags);
	xv->pv_usr_only = usr;
	xv->pv_os_only = os;
	pmuvirt_xen_pv_remute(v, ctx, pc_for(ctx));
	local_irq_restore(flags);
}

/* @v, the current PV VCPU, switched between its kernel and user mode. */
void pmuvirt_xen_pv_toggle(struct vcpu *v)
{
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	struct pmuvirt_xen_vcpu *xv;
	unsigned long flags;

	if (!ctx)
		return;
	xv = pmuvirt_xen_vcpu_of(ctx);
	if (!(xv->pv_usr_only | xv->pv_os_only) &&
	    !(xv->has_vpmu && (xv->vpmu.flags & PMUVIRT_VPMU_F_PV)))
		return;
	xv->nr_pv_toggles++;
	local_irq_save(flags);
	pmuvirt_xen_pv_remute(v, ctx, pc_for(ctx));
	local_irq_restore(flags);
}

int pmuvirt_xen_vpmu_read(struct vcpu *v, uint32_t msr, uint64_t *val)
{
	struct pmuvirt_vpmu *vp = vpmu_of(v);

	return vp ? pmuvirt_vpmu_rdmsr(pc_for(vp->ctx), vp, msr, val) : -ENODEV;
}

int pmuvirt_xen_vpmu_write(struct vcpu *v, uint32_t msr, uint64_t val)
{
	struct pmuvirt_vpmu *vp = vpmu_of(v);
	struct pmuvirt_pcpu *pc;

	if (!vp)
		return -ENODEV;
	pc = pc_for(vp->ctx);
	if (!pmuvirt_vpmu_attached(vp))
		vpmu_attach(pmuvirt_xen_vcpu_of(vp->ctx), pc);
	return pmuvirt_vpmu_wrmsr(pc, vp, msr, val);
}

/*
 * A counter the policy refuses counts nothing (its MSRs are served, no
 * #GP); PMUVIRT_POLICY_NO_VPMU turns the emulated PMU off: every PMU MSR
 * and RDPMC #GP, the emulator's counters off the context, CPUID as with
 * pmuvirt-vpmu=0.  A VCPU's emulator gets a copy: the emulator reads the
 * policy on every MSR write, and SET_POLICY may change the domain's while
 * another PCPU's VCPU is in an intercept.
 */
void pmuvirt_xen_vpmu_policy(struct vcpu *v, struct pmuvirt_ctx *ctx,
			     const struct pmuvirt_xen_domain *dd)
{
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);
	struct pmuvirt_pcpu *pc;
	bool was_off;
	int rc;

	if (xv->vpolicy_gen == dd->policy_gen)
		return;
	xv->vpolicy_gen = dd->policy_gen;
	if (!xv->has_vpmu)
		return;
	was_off = pmuvirt_vpmu_off(&xv->vpmu);
	xv->vpolicy = dd->policy;
	pc = pc_for(ctx);
	rc = pmuvirt_vpmu_set_policy(pc, &xv->vpmu, &xv->vpolicy);
	/* On again after the glue's control took the context: the guest's counters back. */
	if (!rc && !pmuvirt_vpmu_attached(&xv->vpmu) && pmuvirt_vpmu_counts(&xv->vpmu))
		rc = vpmu_attach(xv, pc);
	if (rc)
		printk(XENLOG_G_WARNING "pmuvirt: %pv: emulated PMU: the domain's policy: %d\n",
		       v, rc);
	if (was_off != pmuvirt_vpmu_off(&xv->vpmu))
		printk(XENLOG_G_INFO "pmuvirt: %pv: emulated PMU %s by the domain's policy\n", v,
		       was_off ? "on" : "off");
}

void pmuvirt_xen_vpmu_vcpu_destroy(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	const struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);

	if (xv->has_vpmu && (xv->nr_rdmsr || xv->nr_wrmsr || xv->nr_rdpmc))
		printk(XENLOG_G_INFO "pmuvirt: %pv: emulated PMU served %"PRIu64" RDMSR, %"PRIu64" WRMSR, %"PRIu64" RDPMC, raised %u interrupts\n",
		       v, xv->nr_rdmsr, xv->nr_wrmsr, xv->nr_rdpmc, xv->nr_pmis);
	if (xv->has_vpmu && !is_pv_vcpu(v) && (xv->nr_rdmsr || xv->nr_wrmsr))
		printk(XENLOG_G_INFO "pmuvirt: %pv: of those MSR accesses Xen's AMD vPMU would intercept %"PRIu64"\n",
		       v, xv->nr_xen_traps);
	if (xv->has_vpmu && xv->nr_pv_toggles)
		printk(XENLOG_G_INFO "pmuvirt: %pv: emulated PMU: %"PRIu64" kernel/user mode switches\n",
		       v, xv->nr_pv_toggles);
}

/*
 * The emulator lets go of the context before the glue changes its control
 * (pmuvirt_ctx_join(), _leave(), _save() and _restore() want the glue's
 * counters alone): the guest's counting counters fold into their values.
 * Cheap when the emulator adds no counter.  Interrupts off; the context
 * runs on this PCPU or nowhere.
 */
void pmuvirt_xen_vpmu_off(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);

	if (!xv->has_vpmu || pmuvirt_ctx_nr_counters(ctx) == xv->eff.nr_counters)
		return;
	if (pmuvirt_vpmu_detach(pc_for(ctx), &xv->vpmu))
		printk(XENLOG_G_WARNING "pmuvirt: %pv: emulated PMU: cannot detach\n", v);
}

/*
 * The emulator takes the context back after the glue gave it a control:
 * the glue's counters (@xv->eff, the first @xv->ctl.nr_counters the
 * VCPU's own) go on as they are and the guest's enabled counters follow.
 * Left for the guest's next PMU MSR write when it enables none.
 */
static int vpmu_attach(struct pmuvirt_xen_vcpu *xv, struct pmuvirt_pcpu *pc)
{
	unsigned int n = xv->eff.nr_counters;

	return pmuvirt_vpmu_set_host(pc, &xv->vpmu, n ? &xv->eff : NULL, n, xv->ctl.nr_counters,
				     NULL);
}

void pmuvirt_xen_vpmu_on(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);
	int rc;

	if (!xv->has_vpmu || !pmuvirt_vpmu_counts(&xv->vpmu))
		return;
	rc = vpmu_attach(xv, pc_for(ctx));
	if (rc)
		printk(XENLOG_G_INFO "pmuvirt: %pv: emulated PMU counts nothing beside the VCPU's control (%d)\n",
		       v, rc);
}

/* Is @msr in a PMU range of either vendor (those the guest must not reach)? */
static bool pmu_range(uint32_t msr)
{
	return (msr >= MSR_IA32_PERFCTR0 && msr < MSR_IA32_PERFCTR0 + 8) ||
	       (msr >= MSR_P6_EVNTSEL(0) && msr < MSR_P6_EVNTSEL(0) + 8) ||
	       (msr >= MSR_CORE_PERF_FIXED_CTR0 && msr <= MSR_CORE_PERF_FIXED_CTR0 + 3) ||
	       msr == MSR_IA32_PERF_CAPABILITIES ||
	       (msr >= MSR_CORE_PERF_FIXED_CTR_CTRL && msr <= MSR_CORE_PERF_FIXED_CTR_CTRL + 5) ||
	       (msr >= MSR_IA32_A_PERFCTR0 && msr < MSR_IA32_A_PERFCTR0 + 8) ||
	       (msr >= MSR_K7_EVNTSEL0 && msr <= MSR_K7_PERFCTR3) ||
	       (msr >= MSR_AMD_FAM15H_EVNTSEL0 && msr <= MSR_AMD_FAM15H_PERFCTR5 + 4) ||
	       (msr >= 0xc0000300 && msr <= 0xc0000303);
}

/*
 * The MSR intercepts of current (hvm_msr_read_intercept() and
 * hvm_msr_write_intercept(), which HVM and PVH take).  X86EMUL_UNHANDLEABLE
 * for an MSR that is not the emulator's business (Xen goes on as without
 * pmuvirt), X86EMUL_EXCEPTION for a #GP.
 */
/*
 * Would Xen 4.17's AMD vPMU intercept this access of an HVM or PVH guest?
 * Its MSR bitmap intercepts every PMU MSR until an event select is
 * written with its enable bit, then only event-select writes, until an
 * event select is written without it (amd_vpmu_do_wrmsr(),
 * amd_vpmu_set_msr_bitmap()).  @xv->xen_running follows that state.  For
 * the comparison in Xen's log (docs/performance.md); RDPMC it never
 * intercepts.
 */
static bool xen_amd_would_trap(struct pmuvirt_xen_vcpu *xv, uint32_t msr, bool write,
			       uint64_t val)
{
	bool ctl = msr - 0xc0010000u < 4 || (msr - 0xc0010200u < 12 && !(msr & 1));
	bool trap = !xv->xen_running || (write && ctl);

	if (write && ctl)
		xv->xen_running = !!(val & (1ull << 22));	/* EN */
	return trap;
}

static int vpmu_msr(struct vcpu *v, uint32_t msr, uint64_t *val, bool write)
{
	struct pmuvirt_vpmu *vp = vpmu_of(v);
	struct pmuvirt_xen_vcpu *xv;
	struct pmuvirt_pcpu *pc;
	unsigned long flags;
	int rc;

	if (!vp || v != current || !pmu_range(msr))
		return X86EMUL_UNHANDLEABLE;
	if (!pmuvirt_vpmu_has_msr(&vp->model, msr))
		return X86EMUL_EXCEPTION;
	xv = pmuvirt_xen_vcpu_of(vp->ctx);
	if (write)
		xv->nr_wrmsr++;
	else
		xv->nr_rdmsr++;
	if (!is_pv_vcpu(v) && vp->model.vendor == PMUVIRT_VPMU_AMD &&
	    xen_amd_would_trap(xv, msr, write, write ? *val : 0))
		xv->nr_xen_traps++;
	local_irq_save(flags);
	pc = pc_for(vp->ctx);
	if (write) {
		/* Back from the glue's control: attached before what it changes. */
		if (!pmuvirt_vpmu_attached(vp))
			vpmu_attach(xv, pc);
		rc = pmuvirt_vpmu_wrmsr(pc, vp, msr, *val);
	} else {
		rc = pmuvirt_vpmu_rdmsr(pc, vp, msr, val);
	}
	local_irq_restore(flags);
	if (rc == -EINVAL)
		return X86EMUL_EXCEPTION;
	if (rc)
		gdprintk(XENLOG_WARNING, "pmuvirt: emulated PMU: MSR %#x: %d\n", msr, rc);
	return X86EMUL_OKAY;
}

int pmuvirt_xen_msr_read(struct vcpu *v, uint32_t msr, uint64_t *val)
{
	return vpmu_msr(v, msr, val, false);
}

int pmuvirt_xen_msr_write(struct vcpu *v, uint32_t msr, uint64_t val)
{
	return vpmu_msr(v, msr, &val, true);
}

void pmuvirt_xen_guest_cpuid(const struct vcpu *v, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	struct pmuvirt_vpmu *vp = vpmu_of(v);

	/* Off by the domain's policy: the leaves as with pmuvirt-vpmu=0. */
	if (vp && !pmuvirt_vpmu_off(vp))
		pmuvirt_vpmu_cpuid(&vp->model, leaf, subleaf, regs);
	/* A PV kernel reads them before its XENPMU_init. */
	else if (!vp && is_pv_vcpu(v) && v->arch.pmuvirt && pmuvirt_xen_vpmu_pv_model())
		pmuvirt_vpmu_cpuid(&pmuvirt_xen_vpmu_model, leaf, subleaf, regs);
}

void pmuvirt_xen_misc_enable(const struct vcpu *v, uint64_t *val)
{
	struct pmuvirt_vpmu *vp = vpmu_of(v);

	/* Intel: performance monitoring available; no BTS, no PEBS. */
	if (vp && !pmuvirt_vpmu_off(vp) && vp->model.vendor == PMUVIRT_VPMU_INTEL)
		*val |= MSR_IA32_MISC_ENABLE_PERF_AVAIL | MSR_IA32_MISC_ENABLE_BTS_UNAVAIL |
			MSR_IA32_MISC_ENABLE_PEBS_UNAVAIL;
}

bool pmuvirt_xen_vpmu_rdpmc_stock(const struct vcpu *v)
{
	const struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;

	return vpmu_of(v) && dd && !read_atomic(&dd->aware);
}

/*
 * A domain that used pmuvirt's ABI: the guest's RDPMC still exits once it
 * programmed its emulated PMU, whose counters it may read while none of
 * them counts (Linux's perf reads a counter after it stops it).
 */
bool pmuvirt_xen_vpmu_rdpmc_exits(const struct vcpu *v)
{
	const struct pmuvirt_xen_vcpu *xv;

	if (pmuvirt_xen_vpmu_rdpmc_stock(v))
		return true;
	if (!vpmu_of(v))
		return false;
	xv = pmuvirt_xen_vcpu_of(v->arch.pmuvirt);
	return xv->nr_wrmsr || xv->vpmu_restored;
}

int pmuvirt_xen_vpmu_rdpmc(struct vcpu *v, uint32_t ecx, uint64_t *val)
{
	struct pmuvirt_vpmu *vp = vpmu_of(v);
	unsigned long flags;
	int rc;

	if (!vp)
		return -ENODEV;
	pmuvirt_xen_vcpu_of(vp->ctx)->nr_rdpmc++;
	local_irq_save(flags);
	rc = pmuvirt_vpmu_rdpmc(pc_for(vp->ctx), vp, ecx, val);
	local_irq_restore(flags);
	return rc == -EINVAL || rc == -EBUSY ? -EPERM : 0;
}

void pmuvirt_xen_vpmu_deliver(struct vcpu *v)
{
	struct pmuvirt_vpmu *vp = vpmu_of(v);

	if (!vp)
		return;
	pmuvirt_vpmu_deliver(pc_for(vp->ctx), vp);
	if (is_pv_vcpu(v))
		pmuvirt_xen_pv_notify(v);
}

void pmuvirt_xen_vcpu_reset(struct vcpu *v)
{
	struct pmuvirt_vpmu *vp = vpmu_of(v);
	unsigned long flags;

	if (!vp)
		return;
	local_irq_save(flags);
	if (pmuvirt_vpmu_reset(pc_for(vp->ctx), vp))
		printk(XENLOG_G_WARNING "pmuvirt: %pv: emulated PMU: reset failed\n", v);
	local_irq_restore(flags);
}

/*
 * The save stream (pmuvirt_xen_save.c's HVM record): the guest-visible
 * state of a VCPU whose guest has used its emulated PMU; a VCPU whose
 * guest never touched it leaves no record, so its domain restores on a
 * host that offers stock guests no PMU.  The VCPU is paused; the caller
 * holds the locks of pmuvirt_xen_vcpu_save().
 */
int pmuvirt_xen_vpmu_save(struct vcpu *v, struct pmuvirt_vpmu_saved *out)
{
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	struct pmuvirt_xen_vcpu *xv;

	if (!ctx)
		return -ENODATA;
	xv = pmuvirt_xen_vcpu_of(ctx);
	if (!xv->has_vpmu ||
	    !(xv->nr_rdmsr || xv->nr_wrmsr || xv->nr_rdpmc || xv->vpmu_restored))
		return -ENODATA;
	return pmuvirt_vpmu_save(&xv->vpmu, out);
}

int pmuvirt_xen_vpmu_restore(struct vcpu *v, const struct pmuvirt_vpmu_saved *in,
			     struct pmuvirt_error *err)
{
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	struct pmuvirt_xen_vcpu *xv;
	int rc;

	if (!ctx || !pmuvirt_xen_vcpu_of(ctx)->has_vpmu) {
		err->reason = "a saved emulated PMU, but stock guests have none here";
		return -ENODEV;
	}
	xv = pmuvirt_xen_vcpu_of(ctx);
	pmuvirt_xen_vpmu_off(v, ctx);
	rc = pmuvirt_vpmu_restore(&xv->vpmu, in, err);
	if (!rc)
		xv->vpmu_restored = 1;
	pmuvirt_xen_vpmu_on(v, ctx);
	return rc;
}

#else /* !CONFIG_HVM */

int pmuvirt_xen_vpmu_vcpu_create(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	return 0;
}

void pmuvirt_xen_vpmu_policy(struct vcpu *v, struct pmuvirt_ctx *ctx,
			     const struct pmuvirt_xen_domain *dd)
{
	pmuvirt_xen_vcpu_of(ctx)->vpolicy_gen = dd->policy_gen;
}

void pmuvirt_xen_vpmu_vcpu_destroy(struct vcpu *v, struct pmuvirt_ctx *ctx) { }
void pmuvirt_xen_vpmu_off(struct vcpu *v, struct pmuvirt_ctx *ctx) { }
void pmuvirt_xen_vpmu_on(struct vcpu *v, struct pmuvirt_ctx *ctx) { }

int pmuvirt_xen_msr_read(struct vcpu *v, uint32_t msr, uint64_t *val)
{
	return X86EMUL_UNHANDLEABLE;
}

int pmuvirt_xen_msr_write(struct vcpu *v, uint32_t msr, uint64_t val)
{
	return X86EMUL_UNHANDLEABLE;
}

void pmuvirt_xen_guest_cpuid(const struct vcpu *v, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]) { }
void pmuvirt_xen_misc_enable(const struct vcpu *v, uint64_t *val) { }

bool pmuvirt_xen_vpmu_rdpmc_exits(const struct vcpu *v)
{
	return false;
}

bool pmuvirt_xen_vpmu_rdpmc_stock(const struct vcpu *v)
{
	return false;
}

int pmuvirt_xen_vpmu_rdpmc(struct vcpu *v, uint32_t ecx, uint64_t *val)
{
	return -ENODEV;
}

void pmuvirt_xen_vpmu_deliver(struct vcpu *v) { }
void pmuvirt_xen_vcpu_reset(struct vcpu *v) { }

const struct pmuvirt_vpmu_model *pmuvirt_xen_vpmu_pv_model(void)
{
	return NULL;
}

int pmuvirt_xen_vpmu_pv_start(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	return -EOPNOTSUPP;
}

void pmuvirt_xen_vpmu_pv_stop(struct vcpu *v, struct pmuvirt_ctx *ctx) { }

int pmuvirt_xen_vpmu_read(struct vcpu *v, uint32_t msr, uint64_t *val)
{
	return -ENODEV;
}

int pmuvirt_xen_vpmu_write(struct vcpu *v, uint32_t msr, uint64_t val)
{
	return -ENODEV;
}

#endif /* CONFIG_HVM */
