// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko: the life of an attached thread.
 *
 * A thread attaches through /dev/pmuvirt and gets a pmuvirt context.  A
 * preempt notifier on the thread moves the context on and off the counters
 * of whatever CPU the thread runs on (pmuvirt_switch() on that CPU's
 * struct pmuvirt_pcpu with interrupts off).  The context's shared record
 * lives in one page the thread maps read-only.
 *
 * Lifetime: only the thread itself attaches, detaches, reads and maps its
 * context; a context dies with its thread or on detach.  An exiting thread
 * leaves the counters in a probe on sched_process_exit, which fires before
 * exit_notify(): its notifier is off the task and its module reference
 * dropped before a parent's wait() can return, and a work item frees the
 * context later (module exit flushes it).  Without that tracepoint the
 * thread's last switch-out (TASK_DEAD) hands it over, and the module
 * reference goes when the context is freed.  So the module cannot be
 * unloaded while any task can still run its notifier.
 *
 * Inheritance: a probe on the sched_process_fork tracepoint gives a new task
 * of an inheriting thread its own context before the task first runs (the
 * tracepoint fires before wake_up_new_task(), so nothing else walks the new
 * task's notifier list yet).  Summed inheritance: a probe on
 * sched_process_exit adds an exiting task's final counts to its attacher's
 * sum before exit_notify() lets a parent's wait() return; the same probe
 * ends every exiting thread's counting (see Lifetime).  A probe on
 * sched_process_exec stops counting a program that is not dumpable.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/coredump.h>
#include <linux/preempt.h>
#include <linux/llist.h>
#include <linux/workqueue.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/tracepoint.h>
#include <linux/hashtable.h>

PMUVIRT_LX_COUNTER(attached, "number of threads with a context");
PMUVIRT_LX_COUNTER(inherit_failed, "new tasks of inheriting threads left without counters");
PMUVIRT_LX_COUNTER(inherit_refused, "new tasks of inheriting threads left without counters because user_event_policy does not permit their events");

static struct tracepoint *fork_tp;
static struct tracepoint *exec_tp;
static struct tracepoint *exit_tp;

/**
 * struct pmuvirt_sum - counts of the ended descendants of a thread attached
 *			with PMUVIRT_ATTACH_SUM
 * @ref:	the attacher and every task that inherited its context.
 * @lock:	protects @value and @flags.
 * @value:	summed final values, one per counter of the control.
 * @flags:	PMUVIRT_COUNTS_FAULTED when a summed value was.
 */
struct pmuvirt_sum {
	struct kref ref;
	spinlock_t lock;
	u64 value[PMUVIRT_MAX_COUNTERS];
	u32 flags;
};

static LLIST_HEAD(dead_threads);
static void dead_work_fn(struct work_struct *work);
static DECLARE_WORK(dead_work, dead_work_fn);

static void dead_irq_work_fn(struct irq_work *iw)
{
	schedule_work(&dead_work);
}

static DEFINE_IRQ_WORK(dead_irq_work, dead_irq_work_fn);

/*
 * @thr is off the counters for good and its notifier runs no more: the work
 * item reports its final values (@how) and frees it.  @thr may be gone when
 * this returns.
 */
static void thread_retire(struct pmuvirt_thread *thr, u32 how)
{
	thr->how = how;
	llist_add(&thr->dead, &dead_threads);
	irq_work_queue(&dead_irq_work);
}

static struct preempt_ops pmuvirt_pn_ops;

static struct pmuvirt_thread *task_thread(struct task_struct *task)
{
	struct preempt_notifier *pn;

	hlist_for_each_entry(pn, &task->preempt_notifiers, link)
		if (pn->ops == &pmuvirt_pn_ops)
			return container_of(pn, struct pmuvirt_thread, pn);
	return NULL;
}

/**
 * pmuvirt_lx_current_thread() - the calling thread's record
 *
 * Only current changes its own notifier list, so this needs no lock.
 *
 * Return: the thread, or NULL when it has no context.
 */
struct pmuvirt_thread *pmuvirt_lx_current_thread(void)
{
	return task_thread(current);
}

static void sum_release(struct kref *ref)
{
	kfree(container_of(ref, struct pmuvirt_sum, ref));
}

/* @thr's counting ended with @vals: add them to its attacher's sum. */
static void sum_add(struct pmuvirt_thread *thr, const u64 *vals, u32 flags)
{
	struct pmuvirt_sum *sum = thr->sum;
	unsigned long irqflags;
	unsigned int i;

	if (!sum || thr->sum_owner)
		return;
	spin_lock_irqsave(&sum->lock, irqflags);
	for (i = 0; i < pmuvirt_ctx_nr_counters(thr->ctx); i++)
		sum->value[i] += vals[i];
	sum->flags |= flags;
	spin_unlock_irqrestore(&sum->lock, irqflags);
}

/* The attacher's reads: its own values plus the sum of its ended descendants. */
static void sum_read(struct pmuvirt_thread *thr, u64 *vals, u32 *flags)
{
	struct pmuvirt_sum *sum = thr->sum;
	unsigned long irqflags;
	unsigned int i;

	if (!sum || !thr->sum_owner)
		return;
	spin_lock_irqsave(&sum->lock, irqflags);
	for (i = 0; i < pmuvirt_ctx_nr_counters(thr->ctx); i++)
		vals[i] += sum->value[i];
	*flags |= sum->flags;
	spin_unlock_irqrestore(&sum->lock, irqflags);
}

/*
 * The switch hook runs with the runqueue lock held, where printk() may
 * deadlock on a console wake-up (and printk_deferred() is not exported to
 * modules): a failed switch is printed from irq_work, after the lock.
 */
static atomic_t switch_err = ATOMIC_INIT(0);
static atomic_t switch_err_cpu = ATOMIC_INIT(0);

static void switch_warn_fn(struct irq_work *iw)
{
	int err = atomic_xchg(&switch_err, 0);

	if (err)
		pr_warn_ratelimited("switch on CPU %d: %s\n", atomic_read(&switch_err_cpu),
				    pmuvirt_strerror(err));
}

static DEFINE_IRQ_WORK(switch_warn_work, switch_warn_fn);

static void switch_warn(unsigned int cpu, int err)
{
	atomic_set(&switch_err_cpu, cpu);
	atomic_set(&switch_err, err);
	irq_work_queue(&switch_warn_work);
}

/**
 * pmuvirt_lx_switch() - switch this CPU's counters to a thread
 * @lc:		this CPU's state.
 * @next:	the thread, or NULL to stop counting.
 *
 * Interrupts off.
 */
void pmuvirt_lx_switch(struct pmuvirt_lx_cpu *lc, struct pmuvirt_thread *next)
{
	struct pmuvirt_ctx *ctx = next ? next->ctx : NULL;
	int ret;

	pmuvirt_lx_begin(lc);
	ret = pmuvirt_switch(&lc->pc, ctx);
	lc->cur = (ctx && lc->pc.running == ctx) ? next : NULL;
	if (unlikely(ret))
		switch_warn(lc->pc.cpu, ret);
	pmuvirt_lx_end(lc);
}

/* Read @thr's values on this CPU.  Interrupts off. */
static int lx_read(struct pmuvirt_lx_cpu *lc, struct pmuvirt_thread *thr, u64 *vals)
{
	int ret;

	pmuvirt_lx_begin(lc);
	ret = pmuvirt_read(thr->ctx, vals);
	pmuvirt_lx_end(lc);
	return ret;
}

/*
 * Take current's @thr off this CPU's counters for good; its values into
 * @vals.  Preemption off.  Return: PMUVIRT_COUNTS_FAULTED or 0.
 */
static u32 lx_stop(struct pmuvirt_thread *thr, u64 *vals)
{
	struct pmuvirt_lx_cpu *lc;
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	if (lc->cur == thr)
		pmuvirt_lx_switch(lc, NULL);
	ret = lx_read(lc, thr, vals);
	local_irq_restore(flags);
	return ret ? PMUVIRT_COUNTS_FAULTED : 0;
}

/*
 * current's @thr: take it off the counters (its final values into
 * thr->final), off the task's notifier list and off the module, for
 * thread_retire().  Called from current's probes, with preemption off: the
 * module's exit waits for those (tracepoint_synchronize_unregister()), so
 * the reference may go before the probe returns.
 */
static void thread_unhook(struct pmuvirt_thread *thr)
{
	thr->final_flags = lx_stop(thr, thr->final);
	preempt_notifier_unregister(&thr->pn);
	if (thr->module_held) {
		thr->module_held = false;
		module_put(THIS_MODULE);
	}
}

/* irq_work on the CPU that took the PMI: signal the thread on the counters. */
static void sig_work_fn(struct irq_work *iw)
{
	struct pmuvirt_lx_cpu *lc = container_of(iw, struct pmuvirt_lx_cpu, sig_work);
	struct pmuvirt_thread *thr = lc->cur;
	struct kernel_siginfo info;
	u32 mask;

	if (!thr || !thr->sig_armed || thr->task != current)
		return;	/* stays pending; sent at the thread's next switch-in */
	mask = pmuvirt_ctx_pending(thr->ctx);
	if (!mask)
		return;
	thr->sig_armed = false;
	if (!pmuvirt_lx_may_signal(&thr->sigcred)) {
		pmuvirt_lx_signal_refused(thr->signo);
		return;	/* the notifications stay pending for RESUME */
	}
	clear_siginfo(&info);
	info.si_signo = thr->signo;
	info.si_code = POLL_IN;
	info.si_band = mask;
	info.si_fd = -1;
	send_sig_info(thr->signo, &info, thr->task);
}

/*
 * The thread leaves the CPU.  Interrupts are off and the runqueue is locked.
 * If the next task is attached too, switch straight to it: the core then
 * writes only the control registers that differ.
 */
static void pmuvirt_sched_out(struct preempt_notifier *pn, struct task_struct *next)
{
	struct pmuvirt_thread *thr = container_of(pn, struct pmuvirt_thread, pn);
	struct pmuvirt_lx_cpu *lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	struct pmuvirt_thread *nthr = task_thread(next);
	bool dead = READ_ONCE(current->__state) == TASK_DEAD;

	if (nthr && (next->flags & PF_EXITING))
		nthr = NULL;
	if (lc->cur == thr || nthr)
		pmuvirt_lx_switch(lc, nthr);
	if (!dead)
		return;
	/*
	 * Last switch of a task that passed no exit probe (the kernel has no
	 * sched_process_exit): it never runs again and its list is never
	 * walked.  The module reference goes with the context.
	 */
	thr->final_flags = pmuvirt_read(thr->ctx, thr->final) ? PMUVIRT_COUNTS_FAULTED : 0;
	thread_retire(thr, PMUVIRT_REPORT_EXIT);
}

/* The thread runs again on @cpu.  Preemption is off. */
static void pmuvirt_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct pmuvirt_thread *thr = container_of(pn, struct pmuvirt_thread, pn);
	struct pmuvirt_lx_cpu *lc;
	unsigned long flags;

	if (current->flags & PF_EXITING)
		return;	/* an exiting thread is counted no more */
	local_irq_save(flags);
	lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	if (pmuvirt_lx_be->sched_in)
		pmuvirt_lx_be->sched_in(thr);
	if (lc->cur != thr)
		pmuvirt_lx_switch(lc, thr);
	if (thr->sig_armed && pmuvirt_ctx_pending(thr->ctx))
		irq_work_queue(&lc->sig_work);
	local_irq_restore(flags);
}

static struct preempt_ops pmuvirt_pn_ops = {
	.sched_in = pmuvirt_sched_in,
	.sched_out = pmuvirt_sched_out,
};

/*
 * Security domains: the threads of one process share one tag, so a switch
 * between them writes no counter, while a switch to another process's
 * thread re-bases the counters (see pmuvirt_ctx_set_domain()).  The key is
 * the process's signal_struct, unique while the process lives, and an
 * entry lives only while a thread record (which holds a task reference)
 * uses it; a new entry always gets a new tag, so a tag is never reused.
 */
struct pmuvirt_proc {
	struct hlist_node link;
	const void *key;
	u64 tag;
	unsigned int users;
};

static DEFINE_SPINLOCK(proc_lock);
static DEFINE_HASHTABLE(proc_table, 6);

/* @task's process's domain, shared with @hint when that is the same process. */
static struct pmuvirt_proc *proc_get(struct task_struct *task, struct pmuvirt_proc *hint,
				     gfp_t gfp)
{
	const void *key = task->signal;
	struct pmuvirt_proc *p, *fresh = NULL;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&proc_lock, flags);
		if (hint && hint->key == key) {
			p = hint;
			goto found;
		}
		hash_for_each_possible(proc_table, p, link, (unsigned long)key)
			if (p->key == key)
				goto found;
		if (fresh) {
			p = fresh;
			fresh = NULL;
			hash_add(proc_table, &p->link, (unsigned long)key);
			goto found;
		}
		spin_unlock_irqrestore(&proc_lock, flags);
		fresh = kzalloc(sizeof(*fresh), gfp);
		if (!fresh)
			return NULL;
		fresh->key = key;
		fresh->tag = pmuvirt_stamp_next();
	}
found:
	p->users++;
	spin_unlock_irqrestore(&proc_lock, flags);
	kfree(fresh);
	return p;
}

static void proc_put(struct pmuvirt_proc *p)
{
	unsigned long flags;
	bool last;

	if (!p)
		return;
	spin_lock_irqsave(&proc_lock, flags);
	last = !--p->users;
	if (last)
		hash_del(&p->link);
	spin_unlock_irqrestore(&proc_lock, flags);
	if (last)
		kfree(p);
}

/* The thread's hold on its sample ring; queues, descriptors and mappings keep theirs. */
static void samples_put(struct pmuvirt_thread *thr)
{
	pmuvirt_lx_ring_put(thr->ring);
	thr->ring = NULL;
}

/* Free a thread that is off the hardware and whose notifier is gone. */
static void free_thread(struct pmuvirt_thread *thr)
{
	pmuvirt_ctx_release(thr->ctx);
	kfree(thr->ctx);
	put_page(thr->page);	/* a mapping keeps its own reference */
	samples_put(thr);
	if (thr->file)
		pmuvirt_lx_file_drop(thr->file);
	proc_put(thr->proc);
	pmuvirt_lx_signal_cred_put(&thr->sigcred);
	put_task_struct(thr->task);
	if (thr->sum)
		kref_put(&thr->sum->ref, sum_release);
	atomic_long_dec(&nr_attached);
	if (thr->module_held)
		module_put(THIS_MODULE);
	kfree(thr);
}

static void dead_work_fn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&dead_threads);
	struct pmuvirt_thread *thr, *tmp;

	llist_for_each_entry_safe(thr, tmp, list, dead) {
		pmuvirt_lx_report(thr, thr->final, thr->final_flags, thr->how);
		free_thread(thr);
	}
}

/**
 * pmuvirt_lx_thread_free_unbound() - undo pmuvirt_lx_thread_new()
 * @thr:	a thread whose context never ran.
 */
void pmuvirt_lx_thread_free_unbound(struct pmuvirt_thread *thr)
{
	proc_put(thr->proc);
	if (thr->page)
		__free_page(thr->page);
	samples_put(thr);
	if (thr->sum)
		kref_put(&thr->sum->ref, sum_release);
	kfree(thr->ctx);
	kfree(thr);
}

/*
 * A thread with a new context for @ctl (counts from 0) in the security
 * domain of @task's process (@hint: the parent thread's, when known), bound
 * to no task yet.
 */
static struct pmuvirt_thread *thread_alloc(const struct pmuvirt_control *ctl, u32 sample_pages,
					   const struct pmuvirt_sample_format *fmt, gfp_t gfp, struct pmuvirt_error *err,
					   struct task_struct *task, struct pmuvirt_proc *hint)
{
	struct pmuvirt_thread *thr;
	size_t size;
	int ret = -ENOMEM;

	thr = kzalloc(sizeof(*thr), gfp);
	if (!thr)
		return ERR_PTR(-ENOMEM);
	size = pmuvirt_ctx_size(ctl->nr_counters ? ctl->nr_counters : 1);
	thr->ctx = kzalloc(size, gfp);
	thr->page = alloc_page(gfp | __GFP_ZERO);
	if (!thr->ctx || !thr->page)
		goto fail;
	thr->proc = proc_get(task, hint, gfp);
	if (!thr->proc)
		goto fail;
	ret = pmuvirt_ctx_init(thr->ctx, size, &pmuvirt_lx_pmu);
	if (!ret)
		ret = pmuvirt_ctx_set_domain(thr->ctx, thr->proc->tag);
	if (!ret)
		ret = pmuvirt_set_control(NULL, thr->ctx, ctl, err);
	if (!ret && sample_pages)
		ret = pmuvirt_lx_ring_alloc(thr, sample_pages, fmt, gfp);
	if (ret)
		goto fail;
	pmuvirt_ctx_attach_shared(thr->ctx, page_address(thr->page));
	return thr;
fail:
	pmuvirt_lx_thread_free_unbound(thr);
	return ERR_PTR(ret);
}

/* Bind @thr to @task; the caller then puts thr->pn on the task's list. */
static void thread_bind(struct pmuvirt_thread *thr, struct task_struct *task, u32 flags,
			int signo, struct pmuvirt_file *pf, const struct pmuvirt_control *ctl)
{
	thr->task = get_task_struct(task);
	/* attach is a system call; a new task leaves fork through the syscall exit */
	thr->in_syscall = true;
	thr->tid = task_pid_vnr(task);
	thr->pid = task_tgid_vnr(task);
	thr->signo = signo;
	thr->flags = flags;
	thr->sig_armed = !(flags & PMUVIRT_ATTACH_SAMPLE_FILE);
	thr->ctl = *ctl;
	if (pf && (flags & PMUVIRT_ATTACH_REPORT)) {
		pmuvirt_lx_file_hold(pf);
		thr->file = pf;
	}
	pmuvirt_lx_ring_queue(thr);
	__module_get(THIS_MODULE);
	thr->module_held = true;
	atomic_long_inc(&nr_attached);
	preempt_notifier_init(&thr->pn, &pmuvirt_pn_ops);
}

/**
 * pmuvirt_lx_thread_can_attach() - does this kernel allow the attach flags?
 * @flags:	PMUVIRT_ATTACH_*, checked by pmuvirt_linux_check_attach().
 *
 * Return: 0; -EOPNOTSUPP for inheritance without the fork tracepoint, or
 * summed inheritance without the exit tracepoint (with a kernel message).
 */
int pmuvirt_lx_thread_can_attach(u32 flags)
{
	if ((flags & PMUVIRT_ATTACH_INHERIT) && !fork_tp) {
		pr_notice_ratelimited("%s[%d]: attach: inheritance needs the sched_process_fork tracepoint, which this kernel lacks\n",
				      current->comm, task_pid_nr(current));
		return -EOPNOTSUPP;
	}
	if ((flags & PMUVIRT_ATTACH_SUM) && !exit_tp) {
		pr_notice_ratelimited("%s[%d]: attach: summed inheritance needs the sched_process_exit tracepoint, which this kernel lacks\n",
				      current->comm, task_pid_nr(current));
		return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * pmuvirt_lx_thread_new() - a context for the calling thread, not running yet
 * @a:		the attach argument, checked and its control validated.
 * @err:	which counter and why, when the control is refused.
 *
 * With PMUVIRT_ATTACH_SUM the thread also gets the sum its inheriting
 * tasks add to.  Give it to pmuvirt_lx_thread_start(), or to
 * pmuvirt_lx_thread_free_unbound().
 *
 * Return: the thread, or an ERR_PTR().
 */
struct pmuvirt_thread *pmuvirt_lx_thread_new(const struct pmuvirt_attach *a,
					     struct pmuvirt_error *err)
{
	struct pmuvirt_sum *sum = NULL;
	struct pmuvirt_sample_format fmt;
	struct pmuvirt_thread *thr;

	if (pmuvirt_linux_sample_format(a, &fmt))
		return ERR_PTR(-EINVAL);
	if (a->flags & PMUVIRT_ATTACH_SUM) {
		sum = kzalloc(sizeof(*sum), GFP_KERNEL_ACCOUNT);
		if (!sum)
			return ERR_PTR(-ENOMEM);
		kref_init(&sum->ref);
		spin_lock_init(&sum->lock);
	}
	thr = thread_alloc(&a->control, a->sample_pages, &fmt, GFP_KERNEL_ACCOUNT, err, current,
			   NULL);
	if (IS_ERR(thr)) {
		kfree(sum);
		return thr;
	}
	thr->sum = sum;
	thr->sum_owner = sum != NULL;
	return thr;
}

/**
 * pmuvirt_lx_thread_start() - the calling thread counts on its new context
 * @thr:	from pmuvirt_lx_thread_new().
 * @a:		the same attach argument.
 * @pf:		the file it attached through (its reports go there with
 *		PMUVIRT_ATTACH_REPORT).
 * @exempt:	the caller is free of the event policy, and so are the tasks
 *		that inherit its context.
 */
void pmuvirt_lx_thread_start(struct pmuvirt_thread *thr, const struct pmuvirt_attach *a,
			     struct pmuvirt_file *pf, bool exempt)
{
	unsigned long flags;

	thread_bind(thr, current, a->flags, a->signo ? a->signo : SIGIO, pf, &a->control);
	pmuvirt_lx_signal_cred(&thr->sigcred);
	thr->exempt = exempt;

	preempt_disable();
	preempt_notifier_register(&thr->pn);
	local_irq_save(flags);
	pmuvirt_lx_switch(this_cpu_ptr(&pmuvirt_lx_cpu), thr);
	local_irq_restore(flags);
	preempt_enable();
}

/**
 * pmuvirt_lx_thread_read() - the calling thread's values
 * @thr:	its record.
 * @vals:	receives one value per counter; with PMUVIRT_ATTACH_SUM its
 *		own plus its ended descendants'.
 *
 * Return: PMUVIRT_COUNTS_* flags of @vals.
 */
u32 pmuvirt_lx_thread_read(struct pmuvirt_thread *thr, u64 *vals)
{
	unsigned long irqflags;
	u32 flags = 0;

	preempt_disable();
	local_irq_save(irqflags);
	if (lx_read(this_cpu_ptr(&pmuvirt_lx_cpu), thr, vals))
		flags |= PMUVIRT_COUNTS_FAULTED;
	local_irq_restore(irqflags);
	preempt_enable();
	sum_read(thr, vals, &flags);
	return flags;
}

/**
 * pmuvirt_lx_thread_detach() - the calling thread stops counting
 * @thr:	its record, freed here.
 * @vals:	receives its final values, as pmuvirt_lx_thread_read()'s.
 *
 * The final values go to its file as a PMUVIRT_REPORT_DETACH report (its
 * own, without the sum) and into its attacher's sum.
 *
 * Return: PMUVIRT_COUNTS_* flags of @vals.
 */
u32 pmuvirt_lx_thread_detach(struct pmuvirt_thread *thr, u64 *vals)
{
	u32 flags;

	preempt_disable();
	flags = lx_stop(thr, vals);
	preempt_notifier_unregister(&thr->pn);
	preempt_enable();

	pmuvirt_lx_report(thr, vals, flags, PMUVIRT_REPORT_DETACH);
	sum_add(thr, vals, flags);
	sum_read(thr, vals, &flags);
	free_thread(thr);
	return flags;
}

/**
 * pmuvirt_lx_thread_resume() - take the calling thread's notifications
 * @thr:	its record.
 * @counts:	receives the notifications of each counter.
 * @flags:	PMUVIRT_COUNTS_FAULTED is added when the collect failed.
 *
 * Every period boundary the count has passed is taken, also those whose
 * PMI still waits (max_pmi_rate), and the overflow signal is armed again
 * (never for a recorder's thread).
 *
 * Return: the mask of counters with notifications.
 */
u32 pmuvirt_lx_thread_resume(struct pmuvirt_thread *thr, u32 *counts, u32 *flags)
{
	struct pmuvirt_lx_cpu *lc;
	unsigned long irqflags;
	u32 mask;

	/* against the irq_work on this CPU, which tests and clears sig_armed */
	preempt_disable();
	local_irq_save(irqflags);
	lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	if (lc->cur == thr) {
		pmuvirt_lx_begin(lc);
		if (pmuvirt_collect(&lc->pc, thr->ctx))
			*flags |= PMUVIRT_COUNTS_FAULTED;
		pmuvirt_lx_end(lc);
	}
	mask = pmuvirt_take_overflows(thr->ctx, counts);
	thr->sig_armed = !(thr->flags & PMUVIRT_ATTACH_SAMPLE_FILE);
	local_irq_restore(irqflags);
	preempt_enable();
	return mask;
}

/*
 * sched_process_fork: @parent is current and @child has not run yet.
 * Preemption is off here, so the allocations must not sleep; when they
 * fail the child starts without counters and the failure is counted.
 */
static void pmuvirt_fork_probe(void *data, struct task_struct *parent,
			       struct task_struct *child)
{
	struct pmuvirt_error err = { -1, NULL };
	struct pmuvirt_sample_format fmt = { 0 };
	struct pmuvirt_thread *pthr, *thr;

	if (parent != current || (parent->flags & PF_EXITING))
		return;
	pthr = pmuvirt_lx_current_thread();
	if (!pthr || !(pthr->flags & PMUVIRT_ATTACH_INHERIT))
		return;
	/* the attacher's exemption, today's policy */
	if (!pthr->exempt) {
		u8 slots[PMUVIRT_MAX_COUNTERS];
		int ret = pmuvirt_lx_validate(&pthr->ctl, slots, false, &err);

		if (ret) {
			atomic_long_inc(&nr_inherit_refused);
			pr_notice_ratelimited("%s[%d]: new task %d starts without counters: counter %d: %s\n",
					      current->comm, task_pid_nr(current), task_pid_nr(child),
					      err.counter, ret == -EPERM ?
					      "event not permitted by user_event_policy" :
					      pmuvirt_strerror(ret));
			return;
		}
	}
	if (pthr->ring)
		pmuvirt_lx_ring_format(pthr->ring, &fmt);
	thr = thread_alloc(&pthr->ctl, pthr->ring ? pmuvirt_lx_ring_pages(pthr->ring) : 0, &fmt,
			   GFP_NOWAIT | __GFP_NOWARN | __GFP_ACCOUNT, &err, child, pthr->proc);
	if (IS_ERR(thr)) {
		atomic_long_inc(&nr_inherit_failed);
		pr_warn_ratelimited("%s[%d]: new task %d starts without counters: %s\n",
				    current->comm, task_pid_nr(current), task_pid_nr(child),
				    pmuvirt_strerror(PTR_ERR(thr)));
		return;
	}
	thread_bind(thr, child, pthr->flags, pthr->signo, pthr->file, &pthr->ctl);
	if (pthr->sum) {
		kref_get(&pthr->sum->ref);
		thr->sum = pthr->sum;
	}
	pmuvirt_lx_signal_cred_copy(&thr->sigcred, &pthr->sigcred);
	thr->exempt = pthr->exempt;
	/* what preempt_notifier_register() does for current; @child is not running */
	hlist_add_head(&thr->pn.link, &child->preempt_notifiers);
}

/*
 * sched_process_exec: current has its new program and credentials, and has
 * not run a user instruction of it.  Like perf at exec, a program that is
 * not dumpable (setuid, setgid, file capabilities) is not counted: its
 * context is taken off the counters and handed to the work item, which
 * reports the counts up to here as PMUVIRT_REPORT_EXEC and frees it.  So
 * is one whose new credentials its attacher could not signal.  The probe
 * runs with preemption off.
 */
static void pmuvirt_exec_probe(void *data, struct task_struct *p, pid_t old_pid,
			       struct linux_binprm *bprm)
{
	struct pmuvirt_thread *thr;

	if (p != current)
		return;
	thr = pmuvirt_lx_current_thread();
	if (!thr || (current->mm && get_dumpable(current->mm) == SUID_DUMP_USER &&
		     pmuvirt_lx_may_signal(&thr->sigcred)))
		return;
	thread_unhook(thr);
	sum_add(thr, thr->final, thr->final_flags);
	thread_retire(thr, PMUVIRT_REPORT_EXEC);
}

/*
 * sched_process_exit: current is exiting (PF_EXITING: it is switched in no
 * more) and its parent cannot see it exit yet.  The task stops counting
 * here and leaves the module: its final values go into a summing
 * attacher's sum, so that the attacher's read after wait() has them, and
 * its module reference is gone before wait() returns, so that an rmmod
 * after the last user's wait() finds the module free.  (A thread's
 * pthread_join() may return a moment earlier: the kernel wakes it when the
 * thread's memory is released, before this tracepoint, as for perf's
 * inherited counters.)  The probe runs with preemption off.
 */
static void pmuvirt_exit_probe(void *data, struct task_struct *p)
{
	struct pmuvirt_thread *thr;

	if (p != current)
		return;
	thr = pmuvirt_lx_current_thread();
	if (!thr)
		return;
	thread_unhook(thr);
	sum_add(thr, thr->final, thr->final_flags);
	thread_retire(thr, PMUVIRT_REPORT_EXIT);
}

struct tp_find {
	const char *name;
	struct tracepoint *tp;
};

static void find_tp(struct tracepoint *tp, void *priv)
{
	struct tp_find *f = priv;

	if (!strcmp(tp->name, f->name))
		f->tp = tp;
}

/**
 * pmuvirt_lx_tracepoint() - find one of the kernel's tracepoints
 * @name:	its name.
 *
 * Modules get no fork, exec or exit hook, and the tracepoints they can
 * probe are found by walking the kernel's.
 *
 * Return: the tracepoint, or NULL.
 */
struct tracepoint *pmuvirt_lx_tracepoint(const char *name)
{
	struct tp_find f = { name, NULL };

	for_each_kernel_tracepoint(find_tp, &f);
	return f.tp;
}

/**
 * pmuvirt_lx_thread_init() - the probes threads need, the signal irq_works
 *
 * Without the exec hook a setuid program would stay counted, so the module
 * does not load; without the fork or exit hook, inheritance or summed
 * inheritance is refused.
 *
 * Return: 0, or -EOPNOTSUPP without the sched_process_exec tracepoint.
 */
int pmuvirt_lx_thread_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu_ptr(&pmuvirt_lx_cpu, cpu)->sig_work, sig_work_fn);
	exec_tp = pmuvirt_lx_tracepoint("sched_process_exec");
	if (!exec_tp || tracepoint_probe_register(exec_tp, pmuvirt_exec_probe, NULL)) {
		pr_err("no sched_process_exec tracepoint: cannot stop counting at exec of a privileged program\n");
		return -EOPNOTSUPP;
	}
	fork_tp = pmuvirt_lx_tracepoint("sched_process_fork");
	if (fork_tp && tracepoint_probe_register(fork_tp, pmuvirt_fork_probe, NULL)) {
		pr_notice("no fork hook: PMUVIRT_ATTACH_INHERIT is refused\n");
		fork_tp = NULL;
	}
	exit_tp = pmuvirt_lx_tracepoint("sched_process_exit");
	if (exit_tp && tracepoint_probe_register(exit_tp, pmuvirt_exit_probe, NULL)) {
		pr_notice("no exit hook: PMUVIRT_ATTACH_SUM is refused\n");
		exit_tp = NULL;
	}
	return 0;
}

/**
 * pmuvirt_lx_thread_exit() - undo pmuvirt_lx_thread_init()
 *
 * No thread holds a context any more (each holds a module reference):
 * this waits for the probes, then frees the contexts still queued for
 * freeing and lets the pending irq_works finish.
 */
void pmuvirt_lx_thread_exit(void)
{
	unsigned int cpu;

	if (exit_tp)
		tracepoint_probe_unregister(exit_tp, pmuvirt_exit_probe, NULL);
	if (fork_tp)
		tracepoint_probe_unregister(fork_tp, pmuvirt_fork_probe, NULL);
	tracepoint_probe_unregister(exec_tp, pmuvirt_exec_probe, NULL);
	tracepoint_synchronize_unregister();
	irq_work_sync(&dead_irq_work);
	irq_work_sync(&switch_warn_work);
	flush_work(&dead_work);
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&pmuvirt_lx_cpu, cpu)->sig_work);
}
