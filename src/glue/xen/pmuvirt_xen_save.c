/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Each VCPU's counters in the domain's save stream (xl save and restore,
 * live migration), with Debian's toolstack as it is: a PV VCPU's blob
 * travels as pseudo-MSRs of XEN_DOMCTL_get/set_vcpu_msrs, an HVM or PVH
 * VCPU's as a record of the HVM context, and its emulated PMU's as a
 * second record.  libxc moves both without looking
 * inside.  What comes back is untrusted: pmuvirt_ctx_restore() checks the
 * blob, then the control must keep the privilege rule and the domain's
 * event policy as if the guest had set it.
 */
#include <xen/lib.h>
#include <xen/bitmap.h>
#include <xen/param.h>
#include <xen/sched.h>
#include <xen/guest_access.h>
#include <xen/xmalloc.h>
#include <public/domctl.h>
#include <asm/pmuvirt.h>
#ifdef CONFIG_HVM
#include <asm/hvm/save.h>
#endif

#include "pmuvirt_xen.h"
#include "pmuvirt_abi_check.h"

/*
 * Test instrument: the save of every VCPU of this domain fails as the save
 * of a VCPU whose counters cannot be saved does.  Set at run time from the
 * control domain (xl set-parameters pmuvirt-fail-save=DOMID); 0, the
 * default, fails nothing (dom0 is never saved).
 */
static unsigned int __read_mostly pmuvirt_xen_fail_save;
integer_runtime_param("pmuvirt-fail-save", pmuvirt_xen_fail_save);

/* Logged with the VCPU when its save fails, and with it the domain's. */
static int pmuvirt_xen_save_failed(const struct vcpu *v, int rc)
{
	printk(XENLOG_G_ERR "pmuvirt: %pv: counters cannot be saved (%d): the save fails\n", v, rc);
	return rc;
}

/* Logged with the VCPU when a restore is refused. */
static void pmuvirt_xen_refuse(const struct vcpu *v, const struct pmuvirt_error *err, int rc)
{
	printk(XENLOG_G_WARNING "pmuvirt: %pv: saved counters refused: %s (%d)\n", v,
	       err->reason ? err->reason : pmuvirt_strerror(rc), rc);
}

/**
 * pmuvirt_xen_vcpu_save() - a paused VCPU's counters as a blob
 * @v:		the VCPU (not running: its context is off every PCPU).
 * @out:	receives the blob.
 *
 * Return: 0; -ENODATA when there is nothing to save (no counter, or a
 * context a register fault took off the hardware); -EBUSY when the
 * context still runs, -EINVAL when it does not count its control, -EIO
 * for a domain pmuvirt-fail-save names: the caller fails the save rather
 * than drop the counters.
 */
static int pmuvirt_xen_vcpu_save(struct vcpu *v, struct pmuvirt_saved_ctx *out)
{
	struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	unsigned int fail = read_atomic(&pmuvirt_xen_fail_save);
	unsigned long flags;
	int rc;

	if (!dd || !ctx)
		return -ENODATA;
	if (fail && fail == v->domain->domain_id)
		return pmuvirt_xen_save_failed(v, -EIO);
	/*
	 * Under the locks VCPU_SET_CONTROL takes: a controlling domain may set
	 * this paused VCPU's counters from another PCPU meanwhile.
	 */
	pmuvirt_xen_prof_read_lock();
	spin_lock_irqsave(&dd->policy_lock, flags);
	if (!pmuvirt_xen_vcpu_of(ctx)->ctl.nr_counters) {
		rc = -ENODATA;
	} else {
		/* The blob holds the VCPU's own counters, not a profiling session's. */
		pmuvirt_xen_prof_leave(v, ctx);
		/* Nor the emulated PMU's (a record of its own, pmuvirt_xen_hvm_vpmu_save()). */
		pmuvirt_xen_vpmu_off(v, ctx);
		rc = pmuvirt_ctx_save(ctx, &pmuvirt_xen_vcpu_of(ctx)->ctl, out);
		pmuvirt_xen_vpmu_on(v, ctx);
	}
	spin_unlock_irqrestore(&dd->policy_lock, flags);
	pmuvirt_xen_prof_read_unlock();
	if (rc == -ENODATA)
		return rc;
	if (rc == -EFAULT) {
		printk(XENLOG_G_WARNING "pmuvirt: %pv: counters faulted, not saved\n", v);
		return -ENODATA;
	}
	return rc ? pmuvirt_xen_save_failed(v, rc) : 0;
}

/**
 * pmuvirt_xen_vcpu_restore() - give a VCPU the counters of a saved blob
 * @v:		the VCPU of a domain being restored (not running).
 * @in:		the blob, from the save stream.
 *
 * The blob and its control are checked completely before the VCPU counts
 * anything; a refusal leaves the VCPU without counters and is logged.
 * Return: 0 or the negative errno of the check that failed.
 */
static int pmuvirt_xen_vcpu_restore(struct vcpu *v, const struct pmuvirt_saved_ctx *in)
{
	static const struct pmuvirt_control empty = { .version = PMUVIRT_ABI_VERSION };
	struct pmuvirt_error err = { .counter = -1, .reason = NULL };
	struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;
	struct pmuvirt_ctx *ctx = v->arch.pmuvirt;
	unsigned long flags;
	int rc;

	if (!dd || !ctx) {
		printk(XENLOG_G_WARNING "pmuvirt: %pv: saved counters, but pmuvirt has no context here\n",
		       v);
		return -ENODEV;
	}
	pmuvirt_xen_prof_read_lock();
	spin_lock_irqsave(&dd->policy_lock, flags);
	pmuvirt_xen_prof_leave(v, ctx);
	pmuvirt_xen_vpmu_off(v, ctx);
	/* The blob's own checks, and the control against this PMU. */
	rc = pmuvirt_ctx_restore(ctx, in, &err);
	if (!rc)
		rc = pmuvirt_xen_check_saved(in, is_pv_domain(v->domain), pmuvirt_xen_pmu.caps, &err);
	if (!rc)
		rc = pmuvirt_validate_policy(&pmuvirt_xen_pmu, &in->ctl, ctx->max_counters, NULL,
					     NULL, &dd->policy, &err);
	/* The blob holds the control as counted: a PV guest's OS bits are USR. */
	pmuvirt_xen_vcpu_of(ctx)->pv_usr_only = pmuvirt_xen_vcpu_of(ctx)->pv_os_only = 0;
	if (!rc) {
		pmuvirt_xen_vcpu_of(ctx)->ctl = in->ctl;
		pmuvirt_xen_vcpu_of(ctx)->eff = in->ctl;
		pmuvirt_xen_vcpu_of(ctx)->policy_gen = dd->policy_gen;
	} else {
		pmuvirt_set_control(NULL, ctx, &empty, NULL);
		pmuvirt_xen_vcpu_of(ctx)->ctl = empty;
		pmuvirt_xen_vcpu_of(ctx)->eff = empty;
	}
	pmuvirt_xen_vpmu_on(v, ctx);
	spin_unlock_irqrestore(&dd->policy_lock, flags);
	pmuvirt_xen_prof_read_unlock();
	if (rc)
		pmuvirt_xen_refuse(v, &err, rc);
	return rc;
}

/* PV: the blob as pseudo-MSRs of XEN_DOMCTL_get/set_vcpu_msrs. */

int pmuvirt_xen_vcpu_msrs_get(struct vcpu *v, const struct xen_domctl_vcpu_msrs *vmsrs,
			      unsigned long *i)
{
	struct pmuvirt_saved_ctx *blob;
	const uint64_t *word;
	unsigned int k;
	int rc = 0;

	BUILD_BUG_ON(sizeof(*blob) != PMUVIRT_XEN_SAVE_MSRS * sizeof(uint64_t));
	if (!v->arch.pmuvirt)
		return 0;
	blob = xmalloc(struct pmuvirt_saved_ctx);
	if (!blob)
		return -ENOMEM;
	rc = pmuvirt_xen_vcpu_save(v, blob);
	if (rc) {
		if (rc == -ENODATA)
			rc = 0;
		goto out;
	}
	word = (const uint64_t *)blob;
	for (k = 0; k < PMUVIRT_XEN_SAVE_MSRS; k++, (*i)++) {
		struct xen_domctl_vcpu_msr msr = {
			.index = PMUVIRT_XEN_SAVE_MSR + k,
			.value = word[k],
		};

		if (*i < vmsrs->msr_count && copy_to_guest_offset(vmsrs->msrs, *i, &msr, 1)) {
			rc = -EFAULT;
			break;
		}
	}
out:
	xfree(blob);
	return rc;
}

/*
 * The words arrive one call each; the blob is checked once all have
 * (pmuvirt_xen_vcpu_msrs_end()).  The domctl lock keeps two set_vcpu_msrs
 * of one VCPU apart.
 */
int pmuvirt_xen_vcpu_msr_set(struct vcpu *v, uint32_t index, uint64_t value)
{
	struct pmuvirt_xen_vcpu *xv;
	unsigned int k = index - PMUVIRT_XEN_SAVE_MSR;

	if (!v->arch.pmuvirt || k >= PMUVIRT_XEN_SAVE_MSRS)
		return -EINVAL;
	xv = pmuvirt_xen_vcpu_of(v->arch.pmuvirt);
	if (!xv->incoming) {
		xv->incoming = xzalloc(struct pmuvirt_saved_ctx);
		if (!xv->incoming)
			return -ENOMEM;
		bitmap_zero(xv->words, PMUVIRT_XEN_SAVE_MSRS);
	}
	((uint64_t *)xv->incoming)[k] = value;
	__set_bit(k, xv->words);
	return 0;
}

bool pmuvirt_xen_vcpu_msrs_end(struct vcpu *v, bool complete)
{
	struct pmuvirt_error err = { .counter = -1, .reason = NULL };
	struct pmuvirt_xen_vcpu *xv;
	bool refused = false;

	if (!v->arch.pmuvirt)
		return false;
	xv = pmuvirt_xen_vcpu_of(v->arch.pmuvirt);
	if (!xv->incoming)
		return false;	/* no counters in the stream: the VCPU counts nothing */
	if (complete && !bitmap_full(xv->words, PMUVIRT_XEN_SAVE_MSRS)) {
		err.reason = "some words of the blob are missing";
		pmuvirt_xen_refuse(v, &err, -EINVAL);
		refused = true;
	} else if (complete) {
		refused = pmuvirt_xen_vcpu_restore(v, xv->incoming) != 0;
	}
	xfree(xv->incoming);
	xv->incoming = NULL;
	return refused;
}

#ifdef CONFIG_HVM
/* HVM and PVH: one record per counting VCPU in the HVM context. */

static int cf_check pmuvirt_xen_hvm_save(struct vcpu *v, hvm_domain_context_t *h)
{
	struct hvm_pmuvirt rec;
	int rc;

	BUILD_BUG_ON(sizeof(rec) != sizeof(struct pmuvirt_saved_ctx));
	BUILD_BUG_ON(HVM_SAVE_CODE(PMUVIRT) != PMUVIRT_XEN_HVM_SAVE_CODE);
	rc = pmuvirt_xen_vcpu_save(v, (struct pmuvirt_saved_ctx *)&rec);
	if (rc)
		return rc == -ENODATA ? 0 : rc;
	return hvm_save_entry(PMUVIRT, v->vcpu_id, h, &rec);
}

static int cf_check pmuvirt_xen_hvm_load(struct domain *d, hvm_domain_context_t *h)
{
	unsigned int vcpuid = hvm_load_instance(h);
	struct hvm_pmuvirt rec;
	struct vcpu *v;

	if (vcpuid >= d->max_vcpus || !(v = d->vcpu[vcpuid])) {
		printk(XENLOG_G_WARNING "pmuvirt: %pd has no VCPU %u for saved counters\n", d,
		       vcpuid);
		return -EINVAL;
	}
	if (hvm_load_entry(PMUVIRT, h, &rec))
		return -EINVAL;
	return pmuvirt_xen_vcpu_restore(v, (const struct pmuvirt_saved_ctx *)&rec);
}

HVM_REGISTER_SAVE_RESTORE(PMUVIRT, pmuvirt_xen_hvm_save, pmuvirt_xen_hvm_load, 1,
			  HVMSR_PER_VCPU);

/*
 * The emulated PMU of a stock guest: one record per VCPU whose guest used
 * it, after the VCPU's own counters (type codes load in order), so that
 * the restored guest counters find the VCPU's control in place.
 */
static int cf_check pmuvirt_xen_hvm_vpmu_save(struct vcpu *v, hvm_domain_context_t *h)
{
	struct pmuvirt_xen_domain *dd = v->domain->arch.pmuvirt;
	unsigned int fail = read_atomic(&pmuvirt_xen_fail_save);
	struct hvm_pmuvirt_vpmu rec;
	unsigned long flags;
	int rc;

	BUILD_BUG_ON(sizeof(rec) != sizeof(struct pmuvirt_vpmu_saved));
	BUILD_BUG_ON(HVM_SAVE_CODE(PMUVIRT_VPMU) != PMUVIRT_XEN_HVM_VPMU_SAVE_CODE);
	if (!dd)
		return 0;
	pmuvirt_xen_prof_read_lock();
	spin_lock_irqsave(&dd->policy_lock, flags);
	rc = pmuvirt_xen_vpmu_save(v, (struct pmuvirt_vpmu_saved *)&rec);
	spin_unlock_irqrestore(&dd->policy_lock, flags);
	pmuvirt_xen_prof_read_unlock();
	if (rc == -ENODATA)
		return 0;
	if (!rc && fail && fail == v->domain->domain_id)
		rc = -EIO;
	if (rc)
		return pmuvirt_xen_save_failed(v, rc);
	return hvm_save_entry(PMUVIRT_VPMU, v->vcpu_id, h, &rec);
}

static int cf_check pmuvirt_xen_hvm_vpmu_load(struct domain *d, hvm_domain_context_t *h)
{
	struct pmuvirt_error err = { .counter = -1, .reason = NULL };
	unsigned int vcpuid = hvm_load_instance(h);
	struct pmuvirt_xen_domain *dd = d->arch.pmuvirt;
	struct hvm_pmuvirt_vpmu rec;
	unsigned long flags;
	struct vcpu *v;
	int rc;

	if (vcpuid >= d->max_vcpus || !(v = d->vcpu[vcpuid]) || !dd) {
		printk(XENLOG_G_WARNING "pmuvirt: %pd has no VCPU %u for a saved emulated PMU\n",
		       d, vcpuid);
		return -EINVAL;
	}
	if (hvm_load_entry(PMUVIRT_VPMU, h, &rec))
		return -EINVAL;
	pmuvirt_xen_prof_read_lock();
	spin_lock_irqsave(&dd->policy_lock, flags);
	rc = pmuvirt_xen_vpmu_restore(v, (const struct pmuvirt_vpmu_saved *)&rec, &err);
	spin_unlock_irqrestore(&dd->policy_lock, flags);
	pmuvirt_xen_prof_read_unlock();
	if (rc)
		pmuvirt_xen_refuse(v, &err, rc);
	return rc;
}

HVM_REGISTER_SAVE_RESTORE(PMUVIRT_VPMU, pmuvirt_xen_hvm_vpmu_save, pmuvirt_xen_hvm_vpmu_load, 1,
			  HVMSR_PER_VCPU);
#endif
