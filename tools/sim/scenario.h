/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-sim: a parsed and validated scenario (see docs/simulator.md).
 *
 * sim_parse() only returns scenarios that are valid as a whole: names are
 * resolved to indices, every counter set fits the model, and the step list
 * has been replayed (every exec runs on a scheduled VCPU that runs a thread,
 * no thread runs on two VCPUs, no count exceeds 2^64 - 1).  The engine can
 * therefore trust everything in here.
 */
#ifndef PMUVIRT_SIM_SCENARIO_H
#define PMUVIRT_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_NAME_MAX		32	/* name length, NUL included */
#define SIM_LABEL_MAX		(2 * SIM_NAME_MAX + 2)	/* "<domain>.<thread>", NUL included */
#define SIM_MAX_COUNTERS	16	/* counters of one thread */
#define SIM_MAX_PCPUS		64
#define SIM_MAX_DOMAINS		32
#define SIM_MAX_VCPUS		64	/* per domain */
#define SIM_MAX_THREADS		1024	/* all domains together */
#define SIM_NUM_MAX		((uint64_t)1 << 62)	/* largest number */

/* Same order as enum fakehw_event; pmuvirt's enum pmuvirt_event is this + 1. */
enum sim_event {
	SIM_EV_INSTRUCTIONS,
	SIM_EV_CYCLES,
	SIM_EV_BRANCHES,
	SIM_EV_BRANCH_MISSES,
	SIM_NR_EVENTS
};

enum sim_model {
	SIM_MODEL_INTEL,	/* intel-v1 .. intel-v5 (version in sim_pmu) */
	SIM_MODEL_AMD_K8,	/* 4 legacy counters PERF_CTL0-3, 48 bits */
	SIM_MODEL_AMD_FAM17H,	/* 6 core counters, 48 bits */
	SIM_MODEL_AMD_PERFMONV2, /* gp core counters + global ctl/status, 48 bits */
	SIM_MODEL_POWER,	/* power8/9/10 (version 8, 9, 10) */
};

/*
 * The PMU models the simulator knows, in tools/sim/scenario.c: the name a
 * scenario writes, the family and version, the default geometry.  A new
 * model of a known family is one row there; everything else (parser,
 * generator, usage, the battery tests) takes the list from it.
 */
struct sim_model_info {
	const char *name;
	enum sim_model model;
	unsigned int version, gp, fixed, width;
};
extern const struct sim_model_info sim_models[];	/* ends with a NULL name */
const struct sim_model_info *sim_model_find(const char *name);
/* "intel-v1, intel-v2, ..." into @buf. */
void sim_model_names(char *buf, size_t len, const char *sep);

/**
 * struct sim_pmu - the `pmu` declaration, defaults filled in
 * @model:	enum sim_model.
 * @version:	Intel: 1..5; POWER: 8, 9 or 10; AMD: 0.
 * @gp:		general-purpose counters (POWER: 4, PMC1-4).
 * @fixed:	Intel fixed counters as declared (0 for v1; POWER: 2, PMC5-6;
 *		AMD: 0).  Only the first two count events of the format:
 *		fixed counter 0 instructions, fixed counter 1 cycles (POWER:
 *		PMC5 instructions, PMC6 cycles).
 * @width:	counter width in bits (Intel 32..48, AMD 48, POWER 32).
 * @fw_write:	Intel: full-width counter writes (IA32_PERF_CAPABILITIES).
 * @name:	the model as written ("intel-v3", "power9", ...).
 * @line:	line of the declaration.
 */
struct sim_pmu {
	enum sim_model model;
	unsigned int version;
	unsigned int gp;
	unsigned int fixed;
	unsigned int width;
	bool fw_write;
	char name[SIM_NAME_MAX];
	int line;
};

/* One counter: @period 0 is a-mode, otherwise i-mode with that period. */
struct sim_counter {
	enum sim_event event;
	uint64_t period;
};

struct sim_counter_set {
	unsigned int n;
	struct sim_counter c[SIM_MAX_COUNTERS];
};

/* `vcpus <name> <n>`: a domain with VCPUs 0 .. nr_vcpus - 1. */
struct sim_domain {
	char name[SIM_NAME_MAX];
	unsigned int nr_vcpus;
	int line;
};

/* `thread <domain>.<name> <counters>`: @ctrs is the declared set. */
struct sim_thread {
	char name[SIM_NAME_MAX];	/* without the domain */
	unsigned int domain;		/* index into scenario.domains */
	struct sim_counter_set ctrs;
	int line;
};

enum sim_step_kind {
	SIM_STEP_SCHEDULE,	/* pcpu, domain, vcpu */
	SIM_STEP_DESCHEDULE,	/* pcpu */
	SIM_STEP_SWITCH,	/* domain, vcpu, thread (-1 = idle) */
	SIM_STEP_EXEC,		/* domain, vcpu, events */
	SIM_STEP_HYPER,		/* pcpu, events */
	SIM_STEP_CONTROL,	/* domain, thread, ctrs */
	SIM_STEP_READ,		/* domain, thread */
};

/**
 * struct sim_step - one step; only the fields named for its kind are set
 * @events:	exec/hyper: events of each kind (0 for kinds not named).
 * @thread:	index into scenario.threads; -1 for `switch ... -`.
 * @read_index:	read: its index among the read steps (0, 1, ...).
 */
struct sim_step {
	enum sim_step_kind kind;
	int line;
	unsigned int pcpu;
	unsigned int domain;
	unsigned int vcpu;
	int thread;
	unsigned int read_index;
	uint64_t events[SIM_NR_EVENTS];
	struct sim_counter_set ctrs;
};

enum sim_policy {
	SIM_POLICY_EXCLUDE,	/* hyper work belongs to no thread (default) */
	SIM_POLICY_INCLUDE,	/* to the thread whose VCPU runs on that PCPU */
};

struct scenario {
	struct sim_pmu pmu;
	unsigned int nr_pcpus;
	unsigned int nr_domains;
	struct sim_domain *domains;
	unsigned int nr_threads;
	struct sim_thread *threads;	/* in declaration order */
	enum sim_policy policy;
	uint64_t pv_cost[SIM_NR_EVENTS];	/* events per guest hypercall */
	unsigned int nr_steps;
	struct sim_step *steps;
	unsigned int nr_reads;		/* read steps */
};

/*
 * Parse and validate @text (NUL-terminated).  Returns 0 and fills @sc, or -1
 * with "line N: what is wrong" in @err.  Free @sc with sim_scenario_free().
 */
int sim_parse(const char *text, struct scenario *sc, char *err, size_t errlen);
/* Same for a file; "-" is stdin.  Unreadable files are reported in @err. */
int sim_parse_file(const char *path, struct scenario *sc, char *err, size_t errlen);
void sim_scenario_free(struct scenario *sc);

/* Write @sc in the scenario format (parses back to an equal scenario). */
void sim_scenario_print(FILE *f, const struct scenario *sc);

/* "instructions", ...; NULL for an invalid value. */
const char *sim_event_name(enum sim_event ev);

/*
 * Model capacity (the rule documented in docs/simulator.md).
 *
 * A set fits when its counters can all be placed at once: instructions and
 * cycles take the dedicated counter of their event (Intel fixed counter 0
 * and 1 if declared, POWER PMC5 and PMC6) while it is free, and everything
 * else needs a general-purpose counter.  i-mode periods must lie in
 * 1 .. sim_period_max().  Returns 0, or -1 with the reason in @why.
 */
int sim_counters_fit(const struct sim_pmu *pmu, const struct sim_counter_set *set,
		     char *why, size_t len);
/* Largest i-mode period: PMUVIRT_PERIOD_MAX (2^62) on every model and width. */
uint64_t sim_period_max(const struct sim_pmu *pmu);
/*
 * Longest stretch a counter runs between two interrupts: half the counter
 * range, 2^(width-1); 2^31 on POWER and on Intel without full-width writes
 * (fw-write=0: only 32 bits of a general-purpose counter can be written).
 * A longer i-mode period is reached in several armings.
 */
uint64_t sim_arm_max(const struct sim_pmu *pmu);
/* Most counters one thread can name on this model. */
unsigned int sim_max_counters(const struct sim_pmu *pmu);

/* "<domain>.<thread>" into @buf. */
void sim_thread_label(const struct scenario *sc, unsigned int thread, char *buf, size_t len);
/* The counters thread @t has at the end: its last control, else its declaration. */
const struct sim_counter_set *sim_thread_final_ctrs(const struct scenario *sc, unsigned int t);

#endif /* PMUVIRT_SIM_SCENARIO_H */
