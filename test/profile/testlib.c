// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The shared library of test_profile_symbols' test ELF: two functions,
 * hidden so that their addresses are their code (a position-dependent
 * executable would see exported ones at its own PLT entries).
 */
__attribute__((noinline, visibility("hidden"))) void prof_lib_x(void)
{
	__asm__ __volatile__("nop\n\tnop" ::: "memory");
}

__attribute__((noinline, visibility("hidden"))) void prof_lib_y(void)
{
	__asm__ __volatile__("nop\n\tnop\n\tnop" ::: "memory");
}

void prof_lib_addrs(void (**x)(void), void (**y)(void))
{
	prof_lib_x();
	*x = prof_lib_x;
	*y = prof_lib_y;
}
