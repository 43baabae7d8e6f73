// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The emulated Intel PMU (module parameter emulate_pmu), a test instrument
 * for CPUs without a PMU (QEMU's TCG models).  The registers are the
 * host-neutral src/arch/x86/emu.c, one bank per CPU, counting TSC ticks at
 * a rate per event, and its register adapter src/arch/x86/emu_hw.c; the
 * CPU's user or kernel mode comes from pmuvirt_main.c's system call
 * tracepoint probes (pmuvirt_lx_emu_set_mode()); here are the host's
 * callbacks and the PMI: a per-CPU hrtimer (hard interrupt context, not
 * NMI) armed for the next wrap of a counter that interrupts, which runs
 * the module's PMI path.  A wrap that a register access finds
 * during a switch or read (interrupts off) is delivered at that access, as
 * an NMI would be.  LVTPC is modelled: a delivered PMI masks it, and PMIs
 * are lost until the module unmasks it.  Only the module's hardware accessors
 * change; the core, the x86 backend and the rest of the module run as on a
 * real PMU.  Nothing here touches the real PMU.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"
#include <x86/pmuvirt_x86_emu.h>

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/hrtimer.h>
#include <asm/irq_regs.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/tsc.h>

bool pmuvirt_lx_emulate;
module_param_named(emulate_pmu, pmuvirt_lx_emulate, bool, 0444);
MODULE_PARM_DESC(emulate_pmu, "test instrument: emulate an Intel PMU whose counters count TSC ticks at a rate per event (default 0)");

static unsigned long long nr_emu_pmis;
module_param_named(emulated_pmis, nr_emu_pmis, ullong, 0444);
MODULE_PARM_DESC(emulated_pmis, "PMIs the emulated PMU raised (read-only)");

static unsigned long long nr_emu_nmis;
module_param_named(emulated_pmis_at_access, nr_emu_nmis, ullong, 0444);
MODULE_PARM_DESC(emulated_pmis_at_access, "of those, PMIs raised at a register access inside a switch or read (read-only)");


struct emu_cpu {
	struct pmuvirt_x86_emu_cpu emu;
	struct hrtimer timer;
};

static DEFINE_PER_CPU(struct emu_cpu, emu_cpu);

static unsigned long long emu_lost(void)
{
	unsigned long long n = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(&emu_cpu, cpu)->emu.regs.lost);
	return n;
}

static int emu_lost_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", emu_lost());
}

static const struct kernel_param_ops emu_lost_ops = {
	.get = emu_lost_get,
};
module_param_cb(emulated_pmis_lost, &emu_lost_ops, NULL, 0444);
MODULE_PARM_DESC(emulated_pmis_lost, "PMIs the emulated PMU lost because LVTPC was masked (read-only)");

static u64 emu_now(struct pmuvirt_x86_emu_cpu *c)
{
	return rdtsc_ordered();
}

static void emu_arm(struct pmuvirt_x86_emu_cpu *c, u64 ticks)
{
	struct emu_cpu *e = container_of(c, struct emu_cpu, emu);
	u64 ns;

	if (ticks == PMUVIRT_X86_EMU_NEVER) {
		hrtimer_try_to_cancel(&e->timer);
		return;
	}
	ns = tsc_khz ? div_u64(ticks * 1000000ull, tsc_khz) : ticks;
	hrtimer_start(&e->timer, ns_to_ktime(ns), HRTIMER_MODE_REL_PINNED_HARD);
}

/* Inside a core call (the CPU's busy flag set, interrupts off) a wrap raises its PMI at once. */
static bool emu_pmi_at_access(struct pmuvirt_x86_emu_cpu *c)
{
	return this_cpu_ptr(&pmuvirt_lx_cpu)->busy;
}

static void emu_pmi(struct pmuvirt_x86_emu_cpu *c, bool at_access)
{
	struct pmuvirt_lx_cpu *lc = this_cpu_ptr(&pmuvirt_lx_cpu);

	nr_emu_pmis++;
	if (at_access)
		nr_emu_nmis++;
	/* from the timer interrupt: the context it interrupted */
	lc->pmi_regs = at_access ? NULL : get_irq_regs();
	pmuvirt_lx_pmi_irq(lc);
	lc->pmi_regs = NULL;
}

static const struct pmuvirt_x86_emu_host emu_host = {
	.now = emu_now,
	.arm = emu_arm,
	.pmi_at_access = emu_pmi_at_access,
	.pmi = emu_pmi,
};

static enum hrtimer_restart emu_timer_fn(struct hrtimer *t)
{
	struct emu_cpu *e = container_of(t, struct emu_cpu, timer);

	if (e != this_cpu_ptr(&emu_cpu))
		return HRTIMER_NORESTART;	/* moved off a CPU that went offline */
	pmuvirt_x86_emu_timer(&e->emu);
	return HRTIMER_NORESTART;
}

/**
 * pmuvirt_lx_emu_hw_arg() - the hw_arg of a CPU's emulated PMU accessors
 * @cpu:	the CPU.
 *
 * Return: its struct pmuvirt_x86_emu_cpu, which pmuvirt_x86_emu_hw takes.
 */
void *pmuvirt_lx_emu_hw_arg(unsigned int cpu)
{
	return &per_cpu_ptr(&emu_cpu, cpu)->emu;
}

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

		e->emu.host = &emu_host;
		pmuvirt_x86_emu_reset(&e->emu.regs, rdtsc_ordered());
		pmuvirt_x86_emu_write_lvtpc(&e->emu.regs, 0);	/* as the kernel's APIC setup leaves it */
		hrtimer_init(&e->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		e->timer.function = emu_timer_fn;
	}
	pmuvirt_lx_hw = &pmuvirt_x86_emu_hw;
	preempt_disable();
	ret = pmuvirt_x86_probe(&pmuvirt_lx_pmu, pmuvirt_lx_hw,
				pmuvirt_lx_emu_hw_arg(smp_processor_id()));
	preempt_enable();
	if (ret)
		return ret;
	pmuvirt_lx_pmu.caps &= ~PMUVIRT_CAP_GUEST_ONLY;	/* no guests here */
	pr_warn("emulate_pmu=1: an EMULATED %s (%u general, %u fixed counters) whose counters count TSC ticks at a rate per event: for testing only\n",
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

/**
 * pmuvirt_lx_emu_unmask() - unmask this CPU's emulated LVTPC
 */
void pmuvirt_lx_emu_unmask(void)
{
	pmuvirt_x86_emu_write_lvtpc(&this_cpu_ptr(&emu_cpu)->emu.regs, 0);
}

/**
 * pmuvirt_lx_emu_set_mode() - this CPU's emulated PMU enters user or kernel mode
 * @user:	true for user mode.
 *
 * Counters whose filter excludes the mode stop until the next change.
 * Preemption off.
 */
void pmuvirt_lx_emu_set_mode(bool user)
{
	unsigned long flags;

	local_irq_save(flags);
	pmuvirt_x86_emu_cpu_set_mode(&this_cpu_ptr(&emu_cpu)->emu,
				     user ? PMUVIRT_X86_EMU_MODE_USER : PMUVIRT_X86_EMU_MODE_KERNEL);
	local_irq_restore(flags);
}

/**
 * pmuvirt_lx_emu_cpu_offline() - this CPU goes offline: its PMU stops
 *
 * Interrupts off.  The timer goes with the PMU.
 */
void pmuvirt_lx_emu_cpu_offline(void)
{
	hrtimer_try_to_cancel(&this_cpu_ptr(&emu_cpu)->timer);
}

/**
 * pmuvirt_lx_emu_cpu_online() - this CPU comes (back) online: power-on state
 *
 * Interrupts off.  Registers zero and stopped, LVTPC masked, as a CPU whose
 * PMU lost its state comes up; the module must rewrite both.
 */
void pmuvirt_lx_emu_cpu_online(void)
{
	struct emu_cpu *e = this_cpu_ptr(&emu_cpu);
	u64 lost = e->emu.regs.lost;
	u32 mode = e->emu.regs.mode;	/* the CPU's mode outlives its PMU's state */

	hrtimer_try_to_cancel(&e->timer);
	pmuvirt_x86_emu_reset(&e->emu.regs, rdtsc_ordered());
	e->emu.regs.lost = lost;
	e->emu.regs.mode = mode;
	pmuvirt_x86_emu_write_lvtpc(&e->emu.regs, PMUVIRT_X86_EMU_LVTPC_MASKED);
}
