/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* What every backend's probe does to a struct pmuvirt_pmu. */
#include "pmuvirt_probe.h"

void pmuvirt_pmu_clear(struct pmuvirt_pmu *pmu)
{
	/* volatile: a byte loop the compiler may not turn into a memset call */
	volatile uint8_t *b = (volatile uint8_t *)pmu;
	size_t n;

	for (n = 0; n < sizeof(*pmu); n++)
		b[n] = 0;
}

void pmuvirt_pmu_set_name(struct pmuvirt_pmu *pmu, const char *prefix, const char *name)
{
	size_t i = 0, j;

	for (j = 0; prefix && prefix[j] && i + 1 < sizeof(pmu->name); j++)
		pmu->name[i++] = prefix[j];
	for (j = 0; name[j] && i + 1 < sizeof(pmu->name); j++)
		pmu->name[i++] = name[j];
	for (; i < sizeof(pmu->name); i++)
		pmu->name[i] = 0;
}

void pmuvirt_pmu_add_slot(struct pmuvirt_pmu *pmu, unsigned int cls, unsigned int index,
			  unsigned int width, uint32_t events, uint32_t user_index,
			  uint64_t threshold)
{
	struct pmuvirt_slot *s;

	if (pmu->nr_slots >= PMUVIRT_MAX_SLOTS)
		return;
	s = &pmu->slot[pmu->nr_slots++];
	s->cls = (uint8_t)cls;
	s->index = (uint8_t)index;
	s->width = (uint8_t)width;
	s->flags = 0;
	s->events = events;
	s->user_index = user_index;
	s->reserved = 0;
	s->threshold = threshold;
}
