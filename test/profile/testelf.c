// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The test ELF of test_profile_symbols, built at test time as a PIE and as
 * a position-dependent executable, both linked to libprofile_testlib.so:
 * prints "ADDRESS NAME" for functions of its own and of the library (an
 * address inside each too), then its /proc/self/maps, and exits.  The
 * test resolves the addresses after the process is gone.
 */
#include <stdint.h>
#include <stdio.h>

void prof_lib_addrs(void (**x)(void), void (**y)(void));

__attribute__((noinline)) void prof_exe_a(void)
{
	__asm__ __volatile__("nop\n\tnop" ::: "memory");
}

__attribute__((noinline)) static void prof_exe_static_b(void)
{
	__asm__ __volatile__("nop\n\tnop\n\tnop\n\tnop" ::: "memory");
}

static void show(const char *name, void (*fn)(void))
{
	printf("%llx %s\n", (unsigned long long)(uintptr_t)fn, name);
	printf("%llx %s\n", (unsigned long long)(uintptr_t)fn + 1, name);
}

int main(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	void (*x)(void), (*y)(void);
	int c;

	prof_exe_a();
	prof_exe_static_b();
	prof_lib_addrs(&x, &y);
	show("prof_exe_a", prof_exe_a);
	show("prof_exe_static_b", prof_exe_static_b);
	show("prof_lib_x", x);
	show("prof_lib_y", y);
	printf("maps\n");
	while (f && (c = fgetc(f)) != EOF)
		putchar(c);
	return f ? 0 : 1;
}
