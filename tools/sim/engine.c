/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pmuvirt-sim engine: drives the real pmuvirt core through a scenario.
 *
 * Below: one strict fake PMU per physical CPU and one hypervisor instance
 * (a struct pmuvirt_pcpu per PCPU, a struct pmuvirt_ctx per VCPU, a shared
 * record per VCPU).  Above: one guest instance per domain on the PV
 * backend (a struct pmuvirt_pcpu per VCPU, a struct pmuvirt_ctx and a
 * shared record per thread).  Guest hypercalls cost the scenario's pv-cost
 * events on the PCPU that runs the calling VCPU, before the hypervisor
 * handles them.  A PMI of the hypervisor instance that notifies a VCPU
 * raises its virtual interrupt, which the guest handles when the VCPU next
 * runs guest code (after the current step).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "fakehw_models.h"
#include "pmuvirt_arch.h"
#include "x86/pmuvirt_x86.h"
#include "ppc/pmuvirt_ppc.h"

_Static_assert(SIM_NUM_MAX == PMUVIRT_PERIOD_MAX, "scenario periods end where pmuvirt's do");
#include "pv/pmuvirt_pv.h"
#include <pmuvirt/user.h>

struct eng;

struct eng_vcpu {
	struct eng *e;
	unsigned int domain, index;
	int id;				/* index into eng.vcpu_by_id */
	int pcpu;			/* where it is scheduled, -1 none */
	int thread;			/* the guest's current thread, -1 idle */
	bool virq;			/* virtual interrupt pending */
	struct pmuvirt_ctx *ctx;	/* hypervisor instance */
	struct pmuvirt_pcpu gpc;	/* guest instance's view of this VCPU */
	struct pmuvirt_pv_vcpu pv;
};

struct eng_domain {
	struct pmuvirt_pmu gpmu;
	struct eng_vcpu *vcpus;
	struct pmuvirt_shared_ctx *recs;	/* per-VCPU records, one array */
	struct pmuvirt_user_vcpus user;
};

struct eng_thread {
	struct pmuvirt_ctx *ctx;
	struct pmuvirt_shared_ctx rec;
	int vcpu;			/* global VCPU index it runs on, -1 none */
	unsigned int domain;
};

/* What a fake's PMI callback needs: the engine and the PCPU it interrupts. */
struct pmi_arg {
	struct eng *e;
	unsigned int pcpu;
};

struct eng {
	const struct scenario *sc;
	struct sim_result *res;
	bool power;
	struct pmuvirt_pmu pmu;
	struct fakehw **hw;
	struct pmuvirt_pcpu *pc;
	int *pcpu_vcpu;			/* global VCPU index on each PCPU, -1 idle */
	struct pmi_arg *pmi_args;	/* one per PCPU */
	struct eng_domain *dom;
	struct eng_vcpu **vcpu_by_id;	/* global VCPU index -> vcpu */
	unsigned int nr_vcpus;
	struct eng_thread *thr;
	uint64_t user_reads;		/* rdpmc/rdtsc done by user-mode readers */
	int err;
	char *errbuf;
	size_t errlen;
	int line;
};

static int fail(struct eng *e, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (e->err)
		return -1;
	e->err = -1;
	if (e->line > 0)
		n = snprintf(e->errbuf, e->errlen, "line %d: ", e->line);
	if (n < 0 || (size_t)n >= e->errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(e->errbuf + n, e->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_hw(struct eng *e)
{
	unsigned int p;

	for (p = 0; p < e->sc->nr_pcpus; p++)
		if (fakehw_stats(e->hw[p])->errors)
			return fail(e, "fake hardware of pcpu %u refused an access: %s", p,
				    fakehw_last_error(e->hw[p]));
	return 0;
}

static struct pmuvirt_ctx *new_ctx(const struct pmuvirt_pmu *pmu)
{
	size_t sz = pmuvirt_ctx_size(PMUVIRT_MAX_COUNTERS);
	struct pmuvirt_ctx *ctx = malloc(sz);

	if (ctx && pmuvirt_ctx_init(ctx, sz, pmu)) {
		free(ctx);
		ctx = NULL;
	}
	return ctx;
}

static void to_control(const struct sim_counter_set *set, struct pmuvirt_control *ctl)
{
	unsigned int i;

	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PMUVIRT_ABI_VERSION;
	ctl->nr_counters = set->n;
	for (i = 0; i < set->n; i++) {
		ctl->counter[i].event = (uint64_t)set->c[i].event + 1;
		ctl->counter[i].period = set->c[i].period;
		ctl->counter[i].flags = PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL;
	}
}

/* ---- hardware ---- */

static void hv_pmi(void *arg);


static void run_events(struct eng *e, unsigned int pcpu, const uint64_t *events, bool kernel)
{
	unsigned int ev;

	for (ev = 0; ev < SIM_NR_EVENTS && !e->err; ev++)
		if (events[ev] && fakehw_run(e->hw[pcpu], (enum fakehw_event)ev, events[ev], kernel))
			fail(e, "fake hardware of pcpu %u: %s", pcpu, fakehw_last_error(e->hw[pcpu]));
}

/* The hypervisor's PMI handler: a notification for a VCPU raises its VIRQ. */
static void hv_pmi(void *arg)
{
	struct pmi_arg *pa = arg;
	struct eng *e = pa->e;
	uint32_t mask = 0;
	int v = e->pcpu_vcpu[pa->pcpu];
	int ret = pmuvirt_pmi(&e->pc[pa->pcpu], &mask);

	if (ret) {
		fail(e, "pmuvirt_pmi on pcpu %u: %s", pa->pcpu, pmuvirt_strerror(ret));
		return;
	}
	if (mask && v >= 0) {
		pmuvirt_take_overflows(e->vcpu_by_id[v]->ctx, NULL);
		e->vcpu_by_id[v]->virq = true;
	}
}

/* User-mode read of the hardware below a VCPU record: rdpmc/rdtsc on that PCPU. */
static int user_hw_read(void *arg, uint32_t pcpu, uint32_t index, uint64_t *val)
{
	struct eng *e = arg;
	const struct pmuvirt_hw_ops *ops;

	if (pcpu >= e->sc->nr_pcpus)
		return -EINVAL;
	ops = fakehw_ops(e->hw[pcpu]);
	e->user_reads++;
	if (index == PMUVIRT_SHARED_TSC)
		return ops->read_tsc(e->hw[pcpu], val);
	return ops->read_counter(e->hw[pcpu], e->power ? index : index - 1, val);
}

/* ---- the hypercalls a guest instance makes, as the hypervisor handles them ---- */

static struct pmuvirt_pcpu *hv_pc_of(struct eng_vcpu *v)
{
	return v->pcpu >= 0 ? &v->e->pc[v->pcpu] : NULL;
}

static void pay_hypercall(struct eng_vcpu *v)
{
	if (v->pcpu >= 0)
		run_events(v->e, (unsigned int)v->pcpu, v->e->sc->pv_cost, true);
}

/*
 * docs/security.md, rule 18: a running VCPU with counters finds no counter
 * that counted for another domain since its last write.  (A VCPU without
 * counters takes no ownership and may not read the hardware.)
 */
static void check_isolation(struct eng *e, const struct eng_vcpu *v)
{
	uint64_t foreign;

	if (v->pcpu < 0 || !pmuvirt_ctx_nr_counters(v->ctx))
		return;
	foreign = fakehw_taint(e->hw[v->pcpu]) & ~(1ull << v->domain);
	if (foreign)
		fail(e, "domain isolation: on pcpu %d, VCPU %u.%u finds a counter that counted for domain %d",
		     v->pcpu, v->domain, v->index, __builtin_ctzll(foreign));
}

static int hc_set_control(void *arg, const struct pmuvirt_control *ctl)
{
	struct eng_vcpu *v = arg;
	struct pmuvirt_error err = { 0, NULL };
	int ret;

	pay_hypercall(v);
	ret = pmuvirt_set_control(hv_pc_of(v), v->ctx, ctl, &err);
	if (ret)
		fail(v->e, "hypervisor refused the control of VCPU %u.%u: %s (counter %d: %s)",
		     v->domain, v->index, pmuvirt_strerror(ret), err.counter,
		     err.reason ? err.reason : "");
	else
		check_isolation(v->e, v);
	return ret;
}

static int hc_arm(void *arg, uint32_t mask, const uint64_t *remaining, const uint64_t *period)
{
	struct eng_vcpu *v = arg;
	int ret;

	pay_hypercall(v);
	ret = pmuvirt_arm_counters(hv_pc_of(v), v->ctx, mask, remaining, period);
	if (ret)
		fail(v->e, "hypervisor refused to arm counters 0x%x of VCPU %u.%u: %s", mask,
		     v->domain, v->index, pmuvirt_strerror(ret));
	return ret;
}

/* The guest reads its VCPU's counter from the shared record plus rdpmc: no hypercall. */
static int hc_read(void *arg, uint32_t counter, uint64_t *val)
{
	struct eng_vcpu *v = arg;
	struct eng_domain *d = &v->e->dom[v->domain];

	return pmuvirt_shared_read(&d->recs[v->index], counter, 1, user_hw_read, v->e, val);
}

static const struct pmuvirt_pv_lower_ops hc_ops = {
	.set_control = hc_set_control,
	.arm = hc_arm,
	.read = hc_read,
};

/* ---- setup ---- */

static int make_hw(struct eng *e, unsigned int p)
{
	const struct sim_pmu *m = &e->sc->pmu;
	struct fakehw_x86_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	switch (m->model) {
	case SIM_MODEL_POWER:
		e->hw[p] = fakehw_ppc_new(m->version);
		return e->hw[p] ? 0 : -1;
	case SIM_MODEL_INTEL:
		cfg.vendor = FAKEHW_INTEL;
		cfg.version = m->version;
		cfg.nr_gp = m->gp;
		cfg.nr_fixed = m->fixed;
		cfg.width = m->width;
		cfg.fw_write = m->fw_write;
		break;
	case SIM_MODEL_AMD_K8:
		cfg = (struct fakehw_x86_config)FAKEHW_X86_AMD_K8;
		break;
	case SIM_MODEL_AMD_FAM17H:
		cfg = (struct fakehw_x86_config)FAKEHW_X86_AMD_17H;
		break;
	case SIM_MODEL_AMD_PERFMONV2:
		cfg = (struct fakehw_x86_config)FAKEHW_X86_AMD_19H;
		cfg.nr_gp = m->gp;	/* the scenario's geometry */
		break;
	}
	e->hw[p] = fakehw_x86_new(&cfg);
	return e->hw[p] ? 0 : -1;
}

static int setup(struct eng *e)
{
	const struct scenario *sc = e->sc;
	struct pmuvirt_control ctl;
	struct pmuvirt_error perr;
	unsigned int p, d, v, t, id = 0;
	int ret;

	e->power = sc->pmu.model == SIM_MODEL_POWER;
	e->hw = calloc(sc->nr_pcpus, sizeof(*e->hw));
	e->pc = calloc(sc->nr_pcpus, sizeof(*e->pc));
	e->pcpu_vcpu = calloc(sc->nr_pcpus, sizeof(*e->pcpu_vcpu));
	e->pmi_args = calloc(sc->nr_pcpus, sizeof(*e->pmi_args));
	e->dom = calloc(sc->nr_domains, sizeof(*e->dom));
	e->thr = calloc(sc->nr_threads ? sc->nr_threads : 1, sizeof(*e->thr));
	for (d = 0; d < sc->nr_domains; d++)
		e->nr_vcpus += sc->domains[d].nr_vcpus;
	e->vcpu_by_id = calloc(e->nr_vcpus ? e->nr_vcpus : 1, sizeof(*e->vcpu_by_id));
	if (!e->hw || !e->pc || !e->pcpu_vcpu || !e->pmi_args || !e->dom || !e->thr || !e->vcpu_by_id)
		return fail(e, "out of memory");

	for (p = 0; p < sc->nr_pcpus; p++) {
		if (make_hw(e, p))
			return fail(e, "cannot model PMU %s", sc->pmu.name);
		e->pcpu_vcpu[p] = -1;
	}
	ret = e->power ? pmuvirt_ppc_probe(&e->pmu, fakehw_ops(e->hw[0]), e->hw[0]) :
			 pmuvirt_x86_probe(&e->pmu, fakehw_ops(e->hw[0]), e->hw[0]);
	if (ret)
		return fail(e, "probing %s failed: %s", sc->pmu.name, pmuvirt_strerror(ret));
	for (p = 0; p < sc->nr_pcpus; p++) {
		pmuvirt_pcpu_init(&e->pc[p], &e->pmu, fakehw_ops(e->hw[p]), e->hw[p], p);
		e->pmi_args[p].e = e;
		e->pmi_args[p].pcpu = p;
		fakehw_set_pmi(e->hw[p], hv_pmi, &e->pmi_args[p]);
	}

	for (d = 0; d < sc->nr_domains; d++) {
		struct eng_domain *dom = &e->dom[d];
		unsigned int n = sc->domains[d].nr_vcpus;

		if (pmuvirt_pv_probe(&dom->gpmu, &e->pmu))
			return fail(e, "no PV PMU on %s", sc->pmu.name);
		dom->vcpus = calloc(n, sizeof(*dom->vcpus));
		dom->recs = calloc(n, sizeof(*dom->recs));
		if (!dom->vcpus || !dom->recs)
			return fail(e, "out of memory");
		dom->user.vcpus = dom->recs;
		dom->user.nr_vcpus = n;
		dom->user.hw = user_hw_read;
		dom->user.hw_arg = e;
		for (v = 0; v < n; v++) {
			struct eng_vcpu *vc = &dom->vcpus[v];

			vc->e = e;
			vc->domain = d;
			vc->index = v;
			vc->pcpu = -1;
			vc->thread = -1;
			vc->ctx = new_ctx(&e->pmu);
			if (!vc->ctx)
				return fail(e, "out of memory");
			/* as Xen tags them: the VCPUs of one domain share its counters */
			pmuvirt_ctx_set_domain(vc->ctx, d);
			pmuvirt_ctx_attach_shared(vc->ctx, &dom->recs[v]);
			vc->pv.ops = &hc_ops;
			vc->pv.arg = vc;
			pmuvirt_pcpu_init(&vc->gpc, &dom->gpmu, NULL, &vc->pv, v);
			vc->id = (int)id;
			e->vcpu_by_id[id++] = vc;
		}
	}

	for (t = 0; t < sc->nr_threads; t++) {
		struct eng_thread *th = &e->thr[t];

		th->domain = sc->threads[t].domain;
		th->vcpu = -1;
		th->ctx = new_ctx(&e->dom[th->domain].gpmu);
		if (!th->ctx)
			return fail(e, "out of memory");
		pmuvirt_ctx_attach_shared(th->ctx, &th->rec);
		to_control(&sc->threads[t].ctrs, &ctl);
		ret = pmuvirt_set_control(NULL, th->ctx, &ctl, &perr);
		if (ret) {
			e->line = sc->threads[t].line;
			return fail(e, "pmuvirt refused the counters: %s (counter %d: %s)",
				    pmuvirt_strerror(ret), perr.counter, perr.reason);
		}
	}
	return 0;
}

static struct eng_vcpu *vcpu_of(struct eng *e, unsigned int d, unsigned int v)
{
	return &e->dom[d].vcpus[v];
}

/* Notifications a thread has pending are delivered to it. */
static void deliver(struct eng *e, unsigned int t)
{
	uint32_t counts[PMUVIRT_MAX_COUNTERS];
	unsigned int i;

	if (!pmuvirt_take_overflows(e->thr[t].ctx, counts))
		return;
	for (i = 0; i < e->thr[t].ctx->nr_counters && i < SIM_MAX_COUNTERS; i++)
		e->res->threads[t].ctr[i].overflows += counts[i];
}

/* The guest handles its VCPU's virtual interrupt: re-check the current thread. */
static void guest_virq(struct eng *e, struct eng_vcpu *vc, bool force)
{
	unsigned int rounds = 0;

	while ((vc->virq || force) && !e->err) {
		uint32_t mask = 0;
		int ret;

		force = false;
		vc->virq = false;
		if (++rounds > 1000) {
			fail(e, "virtual interrupts of VCPU %u.%u do not settle", vc->domain, vc->index);
			return;
		}
		ret = pmuvirt_pmi(&vc->gpc, &mask);
		if (ret) {
			fail(e, "guest PMI handler: %s", pmuvirt_strerror(ret));
			return;
		}
		if (vc->thread >= 0)
			deliver(e, (unsigned int)vc->thread);
	}
}

static void deliver_virqs(struct eng *e)
{
	unsigned int i;

	for (i = 0; i < e->nr_vcpus && !e->err; i++) {
		struct eng_vcpu *vc = e->vcpu_by_id[i];

		if (vc->virq && vc->pcpu >= 0)
			guest_virq(e, vc, false);
	}
}

static void hv_switch(struct eng *e, unsigned int p, struct eng_vcpu *next)
{
	int ret = pmuvirt_switch(&e->pc[p], next ? next->ctx : NULL);

	e->res->stats.vcpu_switches++;
	if (ret) {
		fail(e, "VCPU switch on pcpu %u: %s", p, pmuvirt_strerror(ret));
		return;
	}
	if (e->pcpu_vcpu[p] >= 0)
		e->vcpu_by_id[e->pcpu_vcpu[p]]->pcpu = -1;
	e->pcpu_vcpu[p] = next ? next->id : -1;
	if (!next) {
		fakehw_set_label(e->hw[p], 0);
		return;
	}
	next->pcpu = (int)p;
	/* From here the hardware counts @next's domain's events. */
	fakehw_set_label(e->hw[p], 1ull << next->domain);
	check_isolation(e, next);
}

static void step_schedule(struct eng *e, const struct sim_step *s)
{
	struct eng_vcpu *vc = vcpu_of(e, s->domain, s->vcpu);

	if (vc->pcpu == (int)s->pcpu)
		return;
	if (vc->pcpu >= 0)
		hv_switch(e, (unsigned int)vc->pcpu, NULL);
	if (!e->err)
		hv_switch(e, s->pcpu, vc);
}

static void step_switch(struct eng *e, const struct sim_step *s)
{
	struct eng_vcpu *vc = vcpu_of(e, s->domain, s->vcpu);
	struct pmuvirt_ctx *next = s->thread >= 0 ? e->thr[s->thread].ctx : NULL;
	int ret;

	if (vc->thread == s->thread)
		return;
	ret = pmuvirt_switch(&vc->gpc, next);
	e->res->stats.thread_switches++;
	if (ret) {
		fail(e, "thread switch on VCPU %u.%u: %s", s->domain, s->vcpu, pmuvirt_strerror(ret));
		return;
	}
	if (vc->thread >= 0)
		e->thr[vc->thread].vcpu = -1;
	vc->thread = s->thread;
	if (s->thread >= 0) {
		e->thr[s->thread].vcpu = vc->id;
		deliver(e, (unsigned int)s->thread);
	}
}

static void step_hyper(struct eng *e, const struct sim_step *s)
{
	struct pmuvirt_pcpu *pc = &e->pc[s->pcpu];
	bool bracket = e->sc->policy == SIM_POLICY_EXCLUDE && pc->running;
	int ret;

	if (bracket && (ret = pmuvirt_pause(pc))) {
		fail(e, "pause on pcpu %u: %s", s->pcpu, pmuvirt_strerror(ret));
		return;
	}
	run_events(e, s->pcpu, s->events, true);
	if (bracket && !e->err && (ret = pmuvirt_resample(pc)))
		fail(e, "resample on pcpu %u: %s", s->pcpu, pmuvirt_strerror(ret));
}

static void step_control(struct eng *e, const struct sim_step *s)
{
	struct eng_thread *th = &e->thr[s->thread];
	struct pmuvirt_control ctl;
	struct pmuvirt_error perr = { 0, NULL };
	struct pmuvirt_pcpu *gpc = th->vcpu >= 0 ? &e->vcpu_by_id[th->vcpu]->gpc : NULL;
	unsigned int i;
	int ret;

	to_control(&s->ctrs, &ctl);
	ret = pmuvirt_set_control(gpc, th->ctx, &ctl, &perr);
	if (ret) {
		fail(e, "pmuvirt refused the control: %s (counter %d: %s)", pmuvirt_strerror(ret),
		     perr.counter, perr.reason ? perr.reason : "");
		return;
	}
	for (i = 0; i < SIM_MAX_COUNTERS; i++)
		e->res->threads[s->thread].ctr[i].overflows = 0;
}

static void step_read(struct eng *e, const struct sim_step *s)
{
	struct eng_thread *th = &e->thr[s->thread];
	struct sim_read_result *r = &e->res->reads[s->read_index];
	int ret;

	ret = pmuvirt_shared_read(&th->rec, 0, th->ctx->nr_counters, pmuvirt_below_vcpu,
				  &e->dom[th->domain].user, r->counts);
	r->nr_counters = th->ctx->nr_counters;
	if (ret)
		fail(e, "user-mode read failed: %d", ret);
}

static void finish(struct eng *e)
{
	const struct scenario *sc = e->sc;
	unsigned int i, t, p;

	/* Pending virtual interrupts are handled when their VCPU runs: count them in. */
	for (i = 0; i < e->nr_vcpus && !e->err; i++) {
		struct eng_vcpu *vc = e->vcpu_by_id[i];

		if (vc->thread >= 0)
			guest_virq(e, vc, true);
	}
	for (t = 0; t < sc->nr_threads && !e->err; t++) {
		uint64_t vals[PMUVIRT_MAX_COUNTERS];
		struct sim_thread_result *tr = &e->res->threads[t];

		if (pmuvirt_read(e->thr[t].ctx, vals)) {
			fail(e, "final read of thread %u failed", t);
			return;
		}
		deliver(e, t);
		tr->nr_counters = e->thr[t].ctx->nr_counters;
		for (i = 0; i < tr->nr_counters && i < SIM_MAX_COUNTERS; i++)
			tr->ctr[i].count = vals[i];
	}
	for (p = 0; p < sc->nr_pcpus; p++) {
		const struct fakehw_stats *st = fakehw_stats(e->hw[p]);

		e->res->stats.msr_reads += st->reg_reads + st->counter_reads + st->tsc_reads;
		e->res->stats.msr_writes += st->reg_writes;
	}
	e->res->stats.msr_reads -= e->user_reads;
	for (i = 0; i < e->nr_vcpus; i++)
		e->res->stats.hypercalls += e->vcpu_by_id[i]->pv.hypercalls;
}

static void teardown(struct eng *e)
{
	const struct scenario *sc = e->sc;
	unsigned int p, d, v, t;

	for (t = 0; e->thr && t < sc->nr_threads; t++)
		free(e->thr[t].ctx);
	for (d = 0; e->dom && d < sc->nr_domains; d++) {
		for (v = 0; e->dom[d].vcpus && v < sc->domains[d].nr_vcpus; v++)
			free(e->dom[d].vcpus[v].ctx);
		free(e->dom[d].vcpus);
		free(e->dom[d].recs);
	}
	for (p = 0; e->hw && p < sc->nr_pcpus; p++)
		fakehw_free(e->hw[p]);
	free(e->hw);
	free(e->pc);
	free(e->pcpu_vcpu);
	free(e->dom);
	free(e->thr);
	free(e->vcpu_by_id);
	free(e->pmi_args);
}

int sim_engine_run(const struct scenario *sc, struct sim_result *res, char *errbuf, size_t errlen)
{
	struct eng e;
	unsigned int i;

	memset(&e, 0, sizeof(e));
	e.sc = sc;
	e.res = res;
	e.errbuf = errbuf;
	e.errlen = errlen;
	if (errlen)
		errbuf[0] = 0;

	if (!setup(&e)) {
		for (i = 0; i < sc->nr_steps && !e.err; i++) {
			const struct sim_step *s = &sc->steps[i];

			e.line = s->line;
			switch (s->kind) {
			case SIM_STEP_SCHEDULE:
				step_schedule(&e, s);
				break;
			case SIM_STEP_DESCHEDULE:
				if (e.pcpu_vcpu[s->pcpu] >= 0)
					hv_switch(&e, s->pcpu, NULL);
				break;
			case SIM_STEP_SWITCH:
				step_switch(&e, s);
				break;
			case SIM_STEP_EXEC:
				run_events(&e, (unsigned int)vcpu_of(&e, s->domain, s->vcpu)->pcpu,
					   s->events, false);
				break;
			case SIM_STEP_HYPER:
				step_hyper(&e, s);
				break;
			case SIM_STEP_CONTROL:
				step_control(&e, s);
				break;
			case SIM_STEP_READ:
				step_read(&e, s);
				break;
			}
			if (!e.err)
				deliver_virqs(&e);
			if (!e.err)
				check_hw(&e);
		}
		e.line = 0;
		if (!e.err)
			finish(&e);
	}
	teardown(&e);
	return e.err;
}
