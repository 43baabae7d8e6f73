/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The core on the x86 backend and the fake x86 PMU: register accesses per
 * switch, overflow delivery, and a-mode counts exact past 2^width.
 */
#include <stdlib.h>
#include "rig.h"
#include "x86/pmuvirt_x86.h"
#include "x86/pmuvirt_x86_msr.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U	PMUVIRT_CTR_USER
#define K	PMUVIRT_CTR_KERNEL
#define R	PMUVIRT_CTR_RAW

struct rig {
	struct fakehw *hw;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	uint32_t ovf;		/* ovf_mask bits seen in PMIs */
	unsigned int pmis;
	int pmi_ret;
	struct pmuvirt_ctx *watch;	/* sampled at each PMI */
	uint64_t at[16];
	unsigned int nr_at;
};

static void on_pmi(void *arg)
{
	struct rig *r = arg;
	uint32_t mask = 0;
	int ret = pmuvirt_pmi(&r->pc, &mask);

	r->pmis++;
	if (ret)
		r->pmi_ret = ret;
	r->ovf |= mask;
	if (mask && r->watch && r->nr_at < 16) {
		uint64_t v[PMUVIRT_MAX_COUNTERS];

		assert_int_equal(pmuvirt_read(r->watch, v), 0);
		r->at[r->nr_at++] = v[0];
	}
}

static struct rig *rig_new(const struct fakehw_x86_config *cfg)
{
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->hw = rig_x86_new(cfg, &r->pmu);
	rig_pcpu_init(&r->pc, &r->pmu, r->hw, 0);
	fakehw_set_pmi(r->hw, on_pmi, r);
	return r;
}

static void rig_free(struct rig *r)
{
	assert_int_equal(r->pmi_ret, 0);
	rig_hw_free(r->hw);
	free(r);
}

static const struct pmuvirt_counter_ctl same[] = {
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
	{ .event = PMUVIRT_EV_BRANCHES, .flags = U },
	{ .event = PMUVIRT_EV_TSC },
};

static void test_identical_controls(void **state)
{
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 3, same), *b = rig_ctx_new_n(&r->pmu, 3, same);
	const struct fakehw_stats *st = fakehw_stats(r->hw);

	/* one security domain: nothing is re-based */
	assert_int_equal(pmuvirt_ctx_set_domain(a, 1), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(b, 1), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 100, false);
	rig_run(r->hw, FAKEHW_BRANCHES, 10, false);
	rig_run(r->hw, FAKEHW_CYCLES, 7, false);

	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	assert_int_equal(st->reg_writes, 0);
	assert_int_equal(st->reg_reads, 0);
	assert_int_equal(st->counter_reads, 2);
	assert_int_equal(st->tsc_reads, 1);

	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 5, false);
	rig_run(r->hw, FAKEHW_BRANCHES, 3, true);	/* user only: not counted */
	rig_run(r->hw, FAKEHW_BRANCHES, 4, false);
	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_int_equal(st->reg_writes + st->reg_reads, 0);
	assert_int_equal(st->counter_reads + st->tsc_reads, 3);

	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1, false);
	assert_int_equal(rig_val(a, 0), 101);
	assert_int_equal(rig_val(a, 1), 10);
	assert_int_equal(rig_val(a, 2), 7);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(rig_val(b, 0), 5);
	assert_int_equal(rig_val(b, 1), 4);
	assert_int_equal(rig_val(b, 2), 0);
	rig_ctx_free(a);
	rig_ctx_free(b);
	rig_free(r);
}

/*
 * Two contexts with identical controls become the CPU's pair after their
 * first one-pass switch; from then on a switch between them reads each
 * counter once by its read index (in one read_counters call when the host
 * has it, read_counter and read_tsc one by one otherwise) and writes
 * nothing.  Whatever could make offsetting wrong
 * takes them off the fast path: a new domain, a pause, a new control, a
 * failing read.
 */
static void pair_switch(bool batched)
{
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 3, same), *b = rig_ctx_new_n(&r->pmu, 3, same);
	const struct fakehw_stats *st = fakehw_stats(r->hw);
	struct pmuvirt_hw_ops one_by_one = *r->pc.hw;
	struct pmuvirt_control ctl;
	uint64_t reads;
	unsigned int k;

	assert_non_null(one_by_one.read_counters);
	if (!batched) {
		one_by_one.read_counters = NULL;
		r->pc.hw = &one_by_one;
	}
	assert_int_equal(pmuvirt_ctx_set_domain(a, 1), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(b, 1), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	for (k = 0; k < 6; k++) {
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 100 + k, false);
		rig_run(r->hw, FAKEHW_BRANCHES, 3, true);	/* user only: not counted */
		rig_run(r->hw, FAKEHW_BRANCHES, 10, false);
		fakehw_reset_stats(r->hw);
		reads = r->pc.stats.reg_reads;
		assert_int_equal(pmuvirt_switch(&r->pc, k & 1 ? a : b), 0);
		assert_int_equal(st->reg_writes + st->reg_reads, 0);
		assert_int_equal(st->counter_reads + st->tsc_reads, 3);
		assert_int_equal(r->pc.stats.reg_reads - reads, 3);
		assert_true(r->pc.pair[0] == a->stamp && r->pc.pair[1] == b->stamp);
		assert_true(r->pc.pair_batched);
	}
	/* a ran 100, 102, 104 instructions; b 101, 103, 105; 10 branches each time */
	assert_int_equal(rig_val(a, 0), 306);
	assert_int_equal(rig_val(b, 0), 309);
	assert_int_equal(rig_val(a, 1), 30);
	assert_int_equal(rig_val(b, 1), 30);

	/* A wrap that no PMI has folded yet (a PMI held off): the width mask keeps a exact. */
	fakehw_set_pmi(r->hw, NULL, NULL);
	rig_run(r->hw, FAKEHW_BRANCHES, (1ull << 48) - 5, false);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	assert_true(rig_val(a, 1) == 30 + (1ull << 48) - 5);
	fakehw_set_pmi(r->hw, on_pmi, r);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_true(r->pc.pair[0] == a->stamp && r->pc.pair[1] == b->stamp);
	assert_int_equal(rig_val(b, 1), 30);

	/* a is running: b moves to another domain and its two counters are re-based. */
	assert_int_equal(pmuvirt_ctx_set_domain(b, 2), 0);
	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	assert_int_equal(st->reg_writes, 2);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(b, 1), 0);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_true(r->pc.pair[0] == a->stamp && r->pc.pair[1] == b->stamp);

	/* Paused: the events since the pause count for no one, a pair or not. */
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 7, false);
	assert_int_equal(pmuvirt_pause(&r->pc), 0);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1000, false);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	assert_int_equal(rig_val(a, 0), 313);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 2, false);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_int_equal(rig_val(b, 0), 311);

	/* A new control (the same one) is a new stamp: the pair is formed anew. */
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	rig_control(&ctl, 3, same);
	assert_int_equal(pmuvirt_set_control(&r->pc, a, &ctl, NULL), 0);
	assert_true(r->pc.pair[0] != a->stamp && r->pc.pair[1] != a->stamp);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_true(r->pc.pair[0] == b->stamp && r->pc.pair[1] == a->stamp);

	/*
	 * The second read fails: a faults, and the hardware saw two reads.
	 * The library counts a failed batch as whole (it cannot tell where
	 * the host stopped).
	 */
	reads = r->pc.stats.reg_reads;
	fakehw_reset_stats(r->hw);
	fakehw_fail_access(r->hw, 2);
	assert_int_equal(pmuvirt_switch(&r->pc, b), -EFAULT);
	assert_true(a->flags & PMUVIRT_CTX_FAULTED);
	assert_null(r->pc.running);
	assert_null(a->running_on);
	assert_null(b->running_on);
	assert_int_equal(st->counter_reads + st->tsc_reads, 2);
	assert_int_equal(r->pc.stats.reg_reads - reads, 3);
	assert_true(!r->pc.pair[0] && !r->pc.pair[1]);
	rig_ctx_free(a);
	rig_ctx_free(b);
	rig_free(r);
}

static void test_pair_switch_batched(void **state)
{
	pair_switch(true);
}

static void test_pair_switch_one_by_one(void **state)
{
	pair_switch(false);
}

static void test_differing_controls(void **state)
{
	static const struct pmuvirt_counter_ctl ca[] = {
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U },
	};
	static const struct pmuvirt_counter_ctl cb[] = {
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
		{ .event = PMUVIRT_EV_BRANCH_MISSES, .flags = U },
	};
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 2, ca), *b = rig_ctx_new_n(&r->pmu, 2, cb);
	const struct fakehw_stats *st = fakehw_stats(r->hw);
	uint64_t v;

	assert_int_equal(pmuvirt_ctx_set_domain(a, 1), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(b, 1), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	rig_run(r->hw, FAKEHW_BRANCHES, 20, false);
	rig_run(r->hw, FAKEHW_BRANCH_MISSES, 2, false);
	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	/* Only IA32_PERFEVTSEL0 differs. */
	assert_int_equal(st->reg_writes, 1);
	assert_int_equal(fakehw_peek(r->hw, 0x186, &v), 0);
	assert_int_equal(v, 0xc5 | (1u << 16) | (1u << 20) | (1u << 22));
	rig_run(r->hw, FAKEHW_BRANCH_MISSES, 3, false);
	rig_run(r->hw, FAKEHW_BRANCHES, 30, false);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 9, false);

	/* Stopping with global control: one write. */
	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(st->reg_writes, 1);
	assert_int_equal(fakehw_peek(r->hw, 0x38f, &v), 0);
	assert_int_equal(v, 0);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1000, false);

	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	rig_run(r->hw, FAKEHW_BRANCHES, 1, false);
	assert_int_equal(rig_val(a, 0), 0);
	assert_int_equal(rig_val(a, 1), 21);
	assert_int_equal(rig_val(b, 0), 9);
	assert_int_equal(rig_val(b, 1), 3);
	rig_ctx_free(a);
	rig_ctx_free(b);
	rig_free(r);
}

/* a-mode counts stay exact far beyond 2^width, folded by the PMI. */
struct wrap_case {
	const char *what;
	struct fakehw_x86_config cfg;
	unsigned int width;	/* of the counter used */
	struct pmuvirt_counter_ctl c;
	enum fakehw_event ev;
};

static const struct wrap_case wraps[] = {
	{ "Intel v1 40-bit (32-bit writes)", FAKEHW_X86_INTEL_V1, 32,
	  { .event = PMUVIRT_EV_BRANCHES, .flags = U }, FAKEHW_BRANCHES },
	{ "Intel v2 32-bit", { FAKEHW_INTEL, 2, 2, 3, 32 }, 32,
	  { .event = PMUVIRT_EV_BRANCHES, .flags = U }, FAKEHW_BRANCHES },
	{ "Intel v2 40-bit fixed counter", FAKEHW_X86_INTEL_V2, 40,
	  { .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U }, FAKEHW_INSTRUCTIONS },
	{ "Intel v3 48-bit, legacy writes", FAKEHW_X86_INTEL_V3, 32,
	  { .event = PMUVIRT_EV_BRANCH_MISSES, .flags = U }, FAKEHW_BRANCH_MISSES },
	{ "Intel v4 40-bit FW_WRITE", { FAKEHW_INTEL, 4, 4, 3, 40, true }, 40,
	  { .event = 0xc4, .flags = U | R }, FAKEHW_BRANCHES },
	{ "Intel v4 48-bit FW_WRITE", FAKEHW_X86_INTEL_V4, 48,
	  { .event = PMUVIRT_EV_BRANCHES, .flags = U }, FAKEHW_BRANCHES },
	{ "Intel v5 48-bit fixed", FAKEHW_X86_INTEL_V5, 48,
	  { .event = PMUVIRT_EV_CYCLES, .flags = U }, FAKEHW_CYCLES },
	{ "AMD K8", FAKEHW_X86_AMD_K8, 48,
	  { .event = PMUVIRT_EV_CYCLES, .flags = U }, FAKEHW_CYCLES },
	{ "AMD Zen", FAKEHW_X86_AMD_17H, 48,
	  { .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U }, FAKEHW_INSTRUCTIONS },
	{ "AMD Zen 4", FAKEHW_X86_AMD_19H, 48,
	  { .event = PMUVIRT_EV_BRANCHES, .flags = U }, FAKEHW_BRANCHES },
};

static void test_wrap_exact(void **state)
{
	unsigned int k;

	for (k = 0; k < sizeof(wraps) / sizeof(wraps[0]); k++) {
		const struct wrap_case *w = &wraps[k];
		struct rig *r = rig_new(&w->cfg);
		struct pmuvirt_counter_ctl c[2] = { w->c, { .event = PMUVIRT_EV_TSC } };
		struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 2, c), *b = rig_ctx_new_n(&r->pmu, 2, c);
		uint64_t range = 1ull << w->width, total_a = 0, total_b = 0, n;
		unsigned int round;

		print_message("%s\n", w->what);
		assert_int_equal(r->pmu.slot[a->counter[0].slot].width, w->width);
		assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
		for (round = 0; round < 6; round++) {
			n = range * (round + 1) + 12345 * round + 1;
			rig_run(r->hw, w->ev, n, false);
			total_a += n;
			assert_true(rig_val(a, 0) == total_a);
			assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
			n = range / 2 + round;
			rig_run(r->hw, w->ev, n, false);
			total_b += n;
			assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
		}
		/* Stop, let the counter run for nobody, come back with another context. */
		rig_run(r->hw, w->ev, 3, false);
		total_a += 3;
		assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
		rig_run(r->hw, w->ev, range * 3, false);	/* nobody counts */
		assert_int_equal(pmuvirt_switch_in(&r->pc, b), 0);
		rig_run(r->hw, w->ev, 2 * range + 1, false);
		total_b += 2 * range + 1;
		assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
		assert_true(rig_val(a, 0) == total_a);
		assert_true(rig_val(b, 0) == total_b);
		assert_true(r->pmis > 0);
		assert_int_equal(r->ovf, 0);	/* a-mode counters notify nobody */
		rig_ctx_free(a);
		rig_ctx_free(b);
		rig_free(r);
	}
}

static void test_imode_overflows(void **state)
{
	static const struct pmuvirt_counter_ctl ci[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = 100 },
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
	};
	static const struct pmuvirt_counter_ctl co[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U | K },
	};
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 2, ci), *b = rig_ctx_new_n(&r->pmu, 1, co);
	uint32_t counts[PMUVIRT_MAX_COUNTERS];

	r->watch = a;
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	rig_run(r->hw, FAKEHW_BRANCHES, 250, false);
	assert_int_equal(r->nr_at, 2);
	assert_int_equal(r->at[0], 100);	/* the PMI came at the exact event */
	assert_int_equal(r->at[1], 200);
	assert_int_equal(r->ovf, 1);

	/* Another context uses the same counter meanwhile. */
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	rig_run(r->hw, FAKEHW_BRANCHES, 1000, false);
	assert_int_equal(r->nr_at, 2);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	rig_run(r->hw, FAKEHW_BRANCHES, 49, false);
	assert_int_equal(r->nr_at, 2);
	rig_run(r->hw, FAKEHW_BRANCHES, 1, false);
	assert_int_equal(r->nr_at, 3);
	assert_int_equal(r->at[2], 300);
	assert_int_equal(rig_val(a, 0), 300);
	assert_int_equal(rig_val(b, 0), 1000);

	assert_int_equal(pmuvirt_take_overflows(a, counts), 1);
	assert_int_equal(counts[0], 3);
	assert_int_equal(counts[1], 0);
	assert_int_equal(pmuvirt_take_overflows(a, counts), 0);

	/* Many periods in one run: every one is counted, none twice. */
	rig_run(r->hw, FAKEHW_BRANCHES, 100 * 1000, false);
	assert_int_equal(pmuvirt_take_overflows(a, counts), 1);
	assert_int_equal(counts[0], 1000);
	assert_int_equal(rig_val(a, 0), 100300);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_ctx_free(a);
	rig_ctx_free(b);
	rig_free(r);
}

/*
 * Run @ctx's counter 0 (period @p, count now @k periods and @off events)
 * to its next boundary: nothing one event before it, exactly one
 * notification, taken at the boundary, on it.
 */
static void cross_next(struct rig *r, struct pmuvirt_ctx *ctx, enum fakehw_event ev, uint64_t p,
		       uint64_t k, uint64_t off)
{
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	unsigned int at = r->nr_at;

	rig_run(r->hw, ev, p - off - 1, false);
	assert_int_equal(r->ovf, 0);
	assert_int_equal(r->nr_at, at);
	assert_int_equal(pmuvirt_take_overflows(ctx, counts), 0);
	assert_true(rig_val(ctx, 0) == (k + 1) * p - 1);
	rig_run(r->hw, ev, 1, false);
	assert_int_equal(r->ovf, 1);
	assert_int_equal(r->nr_at, at + 1);
	assert_true(r->at[at] == (k + 1) * p);
	assert_int_equal(pmuvirt_take_overflows(ctx, counts), 1);
	assert_int_equal(counts[0], 1);
	r->ovf = 0;
}

/*
 * pmuvirt_read_counter() gives what pmuvirt_read() gives, one counter at a
 * time (one rdpmc while running, none while suspended);
 * pmuvirt_take_overflows_mask() drains only the counters asked for.
 */
static void test_read_one_take_some(void **state)
{
	static const struct pmuvirt_counter_ctl ci[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = 100 },
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = 30 },
		{ .event = PMUVIRT_EV_TSC },
	};
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 3, ci);
	const struct fakehw_stats *st = fakehw_stats(r->hw);
	uint64_t v[PMUVIRT_MAX_COUNTERS], one;
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	unsigned int i;

	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	rig_run(r->hw, FAKEHW_BRANCHES, 250, false);
	rig_run(r->hw, FAKEHW_CYCLES, 9, false);
	assert_int_equal(pmuvirt_read(a, v), 0);
	for (i = 0; i < 3; i++) {
		fakehw_reset_stats(r->hw);
		assert_int_equal(pmuvirt_read_counter(a, i, &one), 0);
		assert_int_equal(st->counter_reads + st->tsc_reads, 1);
		assert_true(one == v[i]);
	}
	assert_int_equal(v[0], 250);
	assert_int_equal(pmuvirt_read_counter(a, 3, &one), -EINVAL);
	assert_int_equal(pmuvirt_take_overflows_mask(a, 2, counts), 2);
	assert_int_equal(counts[0], 0);
	assert_int_equal(counts[1], 8);
	assert_int_equal(pmuvirt_take_overflows_mask(a, 2, counts), 0);
	assert_int_equal(pmuvirt_take_overflows(a, counts), 1);
	assert_int_equal(counts[0], 2);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_read_counter(a, 0, &one), 0);
	assert_int_equal(one, 250);
	assert_int_equal(st->counter_reads, 0);
	rig_ctx_free(a);
	rig_free(r);
}

/*
 * An i-mode counter that reaches its threshold no later than its next
 * notification starts from the value the counter holds, as an a-mode one
 * does: two contexts of one domain counting toward Linux perf's
 * counting-mode period (2^47 - 1 at 48 bits) switch with reads only, and
 * each notification still comes at its exact count.  A nearer notification
 * is armed by a write; another domain re-bases every counter.
 */
static void test_imode_offset(void **state)
{
	const uint64_t p = ((uint64_t)1 << 47) - 1;
	const struct pmuvirt_counter_ctl ci[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = p },
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U, .period = p },
	};
	static const struct pmuvirt_counter_ctl near[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = 1000 },
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U, .period = ((uint64_t)1 << 47) - 1 },
	};
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 2, ci), *b = rig_ctx_new_n(&r->pmu, 2, ci);
	struct pmuvirt_ctx *c = rig_ctx_new_n(&r->pmu, 2, near);
	const struct fakehw_stats *st = fakehw_stats(r->hw);
	unsigned int k;

	assert_int_equal(pmuvirt_ctx_set_domain(a, 1), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(b, 1), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(c, 1), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	for (k = 0; k < 4; k++) {
		rig_run(r->hw, FAKEHW_BRANCHES, 1000 + k, false);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 2000, false);
		fakehw_reset_stats(r->hw);
		assert_int_equal(pmuvirt_switch(&r->pc, k & 1 ? a : b), 0);
		assert_int_equal(st->reg_writes, 0);
		assert_int_equal(st->reg_reads, 0);
		assert_int_equal(st->counter_reads, 2);
	}
	assert_int_equal(rig_val(a, 0), 1000 + 1002);
	assert_int_equal(rig_val(b, 0), 1001 + 1003);
	assert_int_equal(rig_val(a, 1), 4000);

	/* a's first notification, exactly at p, after a silent re-arm */
	r->watch = a;
	cross_next(r, a, FAKEHW_BRANCHES, p, 0, 2002);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	r->watch = b;
	cross_next(r, b, FAKEHW_BRANCHES, p, 0, 2004);

	/* c's branch counter notifies within 1000: that one is written */
	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_switch(&r->pc, c), 0);
	assert_int_equal(st->reg_writes, 1);
	r->watch = c;
	cross_next(r, c, FAKEHW_BRANCHES, 1000, 0, 0);

	/* another domain: the two counters that counted are written, no other */
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(b, 2), 0);
	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	assert_int_equal(st->reg_writes, 2);
	assert_true(rig_val(b, 0) == p);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_ctx_free(a);
	rig_ctx_free(b);
	rig_ctx_free(c);
	rig_free(r);
}

static void no_pmi(void *arg)
{
	(void)arg;
}

/*
 * Two contexts with the same i-mode control become the CPU's pair: each
 * switch reads every counter once and writes at most the incoming i-mode
 * counter; counts and notifications stay exact over many switches, and a
 * boundary the outgoing context passed with its PMI still on its way is
 * its notification as soon as it is off the CPU.
 */
static void test_imode_pair(void **state)
{
	static const struct pmuvirt_counter_ctl ci[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = 100 },
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
	};
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *c[2] = { rig_ctx_new_n(&r->pmu, 2, ci), rig_ctx_new_n(&r->pmu, 2, ci) };
	const struct fakehw_stats *st = fakehw_stats(r->hw);
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	uint64_t br[2] = { 0, 0 }, ins[2] = { 0, 0 }, before;
	unsigned int k, cur = 0;

	assert_int_equal(pmuvirt_ctx_set_domain(c[0], 1), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(c[1], 1), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, c[0]), 0);
	for (k = 0; k < 300; k++) {
		rig_run(r->hw, FAKEHW_BRANCHES, 37 + k % 151, false);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 11 + k, false);
		br[cur] += 37 + k % 151;
		ins[cur] += 11 + k;
		fakehw_reset_stats(r->hw);
		cur ^= 1;
		assert_int_equal(pmuvirt_switch(&r->pc, c[cur]), 0);
		if (k > 0) {
			assert_true(st->reg_writes <= 1);
			assert_int_equal(st->reg_reads, 0);
			assert_int_equal(st->counter_reads, 2);
		}
	}
	for (k = 0; k < 2; k++) {
		assert_true(rig_val(c[k], 0) == br[k]);
		assert_true(rig_val(c[k], 1) == ins[k]);
		assert_int_equal(pmuvirt_take_overflows(c[k], counts), 1);
		assert_true(counts[0] == br[k] / 100);
	}

	/* the running context's next notification comes at its exact event */
	r->ovf = 0;
	r->watch = c[cur];
	cross_next(r, c[cur], FAKEHW_BRANCHES, 100, br[cur] / 100, br[cur] % 100);
	br[cur] = (br[cur] / 100 + 1) * 100;
	r->watch = NULL;

	/* the running context's boundary with its PMI not yet taken */
	fakehw_set_pmi(r->hw, no_pmi, NULL);
	before = br[cur] / 100;
	rig_run(r->hw, FAKEHW_BRANCHES, (before + 1) * 100 - br[cur], false);
	assert_int_equal(pmuvirt_switch(&r->pc, c[cur ^ 1]), 0);
	assert_int_equal(pmuvirt_take_overflows(c[cur], counts), 1);
	assert_int_equal(counts[0], 1);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_ctx_free(c[0]);
	rig_ctx_free(c[1]);
	rig_free(r);
}

/*
 * A PMI clears exactly the status bits of the counters that crossed, a
 * fixed counter's among them, and re-bases a counter that crossed for no
 * context (its status bit set, past its threshold) so that it stays quiet.
 */
static void test_pmi_status_bits(void **state)
{
	static const struct pmuvirt_counter_ctl ci[] = {
		{ .event = PMUVIRT_EV_CYCLES, .flags = U, .period = 1000 },
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U },
	};
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 2, ci);
	const struct pmuvirt_hw_ops *ops = fakehw_ops(r->hw);
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	uint64_t v;

	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	assert_int_equal(r->pmu.slot[a->counter[0].slot].cls, PMUVIRT_CLASS_FIXED);
	assert_int_equal(r->pmu.slot[a->counter[1].slot].cls, PMUVIRT_CLASS_GP);
	rig_run(r->hw, FAKEHW_CYCLES, 1000, false);
	assert_int_equal(r->pmis, 1);
	assert_int_equal(ops->read_reg(r->hw, PMUVIRT_MSR_IA32_PERF_GLOBAL_STATUS, &v), 0);
	assert_true(v == 0);

	/* general counter 3, which a has not, crossed for no one */
	assert_int_equal(ops->write_reg(r->hw, PMUVIRT_MSR_IA32_PMC0 + 3, 5), 0);
	assert_int_equal(ops->write_reg(r->hw, 0x391 /* IA32_PERF_GLOBAL_STATUS_SET */, 1u << 3), 0);
	rig_run(r->hw, FAKEHW_CYCLES, 1000, false);
	assert_int_equal(r->pmis, 2);
	assert_int_equal(ops->read_reg(r->hw, PMUVIRT_MSR_IA32_PERF_GLOBAL_STATUS, &v), 0);
	assert_true(v == 0);
	assert_int_equal(ops->read_counter(r->hw, 3, &v), 0);
	assert_true(v == (uint64_t)1 << 47);
	assert_int_equal(pmuvirt_take_overflows(a, counts), 1);
	assert_int_equal(counts[0], 2);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_ctx_free(a);
	rig_free(r);
}

/*
 * Periods longer than half the 48-bit range (and longer than the whole
 * range) are reached in several armings; notifications come exactly at
 * every multiple of the period, across switches and ARMs, up to 2^62.
 */
static void test_imode_long_period(void **state)
{
	const uint64_t p = 5 * ((uint64_t)1 << 47) + 12345;
	struct pmuvirt_counter_ctl ci[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = p },
	};
	static const struct pmuvirt_counter_ctl co[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U },
	};
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 1, ci), *b = rig_ctx_new_n(&r->pmu, 1, co);
	struct pmuvirt_control ctl = { .version = PMUVIRT_ABI_VERSION, .nr_counters = 1 };
	struct pmuvirt_error err = { 0 };
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	uint64_t rem, per, off = 123456789;
	unsigned int k, pmis;

	assert_int_equal(r->pmu.slot[a->counter[0].slot].width, 48);
	r->watch = a;
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	for (k = 0; k < 3; k++)
		cross_next(r, a, FAKEHW_BRANCHES, p, k, 0);
	/* each period took at least five armings: four of them silent */
	assert_true(r->pmis >= 3 * 5);

	/* Switched out mid-period while another context counts on the counter. */
	rig_run(r->hw, FAKEHW_BRANCHES, off, false);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	rig_run(r->hw, FAKEHW_BRANCHES, (uint64_t)1 << 50, false);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_int_equal(r->ovf, 0);
	cross_next(r, a, FAKEHW_BRANCHES, p, 3, off);
	assert_true(rig_val(b, 0) == (uint64_t)1 << 50);

	/* An ARM with a remaining distance longer than half the range. */
	rem = p + 7;
	per = p;
	assert_int_equal(pmuvirt_arm_counters(&r->pc, a, 1, &rem, &per), 0);
	rig_run(r->hw, FAKEHW_BRANCHES, p + 6, false);
	assert_int_equal(r->ovf, 0);
	rig_run(r->hw, FAKEHW_BRANCHES, 1, false);
	assert_int_equal(r->ovf, 1);
	assert_true(r->at[r->nr_at - 1] == 5 * p + 7);
	assert_int_equal(pmuvirt_take_overflows(a, counts), 1);
	r->ovf = 0;
	per = PMUVIRT_PERIOD_MAX + 1;
	assert_int_equal(pmuvirt_arm_counters(&r->pc, a, 1, &rem, &per), -ERANGE);

	/* The largest period, 2^62, and one above it. */
	ci[0].period = PMUVIRT_PERIOD_MAX + 1;
	ctl.counter[0] = ci[0];
	assert_int_equal(pmuvirt_set_control(&r->pc, a, &ctl, &err), -ERANGE);
	assert_int_equal(err.counter, 0);
	ctl.counter[0].period = PMUVIRT_PERIOD_MAX;
	assert_int_equal(pmuvirt_set_control(&r->pc, a, &ctl, &err), 0);
	r->nr_at = 0;
	pmis = r->pmis;
	cross_next(r, a, FAKEHW_BRANCHES, PMUVIRT_PERIOD_MAX, 0, 0);
	assert_int_equal(r->pmis - pmis, 1u << 15);	/* 2^62 / 2^47 armings */
	cross_next(r, a, FAKEHW_BRANCHES, PMUVIRT_PERIOD_MAX, 1, 0);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_ctx_free(a);
	rig_ctx_free(b);
	rig_free(r);
}

static void test_non_global_stop(void **state)
{
	static const struct fakehw_x86_config zen = FAKEHW_X86_AMD_17H;
	static const struct pmuvirt_counter_ctl c[] = {
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
		{ .event = PMUVIRT_EV_CYCLES, .flags = K },
	};
	struct rig *r = rig_new(&zen);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 2, c);
	const struct fakehw_stats *st = fakehw_stats(r->hw);
	uint64_t v;

	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 10, false);
	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	/* Without global control: clear EN in each enabled select, nothing else. */
	assert_int_equal(st->reg_writes, 2);
	assert_int_equal(fakehw_peek(r->hw, 0xc0010200u, &v), 0);
	assert_int_equal(v & (1u << 22), 0);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 10, false);
	fakehw_reset_stats(r->hw);
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	assert_int_equal(st->reg_writes, 2);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 5, false);
	assert_int_equal(rig_val(a, 0), 15);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_ctx_free(a);
	rig_free(r);
}

static void test_invalidate_fault_legacy(void **state)
{
	static const struct fakehw_x86_config v3_legacy = FAKEHW_X86_INTEL_V3;
	struct rig *r = rig_new(&rig_intel_v4);
	struct pmuvirt_ctx *a = rig_ctx_new_n(&r->pmu, 3, same), *b;
	const struct fakehw_stats *st = fakehw_stats(r->hw);
	uint64_t v, ctl;

	/*
	 * Unknown cache: every control register of the image is written once
	 * (4 selects, FIXED_CTR_CTRL, GLOBAL_CTRL); the counters' owner is
	 * unknown too, so all 7 (4 general, 3 fixed) are re-based.
	 */
	fakehw_reset_stats(r->hw);
	ctl = r->pc.stats.ctl_writes;
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	assert_int_equal(r->pc.stats.ctl_writes - ctl, 6);
	assert_int_equal(st->reg_writes, 6 + 7);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	pmuvirt_pcpu_invalidate(&r->pc);
	fakehw_reset_stats(r->hw);
	ctl = r->pc.stats.ctl_writes;
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), 0);
	assert_int_equal(r->pc.stats.ctl_writes - ctl, 6);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);

	/* A failing register write faults the context and leaves counting off. */
	pmuvirt_pcpu_invalidate(&r->pc);
	fakehw_fail_access(r->hw, 2);
	assert_int_equal(pmuvirt_switch_in(&r->pc, a), -EFAULT);
	assert_true(a->flags & PMUVIRT_CTX_FAULTED);
	assert_null(r->pc.running);
	rig_ctx_free(a);
	rig_free(r);

	/* Legacy writes: a reprogrammed counter starts in the sign-extended range. */
	r = rig_new(&v3_legacy);
	b = rig_ctx_new_n(&r->pmu, 3, same);
	assert_int_equal(fakehw_poke(r->hw, 0xc1, 0x123456789ull), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, b), 0);
	assert_int_equal(fakehw_peek(r->hw, 0xc1, &v), 0);
	assert_true(v == 0xffff80000000ull);
	rig_run(r->hw, FAKEHW_BRANCHES, 3ull << 33, false);
	assert_true(rig_val(b, 1) == 3ull << 33);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_ctx_free(b);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical_controls),
		cmocka_unit_test(test_pair_switch_batched),
		cmocka_unit_test(test_pair_switch_one_by_one),
		cmocka_unit_test(test_differing_controls),
		cmocka_unit_test(test_wrap_exact),
		cmocka_unit_test(test_imode_overflows),
		cmocka_unit_test(test_imode_long_period),
		cmocka_unit_test(test_imode_pair),
		cmocka_unit_test(test_pmi_status_bits),
		cmocka_unit_test(test_imode_offset),
		cmocka_unit_test(test_read_one_take_some),
		cmocka_unit_test(test_non_global_stop),
		cmocka_unit_test(test_invalidate_fault_legacy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
