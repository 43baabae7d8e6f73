/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt_x86_probe() on every modelled CPU and on synthetic CPUID tables. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "fakehw_models.h"
#include "x86/pmuvirt_x86.h"
#include "x86/pmuvirt_x86_pmu.h"
#include "pv/pmuvirt_pv.h"

#define INTEL(v, gp, fixed, w, fw) \
	{ .vendor = FAKEHW_INTEL, .version = (v), .nr_gp = (gp), .nr_fixed = (fixed), \
	  .width = (w), .fw_write = (fw) }
#define CAP_GLOBAL (PMUVIRT_CAP_GLOBAL_CTRL | PMUVIRT_CAP_GLOBAL_STATUS)
/* Intel v2 and later, AMD family 10h and later: counting a guest only */
#define G PMUVIRT_CAP_GUEST_ONLY

struct probe_case {
	const char *what;
	struct fakehw_x86_config cfg;
	unsigned int model, nr_gp, nr_fixed, gp_width, fixed_width, caps;
};

static const struct probe_case cases[] = {
	{ "Intel v1 (Core Duo)", FAKEHW_X86_INTEL_V1,
	  PMUVIRT_X86_INTEL_V1, 2, 0, 32, 0, 0 },
	{ "Intel v2 (Core 2)", FAKEHW_X86_INTEL_V2,
	  PMUVIRT_X86_INTEL_V2, 2, 3, 32, 40, CAP_GLOBAL | G },
	{ "Intel v2 32-bit", INTEL(2, 2, 3, 32, false),
	  PMUVIRT_X86_INTEL_V2, 2, 3, 32, 32, CAP_GLOBAL | G },
	{ "Intel v3 legacy writes", FAKEHW_X86_INTEL_V3,
	  PMUVIRT_X86_INTEL_V3, 4, 3, 32, 48, CAP_GLOBAL | G },
	{ "Intel v3 (Haswell)", INTEL(3, 4, 3, 48, true),
	  PMUVIRT_X86_INTEL_V3, 4, 3, 48, 48, CAP_GLOBAL | PMUVIRT_CAP_FW_WRITE | G },
	{ "Intel v4 (Skylake)", INTEL(4, 8, 3, 48, true),
	  PMUVIRT_X86_INTEL_V4, 8, 3, 48, 48, CAP_GLOBAL | PMUVIRT_CAP_FW_WRITE | G },
	{ "Intel v4 40-bit", INTEL(4, 4, 3, 40, true),
	  PMUVIRT_X86_INTEL_V4, 4, 3, 40, 40, CAP_GLOBAL | PMUVIRT_CAP_FW_WRITE | G },
	{ "Intel v5 (Alder Lake)", FAKEHW_X86_INTEL_V5,
	  PMUVIRT_X86_INTEL_V5, 8, 4, 48, 48, CAP_GLOBAL | PMUVIRT_CAP_FW_WRITE | G },
	{ "Intel v5, 16 counters", INTEL(5, 16, 8, 48, true),
	  PMUVIRT_X86_INTEL_V5, 8, 7, 48, 48, CAP_GLOBAL | PMUVIRT_CAP_FW_WRITE | G },
	{ "AMD K8", FAKEHW_X86_AMD_K8,
	  PMUVIRT_X86_AMD_LEGACY, 4, 0, 48, 0, PMUVIRT_CAP_FW_WRITE },
	{ "AMD family 10h", FAKEHW_X86_AMD_10H,
	  PMUVIRT_X86_AMD_LEGACY, 4, 0, 48, 0, PMUVIRT_CAP_FW_WRITE | G },
	{ "AMD family 15h", FAKEHW_X86_AMD_15H,
	  PMUVIRT_X86_AMD_CORE_EXT, 6, 0, 48, 0, PMUVIRT_CAP_FW_WRITE | G },
	{ "AMD Zen (17h)", FAKEHW_X86_AMD_17H,
	  PMUVIRT_X86_AMD_CORE_EXT, 6, 0, 48, 0, PMUVIRT_CAP_FW_WRITE | G },
	{ "AMD Zen 4 (19h)", FAKEHW_X86_AMD_19H,
	  PMUVIRT_X86_AMD_PERFMON_V2, 6, 0, 48, 0, CAP_GLOBAL | PMUVIRT_CAP_FW_WRITE | G },
	{ "AMD PerfMonV2, 4 counters", { .vendor = FAKEHW_AMD, .nr_gp = 4, .amd_family = 0x19,
					 .amd_core_ext = true, .amd_perfmon_v2 = true },
	  PMUVIRT_X86_AMD_PERFMON_V2, 4, 0, 48, 0, CAP_GLOBAL | PMUVIRT_CAP_FW_WRITE | G },
};

static void check_slots(const struct pmuvirt_pmu *pmu, const struct probe_case *c)
{
	unsigned int i, s = 0;
	bool intel = c->cfg.vendor == FAKEHW_INTEL;
	uint32_t gp_events = (1u << PMUVIRT_EV_INSTRUCTIONS) | (1u << PMUVIRT_EV_CYCLES) |
			     (1u << PMUVIRT_EV_BRANCHES) | (1u << PMUVIRT_EV_BRANCH_MISSES);

	assert_int_equal(pmu->nr_slots, c->nr_gp + c->nr_fixed + 1);
	for (i = 0; i < c->nr_gp; i++, s++) {
		assert_int_equal(pmu->slot[s].cls, PMUVIRT_CLASS_GP);
		assert_int_equal(pmu->slot[s].index, i);
		assert_int_equal(pmu->slot[s].width, c->gp_width);
		assert_int_equal(pmu->slot[s].user_index, i + 1);
		assert_int_equal(pmu->slot[s].threshold, 0);
		assert_int_equal(pmu->slot[s].events, gp_events);
	}
	for (i = 0; i < c->nr_fixed; i++, s++) {
		uint32_t ev = i == 0 ? 1u << PMUVIRT_EV_INSTRUCTIONS :
			      i == 1 ? 1u << PMUVIRT_EV_CYCLES : 0;

		assert_true(intel);
		assert_int_equal(pmu->slot[s].cls, PMUVIRT_CLASS_FIXED);
		assert_int_equal(pmu->slot[s].index, i);
		assert_int_equal(pmu->slot[s].width, c->fixed_width);
		assert_int_equal(pmu->slot[s].user_index, ((1u << 30) | i) + 1);
		assert_int_equal(pmu->slot[s].events, ev);
	}
	assert_int_equal(pmu->slot[s].cls, PMUVIRT_CLASS_TSC);
	assert_int_equal(pmu->slot[s].width, 64);
	assert_int_equal(pmu->slot[s].user_index, PMUVIRT_SHARED_TSC);
	assert_int_equal(pmu->slot[s].events, 1u << PMUVIRT_EV_TSC);
}

static void test_models(void **state)
{
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct probe_case *c = &cases[i];
		struct fakehw *hw = fakehw_x86_new(&c->cfg);
		struct pmuvirt_pmu pmu;

		print_message("%s\n", c->what);
		assert_non_null(hw);
		assert_int_equal(pmuvirt_x86_probe(&pmu, fakehw_ops(hw), hw), 0);
		assert_int_equal(fakehw_stats(hw)->errors, 0);
		assert_ptr_not_equal(pmu.ops, NULL);
		assert_int_equal(pmu.arch, PMUVIRT_ARCH_X86);
		assert_int_equal(pmu.model, c->model);
		assert_int_equal(pmu.nr_gp, c->nr_gp);
		assert_int_equal(pmu.nr_fixed, c->nr_fixed);
		assert_int_equal(pmu.caps, c->caps);
		assert_true(pmu.name[0] != 0);
		check_slots(&pmu, c);
		/* Probing writes nothing. */
		assert_int_equal(fakehw_stats(hw)->reg_writes, 0);
		fakehw_free(hw);
	}
}

/* A CPU described by a CPUID table. */
struct syn {
	struct {
		uint32_t leaf, r[4];
	} leaf[8];
	uint64_t perf_caps;
	unsigned int cpuid_calls, reg_reads;
	bool no_cpuid, fail_caps;
};

static int syn_cpuid(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	struct syn *s = arg;
	unsigned int i;

	s->cpuid_calls++;
	if (s->no_cpuid)
		return -EFAULT;
	for (i = 0; i < 8; i++) {
		if (s->leaf[i].leaf == leaf && (leaf || i == 0)) {
			memcpy(out, s->leaf[i].r, 16);
			return 0;
		}
	}
	return -EFAULT;
}

static int syn_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	struct syn *s = arg;

	s->reg_reads++;
	if (reg != 0x345 || s->fail_caps)
		return -EFAULT;
	*val = s->perf_caps;
	return 0;
}

static const struct pmuvirt_hw_ops syn_ops = {
	.read_reg = syn_read_reg,
	.read_cpuid = syn_cpuid,
};

#define GENU 0x756e6547, 0x6c65746e, 0x49656e69	/* EBX, ECX, EDX */

static struct syn intel(uint32_t a_eax, uint32_t a_ebx, uint32_t a_ecx, uint32_t a_edx,
			uint32_t l1_ecx, uint32_t l7_ebx)
{
	struct syn s = {
		.leaf = {
			{ 0, { 0xd, GENU } },
			{ 1, { 0x306c3, 0, l1_ecx, 0x10 } },
			{ 7, { 0, l7_ebx, 0, 0 } },
			{ 0xa, { a_eax, a_ebx, a_ecx, a_edx } },
		},
	};

	return s;
}

static void test_no_pmu(void **state)
{
	struct pmuvirt_pmu pmu;
	struct syn s = intel(0, 0, 0, 0, 0, 0);
	struct syn other = { .leaf = { { 0, { 0xd, 0x68747541, 0x12345678, 0x69746e65 } } } };

	/* Leaf 0AH version 0: the TSC alone. */
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), 0);
	assert_int_equal(pmu.model, PMUVIRT_X86_TSC_ONLY);
	assert_int_equal(pmu.nr_slots, 1);
	assert_int_equal(pmu.nr_gp + pmu.nr_fixed, 0);
	assert_int_equal(pmu.slot[0].cls, PMUVIRT_CLASS_TSC);
	assert_int_equal(pmu.slot[0].user_index, PMUVIRT_SHARED_TSC);
	assert_int_equal(pmu.caps, 0);
	assert_int_equal(s.reg_reads, 0);

	/* Max basic leaf below 0AH. */
	s = intel(0x07300802, 0, 0, 0, 0, 0);
	s.leaf[0].r[0] = 6;
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), 0);
	assert_int_equal(pmu.model, PMUVIRT_X86_TSC_ONLY);

	/* Unknown vendor. */
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &other), 0);
	assert_int_equal(pmu.model, PMUVIRT_X86_TSC_ONLY);
	assert_int_equal(pmu.nr_slots, 1);

	/* No CPUID at all. */
	other.no_cpuid = true;
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &other), -ENODEV);
	{
		struct pmuvirt_hw_ops none = { 0 };

		assert_int_equal(pmuvirt_x86_probe(&pmu, &none, NULL), -ENODEV);
	}
}

static void test_event_mask_and_caps(void **state)
{
	struct pmuvirt_pmu pmu;
	/* v3, 4 x 48 bits, vector length 6: branch misses (bit 6) beyond it. */
	struct syn s = intel(0x06300403, 1u << 5, 0, 3 | (48 << 5), 0, 0);
	unsigned int i;

	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), 0);
	assert_int_equal(pmu.model, PMUVIRT_X86_INTEL_V3);
	for (i = 0; i < 4; i++) {
		assert_int_equal(pmu.slot[i].events,
				 (1u << PMUVIRT_EV_INSTRUCTIONS) | (1u << PMUVIRT_EV_CYCLES));
		assert_int_equal(pmu.slot[i].width, 32);	/* no PDCM: legacy writes */
	}
	assert_int_equal(s.reg_reads, 0);
	assert_int_equal(pmu.caps, CAP_GLOBAL | G);

	/* PDCM set: PERF_CAPABILITIES is read once; FW_WRITE gives the full width. */
	s = intel(0x07300403, 0, 0, 3 | (48 << 5), 1u << 15, 0);
	s.perf_caps = 1u << 13;
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), 0);
	assert_int_equal(s.reg_reads, 1);
	assert_int_equal(pmu.caps, CAP_GLOBAL | PMUVIRT_CAP_FW_WRITE | G);
	assert_int_equal(pmu.slot[0].width, 48);
	assert_int_equal(pmu.slot[0].events & (1u << PMUVIRT_EV_BRANCH_MISSES),
			 1u << PMUVIRT_EV_BRANCH_MISSES);

	/* A failing PERF_CAPABILITIES read is an error, not a guess. */
	s = intel(0x07300403, 0, 0, 3 | (48 << 5), 1u << 15, 0);
	s.fail_caps = true;
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), -EFAULT);
}

static void test_v5_fixed_bitmap(void **state)
{
	struct pmuvirt_pmu pmu;
	/* EDX says one fixed counter, ECX adds counters 2 and 3: fixed 1 is absent. */
	struct syn s = intel(0x07300805, 0, 0xd, 1 | (48 << 5), 1u << 15, 0);

	s.perf_caps = 1u << 13;
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), 0);
	assert_int_equal(pmu.model, PMUVIRT_X86_INTEL_V5);
	assert_int_equal(pmu.nr_gp, 8);
	assert_int_equal(pmu.nr_fixed, 3);
	assert_int_equal(pmu.slot[8].index, 0);
	assert_int_equal(pmu.slot[9].index, 2);
	assert_int_equal(pmu.slot[10].index, 3);
	assert_int_equal(pmu.slot[9].user_index, ((1u << 30) | 2) + 1);
	assert_int_equal(pmu.slot[9].events, 0);
	assert_int_equal(pmu.slot[11].cls, PMUVIRT_CLASS_TSC);
	/* the status and slot translations take the per-slot way */
	assert_true(pmuvirt_x86_layout(&pmu)->flags & PMUVIRT_X86_F_FIXED_HOLES);

	/* A future version is driven as v5. */
	s.leaf[3].r[0] = 0x07300806;
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), 0);
	assert_int_equal(pmu.model, PMUVIRT_X86_INTEL_V5);

	/* Three fixed counters by EDX alone: numbered without holes. */
	s = intel(0x07300805, 0, 0, 3 | (48 << 5), 1u << 15, 0);
	s.perf_caps = 1u << 13;
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), 0);
	assert_int_equal(pmu.nr_fixed, 3);
	assert_false(pmuvirt_x86_layout(&pmu)->flags & PMUVIRT_X86_F_FIXED_HOLES);
}

static void test_amd_synthetic(void **state)
{
	struct pmuvirt_pmu pmu;
	struct syn s = {
		.leaf = {
			{ 0, { 0x10, 0x68747541, 0x444d4163, 0x69746e65 } },
			{ 1, { 0x00a00f11, 0, 0, 0x10 } },	/* family 19h */
			{ 0x80000000u, { 0x80000022u } },
			{ 0x80000001u, { 0, 0, 1u << 23, 0 } },
			{ 0x80000022u, { 1, 0x16, 0, 0 } },	/* 6 counters */
		},
	};

	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), 0);
	assert_int_equal(pmu.model, PMUVIRT_X86_AMD_PERFMON_V2);
	assert_int_equal(pmu.nr_gp, 6);
	assert_int_equal(s.reg_reads, 0);

	/* Family 5 (K6) has no usable counters here. */
	s.leaf[1].r[0] = 0x580;
	assert_int_equal(pmuvirt_x86_probe(&pmu, &syn_ops, &s), 0);
	assert_int_equal(pmu.model, PMUVIRT_X86_TSC_ONLY);
}

/*
 * pmuvirt_x86_slot_msrs() on every modelled CPU, against the addresses of
 * the SDM and the APM written out here, and through the fake, which
 * refuses an MSR its model does not have.
 */
static void test_slot_msrs(void **state)
{
	unsigned int i, s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct probe_case *c = &cases[i];
		struct fakehw *hw = fakehw_x86_new(&c->cfg);
		const struct pmuvirt_hw_ops *ops = fakehw_ops(hw);
		struct pmuvirt_pmu pmu;

		print_message("%s\n", c->what);
		assert_int_equal(pmuvirt_x86_probe(&pmu, ops, hw), 0);
		for (s = 0; s < pmu.nr_slots; s++) {
			const struct pmuvirt_slot *sl = &pmu.slot[s];
			uint32_t ctr = 0xdead, ctl = 0xbeef, want_ctr, want_ctl;
			uint64_t v;

			if (sl->cls == PMUVIRT_CLASS_TSC) {
				assert_int_equal(pmuvirt_x86_slot_msrs(&pmu, s, &ctr, &ctl), -EINVAL);
				assert_int_equal(ctr, 0xdead);
				assert_int_equal(ctl, 0xbeef);
				continue;
			}
			if (sl->cls == PMUVIRT_CLASS_FIXED) {
				want_ctr = 0x309 + sl->index;	/* IA32_FIXED_CTRj */
				want_ctl = 0x38d;		/* IA32_FIXED_CTR_CTRL */
			} else if (c->cfg.vendor == FAKEHW_INTEL) {
				/* IA32_PMCi also under FW_WRITE (writes use 0x4C1 + i) */
				want_ctr = 0xc1 + sl->index;
				want_ctl = 0x186 + sl->index;	/* IA32_PERFEVTSELi */
			} else if (c->model == PMUVIRT_X86_AMD_LEGACY) {
				want_ctr = 0xc0010004u + sl->index;	/* PERF_CTRi */
				want_ctl = 0xc0010000u + sl->index;	/* PERF_CTLi */
			} else {	/* core extension, PerfMonV2 */
				want_ctr = 0xc0010201u + 2 * sl->index;
				want_ctl = 0xc0010200u + 2 * sl->index;
			}
			assert_int_equal(pmuvirt_x86_slot_msrs(&pmu, s, &ctr, &ctl), 0);
			assert_int_equal(ctr, want_ctr);
			assert_int_equal(ctl, want_ctl);
			assert_int_equal(ops->read_reg(hw, ctr, &v), 0);
			assert_int_equal(ops->read_reg(hw, ctl, &v), 0);
		}
		assert_int_equal(fakehw_stats(hw)->errors, 0);
		fakehw_free(hw);
	}
}

/* pmuvirt_x86_status_msr(): the SDM's and the APM's address, or none. */
static void test_status_msr(void **state)
{
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct probe_case *c = &cases[i];
		struct fakehw *hw = fakehw_x86_new(&c->cfg);
		const struct pmuvirt_hw_ops *ops = fakehw_ops(hw);
		struct pmuvirt_pmu pmu;
		uint32_t msr = 0xdead;
		uint64_t v;
		int ret;

		print_message("%s\n", c->what);
		assert_int_equal(pmuvirt_x86_probe(&pmu, ops, hw), 0);
		ret = pmuvirt_x86_status_msr(&pmu, &msr);
		if (!(pmu.caps & PMUVIRT_CAP_GLOBAL_STATUS)) {
			assert_int_equal(ret, -ENODEV);
			assert_int_equal(msr, 0xdead);
		} else {
			assert_int_equal(ret, 0);
			/* IA32_PERF_GLOBAL_STATUS; AMD PerfCntrGlobalStatus */
			assert_int_equal(msr, c->cfg.vendor == FAKEHW_INTEL ? 0x38e : 0xc0000300u);
			assert_int_equal(ops->read_reg(hw, msr, &v), 0);
		}
		assert_int_equal(fakehw_stats(hw)->errors, 0);
		fakehw_free(hw);
	}
}

/* No MSRs outside an x86 PMU's slots, nor for a PMU of another backend. */
static void test_slot_msrs_refused(void **state)
{
	const struct fakehw_x86_config cfg = FAKEHW_X86_INTEL_V4;
	struct fakehw *hw = fakehw_x86_new(&cfg);
	struct pmuvirt_pmu pmu, pv, none;
	uint32_t ctr = 7, ctl = 7;

	assert_int_equal(pmuvirt_x86_probe(&pmu, fakehw_ops(hw), hw), 0);
	assert_int_equal(pmuvirt_x86_slot_msrs(&pmu, pmu.nr_slots, &ctr, &ctl), -EINVAL);
	assert_int_equal(pmuvirt_x86_slot_msrs(&pmu, 1000, &ctr, &ctl), -EINVAL);
	assert_int_equal(pmuvirt_x86_slot_msrs(NULL, 0, &ctr, &ctl), -EINVAL);
	/* A guest instance on x86 has slots too, but no MSRs of its own. */
	assert_int_equal(pmuvirt_pv_probe(&pv, &pmu), 0);
	assert_int_equal(pmuvirt_x86_slot_msrs(&pv, 0, &ctr, &ctl), -EINVAL);
	memset(&none, 0, sizeof(none));
	assert_int_equal(pmuvirt_x86_slot_msrs(&none, 0, &ctr, &ctl), -EINVAL);
	assert_int_equal(pmuvirt_x86_status_msr(&pv, &ctr), -EINVAL);
	assert_int_equal(pmuvirt_x86_status_msr(&none, &ctr), -EINVAL);
	assert_int_equal(pmuvirt_x86_status_msr(NULL, &ctr), -EINVAL);
	assert_int_equal(ctr, 7);
	assert_int_equal(ctl, 7);
	fakehw_free(hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_no_pmu),
		cmocka_unit_test(test_event_mask_and_caps),
		cmocka_unit_test(test_v5_fixed_bitmap),
		cmocka_unit_test(test_amd_synthetic),
		cmocka_unit_test(test_slot_msrs),
		cmocka_unit_test(test_status_msr),
		cmocka_unit_test(test_slot_msrs_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
