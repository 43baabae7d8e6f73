/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-sim: random scenario generator.
 *
 * Steps are drawn at random and kept only when the replay accepts them, so
 * every scenario is valid.  Budgets keep the run short: overflow
 * notifications of i-mode counters and wraps of the hardware counters (each
 * costs the engine an interrupt) are limited per scenario, so huge steps
 * (up to 2^62) go to wide counters and narrow ones get many smaller wraps.
 */
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "truth.h"

#define NOTIFY_BUDGET	30000	/* i-mode notifications per scenario */
#define WRAP_BUDGET	200000	/* hardware counter wraps per scenario */

struct gen {
	uint64_t rng;
	struct scenario *sc;
	struct sim_replay rp;
	unsigned int cap_steps;
	uint64_t notify_left, wrap_left;
	uint64_t min_period[SIM_NR_EVENTS];
};

static uint64_t rnd(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in lo..hi. */
static uint64_t range(struct gen *g, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	if (lo == 0 && hi == UINT64_MAX)
		return rnd(g);
	return lo + rnd(g) % (hi - lo + 1);
}

static bool chance(struct gen *g, unsigned int percent)
{
	return rnd(g) % 100 < percent;
}

/* Roughly log-uniform in 1..2^bits. */
static uint64_t log_num(struct gen *g, unsigned int bits)
{
	unsigned int b = (unsigned int)range(g, 0, bits);

	return range(g, b ? (uint64_t)1 << (b - 1) : 0, ((uint64_t)1 << b));
}

/* @m with the geometry a scenario of its family may declare, at random. */
static void random_pmu(struct gen *g, const struct sim_model_info *m)
{
	struct sim_pmu *pmu = &g->sc->pmu;
	static const unsigned int widths[] = { 32, 40, 44, 48, 48, 48 };

	memset(pmu, 0, sizeof(*pmu));
	snprintf(pmu->name, sizeof(pmu->name), "%s", m->name);
	pmu->line = 1;
	pmu->model = m->model;
	pmu->version = m->version;
	pmu->gp = m->gp;
	pmu->fixed = m->fixed;
	pmu->width = m->width;
	if (m->model == SIM_MODEL_INTEL) {
		pmu->gp = chance(g, 50) ? 4 : (unsigned int)range(g, 1, 8);
		pmu->fixed = pmu->version == 1 ? 0 :
			     chance(g, 60) ? 3 : (unsigned int)range(g, 0, 4);
		pmu->width = widths[range(g, 0, 5)];
		pmu->fw_write = chance(g, 70);
	} else if (m->model == SIM_MODEL_AMD_PERFMONV2) {
		pmu->gp = chance(g, 50) ? 6 : (unsigned int)range(g, 1, 6);
	}
}

static uint64_t random_period(struct gen *g)
{
	uint64_t max = sim_period_max(&g->sc->pmu), half = sim_arm_max(&g->sc->pmu);
	uint64_t p;

	switch (range(g, 0, 5)) {
	case 0:
		p = chance(g, 10) ? range(g, 1, 10) : range(g, 500, 5000);
		break;
	case 1:
		p = range(g, 1000, 1000000);
		break;
	case 2:
		p = log_num(g, 40);
		break;
	case 3:
		p = half - 3 + range(g, 0, 6);	/* around half the counter range */
		break;
	case 4:
		p = half * range(g, 2, 9) + range(g, 0, 1000);	/* several armings */
		break;
	default:
		p = max - range(g, 0, 3);	/* at the limit */
		break;
	}
	if (p < 1)
		p = 1;
	return p > max ? max : p;
}

static void random_set(struct gen *g, struct sim_counter_set *set)
{
	const struct sim_pmu *pmu = &g->sc->pmu;
	unsigned int want = (unsigned int)range(g, 1, sim_max_counters(pmu)), tries;
	char why[200];

	set->n = 0;
	for (tries = 0; set->n < want && tries < 40; tries++) {
		struct sim_counter *c = &set->c[set->n];

		c->event = (enum sim_event)range(g, 0, SIM_NR_EVENTS - 1);
		c->period = chance(g, 25) ? random_period(g) : 0;
		set->n++;
		if (sim_counters_fit(pmu, set, why, sizeof(why)))
			set->n--;
	}
	if (!set->n) {
		set->n = 1;
		set->c[0].event = SIM_EV_INSTRUCTIONS;
		set->c[0].period = 0;
	}
}

static struct sim_step *new_step(struct gen *g, enum sim_step_kind kind)
{
	struct scenario *sc = g->sc;

	if (sc->nr_steps == g->cap_steps) {
		unsigned int cap = g->cap_steps ? 2 * g->cap_steps : 64;
		void *ns = realloc(sc->steps, cap * sizeof(*sc->steps));

		if (!ns)
			return NULL;
		sc->steps = ns;
		g->cap_steps = cap;
	}
	memset(&sc->steps[sc->nr_steps], 0, sizeof(*sc->steps));
	sc->steps[sc->nr_steps].kind = kind;
	sc->steps[sc->nr_steps].thread = -1;
	return &sc->steps[sc->nr_steps];
}

/* Keep the step just built if the replay accepts it. */
static bool commit(struct gen *g)
{
	struct scenario *sc = g->sc;
	struct sim_step *st = &sc->steps[sc->nr_steps];
	char why[200];

	if (sim_replay_step(&g->rp, st, why, sizeof(why)))
		return false;
	if (st->kind == SIM_STEP_READ)
		st->read_index = sc->nr_reads++;
	sc->nr_steps++;
	return true;
}

#define GEN_ANY_THREAD	(-2)

/* Remember the smallest i-mode period of each event ever programmed. */
static void note_periods(struct gen *g, const struct sim_counter_set *set)
{
	unsigned int k;

	for (k = 0; k < set->n; k++) {
		uint64_t p = set->c[k].period, *best = &g->min_period[set->c[k].event];

		if (p && (!*best || p < *best))
			*best = p;
	}
}

/* Smallest i-mode period of event @e so far; 0 if none. */
static uint64_t min_period(struct gen *g, unsigned int e)
{
	return g->min_period[e];
}

/*
 * Event counts for one exec/hyper step, within the budgets, for thread @t
 * (GEN_ANY_THREAD: hypervisor work, which passes through whatever counters
 * are loaded).
 */
static void random_events(struct gen *g, uint64_t *ev, int t)
{
	const struct sim_pmu *pmu = &g->sc->pmu;
	/* a counter signals (and costs an interrupt) every sim_arm_max() events */
	unsigned int e, k, shift = 63 - (unsigned int)__builtin_clzll(sim_arm_max(pmu));

	for (e = 0; e < SIM_NR_EVENTS; e++) {
		uint64_t n, wraps, notes = 0;

		ev[e] = 0;
		if (!chance(g, e < 2 ? 80 : 45))
			continue;
		switch (range(g, 0, 49)) {
		case 0:
			n = SIM_NUM_MAX - range(g, 0, 1000);	/* huge */
			break;
		case 1: case 2: case 3:
			n = log_num(g, 62);
			break;
		case 4: case 5: case 6: case 7: case 8: case 9:
			n = log_num(g, 36);
			break;
		case 10:
			n = 0;
			break;
		default:
			n = log_num(g, 20);
			break;
		}
		/* Hardware wraps: n / 2^(width-1) per counter; say two counters. */
		wraps = (n >> shift) * 2;
		if (wraps > g->wrap_left) {
			n = g->wrap_left / 2 << shift;
			n = n ? range(g, 0, n) : log_num(g, 20);
			wraps = (n >> shift) * 2;
		}
		/*
		 * Hypervisor work under policy include passes through whatever
		 * counters are loaded, and a VCPU that went idle keeps its
		 * last thread's i-mode counters armed until its first virtual
		 * interrupt parks them: budget for the smallest period so far.
		 */
		{
			uint64_t p = min_period(g, e);

			notes = p ? n / p + 1 : 0;
			if (notes > g->notify_left) {
				n = 0;
				notes = 0;
			}
		}
		if (t >= 0) {
			const struct sim_counter_set *set = &g->rp.ctrs[t];

			for (k = 0; k < set->n; k++) {
				uint64_t have = g->rp.truth[t][k], p = set->c[k].period;

				if (set->c[k].event != e)
					continue;
				if (have > UINT64_MAX / 2 || n > UINT64_MAX / 2 - have)
					n = 0;	/* keep far from 2^64 */
				if (p)
					notes += (have + n) / p - have / p;
			}
			if (notes > g->notify_left) {
				n = 0;
				notes = 0;
			}
		}
		if (!n)
			wraps = 0;
		ev[e] = n;
		g->wrap_left -= wraps;
		g->notify_left -= notes;
	}
}

static unsigned int flat_domain(const struct sim_replay *rp, unsigned int flat)
{
	unsigned int d = 0;

	while (d + 1 < rp->sc->nr_domains && rp->vcpu_base[d + 1] <= flat)
		d++;
	return d;
}

/* Switch thread @pick out of the VCPU it runs on, if that is not VCPU @v of domain @d. */
static int migrate_out(struct gen *g, unsigned int d, unsigned int v, int pick)
{
	struct sim_replay *rp = &g->rp;
	struct sim_step *st;

	if (pick < 0 || rp->thread_vcpu[pick] < 0 ||
	    rp->thread_vcpu[pick] == (int)(rp->vcpu_base[d] + v))
		return 0;
	st = new_step(g, SIM_STEP_SWITCH);
	if (!st)
		return -1;
	st->domain = d;
	st->vcpu = (unsigned int)rp->thread_vcpu[pick] - rp->vcpu_base[d];
	st->thread = -1;
	commit(g);
	return 0;
}

static int gen_step(struct gen *g)
{
	struct scenario *sc = g->sc;
	struct sim_replay *rp = &g->rp;
	unsigned int kind = (unsigned int)range(g, 0, 99), v = 0, d = 0;
	enum sim_step_kind k;
	struct sim_step *st;
	int pick = -1;

	if (kind < 40) {
		/* exec on a VCPU that runs; set one up when none does */
		unsigned int cand[SIM_MAX_DOMAINS * SIM_MAX_VCPUS], nc = 0;

		for (v = 0; v < rp->nr_vcpus; v++)
			if (rp->vcpu_pcpu[v] >= 0 && rp->vcpu_thread[v] >= 0)
				cand[nc++] = v;
		if (!nc)
			kind = chance(g, 50) ? 45 : 60;
		else
			v = cand[range(g, 0, nc - 1)];
	}
	if (kind < 40)
		k = SIM_STEP_EXEC;
	else if (kind < 55)
		k = SIM_STEP_SCHEDULE;
	else if (kind < 59)
		k = SIM_STEP_DESCHEDULE;
	else if (kind < 75)
		k = SIM_STEP_SWITCH;
	else if (kind < 83)
		k = SIM_STEP_HYPER;
	else if (kind < 88)
		k = SIM_STEP_CONTROL;
	else
		k = SIM_STEP_READ;

	if (k == SIM_STEP_SWITCH) {
		unsigned int t, nt = 0;
		int cand[SIM_MAX_THREADS];

		d = (unsigned int)range(g, 0, sc->nr_domains - 1);
		for (t = 0; t < sc->nr_threads; t++)
			if (sc->threads[t].domain == d)
				cand[nt++] = (int)t;
		if (nt && !chance(g, 10))
			pick = cand[range(g, 0, nt - 1)];
		v = (unsigned int)range(g, 0, sc->domains[d].nr_vcpus - 1);
		if (migrate_out(g, d, v, pick))
			return -1;
	}

	st = new_step(g, k);
	if (!st)
		return -1;
	switch (k) {
	case SIM_STEP_EXEC:
		st->domain = flat_domain(rp, v);
		st->vcpu = v - rp->vcpu_base[st->domain];
		random_events(g, st->events, rp->vcpu_thread[v]);
		break;
	case SIM_STEP_SCHEDULE:
		st->pcpu = (unsigned int)range(g, 0, sc->nr_pcpus - 1);
		st->domain = (unsigned int)range(g, 0, sc->nr_domains - 1);
		st->vcpu = (unsigned int)range(g, 0, sc->domains[st->domain].nr_vcpus - 1);
		break;
	case SIM_STEP_DESCHEDULE:
		st->pcpu = (unsigned int)range(g, 0, sc->nr_pcpus - 1);
		break;
	case SIM_STEP_SWITCH:
		st->domain = d;
		st->vcpu = v;
		st->thread = pick;
		break;
	case SIM_STEP_HYPER:
		st->pcpu = (unsigned int)range(g, 0, sc->nr_pcpus - 1);
		random_events(g, st->events, GEN_ANY_THREAD);
		break;
	case SIM_STEP_CONTROL:
		st->thread = (int)range(g, 0, sc->nr_threads - 1);
		st->domain = sc->threads[st->thread].domain;
		random_set(g, &st->ctrs);
		break;
	default:
		st->thread = (int)range(g, 0, sc->nr_threads - 1);
		if (chance(g, 70)) {	/* prefer a thread that runs */
			for (v = 0; v < rp->nr_vcpus; v++)
				if (rp->vcpu_pcpu[v] >= 0 && rp->vcpu_thread[v] >= 0) {
					st->thread = rp->vcpu_thread[v];
					break;
				}
		}
		st->domain = sc->threads[st->thread].domain;
		break;
	}
	if (commit(g) && k == SIM_STEP_CONTROL)
		note_periods(g, &st->ctrs);
	return 0;
}

int sim_gen(struct scenario *sc, uint64_t seed, const char *model, char *err, size_t errlen)
{
	const struct sim_model_info *m;
	struct gen g;
	unsigned int i, d, t, nsteps, e;

	memset(sc, 0, sizeof(*sc));
	memset(&g, 0, sizeof(g));
	g.rng = seed * 0x2545f4914f6cdd1dull + 1;
	g.sc = sc;
	g.notify_left = NOTIFY_BUDGET;
	g.wrap_left = WRAP_BUDGET;
	if (!model) {
		for (i = 0; sim_models[i].name; i++)
			;
		m = &sim_models[range(&g, 0, i - 1)];
	} else if (!(m = sim_model_find(model))) {
		snprintf(err, errlen, "unknown model '%s'", model);
		return -1;
	}
	random_pmu(&g, m);
	sc->nr_pcpus = (unsigned int)range(&g, 1, 4);
	sc->nr_domains = (unsigned int)range(&g, 1, 3);
	sc->domains = calloc(SIM_MAX_DOMAINS, sizeof(*sc->domains));
	sc->threads = calloc(4 * sc->nr_domains, sizeof(*sc->threads));
	if (!sc->domains || !sc->threads)
		goto oom;
	for (d = 0; d < sc->nr_domains; d++) {
		unsigned int nt = (unsigned int)range(&g, 1, 4);

		snprintf(sc->domains[d].name, SIM_NAME_MAX, "vm%u", d);
		sc->domains[d].nr_vcpus = (unsigned int)range(&g, 1, 3);
		sc->domains[d].line = 1;
		for (t = 0; t < nt; t++) {
			struct sim_thread *th = &sc->threads[sc->nr_threads++];

			snprintf(th->name, SIM_NAME_MAX, "t%u", t);
			th->domain = d;
			th->line = 1;
			random_set(&g, &th->ctrs);
			note_periods(&g, &th->ctrs);
		}
	}
	sc->policy = chance(&g, 50) ? SIM_POLICY_INCLUDE : SIM_POLICY_EXCLUDE;
	if (chance(&g, 60))
		for (e = 0; e < SIM_NR_EVENTS; e++)
			sc->pv_cost[e] = chance(&g, 60) ? range(&g, 0, 300) : 0;
	if (sim_replay_init(&g.rp, sc))
		goto oom;
	nsteps = (unsigned int)range(&g, 20, 160);
	while (sc->nr_steps < nsteps)
		if (gen_step(&g)) {
			sim_replay_free(&g.rp);
			goto oom;
		}
	sim_replay_free(&g.rp);
	return 0;
oom:
	sim_scenario_free(sc);
	snprintf(err, errlen, "out of memory");
	return -1;
}
