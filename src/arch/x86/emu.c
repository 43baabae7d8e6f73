/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* The emulated Intel PMU (a test instrument): see pmuvirt_x86_emu.h. */
#include "pmuvirt_defaults.h"
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

static bool counting(const struct pmuvirt_x86_emu *e, unsigned int i)
{
	if (!(e->global_ctrl & global_bit(i)))
		return false;
	return i < EMU_FIXED ? (e->evtsel[i] & PMUVIRT_EVSEL_EN) != 0 :
			       (e->fixed_ctrl & FIXED0_EN) != 0;
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
		if (!counting(e, i))
			continue;
		if (delta > EMU_MASK - e->ctr[i]) {
			e->status |= global_bit(i);
			if (interrupts(e, i))
				e->pmi_pending = 1;
		}
		e->ctr[i] = (e->ctr[i] + delta) & EMU_MASK;
	}
}

void pmuvirt_x86_emu_reset(struct pmuvirt_x86_emu *e, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < PMUVIRT_X86_EMU_GP; i++)
		e->evtsel[i] = 0;
	for (i = 0; i < PMUVIRT_X86_EMU_NR; i++)
		e->ctr[i] = 0;
	e->fixed_ctrl = e->global_ctrl = e->status = 0;
	e->since = now;
	e->pmi_pending = 0;
	e->lvtpc = 0;
	e->lost = 0;
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
		return 0;
	}
	if (reg >= PMUVIRT_MSR_IA32_PERFEVTSEL0 &&
	    reg < PMUVIRT_MSR_IA32_PERFEVTSEL0 + PMUVIRT_X86_EMU_GP) {
		if (val >> 32)
			return -EFAULT;
		e->evtsel[reg - PMUVIRT_MSR_IA32_PERFEVTSEL0] = val;
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
	for (i = 0; i < PMUVIRT_X86_EMU_NR; i++)
		if (counting(e, i) && interrupts(e, i) && EMU_MASK + 1 - e->ctr[i] < ticks)
			ticks = EMU_MASK + 1 - e->ctr[i];
	return ticks;
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
