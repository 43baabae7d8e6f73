/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: step replay and ground truth. */
#include <stdlib.h>
#include <string.h>
#include "truth.h"

int sim_replay_init(struct sim_replay *r, const struct scenario *sc)
{
	unsigned int d, i, nt = sc->nr_threads ? sc->nr_threads : 1;

	memset(r, 0, sizeof(*r));
	r->sc = sc;
	for (i = 0; i < SIM_MAX_PCPUS; i++)
		r->pcpu_vcpu[i] = -1;
	for (d = 0; d < sc->nr_domains; d++) {
		r->vcpu_base[d] = r->nr_vcpus;
		r->nr_vcpus += sc->domains[d].nr_vcpus;
	}
	r->vcpu_pcpu = malloc(sizeof(int) * (r->nr_vcpus + 1));
	r->vcpu_thread = malloc(sizeof(int) * (r->nr_vcpus + 1));
	r->thread_vcpu = malloc(sizeof(int) * nt);
	r->ctrs = calloc(nt, sizeof(*r->ctrs));
	r->truth = calloc(nt, sizeof(*r->truth));
	if (!r->vcpu_pcpu || !r->vcpu_thread || !r->thread_vcpu || !r->ctrs || !r->truth) {
		sim_replay_free(r);
		return -1;
	}
	for (i = 0; i < r->nr_vcpus; i++) {
		r->vcpu_pcpu[i] = -1;
		r->vcpu_thread[i] = -1;
	}
	for (i = 0; i < sc->nr_threads; i++) {
		r->thread_vcpu[i] = -1;
		r->ctrs[i] = sc->threads[i].ctrs;
	}
	return 0;
}

void sim_replay_free(struct sim_replay *r)
{
	free(r->vcpu_pcpu);
	free(r->vcpu_thread);
	free(r->thread_vcpu);
	free(r->ctrs);
	free(r->truth);
	r->vcpu_pcpu = r->vcpu_thread = r->thread_vcpu = NULL;
	r->ctrs = NULL;
	r->truth = NULL;
}

int sim_replay_pcpu_thread(const struct sim_replay *r, unsigned int pcpu)
{
	int v = r->pcpu_vcpu[pcpu];

	return v < 0 ? -1 : r->vcpu_thread[v];
}

/* Add @ev events to thread @t's counters of that event. */
static int add_events(struct sim_replay *r, int t, const uint64_t *ev, char *err, size_t len)
{
	struct sim_counter_set *set = &r->ctrs[t];
	unsigned int i;

	for (i = 0; i < set->n; i++) {
		uint64_t n = ev[set->c[i].event];

		if (r->truth[t][i] > UINT64_MAX - n) {
			char label[SIM_LABEL_MAX];

			sim_thread_label(r->sc, (unsigned int)t, label, sizeof(label));
			snprintf(err, len, "count of %s counter %u (%s) would exceed 2^64-1", label,
				 i + 1, sim_event_name(set->c[i].event));
			return -1;
		}
	}
	for (i = 0; i < set->n; i++)
		r->truth[t][i] += ev[set->c[i].event];
	return 0;
}

int sim_replay_step(struct sim_replay *r, const struct sim_step *st, char *err, size_t len)
{
	const struct scenario *sc = r->sc;
	unsigned int v = 0;
	int t, w;

	if (st->kind == SIM_STEP_SCHEDULE || st->kind == SIM_STEP_SWITCH ||
	    st->kind == SIM_STEP_EXEC)
		v = r->vcpu_base[st->domain] + st->vcpu;

	switch (st->kind) {
	case SIM_STEP_SCHEDULE:
		if (r->vcpu_pcpu[v] >= 0)	/* migration (or no change) */
			r->pcpu_vcpu[r->vcpu_pcpu[v]] = -1;
		w = r->pcpu_vcpu[st->pcpu];
		if (w >= 0)
			r->vcpu_pcpu[w] = -1;
		r->pcpu_vcpu[st->pcpu] = (int)v;
		r->vcpu_pcpu[v] = (int)st->pcpu;
		return 0;
	case SIM_STEP_DESCHEDULE:
		w = r->pcpu_vcpu[st->pcpu];
		if (w >= 0)
			r->vcpu_pcpu[w] = -1;
		r->pcpu_vcpu[st->pcpu] = -1;
		return 0;
	case SIM_STEP_SWITCH:
		t = st->thread;
		if (t >= 0 && r->thread_vcpu[t] >= 0 && r->thread_vcpu[t] != (int)v) {
			snprintf(err, len, "thread %s.%s runs on VCPU %s.%u; switch it out there first",
				 sc->domains[st->domain].name, sc->threads[t].name,
				 sc->domains[st->domain].name,
				 (unsigned int)r->thread_vcpu[t] - r->vcpu_base[st->domain]);
			return -1;
		}
		if (r->vcpu_thread[v] >= 0)
			r->thread_vcpu[r->vcpu_thread[v]] = -1;
		r->vcpu_thread[v] = t;
		if (t >= 0)
			r->thread_vcpu[t] = (int)v;
		return 0;
	case SIM_STEP_EXEC:
		if (r->vcpu_pcpu[v] < 0) {
			snprintf(err, len, "exec on VCPU %s.%u, which is not scheduled on any PCPU",
				 sc->domains[st->domain].name, st->vcpu);
			return -1;
		}
		if (r->vcpu_thread[v] < 0) {
			snprintf(err, len, "exec on VCPU %s.%u, which runs no thread",
				 sc->domains[st->domain].name, st->vcpu);
			return -1;
		}
		return add_events(r, r->vcpu_thread[v], st->events, err, len);
	case SIM_STEP_HYPER:
		t = sim_replay_pcpu_thread(r, st->pcpu);
		if (sc->policy == SIM_POLICY_INCLUDE && t >= 0)
			return add_events(r, t, st->events, err, len);
		return 0;
	case SIM_STEP_CONTROL:
		r->ctrs[st->thread] = st->ctrs;
		memset(r->truth[st->thread], 0, sizeof(r->truth[0]));
		return 0;
	case SIM_STEP_READ:
		return 0;
	}
	snprintf(err, len, "unknown step kind");
	return -1;
}

int sim_truth_run(const struct scenario *sc, struct sim_result *res)
{
	struct sim_replay r;
	char err[200];
	unsigned int i, k;

	if (sim_replay_init(&r, sc))
		return -1;
	for (i = 0; i < sc->nr_steps; i++) {
		const struct sim_step *st = &sc->steps[i];

		if (sim_replay_step(&r, st, err, sizeof(err))) {
			sim_replay_free(&r);
			return -1;
		}
		if (st->kind == SIM_STEP_READ && st->read_index < res->nr_reads) {
			struct sim_read_result *rd = &res->reads[st->read_index];

			rd->nr_counters = r.ctrs[st->thread].n;
			memcpy(rd->counts, r.truth[st->thread], sizeof(rd->counts));
		}
	}
	for (i = 0; i < sc->nr_threads && i < res->nr_threads; i++) {
		struct sim_thread_result *tr = &res->threads[i];

		tr->nr_counters = r.ctrs[i].n;
		for (k = 0; k < r.ctrs[i].n; k++) {
			uint64_t p = r.ctrs[i].c[k].period;

			tr->ctr[k].count = r.truth[i][k];
			tr->ctr[k].overflows = p ? r.truth[i][k] / p : 0;
		}
	}
	memset(&res->stats, 0, sizeof(res->stats));
	sim_replay_free(&r);
	return 0;
}
