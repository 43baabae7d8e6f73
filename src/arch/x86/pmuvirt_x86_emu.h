/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * An emulated Intel PMU: a test instrument for hosts whose CPUs have no PMU
 * (QEMU's TCG models).  It describes Intel architectural perfmon v2 with
 * two 48-bit general counters, one fixed counter (instructions) and
 * full-width writes, and implements exactly those registers, strictly:
 * any other register, a reserved bit or a write to a read-only register
 * fails as a #GP would.  Counters count the host's clock ticks (the TSC):
 * the fixed counter (instructions) and every general event one per tick,
 * except branches (event 0xc4) one per PMUVIRT_X86_EMU_BRANCH_TICKS ticks,
 * branch misses (0xc5) one per PMUVIRT_X86_EMU_BRMISS_TICKS, last-level
 * cache references (0x2e, unit mask 0x4f) one per
 * PMUVIRT_X86_EMU_LLCREF_TICKS and misses (0x2e/0x41) one per
 * PMUVIRT_X86_EMU_LLCMISS_TICKS, the remainder carried from one access to
 * the next.  A host that tells the emulator the CPU's privilege mode
 * (pmuvirt_x86_emu_set_mode()) gets the user/kernel filter honoured: a
 * counter counts only in the modes its USR and OS bits select; a host that
 * never does counts every enabled counter whatever its filter.  A counter
 * that wraps with its interrupt bit set sets its GLOBAL_STATUS bit and
 * makes a PMI pending, which the host raises from a timer.
 *
 * A host may also model the LVT entry of the PMI (LVTPC) as Intel's local
 * APIC has it: once it writes LVTPC (pmuvirt_x86_emu_write_lvtpc()), a
 * delivered PMI sets the mask bit, a PMI while the entry is masked is lost
 * (counted in @lost).  A host that never writes it gets every PMI.
 *
 * The host keeps one struct pmuvirt_x86_emu per CPU, passes the current
 * tick count to every call, and arms a timer from
 * pmuvirt_x86_emu_next_pmi().  The register adapter (emu_hw.c) does that
 * for the backend: pmuvirt_x86_emu_hw and pmuvirt_x86_emu_timer() with the
 * host's callbacks (struct pmuvirt_x86_emu_host).
 */
#ifndef PMUVIRT_X86_EMU_H
#define PMUVIRT_X86_EMU_H

#include <pmuvirt/pmuvirt.h>

#define PMUVIRT_X86_EMU_GP	2
#define PMUVIRT_X86_EMU_WIDTH	48
#define PMUVIRT_X86_EMU_NR	(PMUVIRT_X86_EMU_GP + 1)	/* the last is fixed counter 0 */

/* Ticks per event of the events that do not count one per tick. */
#define PMUVIRT_X86_EMU_BRANCH_TICKS	5
#define PMUVIRT_X86_EMU_BRMISS_TICKS	97
#define PMUVIRT_X86_EMU_LLCREF_TICKS	13
#define PMUVIRT_X86_EMU_LLCMISS_TICKS	211

/* struct pmuvirt_x86_emu.mode */
#define PMUVIRT_X86_EMU_MODE_ANY	0	/* not modelled: the filter is ignored */
#define PMUVIRT_X86_EMU_MODE_USER	1
#define PMUVIRT_X86_EMU_MODE_KERNEL	2

/**
 * struct pmuvirt_x86_emu - one CPU's emulated PMU
 * @evtsel:	IA32_PERFEVTSEL0/1.
 * @fixed_ctrl:	IA32_FIXED_CTR_CTRL.
 * @global_ctrl: IA32_PERF_GLOBAL_CTRL.
 * @status:	IA32_PERF_GLOBAL_STATUS.
 * @ctr:	counter values at tick @since (general 0, 1, fixed 0).
 * @frac:	ticks counted towards the next event of each counter.
 * @since:	when @ctr was brought up to date.
 * @pmi_pending: a wrap with its interrupt bit waits for the host's timer.
 * @lvtpc:	0 when the host does not model LVTPC, else
 *		PMUVIRT_X86_EMU_LVTPC_ON plus PMUVIRT_X86_EMU_LVTPC_MASKED when masked.
 * @lost:	PMIs that found LVTPC masked.
 * @mode:	PMUVIRT_X86_EMU_MODE_*: the CPU's privilege mode, as the host
 *		last set it; pmuvirt_x86_emu_reset() makes it MODE_ANY.
 */
struct pmuvirt_x86_emu {
	uint64_t evtsel[PMUVIRT_X86_EMU_GP];
	uint64_t fixed_ctrl;
	uint64_t global_ctrl;
	uint64_t status;
	uint64_t ctr[PMUVIRT_X86_EMU_NR];
	uint64_t frac[PMUVIRT_X86_EMU_NR];
	uint64_t since;
	uint32_t pmi_pending;
	uint32_t lvtpc;
	uint64_t lost;
	uint32_t mode;
};

#define PMUVIRT_X86_EMU_LVTPC_MASKED	0x10000u	/* the APIC's LVT mask bit */
#define PMUVIRT_X86_EMU_LVTPC_ON	0x80000000u	/* the host models LVTPC */

/**
 * pmuvirt_x86_emu_reset() - power-on state: everything zero and stopped
 * @e:		the emulated PMU.
 * @now:	current tick count.
 *
 * LVTPC is no longer modelled until the host writes it again, nor the
 * privilege mode until the host sets it (MODE_ANY).
 */
void pmuvirt_x86_emu_reset(struct pmuvirt_x86_emu *e, uint64_t now);

/**
 * pmuvirt_x86_emu_set_mode() - the CPU enters a privilege mode
 * @e:		the emulated PMU.
 * @now:	current tick count (ticks before it count in the old mode).
 * @mode:	PMUVIRT_X86_EMU_MODE_*.
 *
 * The host re-arms its timer afterwards (pmuvirt_x86_emu_cpu_set_mode()
 * does both).
 */
void pmuvirt_x86_emu_set_mode(struct pmuvirt_x86_emu *e, uint64_t now, uint32_t mode);

/**
 * pmuvirt_x86_emu_cpuid() - CPUID as the emulated CPU answers it
 * @leaf:	CPUID leaf (EAX).
 * @sub:	subleaf (ECX).
 * @out:	EAX, EBX, ECX, EDX.
 *
 * Leaf 0: GenuineIntel, highest leaf 0xA; leaf 1: PDCM; leaf 0xA: the PMU.
 * Every other leaf reads zero.
 */
void pmuvirt_x86_emu_cpuid(uint32_t leaf, uint32_t sub, uint32_t out[4]);

/**
 * pmuvirt_x86_emu_read_reg() - rdmsr
 * @e:		the emulated PMU.
 * @now:	current tick count.
 * @reg:	MSR number.
 * @val:	receives the value.
 *
 * Return: 0, or -EFAULT for an MSR it does not implement.
 */
int pmuvirt_x86_emu_read_reg(struct pmuvirt_x86_emu *e, uint64_t now, uint32_t reg,
			     uint64_t *val);

/**
 * pmuvirt_x86_emu_write_reg() - wrmsr
 * @e:		the emulated PMU.
 * @now:	current tick count.
 * @reg:	MSR number.
 * @val:	the value.
 *
 * Return: 0, or -EFAULT (nothing changed) for an MSR it does not
 * implement, a read-only one, or a reserved bit.
 */
int pmuvirt_x86_emu_write_reg(struct pmuvirt_x86_emu *e, uint64_t now, uint32_t reg,
			      uint64_t val);

/**
 * pmuvirt_x86_emu_read_counter() - rdpmc
 * @e:		the emulated PMU.
 * @now:	current tick count.
 * @idx:	ECX: general counter 0 or 1, or 1 << 30 for fixed counter 0.
 * @val:	receives the value.
 *
 * Return: 0, or -EFAULT for a counter it does not have.
 */
int pmuvirt_x86_emu_read_counter(struct pmuvirt_x86_emu *e, uint64_t now, uint32_t idx,
				 uint64_t *val);

/**
 * pmuvirt_x86_emu_next_pmi() - when the host's timer must fire
 * @e:		the emulated PMU, brought up to date by the last call.
 *
 * Return: ticks from that call's @now until the next PMI, 0 when one is
 * pending, or UINT64_MAX when no counter can interrupt.
 */
uint64_t pmuvirt_x86_emu_next_pmi(const struct pmuvirt_x86_emu *e);

/**
 * pmuvirt_x86_emu_take_pmi() - the host's timer fired: is there a PMI?
 * @e:		the emulated PMU.
 * @now:	current tick count.
 *
 * With a modelled LVTPC, a PMI is delivered only while the entry is
 * unmasked and masks it; one that finds it masked is lost.
 *
 * Return: true once per delivered PMI; the host then runs its PMI path.
 */
bool pmuvirt_x86_emu_take_pmi(struct pmuvirt_x86_emu *e, uint64_t now);

/**
 * pmuvirt_x86_emu_write_lvtpc() - the host writes the PMI's LVT entry
 * @e:		the emulated PMU.
 * @val:	the entry; only its mask bit (PMUVIRT_X86_EMU_LVTPC_MASKED) counts.
 *
 * From the first call on, LVTPC is modelled (see pmuvirt_x86_emu_take_pmi()).
 */
void pmuvirt_x86_emu_write_lvtpc(struct pmuvirt_x86_emu *e, uint32_t val);

/**
 * pmuvirt_x86_emu_lvtpc_masked() - is the modelled LVTPC masked?
 * @e:		the emulated PMU.
 *
 * Return: true when the host models LVTPC and the entry is masked.
 */
bool pmuvirt_x86_emu_lvtpc_masked(const struct pmuvirt_x86_emu *e);

/* pmuvirt_x86_emu_host.arm(): no counter can interrupt, stop the timer. */
#define PMUVIRT_X86_EMU_NEVER		(~(uint64_t)0)
/* The farthest the adapter arms a timer; the timer then looks again. */
#define PMUVIRT_X86_EMU_ARM_MAX		((uint64_t)1 << 40)

struct pmuvirt_x86_emu_cpu;

/**
 * struct pmuvirt_x86_emu_host - what a host gives the register adapter
 * @now:	the current tick count (the TSC).
 * @arm:	fire the timer of @c's CPU @ticks ticks from now (at most
 *		PMUVIRT_X86_EMU_ARM_MAX; 0 when a PMI is pending), replacing
 *		any earlier deadline; PMUVIRT_X86_EMU_NEVER stops it.
 * @pmi_at_access: optional: true when a wrap that a register access finds
 *		must raise its PMI at once, as an NMI would (the CPU is inside
 *		a core call); NULL: PMIs come from the timer only.
 * @pmi:	run the host's PMI path on this CPU; @at_access says it comes
 *		from a register access (see @pmi_at_access), not the timer.
 *
 * Each is called on @c's own CPU with interrupts (or preemption and the
 * timer) off, as the backend's register accesses are made: the adapter
 * takes no lock.  Functions reached through these pointers need
 * PMUVIRT_CF_CHECK.
 */
struct pmuvirt_x86_emu_host {
	uint64_t (*now)(struct pmuvirt_x86_emu_cpu *c);
	void (*arm)(struct pmuvirt_x86_emu_cpu *c, uint64_t ticks);
	bool (*pmi_at_access)(struct pmuvirt_x86_emu_cpu *c);
	void (*pmi)(struct pmuvirt_x86_emu_cpu *c, bool at_access);
};

/**
 * struct pmuvirt_x86_emu_cpu - one CPU's emulated PMU under the adapter
 * @regs:	its registers.
 * @host:	the host's callbacks.
 *
 * The host embeds one per CPU in its own per-CPU state and passes it as
 * the hw_arg of that CPU's accessors.
 */
struct pmuvirt_x86_emu_cpu {
	struct pmuvirt_x86_emu regs;
	const struct pmuvirt_x86_emu_host *host;
};

/*
 * The register accessors of the emulated PMU for pmuvirt_x86_probe() and
 * pmuvirt_pcpu_init(), with the calling CPU's struct pmuvirt_x86_emu_cpu
 * as their argument: CPUID as pmuvirt_x86_emu_cpuid() answers it, rdmsr,
 * wrmsr and rdpmc into its bank at the host's tick count (an unmodelled
 * register is -EFAULT, as a #GP), rdtsc from the host's clock.  A
 * successful wrmsr re-arms the timer.
 */
extern const struct pmuvirt_hw_ops pmuvirt_x86_emu_hw;

/**
 * pmuvirt_x86_emu_timer() - the host's timer of @c's CPU fired
 * @c:		the calling CPU's emulated PMU.
 *
 * Takes a pending PMI (pmuvirt_x86_emu_take_pmi()) into the host's PMI
 * path, then arms the timer for the next one.  Call it on @c's CPU with
 * interrupts off.
 */
void pmuvirt_x86_emu_timer(struct pmuvirt_x86_emu_cpu *c);

/**
 * pmuvirt_x86_emu_cpu_set_mode() - @c's CPU enters a privilege mode
 * @c:		the calling CPU's emulated PMU.
 * @mode:	PMUVIRT_X86_EMU_MODE_*.
 *
 * pmuvirt_x86_emu_set_mode() at the host's tick count, then the timer is
 * armed for the next PMI in the new mode.  Call it on @c's CPU with
 * interrupts off.
 */
void pmuvirt_x86_emu_cpu_set_mode(struct pmuvirt_x86_emu_cpu *c, uint32_t mode);

#endif
