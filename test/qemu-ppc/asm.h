/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Assembler helpers of the bare-metal images (start.S and
 * test/qemu-pnv/hventry.S): SPR numbers and SPR save/restore.
 */
#ifndef QPPC_ASM_H
#define QPPC_ASM_H

#define XER	1
#define LR	8
#define CTR	9
#define SRR0	26
#define SRR1	27
#define SPRG1	273
#define SPRG2	274
#define HSPRG0	304
#define HSPRG1	305
#define HSRR0	314
#define HSRR1	315

/*
 * Through register \tmp: each SPR to its offset from \base, and back
 * (arguments after \base: pairs of SPR and offset).
 */
	.macro save_sprs tmp, base, spr, off, more:vararg
	mfspr	\tmp, \spr
	std	\tmp, \off(\base)
	.ifnb	\more
	save_sprs \tmp, \base, \more
	.endif
	.endm

	.macro restore_sprs tmp, base, spr, off, more:vararg
	ld	\tmp, \off(\base)
	mtspr	\spr, \tmp
	.ifnb	\more
	restore_sprs \tmp, \base, \more
	.endif
	.endm

#endif
