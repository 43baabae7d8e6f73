/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: names and queries of a parsed scenario; freeing it. */
#include <stdlib.h>
#include <string.h>
#include "scenario.h"

static const char *const event_names[SIM_NR_EVENTS] = {
	"instructions", "cycles", "branches", "branch-misses",
};

const char *sim_event_name(enum sim_event ev)
{
	return (unsigned int)ev < SIM_NR_EVENTS ? event_names[ev] : NULL;
}

void sim_thread_label(const struct scenario *sc, unsigned int thread, char *buf, size_t len)
{
	const struct sim_thread *t = &sc->threads[thread];

	snprintf(buf, len, "%s.%s", sc->domains[t->domain].name, t->name);
}

const struct sim_counter_set *sim_thread_final_ctrs(const struct scenario *sc, unsigned int t)
{
	const struct sim_counter_set *set = &sc->threads[t].ctrs;
	unsigned int i;

	for (i = 0; i < sc->nr_steps; i++)
		if (sc->steps[i].kind == SIM_STEP_CONTROL && sc->steps[i].thread == (int)t)
			set = &sc->steps[i].ctrs;
	return set;
}

void sim_scenario_free(struct scenario *sc)
{
	free(sc->domains);
	free(sc->threads);
	free(sc->steps);
	memset(sc, 0, sizeof(*sc));
}
