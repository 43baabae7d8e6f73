/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Two-level (and three-level) stacking over the mock PMU: compensation of
 * hypercalls, hypercalls only when controls differ, i-mode across levels,
 * and the user-mode read protocol under a switch or migration injected at
 * every point of the read.
 */
#include <stdlib.h>

static void read_hook(int point);
#define PMUVIRT_USER_READ_HOOK(point) read_hook(point)
#include <pmuvirt/user.h>
#include "rig.h"
#include "mock_pmu.h"
#include "pv/pmuvirt_pv.h"

#define NV 2	/* VCPUs */
#define NT 3	/* threads */

struct vcpu {
	struct world *w;
	unsigned int id;
	bool scheduled;
	struct pmuvirt_ctx *ctx;	/* hypervisor level */
	struct pmuvirt_pcpu gpc;	/* guest level */
	struct pmuvirt_pv_vcpu pv;
};

struct world {
	struct pmuvirt_pmu pmu, gpmu;
	struct mock_hw hw;
	struct pmuvirt_pcpu pc;		/* the one physical CPU */
	struct vcpu v[NV];
	struct pmuvirt_shared_ctx vrec[NV];
	struct pmuvirt_ctx *t[NT];
	struct pmuvirt_shared_ctx trec[NT];
	struct pmuvirt_user_vcpus user;
	uint64_t pv_cost;		/* instructions per hypercall */
};

static int hw_below(void *arg, uint32_t pcpu, uint32_t index, uint64_t *val)
{
	struct world *w = arg;

	assert_int_equal(pcpu, 0);
	if (index == PMUVIRT_SHARED_TSC) {
		*val = w->hw.tsc;
		return 0;
	}
	*val = w->hw.ctr[index - 1];
	return 0;
}

static int lo_set_control(void *arg, const struct pmuvirt_control *ctl)
{
	struct vcpu *v = arg;

	if (v->scheduled)
		mock_run(&v->w->hw, PMUVIRT_EV_INSTRUCTIONS, v->w->pv_cost);
	return pmuvirt_set_control(v->scheduled ? &v->w->pc : NULL, v->ctx, ctl, NULL);
}

static int lo_arm(void *arg, uint32_t mask, const uint64_t *remaining, const uint64_t *period)
{
	struct vcpu *v = arg;

	if (v->scheduled)
		mock_run(&v->w->hw, PMUVIRT_EV_INSTRUCTIONS, v->w->pv_cost);
	return pmuvirt_arm_counters(v->scheduled ? &v->w->pc : NULL, v->ctx, mask, remaining,
				    period);
}

static int lo_read(void *arg, uint32_t counter, uint64_t *val)
{
	struct vcpu *v = arg;

	return pmuvirt_shared_read(&v->w->vrec[v->id], counter, 1, hw_below, v->w, val);
}

static const struct pmuvirt_pv_lower_ops lo_ops = {
	.set_control = lo_set_control,
	.arm = lo_arm,
	.read = lo_read,
};

static struct world *world_new(uint64_t pv_cost)
{
	struct world *w = calloc(1, sizeof(*w));
	unsigned int i;

	mock_pmu_init(&w->pmu, 48, 0);
	mock_hw_init(&w->hw, 48, 0);
	assert_int_equal(pmuvirt_pcpu_init(&w->pc, &w->pmu, &mock_hw_ops, &w->hw, 0), 0);
	w->hw.pc = &w->pc;
	assert_int_equal(pmuvirt_pv_probe(&w->gpmu, &w->pmu), 0);
	w->pv_cost = pv_cost;
	for (i = 0; i < NV; i++) {
		struct vcpu *v = &w->v[i];

		v->w = w;
		v->id = i;
		v->ctx = rig_ctx_alloc(&w->pmu, 8);
		pmuvirt_ctx_attach_shared(v->ctx, &w->vrec[i]);
		v->pv.ops = &lo_ops;
		v->pv.arg = v;
		assert_int_equal(pmuvirt_pcpu_init(&v->gpc, &w->gpmu, NULL, &v->pv, i), 0);
	}
	for (i = 0; i < NT; i++) {
		w->t[i] = rig_ctx_alloc(&w->gpmu, 8);
		pmuvirt_ctx_attach_shared(w->t[i], &w->trec[i]);
	}
	w->user.vcpus = w->vrec;
	w->user.nr_vcpus = NV;
	w->user.hw = hw_below;
	w->user.hw_arg = w;
	return w;
}

static void world_free(struct world *w)
{
	unsigned int i;

	assert_int_equal(w->hw.errors, 0);
	for (i = 0; i < NV; i++)
		free(w->v[i].ctx);
	for (i = 0; i < NT; i++)
		free(w->t[i]);
	free(w);
}

static void schedule(struct world *w, int vcpu)
{
	unsigned int i;

	assert_int_equal(pmuvirt_switch(&w->pc, vcpu >= 0 ? w->v[vcpu].ctx : NULL), 0);
	for (i = 0; i < NV; i++)
		w->v[i].scheduled = (int)i == vcpu;
}

static const unsigned int ev_ic[] = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES };

/* Hypercall events never reach a thread; identical controls cost no hypercall. */
static void test_compensation_and_hypercalls(void **state)
{
	struct world *w = world_new(1000);
	struct pmuvirt_control ctl;
	uint64_t hc;
	unsigned int k;

	make_control(&ctl, 2, ev_ic, NULL);
	for (k = 0; k < NT; k++)
		assert_int_equal(pmuvirt_set_control(NULL, w->t[k], &ctl, NULL), 0);
	schedule(w, 0);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[0]), 0);
	assert_int_equal(w->v[0].pv.hypercalls, 1);
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 50);
	hc = w->v[0].pv.hypercalls;
	for (k = 1; k <= 20; k++) {
		assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[k % 2]), 0);
		mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 10);
	}
	assert_int_equal(w->v[0].pv.hypercalls, hc);
	assert_int_equal(rig_val(w->t[0], 0), 50 + 10 * 10);
	assert_int_equal(rig_val(w->t[1], 0), 10 * 10);

	/* a different control costs one hypercall, whose events nobody gets */
	mock_set_control(w->t[2], &ctl, 1, ev_ic + 1, NULL);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[2]), 0);
	assert_int_equal(w->v[0].pv.hypercalls, hc + 1);
	mock_run(&w->hw, PMUVIRT_EV_CYCLES, 5);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[0]), 0);
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 3);
	assert_int_equal(rig_val(w->t[2], 0), 5);
	assert_int_equal(rig_val(w->t[0], 0), 50 + 100 + 3);

	/* VCPU time slicing: the other VCPU's work is not ours */
	assert_int_equal(pmuvirt_switch(&w->v[1].gpc, w->t[1]), 0);
	schedule(w, 1);
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 1000);
	schedule(w, 0);
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 1);
	assert_int_equal(rig_val(w->t[0], 0), 154);
	assert_int_equal(rig_val(w->t[1], 0), 1100);
	world_free(w);
}

/* i-mode across both levels: every overflow reaches its thread once. */
static void test_imode_two_levels(void **state)
{
	struct world *w = world_new(7);
	struct pmuvirt_control ctl;
	uint64_t per[1] = { 100 };
	uint64_t total[2] = { 0, 0 }, got[2] = { 0, 0 };
	uint32_t counts[1];
	unsigned int k;

	mock_set_control(w->t[0], &ctl, 1, ev_ic, per);
	per[0] = 64;
	mock_set_control(w->t[1], &ctl, 1, ev_ic, per);
	schedule(w, 0);
	for (k = 0; k < 60; k++) {
		unsigned int t = (k / 3) % 2;
		uint64_t n = 1 + (k * 37) % 250;
		uint32_t hv = 0;

		assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[t]), 0);
		pmuvirt_take_overflows(w->t[t], counts);
		got[t] += counts[0];
		w->hw.last_ovf = 0;
		mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, n);
		total[t] += n;
		hv = w->hw.last_ovf;
		/* the VIRQ arrives asynchronously: sometimes after the next switch */
		if (hv && (k % 4) != 1) {
			uint32_t mask;

			pmuvirt_take_overflows(w->v[0].ctx, NULL);
			assert_int_equal(pmuvirt_pmi(&w->v[0].gpc, &mask), 0);
		}
		pmuvirt_take_overflows(w->t[t], counts);
		got[t] += counts[0];
	}
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, NULL), 0);
	for (k = 0; k < 2; k++) {
		pmuvirt_take_overflows(w->t[k], counts);
		got[k] += counts[0];
		assert_int_equal(rig_val(w->t[k], 0), total[k]);
	}
	assert_int_equal(got[0], total[0] / 100);
	assert_int_equal(got[1], total[1] / 64);
	world_free(w);
}

/*
 * pmuvirt_collect() on a stacked instance: with the VIRQ held back, a take
 * right after it has every boundary the thread's count passed; the late
 * VIRQ adds none and re-arms below at the next one.
 */
static void test_collect_stacked(void **state)
{
	struct world *w = world_new(7);
	struct pmuvirt_control ctl;
	uint64_t per[1] = { 100 };
	uint32_t counts[1], mask;

	mock_set_control(w->t[0], &ctl, 1, ev_ic, per);
	schedule(w, 0);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[0]), 0);
	w->hw.last_ovf = 0;
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 250);
	assert_int_not_equal(w->hw.last_ovf, 0);	/* the VIRQ is due, not delivered */
	assert_int_equal(pmuvirt_take_overflows(w->t[0], counts), 0);
	assert_int_equal(pmuvirt_collect(&w->v[0].gpc, w->t[0]), 0);
	assert_int_equal(pmuvirt_take_overflows(w->t[0], counts), 1);
	assert_int_equal(counts[0], 2);
	assert_int_equal(pmuvirt_collect(&w->v[0].gpc, w->t[0]), 0);
	assert_int_equal(pmuvirt_take_overflows(w->t[0], counts), 0);
	/* the late VIRQ */
	pmuvirt_take_overflows(w->v[0].ctx, NULL);
	assert_int_equal(pmuvirt_pmi(&w->v[0].gpc, &mask), 0);
	assert_int_equal(mask, 0);
	w->hw.last_ovf = 0;
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 49);
	assert_int_equal(w->hw.last_ovf, 0);
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 1);
	assert_int_not_equal(w->hw.last_ovf, 0);
	pmuvirt_take_overflows(w->v[0].ctx, NULL);
	assert_int_equal(pmuvirt_pmi(&w->v[0].gpc, &mask), 0);
	assert_int_equal(mask, 1);
	assert_int_equal(pmuvirt_take_overflows(w->t[0], counts), 1);
	assert_int_equal(counts[0], 1);
	assert_int_equal(rig_val(w->t[0], 0), 300);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, NULL), 0);
	world_free(w);
}

static void stacked_fill(void *arg, const struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx,
			 struct pmuvirt_sample *s, uint64_t *frames,
		 unsigned int max_frames)
{
	s->ip = *(const uint64_t *)arg;
	s->tid = 7;
}

/*
 * Thread 0 of @w samples instructions every 100 (@flags more) into a ring
 * of 8 records at @mem, read through @r; @ip is the IP of its records.
 */
static void stacked_sampling(struct world *w, unsigned int n, uint32_t flags, void *mem,
			     size_t size, struct pmuvirt_sample_writer *sw,
			     struct pmuvirt_sample_reader *r, uint64_t *ip)
{
	struct pmuvirt_control ctl;
	uint64_t per[2] = { 100, 0 };

	make_control(&ctl, n, ev_ic, per);
	ctl.counter[0].flags |= flags;
	assert_int_equal(pmuvirt_set_control(NULL, w->t[0], &ctl, NULL), 0);
	memset(r, 0, sizeof(*r));
	assert_int_equal(pmuvirt_sample_init(sw, mem, size, 8, 128, NULL), 0);
	assert_int_equal(pmuvirt_sample_reader_init(r, mem, size), 0);
	assert_int_equal(pmuvirt_ctx_attach_samples(w->t[0], sw, stacked_fill, ip), 0);
}

/* @steps instructions on VCPU 0: true when they overflowed and the guest took the PMI. */
static bool stacked_step(struct world *w, uint64_t steps, uint32_t *mask)
{
	w->hw.last_ovf = 0;
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, steps);
	if (!w->hw.last_ovf)
		return false;
	pmuvirt_take_overflows(w->v[0].ctx, NULL);
	assert_int_equal(pmuvirt_pmi(&w->v[0].gpc, mask), 0);
	return true;
}

/*
 * Sampling on a stacked instance: the guest's PMI (the VIRQ) appends one
 * record per sampling counter that crossed, weighted by the boundaries
 * crossed, with the counts the level below reported as values.
 */
static void test_sample_stacked(void **state)
{
	struct world *w = world_new(7);
	struct pmuvirt_sample_writer sw;
	struct pmuvirt_sample_reader r;
	struct pmuvirt_sample out[8];
	uint64_t ip = 0, total = 0, weight = 0;
	unsigned int k;
	size_t size = pmuvirt_sample_ring_bytes(8, 128, NULL);
	void *mem = aligned_alloc(64, size);
	int n;

	stacked_sampling(w, 2, PMUVIRT_CTR_SAMPLE | PMUVIRT_CTR_SAMPLE_VALUES, mem, size, &sw, &r,
			 &ip);
	schedule(w, 0);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[0]), 0);
	for (k = 0; k < 40; k++) {
		uint64_t steps = 1 + (k * 53) % 250;
		uint32_t mask;

		ip = 0x1000 + k;
		total += steps;
		if (!stacked_step(w, steps, &mask))
			continue;
		n = pmuvirt_sample_read(&r, out, 8);
		assert_int_equal(n, 1);
		assert_int_equal(out[0].ip, ip);
		assert_int_equal(out[0].tid, 7);
		assert_int_equal(out[0].counter, 0);
		assert_int_equal(out[0].nr_values, 2);
		assert_int_equal(out[0].value[0], total);
		assert_int_equal(out[0].value[0] / 100, (total - steps) / 100 + out[0].weight);
		weight += out[0].weight;
		pmuvirt_sample_publish(&r);
	}
	assert_int_equal(weight, total / 100);
	assert_int_equal(pmuvirt_sample_lost(&r), 0);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, NULL), 0);
	free(mem);
	world_free(w);
}

/*
 * A recorder's thread never takes its notifications, so after 2^32 periods
 * its pending count stays saturated at 0xffffffff: every guest PMI that
 * finds boundaries still makes its record, and a full ring counts the
 * records it has no room for as lost.
 */
static void test_sample_stacked_saturated(void **state)
{
	struct world *w = world_new(7);
	struct pmuvirt_sample_writer sw;
	struct pmuvirt_sample_reader r;
	struct pmuvirt_sample out[8];
	uint64_t ip = 0, total = 0, weight = 0;
	unsigned int k, pmis = 0;
	size_t size = pmuvirt_sample_ring_bytes(8, 128, NULL);
	void *mem = aligned_alloc(64, size);
	uint32_t mask;

	stacked_sampling(w, 1, PMUVIRT_CTR_SAMPLE, mem, size, &sw, &r, &ip);
	w->t[0]->counter[0].pending = 0xffffffffu - 3;
	schedule(w, 0);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[0]), 0);
	for (k = 0; k < 40; k++) {
		uint64_t steps = 1 + (k * 53) % 250;

		ip = 0x1000 + k;
		total += steps;
		if (!stacked_step(w, steps, &mask))
			continue;
		assert_int_equal(mask, 1);
		assert_int_equal(pmuvirt_sample_read(&r, out, 8), 1);
		assert_int_equal(out[0].ip, ip);
		weight += out[0].weight;
		pmuvirt_sample_publish(&r);
	}
	assert_int_equal(weight, total / 100);
	assert_int_equal(w->t[0]->counter[0].pending, 0xffffffffu);
	/* Nobody reads the ring: 8 records fit, the others are lost, counted. */
	for (k = 0; k < 20; k++)
		pmis += stacked_step(w, 100, &mask);
	assert_int_equal(pmis, 20);
	assert_int_equal(pmuvirt_sample_pending(&r), 8);
	assert_int_equal(pmuvirt_sample_lost(&r), 12);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, NULL), 0);
	free(mem);
	world_free(w);
}

/*
 * A guest VCPU that goes idle leaves its last thread's i-mode counter armed
 * below; the first virtual interrupt with no thread running parks it.  A
 * smaller image after a larger one is loaded, never mistaken for cached.
 */
static void test_idle_vcpu_quiet(void **state)
{
	struct world *w = world_new(0);
	struct pmuvirt_control ctl;
	static const unsigned int ev3[] = { PMUVIRT_EV_CYCLES, PMUVIRT_EV_INSTRUCTIONS,
					    PMUVIRT_EV_BRANCHES };
	uint64_t per[3] = { 0, 4, 0 };
	unsigned int pmis;
	uint32_t mask;

	mock_set_control(w->t[0], &ctl, 3, ev3, per);
	/* same first counter as t[0], nothing else */
	mock_set_control(w->t[1], &ctl, 1, ev3, NULL);
	schedule(w, 0);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[0]), 0);
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 10);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, NULL), 0);
	/* the VCPU's counter fires once more; the guest's handler parks it */
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 4);
	assert_int_equal(pmuvirt_pmi(&w->v[0].gpc, &mask), 0);
	pmis = w->hw.pmis;
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 40000);
	assert_true(w->hw.pmis - pmis <= 1);

	/* one counter after three: the VCPU gets the smaller control */
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[1]), 0);
	assert_int_equal(w->v[0].ctx->nr_counters, 1);
	pmis = w->hw.pmis;
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 40000);
	assert_int_equal(w->hw.pmis, pmis);
	mock_run(&w->hw, PMUVIRT_EV_CYCLES, 7);
	assert_int_equal(rig_val(w->t[1], 0), 7);
	world_free(w);
}

/* ---- the user-mode read under injected switches and migrations ---- */

static struct world *hook_world;
static int hook_countdown = -1;
static int hook_kind;
static bool hook_fired;

static void inject(struct world *w, int kind)
{
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 1000);
	switch (kind) {
	case 0:	/* thread switched out and back in on the same VCPU */
		assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[1]), 0);
		mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 77);
		assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[0]), 0);
		break;
	case 1:	/* VCPU preempted by the other VCPU and back */
		schedule(w, 1);
		mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 555);
		schedule(w, 0);
		break;
	case 2:	/* thread migrates to VCPU 1, which then runs */
		assert_int_equal(pmuvirt_switch(&w->v[0].gpc, NULL), 0);
		assert_int_equal(pmuvirt_switch(&w->v[1].gpc, w->t[0]), 0);
		schedule(w, 1);
		break;
	}
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 3);
}

static void read_hook(int point)
{
	if (!hook_world || hook_countdown < 0)
		return;
	if (hook_countdown-- == 0) {
		hook_fired = true;
		inject(hook_world, hook_kind);
	}
}

static void test_user_read_injection(void **state)
{
	int kind, at;

	for (kind = 0; kind < 3; kind++) {
		for (at = 0;; at++) {
			struct world *w = world_new(0);
			struct pmuvirt_control ctl;
			uint64_t before, after, got[2];

			mock_set_control(w->t[0], &ctl, 2, ev_ic, NULL);
			assert_int_equal(pmuvirt_set_control(NULL, w->t[1], &ctl, NULL), 0);
			assert_int_equal(pmuvirt_switch(&w->v[1].gpc, w->t[2]), 0);
			schedule(w, 0);
			assert_int_equal(pmuvirt_switch(&w->v[0].gpc, w->t[0]), 0);
			mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 4242);
			before = rig_val(w->t[0], 0);

			hook_world = w;
			hook_countdown = at;
			hook_kind = kind;
			hook_fired = false;
			assert_int_equal(pmuvirt_shared_read(&w->trec[0], 0, 2, pmuvirt_below_vcpu,
							     &w->user, got), 0);
			hook_world = NULL;
			after = rig_val(w->t[0], 0);
			if (got[0] != before && got[0] != after)
				fail_msg("kind %d at %d: read %llu, before %llu, after %llu", kind, at,
					 (unsigned long long)got[0], (unsigned long long)before,
					 (unsigned long long)after);
			assert_int_equal(got[1], 0);
			world_free(w);
			if (!hook_fired)
				break;
			assert_true(after > before);
		}
		assert_true(at >= 6);
	}
}

/* ---- nesting: a third instance on a guest instance, no new code ---- */

struct level2 {
	struct pmuvirt_ctx *thread;	/* the level-2 context acting as a "VCPU" */
	struct pmuvirt_pcpu *pc;	/* where it runs at level 2, or NULL */
};

static int n_set_control(void *arg, const struct pmuvirt_control *ctl)
{
	struct level2 *l = arg;

	return pmuvirt_set_control(l->pc, l->thread, ctl, NULL);
}

static int n_arm(void *arg, uint32_t mask, const uint64_t *remaining, const uint64_t *period)
{
	struct level2 *l = arg;

	return pmuvirt_arm_counters(l->pc, l->thread, mask, remaining, period);
}

static int n_read(void *arg, uint32_t counter, uint64_t *val)
{
	struct level2 *l = arg;
	uint64_t vals[PMUVIRT_MAX_COUNTERS];
	int ret = pmuvirt_read(l->thread, vals);

	*val = vals[counter];
	return ret;
}

static const struct pmuvirt_pv_lower_ops nested_ops = {
	.set_control = n_set_control,
	.arm = n_arm,
	.read = n_read,
};

static void test_nesting(void **state)
{
	struct world *w = world_new(11);
	struct pmuvirt_pmu pmu3;
	struct pmuvirt_pcpu pc3;
	struct pmuvirt_pv_vcpu pv3 = { 0 };
	struct level2 l2;
	struct pmuvirt_ctx *a = rig_ctx_alloc(&w->gpmu, 8), *b, *c;
	struct pmuvirt_control ctl;
	uint64_t per[2] = { 0, 40 };
	uint64_t v[2];
	uint32_t counts[2];

	assert_int_equal(pmuvirt_pv_probe(&pmu3, &w->gpmu), 0);
	b = rig_ctx_alloc(&pmu3, 8);
	c = rig_ctx_alloc(&pmu3, 8);
	l2.thread = a;
	l2.pc = &w->v[0].gpc;
	pv3.ops = &nested_ops;
	pv3.arg = &l2;
	assert_int_equal(pmuvirt_pcpu_init(&pc3, &pmu3, NULL, &pv3, 0), 0);

	/* level 1 runs VCPU 0, level 2 runs "a" on it, level 3 runs b and c on "a" */
	schedule(w, 0);
	assert_int_equal(pmuvirt_switch(&w->v[0].gpc, a), 0);
	mock_set_control(b, &ctl, 2, ev_ic, per);
	mock_set_control(c, &ctl, 2, ev_ic, NULL);

	assert_int_equal(pmuvirt_switch(&pc3, b), 0);
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 100);
	mock_run(&w->hw, PMUVIRT_EV_CYCLES, 85);
	assert_int_equal(pmuvirt_switch(&pc3, c), 0);
	mock_run(&w->hw, PMUVIRT_EV_INSTRUCTIONS, 30);
	mock_run(&w->hw, PMUVIRT_EV_CYCLES, 10);
	assert_int_equal(pmuvirt_switch(&pc3, b), 0);
	mock_run(&w->hw, PMUVIRT_EV_CYCLES, 5);
	assert_int_equal(pmuvirt_switch(&pc3, NULL), 0);

	assert_int_equal(pmuvirt_read(b, v), 0);
	assert_int_equal(v[0], 100);
	assert_int_equal(v[1], 90);
	assert_int_equal(pmuvirt_read(c, v), 0);
	assert_int_equal(v[0], 30);
	assert_int_equal(v[1], 10);
	pmuvirt_take_overflows(b, counts);
	assert_int_equal(counts[1], 90 / 40);
	free(a);
	free(b);
	free(c);
	world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compensation_and_hypercalls),
		cmocka_unit_test(test_imode_two_levels),
		cmocka_unit_test(test_collect_stacked),
		cmocka_unit_test(test_sample_stacked),
		cmocka_unit_test(test_sample_stacked_saturated),
		cmocka_unit_test(test_idle_vcpu_quiet),
		cmocka_unit_test(test_user_read_injection),
		cmocka_unit_test(test_nesting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
