// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The emulated Intel PMU (module parameter emulate_pmu), a test instrument
 * for CPUs without a PMU (QEMU's TCG models).  The registers are the
 * host-neutral src/arch/x86/emu.c, one bank per CPU, counting TSC ticks at
 * a rate per event, and its register adapter src/arch/x86/emu_hw.c; the
 * CPU's user or kernel mode follows the attached threads' system calls
 * (probes on the sys_enter and sys_exit tracepoints); here are the host's
 * callbacks and the PMI: a per-CPU hrtimer (hard interrupt context, not
 * NMI) armed for the next wrap of a counter that interrupts, which runs
 * the module's PMI path.  A wrap that a register access finds
 * during a switch or read (interrupts off) is delivered at that access, as
 * an NMI would be.  LVTPC is modelled: a delivered PMI masks it, and PMIs
 * are lost until the module unmasks it.  Only the module's hardware accessors
 * change; the core, the x86 backend and the rest of the module run as on a
 * real PMU.  Nothing here touches the real PMU.  The module uses this
 * backend only when loaded with emulate_pmu=1.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"
#include <x86/pmuvirt_x86_emu.h>

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/hrtimer.h>
#include <linux/tracepoint.h>
#include <asm/irq_regs.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/tsc.h>

static bool emulate_pmu;
module_param(emulate_pmu, bool, 0444);
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
	u64 ticks;	/* TSC ticks spent emulating on this CPU */
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

/*
 * What the emulation costs, which a hardware PMU does not: TSC ticks spent
 * in the register accesses (the register bank and its timer) and in the
 * mode tracking.  bench/vm-compare.c takes it out of pmuvirt's figures.
 */
static int emu_ticks_get(char *buf, const struct kernel_param *kp)
{
	unsigned long long n = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(&emu_cpu, cpu)->ticks);
	return sysfs_emit(buf, "%llu\n", n);
}

static const struct kernel_param_ops emu_ticks_ops = {
	.get = emu_ticks_get,
};
module_param_cb(emulated_ticks, &emu_ticks_ops, NULL, 0444);
MODULE_PARM_DESC(emulated_ticks, "TSC ticks spent emulating register accesses and tracking the mode (read-only; a benchmark's instrument)");

/* Callers run with interrupts off (core calls) or disable them (emu_set_mode()). */
static inline void emu_account(u64 t0)
{
	this_cpu_add(emu_cpu.ticks, rdtsc_ordered() - t0);
}

#define EMU_TIMED(call)					\
	({						\
		u64 t0_ = rdtsc_ordered();		\
		int ret_ = (call);			\
							\
		emu_account(t0_);			\
		ret_;					\
	})

static int emu_timed_read_reg(void *arg, u32 reg, u64 *val)
{
	return EMU_TIMED(pmuvirt_x86_emu_hw.read_reg(arg, reg, val));
}

static int emu_timed_write_reg(void *arg, u32 reg, u64 val)
{
	return EMU_TIMED(pmuvirt_x86_emu_hw.write_reg(arg, reg, val));
}

static int emu_timed_read_counter(void *arg, u32 idx, u64 *val)
{
	return EMU_TIMED(pmuvirt_x86_emu_hw.read_counter(arg, idx, val));
}

static int emu_timed_read_counters(void *arg, const u32 *idx, unsigned int n, u64 *vals)
{
	return EMU_TIMED(pmuvirt_x86_emu_hw.read_counters(arg, idx, n, vals));
}

static int emu_read_tsc(void *arg, u64 *val)
{
	return pmuvirt_x86_emu_hw.read_tsc(arg, val);
}

static int emu_read_cpuid(void *arg, u32 leaf, u32 sub, u32 out[4])
{
	return pmuvirt_x86_emu_hw.read_cpuid(arg, leaf, sub, out);
}

/* The emulated PMU's accessors, timed; the TSC (a hardware read) and CPUID as they are. */
static const struct pmuvirt_hw_ops emu_timed_hw = {
	.read_reg = emu_timed_read_reg,
	.write_reg = emu_timed_write_reg,
	.read_counter = emu_timed_read_counter,
	.read_tsc = emu_read_tsc,
	.read_cpuid = emu_read_cpuid,
	.read_counters = emu_timed_read_counters,
};

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

/* The hw_arg of CPU @cpu: its struct pmuvirt_x86_emu_cpu, which pmuvirt_x86_emu_hw takes. */
static void *emu_hw_arg(unsigned int cpu)
{
	return &per_cpu_ptr(&emu_cpu, cpu)->emu;
}

/*
 * This CPU's emulated PMU enters user or kernel mode: counters whose filter
 * excludes the mode stop until the next change.  Preemption off.
 */
static void emu_set_mode(bool user)
{
	unsigned long flags;

	u64 t0;

	local_irq_save(flags);
	t0 = rdtsc_ordered();
	pmuvirt_x86_emu_cpu_set_mode(&this_cpu_ptr(&emu_cpu)->emu,
				     user ? PMUVIRT_X86_EMU_MODE_USER : PMUVIRT_X86_EMU_MODE_KERNEL);
	emu_account(t0);
	local_irq_restore(flags);
}

/*
 * The privilege mode, at system call granularity: an attached thread is in
 * kernel mode between the sys_enter and sys_exit tracepoints and in user
 * mode otherwise (interrupts and exceptions taken from user mode count as
 * user mode).  Its switch-in sets the CPU's mode from the thread's
 * (emu_sched_in()).
 */
static struct tracepoint *sys_enter_tp, *sys_exit_tp;

static void emu_syscall(bool in)
{
	struct pmuvirt_thread *thr = pmuvirt_lx_current_thread();

	if (!thr)
		return;
	thr->in_syscall = in;
	emu_set_mode(!in);
}

static void emu_sys_enter(void *data, struct pt_regs *regs, long id)
{
	emu_syscall(true);
}

static void emu_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	emu_syscall(false);
}

static void emu_sched_in(struct pmuvirt_thread *thr)
{
	emu_set_mode(!thr->in_syscall);
}

static void emu_mode_init(void)
{
	sys_enter_tp = pmuvirt_lx_tracepoint("sys_enter");
	sys_exit_tp = pmuvirt_lx_tracepoint("sys_exit");
	if (sys_enter_tp && sys_exit_tp &&
	    !tracepoint_probe_register(sys_enter_tp, emu_sys_enter, NULL)) {
		if (!tracepoint_probe_register(sys_exit_tp, emu_sys_exit, NULL))
			return;
		tracepoint_probe_unregister(sys_enter_tp, emu_sys_enter, NULL);
	}
	sys_enter_tp = sys_exit_tp = NULL;
	pr_notice("emulate_pmu=1: no system call tracepoints: the user/kernel filter is not modelled\n");
}

static void emu_mode_exit(void)
{
	if (!sys_enter_tp)
		return;
	tracepoint_probe_unregister(sys_enter_tp, emu_sys_enter, NULL);
	tracepoint_probe_unregister(sys_exit_tp, emu_sys_exit, NULL);
	tracepoint_synchronize_unregister();
	sys_enter_tp = sys_exit_tp = NULL;
}

/* Use the emulated PMU instead of the hardware: only with emulate_pmu=1. */
static int emu_init(void)
{
	unsigned int cpu;
	int ret;

	if (!emulate_pmu)
		return -ENODEV;
	for_each_possible_cpu(cpu) {
		struct emu_cpu *e = per_cpu_ptr(&emu_cpu, cpu);

		e->emu.host = &emu_host;
		pmuvirt_x86_emu_reset(&e->emu.regs, rdtsc_ordered());
		pmuvirt_x86_emu_write_lvtpc(&e->emu.regs, 0);	/* as the kernel's APIC setup leaves it */
		hrtimer_init(&e->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		e->timer.function = emu_timer_fn;
	}
	preempt_disable();
	ret = pmuvirt_x86_probe(&pmuvirt_lx_pmu, &pmuvirt_x86_emu_hw,
				emu_hw_arg(smp_processor_id()));
	preempt_enable();
	if (ret)
		return ret;
	pmuvirt_lx_pmu.caps &= ~PMUVIRT_CAP_GUEST_ONLY;	/* no guests here */
	pr_warn("emulate_pmu=1: an EMULATED %s (%u general, %u fixed counters) whose counters count TSC ticks at a rate per event: for testing only\n",
		pmuvirt_lx_pmu.name, pmuvirt_lx_pmu.nr_gp, pmuvirt_lx_pmu.nr_fixed);
	pmuvirt_lx_pmc_ok = true;
	emu_mode_init();
	return 0;
}

/* Stop following system calls, then the emulated PMU's timers. */
static void emu_exit(void)
{
	unsigned int cpu;

	emu_mode_exit();
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&emu_cpu, cpu)->timer);
}

/* Unmask this CPU's emulated LVTPC. */
static void emu_unmask(void)
{
	pmuvirt_x86_emu_write_lvtpc(&this_cpu_ptr(&emu_cpu)->emu.regs, 0);
}

/* This CPU goes offline: its PMU stops, and the timer with it.  Interrupts off. */
static void emu_cpu_down(void)
{
	hrtimer_try_to_cancel(&this_cpu_ptr(&emu_cpu)->timer);
}

/*
 * This CPU comes (back) online: its PMU in the power-on state, registers
 * zero and stopped, LVTPC masked, as a CPU whose PMU lost its state comes
 * up; then the module's unmask.  Interrupts off.
 */
static void emu_cpu_up(void)
{
	struct emu_cpu *e = this_cpu_ptr(&emu_cpu);
	u64 lost = e->emu.regs.lost;
	u32 mode = e->emu.regs.mode;	/* the CPU's mode outlives its PMU's state */

	hrtimer_try_to_cancel(&e->timer);
	pmuvirt_x86_emu_reset(&e->emu.regs, rdtsc_ordered());
	e->emu.regs.lost = lost;
	e->emu.regs.mode = mode;
	pmuvirt_x86_emu_write_lvtpc(&e->emu.regs, PMUVIRT_X86_EMU_LVTPC_MASKED);
	emu_unmask();
}

/* User mode reads the TSC itself; these counters take the read ioctl. */
static u32 emu_uread_caps(const u8 *slots, unsigned int nr)
{
	return pmuvirt_lx_x86_uread_tsc();
}

const struct pmuvirt_lx_backend pmuvirt_lx_emu_backend = {
	.name = "emulated PMU",
	.init = emu_init,
	.exit = emu_exit,
	.hw = &emu_timed_hw,
	.hw_arg = emu_hw_arg,
	.uread_caps = emu_uread_caps,
	.pmi_unmask = emu_unmask,
	.pmi_stale = pmuvirt_lx_x86_pmi_stale,
	.cpu_up = emu_cpu_up,
	.cpu_down = emu_cpu_down,
	.sched_in = emu_sched_in,
};
