/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The PV backend over a hostile level below: VCPU values that jump by
 * huge amounts or sit next to 2^64.  Every call must return promptly
 * (an alarm turns a hang into a failure) and the replica of the VCPU's
 * arming must stay exact or become unknown, never wrong.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "rig.h"
#include "mock_pmu.h"
#include "pv/pmuvirt_pv.h"

struct below {
	uint64_t val[PMUVIRT_MAX_COUNTERS];	/* what read returns */
	unsigned int set_controls, arms;
};

static int b_set_control(void *arg, const struct pmuvirt_control *ctl)
{
	struct below *b = arg;

	b->set_controls++;
	return 0;
}

static int b_arm(void *arg, uint32_t mask, const uint64_t *remaining, const uint64_t *period)
{
	struct below *b = arg;

	b->arms++;
	return 0;
}

static int b_read(void *arg, uint32_t counter, uint64_t *val)
{
	struct below *b = arg;

	*val = b->val[counter];
	return 0;
}

static const struct pmuvirt_pv_lower_ops below_ops = {
	.set_control = b_set_control,
	.arm = b_arm,
	.read = b_read,
};

struct guest {
	struct pmuvirt_pmu lower, pmu;
	struct below below;
	struct pmuvirt_pv_vcpu pv;
	struct pmuvirt_pcpu pc;
	struct pmuvirt_ctx *t;
};

#define PERIOD	100

/* One thread with an i-mode counter of PERIOD, armed once with the VCPU at 1000. */
static struct guest *guest_new(void)
{
	struct guest *g = calloc(1, sizeof(*g));
	static const unsigned int ev[] = { PMUVIRT_EV_INSTRUCTIONS };
	uint64_t per[1] = { PERIOD };
	struct pmuvirt_control ctl;

	assert_non_null(g);
	mock_pmu_init(&g->lower, 48, 0);
	assert_int_equal(pmuvirt_pv_probe(&g->pmu, &g->lower), 0);
	g->pv.ops = &below_ops;
	g->pv.arg = &g->below;
	assert_int_equal(pmuvirt_pcpu_init(&g->pc, &g->pmu, NULL, &g->pv, 0), 0);
	g->t = rig_ctx_alloc(&g->pmu, 4);
	make_control(&ctl, 1, ev, per);
	assert_int_equal(pmuvirt_set_control(NULL, g->t, &ctl, NULL), 0);
	g->below.val[0] = 1000;
	assert_int_equal(pmuvirt_switch(&g->pc, g->t), 0);
	assert_int_equal(g->below.arms, 1);
	assert_true(g->pv.target[0] == 1000 + PERIOD);
	assert_int_equal(pmuvirt_switch(&g->pc, NULL), 0);
	return g;
}

static void guest_free(struct guest *g)
{
	free(g->t);
	free(g);
}

static sigjmp_buf hang_jmp;

static void on_alarm(int sig)
{
	(void)sig;
	siglongjmp(hang_jmp, 1);
}

/* Switch the thread in, failing instead of hanging when that does not return. */
static int bounded_switch_in(struct guest *g)
{
	volatile int ret = -1;

	signal(SIGALRM, on_alarm);
	if (sigsetjmp(hang_jmp, 1))
		fail_msg("switch-in did not return within 10 s");
	alarm(10);
	ret = pmuvirt_switch(&g->pc, g->t);
	alarm(0);
	return ret;
}

/*
 * The VCPU ran 2^50 periods while the thread was out and now sits exactly
 * one period before a point of its old schedule: the VCPU signals there
 * anyway, so no hypercall (found by a division, not 2^50 steps).
 */
static void test_huge_gap(void **state)
{
	struct guest *g = guest_new();
	uint64_t start = 1000 + PERIOD + ((uint64_t)1 << 50) * PERIOD;

	(void)state;
	g->below.val[0] = start;
	assert_int_equal(bounded_switch_in(g), 0);
	assert_int_equal(g->below.arms, 1);
	assert_true(g->pv.target[0] == start + PERIOD);

	/* one event off the schedule: the hypercall is needed */
	assert_int_equal(pmuvirt_switch(&g->pc, NULL), 0);
	g->below.val[0] = start + ((uint64_t)1 << 40) * PERIOD + 1;
	assert_int_equal(bounded_switch_in(g), 0);
	assert_int_equal(g->below.arms, 2);
	assert_true(g->pv.target[0] == g->below.val[0] + PERIOD);
	guest_free(g);
}

/*
 * A value from below next to 2^64: the schedule cannot be followed past
 * 2^64 - 1, so the hypercall is made and the new target, which would wrap,
 * is unknown rather than a small bogus number the next arming would trust.
 */
static void test_near_wrap(void **state)
{
	static const uint64_t starts[] = {
		~(uint64_t)0, ~(uint64_t)0 - 5, ~(uint64_t)0 - PERIOD, ~(uint64_t)0 - PERIOD - 1,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		struct guest *g = guest_new();

		g->below.val[0] = starts[i];
		assert_int_equal(bounded_switch_in(g), 0);
		assert_int_equal(g->below.arms, 2);
		if (starts[i] + PERIOD > starts[i] && starts[i] + PERIOD != ~(uint64_t)0)
			assert_true(g->pv.target[0] == starts[i] + PERIOD);
		else
			assert_true(g->pv.target[0] == 0);
		/* unknown: the next switch-in asks again instead of trusting it */
		assert_int_equal(pmuvirt_switch(&g->pc, NULL), 0);
		assert_int_equal(bounded_switch_in(g), 0);
		assert_int_equal(g->below.arms, g->pv.target[0] ? 2 : 3);
		guest_free(g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_gap),
		cmocka_unit_test(test_near_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
