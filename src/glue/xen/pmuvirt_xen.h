/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Internal interface between the files of pmuvirt's Xen glue. */
#ifndef PMUVIRT_XEN_GLUE_H
#define PMUVIRT_XEN_GLUE_H

#include <xen/spinlock.h>
#include <xen/guest_access.h>
#include <pmuvirt/pmuvirt.h>
#include <pmuvirt/xen.h>
#include "pmuvirt_x86.h"

/**
 * struct pmuvirt_xen_domain - a domain's shared VCPU records
 * @nr_records:	one per possible VCPU (d->max_vcpus).
 * @per_frame:	records per page; records never cross a page.
 * @nr_frames:	pages in @frames.
 * @frames:	Xen heap pages, shared read-only with the domain.
 */
struct pmuvirt_xen_domain {
	uint64_t tag;		/* security domain of its VCPUs' contexts */
	unsigned int nr_records;
	unsigned int per_frame;
	unsigned int nr_frames;
	void **frames;
	/* The event policy; taken with interrupts off (spin_lock_irqsave). */
	spinlock_t policy_lock;
	unsigned int policy_gen;	/* changes with every SET_POLICY */
	struct pmuvirt_policy policy;
};

/**
 * struct pmuvirt_xen_vcpu - what the glue keeps per VCPU, in front of its context
 * @ctl:	the control the VCPU's context was last given (checked again
 *		when the domain's policy changes).
 * @policy_gen:	the domain's policy_gen @ctl was last checked against.
 * @prof_gen:	the profiling session the context joined (0: none).
 * @eff:	what the context counts: @ctl, or with @prof_gen @ctl and
 *		the session's counters (pmuvirt_session_merge()).
 */
struct pmuvirt_xen_vcpu {
	struct pmuvirt_control ctl;
	unsigned int policy_gen;
	unsigned int prof_gen;
	struct pmuvirt_control eff;
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
 * pmuvirt_xen_record() - shared record of VCPU @vcpu_id of a domain
 * @dd:		the domain's records.
 * @vcpu_id:	the VCPU.
 *
 * Return: the record, or NULL if @vcpu_id has none.
 */
struct pmuvirt_shared_ctx *pmuvirt_xen_record(const struct pmuvirt_xen_domain *dd,
					      unsigned int vcpu_id);

/* The emulated PMU (boot option pmuvirt-emulate), a test instrument. */
extern bool pmuvirt_xen_emulate;
void *pmuvirt_xen_emu_hw_arg(unsigned int cpu);
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
 * pmuvirt_xen_prof_op() and the destroy hooks.
 */
/* The hypercall's PROF_* commands. */
long pmuvirt_xen_prof_op(struct vcpu *v, unsigned int cmd, XEN_GUEST_HANDLE_PARAM(void) arg);
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

/* Counters of @ctx its owner sees (a session's come after them). */
static inline uint32_t pmuvirt_xen_own_mask(const struct pmuvirt_ctx *ctx)
{
	return ctx->nr_shared >= 32 ? ~0u : (1u << ctx->nr_shared) - 1;
}

#endif /* PMUVIRT_XEN_GLUE_H */
