// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko: what a thread's counting leaves for user space to read,
 * and the mappings that show it.
 *
 *  - Sample rings: a thread's ring (header page, then records) written by
 *    its PMIs, queued on its file for PMUVIRT_IOC_SAMPLE_OPEN when it was
 *    attached with PMUVIRT_ATTACH_SAMPLE_FILE, mapped whole and read-only,
 *    its tail handed back by PMUVIRT_IOC_SAMPLE_TAIL.  A ring is held by
 *    its thread, by its file's queue and by each ring descriptor; a
 *    mapping holds its own page references, so the last records can be
 *    read after the thread has gone.
 *  - The thread's record page, mapped read-only at page offset 0.
 *  - Reports: the final counts of threads that attached through a file
 *    with PMUVIRT_ATTACH_REPORT, read() from that file until no thread
 *    reports to it any more.
 *
 * A struct pmuvirt_file is one open /dev/pmuvirt; it lives while the file
 * is open or a thread reports to it.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/kref.h>
#include <linux/log2.h>
#include <asm/ptrace.h>
#ifdef CONFIG_X86_64
#include <asm/unwind.h>
#endif
#ifdef CONFIG_PPC64
#include <linux/thread_info.h>
#include <linux/vmalloc.h>
#endif

#define PMUVIRT_MAX_REPORTS	4096

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

/* ---- sample rings ---- */

static void ring_release(struct kref *ref)
{
	struct pmuvirt_ring *ring = container_of(ref, struct pmuvirt_ring, ref);
	u32 i;

	for (i = 0; i < ring->pages; i++)
		put_page(ring->page + i);
	kfree(ring);
}

/**
 * pmuvirt_lx_ring_put() - drop a reference to a ring
 * @ring:	the ring, or NULL.
 */
void pmuvirt_lx_ring_put(struct pmuvirt_ring *ring)
{
	if (ring)
		kref_put(&ring->ref, ring_release);
}

/**
 * pmuvirt_lx_ring_pages() - the size of a ring
 * @ring:	the ring.
 *
 * Return: its pages, header included.
 */
u32 pmuvirt_lx_ring_pages(const struct pmuvirt_ring *ring)
{
	return ring->pages;
}

#if defined(CONFIG_X86_64) || defined(CONFIG_PPC64)
/*
 * A user stack, in the PMI: copy_from_user_nofault() cannot fault or
 * sleep, and refuses in an NMI that interrupted another address space.
 */
static int lx_read_user(void *arg, uint64_t addr, void *buf, unsigned int len)
{
	return copy_from_user_nofault(buf, (const void __user *)(unsigned long)addr, len) ? -EFAULT : 0;
}
#endif

#ifdef CONFIG_X86_64
/* User frames by frame pointers, from the user registers; @with_ip: @regs->ip first. */
static unsigned int lx_user_chain(const struct pt_regs *regs, bool with_ip, u64 *frame,
				  unsigned int max)
{
	unsigned int n = 0;

	if (with_ip && n < max)
		frame[n++] = regs->ip;
	return n + pmuvirt_chain_fp(regs->bp, regs->sp, TASK_SIZE_MAX, lx_read_user, NULL,
				    frame + n, max - n);
}

/* Kernel frames: the callers of the interrupted @regs->ip (the kernel's unwinder). */
static unsigned int lx_kernel_chain(struct pt_regs *regs, u64 *frame, unsigned int max)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state) && n < max;
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		frame[n++] = addr;
	}
	return n;
}
#elif defined(CONFIG_PPC64)
/* User frames by the back chain, from the user registers; @with_ip: @regs->nip first. */
static unsigned int lx_user_chain(const struct pt_regs *regs, bool with_ip, u64 *frame,
				  unsigned int max)
{
	unsigned int n = 0;

	if (with_ip && n < max)
		frame[n++] = regs->nip;
	if (is_32bit_task())	/* frames of 4-byte words: not walked */
		return n;
	return n + pmuvirt_chain_backchain(regs->nip, regs->gpr[1], regs->link, TASK_SIZE,
					   lx_read_user, NULL, frame + n, max - n);
}

/*
 * A kernel stack, in the PMI; @arg is its end.  An interrupt frame (the
 * regs marker) is the last: its back chain leads to the interrupted
 * context, not to a caller, and is given to the walk as 0.
 */
static int lx_read_kernel(void *arg, uint64_t addr, void *buf, unsigned int len)
{
	unsigned long end = (unsigned long)arg, at = addr + STACK_FRAME_MARKER * sizeof(long);
	unsigned long marker;
	u64 *hdr = buf;

	if (copy_from_kernel_nofault(buf, (const void *)(unsigned long)addr, len))
		return -EFAULT;
	if (at + sizeof(marker) <= end &&
	    !copy_from_kernel_nofault(&marker, (const void *)at, sizeof(marker)) &&
	    marker == STACK_FRAME_REGS_MARKER)
		hdr[0] = 0;
	return 0;
}

/*
 * A kernel return address.  kernel_text_address() is not exported to
 * modules: an address is taken when it lies in the linear map (the
 * kernel's text) or the vmalloc area (modules' text) and the word before
 * it is a branch and link (bl, bcl, bclrl, bcctrl, bctarl).  Stack words
 * may be anything: that word is read only in those two areas, never in
 * the ioremap region.
 */
static bool lx_kernel_return(unsigned long addr)
{
	u32 insn, xo;

	if ((addr & 3) || (!virt_addr_valid((void *)addr) && !is_vmalloc_addr((void *)addr)))
		return false;
	if (copy_from_kernel_nofault(&insn, (const void *)(addr - 4), sizeof(insn)) || !(insn & 1))
		return false;
	xo = (insn >> 1) & 0x3ff;
	switch (insn >> 26) {
	case 16:	/* bcl */
	case 18:	/* bl */
		return true;
	case 19:
		return xo == 16 || xo == 528 || xo == 560;
	}
	return false;
}

/*
 * Kernel frames: the callers of the interrupted @regs->nip by the back
 * chain, within the stack (THREAD_SIZE, aligned) its r1 lies in.
 */
static unsigned int lx_kernel_chain(struct pt_regs *regs, u64 *frame, unsigned int max)
{
	unsigned long sp = regs->gpr[1];
	unsigned long end = ALIGN_DOWN(sp, THREAD_SIZE) + THREAD_SIZE;
	unsigned int n, i, kept = 0;

	if (!is_kernel_addr(sp))
		return 0;
	n = pmuvirt_chain_backchain(regs->nip, sp, regs->link, end, lx_read_kernel, (void *)end,
				    frame, max);
	for (i = 0; i < n; i++)
		if (lx_kernel_return(frame[i]))
			frame[kept++] = frame[i];
	return kept;
}
#else
/* No unwinder wired on this architecture: records carry no frames. */
static unsigned int lx_user_chain(const struct pt_regs *regs, bool with_ip, u64 *frame,
				  unsigned int max)
{
	return 0;
}

static unsigned int lx_kernel_chain(struct pt_regs *regs, u64 *frame, unsigned int max)
{
	return 0;
}
#endif

/*
 * The host's part of a sample record, in the PMI: the IP and mode of the
 * context the interrupt (NMI, the emulated PMU's timer, the Xen VIRQ)
 * interrupted; for a PMI handled after a switch, read or RESUME it
 * deferred, where the thread entered the kernel.  That thread is current, or the one a
 * switch is bringing in (not running, not exiting: its stack is there).
 * Call chains are walked only for current: another task's user stack is
 * not the mapped one, and its kernel stack is not the interrupted one.
 */
static void lx_sample_fill(void *arg, const struct pmuvirt_pcpu *pc,
			   const struct pmuvirt_ctx *ctx, struct pmuvirt_sample *s,
			   uint64_t *frames, unsigned int max_frames)
{
	const struct pmuvirt_lx_cpu *lc = container_of(pc, struct pmuvirt_lx_cpu, pc);
	struct pmuvirt_thread *thr = arg;
	struct pt_regs *regs = lc->pmi_regs;
	bool kthread = thr->task->flags & PF_KTHREAD;

	if (!regs && !kthread)
		regs = task_pt_regs(thr->task);
	s->tid = thr->tid;
	s->time = local_clock();
	if (!regs)
		return;
	s->ip = instruction_pointer(regs);
	if (user_mode(regs))
		s->flags |= PMUVIRT_SAMPLE_USER;
	if (!frames || thr->task != current)
		return;
	if (!user_mode(regs)) {
		/*
		 * The kernel's callers only for a counter that counts kernel
		 * mode: a user-mode counter's interrupt can land in the kernel
		 * (skid, a PMI handled late), and must not show them.
		 */
		if (lc->pmi_regs && s->counter < thr->ctl.nr_counters &&
		    (thr->ctl.counter[s->counter].flags & PMUVIRT_CTR_KERNEL))
			s->nr_kernel = lx_kernel_chain(regs, frames, max_frames);
		if (kthread)
			return;
		regs = task_pt_regs(current);
	}
	s->nr_user = lx_user_chain(regs, !(s->flags & PMUVIRT_SAMPLE_USER),
				   frames + s->nr_kernel, max_frames - s->nr_kernel);
}

/**
 * pmuvirt_lx_ring_format() - what the records of a ring hold
 * @ring:	the ring.
 * @fmt:	receives its format (for a ring of the same kind).
 */
void pmuvirt_lx_ring_format(const struct pmuvirt_ring *ring, struct pmuvirt_sample_format *fmt)
{
	fmt->format = ring->sw.format;
	fmt->nr_values = ring->sw.nr_values;
	fmt->chain_depth = ring->sw.chain_depth;
}

/**
 * pmuvirt_lx_ring_alloc() - a sample ring for a thread's new context
 * @thr:	the thread, not bound yet; its ring goes to @thr->ring.
 * @pages:	pages of the ring (header page, then records).
 * @fmt:	what its records hold.
 * @gfp:	how to allocate.
 *
 * Return: 0 or a negative errno; @thr->ring may be set on failure too.
 */
int pmuvirt_lx_ring_alloc(struct pmuvirt_thread *thr, u32 pages,
			  const struct pmuvirt_sample_format *fmt, gfp_t gfp)
{
	unsigned int order = ilog2(pages);
	u32 size = pmuvirt_sample_record_size(fmt->format, fmt->nr_values, fmt->chain_depth);
	u32 nr;
	struct pmuvirt_ring *ring;
	struct page *p;
	int ret;

	if (!size)
		return -EINVAL;
	nr = rounddown_pow_of_two((pages - 1) * PAGE_SIZE / size);
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
				  PAGE_SIZE, fmt);
	if (!ret)
		ret = pmuvirt_ctx_attach_samples(thr->ctx, &ring->sw, lx_sample_fill, thr);
	return ret;
}

/**
 * pmuvirt_lx_ring_queue() - a new thread's ring waits on its file
 * @thr:	a thread just bound to its task.
 *
 * With PMUVIRT_ATTACH_SAMPLE_FILE the ring is queued on @thr->file for
 * PMUVIRT_IOC_SAMPLE_OPEN.  May run with preemption off (fork).
 */
void pmuvirt_lx_ring_queue(struct pmuvirt_thread *thr)
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

/**
 * pmuvirt_lx_ring_tail() - the reader hands its tail back to the writer
 * @ring:	the ring.
 * @t:		the argument of PMUVIRT_IOC_SAMPLE_TAIL, checked.
 *
 * Return: 0; -EINVAL for a tail ahead of the writer's own head, or more
 * than a ring behind it.
 */
int pmuvirt_lx_ring_tail(struct pmuvirt_ring *ring, const struct pmuvirt_sample_tail *t)
{
	if ((u32)(READ_ONCE(ring->sw.head) - t->tail) > ring->sw.mask + 1)
		return -EINVAL;
	smp_mb();	/* the caller's copies of the records before the writer may reuse them */
	WRITE_ONCE(ring->sw.ring->tail, t->tail);
	return 0;
}

/**
 * pmuvirt_lx_ring_take() - the oldest ring waiting on a file
 * @pf:		the file.
 * @o:		PMUVIRT_IOC_SAMPLE_OPEN's argument: its @dropped is set, and
 *		with a ring its @tid, @pid, @pages and @comm.
 *
 * Return: the ring with the queue's reference, or NULL when none waits.
 */
struct pmuvirt_ring *pmuvirt_lx_ring_take(struct pmuvirt_file *pf, struct pmuvirt_sample_open *o)
{
	struct pmuvirt_ring *ring;

	spin_lock(&pf->lock);
	ring = list_first_entry_or_null(&pf->rings, struct pmuvirt_ring, link);
	if (ring) {
		list_del_init(&ring->link);
		pf->nr_rings--;
	}
	o->dropped = pf->rings_dropped;
	spin_unlock(&pf->lock);
	if (!ring)
		return NULL;
	o->tid = ring->tid;
	o->pid = ring->pid;
	o->pages = ring->pages;
	memcpy(o->comm, ring->comm, sizeof(o->comm));
	return ring;
}

/**
 * pmuvirt_lx_ring_requeue() - put a ring taken off the queue back at its head
 * @pf:		the file.
 * @ring:	the ring, with a reference for the queue.
 */
void pmuvirt_lx_ring_requeue(struct pmuvirt_file *pf, struct pmuvirt_ring *ring)
{
	spin_lock(&pf->lock);
	list_add(&ring->link, &pf->rings);
	pf->nr_rings++;
	spin_unlock(&pf->lock);
}

/**
 * pmuvirt_lx_ring_get() - take another reference to a ring
 * @ring:	the ring.
 */
void pmuvirt_lx_ring_get(struct pmuvirt_ring *ring)
{
	kref_get(&ring->ref);
}

/**
 * pmuvirt_lx_ring_mmap() - map a sample ring, whole and read-only, like the record
 * @ring:	the ring.
 * @vma:	the mapping.
 *
 * Return: 0; -EINVAL for another size, -EPERM for a writable mapping.
 */
int pmuvirt_lx_ring_mmap(struct pmuvirt_ring *ring, struct vm_area_struct *vma)
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

/**
 * pmuvirt_lx_record_mmap() - map a thread's record page, read-only
 * @thr:	the thread.
 * @vma:	the mapping, at page offset 0.
 *
 * Not inherited by fork: a new task maps its own.
 *
 * Return: 0; -EINVAL for another size, -EPERM for a writable mapping.
 */
int pmuvirt_lx_record_mmap(struct pmuvirt_thread *thr, struct vm_area_struct *vma)
{
	if (vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	return vm_insert_page(vma, vma->vm_start, thr->page);
}

/* ---- the open file and its reports ---- */

static void file_release(struct kref *ref)
{
	struct pmuvirt_file *pf = container_of(ref, struct pmuvirt_file, ref);
	struct pmuvirt_report_node *n, *tmp;
	struct pmuvirt_ring *ring, *rtmp;

	list_for_each_entry_safe(n, tmp, &pf->reports, link)
		kfree(n);
	list_for_each_entry_safe(ring, rtmp, &pf->rings, link)
		pmuvirt_lx_ring_put(ring);
	kfree(pf);
}

/**
 * pmuvirt_lx_file_hold() - a thread reports to @pf from now on
 * @pf:		the file.
 *
 * read() gives end of file only once every such thread has let go
 * (pmuvirt_lx_file_drop()).
 */
void pmuvirt_lx_file_hold(struct pmuvirt_file *pf)
{
	kref_get(&pf->ref);
	atomic_inc(&pf->live);
}

/**
 * pmuvirt_lx_file_drop() - a thread reports to @pf no more
 * @pf:		the file.
 *
 * After its last report is queued: a reader at end of file has every
 * report.  @pf may be gone when this returns.
 */
void pmuvirt_lx_file_drop(struct pmuvirt_file *pf)
{
	if (atomic_dec_and_test(&pf->live))
		wake_up_interruptible(&pf->wait);
	kref_put(&pf->ref, file_release);
}

/**
 * pmuvirt_lx_report() - queue a thread's final counts on its file
 * @thr:	the thread; nothing is queued when it has no file.
 * @vals:	its values.
 * @flags:	PMUVIRT_COUNTS_* of @vals.
 * @how:	PMUVIRT_REPORT_*.
 *
 * Process context.  A file holds at most PMUVIRT_MAX_REPORTS unread
 * reports; more are dropped with a message.
 */
void pmuvirt_lx_report(struct pmuvirt_thread *thr, const u64 *vals, u32 flags, u32 how)
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
	n->rep.nr_counters = pmuvirt_ctx_nr_counters(thr->ctx);
	n->rep.flags = flags;
	get_task_comm(n->rep.comm, thr->task);
	memcpy(n->rep.value, vals, sizeof(u64) * pmuvirt_ctx_nr_counters(thr->ctx));
	list_add_tail(&n->link, &pf->reports);
	pf->nr_reports++;
	spin_unlock(&pf->lock);
	wake_up_interruptible(&pf->wait);
}

/**
 * pmuvirt_lx_read_reports() - read() of /dev/pmuvirt: the queued reports
 * @file:	the file.
 * @buf:	where they go, whole struct pmuvirt_report records.
 * @len:	room at @buf.
 * @ppos:	unused (the file does not seek).
 *
 * Return: bytes read; 0 once no thread reports to the file any more and
 * every report has been read; -EAGAIN (non-blocking, none queued),
 * -EINVAL when @len holds no record, -EFAULT.
 */
ssize_t pmuvirt_lx_read_reports(struct file *file, char __user *buf, size_t len, loff_t *ppos)
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

/**
 * pmuvirt_lx_poll() - poll() of /dev/pmuvirt
 * @file:	the file.
 * @wait:	the poll table.
 *
 * Return: EPOLLIN with a report queued, EPOLLHUP once no thread reports
 * to the file any more.
 */
__poll_t pmuvirt_lx_poll(struct file *file, poll_table *wait)
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

/**
 * pmuvirt_lx_open() - open() of /dev/pmuvirt
 * @inode:	its inode.
 * @file:	the new file; its private_data is its struct pmuvirt_file.
 *
 * Return: 0 or -ENOMEM.
 */
int pmuvirt_lx_open(struct inode *inode, struct file *file)
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

/**
 * pmuvirt_lx_release() - the last close of a /dev/pmuvirt file
 * @inode:	its inode.
 * @file:	the file.
 *
 * Closing a file detaches nothing: contexts belong to threads, and the
 * file stays while they report to it.
 *
 * Return: 0.
 */
int pmuvirt_lx_release(struct inode *inode, struct file *file)
{
	struct pmuvirt_file *pf = file->private_data;

	kref_put(&pf->ref, file_release);
	return 0;
}
