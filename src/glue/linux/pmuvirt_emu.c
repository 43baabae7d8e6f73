// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * An emulated Intel PMU for testing pmuvirt.ko where the CPU has none
 * (QEMU's TCG models have no x86 PMU).  Load with emulate_pmu=1.
 *
 * It describes Intel architectural perfmon v2 with two 48-bit general
 * counters, one fixed counter (instructions) and full-width writes, and
 * implements those registers per CPU in memory, strictly: any other
 * register, a reserved bit or a write to a read-only register fails as a
 * #GP would.  Every enabled counter counts TSC ticks whatever its event
 * and privilege filter (under QEMU's -icount shift=0 one tick is one
 * executed instruction).  An overflow of a counter with its interrupt bit
 * sets GLOBAL_STATUS and raises an emulated PMI from a per-CPU hrtimer
 * (hard interrupt context, not NMI), which runs the module's PMI path.
 *
 * Only the module's hardware accessors change; the core, the x86 backend
 * and the rest of the module run exactly as on a real PMU.  This is a
 * test instrument: nothing here touches the real PMU.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/hrtimer.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/tsc.h>

bool pmuvirt_lx_emulate;
module_param_named(emulate_pmu, pmuvirt_lx_emulate, bool, 0444);
MODULE_PARM_DESC(emulate_pmu, "test instrument: emulate an Intel PMU whose counters count TSC ticks (default 0)");

#define EMU_GP		2
#define EMU_WIDTH	48
#define EMU_MASK	((1ull << EMU_WIDTH) - 1)
#define EMU_NR		(EMU_GP + 1)	/* counter EMU_GP is fixed counter 0 */

#define EVSEL_INT	(1ull << 20)
#define EVSEL_EN	(1ull << 22)
#define FIXED0_EN	0x3ull		/* OS | USR */
#define FIXED0_PMI	0x8ull
#define GLOBAL_BITS	(0x3ull | (1ull << 32))

static unsigned long long nr_emu_pmis;
module_param_named(emulated_pmis, nr_emu_pmis, ullong, 0444);
MODULE_PARM_DESC(emulated_pmis, "PMIs the emulated PMU raised (read-only)");

/**
 * struct emu_cpu - one CPU's emulated PMU
 * @evtsel:	IA32_PERFEVTSEL0/1.
 * @fixed_ctrl:	IA32_FIXED_CTR_CTRL.
 * @global_ctrl: IA32_PERF_GLOBAL_CTRL.
 * @status:	IA32_PERF_GLOBAL_STATUS.
 * @ctr:	counter values at TSC @since (general 0, 1, fixed 0).
 * @since:	when @ctr was brought up to date.
 * @pmi_pending: an overflow with its interrupt bit waits for the timer.
 * @timer:	fires at the next overflow that interrupts.
 */
struct emu_cpu {
	u64 evtsel[EMU_GP];
	u64 fixed_ctrl;
	u64 global_ctrl;
	u64 status;
	u64 ctr[EMU_NR];
	u64 since;
	bool pmi_pending;
	struct hrtimer timer;
};

static DEFINE_PER_CPU(struct emu_cpu, emu_cpu);

static u64 global_bit(unsigned int i)
{
	return i < EMU_GP ? 1ull << i : 1ull << 32;
}

static bool counting(const struct emu_cpu *e, unsigned int i)
{
	if (!(e->global_ctrl & global_bit(i)))
		return false;
	return i < EMU_GP ? !!(e->evtsel[i] & EVSEL_EN) : !!(e->fixed_ctrl & FIXED0_EN);
}

static bool interrupts(const struct emu_cpu *e, unsigned int i)
{
	return i < EMU_GP ? !!(e->evtsel[i] & EVSEL_INT) : !!(e->fixed_ctrl & FIXED0_PMI);
}

/* Bring the counters up to now; an overflow sets its status bit. */
static void emu_sync(struct emu_cpu *e)
{
	u64 now = rdtsc_ordered(), delta = now - e->since;
	unsigned int i;

	e->since = now;
	for (i = 0; i < EMU_NR; i++) {
		if (!counting(e, i))
			continue;
		if (e->ctr[i] + delta > EMU_MASK) {
			e->status |= global_bit(i);
			if (interrupts(e, i))
				e->pmi_pending = true;
		}
		e->ctr[i] = (e->ctr[i] + delta) & EMU_MASK;
	}
}

/* Program the timer for the next PMI: now if one is pending. */
static void emu_rearm(struct emu_cpu *e)
{
	u64 ticks = U64_MAX, ns;
	unsigned int i;

	for (i = 0; i < EMU_NR; i++)
		if (counting(e, i) && interrupts(e, i))
			ticks = min(ticks, EMU_MASK + 1 - e->ctr[i]);
	if (e->pmi_pending)
		ticks = 0;
	if (ticks == U64_MAX) {
		hrtimer_try_to_cancel(&e->timer);
		return;
	}
	ns = tsc_khz ? div_u64(ticks * 1000000ull, tsc_khz) : ticks;
	if (ticks > (1ull << 40))
		ns = 1ull << 40;	/* far away: look again then */
	hrtimer_start(&e->timer, ns_to_ktime(ns), HRTIMER_MODE_REL_PINNED_HARD);
}

static enum hrtimer_restart emu_timer_fn(struct hrtimer *t)
{
	struct emu_cpu *e = container_of(t, struct emu_cpu, timer);
	struct pmuvirt_lx_cpu *lc = this_cpu_ptr(&pmuvirt_lx_cpu);

	emu_sync(e);
	if (e->pmi_pending) {
		e->pmi_pending = false;
		nr_emu_pmis++;
		if (lx_pc_current(&lc->pc)) {
			if (lc->busy)
				lc->pmi_deferred = true;
			else
				pmuvirt_lx_pmi(lc);
		}
	}
	emu_rearm(e);
	return HRTIMER_NORESTART;
}

/* Which counter a counter MSR names, or -1. */
static int ctr_of_msr(u32 reg, bool *full_width)
{
	*full_width = true;
	if (reg >= 0x4c1 && reg < 0x4c1 + EMU_GP)
		return reg - 0x4c1;
	if (reg == 0x309)
		return EMU_GP;
	*full_width = false;
	if (reg >= 0xc1 && reg < 0xc1 + EMU_GP)
		return reg - 0xc1;
	return -1;
}

static int emu_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	struct emu_cpu *e = this_cpu_ptr(&emu_cpu);
	bool full;
	int i;

	emu_sync(e);
	i = ctr_of_msr(reg, &full);
	if (i >= 0) {
		*val = e->ctr[i];
		return 0;
	}
	switch (reg) {
	case 0x186 ... 0x186 + EMU_GP - 1:
		*val = e->evtsel[reg - 0x186];
		return 0;
	case 0x38d:
		*val = e->fixed_ctrl;
		return 0;
	case 0x38e:
		*val = e->status;
		return 0;
	case 0x38f:
		*val = e->global_ctrl;
		return 0;
	case 0x390:
		*val = 0;
		return 0;
	case 0x345:
		*val = 1ull << 13;	/* full-width writes */
		return 0;
	}
	return -EFAULT;
}

static int emu_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	struct emu_cpu *e = this_cpu_ptr(&emu_cpu);
	bool full;
	int i;

	emu_sync(e);
	i = ctr_of_msr(reg, &full);
	if (i >= 0) {
		if (full && (val & ~EMU_MASK))
			return -EFAULT;
		/* a legacy write sign-extends bit 31 */
		if (!full)
			val = (u64)(s64)(s32)val & EMU_MASK;
		e->ctr[i] = val;
		goto done;
	}
	switch (reg) {
	case 0x186 ... 0x186 + EMU_GP - 1:
		if (val >> 32)
			return -EFAULT;
		e->evtsel[reg - 0x186] = val;
		goto done;
	case 0x38d:
		if (val & ~0xfull)
			return -EFAULT;
		e->fixed_ctrl = val;
		goto done;
	case 0x38f:
		if (val & ~GLOBAL_BITS)
			return -EFAULT;
		e->global_ctrl = val;
		goto done;
	case 0x390:
		if (val & ~GLOBAL_BITS)
			return -EFAULT;
		e->status &= ~val;
		goto done;
	}
	return -EFAULT;	/* GLOBAL_STATUS and PERF_CAPABILITIES are read-only */
done:
	emu_rearm(e);
	return 0;
}

static int emu_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	struct emu_cpu *e = this_cpu_ptr(&emu_cpu);
	u32 i = idx & ~(1u << 30);

	if (idx & (1u << 30) ? i != 0 : i >= EMU_GP)
		return -EFAULT;
	emu_sync(e);
	*val = e->ctr[idx & (1u << 30) ? EMU_GP : i];
	return 0;
}

static int emu_read_tsc(void *arg, uint64_t *val)
{
	*val = rdtsc_ordered();
	return 0;
}

static int emu_cpuid(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	memset(out, 0, 4 * sizeof(out[0]));
	switch (leaf) {
	case 0:
		out[0] = 0xa;
		out[1] = 0x756e6547;	/* "GenuineIntel" in EBX, EDX, ECX */
		out[3] = 0x49656e69;
		out[2] = 0x6c65746e;
		break;
	case 1:
		out[2] = 1u << 15;	/* PDCM: IA32_PERF_CAPABILITIES exists */
		break;
	case 0xa:
		/* v2, 2 general counters of 48 bits, 7 architectural events */
		out[0] = 2 | EMU_GP << 8 | EMU_WIDTH << 16 | 7u << 24;
		out[3] = 1 | EMU_WIDTH << 5;	/* one fixed counter of 48 bits */
		break;
	}
	return 0;
}

static const struct pmuvirt_hw_ops emu_ops = {
	.read_reg = emu_read_reg,
	.write_reg = emu_write_reg,
	.read_counter = emu_read_counter,
	.read_tsc = emu_read_tsc,
	.cpuid = emu_cpuid,
};

/**
 * pmuvirt_lx_emu_init() - use the emulated PMU instead of the hardware
 *
 * Return: 0 or a negative errno.
 */
int pmuvirt_lx_emu_init(void)
{
	unsigned int cpu;
	int ret;

	for_each_possible_cpu(cpu) {
		struct emu_cpu *e = per_cpu_ptr(&emu_cpu, cpu);

		memset(e, 0, offsetof(struct emu_cpu, timer));
		hrtimer_init(&e->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		e->timer.function = emu_timer_fn;
	}
	pmuvirt_lx_hw = &emu_ops;
	preempt_disable();
	ret = pmuvirt_x86_probe(&pmuvirt_lx_pmu, pmuvirt_lx_hw, NULL);
	preempt_enable();
	if (ret)
		return ret;
	pr_warn("emulate_pmu=1: an EMULATED %s (%u general, %u fixed counters) whose counters count TSC ticks: for testing only\n",
		pmuvirt_lx_pmu.name, pmuvirt_lx_pmu.nr_gp, pmuvirt_lx_pmu.nr_fixed);
	pmuvirt_lx_pmc_ok = true;
	return 0;
}

/**
 * pmuvirt_lx_emu_exit() - stop the emulated PMU's timers
 */
void pmuvirt_lx_emu_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&emu_cpu, cpu)->timer);
}
