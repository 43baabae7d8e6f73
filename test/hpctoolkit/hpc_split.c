// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * hpc_split: an uninstrumented program whose two functions split its work
 * 3:1, for sampling profilers.  hot_a runs 3N and hot_b N iterations of
 * "dec; jnz" (two instructions each), ROUNDS times, alternating.  Both
 * loops start on a 32-byte boundary so that, on a real CPU too, an
 * iteration costs the same in either.
 *
 * usage: hpc_split [N [ROUNDS]]   (default 1000000 and 100)
 */
#include <stdint.h>
#include <stdlib.h>

static inline void loop(uint64_t n)
{
	if (!n)
		return;
	asm volatile(".p2align 5\n1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
}

void __attribute__((noinline)) hot_a(uint64_t n)
{
	loop(3 * n);
}

void __attribute__((noinline)) hot_b(uint64_t n)
{
	loop(n);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	unsigned long rounds = argc > 2 ? strtoul(argv[2], NULL, 0) : 100, i;

	for (i = 0; i < rounds; i++) {
		hot_a(n);
		hot_b(n);
	}
	return 0;
}
