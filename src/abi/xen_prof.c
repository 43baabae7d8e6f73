// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * System-wide profiling under Xen, the parts that need no Xen: the check
 * of a session's description (PROF_START), the ring geometry, the mode of
 * an interrupted context (an HVM guest's read from its VMCB or VMCS), the
 * host's part of a record and the bounds of a PV guest's call chain.  The glue
 * (src/glue/xen/pmuvirt_xen_prof.c) calls them; test_xen_prof and
 * fuzz_xen_hcall call them without Xen.
 */
#include "pmuvirt_defaults.h"
#include "pmuvirt_abi_check.h"
#include <pmuvirt/xen.h>

/* Xen's DOMID_FIRST_RESERVED: domain ids from here on are not domains. */
#define DOMID_RESERVED	0x7ff0u

static int refuse(struct pmuvirt_error *err, int counter, const char *reason)
{
	if (err) {
		err->counter = counter;
		err->reason = reason;
	}
	return -EINVAL;
}

int pmuvirt_xen_check_prof_start(const struct pmuvirt_xen_prof_start *op,
				 struct pmuvirt_error *err)
{
	const struct pmuvirt_control *ctl = &op->ctl;
	uint32_t p = op->ring_pages;
	unsigned int i, j;

	if (op->nr_domains > PMUVIRT_XEN_PROF_MAX_DOMAINS)
		return refuse(err, -1, "too many domains");
	for (i = 0; i < PMUVIRT_XEN_PROF_MAX_DOMAINS; i++) {
		if (i >= op->nr_domains) {
			if (op->domains[i])
				return refuse(err, -1, "a domain past the count");
			continue;
		}
		if (op->domains[i] >= DOMID_RESERVED)
			return refuse(err, -1, "not a domain id");
		for (j = 0; j < i; j++)
			if (op->domains[j] == op->domains[i])
				return refuse(err, -1, "a domain listed twice");
	}
	if (op->nr_domains < 32 && (op->active >> op->nr_domains))
		return refuse(err, -1, "an active bit past the domain count");
	if (p < PMUVIRT_XEN_PROF_MIN_PAGES || p > PMUVIRT_XEN_PROF_MAX_PAGES || (p & (p - 1)))
		return refuse(err, -1, "ring pages: a power of two from 2 to 256");
	if (op->sample_format & ~PMUVIRT_SAMPLE_FMT_ALL)
		return refuse(err, -1, "record format: ip, time, mode, values, chain");
	if ((op->sample_format & PMUVIRT_SAMPLE_FMT_CHAIN) ?
	    !op->chain_depth || op->chain_depth > PMUVIRT_CHAIN_MAX : op->chain_depth != 0)
		return refuse(err, -1, "chain depth: 1 to 127 with call chains, 0 without");
	if (!op->high_water_pct || op->high_water_pct > 100)
		return refuse(err, -1, "high-water mark: 1 to 100 percent");
	if (ctl->version != PMUVIRT_ABI_VERSION)
		return refuse(err, -1, "unknown control version");
	if (!ctl->nr_counters || ctl->nr_counters > PMUVIRT_XEN_PROF_MAX_COUNTERS)
		return refuse(err, -1, "a session samples with 1 to 8 counters");
	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_counter_ctl *c = &ctl->counter[i];

		if (!c->period || !(c->flags & PMUVIRT_CTR_SAMPLE))
			return refuse(err, (int)i, "a session counter samples (i-mode, SAMPLE)");
		if (c->event == PMUVIRT_EV_TSC && !(c->flags & PMUVIRT_CTR_RAW))
			return refuse(err, (int)i, "the TSC cannot sample");
	}
	return 0;
}

void pmuvirt_xen_prof_format(const struct pmuvirt_xen_prof_start *op,
			     struct pmuvirt_sample_format *fmt)
{
	fmt->format = op->sample_format ? op->sample_format : PMUVIRT_SAMPLE_FMT_DEFAULT;
	fmt->nr_values = !(fmt->format & PMUVIRT_SAMPLE_FMT_VALUES) ? 0 :
			 op->sample_format ? op->ctl.nr_counters : PMUVIRT_MAX_COUNTERS;
	fmt->chain_depth = (fmt->format & PMUVIRT_SAMPLE_FMT_CHAIN) ? op->chain_depth : 0;
}

uint32_t pmuvirt_xen_prof_records(uint32_t ring_pages, const struct pmuvirt_sample_format *fmt)
{
	uint32_t size = pmuvirt_sample_record_size(fmt->format, fmt->nr_values, fmt->chain_depth);
	uint32_t fit, n = 1;

	/* 32-bit arithmetic: no 64-bit division on 32-bit hosts */
	if (!size || !ring_pages || ring_pages > PMUVIRT_XEN_PROF_MAX_PAGES)
		return 0;
	fit = (ring_pages * 4096u - PMUVIRT_XEN_PROF_DATA_OFFSET) / size;
	if (!fit)
		return 0;
	while (n * 2 <= fit && n < PMUVIRT_SAMPLE_MAX_RECORDS)
		n *= 2;
	return n;
}

uint32_t pmuvirt_xen_prof_mode(const struct pmuvirt_xen_prof_where *w)
{
	if (!w->guest)
		return PMUVIRT_SAMPLE_HYPERVISOR;
	/* A 64-bit PV kernel runs in ring 3 like its user code: Xen's flag tells. */
	if (!w->hvm && !w->pv32)
		return w->kernel ? 0 : PMUVIRT_SAMPLE_USER;
	return (w->cs & 3) == 3 ? PMUVIRT_SAMPLE_USER : 0;
}

int pmuvirt_xen_prof_hvm_guest(struct pmuvirt_xen_prof_where *w, unsigned int kind,
			       pmuvirt_xen_hvm_read_t read, void *arg)
{
	uint64_t ip, cpl;
	int rc;

	switch (kind) {
	case PMUVIRT_XEN_HVM_SVM:
		rc = read(arg, PMUVIRT_XEN_VMCB_RIP, &ip);
		if (!rc)
			rc = read(arg, PMUVIRT_XEN_VMCB_CPL, &cpl);
		break;
	case PMUVIRT_XEN_HVM_VMX:
		rc = read(arg, PMUVIRT_XEN_VMCS_GUEST_RIP, &ip);
		if (!rc)
			rc = read(arg, PMUVIRT_XEN_VMCS_GUEST_SS_AR, &cpl);
		/* SS.DPL is the CPL, also for an unusable SS (SDM 3, 24.4.1) */
		if (!rc)
			cpl = (cpl >> 5) & 3;
		break;
	default:
		return -EINVAL;
	}
	if (rc)
		return rc;
	if (cpl > 3)
		return -EINVAL;
	w->ip = ip;
	w->cs = (uint32_t)cpl;
	w->guest = true;
	w->hvm = true;
	w->kernel = false;
	w->pv32 = false;
	return 0;
}

void pmuvirt_xen_prof_record(struct pmuvirt_sample *s, const struct pmuvirt_xen_prof_where *w,
			     uint32_t domain, uint32_t vcpu, bool profiled, uint64_t time)
{
	uint32_t mode = pmuvirt_xen_prof_mode(w);
	unsigned int i;

	s->flags = (uint16_t)((s->flags & PMUVIRT_SAMPLE_VALUES) | mode);
	if (mode == PMUVIRT_SAMPLE_HYPERVISOR || profiled) {
		s->ip = w->ip;
	} else {
		s->ip = 0;
		s->flags |= PMUVIRT_SAMPLE_NO_IP;
	}
	s->domain = domain;
	s->tid = vcpu;
	s->time = time;
	/* An idle PCPU's context is Xen's own; any other domain's state stays out. */
	if (profiled || domain == PMUVIRT_XEN_DOMID_IDLE)
		return;
	s->tid = 0;
	s->flags &= (uint16_t)~PMUVIRT_SAMPLE_VALUES;
	s->nr_values = 0;
	for (i = 0; i < PMUVIRT_MAX_COUNTERS; i++)
		s->value[i] = 0;
}

void pmuvirt_xen_prof_for_guest(struct pmuvirt_sample *s)
{
	if (!(s->flags & PMUVIRT_SAMPLE_HYPERVISOR))
		return;
	s->ip = 0;
	s->flags |= PMUVIRT_SAMPLE_NO_IP;
}

bool pmuvirt_xen_pv_guest_addr(uint64_t addr, uint32_t len)
{
	if (addr >= PMUVIRT_XEN_PV_KERNEL_START)
		return len <= 0 - addr;
	return addr <= PMUVIRT_XEN_PV_USER_END && len <= PMUVIRT_XEN_PV_USER_END - addr;
}

uint64_t pmuvirt_xen_prof_pv_limit(const struct pmuvirt_xen_prof_where *w,
				   const struct pmuvirt_xen_pv_stack *st)
{
	if (!w->guest || w->hvm || w->pv32)
		return 0;
	if (!w->kernel)
		return st->sp < PMUVIRT_XEN_PV_USER_END ? PMUVIRT_XEN_PV_USER_END : 0;
	/* the running task's kernel stack: rsp a little below its top, both the guest's */
	if (st->sp < PMUVIRT_XEN_PV_KERNEL_START || st->kernel_sp <= st->sp ||
	    st->kernel_sp - st->sp > PMUVIRT_XEN_PV_KSTACK_MAX)
		return 0;
	return st->kernel_sp;
}

void pmuvirt_xen_prof_pv_chain(struct pmuvirt_sample *s, const struct pmuvirt_xen_prof_where *w,
			       bool profiled, const struct pmuvirt_xen_pv_stack *st,
			       pmuvirt_chain_read_fn read, void *arg, uint64_t *frames,
			       unsigned int max)
{
	uint64_t limit;
	unsigned int n;

	s->nr_kernel = 0;
	s->nr_user = 0;
	if (!profiled || !frames || !max)
		return;
	limit = pmuvirt_xen_prof_pv_limit(w, st);
	if (!limit)
		return;
	n = pmuvirt_chain_fp(st->bp, st->sp, limit, read, arg, frames, max);
	if (w->kernel)
		s->nr_kernel = (uint16_t)n;
	else
		s->nr_user = (uint16_t)n;
}
