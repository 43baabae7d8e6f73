/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Strict fake POWER8/9/10 PMU SPR bank.
 *
 * Modelled: PVR (read-only), MMCR0/1/2/A, MMCR3 (POWER10), PMC1-6, SIAR,
 * SDAR, SIER; UPMC1-6 and UMMCR0 read as their privileged twins (writes are
 * refused: privileged code uses the privileged numbers).  Anything else is
 * an error, as are reserved bits (MMCR0 bits 63:32 and 17:16, PMCCEXT before
 * POWER10, MMCR2 bits 9:0) and PMC values above 32 bits.
 *
 * Counting: PMC5 counts instructions, PMC6 cycles; PMC1-4 count what MMCR1
 * selects: 0x02 instructions and 0x1E cycles on any of them, 0xFE
 * instructions and 0xF0 cycles on PMC1, and the branch events of the model
 * (POWER8: PMC1 0x68 branches; POWER9/10: PMC4 unit 0xD 0x5E branches; all:
 * PMC4 0xF6 branch misses).  FC freezes all, FC14 PMC1-4, FC56 and PMCC=11
 * PMC5-6, FCS/FCP by privilege, MMCR2 FCnS/FCnP per PMC ("kernel" is the
 * supervisor state; FCnH has no effect: the fake has no hypervisor state).
 * Counters wrap at 32 bits.
 *
 * Alerts: a PMC's condition is enabled by PMC1CE (PMC1) or PMCjCE (PMC2-6),
 * and it holds while the PMC is negative (bit 31 set).  An alert happens
 * when an event is counted into a negative PMC whose condition is enabled
 * while PMAE is set, and also at a write of MMCR0 or a PMC after which
 * PMAE is set, FC is clear and an enabled PMC is negative: the ISA's
 * condition is the PMC's value, so a negative PMC alerts as soon as
 * counting is on (QEMU raises it at the PMC's next counted event, hardware
 * at once).  FC14, FC56 and the MMCR2 freezes stop a PMC's counting, not
 * its condition.  An alert clears PMAE, sets PMAO, sets FC if FCECE, and
 * shows in the alert hook at once.  The PMI callback of an alert an event
 * raised runs before the next event is counted; that of an alert a write
 * raised (stats.access_alerts) when the next run starts, if PMAO still
 * holds it: pmuvirt writes registers with interrupts off, and a later
 * MMCR0 write that clears PMAO withdraws the exception.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "fakehw_priv.h"

#define SPR_PVR		287
#define SPR_MMCR3	754
#define SPR_UPMC1	771
#define SPR_UPMC6	776
#define SPR_UMMCR0	779
#define SPR_SIER	784
#define SPR_MMCR2	785
#define SPR_MMCRA	786
#define SPR_PMC1	787
#define SPR_PMC6	792
#define SPR_MMCR0	795
#define SPR_SIAR	796
#define SPR_SDAR	797
#define SPR_MMCR1	798

#define FC		0x80000000ull
#define FCS		0x40000000ull
#define FCP		0x20000000ull
#define PMAE		0x04000000ull
#define FCECE		0x02000000ull
#define PMCC		0x000c0000ull
#define PMC1CE		0x00008000ull
#define PMCJCE		0x00004000ull
#define PMCCEXT		0x00000200ull
#define PMAO		0x00000080ull
#define FC14		0x00000020ull
#define FC56		0x00000010ull

#define NEGATIVE	0x80000000ull

struct ppc_state {
	unsigned int power;
	uint64_t pvr;
	uint64_t mmcr0, mmcr1, mmcr2, mmcra, mmcr3;
	uint64_t siar, sdar, sier;
	uint64_t pmc[6];
	bool deliver;		/* a write raised an alert: PMI before the next event */
};

static struct ppc_state *st_of(const struct fakehw *hw)
{
	return hw->priv;
}

static uint64_t mmcr0_reserved(const struct ppc_state *st)
{
	uint64_t r = 0xffffffff00000000ull | 0x00030000ull;

	if (st->power < 10)
		r |= PMCCEXT;
	return r;
}

static bool alert_enabled(const struct ppc_state *st, unsigned int pmc)
{
	if (!(st->mmcr0 & PMAE))
		return false;
	return (st->mmcr0 & (pmc == 1 ? PMC1CE : PMCJCE)) != 0;
}

/* The alert itself: what the hardware does to MMCR0. */
static void alert(struct ppc_state *st)
{
	st->mmcr0 = (st->mmcr0 & ~PMAE) | PMAO;
	if (st->mmcr0 & FCECE)
		st->mmcr0 |= FC;
}

/* After a write: counting on (FC clear), PMAE set and an enabled PMC negative. */
static void access_alert(struct fakehw *hw)
{
	struct ppc_state *st = st_of(hw);
	unsigned int pmc;

	if (st->mmcr0 & FC)
		return;
	for (pmc = 1; pmc <= 6; pmc++) {
		if ((st->pmc[pmc - 1] & NEGATIVE) && alert_enabled(st, pmc)) {
			alert(st);
			st->deliver = true;
			fakehw_note_access_alert(hw);
			return;
		}
	}
}

static uint64_t *spr_slot(struct ppc_state *st, uint32_t spr)
{
	switch (spr) {
	case SPR_MMCR0:
		return &st->mmcr0;
	case SPR_MMCR1:
		return &st->mmcr1;
	case SPR_MMCR2:
		return &st->mmcr2;
	case SPR_MMCRA:
		return &st->mmcra;
	case SPR_MMCR3:
		return st->power >= 10 ? &st->mmcr3 : NULL;
	case SPR_SIAR:
		return &st->siar;
	case SPR_SDAR:
		return &st->sdar;
	case SPR_SIER:
		return &st->sier;
	case SPR_PVR:
		return &st->pvr;
	default:
		if (spr >= SPR_PMC1 && spr <= SPR_PMC6)
			return &st->pmc[spr - SPR_PMC1];
		return NULL;
	}
}

static int ppc_read_reg(struct fakehw *hw, uint32_t reg, uint64_t *val)
{
	struct ppc_state *st = st_of(hw);
	uint64_t *p;

	if (reg >= SPR_UPMC1 && reg <= SPR_UPMC6)
		reg = SPR_PMC1 + (reg - SPR_UPMC1);
	else if (reg == SPR_UMMCR0)
		reg = SPR_MMCR0;
	p = spr_slot(st, reg);
	if (!p)
		return fakehw_error(hw, "mfspr %u: no such SPR on POWER%u", reg, st->power);
	*val = *p;
	return 0;
}

static int ppc_write_reg(struct fakehw *hw, uint32_t reg, uint64_t val)
{
	struct ppc_state *st = st_of(hw);
	uint64_t *p;

	if (reg == SPR_PVR)
		return fakehw_error(hw, "mtspr PVR: read-only");
	if ((reg >= SPR_UPMC1 && reg <= SPR_UPMC6) || reg == SPR_UMMCR0)
		return fakehw_error(hw, "mtspr %u: user-mode alias written by privileged code", reg);
	p = spr_slot(st, reg);
	if (!p)
		return fakehw_error(hw, "mtspr %u: no such SPR on POWER%u", reg, st->power);
	if (reg == SPR_MMCR0 && (val & mmcr0_reserved(st)))
		return fakehw_error(hw, "mtspr MMCR0 0x%llx: reserved bits 0x%llx", (unsigned long long)val,
				    (unsigned long long)(val & mmcr0_reserved(st)));
	if (reg == SPR_MMCR2 && (val & 0x3ffull))
		return fakehw_error(hw, "mtspr MMCR2 0x%llx: reserved bits 9:0", (unsigned long long)val);
	if (reg >= SPR_PMC1 && reg <= SPR_PMC6 && val > 0xffffffffull)
		return fakehw_error(hw, "mtspr PMC%u 0x%llx: PMCs are 32 bits", reg - SPR_PMC1 + 1,
				    (unsigned long long)val);
	*p = val;
	if (reg == SPR_MMCR0 || (reg >= SPR_PMC1 && reg <= SPR_PMC6))
		access_alert(hw);
	return 0;
}

static int ppc_read_counter(struct fakehw *hw, uint32_t idx, uint64_t *val)
{
	struct ppc_state *st = st_of(hw);

	if (idx < 1 || idx > 6)
		return fakehw_error(hw, "read_counter %u: POWER has PMC1-6", idx);
	*val = st->pmc[idx - 1];
	return 0;
}

/* What PMC @pmc (1-4) counts with MMCR1 as it is; -1 for nothing we model. */
static int pmc_event(const struct ppc_state *st, unsigned int pmc)
{
	unsigned int sel = (unsigned int)(st->mmcr1 >> (24 - (pmc - 1) * 8)) & 0xff;
	unsigned int unit = (unsigned int)(st->mmcr1 >> (60 - (pmc - 1) * 4)) & 0xf;

	if (unit == 0) {
		if (sel == 0x02)
			return FAKEHW_INSTRUCTIONS;
		if (sel == 0x1e)
			return FAKEHW_CYCLES;
		if (pmc == 1 && sel == 0xfe)
			return FAKEHW_INSTRUCTIONS;
		if (pmc == 1 && sel == 0xf0)
			return FAKEHW_CYCLES;
		if (pmc == 4 && sel == 0xf6)
			return FAKEHW_BRANCH_MISSES;
		if (st->power == 8 && pmc == 1 && sel == 0x68)
			return FAKEHW_BRANCHES;
	}
	if (st->power >= 9 && pmc == 4 && unit == 0xd && sel == 0x5e)
		return FAKEHW_BRANCHES;
	return -1;
}

static bool pmc_counts(const struct ppc_state *st, unsigned int pmc, enum fakehw_event ev,
		       bool kernel)
{
	uint64_t m0 = st->mmcr0;
	uint64_t m2 = st->mmcr2 << ((pmc - 1) * 9);

	if (m0 & FC)
		return false;
	if (kernel ? (m0 & FCS) : (m0 & FCP))
		return false;
	if (pmc <= 4 && (m0 & FC14))
		return false;
	if (pmc >= 5 && ((m0 & FC56) || (m0 & PMCC) == PMCC))
		return false;
	if (kernel ? (m2 & (1ull << 63)) : (m2 & (1ull << 62)))
		return false;
	if (pmc == 5)
		return ev == FAKEHW_INSTRUCTIONS;
	if (pmc == 6)
		return ev == FAKEHW_CYCLES;
	return pmc_event(st, pmc) == (int)ev;
}

/*
 * An alert a write raised is taken when code runs again, before its first
 * event, while PMAO still holds it.  A handler that leaves the alert's
 * cause in place makes another at its own write: that loop never ends on
 * hardware, and is an error here.
 */
static int deliver_access_alerts(struct fakehw *hw)
{
	struct ppc_state *st = st_of(hw);
	unsigned int n = 0;

	while (st->deliver) {
		st->deliver = false;
		if (!(st->mmcr0 & PMAO))
			continue;
		if (++n > 100)
			return fakehw_error(hw, "alert storm: every handler's write raises another alert");
		fakehw_deliver_pmi(hw);
	}
	return 0;
}

static int ppc_run(struct fakehw *hw, enum fakehw_event ev, uint64_t n, bool kernel)
{
	struct ppc_state *st = st_of(hw);

	while (n) {
		uint64_t step = n;
		unsigned int counting = 0, armed = 0, pmc;
		bool raised = false;
		int ret = deliver_access_alerts(hw);

		if (ret)
			return ret;
		for (pmc = 1; pmc <= 6; pmc++) {
			uint64_t v = st->pmc[pmc - 1], d;

			if (!pmc_counts(st, pmc, ev, kernel))
				continue;
			counting |= 1u << pmc;
			if (!alert_enabled(st, pmc))
				continue;
			armed |= 1u << pmc;
			d = (v & NEGATIVE) ? 1 : NEGATIVE - v;
			if (d < step)
				step = d;
		}
		if (!counting)
			return 0;
		for (pmc = 1; pmc <= 6; pmc++) {
			if (!(counting & (1u << pmc)))
				continue;
			st->pmc[pmc - 1] = (st->pmc[pmc - 1] + step) & 0xffffffffull;
			if ((armed & (1u << pmc)) && (st->pmc[pmc - 1] & NEGATIVE))
				raised = true;
		}
		n -= step;
		if (raised) {
			alert(st);
			fakehw_raise_pmi(hw);
		}
	}
	return 0;
}

static int ppc_peek(const struct fakehw *hw, uint32_t reg, uint64_t *val)
{
	uint64_t *p = spr_slot(st_of(hw), reg);

	if (!p)
		return -EINVAL;
	*val = *p;
	return 0;
}

static int ppc_poke(struct fakehw *hw, uint32_t reg, uint64_t val)
{
	uint64_t *p = spr_slot(st_of(hw), reg);

	if (!p)
		return -EINVAL;
	*p = val;
	return 0;
}

/* PMC1-6 as counters 0-5. */
static uint32_t ppc_enabled(const struct fakehw *hw)
{
	const struct ppc_state *st = st_of(hw);
	uint32_t on = 0;
	unsigned int pmc, ev;

	for (pmc = 1; pmc <= 6; pmc++)
		for (ev = 0; ev < FAKEHW_NR_EVENTS; ev++)
			if (pmc_counts(st, pmc, (enum fakehw_event)ev, false) ||
			    pmc_counts(st, pmc, (enum fakehw_event)ev, true))
				on |= 1u << (pmc - 1);
	return on;
}

static int ppc_counter_of(const struct fakehw *hw, uint32_t spr)
{
	(void)hw;
	return spr >= SPR_PMC1 && spr <= SPR_PMC6 ? (int)(spr - SPR_PMC1) : -1;
}

static const struct fakehw_impl ppc_impl = {
	.read_reg = ppc_read_reg,
	.write_reg = ppc_write_reg,
	.read_counter = ppc_read_counter,
	.cpuid = NULL,
	.run = ppc_run,
	.peek = ppc_peek,
	.poke = ppc_poke,
	.enabled = ppc_enabled,
	.counter_of = ppc_counter_of,
};

struct fakehw *fakehw_ppc_new(unsigned int power)
{
	struct ppc_state *st;

	if (power != 8 && power != 9 && power != 10)
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->power = power;
	/* PVR: version in the high half, a plausible revision in the low half. */
	st->pvr = power == 8 ? 0x004d0200ull : power == 9 ? 0x004e1202ull : 0x00800200ull;
	/* Reset state: counters frozen. */
	st->mmcr0 = FC;
	return fakehw_alloc(&ppc_impl, st);
}
