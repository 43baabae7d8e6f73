/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The emulated Intel PMU inside Xen (boot option pmuvirt-emulate), a test
 * instrument for CPUs without a PMU (QEMU's TCG models).  The registers
 * are the host-neutral src/arch/x86/emu.c, one bank per PCPU, counting TSC
 * ticks, and its register adapter src/arch/x86/emu_hw.c; here are the
 * host's callbacks and the PMI: a per-PCPU Xen timer armed for the next
 * wrap of a counter that interrupts.  The local APIC timer interrupt its
 * deadline raises takes the PMI, with the interrupted registers, on the
 * same path as the counter interrupt (and so sends the VIRQ and tells a
 * profiling session where the CPU was); the timer's own handler, a
 * softirq, takes one the interrupt did not see due.  Only the register
 * accessors differ from a real PMU; nothing here touches it.
 */
#include <xen/init.h>
#include <xen/lib.h>
#include <xen/param.h>
#include <xen/percpu.h>
#include <xen/sched.h>
#include <xen/time.h>
#include <xen/timer.h>
#include <asm/msr.h>

#include <asm/pmuvirt.h>

#include "pmuvirt_xen.h"
#include "pmuvirt_x86_emu.h"

bool __read_mostly pmuvirt_xen_emulate;
boolean_param("pmuvirt-emulate", pmuvirt_xen_emulate);

struct pmuvirt_xen_emu_cpu {
	struct pmuvirt_x86_emu_cpu emu;
	struct timer timer;
	bool ready;
};

static DEFINE_PER_CPU(struct pmuvirt_xen_emu_cpu, pmuvirt_xen_emu_cpu);

unsigned long pmuvirt_xen_emu_pmis;

static uint64_t cf_check emu_now(struct pmuvirt_x86_emu_cpu *c)
{
	return rdtsc();
}

static void cf_check emu_arm(struct pmuvirt_x86_emu_cpu *c, uint64_t ticks)
{
	struct pmuvirt_xen_emu_cpu *e = container_of(c, struct pmuvirt_xen_emu_cpu, emu);

	if (!e->ready)
		return;
	if (ticks == PMUVIRT_X86_EMU_NEVER) {
		stop_timer(&e->timer);
		return;
	}
	/*
	 * Rounded up and a microsecond late, so the interrupt finds the wrap
	 * due (the TSC and Xen's clock are scaled apart): a PMI's skid.
	 */
	set_timer(&e->timer, NOW() + 1000 +
		  (s_time_t)(cpu_khz ? (ticks * 1000000ULL + cpu_khz - 1) / cpu_khz : ticks));
}

/**
 * pmuvirt_xen_emu_vm_entry() - the wrap's deadline into the APIC before VMRUN
 *
 * Called with interrupts off after the VM-entry switch of the global
 * control armed the timer.  Xen programs the APIC from its timer softirq,
 * and the entry path has run its softirqs already: without this the
 * deadline would reach the APIC at the guest's next exit.  An early APIC
 * interrupt is harmless: its softirq runs what is due and programs the next.
 */
void pmuvirt_xen_emu_vm_entry(void)
{
	struct pmuvirt_xen_emu_cpu *e = &this_cpu(pmuvirt_xen_emu_cpu);

	/* the timer is this PCPU's and only this PCPU sets it: no lock needed */
	if (!pmuvirt_xen_emulate || !e->ready || !timer_is_active(&e->timer) ||
	    e->timer.expires >= this_cpu(timer_deadline))
		return;
	if (reprogram_timer(e->timer.expires))
		this_cpu(timer_deadline) = e->timer.expires;
}

static void cf_check emu_pmi(struct pmuvirt_x86_emu_cpu *c, bool at_access)
{
	pmuvirt_xen_emu_pmis++;
	pmuvirt_xen_deliver_pmi();
}

/* PMIs come from the timer only. */
static const struct pmuvirt_x86_emu_host emu_host = {
	.now = emu_now,
	.arm = emu_arm,
	.pmi = emu_pmi,
};

static void cf_check emu_timer_fn(void *data)
{
	struct pmuvirt_xen_emu_cpu *e = data;
	unsigned long flags;

	local_irq_save(flags);
	pmuvirt_x86_emu_timer(&e->emu);
	local_irq_restore(flags);
}

/**
 * pmuvirt_xen_timer_interrupt() - the local APIC timer interrupt
 * @regs:	the interrupted state.
 *
 * Called by apic_timer_interrupt() with interrupts off, before the timer
 * softirq runs: a PMI of the emulated PMU that is due is taken here, as
 * the counter interrupt would take it, with @regs.
 */
void pmuvirt_xen_timer_interrupt(const struct cpu_user_regs *regs)
{
	struct pmuvirt_xen_emu_cpu *e;

	if (!pmuvirt_xen_emulate)
		return;
	e = &this_cpu(pmuvirt_xen_emu_cpu);
	if (!e->ready)
		return;
	pmuvirt_xen_prof_set_regs(regs);
	pmuvirt_x86_emu_timer(&e->emu);
	pmuvirt_xen_prof_set_regs(NULL);
}

/**
 * pmuvirt_xen_emu_hw_arg() - the hw_arg of a PCPU's emulated PMU accessors
 * @cpu:	the PCPU.
 *
 * Return: its struct pmuvirt_x86_emu_cpu, which pmuvirt_x86_emu_hw takes.
 */
void *pmuvirt_xen_emu_hw_arg(unsigned int cpu)
{
	struct pmuvirt_xen_emu_cpu *e = &per_cpu(pmuvirt_xen_emu_cpu, cpu);

	e->emu.host = &emu_host;
	return &e->emu;
}

/**
 * pmuvirt_xen_emu_cpu_init() - this PCPU's emulated PMU, before first use
 *
 * Called on the PCPU itself, with interrupts disabled.
 */
void pmuvirt_xen_emu_cpu_init(void)
{
	struct pmuvirt_xen_emu_cpu *e = &this_cpu(pmuvirt_xen_emu_cpu);

	if (e->ready)
		return;
	pmuvirt_x86_emu_reset(&e->emu.regs, rdtsc());
	init_timer(&e->timer, emu_timer_fn, e, smp_processor_id());
	e->ready = true;
}

/**
 * pmuvirt_xen_emu_cpu_dead() - @cpu went offline: its emulated PMU is gone
 * @cpu:	the CPU (not the caller's).
 *
 * As real counters lose their state, the bank is reset when the CPU comes
 * back (pmuvirt_xen_emu_cpu_init()), and its timer is stopped meanwhile.
 */
void pmuvirt_xen_emu_cpu_dead(unsigned int cpu)
{
	struct pmuvirt_xen_emu_cpu *e = &per_cpu(pmuvirt_xen_emu_cpu, cpu);

	if (!e->ready)
		return;
	e->ready = false;
	kill_timer(&e->timer);
}
