// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* vmtest: who may count what, signal whom, and malformed requests. */
#include "vmtest.h"

/* ---- policy: perf_event_paranoid, CAP_PERFMON, min_period, signals ---- */

static int try_attach(int fd, uint64_t event, uint32_t flags, uint64_t period, uint32_t signo)
{
	struct pmuvirt_attach a;
	struct pmuvirt_counts c;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.version = PMUVIRT_LINUX_VERSION;
	a.signo = signo;
	a.control.version = PMUVIRT_ABI_VERSION;
	a.control.nr_counters = 1;
	a.control.counter[0].event = event;
	a.control.counter[0].flags = flags;
	a.control.counter[0].period = period;
	if (ioctl(fd, PMUVIRT_IOC_ATTACH, &a))
		return errno;
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	return ioctl(fd, PMUVIRT_IOC_DETACH, &c) ? 1000 + errno : 0;
}

static void policy_case(int level, int unpriv)
{
	uint64_t floor = (uint64_t)read_param("min_period");
	int status;
	pid_t pid = fork();

	if (!pid) {
		int deny_all = unpriv && level >= 3, deny_kernel = unpriv && level >= 2;
		int fd, e;

		if (unpriv)
			drop_to_user();
		/* an i-mode attach that should have been refused must not end the check */
		signal(SIGIO, SIG_IGN);
		signal(SIGUSR1, SIG_IGN);
		fd = pmuvirt_user_open(1);
#define EXPECT(expr, want) do {							\
		e = (expr);							\
		printf("vm: policy (paranoid %d, %s): %s: %s\n", level,		\
		       unpriv ? "uid 1000" : "root", #expr, e ? strerror(e) : "accepted"); \
		CHECK(e == (want), "paranoid %d: %s: got %d want %d", level, #expr, e, want); \
	} while (0)
		EXPECT(try_attach(fd, PMUVIRT_EV_TSC, 0, 0, 0), 0);
		EXPECT(try_attach(fd, PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_CTR_USER, 0, 0),
		       deny_all ? EACCES : 0);
		EXPECT(try_attach(fd, PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL,
				  0, 0), deny_kernel ? EACCES : 0);
		EXPECT(try_attach(fd, 0x00c0, PMUVIRT_CTR_USER | PMUVIRT_CTR_RAW, 0, 0),
		       deny_kernel ? EACCES : 0);
		EXPECT(try_attach(fd, PMUVIRT_EV_CYCLES, PMUVIRT_CTR_USER, floor - 1, 0), ERANGE);
		EXPECT(try_attach(fd, PMUVIRT_EV_CYCLES, PMUVIRT_CTR_USER, 1, 0), ERANGE);
		EXPECT(try_attach(fd, PMUVIRT_EV_CYCLES, PMUVIRT_CTR_USER, floor, SIGUSR1),
		       deny_all ? EACCES : 0);
		EXPECT(try_attach(fd, PMUVIRT_EV_TSC, 0, 0, SIGKILL), EINVAL);
		EXPECT(try_attach(fd, PMUVIRT_EV_TSC, 0, 0, SIGSTOP), EINVAL);
#undef EXPECT
		close(fd);
		_exit(failed);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "paranoid %d (%s): status %#x",
	      level, unpriv ? "uid 1000" : "root", status);
}

void t_policy(void)
{
	int old = set_paranoid(3), level;

	printf("vm: policy: perf_event_paranoid was %d, min_period %lld\n", old,
	       read_param("min_period"));
	for (level = 3; level >= 1; level--) {
		set_paranoid(level);
		policy_case(level, 1);
	}
	set_paranoid(3);
	policy_case(3, 0);
	set_paranoid(old);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- evpolicy: user_event_policy binds callers without CAP_PERFMON ---- */

#define EVPOLICY	"/sys/module/pmuvirt/parameters/user_event_policy"

/* Write @text to user_event_policy: 0 or the write's errno. */
static int evpolicy_write(const char *text)
{
	int fd = open(EVPOLICY, O_WRONLY), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		e = errno;
	close(fd);
	return e;
}

/* What user_event_policy shows, without its newline. */
static void evpolicy_read(char *buf, size_t size)
{
	int fd = open(EVPOLICY, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n < 1 || buf[n - 1] != '\n') {
		snprintf(buf, size, "<unreadable>");
		return;
	}
	buf[n - 1] = '\0';
}

static void evpolicy_expect(const char *want)
{
	char got[2048];

	evpolicy_read(got, sizeof(got));
	printf("vm: evpolicy: user_event_policy reads \"%s\"\n", got);
	CHECK(!strcmp(got, want), "user_event_policy reads \"%s\", want \"%s\"", got, want);
}

static void evpolicy_set(const char *text, const char *canon)
{
	int e = evpolicy_write(text);

	CHECK(!e, "writing \"%s\": %s", text, strerror(e));
	evpolicy_expect(canon);
}

/* One counter to attach and the errno uid 1000 must get for it (root: 0). */
struct evcase {
	uint64_t event;
	uint32_t flags;
	int unpriv;		/* errno for uid 1000 */
	const char *what;
};

static int attach_ctl(int fd, const struct pmuvirt_control *ctl, uint32_t flags)
{
	struct pmuvirt_attach a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.version = PMUVIRT_LINUX_VERSION;
	a.flags = flags;
	a.control = *ctl;
	return ioctl(fd, PMUVIRT_IOC_ATTACH, &a) ? errno : 0;
}

static int counts_ioctl(int fd, unsigned long req)
{
	struct pmuvirt_counts c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	return ioctl(fd, req, &c) ? errno : 0;
}

/*
 * In a child (uid 1000 without capabilities, or root): each case attached
 * alone must get its errno (0 for root), and the two-counter control
 * instructions + @cases[0] the same.
 */
static void evpolicy_cases(const char *policy, int unpriv, const struct evcase *cases, int n)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		struct pmuvirt_control ctl;
		int fd, i, e, want;

		failed = 0;	/* this child's own checks */
		if (unpriv)
			drop_to_user();
		fd = pmuvirt_user_open(1);
		for (i = 0; i <= n; i++) {
			const struct evcase *c = &cases[i < n ? i : 0];

			memset(&ctl, 0, sizeof(ctl));
			ctl.version = PMUVIRT_ABI_VERSION;
			ctl.nr_counters = i < n ? 1 : 2;
			if (i == n) {
				ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
				ctl.counter[0].flags = PMUVIRT_CTR_USER;
			}
			ctl.counter[ctl.nr_counters - 1].event = c->event;
			ctl.counter[ctl.nr_counters - 1].flags = c->flags;
			want = unpriv ? c->unpriv : 0;
			e = attach_ctl(fd, &ctl, 0);
			if (!e)
				e = counts_ioctl(fd, PMUVIRT_IOC_DETACH) ? 1000 : 0;
			printf("vm: evpolicy (%s, %s): %s%s: %s\n", policy,
			       unpriv ? "uid 1000" : "root", i < n ? "" : "instructions + ",
			       c->what, e ? strerror(e) : "accepted");
			CHECK(e == want, "%s, %s: %s%s: got %d want %d", policy,
			      unpriv ? "uid 1000" : "root", i < n ? "" : "instructions + ", c->what,
			      e, want);
		}
		close(fd);
		_exit(failed);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (%s): status %#x", policy,
	      unpriv ? "uid 1000" : "root", status);
}

/*
 * A process (uid 1000, or root) attaches instructions with INHERIT while
 * instructions are allowed, forks a child that must have a context, then
 * waits while root denies instructions, then forks again: that child must
 * have a context only when the attacher was root.  Returns how many new
 * tasks the module refused (inherit_refused).
 */
static long long evpolicy_inherit(int unpriv)
{
	long long refused = read_param("inherit_refused");
	int up[2], down[2], status;
	char c = 0;
	pid_t pid;

	evpolicy_set("allow instructions", "allow instructions");
	if (pipe(up) || pipe(down)) {
		CHECK(0, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (!pid) {
		struct pmuvirt_control ctl;
		int fd, e, i;

		failed = 0;
		if (unpriv)
			drop_to_user();
		fd = pmuvirt_user_open(0);
		memset(&ctl, 0, sizeof(ctl));
		ctl.version = PMUVIRT_ABI_VERSION;
		ctl.nr_counters = 1;
		ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
		ctl.counter[0].flags = PMUVIRT_CTR_USER;
		e = attach_ctl(fd, &ctl, PMUVIRT_ATTACH_INHERIT);
		CHECK(!e, "inherit attach (%s): %s", unpriv ? "uid 1000" : "root", strerror(e));
		for (i = 0; i < 2; i++) {
			pid_t child;
			int st, want = i && unpriv ? ESRCH : 0;

			if (i) {	/* root changes the policy meanwhile */
				CHECK(write(up[1], "a", 1) == 1 && read(down[0], &c, 1) == 1,
				      "pipe");
			}
			child = fork();
			if (!child)
				_exit(counts_ioctl(fd, PMUVIRT_IOC_READ));
			waitpid(child, &st, 0);
			printf("vm: evpolicy: inherit (%s attached, %s): the new task's read: %s\n",
			       unpriv ? "uid 1000" : "root",
			       i ? "then deny instructions" : "allow instructions",
			       WIFEXITED(st) && !WEXITSTATUS(st) ? "its own context" :
			       WIFEXITED(st) ? strerror(WEXITSTATUS(st)) : "killed");
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == want,
			      "inherit (%s attached) fork %d: status %#x, want exit %d",
			      unpriv ? "uid 1000" : "root", i, st, want);
		}
		e = counts_ioctl(fd, PMUVIRT_IOC_DETACH);
		CHECK(!e, "the attacher kept its context: %s", strerror(e));
		close(fd);
		_exit(failed);
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &c, 1) == 1)
		evpolicy_set("deny instructions", "deny instructions");
	CHECK(write(down[1], "b", 1) == 1, "pipe");
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "inherit (%s attached): status %#x",
	      unpriv ? "uid 1000" : "root", status);
	close(up[0]);
	close(down[1]);
	return read_param("inherit_refused") - refused;
}

void t_evpolicy(void)
{
	static const struct evcase deny_cases[] = {
		{ PMUVIRT_EV_CYCLES, PMUVIRT_CTR_USER, EPERM, "cycles" },
		{ PMUVIRT_EV_TSC, 0, 0, "tsc" },
		{ PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_CTR_USER, 0, "instructions" },
		{ 0x00c0, PMUVIRT_CTR_USER | PMUVIRT_CTR_RAW, 0, "r00c0" },
		{ 0x003c, PMUVIRT_CTR_USER | PMUVIRT_CTR_RAW, EPERM, "r003c" },
		{ 0x023c, PMUVIRT_CTR_USER | PMUVIRT_CTR_RAW, EPERM, "r023c (by the mask)" },
		{ 0x013c, PMUVIRT_CTR_USER | PMUVIRT_CTR_RAW, 0, "r013c (excluded)" },
	};
	static const struct evcase allow_cases[] = {
		{ 0x003c, PMUVIRT_CTR_USER | PMUVIRT_CTR_RAW, EPERM, "r003c" },
		{ PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_CTR_USER, 0, "instructions" },
		{ PMUVIRT_EV_TSC, 0, 0, "tsc" },
		{ PMUVIRT_EV_CYCLES, PMUVIRT_CTR_USER, EPERM, "cycles" },
		{ 0x01c0, PMUVIRT_CTR_USER | PMUVIRT_CTR_RAW, 0, "r01c0 (by the mask)" },
		{ 0x00c4, PMUVIRT_CTR_USER | PMUVIRT_CTR_RAW, EPERM, "r00c4" },
	};
	static const struct evcase open_cases[] = {
		{ PMUVIRT_EV_CYCLES, PMUVIRT_CTR_USER, 0, "cycles" },
		{ 0x003c, PMUVIRT_CTR_USER | PMUVIRT_CTR_RAW, 0, "r003c" },
	};
	static const char *const bad[] = {
		"allow bogus\n", "permit cycles\n", "allow r00zz\n", "allow r1/0\n",
		"deny cycles,\n", "deny cycles instructions\n", "allow r10000000000000000\n",
		NULL,	/* 33 raw entries */
	};
	const char *deny = "deny cycles,r3c/ff,!r13c";
	char many[512];
	long long refused;
	int old = set_paranoid(1), e, i, n;

	printf("vm: evpolicy: perf_event_paranoid was %d, now 1\n", old);
	evpolicy_expect("");
	evpolicy_set("  deny cycles,r003c/00ff,!r013c\n", deny);
	evpolicy_cases(deny, 1, deny_cases, sizeof(deny_cases) / sizeof(deny_cases[0]));
	evpolicy_cases(deny, 0, deny_cases, sizeof(deny_cases) / sizeof(deny_cases[0]));

	/* refused writes keep the policy */
	n = snprintf(many, sizeof(many), "deny ");
	for (i = 0; i < 33; i++)
		n += snprintf(many + n, sizeof(many) - n, "%sr%x", i ? "," : "", i);
	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		const char *text = bad[i] ? bad[i] : many;

		e = evpolicy_write(text);
		n = (int)strcspn(text, "\n");
		printf("vm: evpolicy: writing \"%.*s%s\": %s\n", n > 40 ? 40 : n, text,
		       n > 40 ? "..." : "", e ? strerror(e) : "accepted");
		CHECK(e == EINVAL, "writing \"%.*s\": got %d want EINVAL", n, text, e);
		evpolicy_expect(deny);
	}
	evpolicy_cases(deny, 1, deny_cases, 1);

	evpolicy_set("allow instructions,tsc,r00c0/00ff", "allow instructions,tsc,rc0/ff");
	evpolicy_cases("allow instructions,tsc,rc0/ff", 1, allow_cases,
		       sizeof(allow_cases) / sizeof(allow_cases[0]));
	evpolicy_cases("allow instructions,tsc,rc0/ff", 0, allow_cases,
		       sizeof(allow_cases) / sizeof(allow_cases[0]));

	/* inheritance: the attacher's exemption, the policy at the fork */
	refused = evpolicy_inherit(1);
	CHECK(refused == 1, "inherit_refused grew by %lld, want 1", refused);
	refused = evpolicy_inherit(0);
	CHECK(refused == 0, "inherit_refused grew by %lld for root's task, want 0", refused);

	evpolicy_set("\n", "");
	evpolicy_cases("no policy", 1, open_cases, sizeof(open_cases) / sizeof(open_cases[0]));
	set_paranoid(old);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- suid: exec of a setuid program ends counting, signal and report ---- */

#define SUID_WORK	20000000ull	/* suidprobe's own instructions */

static void ignore_sig(int sig)
{
	(void)sig;
}

/* One i-mode cycles counter (user mode) every IMODE_PERIOD. */
static void cycles_imode_control(struct pmuvirt_control *ctl)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = 1;
	ctl->counter[0].event = PMUVIRT_EV_CYCLES;
	ctl->counter[0].flags = PMUVIRT_CTR_USER;
	ctl->counter[0].period = IMODE_PERIOD;
}

static int suid_attacher(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_report rep;
	struct pmuvirt_user u;
	int fd, status, seen = 0;
	pid_t pid;
	ssize_t got;

	drop_to_user();
	signal(SIGUSR1, ignore_sig);	/* the exec'd program gets SIGUSR1's default: death */
	cycles_imode_control(&ctl);
	fd = pmuvirt_user_open(1);
	if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, PMUVIRT_ATTACH_REPORT |
					  PMUVIRT_ATTACH_INHERIT, SIGUSR1)) {
		printf("vm: suid: attach: %s\n", strerror(errno));
		return 50;
	}
	pid = fork();
	if (!pid) {
		execl("/suidprobe", "suidprobe", (char *)NULL);
		_exit(99);
	}
	waitpid(pid, &status, 0);
	printf("vm: suid: setuid program %s %d\n", WIFEXITED(status) ? "exited with" :
	       "was killed by signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the setuid program was counted or signalled (status %#x)", status);
	CHECK(!pmuvirt_user_detach(&u, NULL), "detach: %s", strerror(errno));
	while ((got = read(fd, &rep, sizeof(rep))) == (ssize_t)sizeof(rep)) {
		printf("vm: suid: report tid %u how %u: cycles %llu\n", rep.tid, rep.how,
		       (unsigned long long)rep.value[0]);
		if (rep.tid != (uint32_t)pid)
			continue;
		seen++;
		/* counts up to the exec: none of the setuid program's own work */
		CHECK(rep.how == PMUVIRT_REPORT_EXEC && rep.value[0] < SUID_WORK / 2,
		      "report of the setuid program: how %u, %llu", rep.how,
		      (unsigned long long)rep.value[0]);
	}
	CHECK(got == 0 && seen == 1, "%d reports of the exec'd task, then read gave %zd", seen, got);
	close(fd);
	return failed;
}

/* @child() in a child process while perf_event_paranoid is @level; it must exit 0. */
static void child_at_paranoid(int level, int (*child)(void), const char *what)
{
	int old = set_paranoid(level), status;
	pid_t pid = fork();

	if (!pid)
		_exit(child());
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s status %#x", what, status);
	set_paranoid(old);
}

void t_suid(void)
{
	child_at_paranoid(2, suid_attacher, "attacher");
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- sigperm: no overflow signal once the attacher may not signal the task ---- */

static volatile sig_atomic_t sigperm_signals;

static void sigperm_handler(int sig)
{
	(void)sig;
	sigperm_signals++;
}

static int sigperm_child(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t counts[1] = { 0 };
	uint32_t mask = 0;

	/* attach as uid 1000 (saved uid 0 kept), then become root again */
	if (setresuid(1000, 1000, 0))
		return 60;
	signal(SIGUSR1, sigperm_handler);
	cycles_imode_control(&ctl);
	if (pmuvirt_user_attach(&u, pmuvirt_user_open(1), &ctl, 0, SIGUSR1)) {
		printf("vm: sigperm: attach: %s\n", strerror(errno));
		return 61;
	}
	if (setresuid(0, 0, 0))
		return 62;
	spin(LOOPS / 2);
	usleep(10000);
	CHECK(!pmuvirt_user_resume(&u, counts, &mask), "resume: %s", strerror(errno));
	printf("vm: sigperm: %d signals, %llu notifications taken by RESUME\n", (int)sigperm_signals,
	       (unsigned long long)counts[0]);
	CHECK(sigperm_signals == 0, "the overflow signal reached a task its attacher may not signal");
	CHECK(counts[0] >= LOOPS / IMODE_PERIOD - 1, "notifications lost: %llu",
	      (unsigned long long)counts[0]);
	CHECK(!pmuvirt_user_detach(&u, NULL), "detach: %s", strerror(errno));
	return failed;
}

void t_sigperm(void)
{
	long long refused = read_param("signals_refused");

	child_at_paranoid(2, sigperm_child, "child");
	refused = read_param("signals_refused") - refused;
	printf("vm: sigperm: signals refused %lld\n", refused);
	CHECK(refused >= 1, "no refused signal counted");
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- malformed requests: errors, and nothing left running ---- */

static int raw_attach(int fd, struct pmuvirt_attach *a)
{
	return ioctl(fd, PMUVIRT_IOC_ATTACH, a) ? errno : 0;
}

static const unsigned long counts_req[3] = {
	PMUVIRT_IOC_READ, PMUVIRT_IOC_DETACH, PMUVIRT_IOC_RESUME,
};
static const char *const counts_name[3] = { "read", "detach", "resume" };

void t_malformed(void)
{
	struct pmuvirt_attach good, a;
	struct pmuvirt_counts c;
	struct pmuvirt_user u;
	unsigned int i;
	void *p;
	int fd = pmuvirt_user_open(1), e;

	memset(&good, 0, sizeof(good));
	good.size = sizeof(good);
	good.version = PMUVIRT_LINUX_VERSION;
	/* a TSC counter: no flags and no period are valid on it */
	work_control(&good.control);
	good.control.counter[0].event = PMUVIRT_EV_TSC;
	good.control.counter[0].flags = 0;

#define BAD(field_change, want) do {						\
		a = good;							\
		field_change;							\
		e = raw_attach(fd, &a);						\
		printf("vm: malformed attach (%s): %s\n", #field_change, strerror(e)); \
		CHECK(e == (want), "%s: got %d want %d", #field_change, e, want); \
	} while (0)

	BAD(a.size = sizeof(a) - 8, EINVAL);
	BAD(a.size = 0, EINVAL);
	BAD(a.version = 99, EINVAL);
	BAD(a.flags = 0x80, EINVAL);
	BAD(a.sample_format = PMUVIRT_SAMPLE_FMT_ALL + 1, EINVAL);
	BAD(a.sample_format = PMUVIRT_SAMPLE_FMT_IP, EINVAL);	/* no ring */
	BAD(a.chain_depth = 1, EINVAL);
	BAD(a.chain_depth = PMUVIRT_CHAIN_MAX + 1, EINVAL);
	BAD(a.caps = 1, EINVAL);
	BAD(a.signo = 999, EINVAL);
	BAD(a.control.version = 7, EINVAL);
	BAD(a.control.flags = 1, EINVAL);
	BAD(a.control.nr_counters = PMUVIRT_MAX_COUNTERS + 1, ENOSPC);
	BAD(a.control.counter[0].event = 99, EINVAL);
	BAD(a.control.counter[0].reserved = 1, EINVAL);
	BAD(a.control.counter[0].flags = 0x100, EINVAL);
	BAD(a.control.counter[0].flags = PMUVIRT_CTR_USER, EINVAL);
	BAD(a.control.counter[0].period = 1000, EINVAL);
#ifndef __powerpc64__
	BAD(a.control.counter[0].event = PMUVIRT_EV_BRANCHES;
	    a.control.counter[0].flags = PMUVIRT_CTR_USER, ENODEV);
#endif
	e = ioctl(fd, PMUVIRT_IOC_ATTACH, (void *)16) ? errno : 0;
	CHECK(e == EFAULT, "bad pointer: %d", e);
	e = ioctl(fd, _IOWR(PMUVIRT_IOC_MAGIC, 99, struct pmuvirt_counts), &c) ? errno : 0;
	CHECK(e == ENOTTY, "unknown ioctl: %d", e);

	for (i = 0; i < 3; i++) {
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.version = PMUVIRT_LINUX_VERSION;
		e = ioctl(fd, counts_req[i], &c) ? errno : 0;
		CHECK(e == ESRCH, "%s without context: %d", counts_name[i], e);
		e = ioctl(fd, counts_req[i], (void *)16) ? errno : 0;
		CHECK(e == EFAULT, "%s without context, bad pointer: %d", counts_name[i], e);
	}
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p == MAP_FAILED && errno == ESRCH, "mmap without context");
	{
		/* natively there are no VCPU records below the threads */
		struct pmuvirt_below b = { .size = sizeof(b), .version = PMUVIRT_LINUX_VERSION };

		e = ioctl(fd, PMUVIRT_IOC_BELOW, &b) ? errno : 0;
		CHECK(e == ENODEV, "below on hardware: %d", e);
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096);
		CHECK(p == MAP_FAILED && errno == EINVAL, "mmap at page offset 1 on hardware");
	}
	CHECK(attached_count() == 0, "a malformed request left a context: %d", attached_count());

	CHECK(!pmuvirt_user_attach(&u, fd, &good.control, 0, 0), "good attach: %s",
	      strerror(errno));
	e = raw_attach(fd, &good);
	CHECK(e == EBUSY, "second attach: %d", e);
	/* every counts request refuses these before it touches the context */
	for (i = 0; i < 3; i++) {
		static const struct { uint32_t size, version, reserved; } bad[] = {
			{ 8, PMUVIRT_LINUX_VERSION, 0 },
			{ sizeof(c) + 8, PMUVIRT_LINUX_VERSION, 0 },
			{ sizeof(c), 0, 0 },
			{ sizeof(c), PMUVIRT_LINUX_VERSION, 1 },
		};
		unsigned int k;

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			memset(&c, 0, sizeof(c));
			c.size = bad[k].size;
			c.version = bad[k].version;
			c.reserved = bad[k].reserved;
			e = ioctl(fd, counts_req[i], &c) ? errno : 0;
			CHECK(e == EINVAL, "%s with size %u version %u reserved %u: %d",
			      counts_name[i], bad[k].size, bad[k].version, bad[k].reserved, e);
		}
		e = ioctl(fd, counts_req[i], (void *)16) ? errno : 0;
		CHECK(e == EFAULT, "%s, bad pointer: %d", counts_name[i], e);
	}
	CHECK(attached_count() == 1, "a refused request changed the context count: %d",
	      attached_count());
	memset(&c, 0, sizeof(c));
	c.version = PMUVIRT_LINUX_VERSION;
	c.size = 8;
	e = ioctl(fd, PMUVIRT_IOC_READ, &c) ? errno : 0;
	CHECK(e == EINVAL, "read with bad size: %d", e);
	c.size = sizeof(c);
	c.version = 0;
	e = ioctl(fd, PMUVIRT_IOC_READ, &c) ? errno : 0;
	CHECK(e == EINVAL, "read with bad version: %d", e);
	c.version = PMUVIRT_LINUX_VERSION;
	c.reserved = 5;
	e = ioctl(fd, PMUVIRT_IOC_READ, &c) ? errno : 0;
	CHECK(e == EINVAL, "read with reserved set: %d", e);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p == MAP_FAILED, "writable mapping granted");
	p = mmap(NULL, 2 * (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p == MAP_FAILED, "two-page mapping granted");
	if (u.rec)
		CHECK(mprotect((void *)u.rec, 4096, PROT_READ | PROT_WRITE) != 0,
		      "mapping made writable");
	CHECK(!pmuvirt_user_detach(&u, NULL), "detach: %s", strerror(errno));
	CHECK(attached_count() == 0, "contexts left: %d", attached_count());
	close(fd);
}
