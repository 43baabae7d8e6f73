/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * The core on the POWER backend and the fake SPR bank: register accesses
 * per switch, a-mode counts exact past 2^32 through the exception, i-mode
 * save/restore with POWER reload values, postponed exceptions (taken
 * while the hypervisor runs) that are never lost, and switches that raise
 * no alert of their own whatever the previous owner left in the PMCs.
 */
#include <stdlib.h>
#include "rig.h"
#include "ppc/pmuvirt_ppc.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define U	PMUVIRT_CTR_USER
#define K	PMUVIRT_CTR_KERNEL
#define UK	(U | K)
#define RAW	PMUVIRT_CTR_RAW
#define INS	PMUVIRT_EV_INSTRUCTIONS
#define CYC	PMUVIRT_EV_CYCLES
#define TB	PMUVIRT_EV_TSC
#define M0(x)	PMUVIRT_PPC_MMCR0_##x

struct rig {
	struct fakehw *hw;
	struct pmuvirt_pmu pmu;
	struct pmuvirt_pcpu pc;
	bool ee;		/* external interrupts enabled: exceptions taken at once */
	unsigned int raised;	/* PMIs the hardware raised */
	unsigned int postponed;	/* of which raised while ee was off */
	unsigned int alerts;	/* alerts, when raised (the alert hook) */
	unsigned int nobody;	/* of which raised with no context on the CPU */
	const struct pmuvirt_ctx *alert_owner;	/* running at the last alert */
	unsigned int taken;	/* pmuvirt_pmi() calls */
	int pmi_ret;
	uint32_t ovf;		/* ovf_mask bits seen in PMIs */
	struct pmuvirt_ctx *watch;	/* counter 0 sampled at each notifying PMI */
	uint64_t at[16];
	unsigned int nr_at;
	unsigned int off_period;	/* of those, not on a multiple of the period */
	uint64_t own;		/* events the switch's own accesses count (own_ops) */
	bool in_switch;
	unsigned int alerts_in_switch;
};

static void take(struct rig *r)
{
	uint32_t mask = 0;
	int ret = pmuvirt_pmi(&r->pc, &mask);

	r->taken++;
	if (ret)
		r->pmi_ret = ret;
	r->ovf |= mask;
	if ((mask & 1) && r->watch && r->nr_at < 16)
		r->at[r->nr_at++] = r->watch->counter[0].count;
	if ((mask & 1) && r->watch && r->watch->counter[0].period &&
	    r->watch->counter[0].count % r->watch->counter[0].period)
		r->off_period++;
}

static void on_pmi(void *arg)
{
	struct rig *r = arg;

	r->raised++;
	if (r->ee)
		take(r);
	else
		r->postponed++;
}

/*
 * Who had the counters when the hardware raised an alert.  With no context
 * on the CPU the counters are frozen, or a switch is writing them: an
 * alert then belongs to nobody.
 */
static void on_alert(void *arg, bool by_access)
{
	struct rig *r = arg;

	r->alerts++;
	r->alerts_in_switch += r->in_switch;
	r->alert_owner = r->pc.running;
	if (!r->pc.running)
		r->nobody++;
}

static uint64_t mmcr0(struct rig *r)
{
	uint64_t v;

	assert_int_equal(fakehw_peek(r->hw, PMUVIRT_PPC_SPR_MMCR0, &v), 0);
	return v;
}

/*
 * Turn interrupts on: the performance monitor exception exists while
 * MMCR0[PMAO] is set, so a postponed one is taken now.
 */
static void ee_on(struct rig *r)
{
	r->ee = true;
	if (mmcr0(r) & M0(PMAO))
		take(r);
}

/*
 * Unless an alert is pending (the hardware then changed MMCR0 behind the
 * cache), every control register the cache claims to know holds that value.
 */
static void check_cache(struct rig *r)
{
	static const uint32_t spr[5] = {
		PMUVIRT_PPC_SPR_MMCR0, PMUVIRT_PPC_SPR_MMCR1, PMUVIRT_PPC_SPR_MMCR2,
		PMUVIRT_PPC_SPR_MMCRA, PMUVIRT_PPC_SPR_MMCR3,
	};
	unsigned int i, n = r->pmu.model == PMUVIRT_PPC_POWER10 ? 5 : 4;
	uint64_t v;

	if (mmcr0(r) & M0(PMAO))
		return;
	for (i = 0; i < n; i++) {
		if (!(r->pc.cache_known & (1u << i)))
			continue;
		assert_int_equal(fakehw_peek(r->hw, spr[i], &v), 0);
		if (v != r->pc.cache.reg[i])
			fail_msg("cache reg %u = %#llx, hardware %#llx", i,
				 (unsigned long long)r->pc.cache.reg[i], (unsigned long long)v);
	}
}

static struct rig *rig_new(unsigned int power)
{
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->hw = rig_ppc_new(power, &r->pmu);
	rig_pcpu_init(&r->pc, &r->pmu, r->hw, 0);
	fakehw_set_pmi(r->hw, on_pmi, r);
	fakehw_set_alert_hook(r->hw, on_alert, r);
	r->ee = true;
	return r;
}

/* Every alert came from a counted event of a context on the CPU, none from a write. */
static void rig_free(struct rig *r)
{
	assert_int_equal(r->pmi_ret, 0);
	assert_int_equal(r->nobody, 0);
	assert_int_equal(fakehw_stats(r->hw)->access_alerts, 0);
	rig_hw_free(r->hw);
	free(r);
}

struct cdesc {
	uint64_t event;
	uint32_t flags;
	uint64_t period;
};

static struct pmuvirt_ctx *ctx_new(struct rig *r, unsigned int n, const struct cdesc *c)
{
	struct pmuvirt_control ctl = { .version = PMUVIRT_ABI_VERSION, .nr_counters = n };
	unsigned int i;

	for (i = 0; i < n; i++) {
		ctl.counter[i].event = c[i].event;
		ctl.counter[i].flags = c[i].flags;
		ctl.counter[i].period = c[i].period;
	}
	return rig_ctx_new(&r->pmu, &ctl);
}

/* a-mode counts stay exact far past 2^32: every crossing of bit 31 interrupts and is folded. */
static void test_amode_exact_past_2e32(void **state)
{
	static const struct cdesc c[] = {
		{ INS, UK }, { CYC, UK }, { PMUVIRT_PPC_RAW(1, 0x02), UK | RAW },
		{ PMUVIRT_PPC_RAW(2, 0x1e), K | RAW }, { TB, 0 },
	};
	unsigned int p;

	for (p = 8; p <= 10; p++) {
		struct rig *r = rig_new(p);
		struct pmuvirt_ctx *ctx = ctx_new(r, 5, c);
		uint64_t big = 3ull * (1ull << 32) + 12345, tb0;

		assert_int_equal(pmuvirt_switch(&r->pc, ctx), 0);
		tb0 = rig_val(ctx, 4);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, big, false);
		rig_run(r->hw, FAKEHW_CYCLES, big + 7, true);
		rig_run(r->hw, FAKEHW_CYCLES, 1000, false);
		assert_int_equal(rig_val(ctx, 0), big);
		assert_int_equal(rig_val(ctx, 1), big + 7 + 1000);
		assert_int_equal(rig_val(ctx, 2), big);
		assert_int_equal(rig_val(ctx, 3), big + 7);	/* kernel only */
		assert_int_equal(rig_val(ctx, 4) - tb0, big + 7 + 1000);
		/* Each counter crossed bit 31 every 2^31 events: 6 per counter, in 3 runs. */
		assert_true(r->taken >= 12);
		assert_int_equal(r->raised, r->taken);
		check_cache(r);
		/* Suspended, the values stay; resumed, they go on from there. */
		assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1ull << 40, false);
		assert_int_equal(rig_val(ctx, 0), big);
		assert_int_equal(pmuvirt_switch(&r->pc, ctx), 0);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 5, false);
		assert_int_equal(rig_val(ctx, 0), big + 5);
		assert_int_equal(rig_val(ctx, 2), big + 5);
		assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
		free(ctx);
		rig_free(r);
	}
}

/* What a switch costs in SPR accesses. */
static void test_switch_costs(void **state)
{
	static const struct cdesc ca[] = { { INS, UK }, { CYC, UK }, { TB, 0 } };
	static const struct cdesc cb[] = { { INS, U }, { CYC, U }, { TB, 0 } };
	unsigned int p;

	for (p = 8; p <= 10; p++) {
		struct rig *r = rig_new(p);
		struct pmuvirt_ctx *a1 = ctx_new(r, 3, ca), *a2 = ctx_new(r, 3, ca);
		struct pmuvirt_ctx *b = ctx_new(r, 3, cb);
		unsigned int nregs = p == 10 ? 5 : 4;
		struct pmuvirt_stats s0;

		assert_int_equal(pmuvirt_ctx_set_domain(a1, 1), 0);
		assert_int_equal(pmuvirt_ctx_set_domain(a2, 1), 0);
		assert_int_equal(pmuvirt_ctx_set_domain(b, 1), 0);
		/*
		 * Cold cache: every control register written once, MMCR0 twice
		 * (freeze first, last); counters of an unknown owner: the six
		 * PMCs re-based.
		 */
		s0 = r->pc.stats;
		assert_int_equal(pmuvirt_switch(&r->pc, a1), 0);
		assert_int_equal(r->pc.stats.ctl_writes - s0.ctl_writes, nregs + 1);
		assert_int_equal(r->pc.stats.reg_writes - s0.reg_writes, nregs + 1 + 6);
		assert_int_equal(mmcr0(r) & (M0(FC) | M0(PMAE)), M0(PMAE));
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 100, false);

		/*
		 * Same control, another context: only reads.  3 counters, and
		 * MMCR0 (an alert may have changed it) if the core asks the
		 * backend to load at all.
		 */
		s0 = r->pc.stats;
		fakehw_reset_stats(r->hw);
		assert_int_equal(pmuvirt_switch(&r->pc, a2), 0);
		assert_int_equal(r->pc.stats.reg_writes - s0.reg_writes, 0);
		assert_in_range(r->pc.stats.reg_reads - s0.reg_reads, 3, 3 + 1);
		assert_int_equal(fakehw_stats(r->hw)->reg_writes, 0);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 50, false);
		assert_int_equal(rig_val(a1, 0), 100);
		assert_int_equal(rig_val(a2, 0), 50);

		/* a1 and a2 are the CPU's pair: they read the PMCs and the timebase in one call. */
		fakehw_reset_stats(r->hw);
		assert_int_equal(pmuvirt_switch(&r->pc, a1), 0);
		assert_true(r->pc.pair_batched);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 20, false);
		assert_int_equal(pmuvirt_switch(&r->pc, a2), 0);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 7, false);
		assert_int_equal(fakehw_stats(r->hw)->counter_reads, 4);
		assert_int_equal(fakehw_stats(r->hw)->tsc_reads, 2);
		assert_int_equal(fakehw_stats(r->hw)->reg_writes, 0);
		assert_int_equal(rig_val(a1, 0), 120);
		assert_int_equal(rig_val(a2, 0), 57);

		/* Other filters: freeze, MMCR2, MMCR0.  MMCR1, MMCRA (MMCR3) unchanged. */
		s0 = r->pc.stats;
		assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
		assert_int_equal(r->pc.stats.ctl_writes - s0.ctl_writes, 3);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 40, true);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 30, false);
		assert_int_equal(rig_val(b, 0), 30);
		assert_int_equal(rig_val(a2, 0), 57);

		/* Back to a1: MMCR2 and MMCR0 again. */
		s0 = r->pc.stats;
		assert_int_equal(pmuvirt_switch(&r->pc, a1), 0);
		assert_int_equal(r->pc.stats.ctl_writes - s0.ctl_writes, 3);

		check_cache(r);
		/* Stopping costs one write; stopping again none. */
		s0 = r->pc.stats;
		assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
		assert_int_equal(r->pc.stats.reg_writes - s0.reg_writes, 1);
		assert_true(mmcr0(r) & M0(FC));
		assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
		assert_int_equal(r->pc.stats.reg_writes - s0.reg_writes, 1);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1000, false);
		assert_int_equal(rig_val(a1, 0), 120);
		free(a1);
		free(a2);
		free(b);
		rig_free(r);
	}
}

/* i-mode: the counter is armed at 0x80000000 - remaining and notifies at the exact event. */
static void test_imode_reload(void **state)
{
	static const struct cdesc ci[] = { { INS, UK, 1000 }, { TB, 0 } };
	static const struct cdesc co[] = { { INS, UK }, { CYC, UK } };
	struct rig *r = rig_new(9);
	struct pmuvirt_ctx *a = ctx_new(r, 2, ci), *b = ctx_new(r, 2, co);
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	uint64_t pmc5;

	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_int_equal(fakehw_peek(r->hw, PMUVIRT_PPC_SPR_PMC(5), &pmc5), 0);
	assert_int_equal(pmc5, 0x80000000ull - 1000);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 2500, false);
	assert_int_equal(r->taken, 2);
	assert_int_equal(rig_val(a, 0), 2500);

	/* Another context uses PMC5 meanwhile (a-mode). */
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 0x7fffffffull, true);
	assert_int_equal(rig_val(b, 0), 0x7fffffffull);

	/* Back: PMC5 is reloaded 500 events before the next notification. */
	assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
	assert_int_equal(fakehw_peek(r->hw, PMUVIRT_PPC_SPR_PMC(5), &pmc5), 0);
	assert_int_equal(pmc5, 0x80000000ull - 500);
	r->taken = 0;
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 499, false);
	assert_int_equal(r->taken, 0);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1, false);
	assert_int_equal(r->taken, 1);
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 2000, false);
	assert_int_equal(rig_val(a, 0), 5000);
	assert_int_equal(pmuvirt_take_overflows(a, counts), 1u);
	assert_int_equal(counts[0], 5);
	assert_int_equal(pmuvirt_take_overflows(a, counts), 0);

	/* Suspended with a notification due: found on the way out, delivered once. */
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 999, false);
	r->ee = false;
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1, true);		/* raised, postponed */
	assert_int_equal(r->postponed, 1);
	assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
	ee_on(r);
	assert_int_equal(pmuvirt_take_overflows(a, counts), 1u);
	assert_int_equal(counts[0], 1);
	assert_int_equal(rig_val(a, 0), 6000);
	assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
	free(a);
	free(b);
	rig_free(r);
}

/* Deterministic pseudo-random numbers (xorshift). */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A period of 3,000,000,019 on a 32-bit PMC, which signals every 2^31
 * events at most: each period takes two armings, the notification comes
 * exactly at each multiple of the period, across switches, postponed
 * exceptions and random run lengths.
 */
static void test_imode_long_period(void **state)
{
	const uint64_t p = 3000000019ull;
	static const struct cdesc co[] = { { INS, UK }, { CYC, UK } };
	struct cdesc ci[] = { { INS, UK, p }, { CYC, UK, p }, { TB, 0 } };
	unsigned int power;

	for (power = 8; power <= 10; power++) {
		struct rig *r = rig_new(power);
		struct pmuvirt_ctx *a = ctx_new(r, 3, ci), *b = ctx_new(r, 2, co);
		uint32_t counts[PMUVIRT_MAX_COUNTERS];
		uint64_t pmc5, total = 0, seed = power;
		unsigned int k, got = 0;

		r->watch = a;
		assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
		/* armed half a range before the alert: 2^31 of the period's events */
		assert_int_equal(fakehw_peek(r->hw, PMUVIRT_PPC_SPR_PMC(5), &pmc5), 0);
		assert_int_equal(pmc5, 0);
		for (k = 1; k <= 3; k++) {
			rig_run(r->hw, FAKEHW_INSTRUCTIONS, p - 1, false);
			assert_int_equal(r->ovf, 0);
			assert_true(rig_val(a, 0) == k * p - 1);
			rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1, false);
			assert_int_equal(r->ovf, 1);
			assert_int_equal(r->nr_at, k);
			assert_true(r->at[k - 1] == k * p);
			r->ovf = 0;
		}
		assert_int_equal(pmuvirt_take_overflows(a, counts), 1u);
		assert_int_equal(counts[0], 3);
		total = 3 * p;

		/* Out 1000 events past a boundary; another context uses PMC5 meanwhile. */
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1000, false);
		assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 5000000000ull, true);
		assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, p - 1001, false);
		assert_int_equal(r->ovf, 0);
		r->ee = false;
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1, false);	/* raised, postponed */
		assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
		ee_on(r);
		assert_int_equal(pmuvirt_take_overflows(a, counts), 1u);
		assert_int_equal(counts[0], 1);
		assert_true(rig_val(b, 0) == 5000000000ull);
		total = 4 * p;
		assert_true(rig_val(a, 0) == total);

		/* Random runs: the notifications always equal floor(count / p). */
		assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
		for (k = 0; k < 200; k++) {
			uint64_t n = rnd(&seed) % (3 * p);
			bool kern = rnd(&seed) & 1;

			if (rnd(&seed) % 4 == 0) {
				assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
				rig_run(r->hw, FAKEHW_INSTRUCTIONS, rnd(&seed) % p, kern);
				assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
			}
			rig_run(r->hw, FAKEHW_INSTRUCTIONS, n, kern);
			total += n;
			pmuvirt_take_overflows(a, counts);
			got += counts[0];
			assert_true(rig_val(a, 0) == total);
			assert_int_equal(got, total / p - 4);
		}
		for (k = 0; k < r->nr_at; k++)
			if (r->at[k] % p)
				fail_msg("POWER%u: notification at %llu", power,
					 (unsigned long long)r->at[k]);
		assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
		free(a);
		free(b);
		rig_free(r);
	}
}

#define NVCPU 3

/*
 * VCPUs of three domains share one CPU.  Between VCPUs the hypervisor runs
 * with interrupts off and its instructions count for the VCPU that was
 * last on the CPU; exceptions raised then are postponed.  Every
 * notification must reach its own VCPU exactly once.
 */
static void test_postponed_exceptions(void **state)
{
	static const uint64_t period[NVCPU] = { 997, 1009, 1499 };
	unsigned int p;

	for (p = 8; p <= 10; p++) {
		struct rig *r = rig_new(p);
		struct pmuvirt_ppc_domain dom[NVCPU];
		struct pmuvirt_ctx *v[NVCPU];
		uint64_t truth_ins[NVCPU] = { 0 }, truth_cyc[NVCPU] = { 0 }, got[NVCPU] = { 0 };
		uint64_t seed = 0x9e3779b97f4a7c15ull + p;
		unsigned int i, iter, cur = NVCPU;
		uint32_t counts[PMUVIRT_MAX_COUNTERS];

		for (i = 0; i < NVCPU; i++) {
			struct cdesc c[] = { { INS, UK, period[i] }, { CYC, UK }, { TB, 0 } };
			struct pmuvirt_control ctl = { .version = PMUVIRT_ABI_VERSION, .nr_counters = 3 };
			size_t size = pmuvirt_ctx_size(4);
			unsigned int k;

			v[i] = calloc(1, size);
			assert_int_equal(pmuvirt_ctx_init(v[i], size, &r->pmu), 0);
			for (k = 0; k < 3; k++) {
				ctl.counter[k].event = c[k].event;
				ctl.counter[k].flags = c[k].flags;
				ctl.counter[k].period = c[k].period;
			}
			pmuvirt_ppc_domain_init(&dom[i]);
			/* No counters before the domain enables the monitor. */
			assert_int_equal(pmuvirt_ppc_domain_set_control(&dom[i], NULL, v[i], &ctl, NULL),
					 -EOPNOTSUPP);
			assert_int_equal(pmuvirt_ppc_h_perfmon(&dom[i], PMUVIRT_PPC_PERFMON_ENABLE, 0),
					 PMUVIRT_PPC_H_SUCCESS);
			assert_int_equal(pmuvirt_ppc_domain_set_control(&dom[i], NULL, v[i], &ctl, NULL), 0);
		}

		for (iter = 0; iter < 1500; iter++) {
			unsigned int next = (unsigned int)(rnd(&seed) % NVCPU);
			uint64_t n, h, k;

			/* Hypervisor: interrupts off, switch, interrupts on. */
			r->ee = false;
			assert_int_equal(pmuvirt_switch(&r->pc, v[next]), 0);
			cur = next;
			ee_on(r);
			check_cache(r);

			/* The VCPU runs: interrupts on, exceptions taken at once. */
			n = 1 + rnd(&seed) % 3000;
			rig_run(r->hw, FAKEHW_INSTRUCTIONS, n, rnd(&seed) & 1);
			truth_ins[cur] += n;
			n = 1 + rnd(&seed) % 5000;
			rig_run(r->hw, FAKEHW_CYCLES, n, false);
			truth_cyc[cur] += n;

			/*
			 * Hypervisor work with interrupts off, one event at a time: after
			 * a postponed alert the counters stay frozen until it is taken.
			 */
			r->ee = false;
			h = rnd(&seed) % 400;
			for (k = 0; k < h; k++) {
				if (!(mmcr0(r) & M0(FC)))
					truth_ins[cur]++;
				rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1, true);
			}
			/* Sometimes the same VCPU goes on: its postponed exception is taken now. */
			if (rnd(&seed) % 4 == 0)
				ee_on(r);
			/* The guest drains its notifications now and then. */
			if (rnd(&seed) % 3 == 0) {
				pmuvirt_take_overflows(v[cur], counts);
				got[cur] += counts[0];
			}
		}
		r->ee = false;
		assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
		ee_on(r);

		for (i = 0; i < NVCPU; i++) {
			pmuvirt_take_overflows(v[i], counts);
			got[i] += counts[0];
			assert_int_equal(rig_val(v[i], 0), truth_ins[i]);
			assert_int_equal(rig_val(v[i], 1), truth_cyc[i]);
			if (got[i] != truth_ins[i] / period[i])
				fail_msg("POWER%u VCPU %u: %llu notifications, wanted %llu", p, i,
					 (unsigned long long)got[i],
					 (unsigned long long)(truth_ins[i] / period[i]));
			free(v[i]);
		}
		print_message("POWER%u: %u exceptions, %u postponed, %u handled\n", p, r->raised,
			      r->postponed, r->taken);
		/* The scenario really exercised what it claims. */
		assert_true(r->raised >= 400);
		assert_true(r->postponed >= 40);
		rig_free(r);
	}
}

/* How the previous owner left a PMC negative for the next context. */
enum left_by {
	LEFT_STOPPED,		/* A's alert postponed, A switched out to nobody, then B in */
	LEFT_DIRECT,		/* the same, A switched straight to B (another control) */
	LEFT_SAME_IMAGE,	/* straight to B of another domain with A's very control */
	LEFT_SAME_DOMAIN,	/* straight to B of A's domain, B not on A's negative PMC */
	LEFT_FOREIGN,		/* the PMU's user before pmuvirt: every PMC negative */
	LEFT_NR
};

static const char *const left_name[LEFT_NR] = {
	"stopped", "direct", "same image", "same domain", "foreign",
};

/*
 * The previous owner of the counters left a PMC negative: context A's
 * i-mode counter alerted while interrupts were off (its exception
 * postponed, the counters frozen by FCECE), or a user of the PMU before
 * pmuvirt left them so.  Context B's switch-in, with interrupts still off,
 * must raise no alert (none of nobody, and A's exception, whose overflow
 * A's switch-out counted, is not taken for B), and B's i-mode counter
 * must notify at exactly its period, with interrupts off or on.
 */
static void test_negative_pmc_left_behind(void **state)
{
	const uint64_t pa = 1000, pb = 777;
	const struct cdesc ca[] = { { INS, UK, pa }, { PMUVIRT_PPC_RAW(1, 0x02), UK | RAW },
				    { TB, 0 } };
	const struct cdesc cb_other[] = { { INS, U, pb }, { CYC, UK } };
	const struct cdesc cb_same[] = { { INS, UK, pb }, { PMUVIRT_PPC_RAW(1, 0x02), UK | RAW },
					 { TB, 0 } };
	const struct cdesc cb_pmc2[] = { { PMUVIRT_PPC_RAW(2, 0x02), UK | RAW, pb }, { TB, 0 } };
	unsigned int p, how;

	for (p = 8; p <= 10; p++) {
		for (how = 0; how < LEFT_NR; how++) {
			struct rig *r = rig_new(p);
			struct pmuvirt_ctx *a = ctx_new(r, 3, ca), *b;
			uint32_t counts[PMUVIRT_MAX_COUNTERS];
			unsigned int taken, alerts, n;
			uint64_t v;

			if (how == LEFT_SAME_IMAGE)
				b = ctx_new(r, 3, cb_same);
			else if (how == LEFT_SAME_DOMAIN)
				b = ctx_new(r, 2, cb_pmc2);
			else
				b = ctx_new(r, 2, cb_other);
			assert_int_equal(pmuvirt_ctx_set_domain(a, 1), 0);
			assert_int_equal(pmuvirt_ctx_set_domain(b, how == LEFT_SAME_DOMAIN ? 1 : 2),
					 0);

			if (how == LEFT_FOREIGN) {
				for (n = 1; n <= 6; n++)
					assert_int_equal(fakehw_poke(r->hw, PMUVIRT_PPC_SPR_PMC(n),
								     0x80000000ull + n), 0);
				assert_int_equal(fakehw_poke(r->hw, PMUVIRT_PPC_SPR_MMCR0, M0(FC)),
						 0);
				pmuvirt_pcpu_invalidate(&r->pc);
			} else {
				/* A's alert comes while interrupts are off: postponed. */
				assert_int_equal(pmuvirt_switch(&r->pc, a), 0);
				rig_run(r->hw, FAKEHW_INSTRUCTIONS, pa - 1, false);
				r->ee = false;
				rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1, true);
				assert_int_equal(r->postponed, 1);
				assert_ptr_equal(r->alert_owner, a);
				assert_int_equal(fakehw_peek(r->hw, PMUVIRT_PPC_SPR_PMC(5), &v), 0);
				assert_true(v & 0x80000000ull);
				assert_true(mmcr0(r) & M0(PMAO));
				if (how == LEFT_STOPPED) {
					assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
					ee_on(r);
					r->ee = false;
				}
			}

			/* B comes in with interrupts off; the hypervisor goes on with them off. */
			taken = r->taken;
			alerts = r->alerts;
			r->ee = false;
			assert_int_equal(pmuvirt_switch(&r->pc, b), 0);
			if (r->alerts != alerts || fakehw_stats(r->hw)->access_alerts)
				fail_msg("POWER%u, %s: the switch to B raised %u alert(s), %u with no context on the CPU",
					 p, left_name[how], r->alerts - alerts, r->nobody);
			check_cache(r);
			rig_run(r->hw, FAKEHW_INSTRUCTIONS, pb - 1, false);
			if (r->alerts != alerts)
				fail_msg("POWER%u, %s: an alert before B's period", p, left_name[how]);
			rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1, false);
			if (r->alerts != alerts + 1 || r->alert_owner != b)
				fail_msg("POWER%u, %s: B's counter did not alert at its period (%llu)", p,
					 left_name[how], (unsigned long long)rig_val(b, 0));
			/* Interrupts on: the one exception is B's. */
			ee_on(r);
			assert_int_equal(r->taken - taken, 1);
			assert_int_equal(pmuvirt_take_overflows(b, counts), 1u);
			assert_int_equal(counts[0], 1);
			assert_int_equal(rig_val(b, 0), pb);
			/* And with interrupts on, the next one at twice the period. */
			r->ee = true;
			rig_run(r->hw, FAKEHW_INSTRUCTIONS, pb, false);
			assert_int_equal(r->taken - taken, 2);
			assert_int_equal(pmuvirt_take_overflows(b, counts), 1u);
			assert_int_equal(rig_val(b, 0), 2 * pb);
			if (how != LEFT_FOREIGN) {
				/* A's overflow was counted when A left: once, for A. */
				assert_int_equal(pmuvirt_take_overflows(a, counts), 1u);
				assert_int_equal(counts[0], 1);
				assert_int_equal(rig_val(a, 0), pa);
			}
			assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
			free(a);
			free(b);
			rig_free(r);
		}
	}
}

/*
 * Accessors whose every access first counts the switch's own instructions
 * (@own, in supervisor state) on the fake, as a PMU that is not frozen
 * counts the code of a switch between its register accesses.
 */
static void own_events(struct rig *r)
{
	if (r->in_switch)
		rig_run(r->hw, FAKEHW_INSTRUCTIONS, r->own, true);
}

static int own_read_reg(void *arg, uint32_t reg, uint64_t *val)
{
	struct rig *r = arg;

	own_events(r);
	return fakehw_ops(r->hw)->read_reg(r->hw, reg, val);
}

static int own_write_reg(void *arg, uint32_t reg, uint64_t val)
{
	struct rig *r = arg;

	own_events(r);
	return fakehw_ops(r->hw)->write_reg(r->hw, reg, val);
}

static int own_read_counter(void *arg, uint32_t idx, uint64_t *val)
{
	struct rig *r = arg;

	own_events(r);
	return fakehw_ops(r->hw)->read_counter(r->hw, idx, val);
}

static int own_read_tsc(void *arg, uint64_t *val)
{
	struct rig *r = arg;

	own_events(r);
	return fakehw_ops(r->hw)->read_tsc(r->hw, val);
}

static const struct pmuvirt_hw_ops own_ops = {
	.read_reg = own_read_reg,
	.write_reg = own_write_reg,
	.read_counter = own_read_counter,
	.read_tsc = own_read_tsc,
};

#define NOWN 5

/*
 * The switch's own instructions count while it runs, with interrupts off:
 * an i-mode counter armed close to its next notification reaches it in the
 * middle of a switch.  The alert must belong to the context whose count
 * reached it (the switch stops counting before it samples the outgoing
 * context, and starts it after the incoming one's start values are in),
 * never to nobody, and every notification stays on its own period.
 * Contexts: two domains, the same control with other periods, another
 * filter (a load), and no counters.
 */
static void test_switch_own_events(void **state)
{
	const struct cdesc c[NOWN][2] = {
		{ { INS, UK, 1009 }, { CYC, UK } },
		{ { INS, UK, 1013 }, { CYC, UK } },
		{ { INS, UK, 997 }, { CYC, UK } },
		{ { INS, U, 1021 }, { CYC, U } },
	};
	static const uint64_t domain[NOWN] = { 1, 2, 1, 1, 3 };
	unsigned int p;

	for (p = 8; p <= 10; p++) {
		struct rig *r = rig_new(p);
		struct pmuvirt_ctx *v[NOWN];
		uint64_t seed = 0x2545f4914f6cdd1dull + p, got[NOWN] = { 0 };
		uint32_t counts[PMUVIRT_MAX_COUNTERS];
		unsigned int i, n, iter;

		assert_int_equal(pmuvirt_pcpu_init(&r->pc, &r->pmu, &own_ops, r, 0), 0);
		r->own = 60;
		for (i = 0; i < NOWN; i++) {
			v[i] = ctx_new(r, i < NOWN - 1 ? 2 : 0, c[i]);
			assert_int_equal(pmuvirt_ctx_set_domain(v[i], domain[i]), 0);
		}
		for (iter = 0; iter < 3000; iter++) {
			n = (unsigned int)(rnd(&seed) % NOWN);
			/* The switch with interrupts off, its own events counting. */
			r->ee = false;
			r->in_switch = true;
			assert_int_equal(pmuvirt_switch(&r->pc, v[n]), 0);
			r->in_switch = false;
			r->watch = v[n];
			ee_on(r);
			rig_run(r->hw, FAKEHW_INSTRUCTIONS, 1 + rnd(&seed) % 2500, false);
			if (rnd(&seed) % 4 == 0) {
				pmuvirt_take_overflows(v[n], counts);
				got[n] += counts[0];
			}
		}
		r->ee = false;
		r->in_switch = true;
		assert_int_equal(pmuvirt_switch(&r->pc, NULL), 0);
		r->in_switch = false;
		ee_on(r);
		print_message("POWER%u: %u alerts, %u during a switch, %u of nobody\n", p, r->alerts,
			      r->alerts_in_switch, r->nobody);
		for (i = 0; i + 1 < NOWN; i++) {
			pmuvirt_take_overflows(v[i], counts);
			got[i] += counts[0];
			if (got[i] != rig_val(v[i], 0) / c[i][0].period)
				fail_msg("POWER%u context %u: %llu notifications for a count of %llu", p, i,
					 (unsigned long long)got[i],
					 (unsigned long long)rig_val(v[i], 0));
		}
		/* Switches really counted their own events into alerts. */
		assert_true(r->alerts_in_switch >= 20);
		assert_int_equal(r->off_period, 0);
		for (i = 0; i < NOWN; i++)
			free(v[i]);
		rig_free(r);
	}
}

/* A failing SPR access faults the context and leaves the counters stopped. */
static void test_fault(void **state)
{
	static const struct cdesc c[] = { { INS, UK }, { CYC, UK } };
	struct rig *r = rig_new(8);
	struct pmuvirt_ctx *a = ctx_new(r, 2, c);

	fakehw_fail_access(r->hw, 3);
	assert_int_equal(pmuvirt_switch(&r->pc, a), -EFAULT);
	assert_true(a->flags & PMUVIRT_CTX_FAULTED);
	assert_null(r->pc.running);
	assert_true(mmcr0(r) & M0(FC));
	rig_run(r->hw, FAKEHW_INSTRUCTIONS, 10, false);
	assert_int_equal(rig_val(a, 0), 0);
	free(a);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amode_exact_past_2e32),
		cmocka_unit_test(test_switch_costs),
		cmocka_unit_test(test_imode_reload),
		cmocka_unit_test(test_imode_long_period),
		cmocka_unit_test(test_postponed_exceptions),
		cmocka_unit_test(test_negative_pmc_left_behind),
		cmocka_unit_test(test_switch_own_events),
		cmocka_unit_test(test_fault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
