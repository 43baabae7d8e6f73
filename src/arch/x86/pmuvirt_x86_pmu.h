/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Inside the x86 backend: the typed layout each vendor's probe fills
 * (intel.c, amd.c) and the shared code (x86.c) drives.
 */
#ifndef PMUVIRT_X86_PMU_H
#define PMUVIRT_X86_PMU_H

#include "pmuvirt_arch.h"
#include "pmuvirt_probe.h"
#include "pmuvirt_x86.h"
#include "pmuvirt_x86_msr.h"

struct pmuvirt_x86_layout;

/**
 * struct pmuvirt_x86_vendor - what differs between vendors beyond addresses
 * @codes:	event-select code of each portable event on a general counter.
 * @check_raw:	the vendor's checks of raw code @code for counter @i of a
 *		control, placed on general counter @index, after the shared
 *		ones (USR, OS, INT, EN, AnyThread, pin control).  0 or a
 *		negative errno with the reason in @err.
 * @raw_fits:	optional: may raw @code go on general counter @index at all?
 *		NULL: on any.
 */
struct pmuvirt_x86_vendor {
	const uint8_t *codes;
	int (*check_raw)(const struct pmuvirt_x86_layout *l, unsigned int i, unsigned int index,
			 uint64_t code, struct pmuvirt_error *err);
	bool (*raw_fits)(const struct pmuvirt_x86_layout *l, uint64_t code, unsigned int index);
};

#define PMUVIRT_X86_F_RTM		0x1u	/* TSX qualifiers usable */
#define PMUVIRT_X86_F_LEGACY_WRITE	0x2u	/* general counters take 32-bit writes */
/* AMD family 10h+: HostOnly/GuestOnly in the event select (EFER.SVME set). */
#define PMUVIRT_X86_F_GUEST_BITS	0x4u
/* Intel v2+: the host loads IA32_PERF_GLOBAL_CTRL at VM entry and exit. */
#define PMUVIRT_X86_F_GUEST_SWITCH	0x8u
/* Intel v5: the fixed counters present are not 0 .. nr_fixed - 1 (CPUID bitmap holes). */
#define PMUVIRT_X86_F_FIXED_HOLES	0x10u

/**
 * struct pmuvirt_x86_layout - the probed PMU's registers, in pmu->arch_data
 * @vendor:	the vendor's rules; NULL for a TSC-only PMU.
 * @raw_ok:	raw event-select bits a control may set.
 * @events:	portable events the general counters can count.
 * @evsel:	event select of general counter 0.
 * @ctr:	general counter 0 as RDMSR and the kernels' reservations name
 *		it (IA32_PMC0 also under FW_WRITE).
 * @ctr_write:	general counter 0 for writes (IA32_A_PMC0 under FW_WRITE).
 * @stride:	MSR distance between general counters i and i + 1.
 * @fixed_ctr:	fixed counter 0; @fixed_ctrl: IA32_FIXED_CTR_CTRL.
 * @global_ctrl, @global_status, @global_clear: 0 without global registers.
 * @nr_gp:	general counters driven (at most PMUVIRT_MAX_GP).
 * @nr_fixed:	fixed-counter fields in IA32_FIXED_CTR_CTRL (present or not).
 * @gp_width:	width of the general counters' slots (32 under legacy writes).
 * @flags:	PMUVIRT_X86_F_*.
 * @arch_unavail: Intel: CPUID.0AH:EBX bits 7:0 (bit set: architectural event
 *		not available), bits at or above the EBX length set too.
 * @cpuid_width: the general counters' width as CPUID gives it (Intel
 *		CPUID.0AH:EAX[23:16], AMD 48), also under legacy writes.
 * @family:	AMD: the CPU family (at most 255).
 *
 * Zero (after pmuvirt_pmu_clear()) is the TSC-only PMU.
 */
struct pmuvirt_x86_layout {
	const struct pmuvirt_x86_vendor *vendor;
	uint64_t raw_ok;
	uint32_t events;
	uint32_t evsel;
	uint32_t ctr;
	uint32_t ctr_write;
	uint32_t fixed_ctr;
	uint32_t fixed_ctrl;
	uint32_t global_ctrl;
	uint32_t global_status;
	uint32_t global_clear;
	uint8_t stride;
	uint8_t nr_gp;
	uint8_t nr_fixed;
	uint8_t gp_width;
	uint8_t flags;
	uint8_t arch_unavail;
	uint8_t cpuid_width;
	uint8_t family;
} __attribute__((__may_alias__));	/* it lives in uint64_t arch_data[] */

_Static_assert(sizeof(struct pmuvirt_x86_layout) <= sizeof(((struct pmuvirt_pmu *)0)->arch_data),
	       "the x86 layout must fit in struct pmuvirt_pmu.arch_data");

static inline const struct pmuvirt_x86_layout *pmuvirt_x86_layout(const struct pmuvirt_pmu *pmu)
{
	return (const struct pmuvirt_x86_layout *)(const void *)pmu->arch_data;
}

static inline struct pmuvirt_x86_layout *pmuvirt_x86_layout_w(struct pmuvirt_pmu *pmu)
{
	return (struct pmuvirt_x86_layout *)(void *)pmu->arch_data;
}

/* Portable events a general counter can count on every model. */
#define PMUVIRT_X86_GP_EVENTS ((1u << PMUVIRT_EV_INSTRUCTIONS) | (1u << PMUVIRT_EV_CYCLES) | \
			       (1u << PMUVIRT_EV_BRANCHES) | (1u << PMUVIRT_EV_BRANCH_MISSES))

/*
 * Vendor probes (intel.c, amd.c), called on a TSC-only @pmu without its TSC
 * slot.  Each fills the layout, model, name and caps, and adds its counter
 * slots, general ones first (pmuvirt_x86_add_gp()).  Finding no usable PMU
 * is 0 with no slot added; an accessor's error is returned.
 */
int pmuvirt_x86_intel_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *arg,
			    uint32_t max_leaf);
int pmuvirt_x86_amd_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *arg);

/* Add the layout's general counters as slots 0 .. nr_gp - 1 (x86.c). */
void pmuvirt_x86_add_gp(struct pmuvirt_pmu *pmu);

#endif /* PMUVIRT_X86_PMU_H */
