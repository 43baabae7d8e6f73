/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The register adapter of the emulated Intel PMU (see pmuvirt_x86_emu.h):
 * the backend's struct pmuvirt_hw_ops on the calling CPU's bank, with the
 * host's clock, timer and PMI path as callbacks.
 */
#include "pmuvirt_defaults.h"
#include "pmuvirt_x86_emu.h"

/* After a change: the timer fires at the next PMI, at once if one is pending. */
static void rearm(struct pmuvirt_x86_emu_cpu *c)
{
	uint64_t ticks = pmuvirt_x86_emu_next_pmi(&c->regs);

	if (ticks != PMUVIRT_X86_EMU_NEVER && ticks > PMUVIRT_X86_EMU_ARM_MAX)
		ticks = PMUVIRT_X86_EMU_ARM_MAX;
	c->host->arm(c, ticks);
}

/* After an access: a wrap it found inside a core call raises its PMI now, as an NMI would. */
static int accessed(struct pmuvirt_x86_emu_cpu *c, int ret)
{
	const struct pmuvirt_x86_emu_host *h = c->host;

	if (h->pmi_at_access && h->pmi_at_access(c) &&
	    pmuvirt_x86_emu_take_pmi(&c->regs, h->now(c))) {
		h->pmi(c, true);
		rearm(c);
	}
	return ret;
}

static int PMUVIRT_CF_CHECK emu_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	struct pmuvirt_x86_emu_cpu *c = arg;

	return accessed(c, pmuvirt_x86_emu_read_reg(&c->regs, c->host->now(c), reg, val));
}

static int PMUVIRT_CF_CHECK emu_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	struct pmuvirt_x86_emu_cpu *c = arg;
	int ret = pmuvirt_x86_emu_write_reg(&c->regs, c->host->now(c), reg, val);

	if (!ret)
		rearm(c);
	return accessed(c, ret);
}

static int PMUVIRT_CF_CHECK emu_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	struct pmuvirt_x86_emu_cpu *c = arg;

	return accessed(c, pmuvirt_x86_emu_read_counter(&c->regs, c->host->now(c), idx, val));
}

static int PMUVIRT_CF_CHECK emu_read_tsc(void *arg, uint64_t *val)
{
	struct pmuvirt_x86_emu_cpu *c = arg;

	*val = c->host->now(c);
	return 0;
}

/* As many emu_read_counter() and emu_read_tsc() calls. */
static int PMUVIRT_CF_CHECK emu_read_counters(void *arg, const uint32_t *idx, unsigned int n,
					     uint64_t *vals)
{
	return pmuvirt_hw_read_each(&pmuvirt_x86_emu_hw, arg, idx, n, vals);
}

static int PMUVIRT_CF_CHECK emu_cpuid(void *arg, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	(void)arg;
	pmuvirt_x86_emu_cpuid(leaf, sub, out);
	return 0;
}

const struct pmuvirt_hw_ops pmuvirt_x86_emu_hw = {
	.read_reg = emu_read_reg,
	.write_reg = emu_write_reg,
	.read_counter = emu_read_counter,
	.read_tsc = emu_read_tsc,
	.read_cpuid = emu_cpuid,
	.read_counters = emu_read_counters,
};

void pmuvirt_x86_emu_timer(struct pmuvirt_x86_emu_cpu *c)
{
	if (pmuvirt_x86_emu_take_pmi(&c->regs, c->host->now(c)))
		c->host->pmi(c, false);
	rearm(c);
}

void pmuvirt_x86_emu_cpu_set_mode(struct pmuvirt_x86_emu_cpu *c, uint32_t mode)
{
	pmuvirt_x86_emu_set_mode(&c->regs, c->host->now(c), mode);
	rearm(c);
}
