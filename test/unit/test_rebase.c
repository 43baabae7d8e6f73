/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The re-base between security domains writes exactly the counters that
 * may hold the other domain's events (those its controls enabled since
 * their last write) plus the incoming context's own, on Intel v4, AMD
 * family 17h and POWER9; and no counter the incoming domain finds on the
 * hardware ever counted for another domain since it was last written (the
 * fake's labels, fakehw_set_label()).
 */
#include <stdlib.h>
#include "rig.h"

#define U	PMUVIRT_CTR_USER

/* Six counters: on Intel v4 both fixed counters and four general ones. */
static const struct pmuvirt_counter_ctl six[] = {
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
	{ .event = PMUVIRT_EV_CYCLES, .flags = U },
	{ .event = PMUVIRT_EV_BRANCHES, .flags = U },
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
	{ .event = PMUVIRT_EV_CYCLES, .flags = U },
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
};

/* The first four of them; one more with an i-mode counter and the TSC. */
static const struct pmuvirt_counter_ctl four_imode[] = {
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
	{ .event = PMUVIRT_EV_CYCLES, .flags = U, .period = 1000000 },
	{ .event = PMUVIRT_EV_BRANCHES, .flags = U },
	{ .event = PMUVIRT_EV_TSC },
};

struct cpu {
	struct rig_cpu c;
	struct pmuvirt_ctx *ctx[5];
};

/* Events of the running context's domain @dom. */
static void run_as(struct cpu *k, uint64_t dom, uint64_t n)
{
	fakehw_set_label(k->c.hw, 1ull << dom);
	rig_run(k->c.hw, FAKEHW_INSTRUCTIONS, n, false);
	rig_run(k->c.hw, FAKEHW_CYCLES, 3 * n, false);
	rig_run(k->c.hw, FAKEHW_BRANCHES, n / 5, false);
}

/*
 * Switch to context @i of domain @dom: exactly @writes counter writes and,
 * when @same_ctl, no control write but the backend's stop and start around
 * counter writes (POWER's MMCR0 freeze and unfreeze); afterwards the
 * hardware holds no mark of another domain.
 */
static void switch_to(struct cpu *k, unsigned int i, uint64_t dom, uint64_t writes,
		      bool same_ctl)
{
	struct pmuvirt_stats before = k->c.pc.stats;

	assert_int_equal(pmuvirt_switch(&k->c.pc, k->ctx[i]), 0);
	assert_int_equal((k->c.pc.stats.reg_writes - before.reg_writes) -
			 (k->c.pc.stats.ctl_writes - before.ctl_writes), writes);
	if (same_ctl)
		assert_int_equal(k->c.pc.stats.ctl_writes - before.ctl_writes,
				 k->c.pc.stop_first ? 2 : 0);
	assert_true((fakehw_taint(k->c.hw) & ~(1ull << dom)) == 0);
}

static struct cpu *cpu_new(struct fakehw *hw, struct pmuvirt_pmu *pmu)
{
	struct cpu *k = calloc(1, sizeof(*k));

	assert_non_null(k);
	k->c.hw = hw;
	k->c.pmu = *pmu;
	rig_cpu_start(&k->c, 0);
	/* 0: six counters; 1, 2: the first four; 3: the first three; 4: four with i-mode */
	k->ctx[0] = rig_ctx_new_n(&k->c.pmu, 6, six);
	k->ctx[1] = rig_ctx_new_n(&k->c.pmu, 4, six);
	k->ctx[2] = rig_ctx_new_n(&k->c.pmu, 4, six);
	k->ctx[3] = rig_ctx_new_n(&k->c.pmu, 3, six);
	k->ctx[4] = rig_ctx_new_n(&k->c.pmu, 4, four_imode);
	return k;
}

static void cpu_free(struct cpu *k)
{
	unsigned int i;

	assert_int_equal(pmuvirt_switch_out(&k->c.pc), 0);
	for (i = 0; i < 5; i++)
		rig_ctx_free(k->ctx[i]);
	rig_cpu_finish(&k->c);
	free(k);
}

/*
 * Each context a domain of its own (the untagged default).  @nr_slots: the
 * PMU's counters but the TSC, all written when the owner is unknown.
 */
static void mix(struct cpu *k, unsigned int nr_slots)
{
	uint64_t d[5];
	unsigned int i;

	for (i = 0; i < 5; i++)
		d[i] = i + 1;
	for (i = 0; i < 5; i++)
		assert_int_equal(pmuvirt_ctx_set_domain(k->ctx[i], d[i]), 0);

	/* owner unknown: every counter */
	fakehw_set_label(k->c.hw, 1ull << 63);
	rig_run(k->c.hw, FAKEHW_INSTRUCTIONS, 99, false);
	switch_to(k, 0, d[0], nr_slots, false);
	run_as(k, d[0], 1000);
	/* six counted, four are the incoming one's: six writes */
	switch_to(k, 1, d[1], 6, false);
	run_as(k, d[1], 2000);
	/* the same four counters both sides: four writes, no control write */
	switch_to(k, 2, d[2], 4, true);
	run_as(k, d[2], 3000);
	switch_to(k, 1, d[1], 4, true);
	run_as(k, d[1], 500);
	/* three of the four: the fourth counted for the other domain, so four */
	switch_to(k, 3, d[3], 4, false);
	run_as(k, d[3], 700);
	/* back to four after three: three counted, four are its own */
	switch_to(k, 2, d[2], 4, false);
	run_as(k, d[2], 800);
	/* the i-mode context: its arming write, two a-mode ones, and the fourth that counted */
	switch_to(k, 4, d[4], 4, false);
	run_as(k, d[4], 900);
	/* six after the i-mode context's four: six */
	switch_to(k, 0, d[0], 6, false);
	run_as(k, d[0], 100);
	/* one domain again, after idle: nothing written */
	assert_int_equal(pmuvirt_ctx_set_domain(k->ctx[1], d[0]), 0);
	assert_int_equal(pmuvirt_switch_out(&k->c.pc), 0);
	switch_to(k, 0, d[0], 0, false);
	switch_to(k, 1, d[0], 0, false);
	run_as(k, d[0], 100);
	/* counts stay exact through all of it */
	assert_int_equal(rig_val(k->ctx[0], 0), 1100);
	assert_int_equal(rig_val(k->ctx[0], 1), 3300);
	assert_int_equal(rig_val(k->ctx[0], 2), 220);
	assert_int_equal(rig_val(k->ctx[1], 0), 2600);
	assert_int_equal(rig_val(k->ctx[2], 2), 760);
	assert_int_equal(rig_val(k->ctx[3], 1), 2100);
	assert_int_equal(rig_val(k->ctx[4], 0), 900);
	assert_int_equal(rig_val(k->ctx[4], 1), 2700);

	/*
	 * Three counters (the six that counted for ctx[0] and ctx[1]'s domain
	 * are written), then six of the same domain (no re-base), then
	 * another domain's four: all six are written again.
	 */
	switch_to(k, 3, d[3], 6, false);
	run_as(k, d[3], 100);
	assert_int_equal(pmuvirt_switch_out(&k->c.pc), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(k->ctx[0], d[3]), 0);
	switch_to(k, 0, d[3], 0, false);
	run_as(k, d[3], 100);
	switch_to(k, 2, d[2], 6, false);
	assert_int_equal(rig_val(k->ctx[0], 0), 1200);
}

/* A model: its fake CPU (and pmuvirt's PMU on it), and its counters but the TSC. */
struct model {
	const struct fakehw_x86_config *x86;	/* NULL: POWER9 */
	unsigned int nr_slots;
};

static const struct fakehw_x86_config intel_v4 = FAKEHW_X86_INTEL_V4;
static const struct fakehw_x86_config amd_17h = FAKEHW_X86_AMD_17H;
static const struct model models[] = {
	{ &intel_v4, 7 },
	{ &amd_17h, 6 },
	{ NULL, 6 },
};

static void test_rebase(void **state)
{
	const struct model *m = *state;
	struct pmuvirt_pmu pmu;
	struct fakehw *hw = m->x86 ? rig_x86_new(m->x86, &pmu) : rig_ppc_new(9, &pmu);
	struct cpu *k = cpu_new(hw, &pmu);

	mix(k, m->nr_slots);
	cpu_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		{ "test_rebase_intel_v4", test_rebase, NULL, NULL, (void *)&models[0] },
		{ "test_rebase_amd_17h", test_rebase, NULL, NULL, (void *)&models[1] },
		{ "test_rebase_power9", test_rebase, NULL, NULL, (void *)&models[2] },
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
