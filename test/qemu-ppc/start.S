/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Entry of the bare-metal images (big-endian, real mode), shared by the
 * pseries image, the powernv hypervisor image (QPPC_HV) and its guests.
 * VOF (pseries) enters at 0x400000 maybe in 32-bit mode, skiboot
 * (powernv) at the ELF entry in its load area with r3 = device tree, r8 =
 * OPAL base, r9 = OPAL entry, a hypervisor at the guest's real address 0.
 * Set MSR[SF], copy the image to its link address 0 (position-independent
 * code until then), then run C: board_main(r3, r8, r9) of the entry.
 */
#include "asm.h"

#define FRAME	448		/* 112 ABI area + 40 saved doublewords */
#define SAVE(n)	(112 + 8 * (n))	/* r0..r31, then CR LR CTR XER SRR0 SRR1 */

	.section .text.start, "ax"
	.globl _start
_start:
	mr	%r29, %r3		/* the entry's arguments, for board_main() */
	mr	%r30, %r8
	mr	%r31, %r9
	mfmsr	%r11
	li	%r12, 1
	rldicr	%r12, %r12, 63, 0	/* MSR[SF] */
	or	%r11, %r11, %r12
	mtmsrd	%r11
	isync
	bl	1f
1:	mflr	%r3
	addi	%r3, %r3, _start - 1b	/* where we run: the source */
	li	%r4, 0			/* link address: the destination */
	lis	%r5, _image_end@ha
	addi	%r5, %r5, _image_end@l
	srdi	%r5, %r5, 3
	mtctr	%r5
2:	ld	%r6, 0(%r3)
	std	%r6, 0(%r4)
	addi	%r3, %r3, 8
	addi	%r4, %r4, 8
	bdnz	2b
	/* Make the copied code visible to instruction fetch. */
	lis	%r5, _image_end@ha
	addi	%r5, %r5, _image_end@l
	srdi	%r5, %r5, 5
	mtctr	%r5
	li	%r4, 0
3:	dcbst	0, %r4
	addi	%r4, %r4, 32
	bdnz	3b
	sync
	mtctr	%r5
	li	%r4, 0
4:	icbi	0, %r4
	addi	%r4, %r4, 32
	bdnz	4b
	sync
	isync
	lis	%r5, start64@ha
	addi	%r5, %r5, start64@l
	mtctr	%r5
	bctr

/*
 * Every vector: note which one in r3 (old r3 in SPRG1) and report.  The
 * decrementer and the performance monitor are handled and return.  In the
 * hypervisor image (QPPC_HV) the interrupts a guest causes in hypervisor
 * state (hypervisor call, hypervisor decrementer, the 0xe00-0xf80
 * hypervisor interrupts) leave the guest: guest r12 and r13 go to HSPRG0
 * and HSPRG1, r13 holds the vector, and hv_exit_srr/hv_exit_hsrr (in the
 * hypervisor's own code) save the rest.  Vectors from 0xe00 on are 0x20
 * bytes apart: eight instructions each at most.
 */
	.section .text.vectors, "ax"
	.macro trapvec n
	.org	\n - 0x100
	mtspr	SPRG1, %r3
	li	%r3, \n
	b	trap_common
	.endm
	.macro irqvec n
	.org	\n - 0x100
	mtspr	SPRG1, %r1
	mtspr	SPRG2, %r3
	li	%r3, \n
	b	irq_common
	.endm
#ifdef QPPC_HV
	.macro hvexit n, how
	.org	\n - 0x100
	mtspr	HSPRG0, %r12
	mtspr	HSPRG1, %r13
	li	%r13, \n
	b	hv_exit_\how
	.endm
#else
	.macro hvexit n, how
	trapvec	\n
	.endm
#endif
	trapvec	0x100
	trapvec	0x200
	trapvec	0x300
	trapvec	0x380
	trapvec	0x400
	trapvec	0x480
	hvexit	0x500, hsrr
	trapvec	0x600
	trapvec	0x700
	trapvec	0x800
	irqvec	0x900
	hvexit	0x980, hsrr
	trapvec	0xa00
	trapvec	0xb00
	hvexit	0xc00, srr
	trapvec	0xd00
	hvexit	0xe00, hsrr
	hvexit	0xe20, hsrr
	hvexit	0xe40, hsrr
	hvexit	0xe60, hsrr
	hvexit	0xe80, hsrr
	hvexit	0xea0, hsrr
	irqvec	0xf00
	trapvec	0xf20
	trapvec	0xf40
	trapvec	0xf60
	hvexit	0xf80, hsrr

	.text
/* For C: a stack below \top (r0 = 0, the back chain) and the TOC pointer. */
	.macro c_stack top
	lis	%r1, \top@ha
	addi	%r1, %r1, \top@l
	li	%r0, 0
	stdu	%r0, -128(%r1)
	lis	%r2, .TOC.@ha
	addi	%r2, %r2, .TOC.@l
	.endm

start64:
	c_stack	_stack_top
	lis	%r3, _bss_start@ha
	addi	%r3, %r3, _bss_start@l
	lis	%r4, _bss_end@ha
	addi	%r4, %r4, _bss_end@l
5:	cmpld	%r3, %r4
	bge	6f
	std	%r0, 0(%r3)
	addi	%r3, %r3, 8
	b	5b
6:	mr	%r3, %r29
	mr	%r4, %r30
	mr	%r5, %r31
	bl	board_main
	nop
7:	b	7b

/* A handled interrupt: save everything, call board_irq(vec, frame), return. */
irq_common:
	lis	%r1, _irq_stack_top@ha
	addi	%r1, %r1, _irq_stack_top@l
	addi	%r1, %r1, -FRAME
	.irp	n, 0,2,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	std	%r\n, SAVE(\n)(%r1)
	.endr
	save_sprs %r0, %r1, SPRG1, SAVE(1), SPRG2, SAVE(3)
	mfcr	%r0
	std	%r0, SAVE(32)(%r1)
	save_sprs %r0, %r1, LR, SAVE(33), CTR, SAVE(34), XER, SAVE(35), SRR0, SAVE(36), \
		  SRR1, SAVE(37)
	li	%r0, 0
	std	%r0, 0(%r1)
	lis	%r2, .TOC.@ha
	addi	%r2, %r2, .TOC.@l
	mr	%r4, %r1
	bl	board_irq
	nop
	restore_sprs %r0, %r1, SRR1, SAVE(37), SRR0, SAVE(36), XER, SAVE(35), CTR, SAVE(34), \
		     LR, SAVE(33)
	ld	%r0, SAVE(32)(%r1)
	mtcr	%r0
	.irp	n, 0,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	ld	%r\n, SAVE(\n)(%r1)
	.endr
	ld	%r1, SAVE(1)(%r1)
	rfid

/* An unexpected interrupt: report it on the trap stack; never returns. */
trap_common:
	mfsrr0	%r4
	mfsrr1	%r5
	mr	%r6, %r1
#ifdef QPPC_HV
	mfspr	%r7, HSRR0
	mfspr	%r8, HSRR1
#else
	li	%r7, 0
	li	%r8, 0
#endif
	c_stack	_trap_stack_top
	bl	board_trap
	nop
8:	b	8b
