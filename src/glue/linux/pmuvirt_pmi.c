// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko: the state every file of the module shares (each CPU's
 * struct pmuvirt_lx_cpu, the backend in use and the PMU it described) and
 * what a PMI does, on every backend: handled at once, deferred while a core
 * call runs on the CPU, or left to the next tick when the CPU is over
 * max_pmi_rate.  The backend takes the interrupt (the NMI handler of
 * pmuvirt_hw.c, the emulated PMU's timer, the perf_irq hook of
 * pmuvirt_hw_ppc.c) and calls pmuvirt_lx_pmi_irq(); Xen's VIRQ
 * (pmuvirt_xenpv.c) calls pmuvirt_lx_pmi().
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/jiffies.h>
#include <linux/irq_work.h>

DEFINE_PER_CPU(struct pmuvirt_lx_cpu, pmuvirt_lx_cpu);
const struct pmuvirt_lx_backend *pmuvirt_lx_be;
struct pmuvirt_pmu pmuvirt_lx_pmu;
bool pmuvirt_lx_pmc_ok;
/* The source of the core's stamps (pmuvirt_stamp_next(), pmuvirt_env.h). */
atomic64_t pmuvirt_linux_stamp = ATOMIC64_INIT(0);

static int atomic_long_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read((atomic_long_t *)kp->arg));
}

const struct kernel_param_ops pmuvirt_lx_atomic_long_ops = {
	.get = atomic_long_param_get,
};

static unsigned int max_pmi_rate = 100000;
module_param(max_pmi_rate, uint, 0644);
MODULE_PARM_DESC(max_pmi_rate, "PMIs per second and CPU handled at once; more wait for the next tick (0: no limit; default 100000)");

PMUVIRT_LX_COUNTER(throttled, "times a CPU went over max_pmi_rate and deferred its PMIs to the next tick");

/**
 * struct lx_throttle - PMI accounting of one CPU
 * @tick:	jiffies of the window @pmis counts.
 * @pmis:	PMIs handled in that tick.
 * @deferred:	PMIs wait for @work (the next tick).
 * @work:	lazy irq_work: runs from the next timer tick.
 */
struct lx_throttle {
	unsigned long tick;
	unsigned int pmis;
	bool deferred;
	struct irq_work work;
};

static DEFINE_PER_CPU(struct lx_throttle, lx_throttle);

/* The next tick on a throttled CPU: do the PMI work that waited. */
static void throttle_work_fn(struct irq_work *iw)
{
	struct lx_throttle *t = container_of(iw, struct lx_throttle, work);
	struct pmuvirt_lx_cpu *lc;
	unsigned long flags;

	local_irq_save(flags);
	lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	t->deferred = false;
	t->tick = jiffies;
	t->pmis = 0;
	if (lc->pc.running) {
		if (lc->busy)
			lc->pmi_deferred = true;
		else
			pmuvirt_lx_pmi(lc);
	}
	local_irq_restore(flags);
	pr_warn_ratelimited("CPU %d: over max_pmi_rate (%u per second): overflow interrupts were handled at the next tick\n",
			    smp_processor_id(), READ_ONCE(max_pmi_rate));
}

/*
 * Should this PMI wait for the next tick?  Any context, NMI included;
 * interrupts off.  Each CPU handles at most DIV_ROUND_UP(max_pmi_rate, HZ) PMIs per tick.
 * Beyond that the PMI is left as it is: the overflowed counters keep
 * counting past their overflow point (a counter interrupts again only
 * after a new arm or a full wrap), and a lazy irq_work on the next tick
 * runs the PMI path, which finds every period boundary crossed meanwhile.
 * Counts are never stopped; notifications come late, none is lost.
 * True when the caller must not handle this PMI now.
 */
static bool pmi_throttle(struct pmuvirt_lx_cpu *lc)
{
	struct lx_throttle *t = this_cpu_ptr(&lx_throttle);
	unsigned int rate = READ_ONCE(max_pmi_rate);
	unsigned long now = jiffies;

	if (!rate)
		return false;
	if (t->deferred)
		return true;
	if (t->tick != now) {
		t->tick = now;
		t->pmis = 0;
	}
	if (++t->pmis <= DIV_ROUND_UP(rate, HZ))
		return false;
	t->deferred = true;
	atomic_long_inc(&nr_throttled);
	irq_work_queue(&t->work);
	return true;
}

/**
 * pmuvirt_lx_pmi() - handle a PMI on this CPU (NMI context or deferred)
 * @lc:		this CPU's state, not busy.
 *
 * New overflow notifications are pending on the current context; the
 * signal goes out from irq_work.  A PMI deferred while this runs is
 * handled before it returns.
 */
void pmuvirt_lx_pmi(struct pmuvirt_lx_cpu *lc)
{
	u32 mask = 0, m;

	if (pmi_throttle(lc))
		return;	/* over max_pmi_rate: the next tick does it */
	do {
		lc->pmi_deferred = false;
		lc->busy = true;
		barrier();
		m = 0;
		pmuvirt_pmi(&lc->pc, &m);
		mask |= m;
		barrier();
		lc->busy = false;
	} while (unlikely(READ_ONCE(lc->pmi_deferred)));
	if (mask && lc->cur)
		irq_work_queue(&lc->sig_work);
}

PMUVIRT_LX_COUNTER(pmis_deferred, "PMIs that arrived during a switch, read or RESUME and were handled after it");
PMUVIRT_LX_COUNTER(pmis_idle, "PMIs that found no context on the counters and cleared a stale overflow");

/**
 * pmuvirt_lx_pmi_irq() - a PMI arrived on this CPU (NMI, or the emulated PMU)
 * @lc:		this CPU's state.
 *
 * Handled now, or right after the core call in progress (@lc->busy); a PMI
 * with no context on the counters clears what crossed (raised before the
 * last switch stopped them).  Every path unmasks the PMI first (x86:
 * LVTPC; nothing to do on POWER): the handler
 * re-enables counters it re-armed, and one re-armed close to its next
 * overflow (a late PMI leaves little of the period) can overflow before
 * the handler returns.  Its PMI must find LVTPC unmasked (it is then
 * deferred, or taken right after this one): a masked LVTPC drops it and
 * leaves the counter wrapped with no further PMI.
 *
 * Return: true when the PMI was the module's.
 */
bool pmuvirt_lx_pmi_irq(struct pmuvirt_lx_cpu *lc)
{
	bool ours = true;

	if (pmuvirt_lx_be->pmi_unmask)
		pmuvirt_lx_be->pmi_unmask();
	if (lc->busy) {
		/* the switch, read or RESUME in progress samples the counters; redo after it */
		lc->pmi_deferred = true;
		atomic_long_inc(&nr_pmis_deferred);
	} else if (lc->pc.running) {
		pmuvirt_lx_pmi(lc);
	} else if (pmuvirt_lx_be->pmi_stale && pmuvirt_lx_be->pmi_stale(lc)) {
		atomic_long_inc(&nr_pmis_idle);
		pmuvirt_lx_pmi(lc);
	} else {
		ours = false;
	}
	return ours;
}

/**
 * pmuvirt_lx_end() - a core call on this CPU is over
 * @lc:		this CPU's state, after pmuvirt_lx_begin().
 *
 * The PMI that arrived meanwhile (deferred by pmuvirt_lx_pmi_irq()) is
 * handled now.  Interrupts off.
 */
void pmuvirt_lx_end(struct pmuvirt_lx_cpu *lc)
{
	barrier();
	lc->busy = false;
	if (unlikely(lc->pmi_deferred)) {
		lc->pmi_deferred = false;
		pmuvirt_lx_pmi(lc);
	}
}

/**
 * pmuvirt_lx_pmi_init() - set up the PMI rate limit
 */
void pmuvirt_lx_pmi_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(&lx_throttle, cpu)->work = IRQ_WORK_INIT_LAZY(throttle_work_fn);
}

/**
 * pmuvirt_lx_pmi_exit() - undo pmuvirt_lx_pmi_init()
 *
 * Call after nothing can raise a PMI any more.
 */
void pmuvirt_lx_pmi_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&lx_throttle, cpu)->work);
}
