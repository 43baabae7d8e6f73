/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt-sim front end: parser, validation, capacity rule, truth, generator. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gen.h"
#include "truth.h"

static char err[512];

static int parse(const char *text, struct scenario *sc)
{
	return sim_parse(text, sc, err, sizeof(err));
}

/* @text must be rejected with a message starting "line @line: " and containing @what. */
static void expect_error(const char *text, int line, const char *what)
{
	struct scenario sc;
	char prefix[32];

	assert_int_equal(parse(text, &sc), -1);
	snprintf(prefix, sizeof(prefix), "line %d: ", line);
	if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, what))
		fail_msg("got \"%s\", expected \"%s...%s\"", err, prefix, what);
}

/* Each model's defaults (docs/simulator.md). */
static const struct model_case {
	const char *text;
	int model, version, gp, fixed, width;
} models[] = {
	{ "pmu intel-v2\npcpus 1\n", SIM_MODEL_INTEL, 2, 4, 3, 48 },
	{ "pmu amd-perfmonv2\npcpus 1\n", SIM_MODEL_AMD_PERFMONV2, 0, 6, 0, 48 },
	{ "pmu amd-k8\npcpus 1\n", SIM_MODEL_AMD_K8, 0, 4, 0, 48 },
	{ "pmu amd-fam17h\npcpus 1\n", SIM_MODEL_AMD_FAM17H, 0, 6, 0, 48 },
	{ "pmu power10\npcpus 1\n", SIM_MODEL_POWER, 10, 4, 2, 32 },
};

static void test_defaults(void **state)
{
	struct scenario sc;
	unsigned int i;

	assert_int_equal(parse("pmu intel-v1\npcpus 1\n", &sc), 0);
	assert_int_equal(sc.pmu.model, SIM_MODEL_INTEL);
	assert_int_equal(sc.pmu.version, 1);
	assert_int_equal(sc.pmu.gp, 4);
	assert_int_equal(sc.pmu.fixed, 0);
	assert_int_equal(sc.pmu.width, 48);
	assert_true(sc.pmu.fw_write);
	assert_int_equal(sc.policy, SIM_POLICY_EXCLUDE);
	sim_scenario_free(&sc);

	assert_int_equal(parse("pmu intel-v5 gp=8 fixed=4 width=32 fw-write=0\npcpus 3\n", &sc), 0);
	assert_int_equal(sc.pmu.version, 5);
	assert_int_equal(sc.pmu.gp, 8);
	assert_int_equal(sc.pmu.fixed, 4);
	assert_int_equal(sc.pmu.width, 32);
	assert_false(sc.pmu.fw_write);
	assert_int_equal(sc.nr_pcpus, 3);
	sim_scenario_free(&sc);

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const struct model_case *m = &models[i];

		assert_int_equal(parse(m->text, &sc), 0);
		assert_int_equal(sc.pmu.model, m->model);
		assert_int_equal(sc.pmu.version, m->version);
		assert_int_equal(sc.pmu.gp, m->gp);
		assert_int_equal(sc.pmu.fixed, m->fixed);
		assert_int_equal(sc.pmu.width, m->width);
		sim_scenario_free(&sc);
	}
}

static void test_lexical(void **state)
{
	struct scenario sc;
	const char *text =
		"# a comment\n"
		"\n"
		"   pmu\tamd-k8   # trailing comment\r\n"
		"pcpus 0x2\n"
		"vcpus _Dom_1 0X3\n"
		"thread _Dom_1.T9 instructions:i0x10 cycles\n"
		"pv-cost cycles=7 instructions=0\n"
		"policy hypervisor-events=include\n"
		"schedule 1 _Dom_1.2\n"
		"switch _Dom_1.2 T9\n"
		"exec _Dom_1.2 instructions=4611686018427387904 cycles=0x4000000000000000\n"
		"read _Dom_1.T9";	/* no final newline */

	assert_int_equal(parse(text, &sc), 0);
	assert_int_equal(sc.nr_pcpus, 2);
	assert_int_equal(sc.nr_domains, 1);
	assert_string_equal(sc.domains[0].name, "_Dom_1");
	assert_int_equal(sc.domains[0].nr_vcpus, 3);
	assert_int_equal(sc.nr_threads, 1);
	assert_int_equal(sc.threads[0].ctrs.n, 2);
	assert_int_equal(sc.threads[0].ctrs.c[0].period, 16);
	assert_int_equal(sc.threads[0].ctrs.c[1].period, 0);
	assert_int_equal(sc.pv_cost[SIM_EV_CYCLES], 7);
	assert_int_equal(sc.policy, SIM_POLICY_INCLUDE);
	assert_int_equal(sc.nr_steps, 4);
	assert_int_equal(sc.steps[2].kind, SIM_STEP_EXEC);
	assert_int_equal(sc.steps[2].line, 11);
	assert_true(sc.steps[2].events[SIM_EV_INSTRUCTIONS] == SIM_NUM_MAX);
	assert_true(sc.steps[2].events[SIM_EV_CYCLES] == SIM_NUM_MAX);
	assert_int_equal(sc.steps[3].kind, SIM_STEP_READ);
	assert_int_equal(sc.steps[3].line, 12);
	assert_int_equal(sc.nr_reads, 1);
	sim_scenario_free(&sc);
}

#define HEAD "pmu intel-v3\npcpus 2\nvcpus vm 2\nthread vm.a instructions cycles\nthread vm.b branches\n"

static void test_errors(void **state)
{
	expect_error(HEAD "bogus\n", 6, "unknown statement 'bogus'");
	expect_error(HEAD "schedule 0 vm.0\nswitch vm.0 a\nexec vm.0 cycles=4611686018427387905\n",
		     8, "larger than 2^62");
	expect_error(HEAD "schedule 0 vm.0\nswitch vm.0 a\nexec vm.0 cycles=18446744073709551616\n",
		     8, "larger than 2^62");
	expect_error(HEAD "schedule 1x vm.0\n", 6, "bad number '1x'");
	expect_error(HEAD "schedule 2 vm.0\n", 6, "PCPU 2 out of range");
	expect_error(HEAD "schedule 0 vm.2\n", 6, "unknown VCPU vm.2");
	expect_error(HEAD "schedule 0 xx.0\n", 6, "unknown domain 'xx'");
	expect_error(HEAD "read vm.c\n", 6, "unknown thread vm.c");
	expect_error(HEAD "read vm\n", 6, "expected <domain>.<thread>");
	expect_error(HEAD "thread vm.a cycles\n", 6, "duplicate declaration of thread vm.a");
	expect_error(HEAD "vcpus vm 1\n", 6, "duplicate declaration of domain vm");
	expect_error(HEAD "pmu amd-k8\n", 6, "duplicate pmu");
	expect_error(HEAD "policy hypervisor-events=include\npolicy hypervisor-events=include\n", 7,
		     "duplicate policy");
	expect_error(HEAD "schedule 0 vm.0\nvcpus x 1\n", 7, "after the first step");
	expect_error(HEAD "switch vm.1 a\nexec vm.1 cycles=1\n", 7, "not scheduled");
	expect_error(HEAD "schedule 0 vm.1\nexec vm.1 cycles=1\n", 7, "runs no thread");
	expect_error(HEAD "switch vm.0 a\nswitch vm.1 a\n", 7, "runs on VCPU vm.0");
	expect_error(HEAD "thread vm.c instructions:i0\n", 6, "at least 1");
	expect_error(HEAD "thread vm.c instructions:i\n", 6, "bad number");
	expect_error(HEAD "thread vm.c instructions:k5\n", 6, "bad counter");
	expect_error(HEAD "thread vm.c\n", 6, "usage: thread");
	expect_error("pmu intel-v3 width=40\npcpus 1\nvcpus v 1\nthread v.t cycles:i4611686018427387905\n",
		     4, "larger than 2^62");
	expect_error("pmu power8\npcpus 1\nvcpus v 1\nthread v.t cycles:i0x4000000000000001\n", 4,
		     "larger than 2^62");
	expect_error("pmu amd-k8\npcpus 1\nvcpus v 1\nthread v.t cycles cycles cycles cycles cycles\n",
		     4, "cannot be counted at once");
	expect_error("pmu power9\npcpus 1\nvcpus v 1\nthread v.t branches branch-misses\n", 4,
		     "PMC4 only");
	expect_error("pmu power8\npcpus 1\nvcpus v 1\nthread v.t branches branches\n", 4, "PMC1 only");
	expect_error("pmu intel-v1 fixed=1\n", 1, "no fixed counters");
	expect_error("pmu intel-v2 width=64\n", 1, "width=64 out of range");
	expect_error("pmu amd-fam17h gp=4\n", 1, "has no key 'gp'");
	expect_error("pmu intel-v2 gp=9\n", 1, "gp=9 out of range");
	expect_error("pmu intel-v9\n", 1, "unknown pmu model");
	expect_error("pcpus 1\nvcpus v 1\nthread v.t cycles\nswitch v.0 t\n", 4, "no pmu declared");
	expect_error("pcpus 1\n\n", 2, "end of file: no pmu");
	expect_error("", 1, "end of file: no pmu");
	expect_error("pmu amd-k8\n", 1, "no pcpus");
	expect_error(HEAD "schedule 0 vm.0\nswitch vm.0 a\n"
		     "exec vm.0 cycles=0x4000000000000000\nexec vm.0 cycles=0x4000000000000000\n"
		     "exec vm.0 cycles=0x4000000000000000\nexec vm.0 cycles=0x4000000000000000\n",
		     11, "would exceed 2^64-1");
	expect_error(HEAD "schedule 0 vm.0\nswitch vm.0 a\nexec vm.0 cycles=1 cycles=1\n", 8,
		     "given twice");
	expect_error(HEAD "control vm.a cycles cycles cycles cycles cycles cycles cycles cycles\n", 6,
		     "cannot be counted at once");
	expect_error(HEAD "read vm.a \xc3\xa9\n", 6, "unexpected character");
}

static void test_capacity(void **state)
{
	struct sim_pmu pmu = { .model = SIM_MODEL_INTEL, .version = 3, .gp = 2, .fixed = 3,
			       .width = 48, .fw_write = true, .name = "intel-v3" };
	struct sim_counter_set set = { 4, { { SIM_EV_INSTRUCTIONS, 0 }, { SIM_EV_CYCLES, 0 },
					    { SIM_EV_BRANCHES, 0 }, { SIM_EV_BRANCH_MISSES, 0 } } };
	char why[200];

	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), 0);
	assert_int_equal(sim_max_counters(&pmu), 4);
	set.c[1].event = SIM_EV_INSTRUCTIONS;	/* 2 instructions: one needs a gp counter */
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), -1);
	pmu.gp = 3;
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), 0);
	set.c[1].event = SIM_EV_CYCLES;
	pmu.fixed = 1;				/* no fixed cycles counter */
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), 0);
	pmu.gp = 2;
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), -1);
	pmu.fixed = 0;
	pmu.gp = 4;
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), 0);

	assert_true(sim_arm_max(&pmu) == (uint64_t)1 << 47);
	pmu.fw_write = false;
	assert_true(sim_arm_max(&pmu) == (uint64_t)1 << 31);
	pmu.fw_write = true;
	pmu.width = 40;
	assert_true(sim_arm_max(&pmu) == (uint64_t)1 << 39);
	/* any width: periods up to 2^62, longer than half the range included */
	assert_true(sim_period_max(&pmu) == (uint64_t)1 << 62);
	set.c[0].period = ((uint64_t)1 << 39) + 1;
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), 0);
	set.c[0].period = (uint64_t)1 << 62;
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), 0);
	set.c[0].period++;
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "above 2^62"));
	set.c[0].period = 0;

	pmu = (struct sim_pmu){ .model = SIM_MODEL_POWER, .version = 8, .gp = 4, .fixed = 2,
				.width = 32, .name = "power8" };
	set = (struct sim_counter_set){ 6, { { SIM_EV_INSTRUCTIONS, 0 }, { SIM_EV_CYCLES, 0 },
					     { SIM_EV_BRANCHES, 0 }, { SIM_EV_BRANCH_MISSES, 0 },
					     { SIM_EV_INSTRUCTIONS, 0 }, { SIM_EV_CYCLES, 0 } } };
	assert_int_equal(sim_max_counters(&pmu), 6);
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), 0);
	pmu.version = 9;
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), -1);
	set.c[3].event = SIM_EV_CYCLES;
	assert_int_equal(sim_counters_fit(&pmu, &set, why, sizeof(why)), 0);
	assert_true(sim_arm_max(&pmu) == (uint64_t)1 << 31);
	assert_true(sim_period_max(&pmu) == (uint64_t)1 << 62);
}

static void test_truth(void **state)
{
	struct scenario sc;
	struct sim_result t;
	const char *text =
		"pmu intel-v4\npcpus 2\nvcpus d 2\nvcpus e 1\n"
		"thread d.x instructions:i10 cycles\n"
		"thread d.y cycles\n"
		"thread e.z instructions\n"
		"policy hypervisor-events=include\n"
		"pv-cost instructions=1000\n"
		"schedule 0 d.0\n"				/* 10 */
		"switch d.0 x\n"
		"exec d.0 instructions=25 cycles=7\n"
		"hyper 0 instructions=5 cycles=1\n"		/* include: to x */
		"hyper 1 instructions=100\n"			/* idle PCPU: nobody */
		"read d.x\n"					/* 15: 30 8 */
		"switch d.0 -\n"
		"switch d.1 x\n"				/* x migrates to d.1 */
		"schedule 0 d.1\n"				/* d.0 descheduled */
		"exec d.1 instructions=9\n"
		"switch d.0 y\n"				/* 20 */
		"schedule 1 d.0\n"
		"exec d.0 cycles=11\n"
		"schedule 1 e.0\n"
		"switch e.0 z\n"
		"exec e.0 instructions=3 cycles=99\n"	/* 25 */
		"read d.x\n"					/* 39 8 */
		"control d.y cycles:i4 instructions\n"
		"schedule 1 d.0\n"
		"exec d.0 cycles=9 instructions=2\n"
		"read d.y\n";					/* 30: 9 2 */

	assert_int_equal(parse(text, &sc), 0);
	assert_int_equal(sim_result_init(&t, &sc), 0);
	assert_int_equal(sim_truth_run(&sc, &t), 0);
	assert_int_equal(t.nr_reads, 3);
	assert_int_equal(t.reads[0].line, 15);
	assert_int_equal(t.reads[0].nr_counters, 2);
	assert_int_equal(t.reads[0].counts[0], 30);
	assert_int_equal(t.reads[0].counts[1], 8);
	assert_int_equal(t.reads[1].counts[0], 39);
	assert_int_equal(t.reads[2].line, 30);
	assert_int_equal(t.reads[2].counts[0], 9);
	assert_int_equal(t.reads[2].counts[1], 2);
	assert_int_equal(t.threads[0].ctr[0].count, 39);
	assert_int_equal(t.threads[0].ctr[0].overflows, 3);	/* floor(39 / 10) */
	assert_int_equal(t.threads[0].ctr[1].overflows, 0);	/* a-mode */
	assert_int_equal(t.threads[1].nr_counters, 2);		/* after its control */
	assert_int_equal(t.threads[1].ctr[0].count, 9);
	assert_int_equal(t.threads[1].ctr[0].overflows, 2);
	assert_int_equal(t.threads[2].ctr[0].count, 3);
	sim_result_free(&t);
	sim_scenario_free(&sc);

	/* Same scenario with policy exclude: hyper work belongs to nobody. */
	{
		char *copy = strdup(text);
		char *p = strstr(copy, "include");

		memcpy(p, "exclude", 7);
		assert_int_equal(parse(copy, &sc), 0);
		assert_int_equal(sim_result_init(&t, &sc), 0);
		assert_int_equal(sim_truth_run(&sc, &t), 0);
		assert_int_equal(t.reads[0].counts[0], 25);
		assert_int_equal(t.reads[0].counts[1], 7);
		assert_int_equal(t.threads[0].ctr[0].overflows, 3);	/* floor(34 / 10) */
		sim_result_free(&t);
		sim_scenario_free(&sc);
		free(copy);
	}
}

/* Generated scenarios are valid and print back to the same text. */
static void test_gen_roundtrip(void **state)
{
	unsigned int i, seed;

	for (i = 0; sim_models[i].name; i++)
		for (seed = 1; seed <= 40; seed++) {
			struct scenario a, b;
			char *t1 = NULL, *t2 = NULL;
			size_t l1 = 0, l2 = 0;
			FILE *f;

			assert_int_equal(sim_gen(&a, seed, sim_models[i].name, err, sizeof(err)), 0);
			f = open_memstream(&t1, &l1);
			sim_scenario_print(f, &a);
			fclose(f);
			if (sim_parse(t1, &b, err, sizeof(err)))
				fail_msg("%s seed %u: %s", sim_models[i].name, seed, err);
			assert_int_equal(a.nr_steps, b.nr_steps);
			assert_int_equal(a.nr_reads, b.nr_reads);
			f = open_memstream(&t2, &l2);
			sim_scenario_print(f, &b);
			fclose(f);
			assert_string_equal(t1, t2);
			free(t1);
			free(t2);
			sim_scenario_free(&a);
			sim_scenario_free(&b);
		}
	assert_int_equal(sim_gen(&(struct scenario){ 0 }, 1, "z80", err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_lexical),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_truth),
		cmocka_unit_test(test_gen_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
