/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt_ctx_save() / pmuvirt_ctx_restore(): a context saved on one CPU
 * (one fake PMU) goes on counting exactly on another, with its i-mode
 * notifications where they were due; a blob that is corrupted or
 * impossible is refused with -EINVAL and leaves the context unchanged.
 */
#include <stdlib.h>
#include <string.h>
#include "rig.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U	PMUVIRT_CTR_USER

/* One CPU: a fake PMU whose PMIs go to pmuvirt_pmi(). */
static struct rig_cpu *cpu_new(const struct fakehw_x86_config *cfg, unsigned int nr)
{
	struct rig_cpu *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->hw = rig_x86_new(cfg, &c->pmu);
	rig_cpu_start(c, nr);
	return c;
}

static void cpu_free(struct rig_cpu *c)
{
	rig_cpu_finish(c);
	free(c);
}

/* instructions a-mode, branches i-mode every 1000, the TSC */
static const struct pmuvirt_counter_ctl ctrs[] = {
	{ .event = PMUVIRT_EV_INSTRUCTIONS, .flags = U },
	{ .event = PMUVIRT_EV_BRANCHES, .flags = U, .period = 1000 },
	{ .event = PMUVIRT_EV_TSC },
};
#define NR	3

static void reseal(struct pmuvirt_saved_ctx *s)
{
	s->check = pmuvirt_saved_check(s);
}

/* A saved context: 2500 branches (2 notifications, 1 taken) and 5000 instructions. */
static void make_blob(struct pmuvirt_saved_ctx *out, struct pmuvirt_control *ctl)
{
	struct rig_cpu *c = cpu_new(&rig_intel_v4, 0);
	struct pmuvirt_ctx *ctx;
	uint32_t counts[PMUVIRT_MAX_COUNTERS];

	rig_control(ctl, NR, ctrs);
	ctx = rig_ctx_new(&c->pmu, ctl);
	assert_int_equal(pmuvirt_switch_in(&c->pc, ctx), 0);
	rig_run(c->hw, FAKEHW_INSTRUCTIONS, 5000, false);
	rig_run(c->hw, FAKEHW_BRANCHES, 1500, false);
	assert_int_equal(pmuvirt_take_overflows(ctx, counts), 1u << 1);
	assert_int_equal(counts[1], 1);
	rig_run(c->hw, FAKEHW_BRANCHES, 1000, false);
	assert_int_equal(pmuvirt_switch_out(&c->pc), 0);
	assert_int_equal(pmuvirt_ctx_save(ctx, ctl, out), 0);
	rig_ctx_free(ctx);
	cpu_free(c);
}

static void test_round_trip(void **state)
{
	struct pmuvirt_saved_ctx blob;
	struct pmuvirt_control ctl;
	struct rig_cpu *c;
	struct pmuvirt_ctx *ctx;
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	uint64_t v[PMUVIRT_MAX_COUNTERS];

	make_blob(&blob, &ctl);
	assert_int_equal(blob.magic, PMUVIRT_SAVED_MAGIC);
	assert_int_equal(blob.count[0], 5000);
	assert_int_equal(blob.count[1], 2500);
	assert_int_equal(blob.next_ovf[1], 3000);
	assert_int_equal(blob.pending[1], 1);
	assert_int_equal(blob.period[0], 0);

	/* Restored on another CPU with another PMU model (AMD PerfMonV2). */
	c = cpu_new(&(struct fakehw_x86_config)FAKEHW_X86_AMD_19H, 1);
	ctx = rig_ctx_alloc(&c->pmu, NR);
	assert_int_equal(pmuvirt_ctx_restore(ctx, &blob, NULL), 0);
	assert_int_equal(rig_val(ctx, 0), 5000);
	assert_int_equal(rig_val(ctx, 1), 2500);
	assert_int_equal(pmuvirt_switch_in(&c->pc, ctx), 0);
	rig_run(c->hw, FAKEHW_INSTRUCTIONS, 123, false);
	rig_run(c->hw, FAKEHW_BRANCHES, 499, false);
	assert_int_equal(c->ovf, 0);		/* 2999: not due yet */
	assert_int_equal(pmuvirt_read(ctx, v), 0);
	assert_int_equal(v[0], 5123);
	assert_int_equal(v[1], 2999);
	rig_run(c->hw, FAKEHW_BRANCHES, 1, false);
	assert_int_equal(c->ovf, 1u << 1);	/* due at 3000, as saved */
	/* The pending notification saved and the new one. */
	assert_int_equal(pmuvirt_take_overflows(ctx, counts), 1u << 1);
	assert_int_equal(counts[1], 2);
	rig_run(c->hw, FAKEHW_BRANCHES, 1000, false);
	assert_int_equal(pmuvirt_take_overflows(ctx, counts), 1u << 1);
	assert_int_equal(counts[1], 1);
	assert_int_equal(pmuvirt_switch_out(&c->pc), 0);
	assert_int_equal(rig_val(ctx, 1), 4000);
	rig_ctx_free(ctx);
	cpu_free(c);
}

/*
 * A context with one counter that refused blobs must leave as it is: its
 * bytes are kept to compare.
 */
struct target {
	struct rig_cpu *c;
	struct pmuvirt_ctx *ctx;
	size_t size;
	uint8_t before[4096];
};

static void target_init(struct target *t)
{
	t->c = cpu_new(&rig_intel_v4, 0);
	t->ctx = rig_ctx_new_n(&t->c->pmu, 1, ctrs);
	t->size = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	assert_true(t->size <= sizeof(t->before));
	memcpy(t->before, t->ctx, t->size);
}

static void target_refuses(struct target *t, const struct pmuvirt_saved_ctx *bad, int code)
{
	struct pmuvirt_error err = { 0 };

	assert_int_equal(pmuvirt_ctx_restore(t->ctx, bad, &err), code);
	assert_non_null(err.reason);
	assert_memory_equal(t->ctx, t->before, t->size);
}

static void target_free(struct target *t)
{
	rig_ctx_free(t->ctx);
	cpu_free(t->c);
}

static void test_corrupted_blob(void **state)
{
	struct pmuvirt_saved_ctx blob, bad;
	struct pmuvirt_control ctl;
	struct target t;
	unsigned int i, bit;

	make_blob(&blob, &ctl);
	target_init(&t);
	/* Any one bit flipped anywhere: the check (or the magic) refuses it. */
	for (i = 0; i < sizeof(blob); i++) {
		for (bit = 0; bit < 8; bit += 3) {
			bad = blob;
			((uint8_t *)&bad)[i] ^= (uint8_t)(1u << bit);
			target_refuses(&t, &bad, -EINVAL);
		}
	}
	target_free(&t);
}

static void five_general(struct pmuvirt_saved_ctx *s)
{
	unsigned int i;

	s->ctl.nr_counters = 6;
	for (i = 1; i < 6; i++) {
		s->ctl.counter[i] = s->ctl.counter[1];
		s->ctl.counter[i].event = PMUVIRT_EV_BRANCH_MISSES;
		s->period[i] = 1000;
		s->next_ovf[i] = s->count[i] + 1000;
	}
}

/* Blobs with a valid check whose contents are impossible. */
static void test_impossible_blob(void **state)
{
	struct pmuvirt_saved_ctx blob, bad;
	struct pmuvirt_control ctl;
	struct target t;

	make_blob(&blob, &ctl);
	target_init(&t);
#define REFUSE(change, code)				\
	do {						\
		bad = blob;				\
		change;					\
		reseal(&bad);				\
		target_refuses(&t, &bad, code);		\
	} while (0)
	REFUSE(bad.magic = __builtin_bswap32(PMUVIRT_SAVED_MAGIC), -EINVAL);
	REFUSE(bad.version = 2, -EINVAL);
	REFUSE(bad.size = sizeof(bad) - 8, -EINVAL);
	REFUSE(bad.flags = 1, -EINVAL);
	REFUSE(bad.reserved = 1, -EINVAL);
	REFUSE(bad.ctl.nr_counters = PMUVIRT_MAX_COUNTERS + 1, -EINVAL);
	REFUSE(bad.count[5] = 1, -EINVAL);		/* past the last counter */
	REFUSE(bad.pending[0] = 1, -EINVAL);		/* a-mode with a notification */
	REFUSE(bad.next_ovf[0] = 7, -EINVAL);
	REFUSE(bad.period[1] = 0, -EINVAL);		/* i-mode without a period */
	REFUSE(bad.period[1] = PMUVIRT_PERIOD_MAX + 1, -EINVAL);
	REFUSE(bad.next_ovf[1] = bad.count[1], -EINVAL);	/* already past */
	REFUSE(bad.count[1] = 0; bad.next_ovf[1] = PMUVIRT_ARM_REMAINING_MAX + 1, -EINVAL);
	REFUSE(bad.next_ovf[1] = bad.count[1] - 1, -EINVAL);	/* behind the count */
	/* 2^63 + 1 ahead, across 2^64 */
	REFUSE(bad.count[1] = ~0ull - 9; bad.next_ovf[1] = PMUVIRT_ARM_REMAINING_MAX - 9, -EINVAL);
	/* a counter of the control past the last one, which a save clears */
	REFUSE(bad.ctl.counter[3].event = PMUVIRT_EV_CYCLES, -EINVAL);
	REFUSE(bad.ctl.counter[15].period = 1000, -EINVAL);
	REFUSE(bad.ctl.counter[4].flags = U, -EINVAL);
	REFUSE(bad.ctl.counter[3].reserved = 1, -EINVAL);
	REFUSE(bad.ctl.counter[0].flags = 0x80, -EINVAL);	/* control: reserved bit */
	REFUSE(bad.ctl.counter[1].period = 0, -EINVAL);	/* control says a-mode */
	/* A control this PMU cannot hold: five i-mode general counters on four. */
	REFUSE(five_general(&bad), -ENOSPC);
#undef REFUSE
	/* The unchanged blob is accepted, and so are the bounds. */
	bad = blob;
	assert_int_equal(pmuvirt_ctx_restore(t.ctx, &bad, NULL), 0);
	assert_int_equal(rig_val(t.ctx, 1), 2500);
	bad.next_ovf[1] = bad.count[1] + PMUVIRT_ARM_REMAINING_MAX;
	reseal(&bad);
	assert_int_equal(pmuvirt_ctx_restore(t.ctx, &bad, NULL), 0);
	bad.next_ovf[1] = bad.count[1] + 1;
	reseal(&bad);
	assert_int_equal(pmuvirt_ctx_restore(t.ctx, &bad, NULL), 0);
	target_free(&t);
}

/* Notifications of counter 1 taken from @ctx. */
static uint32_t taken(struct pmuvirt_ctx *ctx)
{
	uint32_t counts[PMUVIRT_MAX_COUNTERS];

	pmuvirt_take_overflows(ctx, counts);
	return counts[1];
}

/*
 * A logical count near 2^64: its next notification point passes 2^64 and
 * wraps below the count, as a 64-bit counter would.  The notifications
 * keep their period across the wrap, one each, and every state on the way
 * saves and restores, here and on another PMU.
 */
static void test_end_of_range(void **state)
{
	struct pmuvirt_saved_ctx blob, again;
	struct pmuvirt_control ctl;
	struct rig_cpu *c, *d;
	struct pmuvirt_ctx *ctx, *moved;

	make_blob(&blob, &ctl);
	blob.count[1] = ~0ull - 1499;
	blob.next_ovf[1] = ~0ull - 499;
	blob.pending[1] = 0;
	reseal(&blob);
	c = cpu_new(&rig_intel_v4, 0);
	ctx = rig_ctx_alloc(&c->pmu, NR);
	assert_int_equal(pmuvirt_ctx_restore(ctx, &blob, NULL), 0);
	assert_int_equal(pmuvirt_switch_in(&c->pc, ctx), 0);
	rig_run(c->hw, FAKEHW_BRANCHES, 1200, false);
	assert_int_equal(pmuvirt_switch_out(&c->pc), 0);
	assert_int_equal(rig_val(ctx, 1), ~0ull - 299);
	assert_int_equal(taken(ctx), 1);
	/* The next point, 500, is below the count: saved and restored as it is. */
	assert_int_equal(pmuvirt_ctx_save(ctx, &ctl, &again), 0);
	assert_int_equal(again.next_ovf[1], 500);
	d = cpu_new(&(struct fakehw_x86_config)FAKEHW_X86_AMD_17H, 1);
	moved = rig_ctx_alloc(&d->pmu, NR);
	assert_int_equal(pmuvirt_ctx_restore(moved, &again, NULL), 0);
	assert_int_equal(pmuvirt_switch_in(&d->pc, moved), 0);
	rig_run(d->hw, FAKEHW_BRANCHES, 799, false);
	assert_int_equal(d->ovf, 0);
	rig_run(d->hw, FAKEHW_BRANCHES, 1, false);
	assert_int_equal(d->ovf, 1u << 1);	/* at 500, past 2^64 */
	rig_run(d->hw, FAKEHW_BRANCHES, 2000, false);
	assert_int_equal(pmuvirt_switch_out(&d->pc), 0);
	assert_int_equal(rig_val(moved, 1), 2500);
	assert_int_equal(taken(moved), 3);
	assert_int_equal(pmuvirt_ctx_save(moved, &ctl, &again), 0);
	assert_int_equal(again.next_ovf[1], 3500);
	rig_ctx_free(moved);
	cpu_free(d);
	/* The first context goes on the same way. */
	assert_int_equal(pmuvirt_switch_in(&c->pc, ctx), 0);
	rig_run(c->hw, FAKEHW_BRANCHES, 2800, false);
	assert_int_equal(pmuvirt_switch_out(&c->pc), 0);
	assert_int_equal(taken(ctx), 3);
	assert_int_equal(pmuvirt_ctx_save(ctx, &ctl, &blob), 0);
	rig_ctx_free(ctx);
	cpu_free(c);
}

static void test_save_refused(void **state)
{
	struct rig_cpu *c = cpu_new(&rig_intel_v4, 0);
	struct pmuvirt_control ctl, other;
	struct pmuvirt_saved_ctx blob;
	struct pmuvirt_ctx *ctx, *empty;

	rig_control(&ctl, NR, ctrs);
	ctx = rig_ctx_new(&c->pmu, &ctl);
	empty = rig_ctx_alloc(&c->pmu, NR);
	memset(&blob, 0x5a, sizeof(blob));
	assert_int_equal(pmuvirt_ctx_save(empty, &ctl, &blob), -EINVAL);	/* no control */
	assert_int_equal(pmuvirt_switch_in(&c->pc, ctx), 0);
	assert_int_equal(pmuvirt_ctx_save(ctx, &ctl, &blob), -EBUSY);
	assert_int_equal(pmuvirt_switch_out(&c->pc), 0);
	other = ctl;
	other.nr_counters = 2;
	assert_int_equal(pmuvirt_ctx_save(ctx, &other, &blob), -EINVAL);
	other = ctl;
	other.counter[0].event = PMUVIRT_EV_CYCLES;
	assert_int_equal(pmuvirt_ctx_save(ctx, &other, &blob), -EINVAL);
	other = ctl;
	other.counter[1].period = 0;
	assert_int_equal(pmuvirt_ctx_save(ctx, &other, &blob), -EINVAL);
	assert_int_equal(blob.magic, 0x5a5a5a5au);	/* nothing written */
	/* A running context is not restored over. */
	assert_int_equal(pmuvirt_ctx_save(ctx, &ctl, &blob), 0);
	assert_int_equal(pmuvirt_switch_in(&c->pc, ctx), 0);
	assert_int_equal(pmuvirt_ctx_restore(ctx, &blob, NULL), -EBUSY);
	assert_int_equal(pmuvirt_switch_out(&c->pc), 0);
	rig_ctx_free(ctx);
	rig_ctx_free(empty);
	cpu_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_corrupted_blob),
		cmocka_unit_test(test_impossible_blob),
		cmocka_unit_test(test_end_of_range),
		cmocka_unit_test(test_save_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
