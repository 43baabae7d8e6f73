/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * x86 backend, Intel: architectural performance monitoring v1-v5 (SDM
 * vol. 3B), probed from CPUID 0AH.  Fills the layout x86.c drives.
 */
#include "pmuvirt_x86_pmu.h"

static const uint8_t intel_codes[PMUVIRT_EV_NR] = {
	[PMUVIRT_EV_INSTRUCTIONS] = 0xc0,
	[PMUVIRT_EV_CYCLES] = 0x3c,
	[PMUVIRT_EV_BRANCHES] = 0xc4,
	[PMUVIRT_EV_BRANCH_MISSES] = 0xc5,
};

/* CPUID.0AH:EBX bit for each portable event (bit set = not available). */
static const int8_t intel_ebx_bit[PMUVIRT_EV_NR] = {
	[PMUVIRT_EV_NONE] = -1,
	[PMUVIRT_EV_INSTRUCTIONS] = 1,
	[PMUVIRT_EV_CYCLES] = 0,
	[PMUVIRT_EV_BRANCHES] = 5,
	[PMUVIRT_EV_BRANCH_MISSES] = 6,
	[PMUVIRT_EV_TSC] = -1,
};

#define IN_TX		PMUVIRT_EVSEL_INTEL_IN_TX
#define IN_TXCP		PMUVIRT_EVSEL_INTEL_IN_TXCP

/* SDM: IN_TXCP is only supported on IA32_PERFEVTSEL2. */
static PMUVIRT_CF_CHECK bool intel_raw_fits(const struct pmuvirt_x86_layout *l, uint64_t code,
					    unsigned int index)
{
	if ((code & IN_TXCP) && (l->flags & PMUVIRT_X86_F_RTM))
		return index == 2;
	return true;
}

static PMUVIRT_CF_CHECK int intel_check_raw(const struct pmuvirt_x86_layout *l, unsigned int i,
					    unsigned int index, uint64_t code,
					    struct pmuvirt_error *err)
{
	if ((code & (IN_TX | IN_TXCP)) && !(l->flags & PMUVIRT_X86_F_RTM))
		return pmuvirt_fail(err, (int)i, "TSX qualifiers (bits 32, 33) need a CPU with RTM",
				    -EOPNOTSUPP);
	if (code & ~l->raw_ok)
		return pmuvirt_fail(err, (int)i, "Intel event select bits 63:34 are reserved",
				    -EINVAL);
	if ((code & IN_TXCP) && index != 2)
		return pmuvirt_fail(err, (int)i, "IN_TXCP (bit 33) works only on general counter 2",
				    -EINVAL);
	return 0;
}

static const struct pmuvirt_x86_vendor intel_vendor = {
	.codes = intel_codes,
	.check_raw = intel_check_raw,
	.raw_fits = intel_raw_fits,
};

int pmuvirt_x86_intel_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *arg,
			    uint32_t max_leaf)
{
	static const char *const names[] = {
		"Intel arch perfmon v1", "Intel arch perfmon v2", "Intel arch perfmon v3",
		"Intel arch perfmon v4", "Intel arch perfmon v5",
	};
	struct pmuvirt_x86_layout *l = pmuvirt_x86_layout_w(pmu);
	uint32_t a[4], l1[4], l7[4] = { 0 };
	unsigned int version, nr_gp, width, len, nr_fixed = 0, fwidth = 0, i, bitmap = 0;
	uint32_t events = 0;
	uint64_t caps = 0;
	int ret;

	if (max_leaf < 0xa)
		return 0;
	ret = hw->read_cpuid(arg, 0xa, 0, a);
	if (ret)
		return ret;
	version = a[0] & 0xff;
	nr_gp = (a[0] >> 8) & 0xff;
	width = (a[0] >> 16) & 0xff;
	len = a[0] >> 24;
	if (!version || (!nr_gp && version < 2))
		return 0;
	if (nr_gp && (width < 32 || width > 64))
		return 0;
	if (version >= 2) {
		nr_fixed = a[3] & 0x1f;
		fwidth = (a[3] >> 5) & 0xff;
		if (version >= 5)
			bitmap = a[2];
		if (fwidth < 32 || fwidth > 64)
			nr_fixed = bitmap = 0;
	}
	ret = hw->read_cpuid(arg, 1, 0, l1);
	if (ret)
		return ret;
	if (l1[2] & (1u << 15)) {	/* PDCM: IA32_PERF_CAPABILITIES exists */
		ret = hw->read_reg(arg, PMUVIRT_MSR_IA32_PERF_CAPABILITIES, &caps);
		if (ret)
			return ret;
	}
	if (max_leaf >= 7) {
		ret = hw->read_cpuid(arg, 7, 0, l7);
		if (ret)
			return ret;
	}

	for (i = PMUVIRT_EV_INSTRUCTIONS; i < PMUVIRT_EV_NR; i++) {
		int bit = intel_ebx_bit[i];

		if (bit >= 0 && (unsigned int)bit < len && !(a[1] & (1u << bit)))
			events |= 1u << i;
	}

	pmu->model = PMUVIRT_X86_INTEL_V1 + (version > 5 ? 4 : version - 1);
	pmuvirt_pmu_set_name(pmu, NULL, names[pmu->model - PMUVIRT_X86_INTEL_V1]);
	l->vendor = &intel_vendor;
	l->events = events;
	l->arch_unavail = (uint8_t)(a[1] | (len < 8 ? ~0u << len : 0));
	l->cpuid_width = (uint8_t)width;
	l->raw_ok = PMUVIRT_EVSEL_LOW_FREE;
	if (version >= 3 && (l7[1] & (1u << 11))) {	/* CPUID.7.0:EBX.RTM */
		l->flags |= PMUVIRT_X86_F_RTM;
		l->raw_ok |= IN_TX | IN_TXCP;
	}
	l->evsel = PMUVIRT_MSR_IA32_PERFEVTSEL0;
	l->ctr = PMUVIRT_MSR_IA32_PMC0;
	l->stride = 1;
	l->fixed_ctr = PMUVIRT_MSR_IA32_FIXED_CTR0;
	l->fixed_ctrl = PMUVIRT_MSR_IA32_FIXED_CTR_CTRL;
	if (version >= 2) {
		pmu->caps |= PMUVIRT_CAP_GLOBAL_CTRL | PMUVIRT_CAP_GLOBAL_STATUS;
		l->global_ctrl = PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL;
		l->global_status = PMUVIRT_MSR_IA32_PERF_GLOBAL_STATUS;
		l->global_clear = PMUVIRT_MSR_IA32_PERF_GLOBAL_OVF_CTRL;
		/* VMX loads IA32_PERF_GLOBAL_CTRL at VM entry and exit (SDM 25.7, 26.3) */
		l->flags |= PMUVIRT_X86_F_GUEST_SWITCH;
		pmu->caps |= PMUVIRT_CAP_GUEST_ONLY;
	}
	if (caps & PMUVIRT_PERF_CAP_FW_WRITE) {
		pmu->caps |= PMUVIRT_CAP_FW_WRITE;
		l->ctr_write = PMUVIRT_MSR_IA32_A_PMC0;
		l->gp_width = (uint8_t)width;
	} else {
		l->flags |= PMUVIRT_X86_F_LEGACY_WRITE;
		l->ctr_write = PMUVIRT_MSR_IA32_PMC0;
		l->gp_width = 32;
	}
	l->nr_gp = (uint8_t)(nr_gp > PMUVIRT_MAX_GP ? PMUVIRT_MAX_GP : nr_gp);
	pmuvirt_x86_add_gp(pmu);

	/* v5: counter i exists if ECX bit i is set or i < EDX[4:0]. */
	for (i = 0; i < 32 && version >= 2; i++) {
		uint32_t ev = 0;

		if (!(i < nr_fixed || (bitmap & (1u << i))))
			continue;
		l->nr_fixed = (uint8_t)(i + 1);
		if (pmu->nr_fixed >= PMUVIRT_MAX_FIXED)
			continue;
		if (i == 0)
			ev = 1u << PMUVIRT_EV_INSTRUCTIONS;
		else if (i == 1)
			ev = 1u << PMUVIRT_EV_CYCLES;
		pmuvirt_pmu_add_slot(pmu, PMUVIRT_CLASS_FIXED, i, fwidth, ev,
				     (PMUVIRT_RDPMC_FIXED | i) + 1, 0);
		if (i != pmu->nr_fixed)
			l->flags |= PMUVIRT_X86_F_FIXED_HOLES;
		pmu->nr_fixed++;
	}
	return 0;
}
