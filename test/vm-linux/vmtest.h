/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* What the parts of vmtest (vmtest.c, vmtest_*.c) share. */
#ifndef VMTEST_H
#define VMTEST_H

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

extern int failed;
extern const char *self;
/* A guest without -icount: only checks that hold under any host load. */
extern int by_schedstat;
extern double tsc_per_ns;

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
extern double ns_per_tb;

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
static inline uint64_t tsc_units(uint64_t v)
{
	return (uint64_t)((double)v * ns_per_tb);
}

/* Exactly 2 * n instructions (n > 0). */
static inline void spin(uint64_t n)
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

static inline uint64_t tsc_units(uint64_t v)
{
	return v;
}

/* Exactly 2 * n instructions. */
static inline void spin(uint64_t n)
{
	__asm__ __volatile__("1: dec %0\n\tjnz 1b" : "+r"(n) :: "cc");
}
#endif

/* ---- vmtest.c: helpers ---- */
void pin(int cpu);
void work_control(struct pmuvirt_control *ctl);
uint64_t schedstat_ns(void);
double rel_err(double got, double want);
long long read_number(const char *path);
int attached_count(void);
int wait_attached(int want);
extern pthread_barrier_t start_barrier;
void run_threads(void *(*fn)(void *), void *w, size_t size, int n);
long long read_param(const char *name);
int write_file(const char *path, long long v);
int set_paranoid(int level);
void drop_to_user(void);

/* ---- vmtest_count.c ---- */
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

void *worker_fn(void *arg);
void *hog_fn(void *arg);
void smp_disjoint(const char *what, const struct worker *w, int n);
void report(const char *what, int i, const struct worker *w, unsigned int share);
void t_accuracy(void);
void t_migrate(void);
void t_threads(int k, const char *loops);
void t_perfopen(const char *want);
void t_perfhold(void);
void t_exact(void);

/* ---- vmtest_process.c ---- */
void t_fork(void);
void t_inherit(void);
void t_sum(void);
void t_isolation(void);
void t_exec(void);
int exec_child(void);
void t_hold(void);
void t_reap(void);

/* ---- vmtest_imode.c ---- */
#define IMODE_PERIOD	2000000ull

extern int imode_shared_clock;
uint64_t t_imode(double max_err);
void t_throttle(void);
void t_pmistorm(void);
void t_latepmi(void);
void t_hotplug(void);

/* ---- vmtest_policy.c ---- */
void t_policy(void);
void t_evpolicy(void);
void t_suid(void);
void t_sigperm(void);
void t_malformed(void);

/* ---- vmtest_sample.c (x86) ---- */
void t_sample(void);
void t_profile(int rounds);
void t_chain(int rounds);

/* ---- vmtest_chain.c (POWER) ---- */
void t_callchain(void);

#endif
