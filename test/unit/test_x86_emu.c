/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The emulated Intel PMU (src/arch/x86/emu.c), the test instrument the
 * Linux module and Xen use on CPUs without a PMU: it must be strict, and
 * the core and the x86 backend must count on it exactly as on hardware.
 * A fake clock stands in for the TSC; a PMI is taken whenever the clock
 * reaches the time pmuvirt_x86_emu_next_pmi() asks for.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include "rig.h"
#include "../common/imode_control.h"
#include "x86/pmuvirt_x86.h"
#include "x86/pmuvirt_x86_emu.h"
#include "x86/pmuvirt_x86_msr.h"

#define EMU_MASK_ALL	(((uint64_t)1 << PMUVIRT_X86_EMU_WIDTH) - 1)

/*
 * One CPU under the shared register adapter (emu_hw.c): the rig is the
 * host, a fake clock its TSC, and its timer a deadline that run() fires.
 */
struct emu_rig {
	struct pmuvirt_x86_emu_cpu cpu;
	uint64_t now;
	uint64_t deadline;	/* the armed timer, PMUVIRT_X86_EMU_NEVER stopped */
	unsigned int arms;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	bool busy;		/* inside a core call: PMIs at an access */
	unsigned int pmis, pmis_at_access;
	uint32_t ovf;
	bool unmask;		/* the PMI path rewrites LVTPC unmasked */
	bool no_core;		/* the PMI path only counts, the core is not called */
};

static struct emu_rig *rig_of(struct pmuvirt_x86_emu_cpu *c)
{
	return (struct emu_rig *)((char *)c - offsetof(struct emu_rig, cpu));
}

static uint64_t h_now(struct pmuvirt_x86_emu_cpu *c)
{
	return rig_of(c)->now;
}

static void h_arm(struct pmuvirt_x86_emu_cpu *c, uint64_t ticks)
{
	struct emu_rig *r = rig_of(c);

	assert_true(ticks == PMUVIRT_X86_EMU_NEVER || ticks <= PMUVIRT_X86_EMU_ARM_MAX);
	r->arms++;
	r->deadline = ticks == PMUVIRT_X86_EMU_NEVER ? ticks : r->now + ticks;
}

static bool h_pmi_at_access(struct pmuvirt_x86_emu_cpu *c)
{
	return rig_of(c)->busy;
}

static void h_pmi(struct pmuvirt_x86_emu_cpu *c, bool at_access)
{
	struct emu_rig *r = rig_of(c);
	uint32_t mask = 0;
	bool busy = r->busy;

	r->pmis++;
	r->pmis_at_access += at_access;
	if (r->no_core)
		return;
	r->busy = false;
	assert_int_equal(pmuvirt_pmi(&r->pc, &mask), 0);
	r->busy = busy;
	r->ovf |= mask;
	if (r->unmask)
		pmuvirt_x86_emu_write_lvtpc(&r->cpu.regs, 0);
}

static const struct pmuvirt_x86_emu_host rig_host = {
	.now = h_now,
	.arm = h_arm,
	.pmi_at_access = h_pmi_at_access,
	.pmi = h_pmi,
};

/* Let @ticks pass, firing the timer at every deadline the adapter arms. */
static void run(struct emu_rig *r, uint64_t ticks)
{
	uint64_t end = r->now + ticks;

	while (r->deadline <= end) {
		unsigned int arms = r->arms;

		r->now = r->deadline > r->now ? r->deadline : r->now;
		pmuvirt_x86_emu_timer(&r->cpu);
		assert_true(r->arms > arms);	/* a fired timer is armed again or stopped */
	}
	r->now = end;
}

static struct emu_rig *rig_new(void)
{
	struct emu_rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->cpu.host = &rig_host;
	r->now = 1000;
	r->deadline = PMUVIRT_X86_EMU_NEVER;
	pmuvirt_x86_emu_reset(&r->cpu.regs, r->now);
	assert_int_equal(pmuvirt_x86_probe(&r->pmu, &pmuvirt_x86_emu_hw, &r->cpu), 0);
	assert_int_equal(pmuvirt_pcpu_init(&r->pc, &r->pmu, &pmuvirt_x86_emu_hw, &r->cpu, 0), 0);
	return r;
}

/* What the x86 backend sees: Intel v2, 2 general and 1 fixed 48-bit counters. */
static void test_probe(void **state)
{
	struct emu_rig *r = rig_new();

	(void)state;
	assert_int_equal(r->pmu.model, PMUVIRT_X86_INTEL_V2);
	assert_int_equal(r->pmu.nr_gp, 2);
	assert_int_equal(r->pmu.nr_fixed, 1);
	assert_true(r->pmu.caps & PMUVIRT_CAP_FW_WRITE);
	assert_int_equal(r->pmu.slot[0].width, 48);
	free(r);
}

/* Strict: unknown registers, reserved bits and read-only registers fail and change nothing. */
static void test_strict(void **state)
{
	struct pmuvirt_x86_emu e;
	uint64_t v;

	(void)state;
	pmuvirt_x86_emu_reset(&e, 0);
	assert_int_equal(pmuvirt_x86_emu_read_reg(&e, 0, 0x188, &v), -EFAULT);	/* PERFEVTSEL2 */
	assert_int_equal(pmuvirt_x86_emu_read_reg(&e, 0, 0x30a, &v), -EFAULT);	/* FIXED_CTR1 */
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x186, 1ull << 32), -EFAULT);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x38f, 1ull << 2), -EFAULT);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x38d, 0x10), -EFAULT);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x38e, 1), -EFAULT);	/* STATUS is RO */
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x345, 0), -EFAULT);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x4c1, 1ull << 48), -EFAULT);
	assert_int_equal(pmuvirt_x86_emu_read_counter(&e, 0, 2, &v), -EFAULT);
	assert_int_equal(pmuvirt_x86_emu_read_counter(&e, 0, (1u << 30) | 1, &v), -EFAULT);
	assert_int_equal(pmuvirt_x86_emu_read_reg(&e, 0, 0x186, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(pmuvirt_x86_emu_read_reg(&e, 0, 0x38f, &v), 0);
	assert_int_equal(v, 0);
	/* a legacy write sign-extends bit 31 to the counter's width */
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0xc1, 0x80000000u), 0);
	assert_int_equal(pmuvirt_x86_emu_read_counter(&e, 0, 0, &v), 0);
	assert_int_equal(v, 0xffff80000000ull);
	/* nothing counts until enabled in both the event select and GLOBAL_CTRL */
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x186, 1ull << 22), 0);
	assert_int_equal(pmuvirt_x86_emu_read_counter(&e, 100, 0, &v), 0);
	assert_int_equal(v, 0xffff80000000ull);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 100, 0x38f, 1), 0);
	assert_int_equal(pmuvirt_x86_emu_read_counter(&e, 150, 0, &v), 0);
	assert_int_equal(v, 0xffff80000000ull + 50);
	/* a wrap without the interrupt bit sets the status bit only */
	assert_int_equal(pmuvirt_x86_emu_read_counter(&e, 150 + 0x80000000ull, 0, &v), 0);
	assert_int_equal(v, 50);
	assert_int_equal(pmuvirt_x86_emu_read_reg(&e, 150 + 0x80000000ull, 0x38e, &v), 0);
	assert_int_equal(v, 1);
	assert_false(pmuvirt_x86_emu_take_pmi(&e, 150 + 0x80000000ull));
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 150 + 0x80000000ull, 0x390, 1), 0);
	assert_int_equal(pmuvirt_x86_emu_read_reg(&e, 150 + 0x80000000ull, 0x38e, &v), 0);
	assert_int_equal(v, 0);
}

static uint64_t ctr_at(struct pmuvirt_x86_emu *e, uint64_t now, uint32_t idx)
{
	uint64_t v;

	assert_int_equal(pmuvirt_x86_emu_read_counter(e, now, idx, &v), 0);
	return v;
}

/*
 * Events count at their own rates (instructions and cycles one per tick,
 * branches one per 5, branch misses one per 97, the remainder carried), and
 * once the host models the privilege mode a counter counts only in the
 * modes its USR and OS bits select; a host that never sets the mode gets
 * every enabled counter counting, whatever its filter.
 */
static void test_rates_and_mode(void **state)
{
	const uint64_t br = PMUVIRT_X86_EMU_BRANCH_TICKS, miss = PMUVIRT_X86_EMU_BRMISS_TICKS;
	struct pmuvirt_x86_emu e;
	uint64_t t = 0;

	(void)state;
	assert_int_equal(br, 5);
	assert_int_equal(miss, 97);
	pmuvirt_x86_emu_reset(&e, 0);
	/* branches in user mode only, branch misses in the kernel only, instructions in user mode */
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, t, 0x186,
			 0xc4 | PMUVIRT_EVSEL_EN | PMUVIRT_EVSEL_USR), 0);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, t, 0x187,
			 0xc5 | PMUVIRT_EVSEL_EN | PMUVIRT_EVSEL_OS), 0);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, t, 0x38d, PMUVIRT_FIXED_USR), 0);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, t, 0x38f, 0x3 | (1ull << 32)), 0);

	/* not modelled: every enabled counter counts, at its rate */
	t += 1000;
	assert_int_equal(ctr_at(&e, t, 0), 1000 / br);
	assert_int_equal(ctr_at(&e, t, 1), 1000 / miss);
	assert_int_equal(ctr_at(&e, t, PMUVIRT_RDPMC_FIXED), 1000);

	/* user mode: the kernel-only counter stops; the remainder of 1000/97 is carried */
	pmuvirt_x86_emu_set_mode(&e, t, PMUVIRT_X86_EMU_MODE_USER);
	t += 3 * 97;
	assert_int_equal(ctr_at(&e, t, 0), (1000 + 3 * 97) / br);
	assert_int_equal(ctr_at(&e, t, 1), 1000 / miss);
	assert_int_equal(ctr_at(&e, t, PMUVIRT_RDPMC_FIXED), 1000 + 3 * 97);

	/* kernel mode: only the misses count, 1000 % 97 = 30 ticks already carried */
	pmuvirt_x86_emu_set_mode(&e, t, PMUVIRT_X86_EMU_MODE_KERNEL);
	t += 67;
	assert_int_equal(ctr_at(&e, t, 1), 1000 / miss + 1);
	t += 96;
	assert_int_equal(ctr_at(&e, t, 1), 1000 / miss + 1);
	t += 1;
	assert_int_equal(ctr_at(&e, t, 1), 1000 / miss + 2);
	assert_int_equal(ctr_at(&e, t, 0), (1000 + 3 * 97) / br);
	assert_int_equal(ctr_at(&e, t, PMUVIRT_RDPMC_FIXED), 1000 + 3 * 97);

	/* the next PMI comes after the events left times the ticks per event */
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, t, 0xc2, EMU_MASK_ALL - 1), 0);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, t, 0x187,
			 0xc5 | PMUVIRT_EVSEL_EN | PMUVIRT_EVSEL_OS | PMUVIRT_EVSEL_INT), 0);
	assert_int_equal(pmuvirt_x86_emu_next_pmi(&e), 2 * miss);
	/* in user mode the kernel-only counter never interrupts */
	pmuvirt_x86_emu_set_mode(&e, t, PMUVIRT_X86_EMU_MODE_USER);
	assert_int_equal(pmuvirt_x86_emu_next_pmi(&e), PMUVIRT_X86_EMU_NEVER);
	t += 1000000;
	assert_false(pmuvirt_x86_emu_take_pmi(&e, t));
	pmuvirt_x86_emu_set_mode(&e, t, PMUVIRT_X86_EMU_MODE_KERNEL);
	t += 2 * miss - 1;
	assert_false(pmuvirt_x86_emu_take_pmi(&e, t));
	t += 1;
	assert_true(pmuvirt_x86_emu_take_pmi(&e, t));
	assert_int_equal(ctr_at(&e, t, 1), 0);
}

/* Instructions and cycles on general counters count one per tick, in both modes. */
static void test_rates_unit(void **state)
{
	struct pmuvirt_x86_emu e;

	(void)state;
	pmuvirt_x86_emu_reset(&e, 0);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x186, 0xc0 | PMUVIRT_EVSEL_EN |
			 PMUVIRT_EVSEL_USR | PMUVIRT_EVSEL_OS), 0);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x187, 0x3c | PMUVIRT_EVSEL_EN |
			 PMUVIRT_EVSEL_USR | PMUVIRT_EVSEL_OS), 0);
	assert_int_equal(pmuvirt_x86_emu_write_reg(&e, 0, 0x38f, 0x3), 0);
	pmuvirt_x86_emu_set_mode(&e, 0, PMUVIRT_X86_EMU_MODE_USER);
	pmuvirt_x86_emu_set_mode(&e, 123, PMUVIRT_X86_EMU_MODE_KERNEL);
	assert_int_equal(ctr_at(&e, 1000, 0), 1000);
	assert_int_equal(ctr_at(&e, 1000, 1), 1000);
}

#define EVSEL_ON	(PMUVIRT_EVSEL_EN | PMUVIRT_EVSEL_INT | PMUVIRT_EVSEL_USR | PMUVIRT_EVSEL_OS)
#define EMU_TOP		((uint64_t)1 << PMUVIRT_X86_EMU_WIDTH)

static int hw_write(struct emu_rig *r, uint32_t reg, uint64_t val)
{
	return pmuvirt_x86_emu_hw.write_reg(&r->cpu, reg, val);
}

static int hw_read(struct emu_rig *r, uint32_t reg, uint64_t *val)
{
	return pmuvirt_x86_emu_hw.read_reg(&r->cpu, reg, val);
}

/*
 * The adapter arms the host's timer at every successful write for the
 * next wrap of a counter that interrupts, and the fired timer delivers
 * that PMI through the host's callback, then re-arms (capped, or stopped
 * when nothing can interrupt).
 */
static void test_adapter_timer(void **state)
{
	struct emu_rig *r = rig_new();
	uint64_t v;

	(void)state;
	r->no_core = true;
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERFEVTSEL0, EVSEL_ON), 0);
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_A_PMC0, EMU_TOP - 500), 0);
	assert_true(r->deadline == PMUVIRT_X86_EMU_NEVER);	/* not enabled globally yet */
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL, 1), 0);
	assert_true(r->deadline == r->now + 500);
	run(r, 499);
	assert_int_equal(r->pmis, 0);
	run(r, 1);
	assert_int_equal(r->pmis, 1);
	assert_int_equal(r->pmis_at_access, 0);
	assert_int_equal(hw_read(r, PMUVIRT_MSR_IA32_PERF_GLOBAL_STATUS, &v), 0);
	assert_true(v == 1);
	/* the counter starts again at 0: its next wrap is 2^48 away, armed 2^40 out */
	assert_true(r->deadline == r->now + PMUVIRT_X86_EMU_ARM_MAX);
	run(r, PMUVIRT_X86_EMU_ARM_MAX);
	assert_int_equal(r->pmis, 1);
	assert_true(r->deadline == r->now + PMUVIRT_X86_EMU_ARM_MAX);
	/* disabled: the timer stops and no PMI comes */
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL, 0), 0);
	assert_true(r->deadline == PMUVIRT_X86_EMU_NEVER);
	run(r, EMU_TOP * 2);
	assert_int_equal(r->pmis, 1);
	free(r);
}

/*
 * A wrap that an access finds while the host says it is inside a core
 * call raises its PMI at that access; otherwise it waits for the timer,
 * armed to fire at once.
 */
static void test_adapter_pmi_at_access(void **state)
{
	unsigned int pass;
	uint64_t v;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		struct emu_rig *r = rig_new();

		r->no_core = true;
		r->busy = pass == 0;
		assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERFEVTSEL0, EVSEL_ON), 0);
		assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_A_PMC0, EMU_TOP - 10), 0);
		assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL, 1), 0);
		r->now += 20;	/* the timer is late */
		assert_int_equal(pmuvirt_x86_emu_hw.read_counter(&r->cpu, 0, &v), 0);
		assert_true(v == 10);
		if (pass == 0) {
			assert_int_equal(r->pmis, 1);
			assert_int_equal(r->pmis_at_access, 1);
			assert_true(r->deadline == r->now + PMUVIRT_X86_EMU_ARM_MAX);	/* re-armed */
		} else {
			assert_int_equal(r->pmis, 0);
			run(r, 0);
			assert_int_equal(r->pmis, 1);
			assert_int_equal(r->pmis_at_access, 0);
		}
		free(r);
	}
}

/*
 * Strict through the adapter: an unmodelled MSR, a reserved bit, a
 * read-only register or a counter it does not have is -EFAULT, changes
 * no register and arms nothing; CPUID and rdtsc are the model's and the
 * host's.
 */
static void test_adapter_strict(void **state)
{
	struct emu_rig *r = rig_new();
	struct pmuvirt_x86_emu before;
	uint32_t out[4], want[4];
	unsigned int arms;
	uint64_t v;

	(void)state;
	r->no_core = true;
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERFEVTSEL0, EVSEL_ON), 0);
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL, 1), 0);
	r->now += 77;
	assert_int_equal(hw_read(r, PMUVIRT_MSR_IA32_A_PMC0, &v), 0);	/* brings it up to now */
	before = r->cpu.regs;
	arms = r->arms;
	assert_int_equal(hw_read(r, PMUVIRT_MSR_IA32_PERFEVTSEL0 + 2, &v), -EFAULT);
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERFEVTSEL0 + 2, EVSEL_ON), -EFAULT);
	assert_int_equal(hw_write(r, 0x1d9, 0), -EFAULT);	/* IA32_DEBUGCTL */
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 1 | 1ull << 2),
			 -EFAULT);
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_PERF_GLOBAL_STATUS, 0), -EFAULT);
	assert_int_equal(hw_write(r, PMUVIRT_MSR_IA32_A_PMC0, EMU_TOP), -EFAULT);
	assert_int_equal(pmuvirt_x86_emu_hw.read_counter(&r->cpu, 2, &v), -EFAULT);
	assert_int_equal(r->arms, arms);
	assert_memory_equal(&r->cpu.regs, &before, sizeof(before));
	assert_int_equal(hw_read(r, PMUVIRT_MSR_IA32_A_PMC0, &v), 0);
	assert_true(v == 77);
	assert_int_equal(pmuvirt_x86_emu_hw.read_tsc(&r->cpu, &v), 0);
	assert_true(v == r->now);
	assert_int_equal(pmuvirt_x86_emu_hw.read_cpuid(&r->cpu, 0xa, 0, out), 0);
	pmuvirt_x86_emu_cpuid(0xa, 0, want);
	assert_memory_equal(out, want, sizeof(out));
	assert_int_equal(r->pmis, 0);
	free(r);
}

/*
 * Two contexts switched on the emulated PMU: each a-mode count is exactly
 * the ticks it ran, and each i-mode counter delivers floor(count / period)
 * notifications, all through emulated PMIs, none to the other context.
 */
static void test_switching_exact(void **state)
{
	struct emu_rig *r = rig_new();
	struct pmuvirt_control ca, cb;
	struct pmuvirt_ctx *a, *b;
	uint64_t va[3], vb[3], own_a = 0, own_b = 0, slice;
	uint32_t na[PMUVIRT_MAX_COUNTERS], nb[PMUVIRT_MAX_COUNTERS];
	uint64_t got_a = 0, got_b = 0;
	unsigned int i;

	(void)state;
	imode_control(&ca, 1000003);
	imode_control(&cb, 777777);
	a = rig_ctx_new(&r->pmu, &ca);
	b = rig_ctx_new(&r->pmu, &cb);
	for (i = 0; i < 200; i++) {
		slice = 12345 + (uint64_t)i * 7919;
		assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
		run(r, slice);
		own_a += slice;
		assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
		run(r, 2 * slice);
		own_b += 2 * slice;
		if (i % 50 == 0) {
			got_a += pmuvirt_take_overflows(a, na) ? na[1] : 0;
			got_b += pmuvirt_take_overflows(b, nb) ? nb[1] : 0;
		}
	}
	assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
	run(r, 5000);	/* nobody counts now */
	assert_int_equal(pmuvirt_read(a, va), 0);
	assert_int_equal(pmuvirt_read(b, vb), 0);
	assert_int_equal(va[0], own_a);
	assert_int_equal(va[1], own_a);
	assert_int_equal(va[2], own_a);
	assert_int_equal(vb[0], own_b);
	assert_int_equal(vb[1], own_b);
	got_a += pmuvirt_take_overflows(a, na) ? na[1] : 0;
	got_b += pmuvirt_take_overflows(b, nb) ? nb[1] : 0;
	assert_int_equal(got_a, own_a / 1000003);
	assert_int_equal(got_b, own_b / 777777);
	assert_true(r->pmis >= got_a + got_b);	/* delivered by PMIs, not found late */
	pmuvirt_ctx_release(a);
	pmuvirt_ctx_release(b);
	free(a);
	free(b);
	free(r);
}

/* An a-mode count stays exact past 2^48 through the re-basing PMIs. */
static void test_past_width(void **state)
{
	struct emu_rig *r = rig_new();
	struct pmuvirt_control c;
	struct pmuvirt_ctx *a;
	uint64_t v[3], total = 0;
	unsigned int i;

	(void)state;
	imode_control(&c, 0);
	a = rig_ctx_new(&r->pmu, &c);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	for (i = 0; i < 5; i++) {
		run(r, 1ull << 47);
		total += 1ull << 47;
	}
	assert_int_equal(pmuvirt_read(a, v), 0);
	assert_int_equal(v[0], total);
	assert_int_equal(v[1], total);
	assert_true(r->pmis >= 4);
	assert_int_equal(r->ovf, 0);	/* re-basing is no notification */
	assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
	pmuvirt_ctx_release(a);
	free(a);
	free(r);
}

/*
 * A modelled LVTPC: a delivered PMI masks it (Intel); a PMI that finds it
 * masked is lost.  A PMI path that rewrites it unmasked gets every PMI
 * and every notification; one that leaves it masked gets the first only.
 */
static void test_lvtpc(void **state)
{
	struct pmuvirt_control c;
	struct pmuvirt_ctx *a;
	uint32_t n[PMUVIRT_MAX_COUNTERS];
	uint64_t v[3];
	unsigned int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		struct emu_rig *r = rig_new();

		r->unmask = pass == 0;
		assert_false(pmuvirt_x86_emu_lvtpc_masked(&r->cpu.regs));
		pmuvirt_x86_emu_write_lvtpc(&r->cpu.regs, PMUVIRT_X86_EMU_LVTPC_MASKED);
		assert_true(pmuvirt_x86_emu_lvtpc_masked(&r->cpu.regs));
		pmuvirt_x86_emu_write_lvtpc(&r->cpu.regs, 0);
		imode_control(&c, 100000);
		a = rig_ctx_new(&r->pmu, &c);
		assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
		run(r, 1000000);
		assert_int_equal(pmuvirt_read(a, v), 0);
		assert_int_equal(v[0], 1000000);
		pmuvirt_take_overflows(a, n);
		if (pass == 0) {
			assert_int_equal(n[1], 10);
			assert_int_equal(r->cpu.regs.lost, 0);
			assert_false(pmuvirt_x86_emu_lvtpc_masked(&r->cpu.regs));
		} else {
			assert_int_equal(r->pmis, 1);
			assert_int_equal(n[1], 1);
			assert_int_equal(r->cpu.regs.lost, 1);	/* never re-armed after it */
			assert_true(pmuvirt_x86_emu_lvtpc_masked(&r->cpu.regs));
		}
		/* a reset forgets the model: every PMI is delivered again */
		pmuvirt_x86_emu_reset(&r->cpu.regs, r->now);
		assert_false(pmuvirt_x86_emu_lvtpc_masked(&r->cpu.regs));
		assert_int_equal(r->cpu.regs.lost, 0);
		pmuvirt_ctx_release(a);
		free(a);
		free(r);
	}
}

/*
 * A PMI (NMI) may arrive while a thread drains its notifications: a
 * signal handler (an interval timer's) plays the NMI, interrupting
 * pmuvirt_take_overflows() at arbitrary instructions.  Each PMI adds exactly one notification; the
 * drain must return every one of them exactly once.
 */
#define RACE_PERIOD	1000
#define RACE_PMIS	5000

static struct emu_rig *race_rig;
static volatile sig_atomic_t race_pmis, race_bad;

static void race_nmi(int sig)
{
	struct emu_rig *r = race_rig;
	uint32_t mask = 0;

	(void)sig;
	if (race_pmis >= RACE_PMIS)
		return;
	r->now += RACE_PERIOD;	/* exactly one period of events, then its PMI */
	if (!pmuvirt_x86_emu_take_pmi(&r->cpu.regs, r->now) || pmuvirt_pmi(&r->pc, &mask) ||
	    mask != 0x2)
		race_bad = 1;
	race_pmis = race_pmis + 1;
}

static void test_take_during_pmi(void **state)
{
	struct emu_rig *r = rig_new();
	struct pmuvirt_control c;
	struct pmuvirt_ctx *a;
	uint32_t n[PMUVIRT_MAX_COUNTERS];
	struct itimerval it = { { 0, 20 }, { 0, 20 } }, stop = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa, old;
	uint64_t got = 0, takes = 0;

	(void)state;
	imode_control(&c, RACE_PERIOD);	/* the a-mode counter re-bases only after 2^47 */
	a = rig_ctx_new(&r->pmu, &c);
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	race_rig = r;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = race_nmi;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	while (race_pmis < RACE_PMIS) {
		if (pmuvirt_take_overflows(a, n))
			got += n[1];
		takes++;
	}
	setitimer(ITIMER_REAL, &stop, NULL);
	sigaction(SIGALRM, &old, NULL);
	if (pmuvirt_take_overflows(a, n))
		got += n[1];
	print_message("%llu takes, %u PMIs, %llu notifications taken\n",
		      (unsigned long long)takes, (unsigned int)race_pmis, (unsigned long long)got);
	assert_false(race_bad);
	assert_int_equal(got, RACE_PMIS);
	assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
	pmuvirt_ctx_release(a);
	free(a);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_rates_and_mode),
		cmocka_unit_test(test_rates_unit),
		cmocka_unit_test(test_adapter_timer),
		cmocka_unit_test(test_adapter_pmi_at_access),
		cmocka_unit_test(test_adapter_strict),
		cmocka_unit_test(test_switching_exact),
		cmocka_unit_test(test_past_width),
		cmocka_unit_test(test_lvtpc),
		cmocka_unit_test(test_take_during_pmi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
