/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * chain_probe.ko, in the domu boot's PV domU, for the check of the call
 * chains Xen's session records (docs/testing/vm-xen.md): a write of N to
 * /proc/pmuvirt_chain_probe runs, in the writer's context and twice over,
 * a kernel-bound loop of 3 * N iterations in chain_probe_leaf() called
 * from chain_probe_a(), then one of N iterations called from
 * chain_probe_b(), and returns when done.  Built with frame pointers and
 * without sibling calls (run.sh), which Debian's kernel has not: the
 * leaf's caller is on its stack whatever the kernel around it does.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

/* calls of the leaf per N iterations, with a reschedule point after each */
#define CHAIN_PROBE_CALLS	8

static u64 chain_probe_sink;

noinline u64 chain_probe_leaf(u64 n)
{
	u64 i, x = n;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + i;
		asm volatile("" : "+r" (x));
	}
	return x;
}

noinline u64 chain_probe_a(u64 n)
{
	u64 x = 0;
	unsigned int k;

	for (k = 0; k < 3 * CHAIN_PROBE_CALLS; k++) {
		x += chain_probe_leaf(n / CHAIN_PROBE_CALLS);
		cond_resched();
	}
	return x;
}

noinline u64 chain_probe_b(u64 n)
{
	u64 x = 0;
	unsigned int k;

	for (k = 0; k < CHAIN_PROBE_CALLS; k++) {
		x += chain_probe_leaf(n / CHAIN_PROBE_CALLS);
		cond_resched();
	}
	return x;
}

static ssize_t chain_probe_write(struct file *file, const char __user *buf, size_t len,
				 loff_t *pos)
{
	u64 n, x = 0;
	unsigned int r;
	int ret = kstrtoull_from_user(buf, len, 0, &n);

	if (ret)
		return ret;
	if (n < CHAIN_PROBE_CALLS || n > (1ull << 36))
		return -EINVAL;
	for (r = 0; r < 2; r++) {
		x += chain_probe_a(n);
		x += chain_probe_b(n);
	}
	WRITE_ONCE(chain_probe_sink, x);
	return len;
}

static const struct proc_ops chain_probe_ops = {
	.proc_write = chain_probe_write,
};

static int __init chain_probe_init(void)
{
	return proc_create("pmuvirt_chain_probe", 0200, NULL, &chain_probe_ops) ? 0 : -ENOMEM;
}

static void __exit chain_probe_exit(void)
{
	remove_proc_entry("pmuvirt_chain_probe", NULL);
}

module_init(chain_probe_init);
module_exit(chain_probe_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("pmuvirt vm-xen: a kernel loop reached through two callers 3:1");
