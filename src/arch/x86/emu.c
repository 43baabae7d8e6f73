/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* The emulated Intel PMU (a test instrument): see pmuvirt_x86_emu.h. */
#include "pmuvirt_defaults.h"
#include "pmuvirt_arch.h"
#include "pmuvirt_x86_emu.h"
#include "pmuvirt_x86_msr.h"

#define EMU_MASK	(((uint64_t)1 << PMUVIRT_X86_EMU_WIDTH) - 1)
#define EMU_FIXED	PMUVIRT_X86_EMU_GP

#define FIXED0_EN		(PMUVIRT_FIXED_OS | PMUVIRT_FIXED_USR)
#define GLOBAL_BITS		(0x3u | ((uint64_t)1 << 32))

static uint64_t global_bit(unsigned int i)
{
	return i < PMUVIRT_X86_EMU_GP ? (uint64_t)1 << i : (uint64_t)1 << 32;
}

/* The privilege filter bits of counter @i that let it count in the CPU's mode. */
static uint64_t mode_bits(const struct pmuvirt_x86_emu *e, unsigned int i)
{
	bool fixed = i >= EMU_FIXED;

	switch (e->mode) {
	case PMUVIRT_X86_EMU_MODE_USER:
		return fixed ? PMUVIRT_FIXED_USR : PMUVIRT_EVSEL_USR;
	case PMUVIRT_X86_EMU_MODE_KERNEL:
		return fixed ? PMUVIRT_FIXED_OS : PMUVIRT_EVSEL_OS;
	default:
		return fixed ? FIXED0_EN : PMUVIRT_EVSEL_USR | PMUVIRT_EVSEL_OS;
	}
}

static bool counting(const struct pmuvirt_x86_emu *e, unsigned int i)
{
	if (!(e->global_ctrl & global_bit(i)))
		return false;
	if (i >= EMU_FIXED)
		return (e->fixed_ctrl & mode_bits(e, i)) != 0;
	if (!(e->evtsel[i] & PMUVIRT_EVSEL_EN))
		return false;
	/* a host that does not model the mode counts whatever the filter */
	return e->mode == PMUVIRT_X86_EMU_MODE_ANY || (e->evtsel[i] & mode_bits(e, i)) != 0;
}

/*
 * Ticks per event of counter @i: the fixed counter and every general event
 * not listed count ticks; branches, branch misses and the last-level
 * cache events count at their own rates, so events can be told apart.
 */
static uint64_t ticks_per_event(const struct pmuvirt_x86_emu *e, unsigned int i)
{
	if (i >= EMU_FIXED)
		return 1;
	switch (e->evtsel[i] & 0xffff) {	/* event select and unit mask */
	case 0x00c4:	/* branch instructions retired */
		return PMUVIRT_X86_EMU_BRANCH_TICKS;
	case 0x00c5:	/* branch misses retired */
		return PMUVIRT_X86_EMU_BRMISS_TICKS;
	case 0x4f2e:	/* last-level cache references */
		return PMUVIRT_X86_EMU_LLCREF_TICKS;
	case 0x412e:	/* last-level cache misses */
		return PMUVIRT_X86_EMU_LLCMISS_TICKS;
	default:
		return 1;
	}
}

/* Events counter @i counts in @delta ticks, carrying the remainder in @frac. */
static uint64_t events_in(struct pmuvirt_x86_emu *e, unsigned int i, uint64_t delta)
{
	uint64_t per = ticks_per_event(e, i), n;

	if (per == 1)
		return delta;
	n = pmuvirt_div64(delta, per);	/* no libgcc division on 32-bit hosts */
	e->frac[i] += delta - n * per;
	if (e->frac[i] >= per) {
		e->frac[i] -= per;
		n++;
	}
	return n;
}

static bool interrupts(const struct pmuvirt_x86_emu *e, unsigned int i)
{
	return i < EMU_FIXED ? (e->evtsel[i] & PMUVIRT_EVSEL_INT) != 0 :
			       (e->fixed_ctrl & PMUVIRT_FIXED_PMI) != 0;
}

/* Bring the counters up to @now; a wrap sets its status bit. */
static void sync(struct pmuvirt_x86_emu *e, uint64_t now)
{
	uint64_t delta = now - e->since;
	unsigned int i;

	e->since = now;
	for (i = 0; i < PMUVIRT_X86_EMU_NR; i++) {
		uint64_t n;

		if (!counting(e, i))
			continue;
		n = events_in(e, i, delta);
		if (n > EMU_MASK - e->ctr[i]) {
			e->status |= global_bit(i);
			if (interrupts(e, i))
				e->pmi_pending = 1;
		}
		e->ctr[i] = (e->ctr[i] + n) & EMU_MASK;
	}
}

void pmuvirt_x86_emu_reset(struct pmuvirt_x86_emu *e, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < PMUVIRT_X86_EMU_GP; i++)
		e->evtsel[i] = 0;
	for (i = 0; i < PMUVIRT_X86_EMU_NR; i++)
		e->ctr[i] = e->frac[i] = 0;
	e->fixed_ctrl = e->global_ctrl = e->status = 0;
	e->since = now;
	e->pmi_pending = 0;
	e->lvtpc = 0;
	e->lost = 0;
	e->mode = PMUVIRT_X86_EMU_MODE_ANY;
}

void pmuvirt_x86_emu_cpuid(uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	(void)sub;
	out[0] = out[1] = out[2] = out[3] = 0;
	if (leaf == 0) {
		out[0] = 0xa;
		out[1] = 0x756e6547;	/* "Genu" "ineI" "ntel" in EBX, EDX, ECX */
		out[3] = 0x49656e69;
		out[2] = 0x6c65746e;
	} else if (leaf == 1) {
		out[2] = 1u << 15;	/* PDCM: IA32_PERF_CAPABILITIES exists */
	} else if (leaf == 0xa) {
		/* v2, general counters, their width, 7 architectural events (all present) */
		out[0] = 2 | PMUVIRT_X86_EMU_GP << 8 | PMUVIRT_X86_EMU_WIDTH << 16 | 7u << 24;
		out[3] = 1 | PMUVIRT_X86_EMU_WIDTH << 5;	/* one fixed counter */
	}
}

/* Counter named by a counter MSR, or -1; *full says whether writes are full width. */
static int counter_of(uint32_t reg, bool *full)
{
	*full = true;
	if (reg >= PMUVIRT_MSR_IA32_A_PMC0 && reg < PMUVIRT_MSR_IA32_A_PMC0 + PMUVIRT_X86_EMU_GP)
		return (int)(reg - PMUVIRT_MSR_IA32_A_PMC0);
	if (reg == PMUVIRT_MSR_IA32_FIXED_CTR0)
		return EMU_FIXED;
	*full = false;
	if (reg >= PMUVIRT_MSR_IA32_PMC0 && reg < PMUVIRT_MSR_IA32_PMC0 + PMUVIRT_X86_EMU_GP)
		return (int)(reg - PMUVIRT_MSR_IA32_PMC0);
	return -1;
}

int pmuvirt_x86_emu_read_reg(struct pmuvirt_x86_emu *e, uint64_t now, uint32_t reg,
			     uint64_t *val)
{
	bool full;
	int i;

	sync(e, now);
	i = counter_of(reg, &full);
	if (i >= 0) {
		*val = e->ctr[i];
		return 0;
	}
	if (reg >= PMUVIRT_MSR_IA32_PERFEVTSEL0 &&
	    reg < PMUVIRT_MSR_IA32_PERFEVTSEL0 + PMUVIRT_X86_EMU_GP) {
		*val = e->evtsel[reg - PMUVIRT_MSR_IA32_PERFEVTSEL0];
		return 0;
	}
	switch (reg) {
	case PMUVIRT_MSR_IA32_FIXED_CTR_CTRL:
		*val = e->fixed_ctrl;
		return 0;
	case PMUVIRT_MSR_IA32_PERF_GLOBAL_STATUS:
		*val = e->status;
		return 0;
	case PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL:
		*val = e->global_ctrl;
		return 0;
	case PMUVIRT_MSR_IA32_PERF_GLOBAL_OVF_CTRL:
		*val = 0;
		return 0;
	case PMUVIRT_MSR_IA32_PERF_CAPABILITIES:
		*val = PMUVIRT_PERF_CAP_FW_WRITE;
		return 0;
	default:
		return -EFAULT;
	}
}

int pmuvirt_x86_emu_write_reg(struct pmuvirt_x86_emu *e, uint64_t now, uint32_t reg,
			      uint64_t val)
{
	bool full;
	int i;

	sync(e, now);
	i = counter_of(reg, &full);
	if (i >= 0) {
		if (full && (val & ~EMU_MASK))
			return -EFAULT;
		if (!full)	/* a legacy write sign-extends bit 31 */
			val = (val & 0x80000000u ? val | ~(uint64_t)0xffffffffu :
						   val & 0xffffffffu) & EMU_MASK;
		e->ctr[i] = val;
		e->frac[i] = 0;
		return 0;
	}
	if (reg >= PMUVIRT_MSR_IA32_PERFEVTSEL0 &&
	    reg < PMUVIRT_MSR_IA32_PERFEVTSEL0 + PMUVIRT_X86_EMU_GP) {
		if (val >> 32)
			return -EFAULT;
		i = reg - PMUVIRT_MSR_IA32_PERFEVTSEL0;
		if ((e->evtsel[i] ^ val) & 0xffff)
			e->frac[i] = 0;
		e->evtsel[i] = val;
		return 0;
	}
	switch (reg) {
	case PMUVIRT_MSR_IA32_FIXED_CTR_CTRL:
		if (val & ~(uint64_t)0xf)
			return -EFAULT;
		e->fixed_ctrl = val;
		return 0;
	case PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL:
		if (val & ~GLOBAL_BITS)
			return -EFAULT;
		e->global_ctrl = val;
		return 0;
	case PMUVIRT_MSR_IA32_PERF_GLOBAL_OVF_CTRL:
		if (val & ~GLOBAL_BITS)
			return -EFAULT;
		e->status &= ~val;
		return 0;
	default:	/* GLOBAL_STATUS and PERF_CAPABILITIES are read-only */
		return -EFAULT;
	}
}

int pmuvirt_x86_emu_read_counter(struct pmuvirt_x86_emu *e, uint64_t now, uint32_t idx,
				 uint64_t *val)
{
	unsigned int i;

	if (idx == PMUVIRT_RDPMC_FIXED)
		i = EMU_FIXED;
	else if (idx < PMUVIRT_X86_EMU_GP)
		i = idx;
	else
		return -EFAULT;
	sync(e, now);
	*val = e->ctr[i];
	return 0;
}

uint64_t pmuvirt_x86_emu_next_pmi(const struct pmuvirt_x86_emu *e)
{
	uint64_t ticks = ~(uint64_t)0;
	unsigned int i;

	if (e->pmi_pending)
		return 0;
	for (i = 0; i < PMUVIRT_X86_EMU_NR; i++) {
		uint64_t t;

		if (!counting(e, i) || !interrupts(e, i))
			continue;
		/* at most 2^48 events of at most 2^8 ticks each: no overflow */
		t = (EMU_MASK + 1 - e->ctr[i]) * ticks_per_event(e, i) - e->frac[i];
		if (t < ticks)
			ticks = t;
	}
	return ticks;
}

void pmuvirt_x86_emu_set_mode(struct pmuvirt_x86_emu *e, uint64_t now, uint32_t mode)
{
	sync(e, now);
	e->mode = mode;
}

bool pmuvirt_x86_emu_take_pmi(struct pmuvirt_x86_emu *e, uint64_t now)
{
	sync(e, now);
	if (!e->pmi_pending)
		return false;
	e->pmi_pending = 0;
	if (!e->lvtpc)
		return true;
	if (e->lvtpc & PMUVIRT_X86_EMU_LVTPC_MASKED) {
		e->lost++;
		return false;
	}
	e->lvtpc |= PMUVIRT_X86_EMU_LVTPC_MASKED;	/* Intel masks LVTPC on delivery */
	return true;
}

void pmuvirt_x86_emu_write_lvtpc(struct pmuvirt_x86_emu *e, uint32_t val)
{
	e->lvtpc = PMUVIRT_X86_EMU_LVTPC_ON | (val & PMUVIRT_X86_EMU_LVTPC_MASKED);
}

bool pmuvirt_x86_emu_lvtpc_masked(const struct pmuvirt_x86_emu *e)
{
	return (e->lvtpc & PMUVIRT_X86_EMU_LVTPC_MASKED) != 0;
}
