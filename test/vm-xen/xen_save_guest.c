// SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
/*
 * Runs in a domU under Xen with pmuvirt (its emulated PMU below), with
 * pmuvirt.ko loaded, while dom0 takes the domain away and brings it back
 * COMEBACKS times (xl save and xl restore, xl migrate): the threads'
 * counts go on as if nothing happened.
 *
 * Two threads per VCPU, each pinned, attach {instructions (i-mode: a
 * notification every PERIOD events, signal SIGUSR1), TSC} and run
 * `dec; jnz` loops in chunks of CHUNK iterations.  After each chunk a
 * thread looks how often the domain came back from a suspend (the
 * module's xen_resumes, which the main thread polls) and, once it has
 * COMEBACKS times, runs AFTER more chunks.  When every thread is in its
 * loops, the main thread prints PMUVIRT-SAVE-READY, on which dom0 takes
 * the domain away the first time, and PMUVIRT-SAVE-BACK N each time it
 * sees the domain back, on which dom0 goes on with the next.
 *
 * Checks per thread: its virtual TSC, read from user mode through its
 * record and its VCPU's (a PV domain maps the new record frames again on
 * the first access after each comeback), is its own running time, which
 * the thread measures itself with a TSC read after each block of its loop
 * (own_time.h; a block that holds the domain's time away is one more away
 * block; the counts are read only around the whole loop, since a read of
 * the emulated PMU's counter traps to Xen), and its instruction count is
 * within TOLERANCE of its work, 2 instructions per iteration; its notifications,
 * taken by the signal handler and at the end, exactly floor(count /
 * PERIOD), less at most one still on its way; the thread ran chunks before
 * the first comeback, between each two and after the last.  The domain
 * came back exactly COMEBACKS times during the loops.  With "guest-only"
 * (an HVM or PVH domain, whose kernel-mode counters Xen makes guest-only),
 * each instruction count must be below the TSC count: the TSC holds Xen's
 * own work at each VM exit while the VCPU ran, the guest-only counter does
 * not.  That work is heavier than on hardware (the emulated PMU's
 * GLOBAL_CTRL is switched in software at every VMRUN and #VMEXIT: the
 * TSC ran 2% to 3.2% over the work there, 0.7% to 0.9% in a PV domain),
 * and the thread's own running time holds it.
 *
 * usage: xen_save_guest [guest-only] [COMEBACKS]    (COMEBACKS 1 to 4, default 1)
 * Prints PMUVIRT-SAVE-* markers; the boot script judges by them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmuvirt/abi.h>
#include <pmuvirt/linux.h>
#include "libpmuvirt-user.h"

/* blocks of 8,192 instructions: their TSC reads add 0.2% to the instruction count */
#define OWN_BLOCK	4096
#include "own_time.h"

#define NR_VCPUS	2
#define PER_VCPU	2
#define NR_THREADS	(NR_VCPUS * PER_VCPU)
#define CHUNK		1000000ull	/* iterations: 2,000,000 instructions */
#define AFTER		25		/* chunks after the domain came back */
#define MAX_CHUNKS	5000		/* give up: the domain never came back */
#define MAX_COMEBACKS	4
#define PERIOD		10000000ull
#define TOLERANCE	0.02
#define RESUMES		"/sys/module/pmuvirt/parameters/xen_resumes"

struct worker {
	pthread_t th;
	int cpu;
	int err;
	unsigned int chunks;
	unsigned int seen;			/* comebacks this thread saw */
	unsigned int before[MAX_COMEBACKS];	/* chunks done before it saw each */
	uint64_t v0[2], v1[2];		/* instructions, TSC around the loops */
	uint64_t pre[2], post[2];	/* around the last take */
	uint64_t notified;
	unsigned int signals, bad_signals;
	struct own_time ot;		/* the TSC count against the thread's own time */
};

static struct worker workers[NR_THREADS];
static pthread_barrier_t started;
static volatile unsigned int comebacks;	/* the main thread's count */
static unsigned int expected = 1;
static __thread struct worker *self;
static __thread const struct pmuvirt_user *self_user;

static long resumes(void)
{
	FILE *f = fopen(RESUMES, "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* Thread-directed: runs in the thread whose counter overflowed. */
static void on_overflow(int sig, siginfo_t *si, void *uc)
{
	struct worker *w = self;
	uint64_t counts[2];
	uint32_t mask;

	(void)sig;
	(void)uc;
	if (!w || !self_user)
		return;
	w->signals++;
	if (si->si_code != POLL_IN || si->si_band != 0x1 ||
	    pmuvirt_user_resume(self_user, counts, &mask) || mask != 0x1 || counts[1])
		w->bad_signals++;
	else
		w->notified += counts[0];
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct pmuvirt_control ctl;
	struct pmuvirt_user u;
	uint64_t counts[2], t0;
	sigset_t usr1;
	cpu_set_t set;
	uint32_t mask;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	memset(&ctl, 0, sizeof(ctl));
	ctl.version = PMUVIRT_ABI_VERSION;
	ctl.nr_counters = 2;
	ctl.counter[0].event = PMUVIRT_EV_INSTRUCTIONS;
	ctl.counter[0].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	ctl.counter[0].period = PERIOD;
	ctl.counter[1].event = PMUVIRT_EV_TSC;
	fd = pmuvirt_user_open(1);
	if (sched_setaffinity(0, sizeof(set), &set) || fd < 0 ||
	    pmuvirt_user_attach(&u, fd, &ctl, 0, SIGUSR1) || !(u.caps & PMUVIRT_UREAD_VCPU) ||
	    pmuvirt_user_read(&u, w->v0))
		w->err = errno ? errno : EAGAIN;
	self = w;
	self_user = &u;
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	pthread_barrier_wait(&started);
	if (w->err)
		return NULL;
	t0 = own_rdtsc();
	while (w->chunks < MAX_CHUNKS) {
		uint64_t n = CHUNK, k, t1;

		while (n) {
			k = n < OWN_BLOCK ? n : OWN_BLOCK;
			n -= k;
			__asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r" (k) : : "cc");
			t1 = own_rdtsc();
			own_time_block(&w->ot, t1 - t0, 0);
			t0 = t1;
		}
		w->chunks++;
		while (w->seen < comebacks && w->seen < MAX_COMEBACKS)
			w->before[w->seen++] = w->chunks - 1;
		if (w->seen >= expected && w->chunks - w->before[expected - 1] >= AFTER)
			break;
	}
	if (pmuvirt_user_read(&u, w->v1))
		w->err = errno;
	/* the handler stops taking: the last take gets the rest */
	self = NULL;
	if (pmuvirt_user_read(&u, w->pre) || pmuvirt_user_resume(&u, counts, &mask) ||
	    pmuvirt_user_read(&u, w->post))
		w->err = errno;
	else
		w->notified += counts[0];
	self_user = NULL;
	if (pmuvirt_user_detach(&u, NULL) && !w->err)
		w->err = errno;
	close(fd);
	return NULL;
}

static double rel(uint64_t got, uint64_t want)
{
	return ((double)got - (double)want) / (double)want;
}

int main(int argc, char **argv)
{
	int a = 1, guest_only = 0;
	struct sigaction sa;
	long r0, r1, r;
	unsigned int k;
	int i, failures = 0, running;

	if (a < argc && !strcmp(argv[a], "guest-only")) {
		guest_only = 1;
		a++;
	}
	if (a < argc)
		expected = (unsigned int)strtoul(argv[a++], NULL, 10);
	if (a < argc || expected < 1 || expected > MAX_COMEBACKS) {
		fprintf(stderr, "usage: xen_save_guest [guest-only] [COMEBACKS]   (1 to %d)\n",
			MAX_COMEBACKS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	r0 = resumes();
	if (r0 < 0) {
		printf("PMUVIRT-SAVE-FAIL cannot read %s\n", RESUMES);
		return 1;
	}
	pthread_barrier_init(&started, NULL, NR_THREADS + 1);
	for (i = 0; i < NR_THREADS; i++) {
		workers[i].cpu = i % NR_VCPUS;
		pthread_create(&workers[i].th, NULL, work, &workers[i]);
	}
	pthread_barrier_wait(&started);
	printf("PMUVIRT-SAVE-READY\n");
	/* until the domain came back often enough, or every thread gave up */
	do {
		usleep(20000);
		r = resumes();
		while (r > r0 + (long)comebacks && comebacks < expected)
			printf("PMUVIRT-SAVE-BACK %u\n", ++comebacks);
		for (i = running = 0; i < NR_THREADS; i++)
			running += !workers[i].err && workers[i].chunks < MAX_CHUNKS;
	} while (comebacks < expected && running);
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(workers[i].th, NULL);
	r1 = resumes();
	printf("PMUVIRT-SAVE-RESUMES %ld then %ld\n", r0, r1);
	if (r1 != r0 + (long)expected) {
		printf("PMUVIRT-SAVE-FAIL the domain came back %ld times during the loops, not %u\n",
		       r1 - r0, expected);
		failures++;
	}
	for (i = 0; i < NR_THREADS; i++) {
		struct worker *w = &workers[i];
		uint64_t done = 2 * CHUNK * w->chunks;
		uint64_t ins = w->v1[0] - w->v0[0], tsc = w->v1[1] - w->v0[1];
		uint64_t want = w->pre[0] / PERIOD, most = w->post[0] / PERIOD;
		char at[16 * MAX_COMEBACKS] = "";
		int ok = !w->err, spans = w->seen == expected && w->before[0] >= 1;

		for (k = 0; k < w->seen; k++) {
			snprintf(at + strlen(at), sizeof(at) - strlen(at), "%s%u", k ? "," : "",
				 w->before[k]);
			if (k && w->before[k] <= w->before[k - 1])
				spans = 0;
		}
		if (spans && w->chunks - w->before[expected - 1] != AFTER)
			spans = 0;
		printf("PMUVIRT-SAVE-THREAD %d vcpu=%d chunks=%u before=%s work=%llu tsc=%llu err=%+.3f%% instructions=%llu err=%+.3f%% notified=%llu floor=%llu signals=%u bad=%u err=%d\n",
		       i, w->cpu, w->chunks, at, (unsigned long long)done,
		       (unsigned long long)tsc, 100 * rel(tsc, done), (unsigned long long)ins,
		       100 * rel(ins, done), (unsigned long long)w->notified,
		       (unsigned long long)want, w->signals, w->bad_signals, w->err);
		if (!ok)
			printf("PMUVIRT-SAVE-FAIL thread %d: %s\n", i, strerror(w->err));
		if (ok && !spans) {
			printf("PMUVIRT-SAVE-FAIL thread %d: its loops did not run before, between and after the comebacks\n",
			       i);
			ok = 0;
		}
		snprintf(at, sizeof(at), "thread %d", i);
		w->ot.loop = tsc;
		own_time_print("PMUVIRT-SAVE-OWN", at, &w->ot);
		if (ok && !own_time_holds(&w->ot)) {
			printf("PMUVIRT-SAVE-FAIL thread %d: its TSC count is not its own running time\n",
			       i);
			ok = 0;
		}
		if (ok && (rel(ins, done) < -TOLERANCE || rel(ins, done) > TOLERANCE)) {
			printf("PMUVIRT-SAVE-FAIL thread %d: instructions off its work\n", i);
			ok = 0;
		}
		if (ok && (w->notified + 1 < want || w->notified > most || w->bad_signals ||
			   !w->signals)) {
			printf("PMUVIRT-SAVE-FAIL thread %d: %llu notifications for %llu events\n", i,
			       (unsigned long long)w->notified, (unsigned long long)w->pre[0]);
			ok = 0;
		}
		if (ok && guest_only && ins >= tsc) {
			printf("PMUVIRT-SAVE-FAIL thread %d: the guest-only count holds Xen's work\n", i);
			ok = 0;
		}
		failures += !ok;
	}
	printf(failures ? "PMUVIRT-SAVE-FAILED\n" : "PMUVIRT-SAVE-PASSED\n");
	return failures ? 1 : 0;
}
