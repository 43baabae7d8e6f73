/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Real POWER PMU registers: the image's struct pmuvirt_hw_ops. */
#ifndef QPPC_SPR_H
#define QPPC_SPR_H

#include "pmuvirt_defaults.h"	/* the env: types and errno values */
#include <pmuvirt/pmuvirt.h>

#define SPR_PVR		287
#define SPR_MMCR3	754	/* ISA 3.1 */
#define SPR_SIER	784
#define SPR_MMCR2	785
#define SPR_MMCRA	786
#define SPR_PMC1	787
#define SPR_PMC5	791
#define SPR_PMC6	792
#define SPR_MMCR0	795
#define SPR_SIAR	796
#define SPR_SDAR	797
#define SPR_MMCR1	798

#define MMCR0_FC	0x80000000u
#define MMCR0_PMAE	0x04000000u
#define MMCR0_FCECE	0x02000000u
#define MMCR0_PMC1CE	0x00008000u
#define MMCR0_PMCJCE	0x00004000u
#define MMCR0_PMAO	0x00000080u
#define MMCR0_FC56	0x00000010u

#define mfspr(n) ({ uint64_t v_; __asm__ __volatile__("mfspr %0, %1" : "=r"(v_) : "i"(n)); v_; })
#define mtspr(n, v) __asm__ __volatile__("mtspr %0, %1" : : "i"(n), "r"((uint64_t)(v)) : "memory")

/* Time base: what the image's hw_ops return as "TSC". */
static inline uint64_t mftb(void)
{
	uint64_t v;

	__asm__ __volatile__("mftb %0" : "=r"(v));
	return v;
}

/*
 * Accesses through these count in spr_stats; unknown SPRs are -EFAULT.
 * @stopped_tb: time base from each write of MMCR0 that sets FC to the next
 * that clears it (the alert's own freeze is not a write), @stopped_at the
 * start of the current one while @stopped.
 */
struct spr_stats {
	uint64_t reads;
	uint64_t writes;
	uint64_t errors;
	uint64_t stopped_tb;
	uint64_t stopped_at;
	bool stopped;
};

extern const struct pmuvirt_hw_ops spr_hw_ops;
extern struct spr_stats spr_stats;

/* spr_stats.stopped_tb up to now. */
static inline uint64_t spr_stopped_tb(void)
{
	return spr_stats.stopped_tb + (spr_stats.stopped ? mftb() - spr_stats.stopped_at : 0);
}

#endif
