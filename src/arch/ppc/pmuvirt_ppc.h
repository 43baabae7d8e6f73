/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * POWER (Book3S 64-bit, ISA 2.07 / 3.0 / 3.1) backend.
 *
 * Slots: 0-3 PMC1-4 (general, 32 bits, event chosen by MMCR1 PMCxSEL),
 * 4 PMC5 (fixed: instructions), 5 PMC6 (fixed: cycles), 6 the time base.
 * A PMC signals when bit 31 becomes set (threshold 0x80000000).
 *
 * Register image (struct pmuvirt_hwctl.reg):
 *   [0] MMCR0   [1] MMCR1   [2] MMCR2   [3] MMCRA   [4] MMCR3 (POWER10 only)
 * See docs/power.md.
 */
#ifndef PMUVIRT_PPC_H
#define PMUVIRT_PPC_H

#include <pmuvirt/pmuvirt.h>

enum pmuvirt_ppc_model {
	PMUVIRT_PPC_POWER8 = 8,
	PMUVIRT_PPC_POWER9 = 9,
	PMUVIRT_PPC_POWER10 = 10,
};

/* SPR numbers */
#define PMUVIRT_PPC_SPR_PVR	287
#define PMUVIRT_PPC_SPR_MMCR3	754
#define PMUVIRT_PPC_SPR_UPMC(n)	(770 + (n))	/* user-mode alias, n = 1..6 */
#define PMUVIRT_PPC_SPR_UMMCR0	779
#define PMUVIRT_PPC_SPR_SIER	784
#define PMUVIRT_PPC_SPR_MMCR2	785
#define PMUVIRT_PPC_SPR_MMCRA	786
#define PMUVIRT_PPC_SPR_PMC(n)	(786 + (n))	/* n = 1..6 */
#define PMUVIRT_PPC_SPR_MMCR0	795
#define PMUVIRT_PPC_SPR_SIAR	796
#define PMUVIRT_PPC_SPR_SDAR	797
#define PMUVIRT_PPC_SPR_MMCR1	798

/* MMCR0 bits (value of the 64-bit register) */
#define PMUVIRT_PPC_MMCR0_FC	0x80000000ull
#define PMUVIRT_PPC_MMCR0_FCS	0x40000000ull
#define PMUVIRT_PPC_MMCR0_FCP	0x20000000ull
#define PMUVIRT_PPC_MMCR0_PMAE	0x04000000ull
#define PMUVIRT_PPC_MMCR0_FCECE	0x02000000ull
#define PMUVIRT_PPC_MMCR0_EBE	0x00100000ull
#define PMUVIRT_PPC_MMCR0_PMCC	0x000c0000ull
#define PMUVIRT_PPC_MMCR0_PMC1CE 0x00008000ull
#define PMUVIRT_PPC_MMCR0_PMCJCE 0x00004000ull
#define PMUVIRT_PPC_MMCR0_PMAO	0x00000080ull
#define PMUVIRT_PPC_MMCR0_FC14	0x00000020ull
#define PMUVIRT_PPC_MMCR0_FC56	0x00000010ull
#define PMUVIRT_PPC_MMCR0_FCHV	0x00000001ull

/* MMCR2: nine freeze bits per PMC n = 1..6, PMC1 in the top bits */
#define PMUVIRT_PPC_MMCR2_FCS(n) (1ull << (63 - ((n) - 1) * 9))	/* supervisor */
#define PMUVIRT_PPC_MMCR2_FCP(n) (1ull << (62 - ((n) - 1) * 9))	/* problem (user) */
#define PMUVIRT_PPC_MMCR2_FCH(n) (1ull << (57 - ((n) - 1) * 9))	/* hypervisor */

/* MMCR1 fields of PMC n = 1..4 */
#define PMUVIRT_PPC_MMCR1_SEL_SHIFT(n)	(24 - ((n) - 1) * 8)	/* PMCxSEL, 8 bits */
#define PMUVIRT_PPC_MMCR1_UNIT_SHIFT(n)	(60 - ((n) - 1) * 4)	/* unit, 4 bits */

/* Register image layout */
enum pmuvirt_ppc_img {
	PMUVIRT_PPC_IMG_MMCR0 = 0,
	PMUVIRT_PPC_IMG_MMCR1 = 1,
	PMUVIRT_PPC_IMG_MMCR2 = 2,
	PMUVIRT_PPC_IMG_MMCRA = 3,
	PMUVIRT_PPC_IMG_MMCR3 = 4,
};

/* Raw event codes (struct pmuvirt_counter_ctl.event with PMUVIRT_CTR_RAW) */
#define PMUVIRT_PPC_RAW_SEL_MASK	0xffull		/* PMCxSEL */
#define PMUVIRT_PPC_RAW_PMC_SHIFT	8		/* PMC number 1-6, 0 = any of 1-4 */
#define PMUVIRT_PPC_RAW_PMC_MASK	0xfull
#define PMUVIRT_PPC_RAW(pmc, sel)	((uint64_t)(pmc) << 8 | (uint64_t)(sel))

/**
 * pmuvirt_ppc_probe() - detect the PMU from the PVR (SPR 287) via @hw
 * @pmu:	filled on success.
 * @hw:		register access; only read_reg is used.
 * @hw_arg:	passed to @hw.
 *
 * Return: 0; -ENODEV for a processor this backend does not know; the
 * accessor's error if the PVR cannot be read.
 */
int pmuvirt_ppc_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *hw_arg);

/*
 * PAPR H_PERFMON: a partition (domain) turns the performance monitor on or
 * off for itself.  pmuvirt keeps the mode per domain; counters are granted
 * only to a domain whose mode has PMUVIRT_PPC_PERFMON_ENABLE.
 */
#define PMUVIRT_PPC_H_PERFMON		0x7c	/* hcall number */
#define PMUVIRT_PPC_H_SUCCESS		0
#define PMUVIRT_PPC_H_PARAMETER		(-4)
#define PMUVIRT_PPC_PERFMON_ENABLE	(1ull << 63)	/* PAPR bit 0 */
#define PMUVIRT_PPC_PERFMON_TG		(1ull << 62)	/* bit 1: threshold granularity */
#define PMUVIRT_PPC_PERFMON_MODES	(PMUVIRT_PPC_PERFMON_ENABLE | PMUVIRT_PPC_PERFMON_TG)

/**
 * struct pmuvirt_ppc_domain - per-domain performance monitor mode
 * @mode:	PMUVIRT_PPC_PERFMON_* bits in force.
 * @calls:	H_PERFMON calls made (successful or not).
 */
struct pmuvirt_ppc_domain {
	uint64_t mode;
	uint64_t calls;
};

/**
 * pmuvirt_ppc_domain_init() - a new domain: performance monitor off
 * @dom:	storage.
 */
void pmuvirt_ppc_domain_init(struct pmuvirt_ppc_domain *dom);

/**
 * pmuvirt_ppc_h_perfmon() - the H_PERFMON hypercall of a domain
 * @dom:	the calling domain.
 * @mode_set:	mode bits to set.
 * @mode_reset:	mode bits to clear.
 *
 * The new mode is (mode | @mode_set) & ~@mode_reset.  Turning the monitor
 * off does not reach into running contexts: the host then gives each VCPU
 * of the domain an empty control (pmuvirt_ppc_domain_set_control() with no
 * counters always succeeds).
 *
 * Return: PMUVIRT_PPC_H_SUCCESS; PMUVIRT_PPC_H_PARAMETER (mode unchanged)
 * when a bit outside PMUVIRT_PPC_PERFMON_MODES is given or a bit is both set
 * and reset.
 */
long pmuvirt_ppc_h_perfmon(struct pmuvirt_ppc_domain *dom, uint64_t mode_set,
			   uint64_t mode_reset);

/**
 * pmuvirt_ppc_perfmon_enabled() - may @dom use counters?
 * @dom:	the domain.
 *
 * Return: true once the domain enabled the monitor through H_PERFMON.
 */
bool pmuvirt_ppc_perfmon_enabled(const struct pmuvirt_ppc_domain *dom);

/**
 * pmuvirt_ppc_domain_set_control() - pmuvirt_set_control() for a VCPU of @dom
 * @dom:	the domain the VCPU context belongs to.
 * @pc:		as for pmuvirt_set_control().
 * @ctx:	the VCPU's context.
 * @ctl:	the control.
 * @err:	if not NULL, the reason on failure.
 *
 * Return: as pmuvirt_set_control(); -EOPNOTSUPP if @ctl has counters and
 * the domain has not enabled the performance monitor.
 */
int pmuvirt_ppc_domain_set_control(const struct pmuvirt_ppc_domain *dom, struct pmuvirt_pcpu *pc,
				   struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
				   struct pmuvirt_error *err);

#endif
