/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Fuzz the simulator's scenario parser: no crash, no leak, and every
 * accepted scenario prints to text that parses back and prints the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenario.h"

static char *print(const struct scenario *sc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	sim_scenario_print(f, sc);
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario sc, again;
	char err[256], *text, *out1, *out2;

	text = strndup((const char *)data, size);
	if (!text)
		return 0;
	memset(&sc, 0, sizeof(sc));
	if (sim_parse(text, &sc, err, sizeof(err))) {
		if (!memchr(err, 0, sizeof(err)))
			abort();
		free(text);
		return 0;
	}
	out1 = print(&sc);
	memset(&again, 0, sizeof(again));
	if (sim_parse(out1, &again, err, sizeof(err))) {
		fprintf(stderr, "printed scenario does not parse: %s\n%s", err, out1);
		abort();
	}
	out2 = print(&again);
	if (strcmp(out1, out2)) {
		fprintf(stderr, "print/parse not stable:\n%s\n---\n%s", out1, out2);
		abort();
	}
	free(out1);
	free(out2);
	sim_scenario_free(&sc);
	sim_scenario_free(&again);
	free(text);
	return 0;
}
