/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* mfspr/mtspr need the SPR number in the instruction: one case per SPR. */
#include "spr.h"

struct spr_stats spr_stats;

#define PMU_SPRS(X) X(SPR_SIER) X(SPR_MMCR2) X(SPR_MMCRA) X(787) X(788) X(789) \
	X(790) X(791) X(792) X(SPR_MMCR0) X(SPR_SIAR) X(SPR_SDAR) X(SPR_MMCR1) X(SPR_MMCR3)

static int spr_read(void *arg, uint32_t reg, uint64_t *val)
{
	spr_stats.reads++;
	switch (reg) {
#define RD(n) case n: *val = mfspr(n); return 0;
	PMU_SPRS(RD)
	RD(SPR_PVR)
#undef RD
	}
	spr_stats.errors++;
	return -EFAULT;
}

static int spr_write(void *arg, uint32_t reg, uint64_t val)
{
	spr_stats.writes++;
	if (reg == SPR_MMCR0 && !(val & MMCR0_FC) == spr_stats.stopped) {
		if (spr_stats.stopped)
			spr_stats.stopped_tb += mftb() - spr_stats.stopped_at;
		else
			spr_stats.stopped_at = mftb();
		spr_stats.stopped = !spr_stats.stopped;
	}
	switch (reg) {
#define WR(n) case n: mtspr(n, val); return 0;
	PMU_SPRS(WR)
#undef WR
	}
	spr_stats.errors++;
	return -EFAULT;
}

static int spr_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	/* @idx is the PMC number, 1-6 (the POWER backend's convention). */
	if (idx < 1 || idx > 6) {
		spr_stats.errors++;
		return -EFAULT;
	}
	return spr_read(arg, SPR_PMC1 + idx - 1, val);
}

static int spr_read_tb(void *arg, uint64_t *val)
{
	spr_stats.reads++;
	*val = mftb();
	return 0;
}

static int spr_read_counters(void *arg, const uint32_t *idx, unsigned int n, uint64_t *vals)
{
	return pmuvirt_hw_read_each(&spr_hw_ops, arg, idx, n, vals);
}

const struct pmuvirt_hw_ops spr_hw_ops = {
	.read_reg = spr_read,
	.write_reg = spr_write,
	.read_counter = spr_read_counter,
	.read_tsc = spr_read_tb,
	.read_counters = spr_read_counters,
};
