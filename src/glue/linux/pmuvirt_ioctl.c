// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko: what user space asks of /dev/pmuvirt and of the ring
 * descriptors PMUVIRT_IOC_SAMPLE_OPEN hands out: the ioctls
 * (include/pmuvirt/linux.h), whose arguments are copied in and checked by
 * the host-neutral src/abi/linux_ioctl.c, and the mappings, chosen by page
 * offset.  The work is done by the thread (pmuvirt_thread.c), the rings and
 * reports (pmuvirt_ring.c) and the backend.
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
	struct pmuvirt_thread *thr;
	struct pmuvirt_error err = { -1, NULL };
	u8 slots[PMUVIRT_MAX_COUNTERS];
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
	ret = pmuvirt_lx_thread_can_attach(a->flags);
	if (ret)
		goto out;
	a->caps = pmuvirt_lx_be->uread_caps(slots, a->control.nr_counters);
	thr = pmuvirt_lx_thread_new(a, &err);
	if (IS_ERR(thr)) {
		ret = PTR_ERR(thr);
		pr_notice_ratelimited("%s[%d]: set control: %s\n", current->comm,
				      task_pid_nr(current), err.reason ? err.reason : pmuvirt_strerror(ret));
		goto out;
	}
	if (copy_to_user((void __user *)uarg, a, sizeof(*a))) {
		pmuvirt_lx_thread_free_unbound(thr);
		ret = -EFAULT;
		goto out;
	}
	pmuvirt_lx_thread_start(thr, a, pf, exempt);
	ret = 0;
out:
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
	c->nr_counters = pmuvirt_ctx_nr_counters(thr->ctx);
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

	if (IS_ERR(thr))
		return PTR_ERR(thr);
	c.flags = pmuvirt_lx_thread_read(thr, c.value);
	return counts_out(&c, uarg);
}

static int ioc_detach(unsigned long uarg)
{
	struct pmuvirt_counts c;
	struct pmuvirt_thread *thr = counts_in(&c, uarg);

	if (IS_ERR(thr))
		return PTR_ERR(thr);
	c.flags = pmuvirt_lx_thread_detach(thr, c.value);
	return counts_out(&c, uarg);
}

static int ioc_resume(unsigned long uarg)
{
	struct pmuvirt_counts c;
	struct pmuvirt_thread *thr = counts_in(&c, uarg);
	u32 counts[PMUVIRT_MAX_COUNTERS];
	unsigned int i;

	if (IS_ERR(thr))
		return PTR_ERR(thr);
	c.ovf_mask = pmuvirt_lx_thread_resume(thr, counts, &c.flags);
	for (i = 0; i < c.nr_counters; i++)
		c.value[i] = counts[i];
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
	return pmuvirt_lx_ring_tail(ring, &t);
}

static int ioc_sample_tail(unsigned long uarg)
{
	struct pmuvirt_thread *thr = pmuvirt_lx_current_thread();

	return ring_set_tail(thr ? thr->ring : NULL, thr ? -ENODEV : -ESRCH, uarg);
}

static const struct file_operations pmuvirt_ring_fops;

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
	ring = pmuvirt_lx_ring_take(pf, &o);
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
	o.fd = fd;
	if (copy_to_user((void __user *)uarg, &o, sizeof(o))) {
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

/* A ring descriptor (PMUVIRT_IOC_SAMPLE_OPEN): map it, give records back, close. */
static int pmuvirt_ring_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff)
		return -EINVAL;
	return pmuvirt_lx_ring_mmap(file->private_data, vma);
}

static long pmuvirt_ring_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != PMUVIRT_IOC_SAMPLE_TAIL)
		return -ENOTTY;
	return ring_set_tail(file->private_data, -ENODEV, arg);
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
