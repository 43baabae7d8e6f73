/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * What the vPMU tests share: one host CPU of the strict fakes and two VCPUs,
 * each a context with an emulated PMU (pmuvirt/vpmu.h).  The host's PMI runs
 * pmuvirt_pmi() and then pmuvirt_vpmu_deliver() for the VCPU whose context
 * runs; each VCPU counts the guest interrupts it was given.  Every helper
 * asserts that pmuvirt and the fake accepted what it did.
 */
#ifndef PMUVIRT_TEST_VPMU_RIG_H
#define PMUVIRT_TEST_VPMU_RIG_H

#include <stdlib.h>
#include <string.h>
#include "rig.h"
#include <pmuvirt/vpmu.h>
#include "x86/pmuvirt_x86.h"

#define VR_VCPUS	2

struct vr_vcpu {
	struct pmuvirt_ctx *ctx;
	struct pmuvirt_vpmu vp;
	unsigned int pmis;	/* guest interrupts raised */
	uint64_t ovf;		/* their overflow bits, or-ed */
};

struct vr {
	struct fakehw *hw;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	struct vr_vcpu v[VR_VCPUS];
	int pmi_ret;
	unsigned int host_pmis;
};

static void vr_guest_pmi(void *arg, uint64_t ovf)
{
	struct vr_vcpu *v = arg;

	v->pmis++;
	v->ovf |= ovf;
}

static void vr_host_pmi(void *arg)
{
	struct vr *r = arg;
	uint32_t mask;
	unsigned int k;
	int ret = pmuvirt_pmi(&r->pc, &mask);

	r->host_pmis++;
	if (ret)
		r->pmi_ret = ret;
	for (k = 0; k < VR_VCPUS; k++)
		if (r->v[k].ctx && r->pc.running == r->v[k].ctx) {
			ret = pmuvirt_vpmu_deliver(&r->pc, &r->v[k].vp);
			if (ret)
				r->pmi_ret = ret;
		}
}

/*
 * A host of @cfg with two VCPUs of guest model @m (NULL: the host's), each
 * context in domain 1 with room for every counter.
 */
static inline struct vr *vr_new(const struct fakehw_x86_config *cfg,
				const struct pmuvirt_vpmu_model *m, uint32_t flags)
{
	struct vr *r = calloc(1, sizeof(*r));
	struct pmuvirt_vpmu_model host;
	unsigned int k;

	assert_non_null(r);
	r->hw = rig_x86_new(cfg, &r->pmu);
	rig_pcpu_init(&r->pc, &r->pmu, r->hw, 0);
	fakehw_set_pmi(r->hw, vr_host_pmi, r);
	if (!m) {
		assert_int_equal(pmuvirt_vpmu_model_host(&r->pmu, &host), 0);
		m = &host;
	}
	for (k = 0; k < VR_VCPUS; k++) {
		r->v[k].ctx = rig_ctx_alloc(&r->pmu, PMUVIRT_MAX_COUNTERS);
		assert_int_equal(pmuvirt_ctx_set_domain(r->v[k].ctx, 1), 0);
		assert_int_equal(pmuvirt_vpmu_init(&r->v[k].vp, r->v[k].ctx, m, flags, vr_guest_pmi,
						   &r->v[k]), 0);
	}
	return r;
}

/* The VCPUs' contexts released (no counter left running), the fake refused nothing. */
static inline void vr_free(struct vr *r)
{
	unsigned int k;

	assert_int_equal(r->pmi_ret, 0);
	for (k = 0; k < VR_VCPUS; k++)
		rig_ctx_free(r->v[k].ctx);
	assert_null(r->pc.running);
	rig_hw_free(r->hw);
	free(r);
}

/* VCPU @k runs on the CPU (-1: none), and its pending overflows are given to it. */
static inline void vr_switch(struct vr *r, int k)
{
	assert_int_equal(pmuvirt_switch(&r->pc, k < 0 ? NULL : r->v[k].ctx), 0);
	if (k >= 0)
		assert_int_equal(pmuvirt_vpmu_deliver(&r->pc, &r->v[k].vp), 0);
}

/* The pcpu VCPU @k runs on, or NULL. */
static inline struct pmuvirt_pcpu *vr_pc(struct vr *r, unsigned int k)
{
	return r->v[k].ctx->running_on;
}

static inline void vr_wr(struct vr *r, unsigned int k, uint32_t msr, uint64_t val)
{
	int ret = pmuvirt_vpmu_wrmsr(vr_pc(r, k), &r->v[k].vp, msr, val);

	if (ret)
		fail_msg("wrmsr 0x%x <- 0x%llx: %d", msr, (unsigned long long)val, ret);
}

static inline uint64_t vr_rd(struct vr *r, unsigned int k, uint32_t msr)
{
	uint64_t val;
	int ret = pmuvirt_vpmu_rdmsr(vr_pc(r, k), &r->v[k].vp, msr, &val);

	if (ret)
		fail_msg("rdmsr 0x%x: %d", msr, ret);
	return val;
}

static inline void vr_run(struct vr *r, enum fakehw_event ev, uint64_t n, bool kernel)
{
	rig_run(r->hw, ev, n, kernel);
	assert_int_equal(r->pmi_ret, 0);
}

/* Event-select bits (both vendors). */
#define VR_USR		((uint64_t)1 << 16)
#define VR_OS		((uint64_t)1 << 17)
#define VR_INT		((uint64_t)1 << 20)
#define VR_EN		((uint64_t)1 << 22)

#endif /* PMUVIRT_TEST_VPMU_RIG_H */
