/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Hypervisor calls (sc 1) and a console through H_PUT_TERM_CHAR: QEMU's
 * sPAPR serves them for the pseries image, the powernv hypervisor image for
 * its guests.
 */
#include "board.h"

long hcall_out(unsigned long op, unsigned long a1, unsigned long a2, unsigned long a3,
	       unsigned long a4, unsigned long out[4])
{
	register unsigned long r3 __asm__("r3") = op;
	register unsigned long r4 __asm__("r4") = a1;
	register unsigned long r5 __asm__("r5") = a2;
	register unsigned long r6 __asm__("r6") = a3;
	register unsigned long r7 __asm__("r7") = a4;

	__asm__ __volatile__("sc 1"
			     : "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7)
			     :
			     : "r0", "r8", "r9", "r10", "r11", "r12", "cr0", "cr1",
			       "cr5", "cr6", "cr7", "ctr", "xer", "memory");
	if (out) {
		out[0] = r4;
		out[1] = r5;
		out[2] = r6;
		out[3] = r7;
	}
	return r3;
}

long hcall(unsigned long op, unsigned long a1, unsigned long a2,
	   unsigned long a3, unsigned long a4)
{
	return hcall_out(op, a1, a2, a3, a4, NULL);
}

void board_write(const char *buf, unsigned int len)
{
	uint64_t w[2] = { 0, 0 };

	memcpy(w, buf, len);	/* big-endian: first char in the top byte */
	while (hcall(H_PUT_TERM_CHAR, 0, len, w[0], w[1]) != 0)
		;
}
