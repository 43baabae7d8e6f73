/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * A hypervisor on QEMU's powernv8 machine: the image runs in hypervisor
 * state (MSR[HV] = 1, entered by skiboot) and runs three guest domains at
 * MSR[HV] = 0, one VCPU each, in POWER8's offset real mode: LPCR[VPM0] = 0,
 * so a guest's real addresses are ORed with RMOR and bounded by LPCR[RMLS]
 * (32 MiB); each domain has its own LPID, and writing LPIDR flushes QEMU's
 * translations.  A guest's sc 1 arrives at vector 0xc00 in hypervisor state
 * and is served here; the hypervisor decrementer preempts guests.
 *
 * The performance monitor belongs to the hypervisor: pmuvirt with the POWER
 * backend, one struct pmuvirt_ppc_domain per domain (H_PERFMON), one
 * context per VCPU.  A guest that takes a performance monitor exception at
 * its own vector 0xf00 hands it over with QPNV_H_PMI.  An exception raised
 * while the hypervisor runs (interrupts off) waits: the VCPU takes it when
 * it resumes, or, before the hypervisor switches to another VCPU (or
 * changes the VCPU's control), the hypervisor takes it for its owner.
 * Every alert is followed to its notification and each domain's totals are
 * compared with its count (docs/power.md, H_PERFMON; the checks:
 * docs/testing/qemu-ppc.md).
 */
#include "board.h"
#include "spr.h"
#include "hv.h"
#include "hvcall.h"
#include "ppc/pmuvirt_ppc.h"

#define SPR_DSISR	18
#define SPR_DAR		19
#define SPR_SRR0	26
#define SPR_SRR1	27
#define SPR_SPRG0	272
#define SPR_SPRG1	273
#define SPR_SPRG2	274
#define SPR_SPRG3	275
#define SPR_HDEC	310
#define SPR_RMOR	312
#define SPR_LPCR	318
#define SPR_LPIDR	319

#define LPCR_VPM0	(1ull << 63)
#define LPCR_VPM1	(1ull << 62)
#define LPCR_RMLS	(0xfull << 26)
#define LPCR_RMLS_32M	(8ull << 26)
#define LPCR_ILE	(1ull << 25)
#define LPCR_AIL	(3ull << 23)
#define LPCR_LPES0	(1ull << 3)
#define LPCR_HDICE	1ull

#define NDOM		3
/*
 * RMLS 8: 32 MiB.  An odd RMLS would set LPCR bit 37, which QEMU 10.0
 * takes for ISA 3.1's HAIL on POWER8 too (POWER8's LPCR mask covers RMLS):
 * hypervisor interrupts from a guest would then go to 0xc000000000004000.
 */
#define RMA_SIZE	(32ull << 20)
#define HDEC_OFF	0x7fffffffu
#define MAXCTR		4
/*
 * What one exit may add to a VCPU's instruction count besides its loops and
 * the hypervisor's work loops: its call paths, the exit, the hypercall, a
 * switch and the entry (a few hundred, see the printed maximum).
 */
#define EXIT_COST	2000
/* QEMU counts instructions per translation block: at most 512 per block. */
#define TB_INSNS	512

enum { RUN, WAIT, DONE };

/* The alerts of the counters, followed from MMCR0[PMAO] to the notification. */
enum { BY_GUEST, BY_HV, NBY };
static const char *const by_name[NBY] = {
	"taken in the guest and handed over (QPNV_H_PMI)",
	"taken by the hypervisor before a switch or a control change",
};

/**
 * struct seg - a VCPU's counting under one control (from QPNV_H_SET_CONTROL
 * to H_PERFMON off, a new control or the end)
 */
struct seg {
	bool open;
	uint64_t period;	/* of counter 0, the i-mode counter; 0 none */
	uint64_t work;		/* loop iterations the guest reported */
	uint64_t hv_insns;	/* instructions of the hypervisor's work loops */
	uint64_t exits;
	uint64_t delivered;	/* notifications of counter 0 taken by the guest */
	uint64_t alerts;	/* alerts of this control resolved with a notification */
};

struct domain;

struct vcpu {
	struct hv_regs regs;
	struct domain *dom;
	unsigned int state;
	unsigned int sync;
	bool resched;
	/* The guest's own privileged registers while another VCPU runs. */
	uint64_t srr0, srr1, sprg[4], dar, dsisr;
	struct pmuvirt_ctx *ctx;
	uint64_t mem[(sizeof(struct pmuvirt_ctx) + MAXCTR * sizeof(struct pmuvirt_counter)) / 8 + 1];
	struct seg seg;
	uint64_t phase_work;
	uint64_t exact[2][2], exact_work[2], exact_exits[2];
	long guest_result;
	uint64_t guest_taken, delivered;
	uint64_t credited;		/* notifications of counter 0, all controls */
	uint64_t alerts;		/* alerts of all controls */
	uint64_t segments;
	uint64_t entries_frozen, entries_off;
	uint64_t max_exit_cost;
	bool alert_at_exit;
	char line[120];
	unsigned int linelen;
};

struct domain {
	unsigned int id;
	uint64_t rmor;
	struct pmuvirt_ppc_domain mode;
	struct vcpu vcpu;
};

static struct domain doms[NDOM];
static struct pmuvirt_pmu pmu;
static struct pmuvirt_pcpu pc;
static struct vcpu *cur;	/* the VCPU whose state is on the CPU */
static unsigned int phase;
static uint64_t lpcr_guest;
static int failures;
static uint64_t seed = 0x2545f4914f6cdd1dull;

static struct {
	uint64_t exits, hcalls, preempts, entries, privileged;
	uint64_t by[NBY];		/* alerts resolved, by where */
	uint64_t resumed;		/* pending when the hypervisor resumed their VCPU */
	uint64_t raised_in_hv;		/* postponed ones raised in hypervisor state */
	uint64_t lost;			/* alerts resolved without a notification */
	uint64_t stale_guest;		/* QPNV_H_PMI with no alert pending */
	uint64_t stale_switch;		/* alerts of nobody found right after a switch */
	uint64_t pos_bad;		/* notifications off their domain's period or owner */
} st;

extern const char qpnv_guest_start[], qpnv_guest_end[];

static void check(bool ok, const char *what)
{
	kprintf("  %s: %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

static uint64_t rnd(void)
{
	return qppc_xorshift(&seed);
}

/* Hypervisor work: 2n + 1 instructions with interrupts off. */
static void hv_spin(uint64_t n)
{
	uint64_t s = 0;

	if (n)
		__asm__ __volatile__("mtctr	%1\n"
				     "1:	addi	%0, %0, 1\n\t"
				     "bdnz	1b"
				     : "+r"(s) : "r"(n) : "ctr");
}

static uint64_t mmcr0(void)
{
	return mfspr(SPR_MMCR0);
}

/* ---- following alerts ---- */

static bool imode(const struct vcpu *v)
{
	return v->ctx->nr_counters && v->ctx->counter[0].period;
}

static uint64_t pending0(const struct vcpu *v)
{
	return imode(v) ? v->ctx->counter[0].pending : 0;
}

struct follow {
	bool alert;
	uint64_t pending;
};

/* Before an operation that may fold @v's counters: is an alert outstanding? */
static void follow_begin(const struct vcpu *v, struct follow *f)
{
	f->alert = (mmcr0() & MMCR0_PMAO) != 0;
	f->pending = pending0(v);
}

/*
 * After it: an outstanding alert must have become a notification of @v,
 * and a notification must sit exactly on a multiple of the domain's period
 * (QEMU clamps the signalling PMC at 0x80000000 and freezes all, FCECE).
 */
static void follow_end(struct vcpu *v, const struct follow *f, unsigned int by)
{
	uint64_t now = pending0(v), n, want;

	if (!f->alert) {
		if (now != f->pending) {
			st.pos_bad++;
			kprintf("  domain %u: a notification without an alert (%s)\n", v->dom->id,
				by_name[by]);
		}
		return;
	}
	if (now == f->pending) {
		st.lost++;
		kprintf("  domain %u: an alert (%s) gave no notification\n", v->dom->id, by_name[by]);
		return;
	}
	st.by[by]++;
	v->seg.alerts++;
	n = v->seg.delivered + now;
	want = n * v->seg.period;
	if (v->ctx->counter[0].count != want) {
		st.pos_bad++;
		kprintf("  domain %u: notification %llu at count %llu, not %llu\n", v->dom->id, n,
			v->ctx->counter[0].count, want);
	}
}

/*
 * An exception pending while the hypervisor runs, before it switches away
 * from @v or changes @v's control: take it now, for @v (pc->running).
 */
static void settle(struct vcpu *v)
{
	struct follow f;

	if (!(mmcr0() & MMCR0_PMAO))
		return;
	if (!v->alert_at_exit)
		st.raised_in_hv++;
	follow_begin(v, &f);
	if (pmuvirt_pmi(&pc, NULL))
		check(false, "pmuvirt_pmi");
	follow_end(v, &f, BY_HV);
}

/* ---- segments: the ground truth of one control ---- */

static void seg_open(struct vcpu *v, const struct pmuvirt_control *c)
{
	memset(&v->seg, 0, sizeof(v->seg));
	v->seg.open = c->nr_counters != 0;
	v->seg.period = c->nr_counters ? c->counter[0].period : 0;
}

/* What a control left: its counts and the notifications not taken. */
struct seg_end {
	bool valid;
	uint64_t vals[MAXCTR];
	uint64_t pending;
};

static void seg_end_read(struct vcpu *v, struct seg_end *e)
{
	e->valid = v->seg.open && v->seg.period && v->ctx->nr_counters == 2;
	if (!e->valid)
		return;
	if (pmuvirt_read(v->ctx, e->vals)) {
		check(false, "read at the end of a control");
		e->valid = false;
	}
	e->pending = v->ctx->counter[0].pending;
}

/*
 * The VCPU's control ended (suspended): every notification of counter 0 was
 * taken by the guest or is pending, together they are the count over the
 * period, and each came from one alert.  Both counts hold the guest's
 * loops, the hypervisor's work and a bounded cost per exit; the i-mode
 * count may miss what QEMU drops when it clamps the signalling PMC (less
 * than a translation block per alert).
 */
static void seg_finish(struct vcpu *v, const struct seg_end *e)
{
	struct seg *s = &v->seg;
	uint64_t want, lo, hi, cost = 0;
	const uint64_t *vals = e->vals;
	bool ok;

	s->open = false;
	if (!e->valid)
		return;
	want = vals[0] / s->period;
	lo = 2 * s->work;
	hi = lo + s->hv_insns + s->exits * EXIT_COST;
	if (vals[1] >= lo + s->hv_insns && s->exits)
		cost = (vals[1] - lo - s->hv_insns) / s->exits;
	if (cost > v->max_exit_cost)
		v->max_exit_cost = cost;
	ok = s->delivered + e->pending == want && s->alerts == want && vals[1] >= lo &&
	     vals[1] <= hi && vals[0] + s->alerts * TB_INSNS >= lo && vals[0] <= hi;
	kprintf("  domain %u control %llu: period %llu, count %llu (a-mode %llu; loops 2*%llu, "
		"hypervisor %llu, %llu exits, +%llu per exit), notifications %llu taken + %llu "
		"pending = %llu (count/period %llu), %llu alerts\n",
		v->dom->id, v->segments, s->period, vals[0], vals[1], s->work, s->hv_insns,
		s->exits, cost, s->delivered, e->pending, s->delivered + e->pending, want, s->alerts);
	if (!ok)
		check(false, "a control's notifications and counts match its ground truth");
	v->credited += s->delivered + e->pending;
	v->alerts += s->alerts;
	v->segments++;
}

static void seg_close(struct vcpu *v)
{
	struct seg_end e;

	seg_end_read(v, &e);
	seg_finish(v, &e);
}

/* ---- guest memory and registers ---- */

static void *guest_ptr(const struct vcpu *v, uint64_t gra, uint64_t len, uint64_t align)
{
	if (gra & (align - 1) || gra >= RMA_SIZE || len > RMA_SIZE - gra)
		return NULL;
	return (void *)(uintptr_t)(v->dom->rmor + gra);
}

static void vcpu_save(struct vcpu *v)
{
	v->srr0 = mfspr(SPR_SRR0);
	v->srr1 = mfspr(SPR_SRR1);
	v->sprg[0] = mfspr(SPR_SPRG0);
	v->sprg[1] = mfspr(SPR_SPRG1);
	v->sprg[2] = mfspr(SPR_SPRG2);
	v->sprg[3] = mfspr(SPR_SPRG3);
	v->dar = mfspr(SPR_DAR);
	v->dsisr = mfspr(SPR_DSISR);
}

static void vcpu_load(struct vcpu *v)
{
	mtspr(SPR_SRR0, v->srr0);
	mtspr(SPR_SRR1, v->srr1);
	mtspr(SPR_SPRG0, v->sprg[0]);
	mtspr(SPR_SPRG1, v->sprg[1]);
	mtspr(SPR_SPRG2, v->sprg[2]);
	mtspr(SPR_SPRG3, v->sprg[3]);
	mtspr(SPR_DAR, v->dar);
	mtspr(SPR_DSISR, v->dsisr);
	mtspr(SPR_RMOR, v->dom->rmor);
	mtspr(SPR_LPCR, lpcr_guest);
	mtspr(SPR_LPIDR, v->dom->id + 1);	/* flushes QEMU's translations */
	__asm__ __volatile__("isync" ::: "memory");
}

/*
 * Hand the counters from @from (running, or NULL) to @to (or NULL).  A
 * pending exception is taken for @from first.  An alert raised during the
 * switch itself belongs to @from if its count reached the boundary before
 * the switch stopped counting (the switch's stop withdraws the exception;
 * @from's last sample has the notification), and to @to if its counter,
 * armed close to its next notification, reached it after the switch
 * started counting again.  An alert of nobody (a counter crossing after
 * its owner's last sample, or a PMC left negative when counting starts)
 * is a failure: pmuvirt writes the counters with counting stopped.
 */
static void ctr_switch(struct vcpu *from, struct vcpu *to)
{
	struct follow fo, fi;
	bool out = false;

	if (from) {
		settle(from);
		follow_begin(from, &fo);
	}
	if (pmuvirt_switch(&pc, to ? to->ctx : NULL))
		check(false, "pmuvirt_switch");
	if (from && pending0(from) != fo.pending) {
		fo.alert = true;	/* the load may have cleared PMAO since */
		follow_end(from, &fo, BY_HV);
		st.raised_in_hv++;
		out = true;
	}
	if (!(mmcr0() & MMCR0_PMAO))
		return;
	if (to)
		follow_begin(to, &fi);
	if (pmuvirt_pmi(&pc, NULL))
		check(false, "pmuvirt_pmi");
	if (to && pending0(to) != fi.pending) {
		follow_end(to, &fi, BY_HV);
		st.raised_in_hv++;
	} else if (!out)
		st.stale_switch++;
}

/* Put @next's counters and state on the CPU (NULL: nobody's). */
static void switch_to(struct vcpu *next)
{
	if (next == cur)
		return;
	if (cur)
		vcpu_save(cur);
	ctr_switch(cur, next);
	cur = next;
	if (next)
		vcpu_load(next);
}

/* ---- hypervisor calls ---- */

static void console(struct vcpu *v, uint64_t len, uint64_t w0, uint64_t w1)
{
	uint64_t w[2] = { w0, w1 };
	const char *c = (const char *)w;
	uint64_t i;

	for (i = 0; i < len; i++) {
		if (c[i] != '\n' && v->linelen < sizeof(v->line) - 1) {
			v->line[v->linelen++] = c[i];
			continue;
		}
		if (c[i] != '\n')
			continue;
		v->line[v->linelen] = 0;
		kprintf("  [domain %u] %s\n", v->dom->id, v->line);
		v->linelen = 0;
	}
}

/* Empty the controls of a domain's VCPUs: the monitor went off. */
static void retire(struct vcpu *v)
{
	static const struct pmuvirt_control none = { .version = PMUVIRT_ABI_VERSION };
	bool running = pc.running == v->ctx;

	if (running)
		ctr_switch(v, NULL);
	seg_close(v);
	if (pmuvirt_ppc_domain_set_control(&v->dom->mode, NULL, v->ctx, &none, NULL))
		check(false, "an empty control is always accepted");
	seg_open(v, &none);
	if (running)
		ctr_switch(NULL, v);
}

static long h_perfmon(struct vcpu *v, uint64_t set, uint64_t reset)
{
	struct domain *d = v->dom;
	bool was = pmuvirt_ppc_perfmon_enabled(&d->mode);
	long rc = pmuvirt_ppc_h_perfmon(&d->mode, set, reset);

	if (rc == PMUVIRT_PPC_H_SUCCESS && was && !pmuvirt_ppc_perfmon_enabled(&d->mode))
		retire(&d->vcpu);
	return rc;
}

/*
 * A new control for the calling VCPU, through pmuvirt's H_PERFMON gate:
 * H_AUTHORITY while the domain has the monitor off, H_PARAMETER for a
 * control pmuvirt refuses; nothing changes on an error.
 */
static long h_set_control(struct vcpu *v, uint64_t addr, uint64_t *errctr)
{
	struct pmuvirt_control c;
	struct pmuvirt_error err = { -1, "" };
	const void *p = guest_ptr(v, addr, sizeof(c), 8);
	bool running = pc.running == v->ctx;
	struct seg_end e;
	int ret;

	*errctr = (uint64_t)-1;
	if (!p)
		return H_PARAMETER;
	memcpy(&c, p, sizeof(c));	/* one read of the guest's bytes */
	/* The old control's last count and notifications, then the new one. */
	if (running)
		ctr_switch(v, NULL);
	seg_end_read(v, &e);
	ret = pmuvirt_ppc_domain_set_control(&v->dom->mode, NULL, v->ctx, &c, &err);
	if (!ret) {
		seg_finish(v, &e);
		seg_open(v, &c);
	}
	if (running)
		ctr_switch(NULL, v);
	*errctr = (uint64_t)(int64_t)err.counter;
	if (!ret)
		return H_SUCCESS;
	if (ret == -EOPNOTSUPP && !pmuvirt_ppc_perfmon_enabled(&v->dom->mode))
		return H_AUTHORITY;
	return ret == -EFAULT ? H_HARDWARE : H_PARAMETER;
}

static long h_read(struct vcpu *v, uint64_t addr, uint64_t *nr)
{
	uint64_t vals[PMUVIRT_MAX_COUNTERS], *p = guest_ptr(v, addr, sizeof(vals), 8);

	if (!p)
		return H_PARAMETER;
	memset(vals, 0, sizeof(vals));
	if (v->ctx->nr_counters && pmuvirt_read(v->ctx, vals))
		return H_HARDWARE;
	memcpy(p, vals, sizeof(vals));
	*nr = v->ctx->nr_counters;
	return H_SUCCESS;
}

static long h_take(struct vcpu *v, uint64_t addr, uint64_t *mask)
{
	uint32_t counts[PMUVIRT_MAX_COUNTERS], *p = guest_ptr(v, addr, sizeof(counts), 4);

	if (!p)
		return H_PARAMETER;
	memset(counts, 0, sizeof(counts));
	*mask = v->ctx->nr_counters ? pmuvirt_take_overflows(v->ctx, counts) : 0;
	if (imode(v)) {
		v->seg.delivered += counts[0];
		v->delivered += counts[0];
	}
	memcpy(p, counts, sizeof(counts));
	return H_SUCCESS;
}

static long h_pmi(struct vcpu *v, uint64_t *mask)
{
	struct follow f;
	uint32_t m = 0;

	follow_begin(v, &f);
	if (!f.alert)
		st.stale_guest++;
	if (pmuvirt_pmi(&pc, &m))
		return H_HARDWARE;
	follow_end(v, &f, BY_GUEST);
	*mask = m;
	return H_SUCCESS;
}

static void barrier(unsigned int to);

static long h_sync(struct vcpu *v, uint64_t to, uint64_t work)
{
	unsigned int i;

	if (to != v->sync + 1)
		return H_PARAMETER;
	v->phase_work = work;
	if (v->seg.open)
		v->seg.work += work;
	v->state = WAIT;
	v->sync = (unsigned int)to;
	v->resched = true;
	for (i = 0; i < NDOM; i++)
		if (doms[i].vcpu.state == RUN)
			return H_SUCCESS;
	barrier((unsigned int)to);
	return H_SUCCESS;
}

static void hypercall(struct vcpu *v)
{
	uint64_t *g = v->regs.gpr;
	long rc;

	st.hcalls++;
	if (v->regs.msr & MSR_PR) {
		st.privileged++;
		g[3] = (uint64_t)H_PRIVILEGE;
		return;
	}
	switch (g[3]) {
	case H_PUT_TERM_CHAR:
		rc = g[5] > 16 ? H_PARAMETER : H_SUCCESS;
		if (rc == H_SUCCESS)
			console(v, g[5], g[6], g[7]);
		break;
	case H_PERFMON:
		rc = h_perfmon(v, g[4], g[5]);
		break;
	case QPNV_H_SET_CONTROL:
		rc = h_set_control(v, g[4], &g[4]);
		break;
	case QPNV_H_READ:
		rc = h_read(v, g[4], &g[4]);
		break;
	case QPNV_H_TAKE:
		rc = h_take(v, g[4], &g[4]);
		break;
	case QPNV_H_PMI:
		rc = h_pmi(v, &g[4]);
		break;
	case QPNV_H_YIELD:
		v->resched = true;
		rc = H_SUCCESS;
		break;
	case QPNV_H_SYNC:
		rc = h_sync(v, g[4], g[5]);
		break;
	case QPNV_H_REPORT:
		if (v->seg.open)
			v->seg.work += g[4];
		rc = H_SUCCESS;
		break;
	case QPNV_H_DONE:
		v->guest_result = (long)g[4];
		v->guest_taken = g[5];
		v->state = DONE;
		v->resched = true;
		rc = H_SUCCESS;
		break;
	default:
		rc = H_FUNCTION;
		break;
	}
	g[3] = (uint64_t)rc;
}

/* ---- phases ---- */

static void exact_record(unsigned int run)
{
	unsigned int i;

	for (i = 0; i < NDOM; i++) {
		struct vcpu *v = &doms[i].vcpu;

		v->exact_work[run] = v->phase_work;
		v->exact_exits[run] = v->seg.exits;
		if (v->ctx->nr_counters == 2 && pmuvirt_read(v->ctx, v->exact[run]))
			check(false, "read after an exact run");
	}
}

/*
 * Two runs of the same schedule, the second with longer loops: each
 * domain's counts grow by exactly its own extra instructions (two per
 * iteration), whatever the other domains ran between its slices.
 */
static void exact_compare(void)
{
	bool ok = true;
	unsigned int i, k;

	kprintf("exact: two runs of the same schedule, the second with longer loops\n");
	for (i = 0; i < NDOM; i++) {
		struct vcpu *v = &doms[i].vcpu;
		uint64_t more = 2 * (v->exact_work[1] - v->exact_work[0]);

		if (!v->exact[0][0]) {
			kprintf("  domain %u: no counters (monitor off), loops 2*%llu and 2*%llu\n", i,
				v->exact_work[0], v->exact_work[1]);
			continue;
		}
		for (k = 0; k < 2; k++) {
			uint64_t d = v->exact[1][k] - v->exact[0][k];

			kprintf("  domain %u instructions on slot %u: run 0 %llu (loops 2*%llu), run 1 %llu "
				"(loops 2*%llu): +%llu, want +%llu; %llu exits\n", i, v->ctx->counter[k].slot,
				v->exact[0][k], v->exact_work[0], v->exact[1][k], v->exact_work[1], d,
				more, v->exact_exits[1]);
			if (d != more)
				ok = false;
		}
	}
	check(ok, "each domain's counts grow by exactly its own extra work");
}

/*
 * Everybody reached phase @to: switch out, look at the counts, go on.  The
 * exact runs start from the same state: counters zero, the cache of the
 * control registers empty, no VCPU with a control (each guest sets its own
 * again).
 */
static void barrier(unsigned int to)
{
	static const struct pmuvirt_control none = { .version = PMUVIRT_ABI_VERSION };
	unsigned int i;

	switch_to(NULL);
	if (to == QPNV_PHASE_EXACT1)
		exact_record(0);
	if (to == QPNV_PHASE_EXACT0 || to == QPNV_PHASE_EXACT1) {
		for (i = 0; i < NDOM; i++)
			if (pmuvirt_set_control(NULL, doms[i].vcpu.ctx, &none, NULL))
				check(false, "an empty control is always accepted");
		for (i = 0; i < 6; i++)
			spr_hw_ops.write_reg(NULL, SPR_PMC1 + i, 0);
		pmuvirt_pcpu_invalidate(&pc);
	}
	if (to == QPNV_PHASE_PMI) {
		exact_record(1);
		exact_compare();
		kprintf("exceptions: i-mode counters with each domain's period, preemption by the "
			"hypervisor decrementer, hypervisor work with interrupts off after each exit\n");
	}
	for (i = 0; i < NDOM; i++) {
		struct vcpu *v = &doms[i].vcpu;

		if (to == QPNV_PHASE_END) {
			seg_close(v);
			if (pmuvirt_set_control(NULL, v->ctx, &none, NULL))
				check(false, "an empty control is always accepted");
			seg_open(v, &none);
		}
		if (v->state == WAIT)
			v->state = RUN;
	}
	phase = to;
}

/* ---- the scheduler ---- */

static struct vcpu *pick(struct vcpu *last)
{
	unsigned int i, start = last ? last->dom->id : NDOM - 1;

	if (last && last->state == RUN && !last->resched)
		return last;
	for (i = 1; i <= NDOM; i++) {
		struct vcpu *v = &doms[(start + i) % NDOM].vcpu;

		if (v->state == RUN)
			return v;
	}
	return NULL;
}

static void run_once(struct vcpu *v)
{
	uint64_t m0, h;
	unsigned long vec;

	v->resched = false;
	m0 = mmcr0();
	if (!v->ctx->nr_counters) {
		v->entries_off++;
		if (m0 & MMCR0_FC)
			v->entries_frozen++;
	}
	st.entries++;
	mtspr(SPR_HDEC, phase == QPNV_PHASE_PMI ? 2000 + rnd() % 30000 : HDEC_OFF);
	vec = hv_enter(&v->regs);
	mtspr(SPR_HDEC, HDEC_OFF);
	v->alert_at_exit = (mmcr0() & MMCR0_PMAO) != 0;
	st.exits++;
	v->seg.exits++;
	if (v->regs.msr & MSR_HV) {
		kprintf("hv: vector %lx taken in hypervisor state at %llx\n", vec, v->regs.pc);
		board_exit(false);
	}
	switch (vec) {
	case 0xc00:
		hypercall(v);
		break;
	case 0x980:
		st.preempts++;
		v->resched = true;
		break;
	default:
		kprintf("hv: domain %u left by vector %lx at %llx, msr %llx\n", v->dom->id, vec,
			v->regs.pc, v->regs.msr);
		check(false, "guests leave by hypervisor calls and the decrementer only");
		v->state = DONE;
		v->guest_result = -1;
		break;
	}
	if (phase == QPNV_PHASE_PMI && cur == v) {
		h = rnd() % 3000;
		hv_spin(h);
		if (v->seg.open)
			v->seg.hv_insns += 2 * h + 1;
	}
	/* Pending and the VCPU goes on: it takes the exception itself. */
	if (cur == v && pick(v) == v && (mmcr0() & MMCR0_PMAO)) {
		st.resumed++;
		if (!v->alert_at_exit)
			st.raised_in_hv++;
	}
}

static void load_guest(struct domain *d)
{
	uint64_t n = (uint64_t)(qpnv_guest_end - qpnv_guest_start), a;
	struct vcpu *v = &d->vcpu;

	memcpy((void *)(uintptr_t)d->rmor, qpnv_guest_start, n);
	for (a = 0; a < n; a += 32)
		__asm__ __volatile__("dcbst 0, %0" : : "r"(d->rmor + a) : "memory");
	__asm__ __volatile__("sync" ::: "memory");
	for (a = 0; a < n; a += 32)
		__asm__ __volatile__("icbi 0, %0" : : "r"(d->rmor + a) : "memory");
	__asm__ __volatile__("sync; isync" ::: "memory");
	memset(&v->regs, 0, sizeof(v->regs));
	v->regs.pc = 0;
	v->regs.msr = MSR_SF | MSR_ME;
	v->regs.gpr[3] = d->id;
	v->dom = d;
	v->state = RUN;
}

static int setup(void)
{
	unsigned int i;
	int ret;

	ret = pmuvirt_ppc_probe(&pmu, &spr_hw_ops, NULL);
	if (ret)
		return ret;
	ret = pmuvirt_pcpu_init(&pc, &pmu, &spr_hw_ops, NULL, 0);
	if (ret)
		return ret;
	/* Whatever the firmware left: frozen and zero. */
	mtspr(SPR_MMCR0, MMCR0_FC);
	mtspr(SPR_MMCR1, 0);
	mtspr(SPR_MMCR2, 0);
	mtspr(SPR_MMCRA, 0);
	for (i = 0; i < 6; i++)
		spr_hw_ops.write_reg(NULL, SPR_PMC1 + i, 0);
	pmuvirt_pcpu_invalidate(&pc);
	lpcr_guest = (mfspr(SPR_LPCR) & ~(LPCR_VPM0 | LPCR_VPM1 | LPCR_RMLS | LPCR_ILE |
					   LPCR_AIL | LPCR_LPES0 | LPCR_HDICE)) |
		     LPCR_RMLS_32M | LPCR_HDICE;
	mtspr(SPR_HDEC, HDEC_OFF);
	mtspr(SPR_LPCR, lpcr_guest);
	for (i = 0; i < NDOM; i++) {
		struct domain *d = &doms[i];
		struct vcpu *v = &d->vcpu;

		d->id = i;
		d->rmor = (i + 1) * RMA_SIZE;
		pmuvirt_ppc_domain_init(&d->mode);
		v->ctx = (struct pmuvirt_ctx *)v->mem;
		ret = pmuvirt_ctx_init(v->ctx, pmuvirt_ctx_size(MAXCTR), &pmu);
		if (!ret)
			ret = pmuvirt_ctx_set_domain(v->ctx, i + 1);
		if (ret)
			return ret;
		load_guest(d);
	}
	kprintf("hv: %s (PVR %llx), %u domains of %llu MiB at RMOR %llx.., LPCR %llx, guest image "
		"%lu bytes\n", pmu.name, mfspr(SPR_PVR), NDOM, RMA_SIZE >> 20, doms[0].rmor,
		lpcr_guest, (unsigned long)(qpnv_guest_end - qpnv_guest_start));
	return 0;
}

static void report(void)
{
	uint64_t alerts = st.by[BY_GUEST] + st.by[BY_HV], postponed = st.by[BY_HV] + st.resumed;
	bool guests = true, frozen = true, credit = true;
	uint64_t seg_alerts = 0;
	unsigned int i;

	kprintf("hv: %llu guest entries, %llu exits (%llu hypervisor calls, %llu of them from "
		"problem state, %llu preemptions)\n", st.entries, st.exits, st.hcalls, st.privileged,
		st.preempts);
	kprintf("hv: %llu exceptions: %llu taken in the guest and handed over (QPNV_H_PMI), %llu "
		"taken by the hypervisor before a switch or a control change\n", alerts,
		st.by[BY_GUEST], st.by[BY_HV]);
	kprintf("hv: %llu postponed (pending while the hypervisor ran: %llu taken by the "
		"hypervisor, %llu by their VCPU when it resumed), %llu of them raised in "
		"hypervisor state\n", postponed, st.by[BY_HV], st.resumed, st.raised_in_hv);
	kprintf("hv: %llu lost, %llu notifications off their period or owner, %llu QPNV_H_PMI "
		"with nothing pending, %llu alerts of nobody during a switch\n", st.lost, st.pos_bad,
		st.stale_guest, st.stale_switch);
	for (i = 0; i < NDOM; i++) {
		struct vcpu *v = &doms[i].vcpu;

		kprintf("hv: domain %u: %s, %llu controls with an i-mode counter, %llu notifications "
			"credited, %llu taken by the guest (guest says %llu), entries without "
			"counters %llu (frozen %llu), cost per exit at most %llu, guest result %ld\n",
			i, pmuvirt_ppc_perfmon_enabled(&doms[i].mode) ? "monitor on" : "monitor off",
			v->segments, v->credited, v->delivered, v->guest_taken, v->entries_off,
			v->entries_frozen, v->max_exit_cost, v->guest_result);
		if (v->guest_result != 0)
			guests = false;
		if (v->entries_frozen != v->entries_off)
			frozen = false;
		if (v->delivered != v->guest_taken)
			credit = false;
		seg_alerts += v->alerts;
	}
	check(guests, "every guest's checks of the calls and its counts pass");
	check(st.lost == 0 && st.pos_bad == 0 && seg_alerts == alerts,
	      "every alert becomes exactly one notification of its own domain, on its period");
	check(credit, "the guests took what the hypervisor delivered");
	check(frozen, "a VCPU without counters (monitor off) runs with the counters frozen");
	check(alerts >= 800 && st.by[BY_HV] >= 20 && st.resumed >= 20 && st.raised_in_hv >= 20,
	      "exceptions in guests and in the hypervisor, taken by both");
	check(st.stale_switch == 0, "no alert of nobody during a switch");
	check(doms[0].vcpu.segments == 1 && doms[1].vcpu.segments == 2 && doms[2].vcpu.segments == 0,
	      "domain 1 turned the monitor off and on again; domain 2 never had counters");
	check(board_irqs[0] == 0 && board_irqs[1] == 0, "no interrupt in hypervisor state");
	check(spr_stats.errors == 0, "no access to an unknown SPR");
}

void board_main(uint64_t r3, uint64_t r8, uint64_t r9)
{
	struct vcpu *v = NULL;
	int ret;

	board_init(r3, r8, r9);
	kprintf("%s: start (powernv hypervisor, H_PERFMON)\n", QPPC_MARKER);
	ret = setup();
	check(ret == 0, "pmuvirt on the host's PMU; three domains loaded");
	if (ret)
		board_exit(false);
	while ((v = pick(v))) {
		switch_to(v);
		run_once(v);
	}
	switch_to(NULL);
	report();
#ifdef QPPC_FORCE_FAIL
	check(false, "forced failure (QPPC_FORCE_FAIL)");
#endif
	kprintf("%s: %d failure(s)\n", QPPC_MARKER, failures);
	board_exit(failures == 0);
}
