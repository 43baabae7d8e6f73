// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko: the backend in use and its PMU, and what a PMI does, on
 * every backend.  The backend takes the interrupt (the NMI handler of
 * pmuvirt_hw.c, the emulated PMU's timer, the perf_irq hook of
 * pmuvirt_hw_ppc.c) and calls pmuvirt_lx_pmi_irq(); Xen's VIRQ
 * (pmuvirt_xenpv.c) calls pmuvirt_lx_pmi().
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>

const struct pmuvirt_lx_backend *pmuvirt_lx_be;
struct pmuvirt_pmu pmuvirt_lx_pmu;
bool pmuvirt_lx_pmc_ok;

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

	if (pmuvirt_lx_pmi_throttle(lc))
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

static atomic_long_t nr_pmis_deferred = ATOMIC_LONG_INIT(0);
static atomic_long_t nr_pmis_idle = ATOMIC_LONG_INIT(0);

module_param_cb(pmis_deferred, &pmuvirt_lx_atomic_long_ops, &nr_pmis_deferred, 0444);
MODULE_PARM_DESC(pmis_deferred, "PMIs that arrived during a switch, read or RESUME and were handled after it (read-only)");
module_param_cb(pmis_idle, &pmuvirt_lx_atomic_long_ops, &nr_pmis_idle, 0444);
MODULE_PARM_DESC(pmis_idle, "PMIs that found no context on the counters and cleared a stale overflow (read-only)");

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

