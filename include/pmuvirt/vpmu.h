/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt's emulated architectural PMU (x86), for guests that know nothing
 * of pmuvirt: one struct pmuvirt_vpmu per VCPU holds the PMU state the
 * guest sees (Intel architectural perfmon v1 to v5; AMD legacy, core
 * extension, PerfMonV2) and turns it into counters of that VCPU's pmuvirt
 * context.  The host calls it from its MSR and RDPMC intercepts, its CPUID
 * policy and its PMI path; switching the VCPU stays pmuvirt_switch() of the
 * context, which the emulator does not touch.  docs/vpmu.md describes the
 * model, the MSR semantics and the decisions.
 *
 * Same contract as pmuvirt.h: no allocation (the host embeds the structs),
 * no lock; a call that may touch the context's counters takes the pcpu the
 * context runs on (NULL when it runs nowhere) and runs on that CPU with
 * interrupts (or preemption and the PMU interrupt) off.
 */
#ifndef PMUVIRT_VPMU_H
#define PMUVIRT_VPMU_H

#include "pmuvirt.h"

#define PMUVIRT_VPMU_MAX_GP	8	/* general counters a guest model may have */
#define PMUVIRT_VPMU_MAX_FIXED	4	/* Intel fixed counters 0-3 */
/* Guest counters: general i is i, fixed j is PMUVIRT_VPMU_MAX_GP + j. */
#define PMUVIRT_VPMU_COUNTERS	(PMUVIRT_VPMU_MAX_GP + PMUVIRT_VPMU_MAX_FIXED)

/* struct pmuvirt_vpmu_model.vendor */
#define PMUVIRT_VPMU_INTEL	1
#define PMUVIRT_VPMU_AMD	2

/* struct pmuvirt_vpmu_model.version of an AMD model */
#define PMUVIRT_VPMU_AMD_LEGACY		1	/* PERF_CTL0-3 0xC0010000, PERF_CTR0-3 0xC0010004 */
#define PMUVIRT_VPMU_AMD_CORE_EXT	2	/* CPUID 8000_0001h ECX[23]: six at 0xC0010200 + 2i */
#define PMUVIRT_VPMU_AMD_PERFMON_V2	3	/* CPUID 8000_0022h: plus global control and status */

/* struct pmuvirt_vpmu_model.flags */
#define PMUVIRT_VPMU_M_FW_WRITE	0x1u	/* Intel: PERF_CAPABILITIES.FW_WRITE, IA32_A_PMCx */

/**
 * struct pmuvirt_vpmu_model - the PMU a guest sees (its CPUID says so)
 * @vendor:	PMUVIRT_VPMU_INTEL or PMUVIRT_VPMU_AMD (may differ from the host's).
 * @version:	Intel: architectural perfmon version 1 to 5; AMD:
 *		PMUVIRT_VPMU_AMD_LEGACY, _CORE_EXT or _PERFMON_V2.
 * @nr_gp:	general counters: Intel 1 to 8, AMD legacy 4, core extension
 *		6, PerfMonV2 1 to 8.
 * @nr_fixed:	Intel v2 and later: fixed counters 0 .. @nr_fixed - 1 (at most
 *		4, CPUID.0AH:EDX[4:0]); 0 otherwise.
 * @width:	Intel: general counter width, 32 to 48; AMD: 48.
 * @fixed_width: Intel with fixed counters: their width, 32 to 48; else 0.
 * @fixed_mask:	Intel v5: CPUID.0AH:ECX, fixed counters present beyond
 *		@nr_fixed (bits 0-3); 0 otherwise.
 * @arch_unavail: Intel: CPUID.0AH:EBX, architectural events not available
 *		(bit set); 0 for AMD.
 * @family:	AMD: the family (6 and above; 10h and above have event-select
 *		bits 35:32 and HostOnly/GuestOnly); 0 for Intel.
 * @flags:	PMUVIRT_VPMU_M_*.
 * @reserved:	zero.
 */
struct pmuvirt_vpmu_model {
	uint8_t vendor;
	uint8_t version;
	uint8_t nr_gp;
	uint8_t nr_fixed;
	uint8_t width;
	uint8_t fixed_width;
	uint8_t fixed_mask;
	uint8_t arch_unavail;
	uint8_t family;
	uint8_t flags;
	uint8_t reserved[6];
};

/* pmuvirt_vpmu_init() flags: how the guest's USR and OS bits become pmuvirt's */
/* OS counts the guest's kernel only (PMUVIRT_CTR_GUEST): HVM and PVH guests. */
#define PMUVIRT_VPMU_F_GUEST_ONLY	0x1u
/*
 * A PV guest's kernel runs in ring 3: USR and OS both count there, and
 * pmuvirt_vpmu_pv_mode() tells a one-sided counter's modes apart.
 */
#define PMUVIRT_VPMU_F_PV		0x2u
#define PMUVIRT_VPMU_F_ALL		0x3u

/**
 * typedef pmuvirt_vpmu_pmi_fn - raise the guest's performance interrupt
 * @arg:	from pmuvirt_vpmu_init().
 * @ovf:	the guest counters that overflowed since the last call, as
 *		GLOBAL_STATUS bits (general i: bit i; fixed j: bit 32 + j).
 *
 * Called once per call of the library that found new overflows of counters
 * with their interrupt bit set; each overflow is in exactly one call.  The
 * host raises the guest's LVTPC (vector, NMI, masking are the host's
 * business).  It must not call back into the vPMU.
 */
typedef void (*pmuvirt_vpmu_pmi_fn)(void *arg, uint64_t ovf);

/**
 * struct pmuvirt_vpmu - one VCPU's emulated PMU (264 bytes on 64-bit hosts)
 *
 * Field names are visible so that hosts can embed it; only the functions
 * below change them.
 * @model:	the guest's PMU.
 * @ctx:	the VCPU's pmuvirt context.
 * @host:	the host's own counters in front of the emulator's (NULL: none).
 * @policy:	the event policy the emulator's counters are checked against.
 * @pmi, @pmi_arg: the guest's interrupt.
 * @stamp:	@ctx's stamp when the emulator last gave it a control.
 * @evtsel:	IA32_PERFEVTSELx / PERF_CTLx.
 * @fixed_ctrl:	IA32_FIXED_CTR_CTRL.
 * @global_ctrl: IA32_PERF_GLOBAL_CTRL / PerfCntrGlobalCtl.
 * @global_status: IA32_PERF_GLOBAL_STATUS / PerfCntrGlobalStatus.
 * @value:	per guest counter: its value, or while it counts, its value
 *		minus the logical count of its context counter (modulo its width).
 * @idx:	per guest counter: its counter in @ctx, 0xff when it counts nothing.
 * @nr_host:	counters of @host.
 * @nr_shared:	counters of @ctx its shared record shows.
 * @state:	library-private.
 * @flags:	from pmuvirt_vpmu_init().
 */
struct pmuvirt_vpmu {
	struct pmuvirt_vpmu_model model;
	struct pmuvirt_ctx *ctx;
	const struct pmuvirt_control *host;
	const struct pmuvirt_policy *policy;
	pmuvirt_vpmu_pmi_fn pmi;
	void *pmi_arg;
	uint64_t stamp;
	uint64_t evtsel[PMUVIRT_VPMU_MAX_GP];
	uint64_t fixed_ctrl;
	uint64_t global_ctrl;
	uint64_t global_status;
	uint64_t value[PMUVIRT_VPMU_COUNTERS];
	uint32_t mute_user;
	uint32_t mute_kernel;
	uint8_t idx[PMUVIRT_VPMU_COUNTERS];
	uint8_t nr_host;
	uint8_t nr_shared;
	uint8_t state;
	uint8_t flags;
	uint8_t pv_kernel;
};

/*
 * The guest-visible state outside the VCPU, for a save stream (migration):
 * native byte order, every field checked by pmuvirt_vpmu_restore().
 */
#define PMUVIRT_VPMU_SAVED_MAGIC	0x504d5650u	/* "PMVP" */
#define PMUVIRT_VPMU_SAVED_VERSION	1

/**
 * struct pmuvirt_vpmu_saved - one VCPU's emulated PMU as a blob (224 bytes)
 * @magic:	PMUVIRT_VPMU_SAVED_MAGIC.
 * @version:	PMUVIRT_VPMU_SAVED_VERSION.
 * @size:	sizeof(struct pmuvirt_vpmu_saved).
 * @flags:	zero.
 * @model:	the guest's PMU; a restore needs the same one.
 * @evtsel:	event selects (zero past the model's general counters).
 * @fixed_ctrl, @global_ctrl, @global_status: the registers (zero where the
 *		model has none).
 * @value:	each guest counter's value (zero where the model has none).
 * @reserved:	zero.
 * @check:	FNV-1a (32-bit) of every byte before it.
 */
struct pmuvirt_vpmu_saved {
	uint32_t magic;
	uint32_t version;
	uint32_t size;
	uint32_t flags;
	struct pmuvirt_vpmu_model model;
	uint64_t evtsel[PMUVIRT_VPMU_MAX_GP];
	uint64_t fixed_ctrl;
	uint64_t global_ctrl;
	uint64_t global_status;
	uint64_t value[PMUVIRT_VPMU_COUNTERS];
	uint32_t reserved;
	uint32_t check;
};

/**
 * pmuvirt_vpmu_model_host() - the guest model that mirrors the host's PMU
 * @pmu:	the host's PMU (pmuvirt_x86_probe()).
 * @m:		receives the model: the host's vendor, version, counters (at
 *		most 8 general, fixed counters 0-2) and widths.
 *
 * A host may then take counters away (fewer general counters, an older
 * version) before pmuvirt_vpmu_init(); pmuvirt_vpmu_model_check() says
 * whether what it made is a model.
 *
 * Return: 0; -ENODEV for a PMU that is not x86 or has no counters.
 */
int pmuvirt_vpmu_model_host(const struct pmuvirt_pmu *pmu, struct pmuvirt_vpmu_model *m);

/**
 * pmuvirt_vpmu_model_check() - is @m a guest model the emulator serves
 * @m:		the model.
 *
 * Return: 0; -EINVAL for a field out of the ranges of struct
 * pmuvirt_vpmu_model or a nonzero reserved byte.
 */
int pmuvirt_vpmu_model_check(const struct pmuvirt_vpmu_model *m);

/**
 * pmuvirt_vpmu_counters() - counters the emulator may add to a context
 * @m:		a checked model.
 *
 * A host sizes the VCPU's context for its own counters plus these
 * (pmuvirt_ctx_size(), at most PMUVIRT_MAX_COUNTERS in all); guest counters
 * for which there is no room count nothing.
 *
 * Return: general plus fixed counters of @m.
 */
unsigned int pmuvirt_vpmu_counters(const struct pmuvirt_vpmu_model *m);

/**
 * pmuvirt_vpmu_cpuid() - turn a host CPUID leaf into what the guest sees
 * @m:		the guest's model.
 * @leaf:	EAX of the CPUID.
 * @sub:	ECX of the CPUID.
 * @regs:	EAX, EBX, ECX, EDX as the host's policy has them; changed in
 *		place where they describe the PMU.
 *
 * Intel models: leaf 1 ECX[15] (PDCM, PERF_CAPABILITIES exists), leaf 0AH
 * (version, counters, widths, events, fixed counters; EDX[15] AnyThread
 * deprecated on v5), 8000_0001h ECX[23] and leaf 8000_0022h cleared.  AMD
 * models: leaf 1 ECX[15] and leaf 0AH cleared, 8000_0001h ECX[23]
 * (PerfCtrExtCore), leaf 8000_0022h (EAX[0] PerfMonV2, EBX[3:0] counters).
 * Both: the PMU features the emulator does not serve are cleared: the
 * debug store (leaf 1 EDX[21] DS, ECX[2] DTES64, ECX[4] DS-CPL),
 * architectural LBR (leaf 7.0 EDX[19], leaf 1CH), the extended perfmon
 * leaf (leaf 7.1 EAX[8], leaf 23H), IBS (8000_0001h ECX[10], leaf
 * 8000_001Bh) and the northbridge and L3 counters (8000_0001h ECX[24],
 * ECX[28]).  Other leaves are left as they are; the host's policy must
 * reach leaf 0AH (Intel) or 8000_0022h (AMD PerfMonV2).
 */
void pmuvirt_vpmu_cpuid(const struct pmuvirt_vpmu_model *m, uint32_t leaf, uint32_t sub,
			uint32_t regs[4]);

/**
 * pmuvirt_vpmu_has_msr() - is @msr a PMU register of the model
 * @m:		the guest's model.
 * @msr:	an MSR number.
 *
 * The MSRs a host sends to pmuvirt_vpmu_rdmsr() and pmuvirt_vpmu_wrmsr();
 * the accesses to any other MSR of the PMU's ranges are #GP.
 *
 * Return: true for a register the model has.
 */
bool pmuvirt_vpmu_has_msr(const struct pmuvirt_vpmu_model *m, uint32_t msr);

/**
 * pmuvirt_vpmu_init() - a VCPU's emulated PMU, at power-on state
 * @vp:		storage.
 * @ctx:	the VCPU's context (initialised, on an x86 PMU).
 * @m:		the guest's model (pmuvirt_vpmu_model_check()).
 * @flags:	PMUVIRT_VPMU_F_*.
 * @pmi:	raises the guest's performance interrupt.
 * @arg:	passed to @pmi.
 *
 * Touches no register and does not change @ctx.  Every counter is zero and
 * stopped; IA32_PERF_GLOBAL_CTRL (PerfCntrGlobalCtl) has the general
 * counters' enable bits set, as at power-on.  When @ctx already counts a
 * control of the host's, the emulator gives it counters only after
 * pmuvirt_vpmu_set_host().
 *
 * Return: 0; -EINVAL for a bad model, flag or argument; -ENODEV when @ctx
 * is not on an x86 PMU.
 */
int pmuvirt_vpmu_init(struct pmuvirt_vpmu *vp, struct pmuvirt_ctx *ctx,
		      const struct pmuvirt_vpmu_model *m, uint32_t flags, pmuvirt_vpmu_pmi_fn pmi,
		      void *arg);

/**
 * pmuvirt_vpmu_rdmsr() - the guest reads a PMU MSR
 * @pc:		the pcpu the VCPU's context runs on, or NULL.
 * @vp:		the VCPU's emulated PMU.
 * @msr:	the MSR.
 * @val:	receives the value.
 *
 * A counter reads its written value plus the events counted since the
 * write, modulo its width.  GLOBAL_STATUS first collects the overflows the
 * counters have reached (a PMI may still be on its way).
 *
 * Return: 0; -EINVAL when the access is a #GP (no such register in the
 * model); -EBUSY when the context runs on another pcpu; -EFAULT when a
 * register access failed (@val holds the last value known; the host gives
 * it, not a #GP).
 */
int pmuvirt_vpmu_rdmsr(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, uint32_t msr,
		       uint64_t *val);

/**
 * pmuvirt_vpmu_wrmsr() - the guest writes a PMU MSR
 * @pc:		the pcpu the VCPU's context runs on, or NULL.
 * @vp:		the VCPU's emulated PMU.
 * @msr:	the MSR.
 * @val:	the value.
 *
 * Event selects, FIXED_CTR_CTRL and GLOBAL_CTRL that change what counts
 * give the context a new control (the host's counters keep theirs); a
 * counter write re-bases an accumulating counter without a register
 * access and re-arms an interrupting one with one write.  Reserved bits,
 * read-only registers and counters the model lacks are #GP and change
 * nothing.
 *
 * Return: 0; -EINVAL when the access is a #GP; -EBUSY when the context
 * runs on another pcpu; -EFAULT when a register access failed (the write
 * took effect, the context stopped counting: not a #GP).
 */
int pmuvirt_vpmu_wrmsr(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, uint32_t msr,
		       uint64_t val);

/**
 * pmuvirt_vpmu_wrmsr_check() - would pmuvirt_vpmu_wrmsr() take this write
 * @vp:		the VCPU's emulated PMU.
 * @msr:	the MSR.
 * @val:	the value.
 *
 * The checks of pmuvirt_vpmu_wrmsr() alone: a host that applies several
 * untrusted writes at once (a PV guest's flushed context) checks them all
 * first, so that a bad one changes nothing.  Touches no register.
 *
 * Return: 0 when the write is no #GP; -EINVAL when it is.
 */
int pmuvirt_vpmu_wrmsr_check(const struct pmuvirt_vpmu *vp, uint32_t msr, uint64_t val);

/**
 * pmuvirt_vpmu_rdpmc() - the guest's RDPMC
 * @pc:		the pcpu the VCPU's context runs on, or NULL.
 * @vp:		the VCPU's emulated PMU.
 * @ecx:	Intel: general counter i, or 1 << 30 | j for fixed counter j;
 *		AMD: core counter i.
 * @val:	receives the counter's value.
 *
 * For a host that exits on the guest's RDPMC (it must: the hardware
 * counters hold other values); CR4.PCE and the CPL are the host's to check.
 *
 * Return: as pmuvirt_vpmu_rdmsr(); -EINVAL (#GP) for another @ecx.
 */
int pmuvirt_vpmu_rdpmc(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, uint32_t ecx,
		       uint64_t *val);

/**
 * pmuvirt_vpmu_counts() - does the guest have a counter counting
 * @vp:		the VCPU's emulated PMU.
 * A counter counts when the guest enabled it (its event select's enable
 * bit, a fixed counter's ring-level field) and, on a model with
 * GLOBAL_CTRL, set its GLOBAL_CTRL bit.  A host that hands the context
 * back to the emulator only for a guest that counts asks this.  Touches
 * no register.
 * Return: true when at least one guest counter counts.
 */
bool pmuvirt_vpmu_counts(const struct pmuvirt_vpmu *vp);

/**
 * pmuvirt_vpmu_attached() - does the context count the emulator's counters
 * @vp:		the VCPU's emulated PMU.
 * False once the host gave the context a control of its own
 * (pmuvirt_set_control(), pmuvirt_ctx_join(), pmuvirt_ctx_restore()) or
 * after pmuvirt_vpmu_detach(): the guest's counters count nothing until
 * pmuvirt_vpmu_set_host().  A host that hands the context back lazily
 * asks this before a guest write.  Touches no register.
 * Return: true while the emulator's counters are the context's.
 */
bool pmuvirt_vpmu_attached(struct pmuvirt_vpmu *vp);

/**
 * pmuvirt_vpmu_deliver() - give the guest the overflows its counters reached
 * @pc:		the pcpu the VCPU's context runs on, or NULL.
 * @vp:		the VCPU's emulated PMU.
 *
 * Takes the emulator's pending notifications from the context, sets their
 * GLOBAL_STATUS bits (models that have it) and calls the host's @pmi once
 * for those with their interrupt bit.  A host calls it after
 * pmuvirt_pmi() on its PMI path when the VCPU's context was running, and
 * before it enters the VCPU (notifications a switch collected).  It reads
 * no register.
 *
 * Return: 0; -EBUSY when the context runs on another pcpu.
 */
int pmuvirt_vpmu_deliver(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp);

/**
 * pmuvirt_vpmu_pv_mode() - a PV VCPU switched between its kernel and user mode
 * @pc:		the pcpu the VCPU's context runs on, or NULL.
 * @vp:		the VCPU's emulated PMU (PMUVIRT_VPMU_F_PV).
 * @kernel:	true when the VCPU enters its kernel mode.
 *
 * A 64-bit PV guest kernel runs in ring 3 like its user space, so the
 * hardware's filter cannot tell the two apart.  The host calls this at
 * each switch between them (and once with the VCPU's mode at start):
 * guest counters whose USR and OS bits select one mode only stop counting
 * in the other (pmuvirt_mute()), counters selecting both are untouched.
 * Each one-sided counter costs one counter read per switch; with none the
 * call reads nothing.
 *
 * Return: 0; -EINVAL for a NULL or non-PV @vp; -EBUSY when the context
 * runs on another pcpu; -EFAULT if a register read failed.
 */
int pmuvirt_vpmu_pv_mode(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp, bool kernel);

/**
 * pmuvirt_vpmu_set_host() - the host's own counters in front of the emulator's
 * @pc:		the pcpu the VCPU's context runs on, or NULL.
 * @vp:		the VCPU's emulated PMU.
 * @ctl:	the host's control (a pmuvirt-aware guest's own counters, with
 *		a profiling session's after them), or NULL for none; kept by
 *		pointer until the next call: the host keeps it unchanged.
 * @keep:	the first @keep counters of @ctl go on with the state of the
 *		first @keep counters the context has now (same events and
 *		modes), as pmuvirt_ctx_join() and pmuvirt_ctx_leave() keep
 *		them; the others start at zero.
 * @nr_shared:	how many of @ctl's counters the context's shared record shows.
 * @err:	if not NULL, the reason on failure.
 *
 * The context counts @ctl's counters first, then the emulator's; neither
 * party's counts change when the other's change.  The PMU must have room
 * for both: an emulated counter that is counting keeps its place, so a
 * @ctl that does not fit beside the emulator's counting counters is
 * refused with -EBUSY; an emulated counter enabled while the host's hold
 * the room counts nothing until there is room (a later MSR write, this
 * call).  This is also how a host re-attaches the emulator after giving
 * the context a control of its own (pmuvirt_set_control(),
 * pmuvirt_ctx_restore()): until then the emulator's counters count
 * nothing.
 *
 * Return: 0; the errors of pmuvirt_validate() for @ctl alone; -EBUSY as
 * above or when the context runs on another pcpu; -EINVAL for a @keep the
 * context's counters do not match; -EFAULT when a register access failed.
 * Nothing changes on an error other than -EFAULT.
 */
int pmuvirt_vpmu_set_host(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp,
			  const struct pmuvirt_control *ctl, unsigned int keep,
			  unsigned int nr_shared, struct pmuvirt_error *err);

/**
 * pmuvirt_vpmu_set_policy() - the event policy of the emulator's counters
 * @pc:		the pcpu the VCPU's context runs on, or NULL.
 * @vp:		the VCPU's emulated PMU.
 * @pol:	a policy pmuvirt_policy_validate() accepted (the domain's), or
 *		NULL for none; kept by pointer: the host keeps it unchanged
 *		while any call of the emulator runs.
 *
 * A guest counter whose event @pol does not permit counts nothing, as an
 * event the host cannot count: its select is accepted and reads back, its
 * value does not move and it raises no interrupt.  Counters that become
 * permitted count from their value.  The host's own counters are not
 * checked against @pol.
 *
 * With PMUVIRT_POLICY_NO_VPMU in @pol's flags the emulated PMU is off: no
 * guest counter counts (the emulator's counters leave the context) and
 * pmuvirt_vpmu_rdmsr(), _wrmsr() and _rdpmc() return -EINVAL for every
 * access, the registers kept as they were.  A policy without the flag
 * turns it on again with those registers.
 *
 * Return: 0; -EBUSY when the context runs on another pcpu; -EFAULT.
 */
int pmuvirt_vpmu_set_policy(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp,
			    const struct pmuvirt_policy *pol);

/**
 * pmuvirt_vpmu_off() - does the event policy turn the emulated PMU off
 * @vp:		the VCPU's emulated PMU, or NULL.
 *
 * True when the policy of pmuvirt_vpmu_set_policy() has
 * PMUVIRT_POLICY_NO_VPMU: the host's CPUID then describes no PMU (it does
 * not call pmuvirt_vpmu_cpuid()).  Touches no register.
 *
 * Return: true when the emulated PMU is off.
 */
bool pmuvirt_vpmu_off(const struct pmuvirt_vpmu *vp);

/**
 * pmuvirt_vpmu_reset() - power-on state (the VCPU's INIT or reset)
 * @pc:		the pcpu the VCPU's context runs on, or NULL.
 * @vp:		the VCPU's emulated PMU.
 *
 * Return: 0; -EBUSY when the context runs on another pcpu; -EFAULT.
 */
int pmuvirt_vpmu_reset(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp);

/**
 * pmuvirt_vpmu_detach() - take the emulator's counters off the context
 * @pc:		the pcpu the VCPU's context runs on, or NULL.
 * @vp:		the VCPU's emulated PMU.
 *
 * The context keeps the host's counters with their state; the guest's
 * counters keep their values and count nothing until
 * pmuvirt_vpmu_set_host() attaches the emulator again.  Before the host
 * frees @vp while the context lives on.  A VCPU that goes away with its
 * context needs only pmuvirt_ctx_release().
 *
 * Return: 0; -EBUSY when the context runs on another pcpu; -EFAULT.
 */
int pmuvirt_vpmu_detach(struct pmuvirt_pcpu *pc, struct pmuvirt_vpmu *vp);

/**
 * pmuvirt_vpmu_save() - the guest-visible PMU state as a blob
 * @vp:		the VCPU's emulated PMU; its context runs nowhere.
 * @out:	receives the blob.
 *
 * Overflows still pending are delivered first (GLOBAL_STATUS and the
 * host's @pmi), so a host saves the guest's interrupt controller after
 * this.  The host's own counters are saved by pmuvirt_vpmu_save_host().
 *
 * Return: 0; -EBUSY when the context runs.
 */
int pmuvirt_vpmu_save(struct pmuvirt_vpmu *vp, struct pmuvirt_vpmu_saved *out);

/**
 * pmuvirt_vpmu_saved_check() - the check a saved blob must carry
 * @s:		the blob.
 *
 * Return: FNV-1a (32-bit) of every byte of @s before @s->check.
 */
uint32_t pmuvirt_vpmu_saved_check(const struct pmuvirt_vpmu_saved *s);

/**
 * pmuvirt_vpmu_restore() - give the guest's PMU the state of a blob
 * @vp:		the VCPU's emulated PMU (of the same model); its context runs
 *		nowhere.
 * @in:		the blob, untrusted, in memory nobody else writes.
 * @err:	if not NULL, receives the reason on failure.
 *
 * Every field is checked as the registers check a guest's writes: the
 * magic, version, size, reserved fields and check, the model (the same as
 * @vp's), each register's reserved bits, each value's width, nothing past
 * the model's counters.  Then the counters go on from the saved values on
 * this machine's PMU, which may be another model than the saving one's.
 *
 * Return: 0; -EINVAL with the reason in @err, and @vp unchanged, for a blob
 * that is not one pmuvirt_vpmu_save() of this model makes; -EBUSY when the
 * context runs; -EFAULT.
 */
int pmuvirt_vpmu_restore(struct pmuvirt_vpmu *vp, const struct pmuvirt_vpmu_saved *in,
			 struct pmuvirt_error *err);

/**
 * pmuvirt_vpmu_save_host() - the host's own counters of the context as a blob
 * @vp:		the VCPU's emulated PMU, with host counters; its context runs
 *		nowhere.
 * @out:	receives what pmuvirt_ctx_save() gives for a context that
 *		counts the host's control alone.
 *
 * On the other side, pmuvirt_ctx_restore() of the blob, then
 * pmuvirt_vpmu_set_host() with its control and @keep = all of it, then
 * pmuvirt_vpmu_restore().
 *
 * Return: 0; -EINVAL when the host has no counters in the context; as
 * pmuvirt_ctx_save() otherwise.
 */
int pmuvirt_vpmu_save_host(const struct pmuvirt_vpmu *vp, struct pmuvirt_saved_ctx *out);

#endif /* PMUVIRT_VPMU_H */
