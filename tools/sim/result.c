/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: result storage. */
#include <stdlib.h>
#include <string.h>
#include "result.h"

int sim_result_init(struct sim_result *res, const struct scenario *sc)
{
	unsigned int i;

	memset(res, 0, sizeof(*res));
	res->threads = calloc(sc->nr_threads ? sc->nr_threads : 1, sizeof(*res->threads));
	res->reads = calloc(sc->nr_reads ? sc->nr_reads : 1, sizeof(*res->reads));
	if (!res->threads || !res->reads) {
		sim_result_free(res);
		return -1;
	}
	res->nr_threads = sc->nr_threads;
	res->nr_reads = sc->nr_reads;
	for (i = 0; i < sc->nr_threads; i++)
		res->threads[i].nr_counters = sc->threads[i].ctrs.n;
	for (i = 0; i < sc->nr_steps; i++) {
		const struct sim_step *st = &sc->steps[i];

		if (st->kind == SIM_STEP_CONTROL) {
			res->threads[st->thread].nr_counters = st->ctrs.n;
		} else if (st->kind == SIM_STEP_READ && st->read_index < res->nr_reads) {
			struct sim_read_result *rd = &res->reads[st->read_index];

			rd->line = st->line;
			rd->thread = (unsigned int)st->thread;
			rd->nr_counters = res->threads[st->thread].nr_counters;
		}
	}
	return 0;
}

void sim_result_free(struct sim_result *res)
{
	free(res->threads);
	free(res->reads);
	memset(res, 0, sizeof(*res));
}
