// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* vmtest: counts of threads on one CPU, across CPUs, and perf next to the module. */
#include "vmtest.h"

/* ---- accuracy: threads on one CPU preempting each other ---- */

void *worker_fn(void *arg)
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

void *hog_fn(void *arg)
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
void smp_disjoint(const char *what, const struct worker *w, int n)
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

void report(const char *what, int i, const struct worker *w, unsigned int share)
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

void t_accuracy(void)
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

void t_migrate(void)
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
/* ---- threads K N: K threads of N iterations each (for pmuvirt-stat) ---- */

static void *spin_thread_fn(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "spinner%ld", (long)arg);
	prctl(PR_SET_NAME, name);
	spin(strtoull(getenv("VMTEST_LOOPS"), NULL, 0));
	return NULL;
}

void t_threads(int k, const char *loops)
{
	pthread_t th[16];
	int i;

	setenv("VMTEST_LOOPS", loops, 1);
	for (i = 0; i < k && i < 16; i++)
		pthread_create(&th[i], NULL, spin_thread_fn, (void *)(long)i);
	for (i = 0; i < k && i < 16; i++)
		pthread_join(th[i], NULL);
}

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
void t_perfopen(const char *want)
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
void t_perfhold(void)
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

void t_exact(void)
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
