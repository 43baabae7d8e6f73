/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* PAPR H_PERFMON: per-domain enable, parameter checks, gating of controls. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>
#include "fakehw.h"
#include "ppc/pmuvirt_ppc.h"

#define EN	PMUVIRT_PPC_PERFMON_ENABLE
#define TG	PMUVIRT_PPC_PERFMON_TG

static void test_modes(void **state)
{
	struct pmuvirt_ppc_domain d;

	pmuvirt_ppc_domain_init(&d);
	assert_false(pmuvirt_ppc_perfmon_enabled(&d));
	assert_int_equal(pmuvirt_ppc_h_perfmon(&d, EN, 0), PMUVIRT_PPC_H_SUCCESS);
	assert_true(pmuvirt_ppc_perfmon_enabled(&d));
	/* Idempotent. */
	assert_int_equal(pmuvirt_ppc_h_perfmon(&d, EN, 0), PMUVIRT_PPC_H_SUCCESS);
	assert_int_equal(d.mode, EN);
	assert_int_equal(pmuvirt_ppc_h_perfmon(&d, TG, 0), PMUVIRT_PPC_H_SUCCESS);
	assert_int_equal(d.mode, EN | TG);
	/* Unknown bits and contradictory requests change nothing. */
	assert_int_equal(pmuvirt_ppc_h_perfmon(&d, 1ull << 61, 0), PMUVIRT_PPC_H_PARAMETER);
	assert_int_equal(pmuvirt_ppc_h_perfmon(&d, 0, 1), PMUVIRT_PPC_H_PARAMETER);
	assert_int_equal(pmuvirt_ppc_h_perfmon(&d, EN, EN), PMUVIRT_PPC_H_PARAMETER);
	assert_int_equal(d.mode, EN | TG);
	assert_int_equal(pmuvirt_ppc_h_perfmon(&d, 0, EN), PMUVIRT_PPC_H_SUCCESS);
	assert_false(pmuvirt_ppc_perfmon_enabled(&d));
	assert_int_equal(d.mode, TG);
	assert_int_equal(pmuvirt_ppc_h_perfmon(&d, 0, 0), PMUVIRT_PPC_H_SUCCESS);
	assert_int_equal(d.calls, 8);
}

static void test_gating(void **state)
{
	struct fakehw *hw = fakehw_ppc_new(10);
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	struct pmuvirt_ppc_domain on, off;
	struct pmuvirt_control ctl = { .version = PMUVIRT_ABI_VERSION, .nr_counters = 1 };
	struct pmuvirt_control none = { .version = PMUVIRT_ABI_VERSION };
	struct pmuvirt_error err = { 0 };
	size_t size = pmuvirt_ctx_size(2);
	struct pmuvirt_ctx *a = calloc(1, size), *b = calloc(1, size);
	uint64_t v[2], m0;

	assert_int_equal(pmuvirt_ppc_probe(&pmu, fakehw_ops(hw), hw), 0);
	assert_int_equal(pmuvirt_pcpu_init(&pc, &pmu, fakehw_ops(hw), hw, 0), 0);
	assert_int_equal(pmuvirt_ctx_init(a, size, &pmu), 0);
	assert_int_equal(pmuvirt_ctx_init(b, size, &pmu), 0);
	ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	pmuvirt_ppc_domain_init(&on);
	pmuvirt_ppc_domain_init(&off);
	pmuvirt_ppc_h_perfmon(&on, EN, 0);

	/* Only the domain that enabled the monitor gets counters. */
	assert_int_equal(pmuvirt_ppc_domain_set_control(&off, NULL, b, &ctl, &err), -EOPNOTSUPP);
	assert_non_null(err.reason);
	assert_int_equal(pmuvirt_ppc_domain_set_control(&off, NULL, b, &none, NULL), 0);
	assert_int_equal(pmuvirt_ppc_domain_set_control(&on, NULL, a, &ctl, NULL), 0);
	assert_int_equal(pmuvirt_ppc_domain_set_control(NULL, NULL, a, &ctl, NULL), -EINVAL);

	assert_int_equal(pmuvirt_switch(&pc, a), 0);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, false);
	assert_int_equal(pmuvirt_switch(&pc, b), 0);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 10, false);
	fakehw_peek(hw, PMUVIRT_PPC_SPR_MMCR0, &m0);
	assert_true(m0 & PMUVIRT_PPC_MMCR0_FC);	/* nothing counts for the other domain */

	/* Turning the monitor off: the host empties the running VCPU's control. */
	assert_int_equal(pmuvirt_switch(&pc, a), 0);
	fakehw_run(hw, FAKEHW_INSTRUCTIONS, 5, false);
	assert_int_equal(pmuvirt_ppc_h_perfmon(&on, 0, EN), PMUVIRT_PPC_H_SUCCESS);
	assert_int_equal(pmuvirt_ppc_domain_set_control(&on, &pc, a, &ctl, NULL), -EOPNOTSUPP);
	assert_int_equal(pmuvirt_read(a, v), 0);
	assert_int_equal(v[0], 15);
	assert_int_equal(pmuvirt_ppc_domain_set_control(&on, &pc, a, &none, NULL), 0);
	fakehw_peek(hw, PMUVIRT_PPC_SPR_MMCR0, &m0);
	assert_true(m0 & PMUVIRT_PPC_MMCR0_FC);
	assert_int_equal(pmuvirt_switch(&pc, NULL), 0);
	assert_int_equal(fakehw_stats(hw)->errors, 0);
	free(a);
	free(b);
	fakehw_free(hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_gating),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
