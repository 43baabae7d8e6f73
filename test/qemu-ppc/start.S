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
#define SPRG1	273
#define SPRG2	274
#define HSPRG0	304
#define HSPRG1	305
#define HSRR0	314
#define HSRR1	315
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
start64:
	lis	%r1, _stack_top@ha
	addi	%r1, %r1, _stack_top@l
	li	%r0, 0
	stdu	%r0, -128(%r1)
	lis	%r2, .TOC.@ha
	addi	%r2, %r2, .TOC.@l
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
	std	%r0, SAVE(0)(%r1)
	std	%r2, SAVE(2)(%r1)
	std	%r4, SAVE(4)(%r1)
	std	%r5, SAVE(5)(%r1)
	std	%r6, SAVE(6)(%r1)
	std	%r7, SAVE(7)(%r1)
	std	%r8, SAVE(8)(%r1)
	std	%r9, SAVE(9)(%r1)
	std	%r10, SAVE(10)(%r1)
	std	%r11, SAVE(11)(%r1)
	std	%r12, SAVE(12)(%r1)
	std	%r13, SAVE(13)(%r1)
	std	%r14, SAVE(14)(%r1)
	std	%r15, SAVE(15)(%r1)
	std	%r16, SAVE(16)(%r1)
	std	%r17, SAVE(17)(%r1)
	std	%r18, SAVE(18)(%r1)
	std	%r19, SAVE(19)(%r1)
	std	%r20, SAVE(20)(%r1)
	std	%r21, SAVE(21)(%r1)
	std	%r22, SAVE(22)(%r1)
	std	%r23, SAVE(23)(%r1)
	std	%r24, SAVE(24)(%r1)
	std	%r25, SAVE(25)(%r1)
	std	%r26, SAVE(26)(%r1)
	std	%r27, SAVE(27)(%r1)
	std	%r28, SAVE(28)(%r1)
	std	%r29, SAVE(29)(%r1)
	std	%r30, SAVE(30)(%r1)
	std	%r31, SAVE(31)(%r1)
	mfspr	%r0, SPRG1
	std	%r0, SAVE(1)(%r1)
	mfspr	%r0, SPRG2
	std	%r0, SAVE(3)(%r1)
	mfcr	%r0
	std	%r0, SAVE(32)(%r1)
	mflr	%r0
	std	%r0, SAVE(33)(%r1)
	mfctr	%r0
	std	%r0, SAVE(34)(%r1)
	mfxer	%r0
	std	%r0, SAVE(35)(%r1)
	mfsrr0	%r0
	std	%r0, SAVE(36)(%r1)
	mfsrr1	%r0
	std	%r0, SAVE(37)(%r1)
	li	%r0, 0
	std	%r0, 0(%r1)
	lis	%r2, .TOC.@ha
	addi	%r2, %r2, .TOC.@l
	mr	%r4, %r1
	bl	board_irq
	nop
	ld	%r0, SAVE(37)(%r1)
	mtsrr1	%r0
	ld	%r0, SAVE(36)(%r1)
	mtsrr0	%r0
	ld	%r0, SAVE(35)(%r1)
	mtxer	%r0
	ld	%r0, SAVE(34)(%r1)
	mtctr	%r0
	ld	%r0, SAVE(33)(%r1)
	mtlr	%r0
	ld	%r0, SAVE(32)(%r1)
	mtcr	%r0
	ld	%r0, SAVE(0)(%r1)
	ld	%r2, SAVE(2)(%r1)
	ld	%r3, SAVE(3)(%r1)
	ld	%r4, SAVE(4)(%r1)
	ld	%r5, SAVE(5)(%r1)
	ld	%r6, SAVE(6)(%r1)
	ld	%r7, SAVE(7)(%r1)
	ld	%r8, SAVE(8)(%r1)
	ld	%r9, SAVE(9)(%r1)
	ld	%r10, SAVE(10)(%r1)
	ld	%r11, SAVE(11)(%r1)
	ld	%r12, SAVE(12)(%r1)
	ld	%r13, SAVE(13)(%r1)
	ld	%r14, SAVE(14)(%r1)
	ld	%r15, SAVE(15)(%r1)
	ld	%r16, SAVE(16)(%r1)
	ld	%r17, SAVE(17)(%r1)
	ld	%r18, SAVE(18)(%r1)
	ld	%r19, SAVE(19)(%r1)
	ld	%r20, SAVE(20)(%r1)
	ld	%r21, SAVE(21)(%r1)
	ld	%r22, SAVE(22)(%r1)
	ld	%r23, SAVE(23)(%r1)
	ld	%r24, SAVE(24)(%r1)
	ld	%r25, SAVE(25)(%r1)
	ld	%r26, SAVE(26)(%r1)
	ld	%r27, SAVE(27)(%r1)
	ld	%r28, SAVE(28)(%r1)
	ld	%r29, SAVE(29)(%r1)
	ld	%r30, SAVE(30)(%r1)
	ld	%r31, SAVE(31)(%r1)
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
	lis	%r1, _trap_stack_top@ha
	addi	%r1, %r1, _trap_stack_top@l
	li	%r0, 0
	stdu	%r0, -128(%r1)
	lis	%r2, .TOC.@ha
	addi	%r2, %r2, .TOC.@l
	bl	board_trap
	nop
8:	b	8b
