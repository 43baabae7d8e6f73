/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * What the fuzz targets on fake hardware share: one CPU of a strict fake
 * x86 PMU with two contexts, input taking, and the steps (events,
 * switches, cache invalidation) run between two calls.  Any register
 * access the fake refuses aborts the run.
 */
#ifndef PMUVIRT_FUZZ_RIG_H
#define PMUVIRT_FUZZ_RIG_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fakehw_models.h"
#include "x86/pmuvirt_x86.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/*
 * Xen's and the module's targets: Intel v1, v2, v4 (full-width writes), v5,
 * AMD family 10h, 17h (core extension), 19h (PerfMonV2).
 */
static const struct fakehw_x86_config rig_configs[] = {
	FAKEHW_X86_INTEL_V1,
	FAKEHW_X86_INTEL_V2,
	FAKEHW_X86_INTEL_V4,
	FAKEHW_X86_INTEL_V5_LEGACY,
	FAKEHW_X86_AMD_10H,
	FAKEHW_X86_AMD_17H,
	FAKEHW_X86_AMD_19H,
};
#define RIG_NR_CONFIGS	(sizeof(rig_configs) / sizeof(rig_configs[0]))

/* @a is the caller's context (the VCPU or thread), @b another one. */
struct rig {
	struct fakehw *hw;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	struct pmuvirt_ctx *a, *b;
	size_t csize;
};

static inline void rig_on_pmi(void *arg)
{
	struct rig *r = arg;
	uint32_t mask;

	if (pmuvirt_pmi(&r->pc, &mask))
		abort();
}

static inline void rig_check(const struct rig *r)
{
	if (fakehw_stats(r->hw)->errors)
		abort();	/* the hardware saw an invalid access */
}

/* Take @n bytes from the input, zero-filled past its end. */
static inline void take(const uint8_t **d, size_t *len, void *out, size_t n)
{
	size_t k = n < *len ? n : *len;

	memset(out, 0, n);
	memcpy(out, *d, k);
	*d += k;
	*len -= k;
}

/* A fuzzed control that is valid more often than not unless @raw. */
static inline void rig_tame(struct pmuvirt_control *ctl, bool raw)
{
	unsigned int i;

	if (raw)
		return;
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters %= 5;
	ctl->flags = 0;
	ctl->reserved = 0;
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++) {
		ctl->counter[i].reserved = 0;
		ctl->counter[i].flags &= PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
		ctl->counter[i].event %= PMUVIRT_EV_NR;
		ctl->counter[i].period &= 0xffff;
	}
}

static inline void rig_init(struct rig *r, uint8_t sel)
{
	static const struct pmuvirt_control ctl_b = {
		.version = PMUVIRT_ABI_VERSION, .nr_counters = 2,
		.counter = {
			{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = PMUVIRT_CTR_USER },
			{ .event = PMUVIRT_EV_TSC },
		},
	};

	memset(r, 0, sizeof(*r));
	r->hw = fakehw_x86_new(&rig_configs[sel % RIG_NR_CONFIGS]);
	if (!r->hw || pmuvirt_x86_probe(&r->pmu, fakehw_ops(r->hw), r->hw))
		abort();
	if (pmuvirt_pcpu_init(&r->pc, &r->pmu, fakehw_ops(r->hw), r->hw, 0))
		abort();
	fakehw_set_pmi(r->hw, rig_on_pmi, r);
	r->csize = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	r->a = calloc(1, r->csize);
	r->b = calloc(1, r->csize);
	if (!r->a || !r->b || pmuvirt_ctx_init(r->a, r->csize, &r->pmu) ||
	    pmuvirt_ctx_init(r->b, r->csize, &r->pmu))
		abort();
	pmuvirt_set_control(NULL, r->b, &ctl_b, NULL);
	rig_check(r);
}

static inline void rig_free(struct rig *r)
{
	pmuvirt_switch_out(&r->pc);
	rig_check(r);
	pmuvirt_ctx_release(r->a);
	pmuvirt_ctx_release(r->b);
	fakehw_free(r->hw);
	free(r->a);
	free(r->b);
}

/* The smallest i-mode period in play, 0 for none. */
static inline uint64_t rig_min_period(const struct rig *r)
{
	const struct pmuvirt_ctx *cs[2] = { r->a, r->b };
	uint64_t m = 0;
	unsigned int i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < cs[k]->nr_counters; i++) {
			const struct pmuvirt_counter *c = &cs[k]->counter[i];
			uint64_t p = c->period;

			/* an armed first notification may come sooner than a period */
			if (p && c->next_ovf > c->count && c->next_ovf - c->count < p)
				p = c->next_ovf - c->count;
			if (p && (!m || p < m))
				m = p;
		}
	return m;
}

/*
 * One step between calls, chosen by @op (bits 2-7) and @arg: events in user
 * or kernel mode, a switch to a, b or nothing, or a cache invalidation.
 */
static inline void rig_step(struct rig *r, uint8_t op, uint8_t arg)
{
	uint64_t n = (uint64_t)1 << (arg & 31), m = rig_min_period(r);

	switch ((op >> 2) & 7) {
	case 0: pmuvirt_switch(&r->pc, r->a); break;
	case 1: pmuvirt_switch(&r->pc, r->b); break;
	case 2: pmuvirt_switch(&r->pc, NULL); break;
	case 3: pmuvirt_pcpu_invalidate(&r->pc); break;
	default:
		/* every period boundary is an exact PMI: bound their number (m up to 2^62) */
		if (m && m <= n / 4096)
			n = m * 4096;
		if (fakehw_run(r->hw, (enum fakehw_event)((arg >> 5) % FAKEHW_NR_EVENTS), n,
			       op & 0x80))
			abort();
		break;
	}
	rig_check(r);
}

#endif /* PMUVIRT_FUZZ_RIG_H */
