// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko: what user space asks of /dev/pmuvirt and of the ring
 * descriptors PMUVIRT_IOC_SAMPLE_OPEN hands out: the ioctls
 * (include/pmuvirt/linux.h), one row each of PMUVIRT_LINUX_IOCTLS
 * (src/abi/pmuvirt_abi_check.h), whose arguments pmuvirt_ioctl() copies in
 * and checks by the row (src/abi/linux_ioctl.c) before it calls the row's
 * ioc_<name>(), and the mappings, chosen by page offset.  The work is
 * done by the thread (pmuvirt_thread.c), the rings and reports
 * (pmuvirt_ring.c) and the backend.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/poll.h>
#include <linux/anon_inodes.h>
#include <linux/file.h>

/*
 * Copy in and check the argument of ioctl @nr, @name (its row of
 * PMUVIRT_LINUX_IOCTLS), @size bytes: the size and version alone first, so
 * a caller built for another layout has nothing else read, then the whole
 * struct and the row's check.
 */
static int get_arg(unsigned int nr, const char *name, void *karg, size_t size,
		   unsigned long uarg)
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
	ret = pmuvirt_linux_check_arg(nr, karg, size);
	if (ret)
		pr_notice_ratelimited("%s[%d]: %s: unknown flags, bad value or reserved field set\n",
				      current->comm, task_pid_nr(current), name);
	return ret;
}

/* @a: checked by pmuvirt_linux_check_attach(); the thread gets a context. */
static long ioc_attach(struct pmuvirt_file *pf, struct pmuvirt_thread *none,
		       struct pmuvirt_attach *a, unsigned long uarg)
{
	struct pmuvirt_thread *thr;
	struct pmuvirt_error err = { -1, NULL };
	struct pmuvirt_sample_format fmt;
	u8 slots[PMUVIRT_MAX_COUNTERS];
	bool exempt;
	int ret;

	exempt = pmuvirt_lx_policy_exempt();
	ret = pmuvirt_lx_validate(&a->control, slots, exempt, &err);
	if (ret == -EPERM) {
		pr_notice_ratelimited("%s[%d]: attach: counter %d: event not permitted by user_event_policy (CAP_PERFMON is exempt)\n",
				      current->comm, task_pid_nr(current), err.counter);
		return ret;
	}
	if (ret) {
		pr_notice_ratelimited("%s[%d]: control refused (counter %d): %s: %s\n",
				      current->comm, task_pid_nr(current), err.counter,
				      err.reason ? err.reason : "-", pmuvirt_strerror(ret));
		return ret;
	}
	if (pmuvirt_linux_check_sample_pages(a)) {
		pr_notice_ratelimited("%s[%d]: attach: a sampling counter needs sample_pages, sample_pages a sampling counter\n",
				      current->comm, task_pid_nr(current));
		return -EINVAL;
	}
	if (pmuvirt_linux_sample_format(a, &fmt)) {
		pr_notice_ratelimited("%s[%d]: attach: sample_format %#x with chain_depth %u is not a record format\n",
				      current->comm, task_pid_nr(current), a->sample_format,
				      a->chain_depth);
		return -EINVAL;
	}
	if (!pmuvirt_lx_pmc_ok) {
		unsigned int i;

		for (i = 0; i < a->control.nr_counters; i++) {
			if (pmuvirt_lx_pmu.slot[slots[i]].cls == PMUVIRT_CLASS_TSC)
				continue;
			pr_notice_ratelimited("%s[%d]: counter %u needs PMU counters that perf or the NMI watchdog hold\n",
					      current->comm, task_pid_nr(current), i);
			return -EBUSY;
		}
	}
	ret = pmuvirt_lx_policy_attach(&a->control, a->signo);
	if (ret)
		return ret;
	if (pmuvirt_lx_current_thread())
		return -EBUSY;
	ret = pmuvirt_lx_thread_can_attach(a->flags);
	if (ret)
		return ret;
	a->caps = pmuvirt_lx_be->uread_caps(slots, a->control.nr_counters);
	thr = pmuvirt_lx_thread_new(a, &err);
	if (IS_ERR(thr)) {
		ret = PTR_ERR(thr);
		pr_notice_ratelimited("%s[%d]: set control: %s\n", current->comm,
				      task_pid_nr(current), err.reason ? err.reason : pmuvirt_strerror(ret));
		return ret;
	}
	if (copy_to_user((void __user *)uarg, a, sizeof(*a))) {
		pmuvirt_lx_thread_free_unbound(thr);
		return -EFAULT;
	}
	pmuvirt_lx_thread_start(thr, a, pf, exempt);
	return 0;
}

/* The out fields of @c cleared, so nothing of the caller's input comes back. */
static void counts_clear(struct pmuvirt_thread *thr, struct pmuvirt_counts *c)
{
	memset(c->value, 0, sizeof(c->value));
	c->flags = 0;
	c->ovf_mask = 0;
	c->nr_counters = pmuvirt_ctx_nr_counters(thr->ctx);
}

static long counts_out(const struct pmuvirt_counts *c, unsigned long uarg)
{
	if (copy_to_user((void __user *)uarg, c, sizeof(*c)))
		return -EFAULT;
	return 0;
}

static long ioc_read(struct pmuvirt_file *pf, struct pmuvirt_thread *thr,
		     struct pmuvirt_counts *c, unsigned long uarg)
{
	counts_clear(thr, c);
	c->flags = pmuvirt_lx_thread_read(thr, c->value);
	return counts_out(c, uarg);
}

static long ioc_detach(struct pmuvirt_file *pf, struct pmuvirt_thread *thr,
		       struct pmuvirt_counts *c, unsigned long uarg)
{
	counts_clear(thr, c);
	c->flags = pmuvirt_lx_thread_detach(thr, c->value);
	return counts_out(c, uarg);
}

static long ioc_resume(struct pmuvirt_file *pf, struct pmuvirt_thread *thr,
		       struct pmuvirt_counts *c, unsigned long uarg)
{
	u32 counts[PMUVIRT_MAX_COUNTERS];
	unsigned int i;

	counts_clear(thr, c);
	c->ovf_mask = pmuvirt_lx_thread_resume(thr, counts, &c->flags);
	for (i = 0; i < c->nr_counters; i++)
		c->value[i] = counts[i];
	return counts_out(c, uarg);
}

static long ioc_sample_tail(struct pmuvirt_file *pf, struct pmuvirt_thread *thr,
			    struct pmuvirt_sample_tail *t, unsigned long uarg)
{
	if (!thr->ring)
		return -ENODEV;
	return pmuvirt_lx_ring_tail(thr->ring, t);
}

static const struct file_operations pmuvirt_ring_fops;

static long ioc_sample_open(struct pmuvirt_file *pf, struct pmuvirt_thread *none,
			    struct pmuvirt_sample_open *o, unsigned long uarg)
{
	struct pmuvirt_ring *ring;
	struct file *f;
	int fd;

	ring = pmuvirt_lx_ring_take(pf, o);
	if (!ring)
		return -EAGAIN;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		pmuvirt_lx_ring_requeue(pf, ring);
		return fd;
	}
	/* the queue's reference goes to the file */
	f = anon_inode_getfile("[pmuvirt-ring]", &pmuvirt_ring_fops, ring, O_RDONLY);
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		pmuvirt_lx_ring_requeue(pf, ring);
		return PTR_ERR(f);
	}
	o->fd = fd;
	if (copy_to_user((void __user *)uarg, o, sizeof(*o))) {
		pmuvirt_lx_ring_get(ring);
		pmuvirt_lx_ring_requeue(pf, ring);
		put_unused_fd(fd);
		fput(f);
		return -EFAULT;
	}
	fd_install(fd, f);
	return 0;
}

/* Where the records a thread's record sits on are: the backend's layout. */
static long ioc_below(struct pmuvirt_file *pf, struct pmuvirt_thread *none,
		      struct pmuvirt_below *b, unsigned long uarg)
{
	if (!pmuvirt_lx_be->below)
		return -ENODEV;
	pmuvirt_lx_be->below(b);
	return copy_to_user((void __user *)uarg, b, sizeof(*b)) ? -EFAULT : 0;
}

/* Each row's request number encodes its number and its argument's size. */
#define IOC_ENCODED(NAME, name, nr, arg, who)					\
	static_assert(_IOC_TYPE(PMUVIRT_IOC_##NAME) == PMUVIRT_IOC_MAGIC &&	\
		      _IOC_NR(PMUVIRT_IOC_##NAME) == nr &&			\
		      _IOC_SIZE(PMUVIRT_IOC_##NAME) == sizeof(struct pmuvirt_##arg));
PMUVIRT_LINUX_IOCTLS(IOC_ENCODED)

#define IOC_NAME(NAME, name, nr, arg, who)	[nr] = #name,
static const char *const ioc_names[] = { PMUVIRT_LINUX_IOCTLS(IOC_NAME) };
#undef IOC_NAME

/* Arguments up to this size are copied onto the stack, bigger ones (ATTACH's) allocated. */
#define IOC_STACK_ARG	192

/*
 * The row of PMUVIRT_LINUX_IOCTLS for @cmd: its argument copied in and
 * checked (get_arg()), then, for a request on the calling thread's
 * context, that context (-ESRCH without one), then the row's handler.
 */
static long pmuvirt_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	struct pmuvirt_file *pf = file->private_data;
	const struct pmuvirt_linux_ioctl *row = NULL;
	struct pmuvirt_thread *thr = NULL;
	u64 small[IOC_STACK_ARG / sizeof(u64)];
	void *karg = small;
	long ret;

	switch (cmd) {
#define IOC_KNOWN(NAME, name, nr, arg, who)	case PMUVIRT_IOC_##NAME:
	PMUVIRT_LINUX_IOCTLS(IOC_KNOWN)
#undef IOC_KNOWN
		row = pmuvirt_linux_ioctl(_IOC_NR(cmd));
		break;
	}
	if (!row)
		return -ENOTTY;
	if (row->size > sizeof(small)) {
		karg = kzalloc(row->size, GFP_KERNEL);
		if (!karg)
			return -ENOMEM;
	}
	ret = get_arg(_IOC_NR(cmd), ioc_names[_IOC_NR(cmd)], karg, row->size, uarg);
	if (!ret && row->caller == PMUVIRT_LINUX_CALLER_THREAD) {
		thr = pmuvirt_lx_current_thread();
		if (!thr)
			ret = -ESRCH;
	}
	if (!ret) {
		switch (_IOC_NR(cmd)) {
#define IOC_CALL(NAME, name, nr, arg, who)					\
		case nr:							\
			ret = ioc_##name(pf, thr, karg, uarg);			\
			break;
		PMUVIRT_LINUX_IOCTLS(IOC_CALL)
#undef IOC_CALL
		}
	}
	if (karg != small)
		kfree(karg);
	return ret;
}

/* A ring descriptor (PMUVIRT_IOC_SAMPLE_OPEN): map it, give records back, close. */
static int pmuvirt_ring_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff)
		return -EINVAL;
	return pmuvirt_lx_ring_mmap(file->private_data, vma);
}

/* SAMPLE_TAIL alone, for this ring: its row's argument and check. */
static long pmuvirt_ring_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	struct pmuvirt_sample_tail t;
	int ret;

	if (cmd != PMUVIRT_IOC_SAMPLE_TAIL)
		return -ENOTTY;
	ret = get_arg(_IOC_NR(cmd), "sample_tail", &t, sizeof(t), uarg);
	if (ret)
		return ret;
	return pmuvirt_lx_ring_tail(file->private_data, &t);
}

static int pmuvirt_ring_release(struct inode *inode, struct file *file)
{
	pmuvirt_lx_ring_put(file->private_data);
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

/*
 * By page offset: 0 the thread's record, PMUVIRT_SAMPLE_PGOFF its sample
 * ring, any other what lies below the threads' records (the backend's:
 * Xen's VCPU records).
 */
static int pmuvirt_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pmuvirt_thread *thr = pmuvirt_lx_current_thread();

	if (vma->vm_pgoff == PMUVIRT_SAMPLE_PGOFF) {
		if (!thr)
			return -ESRCH;
		if (!thr->ring)
			return -ENODEV;
		return pmuvirt_lx_ring_mmap(thr->ring, vma);
	}
	if (vma->vm_pgoff)
		return pmuvirt_lx_be->mmap ? pmuvirt_lx_be->mmap(vma) : -EINVAL;
	if (!thr)
		return -ESRCH;
	return pmuvirt_lx_record_mmap(thr, vma);
}

const struct file_operations pmuvirt_lx_fops = {
	.owner = THIS_MODULE,
	.open = pmuvirt_lx_open,
	.release = pmuvirt_lx_release,
	.unlocked_ioctl = pmuvirt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pmuvirt_mmap,
	.read = pmuvirt_lx_read_reports,
	.poll = pmuvirt_lx_poll,
	.llseek = no_llseek,
};
