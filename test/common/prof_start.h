/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * A well-formed PMUVIRT_XEN_PROF_START description, shared by the unit
 * test of its checks and the Xen guest test that starts sessions:
 * header-only, as the VM tests build outside CMake.
 */
#ifndef PMUVIRT_TEST_PROF_START_H
#define PMUVIRT_TEST_PROF_START_H

#include <stdint.h>
#include <string.h>
#include <pmuvirt/xen.h>

/* Domain 0 profiled by one counter, @ring_pages per ring, high water at half. */
static inline void prof_start_one(struct pmuvirt_xen_prof_start *op, uint32_t ring_pages,
				  uint64_t event, uint32_t flags, uint64_t period)
{
	memset(op, 0, sizeof(*op));
	op->hdr.version = PMUVIRT_XEN_VERSION;
	op->hdr.size = sizeof(*op);
	op->nr_domains = 1;
	op->ring_pages = ring_pages;
	op->high_water_pct = 50;
	op->ctl.version = PMUVIRT_ABI_VERSION;
	op->ctl.nr_counters = 1;
	op->ctl.counter[0].event = event;
	op->ctl.counter[0].flags = flags;
	op->ctl.counter[0].period = period;
}

#endif
