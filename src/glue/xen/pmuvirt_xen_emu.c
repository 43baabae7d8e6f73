/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The emulated Intel PMU inside Xen (boot option pmuvirt-emulate), a test
 * instrument for CPUs without a PMU (QEMU's TCG models).  The registers
 * are the host-neutral src/arch/x86/emu.c, one bank per PCPU, counting TSC
 * ticks; here are the accessors and the PMI: a per-PCPU Xen timer armed
 * for the next wrap of a counter that interrupts, whose handler runs the
 * same PMI path as the counter interrupt (and so sends the VIRQ).  Only
 * the register accessors differ from a real PMU; nothing here touches it.
 */
#include <xen/init.h>
#include <xen/lib.h>
#include <xen/param.h>
#include <xen/percpu.h>
#include <xen/sched.h>
#include <xen/time.h>
#include <xen/timer.h>
#include <asm/msr.h>

#include "pmuvirt_xen.h"
#include "pmuvirt_x86_emu.h"

bool __read_mostly pmuvirt_xen_emulate;
boolean_param("pmuvirt-emulate", pmuvirt_xen_emulate);

struct pmuvirt_xen_emu_cpu {
	struct pmuvirt_x86_emu regs;
	struct timer timer;
	bool ready;
};

static DEFINE_PER_CPU(struct pmuvirt_xen_emu_cpu, pmuvirt_xen_emu_cpu);

unsigned long pmuvirt_xen_emu_pmis;

/* After every write: the timer fires at the next PMI, or now if one is pending. */
static void emu_rearm(struct pmuvirt_xen_emu_cpu *e)
{
	uint64_t ticks = pmuvirt_x86_emu_next_pmi(&e->regs);

	if (!e->ready)
		return;
	if (ticks == ~(uint64_t)0) {
		stop_timer(&e->timer);
		return;
	}
	if (ticks > (1ULL << 40))
		ticks = 1ULL << 40;	/* far away: look again then */
	set_timer(&e->timer, NOW() + (s_time_t)(cpu_khz ? ticks * 1000000ULL / cpu_khz : ticks));
}

static void cf_check emu_timer_fn(void *data)
{
	struct pmuvirt_xen_emu_cpu *e = data;
	unsigned long flags;

	local_irq_save(flags);
	if (pmuvirt_x86_emu_take_pmi(&e->regs, rdtsc())) {
		pmuvirt_xen_emu_pmis++;
		pmuvirt_xen_deliver_pmi();
	}
	emu_rearm(e);
	local_irq_restore(flags);
}

static int cf_check emu_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	return pmuvirt_x86_emu_read_reg(&this_cpu(pmuvirt_xen_emu_cpu).regs, rdtsc(), reg, val);
}

static int cf_check emu_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	struct pmuvirt_xen_emu_cpu *e = &this_cpu(pmuvirt_xen_emu_cpu);
	int rc = pmuvirt_x86_emu_write_reg(&e->regs, rdtsc(), reg, val);

	if (!rc)
		emu_rearm(e);
	return rc;
}

static int cf_check emu_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	return pmuvirt_x86_emu_read_counter(&this_cpu(pmuvirt_xen_emu_cpu).regs, rdtsc(), idx,
					    val);
}

static int cf_check emu_read_tsc(void *arg, uint64_t *val)
{
	*val = rdtsc();
	return 0;
}

static int cf_check emu_cpuid(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	pmuvirt_x86_emu_cpuid(leaf, sub, out);
	return 0;
}

const struct pmuvirt_hw_ops pmuvirt_xen_emu_hw = {
	.read_reg = emu_read_reg,
	.write_reg = emu_write_reg,
	.read_counter = emu_read_counter,
	.read_tsc = emu_read_tsc,
	.read_cpuid = emu_cpuid,
};

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
	pmuvirt_x86_emu_reset(&e->regs, rdtsc());
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
