// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko: per-thread virtual counters for Linux.  This file loads and
 * unloads the module: it chooses the backend, sets up every CPU, registers
 * /dev/pmuvirt, and follows CPU hotplug and suspend.
 *
 * The rest, by job:
 *   pmuvirt_thread.c	the life of an attached thread: context allocation,
 *			binding, the switch hooks, the fork, exec and exit
 *			probes
 *   pmuvirt_ioctl.c	the ioctls and mappings of /dev/pmuvirt and of the
 *			ring descriptors
 *   pmuvirt_ring.c	sample rings, the record and ring mappings, reports
 *   pmuvirt_pmi.c	the state every file shares, and the PMI
 *   pmuvirt_policy.c	who may count what
 *   pmuvirt_hw.c, pmuvirt_emu.c, pmuvirt_xenpv.c, pmuvirt_hw_ppc.c
 *			the backends (struct pmuvirt_lx_backend)
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/preempt.h>
#include <linux/cpuhotplug.h>
#include <linux/syscore_ops.h>

static struct miscdevice pmuvirt_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "pmuvirt",
	.fops = &pmuvirt_lx_fops,
	.mode = 0666,
};

/*
 * CPU hotplug and suspend.  Going down, the CPU's context (if any) comes off
 * the counters with its counts kept; its thread is counted again where it
 * next runs.  Coming back, the PMU's registers and LVTPC may hold anything
 * (a reset, firmware): the core forgets what it cached and the backend
 * makes the CPU take PMIs again (x86: LVTPC is rewritten).
 */
static int cpuhp_state;

static void lx_cpu_down(void)
{
	struct pmuvirt_lx_cpu *lc;
	unsigned long flags;

	local_irq_save(flags);
	lc = this_cpu_ptr(&pmuvirt_lx_cpu);
	if (lc->pc.running)
		pmuvirt_lx_switch(lc, NULL);
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
	}
	ret = pmuvirt_lx_thread_init();
	if (ret)
		goto fail;
	pmuvirt_lx_policy_init();
	pmuvirt_lx_pmi_init();
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pmuvirt:online", pmuvirt_cpu_online,
				pmuvirt_cpu_offline);
	if (ret < 0)
		goto fail_cpuhp;
	cpuhp_state = ret;
	register_syscore_ops(&pmuvirt_syscore_ops);
	preempt_notifier_inc();
	ret = misc_register(&pmuvirt_dev);
	if (ret) {
		preempt_notifier_dec();
		unregister_syscore_ops(&pmuvirt_syscore_ops);
		cpuhp_remove_state_nocalls(cpuhp_state);
		goto fail_cpuhp;
	}
	pr_info("ready: /dev/pmuvirt, ABI %u\n", PMUVIRT_LINUX_VERSION);
	return 0;
fail_cpuhp:
	pmuvirt_lx_thread_exit();
	pmuvirt_lx_pmi_exit();
	pmuvirt_lx_policy_exit();
fail:
	pmuvirt_lx_be->exit();
	return ret;
}

static void __exit pmuvirt_exit(void)
{
	misc_deregister(&pmuvirt_dev);
	/* no thread holds a context (each holds a module reference) */
	pmuvirt_lx_thread_exit();
	pmuvirt_lx_pmi_exit();
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
