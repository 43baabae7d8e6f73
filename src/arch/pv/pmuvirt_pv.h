/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Paravirtual backend: a pmuvirt instance stacked on another one.
 *
 * The guest instance's "physical CPU" is a VCPU and its "hardware counter"
 * i is counter i of that VCPU's context in the instance below, a 64-bit
 * logical value read from the VCPU's shared record plus rdpmc, with no
 * hypercall.  Programming a control is a hypercall, made only when a
 * thread's control differs from what the VCPU has; arming an i-mode counter
 * (restoring a thread's distance to its next overflow) is a hypercall too.
 * The same backend stacks on a guest instance, so nesting needs no new code.
 */
#ifndef PMUVIRT_PV_H
#define PMUVIRT_PV_H

#include <pmuvirt/pmuvirt.h>

/**
 * struct pmuvirt_pv_lower_ops - what the instance below offers one VCPU
 * @set_control: hypercall: program the VCPU's counters (the instance below
 *		validates it again: it does not trust the guest).
 * @arm:	hypercall: each VCPU counter i in @mask signals after
 *		@remaining[i] events, then every @period[i] events; all are
 *		armed from one sample, so the hypercall's own events fall
 *		outside every counter (see pmuvirt_arm_counters()).
 * @read:	VCPU counter @counter's logical value now (no hypercall).
 */
struct pmuvirt_pv_lower_ops {
	int (*set_control)(void *arg, const struct pmuvirt_control *ctl);
	int (*arm)(void *arg, uint32_t mask, const uint64_t *remaining, const uint64_t *period);
	int (*read)(void *arg, uint32_t counter, uint64_t *val);
};

/**
 * struct pmuvirt_pv_vcpu - one VCPU as the guest instance sees it
 * @ops, @arg:	the instance below.
 * @hypercalls:	hypercalls made.
 * @target:	where the VCPU's i-mode counter i signals next (in its logical
 *		value), as the guest last set it; 0 unknown.
 * @period:	its period.
 *
 * Pass it as the hw_arg of the guest's struct pmuvirt_pcpu (hw is unused).
 */
struct pmuvirt_pv_vcpu {
	const struct pmuvirt_pv_lower_ops *ops;
	void *arg;
	uint64_t hypercalls;
	uint64_t target[PMUVIRT_MAX_COUNTERS];
	uint64_t period[PMUVIRT_MAX_COUNTERS];
};

/**
 * pmuvirt_pv_probe() - describe a PV PMU on top of the PMU below
 * @pmu:	filled: one 64-bit slot per counter the PMU below can run at once.
 * @lower:	the PMU of the instance below (its events and limits).
 *
 * Return: 0, or -ENODEV if @lower has no slots.
 */
int pmuvirt_pv_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_pmu *lower);

#endif
