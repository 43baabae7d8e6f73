/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Fuzz control validation and programming on the strict fake PMUs: any
 * control pmuvirt_set_control() accepts must reach the hardware without a
 * single refused register access, through switches, events and PMIs.
 */
#include "fuzz_rig.h"
#include "ppc/pmuvirt_ppc.h"

/* The shared rig's x86 models, then three POWER ones. */
#define NR_X86	RIG_NR_CONFIGS

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_error err;
	struct rig r = { 0 };
	struct pmuvirt_ctx *a, *b;
	size_t csize = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	uint8_t sel = 0, mode = 0, steps[8];
	unsigned int i;
	uint64_t minper = 0;
	int ret;

	take(&data, &size, &sel, 1);
	take(&data, &size, &mode, 1);
	take(&data, &size, steps, sizeof(steps));
	take(&data, &size, &ctl, sizeof(ctl));
	/* keep structure likely: valid header fields most of the time */
	if (!(mode & 0x80)) {
		ctl.version = PMUVIRT_ABI_VERSION;
		ctl.nr_counters %= PMUVIRT_MAX_COUNTERS + 1;
		ctl.flags = 0;
		ctl.reserved = 0;
	}
	if (!(mode & 0x40))
		for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++) {
			ctl.counter[i].reserved = 0;
			ctl.counter[i].flags &= PMUVIRT_CTR_FLAGS_ALL;
			if (!(ctl.counter[i].flags & PMUVIRT_CTR_RAW))
				ctl.counter[i].event %= PMUVIRT_EV_NR;
			if (!(mode & 0x20))
				ctl.counter[i].period &= 0xffff;
		}

	sel %= NR_X86 + 3;
	if (sel < NR_X86) {
		r.hw = fakehw_x86_new(&rig_configs[sel]);
		if (!r.hw || pmuvirt_x86_probe(&r.pmu, fakehw_ops(r.hw), r.hw))
			abort();
	} else {
		r.hw = fakehw_ppc_new(8 + sel - NR_X86);
		if (!r.hw || pmuvirt_ppc_probe(&r.pmu, fakehw_ops(r.hw), r.hw))
			abort();
	}
	if (pmuvirt_pcpu_init(&r.pc, &r.pmu, fakehw_ops(r.hw), r.hw, 0))
		abort();
	fakehw_set_pmi(r.hw, rig_on_pmi, &r);
	a = calloc(1, csize);
	b = calloc(1, csize);
	if (!a || !b || pmuvirt_ctx_init(a, csize, &r.pmu) || pmuvirt_ctx_init(b, csize, &r.pmu))
		abort();

	ret = pmuvirt_validate(&r.pmu, &ctl, PMUVIRT_MAX_COUNTERS, NULL, NULL, &err);
	rig_check(&r);
	/* a: the fuzzed control, set while running or while suspended */
	if (mode & 1) {
		pmuvirt_switch_in(&r.pc, a);
		if (pmuvirt_set_control(&r.pc, a, &ctl, &err) != ret)
			abort();
	} else {
		if (pmuvirt_set_control(NULL, a, &ctl, &err) != ret)
			abort();
	}
	rig_check(&r);
	/* b: the same control with every raw event dropped */
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++)
		if (ctl.counter[i].flags & PMUVIRT_CTR_RAW) {
			ctl.counter[i].flags &= ~PMUVIRT_CTR_RAW;
			ctl.counter[i].event = PMUVIRT_EV_INSTRUCTIONS;
		}
	pmuvirt_set_control(NULL, b, &ctl, NULL);
	rig_check(&r);

	/*
	 * Every i-mode period boundary is an exact PMI: keep a run to a few
	 * thousand periods of the smallest period in play, or one input can
	 * ask for 2^31 interrupts.
	 */
	for (i = 0; i < a->nr_counters; i++)
		if (a->counter[i].period && (!minper || a->counter[i].period < minper))
			minper = a->counter[i].period;
	for (i = 0; i < b->nr_counters; i++)
		if (b->counter[i].period && (!minper || b->counter[i].period < minper))
			minper = b->counter[i].period;

	for (i = 0; i < sizeof(steps); i++) {
		uint8_t s = steps[i];
		uint64_t n = (uint64_t)1 << ((s >> 3) & 31);

		/* minper goes up to 2^62: compare without multiplying it */
		if (minper && minper <= n / 4096)
			n = minper * 4096;

		switch (s & 7) {
		case 0: pmuvirt_switch(&r.pc, a); break;
		case 1: pmuvirt_switch(&r.pc, b); break;
		case 2: pmuvirt_switch_out(&r.pc); break;
		case 3: {
			uint64_t v[PMUVIRT_MAX_COUNTERS];

			if (r.pc.running)
				pmuvirt_read(r.pc.running, v);
			break;
		}
		case 4: pmuvirt_pause(&r.pc); pmuvirt_resample(&r.pc); break;
		case 5: pmuvirt_pcpu_invalidate(&r.pc); break;
		default:
			if (fakehw_run(r.hw, (enum fakehw_event)((s >> 3) % FAKEHW_NR_EVENTS), n,
				       s & 0x80))
				abort();
			break;
		}
		rig_check(&r);
	}
	pmuvirt_ctx_release(a);
	pmuvirt_ctx_release(b);
	rig_check(&r);
	fakehw_free(r.hw);
	free(a);
	free(b);
	return 0;
}
