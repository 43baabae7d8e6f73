// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko on 64-bit Book3S POWER (POWER8/9/10), the POWER backend: SPR
 * accessors, PMU probe, the PMU taken from the kernel the way perf takes it
 * (reserve_pmc_hardware(), which also installs the perf_irq hook, and the
 * per-CPU "PMU in use" flag the hypervisor reads), and the PMI.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/reg.h>
#include <asm/pmc.h>
#include <asm/cputable.h>

static bool reserved;

static_assert(PMUVIRT_PPC_SPR_PVR == SPRN_PVR);
static_assert(PMUVIRT_PPC_SPR_MMCR0 == SPRN_MMCR0);
static_assert(PMUVIRT_PPC_SPR_MMCR1 == SPRN_MMCR1);
static_assert(PMUVIRT_PPC_SPR_MMCR2 == SPRN_MMCR2);
static_assert(PMUVIRT_PPC_SPR_MMCRA == SPRN_MMCRA);
static_assert(PMUVIRT_PPC_SPR_MMCR3 == SPRN_MMCR3);
static_assert(PMUVIRT_PPC_SPR_PMC(1) == SPRN_PMC1 && PMUVIRT_PPC_SPR_PMC(6) == SPRN_PMC6);
static_assert(PMUVIRT_PPC_MMCR0_PMAO == MMCR0_PMAO && PMUVIRT_PPC_MMCR0_FC == MMCR0_FC);

/* mfspr/mtspr take the SPR number as an immediate: one case per register. */
static int lx_mfspr(u32 spr, u64 *val)
{
	switch (spr) {
	case SPRN_PVR:	 *val = mfspr(SPRN_PVR); break;
	case SPRN_MMCR0: *val = mfspr(SPRN_MMCR0); break;
	case SPRN_MMCR1: *val = mfspr(SPRN_MMCR1); break;
	case SPRN_MMCR2: *val = mfspr(SPRN_MMCR2); break;
	case SPRN_MMCRA: *val = mfspr(SPRN_MMCRA); break;
	case SPRN_MMCR3:
		if (!cpu_has_feature(CPU_FTR_ARCH_31))
			return -EINVAL;
		*val = mfspr(SPRN_MMCR3);
		break;
	case SPRN_PMC1:	 *val = mfspr(SPRN_PMC1); break;
	case SPRN_PMC2:	 *val = mfspr(SPRN_PMC2); break;
	case SPRN_PMC3:	 *val = mfspr(SPRN_PMC3); break;
	case SPRN_PMC4:	 *val = mfspr(SPRN_PMC4); break;
	case SPRN_PMC5:	 *val = mfspr(SPRN_PMC5); break;
	case SPRN_PMC6:	 *val = mfspr(SPRN_PMC6); break;
	case SPRN_SIAR:	 *val = mfspr(SPRN_SIAR); break;
	case SPRN_SDAR:	 *val = mfspr(SPRN_SDAR); break;
	case SPRN_SIER:	 *val = mfspr(SPRN_SIER); break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int lx_mtspr(u32 spr, u64 val)
{
	switch (spr) {
	case SPRN_MMCR0: mtspr(SPRN_MMCR0, val); break;
	case SPRN_MMCR1: mtspr(SPRN_MMCR1, val); break;
	case SPRN_MMCR2: mtspr(SPRN_MMCR2, val); break;
	case SPRN_MMCRA: mtspr(SPRN_MMCRA, val); break;
	case SPRN_MMCR3:
		if (!cpu_has_feature(CPU_FTR_ARCH_31))
			return -EINVAL;
		mtspr(SPRN_MMCR3, val);
		break;
	case SPRN_PMC1:	 mtspr(SPRN_PMC1, val); break;
	case SPRN_PMC2:	 mtspr(SPRN_PMC2, val); break;
	case SPRN_PMC3:	 mtspr(SPRN_PMC3, val); break;
	case SPRN_PMC4:	 mtspr(SPRN_PMC4, val); break;
	case SPRN_PMC5:	 mtspr(SPRN_PMC5, val); break;
	case SPRN_PMC6:	 mtspr(SPRN_PMC6, val); break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int lx_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	return lx_mfspr(reg, val);
}

static int lx_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	/* the PMCs only after the PMU is ours */
	return reserved ? lx_mtspr(reg, val) : -EPERM;
}

/* PMC @idx (1-6). */
static int lx_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	if (idx < 1 || idx > 6)
		return -EINVAL;
	return lx_mfspr(SPRN_PMC1 + idx - 1, val);
}

static int lx_read_tb(void *arg, uint64_t *val)
{
	*val = get_tb();
	return 0;
}

static int lx_read_counters(void *arg, const uint32_t *idx, unsigned int n, uint64_t *vals)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (idx[i] == PMUVIRT_HW_INDEX_TSC) {
			vals[i] = get_tb();
			continue;
		}
		ret = lx_read_counter(arg, idx[i], &vals[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static const struct pmuvirt_hw_ops lx_ppc_ops = {
	.read_reg = lx_read_reg,
	.write_reg = lx_write_reg,
	.read_counter = lx_read_counter,
	.read_tsc = lx_read_tb,
	.read_counters = lx_read_counters,
};

/*
 * The alert exception (0xF00) arrives here through perf_irq while the PMU
 * is reserved.  It may come as a soft NMI, inside a section with
 * interrupts disabled: the busy flag of the CPU defers it then.  The
 * exception stays raised while MMCR0[PMAO] is set, so a deferred one
 * clears PMAO before it returns to the switch or read it interrupted, or
 * it is taken again at once, forever.  The alert itself froze the counters
 * (FCECE) and cleared PMAE, as the core expects of it; the handler run
 * after the core call finds the crossed PMC by its bit 31.
 */
static void pmuvirt_perf_irq(struct pt_regs *regs)
{
	struct pmuvirt_lx_cpu *lc = this_cpu_ptr(&pmuvirt_lx_cpu);

	if (lc->busy)
		mtspr(SPRN_MMCR0, mfspr(SPRN_MMCR0) & ~MMCR0_PMAO);
	lc->pmi_regs = regs;	/* sample records take the IP from here */
	pmuvirt_lx_pmi_irq(lc);
	lc->pmi_regs = NULL;
}

/*
 * Did a PMC alert with no context on the counters?  MMCR0 shows an alert
 * (PMAO); the handler then freezes and clears it through the core.
 * (POWER needs no re-arming of the interrupt itself: no @pmi_unmask.)
 */
static bool power_pmi_stale(struct pmuvirt_lx_cpu *lc)
{
	return (mfspr(SPRN_MMCR0) & MMCR0_PMAO) != 0;
}

/*
 * The counters start frozen and zero, and the module leaves them so on
 * unload.  The core does not depend on it: its first switch-in stops
 * counting and re-bases every counter of an owner it does not know.
 */
static void pmu_reset_cpu(void *unused)
{
	mtspr(SPRN_MMCR0, MMCR0_FC);
	mtspr(SPRN_MMCR1, 0);
	mtspr(SPRN_MMCR2, 0);
	mtspr(SPRN_MMCRA, 0);
	if (cpu_has_feature(CPU_FTR_ARCH_31))
		mtspr(SPRN_MMCR3, 0);
	mtspr(SPRN_PMC1, 0);
	mtspr(SPRN_PMC2, 0);
	mtspr(SPRN_PMC3, 0);
	mtspr(SPRN_PMC4, 0);
	mtspr(SPRN_PMC5, 0);
	mtspr(SPRN_PMC6, 0);
}

/* The hypervisor saves a partition's PMU state only where this is set. */
static void pmu_take_cpu(void *unused)
{
	pmu_reset_cpu(NULL);
	ppc_set_pmu_inuse(1);
}

static void pmu_give_cpu(void *unused)
{
	pmu_reset_cpu(NULL);
	ppc_set_pmu_inuse(0);
}

/* This CPU came (back) online: its PMU may hold anything; the core forgot its cache. */
static void power_cpu_up(void)
{
	if (reserved)
		pmu_take_cpu(NULL);
}

/*
 * What user mode may read itself: mftb works in problem state.  The PMCs
 * (mfspr UPMCn) do while MMCR0[PMCC] is 00 (the value of the module's
 * images) and, on ISA 3.1, MMCR0[PMCCEXT] is clear; POWER10 kernels set
 * PMCCEXT, and the module does not offer PMC reads there.
 */
static u32 power_uread_caps(const u8 *slots, unsigned int nr)
{
	u32 caps = PMUVIRT_UREAD_TSC;
	unsigned int i;

	if (!pmuvirt_lx_pmc_ok || cpu_has_feature(CPU_FTR_ARCH_31))
		return caps;
	for (i = 0; i < nr; i++)
		if (pmuvirt_lx_pmu.slot[slots[i]].cls != PMUVIRT_CLASS_TSC)
			return caps | PMUVIRT_UREAD_PMC;
	return caps;
}

/*
 * Probe the PMU and take it from the kernel: 0; -EBUSY when perf (or
 * another owner) holds the PMU; the probe's error for a processor the
 * backend does not know.
 */
static int power_init(void)
{
	int ret;

	ret = pmuvirt_ppc_probe(&pmuvirt_lx_pmu, &lx_ppc_ops, NULL);
	if (ret) {
		pr_err("probe failed (PVR 0x%08lx): %s\n", mfspr(SPRN_PVR), pmuvirt_strerror(ret));
		return ret;
	}
	pr_info("backend: POWER hardware (SPRs)\n");
	pr_info("PMU: %s (PVR 0x%08llx), %u general and %u fixed counters\n",
		pmuvirt_lx_pmu.name, (unsigned long long)pmuvirt_lx_pmu.arch_data[0],
		pmuvirt_lx_pmu.nr_gp, pmuvirt_lx_pmu.nr_fixed);
	/* fails while perf has events: perf takes the PMU for as long as it has any */
	ret = reserve_pmc_hardware(pmuvirt_perf_irq);
	if (ret) {
		pr_err("the PMU is in use by perf: not loaded\n");
		return -EBUSY;
	}
	reserved = true;
	on_each_cpu(pmu_take_cpu, NULL, 1);
	pmuvirt_lx_pmc_ok = true;
	return 0;
}

/* Give the PMU back, frozen and zero. */
static void power_exit(void)
{
	if (reserved) {
		on_each_cpu(pmu_give_cpu, NULL, 1);
		reserved = false;
		release_pmc_hardware();
	}
	pmuvirt_lx_pmc_ok = false;
}

/* The accessors act on the calling CPU: no @hw_arg. */
const struct pmuvirt_lx_backend pmuvirt_lx_power_backend = {
	.name = "POWER hardware",
	.init = power_init,
	.exit = power_exit,
	.hw = &lx_ppc_ops,
	.uread_caps = power_uread_caps,
	.pmi_stale = power_pmi_stale,
	.cpu_up = power_cpu_up,
};
