// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko on the x86 hardware (the native backend): register accessors,
 * PMU probe, counter reservation against perf and the NMI watchdog, and
 * the PMI (NMI) handler.  Also the x86 helpers the emulated and Xen
 * backends share: an rdpmc that faults safely, the TSC's user read, the
 * overflow status of a PMI that found no context.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <asm/asm.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/nmi.h>
#include <asm/apic.h>
#include <asm/tlbflush.h>
#include <asm/perf_event.h>

static bool pmc = true;
module_param(pmc, bool, 0444);
MODULE_PARM_DESC(pmc, "use hardware counters besides the TSC (default 1)");

static bool rdpmc_ok;
static unsigned int nr_reserved;
static bool nmi_registered;

static int lx_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	u64 v;

	if (rdmsrl_safe(reg, &v))
		return -EFAULT;
	*val = v;
	return 0;
}

static int lx_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	return wrmsrl_safe(reg, val) ? -EFAULT : 0;
}

/* rdpmc of an absent counter faults: only after a probe found counters. */
static int lx_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	if (!rdpmc_ok)
		return -EFAULT;
	*val = native_read_pmc(idx);
	return 0;
}

static int lx_read_tsc(void *arg, uint64_t *val)
{
	*val = rdtsc_ordered();
	return 0;
}

static int lx_read_counters(void *arg, const uint32_t *idx, unsigned int n, uint64_t *vals)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (idx[i] == PMUVIRT_HW_INDEX_TSC)
			vals[i] = rdtsc_ordered();
		else if (rdpmc_ok)
			vals[i] = native_read_pmc(idx[i]);
		else
			return -EFAULT;
	}
	return 0;
}

static int lx_cpuid(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	unsigned int a = leaf, b = 0, c = sub, d = 0;

	native_cpuid(&a, &b, &c, &d);
	out[0] = a;
	out[1] = b;
	out[2] = c;
	out[3] = d;
	return 0;
}

/**
 * pmuvirt_lx_rdpmc_safe() - rdpmc that fails instead of oopsing
 * @idx:	ECX of rdpmc.
 * @val:	receives the value.
 *
 * Return: 0, or -EFAULT when the counter is absent or rdpmc is refused.
 */
int pmuvirt_lx_rdpmc_safe(u32 idx, u64 *val)
{
	u32 lo, hi;
	int err;

	asm volatile("1: rdpmc; xor %[err],%[err]\n"
		     "2:\n\t"
		     _ASM_EXTABLE_TYPE_REG(1b, 2b, EX_TYPE_EFAULT_REG, %[err])
		     : [err] "=r" (err), "=a" (lo), "=d" (hi)
		     : "c" (idx));
	*val = ((u64)hi << 32) | lo;
	return err;
}

/* Leaf 0 without a vendor: the backend then describes a PMU-less CPU. */
static int lx_cpuid_nopmu(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	lx_cpuid(arg, leaf, sub, out);
	if (!leaf)
		out[1] = out[2] = out[3] = 0;
	return 0;
}

static const struct pmuvirt_hw_ops lx_nopmu_ops = {
	.read_reg = lx_read_reg,
	.write_reg = lx_write_reg,
	.read_counter = lx_read_counter,
	.read_tsc = lx_read_tsc,
	.read_cpuid = lx_cpuid_nopmu,
	.read_counters = lx_read_counters,
};

static const struct pmuvirt_hw_ops lx_native_ops = {
	.read_reg = lx_read_reg,
	.write_reg = lx_write_reg,
	.read_counter = lx_read_counter,
	.read_tsc = lx_read_tsc,
	.read_cpuid = lx_cpuid,
	.read_counters = lx_read_counters,
};

/* MSRs of general counter @i, as the kernel's reservation bitmap names them. */
static bool gp_msrs(unsigned int i, u32 *ctr, u32 *sel)
{
	return i < pmuvirt_lx_pmu.nr_gp && !pmuvirt_x86_slot_msrs(&pmuvirt_lx_pmu, i, ctr, sel);
}

static void release_gp(void)
{
	u32 ctr, sel;

	while (nr_reserved) {
		nr_reserved--;
		if (gp_msrs(nr_reserved, &ctr, &sel)) {
			release_evntsel_nmi(sel);
			release_perfctr_nmi(ctr);
		}
	}
}

/*
 * Take the general counters the way perf and the NMI watchdog take them:
 * while we hold them, perf cannot create hardware events, and if they hold
 * them we do not touch the PMU.  (perf takes the fixed counters only
 * together with the general ones.)
 */
static bool reserve_gp(void)
{
	u32 ctr, sel;

	while (nr_reserved < pmuvirt_lx_pmu.nr_gp) {
		if (!gp_msrs(nr_reserved, &ctr, &sel))
			goto busy;
		if (!reserve_perfctr_nmi(ctr))
			goto busy;
		if (!reserve_evntsel_nmi(sel)) {
			release_perfctr_nmi(ctr);
			goto busy;
		}
		nr_reserved++;
	}
	return true;
busy:
	release_gp();
	return false;
}

/*
 * Does the PMU the probe describes answer?  Emulators (QEMU's AMD models)
 * report a PMU by family but ignore the MSRs and fault on rdpmc.  Runs with
 * the counters reserved, on one CPU.
 */
static bool pmu_responds(void)
{
	const struct pmuvirt_slot *s = &pmuvirt_lx_pmu.slot[0];
	u64 old, back = 0, pmc = 0;
	u32 ctr, sel;
	bool ok;

	if (!s->user_index || pmuvirt_lx_rdpmc_safe(s->user_index - 1, &pmc))
		return false;
	if (!pmuvirt_lx_pmu.nr_gp)
		return true;
	if (!gp_msrs(0, &ctr, &sel) || rdmsrl_safe(ctr, &old))
		return false;
	preempt_disable();
	ok = !wrmsrl_safe(ctr, 0x5a5a5a) && !rdmsrl_safe(ctr, &back) && back == 0x5a5a5a &&
	     !pmuvirt_lx_rdpmc_safe(s->user_index - 1, &pmc) && (u32)pmc == 0x5a5a5a;
	wrmsrl_safe(ctr, old);
	preempt_enable();
	return ok;
}

/* Overflow bits of the module's counters in the global status; 0 without that register. */
static u64 lx_ovf_status(const struct pmuvirt_lx_cpu *lc)
{
	const struct pmuvirt_pmu *pmu = &pmuvirt_lx_pmu;
	u64 v, ours = 0;
	u32 msr;

	if (pmuvirt_x86_status_msr(pmu, &msr))
		return 0;
	if (pmu->nr_gp)
		ours |= GENMASK_ULL(pmu->nr_gp - 1, 0);
	if (pmu->nr_fixed)
		ours |= GENMASK_ULL(pmu->nr_fixed - 1, 0) << 32;
	/* the backend's accessors: a PMI may come before the CPU's pcpu is set up */
	if (pmuvirt_lx_be->hw->read_reg(lc->pc.hw_arg, msr, &v))
		return 0;
	return v & ours;
}

/**
 * pmuvirt_lx_x86_pmi_stale() - did the counters cross with no context on them?
 * @lc:		this CPU's state.
 *
 * The x86 backends' @pmi_stale (struct pmuvirt_lx_backend).
 *
 * Return: true when an overflow bit of the module's counters is set.
 */
bool pmuvirt_lx_x86_pmi_stale(struct pmuvirt_lx_cpu *lc)
{
	return lx_ovf_status(lc) != 0;
}

/*
 * Intel masks LVTPC when it delivers a PMI; until it is rewritten the CPU
 * gets no more.  Only when the module owns the PMI (its NMI handler).
 * Also when a CPU comes (back) online or resumes.
 */
static void native_pmi_unmask(void)
{
	if (nmi_registered)
		apic_write(APIC_LVTPC, APIC_DM_NMI);
}

static int pmuvirt_nmi(unsigned int type, struct pt_regs *regs)
{
	struct pmuvirt_lx_cpu *lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	bool ours;

	lc->pmi_regs = regs;	/* sample records take the IP from here */
	ours = pmuvirt_lx_pmi_irq(lc);
	lc->pmi_regs = NULL;
	return ours ? NMI_HANDLED : NMI_DONE;
}

/**
 * pmuvirt_lx_x86_uread_tsc() - may the calling thread read the TSC itself?
 *
 * Return: PMUVIRT_UREAD_TSC, or 0 when it disabled rdtsc (PR_SET_TSC).
 */
u32 pmuvirt_lx_x86_uread_tsc(void)
{
	return test_thread_flag(TIF_NOTSC) ? 0 : PMUVIRT_UREAD_TSC;
}

/* The TSC, and the PMCs when the kernel lets user mode rdpmc. */
static u32 native_uread_caps(const u8 *slots, unsigned int nr)
{
	u32 caps = pmuvirt_lx_x86_uread_tsc();
	unsigned int i;
	bool pmcs = false;

	for (i = 0; i < nr; i++)
		if (pmuvirt_lx_pmu.slot[slots[i]].cls != PMUVIRT_CLASS_TSC)
			pmcs = true;
	/* the module does not own CR4.PCE: only when perf leaves it set */
	if (pmcs && rdpmc_ok && (cr4_read_shadow() & X86_CR4_PCE))
		caps |= PMUVIRT_UREAD_PMC;
	return caps;
}

/* Probe the PMU and take what may be taken; an error when not even the TSC can be used. */
static int native_init(void)
{
	int ret;

	ret = pmuvirt_x86_probe(&pmuvirt_lx_pmu, &lx_native_ops, NULL);
	if (ret) {
		pr_err("probe failed: %s\n", pmuvirt_strerror(ret));
		return ret;
	}
	/* The module runs no guests: PMUVIRT_CTR_GUEST would count nothing. */
	pmuvirt_lx_pmu.caps &= ~PMUVIRT_CAP_GUEST_ONLY;
	pr_info("backend: x86 hardware (MSRs)\n");
	pr_info("PMU: %s, %u general and %u fixed counters\n", pmuvirt_lx_pmu.name,
		pmuvirt_lx_pmu.nr_gp, pmuvirt_lx_pmu.nr_fixed);
	if (!pmuvirt_lx_pmu.nr_gp && !pmuvirt_lx_pmu.nr_fixed) {
		pr_info("no usable PMU counters on this CPU: only the TSC can be counted\n");
		return 0;
	}
	if (!pmc) {
		pr_info("pmc=0: only the TSC can be counted\n");
		return 0;
	}
	if (!reserve_gp()) {
		pr_warn("PMU counters are in use by perf or the NMI watchdog (nmi_watchdog=0 frees them): only the TSC can be counted\n");
		return 0;
	}
	if (!pmu_responds()) {
		release_gp();
		pr_info("the %s described by CPUID does not respond (emulated CPU?): only the TSC can be counted\n",
			pmuvirt_lx_pmu.name);
		return pmuvirt_x86_probe(&pmuvirt_lx_pmu, &lx_nopmu_ops, NULL);
	}
	rdpmc_ok = true;
	ret = register_nmi_handler(NMI_LOCAL, pmuvirt_nmi, 0, "pmuvirt");
	if (ret) {
		pr_warn("cannot register the PMI handler (%d): only the TSC can be counted\n", ret);
		release_gp();
		rdpmc_ok = false;
		return 0;
	}
	nmi_registered = true;
	pmuvirt_lx_pmc_ok = true;
	return 0;
}

/* Give back what native_init() took. */
static void native_exit(void)
{
	if (nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "pmuvirt");
	nmi_registered = false;
	release_gp();
	pmuvirt_lx_pmc_ok = false;
	rdpmc_ok = false;
}

const struct pmuvirt_lx_backend pmuvirt_lx_native_backend = {
	.name = "x86 hardware",
	.init = native_init,
	.exit = native_exit,
	.hw = &lx_native_ops,
	.uread_caps = native_uread_caps,
	.pmi_unmask = native_pmi_unmask,
	.pmi_stale = pmuvirt_lx_x86_pmi_stale,
	.cpu_up = native_pmi_unmask,
};
