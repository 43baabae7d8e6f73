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

/**
 * struct pmuvirt_pv_desc - the PMU below as the level below reports it
 * @arch, @model, @caps: as struct pmuvirt_pmu, of the PMU below.
 * @nr_slots:	valid entries of @slot, 1 to PMUVIRT_MAX_COUNTERS.
 * @name:	model name, NUL-terminated within the array.
 * @slot:	the counters one VCPU has below: a known class (at most one
 *		TSC), a width of 1 to 64, portable events only, @flags and
 *		@reserved zero.  The PMU below counts its general and fixed
 *		counters from the classes.
 *
 * It comes from the level below and is not trusted:
 * pmuvirt_pv_probe_desc() checks all of the above.
 */
struct pmuvirt_pv_desc {
	uint32_t arch;
	uint32_t model;
	uint32_t caps;
	uint32_t nr_slots;
	char name[40];
	struct pmuvirt_slot slot[PMUVIRT_MAX_COUNTERS];
};

/**
 * struct pmuvirt_pv_below - the PMU a struct pmuvirt_pv_desc describes
 * @pmu:	filled by pmuvirt_pv_probe_desc(): the slots only.  It
 *		validates controls (the core's checks on those slots; raw
 *		codes refused, since only the level below could check them)
 *		and runs on no CPU.
 *
 * The caller keeps it as long as the PV PMU probed on it.
 */
struct pmuvirt_pv_below {
	struct pmuvirt_pmu pmu;
};

/**
 * pmuvirt_pv_probe_desc() - describe a PV PMU on a level below that
 *			     reports its slots
 * @pmu:	filled as by pmuvirt_pv_probe(), on @below->pmu.
 * @below:	filled with the PMU @desc describes.
 * @desc:	what the level below reported (untrusted).
 *
 * Return: 0, or -EPROTO (@pmu and @below unchanged) when @desc breaks a
 * rule of struct pmuvirt_pv_desc.
 */
int pmuvirt_pv_probe_desc(struct pmuvirt_pmu *pmu, struct pmuvirt_pv_below *below,
			  const struct pmuvirt_pv_desc *desc);

#endif
