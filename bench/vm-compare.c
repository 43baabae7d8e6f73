// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * vm-compare: pmuvirt.ko against perf_event_open(), side by side, inside
 * the icount guest (-icount shift=0: one instruction is one TSC tick), so
 * every figure is an instruction count.
 *
 *  1. Ticks per read of the calling thread's count: pmuvirt's mapped read
 *     (libpmuvirt-user), pmuvirt's READ ioctl, perf's read() of a
 *     per-thread event, clock_gettime(CLOCK_THREAD_CPUTIME_ID).  Each read
 *     is bracketed by rdtsc; the bracket around an empty call is subtracted.
 *     Once in a process that never had a second thread (this program
 *     executed anew) and once in a thread with a live sibling: there the
 *     kernel takes a reference on the file at each fd-based system call,
 *     and glibc's read() (a cancellation point) takes its multi-threaded
 *     path.
 *  2. Ticks added per context switch: two threads pinned to CPU 0 ping-pong
 *     one byte through two pipes.  One round trip is two switches, two
 *     writes and two reads; the round trip is timed by rdtsc in thread A.
 *     Configurations: the module not loaded, loaded with nothing attached,
 *     pmuvirt on both threads, perf on both threads, and uncounted threads
 *     while another thread (blocked) counts.
 *
 * perf enables its scheduler hooks for every task while any per-task event
 * exists and disables them a second (HZ) after the last one is gone, so
 * each measurement starts after a sleep of 1.5 s (idle time costs nothing
 * under -icount sleep=off).  Each figure of one repetition is the median of
 * SAMPLES samples (timer ticks land in a few of them); the table gives the
 * median over the repetitions and their range.
 *
 * usage: vm-compare MODULE.ko [REPS]     (as root, in the guest)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "libpmuvirt-user.h"
#include "bench_util.h"

#define SAMPLES		2001
#define WARMUP		200
#define MAX_REPS	15

static const char *module;

static inline uint64_t rd_tsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

static __attribute__((noreturn)) void die(const char *what)
{
	printf("vmc: FAIL: %s: %s\n", what, strerror(errno));
	printf("VM-COMPARE-RESULT: FAIL\n");
	exit(1);
}

static void pin0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* 0: unload; 1: load; 2: load with the emulated PMU */
static void module_load(int load)
{
	char cmd[512];

	if (load)
		snprintf(cmd, sizeof(cmd), "insmod %s%s", module, load == 2 ? " emulate_pmu=1" : "");
	else
		snprintf(cmd, sizeof(cmd), "rmmod pmuvirt");
	if (system(cmd))
		die(cmd);
}

static void tsc_control(struct pmuvirt_control *ctl)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = 1;
	ctl->counter[0].event = PMUVIRT_EV_TSC;
}

/*
 * A perf event on the calling thread, any CPU; inherit 2: with
 * inherit_stat; sampling every @period with IP, TID and time (0: counting).
 */
static int perf_open_sampling(uint32_t type, uint64_t config, int inherit, uint64_t period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.inherit = !!inherit;
	a.inherit_stat = inherit == 2;
	a.sample_period = period;
	if (period)
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* A counting perf event, as perf_open_sampling(). */
static int perf_open(uint32_t type, uint64_t config, int inherit)
{
	return perf_open_sampling(type, config, inherit, 0);
}

/* ---- 1. reads ---- */

typedef int (*read_fn)(void *arg);

static __attribute__((noinline)) int read_nothing(void *arg __attribute__((unused)))
{
	__asm__ __volatile__("" ::: "memory");
	return 0;
}

static __attribute__((noinline)) int read_mapped(void *arg)
{
	uint64_t v;

	return pmuvirt_user_read(arg, &v);
}

static __attribute__((noinline)) int read_ioctl(void *arg)
{
	uint64_t v;

	return pmuvirt_user_read_ioctl(arg, &v);
}

static __attribute__((noinline)) int read_perf(void *arg)
{
	uint64_t v;

	return read(*(int *)arg, &v, sizeof(v)) == sizeof(v) ? 0 : -1;
}

static __attribute__((noinline)) int read_cputime(void *arg __attribute__((unused)))
{
	struct timespec ts;

	return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
}

/* Median ticks from the rdtsc before the call to the rdtsc after it. */
static uint64_t bracket(read_fn fn, void *arg)
{
	static uint64_t d[SAMPLES];
	read_fn volatile f = fn;
	int i;

	for (i = 0; i < WARMUP; i++)
		if (f(arg))
			die("read");
	for (i = 0; i < SAMPLES; i++) {
		uint64_t t0 = rd_tsc();

		if (f(arg))
			die("read");
		d[i] = rd_tsc() - t0;
	}
	return bench_median_u64(d, SAMPLES);
}

enum { R_MAPPED, R_IOCTL, R_PERF_SW, R_PERF_HW, R_CPUTIME, NR_READS };
static const char *const read_name[NR_READS] = {
	"pmuvirt mapped read (libpmuvirt-user, TSC counter)",
	"pmuvirt PMUVIRT_IOC_READ ioctl (TSC counter)",
	"perf read() of a per-thread task-clock event",
	"perf read() of a per-thread instructions event",
	"clock_gettime(CLOCK_THREAD_CPUTIME_ID)",
};

/* perf's scheduler hooks go off a second (HZ) after its last event closes. */
static void settle(void)
{
	usleep(1500000);
}

/* Ticks per read of each kind in the calling thread, -errno where it cannot run. */
static void reads(int64_t *out)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t empty, direct;
	int fd, pfd;

	empty = bracket(read_nothing, NULL);

	fd = pmuvirt_user_open(1);
	tsc_control(&ctl);
	if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl, 0, 0))
		die("pmuvirt attach");
	direct = u.direct_reads;
	out[R_MAPPED] = (int64_t)(bracket(read_mapped, &u) - empty);
	if (u.direct_reads - direct != WARMUP + SAMPLES || u.ioctl_reads) {
		errno = EAGAIN;
		die("pmuvirt reads fell back to the ioctl");
	}
	out[R_IOCTL] = (int64_t)(bracket(read_ioctl, &u) - empty);
	if (pmuvirt_user_detach(&u, NULL))
		die("pmuvirt detach");
	close(fd);

	pfd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
	if (pfd < 0)
		die("perf_event_open task-clock");
	out[R_PERF_SW] = (int64_t)(bracket(read_perf, &pfd) - empty);
	close(pfd);
	pfd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0);
	out[R_PERF_HW] = -errno;
	if (pfd >= 0) {
		out[R_PERF_HW] = (int64_t)(bracket(read_perf, &pfd) - empty);
		close(pfd);
	}
	out[R_CPUTIME] = (int64_t)(bracket(read_cputime, NULL) - empty);
}

/* In a freshly executed copy of this program: a process that never had a second thread. */
static void reads_single(int64_t *out)
{
	int p[2], status;
	char fd[16];
	pid_t pid;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(p[0]);
		snprintf(fd, sizeof(fd), "%d", p[1]);
		execl("/proc/self/exe", "vm-compare", "--reads", fd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], out, sizeof(*out) * NR_READS) != sizeof(*out) * NR_READS ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("reads in a new process");
	close(p[0]);
}

static void *sibling(void *arg)
{
	char c;

	return read(*(int *)arg, &c, 1) == 1 ? NULL : arg;
}

/* In a thread whose sibling waits in read(). */
static void reads_multi(int64_t *out)
{
	pthread_t t;
	int p[2];

	if (pipe(p) || pthread_create(&t, NULL, sibling, &p[0]))
		die("sibling thread");
	usleep(1000);	/* it waits */
	reads(out);
	if (write(p[1], "", 1) != 1 || pthread_join(t, NULL))
		die("sibling thread");
	close(p[0]);
	close(p[1]);
}

/* ---- 2. switches ---- */

enum { S_NOMOD, S_BASE, S_PMUVIRT, S_PMUVIRT_INH, S_PERF, S_PERF_INH, S_PERF_INH_STAT, S_PERF_HW,
       S_PMUVIRT_ELSE, S_PERF_ELSE, S_EMU_BASE, S_PMUVIRT_EMU_TSC, S_PMUVIRT_SAMPLE, S_PERF_SAMPLE, NR_SWITCH };
static const char *const switch_name[NR_SWITCH] = {
	"uncounted, pmuvirt.ko not loaded",
	"uncounted, pmuvirt.ko loaded (baseline)",
	"pmuvirt, each thread attached (TSC counter)",
	"pmuvirt, both inherited from their parent",
	"perf task-clock, each thread its own event",
	"perf task-clock, both inherited (perf stat)",
	"perf task-clock, both inherited, inherit_stat",
	"perf instructions, each thread its own event",
	"uncounted, their parent attached to pmuvirt",
	"uncounted, their parent has a task-clock event",
	"uncounted, emulate_pmu=1 (sampling baseline)",
	"pmuvirt, each thread attached (TSC counter)",
	"pmuvirt, each thread an i-mode sampling counter",
	"perf task-clock, each thread a sampling event",
};

/* Sampling rows: one sample per 10^7 instructions (pmuvirt) or 10 ms (perf): as often, under icount. */
#define SAMPLE_PERIOD	10000000ull
#define SAMPLE_PAGES	2

struct pingpong {
	int cfg;
	int ab[2], ba[2];	/* A -> B, B -> A */
	pthread_barrier_t ready;
	uint64_t d[WARMUP + SAMPLES];
	int err;
};

struct counting {
	struct pmuvirt_user u;
	int fd;
	void *ring;		/* perf's sampling ring */
};

/* A sampling task-clock event on the calling thread, its ring mapped (1 + SAMPLE_PAGES pages). */
static int perf_sampling(struct counting *c)
{
	int fd = perf_open_sampling(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, SAMPLE_PERIOD);

	if (fd < 0)
		return -1;
	c->ring = mmap(NULL, (1 + SAMPLE_PAGES) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c->ring == MAP_FAILED) {
		c->ring = NULL;
		close(fd);
		return -1;
	}
	return fd;
}

static volatile sig_atomic_t sigios;

static void on_sigio(int sig)
{
	(void)sig;
	sigios++;
}

/* One instructions counter (user and kernel mode) sampling every SAMPLE_PERIOD. */
static void sample_control(struct pmuvirt_control *ctl)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = 1;
	ctl->counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl->counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL | PMUVIRT_CTR_SAMPLE;
	ctl->counter[0].period = SAMPLE_PERIOD;
}

/* Each thread's own counting, for the configurations that are not inherited. */
static int count_start(struct pingpong *pp, struct counting *c)
{
	struct pmuvirt_control ctl;

	c->fd = -1;
	c->ring = NULL;
	switch (pp->cfg) {
	case S_PMUVIRT:
	case S_PMUVIRT_EMU_TSC:
		c->fd = pmuvirt_user_open(1);
		tsc_control(&ctl);
		if (c->fd < 0 || pmuvirt_user_attach(&c->u, c->fd, &ctl, 0, 0))
			return -1;
		break;
	case S_PMUVIRT_SAMPLE:
		c->fd = pmuvirt_user_open(1);
		sample_control(&ctl);
		if (c->fd < 0 ||
		    pmuvirt_user_attach_ring(&c->u, c->fd, &ctl, 0, 0, SAMPLE_PAGES))
			return -1;
		break;
	case S_PERF_SAMPLE:
		c->fd = perf_sampling(c);
		break;
	case S_PERF:
		c->fd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
		break;
	case S_PERF_HW:
		c->fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0);
		break;
	default:
		return 0;
	}
	return c->fd < 0 ? -1 : 0;
}

/* Each thread's count must have grown while it ran: the counting was live. */
static int count_stop(struct pingpong *pp, struct counting *c)
{
	uint64_t v = 0;
	int ret = 0;

	if (pp->cfg == S_PMUVIRT || pp->cfg == S_PMUVIRT_EMU_TSC || pp->cfg == S_PMUVIRT_SAMPLE)
		ret = pmuvirt_user_detach(&c->u, &v);
	else if (c->fd >= 0)
		ret = read(c->fd, &v, sizeof(v)) == sizeof(v) ? 0 : -1;
	if (c->ring)
		munmap(c->ring, (1 + SAMPLE_PAGES) * 4096);
	if (c->fd >= 0)
		close(c->fd);
	if (!ret && c->fd >= 0 && !v) {
		errno = EIO;
		ret = -1;
	}
	return ret;
}

/* B's round trips: wait for A's byte, answer it; 0 or an errno. */
static int trips_b(struct pingpong *pp)
{
	char b;
	int i;

	for (i = 0; i < WARMUP + SAMPLES; i++)
		if (read(pp->ab[0], &b, 1) != 1 || write(pp->ba[1], &b, 1) != 1)
			return errno ? errno : EIO;
	return 0;
}

/* A's round trips: send a byte, wait for the answer, time both; 0 or an errno. */
static int trips_a(struct pingpong *pp)
{
	char b = 0;
	int i;

	for (i = 0; i < WARMUP + SAMPLES; i++) {
		uint64_t t0 = rd_tsc();

		if (write(pp->ab[1], &b, 1) != 1 || read(pp->ba[0], &b, 1) != 1)
			return errno ? errno : EIO;
		pp->d[i] = rd_tsc() - t0;
	}
	return 0;
}

/*
 * One side of the ping-pong, counted as the configuration says.  Its
 * sending end @wfd is closed last: the other side, waiting for a byte that
 * will not come, sees the end of the file.
 */
static void *side(struct pingpong *pp, int (*trips)(struct pingpong *pp), int wfd)
{
	struct counting c;
	int err = 0;

	pin0();
	if (count_start(pp, &c))
		err = errno;
	pthread_barrier_wait(&pp->ready);
	if (!err)
		err = trips(pp);
	if (count_stop(pp, &c) && !err)
		err = errno;
	if (err && !pp->err)
		pp->err = err;	/* the first error, not the other thread's EOF */
	close(wfd);
	return NULL;
}

static void *thread_b(void *arg)
{
	struct pingpong *pp = arg;

	return side(pp, trips_b, pp->ba[1]);
}

static void *thread_a(void *arg)
{
	struct pingpong *pp = arg;

	return side(pp, trips_a, pp->ab[1]);
}

/* Median ticks per round trip (two switches), or -errno. */
static int64_t pingpong(int cfg)
{
	static struct pingpong pp;
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	pthread_t a, b;
	int fd = -1, pfd = -1;
	uint64_t v;

	settle();
	memset(&pp, 0, sizeof(pp));
	pp.cfg = cfg;
	if (pipe(pp.ab) || pipe(pp.ba))
		die("pipe");
	pthread_barrier_init(&pp.ready, NULL, 2);
	if (cfg == S_PMUVIRT_INH || cfg == S_PMUVIRT_ELSE) {
		fd = pmuvirt_user_open(1);
		tsc_control(&ctl);
		if (fd < 0 || pmuvirt_user_attach(&u, fd, &ctl,
						   cfg == S_PMUVIRT_INH ? PMUVIRT_ATTACH_INHERIT : 0, 0))
			die("pmuvirt attach of the parent");
	} else if (cfg == S_PERF_INH || cfg == S_PERF_INH_STAT || cfg == S_PERF_ELSE) {
		pfd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
				cfg == S_PERF_INH ? 1 : cfg == S_PERF_INH_STAT ? 2 : 0);
		if (pfd < 0)
			die("perf_event_open task-clock of the parent");
	}
	if (pthread_create(&a, NULL, thread_a, &pp) || pthread_create(&b, NULL, thread_b, &pp))
		die("pthread_create");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (fd >= 0) {
		if (pmuvirt_user_detach(&u, NULL))
			die("pmuvirt detach of the parent");
		close(fd);
	}
	if (pfd >= 0) {
		/* inherited: the parent's count holds its children's, which ran */
		if (read(pfd, &v, sizeof(v)) != sizeof(v) || (cfg != S_PERF_ELSE && v < 1000000))
			die("perf count of the parent");
		close(pfd);
	}
	close(pp.ab[0]);
	close(pp.ba[0]);
	pthread_barrier_destroy(&pp.ready);
	if (pp.err)
		return -pp.err;
	return (int64_t)bench_median_u64(pp.d + WARMUP, SAMPLES);
}

/* The module's emulated_ticks (TSC ticks spent emulating the PMU), or 0 without the file. */
static uint64_t emulated_ticks(void)
{
	FILE *f = fopen("/sys/module/pmuvirt/parameters/emulated_ticks", "r");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * @out: ticks per round trip of each configuration; @emu: of the sampling
 * rows, the emulation's ticks per round trip (a mean over the whole run).
 */
static void switches(int64_t *out, int64_t *emu)
{
	int cfg;

	module_load(0);
	out[S_NOMOD] = pingpong(S_NOMOD);
	module_load(1);
	for (cfg = S_BASE; cfg < S_EMU_BASE; cfg++)
		out[cfg] = pingpong(cfg);
	/* The sampling rows: pmuvirt's i-mode counter needs a PMU, the emulated one here. */
	module_load(0);
	module_load(2);
	for (cfg = S_EMU_BASE; cfg < NR_SWITCH; cfg++) {
		uint64_t t0 = emulated_ticks();

		out[cfg] = pingpong(cfg);
		emu[cfg] = (int64_t)((emulated_ticks() - t0) / (WARMUP + SAMPLES));
	}
	module_load(0);
	module_load(1);
}

/* ---- the table ---- */

#define NR_COLS 16	/* at least NR_READS and NR_SWITCH */

/* Median and range over the repetitions of column @k of @v. */
static void stats(int64_t (*v)[NR_COLS], int n, int k,
		  int64_t *med, int64_t *lo, int64_t *hi)
{
	int64_t s[MAX_REPS];
	int i, j;

	for (i = 0; i < n; i++)
		s[i] = v[i][k];
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && s[j - 1] > s[j]; j--) {
			int64_t t = s[j];

			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	*med = s[n / 2];
	*lo = s[0];
	*hi = s[n - 1];
}

static const char *range(int64_t lo, int64_t hi, double div)
{
	static char buf[64];

	if (lo == hi)
		snprintf(buf, sizeof(buf), "exact");
	else
		snprintf(buf, sizeof(buf), "%g..%g", lo / div, hi / div);
	return buf;
}

int main(int argc, char **argv)
{
	static int64_t rd1[MAX_REPS][NR_COLS], rd2[MAX_REPS][NR_COLS], sw[MAX_REPS][NR_COLS];
	static int64_t emu[MAX_REPS][NR_COLS];
	int64_t med, lo, hi, perf1, perf2, map1, map2, base, emu_base, pmuvirt_add = 0, perf_add = 0;
	int64_t pmuvirt_sample_add = 0, perf_sample_add = 0, pmuvirt_emu = 0, tsc_emu_own = 0;
	int64_t untimed, own;
	int reps, r, k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: vm-compare MODULE.ko [REPS]\n");
		return 2;
	}
	if (!strcmp(argv[1], "--reads") && argc > 2) {
		int64_t out[NR_READS];

		pin0();
		reads(out);
		return write(atoi(argv[2]), out, sizeof(out)) != sizeof(out);
	}
	module = argv[1];
	reps = argc > 2 ? atoi(argv[2]) : 5;
	if (reps < 1 || reps > MAX_REPS)
		reps = 5;
	pin0();
	/* pmuvirt notifies a sampling thread with SIGIO (attach signo 0): counted, not fatal */
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigio;
		sa.sa_flags = SA_RESTART;
		if (sigaction(SIGIO, &sa, NULL))
			die("sigaction");
	}
	for (r = 0; r < reps; r++) {
		settle();
		reads_single(rd1[r]);
		settle();
		reads_multi(rd2[r]);
		switches(sw[r], emu[r]);
		printf("vmc: repetition %d: reads", r + 1);
		for (k = 0; k < NR_READS; k++)
			printf(" %lld/%lld", (long long)rd1[r][k], (long long)rd2[r][k]);
		printf(", round trips");
		for (k = 0; k < NR_SWITCH; k++)
			printf(" %lld", (long long)sw[r][k]);
		printf("\n");
	}

	stats(rd1, reps, R_PERF_SW, &perf1, &lo, &hi);
	stats(rd2, reps, R_PERF_SW, &perf2, &lo, &hi);
	stats(rd1, reps, R_MAPPED, &map1, &lo, &hi);
	stats(rd2, reps, R_MAPPED, &map2, &lo, &hi);
	printf("vmc:\nvmc: ticks (= instructions) per read of the calling thread's count: median of %d\n"
	       "vmc: reads, median of %d repetitions; the range is over the repetitions\n",
	       SAMPLES, reps);
	printf("vmc: %-50s %21s %21s\n", "", "new process", "with a live sibling");
	printf("vmc: %-50s %6s %6s %7s %6s %6s %7s\n", "read", "ticks", "range", "/perf",
	       "ticks", "range", "/perf");
	for (k = 0; k < NR_READS; k++) {
		printf("vmc: %-50s", read_name[k]);
		stats(rd1, reps, k, &med, &lo, &hi);
		if (med < 0) {
			printf(" %s\n", strerror((int)-med));
			continue;
		}
		printf(" %6lld %6s %7.3f", (long long)med, range(lo, hi, 1), (double)med / perf1);
		stats(rd2, reps, k, &med, &lo, &hi);
		printf(" %6lld %6s %7.3f\n", (long long)med, range(lo, hi, 1), (double)med / perf2);
	}

	printf("vmc:\nvmc: ticks per switch = half a round trip (one switch, one pipe write, one pipe read):\n"
	       "vmc: median of %d round trips, median of %d repetitions; added = minus the baseline\n",
	       SAMPLES, reps);
	printf("vmc: %-50s %9s %12s %8s\n", "two threads ping-ponging on CPU 0", "ticks", "range",
	       "added");
	stats(sw, reps, S_BASE, &base, &lo, &hi);
	stats(sw, reps, S_EMU_BASE, &emu_base, &lo, &hi);
	for (k = 0; k < NR_SWITCH; k++) {
		int64_t b = k >= S_EMU_BASE ? emu_base : base;

		stats(sw, reps, k, &med, &lo, &hi);
		if (med < 0) {
			printf("vmc: %-50s %s\n", switch_name[k], strerror((int)-med));
			continue;
		}
		printf("vmc: %-50s %9.1f %12s %+8.1f", switch_name[k], med / 2.0, range(lo, hi, 2),
		       (med - b) / 2.0);
		if (k > S_EMU_BASE) {
			int64_t e;

			stats(emu, reps, k, &e, &lo, &hi);
			printf("  emulation %.1f, without it %+.1f", e / 2.0, (med - b - e) / 2.0);
			if (k == S_PMUVIRT_SAMPLE)
				pmuvirt_emu = e;
			if (k == S_PMUVIRT_EMU_TSC)
				tsc_emu_own = med - b - e;
		}
		printf("\n");
		if (k == S_PMUVIRT)
			pmuvirt_add = med - b;
		if (k == S_PERF)
			perf_add = med - b;
		if (k == S_PMUVIRT_SAMPLE)
			pmuvirt_sample_add = med - b;
		if (k == S_PERF_SAMPLE)
			perf_sample_add = med - b;
	}
	printf("vmc:\nvmc: goal: a pmuvirt read under 0.1 x perf's read(): %.3fx in a new process, %.3fx with a sibling: %s\n",
	       (double)map1 / perf1, (double)map2 / perf2,
	       map1 * 10 < perf1 && map2 * 10 < perf2 ? "met" : "NOT met");
	printf("vmc: goal: pmuvirt's added switch cost under 0.5 x perf's (per-thread events): %.3fx: %s\n",
	       perf_add > 0 ? (double)pmuvirt_add / perf_add : 0.0,
	       perf_add > 0 && pmuvirt_add * 2 < perf_add ? "met" : "NOT met");
	/*
	 * What the emulation costs outside its timed parts (its tracepoint
	 * probes' dispatch, the timed calls themselves): the TSC counter's
	 * switch with it, without its timed ticks, less the same switch
	 * without the emulated PMU.
	 */
	untimed = tsc_emu_own - pmuvirt_add;
	own = pmuvirt_sample_add - pmuvirt_emu - untimed;
	printf("vmc: the emulation's untimed part (TSC row with it, without its ticks, less the TSC row without it): %+.1f per switch\n",
	       untimed / 2.0);
	printf("vmc: goal: pmuvirt's added switch cost with an i-mode sampling counter (%.1f without the emulation's ticks, %.1f without its untimed part too) at most 0.25 x perf's sampling event's: %.3fx, %.3fx: %s\n",
	       (pmuvirt_sample_add - pmuvirt_emu) / 2.0, own / 2.0,
	       perf_sample_add > 0 ? (double)(pmuvirt_sample_add - pmuvirt_emu) / perf_sample_add : 0.0,
	       perf_sample_add > 0 ? (double)own / perf_sample_add : 0.0,
	       perf_sample_add > 0 && own * 4 <= perf_sample_add ? "met" : "NOT met");
	printf("vmc: SIGIO notifications of the sampling threads: %d\n", (int)sigios);
	printf("VM-COMPARE-RESULT: DONE\n");
	return 0;
}
