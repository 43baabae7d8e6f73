/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The emulated PMU counting on the strict fakes: a perf-like sequence
 * (disable, program, enable, overflow, acknowledge, re-arm) with exact
 * counts and one guest interrupt per period on Intel and AMD models, legacy
 * and full-width counter writes, AMD events on an Intel host, events the
 * host cannot give, the domain's event policy, two VCPUs switched on one
 * CPU (offsetting, no writes), the host's own counters beside the guest's,
 * save and restore.
 */
#include "vpmu_rig.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define W48		((uint64_t)1 << 48)
#define M48		(W48 - 1)

/* Intel MSRs */
#define PMC0		0xc1u
#define A_PMC0		0x4c1u
#define EVTSEL0		0x186u
#define FIXED_CTR0	0x309u
#define FIXED_CTRL	0x38du
#define G_STATUS	0x38eu
#define G_CTRL		0x38fu
#define G_OVF		0x390u
/* AMD MSRs */
#define K7_CTL0		0xc0010000u
#define K7_CTR0		0xc0010004u
#define F15_CTL(i)	(0xc0010200u + 2 * (i))
#define F15_CTR(i)	(0xc0010201u + 2 * (i))
#define A_STATUS	0xc0000300u
#define A_CTL		0xc0000301u
#define A_CLR		0xc0000302u

#define SEL(ev)		(VR_EN | VR_INT | VR_USR | VR_OS | (ev))

/*
 * Linux's PMI handler on Intel v2+ (intel_pmu_handle_irq()): disable all,
 * read and acknowledge the status, re-arm the counters that overflowed,
 * enable.  Returns the status it found.
 */
static uint64_t intel_handler(struct vr *r, unsigned int k, uint64_t enable, uint32_t ctr,
			      uint64_t rearm)
{
	uint64_t status;

	vr_wr(r, k, G_CTRL, 0);
	status = vr_rd(r, k, G_STATUS);
	if (status & 1) {
		assert_true(vr_rd(r, k, ctr) == 0);	/* wrapped, nothing counted since */
		vr_wr(r, k, ctr, rearm);
	}
	vr_wr(r, k, G_OVF, status);
	vr_wr(r, k, G_CTRL, enable);
	return status;
}

/*
 * Intel v2 to v5: general counter 0 counts branches with a period of
 * 1000, fixed counter 0 instructions with a period of 3000, re-armed by
 * the handler as Linux re-arms them; user and kernel events.  Every period
 * gives exactly one interrupt at its exact event, and counts are exact.
 */
static void perf_sequence_intel(const struct fakehw_x86_config *cfg)
{
	struct vr *r = vr_new(cfg, NULL, 0);
	const struct pmuvirt_vpmu_model *m = &r->v[0].vp.model;
	const uint64_t w = 1ull << m->width, f = 1ull << m->fixed_width;
	const uint64_t p = 1000, q = 3000, enable = 1 | 1ull << 32;
	uint32_t ctr = (r->v[0].vp.model.flags & PMUVIRT_VPMU_M_FW_WRITE) ? A_PMC0 : PMC0;
	unsigned int n, pmis;

	vr_switch(r, 0);
	vr_wr(r, 0, G_CTRL, 0);
	vr_wr(r, 0, EVTSEL0, SEL(0xc4));
	vr_wr(r, 0, ctr, w - p);
	vr_wr(r, 0, FIXED_CTRL, 0xb);
	vr_wr(r, 0, FIXED_CTR0, f - q);
	vr_run(r, FAKEHW_BRANCHES, 5000, false);	/* globally disabled: not counted */
	assert_true(vr_rd(r, 0, ctr) == w - p);
	vr_wr(r, 0, G_CTRL, enable);
	for (n = 0; n < 10; n++) {
		pmis = r->v[0].pmis;
		vr_run(r, FAKEHW_BRANCHES, p / 2, n & 1);
		vr_run(r, FAKEHW_BRANCHES, p / 2 - 1, !(n & 1));
		assert_int_equal(r->v[0].pmis, pmis);
		assert_true(vr_rd(r, 0, ctr) == w - 1);
		vr_run(r, FAKEHW_BRANCHES, 1, false);
		assert_int_equal(r->v[0].pmis, pmis + 1);
		assert_int_equal(r->v[0].ovf, 1);
		r->v[0].ovf = 0;
		assert_int_equal(intel_handler(r, 0, enable, ctr, w - p), 1);
	}
	/* three instruction periods: fixed counter 0, status bit 32 */
	for (n = 0; n < 3; n++) {
		pmis = r->v[0].pmis;
		vr_run(r, FAKEHW_INSTRUCTIONS, q - 1, true);
		assert_int_equal(r->v[0].pmis, pmis);
		vr_run(r, FAKEHW_INSTRUCTIONS, 1, false);
		assert_int_equal(r->v[0].pmis, pmis + 1);
		assert_true(r->v[0].ovf == 1ull << 32);
		r->v[0].ovf = 0;
		vr_wr(r, 0, G_CTRL, 0);
		assert_true(vr_rd(r, 0, G_STATUS) == 1ull << 32);
		assert_true(vr_rd(r, 0, FIXED_CTR0) == 0);
		vr_wr(r, 0, FIXED_CTR0, f - q);
		vr_wr(r, 0, G_OVF, 1ull << 32);
		vr_wr(r, 0, G_CTRL, enable);
	}
	assert_int_equal(r->v[0].pmis, 13);
	/* mid-period: the counters read the written value plus the events since */
	vr_run(r, FAKEHW_BRANCHES, 123, true);
	vr_run(r, FAKEHW_INSTRUCTIONS, 7, false);
	assert_true(vr_rd(r, 0, ctr) == w - p + 123);
	assert_true(vr_rd(r, 0, FIXED_CTR0) == f - q + 7);
	vr_switch(r, -1);
	vr_free(r);
}

static void test_perf_sequence_intel(void **state)
{
	perf_sequence_intel(&rig_intel_v4);
	perf_sequence_intel(&rig_intel_v5_legacy);
	perf_sequence_intel(&rig_intel_v3);
	perf_sequence_intel(&rig_intel_v2);
}

/*
 * AMD PerfMonV2 (Linux's amd_pmu_v2_handle_irq()): GlobalCtl off, status
 * read, counter re-armed, StatusClr, GlobalCtl on.  The legacy and
 * core-extension models have no status: the handler finds the counter
 * that wrapped by its value (bit 47 clear), as Linux's x86_pmu_handle_irq().
 */
static void perf_sequence_amd(const struct fakehw_x86_config *cfg)
{
	struct vr *r = vr_new(cfg, NULL, 0);
	const struct pmuvirt_vpmu_model *m = &r->v[0].vp.model;
	bool v2 = m->version == PMUVIRT_VPMU_AMD_PERFMON_V2;
	uint32_t ctl = m->version >= PMUVIRT_VPMU_AMD_CORE_EXT ? F15_CTL(2) : K7_CTL0 + 2;
	uint32_t ctr = m->version >= PMUVIRT_VPMU_AMD_CORE_EXT ? F15_CTR(2) : K7_CTR0 + 2;
	const uint64_t p = 777;
	unsigned int n, pmis;

	vr_switch(r, 0);
	if (v2)
		vr_wr(r, 0, A_CTL, 0);
	vr_wr(r, 0, ctl, SEL(0xc2));
	vr_wr(r, 0, ctr, W48 - p);
	if (v2)
		vr_wr(r, 0, A_CTL, 1u << 2);
	for (n = 0; n < 8; n++) {
		pmis = r->v[0].pmis;
		vr_run(r, FAKEHW_BRANCHES, p - 1, n & 1);
		assert_int_equal(r->v[0].pmis, pmis);
		assert_true(vr_rd(r, 0, ctr) == M48);
		vr_run(r, FAKEHW_BRANCHES, 1, false);
		assert_int_equal(r->v[0].pmis, pmis + 1);
		assert_int_equal(r->v[0].ovf, 1u << 2);
		r->v[0].ovf = 0;
		if (v2) {
			vr_wr(r, 0, A_CTL, 0);
			assert_int_equal(vr_rd(r, 0, A_STATUS), 1u << 2);
		}
		assert_true(!(vr_rd(r, 0, ctr) & (1ull << 47)));
		vr_wr(r, 0, ctr, W48 - p);
		if (v2) {
			vr_wr(r, 0, A_CLR, 1u << 2);
			assert_int_equal(vr_rd(r, 0, A_STATUS), 0);
			vr_wr(r, 0, A_CTL, 1u << 2);
		}
	}
	assert_int_equal(r->v[0].pmis, 8);
	vr_switch(r, -1);
	vr_free(r);
}

static void test_perf_sequence_amd(void **state)
{
	perf_sequence_amd(&rig_amd_19h);
	perf_sequence_amd(&rig_amd_17h);
	perf_sequence_amd(&rig_amd_10h);
	perf_sequence_amd(&rig_amd_k8);
}

/*
 * IA32_PMCx takes bits 31:0, sign-extended and cut to the width (40 bits
 * here): -1000 written as 32 or as 64 bits reads 2^40 - 1000, interrupts
 * after exactly 1000 events and once per period (a value left sign-extended
 * past the width would make a period of 2^64 - 1000, or a PMI storm).
 */
static void test_legacy_write(void **state)
{
	struct vr *r = vr_new(&rig_intel_v1, NULL, 0);
	const uint64_t w40 = (uint64_t)1 << 40;
	unsigned int n;

	vr_switch(r, 0);
	vr_wr(r, 0, EVTSEL0 + 1, SEL(0xc0));
	for (n = 0; n < 6; n++) {
		vr_wr(r, 0, PMC0 + 1, n & 1 ? 0xfffffc18ull : (uint64_t)-1000);
		assert_true(vr_rd(r, 0, PMC0 + 1) == w40 - 1000);
		vr_run(r, FAKEHW_INSTRUCTIONS, 999, true);
		assert_int_equal(r->v[0].pmis, n);
		vr_run(r, FAKEHW_INSTRUCTIONS, 1, false);
		assert_int_equal(r->v[0].pmis, n + 1);
		assert_int_equal(vr_rd(r, 0, PMC0 + 1), 0);
	}
	/* wrapped without a write: it keeps counting from 0, the next wrap 2^40 later */
	vr_run(r, FAKEHW_INSTRUCTIONS, 55, false);
	assert_int_equal(vr_rd(r, 0, PMC0 + 1), 55);
	assert_int_equal(r->v[0].pmis, 6);
	vr_run(r, FAKEHW_INSTRUCTIONS, w40 - 56, false);
	assert_int_equal(r->v[0].pmis, 6);
	vr_run(r, FAKEHW_INSTRUCTIONS, 1, false);
	assert_int_equal(r->v[0].pmis, 7);
	/* a value with bit 31 clear is not extended */
	vr_wr(r, 0, PMC0, 0x7ffffffe);
	assert_int_equal(vr_rd(r, 0, PMC0), 0x7ffffffe);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * IA32_A_PMCx takes the full width (#GP above it): 2^48 - 1 written reads
 * back, one event wraps it to zero with one interrupt.  Without FW_WRITE
 * the model has no IA32_A_PMCx.
 */
static void test_full_width_write(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);
	struct vr *r2 = vr_new(&rig_intel_v2, NULL, 0);
	uint64_t v;

	vr_switch(r, 0);
	vr_wr(r, 0, EVTSEL0 + 3, SEL(0xc5));
	assert_int_equal(pmuvirt_vpmu_wrmsr(&r->pc, &r->v[0].vp, A_PMC0 + 3, W48), -EINVAL);
	vr_wr(r, 0, A_PMC0 + 3, M48);
	assert_true(vr_rd(r, 0, PMC0 + 3) == M48);
	vr_run(r, FAKEHW_BRANCH_MISSES, 1, true);
	assert_int_equal(r->v[0].pmis, 1);
	assert_int_equal(vr_rd(r, 0, A_PMC0 + 3), 0);
	assert_int_equal(pmuvirt_vpmu_rdmsr(NULL, &r2->v[0].vp, A_PMC0, &v), -EINVAL);
	assert_int_equal(pmuvirt_vpmu_wrmsr(NULL, &r2->v[0].vp, A_PMC0, 1), -EINVAL);
	vr_switch(r, -1);
	vr_free(r);
	vr_free(r2);
}

/*
 * An AMD guest on an Intel-style host (the emulated PMU's geometry: two
 * general counters and fixed counter 0): 0x76, 0xC0, 0xC2 become cycles,
 * instructions and branches on the host's counters; 0xC3 finds no room
 * and counts nothing until a counter is freed; an AMD-only code counts
 * nothing.  Every select reads back as written.
 */
static void test_amd_guest_intel_host(void **state)
{
	const struct pmuvirt_vpmu_model amd = {
		.vendor = PMUVIRT_VPMU_AMD, .version = PMUVIRT_VPMU_AMD_CORE_EXT, .nr_gp = 6,
		.width = 48, .family = 0x17,
	};
	static const uint64_t code[] = { 0x76, 0xc0, 0xc2, 0xc3, 0x40 };
	struct vr *r = vr_new(&rig_intel_emu, &amd, 0);
	unsigned int i;

	vr_switch(r, 0);
	for (i = 0; i < 5; i++)
		vr_wr(r, 0, F15_CTL(i), SEL(code[i]));
	for (i = 0; i < 5; i++)
		assert_true(vr_rd(r, 0, K7_CTL0 + i % 4) == SEL(code[i % 4]));
	vr_run(r, FAKEHW_CYCLES, 100, false);
	vr_run(r, FAKEHW_INSTRUCTIONS, 200, true);
	vr_run(r, FAKEHW_BRANCHES, 30, false);
	vr_run(r, FAKEHW_BRANCH_MISSES, 7, false);
	assert_int_equal(vr_rd(r, 0, F15_CTR(0)), 100);
	assert_int_equal(vr_rd(r, 0, F15_CTR(1)), 200);
	assert_int_equal(vr_rd(r, 0, F15_CTR(2)), 30);
	assert_int_equal(vr_rd(r, 0, F15_CTR(3)), 0);
	assert_int_equal(vr_rd(r, 0, F15_CTR(4)), 0);
	/* cycles off: the branch-miss counter gets its general counter */
	vr_wr(r, 0, F15_CTL(0), SEL(0x76) & ~VR_EN);
	vr_run(r, FAKEHW_BRANCH_MISSES, 5, true);
	vr_run(r, FAKEHW_CYCLES, 9, true);
	assert_int_equal(vr_rd(r, 0, F15_CTR(3)), 5);
	assert_int_equal(vr_rd(r, 0, F15_CTR(0)), 100);
	assert_int_equal(vr_rd(r, 0, F15_CTR(2)), 30);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * An Intel guest on an AMD host: the architectural events of CPUID.0AH
 * with portable meanings count (0x3C cycles, 0xC0, 0xC4, 0xC5 and fixed
 * counters 0 and 1); fixed counter 2 (reference cycles) and the LLC events
 * have no AMD equivalent and count nothing.
 */
static void test_intel_guest_amd_host(void **state)
{
	const struct pmuvirt_vpmu_model intel = {
		.vendor = PMUVIRT_VPMU_INTEL, .version = 2, .nr_gp = 4, .nr_fixed = 3, .width = 48,
		.fixed_width = 48,
	};
	struct vr *r = vr_new(&rig_amd_17h, &intel, 0);

	vr_switch(r, 0);
	vr_wr(r, 0, G_CTRL, 0);
	vr_wr(r, 0, EVTSEL0, SEL(0x3c));
	vr_wr(r, 0, EVTSEL0 + 1, SEL(0x4f2e));
	vr_wr(r, 0, EVTSEL0 + 2, SEL(0xc5));
	vr_wr(r, 0, FIXED_CTRL, 0x333);
	vr_wr(r, 0, G_CTRL, 0x700000007ull);
	vr_run(r, FAKEHW_CYCLES, 1000, false);
	vr_run(r, FAKEHW_INSTRUCTIONS, 60, true);
	vr_run(r, FAKEHW_BRANCH_MISSES, 3, false);
	assert_int_equal(vr_rd(r, 0, PMC0), 1000);
	assert_int_equal(vr_rd(r, 0, PMC0 + 1), 0);
	assert_int_equal(vr_rd(r, 0, PMC0 + 2), 3);
	assert_int_equal(vr_rd(r, 0, FIXED_CTR0), 60);
	assert_int_equal(vr_rd(r, 0, FIXED_CTR0 + 1), 1000);
	assert_int_equal(vr_rd(r, 0, FIXED_CTR0 + 2), 0);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * Settings the host cannot count are not errors: the counter keeps its
 * value and select and counts nothing, the others count.  An AMD family 10h
 * guest's event bits 35:32 on a K8 host; GuestOnly alone (the guest's own
 * guests, which it has none of); neither USR nor OS; and on the same vendor
 * a raw code passes through (a counter mask the fake counts nothing of).
 */
static void test_unsupported(void **state)
{
	const struct pmuvirt_vpmu_model fam10 = {
		.vendor = PMUVIRT_VPMU_AMD, .version = PMUVIRT_VPMU_AMD_LEGACY, .nr_gp = 4,
		.width = 48, .family = 0x10,
	};
	struct vr *r = vr_new(&rig_amd_k8, &fam10, 0);
	const uint64_t hi = (uint64_t)1 << 32, go = (uint64_t)1 << 40, ho = (uint64_t)1 << 41;

	vr_switch(r, 0);
	vr_wr(r, 0, K7_CTR0, 500);
	vr_wr(r, 0, K7_CTL0, SEL(0xc0) | hi);
	vr_wr(r, 0, K7_CTL0 + 1, SEL(0xc0) | go);
	vr_wr(r, 0, K7_CTL0 + 2, SEL(0xc0) | ho);	/* HostOnly: all the guest's own events */
	vr_wr(r, 0, K7_CTL0 + 3, (SEL(0xc0) & ~(VR_USR | VR_OS)));
	vr_run(r, FAKEHW_INSTRUCTIONS, 40, false);
	assert_int_equal(vr_rd(r, 0, K7_CTR0), 500);
	assert_int_equal(vr_rd(r, 0, K7_CTR0 + 1), 0);
	assert_int_equal(vr_rd(r, 0, K7_CTR0 + 2), 40);
	assert_int_equal(vr_rd(r, 0, K7_CTR0 + 3), 0);
	assert_true(vr_rd(r, 0, K7_CTL0) == (SEL(0xc0) | hi));
	assert_true(vr_rd(r, 0, K7_CTL0 + 1) == (SEL(0xc0) | go));
	vr_switch(r, -1);
	vr_free(r);

	r = vr_new(&rig_intel_v4, NULL, 0);
	vr_switch(r, 0);
	vr_wr(r, 0, EVTSEL0, SEL(0xc0) | 0x01000000);	/* cmask 1: raw */
	vr_wr(r, 0, EVTSEL0 + 1, SEL(0xc0) | (1u << 19));	/* pin control: no pin, ignored */
	vr_run(r, FAKEHW_INSTRUCTIONS, 12, false);
	assert_int_equal(vr_rd(r, 0, PMC0), 0);
	assert_int_equal(vr_rd(r, 0, PMC0 + 1), 12);
	assert_true(vr_rd(r, 0, EVTSEL0 + 1) == (SEL(0xc0) | (1u << 19)));
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * The domain's event policy: a denied event counts nothing (its counter
 * keeps its value), the others count; when the policy allows it again it
 * counts on from its value.
 */
static void test_policy(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);
	struct pmuvirt_policy deny = {
		.version = PMUVIRT_ABI_VERSION, .action = PMUVIRT_POLICY_DENY,
		.events = 1u << PMUVIRT_EV_BRANCHES,
	};

	assert_int_equal(pmuvirt_policy_validate(&deny), 0);
	vr_switch(r, 0);
	vr_wr(r, 0, EVTSEL0, SEL(0xc4));
	vr_wr(r, 0, EVTSEL0 + 1, SEL(0xc0));
	vr_run(r, FAKEHW_BRANCHES, 10, false);
	assert_int_equal(pmuvirt_vpmu_set_policy(&r->pc, &r->v[0].vp, &deny), 0);
	vr_run(r, FAKEHW_BRANCHES, 20, false);
	vr_run(r, FAKEHW_INSTRUCTIONS, 5, false);
	assert_int_equal(vr_rd(r, 0, PMC0), 10);
	assert_int_equal(vr_rd(r, 0, PMC0 + 1), 5);
	/* a select written under the policy stays denied */
	vr_wr(r, 0, EVTSEL0 + 2, SEL(0xc4));
	vr_run(r, FAKEHW_BRANCHES, 20, false);
	assert_int_equal(vr_rd(r, 0, PMC0 + 2), 0);
	assert_int_equal(pmuvirt_vpmu_set_policy(&r->pc, &r->v[0].vp, NULL), 0);
	vr_run(r, FAKEHW_BRANCHES, 4, false);
	assert_int_equal(vr_rd(r, 0, PMC0), 14);
	assert_int_equal(vr_rd(r, 0, PMC0 + 2), 4);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * A counter the policy refuses is a hardware counter that counts nothing:
 * every write the guest makes succeeds (no #GP), its select reads back, its
 * value holds through events and raises no interrupt even a few events
 * before its wrap, RDPMC reads it, GLOBAL_STATUS stays clear.  Allowed
 * counters beside it count exactly.  When the policy allows it again it
 * counts from its value and interrupts at its wrap.  The AMD legacy model
 * on an Intel-style host (Xen's HVM guests under QEMU) likewise, and raw
 * codes by an ALLOW policy without raw entries.
 */
static void test_policy_refused(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);
	const struct pmuvirt_vpmu_model amd = {
		.vendor = PMUVIRT_VPMU_AMD, .version = PMUVIRT_VPMU_AMD_LEGACY, .nr_gp = 4,
		.width = 48, .family = 6,
	};
	const uint64_t w = 1ull << r->v[0].vp.model.width;
	struct pmuvirt_policy deny = {
		.version = PMUVIRT_ABI_VERSION, .action = PMUVIRT_POLICY_DENY,
		.events = 1u << PMUVIRT_EV_BRANCHES,
	};
	struct pmuvirt_policy portable_only = {
		.version = PMUVIRT_ABI_VERSION, .action = PMUVIRT_POLICY_ALLOW,
		.events = 1u << PMUVIRT_EV_INSTRUCTIONS | 1u << PMUVIRT_EV_BRANCHES,
	};
	uint64_t v;

	(void)state;
	vr_switch(r, 0);
	assert_int_equal(pmuvirt_vpmu_set_policy(&r->pc, &r->v[0].vp, &deny), 0);
	vr_wr(r, 0, G_CTRL, 0);
	vr_wr(r, 0, A_PMC0, w - 10);
	vr_wr(r, 0, EVTSEL0, SEL(0xc4));			/* branches: refused */
	vr_wr(r, 0, EVTSEL0 + 1, SEL(0xc0));			/* instructions */
	vr_wr(r, 0, G_CTRL, 3);
	assert_true(vr_rd(r, 0, EVTSEL0) == SEL(0xc4));
	vr_run(r, FAKEHW_BRANCHES, 100, false);
	vr_run(r, FAKEHW_INSTRUCTIONS, 7, true);
	assert_true(vr_rd(r, 0, A_PMC0) == w - 10);
	assert_int_equal(vr_rd(r, 0, A_PMC0 + 1), 7);
	assert_int_equal(r->v[0].pmis, 0);
	assert_int_equal(vr_rd(r, 0, G_STATUS), 0);
	assert_int_equal(pmuvirt_vpmu_rdpmc(&r->pc, &r->v[0].vp, 0, &v), 0);
	assert_true(v == w - 10);
	/* written while refused: holds the written value */
	vr_wr(r, 0, A_PMC0, w - 5);
	vr_run(r, FAKEHW_BRANCHES, 50, false);
	assert_true(vr_rd(r, 0, A_PMC0) == w - 5);
	assert_int_equal(r->v[0].pmis, 0);
	/* allowed again: counts from its value, one interrupt at the wrap */
	assert_int_equal(pmuvirt_vpmu_set_policy(&r->pc, &r->v[0].vp, NULL), 0);
	vr_run(r, FAKEHW_BRANCHES, 4, false);
	assert_true(vr_rd(r, 0, A_PMC0) == w - 1);
	assert_int_equal(r->v[0].pmis, 0);
	vr_run(r, FAKEHW_BRANCHES, 1, false);
	assert_int_equal(r->v[0].pmis, 1);
	assert_true(vr_rd(r, 0, G_STATUS) == 1);
	/* a raw code under an ALLOW policy without raw entries */
	assert_int_equal(pmuvirt_vpmu_set_policy(&r->pc, &r->v[0].vp, &portable_only), 0);
	vr_wr(r, 0, EVTSEL0 + 2, SEL(0x2e) | 0x4f00);		/* LLC references */
	vr_wr(r, 0, G_CTRL, 7);
	vr_run(r, FAKEHW_BRANCHES, 3, false);
	assert_int_equal(vr_rd(r, 0, A_PMC0 + 2), 0);
	assert_int_equal(vr_rd(r, 0, A_PMC0), 3);
	vr_switch(r, -1);
	vr_free(r);

	r = vr_new(&rig_intel_emu, &amd, 0);
	assert_int_equal(pmuvirt_vpmu_set_policy(NULL, &r->v[0].vp, &deny), 0);
	vr_switch(r, 0);
	vr_wr(r, 0, K7_CTL0, SEL(0xc2));			/* AMD branches: refused */
	vr_wr(r, 0, K7_CTL0 + 1, SEL(0xc0));
	vr_run(r, FAKEHW_BRANCHES, 30, false);
	vr_run(r, FAKEHW_INSTRUCTIONS, 20, false);
	assert_int_equal(vr_rd(r, 0, K7_CTR0), 0);
	assert_int_equal(vr_rd(r, 0, K7_CTR0 + 1), 20);
	vr_switch(r, -1);
	assert_int_equal(pmuvirt_vpmu_set_policy(NULL, &r->v[0].vp, NULL), 0);
	vr_switch(r, 0);
	vr_run(r, FAKEHW_BRANCHES, 6, false);
	assert_int_equal(vr_rd(r, 0, K7_CTR0), 6);
	vr_switch(r, -1);
	vr_free(r);
}

/* Is any counter of an Intel v4 host (4 general, 3 fixed) enabled? */
static bool host_counts(struct vr *r)
{
	uint64_t v, g;
	unsigned int i;

	assert_int_equal(fakehw_peek(r->hw, G_CTRL, &g), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(fakehw_peek(r->hw, EVTSEL0 + i, &v), 0);
		if ((v & VR_EN) && (g & (1ull << i)))
			return true;
	}
	assert_int_equal(fakehw_peek(r->hw, FIXED_CTRL, &v), 0);
	for (i = 0; i < 3; i++)
		if ((v >> (4 * i)) & 3 && (g & (1ull << (32 + i))))
			return true;
	return false;
}

/*
 * PMUVIRT_POLICY_NO_VPMU: the emulated PMU is off.  Every MSR of the model
 * and every RDPMC index is -EINVAL (#GP) with nothing changed, the
 * emulator's counters leave the context and the hardware counts nothing
 * for the guest; the host's own counters go on.  A policy without the flag
 * gives the guest its registers back, counting on from their values.
 */
static void test_policy_no_vpmu(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);
	struct pmuvirt_vpmu *vp = &r->v[0].vp;
	struct pmuvirt_policy off = {
		.version = PMUVIRT_ABI_VERSION, .action = PMUVIRT_POLICY_DENY,
		.flags = PMUVIRT_POLICY_NO_VPMU,
	};
	static const uint32_t msrs[] = { PMC0, A_PMC0, EVTSEL0, FIXED_CTR0, FIXED_CTRL, G_STATUS,
					 G_CTRL, G_OVF, 0x345 };
	struct pmuvirt_control host = { .version = PMUVIRT_ABI_VERSION, .nr_counters = 1 };
	unsigned int i;
	uint64_t v;

	(void)state;
	assert_int_equal(pmuvirt_policy_validate(&off), 0);
	assert_false(pmuvirt_vpmu_off(NULL));
	vr_switch(r, 0);
	vr_wr(r, 0, EVTSEL0, SEL(0xc4));
	vr_wr(r, 0, FIXED_CTRL, 0xb);
	vr_wr(r, 0, G_CTRL, 1 | 1ull << 32);
	vr_run(r, FAKEHW_BRANCHES, 10, false);
	vr_run(r, FAKEHW_INSTRUCTIONS, 3, false);
	assert_int_equal(vr_rd(r, 0, FIXED_CTR0), 3);
	assert_true(host_counts(r));
	assert_false(pmuvirt_vpmu_off(vp));
	assert_int_equal(pmuvirt_vpmu_set_policy(&r->pc, vp, &off), 0);
	assert_true(pmuvirt_vpmu_off(vp));
	assert_int_equal(r->v[0].ctx->nr_counters, 0);
	assert_false(host_counts(r));
	for (i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++) {
		v = 1;
		assert_int_equal(pmuvirt_vpmu_rdmsr(&r->pc, vp, msrs[i], &v), -EINVAL);
		assert_true(v == 0);
		assert_int_equal(pmuvirt_vpmu_wrmsr(&r->pc, vp, msrs[i], 0), -EINVAL);
	}
	assert_int_equal(pmuvirt_vpmu_rdpmc(&r->pc, vp, 0, &v), -EINVAL);
	assert_int_equal(pmuvirt_vpmu_rdpmc(&r->pc, vp, 1u << 30, &v), -EINVAL);
	vr_run(r, FAKEHW_BRANCHES, 100, false);
	vr_run(r, FAKEHW_INSTRUCTIONS, 100, false);
	assert_int_equal(r->v[0].pmis, 0);
	/* the host's own counter counts beside the guest's nothing */
	host.counter[0].event = PMUVIRT_EV_CYCLES;
	host.counter[0].flags = PMUVIRT_CTR_USER;
	assert_int_equal(pmuvirt_vpmu_set_host(&r->pc, vp, &host, 0, 1, NULL), 0);
	assert_int_equal(r->v[0].ctx->nr_counters, 1);
	vr_run(r, FAKEHW_CYCLES, 9, false);
	vr_run(r, FAKEHW_BRANCHES, 9, false);
	assert_int_equal(pmuvirt_read_counter(r->v[0].ctx, 0, &v), 0);
	assert_int_equal(v, 9);
	/* on again: the registers as they were, counting from their values */
	assert_int_equal(pmuvirt_vpmu_set_policy(&r->pc, vp, NULL), 0);
	assert_false(pmuvirt_vpmu_off(vp));
	assert_true(vr_rd(r, 0, EVTSEL0) == SEL(0xc4));
	assert_true(vr_rd(r, 0, FIXED_CTRL) == 0xb);
	vr_run(r, FAKEHW_BRANCHES, 5, false);
	vr_run(r, FAKEHW_INSTRUCTIONS, 2, false);
	assert_int_equal(vr_rd(r, 0, PMC0), 15);
	assert_int_equal(vr_rd(r, 0, FIXED_CTR0), 5);
	assert_int_equal(r->v[0].ctx->nr_counters, 3);
	/* off while switched out, then switched in: nothing counts */
	vr_switch(r, -1);
	assert_int_equal(pmuvirt_vpmu_set_policy(NULL, vp, &off), 0);
	vr_switch(r, 0);
	assert_int_equal(r->v[0].ctx->nr_counters, 1);
	vr_run(r, FAKEHW_BRANCHES, 5, false);
	assert_int_equal(pmuvirt_vpmu_rdmsr(&r->pc, vp, PMC0, &v), -EINVAL);
	assert_int_equal(pmuvirt_vpmu_set_policy(&r->pc, vp, NULL), 0);
	assert_int_equal(vr_rd(r, 0, PMC0), 15);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * perf stat in two VCPUs of one domain, four counters each (cycles and
 * instructions on fixed counters, branches and branch misses on general
 * ones), all interrupting at the counters' half range as Linux arms them
 * in counting mode.  A switch between the two reads the four counters and
 * writes nothing; each VCPU's counts hold its own events only.  A VCPU of
 * another domain has every counter re-based.
 */
static void program_stat_intel(struct vr *r, unsigned int k)
{
	const uint64_t left = W48 - (((uint64_t)1 << 47) - 1);
	unsigned int i;

	vr_wr(r, k, G_CTRL, 0);
	vr_wr(r, k, EVTSEL0, SEL(0xc4));
	vr_wr(r, k, EVTSEL0 + 1, SEL(0xc5));
	vr_wr(r, k, FIXED_CTRL, 0xbb);
	for (i = 0; i < 2; i++) {
		vr_wr(r, k, A_PMC0 + i, left);
		vr_wr(r, k, FIXED_CTR0 + i, left);
	}
	vr_wr(r, k, G_CTRL, 0x300000003ull);
}

static void program_stat_amd(struct vr *r, unsigned int k)
{
	static const uint64_t code[] = { 0x76, 0xc0, 0xc2, 0xc3 };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		vr_wr(r, k, F15_CTL(i), SEL(code[i]));
		vr_wr(r, k, F15_CTR(i), W48 - (((uint64_t)1 << 47) - 1));
	}
}

static void two_vcpus(const struct fakehw_x86_config *cfg, bool intel)
{
	struct vr *r = vr_new(cfg, NULL, 0);
	const struct fakehw_stats *st = fakehw_stats(r->hw);
	const uint64_t left = W48 - (((uint64_t)1 << 47) - 1);
	uint32_t cyc = intel ? FIXED_CTR0 + 1 : F15_CTR(0), ins = intel ? FIXED_CTR0 : F15_CTR(1);
	uint32_t br = intel ? A_PMC0 : F15_CTR(2), miss = intel ? A_PMC0 + 1 : F15_CTR(3);
	uint64_t want[2][4] = { { 0 } };
	unsigned int n, k;

	for (k = 0; k < 2; k++) {
		vr_switch(r, (int)k);
		if (intel)
			program_stat_intel(r, k);
		else
			program_stat_amd(r, k);
	}
	for (n = 0; n < 20; n++) {
		k = n & 1;
		fakehw_reset_stats(r->hw);
		vr_switch(r, (int)k);
		assert_int_equal(st->reg_writes, 0);
		assert_int_equal(st->reg_reads + st->counter_reads + st->tsc_reads, 4);
		vr_run(r, FAKEHW_CYCLES, 1000 + n, false);
		vr_run(r, FAKEHW_INSTRUCTIONS, 300 * (k + 1), true);
		vr_run(r, FAKEHW_BRANCHES, 50 + k, false);
		vr_run(r, FAKEHW_BRANCH_MISSES, 2 + n, true);
		want[k][0] += 1000 + n;
		want[k][1] += 300 * (k + 1);
		want[k][2] += 50 + k;
		want[k][3] += 2 + n;
	}
	for (k = 0; k < 2; k++) {
		if (r->pc.running != r->v[k].ctx)
			vr_switch(r, (int)k);
		assert_true(vr_rd(r, k, cyc) == left + want[k][0]);
		assert_true(vr_rd(r, k, ins) == left + want[k][1]);
		assert_true(vr_rd(r, k, br) == left + want[k][2]);
		assert_true(vr_rd(r, k, miss) == left + want[k][3]);
		assert_int_equal(r->v[k].pmis, 0);
	}
	/* VCPU 1 in another domain */
	vr_switch(r, 0);
	vr_switch(r, -1);
	assert_int_equal(pmuvirt_ctx_set_domain(r->v[1].ctx, 2), 0);
	vr_switch(r, 0);
	fakehw_reset_stats(r->hw);
	vr_switch(r, 1);
	/* the four counters that counted for VCPU 0's domain, which VCPU 1 counts on */
	assert_int_equal(st->reg_writes, 4);
	vr_run(r, FAKEHW_BRANCHES, 5, false);
	assert_true(vr_rd(r, 1, br) == left + want[1][2] + 5);
	vr_switch(r, -1);
	vr_free(r);
}

static void test_two_vcpus(void **state)
{
	two_vcpus(&rig_intel_v4, true);
	two_vcpus(&rig_amd_17h, false);
	two_vcpus(&rig_amd_19h, false);
}

/*
 * An overflow that the switch-out found before its PMI (held back here)
 * stays with the VCPU that counted it: the other VCPU gets nothing, the
 * owner gets exactly one interrupt when it is switched in again.
 */
static void test_overflow_at_switch(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);

	vr_switch(r, 0);
	vr_wr(r, 0, EVTSEL0, SEL(0xc0));
	vr_wr(r, 0, A_PMC0, W48 - 10);
	vr_switch(r, 1);
	vr_wr(r, 1, EVTSEL0, SEL(0xc0));
	vr_wr(r, 1, A_PMC0, W48 - 1000);
	vr_switch(r, 0);
	fakehw_set_pmi(r->hw, NULL, NULL);
	vr_run(r, FAKEHW_INSTRUCTIONS, 12, false);
	assert_int_equal(vr_rd(r, 0, A_PMC0), 2);
	assert_int_equal(pmuvirt_switch(&r->pc, r->v[1].ctx), 0);
	fakehw_set_pmi(r->hw, vr_host_pmi, r);
	assert_int_equal(pmuvirt_vpmu_deliver(&r->pc, &r->v[1].vp), 0);
	vr_run(r, FAKEHW_INSTRUCTIONS, 5, false);
	assert_int_equal(r->v[0].pmis + r->v[1].pmis, 0);
	assert_int_equal(vr_rd(r, 1, A_PMC0), W48 - 995);
	vr_switch(r, 0);
	assert_int_equal(r->v[0].pmis, 1);
	assert_int_equal(r->v[1].pmis, 0);
	assert_int_equal(vr_rd(r, 0, G_STATUS), 1);
	assert_int_equal(vr_rd(r, 0, A_PMC0), 2);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * Overflows whose PMI has not come yet (held back here) are the guest's as
 * soon as it looks: a GLOBAL_STATUS read shows them and raises their
 * interrupt once, and a clear of GLOBAL_OVF_CTRL without a read clears
 * them for good (the PMI that comes later sets nothing again).
 */
static void test_status_before_pmi(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);

	vr_switch(r, 0);
	vr_wr(r, 0, EVTSEL0, SEL(0xc0));
	vr_wr(r, 0, EVTSEL0 + 1, SEL(0xc4));
	vr_wr(r, 0, A_PMC0, W48 - 10);
	vr_wr(r, 0, A_PMC0 + 1, W48 - 10);
	fakehw_set_pmi(r->hw, NULL, NULL);
	vr_run(r, FAKEHW_INSTRUCTIONS, 11, false);
	assert_int_equal(vr_rd(r, 0, G_STATUS), 1);
	assert_int_equal(r->v[0].pmis, 1);
	vr_run(r, FAKEHW_BRANCHES, 11, false);
	vr_wr(r, 0, G_OVF, 3);
	assert_int_equal(r->v[0].pmis, 2);
	fakehw_set_pmi(r->hw, vr_host_pmi, r);
	vr_host_pmi(r);
	assert_int_equal(vr_rd(r, 0, G_STATUS), 0);
	assert_int_equal(r->v[0].pmis, 2);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * A counter without its interrupt bit raises nothing, but its wrap sets its
 * GLOBAL_STATUS bit (Intel v2+, PerfMonV2) right when it happens; a model
 * without status (Intel v1) just wraps.
 */
static void test_status_without_interrupt(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);
	struct vr *r1 = vr_new(&rig_intel_v1, NULL, 0);

	vr_switch(r, 0);
	vr_wr(r, 0, EVTSEL0 + 2, SEL(0xc0) & ~VR_INT);
	vr_wr(r, 0, A_PMC0 + 2, W48 - 3);
	vr_run(r, FAKEHW_INSTRUCTIONS, 2, false);
	assert_int_equal(vr_rd(r, 0, G_STATUS), 0);
	vr_run(r, FAKEHW_INSTRUCTIONS, 4, false);
	assert_int_equal(vr_rd(r, 0, G_STATUS), 1u << 2);
	assert_int_equal(vr_rd(r, 0, PMC0 + 2), 3);
	assert_int_equal(r->v[0].pmis, 0);
	vr_switch(r, -1);
	vr_free(r);

	vr_switch(r1, 0);
	vr_wr(r1, 0, EVTSEL0, SEL(0xc0) & ~VR_INT);
	vr_wr(r1, 0, PMC0, 0xfffffffe);
	vr_run(r1, FAKEHW_INSTRUCTIONS, 3, false);
	assert_int_equal(vr_rd(r1, 0, PMC0), 1);
	assert_int_equal(r1->v[0].pmis, 0);
	vr_switch(r1, -1);
	vr_free(r1);
}

/*
 * A guest's save and restore: the blob carries the registers and values,
 * the restored VCPU (on another host: Intel v2 without full-width writes
 * below the same guest model) reads the same and counts on to the same
 * interrupt.  Every corrupted blob is refused with the VCPU unchanged.
 */
static void test_save_restore(void **state)
{
	struct vr *a = vr_new(&rig_intel_v4, NULL, 0);
	struct vr *b;
	struct pmuvirt_vpmu_saved blob, bad;
	struct pmuvirt_vpmu before;
	struct pmuvirt_error err;
	unsigned int i, bit;

	vr_switch(a, 0);
	vr_wr(a, 0, G_CTRL, 0);
	vr_wr(a, 0, EVTSEL0, SEL(0xc4));
	vr_wr(a, 0, A_PMC0, W48 - 100);
	vr_wr(a, 0, FIXED_CTRL, 0x30);	/* fixed 1, no PMI */
	vr_wr(a, 0, FIXED_CTR0 + 1, 17);
	vr_wr(a, 0, G_CTRL, 1 | 1ull << 33);
	vr_run(a, FAKEHW_BRANCHES, 60, false);
	vr_run(a, FAKEHW_CYCLES, 5, false);
	assert_int_equal(pmuvirt_vpmu_save(&a->v[0].vp, &blob), -EBUSY);
	vr_switch(a, -1);
	assert_int_equal(pmuvirt_vpmu_save(&a->v[0].vp, &blob), 0);
	assert_int_equal(blob.size, sizeof(blob));
	assert_true(blob.value[0] == W48 - 40);
	assert_int_equal(blob.value[PMUVIRT_VPMU_MAX_GP + 1], 22);

	b = vr_new(&rig_intel_v2, &a->v[0].vp.model, 0);
	assert_int_equal(pmuvirt_vpmu_restore(&b->v[0].vp, &blob, &err), 0);
	vr_switch(b, 0);
	assert_int_equal(pmuvirt_vpmu_restore(&b->v[0].vp, &blob, &err), -EBUSY);
	assert_true(vr_rd(b, 0, A_PMC0) == W48 - 40);
	assert_int_equal(vr_rd(b, 0, FIXED_CTR0 + 1), 22);
	assert_true(vr_rd(b, 0, G_CTRL) == (1 | 1ull << 33));
	vr_run(b, FAKEHW_BRANCHES, 39, false);
	assert_int_equal(b->v[0].pmis, 0);
	vr_run(b, FAKEHW_BRANCHES, 1, false);
	assert_int_equal(b->v[0].pmis, 1);
	vr_run(b, FAKEHW_CYCLES, 8, false);
	assert_int_equal(vr_rd(b, 0, FIXED_CTR0 + 1), 30);
	vr_switch(b, -1);

	/* every bit of the blob flipped: refused, nothing changed */
	before = b->v[1].vp;
	for (i = 0; i < sizeof(blob); i++)
		for (bit = 0; bit < 8; bit++) {
			bad = blob;
			((uint8_t *)&bad)[i] ^= (uint8_t)(1u << bit);
			assert_int_equal(pmuvirt_vpmu_restore(&b->v[1].vp, &bad, &err), -EINVAL);
			assert_memory_equal(&before, &b->v[1].vp, sizeof(before));
		}
	/* well-formed blobs of states no guest can make */
	for (i = 0; i < 10; i++) {
		bad = blob;
		switch (i) {
		case 0: bad.evtsel[0] |= 1ull << 21; break;		/* AnyThread */
		case 1: bad.evtsel[0] |= 1ull << 32; break;		/* reserved */
		case 2: bad.evtsel[4] = 0x4300c0; break;		/* no general counter 4 */
		case 3: bad.value[1] = W48; break;			/* above the width */
		case 4: bad.value[PMUVIRT_VPMU_MAX_GP + 3] = 1; break;	/* no fixed counter 3 */
		case 5: bad.fixed_ctrl = 0x4; break;			/* AnyThread */
		case 6: bad.global_ctrl = 1ull << 35; break;
		case 7: bad.global_status = 1ull << 20; break;
		case 8: bad.model.nr_gp = 3; break;			/* another guest */
		case 9: bad.reserved = 1; break;
		}
		bad.check = pmuvirt_vpmu_saved_check(&bad);
		assert_int_equal(pmuvirt_vpmu_restore(&b->v[1].vp, &bad, &err), -EINVAL);
		assert_non_null(err.reason);
		assert_memory_equal(&before, &b->v[1].vp, sizeof(before));
	}
	/* what restores saves back to the same bytes */
	assert_int_equal(pmuvirt_vpmu_restore(&b->v[1].vp, &blob, &err), 0);
	assert_int_equal(pmuvirt_vpmu_save(&b->v[1].vp, &bad), 0);
	assert_memory_equal(&bad, &blob, sizeof(blob));
	vr_free(a);
	vr_free(b);
}

/*
 * A VCPU whose guest also uses pmuvirt (the host's own counters in its
 * context): the host's counters come first and neither party's counts move
 * when the other's change; the shared record shows the host's counters
 * only.  Whoever asks second does without: a host control that does not
 * fit beside the guest's counting counters is -EBUSY with nothing changed;
 * a guest counter enabled when the host holds the room counts nothing
 * until the room is free.
 */
static void test_share_with_host(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);
	struct pmuvirt_vpmu *vp = &r->v[0].vp;
	struct pmuvirt_ctx *ctx = r->v[0].ctx;
	struct pmuvirt_shared_ctx rec = { 0 };
	struct pmuvirt_control own, own3, big;
	struct pmuvirt_saved_ctx sblob;
	struct pmuvirt_error err;
	uint64_t v;
	unsigned int i;

	rig_control(&own, 2, (const struct pmuvirt_counter_ctl[]){
		{ .event = PMUVIRT_EV_BRANCHES, .flags = PMUVIRT_CTR_USER },
		{ .event = PMUVIRT_EV_TSC } });
	rig_control(&own3, 3, (const struct pmuvirt_counter_ctl[]){
		{ .event = PMUVIRT_EV_BRANCHES, .flags = PMUVIRT_CTR_USER },
		{ .event = PMUVIRT_EV_TSC },
		{ .event = PMUVIRT_EV_BRANCH_MISSES, .flags = PMUVIRT_CTR_KERNEL, .period = 50 } });
	pmuvirt_ctx_attach_shared(ctx, &rec);
	vr_switch(r, 0);
	assert_int_equal(pmuvirt_vpmu_set_host(&r->pc, vp, &own, 0, 2, &err), 0);
	vr_run(r, FAKEHW_BRANCHES, 10, false);
	/* the guest programs two counters: the host's go on */
	vr_wr(r, 0, G_CTRL, 0);
	vr_wr(r, 0, EVTSEL0, SEL(0xc4));
	vr_wr(r, 0, FIXED_CTRL, 0xb0);
	vr_wr(r, 0, G_CTRL, 1 | 1ull << 33);
	assert_int_equal(ctx->nr_counters, 4);
	assert_int_equal(rec.nr_counters, 2);
	vr_run(r, FAKEHW_BRANCHES, 7, false);
	vr_run(r, FAKEHW_CYCLES, 3, false);
	assert_int_equal(pmuvirt_read_counter(ctx, 0, &v), 0);
	assert_int_equal(v, 17);
	assert_int_equal(pmuvirt_read_counter(ctx, 1, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(vr_rd(r, 0, PMC0), 7);
	/* the host adds a counter, keeping its two: the guest's go on */
	assert_int_equal(pmuvirt_vpmu_set_host(&r->pc, vp, &own3, 2, 2, &err), 0);
	vr_run(r, FAKEHW_BRANCHES, 1, false);
	vr_run(r, FAKEHW_BRANCH_MISSES, 120, true);
	assert_int_equal(pmuvirt_read_counter(ctx, 0, &v), 0);
	assert_int_equal(v, 18);
	assert_int_equal(vr_rd(r, 0, PMC0), 8);
	assert_int_equal(vr_rd(r, 0, FIXED_CTR0 + 1), 3);
	/* the host's notifications are its own to take: two of period 50 */
	assert_int_equal(pmuvirt_vpmu_deliver(&r->pc, vp), 0);
	assert_int_equal(r->v[0].pmis, 0);
	assert_int_equal(pmuvirt_take_overflows_mask(ctx, 7, NULL), 4);
	/* the guest takes every general counter: the fourth finds the host's */
	for (i = 1; i < 4; i++)
		vr_wr(r, 0, EVTSEL0 + i, SEL(i == 3 ? 0xc4 : 0xc0));
	vr_wr(r, 0, G_CTRL, 0xf | 1ull << 33);
	vr_run(r, FAKEHW_BRANCHES, 6, false);
	vr_run(r, FAKEHW_INSTRUCTIONS, 6, false);
	assert_int_equal(vr_rd(r, 0, PMC0 + 1), 6);
	assert_int_equal(vr_rd(r, 0, PMC0 + 2), 6);
	assert_int_equal(vr_rd(r, 0, PMC0 + 3), 0);
	/* a host control that needs a general counter more: -EBUSY, nothing changes */
	rig_control(&big, 4, (const struct pmuvirt_counter_ctl[]){
		{ .event = PMUVIRT_EV_BRANCHES, .flags = PMUVIRT_CTR_USER },
		{ .event = PMUVIRT_EV_TSC },
		{ .event = PMUVIRT_EV_BRANCH_MISSES, .flags = PMUVIRT_CTR_KERNEL, .period = 50 },
		{ .event = PMUVIRT_EV_BRANCHES, .flags = PMUVIRT_CTR_KERNEL } });
	assert_int_equal(pmuvirt_vpmu_set_host(&r->pc, vp, &big, 3, 3, &err), -EBUSY);
	assert_int_equal(ctx->nr_counters, 3 + 4);
	/* the host drops its general counters: the guest's fourth counts */
	rig_control(&own, 1, (const struct pmuvirt_counter_ctl[]){ { .event = PMUVIRT_EV_TSC } });
	assert_int_equal(pmuvirt_vpmu_set_host(&r->pc, vp, &own, 0, 1, &err), 0);
	vr_run(r, FAKEHW_BRANCHES, 2, false);
	assert_int_equal(vr_rd(r, 0, PMC0 + 3), 2);
	assert_int_equal(vr_rd(r, 0, PMC0), 16);
	/* the host's counters saved on their own */
	assert_int_equal(pmuvirt_vpmu_save_host(vp, &sblob), -EBUSY);
	vr_switch(r, -1);
	assert_int_equal(pmuvirt_vpmu_save_host(vp, &sblob), 0);
	assert_int_equal(sblob.ctl.nr_counters, 1);
	assert_int_equal(pmuvirt_ctx_save(ctx, &own, &sblob), -EINVAL);
	/* detached: the guest's counters keep their values and count nothing */
	vr_switch(r, 0);
	assert_true(pmuvirt_vpmu_attached(vp));
	assert_int_equal(pmuvirt_vpmu_detach(&r->pc, vp), 0);
	assert_false(pmuvirt_vpmu_attached(vp));
	assert_int_equal(ctx->nr_counters, 1);
	vr_run(r, FAKEHW_BRANCHES, 5, false);
	assert_int_equal(vr_rd(r, 0, PMC0), 16);
	vr_wr(r, 0, EVTSEL0, SEL(0xc0));
	assert_int_equal(ctx->nr_counters, 1);
	assert_int_equal(pmuvirt_vpmu_set_host(&r->pc, vp, &own, 1, 1, &err), 0);
	vr_run(r, FAKEHW_INSTRUCTIONS, 3, false);
	assert_int_equal(vr_rd(r, 0, PMC0), 19);
	vr_switch(r, -1);
	pmuvirt_ctx_attach_shared(ctx, NULL);
	vr_free(r);
}

/*
 * The host gives the context a control behind the emulator's back
 * (pmuvirt_set_control()): the guest's counters lose the events since the
 * last fold, count nothing and touch no register until
 * pmuvirt_vpmu_set_host() takes the context back.  A VCPU that goes away
 * (pmuvirt_ctx_release()) leaves nothing counting.
 */
static void test_taken_away(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);
	struct pmuvirt_vpmu *vp = &r->v[0].vp;
	struct pmuvirt_control own;
	uint64_t gctl;

	assert_false(pmuvirt_vpmu_attached(NULL));
	vr_switch(r, 0);
	assert_true(pmuvirt_vpmu_attached(vp));
	vr_wr(r, 0, EVTSEL0, SEL(0xc0));
	vr_run(r, FAKEHW_INSTRUCTIONS, 4, false);
	vr_wr(r, 0, EVTSEL0 + 1, SEL(0xc0));	/* folds: counter 0 at 4 */
	vr_run(r, FAKEHW_INSTRUCTIONS, 3, false);
	assert_true(pmuvirt_vpmu_attached(vp));
	rig_control(&own, 1, (const struct pmuvirt_counter_ctl[]){ { .event = PMUVIRT_EV_TSC } });
	assert_int_equal(pmuvirt_set_control(&r->pc, r->v[0].ctx, &own, NULL), 0);
	assert_false(pmuvirt_vpmu_attached(vp));
	fakehw_reset_stats(r->hw);
	assert_int_equal(vr_rd(r, 0, PMC0), 4);
	vr_wr(r, 0, EVTSEL0 + 2, SEL(0xc0));
	vr_wr(r, 0, A_PMC0, 9);
	assert_int_equal(fakehw_stats(r->hw)->reg_writes, 0);
	assert_int_equal(r->v[0].ctx->nr_counters, 1);
	assert_false(pmuvirt_vpmu_attached(vp));
	assert_int_equal(pmuvirt_vpmu_set_host(&r->pc, vp, &own, 1, 1, NULL), 0);
	assert_true(pmuvirt_vpmu_attached(vp));
	vr_run(r, FAKEHW_INSTRUCTIONS, 2, false);
	assert_int_equal(vr_rd(r, 0, PMC0), 11);
	assert_int_equal(vr_rd(r, 0, PMC0 + 2), 2);
	/* gone while running: GLOBAL_CTRL off, and the emulator touches nothing */
	pmuvirt_ctx_release(r->v[0].ctx);
	assert_null(r->pc.running);
	assert_int_equal(fakehw_peek(r->hw, G_CTRL, &gctl), 0);
	assert_int_equal(gctl, 0);
	fakehw_reset_stats(r->hw);
	vr_wr(r, 0, EVTSEL0 + 3, SEL(0xc4));
	/* its events since the last fold went with the context */
	assert_int_equal(vr_rd(r, 0, PMC0), 9);
	assert_int_equal(fakehw_stats(r->hw)->reg_writes + fakehw_stats(r->hw)->counter_reads, 0);
	vr_free(r);
}

/* INIT: every register at its power-on value, the counters stopped. */
static void test_reset(void **state)
{
	struct vr *r = vr_new(&rig_amd_19h, NULL, 0);

	vr_switch(r, 0);
	assert_int_equal(vr_rd(r, 0, A_CTL), 0x3f);
	vr_wr(r, 0, F15_CTL(1), SEL(0xc0));
	vr_wr(r, 0, F15_CTR(1), W48 - 5);
	vr_run(r, FAKEHW_INSTRUCTIONS, 6, false);
	assert_int_equal(r->v[0].pmis, 1);
	assert_int_equal(pmuvirt_vpmu_reset(&r->pc, &r->v[0].vp), 0);
	assert_int_equal(vr_rd(r, 0, A_CTL), 0x3f);
	assert_int_equal(vr_rd(r, 0, A_STATUS), 0);
	assert_int_equal(vr_rd(r, 0, F15_CTL(1)), 0);
	assert_int_equal(vr_rd(r, 0, F15_CTR(1)), 0);
	assert_int_equal(r->v[0].ctx->nr_counters, 0);
	vr_run(r, FAKEHW_INSTRUCTIONS, 6, false);
	assert_int_equal(vr_rd(r, 0, F15_CTR(1)), 0);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * The host's privilege mapping: with PMUVIRT_VPMU_F_GUEST_ONLY (an HVM
 * guest) an OS counter counts only while the CPU runs the guest (AMD
 * GuestOnly on the host); with PMUVIRT_VPMU_F_PV an OS counter counts user
 * mode, where a PV guest's kernel runs, and not the host's kernel.
 */
static void test_privilege(void **state)
{
	struct vr *r = vr_new(&rig_amd_17h, NULL, PMUVIRT_VPMU_F_GUEST_ONLY);
	const struct pmuvirt_vpmu_model *m = &r->v[0].vp.model;
	struct pmuvirt_vpmu bad;

	assert_int_equal(pmuvirt_vpmu_init(&bad, r->v[1].ctx, m,
					   PMUVIRT_VPMU_F_GUEST_ONLY | PMUVIRT_VPMU_F_PV, NULL, NULL),
			 -EINVAL);
	assert_int_equal(pmuvirt_vpmu_init(&bad, r->v[1].ctx, m, 4, NULL, NULL), -EINVAL);
	vr_switch(r, 0);
	vr_wr(r, 0, F15_CTL(0), SEL(0xc0) & ~VR_USR);
	vr_run(r, FAKEHW_INSTRUCTIONS, 10, true);	/* the host's kernel */
	assert_int_equal(fakehw_x86_vm_entry(r->hw, false, 0), 0);
	vr_run(r, FAKEHW_INSTRUCTIONS, 4, true);	/* the guest's kernel */
	assert_int_equal(fakehw_x86_vm_exit(r->hw, false, 0), 0);
	assert_int_equal(vr_rd(r, 0, F15_CTR(0)), 4);
	vr_switch(r, -1);
	vr_free(r);

	r = vr_new(&rig_amd_17h, NULL, PMUVIRT_VPMU_F_PV);
	vr_switch(r, 0);
	assert_int_equal(pmuvirt_vpmu_pv_mode(vr_pc(r, 0), &r->v[0].vp, true), 0);
	vr_wr(r, 0, F15_CTL(0), SEL(0xc0) & ~VR_USR);
	vr_run(r, FAKEHW_INSTRUCTIONS, 10, true);
	vr_run(r, FAKEHW_INSTRUCTIONS, 4, false);
	assert_int_equal(vr_rd(r, 0, F15_CTR(0)), 4);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * A PV guest's kernel runs in ring 3 like its user space: the host tells
 * the emulator each switch between them (pmuvirt_vpmu_pv_mode()), and a
 * counter that selects one mode counts that mode only, at one counter
 * read per one-sided counter per switch and no write.  Xen's own work
 * (ring 0 on the host) counts for no guest counter.  An interrupting
 * counter's period ignores the other mode's events, also when they made
 * the hardware counter wrap, and across a switch of VCPUs and a new
 * event select written in kernel mode.
 */
static void toggle_rw(struct vr *r, bool kernel, unsigned int reads, unsigned int writes)
{
	struct pmuvirt_stats before = r->pc.stats;

	assert_int_equal(pmuvirt_vpmu_pv_mode(vr_pc(r, 0), &r->v[0].vp, kernel), 0);
	assert_int_equal(r->pc.stats.reg_reads - before.reg_reads, reads);
	assert_int_equal(r->pc.stats.reg_writes - before.reg_writes, writes);
}

static void toggle(struct vr *r, bool kernel, unsigned int reads)
{
	toggle_rw(r, kernel, reads, 0);
}

static void pv_split(const struct fakehw_x86_config *cfg, uint32_t ctl0, uint32_t ctr0,
		     unsigned int stride)
{
	struct vr *r = vr_new(cfg, NULL, PMUVIRT_VPMU_F_PV);
	const uint64_t p = 1000;
	uint64_t w = (uint64_t)1 << r->v[0].vp.model.width, m = w - 1;
	unsigned int pmis;

	vr_switch(r, 0);
	toggle(r, false, 0);		/* no counter yet: nothing read */
	if (r->v[0].vp.model.vendor == PMUVIRT_VPMU_INTEL)
		vr_wr(r, 0, G_CTRL, 0x7);
	vr_wr(r, 0, ctl0, (SEL(0xc0) & ~VR_INT) & ~VR_OS);
	vr_wr(r, 0, ctl0 + stride, (SEL(0xc0) & ~VR_INT) & ~VR_USR);
	vr_wr(r, 0, ctl0 + 2 * stride, SEL(0xc0) & ~VR_INT);
	vr_run(r, FAKEHW_INSTRUCTIONS, 10, false);	/* guest user */
	toggle(r, true, 2);
	vr_run(r, FAKEHW_INSTRUCTIONS, 4, false);	/* guest kernel, ring 3 */
	vr_run(r, FAKEHW_INSTRUCTIONS, 3, true);	/* Xen */
	assert_int_equal(vr_rd(r, 0, ctr0), 10);
	assert_int_equal(vr_rd(r, 0, ctr0 + stride), 4);
	toggle(r, true, 0);		/* no switch: nothing read */
	toggle(r, false, 2);
	vr_run(r, FAKEHW_INSTRUCTIONS, 5, false);
	assert_int_equal(vr_rd(r, 0, ctr0), 15);
	assert_int_equal(vr_rd(r, 0, ctr0 + stride), 4);
	assert_int_equal(vr_rd(r, 0, ctr0 + 2 * stride), 19);
	/* the VCPU leaves the CPU in kernel mode and comes back */
	toggle(r, true, 2);
	vr_run(r, FAKEHW_INSTRUCTIONS, 6, false);
	vr_switch(r, -1);
	vr_switch(r, 1);
	vr_run(r, FAKEHW_INSTRUCTIONS, 50, false);
	vr_switch(r, 0);
	vr_run(r, FAKEHW_INSTRUCTIONS, 7, false);
	assert_int_equal(vr_rd(r, 0, ctr0), 15);
	assert_int_equal(vr_rd(r, 0, ctr0 + stride), 17);
	assert_int_equal(vr_rd(r, 0, ctr0 + 2 * stride), 32);

	/* a user-only interrupting counter, written in kernel mode */
	vr_wr(r, 0, ctl0 + stride, 0);
	vr_wr(r, 0, ctl0 + 2 * stride, 0);
	vr_wr(r, 0, ctl0, SEL(0xc0) & ~VR_OS);
	vr_wr(r, 0, ctr0, (w - p) & m);
	pmis = r->host_pmis;
	vr_run(r, FAKEHW_INSTRUCTIONS, 3 * p, false);	/* kernel: wraps the hardware */
	assert_int_equal(r->v[0].pmis, 0);
	assert_int_equal(r->host_pmis, pmis + 1);	/* parked: no storm */
	assert_true(vr_rd(r, 0, ctr0) == ((w - p) & m));
	toggle_rw(r, false, 1, 1);			/* the parked counter armed again */
	vr_run(r, FAKEHW_INSTRUCTIONS, p - 1, false);
	toggle(r, true, 1);
	pmis = r->host_pmis;
	vr_run(r, FAKEHW_INSTRUCTIONS, 2 * p, false);	/* one event from the wrap */
	assert_int_equal(r->v[0].pmis, 0);
	assert_int_equal(r->host_pmis, pmis + 1);
	assert_true(vr_rd(r, 0, ctr0) == m);
	toggle_rw(r, false, 1, 1);
	pmis = r->v[0].pmis;
	vr_run(r, FAKEHW_INSTRUCTIONS, 1, false);
	assert_int_equal(r->v[0].pmis, pmis + 1);
	assert_true(vr_rd(r, 0, ctr0) == 0);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * The host's own counters in front of a PV guest's come and go (a
 * pmuvirt-aware PV guest's control): the guest's :u counter stays muted
 * in kernel mode, and a muted host counter keeps its state across the
 * guest's new plans.
 */
static void pv_split_beside_host(void)
{
	struct vr *r = vr_new(&rig_amd_17h, NULL, PMUVIRT_VPMU_F_PV);
	struct pmuvirt_vpmu *vp = &r->v[0].vp;
	struct pmuvirt_ctx *ctx = r->v[0].ctx;
	struct pmuvirt_control own;

	rig_control(&own, 2, (const struct pmuvirt_counter_ctl[]){
		{ .event = PMUVIRT_EV_BRANCHES, .flags = PMUVIRT_CTR_USER },
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = PMUVIRT_CTR_USER } });
	vr_switch(r, 0);
	assert_int_equal(pmuvirt_vpmu_set_host(&r->pc, vp, &own, 0, 2, NULL), 0);
	vr_wr(r, 0, F15_CTL(0), (SEL(0xc0) & ~VR_INT) & ~VR_OS);
	toggle(r, true, 1);
	/* the host mutes its second counter; the guest's plans keep that */
	assert_int_equal(pmuvirt_mute(&r->pc, ctx, 0x3, 0x2), 0);
	vr_wr(r, 0, F15_CTL(1), (SEL(0xc0) & ~VR_INT) & ~VR_USR);
	assert_int_equal(ctx->muted_mask, 0x2 | 1u << vp->idx[0]);
	vr_run(r, FAKEHW_INSTRUCTIONS, 5, false);
	assert_int_equal(vr_rd(r, 0, F15_CTR(0)), 0);
	assert_int_equal(vr_rd(r, 0, F15_CTR(1)), 5);
	/* the host's counters go: the guest's :u counter stays muted */
	assert_int_equal(pmuvirt_vpmu_set_host(&r->pc, vp, NULL, 0, 0, NULL), 0);
	assert_int_equal(ctx->muted_mask, 1u << vp->idx[0]);
	vr_run(r, FAKEHW_INSTRUCTIONS, 5, false);
	assert_int_equal(vr_rd(r, 0, F15_CTR(0)), 0);
	assert_int_equal(vr_rd(r, 0, F15_CTR(1)), 10);
	toggle(r, false, 2);
	vr_run(r, FAKEHW_INSTRUCTIONS, 3, false);
	assert_int_equal(vr_rd(r, 0, F15_CTR(0)), 3);
	assert_int_equal(vr_rd(r, 0, F15_CTR(1)), 10);
	vr_switch(r, -1);
	vr_free(r);
}

static void test_pv_split(void **state)
{
	struct vr *r;

	pv_split_beside_host();

	pv_split(&rig_amd_17h, F15_CTL(0), F15_CTR(0), 2);
	pv_split(&rig_amd_k8, K7_CTL0, K7_CTR0, 1);
	pv_split(&rig_intel_v4, EVTSEL0, PMC0, 1);
	/* only PV emulators take mode switches */
	r = vr_new(&rig_amd_17h, NULL, PMUVIRT_VPMU_F_GUEST_ONLY);
	assert_int_equal(pmuvirt_vpmu_pv_mode(NULL, &r->v[0].vp, true), -EINVAL);
	assert_int_equal(pmuvirt_vpmu_pv_mode(NULL, NULL, true), -EINVAL);
	vr_free(r);
}

/*
 * pmuvirt_vpmu_wrmsr_check() says -EINVAL exactly where the write is a
 * #GP, and changes nothing: on an AMD legacy model (the PV guests' under
 * QEMU), an AMD PerfMonV2 one and an Intel v4 one, for each register the
 * models have, registers they lack and reserved bits.
 */
static void check_agrees(struct vr *r, uint32_t msr, uint64_t val)
{
	struct pmuvirt_vpmu before = r->v[0].vp;
	int want, got;

	got = pmuvirt_vpmu_wrmsr_check(&r->v[0].vp, msr, val);
	assert_memory_equal(&before, &r->v[0].vp, sizeof(before));
	want = pmuvirt_vpmu_wrmsr(vr_pc(r, 0), &r->v[0].vp, msr, val);
	if (want != got)
		fail_msg("msr 0x%x <- 0x%llx: check %d, write %d", msr, (unsigned long long)val,
			 got, want);
}

static void test_wrmsr_check(void **state)
{
	const struct pmuvirt_vpmu_model k7 = {
		.vendor = PMUVIRT_VPMU_AMD, .version = PMUVIRT_VPMU_AMD_LEGACY, .nr_gp = 4,
		.width = 48, .family = 6,
	};
	const uint64_t vals[] = {
		0, 1, SEL(0xc0), SEL(0x76), SEL(0xc0) | (1ull << 21), SEL(0xc0) | (1ull << 19),
		SEL(0xc0) | (1ull << 32), SEL(0xc0) | (1ull << 40), M48, W48, ~0ull, 0xb, 0x4,
		1ull << 32, 1ull << 62, 0xf,
	};
	const uint32_t amd[] = {
		K7_CTL0, K7_CTL0 + 3, K7_CTR0, K7_CTR0 + 3, K7_CTR0 + 4, F15_CTL(0), F15_CTR(5),
		A_STATUS, A_CTL, A_CLR, PMC0, EVTSEL0,
	};
	const uint32_t intel[] = {
		PMC0, PMC0 + 3, A_PMC0, EVTSEL0, EVTSEL0 + 3, EVTSEL0 + 8, FIXED_CTR0,
		FIXED_CTR0 + 2, FIXED_CTR0 + 3, FIXED_CTRL, G_STATUS, G_CTRL, G_OVF, 0x391, 0x345,
		K7_CTL0,
	};
	struct vr *r;
	unsigned int i, j, pass;

	for (pass = 0; pass < 3; pass++) {
		if (pass == 0)
			r = vr_new(&rig_amd_k8, &k7, PMUVIRT_VPMU_F_PV);
		else if (pass == 1)
			r = vr_new(&rig_amd_19h, NULL, 0);
		else
			r = vr_new(&rig_intel_v4, NULL, 0);
		vr_switch(r, 0);
		for (i = 0; i < (pass < 2 ? (sizeof(amd) / sizeof(amd[0])) : (sizeof(intel) / sizeof(intel[0]))); i++)
			for (j = 0; j < (sizeof(vals) / sizeof(vals[0])); j++)
				check_agrees(r, pass < 2 ? amd[i] : intel[i], vals[j]);
		/* still agrees with counters that count */
		check_agrees(r, pass < 2 ? K7_CTL0 : EVTSEL0, SEL(0xc0));
		vr_run(r, FAKEHW_INSTRUCTIONS, 10, false);
		check_agrees(r, pass < 2 ? K7_CTR0 : PMC0, 5);
		vr_switch(r, -1);
		vr_free(r);
	}
}

/* Calls for a VCPU whose context runs on another CPU are -EBUSY. */
static void test_other_cpu(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);
	struct pmuvirt_pcpu other;
	uint64_t v;

	rig_pcpu_init(&other, &r->pmu, r->hw, 1);
	vr_switch(r, 0);
	assert_int_equal(pmuvirt_vpmu_wrmsr(&other, &r->v[0].vp, EVTSEL0, SEL(0xc0)), -EBUSY);
	assert_int_equal(pmuvirt_vpmu_rdmsr(&other, &r->v[0].vp, PMC0, &v), -EBUSY);
	assert_int_equal(pmuvirt_vpmu_wrmsr(NULL, &r->v[0].vp, A_PMC0, 1), -EBUSY);
	assert_int_equal(pmuvirt_vpmu_deliver(&other, &r->v[0].vp), -EBUSY);
	assert_int_equal(pmuvirt_vpmu_set_host(&other, &r->v[0].vp, NULL, 0, 0, NULL), -EBUSY);
	assert_int_equal(vr_rd(r, 0, EVTSEL0), 0);
	vr_switch(r, -1);
	vr_free(r);
}

/*
 * pmuvirt_vpmu_counts(): a counter counts when enabled and, where the model
 * has GLOBAL_CTRL, on in it; AMD's legacy PMU has no global control.
 */
static void test_counts(void **state)
{
	struct vr *r = vr_new(&rig_intel_v4, NULL, 0);
	struct vr *a = vr_new(&rig_amd_k8, NULL, 0);
	const struct pmuvirt_vpmu *vp = &r->v[0].vp;

	(void)state;
	vr_switch(r, 0);
	assert_false(pmuvirt_vpmu_counts(vp));
	vr_wr(r, 0, G_CTRL, 0);
	vr_wr(r, 0, EVTSEL0, SEL(0xc4));
	assert_false(pmuvirt_vpmu_counts(vp));		/* enabled, globally off */
	vr_wr(r, 0, G_CTRL, 1);
	assert_true(pmuvirt_vpmu_counts(vp));
	vr_wr(r, 0, G_CTRL, 2);				/* another counter's bit */
	assert_false(pmuvirt_vpmu_counts(vp));
	vr_wr(r, 0, EVTSEL0, 0);
	vr_wr(r, 0, FIXED_CTRL, 0x8);			/* interrupt bit, no ring level */
	vr_wr(r, 0, G_CTRL, 1ull << 32);
	assert_false(pmuvirt_vpmu_counts(vp));
	vr_wr(r, 0, FIXED_CTRL, 0x2);
	assert_true(pmuvirt_vpmu_counts(vp));
	vr_switch(r, -1);
	vr_free(r);

	vr_switch(a, 0);
	assert_false(pmuvirt_vpmu_counts(&a->v[0].vp));
	vr_wr(a, 0, K7_CTL0, SEL(0xc0));
	assert_true(pmuvirt_vpmu_counts(&a->v[0].vp));
	vr_switch(a, -1);
	vr_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_sequence_intel),
		cmocka_unit_test(test_perf_sequence_amd),
		cmocka_unit_test(test_legacy_write),
		cmocka_unit_test(test_full_width_write),
		cmocka_unit_test(test_amd_guest_intel_host),
		cmocka_unit_test(test_intel_guest_amd_host),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_policy_refused),
		cmocka_unit_test(test_policy_no_vpmu),
		cmocka_unit_test(test_two_vcpus),
		cmocka_unit_test(test_overflow_at_switch),
		cmocka_unit_test(test_status_without_interrupt),
		cmocka_unit_test(test_status_before_pmi),
		cmocka_unit_test(test_save_restore),
		cmocka_unit_test(test_share_with_host),
		cmocka_unit_test(test_taken_away),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_privilege),
		cmocka_unit_test(test_pv_split),
		cmocka_unit_test(test_other_cpu),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_wrmsr_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
