// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Checks of pmuvirt.ko run inside a guest booted with -icount shift=0,
 * where one instruction is one TSC tick: a loop of n iterations of
 * "dec; jnz" is 2n ticks of the thread's own time.
 *
 * usage: vmtest probe|accuracy|migrate|fork|inherit|sum|imode [BOUND|shared]|pmistorm|hotplug|isolation|
 *               throttle|exec|malformed|policy|evpolicy|suid|sigperm|hold|reap|
 *               perfopen ok|busy|perfhold|exact (POWER)|sample|profile ROUNDS|
 *               spin N|threads K N [schedstat]
 * With "schedstat" (two CPUs at host speed, no -icount) no count has a
 * known truth: the host may stop QEMU anywhere, for milliseconds, also
 * between the kernel's run-time accounting and the switch hook, so a
 * thread's run time (schedstat) and its virtual TSC can differ by any
 * amount under load.  That guest checks only what holds under any load
 * (see smp_checks()); exactness is the icount guest's.
 * Every check prints "vm: ..." lines and ends with "vm: <name> ok" or
 * "vm: <name> FAIL"; the exit status is 0 only when it passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <stdint.h>
#include <time.h>
#include <linux/perf_event.h>
#include "libpmuvirt-user.h"
#include <pmuvirt/user.h>

#define LOOPS		20000000ull	/* 40M instructions per thread */
#define MAX_ERR		0.02
#define NR_THREADS	3

static int failed;
static const char *self;
/* A guest without -icount: only checks that hold under any host load. */
static int by_schedstat;
static double tsc_per_ns = 1.0;

#define CHECK(cond, ...) do {							\
	if (!(cond)) {								\
		printf("vm: FAIL %s:%d: ", __func__, __LINE__);			\
		printf(__VA_ARGS__);						\
		printf("\n");							\
		failed = 1;							\
	}									\
} while (0)

#ifdef __powerpc64__
/*
 * POWER (test/vm-ppc): the thread's own work is counted on PMC5 in user
 * mode (instructions, exact on QEMU), and the clock around it is the time
 * base, given in nanoseconds, which under -icount shift=0 is one per
 * instruction as the TSC is on x86.
 */
#define WORK_EVENT	PMUVIRT_EV_INSTRUCTIONS
#define WORK_FLAGS	PMUVIRT_CTR_USER
#define WORK_CAPS	(PMUVIRT_UREAD_TSC | PMUVIRT_UREAD_PMC)
static double ns_per_tb = 1.0;

static inline uint64_t rd_tb(void)
{
	uint64_t tb;

	__asm__ __volatile__("isync; mftb %0" : "=r"(tb) :: "memory");
	return tb;
}

static inline uint64_t rd_tsc(void)
{
	return (uint64_t)((double)rd_tb() * ns_per_tb);
}

/* A count of the TSC event (the time base) in the unit of rd_tsc(). */
static uint64_t tsc_units(uint64_t v)
{
	return (uint64_t)((double)v * ns_per_tb);
}

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

/* Exactly 2 * n instructions (n > 0). */
static void spin(uint64_t n)
{
	if (n)
		__asm__ __volatile__("1: addic. %0,%0,-1\n\tbne 1b" : "+r"(n) :: "cr0", "xer");
}
#else
/* x86: the thread's own work is its TSC share (one tick per instruction). */
#define WORK_EVENT	PMUVIRT_EV_TSC
#define WORK_FLAGS	0
#define WORK_CAPS	PMUVIRT_UREAD_TSC

static inline uint64_t rd_tsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

static void tb_init(void)
{
}

static uint64_t tsc_units(uint64_t v)
{
	return v;
}

/* Exactly 2 * n instructions. */
static void spin(uint64_t n)
{
	__asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r"(n) :: "cc");
}
#endif

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		printf("vm: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
}

/* One counter of the thread's own work (WORK_EVENT). */
static void work_control(struct pmuvirt_control *ctl)
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
static uint64_t schedstat_ns(void)
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

static double rel_err(double got, double want)
{
	double e = (got - want) / want;

	return e < 0 ? -e : e;
}

static int attached_count(void)
{
	FILE *f = fopen("/sys/module/pmuvirt/parameters/attached", "r");
	int n = -1;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* Wait for threads that just exited to be released by the module. */
static int wait_attached(int want)
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

/* ---- accuracy: threads on one CPU preempting each other ---- */

struct worker {
	pthread_t th;
	int cpu_a, cpu_b;	/* migrate from a to b halfway when they differ */
	uint64_t loops;
	uint64_t virt, virt_ioctl, raw, sched_ns, t0, t1;
	uint32_t below_a, below_b;
	uint64_t direct_reads;
	int inherited;		/* use the inherited context instead of attaching */
	uint32_t tid;
	int err;
};

static pthread_barrier_t start_barrier;

/* @n threads of @fn, each on its element of the array @w (elements of @size bytes), all joined. */
static void run_threads(void *(*fn)(void *), void *w, size_t size, int n)
{
	pthread_t th[NR_THREADS];
	int i;

	pthread_barrier_init(&start_barrier, NULL, n);
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, fn, (char *)w + i * size);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t v0, v1, t0, t1, s0, s1, vi;
	int fd;

	pin(w->cpu_a);
	w->tid = (uint32_t)syscall(SYS_gettid);
	fd = pmuvirt_user_open(1);
	work_control(&ctl);
	if (fd < 0 || (w->inherited ? pmuvirt_user_adopt(&u, fd) :
				     pmuvirt_user_attach(&u, fd, &ctl, 0, 0))) {
		w->err = errno;
		pthread_barrier_wait(&start_barrier);
		return NULL;
	}
	pthread_barrier_wait(&start_barrier);
	s0 = schedstat_ns();
	/* [t0, t1] holds both reads: the virtual interval lies inside it */
	t0 = rd_tsc();
	pmuvirt_user_read(&u, &v0);
	if (w->cpu_a != w->cpu_b) {
		spin(w->loops / 2);
		w->below_a = u.rec ? u.rec->below : 0;
		pin(w->cpu_b);
		spin(w->loops - w->loops / 2);
		w->below_b = u.rec ? u.rec->below : 0;
	} else {
		spin(w->loops);
	}
	pmuvirt_user_read(&u, &v1);
	t1 = rd_tsc();
	s1 = schedstat_ns();
	pmuvirt_user_read_ioctl(&u, &vi);
	w->virt = v1 - v0;
	w->virt_ioctl = vi;
	w->raw = t1 - t0;
	w->t0 = t0;
	w->t1 = t1;
	w->sched_ns = s1 - s0;
	w->direct_reads = u.direct_reads;
	if (w->inherited) {
		/* exits attached: its exit report goes to the parent's file */
		munmap((void *)u.rec, 4096);
	} else if (pmuvirt_user_detach(&u, NULL)) {
		w->err = errno;
	}
	close(fd);
	return NULL;
}

static void *hog_fn(void *arg)
{
	pin((int)(long)arg);
	for (;;)
		spin(1000000);
	return NULL;
}

/*
 * A guest at host speed: what holds under any host load.
 * - A thread's virtual TSC lies inside the TSC interval around its two
 *   reads: virt <= raw.
 * - Threads on one CPU are counted in disjoint intervals: the sum of their
 *   virtual TSCs fits in the span from the first t0 to the last t1.  This
 *   catches a context left counting while another thread runs.
 * - A loop of 2n instructions takes more than n TSC ticks: TCG executes
 *   far fewer than two instructions per tick of a GHz TSC, and a loaded
 *   host only makes that fewer.  This catches lost counts.
 */
static void smp_checks(const char *what, int i, const struct worker *w)
{
	CHECK(w->virt <= w->raw, "%s thread %d: virtual TSC %llu above the raw %llu around it",
	      what, i, (unsigned long long)w->virt, (unsigned long long)w->raw);
	CHECK(w->virt > w->loops, "%s thread %d: virtual TSC %llu for %llu instructions", what, i,
	      (unsigned long long)w->virt, (unsigned long long)(2 * w->loops));
}

/* Threads sharing CPU 0: their virtual TSCs cannot add up to more than the span. */
static void smp_disjoint(const char *what, const struct worker *w, int n)
{
	uint64_t first = ~0ull, last = 0, sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		sum += w[i].virt;
		first = w[i].t0 < first ? w[i].t0 : first;
		last = w[i].t1 > last ? w[i].t1 : last;
	}
	printf("vm: %s: %d threads on CPU 0 counted %llu of a span of %llu TSC ticks (%.2f%%)\n",
	       what, n, (unsigned long long)sum, (unsigned long long)(last - first),
	       100.0 * (double)sum / (double)(last - first));
	CHECK(sum <= last - first, "%s: the threads' virtual TSCs overlap", what);
}

static void report(const char *what, int i, const struct worker *w, unsigned int share)
{
	double want = 2.0 * (double)w->loops;
	double err = rel_err((double)w->virt, want);
	double kernel_err = rel_err((double)w->virt, (double)w->sched_ns * tsc_per_ns);

	if (by_schedstat)
		printf("vm: %s thread %d: virtual TSC %llu, raw TSC %llu (%.2fx), schedstat %llu ns (%+.3f%%), direct reads %llu\n",
		       what, i, (unsigned long long)w->virt, (unsigned long long)w->raw,
		       (double)w->raw / (double)w->virt, (unsigned long long)w->sched_ns,
		       100.0 * ((double)w->virt - (double)w->sched_ns * tsc_per_ns) /
			       ((double)w->sched_ns * tsc_per_ns),
		       (unsigned long long)w->direct_reads);
	else
		printf("vm: %s thread %d: own work %.0f ticks, virtual TSC %llu (error %.3f%%), raw TSC %llu (%.2fx), schedstat %llu ns, direct reads %llu\n",
		       what, i, want, (unsigned long long)w->virt, 100.0 * err,
		       (unsigned long long)w->raw, (double)w->raw / (double)w->virt,
		       (unsigned long long)w->sched_ns, (unsigned long long)w->direct_reads);
	CHECK(!w->err, "thread %d: %s", i, strerror(w->err));
	if (by_schedstat) {
		smp_checks(what, i, w);
	} else {
		/* icount: one instruction is one tick, so the thread's work is known */
		CHECK(err < MAX_ERR, "thread %d: virtual TSC error %.3f%% over %.0f%%", i,
		      100.0 * err, 100.0 * MAX_ERR);
		/* the kernel's own accounting agrees */
		CHECK(kernel_err < 0.03, "thread %d: %.3f%% away from the kernel's run time", i,
		      100.0 * kernel_err);
		CHECK(w->raw > (uint64_t)(0.7 * share * (double)w->virt),
		      "thread %d: raw TSC only %.2fx the virtual one, expected about %ux", i,
		      (double)w->raw / (double)w->virt, share);
	}
	CHECK(w->virt_ioctl >= w->virt, "thread %d: ioctl read %llu below direct read", i,
	      (unsigned long long)w->virt_ioctl);
	/* an inherited context's attach caps are unknown: PMC reads take the ioctl */
	if (!w->inherited || WORK_EVENT == PMUVIRT_EV_TSC)
		CHECK(w->direct_reads >= 2, "thread %d: reads did not use the shared page", i);
}

static void t_accuracy(void)
{
	struct worker w[NR_THREADS];
	int i;

	memset(w, 0, sizeof(w));
	for (i = 0; i < NR_THREADS; i++)
		w[i].loops = LOOPS;
	run_threads(worker_fn, w, sizeof(w[0]), NR_THREADS);
	for (i = 0; i < NR_THREADS; i++)
		report("accuracy", i, &w[i], NR_THREADS);
	smp_disjoint("accuracy", w, NR_THREADS);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- migrate: half the work on CPU 0, half on CPU 1, hogs on both ---- */

static void t_migrate(void)
{
	struct worker w;
	pthread_t hog[2];
	int i;

	memset(&w, 0, sizeof(w));
	pthread_barrier_init(&start_barrier, NULL, 1);
	for (i = 0; i < 2; i++)
		pthread_create(&hog[i], NULL, hog_fn, (void *)(long)i);
	w.cpu_a = 0;
	w.cpu_b = 1;
	w.loops = LOOPS;
	pthread_create(&w.th, NULL, worker_fn, &w);
	pthread_join(w.th, NULL);
	printf("vm: migrate: record said CPU %u, then CPU %u\n", w.below_a, w.below_b);
	report("migrate", 0, &w, 2);
	CHECK(w.below_a == 0 && w.below_b == 1, "shared record did not follow the migration");
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- fork: the child starts clean; its own context reports on exit ---- */

static void t_fork(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	struct pmuvirt_report rep;
	struct pollfd pfd;
	uint64_t v;
	pid_t pid;
	int fd = pmuvirt_user_open(0), status;

	work_control(&ctl);
	CHECK(fd >= 0 && !pmuvirt_user_attach(&u, fd, &ctl, 0, 0), "attach: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		struct pmuvirt_user cu;
		int ret = pmuvirt_user_read_ioctl(&u, &v);

		/* the mapping of the parent's record is not inherited either */
		if (ret == 0 || errno != ESRCH)
			_exit(10);
		if (pmuvirt_user_attach(&cu, fd, &ctl, PMUVIRT_ATTACH_REPORT, 0))
			_exit(11);
		spin(LOOPS);
		_exit(0);	/* exits attached */
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	pfd.fd = fd;
	pfd.events = POLLIN;
	memset(&rep, 0, sizeof(rep));
	CHECK(poll(&pfd, 1, 5000) == 1, "no exit report");
	CHECK(read(fd, &rep, sizeof(rep)) == sizeof(rep), "report read: %s", strerror(errno));
	if (by_schedstat)
		printf("vm: fork: child %d reported tid %u how %u: virtual TSC %llu\n", pid,
		       rep.tid, rep.how, (unsigned long long)rep.value[0]);
	else
		printf("vm: fork: child %d reported tid %u how %u: virtual TSC %llu for %llu of own work (error %.3f%%)\n",
		       pid, rep.tid, rep.how, (unsigned long long)rep.value[0],
		       (unsigned long long)(2 * LOOPS),
		       100.0 * rel_err((double)rep.value[0], 2.0 * LOOPS));
	CHECK(rep.tid == (uint32_t)pid && rep.how == PMUVIRT_REPORT_EXIT, "wrong report");
	/* the child's count also includes its exit path up to its first switch-out */
	CHECK(by_schedstat ? rep.value[0] > 2 * LOOPS / 2 :
			     rel_err((double)rep.value[0], 2.0 * LOOPS) < MAX_ERR, "child count off");
	CHECK(!pmuvirt_user_read(&u, &v) && v > 0, "parent lost its context");
	CHECK(!pmuvirt_user_detach(&u, NULL), "parent detach: %s", strerror(errno));
	close(fd);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- inherit: new threads and processes get contexts of their own ---- */

static void *no_ctx_fn(void *arg)
{
	struct pmuvirt_user u;
	int fd = *(int *)arg;

	/* 0: the thread has no context, as it should */
	return (void *)(long)(pmuvirt_user_adopt(&u, fd) == 0 || errno != ESRCH);
}

/* The TSC just before the last fork() of this process's parent. */
static uint64_t fork_tsc;

/* A child process that counts its own work and forks a grandchild. */
static int inherit_child(int fd, int depth)
{
	struct pmuvirt_user u;
	uint64_t v0, v1;
	pid_t pid = -1;
	int status = 0;

	if (pmuvirt_user_adopt(&u, fd) || pmuvirt_user_read(&u, &v0))
		return 40;
	/*
	 * From zero, not from the parent's count: at most the time since the
	 * fork (under any load), and little of it under icount.
	 */
	if (v0 > rd_tsc() - fork_tsc || (!by_schedstat && v0 > LOOPS / 10))
		return 41;
	if (depth < 2) {
		fork_tsc = rd_tsc();
		pid = fork();
		if (!pid)
			_exit(inherit_child(fd, depth + 1));
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return 42;
		if (pmuvirt_user_read(&u, &v0))
			return 43;
	}
	spin(LOOPS / 2);
	if (pmuvirt_user_read(&u, &v1))
		return 44;
	/* the grandchild's work is not in the child's count */
	if (!by_schedstat && rel_err((double)(v1 - v0), (double)LOOPS) > MAX_ERR)
		return 45;
	return 0;		/* exits attached: reports to the parent's file */
}

static void t_inherit(void)
{
	struct pmuvirt_report reps[16];
	struct worker w[NR_THREADS];
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	unsigned int nrep = 0, j;
	pthread_t th;
	void *ret;
	pid_t pid;
	int fd = pmuvirt_user_open(0), status, i, seen_child = 0;
	ssize_t got = -1;

	work_control(&ctl);
	/* without the flag a new thread has no context */
	CHECK(fd >= 0 && !pmuvirt_user_attach(&u, fd, &ctl, 0, 0), "attach: %s", strerror(errno));
	pthread_create(&th, NULL, no_ctx_fn, &fd);
	pthread_join(th, &ret);
	CHECK(!ret, "a thread of a non-inheriting thread has a context");
	CHECK(!pmuvirt_user_detach(&u, NULL), "detach: %s", strerror(errno));

	CHECK(!pmuvirt_user_attach(&u, fd, &ctl, PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_INHERIT, 0),
	      "attach with inherit: %s", strerror(errno));
	memset(w, 0, sizeof(w));
	for (i = 0; i < NR_THREADS; i++) {
		w[i].cpu_a = w[i].cpu_b = 0;
		w[i].loops = LOOPS / 2;
		w[i].inherited = 1;
	}
	run_threads(worker_fn, w, sizeof(w[0]), NR_THREADS);
	for (i = 0; i < NR_THREADS; i++)
		report("inherit", i, &w[i], NR_THREADS);
	smp_disjoint("inherit", w, NR_THREADS);

	/* the parent's own count grows past what the child may show */
	spin(LOOPS / 2);
	fork_tsc = rd_tsc();
	pid = fork();
	if (!pid)
		_exit(inherit_child(fd, 1));
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	CHECK(!pmuvirt_user_detach(&u, NULL), "detach: %s", strerror(errno));

	/* reports: three threads, child, grandchild, the parent's detach; then EOF */
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 5000) != 1 || nrep == 16)
			break;
		got = read(fd, &reps[nrep], sizeof(reps[0]));
		if (got != (ssize_t)sizeof(reps[0]))
			break;
		nrep++;
	}
	CHECK(got == 0, "no end of file after %u reports (read gave %zd)", nrep, got);
	CHECK(nrep == NR_THREADS + 3, "%u reports, want %d", nrep, NR_THREADS + 3);
	for (j = 0; j < nrep; j++) {
		const struct pmuvirt_report *r = &reps[j];
		int known = r->tid == (uint32_t)getpid() && r->how == PMUVIRT_REPORT_DETACH;

		for (i = 0; i < NR_THREADS; i++)
			if (r->tid == w[i].tid) {
				known = r->how == PMUVIRT_REPORT_EXIT && r->value[0] >= w[i].virt;
				CHECK(by_schedstat ||
				      rel_err((double)r->value[0], (double)LOOPS) < MAX_ERR,
				      "thread %u reported %llu", r->tid,
				      (unsigned long long)r->value[0]);
			}
		if (r->pid != (uint32_t)getpid()) {
			/* the child and the grandchild: both did LOOPS of own work */
			known = r->how == PMUVIRT_REPORT_EXIT;
			seen_child += r->tid == (uint32_t)pid;
			CHECK(by_schedstat || rel_err((double)r->value[0], (double)LOOPS) < MAX_ERR,
			      "process %u reported %llu", r->pid, (unsigned long long)r->value[0]);
		}
		printf("vm: inherit: report tid %u pid %u how %u: virtual TSC %llu\n", r->tid,
		       r->pid, r->how, (unsigned long long)r->value[0]);
		CHECK(known, "unexpected report tid %u how %u", r->tid, r->how);
	}
	CHECK(seen_child == 1, "no report of the child process");
	close(fd);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- sum: summed inheritance (PMUVIRT_ATTACH_SUM) ---- */

/*
 * A process that counts for a summing attacher: at depth 1 it forks a
 * child of its own and waits for it; then LOOPS of its own work.  The
 * deepest one detaches itself (its count is summed at the detach), the
 * other exits attached (summed at its exit).  Each writes its last own
 * count to @out; its final count is at least that.
 */
static int sum_child(int fd, int out, int depth)
{
	struct pmuvirt_user u;
	uint64_t v;
	pid_t pid;
	int status;

	if (pmuvirt_user_adopt(&u, fd))
		return 50;
	if (depth < 2) {
		pid = fork();
		if (!pid)
			_exit(sum_child(fd, out, depth + 1));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return 51;
	}
	spin(LOOPS / 2);
	if (depth == 2 ? pmuvirt_user_detach(&u, &v) : pmuvirt_user_read(&u, &v))
		return 52;
	if (write(out, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 53;
	return 0;
}

/*
 * Attach with @flags, run a child and a grandchild (LOOPS of work each),
 * wait for the child and read at once.  Returns the read ioctl's value less
 * the thread's own count (its mapped record); @ended: the sum of the two
 * processes' last own counts.
 */
static uint64_t sum_round(int fd, uint32_t flags, uint64_t *ended)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t own = 0, total = 0, fin = 0, v;
	int p[2], status, n = 0;
	pid_t pid;

	*ended = 0;
	work_control(&ctl);
	if (pmuvirt_user_attach(&u, fd, &ctl, flags, 0)) {
		CHECK(0, "attach %#x: %s", flags, strerror(errno));
		return 0;
	}
	CHECK(!pipe(p), "pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		close(p[0]);
		_exit(sum_child(fd, p[1], 1));
	}
	close(p[1]);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "child status %#x", status);
	/* right after the wait: no sleep, no retry */
	CHECK(!pmuvirt_user_read(&u, &own), "read: %s", strerror(errno));
	CHECK(!pmuvirt_user_read_ioctl(&u, &total), "read ioctl: %s", strerror(errno));
	while (read(p[0], &v, sizeof(v)) == (ssize_t)sizeof(v)) {
		*ended += v;
		n++;
	}
	close(p[0]);
	CHECK(n == 2, "%d processes reported their counts", n);
	CHECK(!pmuvirt_user_detach(&u, &fin), "detach: %s", strerror(errno));
	CHECK(fin >= total, "detach %llu below the last read %llu", (unsigned long long)fin,
	      (unsigned long long)total);
	printf("vm: sum: flags %#x: own %llu, read ioctl %llu, detach %llu, the processes' last own counts %llu\n",
	       flags, (unsigned long long)own, (unsigned long long)total, (unsigned long long)fin,
	       (unsigned long long)*ended);
	return total - own;
}

static void t_sum(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t ended, sum;
	int fd = pmuvirt_user_open(0);

	CHECK(fd >= 0, "open %s: %s", PMUVIRT_DEVICE, strerror(errno));
	work_control(&ctl);
	/* nothing to sum without inheritance */
	errno = 0;
	CHECK(pmuvirt_user_attach(&u, fd, &ctl, PMUVIRT_ATTACH_SUM, 0) && errno == EINVAL,
	      "PMUVIRT_ATTACH_SUM without PMUVIRT_ATTACH_INHERIT: %s", strerror(errno));

	sum = sum_round(fd, PMUVIRT_ATTACH_INHERIT | PMUVIRT_ATTACH_SUM, &ended);
	/* each final count is at least the last one the process read, under any load */
	CHECK(sum >= ended, "sum %llu below the processes' own counts %llu",
	      (unsigned long long)sum, (unsigned long long)ended);
	CHECK(by_schedstat || rel_err((double)sum, 2.0 * LOOPS) < MAX_ERR,
	      "sum %llu for two processes of %llu each", (unsigned long long)sum,
	      (unsigned long long)LOOPS);

	/* inheritance alone: each count is its own, the attacher's holds none of theirs */
	sum = sum_round(fd, PMUVIRT_ATTACH_INHERIT, &ended);
	CHECK(by_schedstat ? sum < ended : sum < LOOPS / 10,
	      "without PMUVIRT_ATTACH_SUM the attacher's read has %llu more than its record",
	      (unsigned long long)sum);
	close(fd);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- threads K N: K threads of N iterations each (for pmuvirt-stat) ---- */

static void *spin_thread_fn(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "spinner%ld", (long)arg);
	prctl(PR_SET_NAME, name);
	spin(strtoull(getenv("VMTEST_LOOPS"), NULL, 0));
	return NULL;
}

static void t_threads(int k, const char *loops)
{
	pthread_t th[16];
	int i;

	setenv("VMTEST_LOOPS", loops, 1);
	for (i = 0; i < k && i < 16; i++)
		pthread_create(&th[i], NULL, spin_thread_fn, (void *)(long)i);
	for (i = 0; i < k && i < 16; i++)
		pthread_join(th[i], NULL);
}

/* ---- imode (emulated PMU): overflow signals go to the right thread, exactly ---- */

#define IMODE_PERIOD	2000000ull

static uint64_t imode_period = IMODE_PERIOD;

struct imode_worker {
	pthread_t th;
	uint32_t tid;
	uint64_t final[3], read_before[3], read_after[3], raw;
	uint64_t notified;	/* notifications taken by RESUME */
	uint64_t t0, span;	/* raw TSC before attach; from there to after detach */
	unsigned int signals, bad_signals;
	int err;
};

static __thread const struct pmuvirt_user *imode_user;
static __thread struct imode_worker *imode_self;

/* Thread-directed: runs in the thread whose counter overflowed. */
static void imode_signal(int sig, siginfo_t *si, void *uc)
{
	struct imode_worker *w = imode_self;
	uint64_t counts[3];
	uint32_t mask;

	(void)sig;
	(void)uc;
	if (!w)
		return;
	w->signals++;
	if (si->si_code != POLL_IN || si->si_band != 0x2 ||
	    pmuvirt_user_resume(imode_user, counts, &mask) || mask != 0x2 || counts[0] ||
	    counts[2])
		w->bad_signals++;
	else
		w->notified += counts[1];
}

static void *imode_fn(void *arg)
{
	struct imode_worker *w = arg;
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t counts[3], t0;
	sigset_t usr1;
	uint32_t mask;
	int fd;

	pin(0);
	w->tid = (uint32_t)syscall(SYS_gettid);
	/* a short period can overflow inside the attach: wait for imode_user */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	memset(&ctl, 0, sizeof(ctl));
	ctl.version = PMUVIRT_ABI_VERSION;
	ctl.nr_counters = 3;
	ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	ctl.counter[1].event = PMUVIRT_EV_CYCLES;
	ctl.counter[1].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	ctl.counter[1].period = imode_period;
	ctl.counter[2].event = PMUVIRT_EV_TSC;
	fd = pmuvirt_user_open(1);
	if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, 0, SIGUSR1)) {
		w->err = errno;
		pthread_barrier_wait(&start_barrier);
		return NULL;
	}
	imode_user = &u;
	imode_self = w;
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	pthread_barrier_wait(&start_barrier);
	t0 = rd_tsc();
	spin(LOOPS);
	w->raw = rd_tsc() - t0;
	/*
	 * The handler stops taking: a signal sent while this RESUME takes its
	 * notifications would otherwise find none left.
	 */
	imode_self = NULL;
	/* what the counters say, then every notification up to at least that */
	if (pmuvirt_user_read(&u, w->read_before) || pmuvirt_user_resume(&u, counts, &mask) ||
	    pmuvirt_user_read(&u, w->read_after))
		w->err = errno;
	else
		w->notified += counts[1];
	imode_user = NULL;
	if (pmuvirt_user_detach(&u, w->final))
		w->err = errno;
	close(fd);
	return NULL;
}

/*
 * "imode shared": the TSC also advances with another busy CPU's
 * instructions (Xen on two PCPUs under -icount: one virtual clock for
 * both), so a count that ticks with the TSC has no exact truth.  What
 * holds: a thread's counts are at least its own instructions (each takes
 * a tick of the clock) and at most its virtual TSC, which counts every
 * tick the thread ran.
 */
static int imode_shared_clock;

static uint64_t t_imode(double max_err)
{
	struct imode_worker w[NR_THREADS];
	struct sigaction sa;
	uint64_t total = 0;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = imode_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	memset(w, 0, sizeof(w));
	run_threads(imode_fn, w, sizeof(w[0]), NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		uint64_t want = w[i].read_before[1] / imode_period;
		uint64_t most = w[i].read_after[1] / imode_period;

		total += w[i].notified;
		printf("vm: imode thread %d: instructions %llu (error %.3f%%), i-mode cycles %llu, %llu notifications (floor(count/period) %llu), %u signals, raw TSC %.2fx\n",
		       i, (unsigned long long)w[i].final[0],
		       100.0 * rel_err((double)w[i].final[0], 2.0 * LOOPS),
		       (unsigned long long)w[i].read_before[1], (unsigned long long)w[i].notified,
		       (unsigned long long)want, w[i].signals,
		       (double)w[i].raw / (double)tsc_units(w[i].final[2]));
		CHECK(!w[i].err, "thread %d: %s", i, strerror(w[i].err));
		if (imode_shared_clock) {
			CHECK(w[i].final[0] >= 2 * LOOPS && w[i].final[0] <= w[i].final[2],
			      "thread %d: a-mode count %llu outside [work %llu, virtual TSC %llu]", i,
			      (unsigned long long)w[i].final[0], 2ull * LOOPS,
			      (unsigned long long)w[i].final[2]);
			CHECK(w[i].final[1] >= 2 * LOOPS && w[i].final[1] <= w[i].final[2],
			      "thread %d: i-mode count %llu outside [work %llu, virtual TSC %llu]", i,
			      (unsigned long long)w[i].final[1], 2ull * LOOPS,
			      (unsigned long long)w[i].final[2]);
		} else {
			CHECK(rel_err((double)w[i].final[0], 2.0 * LOOPS) < max_err,
			      "thread %d: a-mode count off", i);
			CHECK(rel_err((double)w[i].final[1], 2.0 * LOOPS) < max_err,
			      "thread %d: i-mode count off", i);
		}
		/*
		 * Each boundary once: all those the count passed before the last
		 * take (RESUME collects those whose PMI has not come yet), none
		 * it had not passed right after.
		 */
		CHECK(w[i].notified >= want && w[i].notified <= most,
		      "thread %d: %llu notifications for %llu events", i,
		      (unsigned long long)w[i].notified, (unsigned long long)w[i].read_before[1]);
		CHECK(w[i].signals >= 1 && !w[i].bad_signals, "thread %d: %u signals, %u wrong", i,
		      w[i].signals, w[i].bad_signals);
		CHECK(w[i].raw > 2 * tsc_units(w[i].final[2]), "thread %d: threads did not preempt each other",
		      i);
	}
	printf("vm: imode: %llu notifications in all\n", (unsigned long long)total);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
	return total;
}

static long long read_param(const char *name)
{
	char path[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/pmuvirt/parameters/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int write_file(const char *path, long long v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%lld\n", v) > 0 ? 0 : -1;
	return fclose(f) ? -1 : ret;
}

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"

static int set_paranoid(int level)
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
static void drop_to_user(void)
{
	if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000)) {
		printf("vm: FAIL: cannot drop to uid 1000: %s\n", strerror(errno));
		_exit(90);
	}
}

/* ---- throttle (emulated PMU, max_pmi_rate lowered): no count lost ---- */

static void t_throttle(void)
{
	long long pmis = read_param("emulated_pmis"), thr = read_param("throttled");
	uint64_t total;

	imode_period = (uint64_t)read_param("min_period");
	printf("vm: throttle: period %llu, max_pmi_rate %lld\n", (unsigned long long)imode_period,
	       read_param("max_pmi_rate"));
	total = t_imode(MAX_ERR);
	pmis = read_param("emulated_pmis") - pmis;
	thr = read_param("throttled") - thr;
	printf("vm: throttle: %llu notifications from %lld PMIs; the CPU was throttled %lld times\n",
	       (unsigned long long)total, pmis, thr);
	/* unthrottled, every boundary is a PMI of its own */
	CHECK(thr > 0, "never throttled");
	CHECK(pmis > 0 && (uint64_t)pmis * 10 < total, "%lld PMIs for %llu notifications", pmis,
	      (unsigned long long)total);
}

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

static void t_policy(void)
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

static void t_evpolicy(void)
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

static void t_suid(void)
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

static void t_sigperm(void)
{
	long long refused = read_param("signals_refused");

	child_at_paranoid(2, sigperm_child, "child");
	refused = read_param("signals_refused") - refused;
	printf("vm: sigperm: signals refused %lld\n", refused);
	CHECK(refused >= 1, "no refused signal counted");
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/*
 * ---- pmistorm (emulated PMU): PMIs during reads and switches, and with
 * no context on the counters; none may leave LVTPC masked ----
 */

#define STORM_PERIOD	50000ull
#define STORM_ROUNDS	2500

static void imode_control(struct pmuvirt_control *ctl, uint64_t period)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = 3;
	ctl->counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl->counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	ctl->counter[1].event = PMUVIRT_EV_CYCLES;
	ctl->counter[1].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	ctl->counter[1].period = period;
	ctl->counter[2].event = PMUVIRT_EV_TSC;
}

static void block_usr1(int how)
{
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(how, &usr1, NULL);
}

/*
 * Attach with an i-mode counter; SIGUSR1 stays blocked until the handler's
 * thread-local state is set (an overflow can come inside the attach).
 */
static int imode_attach(struct imode_worker *w, struct pmuvirt_user *u, int fd,
			const struct pmuvirt_control *ctl)
{
	int ret, err;

	block_usr1(SIG_BLOCK);
	w->t0 = rd_tsc();
	ret = pmuvirt_user_attach(u, fd, ctl, 0, SIGUSR1);
	err = errno;
	if (!ret) {
		imode_user = u;
		imode_self = w;
	}
	block_usr1(SIG_UNBLOCK);
	errno = err;
	return ret;
}

/*
 * Take every notification up to at least the count read first; detach.
 * SIGUSR1 stays blocked from here: a handler running now would find the
 * notifications this take drains (a wrong signal), or the state going.
 */
static void imode_finish(struct imode_worker *w, struct pmuvirt_user *u)
{
	uint64_t counts[3];
	uint32_t mask;

	block_usr1(SIG_BLOCK);
	if (pmuvirt_user_read(u, w->read_before) || pmuvirt_user_resume(u, counts, &mask) ||
	    pmuvirt_user_read(u, w->read_after))
		w->err = errno;
	else
		w->notified += counts[1];
	imode_self = NULL;
	imode_user = NULL;
	if (pmuvirt_user_detach(u, w->final))
		w->err = errno;
	w->span = rd_tsc() - w->t0;
}

static void *storm_fn(void *arg)
{
	struct imode_worker *w = arg;
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t v[3];
	int fd, i;

	pin(0);
	w->tid = (uint32_t)syscall(SYS_gettid);
	imode_control(&ctl, STORM_PERIOD);
	fd = pmuvirt_user_open(1);
	if (fd < 0 || imode_attach(w, &u, fd, &ctl)) {
		w->err = errno;
		pthread_barrier_wait(&start_barrier);
		return NULL;
	}
	pthread_barrier_wait(&start_barrier);
	/* reads through the ioctl: counter accesses with interrupts off */
	for (i = 0; i < STORM_ROUNDS; i++) {
		spin(1000);
		if (pmuvirt_user_read_ioctl(&u, v))
			w->err = errno;
	}
	imode_finish(w, &u);
	close(fd);
	return NULL;
}

/*
 * The checks of one i-mode thread whose counters all count its own ticks
 * that hold under any host load.  Nothing counts outside attach..detach,
 * so no count exceeds that span of the raw TSC.  The emulated counters and
 * the virtual TSC are read at different moments of a switch or PMI, and a
 * host that stops QEMU between two of those reads pushes either past the
 * other: no bound between them holds at host speed (see storm_frozen()
 * for the icount guest).  Notifications depend on the counter's own count
 * only: floor(count / period) at the last take, which collects the
 * boundaries whose PMI has not come yet.
 */
static void imode_check(const char *what, int i, const struct imode_worker *w, uint64_t period)
{
	uint64_t want = w->read_before[1] / period, most = w->read_after[1] / period;

	printf("vm: %s thread %d: instructions %llu, cycles %llu, tsc %llu of a raw span %llu, %llu notifications (floor(count/period) %llu), %u signals\n",
	       what, i, (unsigned long long)w->final[0], (unsigned long long)w->final[1],
	       (unsigned long long)w->final[2], (unsigned long long)w->span,
	       (unsigned long long)w->notified, (unsigned long long)want, w->signals);
	CHECK(!w->err, "%s thread %d: %s", what, i, strerror(w->err));
	CHECK(w->final[0] && w->final[1] && w->final[2] && w->final[0] <= w->span &&
	      w->final[1] <= w->span && w->final[2] <= w->span,
	      "%s thread %d: a count is 0 or exceeds the raw TSC from attach to detach", what, i);
	CHECK(w->notified >= want && w->notified <= most,
	      "%s thread %d: %llu notifications for %llu events", what, i,
	      (unsigned long long)w->notified, (unsigned long long)w->read_before[1]);
	CHECK(w->signals >= 1 && !w->bad_signals, "%s thread %d: %u signals, %u wrong", what, i,
	      w->signals, w->bad_signals);
}

/*
 * icount guest only: the emulated counters stop while a PMI is handled
 * (the backend clears GLOBAL_CTRL, as on Intel) and the TSC does not, so
 * they fall short of the TSC count by that time, at most @frozen of it.
 * Under -icount shift=0, sleep=off, QEMU's clock advances only with the
 * instructions the guest executes: host load cannot stretch a handler or
 * the gap between two reads, and the shortfall is the handlers' own
 * instructions, the same under any load.
 */
static void storm_frozen(const char *what, int i, const struct imode_worker *w, double frozen)
{
	double tsc = (double)w->final[2];
	double e_ins = rel_err((double)w->final[0], tsc);
	double e_cyc = rel_err((double)w->final[1], tsc);

	printf("vm: %s thread %d: instructions %.3f%%, cycles %.3f%% off its TSC count\n", what,
	       i, 100.0 * e_ins, 100.0 * e_cyc);
	CHECK(e_ins < frozen && e_cyc < frozen && (double)w->final[0] < 1.001 * tsc &&
	      (double)w->final[1] < 1.001 * tsc,
	      "%s thread %d: counts are not its TSC count less PMI handling", what, i);
}

static void imode_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = imode_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
}

static void t_pmistorm(void)
{
	struct imode_worker w[NR_THREADS];
	pthread_t hog;
	int i;

	imode_signals();
	memset(w, 0, sizeof(w));
	/* an unattached thread on the same CPU: switches to no context */
	pthread_create(&hog, NULL, hog_fn, (void *)0L);
	run_threads(storm_fn, w, sizeof(w[0]), NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		imode_check("pmistorm", i, &w[i], STORM_PERIOD);
		storm_frozen("pmistorm", i, &w[i], 0.10);	/* measured 4.7% */
	}
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/*
 * ---- latepmi (emulated PMU, smp guest at host speed): one thread per CPU
 * with an i-mode counter every 50,000 ticks.  QEMU delivers the emulated
 * PMU's timer tens of microseconds late, more than a period, so each PMI
 * re-arms its counter anywhere in the next period, often close to its
 * next overflow, which then comes while the PMI is still being handled.
 * That PMI must be delivered (emulated_pmis_lost stays 0, checked by
 * init.sh) and the notifications must stay exact ----
 */

#define LATE_PERIOD	50000ull

static struct imode_worker late_workers[2];

static void *late_fn(void *arg)
{
	struct imode_worker *w = arg;
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	int fd;

	pin((int)(w - late_workers));
	imode_control(&ctl, LATE_PERIOD);
	fd = pmuvirt_user_open(1);
	if (fd < 0 || imode_attach(w, &u, fd, &ctl)) {
		w->err = errno;
		return NULL;
	}
	spin(LOOPS / 4);
	imode_finish(w, &u);
	close(fd);
	return NULL;
}

static void t_latepmi(void)
{
	int i;

	imode_signals();
	memset(late_workers, 0, sizeof(late_workers));
	for (i = 0; i < 2; i++)
		pthread_create(&late_workers[i].th, NULL, late_fn, &late_workers[i]);
	for (i = 0; i < 2; i++)
		pthread_join(late_workers[i].th, NULL);
	for (i = 0; i < 2; i++)
		imode_check("latepmi", i, &late_workers[i], LATE_PERIOD);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/*
 * ---- hotplug (emulated PMU, two CPUs): CPU 1 goes offline under an
 * attached thread and comes back with its PMU reset; the thread's counts
 * stay its own and its notifications go on on CPU 1 ----
 */

#define HOTPLUG_PERIOD	2000000ull

static volatile int hotplug_phase;

static int cpu_online(int cpu, int on)
{
	char path[64];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fprintf(f, "%d\n", on) < 0;
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

struct hotplug_worker {
	struct imode_worker w;
	int cpu_before, cpu_after;
	uint64_t at_return[3], notified_at_return;
};

static void *hotplug_fn(void *arg)
{
	struct hotplug_worker *h = arg;
	struct imode_worker *w = &h->w;
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	int fd;

	pin(1);
	imode_control(&ctl, HOTPLUG_PERIOD);
	fd = pmuvirt_user_open(1);
	if (fd < 0 || imode_attach(w, &u, fd, &ctl)) {
		w->err = errno;
		hotplug_phase = -1;
		return NULL;
	}
	spin(LOOPS / 4);
	h->cpu_before = sched_getcpu();
	hotplug_phase = 1;
	while (hotplug_phase == 1)
		spin(100000);	/* moved off CPU 1 while it is offline */
	pin(1);
	h->cpu_after = sched_getcpu();
	/* no take between the read and the copy: those taken are all below it */
	block_usr1(SIG_BLOCK);
	if (pmuvirt_user_read_ioctl(&u, h->at_return))
		w->err = errno;
	h->notified_at_return = w->notified;
	block_usr1(SIG_UNBLOCK);
	spin(LOOPS / 4);
	imode_finish(w, &u);
	close(fd);
	return NULL;
}

static void t_hotplug(void)
{
	struct hotplug_worker h;
	uint64_t after;
	int down, up;

	imode_signals();
	memset(&h, 0, sizeof(h));
	pin(0);
	pthread_create(&h.w.th, NULL, hotplug_fn, &h);
	while (!hotplug_phase)
		usleep(1000);
	down = hotplug_phase == 1 ? cpu_online(1, 0) : -1;
	usleep(200000);
	up = cpu_online(1, 1);
	usleep(50000);
	hotplug_phase = 2;
	pthread_join(h.w.th, NULL);
	after = (h.w.read_before[1] - h.at_return[1]) / HOTPLUG_PERIOD;
	printf("vm: hotplug: offline %s, online %s; thread on CPU %d, then %d; %llu notifications after CPU 1 came back, for %llu periods\n",
	       down ? "failed" : "ok", up ? "failed" : "ok", h.cpu_before, h.cpu_after,
	       (unsigned long long)(h.w.notified - h.notified_at_return),
	       (unsigned long long)after);
	CHECK(!down && !up, "CPU 1 offline/online: %s", strerror(errno));
	CHECK(h.cpu_before == 1 && h.cpu_after == 1, "the thread was not on CPU 1 before and after");
	/* at host speed: only what holds under any host load (see imode_check()) */
	imode_check("hotplug", 0, &h.w, HOTPLUG_PERIOD);
	/*
	 * After the return the counters go on (both grew) and so do the
	 * notifications: those taken since then number at least the periods
	 * the count crossed since then.
	 */
	CHECK(h.w.final[0] > h.at_return[0] && h.w.final[1] > h.at_return[1],
	      "the counters stopped after CPU 1 came back");
	CHECK(after >= 2 && h.w.notified - h.notified_at_return >= after,
	      "notifications did not go on after CPU 1 came back");
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/* ---- exec: the context stays with the thread across exec ---- */

/*
 * ---- isolation (emulated PMU): another process's events never show ----
 *
 * The observer reads its own record in a loop while something else shares
 * CPU 0.  At each switch-out the record's count grows by raw_out - start,
 * so raw_out = start_prev + (count_new - count_prev); at the next switch-in
 * start = the raw value then.  raw_in - raw_out would be the events of
 * whatever ran in between.  After another process ran, the counters must
 * have been re-based to half a range below the threshold (x86: 0), so
 * raw_in is that constant; after a thread of the same process, nothing is
 * written and raw_in - raw_out is the sibling's work.  When nothing else
 * counted in between (idle, an unattached kernel thread), raw_in - raw_out
 * is the observer's own switch-in path between re-enabling the counters and
 * sampling them: a few thousand events, where any other spinner's slice is
 * at least a scheduler tick (a million events under icount).
 */
#define ISO_OWN_PATH	100000ull

struct iso_result {
	unsigned int switches, rebased, own, carried;
	uint64_t own_max, carried_max;
};

static void iso_observe(const struct pmuvirt_user *u, uint64_t iterations, struct iso_result *r)
{
	const volatile struct pmuvirt_shared_ctx *rec = u->rec;
	const uint64_t width = rec->counter[0].width;
	const uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
	const uint64_t rebase = (0 - (1ull << (width - 1))) & mask;
	uint64_t count_p = 0, start_p = 0, n;
	int have = 0;

	memset(r, 0, sizeof(*r));
	for (n = 0; n < iterations; n++) {
		uint32_t seq = rec->seq;
		uint64_t count, start, raw_out;

		__sync_synchronize();
		count = rec->counter[0].count;
		start = rec->counter[0].start;
		__sync_synchronize();
		if ((seq & 1) || rec->seq != seq)
			continue;
		if (have && (count != count_p || start != start_p)) {
			raw_out = (start_p + (count - count_p)) & mask;
			r->switches++;
			uint64_t moved = (start - raw_out) & mask;

			if (start == rebase) {
				r->rebased++;
			} else if (moved < ISO_OWN_PATH) {
				r->own++;
				r->own_max = moved > r->own_max ? moved : r->own_max;
			} else {
				r->carried++;
				r->carried_max = moved > r->carried_max ? moved : r->carried_max;
			}
		}
		count_p = count;
		start_p = start;
		have = 1;
	}
}

static void *iso_sibling_fn(void *arg)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	int fd = pmuvirt_user_open(1);

	pin(0);
	memset(&ctl, 0, sizeof(ctl));
	ctl.version = PMUVIRT_ABI_VERSION;
	ctl.nr_counters = 1;
	ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	if (fd >= 0 && !pmuvirt_user_attach(&u, fd, &ctl, 0, 0)) {
		spin(*(uint64_t *)arg);
		pmuvirt_user_detach(&u, NULL);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void t_isolation(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	struct iso_result other, same;
	uint64_t work = 4 * LOOPS;
	pthread_t th;
	pid_t pid;
	int fd = pmuvirt_user_open(1), status;

	pin(0);
	memset(&ctl, 0, sizeof(ctl));
	ctl.version = PMUVIRT_ABI_VERSION;
	ctl.nr_counters = 1;
	ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	CHECK(fd >= 0 && !pmuvirt_user_attach(&u, fd, &ctl, 0, 0), "attach: %s", strerror(errno));
	if (failed)
		return;

	/* another process with the same control spins on CPU 0 */
	pid = fork();
	if (!pid) {
		iso_sibling_fn(&work);
		_exit(0);
	}
	iso_observe(&u, LOOPS / 2, &other);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);

	/* a thread of this process does the same */
	pthread_create(&th, NULL, iso_sibling_fn, &work);
	iso_observe(&u, LOOPS / 2, &same);
	pthread_join(th, NULL);

	printf("vm: isolation: next to another process: %u switch-ins, %u re-based, %u after no other count (own path up to %llu events), %u carried other events (up to %llu)\n",
	       other.switches, other.rebased, other.own, (unsigned long long)other.own_max,
	       other.carried, (unsigned long long)other.carried_max);
	printf("vm: isolation: next to a thread of the same process: %u switch-ins, %u re-based, %u after no other count, %u carried its sibling's events (up to %llu)\n",
	       same.switches, same.rebased, same.own, same.carried,
	       (unsigned long long)same.carried_max);
	CHECK(other.rebased >= 3, "the counters were not re-based after another process ran");
	CHECK(other.carried == 0, "%u switch-ins showed another process's events", other.carried);
	CHECK(same.carried >= 3 && same.rebased == 0,
	      "threads of one process: the switch wrote the counters");
	CHECK(!pmuvirt_user_detach(&u, NULL), "detach: %s", strerror(errno));
	close(fd);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

static void t_exec(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	pid_t pid;
	int status;

	pid = fork();
	if (!pid) {
		int fd = pmuvirt_user_open(1);

		work_control(&ctl);
		if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, 0, 0))
			_exit(20);
		spin(LOOPS / 4);
		execl(self, self, "exec-child", (char *)NULL);
		_exit(21);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exec child status %#x", status);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

static int exec_child(void)
{
	struct pmuvirt_user u;
	uint64_t v0 = 0, v1 = 0;
	int fd = pmuvirt_user_open(1);

	memset(&u, 0, sizeof(u));
	u.fd = fd;
	u.nr_counters = 1;
	if (fd < 0 || pmuvirt_user_read_ioctl(&u, &v0))
		return 30;
	u.rec = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (u.rec == MAP_FAILED)
		return 31;
	u.caps = WORK_CAPS;
	spin(LOOPS / 4);
	if (pmuvirt_user_read(&u, &v1) || !u.direct_reads)
		return 32;
	printf("vm: exec: count before exec's own work %llu, after %llu more (want about %llu)\n",
	       (unsigned long long)v0, (unsigned long long)(v1 - v0),
	       (unsigned long long)(LOOPS / 2));
	if (v0 < LOOPS / 2 || rel_err((double)(v1 - v0), LOOPS / 2.0) > MAX_ERR)
		return 33;
	return pmuvirt_user_detach(&u, NULL) ? 34 : 0;
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

static void t_malformed(void)
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
	BAD(a.reserved[1] = 1, EINVAL);
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

/* ---- hold: threads stay attached until killed (for the unload check) ---- */

static void *hold_fn(void *arg)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	int fd = pmuvirt_user_open(1);

	work_control(&ctl);
	if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, 0, 0))
		printf("vm: hold: attach failed: %s\n", strerror(errno));
	for (;;)
		usleep(1000 + (unsigned int)(long)arg);
	return NULL;
}

static void t_hold(void)
{
	pthread_t th[2];

	pthread_create(&th[0], NULL, hold_fn, (void *)1L);
	pthread_create(&th[1], NULL, hold_fn, (void *)2L);
	hold_fn((void *)3L);
}

/*
 * ---- reap: once wait() has returned for every process that used the
 * module, nothing holds it: an rmmod right then succeeds ----
 */

#define REAP_ROUNDS	40

static int module_refcnt(void)
{
	FILE *f = fopen("/sys/module/pmuvirt/refcnt", "r");
	int n = -1;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

static void *reap_fn(void *arg)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;

	work_control(&ctl);
	if (pmuvirt_user_attach(&u, *(int *)arg, &ctl, 0, 0))
		return (void *)1L;
	spin(100000);
	return NULL;	/* exits attached */
}

/* A process whose three threads attach and exit attached, two of them before it. */
static int reap_child(void)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	pthread_t th[2];
	void *r[2] = { (void *)1L, (void *)1L };
	int fd = pmuvirt_user_open(1), i;

	work_control(&ctl);
	if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, PMUVIRT_ATTACH_REPORT, 0))
		return 20;
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, reap_fn, &fd))
			return 21;
	spin(100000);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], &r[i]);
	return r[0] || r[1] ? 22 : 0;
}

static void t_reap(void)
{
	int base = module_refcnt(), held = 0, most = 0, status, i, n;
	pid_t pid;

	CHECK(base >= 0, "no /sys/module/pmuvirt/refcnt");
	for (i = 0; i < REAP_ROUNDS; i++) {
		pid = fork();
		if (!pid)
			_exit(reap_child());
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0, "round %d: child status %#x", i, status);
		n = module_refcnt();	/* at once: no sleep, no retry */
		if (n != base) {
			held++;
			most = n - base > most ? n - base : most;
		}
	}
	printf("vm: reap: %d rounds of a process with three attached threads; module references left right after wait(): %d rounds (at most %d)\n",
	       REAP_ROUNDS, held, most);
	CHECK(!held, "the module was still referenced after wait() in %d of %d rounds", held,
	      REAP_ROUNDS);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

#ifdef __x86_64__
/* ---- sample (emulated PMU): IP sampling per thread, a known 3:1 split ---- */

/*
 * Four spin loops, each its own code range: thread 0 spends 3/4 of its
 * instructions in A and 1/4 in B, thread 1 likewise in C and D.
 */
#define SPIN_FN(name)								\
	__asm__(".text\n.globl " #name "\n.type " #name ", @function\n"		\
		#name ":\n1: dec %rdi\n\tjnz 1b\n\tret\n"			\
		".globl " #name "_end\n" #name "_end:\n.size " #name ", . - " #name "\n")
SPIN_FN(spin_a);
SPIN_FN(spin_b);
SPIN_FN(spin_c);
SPIN_FN(spin_d);
extern void spin_a(uint64_t), spin_b(uint64_t), spin_c(uint64_t), spin_d(uint64_t);
extern const char spin_a_end[], spin_b_end[], spin_c_end[], spin_d_end[];

#define SAMPLE_PERIOD	20000	/* 50000 PMIs per second under icount: below max_pmi_rate */
#define SAMPLE_PAGES	64
#define SAMPLE_ROUNDS	50
#define SAMPLE_K	1000000ull	/* B's iterations per round; A's are 3 * K */

#define SKIDS		65536

struct sample_worker {
	pthread_t th;
	int idx;
	uint32_t tid;
	uint64_t hits[2], hit_weight, other, foreign, wrong_tid, kernel, wrong_mode, records, lost,
		 weight, late;
	uint64_t skid[SKIDS];	/* events past the first boundary crossed, at the PMI */
	unsigned int nr_skid;
	int err;
	const char *what;
};

static int in_fn(uint64_t ip, void (*fn)(uint64_t), const char *end)
{
	return ip >= (uint64_t)(uintptr_t)fn && ip < (uint64_t)(uintptr_t)end;
}

static void sample_account(struct sample_worker *w, const struct pmuvirt_sample *s)
{
	void (*mine[2])(uint64_t) = { w->idx ? spin_c : spin_a, w->idx ? spin_d : spin_b };
	const char *mine_end[2] = { w->idx ? spin_c_end : spin_a_end,
				    w->idx ? spin_d_end : spin_b_end };
	void (*theirs[2])(uint64_t) = { w->idx ? spin_a : spin_c, w->idx ? spin_b : spin_d };
	const char *theirs_end[2] = { w->idx ? spin_a_end : spin_c_end,
				      w->idx ? spin_b_end : spin_d_end };

	w->records++;
	w->weight += s->weight;
	if (s->weight > 1)
		w->late++;
	if ((s->flags & PMUVIRT_SAMPLE_VALUES) && s->nr_values && w->nr_skid < SKIDS)
		w->skid[w->nr_skid++] = s->value[0] % SAMPLE_PERIOD +
					(uint64_t)(s->weight - 1) * SAMPLE_PERIOD;
	if (s->tid != w->tid)
		w->wrong_tid++;
	if (!(s->flags & PMUVIRT_SAMPLE_USER))
		w->kernel++;
	/* x86-64: user addresses below 2^47, the kernel's from 0xffff8000'00000000 */
	if (!(s->flags & PMUVIRT_SAMPLE_USER) != (s->ip >= 0xffff800000000000ull))
		w->wrong_mode++;
	if (in_fn(s->ip, mine[0], mine_end[0]))
		w->hits[0]++;
	else if (in_fn(s->ip, mine[1], mine_end[1]))
		w->hits[1]++;
	if (in_fn(s->ip, mine[0], mine_end[0]) || in_fn(s->ip, mine[1], mine_end[1]))
		w->hit_weight += s->weight;
	else if (in_fn(s->ip, theirs[0], theirs_end[0]) || in_fn(s->ip, theirs[1], theirs_end[1]))
		w->foreign++;
	else
		w->other++;
}

/* Take every record there is and give the room back. */
static int sample_drain(struct sample_worker *w, struct pmuvirt_sample_reader *r, int fd,
			int publish)
{
	static __thread struct pmuvirt_sample out[64];
	int n, i;

	while ((n = pmuvirt_sample_read(r, out, 64)) > 0)
		for (i = 0; i < n; i++)
			sample_account(w, &out[i]);
	if (n < 0)
		return n;
	if (!publish)
		return 0;
	return pmuvirt_user_sample_tail(fd, r) ? -errno : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void sample_control(struct pmuvirt_attach *a, uint32_t pages)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->version = PMUVIRT_LINUX_VERSION;
	a->sample_pages = pages;
	a->control.version = PMUVIRT_ABI_VERSION;
	a->control.nr_counters = 2;
	a->control.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	a->control.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL | PMUVIRT_CTR_SAMPLE |
				      PMUVIRT_CTR_SAMPLE_VALUES;
	a->control.counter[0].period = SAMPLE_PERIOD;
	a->control.counter[1].event = PMUVIRT_EV_TSC;
}

static void *sample_fn(void *arg)
{
	struct sample_worker *w = arg;
	size_t len = (size_t)SAMPLE_PAGES * 4096;
	struct pmuvirt_sample_reader r;
	struct pmuvirt_counts c;
	struct pmuvirt_attach a;
	void *ring;
	int fd, round, ret;

	pin(0);
	w->tid = (uint32_t)syscall(SYS_gettid);
	fd = pmuvirt_user_open(1);
	sample_control(&a, SAMPLE_PAGES);
	if (fd < 0 || ioctl(fd, PMUVIRT_IOC_ATTACH, &a)) {
		w->err = errno;
		w->what = "attach";
		pthread_barrier_wait(&start_barrier);
		return NULL;
	}
	ring = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)PMUVIRT_SAMPLE_PGOFF * 4096);
	if (ring == MAP_FAILED || pmuvirt_sample_reader_init(&r, ring, len)) {
		w->err = ring == MAP_FAILED ? errno : EPROTO;
		w->what = "map";
	}
	pthread_barrier_wait(&start_barrier);
	for (round = 0; !w->err && round < SAMPLE_ROUNDS; round++) {
		if (w->idx) {
			spin_c(3 * SAMPLE_K);
			spin_d(SAMPLE_K);
		} else {
			spin_a(3 * SAMPLE_K);
			spin_b(SAMPLE_K);
		}
		ret = sample_drain(w, &r, fd, 1);
		if (ret) {
			w->err = -ret;
			w->what = "drain";
		}
	}
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	if (ioctl(fd, PMUVIRT_IOC_DETACH, &c) && !w->err) {
		w->err = errno;
		w->what = "detach";
	}
	/* the mapping outlives the context: the last records are still there */
	if (!w->err && sample_drain(w, &r, fd, 0) == 0)
		w->lost = pmuvirt_sample_lost(&r);
	if (ring != MAP_FAILED)
		munmap(ring, len);
	close(fd);
	return NULL;
}

/*
 * A recorder's rings (PMUVIRT_ATTACH_SAMPLE_FILE): refused without REPORT,
 * with an overflow signal or without a sampling counter; the thread's own
 * ring comes out of the file once, as a descriptor that maps it read-only
 * and whole, takes its tail, and outlives the context.
 */
static void sample_file_checks(int fd)
{
	struct pmuvirt_sample_open o;
	struct pmuvirt_sample_tail t;
	struct pmuvirt_attach a;
	struct pmuvirt_counts c;
	void *p;

	sample_control(&a, 4);
	a.flags = PMUVIRT_ATTACH_SAMPLE_FILE;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "SAMPLE_FILE without REPORT");
	a.flags = PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_SAMPLE_FILE;
	a.signo = SIGUSR1;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "SAMPLE_FILE with a signal");
	sample_control(&a, 0);
	a.control.counter[0].flags &= ~PMUVIRT_CTR_SAMPLE;
	a.flags = PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_SAMPLE_FILE;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL,
	      "SAMPLE_FILE without a sampling counter");
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.version = PMUVIRT_LINUX_VERSION;
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_OPEN, &o) && errno == EAGAIN, "a ring out of an empty file");
	o.reserved[1] = 1;
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_OPEN, &o) && errno == EINVAL, "SAMPLE_OPEN reserved field");
	o.reserved[1] = 0;

	sample_control(&a, 4);
	a.flags = PMUVIRT_ATTACH_REPORT | PMUVIRT_ATTACH_SAMPLE_FILE;
	CHECK(!ioctl(fd, PMUVIRT_IOC_ATTACH, &a), "attach with SAMPLE_FILE: %s", strerror(errno));
	CHECK(!ioctl(fd, PMUVIRT_IOC_SAMPLE_OPEN, &o), "SAMPLE_OPEN: %s", strerror(errno));
	CHECK(o.tid == (uint32_t)syscall(SYS_gettid) && o.pid == (uint32_t)getpid() && o.pages == 4 &&
	      o.fd >= 0 && !o.dropped, "SAMPLE_OPEN: tid %u pid %u pages %u fd %d dropped %u", o.tid,
	      o.pid, o.pages, o.fd, o.dropped);
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_OPEN, &o) && errno == EAGAIN, "the ring came out twice");
	CHECK(fcntl(o.fd, F_GETFD) & FD_CLOEXEC, "ring descriptor without close-on-exec");
	/* a read-only descriptor: the kernel refuses a writable shared mapping itself */
	p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, o.fd, 0);
	CHECK(p == MAP_FAILED && errno == EACCES, "writable mapping of a ring descriptor");
	p = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, o.fd, 0);
	CHECK(p == MAP_FAILED && errno == EINVAL, "ring descriptor mapped in part");
	p = mmap(NULL, 4 * 4096, PROT_READ, MAP_SHARED, o.fd, 4096);
	CHECK(p == MAP_FAILED && errno == EINVAL, "ring descriptor mapped at an offset");
	p = mmap(NULL, 4 * 4096, PROT_READ, MAP_SHARED, o.fd, 0);
	CHECK(p != MAP_FAILED, "ring descriptor mapping: %s", strerror(errno));
	if (p != MAP_FAILED)
		CHECK(mprotect(p, 4096, PROT_READ | PROT_WRITE) && errno == EACCES,
		      "ring descriptor mapping made writable");
	CHECK(ioctl(o.fd, PMUVIRT_IOC_READ, &c) && errno == ENOTTY, "READ on a ring descriptor");
	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	t.version = PMUVIRT_LINUX_VERSION;
	t.tail = (p != MAP_FAILED ? ((const struct pmuvirt_sample_ring *)p)->head : 0) + 0x10000;
	CHECK(ioctl(o.fd, PMUVIRT_IOC_SAMPLE_TAIL, &t) && errno == EINVAL,
	      "ring descriptor: tail ahead of head");
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	CHECK(!ioctl(fd, PMUVIRT_IOC_DETACH, &c), "detach: %s", strerror(errno));
	/* the descriptor keeps the ring after its context is gone */
	t.tail = p != MAP_FAILED ? ((const struct pmuvirt_sample_ring *)p)->head : 0;
	CHECK(!ioctl(o.fd, PMUVIRT_IOC_SAMPLE_TAIL, &t), "ring descriptor after detach: %s",
	      strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, 4 * 4096);
	close(o.fd);
}

static void t_sample(void)
{
	static struct sample_worker w[2];
	struct pmuvirt_sample_tail t;
	struct pmuvirt_attach a;
	struct pmuvirt_counts c;
	void *p;
	int fd, i;

	/* the overflow signal (SIGIO, once until a resume) is not what this is about */
	signal(SIGIO, SIG_IGN);
	/* refused: a sampling counter without a ring, a ring without one, a bad size */
	fd = pmuvirt_user_open(1);
	CHECK(fd >= 0, "open: %s", strerror(errno));
	sample_control(&a, 0);
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "SAMPLE without sample_pages");
	sample_control(&a, 3);
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "sample_pages 3");
	sample_control(&a, 512);
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "sample_pages 512");
	sample_control(&a, 4);
	a.control.counter[0].flags &= ~PMUVIRT_CTR_SAMPLE;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "sample_pages without SAMPLE");
	sample_control(&a, 4);
	a.control.counter[0].period = 0;
	CHECK(ioctl(fd, PMUVIRT_IOC_ATTACH, &a) && errno == EINVAL, "SAMPLE on an a-mode counter");
	/* a ring: mapped read-only, whole, and the tail checked */
	sample_control(&a, 4);
	CHECK(!ioctl(fd, PMUVIRT_IOC_ATTACH, &a), "attach with a ring: %s", strerror(errno));
	p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)PMUVIRT_SAMPLE_PGOFF * 4096);
	CHECK(p == MAP_FAILED && errno == EPERM, "writable ring mapping");
	p = mmap(NULL, 8 * 4096, PROT_READ, MAP_SHARED, fd, (off_t)PMUVIRT_SAMPLE_PGOFF * 4096);
	CHECK(p == MAP_FAILED && errno == EINVAL, "ring mapping of the wrong size");
	p = mmap(NULL, 4 * 4096, PROT_READ, MAP_SHARED, fd, (off_t)PMUVIRT_SAMPLE_PGOFF * 4096);
	CHECK(p != MAP_FAILED, "ring mapping: %s", strerror(errno));
	if (p != MAP_FAILED) {
		CHECK(mprotect(p, 4096, PROT_READ | PROT_WRITE) && errno == EACCES,
		      "ring mapping made writable");
		CHECK(((const struct pmuvirt_sample_ring *)p)->nr_records == 64,
		      "a 4-page ring holds %u records", ((const struct pmuvirt_sample_ring *)p)->nr_records);
	}
	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	t.version = PMUVIRT_LINUX_VERSION;
	/* far enough ahead that records written meanwhile cannot reach it */
	t.tail = (p != MAP_FAILED ? ((const struct pmuvirt_sample_ring *)p)->head : 0) + 0x10000;
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_TAIL, &t) && errno == EINVAL, "tail ahead of head");
	t.tail -= 0x10000;
	t.reserved = 1;
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_TAIL, &t) && errno == EINVAL, "reserved field");
	t.reserved = 0;
	CHECK(!ioctl(fd, PMUVIRT_IOC_SAMPLE_TAIL, &t), "tail at head: %s", strerror(errno));
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.version = PMUVIRT_LINUX_VERSION;
	CHECK(!ioctl(fd, PMUVIRT_IOC_DETACH, &c), "detach: %s", strerror(errno));
	CHECK(ioctl(fd, PMUVIRT_IOC_SAMPLE_TAIL, &t) && errno == ESRCH, "tail without a context");
	if (p != MAP_FAILED)
		munmap(p, 4 * 4096);
	sample_file_checks(fd);
	close(fd);

	/* two threads on one CPU, each with its own ring */
	memset(w, 0, sizeof(w));
	for (i = 0; i < 2; i++)
		w[i].idx = i;
	run_threads(sample_fn, w, sizeof(w[0]), 2);
	for (i = 0; i < 2; i++) {
		double ratio = w[i].hits[1] ? (double)w[i].hits[0] / (double)w[i].hits[1] : 0;
		uint64_t want = SAMPLE_ROUNDS * 8 * SAMPLE_K / SAMPLE_PERIOD;

		printf("vm: sample thread %d: %llu records (weight %llu; the loops are %llu periods), %s %llu, %s %llu: ratio %.4f (error %.2f%% of 3:1), elsewhere %llu, other thread's code %llu, wrong tid %llu, kernel %llu, lost %llu\n",
		       i, (unsigned long long)w[i].records, (unsigned long long)w[i].weight,
		       (unsigned long long)want, i ? "C" : "A", (unsigned long long)w[i].hits[0],
		       i ? "D" : "B", (unsigned long long)w[i].hits[1], ratio,
		       100.0 * rel_err(ratio, 3.0), (unsigned long long)w[i].other,
		       (unsigned long long)w[i].foreign, (unsigned long long)w[i].wrong_tid,
		       (unsigned long long)w[i].kernel, (unsigned long long)w[i].lost);
		CHECK(!w[i].err, "thread %d: %s: %s", i, w[i].what, strerror(w[i].err));
		CHECK(rel_err(ratio, 3.0) < 0.03, "thread %d: ratio %.4f not within 3%% of 3", i,
		      ratio);
		CHECK(!w[i].foreign && !w[i].wrong_tid, "thread %d: records of the other thread", i);
		/* the drain's ioctls and interrupts: some PMIs come in the kernel, and say so */
		CHECK(w[i].kernel && !w[i].wrong_mode,
		      "thread %d: %llu kernel records, %llu with the wrong mode for their IP", i,
		      (unsigned long long)w[i].kernel, (unsigned long long)w[i].wrong_mode);
		CHECK(!w[i].lost, "thread %d: %llu records lost", i, (unsigned long long)w[i].lost);
		/*
		 * How far past the overflow the PMI read the counters: the
		 * sampling counter's value in the record, past the first
		 * period boundary the record stands for (docs/sampling.md).
		 */
		qsort(w[i].skid, w[i].nr_skid, sizeof(w[i].skid[0]), cmp_u64);
		if (w[i].nr_skid)
			printf("vm: sample thread %d: at the PMI, events past the overflow: median %llu, 90th percentile %llu, max %llu (%u records); %llu records of weight above 1\n",
			       i, (unsigned long long)w[i].skid[w[i].nr_skid / 2],
			       (unsigned long long)w[i].skid[w[i].nr_skid * 9 / 10],
			       (unsigned long long)w[i].skid[w[i].nr_skid - 1], w[i].nr_skid,
			       (unsigned long long)w[i].late);
		CHECK(w[i].nr_skid == w[i].records, "thread %d: %u of %llu records with values", i,
		      w[i].nr_skid, (unsigned long long)w[i].records);
		/* nearly all of the thread's periods end in its two loops */
		CHECK(w[i].hit_weight >= want * 95 / 100 && w[i].weight >= want,
		      "thread %d: records of weight %llu in the loops for %llu periods", i,
		      (unsigned long long)w[i].hit_weight, (unsigned long long)want);
	}
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}

/*
 * ---- profile: the command pmuvirt-record runs (it attaches, not us) ----
 * Two threads on CPU 0, "spin-ab" with 3/4 of its loop instructions in A
 * and 1/4 in B, "spin-cd" likewise in C and D; each prints its tid.
 */
static int profile_rounds;

static void *profile_fn(void *arg)
{
	int idx = *(const int *)arg, round;

	pin(0);
	pthread_setname_np(pthread_self(), idx ? "spin-cd" : "spin-ab");
	printf("vm: profile thread %d tid %ld\n", idx, (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_barrier_wait(&start_barrier);
	for (round = 0; round < profile_rounds; round++) {
		if (idx) {
			spin_c(3 * SAMPLE_K);
			spin_d(SAMPLE_K);
		} else {
			spin_a(3 * SAMPLE_K);
			spin_b(SAMPLE_K);
		}
	}
	return NULL;
}

static void t_profile(int rounds)
{
	int idx[2] = { 0, 1 };

	profile_rounds = rounds;
	run_threads(profile_fn, idx, sizeof(idx[0]), 2);
}
#endif

/* ---- perf and the module share the PMU: one at a time ---- */

/* A hardware event of perf's counting this thread: its fd, or -errno. */
static int perf_open(void)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	return fd < 0 ? -errno : (int)fd;
}

/* perfopen ok|busy: perf can (cannot, EBUSY) count hardware events now. */
static void t_perfopen(const char *want)
{
	int fd = perf_open();

	printf("vm: perf hardware event: %s\n", fd >= 0 ? "opened" : strerror(-fd));
	if (!strcmp(want, "busy"))
		CHECK(fd == -EBUSY, "perf_event_open: want EBUSY, got %d", fd);
	else
		CHECK(fd >= 0, "perf_event_open: %s", strerror(-fd));
	if (fd >= 0)
		close(fd);
}

/* perfhold: perf holds the PMU until the process is killed. */
static void t_perfhold(void)
{
	int fd = perf_open();

	CHECK(fd >= 0, "perf_event_open: %s", strerror(-fd));
	printf("vm: perfhold: perf holds the PMU\n");
	if (fd >= 0)
		for (;;)
			pause();
}

#ifdef __powerpc64__
/*
 * ---- exact (POWER): each thread's instructions, to the instruction,
 * while three threads on one CPU preempt each other ----
 * Between two ioctl reads the count grows by the reads' own code (a
 * constant) plus the work between them: spin(n) is spin(1) plus 2(n - 1).
 * QEMU applies no per-PMC freeze (MMCR2): a user-mode counter also counts
 * the kernel, so a window holding an interrupt or a switch counts its
 * handler too.  The least of several windows is the thread's own work;
 * a context switch that lost or leaked counts shifts every window.
 */
#define EXACT_TRIES	8
static const uint64_t exact_n[3] = { 1000, 20000, 200000 };

struct exact_worker {
	pthread_t th;
	int64_t k_spin1, least[3], most[3];
	uint32_t seq;		/* the record's sequence: 2 per update (switch) */
	int err;
};

static int64_t exact_delta(struct pmuvirt_user *u, uint64_t n)
{
	uint64_t a = 0, b = 0;

	if (pmuvirt_user_read_ioctl(u, &a))
		return -1;
	spin(n);
	if (pmuvirt_user_read_ioctl(u, &b))
		return -1;
	return (int64_t)(b - a);
}

static void *exact_fn(void *arg)
{
	struct exact_worker *w = arg;
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	int64_t d;
	int fd, i, j;

	pin(0);
	fd = pmuvirt_user_open(1);
	work_control(&ctl);
	if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, 0, 0)) {
		w->err = errno;
		pthread_barrier_wait(&start_barrier);
		return NULL;
	}
	pthread_barrier_wait(&start_barrier);
	w->k_spin1 = INT64_MAX;
	for (j = 0; j < EXACT_TRIES; j++) {
		d = exact_delta(&u, 1);
		w->k_spin1 = d < w->k_spin1 ? d : w->k_spin1;
	}
	for (i = 0; i < 3; i++) {
		w->least[i] = INT64_MAX;
		for (j = 0; j < EXACT_TRIES; j++) {
			d = exact_delta(&u, exact_n[i]);
			w->least[i] = d < w->least[i] ? d : w->least[i];
			w->most[i] = d > w->most[i] ? d : w->most[i];
			/* let the others run between windows */
			spin(1000000);
		}
	}
	w->seq = u.rec ? u.rec->seq : 0;
	if (pmuvirt_user_detach(&u, NULL))
		w->err = errno;
	close(fd);
	return NULL;
}

static void t_exact(void)
{
	struct exact_worker w[NR_THREADS];
	int i, j;

	memset(w, 0, sizeof(w));
	run_threads(exact_fn, w, sizeof(w[0]), NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		CHECK(!w[i].err, "thread %d: %s", i, strerror(w[i].err));
		printf("vm: exact thread %d: spin(1) between two reads %lld; %u record updates (switches)\n",
		       i, (long long)w[i].k_spin1, w[i].seq / 2);
		CHECK(w[i].seq / 2 >= 6, "thread %d: the threads did not preempt each other", i);
		for (j = 0; j < 3; j++) {
			int64_t want = w[i].k_spin1 + 2 * ((int64_t)exact_n[j] - 1);

			printf("vm: exact thread %d: spin(%llu): least %lld (want %lld), most %lld\n",
			       i, (unsigned long long)exact_n[j], (long long)w[i].least[j],
			       (long long)want, (long long)w[i].most[j]);
			CHECK(w[i].least[j] == want, "thread %d: spin(%llu) off by %lld", i,
			      (unsigned long long)exact_n[j], (long long)(w[i].least[j] - want));
		}
	}
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
}
#endif

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
	{ "exact", t_exact },
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
#endif
	if (!strcmp(what, "imode")) {
		/* optional: the bound of the counts, or "shared" */
		imode_shared_clock = argc > 2 && !strcmp(argv[2], "shared");
		t_imode(argc > 2 && !imode_shared_clock ? strtod(argv[2], NULL) : MAX_ERR);
	} else if (!strcmp(what, "perfopen") && argc > 2) {
		t_perfopen(argv[2]);
	} else if (!run_named(what)) {
		fprintf(stderr, "usage: vmtest probe|accuracy|migrate|fork|inherit|sum|imode|pmistorm|latepmi|hotplug|isolation|throttle|exec|malformed|policy|evpolicy|suid|sigperm|hold|reap|perfopen ok|busy|perfhold|exact (POWER)|sample (x86)|profile ROUNDS (x86)|spin N|threads K N\n");
		return 2;
	}
	printf("vm: %s %s\n", what, failed ? "FAIL" : "ok");
	return failed;
}
