/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-sim: replay of a scenario's steps and the ground truth.
 *
 * The replay tracks who runs where and what each thread should count.  The
 * parser uses it to reject scenarios whose steps make no sense; the truth,
 * the picture and the generator use it to know the exact counts.
 */
#ifndef PMUVIRT_SIM_TRUTH_H
#define PMUVIRT_SIM_TRUTH_H

#include "result.h"

struct sim_replay {
	const struct scenario *sc;
	int pcpu_vcpu[SIM_MAX_PCPUS];		/* flat VCPU index or -1 */
	unsigned int vcpu_base[SIM_MAX_DOMAINS];	/* flat index of <domain>.0 */
	unsigned int nr_vcpus;			/* all domains */
	int *vcpu_pcpu;				/* [nr_vcpus]: PCPU or -1 */
	int *vcpu_thread;			/* [nr_vcpus]: thread or -1 */
	int *thread_vcpu;			/* [nr_threads]: flat VCPU or -1 */
	struct sim_counter_set *ctrs;		/* [nr_threads]: current control */
	uint64_t (*truth)[SIM_MAX_COUNTERS];	/* [nr_threads]: exact counts */
};

/* Needs sc->pmu, pcpus, domains and threads; steps may still grow. 0 or -1. */
int sim_replay_init(struct sim_replay *r, const struct scenario *sc);
void sim_replay_free(struct sim_replay *r);
/*
 * Apply one step.  Returns 0, or -1 with what is wrong in @err (no line
 * number; the caller adds it) when the step is not allowed in this state.
 */
int sim_replay_step(struct sim_replay *r, const struct sim_step *st, char *err, size_t len);
/* Thread running on the VCPU scheduled on @pcpu, or -1. */
int sim_replay_pcpu_thread(const struct sim_replay *r, unsigned int pcpu);

/*
 * The ground truth of @sc into @res (prepared by sim_result_init()):
 * count = truth, overflows = floor(truth / period) for i-mode, stats 0.
 * Returns 0 or -1 (only for a scenario that did not come from sim_parse()).
 */
int sim_truth_run(const struct scenario *sc, struct sim_result *res);

#endif /* PMUVIRT_SIM_TRUTH_H */
