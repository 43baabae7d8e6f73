/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Services of the bare-metal pseries test image: console, power-off. */
#ifndef QPPC_BOARD_H
#define QPPC_BOARD_H

#include "pmuvirt_env.h"

#define QPPC_MARKER	"PMUVIRT-QEMU-PPC"

/* sPAPR hypercalls (PAPR; the 0xf000 range is QEMU's). */
#define H_PUT_TERM_CHAR	0x58
#define H_RTAS		0xf000
#define H_VOF_CLIENT	0xf005

long hcall(unsigned long op, unsigned long a1, unsigned long a2,
	   unsigned long a3, unsigned long a4);

void board_init(void);
void kputs(const char *s);
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Power off with QEMU exit status 0 (pass) or 1 (fail). */
void board_exit(bool pass) __attribute__((noreturn));

/*
 * The performance monitor interrupt (0xf00) calls this, with MSR[EE]
 * off; board_irqs counts decrementer [0] and PMU [1] interrupts.
 */
extern void (*board_pmi_hook)(void);
extern uint64_t board_irqs[2];

void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);

#endif
