/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Internal interface between the files of pmuvirt's Xen glue. */
#ifndef PMUVIRT_XEN_GLUE_H
#define PMUVIRT_XEN_GLUE_H

#include <xen/spinlock.h>
#include <xen/guest_access.h>
#include <pmuvirt/pmuvirt.h>
#include <pmuvirt/xen.h>
#include <pmuvirt/vpmu.h>
#include "pmuvirt_x86.h"

/**
 * struct pmuvirt_xen_domain - a domain's shared VCPU records
 * @nr_records:	one per possible VCPU (d->max_vcpus).
 * @per_frame:	records per page; records never cross a page.
 * @nr_frames:	pages in @frames.
 * @frames:	Xen heap pages, shared read-only with the domain.
 * @gfns:	HVM and PVH: the guest frame of each page in the domain's
 *		physical map (MAP_PHYS), INVALID_GFN_RAW when not placed.
 * @map_lock:	serialises MAP_PHYS and UNMAP_PHYS.
 */
struct pmuvirt_xen_domain {
	uint64_t tag;		/* security domain of its VCPUs' contexts */
	unsigned int nr_records;
	unsigned int per_frame;
	unsigned int nr_frames;
	void **frames;
	uint64_t *gfns;
	spinlock_t map_lock;
	/* The event policy; taken with interrupts off (spin_lock_irqsave). */
	spinlock_t policy_lock;
	uint64_t policy_gen;		/* changes with every SET_POLICY, never wraps */
	struct pmuvirt_policy policy;
	/* The domain made a pmuvirt hypercall: its RDPMC keeps pmuvirt's meaning. */
	bool aware;
	/* PV: serialises XENPMU_init and _finish (taken with spin_trylock). */
	spinlock_t pv_lock;
};

/*
 * Registers of a PV guest's xen_pmu_data context: an Intel model's general
 * counters and event selects, fixed counters, FIXED_CTR_CTRL, the three
 * global registers, DS_AREA and PEBS_ENABLE (an AMD model's counters and
 * selects are fewer).
 */
#define PMUVIRT_XEN_PV_REGS	(2 * PMUVIRT_VPMU_MAX_GP + PMUVIRT_VPMU_MAX_FIXED + 6)

/**
 * struct pmuvirt_xen_vcpu - what the glue keeps per VCPU, in front of its context
 * @ctl:	the control the VCPU's context was last given (checked again
 *		when the domain's policy changes, saved with the counts).
 * @policy_gen:	the domain's policy_gen @ctl was last checked against.
 * @prof_gen:	the profiling session the context joined (0: none).
 * @eff:	what the context counts: @ctl, or with @prof_gen @ctl and
 *		the session's counters (pmuvirt_session_merge()).
 * @incoming:	PV restore: the blob while its words arrive, else NULL.
 * @words:	which words of @incoming arrived.
 * @vpmu:	HVM and PVH: the emulated PMU the guest sees, on this context.
 * @vpolicy:	@vpmu's copy of the domain's event policy (the emulator
 *		keeps it by pointer; SET_POLICY changes the domain's while
 *		other VCPUs' intercepts run).
 * @vpolicy_gen: the domain's policy_gen @vpolicy was copied at.
 * @has_vpmu:	@vpmu is initialised (pmuvirt_xen_vpmu.c).
 * @vpmu_restored: @vpmu's state came from a save stream.
 * @nr_pmis:	the guest interrupts @vpmu raised.
 * @nr_rdmsr, @nr_wrmsr, @nr_rdpmc: the guest's accesses @vpmu served
 *		(logged when the VCPU goes).
 * @nr_xen_traps: HVM and PVH, AMD models: of those MSR accesses, the ones
 *		Xen 4.17's AMD vPMU would intercept too.
 * @xen_running: its running state then (xen_amd_would_trap()).
 * @pv_data:	PV with XENPMU_init: the guest's struct xen_pmu_data, mapped.
 * @pv_ovf:	PV: overflows the guest has not been told of.
 * @pv_val:	PV: the registers the page got at the last interrupt, in
 *		the order of its context (pmuvirt_xen_pvpmu.c); XENPMU_flush
 *		writes back those that changed.
 * @pv_cached:	PV: the page holds the context (PMU_CACHED) until XENPMU_flush.
 * @pv_lvtpc:	PV: the guest's LVTPC (XENPMU_lvtpc_set); masked: no VIRQ.
 * @nr_pv_virqs, @nr_pv_flushes: PV: VIRQ_XENPMU sent, flushes taken.
 * @nr_pv_toggles: PV: switches between the guest's kernel and user mode.
 * @pv_usr_only, @pv_os_only: PV: the counters of @ctl the guest asked to
 *		count in its user mode only, in its kernel mode only.
 */
struct pmuvirt_xen_vcpu {
	struct pmuvirt_control ctl;
	uint64_t policy_gen;
	uint64_t prof_gen;
	struct pmuvirt_control eff;
	struct pmuvirt_saved_ctx *incoming;
	unsigned long words[BITS_TO_LONGS(PMUVIRT_XEN_SAVE_MSRS)];
	struct pmuvirt_vpmu vpmu;
	struct pmuvirt_policy vpolicy;
	uint64_t vpolicy_gen;
	uint32_t has_vpmu;
	uint32_t vpmu_restored;
	uint32_t nr_pmis;
	uint64_t nr_rdmsr;
	uint64_t nr_wrmsr;
	uint64_t nr_rdpmc;
	uint64_t nr_xen_traps;
	uint32_t xen_running;
	void *pv_data;
	uint64_t pv_ovf;
	uint64_t pv_val[PMUVIRT_XEN_PV_REGS];
	uint32_t pv_cached;
	uint32_t pv_lvtpc;
	uint32_t nr_pv_virqs;
	uint32_t nr_pv_flushes;
	uint64_t nr_pv_toggles;
	uint32_t pv_usr_only;
	uint32_t pv_os_only;
};

static inline struct pmuvirt_xen_vcpu *pmuvirt_xen_vcpu_of(struct pmuvirt_ctx *ctx)
{
	return (struct pmuvirt_xen_vcpu *)((char *)ctx - sizeof(struct pmuvirt_xen_vcpu));
}

/*
 * 0, or -EBUSY when pmuvirt refused to start because another user of the
 * PMU (Xen's vPMU, the NMI watchdog, xenoprof) was there.
 */
extern int pmuvirt_xen_refused;

/**
 * pmuvirt_xen_set_vcpu_control() - SET_CONTROL under the domain's policy
 * @v:		the calling VCPU, or a paused one (its context runs on this PCPU
 *		or nowhere).
 * @ctl:	the control, after pmuvirt_xen_guest_privilege().
 * @err:	the reason on failure.
 *
 * Interrupts disabled.  Return: 0, -EPERM (the policy), or as
 * pmuvirt_set_control().
 */
int pmuvirt_xen_set_vcpu_control(struct vcpu *v, const struct pmuvirt_control *ctl,
				 struct pmuvirt_error *err);

/**
 * pmuvirt_xen_enforce_policy() - drop a control the domain's new policy forbids
 * @v:		a VCPU whose context runs on this PCPU or nowhere.
 *
 * Interrupts disabled.  Cheap when the policy did not change since @v's
 * control was checked.
 */
void pmuvirt_xen_enforce_policy(struct vcpu *v);

extern struct pmuvirt_pmu pmuvirt_xen_pmu;
extern bool pmuvirt_xen_ready;

/**
 * pmuvirt_xen_this_pcpu() - this PCPU's state, initialised on first use
 *
 * Call with interrupts disabled.
 * Return: the state, or NULL when pmuvirt has no PMU.
 */
struct pmuvirt_pcpu *pmuvirt_xen_this_pcpu(void);

/**
 * pmuvirt_xen_pcpu_forget() - before @ctx is freed: PCPU @cpu must not name it
 * @cpu:	the PCPU that may run @ctx.
 * @ctx:	a context about to be freed.
 *
 * An offline PCPU that still names @ctx drops it (pmuvirt_pcpu_drop()).
 * Return: 0, or -EBUSY when @cpu is online and runs @ctx: do not free it.
 */
int pmuvirt_xen_pcpu_forget(unsigned int cpu, struct pmuvirt_ctx *ctx);

/**
 * pmuvirt_xen_record() - shared record of VCPU @vcpu_id of a domain
 * @dd:		the domain's records.
 * @vcpu_id:	the VCPU.
 *
 * Return: the record, or NULL if @vcpu_id has none.
 */
struct pmuvirt_shared_ctx *pmuvirt_xen_record(const struct pmuvirt_xen_domain *dd,
					      unsigned int vcpu_id);

/**
 * pmuvirt_xen_place() - put a domain's record frames at guest frames
 * @d:		an HVM or PVH domain with records.
 * @gfns:	one guest frame per record frame, checked by
 *		pmuvirt_xen_check_gfns().
 *
 * Return: 0, -EBUSY for a guest frame Xen may not take over (the frames
 * before it are placed), or the p2m's error.
 */
int pmuvirt_xen_place(struct domain *d, const uint64_t *gfns);

/**
 * pmuvirt_xen_unplace() - take a domain's record frames out of its physical map
 * @d:		an HVM or PVH domain with records.
 *
 * Return: the frames taken out.
 */
unsigned int pmuvirt_xen_unplace(struct domain *d);

/**
 * pmuvirt_xen_place_frame() - put a Xen heap frame shared with @d at one of its guest frames
 * @d:		a domain whose p2m Xen translates.
 * @gfn:	the guest frame (checked by the caller against the address width).
 * @mfn:	the frame; the guest maps it read-only.
 *
 * Return: 0, -EBUSY for a guest frame Xen must not take over, or the p2m's error.
 */
int pmuvirt_xen_place_frame(struct domain *d, uint64_t gfn, mfn_t mfn);

/* Take @mfn out of @d's physical map at @gfn again (nothing if the guest gave it away). */
void pmuvirt_xen_unplace_frame(struct domain *d, uint64_t gfn, mfn_t mfn);

/* The emulated PMU (boot option pmuvirt-emulate), a test instrument. */
extern bool pmuvirt_xen_emulate;
void *pmuvirt_xen_emu_hw_arg(unsigned int cpu);
void pmuvirt_xen_emu_vm_entry(void);
extern unsigned long pmuvirt_xen_emu_pmis;
void pmuvirt_xen_emu_cpu_init(void);
void pmuvirt_xen_emu_cpu_dead(unsigned int cpu);

/**
 * pmuvirt_xen_deliver_pmi() - run the PMI path on this PCPU
 *
 * Interrupts disabled.  Pending notifications go to the running context,
 * and its VCPU gets the VIRQ.
 */
void pmuvirt_xen_deliver_pmi(void);

/*
 * System-wide profiling (pmuvirt_xen_prof.c).  Interrupts off for all but
 * the commands' handlers and the destroy hooks.
 */
/*
 * The handlers of the PROF_* commands (rows of PMUVIRT_XEN_COMMANDS):
 * @op is the argument, copied in and checked by do_pmuvirt_op(), @arg the
 * guest's copy.
 */
long pmuvirt_xen_op_prof_start(struct vcpu *v, struct pmuvirt_xen_prof_start *op,
			       XEN_GUEST_HANDLE_PARAM(void) arg);
long pmuvirt_xen_op_prof_stop(struct vcpu *v, struct pmuvirt_xen_prof_stop *op,
			      XEN_GUEST_HANDLE_PARAM(void) arg);
long pmuvirt_xen_op_prof_map(struct vcpu *v, struct pmuvirt_xen_prof_map *op,
			     XEN_GUEST_HANDLE_PARAM(void) arg);
long pmuvirt_xen_op_prof_tail(struct vcpu *v, struct pmuvirt_xen_prof_tail *op,
			      XEN_GUEST_HANDLE_PARAM(void) arg);
long pmuvirt_xen_op_prof_release(struct vcpu *v, struct pmuvirt_xen_prof_release *op,
				 XEN_GUEST_HANDLE_PARAM(void) arg);
long pmuvirt_xen_op_prof_unmap(struct vcpu *v, struct pmuvirt_xen_prof_unmap *op,
			       XEN_GUEST_HANDLE_PARAM(void) arg);
/* @v's context, not running, follows the session before it is switched in. */
void pmuvirt_xen_prof_switch_in(struct vcpu *v, struct pmuvirt_ctx *ctx);
/* The context an idle PCPU runs: the session's counters, or NULL. */
struct pmuvirt_ctx *pmuvirt_xen_prof_idle(unsigned int cpu);
/*
 * Give @v's context (not running) the control @ctl (checked) next to the
 * session's counters when one runs.  Return: as pmuvirt_set_control().
 */
int pmuvirt_xen_prof_set(struct vcpu *v, struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
			 struct pmuvirt_error *err);
/*
 * @v's context (not running) leaves the session it joined, keeping its own
 * counts; it joins again when it is next switched in.
 */
void pmuvirt_xen_prof_leave(struct vcpu *v, struct pmuvirt_ctx *ctx);
/* -EBUSY when @ctl and a session that holds the counters do not fit together. */
int pmuvirt_xen_prof_fits(const struct pmuvirt_control *ctl, unsigned int max_counters,
			  struct pmuvirt_error *err);
/* Around a control's check and its setting: a session starts before or after. */
void pmuvirt_xen_prof_read_lock(void);
void pmuvirt_xen_prof_read_unlock(void);
/* The interrupted state of the PMI about to run (NULL: unknown). */
void pmuvirt_xen_prof_set_regs(const struct cpu_user_regs *regs);
/* After a PMI on @ctx: the VIRQ to the controller when its ring passed the mark. */
void pmuvirt_xen_prof_pmi_done(struct pmuvirt_ctx *ctx);
void pmuvirt_xen_prof_vcpu_destroy(struct vcpu *v);
void pmuvirt_xen_prof_domain_destroy(struct domain *d);

/*
 * The emulated PMU of stock HVM and PVH guests (pmuvirt_xen_vpmu.c).
 * Interrupts off for all but the boot-time init.
 */
void pmuvirt_xen_vpmu_init(void);
/* @v's emulated PMU on its new context @ctx, when @v is an HVM or PVH VCPU. */
int pmuvirt_xen_vpmu_vcpu_create(struct vcpu *v, struct pmuvirt_ctx *ctx);
/*
 * The domain's event policy for @v's emulated PMU, when it changed since
 * @v's copy: the domain's policy lock held; @v's context runs on this PCPU
 * or nowhere, and @v is in no intercept.
 */
void pmuvirt_xen_vpmu_policy(struct vcpu *v, struct pmuvirt_ctx *ctx,
			     const struct pmuvirt_xen_domain *dd);
/* @v goes: what its emulated PMU served, in Xen's log. */
void pmuvirt_xen_vpmu_vcpu_destroy(struct vcpu *v, struct pmuvirt_ctx *ctx);
/* Before the glue changes @ctx's control: the emulator lets go of it. */
void pmuvirt_xen_vpmu_off(struct vcpu *v, struct pmuvirt_ctx *ctx);
/* After: the emulator takes it back when the guest enables counters. */
void pmuvirt_xen_vpmu_on(struct vcpu *v, struct pmuvirt_ctx *ctx);
/* Does @v's RDPMC name the emulated PMU's counters only (a domain that never used pmuvirt)? */
bool pmuvirt_xen_vpmu_rdpmc_stock(const struct vcpu *v);
/* Must @v's RDPMC exit for its emulated PMU (as above, or a guest that programmed it)? */
bool pmuvirt_xen_vpmu_rdpmc_exits(const struct vcpu *v);
/* RDPMC of the emulated PMU: 0 and *@val, or -EPERM (#GP). */
int pmuvirt_xen_vpmu_rdpmc(struct vcpu *v, uint32_t ecx, uint64_t *val);
/* The guest's interrupt for the overflows @v's counters reached. */
void pmuvirt_xen_vpmu_deliver(struct vcpu *v);
/*
 * HVM and PVH save stream: @v's emulated PMU as a blob (-ENODATA when its
 * guest never used it), and back (the blob is untrusted; -ENODEV when @v
 * has no emulated PMU).  @v is paused, the caller holds the glue's locks.
 */
int pmuvirt_xen_vpmu_save(struct vcpu *v, struct pmuvirt_vpmu_saved *out);
int pmuvirt_xen_vpmu_restore(struct vcpu *v, const struct pmuvirt_vpmu_saved *in,
			     struct pmuvirt_error *err);

/*
 * PV guests' side of the emulated PMU (pmuvirt_xen_vpmu.c), for the
 * XENPMU_* ABI of pmuvirt_xen_pvpmu.c.
 */
/* The model PV VCPUs get, or NULL when PV guests get none. */
const struct pmuvirt_vpmu_model *pmuvirt_xen_vpmu_pv_model(void);
/* @v's emulated PMU at power-on state (XENPMU_init); @v runs here or nowhere, interrupts off. */
int pmuvirt_xen_vpmu_pv_start(struct vcpu *v, struct pmuvirt_ctx *ctx);
/* The emulated PMU off @v's context (XENPMU_finish); as above. */
void pmuvirt_xen_vpmu_pv_stop(struct vcpu *v, struct pmuvirt_ctx *ctx);
/* A register of @v's emulated PMU; interrupts off.  0 or the emulator's error. */
int pmuvirt_xen_vpmu_read(struct vcpu *v, uint32_t msr, uint64_t *val);
int pmuvirt_xen_vpmu_write(struct vcpu *v, uint32_t msr, uint64_t val);
/*
 * A PV VCPU's counters that select one mode count that mode only: the
 * sides of the control @asked (as the guest gave it; NULL: none), and
 * their state for @v's mode now; @v runs here or nowhere.
 */
void pmuvirt_xen_pv_sides(struct vcpu *v, const struct pmuvirt_control *asked);
/* @v's counters muted for its mode; @v's context runs on @pc or nowhere, interrupts off. */
void pmuvirt_xen_pv_remute(struct vcpu *v, struct pmuvirt_ctx *ctx, struct pmuvirt_pcpu *pc);
/* The emulator's interrupt for a PV VCPU: remember the overflows. */
void pmuvirt_xen_pv_pmi(struct vcpu *v, uint64_t ovf);
/* After pmuvirt_vpmu_deliver() for a PV VCPU: the page and VIRQ_XENPMU. */
void pmuvirt_xen_pv_notify(struct vcpu *v);
/* @v goes: its page and emulated PMU released (also XENPMU_finish's work). */
void pmuvirt_xen_pv_vcpu_destroy(struct vcpu *v);

#endif /* PMUVIRT_XEN_GLUE_H */
