/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Two levels on the real PMU: a "hypervisor" instance (POWER backend)
 * switches two VCPUs on the CPU; a "guest" instance (PV backend) stacked on
 * it switches threads on each VCPU.  Hypercalls are function calls into the
 * lower instance; the guest reads a VCPU's logical counts through the
 * VCPU's shared record plus mfspr, as a guest kernel would, and a thread's
 * user-mode read goes through both records.  An overflow of the VCPU's
 * counter is a PMI for the hypervisor, which forwards it to the guest
 * (VIRQ), which finds the thread.
 */
#include "board.h"
#include "spr.h"
#include "tests.h"
#include "sched.h"
#include "pv/pmuvirt_pv.h"
#include <pmuvirt/user.h>

#define NV	2
#define NT	5

struct vcpu {
	unsigned int id;
	bool scheduled;
	struct pmuvirt_ctx *ctx;
	uint64_t mem[(sizeof(struct pmuvirt_ctx) +
		      QPPC_MAXCTR * sizeof(struct pmuvirt_counter)) / 8 + 1];
	struct pmuvirt_pcpu gpc;	/* the guest's view of this VCPU */
	struct pmuvirt_pv_vcpu pv;
	uint64_t virqs;
};

static struct pmuvirt_pmu gpmu;
static struct vcpu vcpus[NV];
static struct pmuvirt_shared_ctx vrec[NV];
static struct pmuvirt_shared_ctx trec[NT];
static struct pmuvirt_user_vcpus uv;
static uint64_t user_reads, user_bad;
static struct vcpu *running;	/* the VCPU on the CPU */

/* Thread i runs on VCPU home[i]. */
static const unsigned int home[NT] = { 0, 0, 0, 1, 1 };
static struct qppc_thread gt[NT] = {
	{ .name = "G0", .nev = 1, .ev = { PMUVIRT_EV_INSTRUCTIONS } },
	{ .name = "G1", .nev = 1, .ev = { PMUVIRT_EV_INSTRUCTIONS } },
	{ .name = "G2", .nev = 2, .ev = { PMUVIRT_EV_INSTRUCTIONS, PMUVIRT_EV_CYCLES } },
	{ .name = "G3", .nev = 1, .ev = { PMUVIRT_EV_CYCLES } },
	{ .name = "G4", .nev = 1, .ev = { PMUVIRT_EV_INSTRUCTIONS }, .period = 50000 },
};

/* The hardware below the hypervisor's records: mfspr PMCn, mftb. */
static int hw_real(void *arg, uint32_t cpu, uint32_t index, uint64_t *val)
{
	if (index == PMUVIRT_SHARED_TSC)
		return spr_hw_ops.read_tsc(NULL, val);
	return spr_hw_ops.read_counter(NULL, index, val);
}

static int lo_set_control(void *arg, const struct pmuvirt_control *ctl)
{
	struct vcpu *v = arg;

	return pmuvirt_set_control(v->scheduled ? &qppc_pc : NULL, v->ctx, ctl, NULL);
}

static int lo_arm(void *arg, uint32_t mask, const uint64_t *remaining, const uint64_t *period)
{
	struct vcpu *v = arg;

	return pmuvirt_arm_counters(v->scheduled ? &qppc_pc : NULL, v->ctx, mask, remaining,
				    period);
}

static int lo_read(void *arg, uint32_t counter, uint64_t *val)
{
	struct vcpu *v = arg;

	return pmuvirt_shared_read(&vrec[v->id], counter, 1, hw_real, NULL, val);
}

static const struct pmuvirt_pv_lower_ops lo_ops = {
	.set_control = lo_set_control,
	.arm = lo_arm,
	.read = lo_read,
};

/* Hypervisor PMI; a VCPU counter's notification becomes a VIRQ for the guest. */
static void poll2(struct vcpu *v)
{
	uint32_t mask = 0;
	uint64_t tb;

	if (!(mfspr(SPR_MMCR0) & MMCR0_PMAO))
		return;
	qppc_pmis++;
	tb = mftb();
	if (pmuvirt_pmi(&qppc_pc, &mask))
		kprintf("  hypervisor pmuvirt_pmi failed\n");
	if (pmuvirt_take_overflows(v->ctx, NULL)) {
		v->virqs++;
		if (pmuvirt_pmi(&v->gpc, NULL))
			kprintf("  guest pmuvirt_pmi failed\n");
	}
	qppc_pmi_tb += mftb() - tb;
}

static void hook_stacked(void)
{
	if (running)
		poll2(running);
}

/* A thread reads itself through both shared records, as user code would. */
static void user_check(struct qppc_thread *t, unsigned int i)
{
	uint64_t u, k;

	if (pmuvirt_shared_read(&trec[i], 0, 1, pmuvirt_below_vcpu, &uv, &u)) {
		user_bad++;
		return;
	}
	if (pmuvirt_read(t->ctx, &k) || k < u || k - u > 20000)
		user_bad++;
	user_reads++;
}

static int world_init(void)
{
	unsigned int i;
	int ret;

	ret = pmuvirt_pv_probe(&gpmu, &qppc_pmu);
	for (i = 0; i < NV; i++) {
		struct vcpu *v = &vcpus[i];

		memset(v->mem, 0, sizeof(v->mem));
		v->id = i;
		v->scheduled = false;
		v->virqs = 0;
		v->ctx = (struct pmuvirt_ctx *)v->mem;
		ret |= pmuvirt_ctx_init(v->ctx, pmuvirt_ctx_size(QPPC_MAXCTR), &qppc_pmu);
		ret |= pmuvirt_ctx_set_domain(v->ctx, QPPC_DOMAIN);
		pmuvirt_ctx_attach_shared(v->ctx, &vrec[i]);
		memset(&v->pv, 0, sizeof(v->pv));
		v->pv.ops = &lo_ops;
		v->pv.arg = v;
		ret |= pmuvirt_pcpu_init(&v->gpc, &gpmu, NULL, &v->pv, i);
	}
	for (i = 0; i < NT; i++) {
		ret |= qppc_thread_init(&gt[i], &gpmu, NULL);
		pmuvirt_ctx_attach_shared(gt[i].ctx, &trec[i]);
	}
	uv.vcpus = vrec;
	uv.nr_vcpus = NV;
	uv.hw = hw_real;
	uv.hw_arg = NULL;
	return ret;
}

static int run_world(unsigned int rounds, unsigned int chunks)
{
	unsigned int r, vi, i, c;
	uint32_t counts[QPPC_MAXCTR];
	uint64_t p;
	int ret = 0;

	for (r = 0; r < rounds; r++) {
		for (vi = 0; vi < NV; vi++) {
			struct vcpu *v = &vcpus[vi];

			ret |= pmuvirt_switch(&qppc_pc, v->ctx);
			v->scheduled = true;
			running = v;
			for (i = 0; i < NT; i++) {
				struct qppc_thread *t = &gt[i];

				if (home[i] != vi)
					continue;
				ret |= pmuvirt_switch(&v->gpc, t->ctx);
				p = qppc_pmis;
				for (c = 0; c < chunks; c++) {
					qppc_spin(t->iters);
					poll2(v);
				}
				user_check(t, i);
				t->pmis += qppc_pmis - p;
				t->work += (uint64_t)chunks * t->iters;
				t->slices++;
			}
			v->scheduled = false;
			running = NULL;
		}
	}
	/* Wind down: each guest idles its VCPU, then the hypervisor stops. */
	for (vi = 0; vi < NV; vi++) {
		ret |= pmuvirt_switch(&qppc_pc, vcpus[vi].ctx);
		vcpus[vi].scheduled = true;
		ret |= pmuvirt_switch(&vcpus[vi].gpc, NULL);
		vcpus[vi].scheduled = false;
	}
	ret |= pmuvirt_switch(&qppc_pc, NULL);
	for (i = 0; i < NT; i++) {
		ret |= pmuvirt_read(gt[i].ctx, gt[i].vals);
		pmuvirt_take_overflows(gt[i].ctx, counts);
		gt[i].ovf += counts[0];
	}
	return ret;
}

void tests_stacked(void)
{
	static const uint64_t base[NT] = { 1000, 1500, 700, 2500, 1200 };
	static const uint64_t more[NT] = { 3, 100, 1, 250, 40 };
	const unsigned int rounds = 10, chunks = 4;
	uint64_t first[NT][2], hc[NV], ran;
	bool exact = true, cost = true, notes = true;
	unsigned int run, i, j;
	int ret = 0;

	kprintf("stacked: guest instance (%s) on the hypervisor instance; %u VCPUs, %u threads\n",
		gpmu.name[0] ? gpmu.name : "pv", NV, NT);
	board_pmi_hook = hook_stacked;
	/* Runs 0 and 1: a-mode only, exact; run 2: G4 samples (i-mode). */
	for (run = 0; run < 3; run++) {
		for (i = 0; i < NT; i++)
			gt[i].iters = base[i] + (run == 1 ? more[i] : 0);
		gt[4].period = run == 2 ? 50000 : 0;
		ret |= world_init();
		user_reads = user_bad = 0;
		qppc_pmis = qppc_pmi_tb = 0;
		qppc_pmc_reset();
		ret |= run_world(rounds, chunks);
		if (run < 2 && qppc_pmis)
			exact = false;
		for (i = 0; i < NV; i++)
			hc[i] = vcpus[i].pv.hypercalls;
		for (i = 0; i < NT; i++) {
			struct qppc_thread *t = &gt[i];

			for (j = 0; j < t->nev; j++) {
				int64_t extra = (int64_t)(t->vals[j] - 2 * t->work);
				int64_t per = extra / (int64_t)t->slices;

				if (run == 2)
					continue;
				if (extra < 0 || per >= QPPC_MAX_STACKED_COST)
					cost = false;
				if (!run)
					first[i][j] = t->vals[j];
				else if (t->vals[j] - first[i][j] != 2 * more[i] * chunks * rounds)
					exact = false;
				if (run)
					kprintf("  thread %s on VCPU%u %s: work 2*%llu, logical %llu, "
						"+%lld per switch, run-to-run +%llu (want %llu)\n",
						t->name, home[i],
						t->ev[j] == PMUVIRT_EV_CYCLES ? "cycles" : "instructions",
						t->work, t->vals[j], (long long)per,
						t->vals[j] - first[i][j],
						2 * more[i] * chunks * rounds);
			}
			if (t->period && t->ovf != t->vals[0] / t->period)
				notes = false;
			if (t->period) {
				kprintf("  thread %s (i-mode, period %llu): work 2*%llu, logical %llu, "
					"%u notifications through %llu VIRQs (count/period %llu)\n",
					t->name, t->period, t->work, t->vals[0], t->ovf,
					vcpus[home[i]].virqs, t->vals[0] / t->period);
				ran = 2 * t->work;
				if (!t->ovf || vcpus[home[i]].virqs < t->ovf ||
				    t->vals[0] > ran + t->slices * QPPC_MAX_STACKED_COST ||
				    t->vals[0] + t->pmis * (2 * t->iters + 4000) < ran)
					notes = false;
			}
		}
		kprintf("  run %u: hypercalls VCPU0 %llu, VCPU1 %llu; user reads %llu, bad %llu; "
			"PMIs %llu\n", run, hc[0], hc[1], user_reads, user_bad, qppc_pmis);
	}
	board_pmi_hook = NULL;
	check(ret == 0, "stacked: switches, hypercalls and reads succeed");
	check(exact, "stacked: thread counts grow by exactly 2 per extra iteration");
	check(cost, "stacked: per-switch cost is a small constant (< "
	      QPPC_STR(QPPC_MAX_STACKED_COST) ")");
	check(user_bad == 0 && user_reads > 0, "stacked: user-mode reads through both records agree");
	check(notes, "stacked: guest i-mode notifications match the thread's count");
}
