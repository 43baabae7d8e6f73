/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: a scenario written back in the scenario format. */
#include "scenario.h"

static void print_counters(FILE *f, const struct sim_counter_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++) {
		fprintf(f, " %s", sim_event_name(set->c[i].event));
		if (set->c[i].period)
			fprintf(f, ":i%llu", (unsigned long long)set->c[i].period);
	}
}

static void print_events(FILE *f, const uint64_t *ev)
{
	unsigned int e;

	for (e = 0; e < SIM_NR_EVENTS; e++)
		if (ev[e])
			fprintf(f, " %s=%llu", sim_event_name((enum sim_event)e),
				(unsigned long long)ev[e]);
}

void sim_scenario_print(FILE *f, const struct scenario *sc)
{
	const struct sim_pmu *pmu = &sc->pmu;
	unsigned int i, e;
	bool any_ev;

	fprintf(f, "pmu %s", pmu->name);
	if (pmu->model == SIM_MODEL_INTEL)
		fprintf(f, " gp=%u fixed=%u width=%u fw-write=%d", pmu->gp, pmu->fixed,
			pmu->width, pmu->fw_write);
	else if (pmu->model == SIM_MODEL_AMD_PERFMONV2)
		fprintf(f, " gp=%u", pmu->gp);
	fprintf(f, "\npcpus %u\n", sc->nr_pcpus);
	for (i = 0; i < sc->nr_domains; i++)
		fprintf(f, "vcpus %s %u\n", sc->domains[i].name, sc->domains[i].nr_vcpus);
	for (i = 0; i < sc->nr_threads; i++) {
		fprintf(f, "thread %s.%s", sc->domains[sc->threads[i].domain].name,
			sc->threads[i].name);
		print_counters(f, &sc->threads[i].ctrs);
		fputc('\n', f);
	}
	fprintf(f, "policy hypervisor-events=%s\n",
		sc->policy == SIM_POLICY_INCLUDE ? "include" : "exclude");
	for (e = 0, any_ev = false; e < SIM_NR_EVENTS; e++)
		any_ev |= sc->pv_cost[e] != 0;
	if (any_ev) {
		fprintf(f, "pv-cost");
		print_events(f, sc->pv_cost);
		fputc('\n', f);
	}
	for (i = 0; i < sc->nr_steps; i++) {
		const struct sim_step *st = &sc->steps[i];
		const char *dom = sc->domains[st->domain].name;

		switch (st->kind) {
		case SIM_STEP_SCHEDULE:
			fprintf(f, "schedule %u %s.%u\n", st->pcpu, dom, st->vcpu);
			break;
		case SIM_STEP_DESCHEDULE:
			fprintf(f, "deschedule %u\n", st->pcpu);
			break;
		case SIM_STEP_SWITCH:
			fprintf(f, "switch %s.%u %s\n", dom, st->vcpu,
				st->thread < 0 ? "-" : sc->threads[st->thread].name);
			break;
		case SIM_STEP_EXEC:
		case SIM_STEP_HYPER:
			if (st->kind == SIM_STEP_EXEC)
				fprintf(f, "exec %s.%u", dom, st->vcpu);
			else
				fprintf(f, "hyper %u", st->pcpu);
			for (e = 0, any_ev = false; e < SIM_NR_EVENTS; e++)
				any_ev |= st->events[e] != 0;
			if (any_ev)
				print_events(f, st->events);
			else
				fprintf(f, " instructions=0");
			fputc('\n', f);
			break;
		case SIM_STEP_CONTROL:
			fprintf(f, "control %s.%s", dom, sc->threads[st->thread].name);
			print_counters(f, &st->ctrs);
			fputc('\n', f);
			break;
		case SIM_STEP_READ:
			fprintf(f, "read %s.%s\n", dom, sc->threads[st->thread].name);
			break;
		}
	}
}
