/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Internal interface between the files of pmuvirt's Xen glue. */
#ifndef PMUVIRT_XEN_GLUE_H
#define PMUVIRT_XEN_GLUE_H

#include <pmuvirt/pmuvirt.h>
#include <pmuvirt/xen.h>
#include "pmuvirt_x86.h"

/* The context whose counters are on @pc's hardware, or NULL. */
static inline struct pmuvirt_ctx *pmuvirt_xen_running(const struct pmuvirt_pcpu *pc)
{
	return pc->running;
}

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
};

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
extern const struct pmuvirt_hw_ops pmuvirt_xen_emu_hw;
extern unsigned long pmuvirt_xen_emu_pmis;
void pmuvirt_xen_emu_cpu_init(void);

/**
 * pmuvirt_xen_deliver_pmi() - run the PMI path on this PCPU
 *
 * Interrupts disabled.  Pending notifications go to the running context,
 * and its VCPU gets the VIRQ.
 */
void pmuvirt_xen_deliver_pmi(void);

#endif /* PMUVIRT_XEN_GLUE_H */
