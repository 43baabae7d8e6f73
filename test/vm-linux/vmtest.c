// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Checks of pmuvirt.ko run inside a guest booted with -icount shift=0,
 * where one instruction is one TSC tick: a loop of n iterations of
 * "dec; jnz" is 2n ticks of the thread's own time.
 *
 * usage: vmtest probe|accuracy|migrate|fork|inherit|sum|imode [BOUND|shared]|pmistorm|hotplug|isolation|
 *               throttle|exec|malformed|policy|evpolicy|suid|sigperm|hold|reap|
 *               perfopen ok|busy|perfhold|exact (POWER)|callchain (POWER)|sample|profile ROUNDS|
 *               spin N|threads K N [schedstat]
 * With "schedstat" (two CPUs at host speed, no -icount) no count has a
 * known truth: the host may stop QEMU anywhere, for milliseconds, also
 * between the kernel's run-time accounting and the switch hook, so a
 * thread's run time (schedstat) and its virtual TSC can differ by any
 * amount under load.  That guest checks only what holds under any load
 * (see smp_checks() in vmtest_count.c); exactness is the icount guest's.
 * Every check prints "vm: ..." lines and ends with "vm: <name> ok" or
 * "vm: <name> FAIL"; the exit status is 0 only when it passed.
 * Here: main() and the helpers the checks share (vmtest.h); the checks
 * by area in vmtest_count.c, vmtest_process.c, vmtest_imode.c,
 * vmtest_policy.c, vmtest_sample.c and vmtest_chain.c.
 */
#include "vmtest.h"

int failed;
const char *self;
int by_schedstat;
double tsc_per_ns = 1.0;

#ifdef __powerpc64__
double ns_per_tb = 1.0;

/* The time base's ticks per second, from /proc/cpuinfo. */
static void tb_init(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	double hz = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "timebase : %lf", &hz) == 1)
			break;
	if (f)
		fclose(f);
	if (hz > 0)
		ns_per_tb = 1e9 / hz;
}
#else
static void tb_init(void)
{
}
#endif

void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		printf("vm: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
}

/* One counter of the thread's own work (WORK_EVENT). */
void work_control(struct pmuvirt_control *ctl)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = 1;
	ctl->counter[0].event = WORK_EVENT;
	ctl->counter[0].flags = WORK_FLAGS;
}

/*
 * The kernel's own run time of this thread (sum_exec_runtime, what
 * schedstat shows), including the current slice.
 */
uint64_t schedstat_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* TSC ticks per nanosecond of CLOCK_MONOTONIC (1.0 under -icount shift=0). */
static void calibrate(void)
{
	struct timespec a, b;
	uint64_t t0, t1;
	double ns;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = rd_tsc();
	spin(LOOPS / 2);
	t1 = rd_tsc();
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	tsc_per_ns = (double)(t1 - t0) / ns;
	printf("vm: TSC runs at %.4f ticks per ns\n", tsc_per_ns);
}

double rel_err(double got, double want)
{
	double e = (got - want) / want;

	return e < 0 ? -e : e;
}

/* The number in the file at @path, or -1. */
long long read_number(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v = -1;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

int attached_count(void)
{
	return (int)read_number("/sys/module/pmuvirt/parameters/attached");
}

/* Wait for threads that just exited to be released by the module. */
int wait_attached(int want)
{
	int i, n = -1;

	for (i = 0; i < 200; i++) {
		n = attached_count();
		if (n == want)
			break;
		usleep(10000);
	}
	return n;
}

/*
 * ---- probe: PMC requests fail with ENODEV on x86 (QEMU has no PMU
 * there); POWER counts them.  The TSC (time base) works. ----
 */
#ifdef __powerpc64__
#define PROBE_PMC	0
#else
#define PROBE_PMC	(-ENODEV)
#endif

static int attach_one(int fd, uint64_t event, uint32_t flags)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t v;

	work_control(&ctl);
	ctl.counter[0].event = event;
	ctl.counter[0].flags = flags;
	if (pmuvirt_user_attach(&u, fd, &ctl, 0, 0))
		return -errno;
	printf("vm: %s: user reads:%s%s\n", event == PMUVIRT_EV_TSC ? "tsc" : "counter",
	       u.caps & PMUVIRT_UREAD_TSC ? " time" : "", u.caps & PMUVIRT_UREAD_PMC ? " pmc" : "");
#ifdef __powerpc64__
	if (event != PMUVIRT_EV_TSC && !(u.caps & PMUVIRT_UREAD_PMC))
		printf("vm: FAIL: no user reads of the PMCs offered\n"), failed = 1;
#endif
	spin(1000);
	pmuvirt_user_detach(&u, &v);
	return 0;
}

static void t_probe(void)
{
	int fd = pmuvirt_user_open(1);
	int ret;

	CHECK(fd >= 0, "open %s: %s", PMUVIRT_DEVICE, strerror(errno));
	ret = attach_one(fd, PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL);
	printf("vm: instructions request: %s\n", ret ? strerror(-ret) : "accepted");
	CHECK(ret == PROBE_PMC, "instructions: want %d, got %d", PROBE_PMC, ret);
	ret = attach_one(fd, PMUVIRT_EV_CYCLES, PMUVIRT_CTR_USER);
	printf("vm: cycles request: %s\n", ret ? strerror(-ret) : "accepted");
	CHECK(ret == PROBE_PMC, "cycles: want %d, got %d", PROBE_PMC, ret);
	ret = attach_one(fd, PMUVIRT_EV_TSC, 0);
	printf("vm: tsc request: %s\n", ret ? strerror(-ret) : "accepted");
	CHECK(ret == 0, "tsc: %d", ret);
	close(fd);
}

pthread_barrier_t start_barrier;

/* @n threads of @fn, each on its element of the array @w (elements of @size bytes), all joined. */
void run_threads(void *(*fn)(void *), void *w, size_t size, int n)
{
	pthread_t th[NR_THREADS];
	int i;

	pthread_barrier_init(&start_barrier, NULL, n);
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, fn, (char *)w + i * size);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

long long read_param(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/pmuvirt/parameters/%s", name);
	return read_number(path);
}

int write_file(const char *path, long long v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%lld\n", v) > 0 ? 0 : -1;
	return fclose(f) ? -1 : ret;
}

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"

int set_paranoid(int level)
{
	FILE *f = fopen(PARANOID, "r");
	int old = -99;

	if (f) {
		if (fscanf(f, "%d", &old) != 1)
			old = -99;
		fclose(f);
	}
	CHECK(!write_file(PARANOID, level), "cannot set perf_event_paranoid to %d", level);
	return old;
}

/* uid and gid 1000, no supplementary groups, no capabilities left. */
void drop_to_user(void)
{
	if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000)) {
		printf("vm: FAIL: cannot drop to uid 1000: %s\n", strerror(errno));
		_exit(90);
	}
}

/* The checks that take no argument, by name. */
static const struct {
	const char *name;
	void (*run)(void);
} checks[] = {
	{ "probe", t_probe },		{ "accuracy", t_accuracy },	{ "migrate", t_migrate },
	{ "fork", t_fork },		{ "inherit", t_inherit },	{ "sum", t_sum },
	{ "pmistorm", t_pmistorm },	{ "latepmi", t_latepmi },	{ "hotplug", t_hotplug },
	{ "throttle", t_throttle },	{ "policy", t_policy },		{ "evpolicy", t_evpolicy },
	{ "suid", t_suid },		{ "sigperm", t_sigperm },	{ "isolation", t_isolation },
	{ "exec", t_exec },		{ "malformed", t_malformed },	{ "hold", t_hold },
	{ "perfhold", t_perfhold },	{ "reap", t_reap },
#ifdef __powerpc64__
	{ "exact", t_exact },		{ "callchain", t_callchain },
#endif
#ifdef __x86_64__
	{ "sample", t_sample },
#endif
};

static bool run_named(const char *what)
{
	size_t i;

	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		if (!strcmp(what, checks[i].name)) {
			checks[i].run();
			return true;
		}
	}
	return false;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	self = argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	tb_init();
	if (argc > 2 && !strcmp(argv[argc - 1], "schedstat")) {
		by_schedstat = 1;
		calibrate();
	}
	if (!strcmp(what, "spin") && argc > 2) {
		spin(strtoull(argv[2], NULL, 0));
		return 0;
	}
	if (!strcmp(what, "threads") && argc > 3) {
		t_threads(atoi(argv[2]), argv[3]);
		return 0;
	}
	if (!strcmp(what, "exec-child"))
		return exec_child();
#ifdef __x86_64__
	if (!strcmp(what, "profile") && argc > 2) {
		t_profile(atoi(argv[2]));
		return 0;
	}
	if (!strcmp(what, "chain") && argc > 2) {
		t_chain(atoi(argv[2]));
		return 0;
	}
#endif
	if (!strcmp(what, "imode")) {
		/* optional: the bound of the counts, or "shared" */
		imode_shared_clock = argc > 2 && !strcmp(argv[2], "shared");
		t_imode(argc > 2 && !imode_shared_clock ? strtod(argv[2], NULL) : MAX_ERR);
	} else if (!strcmp(what, "perfopen") && argc > 2) {
		t_perfopen(argv[2]);
	} else if (!run_named(what)) {
		fprintf(stderr, "usage: vmtest probe|accuracy|migrate|fork|inherit|sum|imode|pmistorm|latepmi|hotplug|isolation|throttle|exec|malformed|policy|evpolicy|suid|sigperm|hold|reap|perfopen ok|busy|perfhold|exact (POWER)|callchain (POWER)|sample (x86)|profile ROUNDS (x86)|chain ROUNDS (x86)|spin N|threads K N\n");
		return 2;
	}
	printf("vm: %s %s\n", what, failed ? "FAIL" : "ok");
	return failed;
}
