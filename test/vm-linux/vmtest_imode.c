// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/* vmtest: overflow signals and PMIs of the emulated PMU (i-mode). */
#include "vmtest.h"
#include "../common/imode_control.h"
#include <sys/resource.h>

/* ---- imode (emulated PMU): overflow signals go to the right thread, exactly ---- */

static uint64_t imode_period = IMODE_PERIOD;

struct imode_worker {
	pthread_t th;
	uint32_t tid;
	uint64_t final[3], read_before[3], read_after[3], raw;
	uint64_t notified;	/* notifications taken by RESUME */
	uint64_t t0, span;	/* raw TSC before attach; from there to after detach */
	long preempted;		/* involuntary switches during the loop */
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
	struct rusage ru0, ru1;
	sigset_t usr1;
	uint32_t mask;
	int fd;

	pin(0);
	w->tid = (uint32_t)syscall(SYS_gettid);
	w->t0 = rd_tsc();
	/* a short period can overflow inside the attach: wait for imode_user */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	imode_control(&ctl, imode_period);
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
	getrusage(RUSAGE_THREAD, &ru0);
	t0 = rd_tsc();
	spin(LOOPS);
	w->raw = rd_tsc() - t0;
	getrusage(RUSAGE_THREAD, &ru1);
	w->preempted = ru1.ru_nivcsw - ru0.ru_nivcsw;
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
	w->span = rd_tsc() - w->t0;
	close(fd);
	return NULL;
}

/*
 * "imode shared": the TSC also advances with another busy CPU's
 * instructions (Xen on two PCPUs under -icount: one virtual clock for
 * both), so a count that ticks with the TSC has no exact truth.  What
 * holds: a thread's counts are at least its own instructions (each takes
 * a tick of the clock) and at most the TSC from before its attach to after
 * its detach; the threads, all on CPU 0, together count at most the TSC
 * from the first attach to the last detach (one runs at a time).  Its
 * counts are not compared with its virtual TSC: QEMU may run the other
 * CPU for a whole time slice between the reads of two counters, and the
 * clock advances by that slice.  Preemption shows in the involuntary
 * switches, since a thread's raw TSC over its virtual TSC also holds the
 * other CPU's share.
 */
int imode_shared_clock;

uint64_t t_imode(double max_err)
{
	struct imode_worker w[NR_THREADS];
	struct sigaction sa;
	uint64_t total = 0, sum[3] = { 0, 0, 0 }, first = UINT64_MAX, last = 0;
	int i, k;

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
		printf("vm: imode thread %d: instructions %llu (error %.3f%%), i-mode cycles %llu, %llu notifications (floor(count/period) %llu), %u signals, raw TSC %.2fx, %ld preemptions\n",
		       i, (unsigned long long)w[i].final[0],
		       100.0 * rel_err((double)w[i].final[0], 2.0 * LOOPS),
		       (unsigned long long)w[i].read_before[1], (unsigned long long)w[i].notified,
		       (unsigned long long)want, w[i].signals,
		       (double)w[i].raw / (double)tsc_units(w[i].final[2]), w[i].preempted);
		CHECK(!w[i].err, "thread %d: %s", i, strerror(w[i].err));
		if (imode_shared_clock) {
			CHECK(w[i].final[0] >= 2 * LOOPS && w[i].final[0] <= w[i].span,
			      "thread %d: a-mode count %llu outside [work %llu, TSC span %llu]", i,
			      (unsigned long long)w[i].final[0], 2ull * LOOPS,
			      (unsigned long long)w[i].span);
			CHECK(w[i].final[1] >= 2 * LOOPS && w[i].final[1] <= w[i].span,
			      "thread %d: i-mode count %llu outside [work %llu, TSC span %llu]", i,
			      (unsigned long long)w[i].final[1], 2ull * LOOPS,
			      (unsigned long long)w[i].span);
			CHECK(w[i].final[2] <= w[i].span, "thread %d: virtual TSC %llu over the TSC span %llu",
			      i, (unsigned long long)w[i].final[2], (unsigned long long)w[i].span);
			for (k = 0; k < 3; k++)
				sum[k] += w[i].final[k];
			if (w[i].t0 < first)
				first = w[i].t0;
			if (w[i].t0 + w[i].span > last)
				last = w[i].t0 + w[i].span;
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
		if (imode_shared_clock)
			CHECK(w[i].preempted > 0, "thread %d: threads did not preempt each other", i);
		else
			CHECK(w[i].raw > 2 * tsc_units(w[i].final[2]),
			      "thread %d: threads did not preempt each other", i);
	}
	if (imode_shared_clock) {
		printf("vm: imode: the threads counted %llu instructions, %llu cycles, %llu TSC ticks in a TSC span of %llu\n",
		       (unsigned long long)sum[0], (unsigned long long)sum[1],
		       (unsigned long long)sum[2], (unsigned long long)(last - first));
		for (k = 0; k < 3; k++)
			CHECK(sum[k] <= last - first, "counter %d: the threads counted more than their span",
			      k);
	}
	printf("vm: imode: %llu notifications in all\n", (unsigned long long)total);
	CHECK(wait_attached(0) == 0, "contexts left: %d", attached_count());
	return total;
}

/* ---- throttle (emulated PMU, max_pmi_rate lowered): no count lost ---- */

void t_throttle(void)
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

/*
 * ---- pmistorm (emulated PMU): PMIs during reads and switches, and with
 * no context on the counters; none may leave LVTPC masked ----
 */

#define STORM_PERIOD	50000ull
#define STORM_ROUNDS	2500

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

void t_pmistorm(void)
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

void t_latepmi(void)
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

void t_hotplug(void)
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
