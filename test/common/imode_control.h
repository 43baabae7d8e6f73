/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The i-mode control that the unit tests of the emulated PMU and vmtest's
 * i-mode checks share: header-only, as vmtest builds outside CMake.
 */
#ifndef PMUVIRT_TEST_IMODE_CONTROL_H
#define PMUVIRT_TEST_IMODE_CONTROL_H

#include <stdint.h>
#include <string.h>
#include <pmuvirt/abi.h>

/* Instructions and cycles in both modes, cycles in i-mode every @period, and the TSC. */
static inline void imode_control(struct pmuvirt_control *ctl, uint64_t period)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = 3;
	ctl->counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl->counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	ctl->counter[1].event = PMUVIRT_EV_CYCLES;
	ctl->counter[1].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	ctl->counter[1].period = period;
	ctl->counter[2].event = PMUVIRT_EV_TSC;
}

#endif
