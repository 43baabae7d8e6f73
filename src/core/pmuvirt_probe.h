/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Helpers a backend's probe uses to fill a struct pmuvirt_pmu
 * (src/core/probe.c).  Included by src/arch only.
 */
#ifndef PMUVIRT_PROBE_H
#define PMUVIRT_PROBE_H

#include "pmuvirt_defaults.h"
#include <pmuvirt/pmuvirt.h>

/**
 * pmuvirt_pmu_clear() - set every byte of @pmu to zero
 * @pmu:	the PMU a probe is about to fill.
 */
void pmuvirt_pmu_clear(struct pmuvirt_pmu *pmu);

/**
 * pmuvirt_pmu_set_name() - set @pmu->name to @prefix followed by @name
 * @pmu:	the PMU.
 * @prefix:	may be NULL.
 * @name:	the model name.
 *
 * Cut to fit; the rest of the buffer is zero.  Neither string may lie in
 * @pmu->name itself.
 */
void pmuvirt_pmu_set_name(struct pmuvirt_pmu *pmu, const char *prefix, const char *name);

/**
 * pmuvirt_pmu_add_slot() - append a slot to @pmu
 * @pmu:	the PMU; @pmu->nr_slots grows by one.
 * @cls:	enum pmuvirt_class.
 * @index:	index within its class.
 * @width:	counter width in bits.
 * @events:	portable events the slot counts (bits).
 * @user_index:	read index for user mode plus one, 0 for none.
 * @threshold:	raw value at which the counter signals.
 *
 * A full slot table stays as it is: probes add at most PMUVIRT_MAX_SLOTS.
 */
void pmuvirt_pmu_add_slot(struct pmuvirt_pmu *pmu, unsigned int cls, unsigned int index,
			  unsigned int width, uint32_t events, uint32_t user_index,
			  uint64_t threshold);

#endif /* PMUVIRT_PROBE_H */
