/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Entry of the bare-metal test image (big-endian, real mode).  VOF enters
 * at 0x400000, maybe in 32-bit mode: set MSR[SF], copy the image to its
 * link address 0 (position-independent code until then), then run C.
 */
#define SPRG1	273

	.section .text.start, "ax"
	.globl _start
_start:
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

/* Every vector: note which one in r3 (old r3 in SPRG1) and report. */
	.section .text.vectors, "ax"
	.macro vec n
	.balign	0x80
	mtspr	SPRG1, %r3
	li	%r3, \n
	b	trap_common
	.endm
	vec 0x100
	vec 0x180
	vec 0x200
	vec 0x280
	vec 0x300
	vec 0x380
	vec 0x400
	vec 0x480
	vec 0x500
	vec 0x580
	vec 0x600
	vec 0x680
	vec 0x700
	vec 0x780
	vec 0x800
	vec 0x880
	vec 0x900
	vec 0x980
	vec 0xa00
	vec 0xa80
	vec 0xb00
	vec 0xb80
	vec 0xc00
	vec 0xc80
	vec 0xd00
	vec 0xd80
	vec 0xe00
	vec 0xe80
	vec 0xf00
	vec 0xf80

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
6:	bl	board_main
	nop
7:	b	7b

/* An unexpected interrupt: report it on the trap stack; never returns. */
trap_common:
	mfsrr0	%r4
	mfsrr1	%r5
	mr	%r6, %r1
	lis	%r1, _trap_stack_top@ha
	addi	%r1, %r1, _trap_stack_top@l
	li	%r0, 0
	stdu	%r0, -128(%r1)
	lis	%r2, .TOC.@ha
	addi	%r2, %r2, .TOC.@l
	bl	board_trap
	nop
8:	b	8b
