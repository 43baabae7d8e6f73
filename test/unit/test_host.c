/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * What a host's glue relies on, on the strict fake x86 PMU: the switch a
 * context-switch hook makes (pmuvirt_switch_hook()), event policies
 * (pmuvirt_policy_*, pmuvirt_validate_policy()), and a CPU whose PMU was
 * reset under pmuvirt (hotplug, resume).
 */
#include <stdlib.h>
#include <string.h>
#include "rig.h"
#include "x86/pmuvirt_x86.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U	PMUVIRT_CTR_USER
#define R	PMUVIRT_CTR_RAW

/* Two CPUs of one PMU model, two contexts. */
struct rig {
	struct fakehw *hw[2];
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc[2];
	struct pmuvirt_ctx *ctx[2];
};

static const struct pmuvirt_control ctl_ins = {
	.version = PMUVIRT_ABI_VERSION, .nr_counters = 2,
	.counter = {
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
		{ .event = PMUVIRT_EV_CYCLES, .flags = U },
	},
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));
	unsigned int i;

	assert_non_null(r);
	for (i = 0; i < 2; i++)
		r->hw[i] = rig_x86_new(&rig_intel_v4, i ? NULL : &r->pmu);
	for (i = 0; i < 2; i++) {
		rig_pcpu_init(&r->pc[i], &r->pmu, r->hw[i], i);
		r->ctx[i] = rig_ctx_new(&r->pmu, &ctl_ins);
	}
	return r;
}

static void rig_free(struct rig *r)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		assert_int_equal(fakehw_stats(r->hw[i])->errors, 0);
		pmuvirt_switch_out(&r->pc[i]);
	}
	for (i = 0; i < 2; i++) {
		rig_ctx_free(r->ctx[i]);
		rig_hw_free(r->hw[i]);
	}
	free(r);
}

/*
 * A hook asked to switch in a context that still runs on another CPU (the
 * host broke its own ordering): the outgoing context is suspended with its
 * counts, nothing counts on this CPU for anyone, and the other CPU's
 * context is left alone.  pmuvirt_switch() alone would return -EBUSY and
 * leave the outgoing context counting while the host hands the CPU on.
 */
static void test_hook_busy(void **state)
{
	struct rig *r = rig_new();
	struct pmuvirt_ctx *a = r->ctx[0], *b = r->ctx[1];

	assert_int_equal(pmuvirt_switch_hook(&r->pc[0], a), 0);
	assert_int_equal(pmuvirt_switch_hook(&r->pc[1], b), 0);
	assert_int_equal(fakehw_run(r->hw[0], FAKEHW_INSTRUCTIONS, 100, false), 0);
	assert_int_equal(fakehw_run(r->hw[1], FAKEHW_INSTRUCTIONS, 30, false), 0);

	assert_int_equal(pmuvirt_switch_hook(&r->pc[0], b), -EBUSY);
	assert_null(r->pc[0].running);
	assert_null(a->running_on);
	assert_ptr_equal(b->running_on, &r->pc[1]);
	assert_ptr_equal(r->pc[1].running, b);

	/* CPU 0 now runs b's owner: its events count for nobody. */
	assert_int_equal(fakehw_run(r->hw[0], FAKEHW_INSTRUCTIONS, 1000, false), 0);
	assert_int_equal(rig_val(a, 0), 100);
	assert_int_equal(rig_val(b, 0), 30);
	assert_int_equal(fakehw_run(r->hw[1], FAKEHW_INSTRUCTIONS, 5, false), 0);
	assert_int_equal(rig_val(b, 0), 35);

	/* Once b is switched out where it ran, the hook takes it anywhere. */
	assert_int_equal(pmuvirt_switch_hook(&r->pc[1], NULL), 0);
	assert_int_equal(pmuvirt_switch_hook(&r->pc[0], b), 0);
	assert_int_equal(fakehw_run(r->hw[0], FAKEHW_INSTRUCTIONS, 7, false), 0);
	assert_int_equal(rig_val(b, 0), 42);
	assert_int_equal(pmuvirt_switch_hook(&r->pc[1], a), 0);
	assert_int_equal(fakehw_run(r->hw[1], FAKEHW_INSTRUCTIONS, 11, false), 0);
	assert_int_equal(rig_val(a, 0), 111);
	rig_free(r);
}

/* Whatever fails, a hook never leaves the outgoing context on the CPU. */
static void test_hook_fault(void **state)
{
	struct rig *r = rig_new();
	struct pmuvirt_ctx *a = r->ctx[0], *b = r->ctx[1];

	assert_int_equal(pmuvirt_switch_hook(&r->pc[0], a), 0);
	assert_int_equal(fakehw_run(r->hw[0], FAKEHW_INSTRUCTIONS, 9, false), 0);
	fakehw_fail_access(r->hw[0], 1);	/* the outgoing context's first read */
	assert_int_equal(pmuvirt_switch_hook(&r->pc[0], b), -EFAULT);
	assert_true(r->pc[0].running == NULL || r->pc[0].running == b);
	assert_null(a->running_on);
	rig_free(r);
}

static struct pmuvirt_policy policy(uint32_t action, uint32_t events)
{
	struct pmuvirt_policy p;

	memset(&p, 0, sizeof(p));
	p.version = PMUVIRT_ABI_VERSION;
	p.action = action;
	p.events = events;
	return p;
}

static void add_raw(struct pmuvirt_policy *p, uint64_t match, uint64_t mask, uint32_t flags)
{
	p->raw[p->nr_raw].match = match;
	p->raw[p->nr_raw].mask = mask;
	p->raw[p->nr_raw].flags = flags;
	p->nr_raw++;
}

#define EVB(e)	(1u << PMUVIRT_EV_##e)

static void test_policy_validate(void **state)
{
	struct pmuvirt_policy p = policy(PMUVIRT_POLICY_ALLOW, EVB(INSTRUCTIONS) | EVB(TSC));
	struct pmuvirt_policy q;

	assert_int_equal(pmuvirt_policy_validate(&p), 0);
	add_raw(&p, 0xc0, 0xff, 0);
	add_raw(&p, 0x01c0, 0xffff, PMUVIRT_POLICY_EXCLUDE);
	assert_int_equal(pmuvirt_policy_validate(&p), 0);
	p.nr_raw = PMUVIRT_POLICY_MAX_RAW;
	assert_int_equal(pmuvirt_policy_validate(&p), 0);
	assert_int_equal(pmuvirt_policy_validate(NULL), -EINVAL);

#define BAD(mutate) do { q = p; q.nr_raw = 2; mutate; \
		assert_int_equal(pmuvirt_policy_validate(&q), -EINVAL); } while (0)
	BAD(q.version = 2);
	BAD(q.action = 2);
	BAD(q.flags = 2);
	BAD(q.flags = 0x80000000u);
	BAD(q.flags = PMUVIRT_POLICY_NO_VPMU | 2);
	BAD(q.reserved = 1);
	BAD(q.events |= EVB(NONE));
	BAD(q.events |= 1u << PMUVIRT_EV_NR);
	BAD(q.events = 0x80000000u);
	BAD(q.nr_raw = PMUVIRT_POLICY_MAX_RAW + 1);
	BAD(q.nr_raw = 0xffffffffu);
	BAD(q.raw[1].reserved = 1);
	BAD(q.raw[0].flags = 2);
	BAD(q.raw[0].match = 0x1c0);	/* a bit outside the mask 0xff: never matches */
#undef BAD
	/* the one flag, and it does not change what the policy permits */
	q = p;
	q.flags = PMUVIRT_POLICY_NO_VPMU;
	assert_int_equal(pmuvirt_policy_validate(&q), 0);
	{
		struct pmuvirt_counter_ctl in = { .event = PMUVIRT_EV_INSTRUCTIONS,
						  .flags = PMUVIRT_CTR_USER };
		struct pmuvirt_counter_ctl br = { .event = PMUVIRT_EV_BRANCHES,
						  .flags = PMUVIRT_CTR_USER };

		assert_true(pmuvirt_policy_permits(&q, &in));
		assert_false(pmuvirt_policy_permits(&q, &br));
	}
	/* entries past nr_raw are not looked at */
	q = p;
	q.nr_raw = 1;
	q.raw[5].reserved = 7;
	assert_int_equal(pmuvirt_policy_validate(&q), 0);
}

static struct pmuvirt_counter_ctl portable(unsigned int ev)
{
	struct pmuvirt_counter_ctl c = { .event = ev, .flags = ev == PMUVIRT_EV_TSC ? 0 : U };

	return c;
}

static struct pmuvirt_counter_ctl raw(uint64_t code)
{
	struct pmuvirt_counter_ctl c = { .event = code, .flags = U | R };

	return c;
}

static void test_policy_permits(void **state)
{
	struct pmuvirt_policy allow = policy(PMUVIRT_POLICY_ALLOW, EVB(INSTRUCTIONS) | EVB(TSC));
	struct pmuvirt_policy deny = policy(PMUVIRT_POLICY_DENY, EVB(CYCLES));
	struct pmuvirt_policy none = policy(PMUVIRT_POLICY_DENY, 0);
	struct pmuvirt_policy nothing = policy(PMUVIRT_POLICY_ALLOW, 0);
	struct pmuvirt_counter_ctl c;
	unsigned int ev;

	/* portable events by bit */
	for (ev = PMUVIRT_EV_INSTRUCTIONS; ev < PMUVIRT_EV_NR; ev++) {
		c = portable(ev);
		assert_int_equal(pmuvirt_policy_permits(&allow, &c),
				 ev == PMUVIRT_EV_INSTRUCTIONS || ev == PMUVIRT_EV_TSC);
		assert_int_equal(pmuvirt_policy_permits(&deny, &c), ev != PMUVIRT_EV_CYCLES);
		assert_true(pmuvirt_policy_permits(&none, &c));
		assert_true(pmuvirt_policy_permits(NULL, &c));
		assert_false(pmuvirt_policy_permits(&nothing, &c));
	}
	/* a portable event bit never lets a raw code through, nor the reverse */
	c = raw(PMUVIRT_EV_INSTRUCTIONS);
	assert_false(pmuvirt_policy_permits(&allow, &c));
	assert_true(pmuvirt_policy_permits(&deny, &c));
	c = raw(0xc0);
	assert_false(pmuvirt_policy_permits(&nothing, &c));
	assert_true(pmuvirt_policy_permits(&none, &c));

	/* raw codes by mask: event select 0xc0 with any unit mask, except 0x01 */
	add_raw(&allow, 0xc0, 0xff, 0);
	add_raw(&allow, 0x01c0, 0xffff, PMUVIRT_POLICY_EXCLUDE);
	c = raw(0xc0);
	assert_true(pmuvirt_policy_permits(&allow, &c));
	c = raw(0x02c0);
	assert_true(pmuvirt_policy_permits(&allow, &c));
	c = raw(0x1802c0);	/* edge and more: bits outside the mask are free */
	assert_true(pmuvirt_policy_permits(&allow, &c));
	c = raw(0x01c0);
	assert_false(pmuvirt_policy_permits(&allow, &c));
	c = raw(0xc4);
	assert_false(pmuvirt_policy_permits(&allow, &c));
	c = portable(PMUVIRT_EV_CYCLES);
	assert_false(pmuvirt_policy_permits(&allow, &c));
	/* the same list as a deny list */
	allow.action = PMUVIRT_POLICY_DENY;
	c = raw(0x02c0);
	assert_false(pmuvirt_policy_permits(&allow, &c));
	c = raw(0x01c0);
	assert_true(pmuvirt_policy_permits(&allow, &c));
	c = raw(0xc4);
	assert_true(pmuvirt_policy_permits(&allow, &c));
	/* an exclude entry alone lists nothing */
	deny = policy(PMUVIRT_POLICY_ALLOW, 0);
	add_raw(&deny, 0, 0, PMUVIRT_POLICY_EXCLUDE);
	c = raw(0xc0);
	assert_false(pmuvirt_policy_permits(&deny, &c));
	/* mask 0 matches every code */
	deny = policy(PMUVIRT_POLICY_ALLOW, 0);
	add_raw(&deny, 0, 0, 0);
	c = raw(0xffffffffull);
	assert_true(pmuvirt_policy_permits(&deny, &c));
}

/* Validation under a policy: malformed first, then the policy, then the PMU. */
static void test_validate_policy(void **state)
{
	struct rig *r = rig_new();
	struct pmuvirt_policy ipc = policy(PMUVIRT_POLICY_ALLOW, EVB(INSTRUCTIONS) | EVB(CYCLES) |
					   EVB(TSC));
	struct pmuvirt_control ctl = ctl_ins;
	struct pmuvirt_hwctl img1, img2;
	uint8_t s1[PMUVIRT_MAX_COUNTERS], s2[PMUVIRT_MAX_COUNTERS];
	struct pmuvirt_error err;

	/* permitted: the same image and slots as without a policy */
	assert_int_equal(pmuvirt_validate_policy(&r->pmu, &ctl, 0, &img1, s1, &ipc, &err), 0);
	assert_int_equal(pmuvirt_validate(&r->pmu, &ctl, 0, &img2, s2, &err), 0);
	assert_memory_equal(&img1, &img2, sizeof(img1));
	assert_memory_equal(s1, s2, ctl.nr_counters);

	ctl.nr_counters = 3;
	ctl.counter[2] = portable(PMUVIRT_EV_BRANCHES);
	err.counter = -5;
	assert_int_equal(pmuvirt_validate_policy(&r->pmu, &ctl, 0, NULL, NULL, &ipc, &err), -EPERM);
	assert_int_equal(err.counter, 2);
	assert_non_null(err.reason);
	assert_int_equal(pmuvirt_validate(&r->pmu, &ctl, 0, NULL, NULL, NULL), 0);

	/* a malformed control is -EINVAL whatever the policy */
	ctl.counter[2].reserved = 1;
	assert_int_equal(pmuvirt_validate_policy(&r->pmu, &ctl, 0, NULL, NULL, &ipc, &err), -EINVAL);
	ctl.counter[2].reserved = 0;
	ctl.counter[2].flags = 0;
	assert_int_equal(pmuvirt_validate_policy(&r->pmu, &ctl, 0, NULL, NULL, &ipc, &err), -EINVAL);

	/* permitted raw code the PMU refuses: the PMU's errno */
	add_raw(&ipc, 0x00, 0x0, 0);	/* every raw code */
	ctl.counter[2] = raw((uint64_t)1 << 21);	/* AnyThread: never for a guest */
	assert_int_equal(pmuvirt_validate_policy(&r->pmu, &ctl, 0, NULL, NULL, &ipc, &err), -EINVAL);
	assert_int_equal(pmuvirt_validate(&r->pmu, &ctl, 0, NULL, NULL, NULL), -EINVAL);
	ctl.counter[2] = raw(0x01c2);
	assert_int_equal(pmuvirt_validate_policy(&r->pmu, &ctl, 0, NULL, NULL, &ipc, &err), 0);

	/* the TSC is an event like the others */
	ctl.nr_counters = 1;
	ctl.counter[0] = portable(PMUVIRT_EV_TSC);
	ipc.events &= ~EVB(TSC);
	assert_int_equal(pmuvirt_validate_policy(&r->pmu, &ctl, 0, NULL, NULL, &ipc, &err), -EPERM);
	assert_int_equal(err.counter, 0);
	assert_string_equal(pmuvirt_strerror(-EPERM), "event not permitted by policy");
	rig_free(r);
}

/* Power-on values of the control registers of the fake Intel PMU. */
static void reset_pmu(struct fakehw *hw)
{
	static const uint32_t regs[] = { 0x38f, 0x38d, 0x186, 0x187, 0x188, 0x189 };
	unsigned int i;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		assert_int_equal(fakehw_poke(hw, regs[i], 0), 0);
}

/*
 * A CPU that went offline and came back (or resumed) has its PMU at
 * power-on values, while pmuvirt's cache still says what it wrote.  After
 * pmuvirt_pcpu_invalidate(), what a host's CPU notifier calls, the next
 * switch-in rewrites the control and the context counts exactly.
 */
static void test_invalidate_after_reset(void **state)
{
	struct rig *r = rig_new();
	struct pmuvirt_ctx *a = r->ctx[0];
	uint64_t w;

	assert_int_equal(pmuvirt_switch_in(&r->pc[0], a), 0);
	assert_int_equal(fakehw_run(r->hw[0], FAKEHW_INSTRUCTIONS, 100, false), 0);
	assert_int_equal(pmuvirt_switch_out(&r->pc[0]), 0);
	reset_pmu(r->hw[0]);
	pmuvirt_pcpu_invalidate(&r->pc[0]);
	w = fakehw_stats(r->hw[0])->reg_writes;
	assert_int_equal(pmuvirt_switch_in(&r->pc[0], a), 0);
	assert_true(fakehw_stats(r->hw[0])->reg_writes > w);
	assert_int_equal(fakehw_run(r->hw[0], FAKEHW_INSTRUCTIONS, 23, false), 0);
	assert_int_equal(rig_val(a, 0), 123);
	rig_free(r);
}

/*
 * Xen's sequence: a profiling session's idle context runs on CPU 1; CPU 1
 * goes down (the host's CPU-dead hook drops the context); the session
 * stops and is released, which frees the context as it is (no
 * pmuvirt_ctx_release(): its CPU is gone); CPU 1 comes back and switches.
 * No step may touch the freed context (under AddressSanitizer a read of it
 * fails the test).
 */
static void test_freed_while_cpu_down(void **state)
{
	struct rig *r = rig_new();
	struct pmuvirt_ctx *idle = rig_ctx_new(&r->pmu, &ctl_ins);

	assert_int_equal(pmuvirt_switch_hook(&r->pc[1], idle), 0);
	assert_int_equal(fakehw_run(r->hw[1], FAKEHW_INSTRUCTIONS, 100, false), 0);
	pmuvirt_pcpu_drop(&r->pc[1]);
	assert_null(r->pc[1].running);
	assert_null(idle->running_on);
	free(idle);
	reset_pmu(r->hw[1]);
	pmuvirt_pcpu_invalidate(&r->pc[1]);
	assert_null(r->pc[1].running);
	assert_int_equal(pmuvirt_switch_hook(&r->pc[1], r->ctx[0]), 0);
	assert_int_equal(fakehw_run(r->hw[1], FAKEHW_INSTRUCTIONS, 7, false), 0);
	assert_int_equal(pmuvirt_switch_hook(&r->pc[1], NULL), 0);
	assert_int_equal(rig_val(r->ctx[0], 0), 7);
	rig_free(r);
}

/*
 * The host's CPU-dead path: pmuvirt_pcpu_drop() takes the running context
 * off the dead CPU without a register access.  The context keeps the
 * counts of its last sample, runs nowhere (another CPU may take it at
 * once), and its record says so.
 */
static void test_drop_on_cpu_dead(void **state)
{
	struct rig *r = rig_new();
	struct pmuvirt_ctx *a = r->ctx[0];
	struct pmuvirt_shared_ctx rec;
	uint64_t reads, writes;

	memset(&rec, 0, sizeof(rec));
	pmuvirt_ctx_attach_shared(a, &rec);
	assert_int_equal(pmuvirt_switch_hook(&r->pc[1], a), 0);
	assert_int_equal(fakehw_run(r->hw[1], FAKEHW_INSTRUCTIONS, 100, false), 0);
	assert_int_equal(rec.below, 1);
	reads = fakehw_stats(r->hw[1])->reg_reads;
	writes = fakehw_stats(r->hw[1])->reg_writes;
	pmuvirt_pcpu_drop(&r->pc[1]);
	assert_int_equal(fakehw_stats(r->hw[1])->reg_reads, reads);
	assert_int_equal(fakehw_stats(r->hw[1])->reg_writes, writes);
	assert_null(r->pc[1].running);
	assert_null(a->running_on);
	assert_int_equal(rec.below, PMUVIRT_SHARED_NONE);
	/* dropping a CPU that runs nothing changes nothing */
	pmuvirt_pcpu_drop(&r->pc[1]);
	assert_int_equal(pmuvirt_switch_hook(&r->pc[0], a), 0);
	assert_int_equal(fakehw_run(r->hw[0], FAKEHW_INSTRUCTIONS, 5, false), 0);
	assert_int_equal(pmuvirt_switch_hook(&r->pc[0], NULL), 0);
	/* the 100 events after the last sample went with CPU 1's PMU */
	assert_true(rig_val(a, 0) == 5);
	pmuvirt_ctx_attach_shared(a, NULL);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hook_busy),
		cmocka_unit_test(test_hook_fault),
		cmocka_unit_test(test_policy_validate),
		cmocka_unit_test(test_policy_permits),
		cmocka_unit_test(test_validate_policy),
		cmocka_unit_test(test_invalidate_after_reset),
		cmocka_unit_test(test_freed_while_cpu_down),
		cmocka_unit_test(test_drop_on_cpu_dead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
