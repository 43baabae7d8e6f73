/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: random valid scenarios for the test battery. */
#ifndef PMUVIRT_SIM_GEN_H
#define PMUVIRT_SIM_GEN_H

#include "scenario.h"

/*
 * Build a random valid scenario from @seed on @model (one of sim_models[];
 * NULL: chosen from the seed).  The same seed and model always give the same scenario.  Returns 0,
 * or -1 with the reason in @err (unknown model, out of memory).
 */
int sim_gen(struct scenario *sc, uint64_t seed, const char *model, char *err, size_t errlen);

#endif /* PMUVIRT_SIM_GEN_H */
