/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * powernv: console and power-off through skiboot's OPAL.  skiboot enters
 * the image with r8 = OPAL base and r9 = OPAL entry (start.S passes them to
 * board_main()); an OPAL call is a branch to the entry with the token in r0,
 * arguments in r3 up, r2 = OPAL base, in hypervisor real mode, big-endian,
 * interrupts off.  Failure checkstops the machine with attn (HID0 enables it
 * on POWER8): a guest panic for QEMU, which exits with status 1
 * (-action panic=exit-failure; under -icount QEMU 10.0 also prints "Bad
 * icount read" on the way out).
 */
#include "board.h"

#define OPAL_CONSOLE_WRITE	1
#define OPAL_CEC_POWER_DOWN	5
#define OPAL_POLL_EVENTS	10
#define OPAL_SUCCESS		0
#define SPR_HID0		1008
#define HID0_ENABLE_ATTN	(1ull << 32)	/* POWER8 HID0 bit 31 */

static uint64_t opal_base, opal_entry;

static long opal_call(long token, uint64_t a0, uint64_t a1, uint64_t a2)
{
	register uint64_t r0 __asm__("r0") = (uint64_t)token;
	register uint64_t r3 __asm__("r3") = a0;
	register uint64_t r4 __asm__("r4") = a1;
	register uint64_t r5 __asm__("r5") = a2;
	register uint64_t r12 __asm__("r12") = opal_entry;
	register uint64_t r11 __asm__("r11") = opal_base;

	/* OPAL keeps r1 and r14-r31; r2 is ours again after the call. */
	__asm__ __volatile__("std	%%r2, 40(%%r1)\n\t"
			     "mr	%%r2, %[base]\n\t"
			     "mtctr	%[entry]\n\t"
			     "bctrl\n\t"
			     "ld	%%r2, 40(%%r1)"
			     : "+r"(r0), "+r"(r3), "+r"(r4), "+r"(r5), [entry] "+r"(r12),
			       [base] "+r"(r11)
			     :
			     : "r6", "r7", "r8", "r9", "r10", "lr", "ctr", "xer", "cr0", "cr1",
			       "cr5", "cr6", "cr7", "memory");
	return (long)r3;
}

void board_init(uint64_t r3, uint64_t r8, uint64_t r9)
{
	opal_base = r8;
	opal_entry = r9;
	/* No decrementer interrupt while MSR[EE] is on (4 s of virtual time). */
	__asm__ __volatile__("mtdec %0" : : "r"(0x7fffffffu));
	kprintf("board: powernv, device tree at %llx, OPAL base %llx entry %llx\n", r3, r8, r9);
}

void board_write(const char *buf, unsigned int len)
{
	uint64_t n;

	while (len) {
		n = len;
		if (opal_call(OPAL_CONSOLE_WRITE, 0, (uintptr_t)&n, (uintptr_t)buf) != OPAL_SUCCESS ||
		    n > len)
			n = 0;
		buf += n;
		len -= (unsigned int)n;
		if (len)
			opal_call(OPAL_POLL_EVENTS, 0, 0, 0);
	}
}

void board_exit(bool pass)
{
	kprintf("%s: %s\n", QPPC_MARKER, pass ? "PASS" : "FAIL");
	if (!pass) {
		uint64_t hid0;

		__asm__ __volatile__("mfspr %0, %1" : "=r"(hid0) : "i"(SPR_HID0));
		hid0 |= HID0_ENABLE_ATTN;
		__asm__ __volatile__("mtspr %0, %1\n\t"
				     "isync\n\t"
				     ".long 0x00000200"	/* attn */
				     : : "i"(SPR_HID0), "r"(hid0) : "memory");
		kputs("board: attn returned\n");
		for (;;)
			;
	}
	/* The BMC powers the machine off while OPAL's pollers run. */
	opal_call(OPAL_CEC_POWER_DOWN, 0, 0, 0);
	for (;;)
		opal_call(OPAL_POLL_EVENTS, 0, 0, 0);
}
