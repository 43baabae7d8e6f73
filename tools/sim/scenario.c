/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: the models, names and queries of a parsed scenario; freeing it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenario.h"

const struct sim_model_info sim_models[] = {
	{ "intel-v1", SIM_MODEL_INTEL, 1, 4, 0, 48 },
	{ "intel-v2", SIM_MODEL_INTEL, 2, 4, 3, 48 },
	{ "intel-v3", SIM_MODEL_INTEL, 3, 4, 3, 48 },
	{ "intel-v4", SIM_MODEL_INTEL, 4, 4, 3, 48 },
	{ "intel-v5", SIM_MODEL_INTEL, 5, 4, 3, 48 },
	{ "amd-k8", SIM_MODEL_AMD_K8, 0, 4, 0, 48 },
	{ "amd-fam17h", SIM_MODEL_AMD_FAM17H, 0, 6, 0, 48 },
	{ "amd-perfmonv2", SIM_MODEL_AMD_PERFMONV2, 0, 6, 0, 48 },
	{ "power8", SIM_MODEL_POWER, 8, 4, 2, 32 },
	{ "power9", SIM_MODEL_POWER, 9, 4, 2, 32 },
	{ "power10", SIM_MODEL_POWER, 10, 4, 2, 32 },
	{ NULL },
};

const struct sim_model_info *sim_model_find(const char *name)
{
	const struct sim_model_info *m;

	for (m = sim_models; m->name; m++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

void sim_model_names(char *buf, size_t len, const char *sep)
{
	const struct sim_model_info *m;
	size_t at = 0;

	buf[0] = 0;
	for (m = sim_models; m->name && at < len; m++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", m == sim_models ? "" : sep,
				       m->name);
}

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
