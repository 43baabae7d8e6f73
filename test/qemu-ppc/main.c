/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* The bare-metal test image: POWER PMU on QEMU pseries, then pmuvirt on it. */
#include "board.h"
#include "spr.h"
#include "tests.h"

static int failures;

void check(bool ok, const char *what)
{
	kprintf("  %s: %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

/*
 * Run a two-instruction loop of @n iterations (n >= 1) with the counters
 * unfrozen only around it; return PMC5 (instructions), PMC6 in @cyc.
 */
static uint64_t count_loop(uint64_t n, uint64_t *cyc)
{
	uint64_t scratch = 0;

	mtspr(SPR_MMCR0, MMCR0_FC);
	mtspr(SPR_PMC5, 0);
	mtspr(SPR_PMC6, 0);
	__asm__ __volatile__(
		"mtctr	%[n]\n\t"
		"mtspr	795, %[run]\n\t"
		"1:	addi	%[s], %[s], 1\n\t"
		"bdnz	1b\n\t"
		"mtspr	795, %[fc]\n\t"
		: [s] "+r"(scratch)
		: [n] "r"(n), [run] "r"(0ul), [fc] "r"((uint64_t)MMCR0_FC)
		: "ctr", "memory");
	*cyc = mfspr(SPR_PMC6);
	return mfspr(SPR_PMC5);
}

static void milestone_raw_pmu(void)
{
	static const uint64_t ns[] = { 1, 10, 1000, 100000, 3000000 };
	uint64_t c0 = 0, cyc, v, frozen, tb;
	unsigned int i;
	bool linear = true;

	kprintf("raw PMU: PVR %llx, MMCR0 %llx\n", mfspr(SPR_PVR), mfspr(SPR_MMCR0));
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		v = count_loop(ns[i], &cyc);
		kprintf("  loop n=%llu: PMC5 %llu = 2n + %lld, PMC6 %llu\n", ns[i], v,
			(long long)(v - 2 * ns[i]), cyc);
		if (i == 0)
			c0 = v - 2 * ns[i];
		else if (v - 2 * ns[i] != c0)
			linear = false;
	}
	check(linear, "PMC5 counts exactly 2n + const instructions");
	tb = mftb();
	count_loop(1000000, &cyc);
	tb = mftb() - tb;
	kprintf("  time base: %llu ticks around 2000000 instructions\n", tb);
	check(tb >= 1024000 && tb < 1024000 + 200, "time base ticks 0.512 per instruction (-icount shift=0)");
	kprintf("  const = %llu\n", c0);

	frozen = mfspr(SPR_PMC5);
	count_loop(1, &cyc);
	mtspr(SPR_PMC5, 12345);
	for (i = 0; i < 1000; i++)
		__asm__ __volatile__("" ::: "memory");
	check(mfspr(SPR_PMC5) == 12345, "MMCR0[FC] freezes PMC5");
	(void)frozen;
}

void board_main(uint64_t r3, uint64_t r8, uint64_t r9)
{
	board_init(r3, r8, r9);
	kprintf("%s: start\n", QPPC_MARKER);
	milestone_raw_pmu();
	tests_pmuvirt();
#ifdef QPPC_FORCE_TRAP
	__asm__ __volatile__(".long 0");	/* illegal: program interrupt */
#endif
#ifdef QPPC_FORCE_FAIL
	check(false, "forced failure (QPPC_FORCE_FAIL)");
#endif
	kprintf("%s: %d failure(s)\n", QPPC_MARKER, failures);
	board_exit(failures == 0);
}
