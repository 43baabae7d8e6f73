/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: pmuvirt's numbers against the truth, difference by difference. */
#include "output.h"

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
			if (a->ctr[k].count != b->ctr[k].count) {
				bad++;
				if (log)
					fprintf(log, "%s counter %u: count %llu, truth %llu\n",
						label, k + 1,
						(unsigned long long)a->ctr[k].count,
						(unsigned long long)b->ctr[k].count);
			}
			if (a->ctr[k].overflows != b->ctr[k].overflows) {
				bad++;
				if (log)
					fprintf(log, "%s counter %u: %llu overflows, truth %llu\n",
						label, k + 1,
						(unsigned long long)a->ctr[k].overflows,
						(unsigned long long)b->ctr[k].overflows);
			}
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
