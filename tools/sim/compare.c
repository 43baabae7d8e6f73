/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: pmuvirt's numbers against the truth, difference by difference. */
#include "output.h"

/* 1 (and a line on @log) when @got is not @truth. */
static unsigned int differs(FILE *log, const char *label, unsigned int k, const char *what,
			    uint64_t got, uint64_t truth)
{
	if (got == truth)
		return 0;
	if (log)
		fprintf(log, "%s counter %u: %s %llu, truth %llu\n", label, k + 1, what,
			(unsigned long long)got, (unsigned long long)truth);
	return 1;
}

unsigned int sim_compare(const struct scenario *sc, const struct sim_result *res,
			 const struct sim_result *truth, FILE *log)
{
	unsigned int t, k, r, bad = 0;
	char label[SIM_LABEL_MAX];

	for (t = 0; t < sc->nr_threads; t++) {
		const struct sim_thread_result *a = &res->threads[t], *b = &truth->threads[t];

		sim_thread_label(sc, t, label, sizeof(label));
		if (a->nr_counters != b->nr_counters) {
			bad++;
			if (log)
				fprintf(log, "%s: %u counters, expected %u\n", label,
					a->nr_counters, b->nr_counters);
			continue;
		}
		for (k = 0; k < b->nr_counters; k++) {
			bad += differs(log, label, k, "count", a->ctr[k].count, b->ctr[k].count);
			bad += differs(log, label, k, "overflows", a->ctr[k].overflows,
				       b->ctr[k].overflows);
		}
	}
	for (r = 0; r < truth->nr_reads; r++) {
		const struct sim_read_result *a = &res->reads[r], *b = &truth->reads[r];

		sim_thread_label(sc, b->thread, label, sizeof(label));
		if (a->nr_counters != b->nr_counters) {
			bad++;
			if (log)
				fprintf(log, "read at line %d (%s): %u counts, expected %u\n",
					b->line, label, a->nr_counters, b->nr_counters);
			continue;
		}
		for (k = 0; k < b->nr_counters; k++)
			if (a->counts[k] != b->counts[k]) {
				bad++;
				if (log)
					fprintf(log, "read at line %d (%s) counter %u: %llu, truth %llu\n",
						b->line, label, k + 1,
						(unsigned long long)a->counts[k],
						(unsigned long long)b->counts[k]);
			}
	}
	return bad;
}
