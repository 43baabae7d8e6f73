/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt_collect(): with the PMI held back, as a host's rate limit holds
 * it until its next tick, a take right after collecting returns every
 * period boundary the running count has passed, each once; the late PMI
 * then finds none of them again and re-arms at the next boundary.  On
 * strict fake x86 and POWER PMUs (POWER freezes its counters at the
 * overflow until the PMI: the count stops at the boundary).
 */
#include <stdlib.h>
#include "rig.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U	PMUVIRT_CTR_USER
#define PERIOD	1000

struct cpu {
	struct rig_cpu r;
	bool hold;		/* over the rate limit: PMIs wait */
	unsigned int held;
};

static void on_pmi(void *arg)
{
	struct cpu *c = arg;
	uint32_t mask = 0;
	int ret;

	if (c->hold) {
		c->held++;	/* left as it is: the status stays set */
		return;
	}
	ret = pmuvirt_pmi(&c->r.pc, &mask);
	if (ret)
		c->r.pmi_ret = ret;
	c->r.ovf |= mask;
}

static struct cpu *cpu_new(bool ppc, unsigned int nr)
{
	struct cpu *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->r.hw = ppc ? rig_ppc_new(9, &c->r.pmu) : rig_x86_new(&rig_intel_v4, &c->r.pmu);
	rig_cpu_start(&c->r, nr);
	fakehw_set_pmi(c->r.hw, on_pmi, c);
	return c;
}

static void cpu_free(struct cpu *c)
{
	rig_cpu_finish(&c->r);
	free(c);
}

/* instructions a-mode, branches i-mode every PERIOD */
static const struct pmuvirt_counter_ctl ctrs[] = {
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
	{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = PERIOD },
};

static uint32_t take1(struct pmuvirt_ctx *ctx)
{
	uint32_t counts[PMUVIRT_MAX_COUNTERS];

	pmuvirt_take_overflows(ctx, counts);
	return counts[1];
}

static void run_collect(bool ppc)
{
	struct cpu *c = cpu_new(ppc, 0), *other = cpu_new(ppc, 1);
	struct pmuvirt_ctx *ctx = rig_ctx_new_n(&c->r.pmu, 2, ctrs);
	uint64_t taken = 0, v;

	assert_int_equal(pmuvirt_collect(NULL, ctx), -EINVAL);
	assert_int_equal(pmuvirt_collect(&c->r.pc, NULL), -EINVAL);
	/* suspended: nothing to collect */
	assert_int_equal(pmuvirt_collect(&c->r.pc, ctx), 0);
	assert_int_equal(pmuvirt_switch_in(&c->r.pc, ctx), 0);
	rig_run(c->r.hw, FAKEHW_BRANCHES, 1500, false);
	rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 333, false);
	taken += take1(ctx);
	assert_int_equal(taken, 1);

	/* over the limit: the PMIs wait, the boundaries are not pending */
	c->hold = true;
	rig_run(c->r.hw, FAKEHW_BRANCHES, 2700, false);
	assert_int_equal(c->held, 1);
	assert_int_equal(take1(ctx), 0);
	v = rig_val(ctx, 1);
	/* x86 counts on (4200); POWER froze at the boundary (2000) */
	assert_int_equal(v, ppc ? 2000 : 4200);
	assert_int_equal(pmuvirt_collect(&other->r.pc, ctx), -EBUSY);
	assert_int_equal(pmuvirt_collect(&c->r.pc, ctx), 0);
	taken += take1(ctx);
	assert_int_equal(taken, v / PERIOD);
	/* each once */
	assert_int_equal(pmuvirt_collect(&c->r.pc, ctx), 0);
	assert_int_equal(take1(ctx), 0);
	assert_int_equal(rig_val(ctx, 0), 333);

	/* the next tick: the late PMI finds them taken, and re-arms */
	c->hold = false;
	assert_int_equal(pmuvirt_pmi(&c->r.pc, &c->r.ovf), 0);
	assert_int_equal(c->r.ovf, 0);
	assert_int_equal(take1(ctx), 0);
	v = rig_val(ctx, 1);
	rig_run(c->r.hw, FAKEHW_BRANCHES, PERIOD - v % PERIOD - 1, false);
	assert_int_equal(take1(ctx), 0);
	rig_run(c->r.hw, FAKEHW_BRANCHES, 1, false);
	assert_int_equal(c->r.ovf, 1u << 1);
	taken += take1(ctx);
	assert_int_equal(taken, rig_val(ctx, 1) / PERIOD);

	/* paused: the events since the pause count for no one, nor do their boundaries */
	assert_int_equal(pmuvirt_pause(&c->r.pc), 0);
	c->hold = true;
	rig_run(c->r.hw, FAKEHW_BRANCHES, 1500, false);
	assert_int_equal(pmuvirt_collect(&c->r.pc, ctx), 0);
	assert_int_equal(take1(ctx), 0);
	c->hold = false;
	assert_int_equal(pmuvirt_resample(&c->r.pc), 0);
	assert_int_equal(pmuvirt_pmi(&c->r.pc, &c->r.ovf), 0);	/* the late one */
	assert_int_equal(c->r.ovf, 0);
	v = rig_val(ctx, 1);
	assert_int_equal(v % PERIOD, 0);
	assert_int_equal(taken, v / PERIOD);

	/* switched out, it was collected there: nothing more */
	c->hold = true;
	rig_run(c->r.hw, FAKEHW_BRANCHES, 1200, false);
	assert_int_equal(pmuvirt_switch_out(&c->r.pc), 0);
	assert_int_equal(pmuvirt_collect(&c->r.pc, ctx), 0);
	taken += take1(ctx);
	assert_int_equal(taken, rig_val(ctx, 1) / PERIOD);
	assert_int_equal(rig_val(ctx, 0), 333);
	rig_ctx_free(ctx);
	cpu_free(other);
	cpu_free(c);
}

static void test_collect_x86(void **state)
{
	run_collect(false);
}

static void test_collect_ppc(void **state)
{
	run_collect(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect_x86),
		cmocka_unit_test(test_collect_ppc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
