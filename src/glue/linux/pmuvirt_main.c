// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko: per-thread virtual counters for Linux.
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
 * ends every exiting thread's counting (see Lifetime).
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/preempt.h>
#include <linux/llist.h>
#include <linux/workqueue.h>
#include <linux/irq_work.h>
#include <linux/uaccess.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/kref.h>
#include <linux/tracepoint.h>
#include <linux/cpuhotplug.h>
#include <linux/syscore_ops.h>
#include <linux/hashtable.h>
#include <linux/cred.h>
#include <linux/sched/coredump.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/log2.h>
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <asm/ptrace.h>

#define PMUVIRT_MAX_REPORTS	4096

atomic64_t pmuvirt_linux_stamp = ATOMIC64_INIT(0);
DEFINE_PER_CPU(struct pmuvirt_lx_cpu, pmuvirt_lx_cpu);

static atomic_t nr_attached = ATOMIC_INIT(0);
static atomic_t nr_inherit_failed = ATOMIC_INIT(0);
static atomic_t nr_inherit_refused = ATOMIC_INIT(0);
static struct tracepoint *fork_tp;
static struct tracepoint *exec_tp;
static struct tracepoint *exit_tp;

/* Reports of one open file, and the sample rings queued on it. */
struct pmuvirt_file {
	struct kref ref;
	spinlock_t lock;
	struct list_head reports;
	unsigned int nr_reports;
	unsigned long dropped;
	struct list_head rings;
	unsigned int nr_rings;
	u32 rings_dropped;
	atomic_t live;
	wait_queue_head_t wait;
};

/**
 * struct pmuvirt_ring - a thread's sample ring
 * @ref:	held by the thread, by its file's queue and by each ring
 *		descriptor; a mapping holds its own page references.
 * @page:	first page (split pages): header, then records.
 * @pages:	pages of the ring.
 * @sw:		the writer (the thread's PMIs).
 * @link:	in the file's queue until PMUVIRT_IOC_SAMPLE_OPEN takes it.
 * @tid:	the thread, as in its reports.
 * @pid:	its thread-group id.
 * @comm:	its name when the context was made.
 */
struct pmuvirt_ring {
	struct kref ref;
	struct page *page;
	u32 pages;
	struct pmuvirt_sample_writer sw;
	struct list_head link;
	u32 tid, pid;
	char comm[TASK_COMM_LEN];
};

struct pmuvirt_report_node {
	struct list_head link;
	struct pmuvirt_report rep;
};

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

static void ring_release(struct kref *ref)
{
	struct pmuvirt_ring *ring = container_of(ref, struct pmuvirt_ring, ref);
	u32 i;

	for (i = 0; i < ring->pages; i++)
		put_page(ring->page + i);
	kfree(ring);
}

static void ring_put(struct pmuvirt_ring *ring)
{
	if (ring)
		kref_put(&ring->ref, ring_release);
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
	for (i = 0; i < thr->ctx->nr_counters; i++)
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
	for (i = 0; i < thr->ctx->nr_counters; i++)
		vals[i] += sum->value[i];
	*flags |= sum->flags;
	spin_unlock_irqrestore(&sum->lock, irqflags);
}

static void pmuvirt_file_release(struct kref *ref)
{
	struct pmuvirt_file *pf = container_of(ref, struct pmuvirt_file, ref);
	struct pmuvirt_report_node *n, *tmp;
	struct pmuvirt_ring *ring, *rtmp;

	list_for_each_entry_safe(n, tmp, &pf->reports, link)
		kfree(n);
	list_for_each_entry_safe(ring, rtmp, &pf->rings, link)
		ring_put(ring);
	kfree(pf);
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

/* A core call on this CPU starts: a PMI meanwhile waits for lx_end().  Interrupts off. */
static inline void lx_begin(struct pmuvirt_lx_cpu *lc)
{
	lc->busy = true;
	barrier();
}

/* The core call is over: the PMI that waited for it is handled now. */
static void lx_end(struct pmuvirt_lx_cpu *lc)
{
	barrier();
	lc->busy = false;
	if (unlikely(lc->pmi_deferred)) {
		lc->pmi_deferred = false;
		pmuvirt_lx_pmi(lc);
	}
}

/* Switch this CPU to @next (NULL: stop).  Interrupts off. */
static void lx_switch(struct pmuvirt_lx_cpu *lc, struct pmuvirt_thread *next)
{
	struct pmuvirt_ctx *ctx = next ? next->ctx : NULL;
	int ret;

	lx_begin(lc);
	ret = pmuvirt_switch(&lc->pc, ctx);
	lc->cur = (ctx && lc->pc.running == ctx) ? next : NULL;
	if (unlikely(ret))
		switch_warn(lc->pc.cpu, ret);
	lx_end(lc);
}

/* Read @thr's values on this CPU.  Interrupts off. */
static int lx_read(struct pmuvirt_lx_cpu *lc, struct pmuvirt_thread *thr, u64 *vals)
{
	int ret;

	lx_begin(lc);
	ret = pmuvirt_read(thr->ctx, vals);
	lx_end(lc);
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
		lx_switch(lc, NULL);
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
		lx_switch(lc, nthr);
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
		lx_switch(lc, thr);
	if (thr->sig_armed && pmuvirt_ctx_pending(thr->ctx))
		irq_work_queue(&lc->sig_work);
	local_irq_restore(flags);
}

static struct preempt_ops pmuvirt_pn_ops = {
	.sched_in = pmuvirt_sched_in,
	.sched_out = pmuvirt_sched_out,
};

static void queue_report(struct pmuvirt_thread *thr, const u64 *vals, u32 flags, u32 how)
{
	struct pmuvirt_file *pf = thr->file;
	struct pmuvirt_report_node *n;

	if (!pf)
		return;
	n = kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);
	spin_lock(&pf->lock);
	if (!n || pf->nr_reports >= PMUVIRT_MAX_REPORTS) {
		pf->dropped++;
		spin_unlock(&pf->lock);
		kfree(n);
		pr_warn_ratelimited("report of thread %u dropped\n", thr->tid);
		return;
	}
	n->rep.size = sizeof(n->rep);
	n->rep.version = PMUVIRT_LINUX_VERSION;
	n->rep.tid = thr->tid;
	n->rep.pid = thr->pid;
	n->rep.how = how;
	n->rep.nr_counters = thr->ctx->nr_counters;
	n->rep.flags = flags;
	get_task_comm(n->rep.comm, thr->task);
	memcpy(n->rep.value, vals, sizeof(u64) * thr->ctx->nr_counters);
	list_add_tail(&n->link, &pf->reports);
	pf->nr_reports++;
	spin_unlock(&pf->lock);
	wake_up_interruptible(&pf->wait);
}

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
	ring_put(thr->ring);
	thr->ring = NULL;
}

/*
 * The host's part of a sample record, in the PMI: the IP and mode of the
 * context the interrupt (NMI, the emulated PMU's timer, the Xen VIRQ)
 * interrupted; for a PMI handled after a switch, read or RESUME it
 * deferred, where the thread entered the kernel.  That thread is current, or the one a
 * switch is bringing in (not running, not exiting: its stack is there).
 */
static void lx_sample_fill(void *arg, const struct pmuvirt_pcpu *pc,
			   const struct pmuvirt_ctx *ctx, struct pmuvirt_sample *s)
{
	const struct pmuvirt_lx_cpu *lc = container_of(pc, struct pmuvirt_lx_cpu, pc);
	struct pmuvirt_thread *thr = arg;
	struct pt_regs *regs = lc->pmi_regs;

	if (!regs && !(thr->task->flags & PF_KTHREAD))
		regs = task_pt_regs(thr->task);
	s->tid = thr->tid;
	s->time = local_clock();
	if (regs) {
		s->ip = instruction_pointer(regs);
		if (user_mode(regs))
			s->flags |= PMUVIRT_SAMPLE_USER;
	}
}

/* A sample ring of @pages pages for @thr (header page, then records). */
static int samples_alloc(struct pmuvirt_thread *thr, u32 pages, gfp_t gfp)
{
	unsigned int order = ilog2(pages);
	u32 nr = rounddown_pow_of_two((pages - 1) * PAGE_SIZE / sizeof(struct pmuvirt_sample));
	struct pmuvirt_ring *ring;
	struct page *p;
	int ret;

	ring = kzalloc(sizeof(*ring), gfp);
	if (!ring)
		return -ENOMEM;
	p = alloc_pages(gfp | __GFP_ZERO | __GFP_NOWARN, order);
	if (!p) {
		kfree(ring);
		return -ENOMEM;
	}
	split_page(p, order);
	kref_init(&ring->ref);
	INIT_LIST_HEAD(&ring->link);
	ring->page = p;
	ring->pages = pages;
	thr->ring = ring;
	ret = pmuvirt_sample_init(&ring->sw, page_address(p), (size_t)pages * PAGE_SIZE, nr,
				  PAGE_SIZE);
	if (!ret)
		ret = pmuvirt_ctx_attach_samples(thr->ctx, &ring->sw, lx_sample_fill, thr);
	return ret;
}

/*
 * PMUVIRT_ATTACH_SAMPLE_FILE: the new thread's ring waits on its file for
 * PMUVIRT_IOC_SAMPLE_OPEN.  May run with preemption off (fork).
 */
static void ring_queue(struct pmuvirt_thread *thr)
{
	struct pmuvirt_file *pf = thr->file;
	struct pmuvirt_ring *ring = thr->ring;
	bool queued = false;

	if (!pf || !ring || !(thr->flags & PMUVIRT_ATTACH_SAMPLE_FILE))
		return;
	ring->tid = thr->tid;
	ring->pid = thr->pid;
	get_task_comm(ring->comm, thr->task);
	spin_lock(&pf->lock);
	if (pf->nr_rings < PMUVIRT_SAMPLE_QUEUE_MAX) {
		kref_get(&ring->ref);
		list_add_tail(&ring->link, &pf->rings);
		pf->nr_rings++;
		queued = true;
	} else if (pf->rings_dropped != U32_MAX) {
		pf->rings_dropped++;
	}
	spin_unlock(&pf->lock);
	if (!queued)
		pr_warn_ratelimited("sample ring of thread %u not queued: %u rings wait on the file\n",
				    thr->tid, PMUVIRT_SAMPLE_QUEUE_MAX);
}

/* Free a thread that is off the hardware and whose notifier is gone. */
static void free_thread(struct pmuvirt_thread *thr)
{
	pmuvirt_ctx_release(thr->ctx);
	kfree(thr->ctx);
	put_page(thr->page);	/* a mapping keeps its own reference */
	samples_put(thr);
	if (thr->file) {
		/* after its report is queued: a reader at EOF has every report */
		if (atomic_dec_and_test(&thr->file->live))
			wake_up_interruptible(&thr->file->wait);
		kref_put(&thr->file->ref, pmuvirt_file_release);
	}
	proc_put(thr->proc);
	pmuvirt_lx_signal_cred_put(&thr->sigcred);
	put_task_struct(thr->task);
	if (thr->sum)
		kref_put(&thr->sum->ref, sum_release);
	atomic_dec(&nr_attached);
	if (thr->module_held)
		module_put(THIS_MODULE);
	kfree(thr);
}

static void dead_work_fn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&dead_threads);
	struct pmuvirt_thread *thr, *tmp;

	llist_for_each_entry_safe(thr, tmp, list, dead) {
		queue_report(thr, thr->final, thr->final_flags, thr->how);
		free_thread(thr);
	}
}

/* Undo thread_alloc(): the context never ran. */
static void thread_free_unbound(struct pmuvirt_thread *thr)
{
	proc_put(thr->proc);
	if (thr->page)
		__free_page(thr->page);
	samples_put(thr);
	kfree(thr->ctx);
	kfree(thr);
}

/*
 * A thread with a new context for @ctl (counts from 0) in the security
 * domain of @task's process (@hint: the parent thread's, when known), bound
 * to no task yet.
 */
static struct pmuvirt_thread *thread_alloc(const struct pmuvirt_control *ctl, u32 sample_pages,
					   gfp_t gfp, struct pmuvirt_error *err,
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
		ret = samples_alloc(thr, sample_pages, gfp);
	if (ret)
		goto fail;
	pmuvirt_ctx_attach_shared(thr->ctx, page_address(thr->page));
	return thr;
fail:
	thread_free_unbound(thr);
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
	if (flags & PMUVIRT_ATTACH_INHERIT)
		thr->ctl = *ctl;
	if (pf && (flags & PMUVIRT_ATTACH_REPORT)) {
		kref_get(&pf->ref);
		atomic_inc(&pf->live);
		thr->file = pf;
	}
	ring_queue(thr);
	__module_get(THIS_MODULE);
	thr->module_held = true;
	atomic_inc(&nr_attached);
	preempt_notifier_init(&thr->pn, &pmuvirt_pn_ops);
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
			atomic_inc(&nr_inherit_refused);
			pr_notice_ratelimited("%s[%d]: new task %d starts without counters: counter %d: %s\n",
					      current->comm, task_pid_nr(current), task_pid_nr(child),
					      err.counter, ret == -EPERM ?
					      "event not permitted by user_event_policy" :
					      pmuvirt_strerror(ret));
			return;
		}
	}
	thr = thread_alloc(&pthr->ctl, pthr->ring ? pthr->ring->pages : 0, GFP_NOWAIT | __GFP_NOWARN | __GFP_ACCOUNT,
			   &err, child, pthr->proc);
	if (IS_ERR(thr)) {
		atomic_inc(&nr_inherit_failed);
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

/* Copy in a versioned argument struct whose first words are size, version. */
static int get_arg(void *karg, size_t size, unsigned long uarg)
{
	u32 hdr[2];
	int ret;

	if (copy_from_user(hdr, (void __user *)uarg, sizeof(hdr)))
		return -EFAULT;
	ret = pmuvirt_linux_check_hdr(hdr, size);
	if (ret) {
		pr_notice_ratelimited("%s[%d]: argument size %u, version %u; expected %zu, %u\n",
				      current->comm, task_pid_nr(current), hdr[0], hdr[1], size,
				      PMUVIRT_LINUX_VERSION);
		return ret;
	}
	if (copy_from_user(karg, (void __user *)uarg, size))
		return -EFAULT;
	return 0;
}

static int ioc_attach(struct pmuvirt_file *pf, unsigned long uarg)
{
	struct pmuvirt_attach *a;
	struct pmuvirt_sum *sum = NULL;
	struct pmuvirt_thread *thr = NULL;
	struct pmuvirt_error err = { -1, NULL };
	struct pmuvirt_lx_cpu *lc;
	u8 slots[PMUVIRT_MAX_COUNTERS];
	unsigned long flags;
	bool exempt;
	int ret;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	ret = get_arg(a, sizeof(*a), uarg);
	if (ret)
		goto out;
	ret = pmuvirt_linux_check_attach(a);
	if (ret) {
		pr_notice_ratelimited("%s[%d]: attach: unknown flags, bad signal or reserved field set\n",
				      current->comm, task_pid_nr(current));
		goto out;
	}
	exempt = pmuvirt_lx_policy_exempt();
	ret = pmuvirt_lx_validate(&a->control, slots, exempt, &err);
	if (ret == -EPERM) {
		pr_notice_ratelimited("%s[%d]: attach: counter %d: event not permitted by user_event_policy (CAP_PERFMON is exempt)\n",
				      current->comm, task_pid_nr(current), err.counter);
		goto out;
	}
	if (ret) {
		pr_notice_ratelimited("%s[%d]: control refused (counter %d): %s: %s\n",
				      current->comm, task_pid_nr(current), err.counter,
				      err.reason ? err.reason : "-", pmuvirt_strerror(ret));
		goto out;
	}
	if (pmuvirt_linux_check_sample_pages(a)) {
		pr_notice_ratelimited("%s[%d]: attach: a sampling counter needs sample_pages, sample_pages a sampling counter\n",
				      current->comm, task_pid_nr(current));
		ret = -EINVAL;
		goto out;
	}
	if (!pmuvirt_lx_pmc_ok) {
		unsigned int i;

		for (i = 0; i < a->control.nr_counters; i++) {
			if (pmuvirt_lx_pmu.slot[slots[i]].cls == PMUVIRT_CLASS_TSC)
				continue;
			pr_notice_ratelimited("%s[%d]: counter %u needs PMU counters that perf or the NMI watchdog hold\n",
					      current->comm, task_pid_nr(current), i);
			ret = -EBUSY;
			goto out;
		}
	}
	ret = pmuvirt_lx_policy_attach(&a->control, a->signo);
	if (ret)
		goto out;
	if (pmuvirt_lx_current_thread()) {
		ret = -EBUSY;
		goto out;
	}
	if ((a->flags & PMUVIRT_ATTACH_INHERIT) && !fork_tp) {
		pr_notice_ratelimited("%s[%d]: attach: inheritance needs the sched_process_fork tracepoint, which this kernel lacks\n",
				      current->comm, task_pid_nr(current));
		ret = -EOPNOTSUPP;
		goto out;
	}
	if ((a->flags & PMUVIRT_ATTACH_SUM) && !exit_tp) {
		pr_notice_ratelimited("%s[%d]: attach: summed inheritance needs the sched_process_exit tracepoint, which this kernel lacks\n",
				      current->comm, task_pid_nr(current));
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (a->flags & PMUVIRT_ATTACH_SUM) {
		sum = kzalloc(sizeof(*sum), GFP_KERNEL_ACCOUNT);
		if (!sum) {
			ret = -ENOMEM;
			goto out;
		}
		kref_init(&sum->ref);
		spin_lock_init(&sum->lock);
	}
	a->caps = pmuvirt_lx_be->uread_caps(slots, a->control.nr_counters);

	thr = thread_alloc(&a->control, a->sample_pages, GFP_KERNEL_ACCOUNT, &err, current, NULL);
	if (IS_ERR(thr)) {
		ret = PTR_ERR(thr);
		pr_notice_ratelimited("%s[%d]: set control: %s\n", current->comm,
				      task_pid_nr(current), err.reason ? err.reason : pmuvirt_strerror(ret));
		goto out;
	}
	if (copy_to_user((void __user *)uarg, a, sizeof(*a))) {
		thread_free_unbound(thr);
		ret = -EFAULT;
		goto out;
	}
	thread_bind(thr, current, a->flags, a->signo ? a->signo : SIGIO, pf, &a->control);
	thr->sum = sum;
	thr->sum_owner = sum != NULL;
	sum = NULL;
	pmuvirt_lx_signal_cred(&thr->sigcred);
	thr->exempt = exempt;

	preempt_disable();
	preempt_notifier_register(&thr->pn);
	local_irq_save(flags);
	lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	lx_switch(lc, thr);
	local_irq_restore(flags);
	preempt_enable();
	ret = 0;
out:
	kfree(sum);
	kfree(a);
	return ret;
}

/*
 * Copy in and check a struct pmuvirt_counts for the calling thread's
 * context; the out fields are cleared, so nothing of the caller's input
 * comes back.  Return: the thread, or ERR_PTR (-ESRCH without a context).
 */
static struct pmuvirt_thread *counts_in(struct pmuvirt_counts *c, unsigned long uarg)
{
	struct pmuvirt_thread *thr = pmuvirt_lx_current_thread();
	int ret;

	ret = get_arg(c, sizeof(*c), uarg);
	if (!ret)
		ret = pmuvirt_linux_check_counts(c);
	if (ret)
		return ERR_PTR(ret);
	if (!thr)
		return ERR_PTR(-ESRCH);
	memset(c->value, 0, sizeof(c->value));
	c->flags = 0;
	c->ovf_mask = 0;
	c->nr_counters = thr->ctx->nr_counters;
	return thr;
}

static int counts_out(const struct pmuvirt_counts *c, unsigned long uarg)
{
	if (copy_to_user((void __user *)uarg, c, sizeof(*c)))
		return -EFAULT;
	return 0;
}

static int ioc_read(unsigned long uarg)
{
	struct pmuvirt_counts c;
	struct pmuvirt_thread *thr = counts_in(&c, uarg);
	unsigned long flags;

	if (IS_ERR(thr))
		return PTR_ERR(thr);
	preempt_disable();
	local_irq_save(flags);
	if (lx_read(this_cpu_ptr(&pmuvirt_lx_cpu), thr, c.value))
		c.flags |= PMUVIRT_COUNTS_FAULTED;
	local_irq_restore(flags);
	preempt_enable();
	sum_read(thr, c.value, &c.flags);
	return counts_out(&c, uarg);
}

static int ioc_detach(unsigned long uarg)
{
	struct pmuvirt_counts c;
	struct pmuvirt_thread *thr = counts_in(&c, uarg);

	if (IS_ERR(thr))
		return PTR_ERR(thr);
	preempt_disable();
	c.flags |= lx_stop(thr, c.value);
	preempt_notifier_unregister(&thr->pn);
	preempt_enable();

	queue_report(thr, c.value, c.flags, PMUVIRT_REPORT_DETACH);
	sum_add(thr, c.value, c.flags);
	sum_read(thr, c.value, &c.flags);
	free_thread(thr);
	return counts_out(&c, uarg);
}

static int ioc_resume(unsigned long uarg)
{
	struct pmuvirt_counts c;
	struct pmuvirt_thread *thr = counts_in(&c, uarg);
	u32 counts[PMUVIRT_MAX_COUNTERS];
	struct pmuvirt_lx_cpu *lc;
	unsigned long flags;
	unsigned int i;

	if (IS_ERR(thr))
		return PTR_ERR(thr);
	/* against the irq_work on this CPU, which tests and clears sig_armed */
	preempt_disable();
	local_irq_save(flags);
	lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	/* every boundary the count has passed, also those whose PMI waits (max_pmi_rate) */
	if (lc->cur == thr) {
		lx_begin(lc);
		if (pmuvirt_collect(&lc->pc, thr->ctx))
			c.flags |= PMUVIRT_COUNTS_FAULTED;
		lx_end(lc);
	}
	c.ovf_mask = pmuvirt_take_overflows(thr->ctx, counts);
	for (i = 0; i < c.nr_counters; i++)
		c.value[i] = counts[i];
	thr->sig_armed = !(thr->flags & PMUVIRT_ATTACH_SAMPLE_FILE);
	local_irq_restore(flags);
	preempt_enable();
	return counts_out(&c, uarg);
}

/* Copy in a tail; NULL @ring (no context, or none with a ring) is checked after the argument. */
static int ring_set_tail(struct pmuvirt_ring *ring, int none, unsigned long uarg)
{
	struct pmuvirt_sample_tail t;
	int ret;

	ret = get_arg(&t, sizeof(t), uarg);
	if (ret)
		return ret;
	if (pmuvirt_linux_check_sample_tail(&t))
		return -EINVAL;
	if (!ring)
		return none;
	/* the writer's own head: a tail ahead of it, or more than a ring behind, is refused */
	if ((u32)(READ_ONCE(ring->sw.head) - t.tail) > ring->sw.mask + 1)
		return -EINVAL;
	smp_mb();	/* the caller's copies of the records before the writer may reuse them */
	WRITE_ONCE(ring->sw.ring->tail, t.tail);
	return 0;
}

static int ioc_sample_tail(unsigned long uarg)
{
	struct pmuvirt_thread *thr = pmuvirt_lx_current_thread();

	return ring_set_tail(thr ? thr->ring : NULL, thr ? -ENODEV : -ESRCH, uarg);
}

static const struct file_operations pmuvirt_ring_fops;

/* Put a ring taken off the queue back at its head. */
static void ring_requeue(struct pmuvirt_file *pf, struct pmuvirt_ring *ring)
{
	spin_lock(&pf->lock);
	list_add(&ring->link, &pf->rings);
	pf->nr_rings++;
	spin_unlock(&pf->lock);
}

static int ioc_sample_open(struct pmuvirt_file *pf, unsigned long uarg)
{
	struct pmuvirt_sample_open o;
	struct pmuvirt_ring *ring;
	struct file *f;
	int fd, ret;

	ret = get_arg(&o, sizeof(o), uarg);
	if (ret)
		return ret;
	if (pmuvirt_linux_check_sample_open(&o))
		return -EINVAL;
	spin_lock(&pf->lock);
	ring = list_first_entry_or_null(&pf->rings, struct pmuvirt_ring, link);
	if (ring) {
		list_del_init(&ring->link);
		pf->nr_rings--;
	}
	o.dropped = pf->rings_dropped;
	spin_unlock(&pf->lock);
	if (!ring)
		return -EAGAIN;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ring_requeue(pf, ring);
		return fd;
	}
	/* the queue's reference goes to the file */
	f = anon_inode_getfile("[pmuvirt-ring]", &pmuvirt_ring_fops, ring, O_RDONLY);
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		ring_requeue(pf, ring);
		return PTR_ERR(f);
	}
	o.fd = fd;
	o.tid = ring->tid;
	o.pid = ring->pid;
	o.pages = ring->pages;
	memcpy(o.comm, ring->comm, sizeof(o.comm));
	if (copy_to_user((void __user *)uarg, &o, sizeof(o))) {
		kref_get(&ring->ref);
		ring_requeue(pf, ring);
		put_unused_fd(fd);
		fput(f);
		return -EFAULT;
	}
	fd_install(fd, f);
	return 0;
}

/* Where the records a thread's record sits on are: the backend's layout. */
static int ioc_below(unsigned long uarg)
{
	struct pmuvirt_below b;

	if (copy_from_user(&b, (void __user *)uarg, sizeof(b)))
		return -EFAULT;
	if (b.size != sizeof(b) || b.version != PMUVIRT_LINUX_VERSION || b.flags ||
	    b.reserved)
		return -EINVAL;
	if (!pmuvirt_lx_be->below)
		return -ENODEV;
	pmuvirt_lx_be->below(&b);
	return copy_to_user((void __user *)uarg, &b, sizeof(b)) ? -EFAULT : 0;
}

static long pmuvirt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pmuvirt_file *pf = file->private_data;

	switch (cmd) {
	case PMUVIRT_IOC_ATTACH:
		return ioc_attach(pf, arg);
	case PMUVIRT_IOC_READ:
		return ioc_read(arg);
	case PMUVIRT_IOC_DETACH:
		return ioc_detach(arg);
	case PMUVIRT_IOC_RESUME:
		return ioc_resume(arg);
	case PMUVIRT_IOC_BELOW:
		return ioc_below(arg);
	case PMUVIRT_IOC_SAMPLE_TAIL:
		return ioc_sample_tail(arg);
	case PMUVIRT_IOC_SAMPLE_OPEN:
		return ioc_sample_open(pf, arg);
	default:
		return -ENOTTY;
	}
}

/* A sample ring, whole and read-only, like the record. */
static int ring_mmap(struct pmuvirt_ring *ring, struct vm_area_struct *vma)
{
	unsigned long i;
	int ret;

	if (vma->vm_end - vma->vm_start != (unsigned long)ring->pages * PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	for (i = 0; i < ring->pages; i++) {
		ret = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE, ring->page + i);
		if (ret)
			return ret;
	}
	return 0;
}

/* The calling thread's sample ring. */
static int samples_mmap(struct pmuvirt_thread *thr, struct vm_area_struct *vma)
{
	if (!thr)
		return -ESRCH;
	if (!thr->ring)
		return -ENODEV;
	return ring_mmap(thr->ring, vma);
}

/* A ring descriptor (PMUVIRT_IOC_SAMPLE_OPEN): map it, give records back, close. */
static int pmuvirt_ring_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff)
		return -EINVAL;
	return ring_mmap(file->private_data, vma);
}

static long pmuvirt_ring_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != PMUVIRT_IOC_SAMPLE_TAIL)
		return -ENOTTY;
	return ring_set_tail(file->private_data, -ENODEV, arg);
}

static int pmuvirt_ring_release(struct inode *inode, struct file *file)
{
	ring_put(file->private_data);
	return 0;
}

static const struct file_operations pmuvirt_ring_fops = {
	.owner = THIS_MODULE,
	.release = pmuvirt_ring_release,
	.unlocked_ioctl = pmuvirt_ring_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pmuvirt_ring_mmap,
	.llseek = no_llseek,
};

static int pmuvirt_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pmuvirt_thread *thr = pmuvirt_lx_current_thread();

	if (vma->vm_pgoff == PMUVIRT_SAMPLE_PGOFF)
		return samples_mmap(thr, vma);
	if (vma->vm_pgoff)
		/* what lies below the threads' records (Xen's VCPU records) */
		return pmuvirt_lx_be->mmap ? pmuvirt_lx_be->mmap(vma) : -EINVAL;
	if (!thr)
		return -ESRCH;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	return vm_insert_page(vma, vma->vm_start, thr->page);
}

static ssize_t pmuvirt_read_reports(struct file *file, char __user *buf, size_t len,
				    loff_t *ppos)
{
	struct pmuvirt_file *pf = file->private_data;
	struct pmuvirt_report_node *n;
	size_t done = 0;
	int ret;

	if (len < sizeof(n->rep))
		return -EINVAL;
	while (done + sizeof(n->rep) <= len) {
		/* sampled before the list: a report is queued before live drops */
		int live = atomic_read(&pf->live);

		smp_rmb();
		spin_lock(&pf->lock);
		n = list_first_entry_or_null(&pf->reports, struct pmuvirt_report_node, link);
		if (n) {
			list_del(&n->link);
			pf->nr_reports--;
		}
		spin_unlock(&pf->lock);
		if (!n) {
			if (done)
				break;
			if (!live)
				return 0;	/* no thread reports here any more */
			if (file->f_flags & O_NONBLOCK)
				break;
			ret = wait_event_interruptible(pf->wait, READ_ONCE(pf->nr_reports) ||
						       !atomic_read(&pf->live));
			if (ret)
				return ret;
			continue;
		}
		if (copy_to_user(buf + done, &n->rep, sizeof(n->rep))) {
			kfree(n);
			return done ? done : -EFAULT;
		}
		kfree(n);
		done += sizeof(n->rep);
	}
	return done ? done : -EAGAIN;
}

static __poll_t pmuvirt_poll(struct file *file, poll_table *wait)
{
	struct pmuvirt_file *pf = file->private_data;

	int live;

	poll_wait(file, &pf->wait, wait);
	live = atomic_read(&pf->live);
	smp_rmb();
	if (READ_ONCE(pf->nr_reports))
		return EPOLLIN | EPOLLRDNORM;
	return live ? 0 : EPOLLHUP;
}

static int pmuvirt_open(struct inode *inode, struct file *file)
{
	struct pmuvirt_file *pf = kzalloc(sizeof(*pf), GFP_KERNEL_ACCOUNT);

	if (!pf)
		return -ENOMEM;
	kref_init(&pf->ref);
	spin_lock_init(&pf->lock);
	INIT_LIST_HEAD(&pf->reports);
	INIT_LIST_HEAD(&pf->rings);
	init_waitqueue_head(&pf->wait);
	file->private_data = pf;
	return nonseekable_open(inode, file);
}

/* Closing a file detaches nothing: contexts belong to threads. */
static int pmuvirt_release(struct inode *inode, struct file *file)
{
	struct pmuvirt_file *pf = file->private_data;

	kref_put(&pf->ref, pmuvirt_file_release);
	return 0;
}

static const struct file_operations pmuvirt_fops = {
	.owner = THIS_MODULE,
	.open = pmuvirt_open,
	.release = pmuvirt_release,
	.unlocked_ioctl = pmuvirt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pmuvirt_mmap,
	.read = pmuvirt_read_reports,
	.poll = pmuvirt_poll,
	.llseek = no_llseek,
};

static struct miscdevice pmuvirt_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "pmuvirt",
	.fops = &pmuvirt_fops,
	.mode = 0666,
};

/* Read-only parameters that show an atomic_t or atomic_long_t (kp->arg). */
static int atomic_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read((atomic_t *)kp->arg));
}

static const struct kernel_param_ops atomic_param_ops = {
	.get = atomic_param_get,
};

static int atomic_long_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read((atomic_long_t *)kp->arg));
}

const struct kernel_param_ops pmuvirt_lx_atomic_long_ops = {
	.get = atomic_long_param_get,
};
module_param_cb(attached, &atomic_param_ops, &nr_attached, 0444);
MODULE_PARM_DESC(attached, "number of threads with a context (read-only)");

module_param_cb(inherit_failed, &atomic_param_ops, &nr_inherit_failed, 0444);
MODULE_PARM_DESC(inherit_failed, "new tasks of inheriting threads left without counters (read-only)");
module_param_cb(inherit_refused, &atomic_param_ops, &nr_inherit_refused, 0444);
MODULE_PARM_DESC(inherit_refused, "new tasks of inheriting threads left without counters because user_event_policy does not permit their events (read-only)");

/*
 * CPU hotplug and suspend.  Going down, the CPU's context (if any) comes off
 * the counters with its counts kept; its thread is counted again where it
 * next runs.  Coming back, the PMU's registers and LVTPC may hold anything
 * (a reset, firmware): the core forgets what it cached and LVTPC is
 * rewritten.
 */
static int cpuhp_state;

static void lx_cpu_down(void)
{
	struct pmuvirt_lx_cpu *lc;
	unsigned long flags;

	local_irq_save(flags);
	lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	if (lc->pc.running)
		lx_switch(lc, NULL);
	if (pmuvirt_lx_be->cpu_down)
		pmuvirt_lx_be->cpu_down();
	local_irq_restore(flags);
}

static void lx_cpu_up(void)
{
	struct pmuvirt_lx_cpu *lc;
	unsigned long flags;

	local_irq_save(flags);
	lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	pmuvirt_pcpu_invalidate(&lc->pc);
	if (pmuvirt_lx_be->cpu_up)
		pmuvirt_lx_be->cpu_up();
	local_irq_restore(flags);
}

/* cpuhp callbacks of the AP_ONLINE_DYN state run on @cpu itself. */
static int pmuvirt_cpu_online(unsigned int cpu)
{
	lx_cpu_up();
	return 0;
}

static int pmuvirt_cpu_offline(unsigned int cpu)
{
	lx_cpu_down();
	return 0;
}

/* syscore: the last CPU, interrupts off (the others went through hotplug). */
static int pmuvirt_syscore_suspend(void)
{
	lx_cpu_down();
	if (pmuvirt_lx_be->suspend)
		pmuvirt_lx_be->suspend();
	return 0;
}

static void pmuvirt_syscore_resume(void)
{
	if (pmuvirt_lx_be->resume)
		pmuvirt_lx_be->resume();
	lx_cpu_up();
}

static struct syscore_ops pmuvirt_syscore_ops = {
	.suspend = pmuvirt_syscore_suspend,
	.resume = pmuvirt_syscore_resume,
};

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

/*
 * The backends a kernel of this architecture may run on, in the order they
 * are tried: each declines (-ENODEV) a machine it does not apply to.
 */
static const struct pmuvirt_lx_backend *const backends[] = {
#ifdef CONFIG_X86
	&pmuvirt_lx_emu_backend,	/* only with emulate_pmu=1 */
#ifdef CONFIG_XEN
	&pmuvirt_lx_xen_backend,	/* only in a Xen domain whose Xen has pmuvirt */
#endif
	&pmuvirt_lx_native_backend,
#else
	&pmuvirt_lx_power_backend,
#endif
};

/* Choose the backend, once: the first that does not decline this machine. */
static int backend_init(void)
{
	unsigned int i;
	int ret = -ENODEV;

	for (i = 0; i < ARRAY_SIZE(backends); i++) {
		/* set first: a PMI may come before init returns */
		pmuvirt_lx_be = backends[i];
		ret = pmuvirt_lx_be->init();
		if (ret != -ENODEV)
			break;
	}
	if (ret)
		pr_err("backend %s: %s\n", pmuvirt_lx_be->name, pmuvirt_strerror(ret));
	return ret;
}

static int __init pmuvirt_init(void)
{
	unsigned int cpu;
	int ret;

	ret = backend_init();
	if (ret)
		return ret;
	for_each_possible_cpu(cpu) {
		struct pmuvirt_lx_cpu *lc = per_cpu_ptr(&pmuvirt_lx_cpu, cpu);

		ret = pmuvirt_pcpu_init(&lc->pc, &pmuvirt_lx_pmu, pmuvirt_lx_be->hw,
					pmuvirt_lx_be->hw_arg ? pmuvirt_lx_be->hw_arg(cpu) : NULL,
					cpu);
		if (ret)
			goto fail;
		init_irq_work(&lc->sig_work, sig_work_fn);
	}
	/* without the exec hook a setuid program would stay counted: no module */
	exec_tp = pmuvirt_lx_tracepoint("sched_process_exec");
	if (!exec_tp || tracepoint_probe_register(exec_tp, pmuvirt_exec_probe, NULL)) {
		pr_err("no sched_process_exec tracepoint: cannot stop counting at exec of a privileged program\n");
		ret = -EOPNOTSUPP;
		goto fail;
	}
	pmuvirt_lx_policy_init();
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pmuvirt:online", pmuvirt_cpu_online,
				pmuvirt_cpu_offline);
	if (ret < 0) {
		tracepoint_probe_unregister(exec_tp, pmuvirt_exec_probe, NULL);
		tracepoint_synchronize_unregister();
		pmuvirt_lx_policy_exit();
		goto fail;
	}
	cpuhp_state = ret;
	register_syscore_ops(&pmuvirt_syscore_ops);
	preempt_notifier_inc();
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
	ret = misc_register(&pmuvirt_dev);
	if (ret) {
		if (exit_tp)
			tracepoint_probe_unregister(exit_tp, pmuvirt_exit_probe, NULL);
		if (fork_tp)
			tracepoint_probe_unregister(fork_tp, pmuvirt_fork_probe, NULL);
		tracepoint_probe_unregister(exec_tp, pmuvirt_exec_probe, NULL);
		tracepoint_synchronize_unregister();
		preempt_notifier_dec();
		pmuvirt_lx_policy_exit();
		unregister_syscore_ops(&pmuvirt_syscore_ops);
		cpuhp_remove_state_nocalls(cpuhp_state);
		goto fail;
	}
	pr_info("ready: /dev/pmuvirt, ABI %u\n", PMUVIRT_LINUX_VERSION);
	return 0;
fail:
	pmuvirt_lx_be->exit();
	return ret;
}

static void __exit pmuvirt_exit(void)
{
	unsigned int cpu;

	misc_deregister(&pmuvirt_dev);
	if (exit_tp)
		tracepoint_probe_unregister(exit_tp, pmuvirt_exit_probe, NULL);
	if (fork_tp)
		tracepoint_probe_unregister(fork_tp, pmuvirt_fork_probe, NULL);
	tracepoint_probe_unregister(exec_tp, pmuvirt_exec_probe, NULL);
	tracepoint_synchronize_unregister();
	/* no thread holds a context (each holds a module reference) */
	irq_work_sync(&dead_irq_work);
	irq_work_sync(&switch_warn_work);
	flush_work(&dead_work);
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&pmuvirt_lx_cpu, cpu)->sig_work);
	pmuvirt_lx_policy_exit();
	preempt_notifier_dec();
	unregister_syscore_ops(&pmuvirt_syscore_ops);
	cpuhp_remove_state_nocalls(cpuhp_state);
	pmuvirt_lx_be->exit();
	pr_info("unloaded\n");
}

module_init(pmuvirt_init);
module_exit(pmuvirt_exit);

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("pmuvirt: per-thread virtual hardware counters");
