/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * A stand-in engine for testing the simulator's front end alone: it copies
 * the ground truth and reports no cost.  It is linked only into
 * pmuvirt-sim-stub, never into pmuvirt-sim; its numbers are not pmuvirt's.
 */
#include "engine.h"
#include "truth.h"

int sim_engine_run(const struct scenario *sc, struct sim_result *res, char *errbuf,
		   size_t errlen)
{
	if (sim_truth_run(sc, res)) {
		snprintf(errbuf, errlen, "truth replay failed");
		return -1;
	}
	return 0;
}
