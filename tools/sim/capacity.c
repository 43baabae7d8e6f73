/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: what each PMU model can count at once (docs/simulator.md). */
#include "scenario.h"

static bool has_fixed_ins(const struct sim_pmu *pmu)
{
	return pmu->model == SIM_MODEL_POWER || (pmu->model == SIM_MODEL_INTEL && pmu->fixed >= 1);
}

static bool has_fixed_cyc(const struct sim_pmu *pmu)
{
	return pmu->model == SIM_MODEL_POWER || (pmu->model == SIM_MODEL_INTEL && pmu->fixed >= 2);
}

uint64_t sim_period_max(const struct sim_pmu *pmu)
{
	(void)pmu;
	return SIM_NUM_MAX;	/* the library's PMUVIRT_PERIOD_MAX (engine.c checks) */
}

uint64_t sim_arm_max(const struct sim_pmu *pmu)
{
	/* Without full-width writes only 32 bits of a counter can be set. */
	if (pmu->model == SIM_MODEL_POWER || (pmu->model == SIM_MODEL_INTEL && !pmu->fw_write))
		return (uint64_t)1 << 31;
	return (uint64_t)1 << (pmu->width - 1);
}

unsigned int sim_max_counters(const struct sim_pmu *pmu)
{
	unsigned int n = pmu->gp + has_fixed_ins(pmu) + has_fixed_cyc(pmu);

	return n < SIM_MAX_COUNTERS ? n : SIM_MAX_COUNTERS;
}

int sim_counters_fit(const struct sim_pmu *pmu, const struct sim_counter_set *set,
		     char *why, size_t len)
{
	unsigned int i, per_ev[SIM_NR_EVENTS] = { 0 }, need;

	if (set->n == 0 || set->n > SIM_MAX_COUNTERS) {
		snprintf(why, len, "a counter set needs 1 to %d counters", SIM_MAX_COUNTERS);
		return -1;
	}
	for (i = 0; i < set->n; i++) {
		uint64_t p = set->c[i].period;

		if ((unsigned int)set->c[i].event >= SIM_NR_EVENTS) {
			snprintf(why, len, "counter %u has an unknown event", i + 1);
			return -1;
		}
		if (p > sim_period_max(pmu)) {
			snprintf(why, len, "i-mode period %llu of counter %u is above 2^62",
				 (unsigned long long)p, i + 1);
			return -1;
		}
		per_ev[set->c[i].event]++;
	}
	/*
	 * POWER: branches are PMC1-only on POWER8 and PMC4-only on POWER9/10,
	 * branch misses PMC4-only everywhere.
	 */
	if (pmu->model == SIM_MODEL_POWER) {
		unsigned int b = per_ev[SIM_EV_BRANCHES], m = per_ev[SIM_EV_BRANCH_MISSES];

		if (pmu->version == 8 ? (b > 1 || m > 1) : b + m > 1) {
			snprintf(why, len, pmu->version == 8 ?
				 "%s counts branches on PMC1 only and branch misses on PMC4 only" :
				 "%s counts branches and branch misses on PMC4 only (one of them at a time)",
				 pmu->name);
			return -1;
		}
	}
	if (has_fixed_ins(pmu) && per_ev[SIM_EV_INSTRUCTIONS])
		per_ev[SIM_EV_INSTRUCTIONS]--;
	if (has_fixed_cyc(pmu) && per_ev[SIM_EV_CYCLES])
		per_ev[SIM_EV_CYCLES]--;
	need = per_ev[0] + per_ev[1] + per_ev[2] + per_ev[3];
	if (need > pmu->gp) {
		snprintf(why, len,
			 "%u counters cannot be counted at once on %s: they need %u general-purpose counters, it has %u",
			 set->n, pmu->name, need, pmu->gp);
		return -1;
	}
	return 0;
}
