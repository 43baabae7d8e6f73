/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The pmuvirt hypercall (include/pmuvirt/xen.h).
 *
 * Each command is one row of PMUVIRT_XEN_COMMANDS (src/abi/
 * pmuvirt_abi_check.h): its argument's size and the fields that must be
 * zero, who may call it, and its handler here, pmuvirt_xen_op_<arg>() (the
 * profiling commands' are in pmuvirt_xen_prof.c).  do_pmuvirt_op() does
 * what every command needs before its handler runs: the header checked
 * before anything else is read, the whole argument copied into Xen's
 * memory and checked by the row (src/abi/xen_hcall.c, fuzzed and
 * unit-tested outside Xen).  Everything the guest passes is untrusted:
 * counter numbers are bounded by the calling VCPU's own control, and guest
 * addresses only go through copy_{from,to}_guest.  Who may call a command
 * (its row's caller) is checked by its handler, where the ABI puts the
 * refusal: a command that names a domain (MANAGER) checks the right to
 * manage that domain, PROF_START (CONTROL) refuses other domains after
 * its argument's checks, and the session's controller (CONTROLLER) is
 * checked under the session's lock.
 */
#include <xen/lib.h>
#include <xen/sched.h>
#include <xen/guest_access.h>
#include <xen/hypercall.h>
#include <xen/mm.h>
#include <xen/rcupdate.h>
#include <xsm/xsm.h>
#include <public/domctl.h>
#include <asm/page.h>
#include <asm/paging.h>

#include "pmuvirt_xen.h"
#include "pmuvirt_abi_check.h"

/* The counters of @ctx its owner set (not a profiling session's); interrupts off. */
static int pmuvirt_xen_read_own(struct pmuvirt_ctx *ctx, uint32_t *nr, uint64_t *value)
{
	uint64_t all[PMUVIRT_MAX_COUNTERS];
	unsigned int i;
	int rc = pmuvirt_read(ctx, all);

	*nr = min_t(uint32_t, pmuvirt_ctx_nr_own(ctx), PMUVIRT_MAX_COUNTERS);
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++)
		value[i] = i < *nr ? all[i] : 0;
	return rc;
}

/* @q: all output. */
static long pmuvirt_xen_op_query(struct vcpu *v, struct pmuvirt_xen_query *q,
				  XEN_GUEST_HANDLE_PARAM(void) arg)
{
	const struct pmuvirt_pmu *pmu = &pmuvirt_xen_pmu;
	const struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;
	unsigned int i;

	memset(q, 0, sizeof(*q));
	q->hdr.version = PMUVIRT_XEN_VERSION;
	q->hdr.size = sizeof(*q);
	q->abi_version = PMUVIRT_ABI_VERSION;
	q->arch = pmu->arch;
	q->model = pmu->model;
	/* Xen sets PMUVIRT_CTR_GUEST itself (pmuvirt_xen_guest_privilege()). */
	q->caps = pmu->caps & ~PMUVIRT_CAP_GUEST_ONLY;
	q->nr_slots = min_t(uint32_t, pmu->nr_slots, PMUVIRT_MAX_SLOTS);
	q->nr_gp = pmu->nr_gp;
	q->nr_fixed = pmu->nr_fixed;
	q->virq = PMUVIRT_XEN_VIRQ;
	q->max_counters = PMUVIRT_MAX_COUNTERS;
	q->nr_records = dd ? dd->nr_records : 0;
	q->record_size = sizeof(struct pmuvirt_shared_ctx);
	q->nr_frames = dd ? dd->nr_frames : 0;
	q->vcpu_id = v->vcpu_id;
	safe_strcpy(q->name, pmu->name);
	for (i = 0; i < q->nr_slots; i++) {
		q->slot[i].cls = pmu->slot[i].cls;
		q->slot[i].index = pmu->slot[i].index;
		q->slot[i].width = pmu->slot[i].width;
		q->slot[i].flags = pmu->slot[i].flags;
		q->slot[i].events = pmu->slot[i].events;
		q->slot[i].user_index = pmu->slot[i].user_index;
		q->slot[i].threshold = pmu->slot[i].threshold;
	}
	return copy_to_guest(arg, q, 1) ? -EFAULT : 0;
}

static long pmuvirt_xen_op_set_control(struct vcpu *v, struct pmuvirt_xen_set_control *op,
					XEN_GUEST_HANDLE_PARAM(void) arg)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_error err = { .counter = -1, .reason = NULL };
	unsigned long flags;
	int rc;

	/* Xen's own events never count for a guest; the guest sees its flags back. */
	ctl = op->ctl;
	rc = pmuvirt_xen_guest_privilege(&ctl, is_pv_domain(v->domain), pmuvirt_xen_pmu.caps, &err);
	/* pmuvirt_validate_policy() checks version, counter count, reserved bits, policy. */
	local_irq_save(flags);
	if (!rc)
		rc = pmuvirt_xen_set_vcpu_control(v, &ctl, &err);
	local_irq_restore(flags);
	if (!rc)
		pmuvirt_xen_pv_sides(v, &op->ctl);
	op->err_counter = rc ? err.counter : -1;
	if (rc && err.reason)
		gdprintk(XENLOG_DEBUG, "pmuvirt: control refused: counter %d: %s\n",
			 err.counter, err.reason);
	if (copy_to_guest(arg, op, 1))
		return -EFAULT;
	return rc;
}

static long pmuvirt_xen_op_arm(struct vcpu *v, struct pmuvirt_xen_arm *op,
				XEN_GUEST_HANDLE_PARAM(void) arg)
{
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	struct pmuvirt_pcpu *pc;
	unsigned long flags;
	int rc;

	local_irq_save(flags);
	pc = pmuvirt_xen_this_pcpu();
	/* pmuvirt_arm_counters() makes the same checks again before it changes anything. */
	rc = pc ? pmuvirt_xen_check_arm(op, ctx) : -ENODEV;
	if (!rc)
		rc = pmuvirt_arm_counters(pc->running == ctx ? pc : NULL, ctx, op->mask,
					  op->remaining, op->period);
	local_irq_restore(flags);
	return rc;
}

static long pmuvirt_xen_op_map_shared(struct vcpu *v, struct pmuvirt_xen_map_shared *op,
				       XEN_GUEST_HANDLE_PARAM(void) arg)
{
	const struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;
	XEN_GUEST_HANDLE_PARAM(void) frames;
	unsigned int capacity, i;

	/* HVM guests need the frames in their physical map first. */
	if (!is_pv_domain(v->domain))
		return -EOPNOTSUPP;
	if (!dd)
		return -ENODEV;
	capacity = op->nr_frames;
	op->nr_records = dd->nr_records;
	op->record_size = sizeof(struct pmuvirt_shared_ctx);
	op->per_frame = dd->per_frame;
	op->nr_frames = dd->nr_frames;
	if (copy_to_guest(arg, op, 1))
		return -EFAULT;
	if (capacity < dd->nr_frames)
		return -ENOSPC;
	frames = guest_handle_from_ptr((uintptr_t)op->frames, void);
	for (i = 0; i < dd->nr_frames; i++) {
		uint64_t mfn = mfn_x(virt_to_mfn(dd->frames[i]));

		if (copy_to_guest_offset(frames, i, &mfn, 1))
			return -EFAULT;
	}
	return 0;
}

/* MAP_PHYS and UNMAP_PHYS: for a domain with records whose p2m Xen translates. */
static int phys_domain(const struct domain *d)
{
	/* PV guests map machine frames (MAP_SHARED). */
	if (!is_hvm_domain(d) || !paging_mode_translate(d))
		return -EOPNOTSUPP;
	return d->arch.pmuvirt ? 0 : -ENODEV;
}

static long pmuvirt_xen_op_map_phys(struct vcpu *v, struct pmuvirt_xen_map_phys *op,
				     XEN_GUEST_HANDLE_PARAM(void) arg)
{
	struct domain *d = v->domain;
	const struct pmuvirt_xen_domain *dd = d->arch.pmuvirt;
	XEN_GUEST_HANDLE_PARAM(uint64_t) handle;
	uint64_t *gfns;
	int rc;

	rc = phys_domain(d);
	if (rc)
		return rc;
	rc = pmuvirt_xen_check_map_phys(op, dd->nr_frames);
	op->nr_records = dd->nr_records;
	op->record_size = sizeof(struct pmuvirt_shared_ctx);
	op->per_frame = dd->per_frame;
	op->nr_frames = dd->nr_frames;
	if (copy_to_guest(arg, op, 1))
		return -EFAULT;
	if (rc)
		return rc;
	gfns = xmalloc_array(uint64_t, dd->nr_frames);
	if (!gfns)
		return -ENOMEM;
	handle = guest_handle_from_ptr((uintptr_t)op->gfns, uint64_t);
	rc = copy_from_guest(gfns, handle, dd->nr_frames) ? -EFAULT : 0;
	if (!rc)
		rc = pmuvirt_xen_check_gfns(gfns, dd->nr_frames,
					    1ull << (d->arch.cpuid->extd.maxphysaddr - PAGE_SHIFT));
	if (!rc)
		rc = pmuvirt_xen_place(d, gfns);
	xfree(gfns);
	return rc;
}

static long pmuvirt_xen_op_unmap_phys(struct vcpu *v, struct pmuvirt_xen_unmap_phys *op,
				       XEN_GUEST_HANDLE_PARAM(void) arg)
{
	struct domain *d = v->domain;
	int rc;

	rc = phys_domain(d);
	if (rc)
		return rc;
	op->nr_frames = pmuvirt_xen_unplace(d);
	return copy_to_guest(arg, op, 1) ? -EFAULT : 0;
}

static long pmuvirt_xen_op_read(struct vcpu *v, struct pmuvirt_xen_read *op,
				 XEN_GUEST_HANDLE_PARAM(void) arg)
{
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	unsigned long flags;
	int rc;

	local_irq_save(flags);
	rc = pmuvirt_xen_read_own(ctx, &op->nr_counters, op->value);
	local_irq_restore(flags);
	if (copy_to_guest(arg, op, 1))
		return -EFAULT;
	return rc;
}

static long pmuvirt_xen_op_take_overflows(struct vcpu *v,
					   struct pmuvirt_xen_take_overflows *op,
					   XEN_GUEST_HANDLE_PARAM(void) arg)
{
	unsigned long flags;
	unsigned int i;

	memset(op->count, 0, sizeof(op->count));
	local_irq_save(flags);
	op->mask = pmuvirt_take_overflows(v->arch.pmuvirt, op->count) &
		   pmuvirt_ctx_own_mask(v->arch.pmuvirt);
	local_irq_restore(flags);
	/* A profiling session's counters are not the guest's to see. */
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++)
		if (!(op->mask & (1u << i)))
			op->count[i] = 0;
	return copy_to_guest(arg, op, 1) ? -EFAULT : 0;
}

static long pmuvirt_xen_op_set_policy(struct vcpu *v, struct pmuvirt_xen_set_policy *op,
				       XEN_GUEST_HANDLE_PARAM(void) arg)
{
	struct pmuvirt_xen_domain *dd;
	struct domain *d;
	unsigned long flags;
	int rc;

	if (op->domid > 0xffff || pmuvirt_policy_validate(&op->policy))
		return -EINVAL;
	d = rcu_lock_domain_by_any_id(op->domid);
	if (!d)
		return -ESRCH;
	/* What a domctl on @d needs (by default: the control domain). */
	rc = xsm_domctl(XSM_OTHER, d, XEN_DOMCTL_set_cpu_policy, 0);
	dd = d->arch.pmuvirt;
	if (!rc && !dd)
		rc = -ENODEV;
	if (!rc) {
		spin_lock_irqsave(&dd->policy_lock, flags);
		dd->policy = op->policy;
		write_atomic(&dd->policy_gen, dd->policy_gen + 1);
		spin_unlock_irqrestore(&dd->policy_lock, flags);
		/* The caller's VCPU at once; the others at their next switch in. */
		if (d == v->domain) {
			local_irq_save(flags);
			pmuvirt_xen_enforce_policy(v);
			local_irq_restore(flags);
		}
	}
	rcu_unlock_domain(d);
	return rc;
}

/*
 * VCPU @vcpu_id of domain @domid for a command from @v: the caller's own
 * VCPU, or a VCPU of a domain the caller may manage (Xen's XSM check for
 * @domctl on it, made before anything else of the domain is looked at).
 * Another VCPU of the caller's own domain is refused: pausing it could
 * wait forever on a VCPU that is pausing the caller.  On success the
 * domain is RCU-locked and the VCPU is @v or paused (not running
 * anywhere, its context off every PCPU); pmuvirt_xen_put_vcpu() undoes
 * both.
 */
static int pmuvirt_xen_get_vcpu(struct vcpu *v, uint32_t domid, uint32_t vcpu_id,
				unsigned int domctl, struct vcpu **out)
{
	struct domain *d = rcu_lock_domain_by_any_id(domid);
	struct vcpu *t = NULL;
	int rc;

	if (!d)
		return -ESRCH;
	rc = d == v->domain ? 0 : xsm_domctl(XSM_OTHER, d, domctl, 0);
	if (!rc && d->is_dying)
		rc = -ESRCH;
	if (!rc && !(t = domain_vcpu(d, vcpu_id)))
		rc = -ENOENT;
	if (!rc && d == v->domain && t != v)
		rc = -EDEADLK;
	if (!rc && !t->arch.pmuvirt)
		rc = -ENODEV;
	if (rc) {
		rcu_unlock_domain(d);
		return rc;
	}
	if (t != v)
		vcpu_pause(t);
	*out = t;
	return 0;
}

static void pmuvirt_xen_put_vcpu(struct vcpu *v, struct vcpu *t)
{
	struct domain *d = t->domain;

	if (t != v)
		vcpu_unpause(t);
	rcu_unlock_domain(d);
}

static long pmuvirt_xen_op_vcpu_read(struct vcpu *v, struct pmuvirt_xen_vcpu_read *op,
				      XEN_GUEST_HANDLE_PARAM(void) arg)
{
	struct pmuvirt_ctx *ctx;
	unsigned long flags;
	struct vcpu *t;
	int rc;

	rc = pmuvirt_xen_get_vcpu(v, op->domid, op->vcpu, XEN_DOMCTL_getvcpucontext, &t);
	if (rc)
		return rc;
	ctx = t->arch.pmuvirt;
	local_irq_save(flags);
	rc = pmuvirt_xen_read_own(ctx, &op->nr_counters, op->value);
	local_irq_restore(flags);
	pmuvirt_xen_put_vcpu(v, t);
	if (copy_to_guest(arg, op, 1))
		return -EFAULT;
	return rc;
}

static long pmuvirt_xen_op_vcpu_set_control(struct vcpu *v,
					     struct pmuvirt_xen_vcpu_set_control *op,
					     XEN_GUEST_HANDLE_PARAM(void) arg)
{
	struct pmuvirt_error err = { .counter = -1, .reason = NULL };
	struct pmuvirt_control ctl;
	unsigned long flags;
	struct vcpu *t;
	int rc;

	rc = pmuvirt_xen_get_vcpu(v, op->domid, op->vcpu, XEN_DOMCTL_setvcpucontext, &t);
	if (rc)
		return rc;
	/* As SET_CONTROL, with the target domain's privilege mode and policy. */
	ctl = op->ctl;
	rc = pmuvirt_xen_guest_privilege(&ctl, is_pv_domain(t->domain), pmuvirt_xen_pmu.caps, &err);
	local_irq_save(flags);
	if (!rc)
		rc = pmuvirt_xen_set_vcpu_control(t, &ctl, &err);
	local_irq_restore(flags);
	if (!rc)
		pmuvirt_xen_pv_sides(t, &op->ctl);
	pmuvirt_xen_put_vcpu(v, t);
	op->err_counter = rc ? err.counter : -1;
	if (copy_to_guest(arg, op, 1))
		return -EFAULT;
	return rc;
}

/*
 * The argument of command @cmd from the guest's @arg into @u: @size bytes
 * (its struct's), then the checks of its row.  -EFAULT when the copy fails.
 */
static int copy_arg(unsigned int cmd, XEN_GUEST_HANDLE_PARAM(void) arg,
		    union pmuvirt_xen_any_arg *u, size_t size)
{
	XEN_GUEST_HANDLE_PARAM(char) bytes = guest_handle_cast(arg, char);

	if (copy_from_guest((char *)u, bytes, size))
		return -EFAULT;
	return pmuvirt_xen_check_arg(cmd, u, size);
}

/**
 * do_pmuvirt_op() - the pmuvirt hypercall
 * @cmd:	PMUVIRT_XEN_*.
 * @arg:	guest address of the command's argument struct.
 *
 * Return: 0 or a negative errno, see include/pmuvirt/xen.h.
 */
long do_pmuvirt_op(unsigned int cmd, XEN_GUEST_HANDLE_PARAM(void) arg)
{
	const struct pmuvirt_xen_cmd *c = pmuvirt_xen_cmd(cmd);
	union pmuvirt_xen_any_arg u;
	struct vcpu *v = current;
	int rc;

	if (!c)
		return -EOPNOTSUPP;
	if (pmuvirt_xen_refused)
		return pmuvirt_xen_refused;
	if (!pmuvirt_xen_ready || !v->arch.pmuvirt)
		return -ENODEV;
	/* From now on the domain's RDPMC names pmuvirt's counters (xen.md, "Stock guests"). */
	if (v->domain->arch.pmuvirt && !v->domain->arch.pmuvirt->aware)
		write_atomic(&v->domain->arch.pmuvirt->aware, true);
	/* The header alone first: a wrong version or size reads no further. */
	if (copy_from_guest(&u.hdr, arg, 1))
		return -EFAULT;
	rc = pmuvirt_xen_check_hdr(cmd, &u.hdr);
	if (!rc)
		rc = copy_arg(cmd, arg, &u, c->size);
	if (rc)
		return rc;

	switch (cmd) {
#define PMUVIRT_XEN_OP_CASE(NAME, type, ...)				\
	case PMUVIRT_XEN_##NAME:					\
		return pmuvirt_xen_op_##type(v, &u.type, arg);
	PMUVIRT_XEN_COMMANDS(PMUVIRT_XEN_OP_CASE)
#undef PMUVIRT_XEN_OP_CASE
	}
	return -EOPNOTSUPP;
}
