/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-sim: the engine, which drives the real pmuvirt core over fake
 * hardware through a scenario (engine.c).
 */
#ifndef PMUVIRT_SIM_ENGINE_H
#define PMUVIRT_SIM_ENGINE_H

#include "result.h"

/**
 * sim_engine_run() - run a validated scenario through pmuvirt
 * @sc:		from sim_parse(); valid as a whole.
 * @res:	prepared by sim_result_init(@res, @sc); the engine fills the
 *		counts, overflows, reads and stats.
 * @errbuf:	on failure, a message saying what went wrong (with the step's
 *		line when one is to blame).
 * @errlen:	size of @errbuf.
 *
 * Return: 0 when the run completed; nonzero on a runtime error (pmuvirt
 * refused a call, the fake hardware saw an illegal access, ...).
 */
int sim_engine_run(const struct scenario *sc, struct sim_result *res, char *errbuf,
		   size_t errlen);

#endif /* PMUVIRT_SIM_ENGINE_H */
