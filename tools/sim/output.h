/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim: reports of a run (table, JSON, SVG) and the comparison. */
#ifndef PMUVIRT_SIM_OUTPUT_H
#define PMUVIRT_SIM_OUTPUT_H

#include "result.h"

/* The JSON object of docs/simulator.md. */
void sim_output_json(FILE *f, const struct scenario *sc, const struct sim_result *res,
		     const struct sim_result *truth);
/* The same facts as a table; @title heads it (the file name). */
void sim_output_table(FILE *f, const struct scenario *sc, const struct sim_result *res,
		      const struct sim_result *truth, const char *title);
/* Counts over the steps as an SVG picture.  0 or -1 (out of memory). */
int sim_output_svg(FILE *f, const struct scenario *sc, const struct sim_result *res,
		   const struct sim_result *truth, const char *title);
/*
 * Number of differences between @res and @truth (counts, overflows, reads);
 * each is described on @log if it is not NULL.
 */
unsigned int sim_compare(const struct scenario *sc, const struct sim_result *res,
			 const struct sim_result *truth, FILE *log);

#endif /* PMUVIRT_SIM_OUTPUT_H */
