/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* x86 backend (Intel architectural perfmon v1-v5, AMD K7..Zen, PerfMonV2). */
#ifndef PMUVIRT_X86_H
#define PMUVIRT_X86_H

#include <pmuvirt/pmuvirt.h>

/* struct pmuvirt_pmu.model for x86 */
enum pmuvirt_x86_model {
	PMUVIRT_X86_INTEL_V1 = 1,	/* .. PMUVIRT_X86_INTEL_V1 + 4 for v5 */
	PMUVIRT_X86_INTEL_V2,
	PMUVIRT_X86_INTEL_V3,
	PMUVIRT_X86_INTEL_V4,
	PMUVIRT_X86_INTEL_V5,
	PMUVIRT_X86_AMD_LEGACY = 16,	/* K7 .. Fam10h: PERF_CTL0-3 */
	PMUVIRT_X86_AMD_CORE_EXT,	/* Fam15h, Zen: six counters at 0xC0010200 */
	PMUVIRT_X86_AMD_PERFMON_V2,	/* plus global control and status */
	PMUVIRT_X86_TSC_ONLY = 32,	/* no usable PMU: the TSC alone */
};

/**
 * pmuvirt_x86_probe() - detect the PMU through CPUID and MSR accessors
 * @pmu:	filled on success.
 * @hw:		register access (cpuid, read_reg for IA32_PERF_CAPABILITIES).
 * @hw_arg:	passed to @hw.
 *
 * A CPU without a usable PMU gets PMUVIRT_X86_TSC_ONLY (the TSC works).
 * Only reads: CPUID, and IA32_PERF_CAPABILITIES when CPUID.1:ECX.PDCM says
 * it exists.
 * Return: 0; -ENODEV when even CPUID is not available; the accessor's error
 * when a later CPUID or the PERF_CAPABILITIES read fails.
 */
int pmuvirt_x86_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *hw_arg);

/**
 * pmuvirt_x86_slot_msrs() - the MSRs behind a slot of a probed x86 PMU
 * @pmu:	filled by pmuvirt_x86_probe().
 * @slot:	slot index.
 * @ctr:	receives the counter MSR: IA32_PMCi (0xC1 + i), also on CPUs
 *		with full-width writes, whose writes go to the alias
 *		IA32_A_PMCi; IA32_FIXED_CTRj; AMD PERF_CTRi (legacy or core
 *		extension).  This is the address Linux's counter reservation
 *		(reserve_perfctr_nmi()) names.
 * @ctl:	receives the control MSR: the counter's event select, or
 *		IA32_FIXED_CTR_CTRL (shared by all fixed counters).
 *
 * Return: 0; -EINVAL when @pmu is not an x86 PMU, @slot is out of range or
 * the TSC (which has no control MSR).  @ctr and @ctl are set only on 0.
 */
int pmuvirt_x86_slot_msrs(const struct pmuvirt_pmu *pmu, unsigned int slot, uint32_t *ctr,
			  uint32_t *ctl);

/**
 * pmuvirt_x86_status_msr() - the global overflow status MSR of a probed PMU
 * @pmu:	filled by pmuvirt_x86_probe().
 * @msr:	receives IA32_PERF_GLOBAL_STATUS (Intel v2 and later) or AMD's
 *		PerfCntrGlobalStatus (PerfMonV2).  Bit i is general counter i;
 *		on Intel, bit 32 + j is fixed counter j.
 *
 * Return: 0; -ENODEV when the PMU has no global status register (Intel v1,
 * AMD before PerfMonV2, TSC only); -EINVAL when @pmu is not an x86 PMU.
 * @msr is set only on 0.
 */
int pmuvirt_x86_status_msr(const struct pmuvirt_pmu *pmu, uint32_t *msr);

/* How a PMU leaves the host out of PMUVIRT_CTR_GUEST counters. */
enum pmuvirt_x86_guest_only {
	PMUVIRT_X86_GUEST_NONE = 0,	/* it cannot (no PMUVIRT_CAP_GUEST_ONLY) */
	PMUVIRT_X86_GUEST_BITS,		/* AMD: GuestOnly (event select bit 40), nothing to do */
	PMUVIRT_X86_GUEST_SWITCH,	/* Intel: IA32_PERF_GLOBAL_CTRL at VM entry and exit */
};

/**
 * pmuvirt_x86_guest_only() - how a probed PMU counts a guest only
 * @pmu:	filled by pmuvirt_x86_probe().
 *
 * PMUVIRT_X86_GUEST_BITS (AMD family 10h and later): a PMUVIRT_CTR_GUEST
 * counter gets the GuestOnly event-select bit and counts only in SVM
 * guest mode, as long as the host runs with EFER.SVME set.
 * PMUVIRT_X86_GUEST_SWITCH (Intel architectural perfmon v2 and later, and
 * the emulated PMU): the counter's enable bit is in IA32_PERF_GLOBAL_CTRL
 * only while the guest runs; the host must load the two values of
 * pmuvirt_x86_vm_global_ctrl() at every VM entry and exit (VMX's "load
 * IA32_PERF_GLOBAL_CTRL" VM-entry and VM-exit controls, or its MSR load
 * lists).  A host that cannot clears PMUVIRT_CAP_GUEST_ONLY.
 *
 * Return: an enum pmuvirt_x86_guest_only; PMUVIRT_X86_GUEST_NONE for a PMU
 * that is not an x86 one.
 */
int pmuvirt_x86_guest_only(const struct pmuvirt_pmu *pmu);

/**
 * pmuvirt_x86_vm_global_ctrl() - IA32_PERF_GLOBAL_CTRL for VM exit and entry
 * @pc:		this CPU's state (interrupts off, as for every core call).
 * @host:	receives the value for VM exit: what the register holds while
 *		the host runs, as pmuvirt last wrote it.
 * @guest:	receives the value for VM entry: @host plus the enable bits of
 *		the running context's PMUVIRT_CTR_GUEST counters, none while
 *		the counters are stopped (no context, in a PMI).
 *
 * For a PMU of PMUVIRT_X86_GUEST_SWITCH, right before each VM entry on
 * this CPU; the values change only in core calls, so a host may compare
 * them with what it loaded last.  When pmuvirt does not know what the
 * register holds (after pmuvirt_pcpu_invalidate()), it reads it.
 *
 * Return: 0; -ENODEV when the PMU does not work this way (nothing to load);
 * the accessor's error when the read fails.
 */
int pmuvirt_x86_vm_global_ctrl(struct pmuvirt_pcpu *pc, uint64_t *host, uint64_t *guest);

#endif
