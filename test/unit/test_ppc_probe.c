/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* POWER probe: PVR decoding, slots, capabilities. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fakehw.h"
#include "ppc/pmuvirt_ppc.h"

#define BIT(e) (1u << (e))

static void check_common(const struct pmuvirt_pmu *pmu)
{
	unsigned int i;

	assert_int_equal(pmu->arch, PMUVIRT_ARCH_PPC);
	assert_int_equal(pmu->caps, PMUVIRT_CAP_FREEZE_ON_PMI);
	assert_int_equal(pmu->nr_slots, 7);
	assert_int_equal(pmu->nr_gp, 4);
	assert_int_equal(pmu->nr_fixed, 2);
	assert_non_null(pmu->ops);
	for (i = 0; i < 6; i++) {
		const struct pmuvirt_slot *s = &pmu->slot[i];

		assert_int_equal(s->cls, i < 4 ? PMUVIRT_CLASS_GP : PMUVIRT_CLASS_FIXED);
		assert_int_equal(s->index, i);
		assert_int_equal(s->width, 32);
		assert_int_equal(s->threshold, 0x80000000ull);
		assert_int_equal(s->user_index, i + 1);	/* UPMCn */
	}
	for (i = 0; i < 4; i++)
		assert_true((pmu->slot[i].events & (BIT(PMUVIRT_EV_INSTRUCTIONS) |
						    BIT(PMUVIRT_EV_CYCLES))) ==
			    (BIT(PMUVIRT_EV_INSTRUCTIONS) | BIT(PMUVIRT_EV_CYCLES)));
	assert_int_equal(pmu->slot[4].events, BIT(PMUVIRT_EV_INSTRUCTIONS));
	assert_int_equal(pmu->slot[5].events, BIT(PMUVIRT_EV_CYCLES));
	assert_int_equal(pmu->slot[6].cls, PMUVIRT_CLASS_TSC);
	assert_int_equal(pmu->slot[6].width, 64);
	assert_int_equal(pmu->slot[6].threshold, 0);
	assert_int_equal(pmu->slot[6].user_index, PMUVIRT_SHARED_TSC);
	assert_int_equal(pmu->slot[6].events, BIT(PMUVIRT_EV_TSC));
}

static void test_models(void **state)
{
	static const struct {
		unsigned int power;
		unsigned int model;
		const char *name;
		unsigned int branch_pmc;
	} m[] = {
		{ 8, PMUVIRT_PPC_POWER8, "POWER8", 1 },
		{ 9, PMUVIRT_PPC_POWER9, "POWER9", 4 },
		{ 10, PMUVIRT_PPC_POWER10, "POWER10", 4 },
	};
	unsigned int i, s;

	for (i = 0; i < 3; i++) {
		struct fakehw *hw = fakehw_ppc_new(m[i].power);
		struct pmuvirt_pmu pmu;
		uint64_t pvr;

		memset(&pmu, 0xa5, sizeof(pmu));
		assert_int_equal(pmuvirt_ppc_probe(&pmu, fakehw_ops(hw), hw), 0);
		check_common(&pmu);
		assert_int_equal(pmu.model, m[i].model);
		assert_string_equal(pmu.name, m[i].name);
		fakehw_peek(hw, PMUVIRT_PPC_SPR_PVR, &pvr);
		assert_int_equal(pmu.arch_data[0], pvr);
		for (s = 0; s < 4; s++) {
			assert_int_equal(!!(pmu.slot[s].events & BIT(PMUVIRT_EV_BRANCHES)),
					 s + 1 == m[i].branch_pmc);
			assert_int_equal(!!(pmu.slot[s].events & BIT(PMUVIRT_EV_BRANCH_MISSES)),
					 s + 1 == 4);
		}
		/* One register read (the PVR), nothing written. */
		assert_int_equal(fakehw_stats(hw)->reg_reads, 1);
		assert_int_equal(fakehw_stats(hw)->reg_writes, 0);
		assert_int_equal(fakehw_stats(hw)->errors, 0);
		fakehw_free(hw);
	}
}

static void test_pvr_table(void **state)
{
	static const struct {
		uint64_t pvr;
		int ret;
		unsigned int model;
	} t[] = {
		{ 0x004b0201, 0, PMUVIRT_PPC_POWER8 },	/* POWER8E */
		{ 0x004c0100, 0, PMUVIRT_PPC_POWER8 },	/* POWER8NVL */
		{ 0x004d0200, 0, PMUVIRT_PPC_POWER8 },
		{ 0x004e1202, 0, PMUVIRT_PPC_POWER9 },
		{ 0x00800100, 0, PMUVIRT_PPC_POWER10 },
		{ 0x003f0201, -ENODEV, 0 },		/* POWER7 */
		{ 0x004a0201, -ENODEV, 0 },		/* POWER7+ */
		{ 0x00820200, -ENODEV, 0 },		/* unknown newer */
		{ 0x80200000, -ENODEV, 0 },		/* Book E */
	};
	struct fakehw *hw = fakehw_ppc_new(9);
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pmuvirt_pmu pmu;

		fakehw_poke(hw, PMUVIRT_PPC_SPR_PVR, t[i].pvr);
		assert_int_equal(pmuvirt_ppc_probe(&pmu, fakehw_ops(hw), hw), t[i].ret);
		if (!t[i].ret)
			assert_int_equal(pmu.model, t[i].model);
	}
	fakehw_free(hw);
}

static void test_probe_errors(void **state)
{
	struct fakehw *hw = fakehw_ppc_new(8);
	struct pmuvirt_pmu pmu;

	fakehw_fail_access(hw, 1);
	assert_int_equal(pmuvirt_ppc_probe(&pmu, fakehw_ops(hw), hw), -EFAULT);
	assert_int_equal(pmuvirt_ppc_probe(NULL, fakehw_ops(hw), hw), -EINVAL);
	assert_int_equal(pmuvirt_ppc_probe(&pmu, NULL, hw), -EINVAL);
	fakehw_free(hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_pvr_table),
		cmocka_unit_test(test_probe_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
