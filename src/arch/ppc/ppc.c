/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * POWER (Book3S 64-bit) PMU backend: POWER8 (ISA 2.07), POWER9 (3.0),
 * POWER10 (3.1).  Every SPR access goes through pc->hw: read_reg is mfspr,
 * write_reg mtspr, read_counter(n) mfspr PMCn, read_tsc mftb.
 */
#include "pmuvirt_arch.h"
#include "pmuvirt_probe.h"
#include "pmuvirt_ppc.h"

#define NR_PMCS		6
#define SLOT_TB		6
#define PMC_MASK	0xffffffffull
#define PMC_THRESHOLD	0x80000000ull

#define M0_FC		PMUVIRT_PPC_MMCR0_FC
#define M0_PMAE		PMUVIRT_PPC_MMCR0_PMAE
#define M0_PMAO		PMUVIRT_PPC_MMCR0_PMAO

/* Where PMC n (1-4) can count a portable event, and the MMCR1 fields for it. */
struct ppc_event {
	uint8_t pmcs;		/* bit n-1 for PMC n */
	uint8_t unit;
	uint8_t sel;
};

/* Indexed by enum pmuvirt_event; PMC5/PMC6 are handled as fixed slots. */
static const struct ppc_event power8_events[PMUVIRT_EV_NR] = {
	[PMUVIRT_EV_INSTRUCTIONS] = { 0xf, 0x0, 0x02 },	/* PM_INST_CMPL */
	[PMUVIRT_EV_CYCLES] = { 0xf, 0x0, 0x1e },	/* PM_CYC */
	[PMUVIRT_EV_BRANCHES] = { 0x1, 0x0, 0x68 },	/* PM_BRU_FIN 0x10068 */
	[PMUVIRT_EV_BRANCH_MISSES] = { 0x8, 0x0, 0xf6 },	/* PM_BR_MPRED_CMPL 0x400f6 */
};

/* POWER9 and POWER10 share these codes. */
static const struct ppc_event power9_events[PMUVIRT_EV_NR] = {
	[PMUVIRT_EV_INSTRUCTIONS] = { 0xf, 0x0, 0x02 },	/* PM_INST_CMPL */
	[PMUVIRT_EV_CYCLES] = { 0xf, 0x0, 0x1e },	/* PM_CYC */
	[PMUVIRT_EV_BRANCHES] = { 0x8, 0xd, 0x5e },	/* PM_BR_CMPL 0x4d05e */
	[PMUVIRT_EV_BRANCH_MISSES] = { 0x8, 0x0, 0xf6 },	/* PM_BR_MPRED_CMPL 0x400f6 */
};

static const struct ppc_event *events_of(const struct pmuvirt_pmu *pmu)
{
	return pmu->model == PMUVIRT_PPC_POWER8 ? power8_events : power9_events;
}

static unsigned int img_regs(const struct pmuvirt_pmu *pmu)
{
	return pmu->model >= PMUVIRT_PPC_POWER10 ? 5 : 4;
}

static const uint32_t img_spr[5] = {
	PMUVIRT_PPC_SPR_MMCR0, PMUVIRT_PPC_SPR_MMCR1, PMUVIRT_PPC_SPR_MMCR2,
	PMUVIRT_PPC_SPR_MMCRA, PMUVIRT_PPC_SPR_MMCR3,
};

/* PMC number (1-6) of a slot, 0 for the time base. */
static unsigned int pmc_of(const struct pmuvirt_pmu *pmu, unsigned int slot)
{
	if (slot >= pmu->nr_slots || pmu->slot[slot].cls == PMUVIRT_CLASS_TSC)
		return 0;
	return pmu->slot[slot].index + 1u;
}

static bool PMUVIRT_CF_CHECK ppc_slot_ok(const struct pmuvirt_pmu *pmu,
					 const struct pmuvirt_counter_ctl *ctr, unsigned int slot)
{
	unsigned int pmc = pmc_of(pmu, slot);

	if (!(ctr->flags & PMUVIRT_CTR_RAW)) {
		if (ctr->event == PMUVIRT_EV_TSC)
			return slot == SLOT_TB;
		return pmuvirt_slot_counts(pmu, slot, (unsigned int)ctr->event);
	}
	if (!pmc)
		return false;
	switch ((ctr->event >> PMUVIRT_PPC_RAW_PMC_SHIFT) & PMUVIRT_PPC_RAW_PMC_MASK) {
	case 0:
		return pmc <= 4;
	case 1: case 2: case 3: case 4: case 5: case 6:
		return pmc == ((ctr->event >> PMUVIRT_PPC_RAW_PMC_SHIFT) & PMUVIRT_PPC_RAW_PMC_MASK);
	default:
		/* Let encode() name the error. */
		return pmc <= 4;
	}
}

static int PMUVIRT_CF_CHECK ppc_encode(const struct pmuvirt_pmu *pmu,
				       const struct pmuvirt_control *ctl, const uint8_t *slots,
				       struct pmuvirt_hwctl *img, struct pmuvirt_error *err)
{
	const struct ppc_event *tab = events_of(pmu);
	uint64_t mmcr0 = M0_PMAE | PMUVIRT_PPC_MMCR0_FCECE, mmcr1 = 0, mmcr2 = 0;
	unsigned int i, inuse = 0;

	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_counter_ctl *c = &ctl->counter[i];
		unsigned int pmc = pmc_of(pmu, slots[i]);
		unsigned int unit = 0, sel = 0;

		if (!pmc) {
			if ((c->flags & PMUVIRT_CTR_RAW) || c->event != PMUVIRT_EV_TSC)
				return pmuvirt_fail(err, (int)i, "only the time base goes on the time base",
						    -EINVAL);
			continue;
		}
		if (inuse & (1u << (pmc - 1)))
			return pmuvirt_fail(err, (int)i, "two counters on one PMC", -EINVAL);
		if (c->flags & PMUVIRT_CTR_RAW) {
			uint64_t want = (c->event >> PMUVIRT_PPC_RAW_PMC_SHIFT) & PMUVIRT_PPC_RAW_PMC_MASK;

			if (c->event & ~(uint64_t)0xfff)
				return pmuvirt_fail(err, (int)i,
						    "raw POWER code: only PMCxSEL (bits 0-7) and the PMC number (bits 8-11) may be set",
						    -EINVAL);
			if (want > NR_PMCS)
				return pmuvirt_fail(err, (int)i, "raw POWER code: PMC number above 6",
						    -EINVAL);
			if (want && want != pmc)
				return pmuvirt_fail(err, (int)i, "raw code placed on the wrong PMC", -EINVAL);
			sel = (unsigned int)(c->event & PMUVIRT_PPC_RAW_SEL_MASK);
			if (pmc >= 5 && sel)
				return pmuvirt_fail(err, (int)i, "PMC5 and PMC6 have no event selector",
						    -EINVAL);
			if (pmc <= 4 && !sel)
				return pmuvirt_fail(err, (int)i, "PMCxSEL 0 counts nothing", -EINVAL);
		} else if (pmc >= 5) {
			if (!pmuvirt_slot_counts(pmu, slots[i], (unsigned int)c->event))
				return pmuvirt_fail(err, (int)i, "PMC5/PMC6 cannot count this event",
						    -EOPNOTSUPP);
		} else {
			const struct ppc_event *e;

			if (c->event >= PMUVIRT_EV_NR || !tab[c->event].pmcs)
				return pmuvirt_fail(err, (int)i, "event not available on this POWER model",
						    -EOPNOTSUPP);
			e = &tab[c->event];
			if (!(e->pmcs & (1u << (pmc - 1))))
				return pmuvirt_fail(err, (int)i, "event not available on this PMC",
						    -EOPNOTSUPP);
			unit = e->unit;
			sel = e->sel;
		}
		if (pmc <= 4) {
			mmcr1 |= (uint64_t)unit << PMUVIRT_PPC_MMCR1_UNIT_SHIFT(pmc);
			mmcr1 |= (uint64_t)sel << PMUVIRT_PPC_MMCR1_SEL_SHIFT(pmc);
		}
		/* A user-only counter must also stop in hypervisor state. */
		if (!(c->flags & PMUVIRT_CTR_KERNEL))
			mmcr2 |= PMUVIRT_PPC_MMCR2_FCS(pmc) | PMUVIRT_PPC_MMCR2_FCH(pmc);
		if (!(c->flags & PMUVIRT_CTR_USER))
			mmcr2 |= PMUVIRT_PPC_MMCR2_FCP(pmc);
		inuse |= 1u << (pmc - 1);
	}

	if (inuse & 0x01)
		mmcr0 |= PMUVIRT_PPC_MMCR0_PMC1CE;
	if (inuse & 0x3e)
		mmcr0 |= PMUVIRT_PPC_MMCR0_PMCJCE;
	/* Unused PMC5/PMC6 must stay quiet: they would interrupt with PMCjCE. */
	if (!(inuse & 0x30)) {
		mmcr0 |= PMUVIRT_PPC_MMCR0_FC56;
	} else {
		for (i = 5; i <= 6; i++)
			if (!(inuse & (1u << (i - 1))))
				mmcr2 |= PMUVIRT_PPC_MMCR2_FCS(i) | PMUVIRT_PPC_MMCR2_FCP(i) |
					 PMUVIRT_PPC_MMCR2_FCH(i);
	}

	img->reg[PMUVIRT_PPC_IMG_MMCR0] = mmcr0;
	img->reg[PMUVIRT_PPC_IMG_MMCR1] = mmcr1;
	img->reg[PMUVIRT_PPC_IMG_MMCR2] = mmcr2;
	img->reg[PMUVIRT_PPC_IMG_MMCRA] = 0;
	img->reg[PMUVIRT_PPC_IMG_MMCR3] = 0;
	img->used = (1u << img_regs(pmu)) - 1;
	return 0;
}

static int mmcr0_sync(struct pmuvirt_pcpu *pc)
{
	uint64_t v;
	int ret;

	pc->cache_known &= ~1u;
	ret = pmuvirt_hw_read_reg(pc, PMUVIRT_PPC_SPR_MMCR0, &v);
	if (ret)
		return ret;
	pc->cache.reg[0] = v;
	pc->cache_known |= 1u;
	return 0;
}

/*
 * Freeze all counters with one write; the written value makes the cache
 * exact.  PMAE goes with it (as Linux clears it when it freezes): no alert
 * comes while the PMCs are written, and the hardware, which on an alert
 * clears PMAE and sets PMAO and FC, changes nothing behind the cache.  The
 * write clears PMAO, which withdraws a pending exception.
 */
static int ppc_freeze(struct pmuvirt_pcpu *pc)
{
	uint64_t v = 0;

	if (pc->cache_known & 1u) {
		if ((pc->cache.reg[0] & M0_FC) && !(pc->cache.reg[0] & M0_PMAE))
			return 0;
		v = pc->cache.reg[0] & ~(M0_PMAE | M0_PMAO);
	}
	return pmuvirt_cache_write(pc, 0, PMUVIRT_PPC_SPR_MMCR0, v | M0_FC);
}

/*
 * MMCR1, MMCR2, MMCRA (MMCR3) of @ctx's image, written frozen.  Counting
 * stays stopped, so counter values read before stay valid (returns 0): the
 * core writes the PMCs next and ppc_start() writes MMCR0 last, so no PMC
 * is negative when alerts come on.
 */
static int PMUVIRT_CF_CHECK ppc_load(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx)
{
	const struct pmuvirt_hwctl *img = &ctx->img;
	unsigned int i, n = img_regs(pc->pmu);
	int ret;

	ret = ppc_freeze(pc);
	for (i = 1; i < n && ret >= 0; i++)
		ret = pmuvirt_cache_write(pc, i, img_spr[i], img->reg[i]);
	return ret < 0 ? ret : 0;
}

/* Count with @ctx's control: MMCR0 with PMAE and FC clear, once every PMC is in. */
static int PMUVIRT_CF_CHECK ppc_start(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx)
{
	return pmuvirt_cache_write(pc, 0, PMUVIRT_PPC_SPR_MMCR0,
				   ctx->img.reg[PMUVIRT_PPC_IMG_MMCR0]);
}

static int PMUVIRT_CF_CHECK ppc_stop(struct pmuvirt_pcpu *pc)
{
	return ppc_freeze(pc);
}

static int PMUVIRT_CF_CHECK ppc_read(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t *val)
{
	unsigned int pmc = pmc_of(pc->pmu, slot);
	int ret;

	if (!pmc) {
		if (slot != SLOT_TB)
			return -EINVAL;
		return pmuvirt_hw_read_tsc(pc, val);
	}
	ret = pmuvirt_hw_read_counter(pc, pmc, val);
	if (!ret)
		*val &= PMC_MASK;
	return ret;
}

/* What ppc_read() reads: a PMC number, or the timebase. */
static int PMUVIRT_CF_CHECK ppc_read_index(const struct pmuvirt_pmu *pmu, unsigned int slot,
					   uint32_t *idx)
{
	unsigned int pmc = pmc_of(pmu, slot);

	if (!pmc) {
		if (slot != SLOT_TB)
			return -EINVAL;
		*idx = PMUVIRT_HW_INDEX_TSC;
		return 0;
	}
	*idx = pmc;
	return 0;
}

static int PMUVIRT_CF_CHECK ppc_write(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t val)
{
	unsigned int pmc = pmc_of(pc->pmu, slot);

	if (!pmc)
		return -EINVAL;
	return pmuvirt_hw_write_reg(pc, PMUVIRT_PPC_SPR_PMC(pmc), val & PMC_MASK);
}

/*
 * The alert already froze the counters (FCECE), cleared PMAE and set PMAO.
 * There is no overflow status register: every PMC is a candidate and the
 * core tests bit 31 of each.
 */
static int PMUVIRT_CF_CHECK ppc_pmi_begin(struct pmuvirt_pcpu *pc, uint32_t *status)
{
	int ret;

	*status = (1u << NR_PMCS) - 1;
	ret = mmcr0_sync(pc);
	if (ret)
		return ret;
	if (pc->cache.reg[0] & M0_FC)
		return 0;
	/* Not frozen: a stale or spurious exception.  Stop for the handler. */
	return pmuvirt_cache_write(pc, 0, PMUVIRT_PPC_SPR_MMCR0,
				   (pc->cache.reg[0] & ~M0_PMAE) | M0_FC);
}

static int PMUVIRT_CF_CHECK ppc_pmi_end(struct pmuvirt_pcpu *pc, uint32_t clear)
{
	const struct pmuvirt_ctx *ctx = pc->running;
	uint64_t v;

	(void)clear;
	/* The running context's image is what the other MMCRs hold. */
	if (ctx && ctx->nr_counters)
		v = ctx->img.reg[PMUVIRT_PPC_IMG_MMCR0];
	else
		v = (pc->cache.reg[0] & ~(M0_PMAE | M0_PMAO)) | M0_FC;
	return pmuvirt_cache_write(pc, 0, PMUVIRT_PPC_SPR_MMCR0, v);
}

static const struct pmuvirt_arch_ops ppc_ops = {
	.name = "ppc",
	.encode = ppc_encode,
	.slot_ok = ppc_slot_ok,
	.load = ppc_load,
	.stop = ppc_stop,
	.start = ppc_start,
	.read = ppc_read,
	.read_index = ppc_read_index,
	.write = ppc_write,
	.arm = NULL,
	.pmi_begin = ppc_pmi_begin,
	.pmi_end = ppc_pmi_end,
	.clear_status = NULL,
};

int pmuvirt_ppc_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_hw_ops *hw, void *hw_arg)
{
	const struct ppc_event *tab;
	uint64_t pvr;
	unsigned int model, i, ev;
	int ret;

	if (!pmu || !hw || !hw->read_reg)
		return -EINVAL;
	ret = hw->read_reg(hw_arg, PMUVIRT_PPC_SPR_PVR, &pvr);
	if (ret)
		return ret;
	switch ((pvr >> 16) & 0xffff) {
	case 0x004b:	/* POWER8E */
	case 0x004c:	/* POWER8NVL */
	case 0x004d:	/* POWER8 */
		model = PMUVIRT_PPC_POWER8;
		break;
	case 0x004e:
		model = PMUVIRT_PPC_POWER9;
		break;
	case 0x0080:
		model = PMUVIRT_PPC_POWER10;
		break;
	default:
		return -ENODEV;
	}

	pmuvirt_pmu_clear(pmu);
	pmu->ops = &ppc_ops;
	pmu->arch = PMUVIRT_ARCH_PPC;
	pmu->model = model;
	pmu->caps = PMUVIRT_CAP_FREEZE_ON_PMI;
	pmu->nr_gp = 4;
	pmu->nr_fixed = 2;
	pmuvirt_pmu_set_name(pmu, NULL, model == PMUVIRT_PPC_POWER8 ? "POWER8" :
					model == PMUVIRT_PPC_POWER9 ? "POWER9" : "POWER10");
	pmu->arch_data[0] = pvr;

	tab = events_of(pmu);
	for (i = 0; i < 4; i++) {
		uint32_t events = 0;

		for (ev = 1; ev < PMUVIRT_EV_NR; ev++)
			if (tab[ev].pmcs & (1u << i))
				events |= 1u << ev;
		pmuvirt_pmu_add_slot(pmu, PMUVIRT_CLASS_GP, i, 32, events, i + 1, PMC_THRESHOLD);
	}
	pmuvirt_pmu_add_slot(pmu, PMUVIRT_CLASS_FIXED, 4, 32, 1u << PMUVIRT_EV_INSTRUCTIONS, 5,
			     PMC_THRESHOLD);
	pmuvirt_pmu_add_slot(pmu, PMUVIRT_CLASS_FIXED, 5, 32, 1u << PMUVIRT_EV_CYCLES, 6,
			     PMC_THRESHOLD);
	/* the timebase, slot SLOT_TB */
	pmuvirt_pmu_add_slot(pmu, PMUVIRT_CLASS_TSC, 0, 64, 1u << PMUVIRT_EV_TSC,
			     PMUVIRT_SHARED_TSC, 0);
	return 0;
}
