/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * System-wide profiling in Xen (commands PROF_START .. PROF_RELEASE,
 * include/pmuvirt/xen.h): one session for the machine, started by the
 * control domain (the controller).
 *
 * The session's sampling counters join every VCPU's context after its own
 * counters (pmuvirt_ctx_join()), at the VCPU's next switch in, or at once
 * on the PCPU it runs on (an IPI at start and stop); an idle PCPU runs a
 * context of the session's counters alone.  A VCPU of a domain the session
 * names writes its own ring; every other context writes the ring of the
 * PCPU it runs on (re-attached when it moves).  A ring has one writer at a
 * time: the PMI of the PCPU that runs its context.  The rings are Xen heap
 * pages shared read-only with their reader: the controller, or for an
 * active domain's VCPUs that domain (@reader, NULL once it is gone).
 *
 * Lifetime: the session's description, rings and idle contexts are written
 * at start, before @state says "running", and freed at release, which
 * needs a stop first.  Stop clears @state and waits for every PCPU to take
 * the session's counters off the context it runs; the switch path reads
 * @state without a lock, so any switch that saw it running has ended by
 * then, and a context still joined to a stopped session leaves it at its
 * next switch in, before it runs.  No PMI writes a ring after stop.
 *
 * Arbitration: pmuvirt_session_fits() for every VCPU's own control when
 * the session starts (under the write side of prof_lock and each domain's
 * policy lock) and for every new control while it holds the counters (the
 * read side): whoever comes second gets -EBUSY.
 *
 * Locks: prof_op_lock (interrupts on) serializes the session's commands
 * and its end with its controller, which allocate, share, copy to the
 * guest and wait for other PCPUs; prof_lock (interrupts off, inside it)
 * covers @claimed and @ctl against SET_CONTROL.
 */
#include <xen/lib.h>
#include <xen/sched.h>
#include <xen/guest_access.h>
#include <xen/mm.h>
#include <xen/percpu.h>
#include <xen/rwlock.h>
#include <xen/smp.h>
#include <xen/time.h>
#include <xen/xmalloc.h>
#include <xen/event.h>
#include <xen/rcupdate.h>
#include <xsm/xsm.h>
#include <public/domctl.h>
#include <asm/flushtlb.h>
#include <asm/regs.h>
#ifdef CONFIG_HVM
#include <asm/hvm/hvm.h>
#include <asm/hvm/svm/vmcb.h>
#include <asm/hvm/vmx/vmx.h>
#endif

#include "pmuvirt_xen.h"
#include "pmuvirt_abi_check.h"

/* One ring: the writer's private state and where the ring lives. */
struct prof_ring {
	struct pmuvirt_sample_writer w;
	void *mem;
	uint32_t virq_tail;	/* the reader's tail + 1 when the VIRQ last went out; 0 none */
	uint32_t domain;
	uint32_t id;
	uint32_t flags;
	struct domain *reader;	/* maps and drains it; NULL: an active domain that went away */
	uint64_t *gfns;		/* a PVH or HVM reader's: where each page is placed, or INVALID_GFN_RAW */
};

static struct {
	uint64_t state;		/* the generation while running, 0 otherwise */
	uint64_t gen;		/* last generation handed out: never reused */
	bool exists;		/* started and not released */
	bool claimed;		/* new controls must fit next to @ctl */
	struct domain *controller;
	struct pmuvirt_control ctl;
	unsigned int nr_domains;
	uint64_t tag[PMUVIRT_XEN_PROF_MAX_DOMAINS];	/* the domains' never-reused tags */
	unsigned int first[PMUVIRT_XEN_PROF_MAX_DOMAINS]; /* ring of their VCPU 0 */
	unsigned int nr_vcpus[PMUVIRT_XEN_PROF_MAX_DOMAINS];
	unsigned int nr_pcpus;	/* rings 0 .. nr_pcpus - 1 are the PCPUs' */
	unsigned int nr_rings;
	unsigned int ring_pages;
	unsigned int nr_records;
	struct pmuvirt_sample_format fmt;
	unsigned int high_water;
	struct prof_ring *rings;
	struct pmuvirt_ctx **idle;	/* per PCPU: the session's counters alone */
	unsigned long noregs;		/* records made where the interrupted state was unknown */
	unsigned long hvm_read;		/* HVM/PVH guest states read from the VMCB/VMCS */
	unsigned long hvm_unread;	/* ... that could not be read: the record is Xen's */
} prof;

static DEFINE_SPINLOCK(prof_op_lock);
static DEFINE_RWLOCK(prof_lock);

/* Scratch for joining and leaving, used with interrupts off on its own PCPU. */
static DEFINE_PER_CPU(struct pmuvirt_saved_ctx, prof_scratch);
/* The interrupted state of the counter interrupt being handled on this PCPU. */
static DEFINE_PER_CPU(const struct cpu_user_regs *, prof_regs);

static uint64_t prof_running(void)
{
	return read_atomic(&prof.state);
}

void pmuvirt_xen_prof_set_regs(const struct cpu_user_regs *regs)
{
	this_cpu(prof_regs) = regs;
}

#ifdef CONFIG_HVM
/* Where SVM's VM-exit path takes the interrupts that made the guest exit. */
extern char svm_stgi_label[];

static bool prof_at_svm_exit(const struct cpu_user_regs *regs)
{
	return cpu_has_svm && regs->rip == (unsigned long)svm_stgi_label;
}

static int cf_check prof_read_vmcb(void *arg, uint32_t field, uint64_t *val)
{
	const struct vmcb_struct *vmcb = arg;

	switch (field) {
	case PMUVIRT_XEN_VMCB_RIP:
		*val = vmcb->rip;
		return 0;
	case PMUVIRT_XEN_VMCB_CPL:
		*val = vmcb->_cpl;
		return 0;
	}
	return -EINVAL;
}

static int cf_check prof_read_vmcs(void *arg, uint32_t field, uint64_t *val)
{
	unsigned long v;

	/* fails, and leaves the record Xen's, if this VCPU's VMCS is not loaded */
	if (vmread_safe(field, &v) != VMX_INSN_SUCCEED)
		return -EIO;
	*val = v;
	return 0;
}

/*
 * An HVM or PVH VCPU's IP and CPL as of its VM exit: its frame in Xen
 * holds neither (SVM takes the exit's interrupt in Xen's frame; VMX copies
 * RIP but not the CPL; Xen syncs them only later, if at all).
 */
static void prof_hvm_guest(struct vcpu *v, struct pmuvirt_xen_prof_where *w)
{
	int rc = -ENODEV;

	if (cpu_has_svm)
		rc = pmuvirt_xen_prof_hvm_guest(w, PMUVIRT_XEN_HVM_SVM, prof_read_vmcb,
						v->arch.hvm.svm.vmcb);
	else if (cpu_has_vmx)
		rc = pmuvirt_xen_prof_hvm_guest(w, PMUVIRT_XEN_HVM_VMX, prof_read_vmcs, NULL);
	if (!rc) {
		arch_fetch_and_add(&prof.hvm_read, 1);
		return;
	}
	arch_fetch_and_add(&prof.hvm_unread, 1);
	/* neither a guest IP without its mode nor Xen's frame as the guest's */
	if (w->guest) {
		w->guest = false;
		w->ip = 0;
	}
}
#endif

/*
 * A PV guest's stack, from the counter interrupt: the VCPU's page tables
 * are loaded (it interrupted the guest), and copy_from_guest_pv() ends a
 * fault in the exception table (no fixups in interrupt context).
 */
static int cf_check prof_read_pv(void *arg, uint64_t addr, void *buf, unsigned int len)
{
	if (!pmuvirt_xen_pv_guest_addr(addr, len))
		return -EFAULT;
	return copy_from_guest_pv(buf, (const void __user *)(unsigned long)addr, len) ? -EFAULT : 0;
}

/* Where the PMI found the CPU; @v is current. */
static void cf_check prof_fill(void *arg, const struct pmuvirt_pcpu *pc,
			       const struct pmuvirt_ctx *ctx, struct pmuvirt_sample *s,
			       uint64_t *frames, unsigned int max_frames)
{
	const struct cpu_user_regs *regs = this_cpu(prof_regs);
	const struct cpu_user_regs *pmi_regs = regs;
	struct pmuvirt_xen_prof_where w = { 0 };
	struct vcpu *v = current;
	bool idle = is_idle_vcpu(v);

	BUILD_BUG_ON(PMUVIRT_XEN_PV_KERNEL_START != HYPERVISOR_VIRT_END);
	if (!regs) {
		/* A PMI from a timer softirq: a guest's state at its last entry to Xen. */
		arch_fetch_and_add(&prof.noregs, 1);
		if (!idle)
			regs = guest_cpu_user_regs();
	}
	if (regs) {
		w.ip = regs->rip;
		w.cs = regs->cs;
		w.guest = !idle && guest_mode(regs);
	}
	if (!idle) {
		w.hvm = !is_pv_vcpu(v);
		w.pv32 = is_pv_32bit_vcpu(v);
		w.kernel = w.guest && !w.hvm && regs && guest_kernel_mode(v, regs);
#ifdef CONFIG_HVM
		if (w.hvm && regs && (w.guest || prof_at_svm_exit(regs)))
			prof_hvm_guest(v, &w);
#endif
	}
	pmuvirt_xen_prof_record(s, &w, idle ? PMUVIRT_XEN_DOMID_IDLE : v->domain->domain_id,
				idle ? pc->cpu : v->vcpu_id, arg != NULL, NOW());
	/*
	 * The guest's frames where the interrupt came from it; with the
	 * interrupted state unknown (the emulated PMU's softirq), from its
	 * state at its last entry to Xen, with interrupts off (no fault
	 * fixups) and only while the page tables loaded are its own.
	 */
	if (frames && regs && w.guest && !w.hvm && !w.pv32 &&
	    (pmi_regs || (!local_irq_is_enabled() &&
			  !((read_cr3() ^ v->arch.cr3) & ~X86_CR3_NOFLUSH)))) {
		const struct pmuvirt_xen_pv_stack st = {
			.bp = regs->rbp, .sp = regs->rsp, .kernel_sp = v->arch.pv.kernel_sp,
		};

		pmuvirt_xen_prof_pv_chain(s, &w, arg != NULL, &st, prof_read_pv, NULL, frames,
					  max_frames);
	}
	/* an active domain's own ring: Xen's addresses are not the guest's to see */
	if (arg && ((const struct prof_ring *)arg)->reader != prof.controller)
		pmuvirt_xen_prof_for_guest(s);
}

/* The ring a context of @v writes on this PCPU; *@listed: its own ring. */
static struct prof_ring *prof_ring_of(const struct vcpu *v, bool *listed)
{
	const struct pmuvirt_xen_domain *dd = v ? v->domain->arch.pmuvirt : NULL;
	unsigned int i, cpu = smp_processor_id();

	*listed = false;
	for (i = 0; dd && i < prof.nr_domains; i++) {
		if (prof.tag[i] != dd->tag)
			continue;
		if (v->vcpu_id >= prof.nr_vcpus[i])
			break;
		*listed = true;
		return &prof.rings[prof.first[i] + v->vcpu_id];
	}
	return cpu < prof.nr_pcpus ? &prof.rings[cpu] : NULL;
}

/*
 * Bring @v's context, not running, to the session @want (0: none): leave
 * the one it joined, join the running one, or move to this PCPU's ring.
 * Interrupts off.
 */
static void prof_sync_ctl(struct vcpu *v, struct pmuvirt_ctx *ctx, uint64_t want)
{
	struct pmuvirt_saved_ctx *scratch = &this_cpu(prof_scratch);
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);
	struct pmuvirt_control merged;
	struct prof_ring *r;
	bool listed;
	int rc;

	if (xv->prof_gen == want) {
		/* A PCPU's ring has one writer: its PCPU. */
		if (want && pmuvirt_ctx_samples(ctx)) {
			r = prof_ring_of(v, &listed);
			if (!listed && r && pmuvirt_ctx_samples(ctx) != &r->w)
				pmuvirt_ctx_attach_samples(ctx, &r->w, prof_fill, NULL);
		}
		return;
	}
	if (xv->prof_gen) {
		rc = pmuvirt_ctx_leave(ctx, &xv->ctl, &xv->eff, scratch, NULL);
		if (rc) {
			/* Cannot happen; start afresh on the own control. */
			printk(XENLOG_G_ERR "pmuvirt: %pv: leaving the session: %d\n", v, rc);
			pmuvirt_set_control(NULL, ctx, &xv->ctl, NULL);
			pmuvirt_ctx_attach_samples(ctx, NULL, NULL, NULL);
		}
		xv->eff = xv->ctl;
		xv->prof_gen = 0;
	}
	if (!want)
		return;
	r = prof_ring_of(v, &listed);
	if (!r || pmuvirt_session_merge(&xv->ctl, &prof.ctl, &merged))
		return;
	rc = pmuvirt_ctx_join(ctx, &xv->ctl, &merged, &r->w, prof_fill, listed ? r : NULL,
			      scratch, NULL);
	if (rc) {
		printk(XENLOG_G_ERR "pmuvirt: %pv: joining the session: %d\n", v, rc);
		return;
	}
	xv->eff = merged;
	xv->prof_gen = want;
}

/* The same, with the emulated PMU's counters off the context meanwhile. */
static void prof_sync(struct vcpu *v, struct pmuvirt_ctx *ctx, uint64_t want)
{
	bool change = pmuvirt_xen_vcpu_of(ctx)->prof_gen != want;

	if (change)
		pmuvirt_xen_vpmu_off(v, ctx);
	prof_sync_ctl(v, ctx, want);
	if (change)
		pmuvirt_xen_vpmu_on(v, ctx);
}

void pmuvirt_xen_prof_switch_in(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);
	uint64_t want = prof_running();

	if (likely(!want && !xv->prof_gen))
		return;
	prof_sync(v, ctx, want);
}

void pmuvirt_xen_prof_leave(struct vcpu *v, struct pmuvirt_ctx *ctx)
{
	prof_sync(v, ctx, 0);
}

struct pmuvirt_ctx *pmuvirt_xen_prof_idle(unsigned int cpu)
{
	if (likely(!prof_running()) || cpu >= prof.nr_pcpus)
		return NULL;
	return prof.idle[cpu];
}

int pmuvirt_xen_prof_set(struct vcpu *v, struct pmuvirt_ctx *ctx, const struct pmuvirt_control *ctl,
			 struct pmuvirt_error *err)
{
	struct pmuvirt_xen_vcpu *xv = pmuvirt_xen_vcpu_of(ctx);
	int rc = pmuvirt_set_control(NULL, ctx, ctl, err);

	if (rc)
		return rc;
	pmuvirt_ctx_attach_samples(ctx, NULL, NULL, NULL);
	xv->ctl = *ctl;
	xv->eff = *ctl;
	xv->prof_gen = 0;
	prof_sync(v, ctx, prof_running());
	return 0;
}

int pmuvirt_xen_prof_fits(const struct pmuvirt_control *ctl, unsigned int max_counters,
			  struct pmuvirt_error *err)
{
	if (!prof.claimed)
		return 0;
	return pmuvirt_session_fits(&pmuvirt_xen_pmu, ctl, &prof.ctl, max_counters, err);
}

void pmuvirt_xen_prof_read_lock(void)
{
	read_lock(&prof_lock);
}

void pmuvirt_xen_prof_read_unlock(void)
{
	read_unlock(&prof_lock);
}

/* After a counter interrupt: the ring's reader hears of a ring past its mark. */
void pmuvirt_xen_prof_pmi_done(struct pmuvirt_ctx *ctx)
{
	struct domain *reader;
	struct prof_ring *r;
	uint32_t tail;

	if (!ctx || !pmuvirt_ctx_samples(ctx) || !prof_running())
		return;
	r = container_of(pmuvirt_ctx_samples(ctx), struct prof_ring, w);
	reader = read_atomic(&r->reader);
	tail = read_atomic(&r->w.ring->tail);
	if (!reader || r->w.head - tail < prof.high_water || r->virq_tail == tail + 1)
		return;
	r->virq_tail = tail + 1;
	send_guest_vcpu_virq(reader->vcpu[0], PMUVIRT_XEN_PROF_VIRQ);
}

/*
 * On each PCPU (IPI, interrupts off): the running context follows the
 * session at once: the idle context in or out, a VCPU's context joined or
 * left, with its counters off the PCPU meanwhile.
 */
static void cf_check prof_apply_here(void *unused)
{
	struct pmuvirt_pcpu *pc = pmuvirt_xen_this_pcpu();
	struct vcpu *v = current;
	struct pmuvirt_ctx *ctx;
	uint64_t want = prof_running();

	if (!pc)
		return;
	if (is_idle_vcpu(v)) {
		ctx = pmuvirt_xen_prof_idle(pc->cpu);
		if (pc->running != ctx)
			pmuvirt_switch_hook(pc, ctx);
		pc->host = pc->running ? v : NULL;
		return;
	}
	ctx = v->arch.pmuvirt;
	if (!ctx || pc->running != ctx || pmuvirt_xen_vcpu_of(ctx)->prof_gen == want)
		return;
	pmuvirt_switch_hook(pc, NULL);
	prof_sync(v, ctx, want);
	pmuvirt_switch_hook(pc, ctx);
	pc->host = pc->running ? v : NULL;
}

/* Page @p of ring @i. */
static struct page_info *prof_ring_page(unsigned int i, unsigned int p)
{
	return virt_to_page(prof.rings[i].mem + p * PAGE_SIZE);
}

/* Ring @i's pages out of its translated reader's physical map; prof_op_lock held. */
static void prof_unplace_ring(unsigned int i)
{
	struct prof_ring *r = &prof.rings[i];
	unsigned int p;

	for (p = 0; r->gfns && p < prof.ring_pages; p++) {
		if (r->gfns[p] == INVALID_GFN_RAW)
			continue;
		if (r->reader)
			pmuvirt_xen_unplace_frame(r->reader, r->gfns[p],
						  page_to_mfn(prof_ring_page(i, p)));
		r->gfns[p] = INVALID_GFN_RAW;
	}
}

static bool prof_ring_placed(unsigned int i)
{
	const struct prof_ring *r = &prof.rings[i];
	unsigned int p;

	for (p = 0; r->gfns && p < prof.ring_pages; p++)
		if (r->gfns[p] != INVALID_GFN_RAW)
			return true;
	return false;
}

/*
 * Take the reader's allocation reference off ring @i's pages: -EBUSY (and
 * the pages shared again) while the reader still maps one, or, unless
 * @force, still has one placed in its physical map (@force takes it out).
 * Pages that were never shared, or that a dead reader's teardown took
 * back, pass.
 */
static int prof_unshare_ring(unsigned int i, bool force)
{
	struct domain *reader = prof.rings[i].reader;
	unsigned int p, q;

	if (prof_ring_placed(i)) {
		if (!force)
			return -EBUSY;
		prof_unplace_ring(i);
	}
	for (p = 0; p < prof.ring_pages; p++) {
		struct page_info *pg = prof_ring_page(i, p);

		put_page_alloc_ref(pg);
		if (pg->count_info & ~PGC_xen_heap) {
			if (reader && get_page(pg, reader))
				set_bit(_PGC_allocated, &pg->count_info);
			for (q = 0; reader && q < p; q++)
				share_xen_page_with_guest(prof_ring_page(i, q), reader, SHARE_ro);
			return -EBUSY;
		}
		page_set_owner(pg, NULL);
	}
	return 0;
}

/* Free what start made; the session is stopped and no context runs it. */
static void prof_free(bool unshared)
{
	unsigned int i, order = get_order_from_pages(prof.ring_pages);

	for (i = 0; prof.idle && i < prof.nr_pcpus; i++) {
		/* STOP took it off every online PCPU, cpu_dead off every other */
		if (prof.idle[i] && pmuvirt_xen_pcpu_forget(i, prof.idle[i])) {
			printk(XENLOG_ERR "pmuvirt: CPU%u still runs the session's idle context: not freed\n",
			       i);
			continue;
		}
		xfree(prof.idle[i]);
	}
	xfree(prof.idle);
	prof.idle = NULL;
	for (i = 0; prof.rings && i < prof.nr_rings; i++) {
		if (!prof.rings[i].mem)
			continue;
		/* A live active domain may still map its rings: those pages stay. */
		if (!unshared && prof_unshare_ring(i, true)) {
			printk(XENLOG_WARNING "pmuvirt: %pd still maps profiling ring %u: its %u pages stay allocated\n",
			       prof.rings[i].reader, i, prof.ring_pages);
			continue;
		}
		free_xenheap_pages(prof.rings[i].mem, order);
	}
	for (i = 0; prof.rings && i < prof.nr_rings; i++)
		xfree(prof.rings[i].gfns);
	xfree(prof.rings);
	prof.rings = NULL;
	write_atomic(&prof.exists, false);
	prof.controller = NULL;
}

/* Share ring @i with its reader (read-only). */
static void prof_share_ring(unsigned int i)
{
	unsigned int p;

	for (p = 0; prof.rings[i].reader && p < prof.ring_pages; p++)
		share_xen_page_with_guest(prof_ring_page(i, p), prof.rings[i].reader, SHARE_ro);
}

/*
 * Take every reader's allocation reference off its ring pages: -EBUSY (and
 * every page shared again) while a reader still maps one.
 */
static int prof_unshare(void)
{
	unsigned int i, k;
	int rc;

	for (i = 0; i < prof.nr_rings; i++) {
		rc = prof_unshare_ring(i, false);
		if (rc) {
			for (k = 0; k < i; k++)
				prof_share_ring(k);
			return rc;
		}
	}
	return 0;
}

/* The VCPUs of @d, each with its own control, fit next to the session. */
static int prof_fits_domain(struct domain *d)
{
	struct pmuvirt_xen_domain *dd = d->arch.pmuvirt;
	struct pmuvirt_error err = { .counter = -1, .reason = NULL };
	unsigned long flags;
	struct vcpu *v;
	int rc = 0;

	if (!dd)
		return 0;
	spin_lock_irqsave(&dd->policy_lock, flags);
	for_each_vcpu ( d, v ) {
		struct pmuvirt_ctx *ctx = v->arch.pmuvirt;

		if (!ctx)
			continue;
		rc = pmuvirt_session_fits(&pmuvirt_xen_pmu, &pmuvirt_xen_vcpu_of(ctx)->ctl, &prof.ctl,
					  pmuvirt_ctx_max_counters(ctx), &err);
		if (rc) {
			gdprintk(XENLOG_INFO, "pmuvirt: profiling refused: %pv: %s\n", v,
				 err.reason ? err.reason : "");
			break;
		}
	}
	spin_unlock_irqrestore(&dd->policy_lock, flags);
	return rc;
}

static int prof_alloc(const struct pmuvirt_xen_prof_start *op, struct domain **doms,
		      struct domain *controller)
{
	unsigned int i, k, n, order = get_order_from_pages(op->ring_pages);
	size_t bytes = (size_t)op->ring_pages * PAGE_SIZE;

	prof.nr_pcpus = nr_cpu_ids;
	n = prof.nr_pcpus;
	for (i = 0; i < op->nr_domains; i++) {
		prof.first[i] = n;
		prof.nr_vcpus[i] = doms[i]->max_vcpus;
		prof.tag[i] = doms[i]->arch.pmuvirt->tag;
		n += doms[i]->max_vcpus;
	}
	if ((uint64_t)n * op->ring_pages > PMUVIRT_XEN_PROF_MAX_FRAMES)
		return -ENOSPC;
	prof.nr_rings = n;
	prof.rings = xzalloc_array(struct prof_ring, n);
	prof.idle = xzalloc_array(struct pmuvirt_ctx *, prof.nr_pcpus);
	if (!prof.rings || !prof.idle)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct prof_ring *r = &prof.rings[i];

		r->mem = alloc_xenheap_pages(order, 0);
		if (!r->mem)
			return -ENOMEM;
		memset(r->mem, 0, bytes);
		if (pmuvirt_sample_init(&r->w, r->mem, bytes, prof.nr_records,
					PMUVIRT_XEN_PROF_DATA_OFFSET, &prof.fmt))
			return -EINVAL;
		r->reader = controller;
		if (i < prof.nr_pcpus) {
			r->domain = PMUVIRT_XEN_DOMID_IDLE;
			r->id = i;
			r->flags = PMUVIRT_XEN_PROF_RING_PCPU;
		} else {
			for (k = op->nr_domains; k-- > 0;)
				if (i >= prof.first[k])
					break;
			r->domain = doms[k]->domain_id;
			r->id = i - prof.first[k];
			if (op->active & (1u << k))
				r->reader = doms[k];
		}
		if (paging_mode_translate(r->reader)) {
			unsigned int p;

			r->gfns = xmalloc_array(uint64_t, op->ring_pages);
			if (!r->gfns)
				return -ENOMEM;
			for (p = 0; p < op->ring_pages; p++)
				r->gfns[p] = INVALID_GFN_RAW;
		}
	}
	for (i = 0; i < prof.nr_pcpus; i++) {
		size_t size = pmuvirt_ctx_size(PMUVIRT_XEN_PROF_MAX_COUNTERS);
		struct pmuvirt_ctx *ctx = xzalloc_bytes(size);
		int rc;

		if (!ctx)
			return -ENOMEM;
		prof.idle[i] = ctx;
		/* A domain of its own: another domain's counts never show in it. */
		rc = pmuvirt_ctx_init(ctx, size, &pmuvirt_xen_pmu);
		if (!rc) {
			unsigned long flags;

			local_irq_save(flags);
			rc = pmuvirt_ctx_join(ctx, NULL, &prof.ctl, &prof.rings[i].w, prof_fill, NULL,
					      &this_cpu(prof_scratch), NULL);
			local_irq_restore(flags);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The control domain only (PMUVIRT_XEN_CALLER_CONTROL), refused after the
 * argument's own checks, with err_counter written back like any refusal.
 */
long pmuvirt_xen_op_prof_start(struct vcpu *v, struct pmuvirt_xen_prof_start *op,
			       XEN_GUEST_HANDLE_PARAM(void) arg)
{
	struct pmuvirt_error err = { .counter = -1, .reason = NULL };
	struct domain *doms[PMUVIRT_XEN_PROF_MAX_DOMAINS];
	unsigned int i, nr = 0;
	unsigned long flags;
	struct domain *d;
	int rc;

	rc = pmuvirt_xen_check_prof_start(op, &err);
	if (!rc && !is_control_domain(v->domain))
		rc = -EPERM;
	if (!rc && !(pmuvirt_xen_pmu.nr_gp + pmuvirt_xen_pmu.nr_fixed))
		rc = -ENODEV;
	if (!rc)
		rc = pmuvirt_validate(&pmuvirt_xen_pmu, &op->ctl, PMUVIRT_XEN_PROF_MAX_COUNTERS, NULL,
				      NULL, &err);
	/* Each named domain: one its profiler may look into. */
	for (i = 0; !rc && i < op->nr_domains; i++) {
		doms[i] = rcu_lock_domain_by_id(op->domains[i]);
		if (!doms[i]) {
			rc = -ESRCH;
			break;
		}
		nr++;
		rc = xsm_domctl(XSM_OTHER, doms[i], XEN_DOMCTL_getvcpucontext, 0);
		if (!rc && (doms[i]->is_dying || !doms[i]->arch.pmuvirt))
			rc = -ESRCH;
		/* Xen places a translated active domain's rings in its p2m, a bounded number */
		if (!rc && (op->active & (1u << i)) && paging_mode_translate(doms[i]) &&
		    (uint64_t)doms[i]->max_vcpus * op->ring_pages > PMUVIRT_XEN_PROF_MAX_PLACED)
			rc = -ENOSPC;
	}
	if (rc)
		goto out;

	spin_lock(&prof_op_lock);
	if (prof.exists) {
		spin_unlock(&prof_op_lock);
		rc = -EBUSY;
		goto out;
	}
	write_lock_irqsave(&prof_lock, flags);
	prof.ctl = op->ctl;
	rcu_read_lock(&domlist_read_lock);
	for_each_domain ( d ) {
		rc = prof_fits_domain(d);
		if (rc)
			break;
	}
	rcu_read_unlock(&domlist_read_lock);
	/* From here every new control must fit next to the session. */
	prof.claimed = !rc;
	write_unlock_irqrestore(&prof_lock, flags);
	if (rc) {
		spin_unlock(&prof_op_lock);
		goto out;
	}
	prof.exists = true;
	prof.controller = v->domain;
	prof.nr_domains = op->nr_domains;
	prof.ring_pages = op->ring_pages;
	pmuvirt_xen_prof_format(op, &prof.fmt);
	prof.nr_records = pmuvirt_xen_prof_records(op->ring_pages, &prof.fmt);
	prof.high_water = max_t(unsigned int, 1, prof.nr_records * op->high_water_pct / 100);
	prof.noregs = 0;
	prof.hvm_read = 0;
	prof.hvm_unread = 0;
	rc = prof_alloc(op, doms, v->domain);
	if (rc) {
		write_lock_irqsave(&prof_lock, flags);
		prof.claimed = false;
		write_unlock_irqrestore(&prof_lock, flags);
		prof_free(false);
		spin_unlock(&prof_op_lock);
		goto out;
	}
	for (i = 0; i < prof.nr_rings; i++)
		prof_share_ring(i);
	prof.gen = prof.gen + 1 ?: 1;
	smp_wmb();
	write_atomic(&prof.state, prof.gen);
	/* Every PCPU puts the session on what it runs before this returns. */
	on_selected_cpus(&cpu_online_map, prof_apply_here, NULL, 1);
	printk(XENLOG_G_INFO "pmuvirt: profiling started by d%d: %u counters, %u rings of %u records, %u domains (active mask %#x)\n",
	       v->domain->domain_id, op->ctl.nr_counters, prof.nr_rings, prof.nr_records,
	       prof.nr_domains, op->active);
	op->nr_rings = prof.nr_rings;
	op->nr_records = prof.nr_records;
	spin_unlock(&prof_op_lock);
out:
	for (i = 0; i < nr; i++)
		rcu_unlock_domain(doms[i]);
	op->err_counter = rc ? err.counter : -1;
	if (rc && err.reason)
		gdprintk(XENLOG_DEBUG, "pmuvirt: profiling refused: counter %d: %s\n", err.counter,
			 err.reason);
	if (copy_to_guest(arg, op, 1))
		return -EFAULT;
	return rc;
}

/* The session's controller, or -ENOENT / -EPERM; prof_op_lock held. */
static int prof_controller_check(const struct domain *d)
{
	if (!prof.exists)
		return -ENOENT;
	return prof.controller == d ? 0 : -EPERM;
}

/* The reader of some ring (the controller, an active domain), or -ENOENT / -EPERM. */
static int prof_reader_check(const struct domain *d)
{
	unsigned int i;

	if (!prof.exists)
		return -ENOENT;
	if (prof.controller == d)
		return 0;
	for (i = 0; i < prof.nr_rings; i++)
		if (prof.rings[i].reader == d)
			return 0;
	return -EPERM;
}

/* The rings @d reads. */
static unsigned int prof_rings_of_reader(const struct domain *d)
{
	unsigned int i, n = 0;

	for (i = 0; i < prof.nr_rings; i++)
		n += prof.rings[i].reader == d;
	return n;
}

/* Stop sampling; prof_op_lock held. */
static int prof_stop_locked(const struct domain *d)
{
	unsigned long flags;
	int rc = prof_controller_check(d);

	if (!rc && !prof.state)
		rc = -ENOENT;
	if (rc)
		return rc;
	write_atomic(&prof.state, 0);
	write_lock_irqsave(&prof_lock, flags);
	prof.claimed = false;
	write_unlock_irqrestore(&prof_lock, flags);
	/* Every PCPU takes the session off what it runs before this returns. */
	on_selected_cpus(&cpu_online_map, prof_apply_here, NULL, 1);
	printk(XENLOG_G_INFO "pmuvirt: profiling stopped (%lu records without the interrupted state, "
	       "%lu HVM/PVH guest states read at exits, %lu unreadable)\n",
	       prof.noregs, prof.hvm_read, prof.hvm_unread);
	return 0;
}

/*
 * A translated caller's rings at the guest frames it names: placed anew,
 * or (-EINVAL, -EBUSY, the p2m's error) none left placed.
 */
static int prof_place_locked(struct domain *caller, XEN_GUEST_HANDLE_PARAM(void) frames,
			     unsigned int nr_frames)
{
	uint64_t *gfns;
	unsigned int i, n, p;
	int rc = 0;

	/* the check of the frames is quadratic: a translated controller's rings too are bounded */
	if (nr_frames > PMUVIRT_XEN_PROF_MAX_PLACED)
		return -E2BIG;
	gfns = xmalloc_array(uint64_t, nr_frames);
	if (!gfns)
		return -ENOMEM;
	if (copy_from_guest(gfns, frames, nr_frames))
		rc = -EFAULT;
	if (!rc)
		rc = pmuvirt_xen_check_gfns(gfns, nr_frames,
					    1ull << (caller->arch.cpuid->extd.maxphysaddr - PAGE_SHIFT));
	for (i = 0; !rc && i < prof.nr_rings; i++)
		if (prof.rings[i].reader == caller)
			prof_unplace_ring(i);
	for (i = 0, n = 0; !rc && i < prof.nr_rings; i++) {
		struct prof_ring *r = &prof.rings[i];

		if (r->reader != caller)
			continue;
		for (p = 0; !rc && p < prof.ring_pages; p++, n++) {
			rc = pmuvirt_xen_place_frame(caller, gfns[n], page_to_mfn(prof_ring_page(i, p)));
			if (!rc)
				r->gfns[p] = gfns[n];
		}
	}
	for (i = 0; rc && i < prof.nr_rings; i++)
		if (prof.rings[i].reader == caller)
			prof_unplace_ring(i);
	xfree(gfns);
	return rc;
}

static int prof_map_locked(struct domain *caller, struct pmuvirt_xen_prof_map *op,
			   XEN_GUEST_HANDLE_PARAM(void) arg)
{
	XEN_GUEST_HANDLE_PARAM(void) rings, frames;
	unsigned int rcap, fcap, i, n, p;
	bool translated = paging_mode_translate(caller);

	rcap = op->nr_rings;
	fcap = op->nr_frames;
	op->nr_rings = prof_rings_of_reader(caller);
	op->nr_frames = op->nr_rings * prof.ring_pages;
	op->ring_pages = prof.ring_pages;
	op->nr_records = prof.nr_records;
	if (copy_to_guest(arg, op, 1))
		return -EFAULT;
	if (rcap < op->nr_rings || fcap < op->nr_frames)
		return -ENOSPC;
	rings = guest_handle_from_ptr((uintptr_t)op->rings, void);
	frames = guest_handle_from_ptr((uintptr_t)op->frames, void);
	for (i = 0, n = 0; i < prof.nr_rings; i++) {
		const struct prof_ring *r = &prof.rings[i];
		struct pmuvirt_xen_prof_ring d = {
			.domain = r->domain, .id = r->id, .frame = n * prof.ring_pages,
			.flags = r->flags,
		};

		if (r->reader != caller)
			continue;
		if (copy_to_guest_offset(rings, n, &d, 1))
			return -EFAULT;
		for (p = 0; !translated && p < prof.ring_pages; p++) {
			uint64_t mfn = mfn_x(page_to_mfn(prof_ring_page(i, p)));

			if (copy_to_guest_offset(frames, n * prof.ring_pages + p, &mfn, 1))
				return -EFAULT;
		}
		n++;
	}
	return translated ? prof_place_locked(caller, frames, op->nr_frames) : 0;
}

static int prof_tail_locked(const struct domain *caller, const struct pmuvirt_xen_prof_tail *op)
{
	XEN_GUEST_HANDLE_PARAM(void) tails;
	unsigned int i, n, nr = prof_rings_of_reader(caller);
	uint32_t *t;
	int rc = 0;

	if (op->nr_rings != nr || !nr)
		return -EINVAL;
	t = xmalloc_array(uint32_t, nr);
	if (!t)
		return -ENOMEM;
	tails = guest_handle_from_ptr((uintptr_t)op->tails, void);
	if (copy_from_guest(t, tails, nr))
		rc = -EFAULT;
	/* All checked, then all stored: a bad tail changes nothing. */
	for (i = 0, n = 0; !rc && i < prof.nr_rings; i++)
		if (prof.rings[i].reader == caller &&
		    read_atomic(&prof.rings[i].w.ring->head) - t[n++] > prof.nr_records)
			rc = -EINVAL;
	/* The reader's copies are done before the writers see the room. */
	smp_mb();
	for (i = 0, n = 0; !rc && i < prof.nr_rings; i++)
		if (prof.rings[i].reader == caller)
			write_atomic(&prof.rings[i].w.ring->tail, t[n++]);
	xfree(t);
	return rc;
}

long pmuvirt_xen_op_prof_release(struct vcpu *v, struct pmuvirt_xen_prof_release *op,
				 XEN_GUEST_HANDLE_PARAM(void) arg)
{
	int rc;

	spin_lock(&prof_op_lock);
	rc = prof_controller_check(v->domain);
	if (!rc && prof.state)
		rc = -EBUSY;
	if (!rc)
		rc = prof_unshare();
	if (!rc)
		prof_free(true);
	spin_unlock(&prof_op_lock);
	return rc;
}

long pmuvirt_xen_op_prof_stop(struct vcpu *v, struct pmuvirt_xen_prof_stop *op,
			      XEN_GUEST_HANDLE_PARAM(void) arg)
{
	int rc;

	spin_lock(&prof_op_lock);
	rc = prof_stop_locked(v->domain);
	spin_unlock(&prof_op_lock);
	return rc;
}

long pmuvirt_xen_op_prof_unmap(struct vcpu *v, struct pmuvirt_xen_prof_unmap *op,
			       XEN_GUEST_HANDLE_PARAM(void) arg)
{
	unsigned int i;
	int rc;

	if (!paging_mode_translate(v->domain))
		return -EOPNOTSUPP;
	spin_lock(&prof_op_lock);
	rc = prof_reader_check(v->domain);
	for (i = 0; !rc && i < prof.nr_rings; i++)
		if (prof.rings[i].reader == v->domain)
			prof_unplace_ring(i);
	spin_unlock(&prof_op_lock);
	return rc;
}

long pmuvirt_xen_op_prof_map(struct vcpu *v, struct pmuvirt_xen_prof_map *op,
			     XEN_GUEST_HANDLE_PARAM(void) arg)
{
	int rc;

	spin_lock(&prof_op_lock);
	rc = prof_reader_check(v->domain);
	if (!rc)
		rc = prof_map_locked(v->domain, op, arg);
	spin_unlock(&prof_op_lock);
	return rc;
}

long pmuvirt_xen_op_prof_tail(struct vcpu *v, struct pmuvirt_xen_prof_tail *op,
			      XEN_GUEST_HANDLE_PARAM(void) arg)
{
	int rc;

	spin_lock(&prof_op_lock);
	rc = prof_reader_check(v->domain);
	if (!rc)
		rc = prof_tail_locked(v->domain, op);
	spin_unlock(&prof_op_lock);
	return rc;
}

/* A VCPU of @v's domain goes away: if that domain runs the session, it stops. */
void pmuvirt_xen_prof_vcpu_destroy(struct vcpu *v)
{
	if (!read_atomic(&prof.exists))
		return;
	spin_lock(&prof_op_lock);
	if (prof.exists && prof.controller == v->domain && prof.state)
		prof_stop_locked(v->domain);
	spin_unlock(&prof_op_lock);
}

/*
 * @d goes away (its VCPUs and mappings are gone): a session it left behind
 * is freed; an active domain's rings lose their reader and stay the
 * session's until it is freed.
 */
void pmuvirt_xen_prof_domain_destroy(struct domain *d)
{
	unsigned int i, p;

	if (!read_atomic(&prof.exists))
		return;
	spin_lock(&prof_op_lock);
	if (prof.exists && prof.controller == d && !prof.state) {
		prof_free(false);
	} else if (prof.exists && prof.controller != d) {
		for (i = 0; i < prof.nr_rings; i++) {
			if (prof.rings[i].reader != d)
				continue;
			/* its p2m went with it, its teardown dropped the allocation references */
			if (prof.rings[i].gfns)
				for (p = 0; p < prof.ring_pages; p++)
					prof.rings[i].gfns[p] = INVALID_GFN_RAW;
			if (prof_unshare_ring(i, false))
				printk(XENLOG_ERR "pmuvirt: %pd: profiling ring %u still mapped\n", d, i);
			write_atomic(&prof.rings[i].reader, NULL);
		}
	}
	spin_unlock(&prof_op_lock);
}
