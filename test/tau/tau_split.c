// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * tau_split: a program instrumented with TAU's API whose two timed
 * functions split its work 3:1.  hot_a runs 3N and hot_b N iterations of
 * "dec; jnz" (two instructions each), ROUNDS times, alternating; TAU's
 * pprof must show hot_a's exclusive PAPI_TOT_INS (and PAPI_TOT_CYC, which
 * the emulated PMUs count in instructions too) three times hot_b's.
 *
 * usage: tau_split [N [ROUNDS]]   (default 1000000 and 100)
 */
#include <stdint.h>
#include <stdlib.h>
#include <TAU.h>

static void loop(uint64_t n)
{
	if (!n)
		return;
	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
}

static void __attribute__((noinline)) hot_a(uint64_t n)
{
	TAU_START("hot_a");
	loop(3 * n);
	TAU_STOP("hot_a");
}

static void __attribute__((noinline)) hot_b(uint64_t n)
{
	TAU_START("hot_b");
	loop(n);
	TAU_STOP("hot_b");
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	unsigned long rounds = argc > 2 ? strtoul(argv[2], NULL, 0) : 100, i;

	TAU_PROFILE_INIT(argc, argv);
	TAU_PROFILE_SET_NODE(0);
	for (i = 0; i < rounds; i++) {
		hot_a(n);
		hot_b(n);
	}
	return 0;
}
