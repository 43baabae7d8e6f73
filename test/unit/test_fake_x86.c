/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* The fake x86 PMU behaves as the SDM and the APM describe. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "rig.h"

#define EN	(1ull << 22)
#define INT	(1ull << 20)
#define USR	(1ull << 16)
#define OS	(1ull << 17)

static struct fakehw *hw;
static const struct pmuvirt_hw_ops *ops;

static void use(const struct fakehw_x86_config *cfg)
{
	if (hw)
		fakehw_free(hw);
	hw = fakehw_x86_new(cfg);
	assert_non_null(hw);
	ops = fakehw_ops(hw);
}

static int teardown(void **state)
{
	fakehw_free(hw);
	hw = NULL;
	return 0;
}

static uint64_t rd(uint32_t msr)
{
	uint64_t v = 0;

	assert_int_equal(ops->read_reg(hw, msr, &v), 0);
	return v;
}

static void wr(uint32_t msr, uint64_t v)
{
	assert_int_equal(ops->write_reg(hw, msr, v), 0);
}

/* The access must be refused and counted as an error. */
static void wr_bad(uint32_t msr, uint64_t v)
{
	uint64_t errors = fakehw_stats(hw)->errors;

	assert_int_equal(ops->write_reg(hw, msr, v), -EFAULT);
	assert_int_equal(fakehw_stats(hw)->errors, errors + 1);
}

static void rd_bad(uint32_t msr)
{
	uint64_t v, errors = fakehw_stats(hw)->errors;

	assert_int_equal(ops->read_reg(hw, msr, &v), -EFAULT);
	assert_int_equal(fakehw_stats(hw)->errors, errors + 1);
}

static uint64_t pmc(uint32_t idx)
{
	uint64_t v = 0;

	assert_int_equal(ops->read_counter(hw, idx, &v), 0);
	return v;
}

static void test_legacy_write_sign_extends(void **state)
{
	use(&rig_intel_v4);
	wr(0xc1, 0x80000000u);
	assert_int_equal(rd(0xc1), 0xffff80000000ull);
	assert_int_equal(pmc(0), 0xffff80000000ull);
	wr(0xc1, 0x7fffffffu);
	assert_int_equal(rd(0xc1), 0x7fffffffull);
	/* EDX is dropped: only bits 31:0 reach the counter. */
	wr(0xc2, 0x123400000005ull);
	assert_int_equal(rd(0xc2), 5);
	use(&rig_intel_v2);
	wr(0xc1, 0xffffffffu);
	assert_int_equal(rd(0xc1), 0xffffffffffull);
	assert_int_equal(fakehw_stats(hw)->errors, 0);
}

static void test_full_width_write(void **state)
{
	use(&rig_intel_v4);
	assert_int_equal(rd(0x345) & (1u << 13), 1u << 13);
	wr(0x4c1, 0x123456789abcull);
	assert_int_equal(rd(0xc1), 0x123456789abcull);
	assert_int_equal(rd(0x4c1), 0x123456789abcull);
	wr_bad(0x4c1, 1ull << 48);
	assert_int_equal(rd(0xc1), 0x123456789abcull);
	/* Fixed counters take their full width too, nothing above. */
	wr(0x309, 0xfffffffffff0ull);
	wr_bad(0x309, 1ull << 48);
	use(&rig_intel_v2);
	assert_int_equal(rd(0x345) & (1u << 13), 0);
	rd_bad(0x4c1);
	wr_bad(0x4c1, 1);
}

static void test_strict_registers(void **state)
{
	uint64_t v;
	uint32_t out[4];

	use(&rig_intel_v2);
	rd_bad(0x1234);
	rd_bad(0xc3);			/* only two counters */
	rd_bad(0x188);
	wr_bad(0x186, 1ull << 21);	/* AnyThread does not exist before v3 */
	wr_bad(0x186, 1ull << 32);	/* no TSX on this model */
	wr(0x186, 0xffdfffffull);	/* every other low bit is defined */
	wr_bad(0x38e, 0);		/* GLOBAL_STATUS is read-only */
	wr_bad(0x38f, 1ull << 2);	/* no third general counter */
	wr_bad(0x38f, 1ull << 35);	/* no fourth fixed counter */
	wr(0x38f, 0x700000003ull);
	wr_bad(0x38d, 0x4);		/* fixed AnyThread before v3 */
	wr_bad(0x38d, 0x1000);		/* no fixed counter 3 */
	wr(0x38d, 0xbbb);
	wr_bad(0x391, 1);		/* STATUS_SET is v4 */
	wr_bad(0x390, 1ull << 4);
	wr_bad(0x345, 0);
	assert_int_equal(ops->read_counter(hw, 2, &v), -EFAULT);
	assert_int_equal(ops->read_counter(hw, (1u << 30) | 3, &v), -EFAULT);
	assert_int_equal(ops->read_counter(hw, (1u << 30) | 2, &v), 0);
	assert_int_equal(ops->read_counter(hw, 1u << 31, &v), -EFAULT);
	assert_int_equal(ops->read_cpuid(hw, 0x80000022u, 0, out), -EFAULT);
	assert_int_equal(ops->read_cpuid(hw, 2, 0, out), -EFAULT);

	use(&rig_intel_v4);
	wr(0x186, 1ull << 21);
	wr(0x186, 3ull << 32);		/* RTM model: IN_TX, IN_TXCP */
	wr_bad(0x186, 1ull << 34);
	wr(0x38d, 0xfff);

	use(&rig_intel_v1);
	rd_bad(0x38f);
	rd_bad(0x38d);
	rd_bad(0x309);
	rd_bad(0x345);			/* no PDCM */
	assert_int_equal(ops->read_cpuid(hw, 0xa, 0, out), 0);
	assert_int_equal(out[0] & 0xff, 1);
	assert_int_equal(out[3], 0);

	use(&rig_amd_k8);
	assert_int_equal(ops->read_cpuid(hw, 0xa, 0, out), -EFAULT);
	assert_int_equal(ops->read_cpuid(hw, 7, 0, out), -EFAULT);	/* max leaf 1 */
	wr_bad(0xc0010000u, 1ull << 19);
	wr_bad(0xc0010000u, 1ull << 21);
	wr_bad(0xc0010000u, 1ull << 32);	/* event bits 35:32 are family 10h+ */
	wr_bad(0xc0010000u, 1ull << 41);
	wr_bad(0xc0010004u, 1ull << 48);
	rd_bad(0xc0010200u);
	rd_bad(0xc0000300u);
	assert_int_equal(ops->read_counter(hw, 4, &v), -EFAULT);

	use(&rig_amd_17h);
	wr(0xc0010200u, 0xf00000000ull | (3ull << 40));
	wr_bad(0xc0010200u, 1ull << 36);
	wr_bad(0xc0010200u, 1ull << 42);
	/* Legacy addresses alias the first four counters. */
	wr(0xc0010203u, 77);
	assert_int_equal(rd(0xc0010005u), 77);
	assert_int_equal(pmc(1), 77);
	rd_bad(0xc001020cu);
	rd_bad(0xc0000301u);
	assert_int_equal(ops->read_counter(hw, 6, &v), -EFAULT);
	assert_int_equal(ops->read_cpuid(hw, 0x80000022u, 0, out), -EFAULT);
}

static void test_counting_filters(void **state)
{
	use(&rig_intel_v4);
	wr(0x38f, 0);
	wr(0x186, 0xc0 | USR | EN);
	wr(0x187, 0x3c | OS | EN);
	wr(0x188, 0xc4 | USR | OS);		/* not enabled */
	wr(0x189, 0x1c0 | USR | EN);		/* unit mask: not modelled, no count */
	wr(0x38d, 0x2 | (0x1 << 4));		/* fixed0 user, fixed1 kernel */
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, false);
	assert_int_equal(pmc(0), 0);		/* GLOBAL_CTRL gates everything */
	wr(0x38f, 0x30000000full);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, false);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 7, true);
	fakehw_run(hw, FAKEHW_CYCLES, 5, true);
	fakehw_run(hw, FAKEHW_CYCLES, 3, false);
	fakehw_run(hw, FAKEHW_BRANCHES, 3, false);
	assert_int_equal(pmc(0), 10);
	assert_int_equal(pmc(1), 5);
	assert_int_equal(pmc(2), 0);
	assert_int_equal(pmc(3), 0);
	assert_int_equal(pmc(1u << 30), 10);
	assert_int_equal(pmc((1u << 30) | 1), 5);
	assert_int_equal(pmc((1u << 30) | 2), 0);	/* not enabled in GLOBAL_CTRL */

	use(&rig_amd_19h);
	wr(0xc0000301u, 0);
	wr(0xc0010200u, 0x76 | USR | EN);
	wr(0xc0010202u, 0xc2 | USR | OS | EN);
	wr(0xc0010204u, 0xc3 | USR | EN | (1ull << 40));	/* GuestOnly: the fake is host */
	fakehw_run(hw, FAKEHW_CYCLES, 4, false);
	assert_int_equal(pmc(0), 0);
	wr(0xc0000301u, 0x7);
	fakehw_run(hw, FAKEHW_CYCLES, 4, false);
	fakehw_run(hw, FAKEHW_BRANCHES, 6, true);
	fakehw_run(hw, FAKEHW_BRANCH_MISSES, 6, false);
	assert_int_equal(pmc(0), 4);
	assert_int_equal(pmc(1), 6);
	assert_int_equal(pmc(2), 0);

	use(&rig_amd_k8);
	wr(0xc0010001u, 0xc0 | USR | EN);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 9, false);
	assert_int_equal(pmc(1), 9);
	assert_int_equal(fakehw_stats(hw)->errors, 0);
}

struct pmi_probe {
	unsigned int calls;
	uint32_t msr;
	uint64_t seen;
};

static void on_pmi(void *arg)
{
	struct pmi_probe *p = arg;

	p->calls++;
	assert_int_equal(fakehw_peek(hw, p->msr, &p->seen), 0);
}

static void test_exact_pmi_and_status(void **state)
{
	struct pmi_probe p = { .msr = 0xc1 };
	uint64_t v;

	use(&rig_intel_v4);
	fakehw_set_pmi(hw, on_pmi, &p);
	wr(0x4c1, (1ull << 48) - 10);
	wr(0x186, 0xc0 | USR | EN | INT);
	wr(0x4c2, (1ull << 48) - 3);
	wr(0x187, 0xc0 | USR | EN);		/* no INT: status only */
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 9, false);
	assert_int_equal(p.calls, 0);
	assert_int_equal(rd(0x38e), 0x2);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 6, false);
	assert_int_equal(p.calls, 1);
	assert_int_equal(p.seen, 0);		/* raised right at the wrap */
	assert_int_equal(pmc(0), 5);
	assert_int_equal(rd(0x38e), 0x3);
	wr(0x390, 0x1);
	assert_int_equal(rd(0x38e), 0x2);
	wr(0x391, 1ull << 32);			/* v4 STATUS_SET */
	assert_int_equal(rd(0x38e), 0x100000002ull);
	wr(0x390, 0x100000002ull);
	assert_int_equal(rd(0x38e), 0);

	/* Fixed counter PMI bit. */
	p.msr = 0x30a;
	p.calls = 0;
	wr(0x30a, (1ull << 48) - 1);
	wr(0x38d, 0xa << 4);
	wr(0x38f, 1ull << 33);
	fakehw_run(hw, FAKEHW_CYCLES, 1, false);
	assert_int_equal(p.calls, 1);
	assert_int_equal(p.seen, 0);
	assert_int_equal(rd(0x38e) & (1ull << 33), 1ull << 33);

	/* Legacy 32-bit arming: -n sign-extended interrupts after n events. */
	use(&rig_intel_v2);
	p.msr = 0xc1;
	p.calls = 0;
	fakehw_set_pmi(hw, on_pmi, &p);
	wr(0xc1, (uint32_t)-1000);
	wr(0x186, 0x3c | OS | EN | INT);
	fakehw_run(hw, FAKEHW_CYCLES, 999, true);
	assert_int_equal(p.calls, 0);
	fakehw_run(hw, FAKEHW_CYCLES, 1, true);
	assert_int_equal(p.calls, 1);
	assert_int_equal(pmc(0), 0);

	/* v1 and AMD legacy have no status register but still interrupt. */
	use(&rig_intel_v1);
	p.calls = 0;
	fakehw_set_pmi(hw, on_pmi, &p);
	wr(0xc1, 0xfffffffeu);
	wr(0x186, 0xc0 | USR | EN | INT);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 3, false);
	assert_int_equal(p.calls, 1);
	assert_int_equal(pmc(0), 1);

	use(&rig_amd_19h);
	p.msr = 0xc0010203u;
	p.calls = 0;
	fakehw_set_pmi(hw, on_pmi, &p);
	wr(0xc0010203u, (1ull << 48) - 2);
	wr(0xc0010202u, 0xc0 | OS | EN | INT);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 2, true);
	assert_int_equal(p.calls, 1);
	assert_int_equal(p.seen, 0);
	assert_int_equal(rd(0xc0000300u), 0x2);
	wr_bad(0xc0000300u, 0);
	wr(0xc0000302u, 0x2);
	assert_int_equal(rd(0xc0000300u), 0);
	assert_int_equal(ops->read_reg(hw, 0xc0000303u, &v), -EFAULT);
}

struct refill {
	unsigned int calls;
	uint64_t at;
};

static void on_pmi_count(void *arg)
{
	struct refill *r = arg;

	r->calls++;
}

static void test_huge_runs(void **state)
{
	struct refill r = { 0 };

	use(&rig_intel_v4);
	fakehw_set_pmi(hw, on_pmi_count, &r);
	wr(0x38f, 0x3);
	wr(0x186, 0xc0 | USR | EN | INT);
	wr(0x187, 0xc0 | USR | EN);
	wr(0x4c2, 5);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 1ull << 62, false);
	assert_int_equal(r.calls, 1u << 14);	/* one per 2^48 */
	assert_int_equal(pmc(0), 0);
	assert_int_equal(pmc(1), 5);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, (1ull << 62) + 12345, false);
	assert_int_equal(r.calls, 2u << 14);
	assert_int_equal(pmc(0), 12345);

	/* No interrupt: a single jump, status set once. */
	use(&rig_intel_v2);
	r.calls = 0;
	fakehw_set_pmi(hw, on_pmi_count, &r);
	wr(0x186, 0xc0 | USR | EN);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, (1ull << 62) + 77, false);
	assert_int_equal(r.calls, 0);
	assert_int_equal(pmc(0), 77);
	assert_int_equal(rd(0x38e), 1);
	assert_int_equal(fakehw_stats(hw)->errors, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_legacy_write_sign_extends, teardown),
		cmocka_unit_test_teardown(test_full_width_write, teardown),
		cmocka_unit_test_teardown(test_strict_registers, teardown),
		cmocka_unit_test_teardown(test_counting_filters, teardown),
		cmocka_unit_test_teardown(test_exact_pmi_and_status, teardown),
		cmocka_unit_test_teardown(test_huge_runs, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
