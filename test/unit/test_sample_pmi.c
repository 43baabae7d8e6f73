/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Sampling counters (PMUVIRT_CTR_SAMPLE): validation of the flag, and the
 * PMI path appending one record per overflow to the context's sample ring
 * with the IP, mode and thread the host's fill hook injects, on strict
 * fake x86 and POWER PMUs.
 */
#include <stdlib.h>
#include <string.h>
#include "rig.h"
#include <pmuvirt/user.h>

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U	PMUVIRT_CTR_USER
#define S	PMUVIRT_CTR_SAMPLE
#define V	PMUVIRT_CTR_SAMPLE_VALUES

#define IP_A	0x401000u
#define IP_B	0x402000u

struct cpu {
	struct rig_cpu r;
	/* what the fill hook reports: where "the program" is */
	uint64_t ip;
	bool kernel;
	uint32_t tid;
	unsigned int fills;
	/* the call chain the hook reports: user return addresses, innermost first */
	const uint64_t *chain;
	unsigned int nr_chain;
	unsigned int max_seen;
};

static void fill(void *arg, const struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx,
		 struct pmuvirt_sample *s, uint64_t *frames,
		 unsigned int max_frames)
{
	struct cpu *c = arg;

	assert_ptr_equal(pc, &c->r.pc);
	assert_ptr_equal(pc->running, ctx);
	s->ip = c->ip;
	s->tid = c->tid;
	s->time = ++c->fills;
	if (!c->kernel)
		s->flags |= PMUVIRT_SAMPLE_USER;
	s->flags |= 0x8000;	/* the core keeps only the defined flags */
	if (frames) {
		unsigned int i;

		c->max_seen = max_frames;
		for (i = 0; i < c->nr_chain && i < max_frames; i++)
			frames[i] = c->chain[i];
		s->nr_user = (uint16_t)i;
	}
}

static struct cpu *cpu_new(bool ppc)
{
	struct cpu *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->r.hw = ppc ? rig_ppc_new(9, &c->r.pmu) : rig_x86_new(&rig_intel_v4, &c->r.pmu);
	rig_cpu_start(&c->r, 3);
	c->tid = 4242;
	return c;
}

static void cpu_free(struct cpu *c)
{
	rig_cpu_finish(&c->r);
	free(c);
}

struct ring {
	void *mem;
	size_t size;
	struct pmuvirt_sample_writer w;
	struct pmuvirt_sample_reader r;
};

static void ring_new_format(struct ring *g, uint32_t nr, const struct pmuvirt_sample_format *fmt)
{
	g->size = pmuvirt_sample_ring_bytes(nr, 128, fmt);
	/* aligned_alloc() wants a multiple of the alignment */
	g->mem = aligned_alloc(64, (g->size + 63) & ~(size_t)63);
	assert_non_null(g->mem);
	assert_int_equal(pmuvirt_sample_init(&g->w, g->mem, g->size, nr, 128, fmt), 0);
	assert_int_equal(pmuvirt_sample_reader_init(&g->r, g->mem, g->size), 0);
}

static void ring_new(struct ring *g, uint32_t nr)
{
	ring_new_format(g, nr, NULL);
}

/* @ctx, sampling into @g, switched out of @c; all three freed. */
static void sampling_end(struct cpu *c, struct ring *g, struct pmuvirt_ctx *ctx)
{
	assert_int_equal(pmuvirt_switch_out(&c->r.pc), 0);
	rig_ctx_free(ctx);
	free(g->mem);
	cpu_free(c);
}

static int validate(const struct pmuvirt_pmu *pmu, struct pmuvirt_counter_ctl c, const char **why)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_error err = { 0 };
	int ret;

	rig_control(&ctl, 1, &c);
	ret = pmuvirt_validate(pmu, &ctl, PMUVIRT_MAX_COUNTERS, NULL, NULL, &err);
	*why = err.reason;
	return ret;
}

static void test_flag_validation(void **state)
{
	struct cpu *c = cpu_new(false);
	const char *why;

	assert_int_equal(validate(&c->r.pmu, (struct pmuvirt_counter_ctl){
		.event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | S, .period = 1000 }, &why), 0);
	assert_int_equal(validate(&c->r.pmu, (struct pmuvirt_counter_ctl){
		.event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | S | V, .period = 1000 }, &why), 0);
	assert_int_equal(validate(&c->r.pmu, (struct pmuvirt_counter_ctl){
		.event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | S }, &why), -EINVAL);
	assert_string_equal(why, "sampling needs an i-mode period");
	assert_int_equal(validate(&c->r.pmu, (struct pmuvirt_counter_ctl){
		.event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | V, .period = 1000 }, &why), -EINVAL);
	assert_string_equal(why, "sample values need the sample flag");
	assert_int_equal(validate(&c->r.pmu, (struct pmuvirt_counter_ctl){
		.event = PMUVIRT_EV_TSC, .flags = S }, &why), -EINVAL);
	assert_string_equal(why, "the TSC cannot sample");
	assert_int_equal(validate(&c->r.pmu, (struct pmuvirt_counter_ctl){
		.event = PMUVIRT_EV_TSC, .flags = S, .period = 1000 }, &why), -EINVAL);
	assert_int_equal(validate(&c->r.pmu, (struct pmuvirt_counter_ctl){
		.event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | S | 0x40, .period = 1000 }, &why),
		-EINVAL);
	assert_string_equal(why, "unknown counter flags");
	assert_int_equal(validate(&c->r.pmu, (struct pmuvirt_counter_ctl){
		.event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | S | 0x80000000u, .period = 1000 },
		&why), -EINVAL);
	cpu_free(c);
}

/*
 * A thread that spends 3/4 of its instructions at IP_A and 1/4 at IP_B,
 * sampled every 1000 instructions, with an a-mode counter and a
 * non-sampling i-mode counter beside: exactly 3:1, one record per
 * overflow, the hook's IP, mode and tid, and the core's CPU and counter.
 */
static void run_split(bool ppc)
{
	static const struct pmuvirt_counter_ctl ctrs[] = {
		{ .event = PMUVIRT_EV_CYCLES, .flags = U },
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | S, .period = 1000 },
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = 100 },
	};
	struct cpu *c = cpu_new(ppc);
	struct pmuvirt_sample out[64];
	struct pmuvirt_ctx *ctx;
	struct ring g;
	uint64_t a = 0, b = 0, total = 0;
	unsigned int iter;
	int n, i;

	ring_new(&g, 64);
	ctx = rig_ctx_new_n(&c->r.pmu, 3, ctrs);
	assert_int_equal(pmuvirt_ctx_attach_samples(ctx, &g.w, fill, c), 0);
	assert_int_equal(pmuvirt_switch_in(&c->r.pc, ctx), 0);
	assert_int_equal(pmuvirt_ctx_attach_samples(ctx, NULL, NULL, NULL), -EBUSY);
	for (iter = 0; iter < 400; iter++) {
		c->ip = IP_A;
		rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 3 * 777, false);
		rig_run(c->r.hw, FAKEHW_BRANCHES, 50, false);
		c->ip = IP_B;
		rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 777, false);
		while ((n = pmuvirt_sample_read(&g.r, out, 64)) > 0) {
			for (i = 0; i < n; i++) {
				assert_true(out[i].ip == IP_A || out[i].ip == IP_B);
				if (out[i].ip == IP_A)
					a++;
				else
					b++;
				assert_int_equal(out[i].tid, 4242);
				assert_int_equal(out[i].cpu, 3);
				assert_int_equal(out[i].counter, 1);
				assert_int_equal(out[i].weight, 1);
				assert_int_equal(out[i].flags, PMUVIRT_SAMPLE_USER);
				assert_int_equal(out[i].nr_values, 0);
				total++;
			}
			pmuvirt_sample_publish(&g.r);
		}
		assert_int_equal(n, 0);
	}
	/* 400 * 4 * 777 instructions: one record per 1000 of them. */
	assert_int_equal(total, 400 * 4 * 777 / 1000);
	assert_int_equal(pmuvirt_sample_lost(&g.r), 0);
	/* The truth: instruction 1000j (1-based) is A's when it falls in the first 2331 of 3108. */
	{
		uint64_t j, want_a = 0;

		for (j = 1; j <= total; j++)
			if ((1000 * j - 1) % 3108 < 3 * 777)
				want_a++;
		assert_int_equal(a, want_a);
		assert_int_equal(b, total - want_a);
		assert_true(a * 1000 / total >= 740 && a * 1000 / total <= 760);
	}
	/* Notifications are counted as before, for the signal path. */
	{
		uint32_t counts[PMUVIRT_MAX_COUNTERS];

		pmuvirt_take_overflows(ctx, counts);
		assert_int_equal(counts[1], total);
		assert_int_equal(counts[2], 400 * 50 / 100);
	}
	sampling_end(c, &g, ctx);
}

static void test_split_x86(void **state)
{
	run_split(false);
}

static void test_split_ppc(void **state)
{
	run_split(true);
}

/* Values of the other counters; the kernel bit; several periods in one PMI. */
static void test_values_weight(void **state)
{
	static const struct pmuvirt_counter_ctl ctrs[] = {
		{ .event = PMUVIRT_EV_BRANCHES, .flags = U | PMUVIRT_CTR_KERNEL },
		{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | PMUVIRT_CTR_KERNEL | S | V,
		  .period = 1000 },
		{ .event = PMUVIRT_EV_TSC },
	};
	struct cpu *c = cpu_new(false);
	struct pmuvirt_sample out[8];
	struct pmuvirt_ctx *ctx;
	struct ring g;
	uint32_t mask;

	ring_new(&g, 8);
	ctx = rig_ctx_new_n(&c->r.pmu, 3, ctrs);
	assert_int_equal(pmuvirt_ctx_attach_samples(ctx, &g.w, NULL, c), -EINVAL);
	assert_int_equal(pmuvirt_ctx_attach_samples(ctx, &g.w, fill, c), 0);
	assert_int_equal(pmuvirt_switch_in(&c->r.pc, ctx), 0);
	rig_run(c->r.hw, FAKEHW_BRANCHES, 123, true);
	c->ip = 0xffffffff81000000ull;
	c->kernel = true;
	rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 1000, true);
	assert_int_equal(pmuvirt_sample_read(&g.r, out, 8), 1);
	assert_int_equal(out[0].ip, 0xffffffff81000000ull);
	assert_int_equal(out[0].flags, PMUVIRT_SAMPLE_VALUES);
	assert_int_equal(out[0].nr_values, 3);
	assert_int_equal(out[0].value[0], 123);
	assert_int_equal(out[0].value[1], 1000);
	assert_int_equal(out[0].weight, 1);

	/* Three periods before the PMI is taken: one record, weight 3. */
	fakehw_set_pmi(c->r.hw, NULL, NULL);
	rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 3000, true);
	rig_run(c->r.hw, FAKEHW_BRANCHES, 7, true);
	assert_int_equal(pmuvirt_pmi(&c->r.pc, &mask), 0);
	assert_int_equal(mask, 1u << 1);
	assert_int_equal(pmuvirt_sample_read(&g.r, out, 8), 1);
	assert_int_equal(out[0].weight, 3);
	assert_int_equal(out[0].value[0], 130);
	assert_int_equal(out[0].value[1], 4000);
	pmuvirt_sample_publish(&g.r);
	sampling_end(c, &g, ctx);
}

/* A full ring loses records (counted), never notifications or counts. */
/*
 * Call chains: one leaf reached from two callers, 3/4 of the work through
 * A.  Each record carries the chain the hook wrote into the reserved
 * record, cut at the ring's depth; the callers split the records 3:1
 * though every record has the same IP.
 */
static void test_chain_split(void **state)
{
	static const struct pmuvirt_counter_ctl ctr = {
		.event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | S, .period = 1000,
	};
	static const uint64_t via_a[] = { 0x401100, 0x401500, 0x401900, 0x401f00 };
	static const uint64_t via_b[] = { 0x402200, 0x401500, 0x401900, 0x401f00 };
	const struct pmuvirt_sample_format fmt = {
		.format = PMUVIRT_SAMPLE_FMT_IP | PMUVIRT_SAMPLE_FMT_CHAIN, .chain_depth = 3,
	};
	static struct pmuvirt_sample_chain chains[64];
	struct cpu *c = cpu_new(false);
	struct pmuvirt_sample out[64];
	struct pmuvirt_ctx *ctx;
	struct ring g;
	uint64_t a = 0, b = 0;
	unsigned int iter;
	int n, i;

	ring_new_format(&g, 64, &fmt);
	ctx = rig_ctx_new_n(&c->r.pmu, 1, &ctr);
	assert_int_equal(pmuvirt_ctx_attach_samples(ctx, &g.w, fill, c), 0);
	assert_int_equal(pmuvirt_switch_in(&c->r.pc, ctx), 0);
	c->ip = IP_A;
	for (iter = 0; iter < 400; iter++) {
		c->chain = via_a;
		c->nr_chain = 4;
		rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 3 * 777, false);
		c->chain = via_b;
		rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 777, false);
		while ((n = pmuvirt_sample_read_chain(&g.r, out, chains, 64)) > 0) {
			for (i = 0; i < n; i++) {
				assert_int_equal(out[i].ip, IP_A);
				assert_int_equal(out[i].nr_kernel, 0);
				assert_int_equal(out[i].nr_user, 3);	/* cut at the depth */
				assert_int_equal(chains[i].frame[1], 0x401500);
				assert_int_equal(chains[i].frame[2], 0x401900);
				if (chains[i].frame[0] == via_a[0])
					a++;
				else if (chains[i].frame[0] == via_b[0])
					b++;
				else
					fail_msg("record %d: frame 0 is %#llx", i,
						 (unsigned long long)chains[i].frame[0]);
			}
			pmuvirt_sample_publish(&g.r);
		}
	}
	assert_int_equal(c->max_seen, 3);
	assert_int_equal(a + b, 400 * 4 * 777 / 1000);
	assert_true(a * 1000 / (a + b) >= 740 && a * 1000 / (a + b) <= 760);
	assert_int_equal(pmuvirt_sample_lost(&g.r), 0);
	sampling_end(c, &g, ctx);
}

/* A fake user stack: 64 words at STACK_BASE; reads outside it fail. */
#define STACK_BASE	0x7ffd0000ull
static uint64_t stack_mem[64];
static unsigned int stack_reads;

static int stack_read(void *arg, uint64_t addr, void *buf, unsigned int len)
{
	(void)arg;
	stack_reads++;
	if (addr < STACK_BASE || addr + len > STACK_BASE + sizeof(stack_mem))
		return -EFAULT;
	memcpy(buf, (uint8_t *)stack_mem + (addr - STACK_BASE), len);
	return 0;
}

/* frame i at word 4 * i + 2: {next frame, return address 0x1000 + i} */
static uint64_t stack_build(unsigned int n)
{
	unsigned int i;

	memset(stack_mem, 0, sizeof(stack_mem));
	for (i = 0; i < n; i++) {
		stack_mem[4 * i + 2] = i + 1 < n ? STACK_BASE + 8 * (4 * (i + 1) + 2) : 0;
		stack_mem[4 * i + 3] = 0x1000 + i;
	}
	return STACK_BASE + 16;
}

/* The frame-pointer walk: bounded by the stack's own addresses and by @max. */
static void test_chain_fp(void **state)
{
	const uint64_t limit = 0x7ffffffff000ull;
	uint64_t fp, frames[32];
	unsigned int i;

	(void)state;
	fp = stack_build(10);
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, limit, stack_read, NULL, frames, 32), 10);
	for (i = 0; i < 10; i++)
		assert_int_equal(frames[i], 0x1000 + i);
	/* at most @max frames, and no read past them */
	stack_reads = 0;
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, limit, stack_read, NULL, frames, 4), 4);
	assert_int_equal(stack_reads, 4);
	/* a frame below the stack pointer is not looked at */
	assert_int_equal(pmuvirt_chain_fp(fp, fp + 8, limit, stack_read, NULL, frames, 32), 0);
	/* a frame pointing at itself, or back down: the walk ends */
	stack_mem[4 * 3 + 2] = STACK_BASE + 8 * (4 * 3 + 2);
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, limit, stack_read, NULL, frames, 32), 4);
	stack_mem[4 * 3 + 2] = fp;
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, limit, stack_read, NULL, frames, 32), 4);
	/* misaligned, unreadable, beyond the limit, a zero return address */
	stack_build(10);
	stack_mem[4 * 5 + 2] += 4;
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, limit, stack_read, NULL, frames, 32), 6);
	stack_mem[4 * 5 + 2] = STACK_BASE + sizeof(stack_mem);
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, limit, stack_read, NULL, frames, 32), 6);
	stack_build(10);
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, STACK_BASE + 8 * (4 * 2 + 2) + 15,
					  stack_read, NULL, frames, 32), 2);
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, 8, stack_read, NULL, frames, 32), 0);
	assert_int_equal(pmuvirt_chain_fp(~0ull - 7, 0, ~0ull, stack_read, NULL, frames, 32), 0);
	stack_mem[4 * 7 + 3] = 0;
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, limit, stack_read, NULL, frames, 32), 7);
	assert_int_equal(pmuvirt_chain_fp(fp, STACK_BASE, limit, stack_read, NULL, frames, 0), 0);
}

static void test_full_ring(void **state)
{
	static const struct pmuvirt_counter_ctl ctr = {
		.event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | S, .period = 100 };
	struct cpu *c = cpu_new(false);
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	struct pmuvirt_ctx *ctx;
	struct ring g;

	ring_new(&g, 4);
	ctx = rig_ctx_new_n(&c->r.pmu, 1, &ctr);
	assert_int_equal(pmuvirt_ctx_attach_samples(ctx, &g.w, fill, c), 0);
	assert_int_equal(pmuvirt_switch_in(&c->r.pc, ctx), 0);
	rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 1000, false);
	assert_int_equal(pmuvirt_sample_pending(&g.r), 4);
	assert_int_equal(pmuvirt_sample_lost(&g.r), 6);
	pmuvirt_take_overflows(ctx, counts);
	assert_int_equal(counts[0], 10);
	assert_int_equal(rig_val(ctx, 0), 1000);
	sampling_end(c, &g, ctx);
}

/*
 * A thread that never takes its notifications: once its pending count is
 * saturated at 0xffffffff, every PMI that finds boundaries still makes its
 * record, with the boundaries as its weight.
 */
static void test_saturated_pending(void **state)
{
	static const struct pmuvirt_counter_ctl ctr = {
		.event = PMUVIRT_EV_INSTRUCTIONS, .flags = U | S, .period = 100 };
	struct cpu *c = cpu_new(false);
	struct pmuvirt_sample out[16];
	struct pmuvirt_ctx *ctx;
	struct ring g;
	uint32_t mask;
	int n, i;

	ring_new(&g, 16);
	ctx = rig_ctx_new_n(&c->r.pmu, 1, &ctr);
	ctx->counter[0].pending = 0xffffffffu - 2;
	assert_int_equal(pmuvirt_ctx_attach_samples(ctx, &g.w, fill, c), 0);
	assert_int_equal(pmuvirt_switch_in(&c->r.pc, ctx), 0);
	c->ip = IP_A;
	rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 1000, false);
	/* Three periods before the PMI is taken: one record, weight 3. */
	fakehw_set_pmi(c->r.hw, NULL, NULL);
	rig_run(c->r.hw, FAKEHW_INSTRUCTIONS, 300, false);
	assert_int_equal(pmuvirt_pmi(&c->r.pc, &mask), 0);
	assert_int_equal(mask, 1);
	n = pmuvirt_sample_read(&g.r, out, 16);
	assert_int_equal(n, 11);
	for (i = 0; i < n; i++)
		assert_int_equal(out[i].weight, i < 10 ? 1 : 3);
	assert_int_equal(ctx->counter[0].pending, 0xffffffffu);
	assert_int_equal(pmuvirt_sample_lost(&g.r), 0);
	sampling_end(c, &g, ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag_validation),
		cmocka_unit_test(test_split_x86),
		cmocka_unit_test(test_split_ppc),
		cmocka_unit_test(test_values_weight),
		cmocka_unit_test(test_chain_split),
		cmocka_unit_test(test_chain_fp),
		cmocka_unit_test(test_full_ring),
		cmocka_unit_test(test_saturated_pending),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
