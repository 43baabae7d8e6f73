/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-sim: what a run reports.
 *
 * The same structure carries pmuvirt's results (filled by the engine) and
 * the ground truth (filled by sim_truth_run()), so the two compare field by
 * field.  sim_result_init() sizes the arrays from the scenario and zeroes
 * everything; the filler only writes values.
 */
#ifndef PMUVIRT_SIM_RESULT_H
#define PMUVIRT_SIM_RESULT_H

#include "scenario.h"

/**
 * struct sim_counter_result - one counter of a thread at the end of the run
 * @count:	logical 64-bit count.
 * @overflows:	i-mode: notifications delivered to the thread for this
 *		counter since its last control (ones still pending at the end
 *		count as delivered: the thread gets them when it next runs);
 *		a-mode: 0.
 */
struct sim_counter_result {
	uint64_t count;
	uint64_t overflows;
};

/* A thread at the end: nr_counters is that of its last control. */
struct sim_thread_result {
	unsigned int nr_counters;
	struct sim_counter_result ctr[SIM_MAX_COUNTERS];
};

/* One read step, in step order; thread and line are set by sim_result_init(). */
struct sim_read_result {
	int line;
	unsigned int thread;
	unsigned int nr_counters;
	uint64_t counts[SIM_MAX_COUNTERS];
};

/**
 * struct sim_stats - cost of the run
 * @msr_reads:	register reads of the hypervisor instance's hardware
 *		(rdmsr, rdpmc, rdtsc; mfspr on POWER).
 * @msr_writes:	register writes of the hypervisor instance's hardware.
 * @hypercalls:	hypercalls made by the guest instances.
 * @vcpu_switches: VCPU context switches done by the hypervisor instance.
 * @thread_switches: thread context switches done by the guest instances.
 */
struct sim_stats {
	uint64_t msr_reads;
	uint64_t msr_writes;
	uint64_t hypercalls;
	uint64_t vcpu_switches;
	uint64_t thread_switches;
};

struct sim_result {
	unsigned int nr_threads;		/* = scenario.nr_threads */
	struct sim_thread_result *threads;
	unsigned int nr_reads;			/* = scenario.nr_reads */
	struct sim_read_result *reads;
	struct sim_stats stats;
};

/* Size and zero @res for @sc (nr_counters, line and thread preset). 0 or -1. */
int sim_result_init(struct sim_result *res, const struct scenario *sc);
void sim_result_free(struct sim_result *res);

#endif /* PMUVIRT_SIM_RESULT_H */
