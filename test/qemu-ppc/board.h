/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Services of the bare-metal images: console, power-off, interrupts.
 * board.c is common; each image links one platform: pseries.c (VOF and
 * RTAS on QEMU's sPAPR), ../qemu-pnv/opal.c (skiboot's OPAL on powernv) or
 * ../qemu-pnv/guest.c (a guest of the powernv hypervisor image).
 */
#ifndef QPPC_BOARD_H
#define QPPC_BOARD_H

#include "pmuvirt_env.h"

#define QPPC_MARKER	"PMUVIRT-QEMU-PPC"

/* sPAPR hypercalls (PAPR; the 0xf000 range is QEMU's). */
#define H_PUT_TERM_CHAR	0x58
#define H_RTAS		0xf000
#define H_VOF_CLIENT	0xf005

/* MSR bits (64-bit register) */
#define MSR_SF		(1ull << 63)
#define MSR_HV		(1ull << 60)
#define MSR_EE		(1ull << 15)
#define MSR_PR		(1ull << 14)
#define MSR_ME		(1ull << 12)
#define MSR_RI		(1ull << 1)

/* sc 1 with r3 = @op, r4-r7 = @a1-@a4; returns r3, and r4-r7 in @out if not NULL. */
long hcall_out(unsigned long op, unsigned long a1, unsigned long a2, unsigned long a3,
	       unsigned long a4, unsigned long out[4]);
long hcall(unsigned long op, unsigned long a1, unsigned long a2,
	   unsigned long a3, unsigned long a4);

/* The platform: r3, r8 and r9 of the image's entry (see start.S). */
void board_init(uint64_t r3, uint64_t r8, uint64_t r9);
/* The platform's console: up to 16 bytes. */
void board_write(const char *buf, unsigned int len);

void kputs(const char *s);
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Power off with QEMU exit status 0 (pass) or 1 (fail). */
void board_exit(bool pass) __attribute__((noreturn));

/*
 * The performance monitor interrupt (0xf00) calls this, with MSR[EE]
 * off; board_irqs counts decrementer [0] and PMU [1] interrupts.  Without
 * a hook the counters are frozen.
 */
extern void (*board_pmi_hook)(void);
extern uint64_t board_irqs[2];

/* n >= 1 iterations of a two-instruction loop, MSR[EE] on: 2n + a constant. */
void qppc_spin(uint64_t n);

/* Deterministic pseudo-random numbers (xorshift); *@s must not be 0. */
uint64_t qppc_xorshift(uint64_t *s);

void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);

#endif
