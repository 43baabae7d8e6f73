/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * hv_enter() runs a guest; the vectors of start.S (built with QPPC_HV)
 * come back here when the guest leaves: hv_exit_srr for a hypervisor call
 * (SRR0/SRR1), hv_exit_hsrr for the hypervisor interrupts (HSRR0/HSRR1),
 * with guest r12/r13 in HSPRG0/HSPRG1 and the vector in r13.  The guest's
 * registers go to *hv_cur and hv_enter() returns the vector.
 */
#include "asm.h"
#include "hv.h"

#define FRAME	272		/* 112 ABI area, r14-r31, r2 */
#define NV(n)	(112 + 8 * ((n) - 14))
#define TOC	(112 + 8 * 18)

	.text
	.globl	hv_enter
hv_enter:
	mflr	%r0
	std	%r0, 16(%r1)
	mfcr	%r12
	std	%r12, 8(%r1)
	stdu	%r1, -FRAME(%r1)
	.irp	n, 14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	std	%r\n, NV(\n)(%r1)
	.endr
	std	%r2, TOC(%r1)
	std	%r1, HVR_HSP(%r3)
	lis	%r4, hv_cur@ha
	std	%r3, hv_cur@l(%r4)
	restore_sprs %r4, %r3, HSRR0, HVR_PC, HSRR1, HVR_MSR
	ld	%r4, HVR_CR(%r3)
	mtcr	%r4
	restore_sprs %r4, %r3, LR, HVR_LR, CTR, HVR_CTR, XER, HVR_XER
	.irp	n, 0,1,2,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	ld	%r\n, HVR_GPR(\n)(%r3)
	.endr
	ld	%r3, HVR_GPR(3)(%r3)
	hrfid

/* Where the guest resumes: SRR0/SRR1 or HSRR0/HSRR1 of the interrupt. */
	.macro	hvexit name, pc, msr
	.globl	\name
\name:
	lis	%r12, hv_cur@ha
	ld	%r12, hv_cur@l(%r12)
	std	%r13, HVR_EXIT(%r12)
	mfspr	%r13, \pc
	std	%r13, HVR_PC(%r12)
	mfspr	%r13, \msr
	std	%r13, HVR_MSR(%r12)
	.endm

	hvexit	hv_exit_srr, SRR0, SRR1
	b	hv_exit_common
	hvexit	hv_exit_hsrr, HSRR0, HSRR1

hv_exit_common:
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	std	%r\n, HVR_GPR(\n)(%r12)
	.endr
	save_sprs %r13, %r12, HSPRG0, HVR_GPR(12), HSPRG1, HVR_GPR(13)
	mfcr	%r13
	std	%r13, HVR_CR(%r12)
	save_sprs %r13, %r12, LR, HVR_LR, CTR, HVR_CTR, XER, HVR_XER
	ld	%r1, HVR_HSP(%r12)
	ld	%r2, TOC(%r1)
	.irp	n, 14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	ld	%r\n, NV(\n)(%r1)
	.endr
	ld	%r3, HVR_EXIT(%r12)
	addi	%r1, %r1, FRAME
	ld	%r0, 16(%r1)
	mtlr	%r0
	ld	%r0, 8(%r1)
	mtcr	%r0
	blr

	.data
	.balign	8
	.globl	hv_cur
hv_cur:
	.quad	0
