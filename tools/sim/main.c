/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-sim: the two-level simulator's command line.
 *
 *   pmuvirt-sim run <file> [--json] [--svg FILE] [--check]
 *   pmuvirt-sim gen --seed N [--model M]
 *   pmuvirt-sim battery [--model M] [--first N] [--count K]
 *
 * Exit status: 0 completed, 1 invalid scenario, 2 usage error, 3 the engine
 * failed, 4 (--check, battery) a count differs from the truth.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "gen.h"
#include "output.h"
#include "truth.h"

#define EXIT_INVALID	1
#define EXIT_USAGE	2
#define EXIT_ENGINE	3
#define EXIT_MISMATCH	4

#ifdef SIM_STUB_ENGINE
#define PROG "pmuvirt-sim-stub"
#else
#define PROG "pmuvirt-sim"
#endif

static int usage(const char *why)
{
	char names[256];

	if (why)
		fprintf(stderr, PROG ": %s\n", why);
	sim_model_names(names, sizeof(names), " ");
	fprintf(stderr,
		"usage: " PROG " run <file> [--json] [--svg FILE] [--check]\n"
		"       " PROG " gen --seed N [--model M]\n"
		"       " PROG " battery [--model M] [--first N] [--count K]\n"
		"       " PROG " models\n"
		"models: %s\n", names);
	return EXIT_USAGE;
}

static int cmd_run(int argc, char **argv)
{
	const char *file = NULL, *svg = NULL;
	bool json = false, check = false;
	struct scenario sc;
	struct sim_result res, truth;
	char err[512];
	int i, ret;
	unsigned int bad;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--check"))
			check = true;
		else if (!strcmp(argv[i], "--svg")) {
			if (++i == argc)
				return usage("--svg needs a file name");
			svg = argv[i];
		} else if (argv[i][0] == '-' && argv[i][1])
			return usage("unknown option");
		else if (file)
			return usage("more than one scenario file");
		else
			file = argv[i];
	}
	if (!file)
		return usage("run needs a scenario file");
	if (sim_parse_file(file, &sc, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", file, err);
		return EXIT_INVALID;
	}
	if (sim_result_init(&res, &sc) || sim_result_init(&truth, &sc) ||
	    sim_truth_run(&sc, &truth)) {
		fprintf(stderr, PROG ": out of memory\n");
		sim_scenario_free(&sc);
		return EXIT_ENGINE;
	}
#ifdef SIM_STUB_ENGINE
	fprintf(stderr, PROG ": STUB ENGINE: counts below are the simulator's truth, not pmuvirt's\n");
#endif
	err[0] = 0;
	if (sim_engine_run(&sc, &res, err, sizeof(err))) {
		fprintf(stderr, "%s: engine: %s\n", file, err[0] ? err : "failed");
		ret = EXIT_ENGINE;
		goto out;
	}
	if (svg) {
		FILE *f = fopen(svg, "w");

		if (!f || sim_output_svg(f, &sc, &res, &truth, file) || fclose(f)) {
			fprintf(stderr, "%s: %s\n", svg, strerror(errno));
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (json)
		sim_output_json(stdout, &sc, &res, &truth);
	else
		sim_output_table(stdout, &sc, &res, &truth, file);
	fflush(stdout);
	ret = 0;
	if (check) {
		bad = sim_compare(&sc, &res, &truth, stderr);
		if (bad) {
			fprintf(stderr, "%s: %u differences from the truth\n", file, bad);
			ret = EXIT_MISMATCH;
		}
	}
out:
	sim_result_free(&res);
	sim_result_free(&truth);
	sim_scenario_free(&sc);
	return ret;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static int cmd_gen(int argc, char **argv)
{
	const char *model = NULL;
	bool have_seed = false;
	struct scenario sc;
	uint64_t seed = 0;
	char err[200];
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			if (parse_u64(argv[++i], &seed))
				return usage("bad seed");
			have_seed = true;
		} else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
			model = argv[++i];
		} else {
			return usage("gen takes --seed N [--model M]");
		}
	}
	if (!have_seed)
		return usage("gen needs --seed N");
	if (sim_gen(&sc, seed, model, err, sizeof(err)))
		return usage(err);
	printf("# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause\n");
	printf("# pmuvirt-sim gen --seed %llu%s%s\n", (unsigned long long)seed,
	       model ? " --model " : "", model ? model : "");
	sim_scenario_print(stdout, &sc);
	sim_scenario_free(&sc);
	return fflush(stdout) ? EXIT_ENGINE : 0;
}

/*
 * battery --model M --first N --count K: gen and run seeds N .. N+K-1 in
 * this process, the generated text parsed back as `run` would; every
 * number must equal the truth.
 */
static int cmd_battery(int argc, char **argv)
{
	const char *model = NULL;
	uint64_t first = 1, count = 100, seed;
	unsigned int bad_runs = 0;
	char err[512];
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--model") && i + 1 < argc) {
			model = argv[++i];
		} else if (!strcmp(argv[i], "--first") && i + 1 < argc) {
			if (parse_u64(argv[++i], &first))
				return usage("bad --first");
		} else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			if (parse_u64(argv[++i], &count))
				return usage("bad --count");
		} else {
			return usage("battery takes --model M --first N --count K");
		}
	}
	for (seed = first; seed < first + count; seed++) {
		struct scenario gen, sc;
		struct sim_result res, truth;
		char *text = NULL;
		size_t len = 0;
		FILE *f;
		unsigned int bad;

		if (sim_gen(&gen, seed, model, err, sizeof(err)))
			return usage(err);
		f = open_memstream(&text, &len);
		if (!f)
			return EXIT_ENGINE;
		sim_scenario_print(f, &gen);
		fclose(f);
		sim_scenario_free(&gen);
		if (sim_parse(text, &sc, err, sizeof(err))) {
			fprintf(stderr, "seed %llu: generated scenario invalid: %s\n",
				(unsigned long long)seed, err);
			free(text);
			return EXIT_INVALID;
		}
		if (sim_result_init(&res, &sc) || sim_result_init(&truth, &sc) ||
		    sim_truth_run(&sc, &truth))
			return EXIT_ENGINE;
		err[0] = 0;
		if (sim_engine_run(&sc, &res, err, sizeof(err))) {
			fprintf(stderr, "FAIL: gen --seed %llu --model %s: engine: %s\n",
				(unsigned long long)seed, sc.pmu.name, err);
			bad_runs++;
		} else if ((bad = sim_compare(&sc, &res, &truth, NULL)) != 0) {
			fprintf(stderr, "FAIL: gen --seed %llu --model %s: %u differences:\n",
				(unsigned long long)seed, sc.pmu.name, bad);
			sim_compare(&sc, &res, &truth, stderr);
			bad_runs++;
		}
		sim_result_free(&res);
		sim_result_free(&truth);
		sim_scenario_free(&sc);
		free(text);
		if (bad_runs >= 5)
			break;
	}
	if (bad_runs)
		return EXIT_MISMATCH;
	printf("%llu scenarios exact on %s\n", (unsigned long long)count, model ? model : "all models");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(NULL);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "gen"))
		return cmd_gen(argc - 2, argv + 2);
	if (!strcmp(argv[1], "battery"))
		return cmd_battery(argc - 2, argv + 2);
	if (!strcmp(argv[1], "models") && argc == 2) {
		const struct sim_model_info *m;

		for (m = sim_models; m->name; m++)
			printf("%s\n", m->name);
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(NULL);
		return 0;
	}
	return usage("unknown command");
}
