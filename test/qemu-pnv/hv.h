/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Entering a guest and leaving it (hventry.S), shared with hv.c. */
#ifndef QPNV_HV_H
#define QPNV_HV_H

/* struct hv_regs offsets */
#define HVR_GPR(n)	(8 * (n))
#define HVR_CR		256
#define HVR_LR		264
#define HVR_CTR		272
#define HVR_XER		280
#define HVR_PC		288
#define HVR_MSR		296
#define HVR_EXIT	304
#define HVR_HSP		312
#define HVR_SIZE	320

#ifndef __ASSEMBLER__
#include "pmuvirt_env.h"

/**
 * struct hv_regs - a guest's registers while the hypervisor runs
 * @gpr, @cr, @lr, @ctr, @xer: as the guest left them.
 * @pc, @msr:	where and in which state it resumes (SRR0/SRR1 of a
 *		hypervisor call, HSRR0/HSRR1 of the other exits).
 * @exit:	vector of the last exit.
 * @hsp:	the hypervisor's stack pointer while the guest runs.
 */
struct hv_regs {
	uint64_t gpr[32];
	uint64_t cr, lr, ctr, xer, pc, msr, exit, hsp;
};

_Static_assert(__builtin_offsetof(struct hv_regs, cr) == HVR_CR, "hv_regs");
_Static_assert(__builtin_offsetof(struct hv_regs, pc) == HVR_PC, "hv_regs");
_Static_assert(__builtin_offsetof(struct hv_regs, exit) == HVR_EXIT, "hv_regs");
_Static_assert(__builtin_offsetof(struct hv_regs, hsp) == HVR_HSP, "hv_regs");
_Static_assert(sizeof(struct hv_regs) == HVR_SIZE, "hv_regs");

/*
 * Run the guest whose registers are @r (hrfid to @r->pc in state @r->msr)
 * until it leaves; return the vector it left by.  Interrupts stay off in
 * the hypervisor.
 */
unsigned long hv_enter(struct hv_regs *r);
#endif

#endif
