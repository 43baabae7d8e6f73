// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * The PMU of stock PV guests through Xen's XENPMU_* ABI (public/pmu.h):
 * pmuvirt's emulated PMU (pmuvirt_xen_vpmu.c) serves the guest's trapped
 * PMU MSRs; at an overflow the guest's struct xen_pmu_data gets the
 * interrupted registers and the model's context, AMD or Intel (PMU_CACHED),
 * and the VCPU VIRQ_XENPMU; XENPMU_flush writes the context back through
 * the emulator's checks.  docs/xen.md, "Stock guests", says what guests see.
 */
#include <xen/lib.h>
#include <xen/sched.h>
#include <xen/event.h>
#include <xen/domain_page.h>
#include <xen/guest_access.h>
#include <asm/apic.h>
#include <asm/msr-index.h>
#include <asm/p2m.h>
#include <asm/pmuvirt.h>
#include <public/pmu.h>

#include "pmuvirt_xen.h"

#define K7_CTL0	0xc0010000u
#define K7_CTR0	0xc0010004u
#define F15_CTL0	0xc0010200u

/*
 * One register of the page's context: its MSR in the model, where the
 * page holds it, and what the interrupt and the flush do with it.
 */
#define PV_READ		0x1u	/* the interrupt reads it from the emulator (else 0) */
#define PV_WRITE	0x2u	/* the flush writes it back when it changed */

struct pv_reg {
	uint32_t msr;
	uint32_t flags;
	uint64_t *slot;
};

static void pv_reg(struct pv_reg *r, unsigned int *n, uint32_t msr, uint32_t flags,
		   uint64_t *slot)
{
	r[*n] = (struct pv_reg){ .msr = msr, .flags = flags, .slot = slot };
	(*n)++;
}

/* The context's offset fields, as Xen's vPMU sets them (the guest reads them). */
static void pv_offsets(struct xen_pmu_data *d, const struct pmuvirt_vpmu_model *m)
{
	if (m->vendor == PMUVIRT_VPMU_AMD) {
		d->pmu.c.amd.counters = sizeof(d->pmu.c.amd);
		d->pmu.c.amd.ctrls = sizeof(d->pmu.c.amd) + m->nr_gp * sizeof(uint64_t);
	} else {
		d->pmu.c.intel.fixed_counters = sizeof(d->pmu.c.intel);
		d->pmu.c.intel.arch_counters = sizeof(d->pmu.c.intel) +
					       m->nr_fixed * sizeof(uint64_t);
		d->pmu.c.intel.debugctl = 0;
	}
}

/*
 * The registers of the page's context of model @m, at the offsets Xen's
 * own vPMU uses (pv_offsets()), in the order the flush writes them back:
 * listed in @r (PMUVIRT_XEN_PV_REGS at most); returns how many.
 *
 * AMD (svm/vpmu.c): the counters right after the two offset fields, the
 * event selects after them.  Intel (vpmu_intel.c): after the fixed part
 * the fixed counters, then a {counter, control} pair per general counter;
 * the counters first, the controls, FIXED_CTR_CTRL, GLOBAL_OVF_CTRL (the
 * guest's acknowledgement, 0 at the interrupt), GLOBAL_CTRL, as Xen loads
 * them.  GLOBAL_STATUS is the guest's to read (Linux clears its copy's
 * bits as it writes GLOBAL_OVF_CTRL) and is never written back; DS_AREA
 * and PEBS_ENABLE are 0 and stay so (no model has them: the flush's check
 * refuses any other value); DEBUGCTL is 0 and not read back (Xen's vPMU
 * does not load it either).
 */
static unsigned int pv_regs(struct xen_pmu_data *d, const struct pmuvirt_vpmu_model *m,
			    struct pv_reg *r)
{
	const uint32_t rw = PV_READ | PV_WRITE;
	unsigned int i, n = 0;

	if (m->vendor == PMUVIRT_VPMU_AMD) {
		struct xen_pmu_amd_ctxt *c = &d->pmu.c.amd;
		bool legacy = m->version == PMUVIRT_VPMU_AMD_LEGACY;

		for (i = 0; i < m->nr_gp; i++)
			pv_reg(r, &n, legacy ? K7_CTR0 + i : F15_CTL0 + 2 * i + 1, rw, &c->regs[i]);
		for (i = 0; i < m->nr_gp; i++)
			pv_reg(r, &n, legacy ? K7_CTL0 + i : F15_CTL0 + 2 * i, rw,
			       &c->regs[m->nr_gp + i]);
	} else {
		struct xen_pmu_intel_ctxt *c = &d->pmu.c.intel;
		struct xen_pmu_cntr_pair *pair = (void *)&c->regs[m->nr_fixed];
		/* Xen's vPMU loads the full-width aliases where the model has them. */
		uint32_t pmc = m->flags & PMUVIRT_VPMU_M_FW_WRITE ? MSR_IA32_A_PERFCTR0 :
								    MSR_IA32_PERFCTR0;
		bool global = m->version >= 2;

		for (i = 0; i < m->nr_fixed; i++)
			pv_reg(r, &n, MSR_CORE_PERF_FIXED_CTR0 + i, rw, &c->regs[i]);
		for (i = 0; i < m->nr_gp; i++)
			pv_reg(r, &n, pmc + i, rw, &pair[i].counter);
		for (i = 0; i < m->nr_gp; i++)
			pv_reg(r, &n, MSR_P6_EVNTSEL(i), rw, &pair[i].control);
		pv_reg(r, &n, MSR_CORE_PERF_FIXED_CTR_CTRL, global ? rw : PV_WRITE, &c->fixed_ctrl);
		pv_reg(r, &n, MSR_CORE_PERF_GLOBAL_STATUS, global ? PV_READ : 0, &c->global_status);
		pv_reg(r, &n, MSR_CORE_PERF_GLOBAL_OVF_CTRL, PV_WRITE, &c->global_ovf_ctrl);
		pv_reg(r, &n, MSR_CORE_PERF_GLOBAL_CTRL, global ? rw : PV_WRITE, &c->global_ctrl);
		pv_reg(r, &n, MSR_IA32_DS_AREA, PV_WRITE, &c->ds_area);
		pv_reg(r, &n, MSR_IA32_PEBS_ENABLE, PV_WRITE, &c->pebs_enable);
	}
	return n;
}

static struct pmuvirt_xen_vcpu *xv_of(const struct vcpu *v)
{
	return v->arch.pmuvirt ? pmuvirt_xen_vcpu_of(v->arch.pmuvirt) : NULL;
}

/* Does @v's XENPMU_* go here rather than to Xen's vPMU? */
bool pmuvirt_xen_xenpmu_served(const struct vcpu *v)
{
	return is_pv_vcpu(v) && v->arch.pmuvirt && pmuvirt_xen_vpmu_pv_model();
}

void pmuvirt_xen_pv_pmi(struct vcpu *v, uint64_t ovf)
{
	struct pmuvirt_xen_vcpu *xv = xv_of(v);

	if (xv)
		xv->pv_ovf |= ovf;
}

/*
 * The guest's interrupt: its registers when the overflow was found (a
 * PV kernel runs in ring 3: TF_kernel_mode says whose they are), the
 * model's context (pv_regs()), then PMU_CACHED and VIRQ_XENPMU.  Once per
 * overflow: while the page is cached, later overflows wait for the flush.
 */
void pmuvirt_xen_pv_notify(struct vcpu *v)
{
	struct pmuvirt_xen_vcpu *xv = xv_of(v);
	const struct pmuvirt_vpmu_model *m = pmuvirt_xen_vpmu_pv_model();
	const struct cpu_user_regs *regs;
	struct xen_pmu_data *d;
	struct pv_reg r[PMUVIRT_XEN_PV_REGS];
	uint64_t flags = PMU_SAMPLE_PV;
	unsigned int i, n;

	if (!xv || !m || !xv->pv_ovf || !xv->pv_data || xv->pv_cached)
		return;
	d = xv->pv_data;
	if (xv->pv_lvtpc & APIC_LVT_MASKED) {
		xv->pv_ovf = 0;
		return;
	}
	regs = v == current ? guest_cpu_user_regs() : &v->arch.user_regs;
	d->pmu.r.regs.ip = regs->rip;
	d->pmu.r.regs.sp = regs->rsp;
	d->pmu.r.regs.flags = regs->rflags;
	d->pmu.r.regs.cs = regs->cs;
	d->pmu.r.regs.ss = regs->ss;
	d->pmu.r.regs.cpl = !(v->arch.flags & TF_kernel_mode) ? 3 : 0;
	if (!(v->arch.flags & TF_kernel_mode))
		flags |= PMU_SAMPLE_USER;
	d->domain_id = DOMID_SELF;
	d->vcpu_id = v->vcpu_id;
	d->pcpu_id = is_hardware_domain(v->domain) ? smp_processor_id() : v->vcpu_id;
	pv_offsets(d, m);
	n = pv_regs(d, m, r);
	for (i = 0; i < n; i++) {
		if ((r[i].flags & PV_READ) && pmuvirt_xen_vpmu_read(v, r[i].msr, &xv->pv_val[i])) {
			printk(XENLOG_G_WARNING "pmuvirt: %pv: XENPMU: MSR %#x unreadable\n", v,
			       r[i].msr);
			xv->pv_val[i] = 0;
		} else if (!(r[i].flags & PV_READ)) {
			xv->pv_val[i] = 0;
		}
		*r[i].slot = xv->pv_val[i];
	}
	xv->pv_ovf = 0;
	xv->pv_cached = 1;
	smp_wmb();
	d->pmu.pmu_flags = flags | PMU_CACHED;
	xv->nr_pv_virqs++;
	send_guest_vcpu_virq(v, VIRQ_XENPMU);
}

/*
 * XENPMU_flush: the context the guest's handler left in the page goes
 * back to the emulator.  Only what changed since the interrupt is
 * written (a counter the handler did not re-arm keeps counting); every
 * write is checked first, so a page with one bad value changes nothing
 * and stays cached (-EINVAL).
 */
static long pv_flush(struct vcpu *v, struct pmuvirt_xen_vcpu *xv)
{
	const struct pmuvirt_vpmu_model *m = pmuvirt_xen_vpmu_pv_model();
	struct xen_pmu_data *d = xv->pv_data;
	struct pv_reg r[PMUVIRT_XEN_PV_REGS];
	uint64_t val[PMUVIRT_XEN_PV_REGS];
	unsigned long irqf;
	unsigned int i, n;
	int rc = 0;

	if (!d || !xv->has_vpmu)
		return -EINVAL;
	xv->pv_lvtpc = read_atomic(&d->pmu.l.lapic_lvtpc);
	if (!xv->pv_cached)
		return 0;
	n = pv_regs(d, m, r);
	for (i = 0; i < n; i++) {
		val[i] = read_atomic(r[i].slot);
		if (!(r[i].flags & PV_WRITE) || val[i] == xv->pv_val[i])
			continue;
		if (pmuvirt_vpmu_wrmsr_check(&xv->vpmu, r[i].msr, val[i])) {
			gprintk(XENLOG_WARNING, "pmuvirt: XENPMU_flush: MSR %#x: %#"PRIx64" refused\n",
				r[i].msr, val[i]);
			return -EINVAL;
		}
	}
	local_irq_save(irqf);
	for (i = 0; i < n && !rc; i++)
		if ((r[i].flags & PV_WRITE) && val[i] != xv->pv_val[i])
			rc = pmuvirt_xen_vpmu_write(v, r[i].msr, val[i]);
	if (rc)
		gprintk(XENLOG_WARNING, "pmuvirt: XENPMU_flush: %d\n", rc);
	xv->pv_cached = 0;
	write_atomic(&d->pmu.pmu_flags, d->pmu.pmu_flags & ~PMU_CACHED);
	xv->nr_pv_flushes++;
	/* Overflows that came while the page was cached (the VIRQ again). */
	pmuvirt_xen_vpmu_deliver(v);
	local_irq_restore(irqf);
	return 0;
}

/* @v's page and emulated PMU let go; @v runs here (current) or nowhere. */
static void pv_release(struct vcpu *v, struct pmuvirt_xen_vcpu *xv)
{
	void *data;
	unsigned long irqf;
	mfn_t mfn;

	local_irq_save(irqf);
	data = xv->pv_data;
	xv->pv_data = NULL;
	xv->pv_cached = 0;
	xv->pv_ovf = 0;
	pmuvirt_xen_vpmu_pv_stop(v, v->arch.pmuvirt);
	local_irq_restore(irqf);
	if (!data)
		return;
	if (xv->nr_pv_virqs)
		printk(XENLOG_G_INFO "pmuvirt: %pv: XENPMU: %u VIRQs, %u flushes\n", v,
		       xv->nr_pv_virqs, xv->nr_pv_flushes);
	xv->nr_pv_virqs = xv->nr_pv_flushes = 0;
	mfn = domain_page_map_to_mfn(data);
	unmap_domain_page_global(data);
	put_page_and_type(mfn_to_page(mfn));
}

/*
 * XENPMU_init and _finish name a VCPU of the caller's domain: another
 * one is paused meanwhile.  One at a time per domain, by trylock: a
 * second caller gets -EBUSY rather than spin while it may be the VCPU
 * the first one pauses.
 */
/* The VCPU of @d that @p names, with its glue state: 0, -EINVAL or -ENOENT. */
static int pv_target(struct domain *d, const struct xen_pmu_params *p, struct vcpu **v,
		     struct pmuvirt_xen_vcpu **xv)
{
	if (p->vcpu >= d->max_vcpus || !d->vcpu[p->vcpu])
		return -EINVAL;
	*v = d->vcpu[p->vcpu];
	*xv = xv_of(*v);
	return *xv && d->arch.pmuvirt ? 0 : -ENOENT;
}

static long pv_init(struct domain *d, const struct xen_pmu_params *p)
{
	struct pmuvirt_xen_domain *dd = d->arch.pmuvirt;
	struct pmuvirt_xen_vcpu *xv;
	struct page_info *page;
	struct vcpu *v;
	unsigned long irqf;
	void *data;
	int rc = pv_target(d, p, &v, &xv);

	if (rc)
		return rc;
	/* The largest context fits in the page after the fixed part. */
	BUILD_BUG_ON(offsetof(struct xen_pmu_data, pmu.c.intel.regs) +
		     PMUVIRT_VPMU_MAX_FIXED * sizeof(uint64_t) +
		     PMUVIRT_VPMU_MAX_GP * sizeof(struct xen_pmu_cntr_pair) > PAGE_SIZE);
	if (is_pv_32bit_vcpu(v))
		return -EOPNOTSUPP;
	page = get_page_from_gfn(d, p->val, NULL, P2M_ALLOC);
	if (!page)
		return -EINVAL;
	if (!get_page_type(page, PGT_writable_page)) {
		put_page(page);
		return -EINVAL;
	}
	data = __map_domain_page_global(page);
	if (!data) {
		put_page_and_type(page);
		return -ENOMEM;
	}
	if (!spin_trylock(&dd->pv_lock)) {
		rc = -EBUSY;
		goto out;
	}
	if (v != current)
		vcpu_pause(v);
	rc = -EEXIST;
	if (!xv->pv_data && !xv->has_vpmu) {
		local_irq_save(irqf);
		rc = pmuvirt_xen_vpmu_pv_start(v, v->arch.pmuvirt);
		if (!rc) {
			/* masked until the guest's LVTPC says otherwise, as Xen's vPMU */
			xv->pv_lvtpc = APIC_LVT_MASKED;
			xv->pv_ovf = 0;
			xv->pv_cached = 0;
			xv->pv_data = data;
		}
		local_irq_restore(irqf);
	}
	if (v != current)
		vcpu_unpause(v);
	spin_unlock(&dd->pv_lock);
 out:
	if (rc) {
		unmap_domain_page_global(data);
		put_page_and_type(page);
	} else {
		const struct pmuvirt_vpmu_model *m = pmuvirt_xen_vpmu_pv_model();

		printk(XENLOG_G_INFO "pmuvirt: %pv: XENPMU_init: emulated PMU, %u counters, %u fixed\n",
		       v, m->nr_gp, m->nr_fixed);
	}
	return rc;
}

static long pv_finish(struct domain *d, const struct xen_pmu_params *p)
{
	struct pmuvirt_xen_domain *dd = d->arch.pmuvirt;
	struct pmuvirt_xen_vcpu *xv;
	struct vcpu *v;
	int rc = pv_target(d, p, &v, &xv);

	if (rc)
		return rc;
	if (!spin_trylock(&dd->pv_lock))
		return -EBUSY;
	if (v != current)
		vcpu_pause(v);
	pv_release(v, xv);
	if (v != current)
		vcpu_unpause(v);
	spin_unlock(&dd->pv_lock);
	return 0;
}

void pmuvirt_xen_pv_vcpu_destroy(struct vcpu *v)
{
	struct pmuvirt_xen_vcpu *xv = xv_of(v);

	bool pause;

	if (!xv || !is_pv_vcpu(v) || (!xv->pv_data && !xv->has_vpmu))
		return;
	/* A dying domain's VCPUs are paused already (domain_kill()). */
	pause = v != current && !v->domain->is_dying;
	if (pause)
		vcpu_pause(v);
	pv_release(v, xv);
	if (pause)
		vcpu_unpause(v);
}

/* Xen's vpmu_destroy() (domain teardown): as XENPMU_finish. */
void pmuvirt_xen_xenpmu_destroy(struct vcpu *v)
{
	pmuvirt_xen_pv_vcpu_destroy(v);
}

long pmuvirt_xen_xenpmu_op(unsigned int op, XEN_GUEST_HANDLE_PARAM(xen_pmu_params_t) arg)
{
	struct vcpu *curr = current;
	struct pmuvirt_xen_vcpu *xv = xv_of(curr);
	struct xen_pmu_params p = { .val = 0 };
	struct xen_pmu_data *d;

	switch (op) {
	case XENPMU_mode_set:
	case XENPMU_feature_set:
	case XENPMU_init:
	case XENPMU_finish:
		if (copy_from_guest(&p, arg, 1))
			return -EFAULT;
		if (p.version.maj != XENPMU_VER_MAJ)
			return -EINVAL;
	}
	switch (op) {
	case XENPMU_mode_get:
		memset(&p, 0, sizeof(p));
		p.val = XENPMU_MODE_SELF;
		p.version.maj = XENPMU_VER_MAJ;
		p.version.min = XENPMU_VER_MIN;
		return copy_to_guest(arg, &p, 1) ? -EFAULT : 0;
	case XENPMU_feature_get:
		p.val = 0;
		return copy_field_to_guest(arg, &p, val) ? -EFAULT : 0;
	case XENPMU_mode_set:
		/* Each guest samples itself; no other mode while pmuvirt owns the PMU. */
		return p.val == XENPMU_MODE_SELF ? 0 : -EOPNOTSUPP;
	case XENPMU_feature_set:
		return p.val == 0 ? 0 : -EOPNOTSUPP;
	case XENPMU_init:
		return pv_init(curr->domain, &p);
	case XENPMU_finish:
		return pv_finish(curr->domain, &p);
	case XENPMU_lvtpc_set:
		d = xv ? xv->pv_data : NULL;
		if (!d)
			return -EINVAL;
		xv->pv_lvtpc = read_atomic(&d->pmu.l.lapic_lvtpc);
		return 0;
	case XENPMU_flush:
		if (!xv)
			return -EINVAL;
		return pv_flush(curr, xv);
	}
	return -EINVAL;
}
