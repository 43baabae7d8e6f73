/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* The unit tests' shared rig (rig.h). */
#include <stdlib.h>
#include <string.h>
#include "rig.h"
#include "x86/pmuvirt_x86.h"
#include "ppc/pmuvirt_ppc.h"

const struct fakehw_x86_config rig_intel_v1 = FAKEHW_X86_INTEL_V1;
const struct fakehw_x86_config rig_intel_v2 = FAKEHW_X86_INTEL_V2;
const struct fakehw_x86_config rig_intel_v3 = FAKEHW_X86_INTEL_V3;
const struct fakehw_x86_config rig_intel_v4 = FAKEHW_X86_INTEL_V4;
const struct fakehw_x86_config rig_intel_v5_legacy = FAKEHW_X86_INTEL_V5_LEGACY;
const struct fakehw_x86_config rig_intel_emu = FAKEHW_X86_INTEL_EMU;
const struct fakehw_x86_config rig_amd_k8 = FAKEHW_X86_AMD_K8;
const struct fakehw_x86_config rig_amd_10h = FAKEHW_X86_AMD_10H;
const struct fakehw_x86_config rig_amd_17h = FAKEHW_X86_AMD_17H;
const struct fakehw_x86_config rig_amd_19h = FAKEHW_X86_AMD_19H;

struct pmuvirt_ctx *rig_ctx_alloc(const struct pmuvirt_pmu *pmu, unsigned int nr)
{
	size_t size = pmuvirt_ctx_size(nr);
	struct pmuvirt_ctx *ctx = calloc(1, size);

	assert_non_null(ctx);
	assert_int_equal(pmuvirt_ctx_init(ctx, size, pmu), 0);
	return ctx;
}

struct pmuvirt_ctx *rig_ctx_new(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl)
{
	struct pmuvirt_ctx *ctx = rig_ctx_alloc(pmu, PMUVIRT_MAX_COUNTERS);
	struct pmuvirt_error err = { 0 };

	if (pmuvirt_set_control(NULL, ctx, ctl, &err))
		fail_msg("set_control: %s", err.reason);
	return ctx;
}

struct pmuvirt_ctx *rig_ctx_new_n(const struct pmuvirt_pmu *pmu, unsigned int n,
				  const struct pmuvirt_counter_ctl *c)
{
	struct pmuvirt_control ctl;

	rig_control(&ctl, n, c);
	return rig_ctx_new(pmu, &ctl);
}

void rig_ctx_free(struct pmuvirt_ctx *ctx)
{
	pmuvirt_ctx_release(ctx);
	free(ctx);
}

void rig_control(struct pmuvirt_control *ctl, unsigned int n, const struct pmuvirt_counter_ctl *c)
{
	unsigned int i;

	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = n;
	for (i = 0; i < n; i++)
		ctl->counter[i] = c[i];
}

uint64_t rig_val(struct pmuvirt_ctx *ctx, unsigned int i)
{
	uint64_t v[PMUVIRT_MAX_COUNTERS];

	assert_int_equal(pmuvirt_read(ctx, v), 0);
	return v[i];
}

struct fakehw *rig_x86_new(const struct fakehw_x86_config *cfg, struct pmuvirt_pmu *pmu)
{
	struct fakehw *hw = fakehw_x86_new(cfg);

	assert_non_null(hw);
	if (pmu)
		assert_int_equal(pmuvirt_x86_probe(pmu, fakehw_ops(hw), hw), 0);
	return hw;
}

struct fakehw *rig_ppc_new(unsigned int power, struct pmuvirt_pmu *pmu)
{
	struct fakehw *hw = fakehw_ppc_new(power);

	assert_non_null(hw);
	if (pmu)
		assert_int_equal(pmuvirt_ppc_probe(pmu, fakehw_ops(hw), hw), 0);
	return hw;
}

void rig_pcpu_init(struct pmuvirt_pcpu *pc, const struct pmuvirt_pmu *pmu, struct fakehw *hw,
		   unsigned int cpu)
{
	assert_int_equal(pmuvirt_pcpu_init(pc, pmu, fakehw_ops(hw), hw, cpu), 0);
}

void rig_hw_free(struct fakehw *hw)
{
	if (fakehw_stats(hw)->errors)
		fail_msg("the fake hardware refused an access: %s", fakehw_last_error(hw));
	fakehw_free(hw);
}

void rig_run(struct fakehw *hw, enum fakehw_event ev, uint64_t n, bool kernel)
{
	assert_int_equal(fakehw_run(hw, ev, n, kernel), 0);
}

static void rig_cpu_pmi(void *arg)
{
	struct rig_cpu *c = arg;
	uint32_t mask = 0;
	int ret = pmuvirt_pmi(&c->pc, &mask);

	if (ret)
		c->pmi_ret = ret;
	c->ovf |= mask;
}

void rig_cpu_start(struct rig_cpu *c, unsigned int nr)
{
	rig_pcpu_init(&c->pc, &c->pmu, c->hw, nr);
	fakehw_set_pmi(c->hw, rig_cpu_pmi, c);
}

void rig_cpu_finish(struct rig_cpu *c)
{
	assert_int_equal(c->pmi_ret, 0);
	rig_hw_free(c->hw);
}
