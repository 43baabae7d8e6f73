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
#include <linux/preempt.h>
#include <linux/llist.h>

/* pmuvirt_linux_check_attach() accepts the signals 1.._NSIG of this kernel. */
static_assert(_NSIG == PMUVIRT_LINUX_SIGNO_MAX);

struct pmuvirt_thread;
struct pmuvirt_below;
struct vm_area_struct;

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

/**
 * struct pmuvirt_lx_backend - what the module counts on, chosen once at load
 * @name:	for the kernel log.
 * @init:	probe the PMU and take what may be taken: fill pmuvirt_lx_pmu,
 *		set pmuvirt_lx_pmc_ok when counters other than the TSC may be
 *		used.  -ENODEV: not on this machine (or not asked for), and
 *		the next backend is tried; another error fails the load.
 * @exit:	give back what @init took; no thread is attached any more.
 * @hw:		register access of every CPU's struct pmuvirt_pcpu (NULL for
 *		a backend stacked on another pmuvirt instance).
 * @hw_arg:	optional: the hw_arg of CPU @cpu's struct pmuvirt_pcpu (NULL:
 *		none).
 * @uread_caps:	PMUVIRT_UREAD_* the calling thread may read itself, for a
 *		validated control whose counters sit on @slots.
 * @pmi_unmask:	optional: let this CPU take PMIs again (x86: LVTPC).  Every
 *		PMI the module takes calls it first.
 * @pmi_stale:	optional: a PMI found no context on the counters: did the
 *		module's counters cross (raised before the last switch stopped
 *		them)?  NULL: never.
 * @cpu_up:	optional: this CPU came (back) online or resumed; the core has
 *		forgotten what it cached.  Interrupts off.
 * @cpu_down:	optional: this CPU goes offline or suspends, with no context
 *		on its counters.  Interrupts off.
 * @sched_in:	optional: @thr is switched in on this CPU.  Interrupts off.
 * @mmap:	optional: map what lies below the threads' records (mmap at page
 *		offset 1 and up).  NULL: -EINVAL, only the thread's record
 *		exists.
 * @below:	optional: fill the layout of PMUVIRT_IOC_BELOW.  NULL: -ENODEV,
 *		the threads sit on the hardware.
 * @suspend:	optional: syscore suspend, after @cpu_down (CPU 0, interrupts
 *		off, the other CPUs stopped).
 * @resume:	optional: syscore resume, before @cpu_up.
 *
 * One instance per kind of host, built only where it applies: the x86
 * hardware (pmuvirt_hw.c), the emulated PMU (pmuvirt_emu.c), Xen's
 * per-VCPU counters (pmuvirt_xenpv.c, kernels with CONFIG_XEN) and the
 * POWER hardware (pmuvirt_hw_ppc.c).
 */
struct pmuvirt_lx_backend {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	const struct pmuvirt_hw_ops *hw;
	void *(*hw_arg)(unsigned int cpu);
	u32 (*uread_caps)(const u8 *slots, unsigned int nr);
	void (*pmi_unmask)(void);
	bool (*pmi_stale)(struct pmuvirt_lx_cpu *lc);
	void (*cpu_up)(void);
	void (*cpu_down)(void);
	void (*sched_in)(struct pmuvirt_thread *thr);
	int (*mmap)(struct vm_area_struct *vma);
	void (*below)(struct pmuvirt_below *b);
	void (*suspend)(void);
	void (*resume)(void);
};

/* The backend in use, and the PMU it described (pmuvirt_pmi.c). */
extern const struct pmuvirt_lx_backend *pmuvirt_lx_be;
extern struct pmuvirt_pmu pmuvirt_lx_pmu;
/* Counters other than the TSC may be used (probed and reserved). */
extern bool pmuvirt_lx_pmc_ok;

/* Read-only module parameter showing the atomic_long_t at kp->arg. */
extern const struct kernel_param_ops pmuvirt_lx_atomic_long_ops;

/* The atomic_long_t nr_@name, shown as the read-only module parameter @name. */
#define PMUVIRT_LX_COUNTER(name, desc)						\
	static atomic_long_t nr_##name = ATOMIC_LONG_INIT(0);			\
	module_param_cb(name, &pmuvirt_lx_atomic_long_ops, &nr_##name, 0444);	\
	MODULE_PARM_DESC(name, desc " (read-only)")

/* The PMI (pmuvirt_pmi.c). */
void pmuvirt_lx_pmi_init(void);
void pmuvirt_lx_pmi_exit(void);
void pmuvirt_lx_pmi(struct pmuvirt_lx_cpu *lc);
bool pmuvirt_lx_pmi_irq(struct pmuvirt_lx_cpu *lc);
void pmuvirt_lx_end(struct pmuvirt_lx_cpu *lc);

/**
 * pmuvirt_lx_begin() - a core call on this CPU starts
 * @lc:		this CPU's state.
 *
 * A PMI meanwhile waits for pmuvirt_lx_end(), so the core never runs twice
 * on one CPU.  Interrupts off.
 */
static inline void pmuvirt_lx_begin(struct pmuvirt_lx_cpu *lc)
{
	lc->busy = true;
	barrier();
}

/* The backends, each in its own file (see struct pmuvirt_lx_backend). */
#ifdef CONFIG_X86
extern const struct pmuvirt_lx_backend pmuvirt_lx_native_backend;
extern const struct pmuvirt_lx_backend pmuvirt_lx_emu_backend;
#ifdef CONFIG_XEN
extern const struct pmuvirt_lx_backend pmuvirt_lx_xen_backend;
#endif
/* x86 helpers of pmuvirt_hw.c that the other x86 backends share. */
int pmuvirt_lx_rdpmc_safe(u32 idx, u64 *val);
u32 pmuvirt_lx_x86_uread_tsc(void);
bool pmuvirt_lx_x86_pmi_stale(struct pmuvirt_lx_cpu *lc);
#else
extern const struct pmuvirt_lx_backend pmuvirt_lx_power_backend;
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

/* Threads (pmuvirt_thread.c). */
struct pmuvirt_proc;
struct pmuvirt_ring;
struct pmuvirt_file;
struct pmuvirt_sum;

/**
 * struct pmuvirt_thread - one attached thread
 * @pn:		preempt notifier registered on @task.
 * @task:	the thread (a reference is held).
 * @ctx:	its context.
 * @page:	the page holding its shared record.
 * @ring:	its sample ring, or NULL.
 * @file:	where its final counts go, or NULL.
 * @dead:	link in the list of exited threads.
 * @tid:	thread id for the report.
 * @pid:	thread-group id for the report.
 * @signo:	overflow signal.
 * @sig_armed:	an overflow signal may be sent (until the next resume);
 *		never with PMUVIRT_ATTACH_SAMPLE_FILE (a recorder's thread).
 * @flags:	PMUVIRT_ATTACH_* it was attached with (children get the same).
 * @final:	values when the thread exited.
 * @final_flags: PMUVIRT_COUNTS_* for @final.
 * @ctl:	its control: for new tasks when @flags has
 *		PMUVIRT_ATTACH_INHERIT, and for the PMI (which counters count
 *		kernel mode).
 * @proc:	its process's security domain.
 * @sigcred:	the attacher's credentials: the overflow signal is sent only
 *		while they could signal the task.
 * @exempt:	the attacher was privileged (pmuvirt_lx_policy_exempt()):
 *		user_event_policy does not bind the tasks that inherit @ctl.
 * @how:	PMUVIRT_REPORT_* of the final report (thread_retire()).
 * @in_syscall:	the thread is between the sys_enter and sys_exit
 *		tracepoints; kept by the emulated backend, whose user and
 *		kernel filters follow it.
 * @sum:	with PMUVIRT_ATTACH_SUM: the attacher's sum (a reference), or NULL.
 * @sum_owner:	this thread attached with PMUVIRT_ATTACH_SUM: its reads
 *		add @sum; the others' final counts go into it.
 * @module_held: the thread holds a module reference: from its binding to
 *		a task until its notifier can run no more.
 */
struct pmuvirt_thread {
	struct preempt_notifier pn;
	struct task_struct *task;
	struct pmuvirt_ctx *ctx;
	struct page *page;
	struct pmuvirt_ring *ring;
	struct pmuvirt_file *file;
	struct llist_node dead;
	u32 tid, pid;
	int signo;
	bool sig_armed;
	u32 flags;
	u64 final[PMUVIRT_MAX_COUNTERS];
	u32 final_flags;
	struct pmuvirt_control ctl;
	struct pmuvirt_proc *proc;
	struct pmuvirt_lx_sigcred sigcred;
	bool exempt;
	u32 how;
	bool in_syscall;
	struct pmuvirt_sum *sum;
	bool sum_owner;
	bool module_held;
};

struct tracepoint;

int pmuvirt_lx_thread_init(void);
void pmuvirt_lx_thread_exit(void);
struct tracepoint *pmuvirt_lx_tracepoint(const char *name);
struct pmuvirt_thread *pmuvirt_lx_current_thread(void);
void pmuvirt_lx_switch(struct pmuvirt_lx_cpu *lc, struct pmuvirt_thread *next);
int pmuvirt_lx_thread_can_attach(u32 flags);
struct pmuvirt_thread *pmuvirt_lx_thread_new(const struct pmuvirt_attach *a,
					     struct pmuvirt_error *err);
void pmuvirt_lx_thread_free_unbound(struct pmuvirt_thread *thr);
void pmuvirt_lx_thread_start(struct pmuvirt_thread *thr, const struct pmuvirt_attach *a,
			     struct pmuvirt_file *pf, bool exempt);
u32 pmuvirt_lx_thread_read(struct pmuvirt_thread *thr, u64 *vals);
u32 pmuvirt_lx_thread_detach(struct pmuvirt_thread *thr, u64 *vals);
u32 pmuvirt_lx_thread_resume(struct pmuvirt_thread *thr, u32 *counts, u32 *flags);

/* Sample rings, mappings and reports (pmuvirt_ring.c). */
struct inode;
struct file;
struct poll_table_struct;

int pmuvirt_lx_ring_alloc(struct pmuvirt_thread *thr, u32 pages,
			  const struct pmuvirt_sample_format *fmt, gfp_t gfp);
void pmuvirt_lx_ring_format(const struct pmuvirt_ring *ring, struct pmuvirt_sample_format *fmt);
void pmuvirt_lx_ring_get(struct pmuvirt_ring *ring);
void pmuvirt_lx_ring_put(struct pmuvirt_ring *ring);
u32 pmuvirt_lx_ring_pages(const struct pmuvirt_ring *ring);
void pmuvirt_lx_ring_queue(struct pmuvirt_thread *thr);
int pmuvirt_lx_ring_tail(struct pmuvirt_ring *ring, const struct pmuvirt_sample_tail *t);
struct pmuvirt_ring *pmuvirt_lx_ring_take(struct pmuvirt_file *pf, struct pmuvirt_sample_open *o);
void pmuvirt_lx_ring_requeue(struct pmuvirt_file *pf, struct pmuvirt_ring *ring);
int pmuvirt_lx_ring_mmap(struct pmuvirt_ring *ring, struct vm_area_struct *vma);
int pmuvirt_lx_record_mmap(struct pmuvirt_thread *thr, struct vm_area_struct *vma);
void pmuvirt_lx_file_hold(struct pmuvirt_file *pf);
void pmuvirt_lx_file_drop(struct pmuvirt_file *pf);
void pmuvirt_lx_report(struct pmuvirt_thread *thr, const u64 *vals, u32 flags, u32 how);
int pmuvirt_lx_open(struct inode *inode, struct file *file);
int pmuvirt_lx_release(struct inode *inode, struct file *file);
ssize_t pmuvirt_lx_read_reports(struct file *file, char __user *buf, size_t len, loff_t *ppos);
__poll_t pmuvirt_lx_poll(struct file *file, struct poll_table_struct *wait);

/* The file operations of /dev/pmuvirt (pmuvirt_ioctl.c). */
extern const struct file_operations pmuvirt_lx_fops;

#endif /* PMUVIRT_LX_H */
