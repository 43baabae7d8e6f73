/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt on the real (emulated) POWER PMU: a tiny scheduler switches
 * "threads" that run loops of known length on one CPU through
 * pmuvirt_switch(), and each thread's logical count is compared with its
 * work.  QEMU 7.2 raises no performance monitor interrupt, so overflows are
 * found by polling MMCR0[PMAO] and handed to pmuvirt_pmi().
 */
#include "board.h"
#include "spr.h"
#include "tests.h"

#ifndef QPPC_HAVE_PPC
void tests_pmuvirt(void)
{
	kprintf("pmuvirt: POWER backend not present (src/arch/ppc/*.c)\n");
}
#else
#include "ppc/pmuvirt_ppc.h"
#include "sched.h"

struct pmuvirt_pmu qppc_pmu;
struct pmuvirt_pcpu qppc_pc;
uint64_t qppc_pmis;
uint64_t qppc_pmi_tb;	/* time base spent in pmuvirt_pmi() */

/*
 * Zero all PMCs while no context is on the CPU: a-mode contexts never keep
 * raw values across a switch, so this only moves the next crossing of
 * bit 31 (a PMI, lossy when polled) 2^31 events away.
 */
void qppc_pmc_reset(void)
{
	mtspr(787, 0);
	mtspr(788, 0);
	mtspr(789, 0);
	mtspr(790, 0);
	mtspr(791, 0);
	mtspr(792, 0);
}

/* Overflow alert pending?  Then it is a PMI for the running context. */
void qppc_poll(struct pmuvirt_pcpu *pc)
{
	uint32_t mask;
	uint64_t tb;

	if (!(mfspr(SPR_MMCR0) & MMCR0_PMAO))
		return;
	qppc_pmis++;
	tb = mftb();
	if (pmuvirt_pmi(pc, &mask))
		kprintf("  pmuvirt_pmi failed\n");
	qppc_pmi_tb += mftb() - tb;
}

int qppc_thread_init(struct qppc_thread *t, const struct pmuvirt_pmu *pmu,
		     struct pmuvirt_pcpu *pc)
{
	struct pmuvirt_control ctl;
	struct pmuvirt_error err = { 0, "" };
	unsigned int i;
	int ret;

	memset(&ctl, 0, sizeof(ctl));
	memset(t->mem, 0, sizeof(t->mem));
	t->ctx = (struct pmuvirt_ctx *)t->mem;
	ret = pmuvirt_ctx_init(t->ctx, pmuvirt_ctx_size(QPPC_MAXCTR), pmu);
	if (!ret)
		ret = pmuvirt_ctx_set_domain(t->ctx, QPPC_DOMAIN);
	if (ret)
		return ret;
	ctl.version = PMUVIRT_ABI_VERSION;
	ctl.nr_counters = t->nev;
	for (i = 0; i < t->nev; i++) {
		ctl.counter[i].event = t->ev[i];
		if (t->ev[i] != PMUVIRT_EV_TSC)
			ctl.counter[i].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
		ctl.counter[i].period = i == 0 ? t->period : 0;
	}
	ret = pmuvirt_set_control(pc, t->ctx, &ctl, &err);
	if (ret)
		kprintf("  %s: set_control: %s (%s, counter %d)\n", t->name,
			pmuvirt_strerror(ret), err.reason, err.counter);
	t->work = t->slices = t->pmis = t->stopped_tb = t->ovf = 0;
	return ret;
}

/*
 * Switch from @prev to @next (NULL: none).  The time it stops counting
 * (a switch that writes counters stops before it samples @prev and starts
 * after @next's start values are in) is charged to both: at most that
 * much of what each ran goes uncounted.
 */
static int timed_switch(struct pmuvirt_pcpu *pc, struct qppc_thread *prev,
			struct qppc_thread *next)
{
	uint64_t tb = spr_stopped_tb();
	int ret = pmuvirt_switch(pc, next ? next->ctx : NULL);

	tb = spr_stopped_tb() - tb;
	if (prev)
		prev->stopped_tb += tb;
	if (next)
		next->stopped_tb += tb;
	return ret;
}

/*
 * Round-robin: @rounds times, each thread runs one slice of @chunks loops
 * of t->iters iterations, with a poll after each loop.
 */
int qppc_schedule(struct pmuvirt_pcpu *pc, struct qppc_thread *th, unsigned int n,
		  unsigned int rounds, unsigned int chunks)
{
	struct qppc_thread *prev = NULL;
	unsigned int r, i, c;
	uint32_t counts[QPPC_MAXCTR];
	uint64_t p;
	int ret;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++) {
			struct qppc_thread *t = &th[i];

			ret = timed_switch(pc, prev == t ? NULL : prev, t);
			prev = t;
			if (ret)
				return ret;
			p = qppc_pmis;
			for (c = 0; c < chunks; c++) {
				qppc_spin(t->iters);
				qppc_poll(pc);
			}
			t->pmis += qppc_pmis - p;
			t->work += (uint64_t)chunks * t->iters;
			t->slices++;
		}
	}
	ret = timed_switch(pc, prev, NULL);
	for (i = 0; i < n; i++) {
		struct qppc_thread *t = &th[i];

		if (pmuvirt_read(t->ctx, t->vals))
			ret = -EFAULT;
		pmuvirt_take_overflows(t->ctx, counts);
		t->ovf += counts[0];
	}
	return ret;
}

/* Logical count minus known work, per slice: must be one small constant. */
static bool overhead(const struct qppc_thread *t, unsigned int ctr, int64_t *per_slice)
{
	int64_t extra = (int64_t)(t->vals[ctr] - 2 * t->work);

	*per_slice = extra / (int64_t)t->slices;
	return extra >= 0 && *per_slice < QPPC_MAX_SWITCH_COST;
}

static struct qppc_thread exact[4] = {
	{ .name = "A", .nev = 1, .ev = { PMUVIRT_EV_INSTRUCTIONS } },
	{ .name = "B", .nev = 1, .ev = { PMUVIRT_EV_INSTRUCTIONS } },
	{ .name = "C", .nev = 2, .ev = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES } },
	{ .name = "D", .nev = 1, .ev = { PMUVIRT_EV_CYCLES } },
};

/*
 * Exactness: run the same schedule twice, the second time with more work
 * per slice.  The per-switch costs are the same both times, so the logical
 * counts must differ by exactly 2 * (extra iterations) per counter.
 */
static void test_exact(void)
{
	static const uint64_t base[4] = { 1000, 2000, 500, 3000 };
	static const uint64_t more[4] = { 100, 7, 1000, 1 };
	uint64_t first[4][2];
	const unsigned int rounds = 25;
	struct pmuvirt_stats s0;
	uint64_t ctr_writes;
	bool ok_exact = true, ok_cost = true;
	unsigned int run, i, j;
	int ret = 0;

	kprintf("scheduler: 4 threads, %u rounds on one CPU (A, B same control)\n", rounds);
	for (run = 0; run < 2; run++) {
		for (i = 0; i < 4; i++) {
			exact[i].iters = base[i] + (run ? more[i] : 0);
			ret |= qppc_thread_init(&exact[i], &qppc_pmu, &qppc_pc);
		}
		s0 = qppc_pc.stats;
		qppc_pmc_reset();
		/* The counters were written behind the library's back. */
		pmuvirt_pcpu_invalidate(&qppc_pc);
		qppc_pmis = 0;
		ret |= qppc_schedule(&qppc_pc, exact, 4, rounds, 1);
		if (qppc_pmis)
			ok_exact = false;
		for (i = 0; i < 4; i++) {
			struct qppc_thread *t = &exact[i];

			for (j = 0; j < t->nev; j++) {
				int64_t per;

				if (!overhead(t, j, &per))
					ok_cost = false;
				kprintf("  run %u thread %s %s: work 2*%llu, logical %llu, +%lld per switch\n",
					run, t->name,
					t->ev[j] == PMUVIRT_EV_CYCLES ? "cycles" : "instructions",
					t->work, t->vals[j], (long long)per);
				if (!run)
					first[i][j] = t->vals[j];
				else if (t->vals[j] - first[i][j] != 2 * more[i] * rounds)
					ok_exact = false;
			}
		}
		kprintf("  run %u: %llu switches, %llu control writes, %llu counter writes, %llu reads\n",
			run, qppc_pc.stats.switches - s0.switches,
			qppc_pc.stats.ctl_writes - s0.ctl_writes,
			(qppc_pc.stats.reg_writes - s0.reg_writes) -
				(qppc_pc.stats.ctl_writes - s0.ctl_writes),
			qppc_pc.stats.reg_reads - s0.reg_reads);
		/*
		 * One domain: switches write no counter.  Only the first
		 * switch-in after the invalidation re-bases (the counters'
		 * owner is unknown then), once per non-TSC slot.
		 */
		ctr_writes = (qppc_pc.stats.reg_writes - s0.reg_writes) -
			     (qppc_pc.stats.ctl_writes - s0.ctl_writes);
		if (ctr_writes > qppc_pmu.nr_slots - 1u)
			ok_exact = false;
	}
	check(ret == 0, "switches and reads succeed");
	check(ok_exact, "logical counts grow by exactly 2 per extra iteration; no counter writes after the first switch-in");
	check(ok_cost, "per-switch cost is a small constant (< " QPPC_STR(QPPC_MAX_SWITCH_COST) ")");
}

/* Switching between two threads with one control writes no control register. */
static void test_cache(void)
{
	uint64_t w;
	int ret;

	ret = qppc_thread_init(&exact[0], &qppc_pmu, &qppc_pc);
	ret |= qppc_thread_init(&exact[1], &qppc_pmu, &qppc_pc);
	ret |= pmuvirt_switch(&qppc_pc, exact[0].ctx);
	w = qppc_pc.stats.ctl_writes;
	ret |= pmuvirt_switch(&qppc_pc, exact[1].ctx);
	ret |= pmuvirt_switch(&qppc_pc, exact[0].ctx);
	w = qppc_pc.stats.ctl_writes - w;
	ret |= pmuvirt_switch(&qppc_pc, NULL);
	kprintf("  A -> B -> A (same control): %llu control writes\n", w);
	check(ret == 0 && w == 0, "same control: no control register written on a switch");
}

static uint64_t irq0;

static void hook_single(void)
{
	qppc_poll(&qppc_pc);
}

static struct qppc_thread ovf[2] = {
	{ .name = "A", .nev = 2, .ev = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_TSC } },
	{ .name = "I", .nev = 2, .ev = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_TSC },
	  .period = 100000 },
};

/*
 * Overflow: thread I is notified every 100000 instructions (i-mode), thread
 * A counts (a-mode) on the same PMC.  Each also counts the time base, which
 * under -icount shift=0 ticks 0.512 times per instruction and is not frozen
 * with the PMCs: it tells how many instructions the thread really ran.
 * QEMU 7.2 clamps an overflowed PMC and freezes all PMCs (FCECE) until the
 * poll, so a thread loses at most one loop, a poll and the PMI handling
 * per PMI, and what its switches run with counting stopped.
 * Notifications must match the logical count exactly.
 */
static void test_overflow(void)
{
	const unsigned int rounds = 20, chunks = 50;
	uint64_t pmi_cost, irqs;
	bool ok = true;
	unsigned int i;
	int ret;

	board_pmi_hook = hook_single;
	irq0 = board_irqs[1];
	ovf[0].iters = 1000;
	ovf[1].iters = 1000;
	qppc_pmis = 0;
	qppc_pmi_tb = 0;
	ret = qppc_thread_init(&ovf[0], &qppc_pmu, &qppc_pc);
	ret |= qppc_thread_init(&ovf[1], &qppc_pmu, &qppc_pc);
	ret |= qppc_schedule(&qppc_pc, ovf, 2, rounds, chunks);
	board_pmi_hook = NULL;
	irqs = board_irqs[1] - irq0;
	kprintf("overflow: mode %s: %llu of %llu PMIs by interrupt\n",
		irqs ? "interrupt (0xf00)" : "polled MMCR0[PMAO] (no 0xf00 interrupt: QEMU 7.2)",
		irqs, qppc_pmis);
	pmi_cost = qppc_pmis ? qppc_pmi_tb * 1000 / QPPC_TB_PER_1000_INSNS / qppc_pmis : 0;
	for (i = 0; i < 2; i++) {
		struct qppc_thread *t = &ovf[i];
		uint64_t ran = t->vals[1] * 1000 / QPPC_TB_PER_1000_INSNS;
		int64_t lost = (int64_t)(ran - t->vals[0]);
		int64_t stopped = (int64_t)(t->stopped_tb * 1000 / QPPC_TB_PER_1000_INSNS);
		int64_t bound = (int64_t)(t->pmis * (2 * t->iters + 100 + pmi_cost) +
					  t->slices * 4 + 8) + stopped;
		uint64_t want = t->period ? t->vals[0] / t->period : 0;

		kprintf("  thread %s: loops 2*%llu, logical %llu, ran %llu (time base %llu), "
			"lost %lld in %llu PMIs and %llu switches stopped for %lld (bound %lld), "
			"notifications %u (count/period %llu)\n",
			t->name, t->work, t->vals[0], ran, t->vals[1], (long long)lost, t->pmis,
			t->slices + 1, (long long)stopped, (long long)bound, t->ovf, want);
		if (t->vals[0] < 2 * t->work || lost < -(int64_t)(t->slices * 4 + 8) || lost > bound)
			ok = false;
		if (t->ovf != want)
			ok = false;
		/*
		 * With the interrupt, only the handler and the switches run
		 * while frozen: a switch stops counting before it samples the
		 * outgoing thread and starts it after the incoming one's start
		 * values are in.
		 */
		if (irqs && irqs == qppc_pmis &&
		    lost > (int64_t)(t->pmis * (pmi_cost + 1000)) + stopped +
			   (int64_t)(t->slices * 4 + 8))
			ok = false;
	}
	kprintf("  PMIs polled: %llu, about %llu instructions each in pmuvirt_pmi()\n",
		qppc_pmis, pmi_cost);
	check(ret == 0, "overflow run: switches and PMIs succeed");
	check(qppc_pmis >= 20, "overflows seen through PMAO");
	check(ok, "i-mode notifications exact; loss bounded by one loop per PMI");
}

void tests_pmuvirt(void)
{
	unsigned int s;
	int ret;

	ret = pmuvirt_ppc_probe(&qppc_pmu, &spr_hw_ops, NULL);
	check(ret == 0, "pmuvirt_ppc_probe() knows this CPU");
	if (ret)
		return;
	kprintf("pmuvirt: %s, model %u, %u slots:", qppc_pmu.name, qppc_pmu.model,
		qppc_pmu.nr_slots);
	for (s = 0; s < qppc_pmu.nr_slots; s++)
		kprintf(" %u/%u/%u", qppc_pmu.slot[s].cls, qppc_pmu.slot[s].index,
			qppc_pmu.slot[s].width);
	kprintf("\n");
	ret = pmuvirt_pcpu_init(&qppc_pc, &qppc_pmu, &spr_hw_ops, NULL, 0);
	check(ret == 0, "pmuvirt_pcpu_init()");
	test_exact();
	test_cache();
	test_overflow();
#ifdef QPPC_HAVE_PV
	tests_stacked();
#endif
	check(spr_stats.errors == 0, "no access to an unknown SPR");
}
#endif
