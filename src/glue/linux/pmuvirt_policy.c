// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * pmuvirt.ko security policy: who may count what, whose signal a thread
 * gets, who may map every VCPU's record.  (How many PMIs a CPU takes,
 * max_pmi_rate, is the PMI's own business: pmuvirt_pmi.c.)
 *
 * The rules follow perf's:
 *  - perf_event_paranoid (the kernel's sysctl, read through a file opened
 *    at load time: Debian's 6.1 does not export sysctl_perf_event_paranoid,
 *    and a path looked up at attach would be the caller's mount namespace)
 *    and perfmon_capable() decide kernel-mode counting, raw event codes
 *    and PMC use;
 *  - the overflow signal is sent only while the attacher's credentials
 *    (taken at attach, like F_SETOWN's) could signal the task with kill(2);
 *  - i-mode periods have a floor (min_period);
 *  - an administrator's event policy (user_event_policy, the text form of
 *    src/abi/pmuvirt_policy_text.h) restricts the events of callers without
 *    perfmon_capable(), as perf's sysctls bind unprivileged users only.
 */
#define pr_fmt(fmt) "pmuvirt: " fmt

#include "pmuvirt_lx.h"
#include "pmuvirt_policy_text.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/user_namespace.h>
#include <linux/sched.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"
#define PARANOID_MAX	INT_MAX	/* the level when the sysctl cannot be read */

static unsigned long long min_period = 10000;
module_param(min_period, ullong, 0644);
MODULE_PARM_DESC(min_period, "smallest i-mode period accepted at attach, in events (default 10000)");

PMUVIRT_LX_COUNTER(signals_refused, "overflow signals not sent because the attacher may not signal the task");

static struct file *paranoid_file;

/* perf_event_paranoid as the kernel holds it; PARANOID_MAX if unreadable. */
static int read_paranoid(void)
{
	char buf[16];
	loff_t pos = 0;
	ssize_t n;
	int v;

	if (!paranoid_file)
		return PARANOID_MAX;
	n = kernel_read(paranoid_file, buf, sizeof(buf) - 1, &pos);
	if (n <= 0)
		return PARANOID_MAX;
	buf[n] = '\0';
	if (kstrtoint(strim(buf), 10, &v))
		return PARANOID_MAX;
	return v;
}

/**
 * pmuvirt_lx_policy_attach() - may the calling thread attach this control?
 * @ctl:	a control pmuvirt_validate() accepted.
 * @signo:	the overflow signal asked for (0: SIGIO).
 *
 * Without perfmon_capable() (CAP_PERFMON or CAP_SYS_ADMIN): at
 * perf_event_paranoid >= 3 only the TSC may be counted; at 2 hardware
 * counters count user mode only and raw event codes are refused; at 1 or
 * less everything is allowed.  For everyone: a nonzero i-mode period below
 * min_period, and SIGKILL or SIGSTOP as the overflow signal, are refused.
 *
 * Return: 0; -EACCES, -ERANGE or -EINVAL with the reason in the kernel log.
 */
int pmuvirt_lx_policy_attach(const struct pmuvirt_control *ctl, u32 signo)
{
	unsigned long long floor = READ_ONCE(min_period);
	bool pmc = false, kernel = false, raw = false;
	const char *why = NULL;
	unsigned int i;
	int level;

	if (signo == SIGKILL || signo == SIGSTOP) {
		pr_notice_ratelimited("%s[%d]: attach: signal %u cannot be the overflow signal (it cannot be caught)\n",
				      current->comm, task_pid_nr(current), signo);
		return -EINVAL;
	}
	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_counter_ctl *c = &ctl->counter[i];

		if (c->period && c->period < floor) {
			pr_notice_ratelimited("%s[%d]: attach: counter %u: period %llu below min_period %llu\n",
					      current->comm, task_pid_nr(current), i,
					      (unsigned long long)c->period, floor);
			return -ERANGE;
		}
		if (!(c->flags & PMUVIRT_CTR_RAW) && c->event == PMUVIRT_EV_TSC)
			continue;
		pmc = true;
		kernel |= !!(c->flags & PMUVIRT_CTR_KERNEL);
		raw |= !!(c->flags & PMUVIRT_CTR_RAW);
	}
	if (!pmc)
		return 0;	/* the TSC: what rdtsc gives anyway */
	level = read_paranoid();
	if (level >= 3)
		why = "hardware counters";
	else if (level >= 2 && kernel)
		why = "kernel-mode counting";
	else if (level >= 2 && raw)
		why = "raw event codes";
	if (!why || perfmon_capable())
		return 0;
	if (level == PARANOID_MAX)
		pr_notice_ratelimited("%s[%d]: attach: %s need CAP_PERFMON (perf_event_paranoid unreadable)\n",
				      current->comm, task_pid_nr(current), why);
	else
		pr_notice_ratelimited("%s[%d]: attach: %s need CAP_PERFMON at perf_event_paranoid %d\n",
				      current->comm, task_pid_nr(current), why, level);
	return -EACCES;
}

/* ---- the administrator's event policy for unprivileged callers ---- */

/**
 * struct lx_evpolicy - one value of user_event_policy
 * @rcu:	freed after the readers that may see it.
 * @pol:	a policy pmuvirt_policy_parse() produced.
 */
struct lx_evpolicy {
	struct rcu_head rcu;
	struct pmuvirt_policy pol;
};

/* NULL: no policy.  Replaced under evpolicy_lock, read under RCU. */
static struct lx_evpolicy __rcu *user_evpolicy;
static DEFINE_MUTEX(evpolicy_lock);

static int evpolicy_set(const char *val, const struct kernel_param *kp)
{
	struct lx_evpolicy *np = NULL, *old;
	struct pmuvirt_policy pol;
	bool set;
	int ret;

	ret = pmuvirt_policy_parse(val, strlen(val), &pol, &set);
	if (ret) {
		pr_notice_ratelimited("user_event_policy: cannot parse \"%.64s\": the policy is unchanged\n",
				      val);
		return ret;
	}
	if (set) {
		np = kmalloc(sizeof(*np), GFP_KERNEL);
		if (!np)
			return -ENOMEM;
		np->pol = pol;
	}
	mutex_lock(&evpolicy_lock);
	old = rcu_replace_pointer(user_evpolicy, np, lockdep_is_held(&evpolicy_lock));
	mutex_unlock(&evpolicy_lock);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

static int evpolicy_get(char *buf, const struct kernel_param *kp)
{
	const struct lx_evpolicy *p;
	int n = 0;

	BUILD_BUG_ON(PMUVIRT_POLICY_TEXT_MAX + 1 > PAGE_SIZE);
	rcu_read_lock();
	p = rcu_dereference(user_evpolicy);
	if (p)
		n = pmuvirt_policy_format(&p->pol, buf, PMUVIRT_POLICY_TEXT_MAX);
	rcu_read_unlock();
	if (n < 0)
		return n;
	buf[n++] = '\n';
	return n;
}

/*
 * The kernel calls this when the module's parameters go (after its exit,
 * or when loading fails), when no write can come any more.
 */
static void evpolicy_free(void *arg)
{
	kfree(rcu_replace_pointer(user_evpolicy, NULL, true));
}

static const struct kernel_param_ops evpolicy_ops = {
	.set = evpolicy_set,
	.get = evpolicy_get,
	.free = evpolicy_free,
};
module_param_cb(user_event_policy, &evpolicy_ops, NULL, 0644);
MODULE_PARM_DESC(user_event_policy, "events callers without CAP_PERFMON may count: \"allow|deny ITEM,...\" (ITEM: instructions cycles branches branch-misses tsc rCODE[/MASK] !rCODE[/MASK]); empty: no policy");

/**
 * pmuvirt_lx_policy_exempt() - is the calling thread free of the event policy?
 *
 * Return: perfmon_capable() (CAP_PERFMON or CAP_SYS_ADMIN).  The decision
 * is taken at attach and goes with the context to every task that
 * inherits it, as the attacher's signal credentials do.
 */
bool pmuvirt_lx_policy_exempt(void)
{
	return perfmon_capable();
}

/**
 * pmuvirt_lx_validate() - pmuvirt_validate_policy() under user_event_policy
 * @ctl:	the control (a copy).
 * @slots:	receives the counter assignment, as pmuvirt_validate()'s.
 * @exempt:	the attacher is privileged (pmuvirt_lx_policy_exempt() at
 *		attach): no policy applies.
 * @err:	which counter and why, on failure.
 *
 * Any context; takes only the RCU read lock.
 *
 * Return: as pmuvirt_validate_policy(): -EPERM for an event the policy
 * does not permit.
 */
int pmuvirt_lx_validate(const struct pmuvirt_control *ctl, u8 *slots, bool exempt,
			struct pmuvirt_error *err)
{
	const struct lx_evpolicy *p;
	int ret;

	rcu_read_lock();
	p = exempt ? NULL : rcu_dereference(user_evpolicy);
	ret = pmuvirt_validate_policy(&pmuvirt_lx_pmu, ctl, PMUVIRT_MAX_COUNTERS, NULL, slots,
				      p ? &p->pol : NULL, err);
	rcu_read_unlock();
	return ret;
}

/**
 * pmuvirt_lx_may_map_vcpus() - may the caller map every VCPU's record?
 *
 * The records hold what every thread of the domain counted on each VCPU,
 * as a system-wide (per-CPU) perf event does: the same rule as perf's
 * CPU-wide counting, perf_event_paranoid <= 0 or perfmon_capable().
 *
 * Return: true when allowed.
 */
bool pmuvirt_lx_may_map_vcpus(void)
{
	return read_paranoid() <= 0 || perfmon_capable();
}

/**
 * pmuvirt_lx_signal_cred() - take the attacher's credentials for signalling
 * @sc:		filled in.
 *
 * Like F_SETOWN: the credentials of the thread that attaches decide, later,
 * whether a task that carries its context (itself, or a task that inherited
 * it) may still be sent its overflow signal.  CAP_KILL is checked here, in
 * the attacher's user namespace.
 */
void pmuvirt_lx_signal_cred(struct pmuvirt_lx_sigcred *sc)
{
	sc->cred = get_current_cred();
	sc->cap_kill = ns_capable_noaudit(current_user_ns(), CAP_KILL);
}

/**
 * pmuvirt_lx_signal_cred_copy() - a new task's copy (inheritance)
 * @dst:	filled in.
 * @src:	the parent thread's.
 */
void pmuvirt_lx_signal_cred_copy(struct pmuvirt_lx_sigcred *dst,
				 const struct pmuvirt_lx_sigcred *src)
{
	dst->cred = get_cred(src->cred);
	dst->cap_kill = src->cap_kill;
}

/**
 * pmuvirt_lx_signal_cred_put() - drop what pmuvirt_lx_signal_cred() took
 * @sc:		the credentials (NULL ones are skipped).
 */
void pmuvirt_lx_signal_cred_put(struct pmuvirt_lx_sigcred *sc)
{
	if (sc->cred)
		put_cred(sc->cred);
	sc->cred = NULL;
}

/* Is @ns @anc or below it? */
static bool ns_within(const struct user_namespace *ns, const struct user_namespace *anc)
{
	for (; ns; ns = ns->parent)
		if (ns == anc)
			return true;
	return false;
}

/**
 * pmuvirt_lx_may_signal() - may the attacher signal the current task?
 * @sc:		the attacher's credentials.
 *
 * kill(2)'s rule applied to the attacher's credentials: its real or
 * effective uid is the task's real or saved uid, or it had CAP_KILL in a
 * user namespace that holds the task's.  Runs in any context; reads only
 * the current task's credentials.
 *
 * Return: true when the signal may be sent.
 */
bool pmuvirt_lx_may_signal(const struct pmuvirt_lx_sigcred *sc)
{
	const struct cred *a = sc->cred, *t = current_cred();

	if (!a)
		return false;
	if (uid_eq(a->euid, t->suid) || uid_eq(a->euid, t->uid) ||
	    uid_eq(a->uid, t->suid) || uid_eq(a->uid, t->uid))
		return true;
	return sc->cap_kill && ns_within(t->user_ns, a->user_ns);
}

/**
 * pmuvirt_lx_signal_refused() - count and log a refused overflow signal
 * @signo:	the signal.
 *
 * Called from irq_work (hard interrupt context): printk is safe there.
 */
void pmuvirt_lx_signal_refused(int signo)
{
	atomic_long_inc(&nr_signals_refused);
	pr_notice_ratelimited("%s[%d]: overflow signal %d not sent: its attacher may not signal this task any more (credentials changed)\n",
			      current->comm, task_pid_nr(current), signo);
}

/**
 * pmuvirt_lx_policy_init() - open perf_event_paranoid
 *
 * The sysctl file is opened once, here, in the namespaces of the loader:
 * nobody can later put another file at that path for the module.  When it
 * cannot be opened, every check takes the most restrictive level.
 */
void pmuvirt_lx_policy_init(void)
{
	struct file *f = filp_open(PARANOID_PATH, O_RDONLY, 0);

	if (IS_ERR(f)) {
		pr_warn("cannot open %s (%ld): hardware counters need CAP_PERFMON\n",
			PARANOID_PATH, PTR_ERR(f));
		f = NULL;
	}
	paranoid_file = f;
}

/**
 * pmuvirt_lx_policy_exit() - undo pmuvirt_lx_policy_init()
 */
void pmuvirt_lx_policy_exit(void)
{
	if (paranoid_file)
		fput(paranoid_file);
	paranoid_file = NULL;
}
