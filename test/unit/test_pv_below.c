/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The PV backend over a hostile level below: VCPU values that jump by
 * huge amounts or sit next to 2^64.  Every call must return promptly
 * (an alarm turns a hang into a failure) and the replica of the VCPU's
 * arming must stay exact or become unknown, never wrong.  And the PMU
 * below as the level below describes it (pmuvirt_pv_probe_desc()): a
 * description that breaks a rule is refused and changes nothing.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rig.h"
#include "mock_pmu.h"
#include "pv/pmuvirt_pv.h"

struct below {
	uint64_t val[PMUVIRT_MAX_COUNTERS];	/* what read returns */
	unsigned int set_controls, arms;
	struct pmuvirt_control ctl;		/* the last one set */
};

static int b_set_control(void *arg, const struct pmuvirt_control *ctl)
{
	struct below *b = arg;

	b->set_controls++;
	b->ctl = *ctl;
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
	mock_set_control(g->t, &ctl, 1, ev, per);
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
	/* every call below is counted (the module's xen_hypercalls parameter) */
	assert_int_equal(g->pv.hypercalls, g->below.set_controls + g->below.arms);
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

/* What Xen reports for the emulated Intel PMU: 2 general, 1 fixed, the TSC. */
static void good_desc(struct pmuvirt_pv_desc *d)
{
	uint32_t gp_ev = 1u << PMUVIRT_EV_INSTRUCTIONS | 1u << PMUVIRT_EV_CYCLES |
			 1u << PMUVIRT_EV_BRANCHES;

	memset(d, 0, sizeof(*d));
	d->arch = PMUVIRT_ARCH_X86;
	d->model = 2;
	d->caps = PMUVIRT_CAP_GLOBAL_CTRL | PMUVIRT_CAP_FW_WRITE;
	d->nr_slots = 4;
	strcpy(d->name, "Intel v2");
	d->slot[0] = (struct pmuvirt_slot){ .cls = PMUVIRT_CLASS_GP, .index = 0, .width = 48,
					    .events = gp_ev, .user_index = 1 };
	d->slot[1] = (struct pmuvirt_slot){ .cls = PMUVIRT_CLASS_GP, .index = 1, .width = 48,
					    .events = gp_ev, .user_index = 2 };
	d->slot[2] = (struct pmuvirt_slot){ .cls = PMUVIRT_CLASS_FIXED, .index = 0, .width = 48,
					    .events = 1u << PMUVIRT_EV_INSTRUCTIONS,
					    .user_index = (1u << 30) + 1 };
	d->slot[3] = (struct pmuvirt_slot){ .cls = PMUVIRT_CLASS_TSC, .width = 64,
					    .events = 1u << PMUVIRT_EV_TSC,
					    .user_index = PMUVIRT_SHARED_TSC };
}

/*
 * A description becomes the PMU below: its slots as reported, one 64-bit
 * PV slot per slot, controls checked against it (an event no slot counts,
 * a raw code), and a thread on it programs the VCPU with its control.
 */
static void test_probe_desc(void **state)
{
	struct pmuvirt_pv_desc d;
	struct pmuvirt_pv_below below;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_control ctl;
	struct pmuvirt_error err;
	struct below b;
	struct pmuvirt_pv_vcpu v;
	struct pmuvirt_pcpu pc;
	struct pmuvirt_ctx *t;
	static const unsigned int ev[] = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES,
					   PMUVIRT_EV_TSC };
	unsigned int s;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&v, 0, sizeof(v));
	v.ops = &below_ops;
	v.arg = &b;
	good_desc(&d);
	assert_int_equal(pmuvirt_pv_probe_desc(&pmu, &below, &d), 0);
	assert_int_equal(below.pmu.arch, PMUVIRT_ARCH_X86);
	assert_int_equal(below.pmu.model, 2);
	assert_int_equal(below.pmu.caps, d.caps);
	assert_int_equal(below.pmu.nr_slots, 4);
	assert_int_equal(below.pmu.nr_gp, 2);
	assert_int_equal(below.pmu.nr_fixed, 1);
	assert_string_equal(below.pmu.name, "Intel v2");
	assert_memory_equal(below.pmu.slot, d.slot, 4 * sizeof(d.slot[0]));
	assert_int_equal(pmu.arch, PMUVIRT_ARCH_PV);
	assert_int_equal(pmu.model, PMUVIRT_ARCH_X86);
	assert_string_equal(pmu.name, "pv on Intel v2");
	assert_ptr_equal(pmu.lower, &below.pmu);
	assert_int_equal(pmu.nr_slots, 4);
	for (s = 0; s < pmu.nr_slots; s++) {
		assert_int_equal(pmu.slot[s].width, 64);
		assert_int_equal(pmu.slot[s].cls, PMUVIRT_CLASS_GP);
	}

	/* checked against the slots below: three instruction counters fit, four do not */
	make_control(&ctl, 3, (const unsigned int[]){ 1, 1, 1 }, NULL);
	assert_int_equal(pmuvirt_validate(&pmu, &ctl, 0, NULL, NULL, &err), 0);
	make_control(&ctl, 4, (const unsigned int[]){ 1, 1, 1, 1 }, NULL);
	assert_int_equal(pmuvirt_validate(&pmu, &ctl, 0, NULL, NULL, &err), -ENOSPC);
	make_control(&ctl, 1, (const unsigned int[]){ PMUVIRT_EV_BRANCH_MISSES }, NULL);
	assert_int_equal(pmuvirt_validate(&pmu, &ctl, 0, NULL, NULL, &err), -ENODEV);
	make_control(&ctl, 2, ev, NULL);
	ctl.counter[1].flags |= PMUVIRT_CTR_RAW;
	ctl.counter[1].event = 0x3c;
	assert_int_equal(pmuvirt_validate(&pmu, &ctl, 0, NULL, NULL, &err), -EOPNOTSUPP);
	assert_int_equal(err.counter, 1);

	/* a thread on it: one SET_CONTROL with its counters */
	assert_int_equal(pmuvirt_pcpu_init(&pc, &pmu, NULL, &v, 0), 0);
	make_control(&ctl, 3, ev, NULL);
	t = rig_ctx_new(&pmu, &ctl);
	assert_int_equal(pmuvirt_switch(&pc, t), 0);
	assert_int_equal(b.set_controls, 1);
	assert_int_equal(b.ctl.nr_counters, 3);
	for (s = 0; s < 3; s++)
		assert_int_equal(b.ctl.counter[s].event, ev[s]);
	assert_int_equal(pmuvirt_switch(&pc, NULL), 0);
	pmuvirt_ctx_release(t);
	free(t);
}

/* One way each to break a rule of struct pmuvirt_pv_desc. */
static void break_desc(struct pmuvirt_pv_desc *d, unsigned int how)
{
	switch (how) {
	case 0: d->nr_slots = 0; break;
	case 1: d->nr_slots = PMUVIRT_MAX_COUNTERS + 1; break;
	case 2: d->nr_slots = ~0u; break;
	case 3: d->slot[1].width = 0; break;
	case 4: d->slot[1].width = 65; break;
	case 5: d->slot[2].cls = 3; break;
	case 6: d->slot[0].flags = 1; break;
	case 7: d->slot[0].reserved = 1; break;
	case 8: d->slot[0].events |= 1u << PMUVIRT_EV_NONE; break;
	case 9: d->slot[0].events |= 1u << PMUVIRT_EV_NR; break;
	case 10: d->slot[2].cls = PMUVIRT_CLASS_TSC; break;	/* two TSCs */
	case 11: memset(d->name, 'x', sizeof(d->name)); break;	/* no NUL */
	case 12: d->slot[3].width = 200; break;
	}
}
#define NR_BREAKS 13

/* A broken description is -EPROTO and changes neither PMU. */
static void test_probe_desc_refused(void **state)
{
	struct pmuvirt_pv_desc d;
	struct pmuvirt_pv_below below, below0;
	struct pmuvirt_pmu pmu, pmu0;
	unsigned int how;

	(void)state;
	for (how = 0; how < NR_BREAKS; how++) {
		good_desc(&d);
		break_desc(&d, how);
		memset(&below, 0xa5, sizeof(below));
		memset(&pmu, 0x5a, sizeof(pmu));
		below0 = below;
		pmu0 = pmu;
		print_message("break %u\n", how);
		assert_int_equal(pmuvirt_pv_probe_desc(&pmu, &below, &d), -EPROTO);
		assert_memory_equal(&below, &below0, sizeof(below));
		assert_memory_equal(&pmu, &pmu0, sizeof(pmu));
	}
	/* the largest description there may be is taken */
	good_desc(&d);
	for (how = 4; how < PMUVIRT_MAX_COUNTERS; how++)
		d.slot[how] = d.slot[0];
	d.nr_slots = PMUVIRT_MAX_COUNTERS;
	assert_int_equal(pmuvirt_pv_probe_desc(&pmu, &below, &d), 0);
	assert_int_equal(pmu.nr_slots, PMUVIRT_MAX_COUNTERS);
	assert_int_equal(below.pmu.nr_gp, PMUVIRT_MAX_COUNTERS - 2);
	assert_int_equal(below.pmu.nr_fixed, 1);
	assert_string_not_equal(pmuvirt_strerror(-EPROTO), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_gap),
		cmocka_unit_test(test_near_wrap),
		cmocka_unit_test(test_probe_desc),
		cmocka_unit_test(test_probe_desc_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
