/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The i-mode control of the emulated PMU's tests (test_x86_emu, vmtest's
 * i-mode checks, xen_emu_test): header-only, as the VM tests build
 * outside CMake.
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
