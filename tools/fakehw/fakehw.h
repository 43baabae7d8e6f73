/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Strict fake PMU hardware for one CPU, for tests and the simulator.
 *
 * A fake models one CPU's PMU registers exactly as the SDM/APM/ISA describe
 * them for the configured model.  Counters advance only through
 * fakehw_run(), only when enabled and when their event select matches the
 * event and privilege level; an overflow raises the PMI callback at the
 * exact event, before the next event is counted.  Any access the model
 * does not cover (unknown register, reserved bit, write to a read-only
 * register, full-width write above the width) fails with -EFAULT, is counted
 * in stats.errors and recorded in fakehw_last_error(): tests assert that no
 * such error happened.
 */
#ifndef PMUVIRT_FAKEHW_H
#define PMUVIRT_FAKEHW_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <pmuvirt/pmuvirt.h>

struct fakehw;

enum fakehw_event {
	FAKEHW_INSTRUCTIONS,
	FAKEHW_CYCLES,
	FAKEHW_BRANCHES,
	FAKEHW_BRANCH_MISSES,
	FAKEHW_NR_EVENTS
};

enum fakehw_vendor { FAKEHW_INTEL = 1, FAKEHW_AMD = 2 };

/**
 * struct fakehw_x86_config - which x86 PMU to model
 * @vendor:	FAKEHW_INTEL or FAKEHW_AMD.
 * @version:	Intel architectural perfmon version 1..5.
 * @nr_gp:	Intel/PerfMonV2: general counters.
 * @nr_fixed:	Intel v2+: fixed counters (0 for v1).
 * @width:	Intel general/fixed counter width (AMD is always 48).
 * @fw_write:	Intel: IA32_PERF_CAPABILITIES.FW_WRITE.
 * @amd_family:	AMD family (0x0f K8, 0x10, 0x15, 0x17, 0x19 ...).
 * @amd_core_ext: AMD: CPUID 0x80000001 ECX[23], six counters at 0xC0010200.
 * @amd_perfmon_v2: AMD: CPUID 0x80000022 EAX[0], global control/status.
 */
struct fakehw_x86_config {
	enum fakehw_vendor vendor;
	unsigned int version;
	unsigned int nr_gp;
	unsigned int nr_fixed;
	unsigned int width;
	bool fw_write;
	unsigned int amd_family;
	bool amd_core_ext;
	bool amd_perfmon_v2;
};

struct fakehw_stats {
	uint64_t reg_reads;	/* rdmsr / mfspr */
	uint64_t reg_writes;	/* wrmsr / mtspr */
	uint64_t counter_reads;	/* rdpmc, and mfspr of a PMC on POWER */
	uint64_t tsc_reads;
	uint64_t errors;	/* refused accesses */
	uint64_t pmis;		/* PMI callbacks run */
	uint64_t access_alerts;	/* POWER: alerts a register write raised (not an event) */
};

struct fakehw *fakehw_x86_new(const struct fakehw_x86_config *cfg);
/* @power: 8, 9 or 10. */
struct fakehw *fakehw_ppc_new(unsigned int power);
void fakehw_free(struct fakehw *hw);

/* Register access for pmuvirt: pass fakehw_ops() with the fake as arg. */
const struct pmuvirt_hw_ops *fakehw_ops(const struct fakehw *hw);

/*
 * Called at the exact event where an enabled, interrupting counter
 * overflows.  POWER: an alert that a register write raised (fake_ppc.c) is
 * delivered before the next event is counted, if MMCR0[PMAO] still holds
 * it then: pmuvirt writes registers with interrupts off.
 */
void fakehw_set_pmi(struct fakehw *hw, void (*fn)(void *arg), void *arg);

/*
 * Called when the hardware raises an interrupt, at the event or register
 * write that raised it (@by_access), before anything else happens: for a
 * test to see who owned the counters at that moment.  It must not access
 * the fake or call into pmuvirt.
 */
void fakehw_set_alert_hook(struct fakehw *hw, void (*fn)(void *arg, bool by_access), void *arg);

/*
 * @n events of kind @ev happen, in kernel (supervisor) or user mode.
 * Cycles also advance the TSC / time base by the same amount.
 * Returns 0, or -EFAULT if a PMI callback failed.
 */
int fakehw_run(struct fakehw *hw, enum fakehw_event ev, uint64_t n, bool kernel);
void fakehw_advance_tsc(struct fakehw *hw, uint64_t n);

const struct fakehw_stats *fakehw_stats(const struct fakehw *hw);
void fakehw_reset_stats(struct fakehw *hw);
const char *fakehw_last_error(const struct fakehw *hw);

/*
 * Who runs: fakehw_run() marks every counter that counts as programmed
 * (enabled, whatever its event) with the bits of @label; a write of the
 * counter clears its marks.  fakehw_taint() is the union of the marks of
 * all counters: whose events (or their absence) the counters' values may
 * reveal.  The simulator labels each domain's events and checks that a
 * VCPU never finds another domain's label on the hardware.
 */
void fakehw_set_label(struct fakehw *hw, uint64_t label);
uint64_t fakehw_taint(const struct fakehw *hw);

/* Fault injection: the @n-th register access from now (1 = the next) fails. */
void fakehw_fail_access(struct fakehw *hw, uint64_t n);

/*
 * VM entry and exit on a fake x86 CPU: from an entry to the next exit,
 * fakehw_run() events happen in the guest.  AMD counters honour
 * HostOnly/GuestOnly (the host runs with EFER.SVME set).  With @load,
 * IA32_PERF_GLOBAL_CTRL becomes @global as VMX's "load
 * IA32_PERF_GLOBAL_CTRL" VM-entry and VM-exit controls load it (checked
 * as a WRMSR would be, counted in no statistic).  An entry in the guest,
 * an exit in the host, a load on a model without the register or a POWER
 * fake is refused (-EFAULT).
 */
int fakehw_x86_vm_entry(struct fakehw *hw, bool load, uint64_t global);
int fakehw_x86_vm_exit(struct fakehw *hw, bool load, uint64_t global);

/* Test helpers: raw register access that is not counted and not checked. */
int fakehw_peek(const struct fakehw *hw, uint32_t reg, uint64_t *val);
int fakehw_poke(struct fakehw *hw, uint32_t reg, uint64_t val);

#endif /* PMUVIRT_FAKEHW_H */
