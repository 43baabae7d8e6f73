/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* The strict fake POWER SPR bank on its own: registers, counting, alerts at events and writes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "fakehw.h"
#include "ppc/pmuvirt_ppc.h"

#define MMCR0	PMUVIRT_PPC_SPR_MMCR0
#define MMCR1	PMUVIRT_PPC_SPR_MMCR1
#define MMCR2	PMUVIRT_PPC_SPR_MMCR2
#define PMC(n)	PMUVIRT_PPC_SPR_PMC(n)
#define M0(x)	PMUVIRT_PPC_MMCR0_##x

static int rd(struct fakehw *hw, uint32_t spr, uint64_t *v)
{
	return fakehw_ops(hw)->read_reg(hw, spr, v);
}

static int wr(struct fakehw *hw, uint32_t spr, uint64_t v)
{
	return fakehw_ops(hw)->write_reg(hw, spr, v);
}

static uint64_t get(struct fakehw *hw, uint32_t spr)
{
	uint64_t v = 0;

	assert_int_equal(rd(hw, spr, &v), 0);
	return v;
}

static void set(struct fakehw *hw, uint32_t spr, uint64_t v)
{
	assert_int_equal(wr(hw, spr, v), 0);
}

static uint64_t sel(unsigned int pmc, unsigned int s)
{
	return (uint64_t)s << PMUVIRT_PPC_MMCR1_SEL_SHIFT(pmc);
}

static void test_registers(void **state)
{
	static const struct {
		unsigned int power;
		uint64_t version;
	} m[] = { { 8, 0x004d }, { 9, 0x004e }, { 10, 0x0080 } };
	unsigned int i, n;
	uint64_t v;

	assert_null(fakehw_ppc_new(7));
	for (i = 0; i < 3; i++) {
		struct fakehw *hw = fakehw_ppc_new(m[i].power);
		uint64_t errs = 0;

		assert_int_equal(get(hw, PMUVIRT_PPC_SPR_PVR) >> 16, m[i].version);
		assert_true(get(hw, MMCR0) & M0(FC));	/* frozen at reset */
		assert_int_equal(wr(hw, PMUVIRT_PPC_SPR_PVR, 0), -EFAULT);
		errs++;
		assert_int_equal(rd(hw, 1000, &v), -EFAULT);
		assert_int_equal(wr(hw, 1000, 0), -EFAULT);
		errs += 2;
		/* MMCR3 exists from ISA 3.1 (POWER10) on. */
		if (m[i].power == 10) {
			set(hw, PMUVIRT_PPC_SPR_MMCR3, 0x1234);
			assert_int_equal(get(hw, PMUVIRT_PPC_SPR_MMCR3), 0x1234);
			set(hw, MMCR0, 0x200);	/* PMCCEXT */
		} else {
			assert_int_equal(rd(hw, PMUVIRT_PPC_SPR_MMCR3, &v), -EFAULT);
			assert_int_equal(wr(hw, MMCR0, 0x200), -EFAULT);
			errs += 2;
		}
		/* Reserved bits. */
		assert_int_equal(wr(hw, MMCR0, 1ull << 32), -EFAULT);
		assert_int_equal(wr(hw, MMCR0, 0x10000), -EFAULT);
		assert_int_equal(wr(hw, MMCR2, 0x1), -EFAULT);
		assert_int_equal(wr(hw, PMC(3), 0x100000000ull), -EFAULT);
		errs += 4;
		/* User aliases read the privileged registers and refuse writes. */
		set(hw, PMC(2), 77);
		assert_int_equal(get(hw, PMUVIRT_PPC_SPR_UPMC(2)), 77);
		assert_int_equal(get(hw, PMUVIRT_PPC_SPR_UMMCR0), get(hw, MMCR0));
		assert_int_equal(wr(hw, PMUVIRT_PPC_SPR_UPMC(2), 1), -EFAULT);
		errs++;
		/* read_counter is mfspr PMCn. */
		for (n = 1; n <= 6; n++) {
			set(hw, PMC(n), 100 + n);
			assert_int_equal(fakehw_ops(hw)->read_counter(hw, n, &v), 0);
			assert_int_equal(v, 100 + n);
		}
		assert_int_equal(fakehw_ops(hw)->read_counter(hw, 0, &v), -EFAULT);
		assert_int_equal(fakehw_ops(hw)->read_counter(hw, 7, &v), -EFAULT);
		errs += 2;
		/* Other SPRs of the PMU. */
		set(hw, PMUVIRT_PPC_SPR_SIAR, 1);
		set(hw, PMUVIRT_PPC_SPR_SDAR, 2);
		set(hw, PMUVIRT_PPC_SPR_SIER, 3);
		set(hw, PMUVIRT_PPC_SPR_MMCRA, 4);
		assert_int_equal(get(hw, PMUVIRT_PPC_SPR_SIER), 3);
		assert_int_equal(fakehw_stats(hw)->errors, errs);
		fakehw_free(hw);
	}
}

static void test_counting(void **state)
{
	struct fakehw *hw = fakehw_ppc_new(9);

	/* Frozen: nothing counts, but cycles advance the time base. */
	assert_int_equal(fakehw_run(hw, FAKEHW_CYCLES, 10, false), 0);
	assert_int_equal(get(hw, PMC(6)), 0);

	set(hw, MMCR1, sel(1, 0x02) | sel(2, 0x1e) | sel(3, 0xf0) |
		       (0xdull << PMUVIRT_PPC_MMCR1_UNIT_SHIFT(4)) | sel(4, 0x5e));
	set(hw, MMCR0, 0);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 5, false);
	fakehw_run(hw, FAKEHW_CYCLES, 7, true);
	fakehw_run(hw, FAKEHW_BRANCHES, 3, false);
	fakehw_run(hw, FAKEHW_BRANCH_MISSES, 3, false);
	assert_int_equal(get(hw, PMC(1)), 5);
	assert_int_equal(get(hw, PMC(2)), 7);
	assert_int_equal(get(hw, PMC(3)), 0);	/* 0xF0 counts cycles on PMC1 only */
	assert_int_equal(get(hw, PMC(4)), 3);
	assert_int_equal(get(hw, PMC(5)), 5);
	assert_int_equal(get(hw, PMC(6)), 7);

	/* FC14 and FC56. */
	set(hw, MMCR0, M0(FC14));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 1, false);
	assert_int_equal(get(hw, PMC(1)), 5);
	assert_int_equal(get(hw, PMC(5)), 6);
	set(hw, MMCR0, M0(FC56));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 1, false);
	assert_int_equal(get(hw, PMC(1)), 6);
	assert_int_equal(get(hw, PMC(5)), 6);

	/* FCS / FCP. */
	set(hw, MMCR0, M0(FCS));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, true);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 1, false);
	assert_int_equal(get(hw, PMC(1)), 7);
	set(hw, MMCR0, M0(FCP));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, false);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 2, true);
	assert_int_equal(get(hw, PMC(1)), 9);

	/* MMCR2: PMC1 user only, PMC5 kernel only. */
	set(hw, MMCR0, 0);
	set(hw, MMCR2, PMUVIRT_PPC_MMCR2_FCS(1) | PMUVIRT_PPC_MMCR2_FCP(5));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 4, true);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 3, false);
	assert_int_equal(get(hw, PMC(1)), 12);
	assert_int_equal(get(hw, PMC(5)), 13);
	assert_int_equal(fakehw_stats(hw)->errors, 0);
	fakehw_free(hw);
}

static void test_branch_events_by_model(void **state)
{
	struct fakehw *p8 = fakehw_ppc_new(8), *p10 = fakehw_ppc_new(10);

	set(p8, MMCR1, sel(1, 0x68) | sel(4, 0xf6));
	set(p8, MMCR0, 0);
	fakehw_run(p8, FAKEHW_BRANCHES, 11, false);
	fakehw_run(p8, FAKEHW_BRANCH_MISSES, 2, false);
	assert_int_equal(get(p8, PMC(1)), 11);
	assert_int_equal(get(p8, PMC(4)), 2);

	/* POWER10 does not know POWER8's PMC1 0x68. */
	set(p10, MMCR1, sel(1, 0x68));
	set(p10, MMCR0, 0);
	fakehw_run(p10, FAKEHW_BRANCHES, 11, false);
	assert_int_equal(get(p10, PMC(1)), 0);
	fakehw_free(p8);
	fakehw_free(p10);
}

static void test_wrap_and_huge_runs(void **state)
{
	struct fakehw *hw = fakehw_ppc_new(10);
	uint64_t n = 1ull << 62;

	set(hw, MMCR1, sel(2, 0x1e));
	set(hw, PMC(2), 0xfffffff0);
	set(hw, PMC(6), 5);
	set(hw, MMCR0, 0);
	fakehw_run(hw, FAKEHW_CYCLES, 0x20, false);
	assert_int_equal(get(hw, PMC(2)), 0x10);
	/* 2^62 + 3 events at once: fast, exact modulo 2^32, no alert. */
	assert_int_equal(fakehw_run(hw, FAKEHW_CYCLES, n + 3, false), 0);
	assert_int_equal(get(hw, PMC(2)), 0x13);
	assert_int_equal(get(hw, PMC(6)), 5 + 0x20 + 3);
	assert_int_equal(fakehw_stats(hw)->pmis, 0);
	fakehw_free(hw);
}

struct alert_probe {
	struct fakehw *hw;
	unsigned int calls;
	uint64_t pmc1_at_pmi, pmc5_at_pmi, mmcr0_at_pmi;
	bool rearm;
};

static void on_pmi(void *arg)
{
	struct alert_probe *p = arg;

	p->calls++;
	fakehw_peek(p->hw, PMC(1), &p->pmc1_at_pmi);
	fakehw_peek(p->hw, PMC(5), &p->pmc5_at_pmi);
	fakehw_peek(p->hw, MMCR0, &p->mmcr0_at_pmi);
	if (p->rearm) {
		fakehw_poke(p->hw, PMC(1), 0x7fffff00);
		fakehw_poke(p->hw, MMCR0, M0(PMAE) | M0(PMC1CE) | M0(FCECE));
	}
}

static void test_alert_exact(void **state)
{
	struct alert_probe p = { 0 };
	struct fakehw *hw = fakehw_ppc_new(8);

	p.hw = hw;
	fakehw_set_pmi(hw, on_pmi, &p);
	set(hw, MMCR1, sel(1, 0x02));
	set(hw, PMC(1), 0x7ffffff0);
	set(hw, MMCR0, M0(PMAE) | M0(PMC1CE) | M0(FCECE));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 100, false);
	/* The alert is at the exact event that set bit 31. */
	assert_int_equal(p.calls, 1);
	assert_int_equal(p.pmc1_at_pmi, 0x80000000);
	assert_int_equal(p.pmc5_at_pmi, 0x10);
	assert_true(p.mmcr0_at_pmi & M0(FC));
	assert_true(p.mmcr0_at_pmi & M0(PMAO));
	assert_false(p.mmcr0_at_pmi & M0(PMAE));
	/* FCECE froze everything for the rest of the run. */
	assert_int_equal(get(hw, PMC(1)), 0x80000000);
	assert_int_equal(get(hw, PMC(5)), 0x10);

	/* Without FCECE counting goes on, and PMAE is off: one alert only. */
	p.calls = 0;
	set(hw, PMC(1), 0x7ffffff0);
	set(hw, MMCR0, M0(PMAE) | M0(PMC1CE));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 100, false);
	assert_int_equal(p.calls, 1);
	assert_int_equal(get(hw, PMC(1)), 0x7ffffff0ull + 100);

	/* PMC1 condition disabled: PMCjCE does not cover PMC1. */
	p.calls = 0;
	set(hw, PMC(1), 0x7ffffff0);
	set(hw, MMCR0, M0(PMAE) | M0(PMCJCE));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 100, false);
	assert_int_equal(p.calls, 0);

	/*
	 * PMCjCE covers PMC5; a counter already negative alerts at the write
	 * that turns counting on (frozen from there, FCECE), and the PMI
	 * comes before the next event.  PMC5 is written frozen: with PMAE
	 * on, the write of a negative value is an alert itself.
	 */
	set(hw, MMCR0, M0(FC));
	set(hw, PMC(5), 0x80000005);
	set(hw, MMCR0, M0(PMAE) | M0(PMCJCE) | M0(FCECE));
	assert_int_equal(fakehw_stats(hw)->access_alerts, 1);
	assert_int_equal(p.calls, 0);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 3, false);
	assert_int_equal(p.calls, 1);
	assert_int_equal(p.pmc5_at_pmi, 0x80000005);
	assert_int_equal(get(hw, PMC(5)), 0x80000005);

	/* A handler that re-arms gets every alert at its exact event. */
	p.calls = 0;
	p.rearm = true;
	set(hw, MMCR2, 0);
	set(hw, PMC(1), 0x7fffff00);
	set(hw, MMCR0, M0(PMAE) | M0(PMC1CE) | M0(FCECE));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 0x100 * 5 + 7, false);
	assert_int_equal(p.calls, 5);
	assert_int_equal(get(hw, PMC(1)), 0x7fffff00ull + 7);
	assert_int_equal(fakehw_stats(hw)->pmis, 8);
	assert_int_equal(fakehw_stats(hw)->access_alerts, 1);
	assert_int_equal(fakehw_stats(hw)->errors, 0);
	fakehw_free(hw);
}

struct alert_seen {
	unsigned int by_access, by_event;
};

static void on_alert(void *arg, bool by_access)
{
	struct alert_seen *a = arg;

	if (by_access)
		a->by_access++;
	else
		a->by_event++;
}

static void count_pmi(void *arg)
{
	(*(unsigned int *)arg)++;
}

/* A negative PMC with its condition enabled alerts at the write that turns counting on. */
static void test_alert_at_write(void **state)
{
	const uint64_t on = M0(PMAE) | M0(PMCJCE) | M0(FCECE);
	struct alert_seen a = { 0 };
	struct fakehw *hw = fakehw_ppc_new(9);
	unsigned int pmis = 0;

	fakehw_set_pmi(hw, count_pmi, &pmis);
	fakehw_set_alert_hook(hw, on_alert, &a);
	set(hw, MMCR1, sel(2, 0x02));

	/* Frozen (FC): no alert, whatever is negative. */
	set(hw, PMC(2), 0x80000000);
	set(hw, MMCR0, on | M0(FC));
	assert_int_equal(a.by_access, 0);
	/* The condition not enabled: none either. */
	set(hw, MMCR0, M0(PMAE) | M0(PMC1CE) | M0(FCECE));
	assert_int_equal(a.by_access, 0);
	assert_int_equal(get(hw, MMCR0), M0(PMAE) | M0(PMC1CE) | M0(FCECE));

	/* Unfreezing with PMC2 negative: the alert is the write's. */
	set(hw, MMCR0, on | M0(FC));
	set(hw, MMCR0, on);
	assert_int_equal(a.by_access, 1);
	assert_int_equal(get(hw, MMCR0), M0(FC) | M0(FCECE) | M0(PMCJCE) | M0(PMAO));
	/* Taken when code runs: before the first event, which FCECE froze. */
	assert_int_equal(pmis, 0);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, false);
	assert_int_equal(pmis, 1);
	assert_int_equal(a.by_event, 0);
	assert_int_equal(get(hw, PMC(2)), 0x80000000);

	/* A PMC written negative while counting with PMAE: the write alerts. */
	set(hw, PMC(2), 5);
	set(hw, MMCR0, on);
	assert_int_equal(a.by_access, 1);
	set(hw, PMC(6), 0xfffffff0);
	assert_int_equal(a.by_access, 2);
	/* Withdrawn by an MMCR0 write that clears PMAO before code runs: no PMI. */
	set(hw, PMC(6), 0);
	set(hw, MMCR0, M0(FC));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, false);
	assert_int_equal(pmis, 1);

	/* FC56 stops PMC5's counting, not its condition. */
	set(hw, PMC(5), 0x90000000);
	set(hw, MMCR0, on | M0(FC56));
	assert_int_equal(a.by_access, 3);
	/*
	 * Without FCECE the PMCs go on counting: the alert froze nothing.
	 * Both alerts are one exception (PMAO is one bit): one PMI.
	 */
	set(hw, PMC(5), 0);
	set(hw, PMC(2), 0x80000000);
	set(hw, MMCR0, M0(PMAE) | M0(PMCJCE));
	assert_int_equal(a.by_access, 4);
	assert_int_equal(get(hw, MMCR0), M0(PMCJCE) | M0(PMAO));
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 4, false);
	assert_int_equal(pmis, 2);
	assert_int_equal(get(hw, PMC(2)), 0x80000004);
	assert_int_equal(fakehw_stats(hw)->access_alerts, 4);
	assert_int_equal(fakehw_stats(hw)->pmis, 2);
	assert_int_equal(fakehw_stats(hw)->errors, 0);
	fakehw_free(hw);
}

/* A handler whose own write raises the alert again every time: an error, not a hang. */
static void rewrite_mmcr0(void *arg)
{
	struct fakehw *hw = arg;

	set(hw, MMCR0, M0(PMAE) | M0(PMCJCE));
}

static void test_alert_storm(void **state)
{
	struct fakehw *hw = fakehw_ppc_new(8);

	fakehw_set_pmi(hw, rewrite_mmcr0, hw);
	set(hw, PMC(3), 0x80000000);
	set(hw, MMCR0, M0(PMAE) | M0(PMCJCE));
	assert_int_equal(fakehw_run(hw, FAKEHW_INSTRUCTIONS, 1, false), -EFAULT);
	assert_int_equal(fakehw_stats(hw)->errors, 1);
	fakehw_free(hw);
}

static void test_fault_injection(void **state)
{
	struct fakehw *hw = fakehw_ppc_new(9);
	uint64_t v;

	fakehw_fail_access(hw, 2);
	assert_int_equal(rd(hw, MMCR0, &v), 0);
	assert_int_equal(rd(hw, MMCR0, &v), -EFAULT);
	assert_int_equal(rd(hw, MMCR0, &v), 0);
	fakehw_free(hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_counting),
		cmocka_unit_test(test_branch_events_by_model),
		cmocka_unit_test(test_wrap_and_huge_runs),
		cmocka_unit_test(test_alert_exact),
		cmocka_unit_test(test_alert_at_write),
		cmocka_unit_test(test_alert_storm),
		cmocka_unit_test(test_fault_injection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
