/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: the report of a run as a table or as JSON (docs/simulator.md). */
#include "output.h"

static const char *mode_name(const struct sim_counter *c)
{
	return c->period ? "i" : "a";
}

/* JSON */

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void sim_output_json(FILE *f, const struct scenario *sc, const struct sim_result *res,
		     const struct sim_result *truth)
{
	unsigned int t, k, r;
	char label[SIM_LABEL_MAX];

	fprintf(f, "{\n  \"threads\": {");
	for (t = 0; t < sc->nr_threads; t++) {
		const struct sim_counter_set *set = sim_thread_final_ctrs(sc, t);

		sim_thread_label(sc, t, label, sizeof(label));
		fprintf(f, "%s\n    ", t ? "," : "");
		json_string(f, label);
		fprintf(f, ": {\n      \"counters\": [");
		for (k = 0; k < set->n; k++)
			fprintf(f,
				"%s\n        { \"event\": \"%s\", \"mode\": \"%s\", \"count\": %llu, \"truth\": %llu, \"overflows\": %llu }",
				k ? "," : "", sim_event_name(set->c[k].event),
				mode_name(&set->c[k]),
				(unsigned long long)res->threads[t].ctr[k].count,
				(unsigned long long)truth->threads[t].ctr[k].count,
				(unsigned long long)res->threads[t].ctr[k].overflows);
		fprintf(f, "\n      ]\n    }");
	}
	fprintf(f, "%s},\n  \"reads\": [", sc->nr_threads ? "\n  " : "");
	for (r = 0; r < res->nr_reads; r++) {
		const struct sim_read_result *rd = &res->reads[r];

		sim_thread_label(sc, rd->thread, label, sizeof(label));
		fprintf(f, "%s\n    { \"line\": %d, \"thread\": ", r ? "," : "", rd->line);
		json_string(f, label);
		fprintf(f, ", \"counts\": [");
		for (k = 0; k < rd->nr_counters; k++)
			fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)rd->counts[k]);
		fprintf(f, "] }");
	}
	fprintf(f, "%s],\n", res->nr_reads ? "\n  " : "");
	fprintf(f,
		"  \"stats\": { \"msr_reads\": %llu, \"msr_writes\": %llu, \"hypercalls\": %llu,\n"
		"             \"vcpu_switches\": %llu, \"thread_switches\": %llu }\n}\n",
		(unsigned long long)res->stats.msr_reads,
		(unsigned long long)res->stats.msr_writes,
		(unsigned long long)res->stats.hypercalls,
		(unsigned long long)res->stats.vcpu_switches,
		(unsigned long long)res->stats.thread_switches);
}

/* Table */

static void counter_name(char *buf, size_t len, const struct sim_counter *c)
{
	if (c->period)
		snprintf(buf, len, "%s:i%llu", sim_event_name(c->event),
			 (unsigned long long)c->period);
	else
		snprintf(buf, len, "%s", sim_event_name(c->event));
}

void sim_output_table(FILE *f, const struct scenario *sc, const struct sim_result *res,
		      const struct sim_result *truth, const char *title)
{
	const struct sim_pmu *pmu = &sc->pmu;
	unsigned int t, k, r, bad;
	char label[SIM_LABEL_MAX], cname[64];

	fprintf(f, "%s: pmu %s", title, pmu->name);
	if (pmu->model == SIM_MODEL_INTEL)
		fprintf(f, " gp=%u fixed=%u width=%u fw-write=%d", pmu->gp, pmu->fixed,
			pmu->width, pmu->fw_write);
	else
		fprintf(f, " gp=%u width=%u", pmu->gp, pmu->width);
	fprintf(f, ", %u pcpus, %u domains, %u threads, %u steps, hypervisor events %sd\n\n",
		sc->nr_pcpus, sc->nr_domains, sc->nr_threads, sc->nr_steps,
		sc->policy == SIM_POLICY_INCLUDE ? "include" : "exclude");

	fprintf(f, "%-20s %-28s %20s %20s %-3s %10s %10s\n", "thread", "counter", "count",
		"truth", "", "overflows", "(truth)");
	for (t = 0; t < sc->nr_threads; t++) {
		const struct sim_counter_set *set = sim_thread_final_ctrs(sc, t);

		sim_thread_label(sc, t, label, sizeof(label));
		for (k = 0; k < set->n; k++) {
			const struct sim_counter_result *a = &res->threads[t].ctr[k];
			const struct sim_counter_result *b = &truth->threads[t].ctr[k];
			bool ok = a->count == b->count && a->overflows == b->overflows;

			counter_name(cname, sizeof(cname), &set->c[k]);
			fprintf(f, "%-20s %-28s %20llu %20llu %-3s", k ? "" : label, cname,
				(unsigned long long)a->count, (unsigned long long)b->count,
				ok ? "ok" : "BAD");
			if (set->c[k].period)
				fprintf(f, " %10llu %10llu\n", (unsigned long long)a->overflows,
					(unsigned long long)b->overflows);
			else
				fprintf(f, " %10s %10s\n", "-", "-");
		}
	}
	if (res->nr_reads) {
		fprintf(f, "\n%-6s %-20s %s\n", "read", "thread", "counts (truth)");
		for (r = 0; r < res->nr_reads; r++) {
			const struct sim_read_result *a = &res->reads[r], *b = &truth->reads[r];
			bool ok = a->nr_counters == b->nr_counters;

			sim_thread_label(sc, a->thread, label, sizeof(label));
			fprintf(f, "l.%-4d %-20s", a->line, label);
			for (k = 0; k < a->nr_counters; k++) {
				fprintf(f, " %llu", (unsigned long long)a->counts[k]);
				if (k < b->nr_counters && a->counts[k] == b->counts[k])
					continue;
				ok = false;
				fprintf(f, " (%llu)", (unsigned long long)b->counts[k]);
			}
			fprintf(f, "  %s\n", ok ? "ok" : "BAD");
		}
	}
	fprintf(f, "\nstats: msr_reads %llu, msr_writes %llu, hypercalls %llu, vcpu_switches %llu, thread_switches %llu\n",
		(unsigned long long)res->stats.msr_reads,
		(unsigned long long)res->stats.msr_writes,
		(unsigned long long)res->stats.hypercalls,
		(unsigned long long)res->stats.vcpu_switches,
		(unsigned long long)res->stats.thread_switches);
	bad = sim_compare(sc, res, truth, NULL);
	if (bad)
		fprintf(f, "result: %u MISMATCHES with the truth\n", bad);
	else
		fprintf(f, "result: exact (every count, overflow and read equals the truth)\n");
}
