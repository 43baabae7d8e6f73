/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The unit tests' shared rig: contexts, controls and reads, and CPUs of
 * strict fake hardware with pmuvirt probed on them.  Every helper asserts
 * (cmocka) that pmuvirt and the fake accepted what it did.
 */
#ifndef PMUVIRT_TEST_RIG_H
#define PMUVIRT_TEST_RIG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <setjmp.h>
#include <cmocka.h>
#include "pmuvirt_arch.h"
#include "fakehw_models.h"

/* The fake x86 models of fakehw_models.h (FAKEHW_X86_INTEL_V1 ...), one instance each. */
extern const struct fakehw_x86_config rig_intel_v1, rig_intel_v2, rig_intel_v3, rig_intel_v4,
	rig_intel_v5_legacy, rig_intel_emu, rig_amd_k8, rig_amd_10h, rig_amd_17h, rig_amd_19h;

/* A context with room for @nr counters, initialised for @pmu, no control set. */
struct pmuvirt_ctx *rig_ctx_alloc(const struct pmuvirt_pmu *pmu, unsigned int nr);
/* A context with room for every counter and @ctl set (the reason is shown on failure). */
struct pmuvirt_ctx *rig_ctx_new(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl);
/* The same with a control of the @n counters @c. */
struct pmuvirt_ctx *rig_ctx_new_n(const struct pmuvirt_pmu *pmu, unsigned int n,
				  const struct pmuvirt_counter_ctl *c);
/* Release a context and free it. */
void rig_ctx_free(struct pmuvirt_ctx *ctx);
/* @ctl zeroed, then the current ABI version and the @n counters @c. */
void rig_control(struct pmuvirt_control *ctl, unsigned int n, const struct pmuvirt_counter_ctl *c);
/* Logical value of counter @i (pmuvirt_read() must succeed). */
uint64_t rig_val(struct pmuvirt_ctx *ctx, unsigned int i);

/* A fake x86 CPU of @cfg; when @pmu is not NULL, pmuvirt probes it into @pmu. */
struct fakehw *rig_x86_new(const struct fakehw_x86_config *cfg, struct pmuvirt_pmu *pmu);
/* A fake POWER@power CPU; when @pmu is not NULL, pmuvirt probes it into @pmu. */
struct fakehw *rig_ppc_new(unsigned int power, struct pmuvirt_pmu *pmu);
/* pmuvirt's per-CPU state of CPU @cpu on the fake @hw. */
void rig_pcpu_init(struct pmuvirt_pcpu *pc, const struct pmuvirt_pmu *pmu, struct fakehw *hw,
		   unsigned int cpu);
/* The fake never refused an access (its message on failure); then it is freed. */
void rig_hw_free(struct fakehw *hw);
/* @n events @ev on the fake, in kernel mode if @kernel. */
void rig_run(struct fakehw *hw, enum fakehw_event ev, uint64_t n, bool kernel);

/*
 * A CPU of the fakes whose PMI calls pmuvirt_pmi(): @ovf gathers the
 * overflow masks, @pmi_ret keeps an error.  A test embeds it first in its
 * own CPU to add what its hooks need.
 */
struct rig_cpu {
	struct fakehw *hw;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	uint32_t ovf;
	int pmi_ret;
};

/* @c->hw and @c->pmu set (rig_x86_new, rig_ppc_new): its pcpu as CPU @nr, its PMI wired. */
void rig_cpu_start(struct rig_cpu *c, unsigned int nr);
/* No PMI failed, the fake refused nothing; the fake is freed. */
void rig_cpu_finish(struct rig_cpu *c);

#endif /* PMUVIRT_TEST_RIG_H */
