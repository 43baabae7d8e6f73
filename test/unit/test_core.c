/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Core tests over the idealised mock PMU: width math, switches, i-mode, costs. */
#include <stdlib.h>
#include "rig.h"
#include "mock_pmu.h"

struct rig {
	struct pmuvirt_pmu pmu;
	struct mock_hw hw;
	struct pmuvirt_pcpu pc;
	struct pmuvirt_ctx *ctx[4];
};

static struct rig *rig_new(unsigned int width, uint64_t threshold)
{
	struct rig *r = calloc(1, sizeof(*r));
	unsigned int i;

	mock_pmu_init(&r->pmu, width, threshold);
	mock_hw_init(&r->hw, width, threshold);
	assert_int_equal(pmuvirt_pcpu_init(&r->pc, &r->pmu, &mock_hw_ops, &r->hw, 0), 0);
	r->hw.pc = &r->pc;
	for (i = 0; i < 4; i++)
		r->ctx[i] = rig_ctx_alloc(&r->pmu, 8);
	return r;
}

static void rig_free(struct rig *r)
{
	unsigned int i;

	assert_int_equal(r->hw.errors, 0);
	for (i = 0; i < 4; i++)
		free(r->ctx[i]);
	free(r);
}

static const unsigned int ev_ic[] = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES };

/* a-mode counts exact far beyond 2^width, at every width and threshold. */
static void test_amode_wide_counts(void **state)
{
	static const unsigned int widths[] = { 32, 40, 48, 64 };
	unsigned int w, t;

	for (w = 0; w < 4; w++) {
		for (t = 0; t < 2; t++) {
			unsigned int width = widths[w];
			uint64_t thr = t ? (uint64_t)1 << (width - 1) : 0;
			struct rig *r = rig_new(width, thr);
			struct pmuvirt_control ctl;
			uint64_t total = 0, step;
			unsigned int k;

			mock_set_control(r->ctx[0], &ctl, 2, ev_ic, NULL);
			assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
			for (k = 0; k < 7; k++) {
				step = width < 64 ? ((uint64_t)1 << width) + 12345 * k + 1 :
						    ((uint64_t)1 << 61) + k;
				mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, step);
				total += step;
				assert_true(rig_val(r->ctx[0], 0) == total);
				/* switch out and back in between steps, too */
				if (k & 1) {
					assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
					mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 99);
					assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
				}
			}
			assert_true(rig_val(r->ctx[0], 0) == total);
			assert_true(rig_val(r->ctx[0], 1) == 0);
			if (width < 64)
				assert_true(r->hw.pmis >= 7);
			rig_free(r);
		}
	}
}

/* Two contexts with identical controls: a switch costs only reads, one per counter. */
static void test_switch_costs(void **state)
{
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control ctl, other;
	static const unsigned int ev3[] = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES,
					    PMUVIRT_EV_BRANCHES };
	static const unsigned int ev3b[] = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES,
					     PMUVIRT_EV_BRANCH_MISSES };
	uint64_t writes, reads;
	unsigned int k;

	make_control(&ctl, 3, ev3, NULL);
	for (k = 0; k < 3; k++)
		assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[k], 1), 0);
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[0], &ctl, NULL), 0);
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[1], &ctl, NULL), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	for (k = 0; k < 10; k++) {
		mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 100 + k);
		writes = r->hw.writes;
		reads = r->hw.reads;
		assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[(k + 1) & 1]), 0);
		assert_int_equal(r->hw.writes - writes, 0);
		assert_int_equal(r->hw.reads - reads, 3);
	}
	/* ctx0 ran steps 0,2,4,6,8; ctx1 ran 1,3,5,7,9 */
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(rig_val(r->ctx[0], 0), 100 + 102 + 104 + 106 + 108);
	assert_int_equal(rig_val(r->ctx[1], 0), 101 + 103 + 105 + 107 + 109);

	/* A differing control writes only the registers that differ. */
	make_control(&other, 3, ev3b, NULL);
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[2], &other, NULL), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	writes = r->hw.writes;
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[2]), 0);
	/* the branches select, and nothing else (global enable unchanged) */
	assert_int_equal(r->hw.writes - writes, 1);
	rig_free(r);
}

/* i-mode: exactly floor(count/period) notifications, across switches and huge steps. */
static void test_imode_exact(void **state)
{
	static const unsigned int widths[] = { 32, 48 };
	unsigned int w;

	for (w = 0; w < 2; w++) {
		struct rig *r = rig_new(widths[w], w ? 0 : 0x80000000u);
		struct pmuvirt_control ctl;
		uint64_t per[2] = { 1000, 0 };
		uint32_t counts[2];
		uint64_t total0 = 0, total1 = 0, got0 = 0;
		unsigned int k;

		mock_set_control(r->ctx[0], &ctl, 2, ev_ic, per);
		per[0] = 777;
		mock_set_control(r->ctx[1], &ctl, 2, ev_ic, per);
		for (k = 0; k < 40; k++) {
			struct pmuvirt_ctx *c = r->ctx[k & 1];
			uint64_t n = 1 + (k * 7919u) % 5000;

			assert_int_equal(pmuvirt_switch(&r->pc, c), 0);
			/* while running, notifications are delivered at once */
			pmuvirt_take_overflows(c, counts);
			if (c == r->ctx[0])
				got0 += counts[0];
			mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, n);
			if (k & 1)
				total1 += n;
			else
				total0 += n;
			pmuvirt_take_overflows(c, counts);
			if (c == r->ctx[0])
				got0 += counts[0];
		}
		assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
		pmuvirt_take_overflows(r->ctx[0], counts);
		got0 += counts[0];
		assert_int_equal(rig_val(r->ctx[0], 0), total0);
		assert_int_equal(rig_val(r->ctx[1], 0), total1);
		assert_int_equal(got0, total0 / 1000);
		/* never twice */
		assert_int_equal(pmuvirt_take_overflows(r->ctx[0], counts), 0);
		rig_free(r);
	}
}

/* An overflow that happens while the PMI is held off is found at switch-out: pending, once. */
static void test_imode_pending(void **state)
{
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control ctl;
	uint64_t per[1] = { 500 };
	uint32_t counts[1];

	mock_set_control(r->ctx[0], &ctl, 1, ev_ic, per);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	r->hw.in_pmi = true;	/* interrupts off: the PMI does not reach the handler */
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 1499);
	r->hw.in_pmi = false;
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(pmuvirt_take_overflows(r->ctx[0], counts), 1);
	assert_int_equal(counts[0], 2);
	/* resumes 1 event before the third overflow */
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 1);
	assert_int_equal(pmuvirt_take_overflows(r->ctx[0], counts), 1);
	assert_int_equal(counts[0], 1);
	assert_int_equal(rig_val(r->ctx[0], 0), 1500);
	rig_free(r);
}

/*
 * Pending notifications saturate at 0xffffffff: one more crossing on a full
 * count, or exactly 2^32 crossings at once, never wrap to zero.
 */
static void test_pending_saturation(void **state)
{
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control ctl;
	uint64_t per[1] = { 1 };
	uint32_t counts[1], mask;

	mock_set_control(r->ctx[0], &ctl, 1, ev_ic, per);
	r->hw.in_pmi = true;	/* interrupts held off: crossings collect at switch-out */
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 0xfffffffeu);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(r->ctx[0]->counter[0].pending, 0xfffffffeu);
	/* one below the top, plus one */
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 1);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(r->ctx[0]->counter[0].pending, 0xffffffffu);
	/* full, plus one: stays full */
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 1);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(pmuvirt_take_overflows(r->ctx[0], counts), 1);
	assert_int_equal(counts[0], 0xffffffffu);
	assert_true(rig_val(r->ctx[0], 0) == 0x100000000ull);

	/* exactly 2^32 crossings found by one PMI: saturated, and reported */
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[0], &ctl, NULL), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 0x100000000ull);
	r->hw.in_pmi = false;
	assert_int_equal(pmuvirt_pmi(&r->pc, &mask), 0);
	assert_int_equal(mask, 1);
	assert_int_equal(pmuvirt_take_overflows(r->ctx[0], counts), 1);
	assert_int_equal(counts[0], 0xffffffffu);
	/* the next notification is the next boundary, one event away */
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 1);
	assert_int_equal(pmuvirt_take_overflows(r->ctx[0], counts), 1);
	assert_int_equal(counts[0], 1);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_free(r);
}

/*
 * pmuvirt_ctx_pending() names exactly the counters with pending
 * notifications, running or not, and takes none of them.
 */
static void test_ctx_pending(void **state)
{
	static const unsigned int ev[] = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES,
					   PMUVIRT_EV_INSTRUCTIONS };
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control ctl;
	uint64_t per[3] = { 100, 0, 250 };
	uint32_t counts[3];

	mock_set_control(r->ctx[0], &ctl, 3, ev, per);
	assert_int_equal(pmuvirt_ctx_pending(r->ctx[0]), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	r->hw.in_pmi = true;	/* held off: crossings collect at switch-out */
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 150);
	mock_run(&r->hw, PMUVIRT_EV_CYCLES, 1000);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	/* counter 0 crossed once, counter 2 not yet, counter 1 is a-mode */
	assert_int_equal(pmuvirt_ctx_pending(r->ctx[0]), 0x1);
	/* looking takes nothing */
	assert_int_equal(pmuvirt_ctx_pending(r->ctx[0]), 0x1);
	assert_int_equal(r->ctx[0]->counter[0].pending, 1);

	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 150);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	/* 300 events: counter 0 three, counter 2 one */
	assert_int_equal(pmuvirt_ctx_pending(r->ctx[0]), 0x5);
	assert_int_equal(pmuvirt_take_overflows(r->ctx[0], counts), 0x5);
	assert_int_equal(counts[0], 3);
	assert_int_equal(counts[2], 1);
	assert_int_equal(pmuvirt_ctx_pending(r->ctx[0]), 0);

	/* only counter 2, at a count a narrower type would lose */
	r->ctx[0]->counter[2].pending = 0xffffffffu;
	assert_int_equal(pmuvirt_ctx_pending(r->ctx[0]), 0x4);
	r->ctx[0]->counter[2].pending = 0x100u;
	assert_int_equal(pmuvirt_ctx_pending(r->ctx[0]), 0x4);
	/* a slot past nr_counters is no counter of the context */
	r->ctx[0]->counter[3].pending = 1;
	assert_int_equal(pmuvirt_ctx_pending(r->ctx[0]), 0x4);
	r->ctx[0]->counter[3].pending = 0;
	assert_int_equal(pmuvirt_take_overflows(r->ctx[0], counts), 0x4);
	assert_int_equal(pmuvirt_ctx_pending(r->ctx[0]), 0);
	rig_free(r);
}

/* Compensation: events between pause and resample belong to nobody. */
static void test_pause_resample(void **state)
{
	struct rig *r = rig_new(32, 0);
	struct pmuvirt_control ctl;

	mock_set_control(r->ctx[0], &ctl, 1, ev_ic, NULL);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 10);
	assert_int_equal(pmuvirt_pause(&r->pc), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, ((uint64_t)1 << 33) + 5); /* wraps while paused */
	assert_int_equal(rig_val(r->ctx[0], 0), 10);
	assert_int_equal(pmuvirt_resample(&r->pc), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 7);
	assert_int_equal(rig_val(r->ctx[0], 0), 17);
	rig_free(r);
}

/*
 * pmuvirt_mute(): a muted counter keeps its value through a wrap of the
 * hardware and a switch, its shared record shows the count alone (index
 * 0), the others count on; a mask past the counters or a context of
 * another pcpu is refused and changes nothing.
 */
static void test_mute(void **state)
{
	struct rig *r = rig_new(32, 0);
	struct pmuvirt_shared_ctx rec = { 0 };
	struct pmuvirt_pcpu other = { 0 };
	struct pmuvirt_control ctl;

	mock_set_control(r->ctx[0], &ctl, 2, ev_ic, NULL);
	assert_int_equal(pmuvirt_mute(&r->pc, r->ctx[0], 0x4, 0), -EINVAL);
	assert_int_equal(pmuvirt_mute(&r->pc, r->ctx[0], 0x1, 0x2), -EINVAL);
	assert_int_equal(pmuvirt_mute(&r->pc, NULL, 0, 0), -EINVAL);
	pmuvirt_ctx_attach_shared(r->ctx[0], &rec);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 10);
	assert_int_equal(pmuvirt_mute(&r->pc, r->ctx[0], 0x3, 0x1), 0);
	assert_int_equal(rec.counter[0].index, 0);
	assert_int_not_equal(rec.counter[1].index, 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, ((uint64_t)1 << 33) + 5);
	assert_int_equal(rig_val(r->ctx[0], 0), 10);
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[1]), 0);
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 3);
	assert_int_equal(rig_val(r->ctx[0], 0), 10);
	other.pmu = r->pc.pmu;
	assert_int_equal(pmuvirt_mute(&other, r->ctx[0], 0x1, 0), -EBUSY);
	assert_int_equal(r->ctx[0]->counter[0].muted, 1);
	assert_int_equal(pmuvirt_mute(&r->pc, r->ctx[0], 0x2, 0), 0);	/* counter 1 only */
	assert_int_equal(r->ctx[0]->counter[0].muted, 1);
	assert_int_equal(pmuvirt_mute(&r->pc, r->ctx[0], 0x1, 0), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 7);
	assert_int_equal(rig_val(r->ctx[0], 0), 17);
	assert_int_not_equal(rec.counter[0].index, 0);
	/* the pair's offsetting switches (one domain) leave a muted counter alone too */
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[0], 1), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[1], 1), 0);
	mock_set_control(r->ctx[1], &ctl, 2, ev_ic, NULL);
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[1]), 0);
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[0]), 0);
	assert_int_equal(pmuvirt_mute(&r->pc, r->ctx[0], 0x1, 0x1), 0);
	for (int k = 0; k < 6; k++) {
		mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 100);
		assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[k & 1 ? 0 : 1]), 0);
	}
	assert_int_not_equal(r->pc.pair[0], 0);	/* the two became the pair */
	assert_int_equal(rig_val(r->ctx[0], 0), 17);
	assert_int_equal(rig_val(r->ctx[1], 0), 300);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_free(r);
}

/* A PMI while paused parks i-mode counters: no interrupt storm, exact again after resample. */
static void test_pause_no_storm(void **state)
{
	struct rig *r = rig_new(32, 0);
	struct pmuvirt_control ctl;
	uint64_t per[1] = { 4 };
	uint32_t counts[1];
	unsigned int pmis;

	mock_set_control(r->ctx[0], &ctl, 1, ev_ic, per);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 10);
	assert_int_equal(pmuvirt_pause(&r->pc), 0);
	pmis = r->hw.pmis;
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 40000);
	assert_true(r->hw.pmis - pmis <= 2);
	assert_int_equal(pmuvirt_resample(&r->pc), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 2);
	assert_int_equal(rig_val(r->ctx[0], 0), 12);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	pmuvirt_take_overflows(r->ctx[0], counts);
	assert_int_equal(counts[0], 3);
	rig_free(r);
}

/* What an attacker context can see right after it is switched back in. */
struct seen {
	struct pmuvirt_shared_ctx rec;	/* its shared record */
	uint64_t raw[MOCK_NR];		/* every counter, as rdpmc would give them */
	uint64_t count;
	uint64_t writes;		/* register writes of that switch */
};

/*
 * The attacker (domain 1, instructions) runs 1000 events, the victim
 * (domain @vdom, four counters) runs @ins instructions and @bm branch
 * misses, then the attacker is switched back in.
 */
static void attack(uint64_t vdom, uint64_t ins, uint64_t bm, struct seen *o)
{
	static const unsigned int ev4[] = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES,
					    PMUVIRT_EV_BRANCHES, PMUVIRT_EV_BRANCH_MISSES };
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_ctx *att = r->ctx[0], *vic = r->ctx[1];
	struct pmuvirt_control ctl;
	uint64_t w;

	memset(o, 0, sizeof(*o));
	assert_int_equal(pmuvirt_ctx_set_domain(att, 1), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(vic, vdom), 0);
	mock_set_control(att, &ctl, 1, ev4, NULL);
	mock_set_control(vic, &ctl, vdom == 1 ? 1 : 4, ev4, NULL);
	pmuvirt_ctx_attach_shared(att, &o->rec);

	assert_int_equal(pmuvirt_switch_in(&r->pc, att), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 1000);
	assert_int_equal(pmuvirt_switch(&r->pc, vic), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, ins);
	mock_run(&r->hw, PMUVIRT_EV_BRANCH_MISSES, bm);
	w = r->hw.writes;
	assert_int_equal(pmuvirt_switch(&r->pc, att), 0);
	o->writes = r->hw.writes - w;
	memcpy(o->raw, r->hw.ctr, sizeof(o->raw));
	o->rec.seq = 0;
	o->count = rig_val(att, 0);
	assert_int_equal(rig_val(vic, 0), ins);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_free(r);
}

/*
 * Security domains: a context switched in after another domain's context
 * sees nothing of that domain's events, neither in its shared record
 * (start) nor in any raw counter; within one domain the switch writes
 * nothing.
 */
static void test_domain_isolation(void **state)
{
	struct seen quiet, busy, misses, same;

	attack(2, 0, 0, &quiet);
	attack(2, 123456, 0, &busy);
	attack(2, 0, 4242, &misses);
	assert_int_equal(quiet.count, 1000);
	assert_memory_equal(&quiet.rec, &busy.rec, sizeof(quiet.rec));
	assert_memory_equal(&quiet.rec, &misses.rec, sizeof(quiet.rec));
	assert_memory_equal(quiet.raw, busy.raw, sizeof(quiet.raw));
	assert_memory_equal(quiet.raw, misses.raw, sizeof(quiet.raw));
	assert_int_equal(busy.count, 1000);
	assert_int_equal(misses.count, 1000);
	/* three selects turned off, the attacker's counter re-based, three unused ones written */
	assert_int_equal(busy.writes, 3 + 1 + 3);

	/* same domain (1) and control: the zero-write switch */
	attack(1, 123456, 0, &same);
	assert_int_equal(same.writes, 0);
	assert_int_equal(same.count, 1000);
}

/* Which switches re-base: owner unknown or another domain; counterless contexts own nothing. */
static void test_domain_rebase_rules(void **state)
{
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control ctl;
	uint64_t w;

	mock_set_control(r->ctx[0], &ctl, 2, ev_ic, NULL);
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[1], &ctl, NULL), 0);
	/* untagged contexts are domains of their own */
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	w = r->hw.writes;
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[1]), 0);
	/* the two counters that counted for ctx[0]; the other two hold the first re-base */
	assert_int_equal(r->hw.writes - w, 2);
	/* back to the same context after idle: nothing counted meanwhile, no write */
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	w = r->hw.writes;
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[1]), 0);
	assert_int_equal(r->hw.writes - w, 1);	/* the global enable only */
	/* a counterless context of another domain in between owns nothing */
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[2]), 0);
	w = r->hw.writes;
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[1]), 0);
	assert_int_equal(r->hw.writes - w, 1);
	/* after someone else used the PMU, the owner is unknown */
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	pmuvirt_pcpu_invalidate(&r->pc);
	r->hw.ctr[3] = 777;
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[1]), 0);
	assert_true(r->hw.ctr[3] == ((uint64_t)1 << 47));
	/* a running context keeps its domain */
	assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[1], 9), -EBUSY);
	assert_int_equal(pmuvirt_ctx_set_domain(NULL, 9), -EINVAL);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_free(r);
}

/* The TSC is a counter like the others; it never needs a PMU counter. */
static void test_tsc(void **state)
{
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control ctl;
	static const unsigned int ev[] = { PMUVIRT_EV_TSC };
	uint64_t w;

	make_control(&ctl, 1, ev, NULL);
	assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[0], 3), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[1], 3), 0);
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[0], &ctl, NULL), 0);
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[1], &ctl, NULL), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	r->hw.tsc += 1000;
	w = r->hw.writes;
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[1]), 0);
	assert_int_equal(r->hw.writes, w);
	r->hw.tsc += 300;
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[0]), 0);
	r->hw.tsc += 5;
	assert_int_equal(rig_val(r->ctx[0], 0), 1005);
	assert_int_equal(rig_val(r->ctx[1], 0), 300);
	rig_free(r);
}

/* Malformed controls are refused with a reason and change nothing. */
static void test_validation(void **state)
{
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control ctl;
	struct pmuvirt_error err;
	uint64_t per[1];
	static const unsigned int five[] = { 1, 2, 3, 4, 1 };
	static const struct {
		void (*mut)(struct pmuvirt_control *c);
	} dummy[1] = { { NULL } };
	(void)dummy;

	mock_set_control(r->ctx[0], &ctl, 2, ev_ic, NULL);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 42);

#define REFUSE(code, mutate) do { \
		make_control(&ctl, 2, ev_ic, NULL); \
		mutate; \
		uint64_t wr = r->hw.writes; \
		err.reason = NULL; \
		assert_int_equal(pmuvirt_set_control(&r->pc, r->ctx[0], &ctl, &err), code); \
		assert_non_null(err.reason); \
		assert_int_equal(r->hw.writes, wr); \
		assert_int_equal(rig_val(r->ctx[0], 0), 42); \
	} while (0)

	REFUSE(-EINVAL, ctl.version = 99);
	REFUSE(-EINVAL, ctl.flags = 1);
	REFUSE(-EINVAL, ctl.reserved = 1);
	REFUSE(-EINVAL, ctl.counter[1].reserved = 1);
	REFUSE(-EINVAL, ctl.counter[1].flags = 0x80);
	REFUSE(-EINVAL, ctl.counter[1].flags = 0);
	REFUSE(-EINVAL, ctl.counter[0].event = 0);
	REFUSE(-EINVAL, ctl.counter[0].event = 77);
	REFUSE(-EINVAL, (ctl.counter[0].event = PMUVIRT_EV_TSC, ctl.counter[0].period = 5));
	REFUSE(-ENOSPC, ctl.nr_counters = 9);
	REFUSE(-ENOSPC, make_control(&ctl, 5, five, NULL));
	per[0] = PMUVIRT_PERIOD_MAX + 1;
	REFUSE(-ERANGE, ctl.counter[0].period = per[0]);
	REFUSE(-EOPNOTSUPP, (ctl.counter[1].flags |= PMUVIRT_CTR_RAW, ctl.counter[1].event = 9));
	assert_int_equal(err.counter, 1);
	rig_free(r);
}

/* An owner stamp is the library's own: a new control always gets a new one. */
static void test_cache_stamp(void **state)
{
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control a, b;
	static const unsigned int eb[] = { PMUVIRT_EV_BRANCHES };

	make_control(&a, 1, ev_ic, NULL);
	make_control(&b, 1, eb, NULL);
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[0], &a, NULL), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	/* same storage, new control: must not be mistaken for the cached one */
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[0], &b, NULL), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	assert_int_equal(r->hw.sel[0] & 0xff, PMUVIRT_EV_BRANCHES);
	/* someone else wrote the registers: after invalidate they are rewritten */
	r->hw.sel[0] = 0;
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	pmuvirt_pcpu_invalidate(&r->pc);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	assert_int_equal(r->hw.sel[0] & 0xff, PMUVIRT_EV_BRANCHES);
	rig_free(r);
}

/*
 * Two contexts with identical images share the cached control (no write
 * between them), and a third control loaded in between is never mistaken
 * for theirs.
 */
static void test_cache_twin(void **state)
{
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control a, b;
	static const unsigned int eb[] = { PMUVIRT_EV_BRANCHES };
	unsigned int k;
	uint64_t w;

	make_control(&a, 1, ev_ic, NULL);
	make_control(&b, 1, eb, NULL);
	for (k = 0; k < 3; k++) {
		assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[k], 1), 0);
		assert_int_equal(pmuvirt_set_control(NULL, r->ctx[k], k == 2 ? &b : &a, NULL), 0);
	}
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	w = r->hw.writes;
	for (k = 1; k <= 4; k++)
		assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[k & 1]), 0);
	assert_int_equal(r->hw.writes - w, 0);
	/* ctx[1] is the twin of the loaded ctx[0]; ctx[2] loads another image */
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[1]), 0);
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[2]), 0);
	assert_int_equal(r->hw.sel[0] & 0xff, PMUVIRT_EV_BRANCHES);
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[1]), 0);
	assert_int_equal(r->hw.sel[0] & 0xff, PMUVIRT_EV_INSTRUCTIONS);
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[2]), 0);
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[0]), 0);
	assert_int_equal(r->hw.sel[0] & 0xff, PMUVIRT_EV_INSTRUCTIONS);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	rig_free(r);
}

/*
 * Identical images, counters in another order: the switch still reads each
 * counter once, writes nothing and stays exact.
 */
static void test_switch_other_order(void **state)
{
	static const unsigned int ev_a[] = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES,
					     PMUVIRT_EV_TSC };
	static const unsigned int ev_b[] = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_TSC,
					     PMUVIRT_EV_CYCLES };
	static const unsigned int ev_c[] = { PMUVIRT_EV_TSC, PMUVIRT_EV_INSTRUCTIONS,
					     PMUVIRT_EV_CYCLES };
	const unsigned int *other[] = { ev_b, ev_c };
	uint64_t want[2][3] = { { 0 } };
	unsigned int t, k;

	for (t = 0; t < 2; t++) {
		struct rig *r = rig_new(48, 0);
		struct pmuvirt_control a, b;
		uint64_t reads, writes;

		make_control(&a, 3, ev_a, NULL);
		make_control(&b, 3, other[t], NULL);
		for (k = 0; k < 2; k++)
			assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[k], 1), 0);
		assert_int_equal(pmuvirt_set_control(NULL, r->ctx[0], &a, NULL), 0);
		assert_int_equal(pmuvirt_set_control(NULL, r->ctx[1], &b, NULL), 0);
		assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[1]), 0);
		assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[0]), 0);
		memset(want, 0, sizeof(want));
		for (k = 0; k < 8; k++) {
			unsigned int cur = k & 1;

			mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 10 + k);
			want[cur][0] += 10 + k;
			want[cur][2] += 10 + k;	/* the TSC counts every event */
			reads = r->hw.reads;
			writes = r->hw.writes;
			assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[cur ^ 1]), 0);
			assert_int_equal(r->hw.reads - reads, 3);
			assert_int_equal(r->hw.writes - writes, 0);
		}
		assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
		assert_int_equal(rig_val(r->ctx[0], 0), want[0][0]);
		assert_int_equal(rig_val(r->ctx[0], 1), 0);
		assert_int_equal(rig_val(r->ctx[0], 2), want[0][2]);
		assert_int_equal(rig_val(r->ctx[1], 0), t ? want[1][2] : want[1][0]);
		assert_int_equal(rig_val(r->ctx[1], 1), t ? want[1][0] : want[1][2]);
		assert_int_equal(rig_val(r->ctx[1], 2), 0);
		rig_free(r);
	}
}

/*
 * A backend that keeps no statistics: the core learns what load() wrote from
 * its result, so the control writes' own events still count for no one.
 */
static struct pmuvirt_arch_ops nostat_ops;

static int nostat_load(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_stats st = pc->stats;
	int n = mock_load(pc, ctx);

	pc->stats = st;
	if (n > 0)	/* the writes' own events */
		mock_run(pc->hw_arg, PMUVIRT_EV_INSTRUCTIONS, 1000);
	return n;
}

static void test_load_result_not_stats(void **state)
{
	struct rig *r = rig_new(48, 0);
	struct pmuvirt_control a, b;

	nostat_ops = mock_ops;
	nostat_ops.load = nostat_load;
	r->pmu.ops = &nostat_ops;
	make_control(&a, 1, ev_ic, NULL);
	make_control(&b, 2, ev_ic, NULL);
	/* one domain: the counters are offset, not re-based */
	assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[0], 1), 0);
	assert_int_equal(pmuvirt_ctx_set_domain(r->ctx[1], 1), 0);
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[0], &a, NULL), 0);
	assert_int_equal(pmuvirt_set_control(NULL, r->ctx[1], &b, NULL), 0);
	assert_int_equal(pmuvirt_switch_in(&r->pc, r->ctx[0]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 100);
	assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[1]), 0);
	mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 50);
	assert_int_equal(pmuvirt_switch_out(&r->pc), 0);
	assert_int_equal(rig_val(r->ctx[1], 0), 50);
	assert_int_equal(rig_val(r->ctx[0], 0), 100);
	rig_free(r);
}

/* A failing register access faults the context, stops counting, spares the CPU. */
static void test_fault(void **state)
{
	unsigned int k;

	for (k = 1; k < 12; k++) {
		struct rig *r = rig_new(48, 0);
		struct pmuvirt_control ctl;
		int ret;

		mock_set_control(r->ctx[0], &ctl, 2, ev_ic, NULL);
		assert_int_equal(pmuvirt_set_control(NULL, r->ctx[1], &ctl, NULL), 0);
		r->hw.fail_at = k;
		ret = pmuvirt_switch_in(&r->pc, r->ctx[0]);
		if (!ret) {
			mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 5);
			ret = pmuvirt_switch(&r->pc, r->ctx[1]);
		}
		r->hw.fail_at = 0;
		if (ret) {
			assert_int_equal(ret, -EFAULT);
			assert_null(r->pc.running);
			assert_int_equal(r->hw.global, 0);
			/* the faulted context stays off; others still work */
			if (r->ctx[0]->flags & PMUVIRT_CTX_FAULTED)
				assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[0]), -EFAULT);
			assert_int_equal(r->hw.global, 0);
			if (!(r->ctx[1]->flags & PMUVIRT_CTX_FAULTED)) {
				assert_int_equal(pmuvirt_switch(&r->pc, r->ctx[1]), 0);
				mock_run(&r->hw, PMUVIRT_EV_INSTRUCTIONS, 3);
				assert_true(rig_val(r->ctx[1], 0) >= 3);
			}
		}
		rig_free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amode_wide_counts),
		cmocka_unit_test(test_switch_costs),
		cmocka_unit_test(test_imode_exact),
		cmocka_unit_test(test_imode_pending),
		cmocka_unit_test(test_pending_saturation),
		cmocka_unit_test(test_ctx_pending),
		cmocka_unit_test(test_pause_resample),
		cmocka_unit_test(test_mute),
		cmocka_unit_test(test_pause_no_storm),
		cmocka_unit_test(test_domain_isolation),
		cmocka_unit_test(test_domain_rebase_rules),
		cmocka_unit_test(test_tsc),
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_cache_stamp),
		cmocka_unit_test(test_cache_twin),
		cmocka_unit_test(test_switch_other_order),
		cmocka_unit_test(test_load_result_not_stats),
		cmocka_unit_test(test_fault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
