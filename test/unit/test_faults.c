/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Fault injection: every register access of a switch, a control change and
 * a PMI is made to fail in turn.  The call must return -EFAULT, the context
 * must be faulted and off the hardware, no counter may keep counting, and
 * the CPU must go on serving other contexts.
 */
#include <stdlib.h>
#include <string.h>
#include "rig.h"
#include "x86/pmuvirt_x86.h"
#include "ppc/pmuvirt_ppc.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U	PMUVIRT_CTR_USER
#define K	PMUVIRT_CTR_KERNEL

enum op { OP_SWITCH_IN, OP_SWITCH, OP_SET_CONTROL, OP_PMI, OP_SWITCH_OUT, OP_NR };

struct rig {
	struct fakehw *hw;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	struct pmuvirt_ctx *ctx[3];
	int pmi_ret;
	bool ppc;
};

/* a: two a-mode counters and the TSC; b: other events; c: an i-mode counter */
static const struct pmuvirt_counter_ctl ctl_a[] = {
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
	{ .event = PMUVIRT_EV_CYCLES, .flags = U | K },
	{ .event = PMUVIRT_EV_TSC },
};
static const struct pmuvirt_counter_ctl ctl_b[] = {
	{ .event = PMUVIRT_EV_BRANCHES, .flags = U },
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = K },
};
static const struct pmuvirt_counter_ctl ctl_i[] = {
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .period = 100, .flags = U },
	{ .event = PMUVIRT_EV_CYCLES, .flags = U },
};

static void on_pmi(void *arg)
{
	struct rig *r = arg;
	uint32_t mask;
	int ret = pmuvirt_pmi(&r->pc, &mask);

	if (ret)
		r->pmi_ret = ret;
}

static int set(struct rig *r, struct pmuvirt_pcpu *pc, unsigned int i,
	       const struct pmuvirt_counter_ctl *c, unsigned int n)
{
	struct pmuvirt_control ctl;

	rig_control(&ctl, n, c);
	return pmuvirt_set_control(pc, r->ctx[i], &ctl, NULL);
}

static struct rig *rig_new(unsigned int kind)
{
	struct rig *r = calloc(1, sizeof(*r));
	unsigned int i;

	assert_non_null(r);
	r->ppc = kind == 2;
	r->hw = r->ppc ? rig_ppc_new(9, &r->pmu) :
			 rig_x86_new(kind ? &rig_amd_19h : &rig_intel_v4, &r->pmu);
	rig_pcpu_init(&r->pc, &r->pmu, r->hw, 0);
	fakehw_set_pmi(r->hw, on_pmi, r);
	for (i = 0; i < 3; i++)
		r->ctx[i] = rig_ctx_alloc(&r->pmu, PMUVIRT_MAX_COUNTERS);
	assert_int_equal(set(r, NULL, 0, ctl_a, 3), 0);
	assert_int_equal(set(r, NULL, 1, ctl_b, 2), 0);
	assert_int_equal(set(r, NULL, 2, ctl_i, 2), 0);
	return r;
}

static void rig_free(struct rig *r)
{
	unsigned int i;

	/* injected faults aside, the hardware never refused an access */
	assert_int_equal(fakehw_stats(r->hw)->errors, 0);
	for (i = 0; i < 3; i++)
		rig_ctx_free(r->ctx[i]);
	rig_hw_free(r->hw);
	free(r);
}

/* Raw values of every counter register of the fake. */
static void snapshot(struct rig *r, uint64_t *v)
{
	static const uint32_t x86_intel[] = { 0xc1, 0xc2, 0xc3, 0xc4, 0x309, 0x30a, 0x30b };
	static const uint32_t x86_amd[] = { 0xc0010201, 0xc0010203, 0xc0010205, 0xc0010207,
					    0xc0010209, 0xc001020b, 0, };
	static const uint32_t ppc[] = { 787, 788, 789, 790, 791, 792, 0 };
	const uint32_t *regs = r->ppc ? ppc : r->pmu.model >= PMUVIRT_X86_AMD_LEGACY ? x86_amd :
									      x86_intel;
	unsigned int i;

	for (i = 0; i < 7; i++) {
		v[i] = 0;
		if (regs[i])
			assert_int_equal(fakehw_peek(r->hw, regs[i], &v[i]), 0);
	}
}

static void events(struct rig *r)
{
	assert_int_equal(fakehw_run(r->hw, FAKEHW_INSTRUCTIONS, 50, false), 0);
	assert_int_equal(fakehw_run(r->hw, FAKEHW_INSTRUCTIONS, 50, true), 0);
	assert_int_equal(fakehw_run(r->hw, FAKEHW_CYCLES, 70, false), 0);
	assert_int_equal(fakehw_run(r->hw, FAKEHW_BRANCHES, 30, false), 0);
}

/* Bring the rig to the state before @op. */
static void prepare(struct rig *r, enum op op)
{
	switch (op) {
	case OP_SWITCH_IN:
		break;
	case OP_SWITCH:
	case OP_SET_CONTROL:
	case OP_SWITCH_OUT:
		assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
		events(r);
		break;
	case OP_PMI:
		assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[2]), 0);
		assert_int_equal(fakehw_run(r->hw, FAKEHW_INSTRUCTIONS, 60, false), 0);
		break;
	default:
		fail();
	}
}

/* Run @op with the @k-th register access failing; the context it hits, or NULL. */
static int run_op(struct rig *r, enum op op, uint64_t k)
{
	fakehw_fail_access(r->hw, k);
	switch (op) {
	case OP_SWITCH_IN:
		return pmuvirt_switch_in(&r->pc, r->ctx[0]);
	case OP_SWITCH:
		return pmuvirt_switch(&r->pc, r->ctx[1]);
	case OP_SET_CONTROL:
		return set(r, &r->pc, 0, ctl_b, 2);
	case OP_SWITCH_OUT:
		return pmuvirt_switch_out(&r->pc);
	case OP_PMI:
		r->pmi_ret = 0;
		assert_int_equal(fakehw_run(r->hw, FAKEHW_INSTRUCTIONS, 60, false), 0);
		return r->pmi_ret;
	default:
		fail();
	}
	return 0;
}

static bool injected(struct rig *r)
{
	const char *e = fakehw_last_error(r->hw);

	return e && strstr(e, "injected");
}

static void check_faulted(struct rig *r, enum op op, int ret)
{
	uint64_t before[7], after[7], v[PMUVIRT_MAX_COUNTERS];
	unsigned int i, nfaulted = 0;

	assert_int_equal(ret, -EFAULT);
	for (i = 0; i < 3; i++) {
		if (!(r->ctx[i]->flags & PMUVIRT_CTX_FAULTED))
			continue;
		nfaulted++;
		/* off the hardware, and kept off */
		assert_null(r->ctx[i]->running_on);
		assert_true(r->pc.running != r->ctx[i]);
	}
	assert_true(nfaulted >= 1 || op == OP_SWITCH_OUT);
	if (op != OP_SWITCH_OUT)
		assert_true(nfaulted >= 1);
	/* nothing counts for anyone once the CPU faulted */
	assert_null(r->pc.running);
	snapshot(r, before);
	events(r);
	snapshot(r, after);
	for (i = 0; i < 7; i++)
		assert_true(before[i] == after[i]);

	/* a faulted context cannot come back without a new control */
	for (i = 0; i < 3; i++)
		if (r->ctx[i]->flags & PMUVIRT_CTX_FAULTED) {
			assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[i]), -EFAULT);
			assert_null(r->pc.running);
		}

	/* the CPU still serves a healthy context exactly */
	for (i = 0; i < 3; i++)
		if (!(r->ctx[i]->flags & PMUVIRT_CTX_FAULTED) && !r->ctx[i]->running_on)
			break;
	if (i == 3) {
		i = 0;
		assert_int_equal(set(r, NULL, 0, ctl_a, 3), 0);
	}
	assert_int_equal(set(r, NULL, i, ctl_a, 3), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[i]), 0);
	assert_int_equal(fakehw_run(r->hw, FAKEHW_INSTRUCTIONS, 1234, false), 0);
	assert_int_equal(fakehw_run(r->hw, FAKEHW_INSTRUCTIONS, 99, true), 0);
	assert_int_equal(pmuvirt_read(r->ctx[i], v), 0);
	assert_true(v[0] == 1234);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(pmuvirt_read(r->ctx[i], v), 0);
	assert_true(v[0] == 1234);
}

static void fault_every_access(unsigned int kind, enum op op)
{
	uint64_t k;

	for (k = 1; k < 200; k++) {
		struct rig *r = rig_new(kind);
		int ret;

		prepare(r, op);
		ret = run_op(r, op, k);
		if (!injected(r)) {
			/* the operation needed fewer than k accesses: all covered */
			fakehw_fail_access(r->hw, 0);
			assert_int_equal(ret, 0);
			rig_free(r);
			assert_true(k > 1);
			print_message("%s op %d: %u accesses, each failed in turn\n",
				      kind == 2 ? "ppc" : kind ? "amd" : "intel", op,
				      (unsigned int)(k - 1));
			return;
		}
		check_faulted(r, op, ret);
		rig_free(r);
	}
	fail_msg("operation %d still accessing registers after 200 accesses", op);
}

#define FAULT_TEST(name, kind, op) \
	static void name(void **state) { fault_every_access(kind, op); }

FAULT_TEST(intel_switch_in, 0, OP_SWITCH_IN)
FAULT_TEST(intel_switch, 0, OP_SWITCH)
FAULT_TEST(intel_set_control, 0, OP_SET_CONTROL)
FAULT_TEST(intel_pmi, 0, OP_PMI)
FAULT_TEST(intel_switch_out, 0, OP_SWITCH_OUT)
FAULT_TEST(amd_switch_in, 1, OP_SWITCH_IN)
FAULT_TEST(amd_switch, 1, OP_SWITCH)
FAULT_TEST(amd_set_control, 1, OP_SET_CONTROL)
FAULT_TEST(amd_pmi, 1, OP_PMI)
FAULT_TEST(amd_switch_out, 1, OP_SWITCH_OUT)
FAULT_TEST(ppc_switch_in, 2, OP_SWITCH_IN)
FAULT_TEST(ppc_switch, 2, OP_SWITCH)
FAULT_TEST(ppc_set_control, 2, OP_SET_CONTROL)
FAULT_TEST(ppc_pmi, 2, OP_PMI)
FAULT_TEST(ppc_switch_out, 2, OP_SWITCH_OUT)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_switch_in),
		cmocka_unit_test(intel_switch),
		cmocka_unit_test(intel_set_control),
		cmocka_unit_test(intel_pmi),
		cmocka_unit_test(intel_switch_out),
		cmocka_unit_test(amd_switch_in),
		cmocka_unit_test(amd_switch),
		cmocka_unit_test(amd_set_control),
		cmocka_unit_test(amd_pmi),
		cmocka_unit_test(amd_switch_out),
		cmocka_unit_test(ppc_switch_in),
		cmocka_unit_test(ppc_switch),
		cmocka_unit_test(ppc_set_control),
		cmocka_unit_test(ppc_pmi),
		cmocka_unit_test(ppc_switch_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
