/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The emulated PMU's registers against a strict model written here from
 * the SDM (vol. 3B, "Performance Monitoring", vol. 4) and the APM (vol. 2,
 * 13.2): for Intel v1 to v5 (and a v5 model with a fixed-counter bitmap),
 * AMD K7, K8, family 10h (legacy), 17h (core extension) and 19h (PerfMonV2), every
 * MSR of the PMU's ranges exists or not as the model says, every reserved
 * bit of every register is refused with nothing changed, every valid write
 * reads back as the architecture says, and the CPUID leaves describe it.
 */
#include "vpmu_rig.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

enum kind {
	K_NONE,
	K_SEL,		/* event select */
	K_PMC,		/* IA32_PMCx: bits 31:0 sign-extended, cut to the width */
	K_CTR,		/* full-width counter */
	K_RO,		/* read-only: GLOBAL_STATUS, PERF_CAPABILITIES */
	K_RW,		/* FIXED_CTR_CTRL, GLOBAL_CTRL: read back what was written */
	K_CLEAR,	/* write 1 to clear a status bit; reads 0 */
	K_SET,		/* write 1 to set a status bit; reads 0 */
};

struct mcase {
	const char *name;
	struct fakehw_x86_config cfg;
	bool explicit_model;
	struct pmuvirt_vpmu_model model;
};

static const struct mcase cases[] = {
	{ "Intel v1", FAKEHW_X86_INTEL_V1 },
	{ "Intel v2", FAKEHW_X86_INTEL_V2 },
	{ "Intel v4", FAKEHW_X86_INTEL_V4 },
	{ "Intel v5", FAKEHW_X86_INTEL_V5_LEGACY },
	/* v5 with fixed counters 0 and 2 (CPUID.0AH:EDX[4:0] = 1, ECX = 0x4) */
	{ "Intel v5 bitmap", FAKEHW_X86_INTEL_V5_LEGACY, true, { .vendor = PMUVIRT_VPMU_INTEL, .version = 5, .nr_gp = 3, .nr_fixed = 1, .width = 44,
		  .fixed_width = 40, .fixed_mask = 0x4, .flags = PMUVIRT_VPMU_M_FW_WRITE } },
	{ "AMD K7", { .vendor = FAKEHW_AMD, .amd_family = 6 } },
	{ "AMD K8", FAKEHW_X86_AMD_K8 },
	{ "AMD 10h", FAKEHW_X86_AMD_10H },
	{ "AMD 17h", FAKEHW_X86_AMD_17H },
	{ "AMD 19h PerfMonV2", FAKEHW_X86_AMD_19H },
	{ "Intel v3", FAKEHW_X86_INTEL_V3 },
};

/* The MSRs the tests try: every PMU range, with neighbours past the ends. */
static unsigned int candidates(uint32_t *out)
{
	static const uint32_t ranges[][2] = {
		{ 0xc1, 0xcb }, { 0x186, 0x190 }, { 0x309, 0x30e }, { 0x345, 0x346 },
		{ 0x38d, 0x393 }, { 0x4c1, 0x4cb }, { 0xc0010000, 0xc0010009 },
		{ 0xc0010200, 0xc0010212 }, { 0xc0000300, 0xc0000305 },
	};
	unsigned int i, n = 0;
	uint32_t msr;

	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		for (msr = ranges[i][0]; msr < ranges[i][1]; msr++)
			out[n++] = msr;
	return n;
}

static uint64_t mask_of(unsigned int w)
{
	return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/*
 * What register @msr is on model @m, from the manuals: its kind, the bits a
 * write may set (@valid) and a counter's width.
 */
static enum kind expect(const struct pmuvirt_vpmu_model *m, uint32_t msr, uint64_t *valid,
			unsigned int *width)
{
	bool intel = m->vendor == PMUVIRT_VPMU_INTEL;
	uint64_t ctrs = 0, status;
	unsigned int i, j, ngp = m->nr_gp;
	bool fixed[4] = { false };

	*valid = 0;
	*width = 0;
	for (i = 0; i < m->nr_gp; i++)
		ctrs |= 1ull << i;
	for (j = 0; intel && m->version >= 2 && j < 4; j++) {
		fixed[j] = j < m->nr_fixed || (m->version >= 5 && (m->fixed_mask & (1u << j)));
		if (fixed[j])
			ctrs |= 1ull << (32 + j);
	}
	if (intel) {
		/* Intel event select: bits 63:32 reserved (no TSX modelled), AnyThread refused */
		if (msr >= 0xc1 && msr < 0xc1 + ngp) {
			*width = m->width;
			return K_PMC;
		}
		if ((m->flags & PMUVIRT_VPMU_M_FW_WRITE) && msr >= 0x4c1 && msr < 0x4c1 + ngp) {
			*width = m->width;
			*valid = mask_of(m->width);
			return K_CTR;
		}
		if (msr >= 0x186 && msr < 0x186 + ngp) {
			*valid = 0xffffffffull & ~(1ull << 21);
			return K_SEL;
		}
		if (msr == 0x345 && (m->version >= 2 || (m->flags & PMUVIRT_VPMU_M_FW_WRITE)))
			return K_RO;
		if (m->version < 2)
			return K_NONE;
		if (msr >= 0x309 && msr < 0x30d && fixed[msr - 0x309]) {
			*width = m->fixed_width;
			*valid = mask_of(m->fixed_width);
			return K_CTR;
		}
		status = ctrs | (1ull << 62) | (1ull << 63);
		if (m->version >= 4)
			status |= (1ull << 55) | (1ull << 58) | (1ull << 59) | (1ull << 61);
		switch (msr) {
		case 0x38d:	/* OS, USR, PMI per fixed counter; AnyThread refused */
			for (j = 0; j < 4; j++)
				if (fixed[j])
					*valid |= 0xbull << (4 * j);
			return K_RW;
		case 0x38e:
			return K_RO;
		case 0x38f:
			*valid = ctrs;
			return K_RW;
		case 0x390:
			*valid = status;
			return K_CLEAR;
		case 0x391:
			*valid = status;
			return m->version >= 4 ? K_SET : K_NONE;
		}
		return K_NONE;
	}
	/* AMD: bits 19 and 21 reserved; from family 10h event bits 35:32 and Host/GuestOnly */
	i = msr & 0xf;
	if ((msr >= 0xc0010000 && msr < 0xc0010004 && i < m->nr_gp) ||
	    (m->version >= PMUVIRT_VPMU_AMD_CORE_EXT && msr >= 0xc0010200 &&
	     msr < 0xc0010200 + 2 * m->nr_gp && !(msr & 1))) {
		*valid = 0xffffffffull & ~((1ull << 19) | (1ull << 21));
		if (m->family >= 0x10)
			*valid |= (0xfull << 32) | (3ull << 40);
		return K_SEL;
	}
	if ((msr >= 0xc0010004 && msr < 0xc0010008 && msr - 0xc0010004 < m->nr_gp) ||
	    (m->version >= PMUVIRT_VPMU_AMD_CORE_EXT && msr >= 0xc0010200 &&
	     msr < 0xc0010200 + 2 * m->nr_gp && (msr & 1))) {
		*width = 48;
		*valid = mask_of(48);
		return K_CTR;
	}
	if (m->version != PMUVIRT_VPMU_AMD_PERFMON_V2)
		return K_NONE;
	switch (msr) {
	case 0xc0000300:
		return K_RO;
	case 0xc0000301:
		*valid = ctrs;
		return K_RW;
	case 0xc0000302:
		*valid = ctrs | (1ull << 58);
		return K_CLEAR;
	case 0xc0000303:
		*valid = ctrs | (1ull << 58);
		return K_SET;
	}
	return K_NONE;
}

struct snap {
	unsigned int n;
	uint32_t msr[160];
	uint64_t val[160];
};

static void snapshot(struct vr *r, const uint32_t *c, unsigned int nc, struct snap *s)
{
	const struct pmuvirt_vpmu_model *m = &r->v[0].vp.model;
	unsigned int i, w;
	uint64_t valid;

	s->n = 0;
	for (i = 0; i < nc; i++) {
		if (expect(m, c[i], &valid, &w) == K_NONE)
			continue;
		s->msr[s->n] = c[i];
		s->val[s->n++] = vr_rd(r, 0, c[i]);
	}
}

static void same(const struct snap *a, const struct snap *b, uint32_t msr, unsigned int bit)
{
	unsigned int i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++)
		if (a->val[i] != b->val[i])
			fail_msg("refused write to 0x%x (bit %u) changed 0x%x: 0x%llx -> 0x%llx", msr,
				 bit, a->msr[i], (unsigned long long)a->val[i],
				 (unsigned long long)b->val[i]);
}

static uint64_t sign_cut(uint64_t v, unsigned int w)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)v & mask_of(w);
}

static void check_model(const struct mcase *mc)
{
	struct vr *r = vr_new(&mc->cfg, mc->explicit_model ? &mc->model : NULL, 0);
	const struct pmuvirt_vpmu_model *m = &r->v[0].vp.model;
	uint32_t c[200];
	unsigned int nc = candidates(c), i, bit, w;
	struct snap before, after;
	uint64_t valid, got;

	assert_int_equal(pmuvirt_vpmu_model_check(m), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->v[0].ctx), 0);
	for (i = 0; i < nc; i++) {
		uint32_t msr = c[i];
		enum kind k = expect(m, msr, &valid, &w);

		assert_int_equal(pmuvirt_vpmu_has_msr(m, msr), k != K_NONE);
		snapshot(r, c, nc, &before);
		if (k == K_NONE) {
			assert_int_equal(pmuvirt_vpmu_rdmsr(&r->pc, &r->v[0].vp, msr, &got), -EINVAL);
			assert_int_equal(pmuvirt_vpmu_wrmsr(&r->pc, &r->v[0].vp, msr, 0), -EINVAL);
			snapshot(r, c, nc, &after);
			same(&before, &after, msr, 0);
			continue;
		}
		for (bit = 0; bit < 64; bit++) {
			uint64_t v = 1ull << bit;
			int ret;

			snapshot(r, c, nc, &before);
			ret = pmuvirt_vpmu_wrmsr(&r->pc, &r->v[0].vp, msr, v);

			if (k == K_RO || (k != K_PMC && !(valid & v))) {
				if (ret != -EINVAL)
					fail_msg("%s: 0x%x bit %u: %d, not a #GP", mc->name, msr, bit, ret);
				snapshot(r, c, nc, &after);
				same(&before, &after, msr, bit);
				continue;
			}
			if (ret)
				fail_msg("%s: 0x%x bit %u refused (%d)", mc->name, msr, bit, ret);
			got = vr_rd(r, 0, msr);
			switch (k) {
			case K_PMC:
				assert_true(got == sign_cut(v, w));
				break;
			case K_CLEAR:
			case K_SET:
				assert_true(got == 0);
				break;
			default:
				assert_true(got == v);
			}
			/* back to zero, except the status a SET set: cleared below */
			if (k != K_CLEAR && k != K_SET)
				vr_wr(r, 0, msr, 0);
		}
		if (k == K_SET) {
			uint32_t status = m->vendor == PMUVIRT_VPMU_INTEL ? 0x38e : 0xc0000300u;
			uint32_t clear = m->vendor == PMUVIRT_VPMU_INTEL ? 0x390 : 0xc0000302u;

			vr_wr(r, 0, msr, valid);
			assert_true(vr_rd(r, 0, status) == valid);
			vr_wr(r, 0, clear, valid & ~1ull);
			assert_true(vr_rd(r, 0, status) == 1);
			vr_wr(r, 0, clear, 1);
			assert_true(vr_rd(r, 0, status) == 0);
		}
		if (k == K_CTR || k == K_RW || k == K_SEL) {
			vr_wr(r, 0, msr, valid);
			assert_true(vr_rd(r, 0, msr) == valid);
			vr_wr(r, 0, msr, 0);
		}
	}
	/* IA32_PMCx: upper bits ignored, bit 31 sign-extended to the width */
	if (m->vendor == PMUVIRT_VPMU_INTEL) {
		vr_wr(r, 0, 0xc1, 0x123480000005ull);
		assert_true(vr_rd(r, 0, 0xc1) == (mask_of(m->width) & ~0x7ffffffaull));
		vr_wr(r, 0, 0xc1, 0xffffffff7fffffffull);
		assert_true(vr_rd(r, 0, 0xc1) == 0x7fffffff);
		if (m->version >= 2 || (m->flags & PMUVIRT_VPMU_M_FW_WRITE))
			assert_true(vr_rd(r, 0, 0x345) ==
				    ((m->flags & PMUVIRT_VPMU_M_FW_WRITE) ? 1ull << 13 : 0));
	}
	/* the legacy addresses are counters 0-3 of the core extension */
	if (m->vendor == PMUVIRT_VPMU_AMD && m->version >= PMUVIRT_VPMU_AMD_CORE_EXT) {
		vr_wr(r, 0, 0xc0010205, 12345);
		assert_int_equal(vr_rd(r, 0, 0xc0010006), 12345);
		vr_wr(r, 0, 0xc0010003, 0x4300c0);
		assert_int_equal(vr_rd(r, 0, 0xc0010206), 0x4300c0);
	}
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	vr_free(r);
}

static void test_msrs(void **state)
{
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("%s\n", cases[i].name);
		check_model(&cases[i]);
	}
}

/* What pmuvirt_vpmu_model_host() makes of each host. */
static void test_model_host(void **state)
{
	static const struct {
		unsigned int c;
		struct pmuvirt_vpmu_model m;
	} want[] = {
		{ 0, { PMUVIRT_VPMU_INTEL, 1, 2, 0, 40, 0, 0, 0x80 } },
		{ 1, { PMUVIRT_VPMU_INTEL, 2, 2, 3, 40, 40, 0, 0x80 } },
		{ 2, { PMUVIRT_VPMU_INTEL, 4, 4, 3, 48, 48, 0, 0x80, 0, PMUVIRT_VPMU_M_FW_WRITE } },
		{ 3, { PMUVIRT_VPMU_INTEL, 5, 8, 3, 48, 48, 0, 0x80 } },
		{ 5, { PMUVIRT_VPMU_AMD, PMUVIRT_VPMU_AMD_LEGACY, 4, 0, 48, 0, 0, 0, 6 } },
		{ 6, { PMUVIRT_VPMU_AMD, PMUVIRT_VPMU_AMD_LEGACY, 4, 0, 48, 0, 0, 0, 0x0f } },
		{ 7, { PMUVIRT_VPMU_AMD, PMUVIRT_VPMU_AMD_LEGACY, 4, 0, 48, 0, 0, 0, 0x10 } },
		{ 8, { PMUVIRT_VPMU_AMD, PMUVIRT_VPMU_AMD_CORE_EXT, 6, 0, 48, 0, 0, 0, 0x17 } },
		{ 9, { PMUVIRT_VPMU_AMD, PMUVIRT_VPMU_AMD_PERFMON_V2, 6, 0, 48, 0, 0, 0, 0x19 } },
		{ 10, { PMUVIRT_VPMU_INTEL, 3, 4, 3, 48, 48, 0, 0x80 } },
	};
	struct pmuvirt_vpmu_model m;
	struct pmuvirt_pmu pmu;
	unsigned int i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct fakehw *hw = rig_x86_new(&cases[want[i].c].cfg, &pmu);

		assert_int_equal(pmuvirt_vpmu_model_host(&pmu, &m), 0);
		assert_memory_equal(&m, &want[i].m, sizeof(m));
		assert_int_equal(pmuvirt_vpmu_model_check(&m), 0);
		assert_int_equal(pmuvirt_vpmu_counters(&m), m.nr_gp + m.nr_fixed);
		rig_hw_free(hw);
	}
}

/* Models out of range are refused; so is a PMU that is not x86. */
static void test_model_check(void **state)
{
	const struct pmuvirt_vpmu_model good = cases[4].model;
	struct pmuvirt_vpmu_model m;
	struct pmuvirt_pmu ppc;
	struct fakehw *hw = rig_ppc_new(9, &ppc);
	unsigned int i;
	static const struct {
		unsigned int off;
		uint8_t val;
	} bad[] = {
		{ 0, 0 }, { 0, 3 }, { 1, 0 }, { 1, 6 }, { 2, 0 }, { 2, 9 }, { 3, 5 }, { 4, 31 },
		{ 4, 49 }, { 5, 0 }, { 5, 49 }, { 6, 0x10 }, { 8, 1 }, { 9, 2 }, { 10, 1 }, { 15, 1 },
	};

	assert_int_equal(pmuvirt_vpmu_model_check(&good), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = good;
		((uint8_t *)&m)[bad[i].off] = bad[i].val;
		if (pmuvirt_vpmu_model_check(&m) != -EINVAL)
			fail_msg("byte %u = %u accepted", bad[i].off, bad[i].val);
	}
	/* v1 has no fixed counters, v2-v4 no bitmap */
	m = good;
	m.version = 4;
	assert_int_equal(pmuvirt_vpmu_model_check(&m), -EINVAL);
	m.fixed_mask = 0;
	assert_int_equal(pmuvirt_vpmu_model_check(&m), 0);
	m.version = 1;
	assert_int_equal(pmuvirt_vpmu_model_check(&m), -EINVAL);
	/* AMD: 4, 6, 1-8 counters, 48 bits, no Intel fields */
	m = (struct pmuvirt_vpmu_model){ .vendor = PMUVIRT_VPMU_AMD, .version = 1, .nr_gp = 4,
					 .width = 48, .family = 0x10 };
	assert_int_equal(pmuvirt_vpmu_model_check(&m), 0);
	m.nr_gp = 6;
	assert_int_equal(pmuvirt_vpmu_model_check(&m), -EINVAL);
	m.version = PMUVIRT_VPMU_AMD_CORE_EXT;
	assert_int_equal(pmuvirt_vpmu_model_check(&m), 0);
	m.arch_unavail = 1;
	assert_int_equal(pmuvirt_vpmu_model_check(&m), -EINVAL);
	m.arch_unavail = 0;
	m.family = 5;
	assert_int_equal(pmuvirt_vpmu_model_check(&m), -EINVAL);
	assert_int_equal(pmuvirt_vpmu_model_host(&ppc, &m), -ENODEV);
	rig_hw_free(hw);
}

/* The CPUID leaves a guest of each model sees, from a host's values. */
static void test_cpuid(void **state)
{
	struct pmuvirt_vpmu_model m;
	struct pmuvirt_pmu pmu;
	uint32_t r[4];
	unsigned int i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fakehw *hw = rig_x86_new(&cases[i].cfg, &pmu);
		bool intel;

		if (cases[i].explicit_model)
			m = cases[i].model;
		else
			assert_int_equal(pmuvirt_vpmu_model_host(&pmu, &m), 0);
		intel = m.vendor == PMUVIRT_VPMU_INTEL;
		memset(r, 0xff, sizeof(r));
		pmuvirt_vpmu_cpuid(&m, 1, 0, r);
		/* DS (EDX[21]), DTES64 and DS-CPL (ECX[2], [4]): no debug store */
		assert_true(r[0] == ~0u && r[1] == ~0u && r[3] == ~(1u << 21));
		assert_int_equal(r[2] | (1u << 15), ~((1u << 2) | (1u << 4)));
		assert_int_equal(!!(r[2] & (1u << 15)),
				 intel && (m.version >= 2 || (m.flags & PMUVIRT_VPMU_M_FW_WRITE)));
		memset(r, 0xff, sizeof(r));
		pmuvirt_vpmu_cpuid(&m, 0xa, 0, r);
		if (!intel) {
			assert_true(!r[0] && !r[1] && !r[2] && !r[3]);
		} else {
			assert_int_equal(r[0] & 0xff, m.version);
			assert_int_equal((r[0] >> 8) & 0xff, m.nr_gp);
			assert_int_equal((r[0] >> 16) & 0xff, m.width);
			assert_int_equal(r[0] >> 24, m.version >= 5 ? 8 : 7);
			assert_int_equal(r[1], m.arch_unavail & (m.version >= 5 ? 0xff : 0x7f));
			assert_int_equal(r[2], m.version >= 5 ? m.fixed_mask : 0);
			if (m.version >= 2) {
				assert_int_equal(r[3] & 0x1f, m.nr_fixed);
				assert_int_equal((r[3] >> 5) & 0xff, m.fixed_width);
				assert_int_equal(!!(r[3] & (1u << 15)), m.version >= 5);
			} else {
				assert_int_equal(r[3], 0);
			}
		}
		memset(r, 0xff, sizeof(r));
		pmuvirt_vpmu_cpuid(&m, 0x80000001u, 0, r);
		assert_int_equal(!!(r[2] & (1u << 23)),
				 !intel && m.version >= PMUVIRT_VPMU_AMD_CORE_EXT);
		/* IBS (ECX[10]), PerfCtrExtNB and PerfCtrExtLLC (ECX[24], [28]) */
		assert_int_equal(r[2] | (1u << 23), ~((1u << 10) | (1u << 24) | (1u << 28)));
		assert_true(r[0] == ~0u && r[1] == ~0u && r[3] == ~0u);
		memset(r, 0xff, sizeof(r));
		pmuvirt_vpmu_cpuid(&m, 0x80000022u, 0, r);
		if (!intel && m.version == PMUVIRT_VPMU_AMD_PERFMON_V2) {
			assert_int_equal(r[0], 1);
			assert_int_equal(r[1], m.nr_gp);
		} else {
			assert_true(!r[0] && !r[1]);
		}
		assert_true(!r[2] && !r[3]);
		/* architectural LBR (7.0:EDX[19]), leaf 23H (7.1:EAX[8]) */
		memset(r, 0xff, sizeof(r));
		pmuvirt_vpmu_cpuid(&m, 7, 0, r);
		assert_true(r[0] == ~0u && r[1] == ~0u && r[2] == ~0u && r[3] == ~(1u << 19));
		memset(r, 0xff, sizeof(r));
		pmuvirt_vpmu_cpuid(&m, 7, 1, r);
		assert_true(r[0] == ~(1u << 8) && r[1] == ~0u && r[2] == ~0u && r[3] == ~0u);
		/* the leaves of architectural LBR, extended perfmon and IBS read zero */
		for (j = 0; j < 3; j++) {
			static const uint32_t zero_leaf[] = { 0x1c, 0x23, 0x8000001bu };

			memset(r, 0xff, sizeof(r));
			pmuvirt_vpmu_cpuid(&m, zero_leaf[j], 0, r);
			assert_true(!r[0] && !r[1] && !r[2] && !r[3]);
		}
		/* leaves that describe no PMU pass through */
		memset(r, 0x5a, sizeof(r));
		pmuvirt_vpmu_cpuid(&m, 7, 2, r);
		assert_true(r[0] == 0x5a5a5a5a && r[3] == 0x5a5a5a5a);
		pmuvirt_vpmu_cpuid(&m, 0xd, 0, r);
		assert_true(r[0] == 0x5a5a5a5a && r[3] == 0x5a5a5a5a);
		rig_hw_free(hw);
	}
}

/* RDPMC: general counters by index, Intel fixed ones with bit 30; anything else #GP. */
static void test_rdpmc(void **state)
{
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vr *r = vr_new(&cases[i].cfg, cases[i].explicit_model ? &cases[i].model : NULL, 0);
		const struct pmuvirt_vpmu_model *m = &r->v[0].vp.model;
		bool intel = m->vendor == PMUVIRT_VPMU_INTEL;
		uint32_t ctr0 = intel ? 0xc1 : 0xc0010004u;
		uint64_t v;
		unsigned int j;

		vr_wr(r, 0, ctr0, 77);
		assert_int_equal(pmuvirt_vpmu_rdpmc(NULL, &r->v[0].vp, 0, &v), 0);
		assert_int_equal(v, 77);
		assert_int_equal(pmuvirt_vpmu_rdpmc(NULL, &r->v[0].vp, m->nr_gp - 1, &v), 0);
		assert_int_equal(pmuvirt_vpmu_rdpmc(NULL, &r->v[0].vp, m->nr_gp, &v), -EINVAL);
		for (j = 0; j < 5; j++) {
			bool there = intel && m->version >= 2 &&
				     (j < m->nr_fixed || (m->version >= 5 && (m->fixed_mask >> j & 1)));

			if (there)
				vr_wr(r, 0, 0x309 + j, 1000 + j);
			assert_int_equal(pmuvirt_vpmu_rdpmc(NULL, &r->v[0].vp, 1u << 30 | j, &v),
					 there ? 0 : -EINVAL);
			if (there)
				assert_int_equal(v, 1000 + j);
		}
		assert_int_equal(pmuvirt_vpmu_rdpmc(NULL, &r->v[0].vp, 1u << 31, &v), -EINVAL);
		vr_free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msrs),
		cmocka_unit_test(test_model_host),
		cmocka_unit_test(test_model_check),
		cmocka_unit_test(test_cpuid),
		cmocka_unit_test(test_rdpmc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
