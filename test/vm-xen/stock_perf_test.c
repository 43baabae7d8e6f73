// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * stock_perf_test: a stock guest's own perf on the PMU Xen's pmuvirt
 * emulates for it (docs/xen.md, "Stock guests").  Static, run in the vm-xen
 * hvm boot's HVM domU before pmuvirt.ko is loaded: only the guest kernel's
 * perf_event_open() and the PMU MSRs it programs are involved.
 *
 * 1. Counting: instructions:u, instructions:k and cycles of this thread
 *    around a loop of N "dec; jnz" iterations (2N instructions, the work).
 *    instructions:u must be the work within -2% / +5% (the kernel's and
 *    Xen's work while the thread runs adds to it).  With "emulated" (Xen's
 *    pmuvirt-emulate under QEMU, -icount shift=0: every counter counts TSC
 *    ticks, one per instruction, and the privilege level is not modelled)
 *    instructions:k and cycles must also be the work within those bounds;
 *    on a real PMU instructions:k must stay under 2% of the work and
 *    cycles must be above zero.
 * 2. Sampling: instructions:u with a period of P, the samples in the ring
 *    buffer around the same loop: their number must be work / P within 10%,
 *    each one the guest's performance interrupt (an NMI through the vLAPIC).
 * 3. With "branches-denied" (dom0 gave the domain a policy that denies
 *    branches): branches:u around the loop (N taken branches) opens and
 *    enables as any counter (the guest's MSR writes succeed) and counts 0,
 *    while instructions:u beside it counts the work.
 *
 * Prints PMUVIRT-STOCK-PERF-... lines; exit 0 when every check passed.
 * In a PV guest (dom0, a PV domU: the emulated PMU through Xen's XENPMU_*
 * ABI) a PV kernel runs in ring 3 like its user space and Xen tells pmuvirt
 * each switch between the two: instructions:k must stay under 2% of the
 * work as on a real PMU, and around the loop and around kernel-bound work
 * (reads of /dev/zero) instructions:u and :k must add up to the unfiltered
 * count within 2%, the kernel-bound :k at least 4 times its :u;
 * perf-across prints PMUVIRT-STOCK-PERF-SKIPPED there and exits 0.
 *
 * With a first argument it drives Debian's perf (/usr/bin/perf, from
 * linux-perf) instead, each run's own output printed with the prefix
 * PMUVIRT-STOCK-PERF-OUT:
 *   perf-stat [emulated] [branches-denied] [beside-session]  perf stat
 *		-e instructions:u,cycles:u,branches:u (beside a profiling
 *		session's counter without branches:u) of "loop N", with the
 *		bounds of 1 (branches:u is N on a real PMU, a fifth of the work
 *		on the emulated one, 0 where the domain's policy denies them).
 *   perf-record	perf record -e cycles:u -c P of "split N", whose
 *		hot_a runs three times the instructions of hot_b, then perf
 *		report: hot_a's share over hot_b's must be 3 within 3%.  The
 *		guest's sample throttling is turned off first.
 *   perf-across FLAG	perf stat -e instructions:u of "spin FLAG": the
 *		loop runs in blocks until the file FLAG exists (the caller
 *		creates it once dom0 saved and restored the domain); the count
 *		must be the work of the blocks run, before and after.
 * and the workloads those runs measure: loop N, split N, spin FLAG OUT.
 *
 * no-pmu: the guest must see no PMU (Xen's pmuvirt-vpmu=0, or the domain's
 * policy from pmuvirt-xenpolicy --no-vpmu): perf_event_open() of hardware
 * cycles and instructions fails and the kernel registered no "cpu" PMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define RING_PAGES	64

static int fails;

#define FAIL(...) do { printf("PMUVIRT-STOCK-PERF-FAIL " __VA_ARGS__); fails++; } while (0)

static int perf_open(uint64_t config, int exclude_user, int exclude_kernel, uint64_t period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = 1;
	a.exclude_user = exclude_user;
	a.exclude_kernel = exclude_kernel;
	a.exclude_hv = 1;
	if (period) {
		a.sample_period = period;
		a.sample_type = PERF_SAMPLE_IP;
		a.wakeup_events = 1000000;
	}
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static void loop(uint64_t n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
}

static uint64_t count_of(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		FAIL("read of a counter: %s\n", strerror(errno));
	return v;
}

/* Is @v within -2% and +5% of @work?  Prints the line either way. */
static int near(const char *what, uint64_t v, uint64_t work)
{
	double err = ((double)v - (double)work) / (double)work;

	printf("PMUVIRT-STOCK-PERF %s %" PRIu64 " work %" PRIu64 " err %+.4f\n", what, v, work, err);
	return err >= -0.02 && err <= 0.05;
}

static int guest_type_pv(void)
{
	char buf[16] = "";
	FILE *f = fopen("/sys/hypervisor/guest_type", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	printf("PMUVIRT-STOCK-PERF guest_type %s", buf);
	return !strncmp(buf, "PV\n", 3);
}

/* Kernel-bound work: @m reads of 64 KiB from /dev/zero (the kernel clears the buffer). */
static void kernel_work(uint64_t m)
{
	static char buf[65536];
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		FAIL("/dev/zero: %s\n", strerror(errno));
		return;
	}
	while (m--)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			FAIL("read of /dev/zero: %s\n", strerror(errno));
	close(fd);
}

/*
 * This thread's instructions:u, instructions:k and @third (both modes)
 * around @work(@n), into @v[0..2]; -1 when the kernel would not open them.
 */
static int count_three(uint64_t third, void (*work)(uint64_t), uint64_t n, uint64_t *v)
{
	int fd[3], i;

	fd[0] = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 0, 1, 0);
	fd[1] = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 1, 0, 0);
	fd[2] = perf_open(third, 0, 0, 0);
	if (fd[0] < 0 || fd[1] < 0 || fd[2] < 0) {
		FAIL("perf_event_open: %s (the guest kernel found no PMU?)\n", strerror(errno));
		for (i = 0; i < 3; i++)
			if (fd[i] >= 0)
				close(fd[i]);
		return -1;
	}
	for (i = 0; i < 3; i++)
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	work(n);
	for (i = 2; i >= 0; i--)
		ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
	for (i = 0; i < 3; i++) {
		v[i] = count_of(fd[i]);
		close(fd[i]);
	}
	return 0;
}

/*
 * instructions:u, :k and both around @what: in a PV guest the user and
 * kernel parts must add up to the whole within 2% (Xen tells pmuvirt each
 * switch between the two; the hardware cannot tell them apart).
 */
static void split_counts(const char *what, int user_bound, uint64_t n)
{
	uint64_t v[3], u, k, all, sum;
	double err;

	if (count_three(PERF_COUNT_HW_INSTRUCTIONS, user_bound ? loop : kernel_work, n, v))
		return;
	u = v[0];
	k = v[1];
	all = v[2];
	sum = u + k;
	err = all ? ((double)sum - (double)all) / (double)all : 1;
	printf("PMUVIRT-STOCK-PERF-SPLIT %s :u %" PRIu64 " :k %" PRIu64 " all %" PRIu64
	       " (u+k)/all-1 %+.4f\n", what, u, k, all, err);
	if (err < -0.02 || err > 0.02)
		FAIL("%s: :u + :k is not the whole count\n", what);
	if (user_bound) {
		if (!near("split instructions:u", u, 2 * n))
			FAIL("%s: instructions:u %" PRIu64 " for %" PRIu64 "\n", what, u, 2 * n);
		if (k > 2 * n / 50)
			FAIL("%s: instructions:k %" PRIu64 ": 2%% of the work or more\n", what, k);
	} else if (k < 4 * u) {
		FAIL("%s: instructions:k %" PRIu64 " is not 4 times :u\n", what, k);
	}
}

static void counting(uint64_t n, int emulated, int pv)
{
	uint64_t work = 2 * n, v[3], iu, ik, cy;

	if (count_three(PERF_COUNT_HW_CPU_CYCLES, loop, n, v))
		return;
	iu = v[0];
	ik = v[1];
	cy = v[2];
	if (!near("instructions:u", iu, work))
		FAIL("instructions:u %" PRIu64 " for %" PRIu64 " instructions\n", iu, work);
	if (pv) {
		near("instructions:k", ik, work);
		if (ik > work / 50)
			FAIL("instructions:k %" PRIu64 ": 2%% of the work or more\n", ik);
		if (emulated && !near("cycles", cy, work))
			FAIL("cycles %" PRIu64 " (emulated PMU: TSC ticks)\n", cy);
		split_counts("user-bound", 1, n);
		split_counts("kernel-bound", 0, n / 20000);
	} else if (emulated) {
		if (!near("instructions:k", ik, work))
			FAIL("instructions:k %" PRIu64 " (emulated PMU: every mode)\n", ik);
		if (!near("cycles", cy, work))
			FAIL("cycles %" PRIu64 " (emulated PMU: TSC ticks)\n", cy);
	} else {
		near("instructions:k", ik, work);
		near("cycles", cy, work);
		if (ik > work / 50)
			FAIL("instructions:k %" PRIu64 ": 2%% of the work or more\n", ik);
		if (!cy)
			FAIL("cycles 0\n");
	}
	if (!fails)
		printf("PMUVIRT-STOCK-PERF-COUNT-OK\n");
}

/* The domain's policy denies branches: that counter counts nothing, the other on. */
static void denied(uint64_t n)
{
	uint64_t work = 2 * n, br, iu;
	int fb = perf_open(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, 1, 0);
	int fu = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 0, 1, 0);

	if (fb < 0 || fu < 0) {
		FAIL("perf_event_open of branches and instructions: %s\n", strerror(errno));
		return;
	}
	ioctl(fb, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fu, PERF_EVENT_IOC_ENABLE, 0);
	loop(n);
	ioctl(fu, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fb, PERF_EVENT_IOC_DISABLE, 0);
	br = count_of(fb);
	iu = count_of(fu);
	close(fb);
	close(fu);
	printf("PMUVIRT-STOCK-PERF denied branches:u %" PRIu64 " for %" PRIu64 " branches\n", br, n);
	if (br)
		FAIL("branches:u %" PRIu64 " under a policy that denies branches\n", br);
	else if (!near("instructions:u beside it", iu, work))
		FAIL("instructions:u %" PRIu64 " beside the denied counter\n", iu);
	else
		printf("PMUVIRT-STOCK-PERF-POLICY-OK\n");
}

static void sampling(uint64_t n, uint64_t period)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), len = (RING_PAGES + 1) * psz;
	struct perf_event_mmap_page *meta;
	uint64_t work = 2 * n, head, off, samples = 0, lost = 0, want = work / period;
	unsigned char *data;
	int fd = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 0, 1, period);
	void *m;

	if (fd < 0) {
		FAIL("perf_event_open of a sampling counter: %s\n", strerror(errno));
		return;
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		FAIL("mmap of the ring: %s\n", strerror(errno));
		close(fd);
		return;
	}
	meta = m;
	data = (unsigned char *)m + psz;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	for (off = 0; off < head;) {
		struct perf_event_header h;
		size_t at = off % (RING_PAGES * psz);

		if (head - off > RING_PAGES * psz) {
			FAIL("the ring wrapped\n");
			break;
		}
		/* records are 8-byte aligned and never split a header */
		memcpy(&h, data + at, sizeof(h));
		if (!h.size)
			break;
		if (h.type == PERF_RECORD_SAMPLE)
			samples++;
		else if (h.type == PERF_RECORD_LOST)
			lost++;
		off += h.size;
	}
	printf("PMUVIRT-STOCK-PERF sampling period %" PRIu64 " samples %" PRIu64 " lost %" PRIu64
	       " expected %" PRIu64 "\n", period, samples, lost, want);
	if (lost || samples * 10 < want * 9 || samples * 10 > want * 11)
		FAIL("%" PRIu64 " samples (%" PRIu64 " lost) for %" PRIu64 " periods\n", samples,
		     lost, want);
	else
		printf("PMUVIRT-STOCK-PERF-SAMPLE-OK\n");
	munmap(m, len);
	close(fd);
}

/* Two functions whose loops run 3:1 instructions, in ten alternations. */
static __attribute__((noinline)) void hot_a(uint64_t n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
}

/* Other instructions than hot_a's, or the compiler folds the two into one. */
static __attribute__((noinline)) void hot_b(uint64_t n)
{
	asm volatile("1: sub $1, %0\n\tjnz 1b" : "+r" (n) : : "cc");
}

/* 3:1 in 100 alternations, so no stretch of lost samples favours one side. */
static void split(uint64_t n)
{
	int i;

	for (i = 0; i < 100; i++) {
		hot_a(3 * n / 100);
		hot_b(n / 100);
	}
}

#define SPIN_BLOCK	(1u << 22)
#define SPIN_SECONDS	600

/*
 * Blocks of SPIN_BLOCK iterations until @flag exists (at most
 * SPIN_SECONDS); the iterations go to the file @out.  READY after the
 * first block tells dom0 the count has started.
 */
static int spin(const char *flag, const char *out)
{
	time_t end = time(NULL) + SPIN_SECONDS;
	uint64_t blocks = 0;
	FILE *f;

	do {
		loop(SPIN_BLOCK);
		if (!blocks++)
			printf("PMUVIRT-STOCK-PERF-ACROSS-READY\n");
	} while (access(flag, F_OK) && time(NULL) < end);
	f = fopen(out, "w");
	if (!f)
		return 1;
	fprintf(f, "%" PRIu64 "\n", blocks * SPIN_BLOCK);
	return fclose(f) ? 1 : access(flag, F_OK) ? 2 : 0;
}

/* Runs @argv, its output to the console; 0 when it exited 0. */
static int run(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Prints every line of @path with the OUT prefix. */
static void show(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f) {
		FAIL("no %s\n", path);
		return;
	}
	while (fgets(line, sizeof(line), f))
		printf("PMUVIRT-STOCK-PERF-OUT %s", line);
	fclose(f);
}

/*
 * The count of @event in perf stat's CSV (-x,): "VALUE,UNIT,EVENT,...".
 * Fails the check when the event is missing or was not counted.
 */
static uint64_t csv_count(const char *path, const char *event)
{
	char line[512], *p, *ev;
	FILE *f = fopen(path, "r");
	size_t len = strlen(event);

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, ',');
		ev = p ? strchr(p + 1, ',') : NULL;
		if (!ev || strncmp(ev + 1, event, len) || ev[1 + len] != ',')
			continue;
		fclose(f);
		if (line[0] < '0' || line[0] > '9') {
			FAIL("perf stat: %s not counted\n", event);
			return 0;
		}
		return strtoull(line, NULL, 10);
	}
	fclose(f);
	FAIL("perf stat printed no %s\n", event);
	return 0;
}

/* Xen's emulated PMU counts a branch every 5 ticks (PMUVIRT_X86_EMU_BRANCH_TICKS). */
#define EMU_BRANCH_TICKS	5
#define PERF		"/usr/bin/perf"
#define SELF		"/stock_perf_test"
#define STAT_CSV	"/tmp/perf-stat.csv"

/*
 * Xen's emulated PMU has two general counters and fixed counter 0: a
 * guest counter that finds no room there counts nothing.  Three events
 * fit (instructions on the fixed counter); beside a profiling session's
 * counter, two.
 */
static void perf_stat(uint64_t n, int emulated, int no_branches, int beside_session)
{
	char arg[32];
	char *argv[] = { PERF, "stat", "-x,", "-o", STAT_CSV, "-e",
			 beside_session ? "instructions:u,cycles:u" :
					  "instructions:u,cycles:u,branches:u",
			 "--", SELF, "loop", arg, NULL };
	uint64_t work = 2 * n, iu, cy, br = 0;
	struct timespec t0, t1;
	int rc;

	snprintf(arg, sizeof(arg), "%" PRIu64, n);
	/* Xen's wall clock, the same in every domain: when the run went on */
	clock_gettime(CLOCK_REALTIME, &t0);
	rc = run(argv);
	clock_gettime(CLOCK_REALTIME, &t1);
	printf("PMUVIRT-STOCK-PERF-WINDOW %lld.%09ld %lld.%09ld\n", (long long)t0.tv_sec,
	       t0.tv_nsec, (long long)t1.tv_sec, t1.tv_nsec);
	show(STAT_CSV);
	if (rc) {
		FAIL("perf stat exited %d\n", rc);
		return;
	}
	iu = csv_count(STAT_CSV, "instructions:u");
	cy = csv_count(STAT_CSV, "cycles:u");
	if (!beside_session)
		br = csv_count(STAT_CSV, "branches:u");
	if (!near("perf-stat instructions:u", iu, work))
		FAIL("perf stat: instructions:u %" PRIu64 " for %" PRIu64 "\n", iu, work);
	if (emulated) {
		/* cycles count the TSC's ticks, one per instruction */
		if (!near("perf-stat cycles:u", cy, work))
			FAIL("perf stat: cycles:u %" PRIu64 " (emulated PMU: TSC ticks)\n", cy);
		if (!beside_session && !no_branches &&
		    !near("perf-stat branches:u", br, work / EMU_BRANCH_TICKS))
			FAIL("perf stat: branches:u %" PRIu64 " (emulated PMU: a fifth of the ticks)\n",
			     br);
	} else {
		if (!cy)
			FAIL("perf stat: cycles:u 0\n");
		if (!beside_session && !no_branches && !near("perf-stat branches:u", br, n))
			FAIL("perf stat: branches:u %" PRIu64 " for %" PRIu64 " branches\n", br, n);
	}
	if (no_branches && br)
		FAIL("perf stat: branches:u %" PRIu64 " where the policy denies branches\n", br);
	if (!fails)
		printf("PMUVIRT-STOCK-PERF-STAT-OK\n");
}

#define RECORD_DATA	"/tmp/perf.data"
#define REPORT_TXT	"/tmp/perf-report.txt"

/* perf report's share of @sym: "  75.01%  split  [.] hot_a". */
static double report_share(const char *path, const char *sym)
{
	char line[512], *at;
	FILE *f = fopen(path, "r");
	size_t len = strlen(sym);
	double share = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		at = strstr(line, "] ");
		if (line[0] == '#' || !at || strncmp(at + 2, sym, len) ||
		    (at[2 + len] != '\n' && at[2 + len] != ' '))
			continue;
		share = strtod(line, NULL);
		break;
	}
	fclose(f);
	return share;
}

/* The number after @key on the first line of @path that holds it; 0 if none. */
static uint64_t report_count(const char *path, const char *key)
{
	char line[512], *at;
	FILE *f = fopen(path, "r");
	uint64_t n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		at = strstr(line, key);
		if (at) {
			n = strtoull(at + strlen(key), NULL, 10);
			break;
		}
	}
	fclose(f);
	return n;
}

/* Write @val to the sysctl file @path; 0 or -errno. */
static int write_sysctl(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -errno;
	err = fputs(val, f) < 0 ? -EIO : 0;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/*
 * A PMI's handling in a TCG guest takes long enough that the guest's perf
 * lowers its sample rate and throttles the event, dropping samples in
 * stretches.  The test measures attribution, so it undoes that: the rate
 * back to perf's default first, since the kernel refuses the rate once the
 * time limit is 0.
 */
static void no_sample_throttling(void)
{
	char pct[8] = "";
	FILE *f = fopen("/proc/sys/kernel/perf_cpu_time_max_percent", "r");
	int err;

	if (f) {
		if (!fgets(pct, sizeof(pct), f))
			pct[0] = 0;
		fclose(f);
	}
	if (!strcmp(pct, "0\n"))
		return;		/* off already (dom0's init) */
	err = write_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", "100000");

	if (!err)
		err = write_sysctl("/proc/sys/kernel/perf_cpu_time_max_percent", "0");
	if (err)
		FAIL("perf record: cannot turn sample throttling off: %s\n", strerror(-err));
}

static void perf_record(uint64_t n, uint64_t period)
{
	char arg[32], per[32];
	char *rec[] = { PERF, "record", "-q", "-e", "cycles:u", "-c", per, "-o", RECORD_DATA,
			"--", SELF, "split", arg, NULL };
	/* perf records cpu-clock instead where it finds no cycles counter: the event first */
	char *rep[] = { "/bin/sh", "-c", PERF " evlist -i " RECORD_DATA " >" REPORT_TXT " 2>&1 && "
			PERF " report -i " RECORD_DATA " --stdio --sort symbol >>" REPORT_TXT
			" 2>&1 && " PERF " report -i " RECORD_DATA " --stats | "
			"grep -E 'SAMPLE|THROTTLE|LOST' >>" REPORT_TXT, NULL };
	char first[64] = "";
	FILE *f;
	double a, b, ratio;
	uint64_t work = 8 * n, samples;
	int rc;

	snprintf(arg, sizeof(arg), "%" PRIu64, n);
	snprintf(per, sizeof(per), "%" PRIu64, period);
	no_sample_throttling();
	rc = run(rec);
	if (rc) {
		FAIL("perf record exited %d\n", rc);
		return;
	}
	rc = run(rep);
	show(REPORT_TXT);
	if (rc) {
		FAIL("perf report exited %d\n", rc);
		return;
	}
	f = fopen(REPORT_TXT, "r");
	if (!f || !fgets(first, sizeof(first), f) || strcmp(first, "cycles:u\n"))
		FAIL("perf record did not sample cycles:u: %s", first[0] ? first : "nothing\n");
	if (f)
		fclose(f);
	/*
	 * Every period of the work gives its sample (none lost).  Xen's
	 * emulated PMU does not model the privilege level, so the guest
	 * kernel's handling of each PMI counts too and brings samples
	 * sooner: at most half a period per PMI.
	 */
	samples = report_count(REPORT_TXT, "SAMPLE events:");
	printf("PMUVIRT-STOCK-PERF record %" PRIu64 " samples for %" PRIu64
	       " periods of work (%+.4f)\n", samples, work / period,
	       ((double)samples - (double)(work / period)) / (double)(work / period));
	if (samples < work / period * 98 / 100 || samples > work / period * 2)
		FAIL("perf record: %" PRIu64 " samples for %" PRIu64 " periods\n", samples,
		     work / period);
	a = report_share(REPORT_TXT, "hot_a");
	b = report_share(REPORT_TXT, "hot_b");
	ratio = b > 0 ? a / b : 0;
	printf("PMUVIRT-STOCK-PERF record hot_a %.2f%% hot_b %.2f%% ratio %.4f (3 within 3%%)\n",
	       a, b, ratio);
	if (a <= 0 || b <= 0 || ratio < 3 * 0.97 || ratio > 3 * 1.03)
		FAIL("perf report: hot_a %.2f%%, hot_b %.2f%%: not 3:1 within 3%%\n", a, b);
	if (!fails)
		printf("PMUVIRT-STOCK-PERF-RECORD-OK\n");
}

#define ACROSS_CSV	"/tmp/perf-across.csv"
#define ACROSS_OUT	"/tmp/perf-across.iterations"

static void perf_across(char *flag)
{
	char *argv[] = { PERF, "stat", "-x,", "-o", ACROSS_CSV, "-e", "instructions:u", "--",
			 SELF, "spin", flag, ACROSS_OUT, NULL };
	uint64_t iters = 0, iu;
	FILE *f;
	int rc;

	rc = run(argv);
	show(ACROSS_CSV);
	f = fopen(ACROSS_OUT, "r");
	if (!f || fscanf(f, "%" SCNu64, &iters) != 1)
		FAIL("the spinning loop left no count\n");
	if (f)
		fclose(f);
	if (rc) {
		FAIL("perf stat of the spinning loop exited %d (no restore seen?)\n", rc);
		return;
	}
	iu = csv_count(ACROSS_CSV, "instructions:u");
	if (!near("across instructions:u", iu, 2 * iters))
		FAIL("perf stat across the save: instructions:u %" PRIu64 " for %" PRIu64 "\n", iu,
		     2 * iters);
	if (!fails)
		printf("PMUVIRT-STOCK-PERF-ACROSS-OK\n");
}

static int has_arg(int argc, char **argv, const char *word)
{
	int i;

	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], word))
			return 1;
	return 0;
}

/* A guest without a PMU: the kernel found none, so no hardware event opens. */
static int no_pmu(void)
{
	static const struct { uint64_t config; const char *name; } hw[] = {
		{ PERF_COUNT_HW_CPU_CYCLES, "cycles" },
		{ PERF_COUNT_HW_INSTRUCTIONS, "instructions" },
	};
	unsigned int i;
	int fd;

	(void)guest_type_pv();
	for (i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		fd = perf_open(hw[i].config, 0, 1, 0);
		if (fd >= 0) {
			FAIL("%s opens: the guest has a PMU\n", hw[i].name);
			close(fd);
		} else {
			printf("PMUVIRT-STOCK-PERF no-pmu %s: %s\n", hw[i].name, strerror(errno));
		}
	}
	if (!access("/sys/bus/event_source/devices/cpu", F_OK))
		FAIL("the kernel registered a cpu PMU\n");
	if (fails)
		return 1;
	printf("PMUVIRT-STOCK-PERF-NO-PMU-OK\n");
	return 0;
}

/* The perf-driving modes; -1 when @argv names none. */
static int perf_mode(int argc, char **argv)
{
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;

	if (argc == 3 && !strcmp(argv[1], "loop")) {
		loop(n);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "split")) {
		split(n);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "spin"))
		return spin(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "no-pmu"))
		return no_pmu();
	if (strncmp(argv[1], "perf-", 5))
		return -1;
	if (guest_type_pv() && !strcmp(argv[1], "perf-across")) {
		printf("PMUVIRT-STOCK-PERF-SKIPPED PV\n");
		return 0;
	}
	if (!strcmp(argv[1], "perf-stat"))
		perf_stat(50000000, has_arg(argc, argv, "emulated"),
			  has_arg(argc, argv, "branches-denied"), has_arg(argc, argv, "beside-session"));
	else if (!strcmp(argv[1], "perf-record"))
		perf_record(40000000, 100000);
	else if (argc == 3 && !strcmp(argv[1], "perf-across"))
		perf_across(argv[2]);
	else
		return -1;
	if (fails)
		return 1;
	printf("PMUVIRT-STOCK-PERF-%s-PASSED\n", argv[1]);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = 50000000;
	int emulated = 0, deny = 0, pv, i;
	cpu_set_t set;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "emulated") && (argv[1][0] < '0' || argv[1][0] > '9')) {
		i = perf_mode(argc, argv);
		if (i >= 0)
			return i;
		fprintf(stderr, "usage: %s [emulated] [N] | perf-stat [emulated] | perf-record |"
			" perf-across FLAG | loop N | split N | spin FLAG OUT | no-pmu\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "emulated"))
			emulated = 1;
		else if (!strcmp(argv[i], "branches-denied"))
			deny = 1;
		else
			n = strtoull(argv[i], NULL, 0);
	}
	pv = guest_type_pv();
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	counting(n, emulated, pv);
	sampling(n, 1000000);
	if (deny)
		denied(n);
	if (fails)
		return 1;
	printf("PMUVIRT-STOCK-PERF-PASSED\n");
	return 0;
}
