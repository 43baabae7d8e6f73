/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Paravirtual backend: counters of the instance below, reached by hypercalls and shared records. */
#include "pmuvirt_arch.h"
#include "pmuvirt_probe.h"
#include "pv/pmuvirt_pv.h"

/*
 * Image: reg[s] describes the counter on slot s, which is counter s of the
 * VCPU below: the event code in bits 0-47, the PMUVIRT_CTR_* flags in bits
 * 48-55, bit 63 for i-mode.  used has a bit per counter.
 */
#define PV_FLAGS_SHIFT	48
#define PV_IMODE	((uint64_t)1 << 63)
#define PV_EVENT_MASK	(((uint64_t)1 << 48) - 1)
/* Replica target of a counter pushed out of reach: never matches a wanted point. */
#define PV_PARKED	(~(uint64_t)0)

static struct pmuvirt_pv_vcpu *vcpu_of(struct pmuvirt_pcpu *pc)
{
	return (struct pmuvirt_pv_vcpu *)pc->hw_arg;
}

static int PMUVIRT_CF_CHECK pv_encode(const struct pmuvirt_pmu *pmu,
				      const struct pmuvirt_control *ctl, const uint8_t *slots,
				      struct pmuvirt_hwctl *img, struct pmuvirt_error *err)
{
	struct pmuvirt_control below = *ctl;
	const struct pmuvirt_pmu *lower = (const struct pmuvirt_pmu *)pmu->lower;
	unsigned int i;
	int ret;

	/* The counters must fit the PMU below in the order the slots give. */
	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_counter_ctl *c = &ctl->counter[i];

		if (c->event & ~PV_EVENT_MASK)
			return pmuvirt_fail(err, (int)i, "event code too wide", -EINVAL);
		below.counter[slots[i]] = *c;
	}
	ret = pmuvirt_validate(lower, &below, 0, NULL, NULL, err);
	if (ret) {
		if (err && err->counter >= 0) {
			for (i = 0; i < ctl->nr_counters; i++)
				if (slots[i] == err->counter) {
					err->counter = (int)i;
					break;
				}
		}
		return ret;
	}
	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_counter_ctl *c = &ctl->counter[i];

		img->reg[slots[i]] = c->event | ((uint64_t)c->flags << PV_FLAGS_SHIFT) |
				     (c->period ? PV_IMODE : 0);
		img->used |= 1u << slots[i];
	}
	return 0;
}

static bool PMUVIRT_CF_CHECK pv_slot_ok(const struct pmuvirt_pmu *pmu,
					const struct pmuvirt_counter_ctl *ctr, unsigned int slot)
{
	return true;
}

static int PMUVIRT_CF_CHECK pv_load(struct pmuvirt_pcpu *pc, const struct pmuvirt_ctx *ctx)
{
	struct pmuvirt_pv_vcpu *v = vcpu_of(pc);
	const struct pmuvirt_hwctl *img = &ctx->img;
	struct pmuvirt_control ctl;
	unsigned int s, i;
	int ret;

	/* The core calls this only when the VCPU does not hold @img already. */
	ctl.version = PMUVIRT_ABI_VERSION;
	ctl.flags = 0;
	ctl.reserved = 0;
	ctl.nr_counters = 0;
	for (s = 0; s < PMUVIRT_HWCTL_REGS; s++) {
		struct pmuvirt_counter_ctl *c = &ctl.counter[s];

		if (!(img->used & (1u << s)))
			break;
		c->event = img->reg[s] & PV_EVENT_MASK;
		c->flags = (uint32_t)((img->reg[s] >> PV_FLAGS_SHIFT) & 0xff);
		c->reserved = 0;
		c->period = 0;
		for (i = 0; i < ctx->nr_counters; i++)
			if (ctx->counter[i].slot == s)
				c->period = ctx->counter[i].period;
		ctl.nr_counters = s + 1;
	}
	pc->cache_known = 0;
	/* accounting: the hypercall counts as one control write */
	pc->stats.ctl_writes++;
	pc->stats.reg_writes++;
	v->hypercalls++;
	ret = v->ops->set_control(v->arg, &ctl);
	if (ret)
		return ret;
	pc->cache = *img;
	pc->cache_known = ~0u;
	for (s = 0; s < PMUVIRT_MAX_COUNTERS; s++) {
		v->target[s] = 0;
		v->period[s] = 0;
	}
	return 1;	/* one call: the whole control */
}

/* The VCPU's counters belong to the VCPU: an idle thread slot need not stop them. */
static int PMUVIRT_CF_CHECK pv_stop(struct pmuvirt_pcpu *pc)
{
	return 0;
}

static int PMUVIRT_CF_CHECK pv_read(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t *val)
{
	struct pmuvirt_pv_vcpu *v = vcpu_of(pc);

	pc->stats.reg_reads++;
	return v->ops->read(v->arg, slot, val);
}

static int PMUVIRT_CF_CHECK pv_write(struct pmuvirt_pcpu *pc, unsigned int slot, uint64_t val)
{
	return -EOPNOTSUPP;
}

/*
 * Where a VCPU counter armed to signal at @target and every @period after
 * it signals next once its value is @start: the first such point above
 * @start.  @start comes from below and is not trusted, so this is a
 * division, not a loop, and 0 (unknown) when the point would pass 2^64 - 1
 * or land on PV_PARKED.
 */
static uint64_t pv_next_target(uint64_t target, uint64_t period, uint64_t start)
{
	uint64_t step;

	if (target > start)
		return target;
	/* at most start - target: fits */
	step = pmuvirt_div64(start - target, period) * period;
	if (step + period < step || target + step + period < target)
		return 0;
	target += step + period;
	return target == PV_PARKED ? 0 : target;
}

/*
 * One arm hypercall for the slots in @mask, none when @mask is empty; its
 * result (0 without one) in *@ret.  True when it was made and succeeded.
 */
static bool pv_arm_below(struct pmuvirt_pcpu *pc, struct pmuvirt_pv_vcpu *v, uint32_t mask,
			 const uint64_t *remaining, const uint64_t *period, int *ret)
{
	*ret = 0;
	if (!mask)
		return false;
	pc->stats.reg_writes++;
	v->hypercalls++;
	*ret = v->ops->arm(v->arg, mask, remaining, period);
	return !*ret;
}

/*
 * Arm the slots in @slots.  The VCPU below re-arms itself by its period
 * after each signal; when every wanted point is where the VCPU will signal
 * anyway, no hypercall is needed.  Otherwise one hypercall arms them all
 * and the start values are read after it returns (compensation).
 * Returns the number of hypercalls made (0 or 1).
 */
static int PMUVIRT_CF_CHECK pv_arm(struct pmuvirt_pcpu *pc, uint32_t slots,
				   const uint64_t *remaining, const uint64_t *period,
				   uint64_t *start)
{
	struct pmuvirt_pv_vcpu *v = vcpu_of(pc);
	uint32_t need = 0;
	unsigned int s;
	int ret;

	for (s = 0; s < PMUVIRT_MAX_COUNTERS; s++) {
		if (!(slots & (1u << s)))
			continue;
		if (v->target[s] && v->target[s] != PV_PARKED && period[s] &&
		    v->period[s] == period[s]) {
			v->target[s] = pv_next_target(v->target[s], period[s], start[s]);
			if (v->target[s] && start[s] + remaining[s] > start[s] &&
			    v->target[s] == start[s] + remaining[s])
				continue;
		}
		need |= 1u << s;
	}
	if (!pv_arm_below(pc, v, need ? slots : 0, remaining, period, &ret))
		return ret;
	for (s = 0; s < PMUVIRT_MAX_COUNTERS; s++) {
		if (!(slots & (1u << s)))
			continue;
		pc->stats.reg_reads++;
		ret = v->ops->read(v->arg, s, &start[s]);
		if (ret)
			return ret;
		/* A point past 2^64 - 1 (a hostile value from below) stays unknown. */
		v->target[s] = start[s] + remaining[s];
		if (v->target[s] <= start[s] || v->target[s] == PV_PARKED)
			v->target[s] = 0;
		v->period[s] = period[s];
	}
	return 1;
}

static int PMUVIRT_CF_CHECK pv_pmi_begin(struct pmuvirt_pcpu *pc, uint32_t *status)
{
	*status = pc->cache.used;
	return 0;
}

/*
 * A virtual interrupt with no context running here: the VCPU's i-mode
 * counters were left armed by the last thread (switching to idle costs no
 * hypercall).  Push their next signal out of reach with one hypercall, so
 * an idle VCPU is not interrupted again.
 */
static int PMUVIRT_CF_CHECK pv_pmi_end(struct pmuvirt_pcpu *pc, uint32_t clear)
{
	struct pmuvirt_pv_vcpu *v = vcpu_of(pc);
	uint64_t remaining[PMUVIRT_MAX_COUNTERS], period[PMUVIRT_MAX_COUNTERS];
	uint32_t mask = 0;
	unsigned int s;
	int ret;

	if (pc->running || pc->cache_known != ~0u)
		return 0;
	for (s = 0; s < PMUVIRT_MAX_COUNTERS; s++) {
		if (!(pc->cache.used & (1u << s)) || !(pc->cache.reg[s] & PV_IMODE))
			continue;
		if (v->target[s] == PV_PARKED)
			continue;
		remaining[s] = (uint64_t)1 << 63;
		period[s] = v->period[s] ? v->period[s] : 1;
		mask |= 1u << s;
	}
	if (!pv_arm_below(pc, v, mask, remaining, period, &ret))
		return ret;
	for (s = 0; s < PMUVIRT_MAX_COUNTERS; s++)
		if (mask & (1u << s))
			v->target[s] = PV_PARKED;
	return 0;
}

static const struct pmuvirt_arch_ops pmuvirt_pv_ops = {
	.name = "pv",
	.flags = PMUVIRT_OPS_STACKED,
	.encode = pv_encode,
	.slot_ok = pv_slot_ok,
	.load = pv_load,
	.stop = pv_stop,
	.read = pv_read,
	.write = pv_write,
	.arm = pv_arm,
	.pmi_begin = pv_pmi_begin,
	.pmi_end = pv_pmi_end,
};

int pmuvirt_pv_probe(struct pmuvirt_pmu *pmu, const struct pmuvirt_pmu *lower)
{
	unsigned int s, n = 0;
	uint32_t events = 0;

	if (!lower || !lower->nr_slots)
		return -ENODEV;
	for (s = 0; s < lower->nr_slots; s++)
		events |= lower->slot[s].events;
	n = lower->nr_slots;
	if (n > PMUVIRT_MAX_COUNTERS)
		n = PMUVIRT_MAX_COUNTERS;

	pmuvirt_pmu_clear(pmu);
	pmu->ops = &pmuvirt_pv_ops;
	pmu->arch = PMUVIRT_ARCH_PV;
	pmu->model = lower->arch;
	pmu->nr_gp = n;
	pmuvirt_pmu_set_name(pmu, "pv on ", lower->name);
	for (s = 0; s < n; s++)
		pmuvirt_pmu_add_slot(pmu, PMUVIRT_CLASS_GP, s, 64, events, s + 1, 0);
	pmu->lower = (void *)lower;
	return 0;
}

/*
 * The PMU a description gives: the core validates controls on its slots;
 * raw codes are refused, because only the level below could check them,
 * and it would do so at the first switch, too late.
 */
static int PMUVIRT_CF_CHECK desc_encode(const struct pmuvirt_pmu *pmu,
					const struct pmuvirt_control *ctl, const uint8_t *slots,
					struct pmuvirt_hwctl *img, struct pmuvirt_error *err)
{
	unsigned int i;

	for (i = 0; i < ctl->nr_counters; i++)
		if (ctl->counter[i].flags & PMUVIRT_CTR_RAW)
			return pmuvirt_fail(err, (int)i,
					    "raw events are not offered on a described PMU",
					    -EOPNOTSUPP);
	return 0;
}

/* Validation only (pv_encode): no operation that runs a CPU. */
static const struct pmuvirt_arch_ops pmuvirt_pv_desc_ops = {
	.name = "described",
	.encode = desc_encode,
};

#define DESC_EVENTS	(((1u << PMUVIRT_EV_NR) - 1) & ~(1u << PMUVIRT_EV_NONE))

/* Check @d; on success @n holds its slots per class. */
static bool desc_ok(const struct pmuvirt_pv_desc *d, unsigned int n[3])
{
	unsigned int s;
	bool named = false;

	n[0] = n[1] = n[2] = 0;
	if (!d->nr_slots || d->nr_slots > PMUVIRT_MAX_COUNTERS ||
	    d->nr_slots > PMUVIRT_MAX_SLOTS)
		return false;
	for (s = 0; s < sizeof(d->name); s++)
		named |= d->name[s] == 0;
	if (!named)
		return false;
	for (s = 0; s < d->nr_slots; s++) {
		const struct pmuvirt_slot *x = &d->slot[s];

		if (x->cls > PMUVIRT_CLASS_TSC || x->width < 1 || x->width > 64 || x->flags ||
		    x->reserved || (x->events & ~DESC_EVENTS))
			return false;
		n[x->cls]++;
	}
	return n[PMUVIRT_CLASS_TSC] <= 1;
}

int pmuvirt_pv_probe_desc(struct pmuvirt_pmu *pmu, struct pmuvirt_pv_below *below,
			  const struct pmuvirt_pv_desc *desc)
{
	struct pmuvirt_pmu *l = &below->pmu;
	unsigned int s, n[3];

	if (!desc_ok(desc, n))
		return -EPROTO;
	pmuvirt_pmu_clear(l);
	l->ops = &pmuvirt_pv_desc_ops;
	l->arch = desc->arch;
	l->model = desc->model;
	l->caps = desc->caps;
	l->nr_gp = n[PMUVIRT_CLASS_GP];
	l->nr_fixed = n[PMUVIRT_CLASS_FIXED];
	pmuvirt_pmu_set_name(l, NULL, desc->name);
	for (s = 0; s < desc->nr_slots; s++) {
		const struct pmuvirt_slot *x = &desc->slot[s];

		pmuvirt_pmu_add_slot(l, x->cls, x->index, x->width, x->events, x->user_index,
				     x->threshold);
	}
	return pmuvirt_pv_probe(pmu, l);
}
