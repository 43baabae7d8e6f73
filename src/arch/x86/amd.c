/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * x86 backend, AMD (APM vol. 2, 13.2): the legacy four counters (K7 to
 * family 10h), the core performance extension (six counters at
 * 0xC0010200, family 15h and Zen) and PerfMonV2 (global control and
 * status).  Fills the layout x86.c drives.
 */
#include "pmuvirt_x86_pmu.h"

static const uint8_t amd_codes[PMUVIRT_EV_NR] = {
	[PMUVIRT_EV_INSTRUCTIONS] = 0xc0,
	[PMUVIRT_EV_CYCLES] = 0x76,
	[PMUVIRT_EV_BRANCHES] = 0xc2,
	[PMUVIRT_EV_BRANCH_MISSES] = 0xc3,
};

static PMUVIRT_CF_CHECK int amd_check_raw(const struct pmuvirt_x86_layout *l, unsigned int i,
					  unsigned int index, uint64_t code,
					  struct pmuvirt_error *err)
{
	(void)index;
	if (code & (PMUVIRT_EVSEL_AMD_HOST_ONLY | PMUVIRT_EVSEL_AMD_GUEST_ONLY))
		return pmuvirt_fail(err, (int)i,
				    "HostOnly/GuestOnly (bits 41, 40): pmuvirt switches counters itself",
				    -EINVAL);
	if (code & PMUVIRT_EVSEL_AMD_EVENT_HI & ~l->raw_ok)
		return pmuvirt_fail(err, (int)i, "event select bits 35:32 do not exist on family 0Fh",
				    -EINVAL);
	if (code & ~l->raw_ok)
		return pmuvirt_fail(err, (int)i, "AMD event select reserved bits are set", -EINVAL);
	return 0;
}

static const struct pmuvirt_x86_vendor amd_vendor = {
	.codes = amd_codes,
	.check_raw = amd_check_raw,
	.raw_fits = NULL,
};

int pmuvirt_x86_amd_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *arg)
{
	struct pmuvirt_x86_layout *l = pmuvirt_x86_layout_w(pmu);
	uint32_t l1[4], e0[4], e1[4] = { 0 }, e22[4] = { 0 };
	unsigned int family, nr;
	int ret;

	ret = hw->read_cpuid(arg, 1, 0, l1);
	if (ret)
		return ret;
	family = (l1[0] >> 8) & 0xf;
	if (family == 0xf)
		family += (l1[0] >> 20) & 0xff;
	if (family < 6)
		return 0;
	ret = hw->read_cpuid(arg, 0x80000000u, 0, e0);
	if (ret)
		return ret;
	if (e0[0] >= 0x80000001u) {
		ret = hw->read_cpuid(arg, 0x80000001u, 0, e1);
		if (ret)
			return ret;
	}
	if (e0[0] >= 0x80000022u) {
		ret = hw->read_cpuid(arg, 0x80000022u, 0, e22);
		if (ret)
			return ret;
	}

	l->vendor = &amd_vendor;
	l->events = PMUVIRT_X86_GP_EVENTS;
	l->cpuid_width = 48;
	l->family = (uint8_t)(family > 0xff ? 0xff : family);
	l->raw_ok = PMUVIRT_EVSEL_LOW_FREE | (family >= 0x10 ? PMUVIRT_EVSEL_AMD_EVENT_HI : 0);
	if (family >= 0x10) {
		/* HostOnly/GuestOnly (APM vol. 2, 13.2.1), pmuvirt's own bits */
		l->flags |= PMUVIRT_X86_F_GUEST_BITS;
		pmu->caps |= PMUVIRT_CAP_GUEST_ONLY;
	}
	if (e22[0] & 1) {
		pmu->model = PMUVIRT_X86_AMD_PERFMON_V2;
		pmu->caps |= PMUVIRT_CAP_GLOBAL_CTRL | PMUVIRT_CAP_GLOBAL_STATUS;
		l->global_ctrl = PMUVIRT_MSR_AMD_GLOBAL_CTL;
		l->global_status = PMUVIRT_MSR_AMD_GLOBAL_STATUS;
		l->global_clear = PMUVIRT_MSR_AMD_GLOBAL_STATUS_CLR;
		nr = e22[1] & 0xf;
		pmuvirt_pmu_set_name(pmu, NULL, "AMD PerfMonV2");
	} else if (e1[2] & (1u << 23)) {
		pmu->model = PMUVIRT_X86_AMD_CORE_EXT;
		nr = 6;
		pmuvirt_pmu_set_name(pmu, NULL, "AMD core performance extension");
	} else {
		pmu->model = PMUVIRT_X86_AMD_LEGACY;
		nr = 4;
		pmuvirt_pmu_set_name(pmu, NULL, "AMD legacy PMU");
	}
	if (pmu->model == PMUVIRT_X86_AMD_LEGACY) {
		l->evsel = PMUVIRT_MSR_AMD_PERF_CTL0;
		l->ctr = PMUVIRT_MSR_AMD_PERF_CTR0;
		l->stride = 1;
	} else {
		l->evsel = PMUVIRT_MSR_AMD_EXT_PERF_CTL0;
		l->ctr = PMUVIRT_MSR_AMD_EXT_PERF_CTR0;
		l->stride = 2;
	}
	l->ctr_write = l->ctr;
	pmu->caps |= PMUVIRT_CAP_FW_WRITE;	/* PERF_CTRs take all 48 bits */
	l->gp_width = 48;
	l->nr_gp = (uint8_t)(nr > PMUVIRT_MAX_GP ? PMUVIRT_MAX_GP : nr);
	pmuvirt_x86_add_gp(pmu);
	return 0;
}
