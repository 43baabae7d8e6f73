/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-bench: cost of a context switch.
 *
 *  1. Register accesses per switch on the strict fake of an Intel v4 PMU
 *     with 4 general and 3 fixed counters (the case FACTS-level numbers
 *     exist for: Xen's vPMU does 11 reads and 12 writes there).
 *  2. The library's own work per switch with register access made free
 *     (a null accessor that returns memory): nanoseconds (median of many
 *     batches) here, instructions under `valgrind --tool=callgrind`
 *     (bench/callgrind.sh).
 *  3. Memory per context.
 *
 * --null-only runs one loop for callgrind (bench/callgrind.sh), chosen by
 * --what: "a" (default) switches between two contexts of 7 a-mode
 * counters, "i" between two contexts with one i-mode counter each, "pmi7"
 * and "pmi1" call pmuvirt_pmi() with one counter past its threshold in a
 * context of 7 counters or of 1, "pmii" likewise with that one counter an
 * i-mode counter that crosses a period boundary at every PMI, "pmis" with
 * it also sampling, so each PMI appends a sample record, "pmic" the same
 * with a call chain of 16 frames walked by pmuvirt_chain_fp() through a
 * read hook (a stack deeper than that in the bench's memory), "pmip" the same
 * counter as a system-wide session's, joined to a context that counts
 * three counters of its own (pmuvirt_ctx_join()), with Xen's part of the
 * record (pmuvirt_xen_prof_record(): domain, VCPU, mode).
 *
 * --power (with --null-only, "a" or "i"): the same switches on the POWER
 * backend, a POWER8 on null hardware (PMC1-6 and the time base: the seven
 * counters go to PMC5, PMC6, PMC1, PMC4, PMC2, PMC3 and the time base).
 *
 * --drain N (where pmuvirt-xenprof is built): records per second that
 * pmuvirt-xenprof's drain reads from eight rings the library's writer
 * fills and writes to /dev/null, the tails given back after each pass.
 *
 * The seven counters: instructions, cycles, branches, branch-misses on the
 * fixed and general counters (all six in use) plus the TSC.
 *
 * usage: pmuvirt-bench [--switches N] [--null-only [--what a|i|pmi7|pmi1|pmii|pmis|pmic|pmip]]
 *        pmuvirt-bench --switches N --null-only --power [--what a|i]
 *        pmuvirt-bench --drain N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "fakehw_models.h"
#include "pmuvirt_arch.h"
#include "pmuvirt_abi_check.h"
#include "x86/pmuvirt_x86.h"
#include "ppc/pmuvirt_ppc.h"
#ifdef PMUVIRT_BENCH_DRAIN
#include "drain.h"
#endif

static const unsigned int seven[] = {
	PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES, PMUVIRT_EV_BRANCHES,
	PMUVIRT_EV_BRANCH_MISSES, PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES,
	PMUVIRT_EV_TSC,
};

static void control(struct pmuvirt_control *ctl, unsigned int n, const uint64_t *period)
{
	unsigned int i;

	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = n;
	for (i = 0; i < n; i++) {
		ctl->counter[i].event = seven[i];
		ctl->counter[i].flags = seven[i] == PMUVIRT_EV_TSC ? 0 :
					PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
		ctl->counter[i].period = period ? period[i] : 0;
	}
}

static struct pmuvirt_ctx *ctx_new(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl,
				   uint64_t domain)
{
	size_t sz = pmuvirt_ctx_size(ctl->nr_counters);
	struct pmuvirt_ctx *ctx = malloc(sz);
	struct pmuvirt_error err;

	if (!ctx || pmuvirt_ctx_init(ctx, sz, pmu) || pmuvirt_ctx_set_domain(ctx, domain) ||
	    pmuvirt_set_control(NULL, ctx, ctl, &err)) {
		fprintf(stderr, "pmuvirt-bench: cannot set up a context\n");
		exit(1);
	}
	return ctx;
}

/* ---- null hardware: the cheapest possible accessors ---- */

static uint64_t null_regs[16];

static int null_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	*val = null_regs[reg & 15];
	return 0;
}

static int null_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	null_regs[reg & 15] = val;
	/* rdpmc of general counter i reads what IA32_PMCi or IA32_A_PMCi got */
	if ((reg >= 0xc1 && reg <= 0xc8) || (reg >= 0x4c1 && reg <= 0x4c8))
		null_regs[(reg - 1) & 7] = val;
	return 0;
}

static int null_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	*val = null_regs[idx & 15] += 3;
	return 0;
}

static int null_read_tsc(void *arg, uint64_t *val)
{
	*val = null_regs[15] += 7;
	return 0;
}

static int null_read_counters(void *arg, const uint32_t *idx, unsigned int n, uint64_t *vals)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (idx[i] == PMUVIRT_HW_INDEX_TSC)
			vals[i] = null_regs[15] += 7;
		else
			vals[i] = null_regs[idx[i] & 15] += 3;
	}
	return 0;
}

static const struct pmuvirt_hw_ops null_hw = {
	.read_reg = null_read_reg,
	.write_reg = null_write_reg,
	.read_counter = null_read_counter,
	.read_tsc = null_read_tsc,
	.read_counters = null_read_counters,
};

/* POWER: mfspr PMCn reads what mtspr PMCn (SPR 786 + n) wrote. */
static int null_ppc_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	*val = null_regs[(786 + idx) & 15] += 3;
	return 0;
}

static int null_ppc_read_counters(void *arg, const uint32_t *idx, unsigned int n,
				  uint64_t *vals)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (idx[i] == PMUVIRT_HW_INDEX_TSC)
			vals[i] = null_regs[15] += 7;
		else
			vals[i] = null_regs[(786 + idx[i]) & 15] += 3;
	}
	return 0;
}

static const struct pmuvirt_hw_ops null_ppc_hw = {
	.read_reg = null_read_reg,
	.write_reg = null_write_reg,
	.read_counter = null_ppc_read_counter,
	.read_tsc = null_read_tsc,
	.read_counters = null_ppc_read_counters,
};

/* Kept out of line so callgrind can attribute the loop. */
__attribute__((noinline)) void bench_switch_loop(struct pmuvirt_pcpu *pc, struct pmuvirt_ctx **c,
						 unsigned long n)
{
	unsigned long k;

	for (k = 0; k < n; k++)
		pmuvirt_switch(pc, c[k & 1]);
}

/*
 * The host's part of a sample record, for "pmis": it also gives the room
 * back at once (as a reader that keeps up), so every PMI appends.
 */
static void null_sample_fill(void *arg, const struct pmuvirt_pcpu *pc,
			     const struct pmuvirt_ctx *ctx, struct pmuvirt_sample *s, uint64_t *frames,
		 unsigned int max_frames)
{
	struct pmuvirt_sample_ring *r = arg;

	s->ip = 0x401000;
	s->flags |= PMUVIRT_SAMPLE_USER;
	r->tail = r->head;
}

/*
 * "pmic": a user stack of frame pointers, deeper than the chain kept, in
 * the bench's memory; read as pmuvirt.ko reads a user stack, by a copy
 * that may fail (here it never does).
 */
#define CHAIN_DEPTH	16
static uint64_t chain_stack[2 * (CHAIN_DEPTH + 8)];

static int chain_read(void *arg, uint64_t addr, void *buf, unsigned int len)
{
	uintptr_t a = (uintptr_t)addr, lo = (uintptr_t)chain_stack;

	if (a < lo || a + len > lo + sizeof(chain_stack))
		return -1;
	memcpy(buf, (const void *)a, len);
	return 0;
}

static void null_chain_fill(void *arg, const struct pmuvirt_pcpu *pc,
			    const struct pmuvirt_ctx *ctx, struct pmuvirt_sample *s,
			    uint64_t *frames, unsigned int max_frames)
{
	struct pmuvirt_sample_ring *r = arg;

	s->ip = 0x401000;
	s->flags |= PMUVIRT_SAMPLE_USER;
	s->nr_user = (uint16_t)pmuvirt_chain_fp((uintptr_t)chain_stack, (uintptr_t)chain_stack,
						~(uint64_t)0 >> 17, chain_read, NULL,
						frames, max_frames);
	r->tail = r->head;
}

/* Xen's part of a session's record: a 64-bit PV guest's kernel, domain 1, VCPU 0. */
static void null_prof_fill(void *arg, const struct pmuvirt_pcpu *pc,
			   const struct pmuvirt_ctx *ctx, struct pmuvirt_sample *s, uint64_t *frames,
		 unsigned int max_frames)
{
	static const struct pmuvirt_xen_prof_where w = {
		.ip = 0xffffffff81000000ull, .cs = 0xe033, .guest = true, .kernel = true };
	struct pmuvirt_sample_ring *r = arg;

	pmuvirt_xen_prof_record(s, &w, 1, 0, true, null_regs[15]);
	r->tail = r->head;
}

#ifdef PMUVIRT_BENCH_DRAIN
/* Records per second of pmuvirt-xenprof's drain: 8 rings of 16 pages, best of 5 runs. */
static int bench_drain(unsigned long want)
{
	enum { RINGS = 8, PAGES = 16, NR = 256 };
	struct pmuvirt_xen_prof_ring desc[RINGS];
	struct pmuvirt_sample_writer w[RINGS];
	struct pmuvirt_sample s = { .ip = 0xffff82d040200000ull, .weight = 1 };
	char *mem = aligned_alloc(4096, (size_t)RINGS * PAGES * 4096);
	FILE *out = fopen("/dev/null", "wb");
	double best = 0;
	struct pmuvirt_prof_info info;
	struct xp_drain d;
	unsigned int i, rep;

	if (!mem || !out)
		return 1;
	for (i = 0; i < RINGS; i++) {
		if (pmuvirt_sample_init(&w[i], mem + (size_t)i * PAGES * 4096, PAGES * 4096, NR, 128, NULL))
			return 1;
		desc[i] = (struct pmuvirt_xen_prof_ring){ .domain = i, .frame = i * PAGES };
	}
	memset(&info, 0, sizeof(info));
	if (xp_drain_init(&d, mem, desc, RINGS, PAGES, NR) || xp_file_begin(&d, out, &info, NULL, 0))
		return 1;
	for (rep = 0; rep < 5; rep++) {
		unsigned long got = 0;
		uint64_t dt = 0;

		while (got < want) {
			unsigned int k;
			uint64_t t0;
			long n;

			for (i = 0; i < RINGS; i++)
				for (k = 0; k < NR; k++) {
					s.time = k;
					pmuvirt_sample_write(&w[i], &s, NULL);
				}
			/* the drain alone is timed, not the writer */
			t0 = bench_now_ns();
			n = xp_drain_all(&d);
			dt += bench_now_ns() - t0;
			if (n <= 0)
				return 1;
			got += (unsigned long)n;
			for (i = 0; i < RINGS; i++)	/* PROF_TAIL */
				w[i].ring->tail = d.tails[i];
		}
		if ((double)got * 1e9 / (double)dt > best)
			best = (double)got * 1e9 / (double)dt;
	}
	printf("pmuvirt-xenprof drain: %.2f million records/s (%.0f MB/s), %d rings of %d "
	       "records, written by the library and refilled after each pass, best of 5 runs "
	       "of %lu records\n", best / 1e6, best * sizeof(struct pmuvirt_sample) / 1e6, RINGS,
	       NR, want);
	xp_drain_free(&d);
	fclose(out);
	free(mem);
	return 0;
}
#endif

/* Each PMI finds the counter read through null_regs[@reg] past its threshold. */
__attribute__((noinline)) void bench_pmi_loop(struct pmuvirt_pcpu *pc, unsigned int reg,
					      unsigned long n)
{
	unsigned long k;
	uint32_t mask;

	for (k = 0; k < n; k++) {
		null_regs[reg] = 0;
		pmuvirt_pmi(pc, &mask);
	}
}

int main(int argc, char **argv)
{
	unsigned long switches = 1000000;
	bool null_only = false, power = false;
	const char *what = "a";
	struct fakehw_x86_config cfg = FAKEHW_X86_INTEL_V4;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	struct pmuvirt_control ctl, ctl_i, ctl_other;
	struct pmuvirt_ctx *c[2];
	struct fakehw *hw;
	const struct fakehw_stats *st;
	uint64_t r0, w0, per[7] = { 0, 0, 1000000, 0, 0, 0, 0 };
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--switches") && i + 1 < argc)
			switches = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--null-only"))
			null_only = true;
		else if (!strcmp(argv[i], "--power"))
			power = true;
		else if (!strcmp(argv[i], "--what") && i + 1 < argc)
			what = argv[++i];
#ifdef PMUVIRT_BENCH_DRAIN
		else if (!strcmp(argv[i], "--drain") && i + 1 < argc)
			return bench_drain(strtoul(argv[++i], NULL, 0));
#endif
		else {
			fprintf(stderr, "usage: pmuvirt-bench [--switches N] "
				"[--null-only [--power] [--what a|i|pmi7|pmi1|pmii|pmis|pmic|pmip]] | "
				"--drain N\n");
			return 2;
		}
	}
	if (power && (!null_only || (strcmp(what, "a") && strcmp(what, "i")))) {
		fprintf(stderr,
			"pmuvirt-bench: --power measures the switches a and i with --null-only\n");
		return 2;
	}

	hw = fakehw_x86_new(&cfg);
	if (!hw || pmuvirt_x86_probe(&pmu, fakehw_ops(hw), hw)) {
		fprintf(stderr, "pmuvirt-bench: cannot probe the fake Intel v4 PMU\n");
		return 1;
	}
	control(&ctl, 7, NULL);
	control(&ctl_i, 7, per);
	per[2] = 0;
	per[3] = 5000;
	control(&ctl_other, 7, NULL);
	ctl_other.counter[5].event = PMUVIRT_EV_BRANCHES;

	if (!null_only) {
		struct {
			const char *what;
			const struct pmuvirt_control *a, *b;
			uint64_t dom_b;		/* a is in domain 1 */
		} cases[] = {
			{ "a-mode, identical controls", &ctl, &ctl, 1 },
			{ "a-mode, one counter's event differs", &ctl, &ctl_other, 1 },
			{ "one i-mode counter each, identical events", &ctl_i, &ctl_i, 1 },
			{ "a-mode, identical controls, two domains", &ctl, &ctl, 2 },
		};
		unsigned int k, n;

		printf("Register accesses per switch (fake Intel v4, 4 general + 3 fixed, 7 counters):\n");
		for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			pmuvirt_pcpu_init(&pc, &pmu, fakehw_ops(hw), hw, 0);
			c[0] = ctx_new(&pmu, cases[k].a, 1);
			c[1] = ctx_new(&pmu, cases[k].b, cases[k].dom_b);
			pmuvirt_switch(&pc, c[0]);
			pmuvirt_switch(&pc, c[1]);
			st = fakehw_stats(hw);
			r0 = st->reg_reads + st->counter_reads + st->tsc_reads;
			w0 = st->reg_writes;
			for (n = 0; n < 1000; n++) {
				fakehw_run(hw, FAKEHW_INSTRUCTIONS, 1000, false);
				pmuvirt_switch(&pc, c[n & 1]);
			}
			printf("  %-44s reads %5.2f  writes %5.2f  (control writes %.2f)\n",
			       cases[k].what,
			       (double)(st->reg_reads + st->counter_reads + st->tsc_reads - r0) / 1000,
			       (double)(st->reg_writes - w0) / 1000,
			       (double)pc.stats.ctl_writes / 1002);
			if (st->errors) {
				fprintf(stderr, "pmuvirt-bench: the fake refused: %s\n",
					fakehw_last_error(hw));
				return 1;
			}
			pmuvirt_ctx_release(c[0]);
			pmuvirt_ctx_release(c[1]);
			free(c[0]);
			free(c[1]);
		}
		printf("  (Xen 4.17 vPMU, same PMU: 11 reads + 12 writes per switch)\n\n");
	}

	/* Library work alone: null accessors. */
	if (power) {
		null_regs[PMUVIRT_PPC_SPR_PVR & 15] = 0x004d0200;	/* POWER8 */
		if (pmuvirt_ppc_probe(&pmu, &null_ppc_hw, NULL)) {
			fprintf(stderr, "pmuvirt-bench: cannot probe the null POWER8\n");
			return 1;
		}
		null_regs[PMUVIRT_PPC_SPR_PVR & 15] = 0;
	}
	pmuvirt_pcpu_init(&pc, &pmu, power ? &null_ppc_hw : &null_hw, NULL, 0);
	if (null_only && !strncmp(what, "pmi", 3)) {
		static const unsigned int one_ev[] = { PMUVIRT_EV_BRANCHES };
		bool seven_ctr = !strcmp(what, "pmi7"), session = !strcmp(what, "pmip");
		bool chain = !strcmp(what, "pmic");
		bool sampling = session || chain || !strcmp(what, "pmis");
		bool imode = sampling || !strcmp(what, "pmii");
		static const uint64_t one_period[] = { 1000 };
		static uint64_t ring[(128 + 64 * sizeof(struct pmuvirt_sample)) / 8];
		struct pmuvirt_sample_writer sw;
		struct pmuvirt_control ctl1;
		unsigned int r;

		control(&ctl1, 1, imode ? one_period : NULL);
		ctl1.counter[0].event = one_ev[0];
		if (sampling)
			ctl1.counter[0].flags |= PMUVIRT_CTR_SAMPLE;
		c[0] = ctx_new(&pmu, seven_ctr ? &ctl : &ctl1, 1);
		c[1] = NULL;
		if (session) {
			/*
			 * The context's own three a-mode counters on general counters
			 * 0-2, the session's after them on general counter 3 (the null
			 * accessors read fixed counter i where they read general one i).
			 */
			static struct pmuvirt_saved_ctx scratch;
			struct pmuvirt_control own, merged;

			control(&own, 3, NULL);
			own.counter[0].event = PMUVIRT_EV_BRANCHES;
			own.counter[1].event = PMUVIRT_EV_BRANCH_MISSES;
			own.counter[2].event = PMUVIRT_EV_BRANCHES;
			free(c[0]);
			c[0] = malloc(pmuvirt_ctx_size(4));
			if (!c[0] || pmuvirt_ctx_init(c[0], pmuvirt_ctx_size(4), &pmu) ||
			    pmuvirt_set_control(NULL, c[0], &own, NULL) ||
			    pmuvirt_session_merge(&own, &ctl1, &merged) ||
			    pmuvirt_sample_init(&sw, ring, sizeof(ring), 64, 128, NULL) ||
			    pmuvirt_ctx_join(c[0], &own, &merged, &sw, null_prof_fill, ring, &scratch,
					     NULL)) {
				fprintf(stderr, "pmuvirt-bench: cannot join the session\n");
				return 1;
			}
		} else if (chain) {
			static const struct pmuvirt_sample_format fmt = {
				.format = PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_TIME |
					  PMUVIRT_SAMPLE_FMT_MODE | PMUVIRT_SAMPLE_FMT_CHAIN,
				.chain_depth = CHAIN_DEPTH,
			};
			unsigned int f;

			/* frame f at chain_stack[2f]: {frame f + 1, return address} */
			for (f = 0; f + 1 < sizeof(chain_stack) / sizeof(chain_stack[0]) / 2; f++) {
				chain_stack[2 * f] = (uintptr_t)&chain_stack[2 * (f + 1)];
				chain_stack[2 * f + 1] = 0x401000 + 0x40 * f;
			}
			if (pmuvirt_sample_init(&sw, ring, sizeof(ring), 16, 128, &fmt) ||
			    pmuvirt_ctx_attach_samples(c[0], &sw, null_chain_fill, ring)) {
				fprintf(stderr, "pmuvirt-bench: cannot set up a chain ring\n");
				return 1;
			}
		} else if (sampling && (pmuvirt_sample_init(&sw, ring, sizeof(ring), 64, 128, NULL) ||
					pmuvirt_ctx_attach_samples(c[0], &sw, null_sample_fill,
								   ring))) {
			fprintf(stderr, "pmuvirt-bench: cannot set up a sample ring\n");
			return 1;
		}
		pmuvirt_switch(&pc, c[0]);
		/* every counter half a range before its threshold */
		for (r = 0; r < 12; r++)
			null_regs[r] = (uint64_t)1 << 47;
		/* general counter 3 (7 counters, the session) or 0 (1 counter) crosses */
		bench_pmi_loop(&pc, seven_ctr || session ? 3 : 0, switches);
		if (session && (c[0]->counter[3].slot != 3 || c[0]->nr_shared != 3)) {
			fprintf(stderr, "pmuvirt-bench: the session's counter is not on general counter 3\n");
			return 1;
		}
		if (chain && ((const struct pmuvirt_sample_head *)sw.data)->nr_user != CHAIN_DEPTH) {
			fprintf(stderr, "pmuvirt-bench: records without a chain of %d frames\n",
				CHAIN_DEPTH);
			return 1;
		}
		if (sampling && (sw.head != (uint32_t)switches || sw.lost)) {
			fprintf(stderr, "pmuvirt-bench: %u records for %lu PMIs\n", sw.head, switches);
			return 1;
		}
		free(c[0]);
		fakehw_free(hw);
		return 0;
	}
	c[0] = ctx_new(&pmu, null_only && !strcmp(what, "i") ? &ctl_i : &ctl, 1);
	c[1] = ctx_new(&pmu, null_only && !strcmp(what, "i") ? &ctl_i : &ctl, 1);
	pmuvirt_switch(&pc, c[0]);
	if (null_only) {
		bench_switch_loop(&pc, c, switches);
		if ((c[0]->flags | c[1]->flags) & PMUVIRT_CTX_FAULTED) {
			fprintf(stderr, "pmuvirt-bench: a switch failed\n");
			return 1;
		}
	} else {
		uint64_t samples[101];
		unsigned long batch = switches / 100 ? switches / 100 : 1;
		unsigned int s;

		for (s = 0; s < 101; s++) {
			uint64_t t0 = bench_now_ns();

			bench_switch_loop(&pc, c, batch);
			samples[s] = bench_now_ns() - t0;
		}
		qsort(samples, 101, sizeof(samples[0]), bench_cmp_u64);
		printf("Library time per switch, 7 a-mode counters, null register access:\n");
		printf("  median %.1f ns (min %.1f, max %.1f) over 101 batches of %lu\n\n",
		       (double)samples[50] / batch, (double)samples[0] / batch,
		       (double)samples[100] / batch, batch);
		printf("Memory per context: %zu bytes for 8 counters, %zu for 16 "
		       "(struct pmuvirt_ctx %zu + %zu per counter)\n",
		       pmuvirt_ctx_size(8), pmuvirt_ctx_size(16), sizeof(struct pmuvirt_ctx),
		       sizeof(struct pmuvirt_counter));
		printf("Memory per CPU: %zu bytes (struct pmuvirt_pcpu)\n", sizeof(struct pmuvirt_pcpu));
	}
	free(c[0]);
	free(c[1]);
	fakehw_free(hw);
	return 0;
}
