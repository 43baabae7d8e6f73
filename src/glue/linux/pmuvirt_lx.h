/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Private interface between the files of pmuvirt.ko. */
#ifndef PMUVIRT_LX_H
#define PMUVIRT_LX_H

/*
 * Included first by every glue file: struct pmuvirt_pcpu has a field named
 * like the kernel's "current" macro, so it is declared and read here before
 * any kernel header defines that macro.
 */
#include <pmuvirt/pmuvirt.h>
#include <pmuvirt/linux.h>
#ifdef CONFIG_X86
#include <x86/pmuvirt_x86.h>
#elif defined(CONFIG_PPC_BOOK3S_64)
#include <ppc/pmuvirt_ppc.h>
#else
#error "pmuvirt.ko: x86 or 64-bit Book3S POWER only"
#endif
#include "pmuvirt_abi_check.h"

#include <linux/percpu.h>
#include <linux/irq_work.h>
#include <linux/signal.h>
#include <linux/build_bug.h>
#include <linux/moduleparam.h>

/* pmuvirt_linux_check_attach() accepts the signals 1.._NSIG of this kernel. */
static_assert(_NSIG == PMUVIRT_LINUX_SIGNO_MAX);

struct pmuvirt_thread;

/**
 * struct pmuvirt_lx_cpu - what the module keeps per CPU
 * @pc:		the core's per-CPU state.
 * @cur:	the thread whose context is on the counters, or NULL.
 * @busy:	a core call is running; a PMI arriving now is deferred.
 * @pmi_deferred: a PMI arrived while @busy.
 * @sig_work:	delivers overflow signals outside NMI context.
 */
struct pmuvirt_lx_cpu {
	struct pmuvirt_pcpu pc;
	struct pmuvirt_thread *cur;
	bool busy;
	bool pmi_deferred;
	struct irq_work sig_work;
	struct pt_regs *pmi_regs;	/* the interrupted context, during a PMI taken at once */
};

DECLARE_PER_CPU(struct pmuvirt_lx_cpu, pmuvirt_lx_cpu);

extern struct pmuvirt_pmu pmuvirt_lx_pmu;

/* Read-only module parameter showing the atomic_long_t at kp->arg. */
extern const struct kernel_param_ops pmuvirt_lx_atomic_long_ops;

/* Counters other than the TSC may be used (probed and reserved). */
extern bool pmuvirt_lx_pmc_ok;

/* Register access for the current CPU; the only way to the hardware. */
extern const struct pmuvirt_hw_ops *pmuvirt_lx_hw;

int pmuvirt_lx_hw_init(void);
void pmuvirt_lx_hw_exit(void);
void pmuvirt_lx_pmi(struct pmuvirt_lx_cpu *lc);
bool pmuvirt_lx_pmi_irq(struct pmuvirt_lx_cpu *lc);
void pmuvirt_lx_pmi_unmask(void);
bool pmuvirt_lx_pmi_stale(struct pmuvirt_lx_cpu *lc);
void pmuvirt_lx_hw_cpu_up(void);
u32 pmuvirt_lx_uread_caps(const u8 *slots, unsigned int nr);
void *pmuvirt_lx_hw_arg(unsigned int cpu);

struct vm_area_struct;
#ifdef CONFIG_X86
int pmuvirt_lx_rdpmc_safe(u32 idx, u64 *val);

/* Xen backend (pmuvirt_xenpv.c): in use when pmuvirt_lx_xen is true. */
extern bool pmuvirt_lx_xen;
int pmuvirt_lx_xen_init(void);
void pmuvirt_lx_xen_exit(void);
/* From syscore suspend and resume (Xen's save and restore). */
void pmuvirt_lx_xen_suspend(void);
void pmuvirt_lx_xen_resume(void);
void *pmuvirt_lx_xen_hw_arg(unsigned int cpu);
int pmuvirt_lx_xen_mmap(struct vm_area_struct *vma);
int pmuvirt_lx_xen_below(unsigned long uarg);

/* The emulated PMU (module parameter emulate_pmu), a test instrument. */
extern bool pmuvirt_lx_emulate;
int pmuvirt_lx_emu_init(void);
void *pmuvirt_lx_emu_hw_arg(unsigned int cpu);
void pmuvirt_lx_emu_exit(void);
void pmuvirt_lx_emu_unmask(void);
void pmuvirt_lx_emu_set_mode(bool user);
void pmuvirt_lx_emu_cpu_online(void);
void pmuvirt_lx_emu_cpu_offline(void);
#else
/* POWER: neither Xen PV below the module nor the emulated (Intel) PMU. */
#define pmuvirt_lx_xen		false
#define pmuvirt_lx_emulate	false
static inline int pmuvirt_lx_xen_mmap(struct vm_area_struct *vma)
{
	return -EINVAL;	/* only offset 0, the thread's record, exists */
}
static inline int pmuvirt_lx_xen_below(unsigned long uarg)
{
	return -ENODEV;
}
static inline void pmuvirt_lx_xen_suspend(void)
{
}
static inline void pmuvirt_lx_xen_resume(void)
{
}
static inline void pmuvirt_lx_emu_set_mode(bool user)
{
}
static inline void pmuvirt_lx_emu_cpu_online(void)
{
}
static inline void pmuvirt_lx_emu_cpu_offline(void)
{
}
#endif

/* Security policy (pmuvirt_policy.c). */
struct cred;

/**
 * struct pmuvirt_lx_sigcred - whose permission an overflow signal needs
 * @cred:	the attacher's credentials at attach (a reference).
 * @cap_kill:	the attacher had CAP_KILL in its user namespace then.
 */
struct pmuvirt_lx_sigcred {
	const struct cred *cred;
	bool cap_kill;
};

void pmuvirt_lx_policy_init(void);
void pmuvirt_lx_policy_exit(void);
int pmuvirt_lx_policy_attach(const struct pmuvirt_control *ctl, u32 signo);
bool pmuvirt_lx_policy_exempt(void);
int pmuvirt_lx_validate(const struct pmuvirt_control *ctl, u8 *slots, bool exempt,
			struct pmuvirt_error *err);
bool pmuvirt_lx_may_map_vcpus(void);
void pmuvirt_lx_signal_cred(struct pmuvirt_lx_sigcred *sc);
void pmuvirt_lx_signal_cred_copy(struct pmuvirt_lx_sigcred *dst,
				 const struct pmuvirt_lx_sigcred *src);
void pmuvirt_lx_signal_cred_put(struct pmuvirt_lx_sigcred *sc);
bool pmuvirt_lx_may_signal(const struct pmuvirt_lx_sigcred *sc);
void pmuvirt_lx_signal_refused(int signo);
bool pmuvirt_lx_pmi_throttle(struct pmuvirt_lx_cpu *lc);

#endif /* PMUVIRT_LX_H */
